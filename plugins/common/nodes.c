/* Node map: particles and meta-particles to the unknowns of a step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "implicit.h"
#include "grow.h"

/* Nodes: below, the walls run on one thread. */
#define MSI_PAR_MIN_NODES 2048

void msi_nodes_init(struct msi_nodes *N) { memset(N, 0, sizeof *N); }

void msi_nodes_free(struct msi_nodes *N) {
  free(N->node), free(N->mem_off), free(N->mem), free(N->mass);
  free(N->vel), free(N->meta_node), free(N->meta_of);
  memset(N, 0, sizeof *N);
}

static int reserve(struct msi_nodes *N, size_t np, size_t nmeta) {
  if (np > N->cap_np) {
    size_t c = np + 16;
    if (msi_grow((void **)&N->node, c, sizeof(int32_t)) ||
        msi_grow((void **)&N->mem_off, c + 1, sizeof(uint32_t)) ||
        msi_grow((void **)&N->mem, c, sizeof(uint32_t)) ||
        msi_grow((void **)&N->mass, c, sizeof(double)) ||
        msi_grow((void **)&N->vel, c, 3 * sizeof(double)) ||
        msi_grow((void **)&N->meta_of, c, sizeof(int32_t)))
      return MS_ENOMEM;
    N->cap_np = N->cap_nn = c;
  }
  if (nmeta > N->cap_meta) {
    size_t c = nmeta + nmeta / 2 + 16;
    if (msi_grow((void **)&N->meta_node, c, sizeof(int32_t))) return MS_ENOMEM;
    N->cap_meta = c;
  }
  return MS_OK;
}

enum { UNSEEN = -2, FIXED = -1 };

int msi_nodes_build(struct msi_nodes *N, size_t np, const double *mass,
                    const double *vel, const uint8_t *pinned,
                    const struct ms_metas *metas) {
  uint32_t nm = metas ? metas->count : 0;
  if (np >= INT32_MAX) return MS_EINVAL;
  if (reserve(N, np, nm)) return MS_ENOMEM;
  N->np = np;
  for (size_t p = 0; p < np; p++) N->meta_of[p] = -1;
  for (uint32_t k = 0; k < nm; k++) {
    int fixed = 0;
    for (uint32_t q = metas->member_offset[k]; q < metas->member_offset[k + 1];
         q++) {
      uint32_t p = metas->member[q];
      if (p >= np) return MS_EINVAL;
      N->meta_of[p] = (int32_t)k;
      fixed |= pinned && pinned[p];
    }
    N->meta_node[k] = fixed ? FIXED : UNSEEN;
  }
  int32_t nn = 0;
  for (size_t p = 0; p < np; p++) {
    int32_t k = N->meta_of[p];
    if (k >= 0) {
      if (N->meta_node[k] == UNSEEN) {
        N->meta_node[k] = nn;
        N->mass[nn] = metas->mass[k];
        memcpy(N->vel + 3 * nn, metas->velocity + 3 * (size_t)k,
               3 * sizeof(double));
        nn++;
      }
      N->node[p] = N->meta_node[k];
    } else if (pinned && pinned[p]) {
      N->node[p] = FIXED;
    } else {
      N->node[p] = nn;
      N->mass[nn] = mass[p];
      memcpy(N->vel + 3 * nn, vel + 3 * p, 3 * sizeof(double));
      nn++;
    }
  }
  N->nn = (size_t)nn;
  /* members, ascending within each node */
  memset(N->mem_off, 0, (N->nn + 1) * sizeof *N->mem_off);
  for (size_t p = 0; p < np; p++)
    if (N->node[p] >= 0) N->mem_off[N->node[p] + 1]++;
  for (size_t J = 0; J < N->nn; J++) N->mem_off[J + 1] += N->mem_off[J];
  for (size_t p = 0; p < np; p++)
    if (N->node[p] >= 0) {
      /* mem_off[J] is used as a cursor, then restored below */
      N->mem[N->mem_off[N->node[p]]++] = (uint32_t)p;
    }
  for (size_t J = N->nn; J > 0; J--) N->mem_off[J] = N->mem_off[J - 1];
  N->mem_off[0] = 0;
  return MS_OK;
}

void msi_walls(const struct msi_nodes *N, const struct msi_box *box,
               const double *x, const double *r, double *U, double *V,
               uint8_t *hit, int threads) {
  const double *blo = box->lo, *bhi = box->hi;
#pragma omp parallel for schedule(static) num_threads(threads) \
    if (N->nn > MSI_PAR_MIN_NODES)
  for (size_t J = 0; J < N->nn; J++) {
    double *u = U + 3 * J, *v = V + 3 * J;
    int touched = 0;
    for (int a = 0; a < 3; a++) {
      if (isinf(blo[a]) && isinf(bhi[a])) continue;
      double lo = -INFINITY, hi = INFINITY;
      for (uint32_t q = N->mem_off[J]; q < N->mem_off[J + 1]; q++) {
        size_t p = N->mem[q];
        lo = fmax(lo, blo[a] + r[p] - x[3 * p + a]);
        hi = fmin(hi, bhi[a] - r[p] - x[3 * p + a]);
      }
      int side = u[a] < lo ? -1 : u[a] > hi ? 1 : 0;
      if (!side) continue;
      u[a] = side < 0 ? lo : hi;
      if (side * v[a] > 0.0) v[a] = -box->restitution * v[a];
      for (int b = 0; b < 3; b++)
        if (b != a) v[b] *= 1.0 - box->friction;
      touched = 1;
    }
    hit[J] = (uint8_t)touched;
  }
}
