/* The implicit solver's carried-over state: checkpoints and rewind
 * (implicit.h, CHECKPOINTS).  Checkpoint layout, native byte order:
 *   "MSISOLV1", u64 present (0: nothing follows),
 *   u64 np_guess, f64 guess[3 np_guess],
 *   i32 pcg_skip, i32 pcg_misses,
 *   u64 np_rank, i64 rank[np_rank],
 *   u64 has_pattern; if 1: u64 nn, u64 nblocks, u32 bcol[nn + 1],
 *   u32 brow[nblocks], f64 flops, f64 lnz, i64 perm[3 nn]. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "solver_impl.h"

static const char magic[8] = "MSISOLV1";

#define PUT(p, n)                                         \
  do {                                                    \
    if ((rc = out->write(out->opaque, (p), (n)))) return rc; \
  } while (0)

/* Whether S carries anything from step to step: an empty solver saves as
 * none at all, so the bytes do not depend on when it was created. */
static int carries(const struct msi_solver *S) {
  return S && ((S->pdv && S->pdv_np) || S->rank_np || S->Lbcol ||
               S->pcg_skip || S->pcg_misses);
}

int msi_solver_save(const struct msi_solver *S, const struct ms_stream *out) {
  uint64_t present = carries(S);
  int rc;
  PUT(magic, sizeof magic);
  PUT(&present, sizeof present);
  if (!present) return MS_OK;
  uint64_t np_guess = S->pdv ? S->pdv_np : 0, np_rank = S->rank_np;
  uint64_t has = S->Lbcol != NULL, nn = S->Lnn, nb = S->Lnblocks;
  int32_t skip[2] = {S->pcg_skip, S->pcg_misses};
  PUT(&np_guess, sizeof np_guess);
  if (np_guess) PUT(S->pdv, 3 * np_guess * sizeof *S->pdv);
  PUT(skip, sizeof skip);
  PUT(&np_rank, sizeof np_rank);
  if (np_rank) PUT(S->rank, np_rank * sizeof *S->rank);
  PUT(&has, sizeof has);
  if (!has) return MS_OK;
  double cost[2] = {S->an_fl, S->an_lnz};
  PUT(&nn, sizeof nn);
  PUT(&nb, sizeof nb);
  PUT(S->Lbcol, (nn + 1) * sizeof *S->Lbcol);
  if (nb) PUT(S->Lbrow, nb * sizeof *S->Lbrow);
  PUT(cost, sizeof cost);
  PUT(S->Lperm, 3 * nn * sizeof *S->Lperm);
  return MS_OK;
}

#define GET(p, n)                                          \
  do {                                                     \
    if ((rc = in->read(in->opaque, (p), (n))))             \
      return msi_fail(S, rc, "saved solver state is truncated"); \
  } while (0)

static int bad(struct msi_solver *S, const char *what) {
  return msi_fail(S, MS_ESTATE, "saved solver state: %s", what);
}

/* Each of 0 .. n - 1 exactly once (seen: n bytes of scratch). */
static int is_permutation(const SuiteSparse_long *p, size_t n,
                          unsigned char *seen) {
  memset(seen, 0, n);
  for (size_t k = 0; k < n; k++) {
    if (p[k] < 0 || (size_t)p[k] >= n || seen[p[k]]) return 0;
    seen[p[k]] = 1;
  }
  return 1;
}

/* Columns ascending from 0 to nb; in column J, nodes I < J ascending. */
static int pattern_valid(const uint32_t *bcol, const uint32_t *brow,
                         size_t nn, size_t nb) {
  if (bcol[0] != 0 || bcol[nn] != nb) return 0;
  for (size_t J = 0; J < nn; J++) {
    if (bcol[J + 1] < bcol[J]) return 0;
    for (uint32_t e = bcol[J]; e < bcol[J + 1]; e++)
      if (brow[e] >= J || (e > bcol[J] && brow[e] <= brow[e - 1])) return 0;
  }
  return 1;
}

