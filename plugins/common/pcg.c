/* Matrix-free preconditioned conjugate gradients in node space:
 *   (A w)_J = d_J w_J + sum over the node's terms of C_t (w_J - w_other),
 * block-Jacobi preconditioner (the inverse 3x3 diagonal block of each
 * node).  Dot products are summed in fixed chunks, in order, so results do
 * not depend on the thread count. */
#include <math.h>
#include <string.h>

#include "grow.h"
#include "solver_impl.h"

static inline void sym_mul(const double *B, const double *w, double *y) {
  y[0] = B[0] * w[0] + B[3] * w[1] + B[4] * w[2];
  y[1] = B[3] * w[0] + B[1] * w[1] + B[5] * w[2];
  y[2] = B[4] * w[0] + B[5] * w[1] + B[2] * w[2];
}

/* Inverse of a symmetric positive definite 3x3 block (same layout). */
static void sym_inverse(const double *B, double *I) {
  double c0 = B[1] * B[2] - B[5] * B[5];
  double c1 = B[4] * B[5] - B[3] * B[2];
  double c2 = B[3] * B[5] - B[4] * B[1];
  double det = B[0] * c0 + B[3] * c1 + B[4] * c2;
  double s = 1.0 / det;
  I[0] = c0 * s;
  I[1] = (B[0] * B[2] - B[4] * B[4]) * s;
  I[2] = (B[0] * B[1] - B[3] * B[3]) * s;
  I[3] = c1 * s;
  I[4] = c2 * s;
  I[5] = (B[3] * B[4] - B[0] * B[5]) * s;
}

static void apply(const struct msi_solver *S, const struct msi_nodes *N,
                  const double *d, const double *w, double *y, int threads) {
  const struct msi_topo *T = &S->topo;
#pragma omp parallel for schedule(static) num_threads(threads) \
    if (N->nn > MSI_PAR_MIN)
  for (size_t J = 0; J < N->nn; J++) {
    const double *wJ = w + 3 * J;
    double s[3] = {d[J] * wJ[0], d[J] * wJ[1], d[J] * wJ[2]};
    for (uint32_t e = T->inc_off[J]; e < T->inc_off[J + 1]; e++) {
      int32_t o = T->other[e];
      double dw[3], q[3];
      for (int k = 0; k < 3; k++)
        dw[k] = wJ[k] - (o >= 0 ? w[3 * (size_t)o + k] : 0.0);
      sym_mul(S->C + MSI_SYM * (size_t)(T->inc[e] >> 1), dw, q);
      s[0] += q[0], s[1] += q[1], s[2] += q[2];
    }
    memcpy(y + 3 * J, s, sizeof s);
  }
}

static double dot(struct msi_solver *S, const double *a, const double *b,
                  size_t n, int threads) {
  size_t nch = (n + MSI_CHUNK - 1) / MSI_CHUNK;
#pragma omp parallel for schedule(static) num_threads(threads) if (nch > 8)
  for (size_t c = 0; c < nch; c++) {
    size_t i1 = (c + 1) * MSI_CHUNK < n ? (c + 1) * MSI_CHUNK : n;
    double s = 0.0;
    for (size_t i = c * MSI_CHUNK; i < i1; i++) s += a[i] * b[i];
    S->partial[c] = s;
  }
  double s = 0.0;
  for (size_t c = 0; c < nch; c++) s += S->partial[c];
  return s;
}

static void precondition(const struct msi_solver *S, size_t nn,
                         const double *r, double *z, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads) \
    if (nn > MSI_PAR_MIN)
  for (size_t J = 0; J < nn; J++)
    sym_mul(S->pinv + MSI_SYM * J, r + 3 * J, z + 3 * J);
}

