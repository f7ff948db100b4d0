/* Building the meta-particle set of a step and its per-system pieces. */
#include "../base/base.h"
#include "coupling.h"

#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin.h>
#include <mergesplit/plugin_util.h>
#include <mergesplit/status.h>


void ms__metaset_free(struct ms__metaset *M) {
  void *arrays[] = {M->offset, M->member, M->sys,   M->x0,    M->v0,
                    M->m,      M->n,      M->va,    M->ma,    M->de,
                    M->share,  M->cross,  M->vout,  M->mass,  M->pos,
                    M->vel,    M->vfin,   M->disp,  M->dek,   M->de_sum,
                    M->restored, M->northo, M->eoff, M->esys, M->emass,
                    M->evel,   M->edisp, M->econ, M->coll, M->inertia,
                    M->ecoll, M->eweight, M->eimp, M->ew, M->elead,
                    M->pdef, M->pexch, M->eext, M->spin};
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) free(arrays[i]);
  ms__memset(M, 0, sizeof *M);
}

void ms__sysmetas_free(struct ms__sysmetas *S) {
  void *arrays[] = {S->entry, S->meta, S->member_offset, S->member, S->mass,
                    S->own_mass, S->pos, S->vel, S->rvel, S->rdisp, S->rcon,
                    S->inertia, S->coll, S->vsync, S->imp, S->dsync,
                    S->lead, S->spin};
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) free(arrays[i]);
  ms__memset(S, 0, sizeof *S);
}

static int reserve_metas(struct ms__metaset *M, size_t nm) {
  if (nm + 1 <= M->cap_meta) return MS_OK;
  size_t c = nm + nm / 2 + 16;
  if (ms__grow((void **)&M->offset, c + 1, sizeof(uint32_t)) ||
      ms__grow((void **)&M->eoff, c + 1, sizeof(uint32_t)) ||
      ms__grow((void **)&M->mass, c, sizeof(double)) ||
      ms__grow((void **)&M->pos, c, 3 * sizeof(double)) ||
      ms__grow((void **)&M->vel, c, 3 * sizeof(double)) ||
      ms__grow((void **)&M->spin, c, 3 * sizeof(double)) ||
      ms__grow((void **)&M->vfin, c, 3 * sizeof(double)) ||
      ms__grow((void **)&M->disp, c, 3 * sizeof(double)) ||
      ms__grow((void **)&M->dek, c, sizeof(double)) ||
      ms__grow((void **)&M->pdef, c, 3 * sizeof(double)) ||
      ms__grow((void **)&M->pexch, c, sizeof(double)) ||
      ms__grow((void **)&M->de_sum, c, sizeof(double)) ||
      ms__grow((void **)&M->restored, c, sizeof(double)) ||
      ms__grow((void **)&M->northo, c, sizeof(uint32_t)) ||
      ms__grow((void **)&M->coll, c, sizeof(uint8_t)) ||
      ms__grow((void **)&M->inertia, c, 6 * sizeof(double)))
    return MS_ENOMEM;
  M->cap_meta = c + 1;
  return MS_OK;
}

static int reserve_slots(struct ms__metaset *M, size_t ns) {
  if (ns <= M->cap_slot) return MS_OK;
  size_t c = ns + ns / 2 + 16;
  if (ms__grow((void **)&M->member, c, sizeof(uint32_t)) ||
      ms__grow((void **)&M->sys, c, sizeof(uint32_t)) ||
      ms__grow((void **)&M->x0, c, 3 * sizeof(double)) ||
      ms__grow((void **)&M->v0, c, 3 * sizeof(double)) ||
      ms__grow((void **)&M->m, c, sizeof(double)) ||
      ms__grow((void **)&M->n, c, 3 * sizeof(double)) ||
      ms__grow((void **)&M->va, c, 3 * sizeof(double)) ||
      ms__grow((void **)&M->ma, c, sizeof(double)) ||
      ms__grow((void **)&M->de, c, sizeof(double)) ||
      ms__grow((void **)&M->share, c, sizeof(double)) ||
      ms__grow((void **)&M->cross, c, sizeof(uint8_t)) ||
      ms__grow((void **)&M->vout, c, 3 * sizeof(double)) ||
      /* entries: at most one per slot */
      ms__grow((void **)&M->esys, c, sizeof(uint32_t)) ||
      ms__grow((void **)&M->emass, c, sizeof(double)) ||
      ms__grow((void **)&M->evel, c, 3 * sizeof(double)) ||
      ms__grow((void **)&M->edisp, c, 3 * sizeof(double)) ||
      ms__grow((void **)&M->econ, c, sizeof(uint8_t)) ||
      ms__grow((void **)&M->ecoll, c, 6 * sizeof(double)) ||
      ms__grow((void **)&M->eweight, c, 6 * sizeof(double)) ||
      ms__grow((void **)&M->eimp, c, 3 * sizeof(double)) ||
      ms__grow((void **)&M->ew, c, sizeof(double)) ||
      ms__grow((void **)&M->elead, c, sizeof(uint8_t)) ||
      ms__grow((void **)&M->eext, c, 3 * sizeof(double)))
    return MS_ENOMEM;
  M->cap_slot = c;
  return MS_OK;
}

