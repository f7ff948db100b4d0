/* Bonds: creation, adjacency, the contact filter, fracture with the
 * compressive adjustment, undoing a step's breaks, compaction. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../plugins/peridynamics/peridynamics.h"
#include "suites.h"
#include "pdtest.h"

/* Brute-force neighbour lists (both directions) within r. */
static void lists(const double *x, size_t n, double r, uint32_t **off,
                  uint32_t **idx) {
  *off = calloc(n + 1, sizeof **off);
  *idx = malloc(n * n * sizeof **idx);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < n; j++) {
      double d = 0.0;
      for (int a = 0; a < 3; a++) d += pow(x[3 * j + a] - x[3 * i + a], 2);
      if (j != i && d < r * r) (*idx)[k++] = (uint32_t)j;
    }
    (*off)[i + 1] = (uint32_t)k;
  }
}

/* An s x s x s lattice of spacing h, bonded within 3 h (1 + 1e-6). */
static void lattice(struct pd_model *M, int s, double h) {
  uint32_t *off, *idx;
  memset(M, 0, sizeof *M);
  ck_assert_int_eq(pd_model_alloc(M, (size_t)(s * s * s)), 0);
  for (int i = 0, p = 0; i < s; i++)
    for (int j = 0; j < s; j++)
      for (int k = 0; k < s; k++, p++) {
        M->x[3 * p] = i * h, M->x[3 * p + 1] = j * h, M->x[3 * p + 2] = k * h;
        M->m[p] = 1.0, M->r[p] = 0.5 * h;
      }
  lists(M->x, M->n, 3.0 * h * (1.0 + 1e-6), &off, &idx);
  ck_assert_int_eq(pd_bonds_build(M, off, idx), 0);
  free(off);
  free(idx);
  M->mat.micro = 1.0, M->mat.volume = h * h * h;
  M->mat.s00 = 0.01, M->mat.alpha = 0.25, M->mat.breakable = 1;
}

/* Lattice points with i^2 + j^2 + k^2 <= 9, the centre excluded: 122. */
START_TEST(interior_particle_has_122_bonds) {
  struct pd_model M;
  lattice(&M, 7, 0.01);
  size_t centre = 3 * 49 + 3 * 7 + 3;
  ck_assert_uint_eq(M.nbonds[centre], 122);
  ck_assert_uint_eq(M.nbonds0[centre], 122);
  /* a corner sees the octant: (i, j, k) >= 0, i^2 + j^2 + k^2 <= 9 */
  size_t corner = 0, expect = 0;
  for (int i = 0; i <= 3; i++)
    for (int j = 0; j <= 3; j++)
      for (int k = 0; k <= 3; k++)
        expect += i * i + j * j + k * k <= 9 && (i || j || k);
  ck_assert_uint_eq(M.nbonds[corner], expect);
  /* every bond once, i < j, sorted; adjacency sorted and symmetric */
  size_t total = 0;
  for (size_t i = 0; i < M.n; i++) total += M.nbonds[i];
  ck_assert_uint_eq(total, 2 * M.bonds.count);
  for (size_t b = 0; b < M.bonds.count; b++) {
    ck_assert_uint_lt(M.bonds.pair[2 * b], M.bonds.pair[2 * b + 1]);
    if (b) ck_assert(M.bonds.pair[2 * b - 2] < M.bonds.pair[2 * b] ||
                     M.bonds.pair[2 * b - 1] < M.bonds.pair[2 * b + 1]);
  }
  for (size_t i = 0; i < M.n; i++)
    for (uint32_t e = M.adj_off[i]; e < M.adj_off[i + 1]; e++) {
      if (e > M.adj_off[i]) ck_assert_uint_lt(M.adj[e - 1], M.adj[e]);
      uint32_t b = M.adj_bond[e], j = M.adj[e];
      ck_assert((M.bonds.pair[2 * b] == i && M.bonds.pair[2 * b + 1] == j) ||
                (M.bonds.pair[2 * b] == j && M.bonds.pair[2 * b + 1] == i));
    }
  pd_model_free(&M);
}
END_TEST

