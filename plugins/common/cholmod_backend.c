/* The node-space system through CHOLMOD: upper-triangle assembly straight
 * into CHOLMOD's compressed columns, symbolic analysis kept for as long as
 * the block pattern is unchanged, numeric factorisation every step. */
#include <stdlib.h>
#include <string.h>

#include "cholmod_serial.h"
#include "grow.h"
#include "solver_impl.h"

typedef SuiteSparse_long sslong;

/* Entry (r, c) of a symmetric block stored as xx yy zz xy xz yz. */
static const int sym_at[3][3] = {{0, 3, 4}, {3, 1, 5}, {4, 5, 2}};

static int start(struct msi_solver *S) {
  if (S->cc_started) return MS_OK;
  if (!cholmod_l_start(&S->cc))
    return msi_fail(S, MS_EPLUGIN, "CHOLMOD failed to start");
  S->cc.print = 0; /* plugins never print */
  S->cc.error_handler = NULL;
  S->cc_started = 1;
  return MS_OK;
}

/* S's factor, its pattern and values <-> the spare's. */
static void swap_spare(struct msi_solver *S) {
  struct msi_spare *k = &S->spare;
  MSI_SWAP_PATTERN(S, k);
  MSI_SWAP(cholmod_factor *, S->L, k->L);
  MSI_SWAP(double *, S->Afx, k->Afx);
  MSI_SWAP(size_t, S->cap_Afx, k->cap_Afx);
  MSI_SWAP(int, S->Af_valid, k->Af_valid);
}

void msi_spare_drop(struct msi_solver *S) {
  if (S->cc_started) cholmod_l_free_factor(&S->spare.L, &S->cc);
  S->spare.L = NULL;
  S->spare.Af_valid = 0;
}

void msi_spare_keep(struct msi_solver *S) {
  msi_spare_drop(S);
  if (!S->L || !S->Lbcol) return;
  swap_spare(S); /* S keeps the spare's old arrays, and no factor */
  S->Af_valid = 0;
}

/* Whether the spare's pattern is the current node pattern. */
static int spare_matches(const struct msi_solver *S, size_t nn) {
  const struct msi_spare *k = &S->spare;
  const struct msi_topo *T = &S->topo;
  return k->L && k->Lbcol && k->Lnn == nn && k->Lnblocks == T->nblocks &&
         !memcmp(k->Lbcol, T->bcol, (nn + 1) * sizeof *T->bcol) &&
         !memcmp(k->Lbrow, T->brow, T->nblocks * sizeof *T->brow);
}

void msi_cholmod_free(struct msi_solver *S) {
  msi_spare_drop(S);
  free(S->spare.Lbcol), free(S->spare.Lbrow), free(S->spare.Lperm);
  free(S->spare.Afx);
  memset(&S->spare, 0, sizeof S->spare);
  free(S->Lbcol), free(S->Lbrow), free(S->Lperm), free(S->Afx);
  S->Afx = NULL, S->cap_Afx = 0, S->Af_valid = 0;
  S->Lbcol = S->Lbrow = NULL;
  S->Lperm = NULL;
  S->cap_Lcol = S->cap_Lrow = S->cap_Lperm = 0;
  S->A_ready = 0;
  if (!S->cc_started) return;
  cholmod_l_free_sparse(&S->A, &S->cc);
  cholmod_l_free_factor(&S->L, &S->cc);
  cholmod_l_free_dense(&S->B, &S->cc);
  cholmod_l_free_dense(&S->X, &S->cc);
  cholmod_l_free_dense(&S->Y, &S->cc);
  cholmod_l_free_dense(&S->E, &S->cc);
  cholmod_l_finish(&S->cc);
  S->cc_started = 0;
}

/* Scalar column 3J+c holds, in row order, the 3x3 blocks of the nodes
 * I < J of column J (3 rows each), then rows 3J .. 3J+c of the diagonal. */
