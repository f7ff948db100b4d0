/* Collision detection against brute force, and thread-count independence. */
#include <check.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/detection/detection.h"
#include "testutil.h"

struct cloud {
  size_t n;
  double *x, *r;
  uint32_t *sys;
};

static struct cloud make_cloud(uint64_t seed, size_t n, double box) {
  struct ms__rng g;
  struct cloud c = {n, malloc(3 * n * sizeof(double)), malloc(n * sizeof(double)),
                    malloc(n * sizeof(uint32_t))};
  ms__rng_seed(&g, seed, 0, 0);
  for (size_t i = 0; i < n; i++) {
    t_vec(&g, box, c.x + 3 * i);
    /* mixed radii over two orders of magnitude */
    c.r[i] = 0.02 * exp(t_uniform(&g, -2.3, 2.3));
    c.sys[i] = (uint32_t)ms__rng_range(&g, 0, 2);
  }
  /* some exact coincidences and exact-contact pairs */
  memcpy(c.x + 3, c.x, 3 * sizeof(double));
  c.x[6] = c.x[9] + c.r[2] + c.r[3];
  c.x[7] = c.x[10];
  c.x[8] = c.x[11];
  return c;
}

static void free_cloud(struct cloud *c) {
  free(c->x), free(c->r), free(c->sys);
}

static int cmp_pair(const void *a, const void *b) {
  const uint32_t *p = a, *q = b;
  return p[0] != q[0] ? (p[0] > q[0]) - (p[0] < q[0])
                      : (p[1] > q[1]) - (p[1] < q[1]);
}

/* Brute force with the same predicate: |x_j - x_i|^2 < (r_i + r_j + s)^2 */
static size_t brute(const struct cloud *c, double skin, const uint8_t *self,
                    uint32_t **out) {
  size_t m = 0, cap = 1024;
  uint32_t *p = malloc(2 * cap * sizeof *p);
  for (size_t i = 0; i < c->n; i++)
    for (size_t j = i + 1; j < c->n; j++) {
      double dx = c->x[3 * j] - c->x[3 * i], dy = c->x[3 * j + 1] - c->x[3 * i + 1];
      double dz = c->x[3 * j + 2] - c->x[3 * i + 2], t = c->r[i] + c->r[j] + skin;
      if (!(dx * dx + dy * dy + dz * dz < t * t)) continue;
      if (self && c->sys[i] == c->sys[j] && !self[c->sys[i]]) continue;
      if (m == cap) p = realloc(p, 2 * (cap *= 2) * sizeof *p);
      p[2 * m] = (uint32_t)i;
      p[2 * m + 1] = (uint32_t)j;
      m++;
    }
  *out = p;
  return m;
}

/* layered: a dense 0.3 m box of near-equal radii where system 1 fills
 * x < 0.18 (whole cells of it, as a fluid's bulk), with a few grains of
 * system 0 inside; systems 0 and 2 share the rest. */
static void check_against_brute(uint64_t seed, double skin, const uint8_t *self,
                                int layered) {
  struct cloud c = make_cloud(seed, 3000, layered ? 0.3 : 1.0);
  for (size_t i = 0; layered && i < c.n; i++) {
    c.r[i] = 0.01 + 0.001 * (double)(i % 7);
    c.sys[i] = c.x[3 * i] < 0.18 ? (i % 97 ? 1u : 0u) : (uint32_t)(i % 2) * 2u;
  }
  uint32_t *ref;
  size_t nref = brute(&c, skin, self, &ref);
  ck_assert_uint_gt(nref, 100);
  /* one round of the search, and rounds of 64 drivers (two blocks) */
  for (size_t round = 0; round <= 64; round += 64) {
    struct ms__detect d;
    ms__detect_init(&d);
    d.round_drivers = round;
    struct ms__detect_input in = {c.n, c.x, c.r, c.sys, self, skin, 0.0};
    size_t bad;
    ck_assert_int_eq(ms__detect_pairs(&d, &in, &bad), 0);
    ck_assert_uint_eq(d.npairs, nref);
    qsort(d.pairs, d.npairs, 2 * sizeof(uint32_t), cmp_pair);
    ck_assert(memcmp(d.pairs, ref, 2 * nref * sizeof(uint32_t)) == 0);
    /* the fluid's points did not drive a scan: the skipping was tried */
    ck_assert(!layered || (d.bulk == 1u && d.ndrivers + 1000 < c.n));
    ms__detect_free(&d);
  }
  free(ref);
  free_cloud(&c);
}

