/* Velocity synchronisation across systems: the momentum rule and the
 * paper's Eqs. 17-19 (doc/sync.md). */
#include "../base/base.h"
#include "coupling.h"

#include <mergesplit/plugin_util.h>



#include <string.h>

double ms__sync(uint32_t k, const double *Ms, const double *vs, double *v) {
  double M = 0.0, p[3] = {0.0, 0.0, 0.0};
  if (k == 1) { /* nothing to average */
    ms__copy3(v, vs);
    return 0.0;
  }
  for (uint32_t s = 0; s < k; s++) {
    M += Ms[s];
    p[0] += Ms[s] * vs[3 * s];
    p[1] += Ms[s] * vs[3 * s + 1];
    p[2] += Ms[s] * vs[3 * s + 2];
  }
  v[0] = p[0] / M, v[1] = p[1] / M, v[2] = p[2] / M;
  /* The sum-of-squares form is never negative, unlike the difference. */
  double dek = 0.0;
  for (uint32_t s = 0; s < k; s++) {
    double d[3];
    ms__sub(d, vs + 3 * s, v);
    dek += Ms[s] * ms__norm2(d);
  }
  return 0.5 * dek;
}

void ms__sync_momentum(uint32_t k, const double *v, const double *gd,
                       const double *vs, const double *ext, const double *w,
                       const double *W, const double *Mc, double *V) {
  double u[3] = {0.0, 0.0, 0.0};
  for (uint32_t s = 0; s < k; s++) {
    double us[3], wu[3];
    for (int a = 0; a < 3; a++) us[a] = vs[3 * s + a] - v[a] - gd[a];
    if (ext)
      for (int a = 0; a < 3; a++) us[a] -= ext[3 * s + a];
    if (W) {
      ms_sym3_mul(wu, W + 6 * s, us);
      ms__copy3(us, wu);
    } else if (w) {
      for (int a = 0; a < 3; a++) us[a] *= w[s];
    }
    for (int a = 0; a < 3; a++) u[a] += us[a];
  }
  if (W) ms_sym3_solve(u, Mc, u); /* Mc >= M 1 > 0: never singular */
  for (int a = 0; a < 3; a++) V[a] = v[a] + gd[a] + u[a];
}

/* Mean velocity and displacement of the entries that constrained their
 * result most strongly (`level`: pins before walls): a constraint is an
 * external impulse, not a coupling partner, so it is not averaged away and
 * stores no sync energy; and a pin, which prescribes the whole motion, is
 * not averaged with a wall, which stops part of it. */
static void constrained_result(const struct ms__metaset *M, uint32_t e0,
                               uint32_t ne, uint8_t level, double *v,
                               double *d) {
  double w = 0.0;
  v[0] = v[1] = v[2] = d[0] = d[1] = d[2] = 0.0;
  for (uint32_t e = e0; e < e0 + ne; e++) {
    if (M->econ[e] != level) continue;
    w += M->emass[e];
    for (int a = 0; a < 3; a++) {
      v[a] += M->emass[e] * M->evel[3 * e + a];
      d[a] += M->emass[e] * M->edisp[3 * e + a];
    }
  }
  for (int a = 0; a < 3; a++) v[a] /= w, d[a] /= w;
}

/* What a coupling iteration added to entry e's start velocity (coupling.h);
 * 0 without (a metaset built by hand may have no eext). */
static const double *ext_of(const struct ms__metaset *M, uint32_t e) {
  static const double none[3] = {0.0, 0.0, 0.0};
  return M->eext ? M->eext + 3 * e : none;
}

/* FOLLOW: K_s = C_s (u - u_s) for every entry of meta k that stated C_s,
 * u = V - v - g dt and u_s = v^s - v - x_s - g dt (doc/sync.md sections 5
 * and 6): C_s (V - v^s + x_s), x_s what a coupling iteration added to the
 * system's start velocity (0 in a step's first pass).  Without x_s an
 * iterated pass would leak sum_s C_s x_s of momentum. */
static void follow_impulses(struct ms__metaset *M, uint32_t k) {
  const double *V = M->vfin + 3 * k;
  for (uint32_t e = M->eoff[k]; e < M->eoff[k + 1]; e++) {
    double d[3];
    const double *x = ext_of(M, e);
    for (int a = 0; a < 3; a++) d[a] = V[a] - M->evel[3 * e + a] + x[a];
    ms_sym3_mul(M->eimp + 3 * e, M->ecoll + 6 * e, d);
  }
}

/* The entry of meta k that stated collective inertia, when it is the only
 * one and integrated with the whole mass (a system weighing the meta-
 * particle with its own mass cannot answer for the rest of it); else
 * UINT32_MAX. */
static uint32_t leader(const struct ms__metaset *M, uint32_t k) {
  uint32_t e = M->eoff[k];
  if (M->coll[k] != 1) return UINT32_MAX;
  while (ms_sym3_is_zero(M->ecoll + 6 * e)) e++;
  return M->ew[e] == 1.0 ? e : UINT32_MAX;
}

/* LEAD: the entry `lead` of meta k receives G = sum over the others of
 * (m_r + C_r) (v^r - v - g dt); until it answers, the meta-particle
 * carries its own result. */
