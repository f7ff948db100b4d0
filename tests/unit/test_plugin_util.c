/* The plugin-author kit (<mergesplit/plugin_util.h>): the meta-particle
 * clause, the wall clamp and bounce, the hand-over bookkeeping, each
 * against figures worked out by hand. */
#include <check.h>
#include <math.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "suites.h"

/* Meta-particle 0 holds particles 1 and 3, meta-particle 1 particle 0. */
static const uint32_t off[3] = {0, 2, 3}, member[3] = {1, 3, 0};
static const double mass[2] = {3.0, 1.0}, own[2] = {2.0, 1.0};
static const double pos[6] = {0, 0, 0, 0, 0, 0}, vel[6] = {0, 0, 0, 0, 0, 0};

START_TEST(meta_clause) {
  struct ms_metas m = {sizeof m, 2, off, member, mass, own, pos, vel, NULL};
  int32_t of[5];
  ms_meta_mark(&m, 5, of);
  const int32_t want[5] = {1, 0, -1, 0, -1};
  ck_assert(memcmp(of, want, sizeof want) == 0);
  double f[15], sum[3];
  for (int i = 0; i < 15; i++) f[i] = i; /* particle i: (3i, 3i+1, 3i+2) */
  ms_meta_sum(&m, 0, f, sum);
  ck_assert(sum[0] == 3 + 9 && sum[1] == 4 + 10 && sum[2] == 5 + 11);
  ms_meta_sum(&m, 1, NULL, sum);
  ck_assert(sum[0] == 0 && sum[1] == 0 && sum[2] == 0);
  double x[15] = {0}, v[15] = {0}, rv[6], rd[6];
  uint8_t con[2] = {0, 0};
  struct ms_meta_result res = {sizeof res, 2, rv, rd, con};
  x[3] = 1.0, x[9] = 2.0;
  const double V[3] = {1, 2, 3}, d[3] = {0.1, 0.2, 0.3};
  ms_meta_finish(&m, 0, V, d, x, v, &res);
  ck_assert(x[3] == 1.1 && x[4] == 0.2 && x[9] == 2.1 && x[11] == 0.3);
  ck_assert(v[3] == 1 && v[10] == 2 && v[11] == 3 && v[0] == 0 && v[6] == 0);
  ck_assert(memcmp(rv, V, sizeof V) == 0 && memcmp(rd, d, sizeof d) == 0);
}
END_TEST

/* Two particles of radius 0.05 at x = 0.1 and 0.3 in the unit box, moved
 * by (-0.2, 0, 0.6): the low x wall stops the first at x = 0.05 (d.x =
 * -0.05), the high z wall both at z = 0.95 (d.z = 0.45); then the bounce
 * of (-2, 1, 3) with restitution 0.5 and friction 0.1, x first:
 * (1, 0.9, 2.7), then z: (0.9, 0.81, -1.35). */
START_TEST(wall_clamp_and_bounce) {
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  const double x[6] = {0.1, 0.5, 0.5, 0.3, 0.5, 0.5}, r[2] = {0.05, 0.05};
  const uint32_t idx[2] = {0, 1};
  double d[3] = {-0.2, 0.0, 0.6};
  unsigned hit = ms_wall_clamp(lo, hi, x, r, idx, 2, d);
  ck_assert_uint_eq(hit, (1u << 0) | (1u << 5));
  ck_assert(fabs(d[0] + 0.05) < 1e-15 && d[1] == 0.0 &&
            fabs(d[2] - 0.45) < 1e-15);
  double v[3] = {-2, 1, 3};
  ms_wall_bounce(hit, 0.5, 0.1, v);
  ck_assert(fabs(v[0] - 0.9) < 1e-15 && fabs(v[1] - 0.81) < 1e-15 &&
            fabs(v[2] + 1.35) < 1e-15);
  const double open[3] = {INFINITY, INFINITY, INFINITY};
  const double low[3] = {-INFINITY, -INFINITY, -INFINITY};
  double e[3] = {5, -5, 5};
  ck_assert_uint_eq(ms_wall_clamp(low, open, x, r, idx, 2, e), 0);
  ck_assert(e[0] == 5 && e[1] == -5 && e[2] == 5);
}
END_TEST

/* Removing the listed particles keeps the others in order. */
START_TEST(release_compacts_in_order) {
  double a[10];
  for (int i = 0; i < 10; i++) a[i] = i;
  const uint32_t gone[3] = {1, 4, 9};
  size_t n = ms_release_compact(a, sizeof *a, 10, gone, 3);
  const double want[7] = {0, 2, 3, 5, 6, 7, 8};
  ck_assert_uint_eq(n, 7);
  ck_assert(memcmp(a, want, sizeof want) == 0);
  ck_assert_uint_eq(ms_release_compact(a, sizeof *a, 7, gone, 0), 7);
}
END_TEST

Suite *suite_plugin_util(void);
Suite *suite_plugin_util(void) {
  Suite *s = suite_create("plugin_util");
  TCase *tc = tcase_create("kit");
  tcase_add_test(tc, meta_clause);
  tcase_add_test(tc, wall_clamp_and_bounce);
  tcase_add_test(tc, release_compacts_in_order);
  suite_add_tcase(s, tc);
  return s;
}
