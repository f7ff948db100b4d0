/* Rule 2 changed in one place changes every user of it.  This program
 * compiles the rule's users -- core/step.c (the classification of
 * candidate pairs and stage 2), core/contacts.c (impulses on pairs left
 * out of size-limited meta-particles) and core/baselines.c (the impulse
 * baseline) -- with MS__RULE_TWO_SWAPPED, which exchanges approaching and
 * separating in core/coupling/coupling.h alone, and links the rest of the core as
 * usual.  Each user must now act where it did not and not where it did
 * (tests/unit/test_rules.c checks them with the rule as it is). */
#include <check.h>
#include <string.h>

#include "../../core/coupling/coupling.h"
#include "../scenes/simtest.h"
#include "suites.h"

#ifndef MS__RULE_TWO_SWAPPED
#error "compile with -DMS__RULE_TWO_SWAPPED"
#endif

START_TEST(the_rule_is_swapped) {
  ck_assert(ms__rule_approaching(1.0, 0.0) && !ms__rule_approaching(-1.0, 0.0));
  ck_assert(ms__rule_separating(-1.0, 0.0) && !ms__rule_separating(1.0, 0.0));
}
END_TEST

/* Two unit masses 0.1 apart along x, radii 0.06, the first moving at u. */
static size_t baseline_on(double u, double *v) {
  double x[6] = {0, 0, 0, 0.1, 0, 0};
  double m[2] = {1.0, 1.0}, rad[2] = {0.06, 0.06};
  uint32_t sys[2] = {0, 1}, local[2] = {0, 0}, pair[2] = {0, 1};
  v[0] = u, v[1] = v[2] = v[3] = v[4] = v[5] = 0.0;
  struct ms__particles P = {.n = 2, .x = x, .v = v, .m = m, .r = rad,
                            .sys = sys, .local = local};
  return ms__baseline_impulses(&P, pair, 1, 1.0);
}

/* The impulse baseline now leaves an approaching pair alone and acts on a
 * separating one. */
START_TEST(the_impulse_baseline_follows) {
  double v[6];
  ck_assert_uint_eq(baseline_on(1.0, v), 0);  /* approaching */
  ck_assert(v[0] == 1.0);
  ck_assert_uint_eq(baseline_on(-1.0, v), 1); /* separating */
}
END_TEST

/* Two single-particle meta-particles in contact along x, body 0 moving
 * at u: the unmerged-pair impulse now acts only when they separate. */
static uint64_t unmerged_on(double u) {
  uint32_t body[2] = {0, 1};
  double normal[3] = {1, 0, 0}, inv[2] = {1.0, 1.0};
  struct ms__contacts C = {.count = 1, .body = body, .normal = normal,
                           .inv_mass = inv};
  double vfin[6] = {u, 0, 0, 0, 0, 0}, disp[6] = {0}, mass[2] = {1, 1};
  struct ms__metaset M = {.count = 2, .vfin = vfin, .disp = disp,
                          .mass = mass};
  struct ms__ledger L = {0};
  ms__contacts_resolve(&C, &M, 0.0, 0.01, &L);
  return L.contacts;
}

START_TEST(the_unmerged_pair_impulse_follows) {
  ck_assert_uint_eq(unmerged_on(1.0), 0);
  ck_assert_uint_gt(unmerged_on(-1.0), 0);
}
END_TEST

/* Two grains touching, moving towards (sign -1) or away from (+1) each
 * other, one step: how many meta-particles the step formed. */
static uint64_t merged(double sign) {
  char text[2048];
  snprintf(text, sizeof text,
           "scene = { duration = 0.01; fps = 100.0; gravity = [0.0, 0.0, 0.0];\n"
           "  domain = { min = [-1.0, -1.0, -1.0]; max = [1.0, 1.0, 1.0]; }; };\n"
           "systems = (\n"
           "  { name = \"a\"; solver = \"particles\"; spacing = 0.1;\n"
           "    radius = 0.06; velocity = [%.1f, 0.0, 0.0];\n"
           "    shape = { type = \"points\"; points = ( [0.0, 0.0, 0.0] ); }; },\n"
           "  { name = \"b\"; solver = \"particles\"; spacing = 0.1;\n"
           "    radius = 0.06; velocity = [%.1f, 0.0, 0.0];\n"
           "    shape = { type = \"points\"; points = ( [0.1, 0.0, 0.0] ); }; }\n"
           ");\n", -sign, sign);
  ms_sim *S = st_open_text(text, 1);
  st_step(S);
  uint64_t n = S->stepper.frame_counts.metas + S->run_counts.metas;
  st_close(S);
  return n;
}

/* The classification (stage 1 and stage 2) now merges separating grains
 * and never approaching ones. */
START_TEST(the_classification_follows) {
  ck_assert_uint_eq(merged(-1.0), 0);
  ck_assert_uint_gt(merged(1.0), 0);
}
END_TEST

Suite *suite_rule_swap(void) {
  Suite *s = suite_create("rule_swap");
  TCase *tc = tcase_create("swapped");
  tcase_add_test(tc, the_rule_is_swapped);
  tcase_add_test(tc, the_impulse_baseline_follows);
  tcase_add_test(tc, the_unmerged_pair_impulse_follows);
  tcase_add_test(tc, the_classification_follows);
  suite_add_tcase(s, tc);
  return s;
}
