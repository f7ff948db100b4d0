/* One linearised implicit step in node space (see implicit.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "solver_impl.h"

int msi_fail(struct msi_solver *S, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(S->error, sizeof S->error, fmt, ap);
  va_end(ap);
  return status;
}

int msi_solver_create(struct msi_solver **out) {
  struct msi_solver *S = calloc(1, sizeof *S);
  if (!S) return MS_ENOMEM;
  msi_topo_init(&S->topo);
  *out = S;
  return MS_OK;
}

void msi_solver_destroy(struct msi_solver *S) {
  if (!S) return;
  msi_cholmod_free(S);
  msi_topo_free(&S->topo);
  free(S->f), free(S->K), free(S->D), free(S->C);
  free(S->rhs), free(S->px), free(S->pr), free(S->pz), free(S->pp);
  free(S->pq), free(S->pinv), free(S->partial);
  free(S->rank), free(S->perm), free(S->bucket), free(S->pdv);
  msi_mark_free(S);
  free(S);
}

const struct msi_stats *msi_solver_stats(const struct msi_solver *S) {
  return &S->stats;
}

const char *msi_solver_error(const struct msi_solver *S) { return S->error; }

const void *msi_solver_matrix(const struct msi_solver *S) {
  return S->A_ready ? (const void *)S->A : NULL;
}

static int reserve(struct msi_solver *S, size_t nterms, size_t nn) {
  if (nterms > S->cap_terms) {
    size_t c = nterms + nterms / 4 + 16;
    if (msi_grow((void **)&S->f, c, 3 * sizeof(double)) ||
        msi_grow((void **)&S->K, c, MSI_SYM * sizeof(double)) ||
        msi_grow((void **)&S->D, c, MSI_SYM * sizeof(double)) ||
        msi_grow((void **)&S->C, c, MSI_SYM * sizeof(double)))
      return MS_ENOMEM;
    S->cap_terms = c;
  }
  if (nn > S->cap_nodes) {
    size_t c = nn + nn / 4 + 16;
    if (msi_grow((void **)&S->rhs, c, 3 * sizeof(double)) ||
        msi_grow((void **)&S->px, c, 3 * sizeof(double)) ||
        msi_grow((void **)&S->pr, c, 3 * sizeof(double)) ||
        msi_grow((void **)&S->pz, c, 3 * sizeof(double)) ||
        msi_grow((void **)&S->pp, c, 3 * sizeof(double)) ||
        msi_grow((void **)&S->pq, c, 3 * sizeof(double)) ||
        msi_grow((void **)&S->pinv, c, MSI_SYM * sizeof(double)))
      return MS_ENOMEM;
    S->cap_nodes = c;
  }
  size_t np = (3 * nn + MSI_CHUNK - 1) / MSI_CHUNK + 1;
  if (np > S->cap_partial) {
    if (msi_grow((void **)&S->partial, np, sizeof(double))) return MS_ENOMEM;
    S->cap_partial = np;
  }
  return MS_OK;
}

/* Forces and blocks of every term, and C = a D + b K. */
static void eval_terms(struct msi_solver *S, const struct msi_law *law,
                       size_t nterms, const double *x, const double *v,
                       double a, double b, int threads) {
  size_t nch = (nterms + 1023) / 1024;
#pragma omp parallel for schedule(static) num_threads(threads) \
    if (nterms > 2 * MSI_PAR_MIN)
  for (size_t ch = 0; ch < nch; ch++) {
    size_t t0 = ch * 1024, t1 = t0 + 1024 < nterms ? t0 + 1024 : nterms;
    law->eval(law->ctx, t0, t1, x, v, S->f, S->K, S->D);
    for (size_t q = MSI_SYM * t0; q < MSI_SYM * t1; q++)
      S->C[q] = a * S->D[q] + b * S->K[q];
  }
}