/* Connected pairs are dropped, others kept; a broken bond collides. */
START_TEST(filter_drops_intact_bonds_only) {
  struct pd_model M;
  lattice(&M, 5, 0.01);
  uint32_t pairs[8] = {0, 1, 0, 124, 0, 3, 2, 3};
  uint8_t keep[4] = {1, 1, 1, 1};
  pd_filter_pairs(&M, pairs, 4, keep, 1);
  /* 0-1: neighbours; 0-124: opposite corners (no bond); 0-3: 3 h apart */
  ck_assert_uint_eq(keep[0], 0);
  ck_assert_uint_eq(keep[1], 1);
  ck_assert_uint_eq(keep[2], 0);
  ck_assert_uint_eq(keep[3], 0);
  M.bonds.broken[0] = 1; /* bond (0, 1): the first one */
  ck_assert_uint_eq(M.bonds.pair[1], 1);
  memset(keep, 1, sizeof keep);
  pd_filter_pairs(&M, pairs, 4, keep, 2);
  ck_assert_uint_eq(keep[0], 1);
  ck_assert_uint_eq(keep[2], 0);
  pd_model_free(&M);
}
END_TEST

/* A chain 3 - 0 - 1 - 2 (bonds 0-1, 1-2, 0-3 only): bond 0-1 stretched by
 * s, the outer bonds compressed by c.  The adjusted threshold of 0 and 1
 * is s00 + alpha c. */
static void chain(struct pd_model *M, double s, double c) {
  static const uint32_t off[5] = {0, 2, 4, 5, 6};
  static const uint32_t idx[6] = {1, 3, 0, 2, 1, 0};
  memset(M, 0, sizeof *M);
  ck_assert_int_eq(pd_model_alloc(M, 4), 0);
  const double X[4] = {0.0, 1.0, 2.0, -1.0};
  for (int p = 0; p < 4; p++) {
    M->x[3 * p] = X[p], M->x[3 * p + 1] = M->x[3 * p + 2] = 0.0;
    M->m[p] = 1.0, M->r[p] = 0.5;
  }
  ck_assert_int_eq(pd_bonds_build(M, off, idx), 0);
  ck_assert_uint_eq(M->bonds.count, 3);
  M->mat.s00 = 0.01, M->mat.alpha = 0.25, M->mat.breakable = 1;
  M->x[3] = 1.0 + s;              /* particle 1 */
  M->x[6] = M->x[3] + 1.0 - c;    /* particle 2 */
  M->x[9] = -1.0 + c;             /* particle 3 */
}

START_TEST(compression_raises_the_threshold) {
  struct pd_model M;
  struct pd_work W;
  size_t broke;
  pd_work_init(&W);
  /* uncompressed: breaks just above s00 */
  chain(&M, 0.0101, 0.0);
  ck_assert_int_eq(pd_begin(&M, &W), 0);
  ck_assert_int_eq(pd_fracture(&M, &W, 1, &broke), 0);
  ck_assert_uint_eq(broke, 1);
  ck_assert_uint_eq(M.bonds.broken[0], 1);
  pd_model_free(&M);
  /* compressed by 0.04: threshold 0.01 + 0.25 * 0.04 = 0.02 */
  chain(&M, 0.0199, 0.04);
  ck_assert_int_eq(pd_begin(&M, &W), 0);
  ck_assert_int_eq(pd_fracture(&M, &W, 1, &broke), 0);
  ck_assert_uint_eq(broke, 0);
  pd_model_free(&M);
  chain(&M, 0.0201, 0.04);
  ck_assert_int_eq(pd_begin(&M, &W), 0);
  ck_assert_int_eq(pd_fracture(&M, &W, 2, &broke), 0);
  ck_assert_uint_eq(broke, 1);
  ck_assert_uint_eq(M.bonds.broken[0], 1);
  ck_assert_uint_eq(M.nbonds[0], 1);
  ck_assert_uint_eq(M.nbonds[1], 1);
  ck_assert_rel(M.damage[0], 0.5, 1e-15, 0.0);
  /* unbreakable: nothing happens */
  pd_model_free(&M);
  chain(&M, 0.5, 0.0);
  M.mat.breakable = 0;
  ck_assert_int_eq(pd_begin(&M, &W), 0);
  ck_assert_int_eq(pd_fracture(&M, &W, 1, &broke), 0);
  ck_assert_uint_eq(broke, 0);
  pd_model_free(&M);
  pd_work_free(&W);
}
END_TEST