/* A saved array's particle count: 0 (none) or the caller's np. */
static int read_count(struct msi_solver *S, const struct ms_stream *in,
                      size_t np, const char *what, uint64_t *n) {
  int rc;
  GET(n, sizeof *n);
  return *n == 0 || *n == np ? MS_OK : bad(S, what);
}

static int load_guess(struct msi_solver *S, const struct ms_stream *in,
                      size_t np) {
  uint64_t n;
  int rc;
  S->pdv_np = 0;
  if ((rc = read_count(S, in, np, "first guess of another size", &n)) || !n)
    return rc;
  if (np > S->cap_pdv) {
    if (msi_grow((void **)&S->pdv, np, 3 * sizeof *S->pdv))
      return msi_fail(S, MS_ENOMEM, "out of memory");
    S->cap_pdv = np;
  }
  GET(S->pdv, 3 * np * sizeof *S->pdv);
  for (size_t q = 0; q < 3 * np; q++)
    if (!isfinite(S->pdv[q])) return bad(S, "non-finite first guess");
  S->pdv_np = np;
  return MS_OK;
}

static int load_order(struct msi_solver *S, const struct ms_stream *in,
                      size_t np) {
  uint64_t n;
  int rc;
  S->rank_np = 0;
  if ((rc = read_count(S, in, np, "particle order of another size", &n)) ||
      !n)
    return rc;
  if (msi_cholmod_reserve_order(S, np))
    return msi_fail(S, MS_ENOMEM, "out of memory");
  GET(S->rank, np * sizeof *S->rank);
  if (!is_permutation(S->rank, np, (unsigned char *)S->bucket))
    return bad(S, "particle order is not a permutation");
  S->rank_np = np;
  return MS_OK;
}

static int load_pattern(struct msi_solver *S, const struct ms_stream *in,
                        size_t np) {
  uint64_t has, nn, nb;
  double cost[2];
  int rc;
  GET(&has, sizeof has);
  if (has > 1) return bad(S, "corrupt pattern flag");
  if (!has) return MS_OK;
  GET(&nn, sizeof nn);
  GET(&nb, sizeof nb);
  if (nn == 0 || nn > np || nb > nn * (nn - 1) / 2 || nb > UINT32_MAX)
    return bad(S, "pattern of another size");
  if (msi_cholmod_reserve_pattern(S, nn, nb))
    return msi_fail(S, MS_ENOMEM, "out of memory");
  GET(S->Lbcol, (nn + 1) * sizeof *S->Lbcol);
  if (nb) GET(S->Lbrow, nb * sizeof *S->Lbrow);
  GET(cost, sizeof cost);
  GET(S->Lperm, 3 * nn * sizeof *S->Lperm);
  unsigned char *seen = malloc(3 * nn);
  if (!seen) return msi_fail(S, MS_ENOMEM, "out of memory");
  int ok = is_permutation(S->Lperm, 3 * nn, seen);
  free(seen);
  if (!ok || !pattern_valid(S->Lbcol, S->Lbrow, nn, nb) ||
      !(cost[0] >= 0.0 && cost[1] >= 0.0 && isfinite(cost[0]) &&
        isfinite(cost[1]))) {
    free(S->Lbcol); /* no pattern: the next step analyses afresh */
    S->Lbcol = NULL, S->cap_Lcol = 0;
    return bad(S, "corrupt factor pattern");
  }
  S->Lnn = nn, S->Lnblocks = nb;
  S->an_fl = cost[0], S->an_lnz = cost[1];
  S->L_gen = UINT64_MAX; /* compare with the first pattern met */
  return MS_OK;
}

