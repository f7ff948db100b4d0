/* Uniform grid over a point set (or a subset of it), filled by a stable
 * counting sort: the workspace of collision detection and of the plugins'
 * neighbour lists. */
#include "../base/base.h"
#include "detection.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/status.h>

#ifdef _OPENMP
#include <omp.h>
#endif


/* Cells are made this much larger than the contact distance so that a pair
 * closer than the distance can never land two cells apart through rounding. */
#define CELL_MARGIN (1.0 + 1e-9)

void ms__grid_free(struct ms__grid *g) {
  free(g->cell_start);
  free(g->hist);
  free(g->order);
  free(g->sx);
  free(g->sy);
  free(g->sz);
  free(g->sr);
  free(g->skey);
  ms__memset(g, 0, sizeof *g);
}

static int grid_reserve(struct ms__grid *g, size_t n) {
  if (n <= g->cap) return MS_OK;
  /* a little room for a count that grows (hand-over), no more: at a
   * million points each 1/16 is 2.5 MiB */
  size_t cap = n + n / 16 + 64;
  if (ms__grow((void **)&g->order, cap, sizeof(uint32_t)) ||
      ms__grow((void **)&g->sx, cap, sizeof(double)) ||
      ms__grow((void **)&g->sy, cap, sizeof(double)) ||
      ms__grow((void **)&g->sz, cap, sizeof(double)) ||
      ms__grow((void **)&g->sr, cap, sizeof(double)) ||
      ms__grow((void **)&g->skey, cap, sizeof(uint32_t)))
    return MS_ENOMEM;
  g->cap = cap;
  return MS_OK;
}

size_t ms__grid_bounds(const double *x, size_t stride, size_t n, double *lo,
                       double *hi) {
  double l0 = INFINITY, l1 = INFINITY, l2 = INFINITY;
  double h0 = -INFINITY, h1 = -INFINITY, h2 = -INFINITY;
  size_t bad = n;
  const char *base = (const char *)x;
#pragma omp parallel for reduction(min : l0, l1, l2, bad) \
    reduction(max : h0, h1, h2) schedule(static) if (n > MS__PAR_MIN)
  for (size_t i = 0; i < n; i++) {
    const double *p = (const double *)(base + i * stride);
    if (!(isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]))) {
      if (i < bad) bad = i;
      continue;
    }
    /* finite here: plain compares, not the libm calls fmin/fmax become */
    l0 = p[0] < l0 ? p[0] : l0, h0 = p[0] > h0 ? p[0] : h0;
    l1 = p[1] < l1 ? p[1] : l1, h1 = p[1] > h1 ? p[1] : h1;
    l2 = p[2] < l2 ? p[2] : l2, h2 = p[2] > h2 ? p[2] : h2;
  }
  lo[0] = l0, lo[1] = l1, lo[2] = l2;
  hi[0] = h0, hi[1] = h1, hi[2] = h2;
  return bad;
}

/* Choose the cells for the box [lo, hi]: at least min_cell, grown until the
 * grid has at most max(4n, 4096) cells (sparse scenes stay cheap in memory;
 * correctness never depends on the cell size, only the cost does).  A box
 * wider than the largest double (finite points near +-1e308) counts as
 * that wide, so the loop ends; ms__grid_axis clamps what lies beyond. */
int ms__grid_cells(struct ms__grid *g, const double *lo, const double *hi,
                   double min_cell, size_t n) {
  double c = min_cell * CELL_MARGIN, ext[3];
  size_t limit = 4 * n > 4096 ? 4 * n : 4096;
  for (int a = 0; a < 3; a++) ext[a] = fmin(hi[a] - lo[a], DBL_MAX);
  for (;;) {
    double cells = 1.0;
    for (int a = 0; a < 3; a++) cells *= floor(ext[a] / c) + 1.0;
    if (cells <= (double)limit) break;
    c *= 1.2599210498948732; /* 2^(1/3): halve the cell count */
  }
  g->cell = c;
  g->inv_cell = 1.0 / c;
  g->ncells = 1;
  for (int a = 0; a < 3; a++) {
    g->lo[a] = lo[a];
    g->dim[a] = (uint32_t)(floor(ext[a] / c) + 1.0);
    g->ncells *= g->dim[a];
  }
  if (g->ncells + 2 > g->cap_cells) {
    size_t cap = g->ncells + g->ncells / 4 + 2;
    if (ms__grow((void **)&g->cell_start, cap, sizeof(uint32_t)))
      return MS_ENOMEM;
    g->cap_cells = cap;
  }
  return MS_OK;
}

/* Stable counting sort of the points by cell: slot s of the grid holds
 * point order[s], points of one cell in input order.  The cells are in
 * g->skey[k] (input order k), scratch until the gather.  In parallel, each
 * of T chunks of the input counts its cells, cell c's slots go to the
 * chunks in turn, and each chunk scatters its points in input order: the
 * one stable order, whatever T.  Serial where the cells outnumber the
 * points (T histograms would cost more than the sort). */
