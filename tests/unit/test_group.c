/* Grouping: size limits, merge order, determinism. */
#include <check.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/detection/detection.h"
#include "../../core/coupling/coupling.h"
#include "testutil.h"

/* A dense random contact graph from a point cloud. */
static struct ms__detect make_pairs(size_t n, uint64_t seed, double **xout) {
  struct ms__rng g;
  double *x = malloc(3 * n * sizeof *x), *r = malloc(n * sizeof *r);
  ms__rng_seed(&g, seed, 0, 0);
  for (size_t i = 0; i < n; i++) {
    t_vec(&g, 1.0, x + 3 * i);
    r[i] = 0.06;
  }
  struct ms__detect d;
  ms__detect_init(&d);
  struct ms__detect_input in = {n, x, r, NULL, NULL, 0.0, 0.0};
  size_t bad;
  ck_assert_int_eq(ms__detect_pairs(&d, &in, &bad), 0);
  free(r);
  *xout = x;
  return d;
}

static int cmp_pair(const void *x, const void *y) {
  const uint32_t *p = x, *q = y;
  return p[0] != q[0] ? (p[0] > q[0]) - (p[0] < q[0])
                      : (p[1] > q[1]) - (p[1] < q[1]);
}

/* pairs sorted with cmp_pair (detection reports i < j) */
static int adjacent(const struct ms__detect *d, uint32_t a, uint32_t b) {
  uint32_t key[2] = {a < b ? a : b, a < b ? b : a};
  return bsearch(key, d->pairs, d->npairs, 2 * sizeof(uint32_t), cmp_pair) !=
         NULL;
}

START_TEST(limits_and_structure) {
  size_t n = 4000;
  double *x;
  struct ms__detect d = make_pairs(n, 3, &x);
  ck_assert_uint_gt(d.npairs, 5000);
  struct ms__groups G = {0};
  struct ms__rng rng;
  ms__rng_seed(&rng, 1, 0, 0);
  ck_assert_int_eq(ms__group(&G, n, d.pairs, d.npairs, 8, 12, 0, &rng), 0);
  qsort(d.pairs, d.npairs, 2 * sizeof(uint32_t), cmp_pair);
  ck_assert_uint_gt(G.count, 50);
  uint8_t *seen = calloc(n, 1);
  int at_max = 0;
  for (uint32_t k = 0; k < G.count; k++) {
    uint32_t o = G.offset[k], K = G.offset[k + 1] - o;
    ck_assert_uint_ge(K, 2);
    ck_assert_uint_le(K, 12);
    at_max += K == 12;
    /* the seed is the lowest unassigned index: smaller than every member */
    for (uint32_t q = o; q < o + K; q++) {
      uint32_t p = G.member[q];
      ck_assert_msg(!seen[p], "particle %u in two groups", p);
      seen[p] = 1;
      ck_assert_uint_ge(p, G.member[o]);
      /* each added member touches an earlier member (breadth-first) */
      int linked = q == o;
      for (uint32_t e = o; !linked && e < q; e++)
        linked = adjacent(&d, G.member[e], p);
      ck_assert_msg(linked, "member %u not connected to its group", p);
    }
  }
  ck_assert_int_gt(at_max, 5);
  free(seen);
  free(x);
  ms__groups_free(&G);
  ms__detect_free(&d);
}
END_TEST

START_TEST(unlimited_groups_are_components) {
  /* a chain 0-1-2-...-99 and an isolated pair (200, 201) */
  uint32_t pairs[2 * 100];
  size_t np = 0;
  for (uint32_t i = 0; i + 1 < 100; i++, np++) pairs[2 * np] = i, pairs[2 * np + 1] = i + 1;
  pairs[2 * np] = 200, pairs[2 * np + 1] = 201, np++;
  struct ms__groups G = {0};
  struct ms__rng rng;
  ms__rng_seed(&rng, 1, 0, 0);
  ck_assert_int_eq(ms__group(&G, 300, pairs, np, 0, 0, 0, &rng), 0);
  ck_assert_uint_eq(G.count, 2);
  ck_assert_uint_eq(G.offset[1], 100);
  ck_assert_uint_eq(G.offset[2], 102);
  for (uint32_t q = 0; q < 100; q++) ck_assert_uint_eq(G.member[q], q);
  ms__groups_free(&G);
}
END_TEST

