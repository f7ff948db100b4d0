/* shape_matching — the math of a cluster, free of the host: the polar
 * decomposition, the rest shape's moments, the goal positions of the
 * rigid, linear and quadratic modes (Mueller et al. 2005, sects. 3-4)
 * and plasticity (sect. 4.4).  Model and notation: shape_matching.h. */
#include <math.h>
#include <string.h>

#include "shape_matching.h"

static double det3(const double *A) {
  return A[0] * (A[4] * A[8] - A[5] * A[7]) -
         A[1] * (A[3] * A[8] - A[5] * A[6]) +
         A[2] * (A[3] * A[7] - A[4] * A[6]);
}

static double frob(const double *A, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += A[i] * A[i];
  return sqrt(s);
}

int sm_inverse_n(double *M, int n, double tol) {
  double inv[81], big = 0.0;
  for (int i = 0; i < n; i++) big = fmax(big, fabs(M[i * n + i]));
  for (int i = 0; i < n * n; i++) inv[i] = 0.0;
  for (int i = 0; i < n; i++) inv[i * n + i] = 1.0;
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int r = c + 1; r < n; r++)
      if (fabs(M[r * n + c]) > fabs(M[p * n + c])) p = r;
    if (!(fabs(M[p * n + c]) > tol * big)) return 0;
    for (int k = 0; p != c && k < n; k++) {
      double t = M[c * n + k];
      M[c * n + k] = M[p * n + k], M[p * n + k] = t;
      t = inv[c * n + k];
      inv[c * n + k] = inv[p * n + k], inv[p * n + k] = t;
    }
    double d = M[c * n + c];
    for (int k = 0; k < n; k++) M[c * n + k] /= d, inv[c * n + k] /= d;
    for (int r = 0; r < n; r++) {
      if (r == c) continue;
      double f = M[r * n + c];
      for (int k = 0; k < n; k++) {
        M[r * n + k] -= f * M[c * n + k];
        inv[r * n + k] -= f * inv[c * n + k];
      }
    }
  }
  memcpy(M, inv, (size_t)(n * n) * sizeof(double));
  return 1;
}

void sm_quad(const double *q, double *t) {
  t[0] = q[0], t[1] = q[1], t[2] = q[2];
  t[3] = q[0] * q[0], t[4] = q[1] * q[1], t[5] = q[2] * q[2];
  t[6] = q[0] * q[1], t[7] = q[1] * q[2], t[8] = q[2] * q[0];
}

int sm_rest(struct sm_cluster *c, const double *w, const double *q,
            int mode, double *aqq9) {
  double Q[9] = {0}, ws = 0.0;
  for (uint32_t e = 0; e < c->cnt; e++) {
    const double *qe = q + 3 * e;
    ws += w[e];
    for (int r = 0; r < 3; r++)
      for (int k = 0; k < 3; k++) Q[3 * r + k] += w[e] * qe[r] * qe[k];
  }
  c->wsum = ws;
  double scale = Q[0] + Q[4] + Q[8];
  if (!msc_inverse3(Q, c->Aqq, 1e-9 * scale * scale * scale)) {
    memset(c->Aqq, 0, sizeof c->Aqq);
    if (mode != SM_RIGID) return 0;
  }
  memset(c->qm, 0, sizeof c->qm);
  if (mode != SM_QUADRATIC) return 1;
  double M[81] = {0}, t[9];
  for (uint32_t e = 0; e < c->cnt; e++) {
    sm_quad(q + 3 * e, t);
    for (int i = 0; i < 9; i++) c->qm[i] += w[e] * t[i] / ws;
  }
  for (uint32_t e = 0; e < c->cnt; e++) {
    sm_quad(q + 3 * e, t);
    for (int i = 0; i < 9; i++) t[i] -= c->qm[i];
    for (int i = 0; i < 9; i++)
      for (int k = 0; k < 9; k++) M[9 * i + k] += w[e] * t[i] * t[k];
  }
  if (!sm_inverse_n(M, 9, 1e-10)) return 0;
  memcpy(aqq9, M, sizeof M);
  return 1;
}

/* The goal matrix G (3 x cols) times the coordinates t, plus c. */
static void apply(const double *G, int cols, const double *t,
                  const double *c, double *g) {
  for (int r = 0; r < 3; r++) {
    double s = c[r];
    for (int k = 0; k < cols; k++) s += G[cols * r + k] * t[k];
    g[r] = s;
  }
}

