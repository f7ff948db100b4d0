/* Particle separation: a position correction against FLIP's clumping.
 *
 * FLIP advects particles through a trilinearly interpolated velocity,
 * which is not divergence-free between grid faces: over many steps
 * particles gather in some cells and leave gaps in others, and a liquid
 * seems to gain volume (cells with a few particles count as full).  Pairs
 * closer than r0 are pushed apart; velocities are left alone. */
#include "flip.h"

/* Cells whose particles can lie within r0 <= h/2 of x: the 2 cells per
 * axis nearest to x. */
static void near_cells(const struct flip_grid *g, const double *x, int lo[3],
                       int hi[3]) {
  int c[3];
  flip_cell_of(g, x, c);
  for (int a = 0; a < 3; a++) {
    double q = (x[a] - g->lo[a]) * g->inv_h - c[a];
    lo[a] = q < 0.5 && c[a] > 0 ? c[a] - 1 : c[a];
    hi[a] = q >= 0.5 && c[a] + 1 < g->n[a] ? c[a] + 1 : c[a];
  }
}

void flip_separate(const struct flip_grid *g, const struct flip_bins *b,
                   double *x, size_t n, double r0, double strength,
                   const int32_t *skip, double *dx, int threads) {
  const double r02 = r0 * r0, k = 0.5 * strength;
  threads = flip_team(threads, n);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t p = 0; p < n; p++) {
    double *d = dx + 3 * p;
    const double *xp = x + 3 * p;
    int lo[3], hi[3];
    d[0] = d[1] = d[2] = 0.0;
    if (skip && skip[p] >= 0) continue;
    near_cells(g, xp, lo, hi);
    for (int ck = lo[2]; ck <= hi[2]; ck++)
      for (int cj = lo[1]; cj <= hi[1]; cj++)
        for (int ci = lo[0]; ci <= hi[0]; ci++) {
          size_t c = flip_cell(g, ci, cj, ck);
          for (uint32_t q = b->start[c]; q < b->start[c + 1]; q++) {
            const double *xq = x + 3 * (size_t)b->perm[q];
            double e[3] = {xp[0] - xq[0], xp[1] - xq[1], xp[2] - xq[2]};
            double r2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
            if (!(r2 < r02) || r2 == 0.0) continue;
            double r = sqrt(r2), w = k * (r0 - r) / r;
            d[0] += w * e[0], d[1] += w * e[1], d[2] += w * e[2];
          }
        }
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t i = 0; i < 3 * n; i++) x[i] += dx[i];
}
