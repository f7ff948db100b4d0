/* Coupling iterations: residual and quasi-Newton update (coupling.h). */
#include "coupling.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/status.h>

#include "../base/base.h"

void ms__iqn_free(struct ms__iqn *Q) {
  void *a[] = {Q->r, Q->xt, Q->rp, Q->xtp, Q->V,   Q->W,
               Q->Q, Q->R,  Q->c,  Q->part, Q->xbest};
  for (size_t i = 0; i < sizeof a / sizeof *a; i++) free(a[i]);
  ms__memset(Q, 0, sizeof *Q);
}

/* Meta k takes part: several systems, none constrained it. */
static int takes_part(const struct ms__metaset *M, uint32_t k) {
  if (M->eoff[k + 1] - M->eoff[k] < 2) return 0;
  for (uint32_t e = M->eoff[k]; e < M->eoff[k + 1]; e++)
    if (M->econ[e]) return 0; /* a wall or pin answers, not a partner */
  return 1;
}

int ms__iqn_start(struct ms__iqn *Q, const struct ms__metaset *M,
                  uint32_t max_cols) {
  size_t n = 0;
  if (M->count > Q->cap_meta) {
    size_t c = M->count + M->count / 2 + 16;
    if (ms__grow((void **)&Q->part, c, 1)) return MS_ENOMEM;
    Q->cap_meta = c;
  }
  for (uint32_t k = 0; k < M->count; k++)
    if ((Q->part[k] = (uint8_t)takes_part(M, k)))
      n += 3 * (size_t)(M->eoff[k + 1] - M->eoff[k]);
  if (n > Q->cap_n || max_cols > Q->cap_cols) {
    size_t cn = n > Q->cap_n ? n + n / 2 + 48 : Q->cap_n;
    uint32_t cc = max_cols > Q->cap_cols ? max_cols : Q->cap_cols;
    if (ms__grow((void **)&Q->r, cn, sizeof(double)) ||
        ms__grow((void **)&Q->xt, cn, sizeof(double)) ||
        ms__grow((void **)&Q->rp, cn, sizeof(double)) ||
        ms__grow((void **)&Q->xtp, cn, sizeof(double)) ||
        ms__grow((void **)&Q->V, cn * cc, sizeof(double)) ||
        ms__grow((void **)&Q->W, cn * cc, sizeof(double)) ||
        ms__grow((void **)&Q->Q, cn * cc, sizeof(double)) ||
        ms__grow((void **)&Q->R, (size_t)cc * cc, sizeof(double)) ||
        ms__grow((void **)&Q->c, cc, sizeof(double)))
      return MS_ENOMEM;
    Q->cap_n = cn, Q->cap_cols = cc;
  }
  Q->n = n;
  Q->cols = 0;
  Q->max_cols = max_cols;
  Q->passes = 0;
  Q->best = INFINITY;
  return MS_OK;
}

int ms__iqn_keep_best(struct ms__iqn *Q, const struct ms__metaset *M,
                      double ratio) {
  size_t n = 3 * (size_t)M->nentries;
  if (!(ratio < Q->best)) return MS_OK;
  if (n > Q->cap_best) {
    if (ms__grow((void **)&Q->xbest, n, sizeof(double))) return MS_ENOMEM;
    Q->cap_best = n;
  }
  ms__memcpy(Q->xbest, M->eext, n * sizeof(double));
  Q->best = ratio;
  return MS_OK;
}

int ms__iqn_restore_best(struct ms__iqn *Q, struct ms__metaset *M,
                         double ratio) {
  if (!(ratio > Q->best)) return 0;
  ms__memcpy(M->eext, Q->xbest, 3 * (size_t)M->nentries * sizeof(double));
  return 1;
}

