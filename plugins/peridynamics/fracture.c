/* Bond breaking with the compressive adjustment of Silling & Askari:
 * bond ij breaks when s > min(s0_i, s0_j), s0_i = s00 - alpha min(0,
 * s_min,i), s_min,i the smallest stretch among i's intact bonds.  Both
 * passes run per particle / per bond chunk in parallel; the bonds broken in
 * a step are listed (in bond order, whatever the thread count) so a rewind
 * can restore them. */
#include <math.h>
#include <stdlib.h>

#include "peridynamics.h"

#define CHUNK 4096

static inline double stretch(const struct pd_model *M, size_t b) {
  const struct pd_bonds *B = &M->bonds;
  const double *xi = M->x + 3 * (size_t)B->pair[2 * b];
  const double *xj = M->x + 3 * (size_t)B->pair[2 * b + 1];
  double d0 = xj[0] - xi[0], d1 = xj[1] - xi[1], d2 = xj[2] - xi[2];
  return (sqrt(d0 * d0 + d1 * d1 + d2 * d2) - B->rest[b]) / B->rest[b];
}

static void update_counts(struct pd_model *M, uint32_t i, int delta) {
  M->nbonds[i] = (uint32_t)((int64_t)M->nbonds[i] + delta);
  M->damage[i] = M->nbonds0[i]
                     ? 1.0 - (double)M->nbonds[i] / (double)M->nbonds0[i]
                     : 0.0;
}

static int reserve(struct pd_work *W, size_t n, size_t nch, size_t fresh) {
  if (n > W->cap_smin) {
    void *p = realloc(W->smin, (n ? n : 1) * sizeof *W->smin);
    if (!p) return MS_ENOMEM;
    W->smin = p, W->cap_smin = n;
  }
  if (nch > W->cap_chunk) {
    void *p = realloc(W->chunk, nch * sizeof *W->chunk);
    if (!p) return MS_ENOMEM;
    W->chunk = p, W->cap_chunk = nch;
  }
  if (fresh > W->cap_fresh) {
    size_t c = fresh + fresh / 2 + 64;
    void *p = realloc(W->fresh, c * sizeof *W->fresh);
    if (!p) return MS_ENOMEM;
    W->fresh = p, W->cap_fresh = c;
  }
  return MS_OK;
}

int pd_fracture(struct pd_model *M, struct pd_work *W, int threads,
                size_t *broke) {
  struct pd_bonds *B = &M->bonds;
  const double s00 = M->mat.s00, alpha = M->mat.alpha;
  size_t nch = (B->count + CHUNK - 1) / CHUNK;
  int rc;
  *broke = 0;
  if (!M->mat.breakable || !B->count) return MS_OK;
  if ((rc = reserve(W, M->n, nch, 0))) return rc;
  double *smin = W->smin;
  const uint8_t *pinned = M->pinned;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t i = 0; i < M->n; i++) {
    double s = 0.0;
    for (uint32_t e = M->adj_off[i]; e < M->adj_off[i + 1]; e++) {
      uint32_t b = M->adj_bond[e];
      if (!B->broken[b]) s = fmin(s, stretch(M, b));
    }
    smin[i] = s;
  }
  size_t total = 0;
#pragma omp parallel for schedule(static) num_threads(threads) \
    reduction(+ : total)
  for (size_t c = 0; c < nch; c++) {
    size_t b1 = (c + 1) * CHUNK < B->count ? (c + 1) * CHUNK : B->count;
    uint32_t k = 0;
    for (size_t b = c * CHUNK; b < b1; b++) {
      uint32_t i = B->pair[2 * b], j = B->pair[2 * b + 1];
      if (B->broken[b] || (pinned[i] && pinned[j])) continue;
      double si = smin[i], sj = smin[j];
      double s0 = s00 - alpha * fmax(si, sj);
      if (stretch(M, b) > s0) B->broken[b] = 2, k++;
    }
    W->chunk[c] = k;
    total += k;
  }
  if (!total) return MS_OK;
  if ((rc = reserve(W, M->n, nch, W->nfresh + total))) {
    for (size_t b = 0; b < B->count; b++) /* leave the state as it was */
      if (B->broken[b] == 2) B->broken[b] = 0;
    return rc;
  }
  size_t at = W->nfresh;
  for (size_t c = 0; c < nch; c++) {
    uint32_t k = W->chunk[c];
    W->chunk[c] = (uint32_t)at;
    at += k;
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t c = 0; c < nch; c++) {
    size_t b1 = (c + 1) * CHUNK < B->count ? (c + 1) * CHUNK : B->count;
    uint32_t q = W->chunk[c];
    for (size_t b = c * CHUNK; b < b1; b++)
      if (B->broken[b] == 2) B->broken[b] = 1, W->fresh[q++] = (uint32_t)b;
  }
  for (size_t q = W->nfresh; q < at; q++) {
    uint32_t b = W->fresh[q];
    update_counts(M, B->pair[2 * b], -1);
    update_counts(M, B->pair[2 * b + 1], -1);
  }
  W->nfresh = at;
  *broke = total;
  return MS_OK;
}

void pd_unbreak(struct pd_model *M, struct pd_work *W) {
  struct pd_bonds *B = &M->bonds;
  for (size_t q = 0; q < W->nfresh; q++) {
    uint32_t b = W->fresh[q];
    B->broken[b] = 0;
    update_counts(M, B->pair[2 * b], +1);
    update_counts(M, B->pair[2 * b + 1], +1);
  }
  W->nfresh = 0;
}
