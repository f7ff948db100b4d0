/* Neighbour lists on the detection grid: count, prefix-sum, fill. */
#include "../base/base.h"
#include "detection.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/status.h>


struct nbstore {
  struct ms__grid grid;
  uint32_t *offset, *index;
  size_t cap_off, cap_idx;
};

/* Visit the neighbours of slot s in the 3x3 rows of cells around it; each
 * row of three cells is one contiguous slot range (z-fastest numbering).
 * With out == NULL only counts. */
static uint32_t visit(const struct ms__grid *g, uint32_t s, double r2,
                      uint32_t *out) {
  uint32_t d1 = g->dim[1], d2 = g->dim[2];
  uint32_t m = 0;
  double x = g->sx[s], y = g->sy[s], z = g->sz[s];
  uint32_t ix = (uint32_t)fmin((x - g->lo[0]) * g->inv_cell, g->dim[0] - 1);
  uint32_t iy = (uint32_t)fmin((y - g->lo[1]) * g->inv_cell, d1 - 1);
  uint32_t iz = (uint32_t)fmin((z - g->lo[2]) * g->inv_cell, d2 - 1);
  uint32_t zlo = iz > 0 ? iz - 1 : 0, zhi = iz + 1 < d2 ? iz + 1 : iz;
  for (int dx = -1; dx <= 1; dx++) {
    int64_t jx = (int64_t)ix + dx;
    if (jx < 0 || jx >= g->dim[0]) continue;
    for (int dy = -1; dy <= 1; dy++) {
      int64_t jy = (int64_t)iy + dy;
      if (jy < 0 || jy >= d1) continue;
      uint32_t row = ((uint32_t)jx * d1 + (uint32_t)jy) * d2;
      uint32_t a = g->cell_start[row + zlo], b = g->cell_start[row + zhi + 1];
      for (uint32_t t = a; t < b; t++) {
        double ex = g->sx[t] - x, ey = g->sy[t] - y, ez = g->sz[t] - z;
        if (t != s && ex * ex + ey * ey + ez * ez < r2) {
          if (out) out[m] = g->order[t];
          m++;
        }
      }
    }
  }
  return m;
}

int ms__neighbors_build(const double *xyz, size_t stride, size_t count,
                        double radius, struct ms_neighbors *nb) {
  struct nbstore *st = nb->priv;
  if (!(radius > 0.0) || !isfinite(radius) || count >= UINT32_MAX)
    return MS_EINVAL;
  if (!st) {
    if (!(st = calloc(1, sizeof *st))) return MS_ENOMEM;
    nb->priv = st;
  }
  size_t bad;
  int rc = ms__grid_build(&st->grid, xyz, stride, count, NULL, radius, NULL,
                          NULL, &bad);
  if (rc) return rc;
  if (count + 1 > st->cap_off) {
    if (ms__grow((void **)&st->offset, count + 1, sizeof(uint32_t)))
      return MS_ENOMEM;
    st->cap_off = count + 1;
  }
  const struct ms__grid *g = &st->grid;
  double r2 = radius * radius;
  /* Rows are stored in input order; neighbours of a point in grid order
   * (deterministic, independent of the thread count). */
#pragma omp parallel for schedule(dynamic, 1024) if (count > MS__PAR_MIN)
  for (size_t s = 0; s < count; s++)
    st->offset[g->order[s] + 1] = visit(g, (uint32_t)s, r2, NULL);
  st->offset[0] = 0;
  for (size_t i = 0; i < count; i++) {
    uint64_t next = (uint64_t)st->offset[i] + st->offset[i + 1];
    if (next > UINT32_MAX) return MS_ENOMEM;
    st->offset[i + 1] = (uint32_t)next;
  }
  size_t total = st->offset[count];
  if (total > st->cap_idx) {
    size_t c = total + total / 4 + 16;
    if (ms__grow((void **)&st->index, c, sizeof(uint32_t))) return MS_ENOMEM;
    st->cap_idx = c;
  }
#pragma omp parallel for schedule(dynamic, 1024) if (count > MS__PAR_MIN)
  for (size_t s = 0; s < count; s++)
    visit(g, (uint32_t)s, r2, st->index + st->offset[g->order[s]]);
  nb->count = count;
  nb->offset = st->offset;
  nb->index = st->index;
  return MS_OK;
}

void ms__neighbors_release(struct ms_neighbors *nb) {
  struct nbstore *st = nb->priv;
  if (st) {
    ms__grid_free(&st->grid);
    free(st->offset);
    free(st->index);
    free(st);
  }
  ms__memset(nb, 0, sizeof *nb);
}
