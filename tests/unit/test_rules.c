/* The pair rules (core/coupling/coupling.h) at their edges, and the baselines asking
 * them. */
#include <check.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "../../core/coupling/coupling.h"
#include "testutil.h"

/* Rule 1 is strict: at exactly r_i + r_j apart the pair does not touch;
 * one ulp closer it does; coincident particles touch. */
START_TEST(contact_is_strict) {
  double t = 0.3 + 0.2, t2 = t * t;
  ck_assert(!ms__rule_contact(t2, 0.3, 0.2));
  ck_assert(ms__rule_contact(nextafter(t2, 0.0), 0.3, 0.2));
  ck_assert(!ms__rule_contact(nextafter(t2, 1.0), 0.3, 0.2));
  ck_assert(ms__rule_contact(0.0, 0.3, 0.2));
  ck_assert(!ms__rule_contact(NAN, 0.3, 0.2)); /* never on NaN */
}
END_TEST

/* Rule 2: below -tol approaches, above tol separates, in between (and
 * at vn == 0 with tol == 0) neither; NaN is neither. */
START_TEST(approaching_and_separating) {
  ck_assert(ms__rule_approaching(-DBL_MIN, 0.0));
  ck_assert(!ms__rule_approaching(0.0, 0.0) && !ms__rule_separating(0.0, 0.0));
  ck_assert(!ms__rule_approaching(-0.0, 0.0) && !ms__rule_separating(-0.0, 0.0));
  ck_assert(ms__rule_separating(DBL_MIN, 0.0));
  ck_assert(!ms__rule_approaching(-1e-12, 1e-12));
  ck_assert(ms__rule_approaching(nextafter(-1e-12, -1.0), 1e-12));
  ck_assert(!ms__rule_separating(1e-12, 1e-12));
  ck_assert(ms__rule_separating(nextafter(1e-12, 1.0), 1e-12));
  ck_assert(!ms__rule_approaching(NAN, 0.0) && !ms__rule_separating(NAN, 0.0));
}
END_TEST

/* Two unit-mass particles 0.1 apart along x, radii r each, velocities
 * (u, w, 0) and (0, 0, 0): the impulse baseline acts only on a pair that
 * touches (Rule 1) and approaches (Rule 2), and then reverses the normal
 * velocity by e. */
static size_t impulse_on(double r, double u, double w, double e,
                         double *v0) {
  double x[6] = {0, 0, 0, 0.1, 0, 0}, v[6] = {u, w, 0, 0, 0, 0};
  double m[2] = {1.0, 1.0}, rad[2] = {r, r};
  uint32_t sys[2] = {0, 1}, local[2] = {0, 0}, pair[2] = {0, 1};
  struct ms__particles P = {.n = 2, .x = x, .v = v, .m = m, .r = rad,
                            .sys = sys, .local = local};
  size_t n = ms__baseline_impulses(&P, pair, 1, e);
  memcpy(v0, v, sizeof v);
  return n;
}

START_TEST(impulse_baseline_asks_the_rules) {
  double v[6];
  /* exactly touching: Rule 1 says no */
  ck_assert_uint_eq(impulse_on(0.05, 1.0, 0.0, 1.0, v), 0);
  /* touching, tangential only: Rule 2 says no */
  ck_assert_uint_eq(impulse_on(0.06, 0.0, 1.0, 1.0, v), 0);
  ck_assert(v[0] == 0.0 && v[1] == 1.0);
  /* touching, separating: no */
  ck_assert_uint_eq(impulse_on(0.06, -1.0, 0.0, 1.0, v), 0);
  /* touching, approaching: vn = -1 becomes +e */
  ck_assert_uint_eq(impulse_on(0.06, 1.0, 0.5, 0.5, v), 1);
  ck_assert_rel(v[3] - v[0], 0.5, 1e-15, 1.0);
  ck_assert_rel(v[0] + v[3], 1.0, 1e-15, 1.0); /* momentum */
  ck_assert(v[1] == 0.5);                        /* tangential kept */
}
END_TEST

/* The penalty baseline acts on touching pairs only, whatever they do. */
START_TEST(penalty_baseline_asks_rule_one) {
  double x[6] = {0, 0, 0, 0.1, 0, 0}, v[6] = {0};
  double m[2] = {1.0, 1.0}, rad[2] = {0.05, 0.05}, f[6] = {0};
  uint32_t sys[2] = {0, 1}, local[2] = {0, 0}, pair[2] = {0, 1};
  struct ms__particles P = {.n = 2, .x = x, .v = v, .m = m, .r = rad,
                            .sys = sys, .local = local};
  ms__contact_forces(&P, pair, 1, 0, 100.0, 0.0, f);
  for (int a = 0; a < 6; a++) ck_assert(f[a] == 0.0);
  rad[0] = rad[1] = 0.06; /* 0.02 of overlap: k * 0.02 apart */
  ms__contact_forces(&P, pair, 1, 0, 100.0, 0.0, f);
  ck_assert_rel(f[3], 2.0, 1e-12, 1.0);
  ck_assert_rel(f[0], -2.0, 1e-12, 1.0);
}
END_TEST

Suite *suite_rules(void) {
  Suite *s = suite_create("rules");
  TCase *tc = tcase_create("edges");
  tcase_add_test(tc, contact_is_strict);
  tcase_add_test(tc, approaching_and_separating);
  tcase_add_test(tc, impulse_baseline_asks_the_rules);
  tcase_add_test(tc, penalty_baseline_asks_rule_one);
  suite_add_tcase(s, tc);
  return s;
}
