/* Contact impulses between meta-particles the size limit keeps apart. */
#include "coupling.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/status.h>

#include "../base/base.h"

/* Sweeps over the contacts: enough for the chains of a resting stack to
 * settle; a sweep that applies nothing ends the loop. */
#define MAX_SWEEPS 32

void ms__contacts_free(struct ms__contacts *C) {
  free(C->body);
  free(C->normal);
  free(C->inv_mass);
  ms__memset(C, 0, sizeof *C);
}

static int reserve(struct ms__contacts *C, size_t n, size_t nmeta) {
  if (n > C->cap) {
    size_t c = n + n / 2 + 64;
    if (ms__grow((void **)&C->body, c, 2 * sizeof(uint32_t)) ||
        ms__grow((void **)&C->normal, c, 3 * sizeof(double)))
      return MS_ENOMEM;
    C->cap = c;
  }
  if (nmeta > C->cap_meta) {
    size_t c = nmeta + nmeta / 2 + 64;
    if (ms__grow((void **)&C->inv_mass, c, sizeof(double))) return MS_ENOMEM;
    C->cap_meta = c;
  }
  return MS_OK;
}

int ms__contacts_find(struct ms__contacts *C, const struct ms__metaset *M,
                      const uint32_t *group, const double *x,
                      const uint32_t *pairs, size_t npairs) {
  C->count = 0;
  if (reserve(C, npairs, M->count)) return MS_ENOMEM;
  for (uint32_t k = 0; k < M->count; k++) {
    int con = 0;
    for (uint32_t e = M->eoff[k]; e < M->eoff[k + 1]; e++) con |= M->econ[e];
    C->inv_mass[k] = con ? 0.0 : 1.0 / M->mass[k];
  }
  for (size_t p = 0; p < npairs; p++) {
    uint32_t i = pairs[2 * p], j = pairs[2 * p + 1];
    uint32_t a = group[i], b = group[j];
    if (a == b || a >= M->count || b >= M->count) continue;
    if (C->inv_mass[a] + C->inv_mass[b] == 0.0) continue;
    double *n = C->normal + 3 * C->count, len;
    ms__sub(n, x + 3 * (size_t)j, x + 3 * (size_t)i);
    len = sqrt(ms__norm2(n));
    if (!(len > 0.0)) continue; /* coincident: no direction to push along */
    for (int d = 0; d < 3; d++) n[d] /= len;
    C->body[2 * C->count] = a;
    C->body[2 * C->count + 1] = b;
    C->count++;
  }
  return MS_OK;
}

/* Velocity change dv of body k (mass m): kinetic energy gained. */
static double push(struct ms__metaset *M, uint32_t k, const double *dv,
                   double dt) {
  double *v = M->vfin + 3 * k, e0 = ms__norm2(v);
  for (int d = 0; d < 3; d++) {
    v[d] += dv[d];
    M->disp[3 * k + d] += dv[d] * dt;
  }
  return 0.5 * M->mass[k] * (ms__norm2(v) - e0);
}

void ms__contacts_resolve(const struct ms__contacts *C, struct ms__metaset *M,
                          double restitution, double dt,
                          struct ms__ledger *L) {
  double gained = 0.0, e1 = 1.0 + restitution;
  uint64_t applied = 0;
  for (int sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    uint64_t before = applied;
    for (size_t c = 0; c < C->count; c++) {
      uint32_t a = C->body[2 * c], b = C->body[2 * c + 1];
      const double *n = C->normal + 3 * c;
      double *va = M->vfin + 3 * a, *vb = M->vfin + 3 * b, dv[3];
      ms__sub(dv, vb, va);
      double vn = ms__dot(n, dv);
      /* Approaching beyond rounding of the velocities themselves. */
      double tol = 1e-12 * sqrt(fmax(ms__norm2(va), ms__norm2(vb)));
      if (!ms__rule_approaching(vn, tol)) continue;
      double wa = C->inv_mass[a], wb = C->inv_mass[b];
      double J = -e1 * vn / (wa + wb), da[3], db[3];
      for (int d = 0; d < 3; d++) {
        da[d] = -J * wa * n[d];
        db[d] = J * wb * n[d];
      }
      if (wa > 0.0) gained += push(M, a, da, dt);
      if (wb > 0.0) gained += push(M, b, db, dt);
      applied++;
    }
    if (applied == before) break;
  }
  L->contact -= gained; /* rounding aside, 0 when restitution = 1 */
  L->contacts += applied;
}