int msi_solver_load(struct msi_solver **Sp, const struct ms_stream *in,
                    size_t np) {
  char m[sizeof magic];
  uint64_t present;
  int32_t skip[2];
  int rc;
  if (!*Sp && (rc = msi_solver_create(Sp))) return rc;
  struct msi_solver *S = *Sp;
  S->error[0] = '\0';
  msi_cholmod_free(S); /* the factor is rebuilt from the saved pattern */
  msi_mark_free(S);
  GET(m, sizeof m);
  if (memcmp(m, magic, sizeof m)) return bad(S, "wrong magic");
  GET(&present, sizeof present);
  if (present > 1) return bad(S, "corrupt header");
  if (!present) return MS_OK;
  if ((rc = load_guess(S, in, np))) return rc;
  GET(skip, sizeof skip);
  if (skip[0] < 0 || skip[0] > 63 || skip[1] < 0 || skip[1] > 6)
    return bad(S, "corrupt solver policy");
  S->pcg_skip = skip[0], S->pcg_misses = skip[1];
  if ((rc = load_order(S, in, np))) return rc;
  return load_pattern(S, in, np);
}

/* ---- rewind ------------------------------------------------------------ */

void msi_solver_mark(struct msi_solver *S) {
  if (!S) return;
  struct msi_mark *k = &S->mark;
  k->rank_np = S->rank_np;
  k->pcg_skip = S->pcg_skip, k->pcg_misses = S->pcg_misses;
  k->guess_moved = k->pattern_moved = 0;
  k->on = 1;
  msi_spare_drop(S);
}

static void swap_guess(struct msi_solver *S) {
  struct msi_mark *k = &S->mark;
  MSI_SWAP(double *, S->pdv, k->pdv);
  MSI_SWAP(size_t, S->pdv_np, k->pdv_np);
  MSI_SWAP(size_t, S->cap_pdv, k->cap_pdv);
}

static void swap_pattern(struct msi_solver *S) { MSI_SWAP_PATTERN(S, &S->mark); }

/* The first solve of a marked step moves the guess it replaces to the
 * mark (the mark's old buffer becomes the solver's, to be refilled). */
void msi_mark_guess(struct msi_solver *S) {
  if (!S->mark.on || S->mark.guess_moved) return;
  swap_guess(S);
  S->pdv_np = 0; /* until refilled */
  S->mark.guess_moved = 1;
}

/* The first analysis of a marked step moves the pattern it replaces to
 * the mark (the mark's old arrays become the solver's, to be refilled). */
void msi_mark_pattern(struct msi_solver *S) {
  if (!S->mark.on || S->mark.pattern_moved) return;
  swap_pattern(S);
  free(S->Lbcol); /* whatever it held: refilled, never read */
  S->Lbcol = NULL, S->cap_Lcol = 0;
  S->mark.pattern_moved = 1;
}

void msi_mark_free(struct msi_solver *S) {
  struct msi_mark *k = &S->mark;
  free(k->pdv), free(k->Lbcol), free(k->Lbrow), free(k->Lperm);
  memset(k, 0, sizeof *k);
}

/* The factor of a replaced pattern is gone: the next step that meets the
 * restored pattern analyses it with its saved permutation (as after a
 * load).  A solver created during the step goes back to empty. */
void msi_solver_rewind(struct msi_solver *S) {
  if (!S) return;
  struct msi_mark *k = &S->mark;
  if (!k->on) {
    msi_cholmod_free(S);
    S->pdv_np = S->rank_np = 0;
    S->pcg_skip = S->pcg_misses = 0;
    return;
  }
  if (k->guess_moved) swap_guess(S);
  k->guess_moved = 0;
  S->rank_np = k->rank_np;
  S->pcg_skip = k->pcg_skip, S->pcg_misses = k->pcg_misses;
  if (!k->pattern_moved) return;
  msi_spare_keep(S);
  swap_pattern(S);
  k->pattern_moved = 0;
  if (S->cc_started) cholmod_l_free_factor(&S->L, &S->cc);
  S->Af_valid = 0;
  S->L_gen = UINT64_MAX; /* compare again */
}