static void lead_impulse(struct ms__metaset *M, uint32_t k, uint32_t lead,
                         const double *gd) {
  uint32_t e0 = M->eoff[k], e1 = M->eoff[k + 1];
  double G[3] = {0.0, 0.0, 0.0};
  for (uint32_t e = e0; e < e1; e++) {
    if (e == lead) continue;
    double u[3], J[3];
    for (int a = 0; a < 3; a++)
      u[a] = M->evel[3 * e + a] - M->vel[3 * k + a] - gd[a] - ext_of(M, e)[a];
    ms_sym3_mul(J, M->eweight + 6 * e, u);
    for (int a = 0; a < 3; a++) G[a] += J[a];
  }
  M->elead[lead] = 1;
  ms__copy3(M->eimp + 3 * lead, G);
  ms__copy3(M->vfin + 3 * k, M->evel + 3 * lead);
  ms__copy3(M->disp + 3 * k, M->edisp + 3 * lead);
}

/* The momentum the rule gave meta k beyond the systems' impulses,
 *   Mc (V - v - g dt) - sum_s J_s,  J_s = W_s (v^s - v - g dt)
 * (W_s = m_s + C_s, or w_s M without collective inertia), into d, and
 * sum_s |J_s| into *x.  0 for the momentum rule, to round-off; the
 * paper's loses -(1 - M_s / M) J_s per system. */
static void defect(const struct ms__metaset *M, uint32_t k, const double *gd,
                   double *d, double *x) {
  const double *v = M->vel + 3 * k, *V = M->vfin + 3 * k;
  double R[3], u[3], J[3];
  for (int a = 0; a < 3; a++) u[a] = V[a] - v[a] - gd[a];
  if (M->coll[k])
    ms_sym3_mul(R, M->inertia + 6 * k, u);
  else
    for (int a = 0; a < 3; a++) R[a] = M->mass[k] * u[a];
  *x = 0.0;
  for (uint32_t e = M->eoff[k]; e < M->eoff[k + 1]; e++) {
    for (int a = 0; a < 3; a++)
      u[a] = M->evel[3 * e + a] - v[a] - gd[a] - ext_of(M, e)[a];
    if (M->coll[k])
      ms_sym3_mul(J, M->eweight + 6 * e, u);
    else
      for (int a = 0; a < 3; a++) J[a] = M->ew[e] * M->mass[k] * u[a];
    for (int a = 0; a < 3; a++) R[a] -= J[a];
    *x += sqrt(J[0] * J[0] + J[1] * J[1] + J[2] * J[2]);
  }
  ms__copy3(d, R);
}

void ms__metaset_sync(struct ms__metaset *M, int rule, double dt,
                      const double *g, struct ms__ledger *L) {
  const double gd[3] = {g[0] * dt, g[1] * dt, g[2] * dt};
#pragma omp parallel for schedule(static) if (M->count > MS__PAR_MIN_METAS)
  for (uint32_t k = 0; k < M->count; k++) {
    uint32_t e0 = M->eoff[k], ne = M->eoff[k + 1] - e0;
    uint8_t con = 0;
    uint32_t lead;
    for (uint32_t e = e0; e < e0 + ne; e++)
      if (M->econ[e] > con) con = M->econ[e];
    double *V = M->vfin + 3 * k;
    M->dek[k] = 0.0;
    M->pdef[3 * k] = M->pdef[3 * k + 1] = M->pdef[3 * k + 2] = 0.0;
    M->pexch[k] = 0.0;
    if (ne == 1) { /* one system: its own result stands */
      if (!con && rule == MS__SYNC_MOMENTUM &&
          (lead = leader(M, k)) != UINT32_MAX) {
        /* G = 0; the system answers for it after the other meta-
         * particles' impulses moved the part that holds it */
        lead_impulse(M, k, lead, gd);
        continue;
      }
      ms__copy3(V, M->evel + 3 * e0);
      ms__copy3(M->disp + 3 * k, M->edisp + 3 * e0);
      continue;
    }
    if (con) {
      constrained_result(M, e0, ne, con, V, M->disp + 3 * k);
    } else if (rule == MS__SYNC_MOMENTUM &&
               (lead = leader(M, k)) != UINT32_MAX) {
      lead_impulse(M, k, lead, gd); /* it answers (step.c) */
      continue;
    } else {
      if (rule == MS__SYNC_PAPER)
        M->dek[k] = ms__sync(ne, M->emass + e0, M->evel + 3 * e0, V);
      else if (M->coll[k])
        ms__sync_momentum(ne, M->vel + 3 * k, gd, M->evel + 3 * e0,
                          M->eext ? M->eext + 3 * e0 : NULL, NULL,
                          M->eweight + 6 * e0,
                          M->inertia + 6 * k, V);
      else /* each weighs in with the inertia it integrated with */
        ms__sync_momentum(ne, M->vel + 3 * k, gd, M->evel + 3 * e0,
                          M->eext ? M->eext + 3 * e0 : NULL, M->ew + e0,
                          NULL, NULL, V);
      for (int a = 0; a < 3; a++) M->disp[3 * k + a] = dt * V[a];
      defect(M, k, gd, M->pdef + 3 * k, M->pexch + k);
    }
    if (M->coll[k]) follow_impulses(M, k);
  }
  /* summed in meta order: thread-count independent */
  double stored = 0.0, pd[3] = {0.0, 0.0, 0.0}, px = 0.0;
  for (uint32_t k = 0; k < M->count; k++) {
    stored += M->dek[k];
    for (int a = 0; a < 3; a++) pd[a] += M->pdef[3 * k + a];
    px += M->pexch[k];
  }
  L->stored += stored;
  for (int a = 0; a < 3; a++) L->pdefect[a] += pd[a];
  L->pexch += px;
}