void sm_goals(struct sm_cluster *c, const struct sm_params *prm,
              const double *w, const double *q, const double *aqq9,
              const double *p, double *g, double *A_out) {
  double cm[3] = {0, 0, 0}, Apq[9] = {0}, R[9];
  for (uint32_t e = 0; e < c->cnt; e++)
    for (int a = 0; a < 3; a++) cm[a] += w[e] * p[3 * e + a];
  for (int a = 0; a < 3; a++) cm[a] /= c->wsum;
  for (uint32_t e = 0; e < c->cnt; e++)
    for (int r = 0; r < 3; r++) {
      double d = w[e] * (p[3 * e + r] - cm[r]);
      for (int k = 0; k < 3; k++) Apq[3 * r + k] += d * q[3 * e + k];
    }
  msc_polar(Apq, R, c->qr);
  if (prm->mode == SM_RIGID) {
    for (uint32_t e = 0; e < c->cnt; e++) apply(R, 3, q + 3 * e, cm, g + 3 * e);
    if (A_out) memcpy(A_out, R, sizeof R);
    return;
  }
  const double b = prm->beta;
  if (prm->mode == SM_LINEAR) {
    double A[9], G[9];
    for (int r = 0; r < 3; r++)
      for (int k = 0; k < 3; k++) {
        double s = 0.0;
        for (int j = 0; j < 3; j++) s += Apq[3 * r + j] * c->Aqq[3 * j + k];
        A[3 * r + k] = s;
      }
    double d = det3(A);
    if (d > 0.0)
      for (int i = 0; i < 9; i++) A[i] /= cbrt(d);
    else
      memcpy(A, R, sizeof A);
    for (int i = 0; i < 9; i++) G[i] = b * A[i] + (1.0 - b) * R[i];
    for (uint32_t e = 0; e < c->cnt; e++) apply(G, 3, q + 3 * e, cm, g + 3 * e);
    if (A_out) memcpy(A_out, A, sizeof A);
    return;
  }
  /* quadratic: A~ = A~pq A~qq over the centred quadratic coordinates */
  double Ap[27] = {0}, At[27], G[27], t[9];
  for (uint32_t e = 0; e < c->cnt; e++) {
    sm_quad(q + 3 * e, t);
    for (int k = 0; k < 9; k++) t[k] -= c->qm[k];
    for (int r = 0; r < 3; r++) {
      double d = w[e] * (p[3 * e + r] - cm[r]);
      for (int k = 0; k < 9; k++) Ap[9 * r + k] += d * t[k];
    }
  }
  for (int r = 0; r < 3; r++)
    for (int k = 0; k < 9; k++) {
      double s = 0.0;
      for (int j = 0; j < 9; j++) s += Ap[9 * r + j] * aqq9[9 * j + k];
      At[9 * r + k] = s;
    }
  double L[9] = {At[0], At[1], At[2], At[9], At[10], At[11], At[18], At[19],
                 At[20]};
  double d = det3(L);
  if (d > 0.0) {
    double f = 1.0 / cbrt(d);
    for (int i = 0; i < 27; i++) At[i] *= f;
    for (int i = 0; i < 9; i++) L[i] *= f;
  } else {
    memset(At, 0, sizeof At);
    for (int r = 0; r < 3; r++)
      for (int k = 0; k < 3; k++) At[9 * r + k] = R[3 * r + k];
    memcpy(L, R, sizeof L);
  }
  for (int r = 0; r < 3; r++)
    for (int k = 0; k < 9; k++)
      G[9 * r + k] = b * At[9 * r + k] + (k < 3 ? (1.0 - b) * R[3 * r + k]
                                                 : 0.0);
  for (uint32_t e = 0; e < c->cnt; e++) {
    sm_quad(q + 3 * e, t);
    for (int k = 0; k < 9; k++) t[k] -= c->qm[k];
    apply(G, 9, t, cm, g + 3 * e);
  }
  if (A_out) memcpy(A_out, L, sizeof L);
}

int sm_plastic(struct sm_cluster *c, const double *A, double yield,
               double creep, double cmax, double h) {
  double R[9], qw[4] = {1, 0, 0, 0}, S[9], E[9], D[9];
  msc_polar(A, R, qw);
  for (int r = 0; r < 3; r++)
    for (int k = 0; k < 3; k++) {
      double s = 0.0;
      for (int j = 0; j < 3; j++) s += R[3 * j + r] * A[3 * j + k];
      S[3 * r + k] = s;
    }
  for (int i = 0; i < 9; i++) E[i] = S[i] - (i % 4 == 0 ? 1.0 : 0.0);
  if (!(frob(E, 9) > yield)) return 0;
  double P[9];
  for (int r = 0; r < 3; r++)
    for (int k = 0; k < 3; k++) {
      double s = c->Sp[3 * r + k];
      for (int j = 0; j < 3; j++) s += h * creep * E[3 * r + j] * c->Sp[3 * j + k];
      P[3 * r + k] = s;
    }
  for (int i = 0; i < 9; i++) D[i] = P[i] - (i % 4 == 0 ? 1.0 : 0.0);
  double dn = frob(D, 9);
  if (dn > cmax)
    for (int i = 0; i < 9; i++) P[i] = (i % 4 == 0 ? 1.0 : 0.0) + cmax * D[i] / dn;
  double d = det3(P);
  if (!(d > 0.0)) return 0;
  for (int i = 0; i < 9; i++) c->Sp[i] = P[i] / cbrt(d);
  return 1;
}