static int build_structure(struct msi_solver *S, size_t nn, int threads,
                           int keep_factor) {
  const struct msi_topo *T = &S->topo;
  size_t nz = 9 * T->nblocks + 6 * nn;
  cholmod_l_free_sparse(&S->A, &S->cc);
  if (!keep_factor) { /* a new pattern: analyse again */
    cholmod_l_free_factor(&S->L, &S->cc);
    S->Af_valid = 0;
  }
  S->A = cholmod_l_allocate_sparse(3 * nn, 3 * nn, nz, 1, 1, 1, CHOLMOD_REAL,
                                   &S->cc);
  if (!S->A)
    return msi_fail(S, MS_ENOMEM, "CHOLMOD: cannot allocate a %zu x %zu "
                    "matrix with %zu entries", 3 * nn, 3 * nn, nz);
  sslong *p = S->A->p, *ri = S->A->i, pos = 0;
  for (size_t J = 0; J < nn; J++) {
    sslong nb = (sslong)(T->bcol[J + 1] - T->bcol[J]);
    for (sslong c = 0; c < 3; c++) {
      p[3 * J + c] = pos;
      pos += 3 * nb + c + 1;
    }
  }
  p[3 * nn] = pos;
#pragma omp parallel for schedule(static) num_threads(threads) \
    if (nn > MSI_PAR_MIN)
  for (size_t J = 0; J < nn; J++) {
    const uint32_t *rows = T->brow + T->bcol[J];
    uint32_t nb = T->bcol[J + 1] - T->bcol[J];
    for (int c = 0; c < 3; c++) {
      sslong q = p[3 * J + c];
      for (uint32_t s = 0; s < nb; s++)
        for (int r = 0; r < 3; r++) ri[q++] = 3 * (sslong)rows[s] + r;
      for (int r = 0; r <= c; r++) ri[q++] = 3 * (sslong)J + r;
    }
  }
  S->A_ready = 1;
  return MS_OK;
}

/* A = diag(d) + sum over terms of C_t in the usual +C / -C stamp. */
static void assemble(struct msi_solver *S, const double *d, size_t nn,
                     int threads) {
  const struct msi_topo *T = &S->topo;
  const sslong *p = S->A->p;
  double *ax = S->A->x;
#pragma omp parallel for schedule(static) num_threads(threads) \
    if (nn > MSI_PAR_MIN)
  for (size_t J = 0; J < nn; J++) {
    sslong nb = (sslong)(T->bcol[J + 1] - T->bcol[J]);
    sslong base[3] = {p[3 * J], p[3 * J + 1], p[3 * J + 2]};
    double dg[MSI_SYM] = {d[J], d[J], d[J], 0.0, 0.0, 0.0};
    for (int c = 0; c < 3; c++)
      memset(ax + base[c], 0, (size_t)(3 * nb) * sizeof *ax);
    for (uint32_t e = T->inc_off[J]; e < T->inc_off[J + 1]; e++) {
      const double *C = S->C + MSI_SYM * (size_t)(T->inc[e] >> 1);
      for (int k = 0; k < MSI_SYM; k++) dg[k] += C[k];
      int32_t s = T->slot[e];
      if (s < 0) continue;
      for (int c = 0; c < 3; c++) {
        double *col = ax + base[c] + 3 * (sslong)s;
        for (int r = 0; r < 3; r++) col[r] -= C[sym_at[r][c]];
      }
    }
    for (int c = 0; c < 3; c++)
      for (int r = 0; r <= c; r++)
        ax[base[c] + 3 * nb + r] = dg[sym_at[r][c]];
  }
}

static int ensure_dense(struct msi_solver *S, size_t n) {
  if (S->B && S->B->nrow == n) return MS_OK;
  cholmod_l_free_dense(&S->B, &S->cc);
  S->B = cholmod_l_allocate_dense(n, 1, n, CHOLMOD_REAL, &S->cc);
  return S->B ? MS_OK : MS_ENOMEM;
}

int msi_cholmod_matches(struct msi_solver *S, size_t nn) {
  const struct msi_topo *T = &S->topo;
  if (!S->Lbcol) return 0;
  if (S->L_gen == T->generation) return S->L_match;
  S->L_gen = T->generation;
  S->L_match = S->Lnn == nn && S->Lnblocks == T->nblocks &&
               !memcmp(S->Lbcol, T->bcol, (nn + 1) * sizeof *T->bcol) &&
               !memcmp(S->Lbrow, T->brow, T->nblocks * sizeof *T->brow);
  return S->L_match;
}

