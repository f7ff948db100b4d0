/* The particle and bond arrays: allocation, bonds from neighbour lists,
 * sorted adjacency, compaction of broken bonds, the contact filter. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "peridynamics.h"

static int grow(void **p, size_t n, size_t size) {
  if (n == 0) n = 1;
  if (n > SIZE_MAX / size) return -1;
  void *q = realloc(*p, n * size);
  if (!q) return -1;
  *p = q;
  return 0;
}

int pd_model_alloc(struct pd_model *M, size_t n) {
  size_t k = n ? n : 1;
  M->n = n;
  M->x = malloc(3 * k * sizeof(double));
  M->v = calloc(3 * k, sizeof(double));
  M->m = malloc(k * sizeof(double));
  M->r = malloc(k * sizeof(double));
  M->damage = calloc(k, sizeof(double));
  M->nbonds = calloc(k, sizeof(uint32_t));
  M->nbonds0 = calloc(k, sizeof(uint32_t));
  M->pinned = calloc(k, 1);
  M->pin_v = calloc(3 * k, sizeof(double));
  M->adj_off = calloc(k + 1, sizeof(uint32_t));
  return M->x && M->v && M->m && M->r && M->damage && M->nbonds &&
                 M->nbonds0 && M->pinned && M->pin_v && M->adj_off
             ? MS_OK
             : MS_ENOMEM;
}

void pd_model_free(struct pd_model *M) {
  free(M->x), free(M->v), free(M->m), free(M->r), free(M->damage);
  free(M->nbonds), free(M->nbonds0), free(M->pinned), free(M->pin_v);
  free(M->adj_off), free(M->adj), free(M->adj_bond);
  free(M->bonds.pair), free(M->bonds.rest), free(M->bonds.broken);
  memset(M, 0, sizeof *M);
}

static int reserve_bonds(struct pd_bonds *B, size_t n) {
  if (n <= B->cap) return MS_OK;
  if (grow((void **)&B->pair, n, 2 * sizeof(uint32_t)) ||
      grow((void **)&B->rest, n, sizeof(double)) ||
      grow((void **)&B->broken, n, 1))
    return MS_ENOMEM;
  B->cap = n;
  return MS_OK;
}

static void sort_u32(uint32_t *a, size_t n) {
  for (size_t i = 1; i < n; i++) {
    uint32_t v = a[i];
    size_t j = i;
    while (j > 0 && a[j - 1] > v) a[j] = a[j - 1], j--;
    a[j] = v;
  }
}

int pd_bonds_build(struct pd_model *M, const uint32_t *offset,
                   const uint32_t *index) {
  struct pd_bonds *B = &M->bonds;
  size_t total = 0, longest = 0;
  for (size_t i = 0; i < M->n; i++) {
    size_t len = offset[i + 1] - offset[i];
    longest = len > longest ? len : longest;
    for (uint32_t q = offset[i]; q < offset[i + 1]; q++)
      total += index[q] > i;
  }
  if (total >= (size_t)1 << 31) return MS_ERANGE;
  uint32_t *scratch = malloc((longest ? longest : 1) * sizeof *scratch);
  if (!scratch || reserve_bonds(B, total)) {
    free(scratch);
    return MS_ENOMEM;
  }
  /* in (i, j) order: the adjacency built from it comes out sorted */
  size_t b = 0;
  for (size_t i = 0; i < M->n; i++) {
    size_t m = 0;
    for (uint32_t q = offset[i]; q < offset[i + 1]; q++)
      if (index[q] > i) scratch[m++] = index[q];
    sort_u32(scratch, m);
    for (size_t k = 0; k < m; k++, b++) {
      uint32_t j = scratch[k];
      const double *xi = M->x + 3 * i, *xj = M->x + 3 * (size_t)j;
      double d0 = xj[0] - xi[0], d1 = xj[1] - xi[1], d2 = xj[2] - xi[2];
      B->pair[2 * b] = (uint32_t)i;
      B->pair[2 * b + 1] = j;
      B->rest[b] = sqrt(d0 * d0 + d1 * d1 + d2 * d2);
      B->broken[b] = 0;
    }
  }
  free(scratch);
  B->count = total;
  M->serial++;
  int rc = pd_adjacency_build(M);
  if (rc) return rc;
  memcpy(M->nbonds0, M->nbonds, M->n * sizeof *M->nbonds0);
  for (size_t i = 0; i < M->n; i++) M->damage[i] = 0.0;
  return MS_OK;
}

