/* An energy limit's give-back, for the plugins of the tree whose step can
 * end with more energy than it began with (sph, virtual_material): the
 * surplus is taken from the motion of each body's particles about the
 * body's mean velocity, every body by the same factor, so no body's
 * momentum changes and no momentum passes between bodies that do not
 * touch. */
#ifndef MS_PLUGINS_COMMON_GIVE_BACK_H
#define MS_PLUGINS_COMMON_GIVE_BACK_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The factor lam that takes `surplus` [J] from motion of kinetic energy
 * krel > 0 about its mean (v = vbar + lam (v - vbar)): all of it when it
 * holds less.  *taken: what it takes. */
static inline double msc_give_back_factor(double krel, double surplus,
                                          double *taken) {
  double lam = surplus < krel ? sqrt(1.0 - surplus / krel) : 0.0;
  *taken = krel * (1.0 - lam * lam);
  return lam;
}

/* Take `surplus` [J] of kinetic energy from n particles (v: 3 per
 * particle, changed; m: masses): v = vbar_b + lam (v - vbar_b), vbar_b the
 * mean velocity of body b = body[i] (< nbody; body NULL: all one body,
 * nbody 1), lam the same for all.
 * Particles with skip[i] set (skip may be NULL) keep their velocity and
 * count in no mean.  acc: 4 nbody doubles of scratch.  Sums in index
 * order (the same on any thread count).  When the motion about the means
 * holds less than the surplus it is all taken.  Returns what was taken. */
static inline double msc_give_back(size_t n, double *v, const double *m,
                                   const uint32_t *body, uint32_t nbody,
                                   const uint8_t *skip, double *acc,
                                   double surplus) {
  if (!(surplus > 0.0)) return 0.0;
  memset(acc, 0, 4 * (size_t)nbody * sizeof *acc);
  double k = 0.0, kmean = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (skip && skip[i]) continue;
    const double *u = v + 3 * i;
    double *A = acc + 4 * (size_t)(body ? body[i] : 0);
    A[0] += m[i];
    for (int a = 0; a < 3; a++) A[1 + a] += m[i] * u[a];
    k += 0.5 * m[i] * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  }
  for (uint32_t b = 0; b < nbody; b++) {
    double *A = acc + 4 * (size_t)b;
    if (!(A[0] > 0.0)) continue;
    for (int a = 1; a < 4; a++) A[a] /= A[0];
    kmean += 0.5 * A[0] * (A[1] * A[1] + A[2] * A[2] + A[3] * A[3]);
  }
  double krel = k - kmean;
  if (!(krel > 0.0)) return 0.0;
  double taken, lam = msc_give_back_factor(krel, surplus, &taken);
  for (size_t i = 0; i < n; i++) {
    if (skip && skip[i]) continue;
    const double *A = acc + 4 * (size_t)(body ? body[i] : 0);
    for (int a = 0; a < 3; a++)
      v[3 * i + a] = A[1 + a] + lam * (v[3 * i + a] - A[1 + a]);
  }
  return taken;
}

#endif