/* One entry per distinct system of meta k, in order of first appearance. */
static uint32_t add_entries(struct ms__metaset *M, uint32_t k, uint32_t e) {
  M->eoff[k] = e;
  for (uint32_t s = M->offset[k]; s < M->offset[k + 1]; s++) {
    uint32_t f = M->eoff[k];
    while (f < e && M->esys[f] != M->sys[s]) f++;
    if (f == e) {
      M->esys[e] = M->sys[s];
      M->emass[e] = 0.0;
      e++;
    }
    M->emass[f] += M->m[s];
  }
  return e;
}

int ms__metaset_build(struct ms__metaset *M, const struct ms__groups *G,
                      const struct ms__particles *P) {
  uint32_t nm = G->count, ns = G->offset[G->count];
  if (reserve_metas(M, nm) || reserve_slots(M, ns)) return MS_ENOMEM;
  M->count = nm;
  M->merged = G->merged;
  M->nslots = ns;
  ms__memcpy(M->offset, G->offset, (nm + 1) * sizeof *M->offset);
  if (ns) /* C forbids NULL even with no bytes, and nothing is allocated */
    ms__memcpy(M->member, G->member, ns * sizeof *M->member);
#pragma omp parallel for schedule(dynamic, 64) if (nm > MS__PAR_MIN_METAS)
  for (uint32_t k = 0; k < nm; k++) {
    uint32_t o = M->offset[k], K = M->offset[k + 1] - o;
    for (uint32_t s = o; s < o + K; s++) {
      uint32_t g = M->member[s];
      M->sys[s] = P->sys[g];
      M->m[s] = P->m[g];
      ms__copy3(M->x0 + 3 * s, P->x + 3 * (size_t)g);
      ms__copy3(M->v0 + 3 * s, P->v + 3 * (size_t)g);
    }
    ms__merge_chain(K, M->sys + o, M->m + o, M->x0 + 3 * o, M->v0 + 3 * o,
                    M->n + 3 * o, M->va + 3 * o, M->ma + o, M->de + o,
                    M->cross + o, &M->mass[k], M->pos + 3 * k, M->vel + 3 * k);
    ms__sync_shares(K, M->m + o, M->ma + o, M->cross + o, M->share + o);
  }
  uint32_t e = 0;
  for (uint32_t k = 0; k < nm; k++) e = add_entries(M, k, e);
  M->eoff[nm] = e;
  M->nentries = e;
  M->collective = 0;
  ms__memset(M->coll, 0, nm);
  ms__memset(M->ecoll, 0, 6 * (size_t)e * sizeof *M->ecoll);
  ms__memset(M->eimp, 0, 3 * (size_t)e * sizeof *M->eimp);
  ms__memset(M->eext, 0, 3 * (size_t)e * sizeof *M->eext);
  for (uint32_t q = 0; q < e; q++) M->ew[q] = 1.0;
  ms__memset(M->elead, 0, e);
  return MS_OK;
}

