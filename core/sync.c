/* Velocity synchronisation across systems (paper Eqs. 17-19). */
#include "parallel.h"
#include "sync.h"

#include "metas.h"

#include "vec3.h"

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

void ms__metaset_sync(struct ms__metaset *M, double dt,
                      struct ms__ledger *L) {
#pragma omp parallel for schedule(static) if (M->count > MS__PAR_MIN_METAS)
  for (uint32_t k = 0; k < M->count; k++) {
    uint32_t e0 = M->eoff[k], ne = M->eoff[k + 1] - e0;
    uint8_t con = 0;
    for (uint32_t e = e0; e < e0 + ne; e++)
      if (M->econ[e] > con) con = M->econ[e];
    M->dek[k] = 0.0;
    if (ne == 1) { /* one system: its own result stands */
      ms__copy3(M->vfin + 3 * k, M->evel + 3 * e0);
      ms__copy3(M->disp + 3 * k, M->edisp + 3 * e0);
    } else if (con) {
      constrained_result(M, e0, ne, con, M->vfin + 3 * k, M->disp + 3 * k);
    } else {
      M->dek[k] = ms__sync(ne, M->emass + e0, M->evel + 3 * e0,
                           M->vfin + 3 * k);
      for (int a = 0; a < 3; a++) M->disp[3 * k + a] = dt * M->vfin[3 * k + a];
    }
  }
  double stored = 0.0; /* summed in meta order: thread-count independent */
  for (uint32_t k = 0; k < M->count; k++) stored += M->dek[k];
  L->stored += stored;
}
