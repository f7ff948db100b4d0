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
 * unchanged, and the step ends with the energy it began with.  With
 * energy_limit_metas a step with meta-particles is held the same way,
 * each meta-particle one particle of its whole mass: under a floating
 * body every step has meta-particles, and the pool's symplectic steps
 * swing its energy by up to 8e-4 J a step as it breathes, which no step
 * on the fluid alone is there to take back.  Sums run in index order: the
 * result does not depend on the thread count. */
#include <string.h>

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

/* A step with meta-particles as the system integrates it: every meta-
 * particle k one particle of mass M_k moving with V (3 per meta; its
 * members' kinetic energy is in it, and their velocities are V), the
 * other systems' part of it under gravity by its displacement d (NULL: at
 * the step's start, none yet).  S->meta marks the members. */
double sph_energy_with_metas(const struct sph_solver *S,
                             const struct ms_metas *M, const double *V,
                             const double *d) {
  const double *g = S->P.gravity;
  double k = 0.0, p = 0.0, e = 0.0;
  for (size_t i = 0; i < S->n; i++) {
    const double *x = S->x + SPH_XS * i, *v = S->v + 3 * i;
    if (S->meta[i] < 0)
      k += 0.5 * S->m[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    p -= S->m[i] * (g[0] * x[0] + g[1] * x[1] + g[2] * x[2]);
    e += S->m[i] * sph_internal_energy(&S->P, S->rho[i]);
  }
  for (uint32_t q = 0; q < M->count; q++) {
    const double *u = V + 3 * q;
    k += 0.5 * M->mass[q] * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    if (d)
      p -= (M->mass[q] - M->own_mass[q]) *
           (g[0] * d[3 * q] + g[1] * d[3 * q + 1] + g[2] * d[3 * q + 2]);
  }
  return k + p + e;
}

/* The give-back of sph_limit_energy over the free particles and the
 * meta-particles (mass M_k, velocity V, which the members take): the
 * mean velocity is theirs together, so the momentum the system hands the
 * core (its particles' and its impulses on the meta-particles) is
 * unchanged. */
double sph_limit_energy_with_metas(struct sph_solver *S,
                                   const struct ms_metas *M, double *V,
                                   const double *d, double e0) {
  double surplus = sph_energy_with_metas(S, M, V, d) - e0;
  if (!(surplus > 0.0)) return 0.0;
  double mt = 0.0, p[3] = {0.0, 0.0, 0.0}, k = 0.0;
  for (size_t i = 0; i < S->n; i++) {
    if (S->meta[i] >= 0) continue;
    const double *v = S->v + 3 * i;
    mt += S->m[i];
    for (int a = 0; a < 3; a++) p[a] += S->m[i] * v[a];
    k += 0.5 * S->m[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  }
  for (uint32_t q = 0; q < M->count; q++) {
    const double *u = V + 3 * q;
    mt += M->mass[q];
    for (int a = 0; a < 3; a++) p[a] += M->mass[q] * u[a];
    k += 0.5 * M->mass[q] * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  }
  if (!(mt > 0.0)) return 0.0;
  double vb[3] = {p[0] / mt, p[1] / mt, p[2] / mt};
  double krel = k - 0.5 * mt * (vb[0] * vb[0] + vb[1] * vb[1] + vb[2] * vb[2]);
  if (!(krel > 0.0)) return 0.0;
  double taken, lam = msc_give_back_factor(krel, surplus, &taken);
  for (size_t i = 0; i < S->n; i++) {
    if (S->meta[i] >= 0) continue;
    for (int a = 0; a < 3; a++)
      S->v[3 * i + a] = vb[a] + lam * (S->v[3 * i + a] - vb[a]);
  }
  for (uint32_t q = 0; q < M->count; q++) {
    double *u = V + 3 * q;
    for (int a = 0; a < 3; a++) u[a] = vb[a] + lam * (u[a] - vb[a]);
    for (uint32_t r = M->member_offset[q]; r < M->member_offset[q + 1]; r++)
      memcpy(S->v + 3 * (size_t)M->member[r], u, 3 * sizeof(double));
  }
  return taken;
}
