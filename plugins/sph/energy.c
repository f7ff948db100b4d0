/* The system's energy, and a step on the fluid alone held to the energy
 * it started with (sph.h).
 *
 * The walls' virtual particles carry a pressure extrapolated from the
 * fluid's (boundary.c, Adami et al. 2012), not derived from an energy, so
 * a wall can do work on the fluid: the dam break gained 1.6e-4 of its
 * energy between two frames.  A wall force that is the exact gradient of
 * the compression energy holds only half the pressure (README.md).  The
 * limit keeps the full wall and takes the surplus back from the motion
 * relative to the fluid's mean velocity, all particles alike: momentum is
 * unchanged, and the step ends with the energy it began with.  Sums run
 * in index order: the result does not depend on the thread count. */
#include "sph.h"

#include "../common/give_back.h"

void sph_energy(const struct sph_solver *S, double *kinetic,
                double *potential, double *internal) {
  const double *g = S->P.gravity;
  double k = 0.0, p = 0.0, e = 0.0;
  for (size_t i = 0; i < S->n; i++) {
    const double *x = S->x + SPH_XS * i, *v = S->v + 3 * i;
    k += 0.5 * S->m[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    p -= S->m[i] * (g[0] * x[0] + g[1] * x[1] + g[2] * x[2]);
    e += S->m[i] * sph_internal_energy(&S->P, S->rho[i]);
  }
  *kinetic = k, *potential = p, *internal = e;
}

double sph_energy_total(const struct sph_solver *S) {
  double k, p, e;
  sph_energy(S, &k, &p, &e);
  return k + p + e;
}

double sph_limit_energy(struct sph_solver *S, double e0) {
  double k, p, e, acc[4];
  sph_energy(S, &k, &p, &e);
  return msc_give_back(S->n, S->v, S->m, NULL, 1, NULL, acc, k + p + e - e0);
}