int pd_adjacency_build(struct pd_model *M) {
  const struct pd_bonds *B = &M->bonds;
  uint32_t *off = M->adj_off;
  if (2 * B->count > M->cap_adj) {
    size_t c = 2 * B->count;
    if (grow((void **)&M->adj, c, sizeof(uint32_t)) ||
        grow((void **)&M->adj_bond, c, sizeof(uint32_t)))
      return MS_ENOMEM;
    M->cap_adj = c;
  }
  memset(off, 0, (M->n + 1) * sizeof *off);
  for (size_t b = 0; b < B->count; b++) {
    off[B->pair[2 * b] + 1]++;
    off[B->pair[2 * b + 1] + 1]++;
  }
  for (size_t i = 0; i < M->n; i++) off[i + 1] += off[i];
  /* nbonds as the fill cursor, then recounted */
  for (size_t i = 0; i < M->n; i++) M->nbonds[i] = off[i];
  for (size_t b = 0; b < B->count; b++) {
    uint32_t i = B->pair[2 * b], j = B->pair[2 * b + 1];
    uint32_t p = M->nbonds[i]++, q = M->nbonds[j]++;
    M->adj[p] = j, M->adj_bond[p] = (uint32_t)b;
    M->adj[q] = i, M->adj_bond[q] = (uint32_t)b;
  }
  for (size_t i = 0; i < M->n; i++) {
    uint32_t c = 0;
    for (uint32_t e = off[i]; e < off[i + 1]; e++)
      c += !B->broken[M->adj_bond[e]];
    M->nbonds[i] = c;
    M->damage[i] = M->nbonds0[i]
                       ? 1.0 - (double)c / (double)M->nbonds0[i]
                       : 0.0;
  }
  return MS_OK;
}

int pd_compact(struct pd_model *M) {
  struct pd_bonds *B = &M->bonds;
  size_t k = 0;
  for (size_t b = 0; b < B->count; b++) {
    if (B->broken[b]) continue;
    B->pair[2 * k] = B->pair[2 * b];
    B->pair[2 * k + 1] = B->pair[2 * b + 1];
    B->rest[k] = B->rest[b];
    B->broken[k] = 0;
    k++;
  }
  B->count = k;
  M->serial++;
  return pd_adjacency_build(M);
}

/* Position of j in i's sorted neighbour list, or UINT32_MAX. */
static uint32_t find_neighbour(const struct pd_model *M, uint32_t i,
                               uint32_t j) {
  uint32_t lo = M->adj_off[i], hi = M->adj_off[i + 1];
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (M->adj[mid] < j) lo = mid + 1;
    else hi = mid;
  }
  return lo < M->adj_off[i + 1] && M->adj[lo] == j ? lo : UINT32_MAX;
}

/* A few thousand lookups are less work than waking the team (the core calls
 * this every step, mostly with a few hundred pairs). */
#define FILTER_PAR_MIN 2048

void pd_filter_pairs(const struct pd_model *M, const uint32_t *pairs,
                     size_t count, uint8_t *keep, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads) \
    if (count > FILTER_PAR_MIN)
  for (size_t k = 0; k < count; k++) {
    uint32_t i = pairs[2 * k], j = pairs[2 * k + 1];
    if (i >= M->n || j >= M->n) continue;
    uint32_t e = find_neighbour(M, i, j);
    if (e != UINT32_MAX && !M->bonds.broken[M->adj_bond[e]]) keep[k] = 0;
  }
}

static uint32_t root(uint32_t *up, uint32_t i) {
  while (up[i] != i) {
    up[i] = up[up[i]];
    i = up[i];
  }
  return i;
}

size_t pd_pieces(const struct pd_model *M, uint32_t *label) {
  uint32_t *up = malloc((M->n ? M->n : 1) * sizeof *up);
  if (!up) return 0;
  for (size_t i = 0; i < M->n; i++) up[i] = (uint32_t)i;
  for (size_t b = 0; b < M->bonds.count; b++) {
    if (M->bonds.broken[b]) continue;
    uint32_t a = root(up, M->bonds.pair[2 * b]);
    uint32_t c = root(up, M->bonds.pair[2 * b + 1]);
    if (a < c) up[c] = a;
    else if (c < a) up[a] = c;
  }
  size_t pieces = 0;
  for (size_t i = 0; i < M->n; i++) {
    uint32_t r = root(up, (uint32_t)i);
    if (r == i) {
      if (label) label[i] = (uint32_t)pieces;
      pieces++;
    } else if (label) {
      label[i] = label[r]; /* r < i: labelled already */
    }
  }
  free(up);
  return pieces;
}

double pd_elastic_energy(const struct pd_model *M, int threads) {
  const struct pd_bonds *B = &M->bonds;
  const double cv2 = M->mat.micro * M->mat.volume * M->mat.volume;
  size_t nch = (B->count + 4095) / 4096;
  double total = 0.0;
  double *part = malloc((nch ? nch : 1) * sizeof *part);
  if (!part) return NAN;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t c = 0; c < nch; c++) {
    size_t b1 = (c + 1) * 4096 < B->count ? (c + 1) * 4096 : B->count;
    double e = 0.0;
    for (size_t b = c * 4096; b < b1; b++) {
      if (B->broken[b]) continue;
      const double *xi = M->x + 3 * (size_t)B->pair[2 * b];
      const double *xj = M->x + 3 * (size_t)B->pair[2 * b + 1];
      double d0 = xj[0] - xi[0], d1 = xj[1] - xi[1], d2 = xj[2] - xi[2];
      double L = B->rest[b], s = (sqrt(d0 * d0 + d1 * d1 + d2 * d2) - L) / L;
      e += 0.5 * cv2 * L * s * s;
    }
    part[c] = e;
  }
  for (size_t c = 0; c < nch; c++) total += part[c];
  free(part);
  return total;
}

size_t pd_broken_count(const struct pd_model *M) {
  size_t twice = 0;
  for (size_t i = 0; i < M->n; i++) twice += M->nbonds0[i] - M->nbonds[i];
  return twice / 2;
}
