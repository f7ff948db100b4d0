/* Implicit pair-force machinery shared by the shipped solid plugins
 * (mass_spring, peridynamics): node mapping, node-space sparse assembly,
 * one linearised backward-Euler (or trapezoidal) step, CHOLMOD with
 * symbolic-analysis reuse, and a matrix-free PCG alternative.
 *
 * MODEL.  A system is np particles and T pair terms.  Term t joins
 * particles i = pair[2t] and j = pair[2t+1]; its force law gives the force
 * f_t on i (j receives -f_t), a function of x_j - x_i and v_j - v_i, and,
 * for implicit steps, two symmetric 3x3 blocks
 *     K_t = d f_t / d x_j   (stiffness, = -d f_t / d x_i)
 *     D_t = d f_t / d v_j   (damping,   = -d f_t / d v_i)
 * which MUST be positive semi-definite (clamp indefinite parts: the step
 * solves a symmetric positive definite system).  A spring, a peridynamic
 * bond or any other central pair force fits this shape; the law is a
 * callback (struct msi_law) so each plugin keeps its own.
 *
 * NODES.  The unknowns live on nodes, not particles (plugin.h,
 * META-PARTICLES): a particle that is in no meta-particle is one node; all
 * own members of a meta-particle form ONE node whose mass is the whole
 * meta-particle's mass (foreign members included) and whose start velocity
 * is the merged velocity; pinned particles, and every member of a
 * meta-particle holding a pinned particle, are fixed (no node, velocity 0).
 * A term whose two particles share a node is internal to a rigid node: its
 * forces and blocks cancel and it is skipped.
 *
 * THE STEP.  With node masses/diagonal d, node velocities V, node forces
 * other than the terms F (gravity on the whole node mass, external forces,
 * mass-proportional damping at V), the library solves
 *     (diag(d) + a D + b K) dV = h (F + f(x, v)) - c K V
 * for dV in node space, where K and D are the assembled term blocks.
 *     backward Euler: a = h,   b = h^2,   c = h^2    (one Newton step)
 *     trapezoidal:    a = h/2, b = h^2/4, c = h^2/2
 * (with mass damping mu: d = M (1 + a mu), F includes -mu M V).
 *
 * OWNERSHIP.  Every struct below is owned by the caller; *_init zeroes it,
 * the library grows its arrays as needed and *_free releases them.  Input
 * arrays are borrowed for the duration of the call.
 *
 * THREADING.  One struct is used by one thread at a time.  Functions taking
 * a `threads` argument run OpenMP regions of at most that many threads;
 * the law's eval is then called concurrently on disjoint term ranges.
 * Results do not depend on the thread count, except for CHOLMOD's own BLAS
 * (OpenBLAS keeps its threads; set OPENBLAS_NUM_THREADS to bound them).
 *
 * ERRORS.  Functions return MS_OK or a negative MS_E* status; on failure a
 * one-line reason is left in the solver's `error` text.  Nothing prints.
 */
#ifndef MS_PLUGINS_COMMON_IMPLICIT_H
#define MS_PLUGINS_COMMON_IMPLICIT_H

#include <stddef.h>
#include <stdint.h>

#include <mergesplit/plugin.h>

/* ---- force laws ------------------------------------------------------ */

/* Symmetric 3x3 blocks are stored as 6 doubles: xx yy zz xy xz yz. */
#define MSI_SYM 6

struct msi_law {
  void *ctx; /* the plugin's own data, passed back */
  /* Evaluate terms [t0, t1) at particle positions x and velocities v (3 per
   * particle).  Write f + 3t (force on the term's first particle) and, when
   * K is not NULL, K + 6t and D + 6t.  Called concurrently on disjoint
   * ranges; MUST NOT write anything else shared. */
  void (*eval)(void *ctx, size_t t0, size_t t1, const double *x,
               const double *v, double *f, double *K, double *D);
};

/* The pair list.  `serial` MUST change whenever pair[] or count changes
 * (the library then rebuilds its incidence and compares the pattern). */
struct msi_terms {
  size_t count;
  const uint32_t *pair; /* 2 * count particle indices */
  uint64_t serial;
};

/* ---- node map --------------------------------------------------------- */

struct msi_nodes {
  size_t np, nn;       /* particles, free nodes */
  int32_t *node;       /* np: node of each particle, -1 = fixed */
  uint32_t *mem_off;   /* nn + 1 */
  uint32_t *mem;       /* members of each node, ascending particle order */
  double *mass;        /* nn: particle mass, or the whole meta mass */
  double *vel;         /* 3 nn: particle velocity, or the merged velocity */
  int32_t *meta_node;  /* per meta-particle: its node, or -1 when fixed */
  int32_t *meta_of;    /* np: meta-particle of each particle, or -1 */
  size_t cap_np, cap_nn, cap_meta;
};

