/* Neighbour lists, density and pressure (the first pass of a step). */
#include <math.h>

#include "solver.h"

double sph_pressure(const struct sph_params *P, double rho) {
  double s = rho / P->rho0, t;
  if (P->gamma == 7.0) {
    double s2 = s * s;
    t = s2 * s2 * s2 * s;
  } else {
    t = pow(s, P->gamma);
  }
  double p = P->B * (t - 1.0);
  return P->clamp_pressure && p < 0.0 ? 0.0 : p;
}

/* Always inlined with a constant kind: one specialised loop per kernel. */
static inline __attribute__((always_inline)) void
density_pass(struct sph_solver *S, const int kind) {
  const struct sph_kernel *k = &S->kw;
  const struct sph_params *P = &S->P;
  const double *x = S->x, m = P->mass;
  const uint32_t *off = S->nbl.offset, *idx = S->nbl.index;
  const size_t n = S->n;
  double *rho = S->rho, *p = S->p, *pr = S->pr;
  uint8_t *walled = S->walled;
#pragma omp parallel for schedule(dynamic, 512) num_threads(S->threads)
  for (size_t i = 0; i < n; i++) {
    const double xi = x[SPH_XS * i], yi = x[SPH_XS * i + 1],
                 zi = x[SPH_XS * i + 2];
    double s = k->w0;
    for (uint32_t q = off[i], e = off[i + 1]; q < e; q++) {
      const double *xj = x + SPH_XS * (size_t)idx[q];
      double dx = xi - xj[0], dy = yi - xj[1], dz = zi - xj[2];
      s += sph_w_in(k, kind, dx * dx + dy * dy + dz * dz);
    }
    double wb = sph_boundary_density(S, x + SPH_XS * i);
    double r = m * (s + wb);
    walled[i] = wb != 0.0;
    double pi = sph_pressure(P, r);
    rho[i] = r;
    p[i] = pi;
    pr[i] = pi / (r * r);
  }
}

int sph_prepare(struct sph_solver *S) {
  if (S->fresh) return MS_OK;
  double t0 = sph_now();
  int rc = S->neighbors(S->nb_opaque, S->x, SPH_XS * sizeof(double),
                        S->n, S->kw.R, &S->nbl);
  if (rc) return rc;
  double t1 = sph_now();
  switch (S->kw.kind) {
  case SPH_POLY6: density_pass(S, SPH_POLY6); break;
  case SPH_SPIKY: density_pass(S, SPH_SPIKY); break;
  default: density_pass(S, SPH_CUBIC_SPLINE); break;
  }
  S->time[SPH_T_NEIGHBORS] += t1 - t0;
  S->time[SPH_T_DENSITY] += sph_now() - t1;
  S->fresh = 1;
  return MS_OK;
}