static int sort_by_cell(struct ms__grid *g, const uint32_t *idx, size_t m) {
  const uint32_t *cell = g->skey;
  uint32_t *start = g->cell_start;
  size_t nc = g->ncells;
  int T = 1;
#ifdef _OPENMP
  if (m > MS__PAR_MIN_STREAM && nc <= m) T = omp_get_max_threads();
#endif
  if (T == 1) {
    ms__memset(start, 0, (nc + 2) * sizeof *start);
    for (size_t k = 0; k < m; k++) start[cell[k] + 2]++;
    for (size_t c = 2; c < nc + 2; c++) start[c] += start[c - 1];
    for (size_t k = 0; k < m; k++)
      g->order[start[cell[k] + 1]++] = idx ? idx[k] : (uint32_t)k;
    return MS_OK;
  }
  if ((size_t)T * nc > g->cap_hist) {
    if (ms__grow((void **)&g->hist, (size_t)T * nc, sizeof(uint32_t)))
      return MS_ENOMEM;
    g->cap_hist = (size_t)T * nc;
  }
#pragma omp parallel num_threads(T)
  {
    int t = 0, team = 1; /* the team may be smaller than T (nested) */
#ifdef _OPENMP
    t = omp_get_thread_num(), team = omp_get_num_threads();
#endif
    size_t a = m * (size_t)t / (size_t)team;
    size_t e = m * (size_t)(t + 1) / (size_t)team;
    uint32_t *h = g->hist + (size_t)t * nc;
    ms__memset(h, 0, nc * sizeof *h);
    for (size_t k = a; k < e; k++) h[cell[k]]++;
#pragma omp barrier
#pragma omp single
    {
      uint32_t at = 0;
      for (size_t c = 0; c < nc; c++) {
        start[c] = at;
        for (int u = 0; u < team; u++) {
          uint32_t v = g->hist[(size_t)u * nc + c];
          g->hist[(size_t)u * nc + c] = at;
          at += v;
        }
      }
      start[nc] = start[nc + 1] = at;
    }
    for (size_t k = a; k < e; k++)
      g->order[h[cell[k]]++] = idx ? idx[k] : (uint32_t)k;
  }
  return MS_OK;
}

/* Sort the points idx[0..m) (all n points if idx is NULL) of x into the
 * cells chosen by ms__grid_cells; they must lie in its box.  Slot s then
 * holds point order[s] (an index into x). */
int ms__grid_fill(struct ms__grid *g, const double *x, size_t stride,
                  const double *r, const uint32_t *key, const uint8_t *self,
                  const uint32_t *idx, size_t m) {
  const char *base = (const char *)x;
  g->n = m;
  if (grid_reserve(g, m)) return MS_ENOMEM;
#pragma omp parallel for schedule(static) if (m > MS__PAR_MIN)
  for (size_t k = 0; k < m; k++) {
    const double *p = (const double *)(base + (idx ? idx[k] : k) * stride);
    g->skey[k] = ms__grid_cell(g, p);
  }
  if (sort_by_cell(g, idx, m)) return MS_ENOMEM;
  /* Gather in slot order: random reads overlap well across threads, where
   * scattering six arrays would mean six random writes per point. */
#pragma omp parallel for schedule(static) if (m > MS__PAR_MIN)
  for (size_t s = 0; s < m; s++) {
    uint32_t i = g->order[s];
    const double *p = (const double *)(base + i * stride);
    g->sx[s] = p[0];
    g->sy[s] = p[1];
    g->sz[s] = p[2];
    g->sr[s] = r ? r[i] : 0.0;
    uint32_t k = key ? key[i] : 0;
    g->skey[s] = k | ((!self || self[k]) ? MS__SELF_BIT : 0u);
  }
  /* start[c] is now the first slot of cell c, start[ncells] == m. */
  return MS_OK;
}

size_t ms__grid_bytes(const struct ms__grid *g) {
  return g->cap * (4 * sizeof(double) + 2 * sizeof(uint32_t)) +
         (g->cap_cells + g->cap_hist) * sizeof(uint32_t);
}

int ms__grid_build(struct ms__grid *g, const double *x, size_t stride,
                   size_t n, const double *r, double min_cell,
                   const uint32_t *key, const uint8_t *self, size_t *bad) {
  double lo[3], hi[3];
  g->n = n;
  if (grid_reserve(g, n)) return MS_ENOMEM;
  if (n == 0) {
    g->ncells = 0;
    return MS_OK;
  }
  size_t b = ms__grid_bounds(x, stride, n, lo, hi);
  if (b < n) {
    *bad = b;
    return MS_EINVAL;
  }
  if (!(min_cell > 0.0) || !isfinite(min_cell)) {
    *bad = 0;
    return MS_EINVAL;
  }
  if (ms__grid_cells(g, lo, hi, min_cell, n)) return MS_ENOMEM;
  return ms__grid_fill(g, x, stride, r, key, self, NULL, n);
}
