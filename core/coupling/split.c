/* Splitting meta-particles back into particles (paper Eqs. 8-16, 20).
 *
 * With u = v1' - V, momentum fixes v2' = V - (m1/m2) u and the energy
 * condition becomes |u|^2 = s^2 = 2E m2 / (m m1) (Eqs. 10-11, 20).  Write
 * d = V - v1 = mu n^ + w with w orthogonal to n^.  Restricting v1' - v1 to
 * n^ (Eq. 12 with eps = 0) gives u = -w + (t) n^ with t^2 = s^2 - |w|^2:
 * the smaller root of Eq. 13 is t = -sqrt(s^2 - |w|^2).  When s < |w| there
 * is no real root and the closest point on the sphere (Eqs. 15-16) is
 * u = -s w / |w|.  Computing the discriminant as s^2 - |w|^2 (rather than
 * (n^.d)^2 - |d|^2 + s^2) avoids cancellation. */
#include "../base/base.h"
#include "coupling.h"

#include <math.h>
#include <string.h>

#include <mergesplit/plugin_util.h>


/* Unit collision direction.  n = 0 (coincident centres) falls back to the
 * direction of approach v1 - v2, then to +x. */
static void unit_normal(const double *n, const double *v1, const double *v2,
                        double *nh) {
  double l2 = ms__norm2(n);
  if (l2 > 0.0 && isfinite(l2)) {
    double il = 1.0 / sqrt(l2);
    nh[0] = n[0] * il, nh[1] = n[1] * il, nh[2] = n[2] * il;
    return;
  }
  double d[3];
  ms__sub(d, v1, v2);
  l2 = ms__norm2(d);
  if (l2 > 0.0) {
    double il = 1.0 / sqrt(l2);
    nh[0] = d[0] * il, nh[1] = d[1] * il, nh[2] = d[2] * il;
    return;
  }
  nh[0] = 1.0, nh[1] = 0.0, nh[2] = 0.0;
}

int ms__split2(double m1, double m2, const double *V, const double *v1,
               const double *v2, const double *n, double E, double *v1p,
               double *v2p) {
  double m = m1 + m2;
  double nh[3], d[3], w[3], u[3];
  double s2 = (E > 0.0) ? 2.0 * E * m2 / (m * m1) : 0.0;
  int ortho = 0;

  unit_normal(n, v1, v2, nh);
  ms__sub(d, V, v1);
  double mu = ms__dot(nh, d);
  ms__lin2(w, d, 1.0, nh, -mu);
  double w2 = ms__norm2(w);
  double disc = s2 - w2;
  if (disc >= 0.0) {
    double t = sqrt(disc);
    ms__lin2(u, w, -1.0, nh, -t); /* smaller root: separating */
  } else {
    double f = -sqrt(s2) / sqrt(w2); /* closest point: |eps| minimal */
    u[0] = f * w[0], u[1] = f * w[1], u[2] = f * w[2];
    ortho = 1;
  }
  double r = m1 / m2;
  v1p[0] = V[0] + u[0], v1p[1] = V[1] + u[1], v1p[2] = V[2] + u[2];
  v2p[0] = V[0] - r * u[0], v2p[1] = V[1] - r * u[1], v2p[2] = V[2] - r * u[2];
  return ortho;
}

void ms__sync_shares(uint32_t K, const double *m, const double *ma,
                     const uint8_t *cross, double *share) {
  double sum = 0.0;
  share[0] = 0.0;
  for (uint32_t k = 1; k < K; k++) {
    share[k] = cross[k] ? ma[k] * m[k] / (ma[k] + m[k]) : 0.0;
    sum += share[k];
  }
  if (sum > 0.0)
    for (uint32_t k = 1; k < K; k++) share[k] /= sum;
}

uint32_t ms__split_chain(uint32_t K, const double *m, const double *v,
                         const double *n, const double *va, const double *ma,
                         const double *de, const double *share, double dek,
                         double alpha, double beta, const double *V,
                         double *vout, double *restored) {
  double cur[3], next[3];
  uint32_t northo = 0;
  double rest = 0.0;

  ms__copy3(cur, V);
  for (uint32_t k = K - 1; k >= 1; k--) {
    double E = alpha * de[k] + beta * share[k] * dek;
    northo += (uint32_t)ms__split2(ma[k], m[k], cur, va + 3 * k, v + 3 * k,
                                   n + 3 * k, E, next, vout + 3 * k);
    rest += E;
    ms__copy3(cur, next);
  }
  ms__copy3(vout, cur);
  *restored += rest;
  return northo;
}