/* N is the caller's; init zeroes it, free releases its arrays. */
void msi_nodes_init(struct msi_nodes *N);
void msi_nodes_free(struct msi_nodes *N);
/* Number the nodes: particles in ascending order, a meta-particle where its
 * smallest own member comes; fixed ones skipped.  mass, vel (3 per
 * particle), pinned (may be NULL) and metas (may be NULL or empty) are
 * borrowed for the call.  MS_EINVAL for a member index out of range.
 * Single-threaded, O(np + members). */
int msi_nodes_build(struct msi_nodes *N, size_t np, const double *mass,
                    const double *vel, const uint8_t *pinned,
                    const struct ms_metas *metas);

/* The domain: a box [lo, hi] (an axis with both ends infinite is open), a
 * normal restitution and the fraction of tangential speed a hit loses. */
struct msi_box {
  const double *lo, *hi; /* 3 each, borrowed */
  double restitution, friction;
};

/* Domain walls on the nodes: clamp node J's displacement U (3 per node) so
 * none of its members (positions x, radii r, per particle) leaves the box;
 * reflect and rub its velocity V (3 per node) on the axes touched; hit[J]:
 * whether a wall acted.  Nodes are independent: any thread count gives
 * the same result. */
void msi_walls(const struct msi_nodes *N, const struct msi_box *box,
               const double *x, const double *r, double *U, double *V,
               uint8_t *hit, int threads);

/* ---- incidence and block pattern ---------------------------------------- */

struct msi_topo {
  size_t np, nn, nterms;
  uint64_t serial;
  uint64_t generation; /* bumped whenever the incidence is rebuilt */
  int valid;
  int with_pattern;    /* the block pattern below is built */
  int changed;         /* the last update rebuilt the incidence */
  /* Per node: the terms touching it with their other node in a different
   * node; entry e: term = inc[e] >> 1, side = inc[e] & 1 (0: the node holds
   * the term's first particle), other[e] = other node or -1 (fixed),
   * slot[e] = index of the other node in this node's upper block column
   * (other < node), else -1. */
  uint32_t *inc_off, *inc;
  int32_t *other, *slot;
  /* Upper block pattern: column J lists the nodes I < J it couples to,
   * ascending: brow[bcol[J] .. bcol[J+1]). */
  uint32_t *bcol, *brow;
  size_t nblocks;
  int32_t *pnode;      /* the node map the incidence was built for */
  size_t cap_np, cap_nn, cap_inc;
};

/* T is the caller's; init zeroes it, free releases its arrays. */
void msi_topo_init(struct msi_topo *T);
void msi_topo_free(struct msi_topo *T);
/* Rebuild the incidence when the terms' serial or the node map changed;
 * with want_pattern, also the block pattern.  N and terms are borrowed
 * (T keeps a copy of the node map, not of the pairs: see msi_terms).
 * O(T + np) when something changed, O(np) to check otherwise; the pattern
 * is built on up to `threads` threads. */
int msi_topo_update(struct msi_topo *T, const struct msi_nodes *N,
                    const struct msi_terms *terms, int want_pattern,
                    int threads);
/* F (3 per node) += the terms' forces f (3 per term) on each node.  In
 * parallel over nodes, each summing its terms in a fixed order. */
void msi_gather_forces(const struct msi_topo *T, const double *f, double *F,
                       int threads);
/* Evaluate forces only (K = D = NULL) of all terms: law->eval is called
 * concurrently on chunks of 1024 terms. */
void msi_eval_forces(const struct msi_law *law, size_t nterms,
                     const double *x, const double *v, double *f,
                     int threads);

/* ---- the implicit step ------------------------------------------------ */

enum msi_linear_solver {
  MSI_AUTO = 0,    /* CHOLMOD while the node pattern matches its analysis;
                      on a new pattern, PCG capped at the iterations that
                      would cost as much as re-analysing and factorising,
                      CHOLMOD (re-analysed) when PCG does not make it
                      (default; see cholmod_backend.c for the figures) */
  MSI_CHOLMOD = 1, /* sparse Cholesky, symbolic analysis kept while the
                      node pattern is unchanged */
  MSI_PCG = 2      /* matrix-free conjugate gradients, block Jacobi */
};

enum msi_factor {
  MSI_FACTOR_AUTO = 0,       /* CHOLMOD's choice (supernodal when dense
                                enough) */
  MSI_FACTOR_SIMPLICIAL = 1, /* column by column, no BLAS */
  MSI_FACTOR_SUPERNODAL = 2  /* dense blocks through BLAS */
};

enum msi_ordering {
  MSI_ORDER_REUSE = 0, /* CHOLMOD's full analysis once; each later node
                          pattern is ordered by its members' ranks in that
                          order (the last member's) and only the symbolic
                          factorisation is redone (default) */
  MSI_ORDER_FRESH = 1  /* CHOLMOD's full analysis for each new pattern */
};