static int reserve_sys(struct ms__sysmetas *S, size_t n, size_t nmem) {
  if (n + 1 > S->cap) {
    size_t c = n + n / 2 + 16;
    if (ms__grow((void **)&S->entry, c, sizeof(uint32_t)) ||
        ms__grow((void **)&S->meta, c, sizeof(uint32_t)) ||
        ms__grow((void **)&S->member_offset, c + 1, sizeof(uint32_t)) ||
        ms__grow((void **)&S->mass, c, sizeof(double)) ||
        ms__grow((void **)&S->own_mass, c, sizeof(double)) ||
        ms__grow((void **)&S->pos, c, 3 * sizeof(double)) ||
        ms__grow((void **)&S->vel, c, 3 * sizeof(double)) ||
        ms__grow((void **)&S->rvel, c, 3 * sizeof(double)) ||
        ms__grow((void **)&S->rdisp, c, 3 * sizeof(double)) ||
        ms__grow((void **)&S->rcon, c, sizeof(uint8_t)) ||
        ms__grow((void **)&S->inertia, c, 6 * sizeof(double)) ||
        ms__grow((void **)&S->coll, c, 6 * sizeof(double)) ||
        ms__grow((void **)&S->vsync, c, 3 * sizeof(double)) ||
        ms__grow((void **)&S->imp, c, 3 * sizeof(double)) ||
        ms__grow((void **)&S->dsync, c, 3 * sizeof(double)) ||
        ms__grow((void **)&S->spin, c, 3 * sizeof(double)) ||
        ms__grow((void **)&S->lead, c, sizeof(uint8_t)))
      return MS_ENOMEM;
    S->cap = c;
  }
  if (nmem > S->cap_member) {
    size_t c = nmem + nmem / 2 + 16;
    if (ms__grow((void **)&S->member, c, sizeof(uint32_t))) return MS_ENOMEM;
    S->cap_member = c;
  }
  return MS_OK;
}

int ms__sysmetas_build(struct ms__sysmetas *S, const struct ms__metaset *M,
                       const struct ms__particles *P, uint32_t s) {
  size_t n = 0, nmem = 0;
  for (uint32_t e = 0; e < M->nentries; e++) n += M->esys[e] == s;
  for (uint32_t q = 0; q < M->nslots; q++) nmem += M->sys[q] == s;
  if (reserve_sys(S, n, nmem)) return MS_ENOMEM;
  uint32_t c = 0, mc = 0;
  S->member_offset[0] = 0;
  for (uint32_t k = 0; k < M->count; k++) {
    for (uint32_t e = M->eoff[k]; e < M->eoff[k + 1]; e++) {
      if (M->esys[e] != s) continue;
      S->entry[c] = e;
      S->meta[c] = k;
      S->mass[c] = M->mass[k];
      S->own_mass[c] = M->emass[e];
      ms_sym3_scalar(S->inertia + 6 * c, M->mass[k]);
      ms__copy3(S->pos + 3 * c, M->pos + 3 * k);
      ms__copy3(S->vel + 3 * c, M->vel + 3 * k);
      for (uint32_t q = M->offset[k]; q < M->offset[k + 1]; q++)
        if (M->sys[q] == s) S->member[mc++] = P->local[M->member[q]];
      S->member_offset[++c] = mc;
    }
  }
  S->count = c;
  S->stated = 0;
  ms__memset(S->rcon, 0, c);
  return MS_OK;
}

void ms__sysmetas_collect(const struct ms__sysmetas *S,
                          struct ms__metaset *M) {
  for (uint32_t c = 0; c < S->count; c++) {
    uint32_t e = S->entry[c];
    ms__copy3(M->evel + 3 * e, S->rvel + 3 * c);
    ms__copy3(M->edisp + 3 * e, S->rdisp + 3 * c);
    M->econ[e] = S->rcon[c] > MS_PINNED ? MS_PINNED : S->rcon[c];
  }
}

void ms__sysmetas_state_inertia(struct ms__sysmetas *S,
                                struct ms__metaset *M) {
  for (uint32_t c = 0; c < S->count; c++) {
    const double *C = S->coll + 6 * c;
    if (ms_sym3_is_zero(C)) continue;
    uint32_t e = S->entry[c];
    ms__memcpy(M->ecoll + 6 * e, C, 6 * sizeof *C);
    S->stated = 1;
  }
  M->collective |= S->stated;
}