void ms__split_spin(uint32_t K, const double *m, const double *x,
                    const double *v, const double *vout, const double *X,
                    const double *V, const double *Vf, double *D) {
  D[0] = D[1] = D[2] = 0.0;
  for (uint32_t i = 0; i < K; i++) {
    double r[3], u[3], c[3];
    ms__sub(r, x + 3 * i, X);
    for (int a = 0; a < 3; a++)
      u[a] = (v[3 * i + a] - V[a]) - (vout[3 * i + a] - Vf[a]);
    ms__cross(c, r, u);
    for (int a = 0; a < 3; a++) D[a] += m[i] * c[a];
  }
}

void ms__metaset_split(struct ms__metaset *M, double alpha, double beta,
                       struct ms__ledger *L) {
#pragma omp parallel for schedule(dynamic, 64) \
    if (M->count > MS__PAR_MIN_METAS)
  for (uint32_t k = 0; k < M->count; k++) {
    uint32_t o = M->offset[k], K = M->offset[k + 1] - o;
    double rest = 0.0, de = 0.0;
    M->northo[k] = ms__split_chain(
        K, M->m + o, M->v0 + 3 * o, M->n + 3 * o, M->va + 3 * o, M->ma + o,
        M->de + o, M->share + o, M->dek[k], alpha, beta, M->vfin + 3 * k,
        M->vout + 3 * o, &rest);
    ms__split_spin(K, M->m + o, M->x0 + 3 * o, M->v0 + 3 * o,
                   M->vout + 3 * o, M->pos + 3 * k, M->vel + 3 * k,
                   M->vfin + 3 * k, M->spin + 3 * k);
    for (uint32_t q = o + 1; q < o + K; q++) de += M->de[q];
    M->restored[k] = rest;
    M->de_sum[k] = de;
  }
  for (uint32_t k = 0; k < M->count; k++) {
    L->stored += M->de_sum[k];
    L->restored += M->restored[k];
    L->ortho += M->northo[k];
    L->splits += M->offset[k + 1] - M->offset[k] - 1;
  }
  L->merges += M->nslots - M->count;
}

/* r += m (a x b), m a sym3 tensor applied to the cross product. */
static void add_moment(double *r, const double *m, const double *a,
                       const double *b) {
  double c[3], mc[3];
  ms__cross(c, a, b);
  ms_sym3_mul(mc, m, c);
  for (int k = 0; k < 3; k++) r[k] += mc[k];
}

void ms__metaset_orbit(struct ms__metaset *M, double dt, const double *g) {
  if (!M->collective) return;
#pragma omp parallel for schedule(static) if (M->count > MS__PAR_MIN_METAS)
  for (uint32_t k = 0; k < M->count; k++) {
    uint32_t e0 = M->eoff[k], e1 = M->eoff[k + 1];
    int skip = !M->coll[k] || e1 - e0 < 2;
    for (uint32_t e = e0; e < e1 && !skip; e++)
      skip = M->elead[e] || M->econ[e];
    if (skip) continue;
    const double *x = M->pos + 3 * k, *v = M->vel + 3 * k;
    const double *V = M->vfin + 3 * k;
    double xe[3], E[3], gd[3], vg[3], end[3], start[3];
    for (int a = 0; a < 3; a++) {
      xe[a] = x[a] + M->disp[3 * k + a], gd[a] = dt * g[a];
      vg[a] = v[a] + gd[a]; /* with gravity's moment, which is no excess */
    }
    ms__cross(end, xe, V);
    ms__cross(start, x, vg);
    for (int a = 0; a < 3; a++) E[a] = M->mass[k] * (end[a] - start[a]);
    for (uint32_t e = e0; e < e1; e++) {
      double ms[6], xs[3], vs[3], rs[3], from[3];
      const double *ext = M->eext ? M->eext + 3 * e : NULL;
      ms__cross(rs, xe, M->eimp + 3 * e);
      for (int a = 0; a < 3; a++) E[a] += rs[a];
      /* m_s = W_s - C_s: the inertia system s moved it with */
      ms__memcpy(ms, M->eweight + 6 * e, sizeof ms);
      ms_sym3_add(ms, M->ecoll + 6 * e, -1.0);
      for (int a = 0; a < 3; a++) {
        xs[a] = x[a] + M->edisp[3 * e + a];
        vs[a] = -M->evel[3 * e + a];
        from[a] = v[a] + (ext ? ext[a] : 0.0) + gd[a];
      }
      add_moment(E, ms, xs, vs);
      add_moment(E, ms, x, from);
    }
    for (int a = 0; a < 3; a++) M->spin[3 * k + a] -= E[a];
  }
}
