/* The implicit solver's state (internal to the shared plugin helpers). */
#ifndef MS_PLUGINS_COMMON_SOLVER_IMPL_H
#define MS_PLUGINS_COMMON_SOLVER_IMPL_H

#include <stdarg.h>
#include <time.h>

#include <suitesparse/cholmod.h>

#include "implicit.h"

struct msi_solver {
  struct msi_topo topo;
  struct msi_stats stats;
  char error[320];
  /* per term: force, stiffness, damping, a D + b K */
  double *f, *K, *D, *C;
  size_t cap_terms;
  /* per node: right-hand side, PCG vectors, block-Jacobi inverses */
  double *rhs, *px, *pr, *pz, *pp, *pq, *pinv;
  size_t cap_nodes, pcg_nn; /* pcg_nn: nodes of the last PCG solution */
  double *partial;          /* chunk sums for deterministic dots */
  size_t cap_partial;
  /* CHOLMOD */
  cholmod_common cc;
  int cc_started;
  cholmod_sparse *A;   /* upper triangle, 3 nn x 3 nn */
  cholmod_factor *L;   /* symbolic + numeric factor */
  cholmod_dense *B, *X, *Y, *E;
  int A_ready;         /* A's structure matches the topology's pattern */
  /* fill-reducing order of the particle graph, reused for every node
   * pattern (ordering MSI_ORDER_REUSE) */
  SuiteSparse_long *rank, *perm; /* rank: np; perm: 3 nn */
  uint32_t *bucket;              /* np */
  size_t rank_np, cap_rank, cap_perm;
};

static inline double msi_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int msi_fail(struct msi_solver *S, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* cholmod_backend.c */
int msi_cholmod_solve(struct msi_solver *S, const struct msi_options *opt,
                      const struct msi_nodes *N,
                      const struct msi_terms *terms, const double *d,
                      double *dv);
void msi_cholmod_free(struct msi_solver *S);

/* pcg.c */
int msi_pcg_solve(struct msi_solver *S, const struct msi_options *opt,
                  const struct msi_nodes *N, const double *d, double *dv);

#endif