static int same_groups(const struct ms__groups *a, const struct ms__groups *b) {
  return a->count == b->count &&
         !memcmp(a->offset, b->offset, (a->count + 1) * sizeof(uint32_t)) &&
         !memcmp(a->member, b->member, a->offset[a->count] * sizeof(uint32_t));
}

START_TEST(deterministic_for_threads_and_seed) {
  size_t n = 20000;
  double *x;
  int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  struct ms__detect d1 = make_pairs(n, 8, &x);
  free(x);
  omp_set_num_threads(2);
  struct ms__detect d2 = make_pairs(n, 8, &x);
  free(x);
  omp_set_num_threads(saved);
  struct ms__groups G1 = {0}, G2 = {0}, G3 = {0};
  struct ms__rng r1, r2, r3;
  ms__rng_seed(&r1, 77, 5, 1);
  ms__rng_seed(&r2, 77, 5, 1);
  ms__rng_seed(&r3, 78, 5, 1);
  ms__group(&G1, n, d1.pairs, d1.npairs, 8, 64, 0, &r1);
  ms__group(&G2, n, d2.pairs, d2.npairs, 8, 64, 0, &r2);
  ms__group(&G3, n, d1.pairs, d1.npairs, 8, 64, 0, &r3);
  ck_assert_uint_gt(G1.count, 100);
  ck_assert(same_groups(&G1, &G2));  /* 1 vs 2 threads, same seed */
  ck_assert(!same_groups(&G1, &G3)); /* another seed draws other limits */
  ms__groups_free(&G1), ms__groups_free(&G2), ms__groups_free(&G3);
  ms__detect_free(&d1), ms__detect_free(&d2);
}
END_TEST

/* Grouping with the draws of seed 77, step 5, stage 1: per group or in
 * sequence. */
static void draws_77(struct ms__groups *g, struct ms__rng *r, int per_group) {
  g->per_group = per_group;
  g->key[0] = 77, g->key[1] = 5, g->key[2] = 1;
  ms__rng_seed(r, 77, 5, 1);
}

/* Graphs a (even ids) and b (odd ids) interleaved into one: grouped
 * together, and each alone, with draws of the given kind; 1 when every
 * group of the whole is, member for member, a group of a or of b alone. */
static int components_alone(int per_group, size_t *ngroups) {
  size_t n = 3000;
  double *x;
  struct ms__detect da = make_pairs(n, 11, &x);
  free(x);
  struct ms__detect db = make_pairs(n, 12, &x);
  free(x);
  size_t na = da.npairs, nb = db.npairs;
  uint32_t *all = malloc(2 * (na + nb) * sizeof *all);
  uint32_t *pa = all, *pb = all + 2 * na;
  for (size_t k = 0; k < 2 * na; k++) pa[k] = 2 * da.pairs[k];
  for (size_t k = 0; k < 2 * nb; k++) pb[k] = 2 * db.pairs[k] + 1;
  struct ms__groups W = {0}, A = {0}, B = {0};
  struct ms__groups *g[3] = {&W, &A, &B};
  struct ms__rng r[3];
  for (int i = 0; i < 3; i++) draws_77(g[i], &r[i], per_group);
  ck_assert_int_eq(ms__group(&W, 2 * n, all, na + nb, 8, 64, 0, &r[0]), 0);
  ck_assert_int_eq(ms__group(&A, 2 * n, pa, na, 8, 64, 0, &r[1]), 0);
  ck_assert_int_eq(ms__group(&B, 2 * n, pb, nb, 8, 64, 0, &r[2]), 0);
  *ngroups = W.count;
  int same = W.count == A.count + B.count;
  for (uint32_t k = 0; same && k < W.count; k++) {
    const uint32_t *m = W.member + W.offset[k];
    uint32_t K = W.offset[k + 1] - W.offset[k];
    const struct ms__groups *h = m[0] % 2 ? &B : &A;
    uint32_t j = h->mark[m[0]]; /* the group m[0] is in, there */
    same = j != UINT32_MAX && h->offset[j + 1] - h->offset[j] == K &&
           !memcmp(h->member + h->offset[j], m, K * sizeof *m);
  }
  free(all);
  ms__groups_free(&W), ms__groups_free(&A), ms__groups_free(&B);
  ms__detect_free(&da), ms__detect_free(&db);
  return same;
}

