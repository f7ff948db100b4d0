/* The other systems' particles as boundary (others_as_boundary): what
 * they add to each fluid particle's density, rho0 sum_j V_j W(x_i - x_j)
 * (Akinci et al. 2012).
 *
 * The others are few beside the fluid and sit in one place, so they go
 * into a grid of their own over their bounding box, cells at least the
 * kernel's support wide, and only the fluid particles within a support of
 * that box look into it.  A search over fluid and others together found
 * every fluid-fluid pair to keep the few that cross (15.6 of a 34 ms step
 * for the floating box at scale 8).  Each fluid particle sums its own
 * entry in one fixed order, cell by cell and the others in index order
 * within a cell, so the result does not depend on the thread count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sph.h"

/* Cells the grid may have per other particle: a sparse scatter of others
 * over the domain gets coarser cells, not a grid larger than the set. */
#define CELLS_PER_POINT 8

/* An other particle's cell index along one axis (finite, in the box). */
static inline long cell_of(double x, double lo, double inv) {
  return (long)floor((x - lo) * inv);
}

/* The grid: cell size c >= R over [lo, lo + d c), the others counting-
 * sorted by cell (stable: index order within a cell). */
static int build(struct sph_others *G, const double *ox, size_t m, double R) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3];
  for (int a = 0; a < 3; a++) hi[a] = -INFINITY;
  for (size_t j = 0; j < m; j++)
    for (int a = 0; a < 3; a++) {
      double v = ox[3 * j + a];
      if (!isfinite(v)) return MS_ENUMERIC; /* fmin would pass a NaN by */
      lo[a] = fmin(lo[a], v);
      hi[a] = fmax(hi[a], v);
    }
  double c = R;
  size_t d[3], cells;
  for (;;) {
    cells = 1;
    for (int a = 0; a < 3; a++) {
      d[a] = (size_t)floor((hi[a] - lo[a]) / c) + 1;
      cells *= d[a];
    }
    if (cells <= CELLS_PER_POINT * m + 64) break;
    c *= 2.0;
  }
  if (sph_grow((void **)&G->start, &G->cap_cells, cells + 1,
               sizeof *G->start) ||
      sph_grow((void **)&G->order, &G->cap_m, m, sizeof *G->order) ||
      sph_grow((void **)&G->cell, &G->cap_cell, m, sizeof *G->cell))
    return MS_ENOMEM;
  for (int a = 0; a < 3; a++) G->lo[a] = lo[a], G->d[a] = d[a];
  G->inv = 1.0 / c;
  memset(G->start, 0, (cells + 1) * sizeof *G->start);
  for (size_t j = 0; j < m; j++) {
    size_t k = 0;
    for (int a = 2; a >= 0; a--) {
      long q = cell_of(ox[3 * j + a], lo[a], G->inv);
      q = q < 0 ? 0 : q >= (long)d[a] ? (long)d[a] - 1 : q;
      k = k * d[a] + (size_t)q;
    }
    G->cell[j] = (uint32_t)k;
    G->start[k + 1]++;
  }
  for (size_t k = 0; k < cells; k++) G->start[k + 1] += G->start[k];
  for (size_t j = 0; j < m; j++) G->order[G->start[G->cell[j]]++] = (uint32_t)j;
  for (size_t k = cells; k > 0; k--) G->start[k] = G->start[k - 1];
  G->start[0] = 0;
  return MS_OK;
}

/* One fluid particle's sum over the cells around it. */
static double sum_at(const struct sph_others *G, const struct sph_kernel *k,
                     const double *x, const double *ox, const double *ovol) {
  long q0[3], q1[3];
  for (int a = 0; a < 3; a++) {
    double f = floor((x[a] - G->lo[a]) * G->inv);
    /* beyond the others' box by more than a cell (or not a number):
     * nothing near, and no cast of a value out of range */
    if (!(f > -2.0 && f < (double)G->d[a] + 1.0)) return 0.0;
    long q = (long)f, top = (long)G->d[a] - 1;
    q0[a] = q - 1 < 0 ? 0 : q - 1;
    q1[a] = q + 1 > top ? top : q + 1;
  }
  double sum = 0.0;
  for (long z = q0[2]; z <= q1[2]; z++)
    for (long y = q0[1]; y <= q1[1]; y++)
      for (long xx = q0[0]; xx <= q1[0]; xx++) {
        size_t cell = ((size_t)z * G->d[1] + (size_t)y) * G->d[0] + (size_t)xx;
        for (uint32_t s = G->start[cell]; s < G->start[cell + 1]; s++) {
          uint32_t j = G->order[s];
          double d0 = ox[3 * j] - x[0], d1 = ox[3 * j + 1] - x[1],
                 d2 = ox[3 * j + 2] - x[2];
          double r2 = d0 * d0 + d1 * d1 + d2 * d2;
          if (r2 < k->R2) sum += ovol[j] * sph_w_in(k, k->kind, r2);
        }
      }
  return sum;
}

int sph_others_density(struct sph_solver *S, const double *ox,
                       const double *ovol, size_t m) {
  const size_t n = S->n;
  memset(S->rho_others, 0, n * sizeof *S->rho_others);
  if (!m) return MS_OK;
  struct sph_others *G = &S->others;
  int rc = build(G, ox, m, S->kw.R);
  if (rc) return rc;
  const struct sph_kernel *k = &S->kw;
  const double rho0 = S->P.rho0;
#pragma omp parallel for schedule(dynamic, 256) \
    num_threads(sph_team(S, n, SPH_FLAT_MIN))
  for (size_t i = 0; i < n; i++)
    S->rho_others[i] = rho0 * sum_at(G, k, S->x + SPH_XS * i, ox, ovol);
  return MS_OK;
}

void sph_others_free(struct sph_others *G) {
  free(G->start), free(G->order), free(G->cell);
  memset(G, 0, sizeof *G);
}
