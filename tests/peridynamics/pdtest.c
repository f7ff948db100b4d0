/* Helpers of the peridynamics tests. */
#include "pdtest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void pdt_bonds_init(struct pdt_bonds *B, struct ms__system *y,
                    double horizon) {
  size_t n = y->view.count, cap = 1024;
  double lim = horizon * (1.0 + 1e-6);
  memset(B, 0, sizeof *B);
  B->n = n;
  B->pair = malloc(2 * cap * sizeof *B->pair);
  ck_assert_ptr_nonnull(B->pair);
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      const double *a = ms__at(&y->x, i), *b = ms__at(&y->x, j);
      double d0 = b[0] - a[0], d1 = b[1] - a[1], d2 = b[2] - a[2];
      if (d0 * d0 + d1 * d1 + d2 * d2 > lim * lim) continue;
      if (B->count == cap) {
        cap *= 2;
        B->pair = realloc(B->pair, 2 * cap * sizeof *B->pair);
        ck_assert_ptr_nonnull(B->pair);
      }
      B->pair[2 * B->count] = (uint32_t)i;
      B->pair[2 * B->count + 1] = (uint32_t)j;
      B->count++;
    }
  B->intact = malloc(B->count ? B->count : 1);
  ck_assert_ptr_nonnull(B->intact);
}

void pdt_bonds_free(struct pdt_bonds *B) {
  free(B->pair);
  free(B->intact);
  memset(B, 0, sizeof *B);
}

size_t pdt_observe(struct pdt_bonds *B, struct ms__system *y) {
  uint8_t *keep = malloc(B->count ? B->count : 1);
  ck_assert_ptr_nonnull(keep);
  memset(keep, 1, B->count);
  ck_assert_int_eq(y->plugin->desc.filter_pairs(y->inst, B->pair, B->count,
                                                keep),
                   0);
  size_t broken = 0;
  for (size_t k = 0; k < B->count; k++) {
    B->intact[k] = keep[k] == 0;
    broken += keep[k] != 0;
  }
  free(keep);
  return broken;
}

static uint32_t root(uint32_t *up, uint32_t i) {
  while (up[i] != i) i = up[i] = up[up[i]];
  return i;
}

size_t pdt_pieces(const struct pdt_bonds *B, uint32_t *label) {
  uint32_t *up = malloc((B->n ? B->n : 1) * sizeof *up);
  ck_assert_ptr_nonnull(up);
  for (size_t i = 0; i < B->n; i++) up[i] = (uint32_t)i;
  for (size_t k = 0; k < B->count; k++) {
    if (!B->intact[k]) continue;
    uint32_t a = root(up, B->pair[2 * k]), b = root(up, B->pair[2 * k + 1]);
    if (a != b) up[a > b ? a : b] = a < b ? a : b;
  }
  size_t pieces = 0;
  for (size_t i = 0; i < B->n; i++) {
    uint32_t r = root(up, (uint32_t)i);
    if (r == i) {
      if (label) label[i] = (uint32_t)pieces;
      pieces++;
    } else if (label) {
      label[i] = label[r];
    }
  }
  free(up);
  return pieces;
}

double pdt_stat(const struct ms__system *y, const char *name) {
  for (size_t i = 0; i < y->ctx.nstats; i++)
    if (!strcmp(y->ctx.stats[i].name, name)) return y->ctx.stats[i].value;
  return 0.0;
}

const struct ms_field *pdt_field(const struct ms__system *y,
                                 const char *name) {
  for (uint32_t f = 0; f < y->view.field_count; f++)
    if (!strcmp(y->view.fields[f].name, name)) return &y->view.fields[f];
  return NULL;
}

/* Height of triangle (a, b, c) over the x-z point p, or NAN if outside. */
static double tri_height(const double *a, const double *b, const double *c,
                         const double *p) {
  double d = (b[2] - c[2]) * (a[0] - c[0]) + (c[0] - b[0]) * (a[2] - c[2]);
  if (d == 0.0) return NAN;
  double px = p[0] - c[0], pz = p[2] - c[2];
  double l1 = ((b[2] - c[2]) * px + (c[0] - b[0]) * pz) / d;
  double l2 = ((c[2] - a[2]) * px + (a[0] - c[0]) * pz) / d;
  double l3 = 1.0 - l1 - l2;
  if (l1 < -1e-12 || l2 < -1e-12 || l3 < -1e-12) return NAN;
  return l1 * a[1] + l2 * b[1] + l3 * c[1];
}

void pdt_cloth_sides(struct ms__system *c, uint32_t nu, uint32_t nv,
                     struct ms__system *o, int8_t *side) {
  ck_assert_uint_eq(c->view.count, (size_t)nu * nv);
  for (size_t p = 0; p < o->view.count; p++) {
    const double *x = ms__at(&o->x, p);
    side[p] = 0;
    for (uint32_t b = 0; b + 1 < nv && !side[p]; b++)
      for (uint32_t a = 0; a + 1 < nu && !side[p]; a++) {
        const double *q00 = ms__at(&c->x, (size_t)b * nu + a);
        const double *q10 = ms__at(&c->x, (size_t)b * nu + a + 1);
        const double *q01 = ms__at(&c->x, (size_t)(b + 1) * nu + a);
        const double *q11 = ms__at(&c->x, (size_t)(b + 1) * nu + a + 1);
        double y = tri_height(q00, q10, q11, x);
        if (isnan(y)) y = tri_height(q00, q11, q01, x);
        if (!isnan(y)) side[p] = x[1] > y ? 1 : -1;
      }
  }
}