START_TEST(exact_pair_set) { check_against_brute(11, 0.0, NULL, 0); }
END_TEST

START_TEST(exact_pair_set_with_skin) { check_against_brute(12, 0.013, NULL, 0); }
END_TEST

START_TEST(self_collision_filter) {
  const uint8_t self[3] = {1, 0, 1}; /* system 1 is a fluid */
  check_against_brute(13, 0.0, self, 0);
}
END_TEST

/* Cells holding only the fluid skip their own pairs wholesale: the pairs
 * at the fluid's border and around the grains inside it must stay. */
START_TEST(fluid_bulk_keeps_its_border_pairs) {
  const uint8_t self[3] = {1, 0, 1};
  check_against_brute(14, 0.0, self, 1);
  check_against_brute(15, 0.013, self, 1);
}
END_TEST

/* 1 thread: one round, the serial counting sort; 2 threads: rounds of 1000
 * drivers and the parallel sort (over 32768 points): the same list. */
START_TEST(same_order_for_any_thread_count) {
  struct cloud c = make_cloud(21, 40000, 3.0);
  struct ms__detect d1, d2;
  ms__detect_init(&d1);
  ms__detect_init(&d2);
  d2.round_drivers = 1000;
  struct ms__detect_input in = {c.n, c.x, c.r, c.sys, NULL, 0.0, 0.0};
  size_t bad;
  int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  ck_assert_int_eq(ms__detect_pairs(&d1, &in, &bad), 0);
  omp_set_num_threads(2);
  ck_assert_int_eq(ms__detect_pairs(&d2, &in, &bad), 0);
  omp_set_num_threads(saved);
  ck_assert_uint_gt(d1.npairs, 1000);
  ck_assert_uint_eq(d1.npairs, d2.npairs);
  ck_assert(memcmp(d1.pairs, d2.pairs, 2 * d1.npairs * sizeof(uint32_t)) == 0);
  ck_assert(memcmp(d1.grid.order, d2.grid.order, c.n * sizeof(uint32_t)) == 0);
  ms__detect_free(&d1);
  ms__detect_free(&d2);
  free_cloud(&c);
}
END_TEST

/* Called from inside a parallel region (a plugin's, say) where nesting is
 * off: the parallel sort gets a team of one, not the threads it asked
 * for, and must still sort every point. */
START_TEST(nested_call_gives_the_same_list) {
  struct cloud c = make_cloud(22, 40000, 3.0);
  struct ms__detect d1, d2;
  ms__detect_init(&d1);
  ms__detect_init(&d2);
  struct ms__detect_input in = {c.n, c.x, c.r, c.sys, NULL, 0.0, 0.0};
  size_t bad;
  int saved = omp_get_max_threads(), levels = omp_get_max_active_levels();
  omp_set_num_threads(2);
  ck_assert_int_eq(ms__detect_pairs(&d1, &in, &bad), 0);
  omp_set_max_active_levels(1);
  int rc = -1;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    rc = ms__detect_pairs(&d2, &in, &bad);
  }
  omp_set_max_active_levels(levels);
  omp_set_num_threads(saved);
  ck_assert_int_eq(rc, 0);
  ck_assert_uint_gt(d1.npairs, 1000);
  ck_assert_uint_eq(d1.npairs, d2.npairs);
  ck_assert(memcmp(d1.pairs, d2.pairs, 2 * d1.npairs * sizeof(uint32_t)) == 0);
  ms__detect_free(&d1);
  ms__detect_free(&d2);
  free_cloud(&c);
}
END_TEST

START_TEST(non_finite_input_refused) {
  struct cloud c = make_cloud(31, 100, 1.0);
  c.x[3 * 57 + 1] = NAN;
  struct ms__detect d;
  ms__detect_init(&d);
  struct ms__detect_input in = {c.n, c.x, c.r, NULL, NULL, 0.0, 0.0};
  size_t bad = 0;
  ck_assert_int_eq(ms__detect_pairs(&d, &in, &bad), MS_EINVAL);
  ck_assert_uint_eq(bad, 57);
  ms__detect_free(&d);
  free_cloud(&c);
}
END_TEST

/* Finite points as far apart as doubles go (a damaged checkpoint, a
 * solver gone astray): the box's width overflows to infinity.  The grids
 * must still end, and find exactly the pairs and neighbours brute force
 * finds. */
