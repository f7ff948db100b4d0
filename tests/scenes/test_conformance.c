/* The conformance kit: shipped plugins pass it, and each deliberately
 * broken fixture fails exactly the check named for its defect. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/core.h>

#include "simtest.h"

struct tally {
  int failed;
  char failures[512];
};

static void collect(void *o, const char *check, int passed, const char *detail) {
  struct tally *t = o;
  if (passed) return;
  t->failed++;
  snprintf(t->failures + strlen(t->failures),
           sizeof t->failures - strlen(t->failures), "%s%s (%s)",
           t->failures[0] ? "; " : "", check, detail);
}

static int run_kit(const char *id, struct tally *t) {
  const char *paths[] = {getenv("MS_FIXTURES"), NULL}; /* + the plugins */
  struct ms_conformance_options o = {.struct_size = sizeof o,
                                     .plugin_paths = paths};
  char err[1024];
  memset(t, 0, sizeof *t);
  int n = ms_conformance_run(id, &o, collect, t, err, sizeof err);
  ck_assert_msg(n >= 0, "%s: the kit could not start: %s", id, err);
  return n;
}

/* Every shipped plugin, on the kit's built-in scene. */
static const char *const shipped[] = {"particles", "mass_spring", "peridynamics",
                                      "sph", "flip"};

START_TEST(shipped_plugin_conforms) {
  struct tally t;
  ck_assert_msg(run_kit(shipped[_i], &t) == 0, "%s failed: %s", shipped[_i],
                t.failures);
}
END_TEST

START_TEST(good_fixture_conforms) {
  struct tally t;
  ck_assert_msg(run_kit("fixture_good", &t) == 0, "failed: %s", t.failures);
}
END_TEST

static const struct {
  const char *fixture, *check;
} broken[] = {
    {"fixture_nolicense", "descriptor"}, {"fixture_zerodt", "max_dt"},
    {"fixture_leak", "create_destroy"},  {"fixture_norewind", "rewind"},
    {"fixture_badsave", "save_load"},    {"fixture_loose", "meta_rigid"},
    {"fixture_ownmass", "meta_momentum"}, {"fixture_lax", "bad_config"},
    {"fixture_chatty", "silent"},
};

START_TEST(broken_fixture_fails_its_check) {
  struct tally t;
  int n = run_kit(broken[_i].fixture, &t);
  ck_assert_msg(n >= 1, "%s passed everything", broken[_i].fixture);
  /* exactly one failure, and it is the named check */
  ck_assert_msg(n == 1 && strncmp(t.failures, broken[_i].check,
                                  strlen(broken[_i].check)) == 0 &&
                    t.failures[strlen(broken[_i].check)] == ' ',
                "%s: expected only '%s' to fail, got: %s", broken[_i].fixture,
                broken[_i].check, t.failures);
}
END_TEST

static Suite *suite_conformance(void) {
  Suite *s = suite_create("conformance");
  TCase *tc = tcase_create("kit");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, shipped_plugin_conforms, 0,
                      (int)(sizeof shipped / sizeof *shipped));
  tcase_add_test(tc, good_fixture_conforms);
  tcase_add_loop_test(tc, broken_fixture_fails_its_check, 0,
                      (int)(sizeof broken / sizeof *broken));
  suite_add_tcase(s, tc);
  return s;
}

/* Its own program: the kit forks, so nothing may have started OpenMP
 * threads in this process before. */
int main(void) {
  SRunner *sr = srunner_create(suite_conformance());
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