double ms__iqn_residual(struct ms__iqn *Q, const struct ms__metaset *M,
                        const double *gd, uint8_t *sys_touched,
                        double *scale) {
  double rr = 0.0, ss = 0.0, g2 = gd[0] * gd[0] + gd[1] * gd[1] + gd[2] * gd[2];
  size_t i = 0;
  /* sequential, in meta order: the sums do not depend on threads */
  for (uint32_t k = 0; k < M->count; k++) {
    if (!Q->part[k]) continue;
    for (int a = 0; a < 3; a++) {
      double d = M->vfin[3 * k + a] - M->vel[3 * k + a];
      ss += d * d;
    }
    ss += g2;
    for (uint32_t e = M->eoff[k]; e < M->eoff[k + 1]; e++, i += 3) {
      for (int a = 0; a < 3; a++) {
        /* the leader answers V itself: nothing to correct */
        double r = M->elead[e] ? 0.0 : M->vfin[3 * k + a] - M->evel[3 * e + a];
        Q->r[i + a] = r;
        Q->xt[i + a] = M->eext[3 * e + a] + r;
        rr += r * r;
      }
      sys_touched[M->esys[e]] = 1;
    }
  }
  *scale = sqrt(ss);
  return sqrt(rr);
}

static double dot(size_t n, const double *a, const double *b) {
  double s = 0.0;
  for (size_t i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/* Newest differences first; the oldest falls out past max_cols. */
static void push_column(struct ms__iqn *Q) {
  size_t n = Q->n;
  if (Q->cols == Q->max_cols) Q->cols--;
  ms__memmove(Q->V + n, Q->V, (size_t)Q->cols * n * sizeof *Q->V);
  ms__memmove(Q->W + n, Q->W, (size_t)Q->cols * n * sizeof *Q->W);
  for (size_t i = 0; i < n; i++) {
    Q->V[i] = Q->r[i] - Q->rp[i];
    Q->W[i] = Q->xt[i] - Q->xtp[i];
  }
  Q->cols++;
}

/* Least squares min |V c + r| by modified Gram-Schmidt, newest column
 * first; a column (nearly) in the span of newer ones is dropped, from V
 * and W alike (the QR filter of IQN-ILS). */
static uint32_t least_squares(struct ms__iqn *Q) {
  size_t n = Q->n;
  uint32_t kept = 0;
  for (uint32_t j = 0; j < Q->cols; j++) {
    double *q = Q->Q + kept * n;
    ms__memcpy(q, Q->V + j * n, n * sizeof *q);
    double norm0 = sqrt(dot(n, q, q));
    for (uint32_t i = 0; i < kept; i++) {
      double h = dot(n, Q->Q + i * n, q);
      Q->R[i * Q->max_cols + kept] = h;
      for (size_t t = 0; t < n; t++) q[t] -= h * Q->Q[i * n + t];
    }
    double norm = sqrt(dot(n, q, q));
    if (!(norm > 1e-10 * norm0)) continue;
    for (size_t t = 0; t < n; t++) q[t] /= norm;
    Q->R[kept * Q->max_cols + kept] = norm;
    if (kept != j) {
      ms__memcpy(Q->V + kept * n, Q->V + j * n, n * sizeof *Q->V);
      ms__memcpy(Q->W + kept * n, Q->W + j * n, n * sizeof *Q->W);
    }
    kept++;
  }
  Q->cols = kept;
  /* R c = -Q^T r */
  for (uint32_t i = kept; i-- > 0;) {
    double s = -dot(n, Q->Q + i * n, Q->r);
    for (uint32_t j = i + 1; j < kept; j++) s -= Q->R[i * Q->max_cols + j] * Q->c[j];
    Q->c[i] = s / Q->R[i * Q->max_cols + i];
  }
  return kept;
}

void ms__iqn_update(struct ms__iqn *Q, struct ms__metaset *M, double omega0) {
  size_t n = Q->n;
  uint32_t kept = 0;
  if (Q->passes > 0 && Q->max_cols > 0) {
    push_column(Q);
    kept = least_squares(Q);
  }
  /* dx = omega0 r on the first update; then x~ - x + W c = r + W c */
  for (size_t i = 0; i < n; i++) {
    double d = Q->passes == 0 ? omega0 * Q->r[i] : Q->r[i];
    for (uint32_t j = 0; j < kept; j++) d += Q->W[j * n + i] * Q->c[j];
    Q->rp[i] = Q->r[i];
    Q->xtp[i] = Q->xt[i];
    Q->r[i] = d; /* reused: the step to take */
  }
  Q->passes++;
  size_t i = 0;
  for (uint32_t k = 0; k < M->count; k++) {
    if (!Q->part[k]) continue;
    for (uint32_t e = M->eoff[k]; e < M->eoff[k + 1]; e++, i += 3)
      for (int a = 0; a < 3; a++) M->eext[3 * e + a] += Q->r[i + a];
  }
}