static void block_jacobi(struct msi_solver *S, const struct msi_nodes *N,
                         const double *d, int threads) {
  const struct msi_topo *T = &S->topo;
#pragma omp parallel for schedule(static) num_threads(threads) \
    if (N->nn > MSI_PAR_MIN)
  for (size_t J = 0; J < N->nn; J++) {
    double B[MSI_SYM] = {d[J], d[J], d[J], 0.0, 0.0, 0.0};
    for (uint32_t e = T->inc_off[J]; e < T->inc_off[J + 1]; e++) {
      const double *C = S->C + MSI_SYM * (size_t)(T->inc[e] >> 1);
      for (int k = 0; k < MSI_SYM; k++) B[k] += C[k];
    }
    sym_inverse(B, S->pinv + MSI_SYM * J);
  }
}

/* First guess: the last velocity change of each node's first member
 * (stage 2 starts from stage 1, a step from the one before). */
static void first_guess(const struct msi_solver *S, const struct msi_nodes *N,
                        double *x) {
  if (S->pdv_np != N->np) {
    memset(x, 0, 3 * N->nn * sizeof *x);
    return;
  }
  for (size_t J = 0; J < N->nn; J++)
    memcpy(x + 3 * J, S->pdv + 3 * (size_t)N->mem[N->mem_off[J]],
           3 * sizeof *x);
}

/* Relative to the matrix-free product's memory traffic: one iteration is
 * one product (18 flops per incidence entry), the preconditioner, three
 * dot products and three vector updates (about 30 per unknown).  0.46 to
 * 0.51 ns per unit were measured on the development machine (tests/bench,
 * CPU time, one thread). */
double msi_pcg_iteration_cost(const struct msi_solver *S, size_t nn) {
  return 0.5 * (18.0 * (double)S->topo.inc_off[nn] + 90.0 * (double)nn);
}

int msi_pcg_solve(struct msi_solver *S, const struct msi_options *opt,
                  const struct msi_nodes *N, const double *d, int maxit,
                  int *converged, double *dv) {
  int threads = opt->threads > 0 ? opt->threads : 1;
  size_t nn = N->nn, n = 3 * nn;
  double *x = S->px, *r = S->pr, *z = S->pz, *p = S->pp, *q = S->pq;
  double t0 = msi_now();
  double bn = sqrt(dot(S, S->rhs, S->rhs, n, threads));
  *converged = 1;
  if (bn == 0.0) { /* nothing acts: no change */
    memset(dv, 0, n * sizeof *dv);
    S->stats.last_residual = 0.0;
    return MS_OK;
  }
  block_jacobi(S, N, d, threads);
  first_guess(S, N, x);
  apply(S, N, d, x, q, threads);
  for (size_t i = 0; i < n; i++) r[i] = S->rhs[i] - q[i];
  double tol = opt->pcg_tolerance > 0.0 ? opt->pcg_tolerance : 1e-8;
  precondition(S, nn, r, z, threads);
  memcpy(p, z, n * sizeof *p);
  double rz = dot(S, r, z, n, threads), rn = sqrt(dot(S, r, r, n, threads));
  int it = 0;
  while (rn > tol * bn && it < maxit) {
    apply(S, N, d, p, q, threads);
    double alpha = rz / dot(S, p, q, n, threads);
#pragma omp parallel for schedule(static) num_threads(threads) \
    if (n > 3 * MSI_PAR_MIN)
    for (size_t i = 0; i < n; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    precondition(S, nn, r, z, threads);
    double rz1 = dot(S, r, z, n, threads), beta = rz1 / rz;
    rz = rz1;
#pragma omp parallel for schedule(static) num_threads(threads) \
    if (n > 3 * MSI_PAR_MIN)
    for (size_t i = 0; i < n; i++) p[i] = z[i] + beta * p[i];
    rn = sqrt(dot(S, r, r, n, threads));
    it++;
  }
  S->stats.pcg_iterations += (uint64_t)it;
  S->stats.last_residual = rn / bn;
  S->stats.t_solve += msi_now() - t0;
  *converged = rn <= tol * bn;
  memcpy(dv, x, n * sizeof *dv);
  return MS_OK;
}
