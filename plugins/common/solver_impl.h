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
  size_t cap_nodes;
  /* the last velocity change per particle: PCG's first guess */
  double *pdv;
  size_t pdv_np, cap_pdv;
  int pcg_skip, pcg_misses; /* auto: changed patterns to leave to CHOLMOD */
  double *partial;          /* chunk sums for deterministic dots */
  size_t cap_partial;
  /* CHOLMOD */
  cholmod_common cc;
  int cc_started;
  cholmod_sparse *A;   /* upper triangle, 3 nn x 3 nn */
  cholmod_factor *L;   /* symbolic + numeric factor */
  cholmod_dense *B, *X, *Y, *E;
  int A_ready;         /* A's structure is L's pattern */
  /* A's values L was last factorised from (Af_valid: L holds that
   * factor): an integrate repeated with the same matrix only solves */
  double *Afx;
  size_t cap_Afx;
  int Af_valid;
  /* The factor of a pattern first met in this step, which a rewind put
   * aside when it restored the step's first pattern: the step integrated
   * again with that pattern takes it back instead of analysing (L NULL:
   * none).  Dropped at the next mark; never saved. */
  struct msi_spare {
    cholmod_factor *L;
    uint32_t *Lbcol, *Lbrow;
    SuiteSparse_long *Lperm;
    size_t Lnn, Lnblocks, cap_Lcol, cap_Lrow, cap_Lperm;
    double an_fl, an_lnz;
    double *Afx;
    size_t cap_Afx;
    int Af_valid;
  } spare;
  /* the block pattern L was analysed for (Lbcol NULL: none yet), and L's
   * final permutation: after a load, L is rebuilt from them */
  uint32_t *Lbcol, *Lbrow;
  size_t Lnn, Lnblocks, cap_Lcol, cap_Lrow;
  SuiteSparse_long *Lperm; /* 3 Lnn */
  size_t cap_Lperm;
  uint64_t L_gen;      /* topology generation last compared with L */
  int L_match;         /* ... and whether it matched */
  double an_fl, an_lnz; /* flops and nonzeros of L from the analysis */
  /* fill-reducing order of the particle graph, reused for every node
   * pattern (ordering MSI_ORDER_REUSE) */
  SuiteSparse_long *rank, *perm; /* rank: np; perm: 3 nn */
  uint32_t *bucket;              /* np */
  size_t rank_np, cap_rank, cap_perm;
  /* The carried-over state at the start of the step (msi_solver_mark),
   * for msi_solver_rewind.  The first guess and the pattern are moved
   * here (buffers swapped, nothing copied) only when the step replaces
   * them. */
  struct msi_mark {
    int on, guess_moved, pattern_moved;
    double *pdv;
    size_t pdv_np, cap_pdv, rank_np;
    int pcg_skip, pcg_misses;
    uint32_t *Lbcol, *Lbrow;
    SuiteSparse_long *Lperm;
    size_t Lnn, Lnblocks, cap_Lcol, cap_Lrow, cap_Lperm;
    double an_fl, an_lnz;
  } mark;
};

#define MSI_SWAP(T, a, b) do { T t_ = (a); (a) = (b); (b) = t_; } while (0)
/* Swap the block pattern a factor was analysed for, its permutation and
 * its costs between two holders (the solver, its mark, its spare). */
#define MSI_SWAP_PATTERN(p, q)                                  \
  do {                                                          \
    MSI_SWAP(uint32_t *, (p)->Lbcol, (q)->Lbcol);               \
    MSI_SWAP(uint32_t *, (p)->Lbrow, (q)->Lbrow);               \
    MSI_SWAP(SuiteSparse_long *, (p)->Lperm, (q)->Lperm);       \
    MSI_SWAP(size_t, (p)->Lnn, (q)->Lnn);                       \
    MSI_SWAP(size_t, (p)->Lnblocks, (q)->Lnblocks);             \
    MSI_SWAP(size_t, (p)->cap_Lcol, (q)->cap_Lcol);             \
    MSI_SWAP(size_t, (p)->cap_Lrow, (q)->cap_Lrow);             \
    MSI_SWAP(size_t, (p)->cap_Lperm, (q)->cap_Lperm);           \
    MSI_SWAP(double, (p)->an_fl, (q)->an_fl);                   \
    MSI_SWAP(double, (p)->an_lnz, (q)->an_lnz);                 \
  } while (0)

#ifndef MSI_CLOCK
#define MSI_CLOCK CLOCK_MONOTONIC
#endif
static inline double msi_now(void) {
  struct timespec t;
  clock_gettime(MSI_CLOCK, &t);
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
/* Nonzero when a factor exists and the current block pattern is the one
 * it was analysed for. */
int msi_cholmod_matches(struct msi_solver *S, size_t nn);
/* Estimated cost [ns] of analysing, factorising and solving the current
 * pattern, from the last analysis' figures. */
double msi_cholmod_cost(const struct msi_solver *S);
/* Room for a pattern of nn nodes and nblocks blocks and its permutation
 * (Lbcol, Lbrow, Lperm); MS_ENOMEM. */
int msi_cholmod_reserve_pattern(struct msi_solver *S, size_t nn,
                                size_t nblocks);
/* Before a solve replaces the first guess, an analysis the pattern: keep
 * the step's first ones for msi_solver_rewind (solver_state.c). */
void msi_mark_guess(struct msi_solver *S);
void msi_mark_pattern(struct msi_solver *S);
/* Frees the mark's arrays (solver_state.c). */
void msi_mark_free(struct msi_solver *S);
/* The spare factor (above): a rewind that restores the step's first
 * pattern keeps the current one's factor there; a mark drops it. */
void msi_spare_keep(struct msi_solver *S);
void msi_spare_drop(struct msi_solver *S);
/* Room for the particle order of np particles (rank, bucket); MS_ENOMEM. */
int msi_cholmod_reserve_order(struct msi_solver *S, size_t np);

/* pcg.c: at most maxit iterations; *converged says whether the tolerance
 * was met (dv holds the last iterate either way). */
int msi_pcg_solve(struct msi_solver *S, const struct msi_options *opt,
                  const struct msi_nodes *N, const double *d, int maxit,
                  int *converged, double *dv);
/* Estimated cost [ns] of one PCG iteration on the current pattern. */
double msi_pcg_iteration_cost(const struct msi_solver *S, size_t nn);

#endif