/* coupling.group_draws = "per_group": a component is grouped as it would
 * be alone (what a run divided over ranks needs); the sequence of draws
 * of "sequence" does not give that. */
START_TEST(per_group_draws_group_components_alone) {
  size_t ng;
  ck_assert_msg(components_alone(1, &ng), "per_group: a component's groups "
                "depend on the rest of the graph");
  ck_assert_uint_gt(ng, 100);
  ck_assert_msg(!components_alone(0, &ng), "sequence: the components were "
                "grouped as alone (the test would not see a difference)");
}
END_TEST

/* A piece of the scene, indexed compactly, grouped with the whole scene's
 * ids in the draws' keys (G->id, doc/distributed.md section 5): the groups
 * of the whole, member for member; without the ids, other limits. */
static int piece_as_whole(int with_ids, size_t *ngroups) {
  size_t n = 3000;
  double *x;
  struct ms__detect da = make_pairs(n, 11, &x);
  free(x);
  size_t np = da.npairs;
  uint32_t *spread = malloc(2 * np * sizeof *spread);
  uint32_t *id = malloc(n * sizeof *id);
  for (size_t k = 0; k < 2 * np; k++) spread[k] = 2 * da.pairs[k];
  for (size_t k = 0; k < n; k++) id[k] = (uint32_t)(2 * k);
  struct ms__groups W = {0}, P = {0};
  struct ms__rng r[2];
  draws_77(&W, &r[0], 1);
  draws_77(&P, &r[1], 1);
  P.id = with_ids ? id : NULL;
  ck_assert_int_eq(ms__group(&W, 2 * n, spread, np, 8, 64, 0, &r[0]), 0);
  ck_assert_int_eq(ms__group(&P, n, da.pairs, np, 8, 64, 0, &r[1]), 0);
  *ngroups = W.count;
  int same = W.count == P.count;
  for (uint32_t q = 0; same && q < W.offset[W.count]; q++)
    same = W.member[q] == 2 * P.member[q] && W.offset[W.mark[W.member[q]]] ==
                                                P.offset[P.mark[P.member[q]]];
  free(spread), free(id);
  ms__groups_free(&W), ms__groups_free(&P);
  ms__detect_free(&da);
  return same;
}

START_TEST(per_group_draws_follow_the_ids) {
  size_t ng;
  ck_assert_msg(piece_as_whole(1, &ng), "a piece grouped with the whole's "
                "ids differs from the whole");
  ck_assert_uint_gt(ng, 100);
  ck_assert_msg(!piece_as_whole(0, &ng), "without the ids the piece drew "
                "the whole's limits (the test would not see the ids)");
}
END_TEST

Suite *suite_group(void) {
  Suite *s = suite_create("group");
  TCase *tc = tcase_create("grouping");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, limits_and_structure);
  tcase_add_test(tc, unlimited_groups_are_components);
  tcase_add_test(tc, deterministic_for_threads_and_seed);
  tcase_add_test(tc, per_group_draws_group_components_alone);
  tcase_add_test(tc, per_group_draws_follow_the_ids);
  suite_add_tcase(s, tc);
  return s;
}
