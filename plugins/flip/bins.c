/* Particles binned by cell: a stable two-level counting sort (by z-slab
 * over contiguous particle chunks, then by cell within each slab).  The
 * order is the same for any thread count: by cell, then by index. */
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "flip.h"

void flip_bins_free(struct flip_bins *b) {
  free(b->key);
  free(b->perm);
  free(b->tmp);
  free(b->start);
  free(b->slab);
  free(b->count);
  memset(b, 0, sizeof *b);
}

static int reserve(struct flip_bins *b, const struct flip_grid *g, size_t n,
                   int threads) {
  if (!b->start) {
    b->start = malloc((g->ncell + 1) * sizeof *b->start);
    b->slab = malloc(((size_t)g->n[2] + 1) * sizeof *b->slab);
    if (!b->start || !b->slab) return -1;
  }
  if (n > b->cap || !b->key) {
    size_t c = n ? n : 1;
    uint32_t *k = realloc(b->key, c * sizeof *k);
    if (k) b->key = k;
    uint32_t *p = realloc(b->perm, c * sizeof *p);
    if (p) b->perm = p;
    uint32_t *t = realloc(b->tmp, c * sizeof *t);
    if (t) b->tmp = t;
    if (!k || !p || !t) return -1;
    b->cap = c;
  }
  if (threads > b->cap_threads) {
    uint32_t *c = realloc(b->count, (size_t)threads * g->n[2] * sizeof *c);
    if (!c) return -1;
    b->count = c;
    b->cap_threads = threads;
  }
  return 0;
}

/* Slab pass: stable by z-slab into tmp. */
static void sort_slabs(struct flip_bins *b, size_t n, size_t nxy, int nz,
                       int threads) {
#pragma omp parallel num_threads(threads)
  {
    int T = 1, t = 0;
#ifdef _OPENMP
    T = omp_get_num_threads();
    t = omp_get_thread_num();
#endif
    size_t p0 = n * (size_t)t / (size_t)T, p1 = n * (size_t)(t + 1) / T;
    uint32_t *cnt = b->count + (size_t)t * nz;
    memset(cnt, 0, (size_t)nz * sizeof *cnt);
    for (size_t p = p0; p < p1; p++) cnt[b->key[p] / nxy]++;
#pragma omp barrier
#pragma omp single
    {
      uint32_t off = 0;
      for (int k = 0; k < nz; k++) {
        b->slab[k] = off;
        for (int s = 0; s < T; s++) {
          uint32_t c = b->count[(size_t)s * nz + k];
          b->count[(size_t)s * nz + k] = off;
          off += c;
        }
      }
      b->slab[nz] = off;
    }
    for (size_t p = p0; p < p1; p++)
      b->tmp[cnt[b->key[p] / nxy]++] = (uint32_t)p;
  }
}

int flip_bins_sort(struct flip_bins *b, const struct flip_grid *g,
                   const double *x, size_t n, int threads) {
  size_t cw = FLIP_CELL_WORK(g->ncell);
  threads = flip_team(threads, n > cw ? n : cw);
  if (n >= UINT32_MAX || reserve(b, g, n, threads)) return -1;
  b->n = n;
  const size_t nxy = (size_t)g->n[0] * g->n[1];
  const int nz = g->n[2];
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t p = 0; p < n; p++) {
    int c[3];
    flip_cell_of(g, x + 3 * p, c);
    b->key[p] = (uint32_t)flip_cell(g, c[0], c[1], c[2]);
  }
  sort_slabs(b, n, nxy, nz, threads);
  /* Cell pass inside each slab: counts, offsets, placement (start[c] ends
   * at the end of cell c), then shift back to the starts. */
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int k = 0; k < nz; k++) {
    uint32_t *st = b->start + (size_t)k * nxy;
    memset(st, 0, nxy * sizeof *st);
    for (uint32_t q = b->slab[k]; q < b->slab[k + 1]; q++)
      st[b->key[b->tmp[q]] - (size_t)k * nxy]++;
    uint32_t run = b->slab[k];
    for (size_t c = 0; c < nxy; c++) {
      uint32_t cnt = st[c];
      st[c] = run;
      run += cnt;
    }
    for (uint32_t q = b->slab[k]; q < b->slab[k + 1]; q++) {
      uint32_t p = b->tmp[q];
      b->perm[st[b->key[p] - (size_t)k * nxy]++] = p;
    }
    for (size_t c = nxy - 1; c > 0; c--) st[c] = st[c - 1];
    st[0] = b->slab[k];
  }
  b->start[g->ncell] = (uint32_t)n;
  return 0;
}