void ms__metaset_inertia(struct ms__metaset *M) {
  if (!M->collective) return;
#pragma omp parallel for schedule(static) if (M->count > MS__PAR_MIN_METAS)
  for (uint32_t k = 0; k < M->count; k++) {
    double *I = M->inertia + 6 * k;
    ms_sym3_scalar(I, M->mass[k]);
    M->coll[k] = 0;
    for (uint32_t e = M->eoff[k]; e < M->eoff[k + 1]; e++)
      if (!ms_sym3_is_zero(M->ecoll + 6 * e)) {
        ms_sym3_add(I, M->ecoll + 6 * e, 1.0);
        M->coll[k] += M->coll[k] < 2;
      }
  }
}

void ms__sysmetas_inertia(struct ms__sysmetas *S, const struct ms__metaset *M,
                          int use) {
  if (!M->collective) return;
  for (uint32_t c = 0; c < S->count; c++) {
    uint32_t e = S->entry[c], k = S->meta[c];
    const double *Mc = M->inertia + 6 * k, *C = M->ecoll + 6 * e;
    double *I = S->inertia + 6 * c, *W = M->eweight + 6 * e;
    /* what this system integrates with: Mc less its own statement */
    ms__memcpy(I, Mc, 6 * sizeof *I);
    ms_sym3_add(I, C, -1.0);
    S->mass[c] = M->mass[k] + (ms_sym3_trace(I) - 3.0 * M->mass[k]) / 3.0;
    /* the weight of its result in the sum: m_s + C_s (sync.c) */
    if (use == MS__INERTIA_OWN) {
      ms_sym3_scalar(W, M->emass[e]);
      ms_sym3_add(W, C, 1.0);
    } else if (use == MS__INERTIA_TENSOR) {
      ms__memcpy(W, Mc, 6 * sizeof *W);
    } else {
      ms_sym3_scalar(W, S->mass[c]);
      ms_sym3_add(W, C, 1.0);
    }
  }
}

void ms__sysmetas_own_mass(const struct ms__sysmetas *S,
                           struct ms__metaset *M) {
  for (uint32_t c = 0; c < S->count; c++) {
    uint32_t e = S->entry[c];
    M->ew[e] = M->emass[e] / M->mass[S->meta[c]];
  }
}

void ms__sysmetas_response(struct ms__sysmetas *S,
                           const struct ms__metaset *M) {
  for (uint32_t c = 0; c < S->count; c++) {
    uint32_t e = S->entry[c], k = S->meta[c];
    S->lead[c] = M->elead[e];
    ms__copy3(S->imp + 3 * c, M->eimp + 3 * e);
    ms__copy3(S->vsync + 3 * c, M->vfin + 3 * k);
    ms__copy3(S->dsync + 3 * c, M->disp + 3 * k);
  }
}

void ms__sysmetas_led(const struct ms__sysmetas *S, struct ms__metaset *M) {
  for (uint32_t c = 0; c < S->count; c++) {
    if (!S->lead[c]) continue;
    ms__copy3(M->vfin + 3 * S->meta[c], S->vsync + 3 * c);
    ms__copy3(M->disp + 3 * S->meta[c], S->dsync + 3 * c);
  }
}

/* The share of meta k's spin entry e takes: all of it alone or leading,
 * none when another leads, else in proportion to the trace of the
 * collective inertia each entry stated (none when no entry did). */
static double spin_share(const struct ms__metaset *M, uint32_t k,
                         uint32_t e) {
  uint32_t e0 = M->eoff[k], e1 = M->eoff[k + 1];
  if (e1 - e0 == 1) return 1.0;
  double all = 0.0;
  for (uint32_t f = e0; f < e1; f++) {
    if (M->elead[f]) return f == e ? 1.0 : 0.0;
    all += ms_sym3_trace(M->ecoll + 6 * f);
  }
  return all > 0.0 ? ms_sym3_trace(M->ecoll + 6 * e) / all : 0.0;
}

void ms__sysmetas_spin(struct ms__sysmetas *S, const struct ms__metaset *M) {
  for (uint32_t c = 0; c < S->count; c++) {
    uint32_t k = S->meta[c];
    double w = spin_share(M, k, S->entry[c]);
    for (int a = 0; a < 3; a++) S->spin[3 * c + a] = w * M->spin[3 * k + a];
  }
}
