/* The pressure system solved by sparse Cholesky (CHOLMOD).  The set of
 * fluid cells changes every step, so every solve analyses, factorises and
 * solves afresh; the benchmark compares it with MIC(0)-PCG. */
#include <stdlib.h>
#include <string.h>

#include <suitesparse/cholmod.h>

#include "../common/cholmod_serial.h"
#include "flip.h"

struct chol {
  cholmod_common cm;
  SuiteSparse_long *idx; /* padded cell -> unknown */
  size_t npad;
};

void flip_cholmod_free(struct flip_poisson *p) {
  struct chol *ch = p->chol;
  if (!ch) return;
  cholmod_l_finish(&ch->cm);
  free(ch->idx);
  free(ch);
  p->chol = NULL;
}

static struct chol *state(struct flip_poisson *p) {
  if (p->chol) return p->chol;
  struct chol *ch = calloc(1, sizeof *ch);
  if (!ch) return NULL;
  ch->idx = malloc(p->npad * sizeof *ch->idx);
  if (!ch->idx) {
    free(ch);
    return NULL;
  }
  ch->npad = p->npad;
  cholmod_l_start(&ch->cm);
  ch->cm.print = 0; /* a plugin never prints: errors come back as status */
  ch->cm.error_handler = NULL;
  p->chol = ch;
  return ch;
}

/* Lower triangle of A over the unknowns, in cell order. */
static cholmod_sparse *assemble(struct flip_poisson *p, struct chol *ch) {
  const size_t sj = p->sj, sk = p->sk;
  SuiteSparse_long n = 0, nnz = 0;
  for (size_t c = 0; c < p->nused; c++) {
    uint8_t m = p->mask[c];
    if (!(m & FLIP_M_SELF)) continue;
    ch->idx[c] = n++;
    nnz += 1 + !!(m & FLIP_M_XP) + !!(m & FLIP_M_YP) + !!(m & FLIP_M_ZP);
  }
  cholmod_sparse *A = cholmod_l_allocate_sparse((size_t)n, (size_t)n,
                                                (size_t)nnz, 1, 1, -1,
                                                CHOLMOD_REAL, &ch->cm);
  if (!A) return NULL;
  SuiteSparse_long *Ap = A->p, *Ai = A->i, col = 0, e = 0;
  double *Ax = A->x;
  for (size_t c = 0; c < p->nused; c++) {
    uint8_t m = p->mask[c];
    if (!(m & FLIP_M_SELF)) continue;
    Ap[col++] = e;
    const int w = p->weighted;
    Ai[e] = ch->idx[c], Ax[e++] = w ? p->wd[c] : p->diag[c];
    if (m & FLIP_M_XP)
      Ai[e] = ch->idx[c + 1], Ax[e++] = w ? -p->wl[0][c] : -1.0;
    if (m & FLIP_M_YP)
      Ai[e] = ch->idx[c + sj], Ax[e++] = w ? -p->wl[1][c] : -1.0;
    if (m & FLIP_M_ZP)
      Ai[e] = ch->idx[c + sk], Ax[e++] = w ? -p->wl[2][c] : -1.0;
  }
  Ap[col] = e;
  return A;
}

/* max |b - A phi| over the unknowns. */
static double residual(const struct flip_poisson *p) {
  const size_t sj = p->sj, sk = p->sk;
  const double *x = p->phi;
  double rmax = 0.0;
  for (size_t c = 0; c < p->nused; c++) {
    uint8_t m = p->mask[c];
    if (!(m & FLIP_M_SELF)) continue;
    double t = p->diag[c] * x[c];
    if (p->weighted) {
      const double *lx = p->wl[0], *ly = p->wl[1], *lz = p->wl[2];
      t = p->wd[c] * x[c] - (lx[c - 1] * x[c - 1] + lx[c] * x[c + 1]) -
          (ly[c - sj] * x[c - sj] + ly[c] * x[c + sj]) -
          (lz[c - sk] * x[c - sk] + lz[c] * x[c + sk]);
    } else {
      if (m & FLIP_M_XM) t -= x[c - 1];
      if (m & FLIP_M_XP) t -= x[c + 1];
      if (m & FLIP_M_YM) t -= x[c - sj];
      if (m & FLIP_M_YP) t -= x[c + sj];
      if (m & FLIP_M_ZM) t -= x[c - sk];
      if (m & FLIP_M_ZP) t -= x[c + sk];
    }
    rmax = fmax(rmax, fabs(p->b[c] - t));
  }
  return rmax;
}

int flip_cholmod_solve(struct flip_poisson *p, const struct flip_grid *g,
                       struct flip_solve_stats *st) {
  struct chol *ch = state(p);
  if (!ch) return -1;
  cholmod_common *cm = &ch->cm;
  cholmod_sparse *A = assemble(p, ch);
  cholmod_dense *b = NULL, *x = NULL;
  cholmod_factor *L = NULL;
  int rc = -1;
  if (!A) goto out;
  b = cholmod_l_allocate_dense(A->nrow, 1, A->nrow, CHOLMOD_REAL, cm);
  if (!b) goto out;
  double *bx = b->x;
  for (size_t c = 0; c < p->nused; c++)
    if (p->mask[c] & FLIP_M_SELF) bx[ch->idx[c]] = p->b[c];
  L = cholmod_l_analyze(A, cm);
  if (!L) goto out;
  rc = -2;
  int levels = msi_cholmod_serial_begin();
  int factored = cholmod_l_factorize(A, L, cm);
  msi_cholmod_serial_end(levels);
  if (!factored || cm->status != CHOLMOD_OK || L->minor < L->n) goto out;
  x = cholmod_l_solve(CHOLMOD_A, L, b, cm);
  if (!x) goto out;
  const double *xx = x->x;
  memset(p->phi, 0, p->nused * sizeof *p->phi);
  for (size_t c = 0; c < p->nused; c++)
    if (p->mask[c] & FLIP_M_SELF) p->phi[c] = xx[ch->idx[c]];
  double r = residual(p);
  st->iterations = 1;
  st->residual = st->div_before > 0.0 ? r / st->div_before : 0.0;
  st->converged = isfinite(r);
  rc = isfinite(r) ? 0 : -2;
out:
  cholmod_l_free_dense(&x, cm);
  cholmod_l_free_dense(&b, cm);
  cholmod_l_free_factor(&L, cm);
  cholmod_l_free_sparse(&A, cm);
  return rc;
}