START_TEST(extreme_coordinates_give_the_exact_pairs) {
  struct cloud c = make_cloud(33, 500, 1.0);
  const double far[4][3] = {{1.7e308, 0, 0}, {-1.7e308, 0, 0},
                            {0, -1.7e308, 1e308}, {1.7e308, 1.7e308, -1.7e308}};
  for (int k = 0; k < 4; k++) memcpy(c.x + 3 * (100 + 7 * k), far[k],
                                     sizeof far[k]);
  memcpy(c.x + 3 * 200, far[0], sizeof far[0]); /* a pair out there */
  struct ms__detect d;
  ms__detect_init(&d);
  struct ms__detect_input in = {c.n, c.x, c.r, c.sys, NULL, 0.0, 0.0};
  size_t bad = 0;
  ck_assert_int_eq(ms__detect_pairs(&d, &in, &bad), 0);
  uint32_t *ref;
  size_t nref = brute(&c, 0.0, NULL, &ref);
  ck_assert_uint_gt(nref, 10);
  ck_assert_uint_eq(d.npairs, nref);
  qsort(d.pairs, d.npairs, 2 * sizeof(uint32_t), cmp_pair);
  ck_assert(memcmp(d.pairs, ref, 2 * nref * sizeof(uint32_t)) == 0);
  struct ms_neighbors nb = {0};
  ck_assert_int_eq(ms__neighbors_build(c.x, 3 * sizeof(double), c.n, 0.05,
                                       &nb), 0);
  ck_assert_uint_eq(nb.offset[101] - nb.offset[100], 1); /* particle 200 */
  ck_assert_uint_eq(nb.index[nb.offset[100]], 200);
  ms__neighbors_release(&nb);
  free(ref);
  ms__detect_free(&d);
  free_cloud(&c);
}
END_TEST

/* Systems in runs, as a simulation lays them out: a fluid (1, blind to
 * itself) then two self-colliding bodies (0, 2) in a dense 0.3 m box. */
static struct cloud make_runs(uint64_t seed) {
  struct cloud c = make_cloud(seed, 3000, 0.15);
  for (size_t i = 0; i < c.n; i++) {
    c.r[i] = 0.01 + 0.001 * (double)(i % 7);
    c.sys[i] = i < 1800 ? 1u : i < 2400 ? 0u : 2u;
  }
  return c;
}

/* Pairs of d equal the brute-force set, and a fresh search's list (with
 * the same margin) in the same order. */
static void check_step(const struct ms__detect *d, const struct cloud *c,
                       double skin, const uint8_t *self, double margin) {
  struct ms__detect f;
  ms__detect_init(&f);
  struct ms__detect_input in = {c->n, c->x, c->r, c->sys, self, skin, margin};
  size_t bad;
  ck_assert_int_eq(ms__detect_pairs(&f, &in, &bad), 0);
  ck_assert_uint_eq(d->npairs, f.npairs);
  ck_assert(memcmp(d->pairs, f.pairs, 2 * f.npairs * sizeof(uint32_t)) == 0);
  uint32_t *ref;
  size_t nref = brute(c, skin, self, &ref);
  ck_assert_uint_eq(f.npairs, nref);
  qsort(f.pairs, f.npairs, 2 * sizeof(uint32_t), cmp_pair);
  ck_assert(memcmp(f.pairs, ref, 2 * nref * sizeof(uint32_t)) == 0);
  free(ref);
  ms__detect_free(&f);
}

/* Move every system by its own drift plus a jitter per point, and let some
 * radii grow: candidates are reused while the margin allows, and each
 * step's pairs are exactly a fresh search's. */
START_TEST(reused_candidates_give_the_exact_pairs) {
  const uint8_t self[3] = {1, 0, 1};
  struct cloud c = make_runs(51);
  struct ms__rng g;
  ms__rng_seed(&g, 52, 0, 0);
  struct ms__detect d;
  ms__detect_init(&d);
  size_t bad, pairs = 0;
  for (int step = 0; step < 60; step++) {
    double skin = 0.002 + 0.001 * (step % 3);
    struct ms__detect_input in = {c.n, c.x, c.r, c.sys, self, skin, 0.012};
    ck_assert_int_eq(ms__detect_pairs(&d, &in, &bad), 0);
    check_step(&d, &c, skin, self, 0.012);
    pairs += d.npairs;
    for (size_t i = 0; i < c.n; i++) {
      double v[3] = {0.0, 0.0, 0.0}, e[3];
      v[c.sys[i]] = 0.001 * (c.sys[i] == 2 ? -1.0 : 1.0);
      t_vec(&g, 0.0003, e);
      for (int a = 0; a < 3; a++) c.x[3 * i + a] += v[a] + e[a];
      if ((int)(i % 101) == step % 101) c.r[i] *= 1.05;
    }
  }
  ck_assert_uint_gt(pairs, 60 * 100);
  ck_assert_uint_gt(d.reuses, 20);  /* reused most steps ... */
  ck_assert_uint_gt(d.searches, 3); /* ... and searched again as it drifted */
  ms__detect_free(&d);
  free_cloud(&c);
}
END_TEST

