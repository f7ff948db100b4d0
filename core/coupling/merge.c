/* Merging colliding particles into meta-particles (paper Eqs. 1-5). */
#include "coupling.h"

#include "../base/base.h"

void ms__merge2(double ma, const double *xa, const double *va, double mb,
                const double *xb, const double *vb, double *m, double *x,
                double *v, double *de) {
  double mt = ma + mb;
  double wa = ma / mt, wb = mb / mt;
  double dv[3];
  ms__lin2(x, xa, wa, xb, wb);
  ms__lin2(v, va, wa, vb, wb);
  ms__sub(dv, va, vb);
  *m = mt;
  /* Eq. 4; a product of non-negative terms, so never negative. */
  *de = 0.5 * (ma * mb / mt) * ms__norm2(dv);
}

void ms__merge_chain(uint32_t K, const uint32_t *sys, const double *m,
                     const double *x, const double *v, double *n, double *va,
                     double *ma, double *de, uint8_t *cross, double *M,
                     double *X, double *V) {
  double pm = m[0], px[3], pv[3];
  uint32_t psys = sys[0];
  int pmulti = 0; /* prefix holds members of more than one system */

  ms__copy3(px, x);
  ms__copy3(pv, v);
  /* Entry 0 is no node; define it so readers never see garbage. */
  n[0] = n[1] = n[2] = va[0] = va[1] = va[2] = 0.0;
  ma[0] = de[0] = 0.0;
  cross[0] = 0;
  for (uint32_t k = 1; k < K; k++) {
    const double *xb = x + 3 * k, *vb = v + 3 * k;
    double nm, nx[3], nv[3];
    ms__sub(n + 3 * k, xb, px); /* Eq. 5: n = x_b - x_a */
    ms__copy3(va + 3 * k, pv);
    ma[k] = pm;
    cross[k] = (uint8_t)(pmulti || psys != sys[k]);
    pmulti |= cross[k];
    ms__merge2(pm, px, pv, m[k], xb, vb, &nm, nx, nv, &de[k]);
    pm = nm;
    ms__copy3(px, nx);
    ms__copy3(pv, nv);
  }
  *M = pm;
  ms__copy3(X, px);
  ms__copy3(V, pv);
}
