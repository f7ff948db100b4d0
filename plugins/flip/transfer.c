/* Particle <-> grid transfers (trilinear, mass-weighted).
 *
 * Particle to grid is a scatter.  It stays deterministic and free of
 * atomics by working on blocks of two z-slabs of cells: a particle of slab
 * k touches face layers k-1..k+1 only, so blocks 0, 2, 4, ... never touch
 * the same face and run in parallel, then blocks 1, 3, 5, ...  Inside a
 * block particles are taken in binned order (cell, then index), so every
 * face sums its contributions in the same order for any thread count. */
#include <string.h>

#include "flip.h"

static inline void scatter(struct flip_grid *g, const double *x,
                           const double *v, double m, int member) {
  struct flip_stencil st[3];
  flip_stencils(g, x, st);
  for (int a = 0; a < 3; a++) {
    const struct flip_stencil s = st[a];
    double *U = g->u[a] + s.base, *W = g->wsum[a] + s.base;
    double *M = g->held[a] + s.base;
    const size_t o[8] = {0, 1, s.sj, s.sj + 1, s.sk, s.sk + 1,
                         s.sk + s.sj, s.sk + s.sj + 1};
    double tx = s.t[0], ty = s.t[1], tz = s.t[2];
    double wy[2] = {1.0 - ty, ty}, wz[2] = {1.0 - tz, tz};
    double mv = m * v[a];
    for (int c = 0; c < 8; c++) {
      double w = ((c & 1) ? tx : 1.0 - tx) * wy[(c >> 1) & 1] * wz[c >> 2];
      W[o[c]] += w * m;
      U[o[c]] += w * mv;
      if (member) M[o[c]] += w * m;
    }
  }
}

void flip_p2g(struct flip_grid *g, const struct flip_bins *b,
              const double *x, const double *v, const double *pm,
              const int32_t *meta, int threads) {
  size_t cw = FLIP_CELL_WORK(g->ncell);
  threads = flip_team(threads, b->n > cw ? b->n : cw);
  for (int a = 0; a < 3; a++) {
    const size_t nf = g->nface[a];
    double *u = g->u[a], *w = g->wsum[a], *h = g->held[a];
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t f = 0; f < nf; f++) u[f] = w[f] = h[f] = 0.0;
  }
  const int nz = g->n[2], nblocks = (nz + 1) / 2;
  for (int phase = 0; phase < 2; phase++) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int blk = phase; blk < nblocks; blk += 2) {
      uint32_t q0 = b->slab[2 * blk];
      uint32_t q1 = b->slab[2 * blk + 2 <= nz ? 2 * blk + 2 : nz];
      for (uint32_t q = q0; q < q1; q++) {
        uint32_t p = b->perm[q];
        scatter(g, x + 3 * (size_t)p, v + 3 * (size_t)p, pm[p],
                meta && meta[p] >= 0);
      }
    }
  }
  for (int a = 0; a < 3; a++) {
    const size_t nf = g->nface[a];
    double *u = g->u[a], *w = g->wsum[a], *h = g->held[a];
    uint8_t *val = g->valid[a];
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t f = 0; f < nf; f++) {
      val[f] = w[f] > 0.0;
      u[f] = w[f] > 0.0 ? u[f] / w[f] : 0.0;
      h[f] = w[f] > 0.0 ? h[f] / w[f] : 0.0;
    }
  }
}

/* Why a free particle takes less of FLIP's change beside meta-particle
 * members: the core sets a member's velocity anew every step (to the
 * meta-particle's, synchronised with the other systems), so whatever the
 * projection moves out of the members' faces is gone by the next step,
 * while a free particle reading those faces keeps its share of it.  A
 * member held at rest (by a pinned cloth node) beside free water then
 * feeds it speed step after step; advected by its own velocity, a lone
 * water particle sliding along Fig. 11's pinned cloth edge reached 62 m/s.
 * On the members' faces a free particle therefore takes the grid's
 * velocity (PIC), on the free water's FLIP's change, in proportion. */
void flip_g2p(const struct flip_grid *g, const double *x, double *v,
              const int32_t *meta, size_t n, double flip_ratio,
              int threads) {
  threads = flip_team(threads, n);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t p = 0; p < n; p++) {
    struct flip_stencil s[3];
    int free_p = meta && meta[p] < 0;
    flip_stencils(g, x + 3 * p, s);
    for (int a = 0; a < 3; a++) {
      double un = flip_stencil_eval(s + a, g->u[a]);
      double uo = flip_stencil_eval(s + a, g->u0[a]);
      double h = free_p ? flip_stencil_eval(s + a, g->held[a]) : 0.0;
      double r = flip_ratio * (1.0 - h);
      double *va = v + 3 * p + a;
      *va = r * (*va + (un - uo)) + (1.0 - r) * un;
    }
  }
}

void flip_sample_cells(const struct flip_grid *g, const double *f,
                       const double *x, double *out, size_t n, double scale,
                       int threads) {
  threads = flip_team(threads, n);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t p = 0; p < n; p++)
    out[p] = scale * flip_interp(g, 3, f, x + 3 * p);
}