/* Another system, self-collision flag or particle count: no reuse. */
START_TEST(reuse_follows_layout_changes) {
  uint8_t self[3] = {1, 0, 1};
  struct cloud c = make_runs(61);
  struct ms__detect d;
  ms__detect_init(&d);
  size_t bad;
  struct ms__detect_input in = {c.n, c.x, c.r, c.sys, self, 0.0, 0.01};
  ck_assert_int_eq(ms__detect_pairs(&d, &in, &bad), 0);
  ck_assert_int_eq(ms__detect_pairs(&d, &in, &bad), 0);
  ck_assert_uint_eq(d.searches, 1u);
  c.sys[2000] = 2; /* a body point joins the other body */
  ck_assert_int_eq(ms__detect_pairs(&d, &in, &bad), 0);
  check_step(&d, &c, 0.0, self, 0.01);
  self[1] = 1; /* the fluid starts to see itself */
  ck_assert_int_eq(ms__detect_pairs(&d, &in, &bad), 0);
  check_step(&d, &c, 0.0, self, 0.01);
  in.n = c.n - 7;
  ck_assert_int_eq(ms__detect_pairs(&d, &in, &bad), 0);
  c.n -= 7;
  check_step(&d, &c, 0.0, self, 0.01);
  c.n += 7;
  ck_assert_uint_eq(d.searches, 4u);
  in.n = c.n;
  ck_assert_int_eq(ms__detect_pairs(&d, &in, &bad), 0);
  c.x[3 * 2500 + 1] = NAN; /* refused, not filtered */
  ck_assert_int_eq(ms__detect_pairs(&d, &in, &bad), MS_EINVAL);
  ck_assert_uint_eq(bad, 2500);
  ms__detect_free(&d);
  free_cloud(&c);
}
END_TEST

START_TEST(neighbor_lists_match_brute_force) {
  struct cloud c = make_cloud(41, 2000, 0.5);
  struct ms_neighbors nb = {0};
  double h = 0.07;
  for (int rep = 0; rep < 2; rep++) { /* the second call reuses storage */
    ck_assert_int_eq(ms__neighbors_build(c.x, 3 * sizeof(double), c.n, h, &nb), 0);
    for (size_t i = 0; i < c.n; i++) {
      size_t cnt = 0;
      for (size_t j = 0; j < c.n; j++) {
        double d2 = 0;
        for (int a = 0; a < 3; a++) {
          double d = c.x[3 * j + a] - c.x[3 * i + a];
          d2 += d * d;
        }
        if (j == i || !(d2 < h * h)) continue;
        cnt++;
        int found = 0;
        for (uint32_t e = nb.offset[i]; e < nb.offset[i + 1]; e++)
          found |= nb.index[e] == j;
        ck_assert_msg(found, "neighbour %zu of %zu missing", j, i);
      }
      ck_assert_uint_eq(nb.offset[i + 1] - nb.offset[i], cnt);
    }
  }
  ms__neighbors_release(&nb);
  free_cloud(&c);
}
END_TEST

Suite *suite_detect(void) {
  Suite *s = suite_create("detect");
  TCase *tc = tcase_create("grid");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, exact_pair_set);
  tcase_add_test(tc, exact_pair_set_with_skin);
  tcase_add_test(tc, self_collision_filter);
  tcase_add_test(tc, fluid_bulk_keeps_its_border_pairs);
  tcase_add_test(tc, same_order_for_any_thread_count);
  tcase_add_test(tc, nested_call_gives_the_same_list);
  tcase_add_test(tc, non_finite_input_refused);
  tcase_add_test(tc, extreme_coordinates_give_the_exact_pairs);
  tcase_add_test(tc, neighbor_lists_match_brute_force);
  tcase_add_test(tc, reused_candidates_give_the_exact_pairs);
  tcase_add_test(tc, reuse_follows_layout_changes);
  suite_add_tcase(s, tc);
  return s;
}