/* y = B w for a symmetric block B stored as xx yy zz xy xz yz. */
static inline void sym_mul(const double *B, const double *w, double *y) {
  y[0] = B[0] * w[0] + B[3] * w[1] + B[4] * w[2];
  y[1] = B[3] * w[0] + B[1] * w[1] + B[5] * w[2];
  y[2] = B[4] * w[0] + B[5] * w[1] + B[2] * w[2];
}

/* rhs_J = h (F_J + sum of term forces) - c sum K_t (V_J - V_other). */
static void build_rhs(struct msi_solver *S, const struct msi_nodes *N,
                      const double *F, double h, double c, int threads) {
  const struct msi_topo *T = &S->topo;
#pragma omp parallel for schedule(static) num_threads(threads) \
    if (N->nn > MSI_PAR_MIN)
  for (size_t J = 0; J < N->nn; J++) {
    double fs[3] = {F[3 * J], F[3 * J + 1], F[3 * J + 2]};
    double kv[3] = {0.0, 0.0, 0.0};
    const double *VJ = N->vel + 3 * J;
    for (uint32_t e = T->inc_off[J]; e < T->inc_off[J + 1]; e++) {
      size_t t = T->inc[e] >> 1;
      double sg = (T->inc[e] & 1) ? -1.0 : 1.0, w[3], y[3];
      const double *ft = S->f + 3 * t;
      fs[0] += sg * ft[0], fs[1] += sg * ft[1], fs[2] += sg * ft[2];
      int32_t o = T->other[e];
      for (int k = 0; k < 3; k++)
        w[k] = VJ[k] - (o >= 0 ? N->vel[3 * (size_t)o + k] : 0.0);
      sym_mul(S->K + MSI_SYM * t, w, y);
      kv[0] += y[0], kv[1] += y[1], kv[2] += y[2];
    }
    for (int k = 0; k < 3; k++) S->rhs[3 * J + k] = h * fs[k] - c * kv[k];
  }
}

/* Keep each particle's velocity change: the next PCG's first guess. */
static int keep_solution(struct msi_solver *S, const struct msi_nodes *N,
                         const double *dv) {
  msi_mark_guess(S);
  if (N->np > S->cap_pdv) {
    if (msi_grow((void **)&S->pdv, N->np, 3 * sizeof *S->pdv))
      return MS_ENOMEM;
    S->cap_pdv = N->np;
  }
  for (size_t p = 0; p < N->np; p++)
    for (int k = 0; k < 3; k++)
      S->pdv[3 * p + k] = N->node[p] >= 0 ? dv[3 * (size_t)N->node[p] + k]
                                          : 0.0;
  S->pdv_np = N->np;
  return MS_OK;
}

/* PCG stops at a residual, and the residual's sum is momentum the step
 * makes or loses.  The term blocks are translation invariant, so in a
 * system with no fixed particle sum_J (A dV)_J = sum_J d_J dV_J, which the
 * exact solution makes equal to sum_J rhs_J.  Shifting every node's dV by
 * one delta restores that equality exactly (to round-off) and changes
 * each residual entry by d_J delta only: free systems conserve momentum
 * whatever the tolerance. */
static void conserve_momentum(const struct msi_solver *S,
                              const struct msi_nodes *N, const double *d,
                              double *dv) {
  for (size_t p = 0; p < N->np; p++)
    if (N->node[p] < 0) return; /* held: momentum is not conserved */
  double r[3] = {0.0, 0.0, 0.0}, D = 0.0;
  for (size_t J = 0; J < N->nn; J++) {
    D += d[J];
    for (int k = 0; k < 3; k++)
      r[k] += S->rhs[3 * J + k] - d[J] * dv[3 * J + k];
  }
  if (!(D > 0.0)) return;
  for (size_t J = 0; J < N->nn; J++)
    for (int k = 0; k < 3; k++) dv[3 * J + k] += r[k] / D;
}