struct msi_options {
  int linear_solver;    /* enum msi_linear_solver */
  double pcg_tolerance; /* relative residual, e.g. 1e-8 */
  int pcg_max_iterations;
  int threads;          /* OpenMP threads for assembly, PCG, forces */
  int factor;           /* enum msi_factor */
  int ordering;         /* enum msi_ordering */
  int reanalyse_always; /* benchmarks only: ignore the cached analysis */
};

/* Cumulative figures since the solver was created (seconds and counts). */
struct msi_stats {
  double t_eval, t_assembly, t_analysis, t_factor, t_solve;
  uint64_t steps, analyses, factorizations, pcg_iterations;
  uint64_t pcg_solves, pcg_fallbacks; /* auto: PCG used / gave up */
  double last_residual; /* PCG: final relative residual of the last solve */
  double lnz, flops;    /* CHOLMOD: nonzeros of L, flops per factorisation
                           (of the last analysis) */
  double flops_done;    /* CHOLMOD: flops of all factorisations */
  uint64_t factor_reuses; /* CHOLMOD: solves with the last factor, the
                             matrix bitwise the one it was made from */
};

struct msi_solver;

/* A solver keeps the work space, the node pattern, CHOLMOD's state and
 * the last solution between steps; one per system (instance).  *out is
 * the caller's, released with msi_solver_destroy. */
int msi_solver_create(struct msi_solver **out);
/* Frees everything, including CHOLMOD's state; NULL is fine. */
void msi_solver_destroy(struct msi_solver *S);
/* Owned by S, valid until it is destroyed. */
const struct msi_stats *msi_solver_stats(const struct msi_solver *S);
/* The reason for the last failure (one line, "" if none); owned by S,
 * valid until the next call on S. */
const char *msi_solver_error(const struct msi_solver *S);

/* One linearised implicit step (see THE STEP above).
 *   N      the node map of this step (nodes' masses and start velocities)
 *   terms  the pair list (see msi_terms for its serial)
 *   x, v   particle positions and velocities (3 per particle) at which the
 *          law is evaluated: members of a node carry the node's velocity,
 *          fixed particles velocity 0
 *   F      3 per node: node forces other than the terms
 *   d      per node: the diagonal (mass, plus mass damping)
 *   dv     3 per node: the velocity change (output, the caller's array)
 * Everything is borrowed for the call.  Runs the law and the assembly on
 * up to opt->threads threads; CHOLMOD factorises in its BLAS's threads.
 * MS_ENUMERIC when the system is not positive definite, PCG (forced) does
 * not converge or the result is not finite; MS_ENOMEM. */
int msi_implicit_step(struct msi_solver *S, const struct msi_options *opt,
                      const struct msi_nodes *N,
                      const struct msi_terms *terms,
                      const struct msi_law *law, const double *x,
                      const double *v, const double *F, const double *d,
                      double h, double a, double b, double c, double *dv);

/* The node-space matrix of the last CHOLMOD factorisation (a
 * cholmod_sparse, upper triangle; for benchmarks comparing against a bare
 * factorisation).  Valid until the next step; NULL before any. */
const void *msi_solver_matrix(const struct msi_solver *S);

/* ---- checkpoints ------------------------------------------------------ */

/* Besides the caller's model, a step depends on what S carries over from
 * earlier steps: PCG's first guess (the last velocity change), the AUTO
 * policy's count of patterns left to CHOLMOD, the particle order of the
 * first full analysis, and the block pattern and final fill-reducing
 * permutation the current factor was analysed with.  msi_solver_save
 * writes all of it (not the factor: the next step analyses the saved
 * pattern with the saved permutation and factorises, the same factor bit
 * for bit), so a run resumed from a checkpoint repeats the uninterrupted
 * one exactly.  Statistics and timings are not saved.
 *
 * S may be NULL for save (a solver not created yet: nothing carried).
 * msi_solver_load creates *S when it is NULL (*S is the caller's, as from
 * msi_solver_create), else *S MUST not have stepped since it was created;
 * np is the caller's particle count.  It returns MS_ESTATE (reason in
 * msi_solver_error(*S)) for a state that does not fit np or that
 * msi_solver_save did not write, the stream's status when a read fails,
 * MS_ENOMEM.  Both are single-threaded, O(np + pattern). */
int msi_solver_save(const struct msi_solver *S, const struct ms_stream *out);
int msi_solver_load(struct msi_solver **S, const struct ms_stream *in,
                    size_t np);

/* A plugin's begin_step and rewind: mark remembers the carried-over state
 * (O(1): what the step replaces is moved aside, not copied), rewind
 * restores it, so a step integrated again after a rewind starts from
 * what the first integration did and repeats it bit for bit, and a
 * checkpoint taken after a rewind holds what one taken at the start of
 * the step would.  A solver created after the mark (S was NULL then) is
 * emptied by rewind.  NULL S: nothing to do. */
void msi_solver_mark(struct msi_solver *S);
void msi_solver_rewind(struct msi_solver *S);

#endif
