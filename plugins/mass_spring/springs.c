/* The spring force law in the shape the implicit machinery takes
 * (plugins/common/implicit.h): force on the first particle, and the
 * stiffness and damping blocks d f / d x_j, d f / d v_j.
 *
 *   f = (T(l) + c (dv . u)) u,               u = (x_j - x_i) / l
 *   K = T'(l) u u^T + max(0, T(l) / l) (I - u u^T)
 *   D = c u u^T
 * with the tension T(l) = k (l - L), and, with stiffening S > 1 beyond
 * the onset length Lc = (1 + onset) L, T(l) += (S - 1) k (l - Lc): the
 * sheet stiffens as cloth does once its yarns are straight, so the
 * implicit solve itself holds a heavy load near the onset strain
 * (README.md, "Stiffening").  The transverse part of K is the exact one
 * while the spring is stretched; under compression it is dropped (the
 * exact term is negative there and would make the system indefinite).
 * The dashpot's dependence on x through u is neglected, as usual. */
#include <math.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "mass_spring.h"

/* Beyond the onset: the extra tension and its slope (0, 0 before it). */
static double stiffened(const struct mss_springs *S, double k, double L,
                        double l, double *slope) {
  double Lc = (1.0 + S->stiff_onset) * L;
  *slope = 0.0;
  if (!(S->stiff_factor > 1.0) || !(l > Lc)) return 0.0;
  *slope = (S->stiff_factor - 1.0) * k;
  return *slope * (l - Lc);
}

double mss_spring_energy(const struct mss_springs *S, size_t t,
                         const double *x) {
  const double *a = x + 3 * (size_t)S->pair[2 * t];
  const double *b = x + 3 * (size_t)S->pair[2 * t + 1];
  double k = S->k[t], L = S->rest[t], e = ms_spring_energy(a, b, k, L);
  if (!(S->stiff_factor > 1.0)) return e;
  double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, slope;
  double extra = stiffened(S, k, L, sqrt(d[0] * d[0] + d[1] * d[1] +
                                         d[2] * d[2]), &slope);
  /* the extra tension is linear beyond the onset: its energy is
   * extra^2 / (2 slope) */
  return slope > 0.0 ? e + 0.5 * extra * extra / slope : e;
}

void mss_spring_eval(void *ctx, size_t t0, size_t t1, const double *x,
                     const double *v, double *f, double *K, double *D) {
  const struct mss_springs *S = ctx;
  for (size_t t = t0; t < t1; t++) {
    size_t i = S->pair[2 * t], j = S->pair[2 * t + 1];
    double d[3], dv[3];
    for (int a = 0; a < 3; a++) {
      d[a] = x[3 * j + a] - x[3 * i + a];
      dv[a] = v[3 * j + a] - v[3 * i + a];
    }
    double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double k = S->k[t], c = S->c[t], L = S->rest[t];
    if (!(l > 1e-12 * (L > 0.0 ? L : 1.0))) { /* coincident: no direction */
      memset(f + 3 * t, 0, 3 * sizeof *f);
      if (K) {
        double *Kt = K + MSI_SYM * t, *Dt = D + MSI_SYM * t;
        Kt[0] = Kt[1] = Kt[2] = k, Kt[3] = Kt[4] = Kt[5] = 0.0;
        Dt[0] = Dt[1] = Dt[2] = c, Dt[3] = Dt[4] = Dt[5] = 0.0;
      }
      continue;
    }
    double u[3] = {d[0] / l, d[1] / l, d[2] / l};
    double slope, e = k * (l - L) + stiffened(S, k, L, l, &slope);
    double ka = k + slope;
    double s = e + c * (dv[0] * u[0] + dv[1] * u[1] + dv[2] * u[2]);
    f[3 * t] = s * u[0], f[3 * t + 1] = s * u[1], f[3 * t + 2] = s * u[2];
    if (!K) continue;
    /* unstiffened: the expression of 1.0, so its runs are bitwise kept */
    double tr = l > L ? (slope > 0.0 ? e / l : k * (1.0 - L / l)) : 0.0;
    double ax = ka - tr;
    double *Kt = K + MSI_SYM * t, *Dt = D + MSI_SYM * t;
    Kt[0] = ax * u[0] * u[0] + tr, Kt[1] = ax * u[1] * u[1] + tr;
    Kt[2] = ax * u[2] * u[2] + tr, Kt[3] = ax * u[0] * u[1];
    Kt[4] = ax * u[0] * u[2], Kt[5] = ax * u[1] * u[2];
    Dt[0] = c * u[0] * u[0], Dt[1] = c * u[1] * u[1];
    Dt[2] = c * u[2] * u[2], Dt[3] = c * u[0] * u[1];
    Dt[4] = c * u[0] * u[2], Dt[5] = c * u[1] * u[2];
  }
}