/* The linear solve by the chosen policy (enum msi_linear_solver). */
static int solve(struct msi_solver *S, const struct msi_options *opt,
                 const struct msi_nodes *N, const struct msi_terms *terms,
                 const double *d, double *dv) {
  int maxit = opt->pcg_max_iterations > 0 ? opt->pcg_max_iterations : 1000;
  int ok = 0, rc;
  if (opt->linear_solver == MSI_PCG) {
    if ((rc = msi_pcg_solve(S, opt, N, d, maxit, &ok, dv))) return rc;
    if (!ok)
      return msi_fail(S, MS_ENUMERIC, "PCG did not converge in %d "
                      "iterations (relative residual %.3g > %.3g): raise "
                      "pcg_max_iterations or use CHOLMOD", maxit,
                      S->stats.last_residual, opt->pcg_tolerance);
    S->stats.pcg_solves++;
  } else if (opt->linear_solver == MSI_AUTO && S->Lbcol &&
             !msi_cholmod_matches(S, N->nn) && S->pcg_skip > 0) {
    S->pcg_skip--;
  } else if (opt->linear_solver == MSI_AUTO && S->Lbcol &&
             !msi_cholmod_matches(S, N->nn)) {
    /* a new pattern: PCG if it beats re-analysis + factorisation */
    double cap = msi_cholmod_cost(S) / msi_pcg_iteration_cost(S, N->nn);
    int it = cap < 1.0 ? 1 : cap > maxit ? maxit : (int)cap;
    if ((rc = msi_pcg_solve(S, opt, N, d, it, &ok, dv))) return rc;
    if (ok) {
      S->stats.pcg_solves++;
      S->pcg_misses = 0;
    } else { /* leave the next 1, 3, 7, ... new patterns to CHOLMOD */
      S->stats.pcg_fallbacks++;
      S->pcg_misses = S->pcg_misses < 6 ? S->pcg_misses + 1 : 6;
      S->pcg_skip = (1 << S->pcg_misses) - 1;
    }
  }
  int pcg = ok;
  if (!ok && (rc = msi_cholmod_solve(S, opt, N, terms, d, dv))) return rc;
  /* The next solve's first guess: PCG's own answer, before the shift
   * below (a rewind restores the step's; msi_solver_rewind). */
  if (keep_solution(S, N, dv)) return msi_fail(S, MS_ENOMEM, "out of memory");
  if (pcg) conserve_momentum(S, N, d, dv);
  return MS_OK;
}

int msi_implicit_step(struct msi_solver *S, const struct msi_options *opt,
                      const struct msi_nodes *N,
                      const struct msi_terms *terms,
                      const struct msi_law *law, const double *x,
                      const double *v, const double *F, const double *d,
                      double h, double a, double b, double c, double *dv) {
  int threads = opt->threads > 0 ? opt->threads : 1, rc;
  double t0 = msi_now();
  S->error[0] = '\0';
  if ((rc = msi_topo_update(&S->topo, N, terms,
                            opt->linear_solver != MSI_PCG, threads)))
    return msi_fail(S, rc, "building the node pattern: %s",
                    rc == MS_ENOMEM ? "out of memory" : "too many terms");
  if (reserve(S, terms->count, N->nn))
    return msi_fail(S, MS_ENOMEM, "implicit step: out of memory");
  eval_terms(S, law, terms->count, x, v, a, b, threads);
  double t1 = msi_now();
  S->stats.t_eval += t1 - t0;
  S->stats.steps++;
  if (N->nn == 0) return MS_OK;
  build_rhs(S, N, F, h, c, threads);
  S->stats.t_assembly += msi_now() - t1;
  if ((rc = solve(S, opt, N, terms, d, dv))) return rc;
  for (size_t q = 0; q < 3 * N->nn; q++)
    if (!isfinite(dv[q]))
      return msi_fail(S, MS_ENUMERIC, "the implicit solve produced a "
                      "non-finite velocity at node %zu", q / 3);
  return MS_OK;
}
