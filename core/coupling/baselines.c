/* Penalty, SPH-style and impulse-based collision response (baselines). */
#include "coupling.h"

#include <math.h>

#include "../base/base.h"

void ms__contact_forces(const struct ms__particles *P, const uint32_t *pairs,
                        size_t npairs, int sph, double k, double c,
                        double *f) {
  for (size_t q = 0; q < npairs; q++) {
    uint32_t i = pairs[2 * q], j = pairs[2 * q + 1];
    double n[3], dv[3];
    ms__sub(n, P->x + 3 * (size_t)j, P->x + 3 * (size_t)i);
    double d2 = ms__norm2(n), d = sqrt(d2), h = P->r[i] + P->r[j];
    if (!ms__rule_contact(d2, P->r[i], P->r[j])) continue;
    if (d > 0.0) {
      n[0] /= d, n[1] /= d, n[2] /= d;
    } else { /* coincident: push apart along +x */
      n[0] = 1.0, n[1] = n[2] = 0.0;
    }
    double mag = sph ? k * (1.0 - d / h) * (1.0 - d / h) : k * (h - d);
    ms__sub(dv, P->v + 3 * (size_t)j, P->v + 3 * (size_t)i);
    mag -= c * ms__dot(dv, n); /* dashpot along the normal */
    for (int a = 0; a < 3; a++) {
      f[3 * (size_t)j + a] += mag * n[a];
      f[3 * (size_t)i + a] -= mag * n[a];
    }
  }
}

size_t ms__baseline_impulses(struct ms__particles *P, const uint32_t *pairs,
                            size_t npairs, double e) {
  size_t applied = 0;
  for (size_t q = 0; q < npairs; q++) {
    uint32_t i = pairs[2 * q], j = pairs[2 * q + 1];
    double n[3], dv[3];
    ms__sub(n, P->x + 3 * (size_t)j, P->x + 3 * (size_t)i);
    double d2 = ms__norm2(n);
    if (!ms__rule_contact(d2, P->r[i], P->r[j]) || d2 == 0.0) continue;
    double d = sqrt(d2);
    n[0] /= d, n[1] /= d, n[2] /= d;
    double *vi = P->v + 3 * (size_t)i, *vj = P->v + 3 * (size_t)j;
    ms__sub(dv, vj, vi);
    double vn = ms__dot(dv, n);
    if (!ms__rule_approaching(vn, 0.0)) continue;
    double J = -(1.0 + e) * vn / (1.0 / P->m[i] + 1.0 / P->m[j]);
    for (int a = 0; a < 3; a++) {
      vi[a] -= J / P->m[i] * n[a];
      vj[a] += J / P->m[j] * n[a];
    }
    applied++;
  }
  return applied;
}