/* Pull the top half of a lattice away: the bonds crossing the cut break,
 * two pieces remain; unbreaking restores every counter bitwise; compaction
 * keeps the intact bonds and the damage. */
START_TEST(cut_unbreak_and_compact) {
  struct pd_model M;
  struct pd_work W;
  size_t broke;
  lattice(&M, 6, 0.01);
  pd_work_init(&W);
  ck_assert_int_eq(pd_begin(&M, &W), 0);
  size_t nb = M.bonds.count, n = M.n;
  uint8_t *br0 = malloc(nb);
  double *dmg0 = malloc(n * sizeof *dmg0);
  uint32_t *cnt0 = malloc(n * sizeof *cnt0);
  memcpy(br0, M.bonds.broken, nb);
  memcpy(dmg0, M.damage, n * sizeof *dmg0);
  memcpy(cnt0, M.nbonds, n * sizeof *cnt0);
  size_t crossing = 0;
  for (size_t b = 0; b < nb; b++)
    crossing += (M.x[3 * M.bonds.pair[2 * b]] < 0.025) !=
                (M.x[3 * M.bonds.pair[2 * b + 1]] < 0.025);
  for (size_t p = 0; p < n; p++)
    if (M.x[3 * p] > 0.025) M.x[3 * p] += 0.01; /* every s > 0.15 */
  ck_assert_int_eq(pd_fracture(&M, &W, 2, &broke), 0);
  ck_assert_uint_eq(broke, crossing);
  ck_assert_uint_eq(pd_broken_count(&M), crossing);
  ck_assert_uint_eq(pd_pieces(&M, NULL), 2);
  /* a rewind puts everything back */
  pd_rewind(&M, &W);
  ck_assert(!memcmp(br0, M.bonds.broken, nb));
  ck_assert(!memcmp(dmg0, M.damage, n * sizeof *dmg0));
  ck_assert(!memcmp(cnt0, M.nbonds, n * sizeof *cnt0));
  ck_assert_uint_eq(pd_pieces(&M, NULL), 1);
  /* break again, keep, compact */
  for (size_t p = 0; p < n; p++)
    if (M.x[3 * p] > 0.025) M.x[3 * p] += 0.01;
  ck_assert_int_eq(pd_begin(&M, &W), 0);
  ck_assert_int_eq(pd_fracture(&M, &W, 1, &broke), 0);
  memcpy(dmg0, M.damage, n * sizeof *dmg0);
  memcpy(cnt0, M.nbonds, n * sizeof *cnt0);
  uint64_t serial = M.serial;
  ck_assert_int_eq(pd_compact(&M), 0);
  ck_assert_uint_eq(M.bonds.count, nb - crossing);
  ck_assert_uint_gt(M.serial, serial);
  ck_assert(!memcmp(dmg0, M.damage, n * sizeof *dmg0));
  ck_assert(!memcmp(cnt0, M.nbonds, n * sizeof *cnt0));
  ck_assert_uint_eq(pd_pieces(&M, NULL), 2);
  ck_assert_uint_eq(pd_broken_count(&M), crossing);
  free(br0), free(dmg0), free(cnt0);
  pd_work_free(&W);
  pd_model_free(&M);
}
END_TEST

Suite *suite_bonds(void) {
  Suite *s = suite_create("bonds");
  TCase *tc = tcase_create("bonds");
  tcase_add_test(tc, interior_particle_has_122_bonds);
  tcase_add_test(tc, filter_drops_intact_bonds_only);
  tcase_add_test(tc, compression_raises_the_threshold);
  tcase_add_test(tc, cut_unbreak_and_compact);
  suite_add_tcase(s, tc);
  return s;
}