int msi_cholmod_reserve_pattern(struct msi_solver *S, size_t nn,
                                size_t nblocks) {
  if (nn + 1 > S->cap_Lcol) {
    free(S->Lbcol), free(S->Lperm);
    S->Lbcol = malloc((nn + 1) * sizeof *S->Lbcol);
    S->Lperm = malloc(3 * (nn + 1) * sizeof *S->Lperm);
    S->cap_Lcol = S->cap_Lperm = S->Lbcol && S->Lperm ? nn + 1 : 0;
  }
  if (nblocks > S->cap_Lrow || !S->Lbrow) {
    free(S->Lbrow);
    S->Lbrow = malloc((nblocks ? nblocks : 1) * sizeof *S->Lbrow);
    S->cap_Lrow = S->Lbrow ? nblocks : 0;
  }
  return S->Lbcol && S->Lperm && S->Lbrow ? MS_OK : MS_ENOMEM;
}

/* Remember the pattern L is analysed for, and its final permutation. */
static int keep_pattern(struct msi_solver *S, size_t nn) {
  const struct msi_topo *T = &S->topo;
  if (msi_cholmod_reserve_pattern(S, nn, T->nblocks)) return MS_ENOMEM;
  memcpy(S->Lbcol, T->bcol, (nn + 1) * sizeof *T->bcol);
  if (T->nblocks) /* NULL with no blocks */
    memcpy(S->Lbrow, T->brow, T->nblocks * sizeof *T->brow);
  memcpy(S->Lperm, S->L->Perm, 3 * nn * sizeof *S->Lperm);
  S->Lnn = nn, S->Lnblocks = T->nblocks;
  S->L_gen = T->generation, S->L_match = 1;
  return MS_OK;
}

/* Costs measured on the development machine (tests/bench, CPU time, one
 * thread, OpenBLAS; cloths of 32^2 to 100^2): supernodal factorisation
 * 0.075-0.1 ns per flop, solve 1.7-2.7 ns and symbolic analysis with the
 * order reused 3.9-4.6 ns per nonzero of L.  Only the choice between
 * PCG and CHOLMOD depends on them, never a result's accuracy. */
double msi_cholmod_cost(const struct msi_solver *S) {
  return 0.08 * S->an_fl + (2.5 + 4.5) * S->an_lnz;
}

/* Particle ranks from the first full analysis: particles in the order
 * CHOLMOD eliminates their nodes (members of a node in index order), then
 * the fixed ones.  rank is a permutation of the particles. */
int msi_cholmod_reserve_order(struct msi_solver *S, size_t np) {
  if (np <= S->cap_rank && S->rank) return MS_OK;
  free(S->rank), free(S->bucket);
  S->rank = malloc((np ? np : 1) * sizeof *S->rank);
  S->bucket = malloc((np ? np : 1) * sizeof *S->bucket);
  S->cap_rank = S->rank && S->bucket ? np : 0;
  return S->rank && S->bucket ? MS_OK : MS_ENOMEM;
}

static int keep_order(struct msi_solver *S, const struct msi_nodes *N) {
  size_t np = N->np, nn = N->nn, next = 0;
  if (msi_cholmod_reserve_order(S, np)) return MS_ENOMEM;
  const sslong *perm = S->L->Perm;
  for (size_t J = 0; J < nn; J++) S->bucket[J] = 0; /* seen */
  for (size_t k = 0; k < 3 * nn; k++) {
    size_t J = (size_t)perm[k] / 3;
    if (S->bucket[J]) continue;
    S->bucket[J] = 1;
    for (uint32_t q = N->mem_off[J]; q < N->mem_off[J + 1]; q++)
      S->rank[N->mem[q]] = (sslong)next++;
  }
  for (size_t p = 0; p < np; p++)
    if (N->node[p] < 0) S->rank[p] = (sslong)next++;
  S->rank_np = np;
  return MS_OK;
}

/* Order the nodes by the largest rank of their members (a meta-particle
 * couples to all its members' neighbours: eliminated late, like AMD would
 * place such a hub), expand to the 3 unknowns of each node, and analyse
 * with that order. */
