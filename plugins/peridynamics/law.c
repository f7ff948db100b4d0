/* The bond force law for the shared implicit step (common/implicit.h).
 *
 * Bond b joins i < j with reference length L.  With d = x_j - x_i,
 * l = |d|, n = d / l and s = (l - L) / L, the force on i is
 *     f = (k (l - L) + eta k n.(v_j - v_i)) n,   k = c V^2 / L,
 * i.e. c s V^2 along the bond plus a stiffness-proportional dashpot
 * (eta = material damping [s]).  Its Jacobians:
 *     K = df/dx_j = k n n^T + k (1 - L/l) (I - n n^T)
 *     D = df/dv_j = eta k n n^T.
 * The transverse part of K is negative for a compressed bond; it is
 * clamped at zero so the step's matrix stays positive definite.  A broken
 * bond contributes nothing. */
#include <math.h>
#include <string.h>

#include "peridynamics.h"

void pd_bond_force(const struct pd_model *M, size_t b, const double *x,
                   const double *v, double *f) {
  const struct pd_bonds *B = &M->bonds;
  f[0] = f[1] = f[2] = 0.0;
  if (B->broken[b]) return;
  size_t i = B->pair[2 * b], j = B->pair[2 * b + 1];
  double d[3], dv[3];
  for (int a = 0; a < 3; a++) {
    d[a] = x[3 * j + a] - x[3 * i + a];
    dv[a] = v[3 * j + a] - v[3 * i + a];
  }
  double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (!(l > 0.0)) return;
  double L = B->rest[b];
  double k = M->mat.micro * M->mat.volume * M->mat.volume / L;
  double vn = (d[0] * dv[0] + d[1] * dv[1] + d[2] * dv[2]) / l;
  double mag = (k * (l - L) + M->mat.damping * k * vn) / l;
  for (int a = 0; a < 3; a++) f[a] = mag * d[a];
}

void pd_bond_eval(void *model, size_t t0, size_t t1, const double *x,
                  const double *v, double *f, double *K, double *D) {
  const struct pd_model *M = model;
  const struct pd_bonds *B = &M->bonds;
  const double cv2 = M->mat.micro * M->mat.volume * M->mat.volume;
  const double eta = M->mat.damping;
  for (size_t t = t0; t < t1; t++) {
    double *ft = f + 3 * t;
    if (B->broken[t]) {
      memset(ft, 0, 3 * sizeof *ft);
      if (K) {
        memset(K + MSI_SYM * t, 0, MSI_SYM * sizeof *K);
        memset(D + MSI_SYM * t, 0, MSI_SYM * sizeof *D);
      }
      continue;
    }
    size_t i = B->pair[2 * t], j = B->pair[2 * t + 1];
    double d[3], n[3], dv[3];
    for (int a = 0; a < 3; a++) {
      d[a] = x[3 * j + a] - x[3 * i + a];
      dv[a] = v[3 * j + a] - v[3 * i + a];
    }
    double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double L = B->rest[t], k = cv2 / L;
    if (!(l > 0.0)) { /* coincident ends: no direction, no force */
      memset(ft, 0, 3 * sizeof *ft);
      if (K) {
        double iso[MSI_SYM] = {k, k, k, 0.0, 0.0, 0.0};
        memcpy(K + MSI_SYM * t, iso, sizeof iso);
        memset(D + MSI_SYM * t, 0, MSI_SYM * sizeof *D);
      }
      continue;
    }
    for (int a = 0; a < 3; a++) n[a] = d[a] / l;
    double vn = n[0] * dv[0] + n[1] * dv[1] + n[2] * dv[2];
    double mag = k * (l - L) + eta * k * vn;
    for (int a = 0; a < 3; a++) ft[a] = mag * n[a];
    if (!K) continue;
    double kt = k * (1.0 - L / l);
    if (kt < 0.0) kt = 0.0;
    double kn = k - kt, dn = eta * k;
    double *Kt = K + MSI_SYM * t, *Dt = D + MSI_SYM * t;
    Kt[0] = kn * n[0] * n[0] + kt, Kt[1] = kn * n[1] * n[1] + kt;
    Kt[2] = kn * n[2] * n[2] + kt, Kt[3] = kn * n[0] * n[1];
    Kt[4] = kn * n[0] * n[2], Kt[5] = kn * n[1] * n[2];
    Dt[0] = dn * n[0] * n[0], Dt[1] = dn * n[1] * n[1];
    Dt[2] = dn * n[2] * n[2], Dt[3] = dn * n[0] * n[1];
    Dt[4] = dn * n[0] * n[2], Dt[5] = dn * n[1] * n[2];
  }
}
