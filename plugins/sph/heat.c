/* Heat conduction between SPH neighbours (Cleary and Monaghan 1999):
 *
 *   m_i c_i dT_i/dt = sum_j m_i m_j / (rho_i rho_j) 4 k_i k_j / (k_i + k_j)
 *                     (T_i - T_j) F_ij,
 *
 * grad W(x) = F(|x|) x with F < 0 inside the support, one conductivity k
 * for the fluid (4 k k / (k + k) = 2 k).  Every term is antisymmetric in
 * i and j, so the sum of m c T is kept to rounding.  Explicit: stable for
 * dt <= 0.1 rho c h^2 / k (Cleary and Monaghan's bound), which max_dt
 * honours; water (k = 0.6 W/(m K)) allows hours at any spacing that
 * runs, so the bound only acts for a conductivity chosen large. */
#include "sph.h"

double sph_heat_dt(const struct sph_solver *S) {
  const struct sph_params *P = &S->P;
  if (!(P->conductivity > 0.0)) return INFINITY;
  return 0.1 * P->rho0 * P->specific_heat * P->h * P->h / P->conductivity;
}

void sph_heat(struct sph_solver *S, double dt) {
  const size_t n = S->n;
  const double k2 = 2.0 * S->P.conductivity;
  if (!(k2 > 0.0) || n == 0) return;
  double lo = S->T[0], hi = S->T[0];
  for (size_t i = 1; i < n; i++) lo = fmin(lo, S->T[i]), hi = fmax(hi, S->T[i]);
  if (lo == hi) return; /* one temperature: nothing flows */
  const struct sph_kernel *kg = &S->kg;
  const int kind = kg->kind;
  const double *x = S->x, *T = S->T, *m = S->m, *rho = S->rho;
#pragma omp parallel for schedule(dynamic, 256) \
    num_threads(sph_team(S, n, SPH_PAIR_MIN))
  for (size_t i = 0; i < n; i++) {
    double sum = 0.0;
    const double *xi = x + SPH_XS * i;
    for (uint32_t q = S->loff[i]; q < S->lend[i]; q++) {
      uint32_t j = S->lidx[q];
      const double *xj = x + SPH_XS * (size_t)j;
      double d[3] = {xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]};
      double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      if (!(r2 < kg->R2)) continue;
      sum += m[j] / rho[j] * (T[i] - T[j]) * sph_f_in(kg, kind, r2);
    }
    S->dT[i] = k2 * sum / (rho[i] * S->c[i]);
  }
  for (size_t i = 0; i < n; i++) S->T[i] += dt * S->dT[i];
}