static int analyse_reuse(struct msi_solver *S, const struct msi_nodes *N) {
  size_t nn = N->nn, np = N->np;
  if (3 * nn > S->cap_perm) {
    free(S->perm);
    S->perm = malloc(3 * (nn ? nn : 1) * sizeof *S->perm);
    S->cap_perm = S->perm ? 3 * nn : 0;
    if (!S->perm) return msi_fail(S, MS_ENOMEM, "ordering: out of memory");
  }
  for (size_t p = 0; p < np; p++) S->bucket[p] = UINT32_MAX;
  for (size_t J = 0; J < nn; J++) {
    sslong best = -1;
    for (uint32_t q = N->mem_off[J]; q < N->mem_off[J + 1]; q++)
      if (S->rank[N->mem[q]] > best) best = S->rank[N->mem[q]];
    S->bucket[best] = (uint32_t)J;
  }
  size_t k = 0;
  for (size_t r = 0; r < np; r++) {
    uint32_t J = S->bucket[r];
    if (J == UINT32_MAX) continue;
    for (int c = 0; c < 3; c++) S->perm[3 * k + c] = 3 * (sslong)J + c;
    k++;
  }
  S->cc.nmethods = 1;
  S->cc.method[0].ordering = CHOLMOD_GIVEN;
  S->cc.postorder = 1;
  S->L = cholmod_l_analyze_p(S->A, S->perm, NULL, 0, &S->cc);
  return MS_OK;
}

static void set_factor_kind(struct msi_solver *S,
                            const struct msi_options *opt) {
  S->cc.supernodal = opt->factor == MSI_FACTOR_SIMPLICIAL ? CHOLMOD_SIMPLICIAL
                     : opt->factor == MSI_FACTOR_SUPERNODAL
                         ? CHOLMOD_SUPERNODAL
                         : CHOLMOD_AUTO;
}

static int analysis_failed(struct msi_solver *S) {
  return msi_fail(S, S->cc.status == CHOLMOD_OUT_OF_MEMORY ? MS_ENOMEM
                                                           : MS_EPLUGIN,
                  "CHOLMOD analysis failed (status %d)", S->cc.status);
}

/* After a load: the saved pattern (which the current one matches) with
 * its saved final permutation, not postordered again, gives the factor
 * the uninterrupted run holds. */
static int analyse_saved(struct msi_solver *S, const struct msi_options *opt) {
  set_factor_kind(S, opt);
  S->cc.nmethods = 1;
  S->cc.method[0].ordering = CHOLMOD_GIVEN;
  S->cc.postorder = 0;
  S->L = cholmod_l_analyze_p(S->A, S->Lperm, NULL, 0, &S->cc);
  S->cc.postorder = 1;
  if (!S->L) return analysis_failed(S);
  S->stats.flops = S->cc.fl, S->stats.lnz = S->cc.lnz;
  S->stats.analyses++;
  return MS_OK;
}

static int analyse(struct msi_solver *S, const struct msi_options *opt,
                   const struct msi_nodes *N) {
  msi_mark_pattern(S);
  cholmod_l_free_factor(&S->L, &S->cc);
  S->Af_valid = 0;
  set_factor_kind(S, opt);
  int fresh = opt->ordering == MSI_ORDER_FRESH || S->rank_np != N->np;
  if (fresh) {
    S->cc.nmethods = 0; /* CHOLMOD's default choice */
    S->L = cholmod_l_analyze(S->A, &S->cc);
    if (S->L && opt->ordering != MSI_ORDER_FRESH && keep_order(S, N))
      return msi_fail(S, MS_ENOMEM, "ordering: out of memory");
  } else {
    int rc = analyse_reuse(S, N);
    if (rc) return rc;
  }
  if (!S->L) return analysis_failed(S);
  S->an_fl = S->cc.fl, S->an_lnz = S->cc.lnz;
  S->stats.flops = S->cc.fl, S->stats.lnz = S->cc.lnz;
  S->stats.analyses++;
  if (keep_pattern(S, N->nn))
    return msi_fail(S, MS_ENOMEM, "CHOLMOD: out of memory");
  return MS_OK;
}

/* The spare factor is the current pattern's: it becomes S's (the pattern
 * it replaces goes to the mark, as an analysis would move it). */
static void take_spare(struct msi_solver *S) {
  msi_mark_pattern(S);
  cholmod_l_free_factor(&S->L, &S->cc);
  S->Af_valid = 0;
  swap_spare(S);
  msi_spare_drop(S);
  S->L_gen = S->topo.generation, S->L_match = 1;
}

