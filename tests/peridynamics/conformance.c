/* The conformance kit on `peridynamics`: on the kit's built-in scene (a
 * box, spacing 0.025) and on a spinning sphere solved with CHOLMOD.  Its own
 * program: the kit forks, so no OpenMP thread may have started here. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mergesplit/core.h>

struct tally {
  int failed;
  char failures[1024];
};

static void collect(void *o, const char *check, int passed,
                    const char *detail) {
  struct tally *t = o;
  printf("# %s %s: %s\n", passed ? "pass" : "FAIL", check, detail);
  if (passed) return;
  t->failed++;
  snprintf(t->failures + strlen(t->failures),
           sizeof t->failures - strlen(t->failures), "%s%s (%s)",
           t->failures[0] ? "; " : "", check, detail);
}

static int run_kit(const char *scene, struct tally *t) {
  struct ms_conformance_options o = {.struct_size = sizeof o,
                                     .scene_path = scene};
  char err[1024];
  memset(t, 0, sizeof *t);
  int n = ms_conformance_run("peridynamics", &o, collect, t, err, sizeof err);
  ck_assert_msg(n >= 0, "the kit could not start: %s", err);
  return n;
}

START_TEST(builtin_scene_conforms) {
  struct tally t;
  ck_assert_msg(run_kit(NULL, &t) == 0, "failed: %s", t.failures);
}
END_TEST

/* A sphere through CHOLMOD, with bond damping, an explicit horizon and a
 * spin.  (Pins are left out: the kit's meta_momentum check wants a
 * meta-particle of every particle to move freely.) */
START_TEST(cholmod_sphere_conforms) {
  char path[] = "/tmp/ms-pd-conformance-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE *f = fdopen(fd, "w");
  fputs("scene = { duration = 1.0; fps = 100.0; };\n"
        "systems = ( { name = \"ball\"; solver = \"peridynamics\";\n"
        "  shape = { type = \"sphere\"; center = [0.0, 0.0, 0.0];\n"
        "            radius = 0.04; };\n"
        "  spacing = 0.01; horizon = 0.025; damping = 1e-4;\n"
        "  youngs_modulus = 5e5; fracture_energy = 1.0;\n"
        "  linear_solver = \"cholmod\"; angular_velocity = [0.0, 3.0, 0.0];\n"
        "} );\n", f);
  fclose(f);
  struct tally t;
  int n = run_kit(path, &t);
  unlink(path);
  ck_assert_msg(n == 0, "failed: %s", t.failures);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pd_conformance");
  TCase *tc = tcase_create("kit");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, builtin_scene_conforms);
  tcase_add_test(tc, cholmod_sphere_conforms);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
