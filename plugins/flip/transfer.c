/* Particle <-> grid transfers (trilinear, mass-weighted).
 *
 * Particle to grid is a scatter.  It stays deterministic and free of
 * atomics by working on blocks of two z-slabs of cells: a particle of slab
 * k touches face layers k-1..k+1 only, so blocks 0, 2, 4, ... never touch
 * the same face and run in parallel, then blocks 1, 3, 5, ...  Inside a
 * block particles are taken in binned order (cell, then index), so every
 * face sums its contributions in the same order for any thread count. */
#include <stdlib.h>
#include <string.h>

#include "flip.h"

/* Run `body` for each particle p of b in the scatter's order (above):
 * blocks of two z-slabs, even blocks in parallel, then odd ones, binned
 * order inside a block.  `threads` names the team size. */
#define FOR_BLOCKED_PARTICLES(g, b, threads, p, body)                      \
  do {                                                                     \
    const int nz_ = (g)->n[2], nblocks_ = (nz_ + 1) / 2;                   \
    for (int phase_ = 0; phase_ < 2; phase_++) {                           \
      _Pragma("omp parallel for schedule(dynamic, 1) num_threads(threads)") \
      for (int blk_ = phase_; blk_ < nblocks_; blk_ += 2) {                \
        uint32_t q0_ = (b)->slab[2 * blk_];                                \
        uint32_t q1_ = (b)->slab[2 * blk_ + 2 <= nz_ ? 2 * blk_ + 2 : nz_]; \
        for (uint32_t q_ = q0_; q_ < q1_; q_++) {                          \
          uint32_t p = (b)->perm[q_];                                      \
          body;                                                            \
        }                                                                  \
      }                                                                    \
    }                                                                      \
  } while (0)

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
  FOR_BLOCKED_PARTICLES(g, b, threads, p,
                        scatter(g, x + 3 * (size_t)p, v + 3 * (size_t)p,
                                pm[p], meta && meta[p] >= 0));
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

/* Face densities for the variable-density projection (MultiFLIP, Boyd &
 * Bridson 2012): beta_f = sum w pv / sum w m over the particles whose
 * trilinear stencil reaches the face, where pv = m rho0 / rho is a
 * particle's volume in units of the reference density.  beta_f is then
 * rho0 / rho_f with rho_f the mass-weighted harmonic mean density at the
 * face; a face of one phase gets exactly 1 / (its density / rho0)
 * (water: 1.0 bit for bit, the same sums in the same order); a face no
 * particle reaches keeps 1.  Same blocked scatter as flip_p2g. */
static inline void scatter_density(double *const B[3], double *const W[3],
                                   const struct flip_grid *g, const double *x,
                                   double m, double pv) {
  struct flip_stencil st[3];
  flip_stencils(g, x, st);
  for (int a = 0; a < 3; a++) {
    const struct flip_stencil s = st[a];
    double *b = B[a] + s.base, *w = W[a] + s.base;
    const size_t o[8] = {0, 1, s.sj, s.sj + 1, s.sk, s.sk + 1,
                         s.sk + s.sj, s.sk + s.sj + 1};
    double tx = s.t[0], wy[2] = {1.0 - s.t[1], s.t[1]};
    double wz[2] = {1.0 - s.t[2], s.t[2]};
    for (int c = 0; c < 8; c++) {
      double wc = ((c & 1) ? tx : 1.0 - tx) * wy[(c >> 1) & 1] * wz[c >> 2];
      w[o[c]] += wc * m;
      b[o[c]] += wc * pv;
    }
  }
}

int flip_p2g_density(struct flip_grid *g, const struct flip_bins *b,
                     const double *x, const double *pm, const double *pv,
                     double *work[3], int threads) {
  size_t cw = FLIP_CELL_WORK(g->ncell);
  threads = flip_team(threads, b->n > cw ? b->n : cw);
  for (int a = 0; a < 3; a++) {
    if (!g->beta[a] && !(g->beta[a] = malloc(g->nface[a] * sizeof(double))))
      return -1;
    memset(g->beta[a], 0, g->nface[a] * sizeof(double));
    memset(work[a], 0, g->nface[a] * sizeof(double));
  }
  FOR_BLOCKED_PARTICLES(g, b, threads, p,
                        scatter_density(g->beta, work, g, x + 3 * (size_t)p,
                                        pm[p], pv[p]));
  for (int a = 0; a < 3; a++) {
    double *B = g->beta[a];
    const double *W = work[a];
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t f = 0; f < g->nface[a]; f++)
      B[f] = W[f] > 0.0 ? B[f] / W[f] : 1.0;
  }
  g->weighted = 1;
  return 0;
}