/* Entries A holds (its last column's end). */
static size_t entries(const cholmod_sparse *A) {
  return (size_t)((const sslong *)A->p)[A->ncol];
}

/* Whether L is already the factor of A's current values: a stage or a
 * coupling pass integrating again with the same matrix (a system the new
 * meta-particles leave out) solves with it, bitwise what a factorisation
 * would give. */
static int factor_current(const struct msi_solver *S) {
  size_t nz = entries(S->A);
  return S->Af_valid && S->L && S->L->minor == S->L->n && nz <= S->cap_Afx &&
         !memcmp(S->Afx, S->A->x, nz * sizeof *S->Afx);
}

/* Keep the values L is the factor of (no room: none kept, no reuse). */
static void keep_factored(struct msi_solver *S) {
  size_t nz = entries(S->A);
  S->Af_valid = 0;
  if (nz > S->cap_Afx) {
    free(S->Afx);
    S->Afx = malloc((nz + nz / 8 + 16) * sizeof *S->Afx);
    S->cap_Afx = S->Afx ? nz + nz / 8 + 16 : 0;
    if (!S->Afx) return;
  }
  memcpy(S->Afx, S->A->x, nz * sizeof *S->Afx);
  S->Af_valid = 1;
}

static int factorise(struct msi_solver *S) {
  int levels = msi_cholmod_serial_begin();
  int factored = cholmod_l_factorize(S->A, S->L, &S->cc);
  msi_cholmod_serial_end(levels);
  if (!factored || S->cc.status != CHOLMOD_OK) {
    S->Af_valid = 0;
    if (S->cc.status == CHOLMOD_NOT_POSDEF)
      return msi_fail(S, MS_ENUMERIC, "the implicit system is not positive "
                      "definite (node %ld): check masses and stiffness",
                      (long)(S->L->minor / 3));
    return msi_fail(S, S->cc.status == CHOLMOD_OUT_OF_MEMORY ? MS_ENOMEM
                                                             : MS_ENUMERIC,
                    "CHOLMOD factorisation failed (status %d)",
                    S->cc.status);
  }
  S->stats.factorizations++;
  S->stats.flops_done += S->an_fl;
  keep_factored(S);
  return MS_OK;
}

int msi_cholmod_solve(struct msi_solver *S, const struct msi_options *opt,
                      const struct msi_nodes *N,
                      const struct msi_terms *terms, const double *d,
                      double *dv) {
  int threads = opt->threads > 0 ? opt->threads : 1, rc;
  size_t nn = N->nn;
  double t0 = msi_now();
  if ((rc = start(S))) return rc;
  int fresh = !msi_cholmod_matches(S, nn) || opt->reanalyse_always;
  int saved = !fresh && !S->L; /* a loaded pattern, no factor yet */
  int spare = fresh && !opt->reanalyse_always && spare_matches(S, nn);
  if (spare) take_spare(S);
  if ((fresh || saved) && (rc = build_structure(S, nn, threads, spare)))
    return rc;
  fresh &= !spare;
  assemble(S, d, nn, threads);
  double t1 = msi_now();
  S->stats.t_assembly += t1 - t0;
  if (fresh && (rc = analyse(S, opt, N))) return rc;
  if (saved && (rc = analyse_saved(S, opt))) return rc;
  double t2 = msi_now();
  S->stats.t_analysis += t2 - t1;
  if (!fresh && !saved && factor_current(S)) S->stats.factor_reuses++;
  else if ((rc = factorise(S))) return rc;
  double t3 = msi_now();
  S->stats.t_factor += t3 - t2;
  if (ensure_dense(S, 3 * nn))
    return msi_fail(S, MS_ENOMEM, "CHOLMOD: out of memory");
  memcpy(S->B->x, S->rhs, 3 * nn * sizeof(double));
  if (!cholmod_l_solve2(CHOLMOD_A, S->L, S->B, NULL, &S->X, NULL, &S->Y,
                        &S->E, &S->cc))
    return msi_fail(S, MS_ENUMERIC, "CHOLMOD solve failed (status %d)",
                    S->cc.status);
  memcpy(dv, S->X->x, 3 * nn * sizeof(double));
  S->stats.t_solve += msi_now() - t3;
  return MS_OK;
}
