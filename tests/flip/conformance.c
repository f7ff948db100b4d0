/* The core's conformance kit run on the flip plugin, on the kit's built-in
 * scene (no domain: the tank is fitted around the water) and on a blob of
 * water floating in the middle of a closed box.  Its own program: the kit
 * forks, so no OpenMP threads may have started in this process. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mergesplit/core.h>

static const char scene[] =
    "scene = { duration = 1.0; fps = 100.0; seed = 3;\n"
    "  gravity = [0.0, -9.81, 0.0];\n"
    "  domain = { min = [0.0, 0.0, 0.0]; max = [0.4, 0.4, 0.4]; }; };\n"
    "coupling = { method = \"none\"; };\n"
    "systems = ( { name = \"under_test\"; solver = \"flip\";\n"
    "  shape = { type = \"box\"; min = [0.15, 0.15, 0.15];\n"
    "            max = [0.25, 0.25, 0.25]; };\n"
    "  spacing = 0.025; density = 1000.0; } );\n";

struct tally {
  int failed;
  char failures[1024];
};

static void collect(void *o, const char *check, int passed,
                    const char *detail) {
  struct tally *t = o;
  if (passed) return;
  t->failed++;
  snprintf(t->failures + strlen(t->failures),
           sizeof t->failures - strlen(t->failures), "%s%s (%s)",
           t->failures[0] ? "; " : "", check, detail);
}

START_TEST(flip_conforms_builtin_scene) {
  struct ms_conformance_options o = {.struct_size = sizeof o};
  struct tally t;
  char err[1024] = "";
  memset(&t, 0, sizeof t);
  int n = ms_conformance_run("flip", &o, collect, &t, err, sizeof err);
  ck_assert_msg(n >= 0, "the kit could not start: %s", err);
  ck_assert_msg(n == 0, "failed: %s", t.failures);
}
END_TEST

START_TEST(flip_conforms_in_a_tank) {
  char path[] = "/tmp/ms-flip-conf-XXXXXX", err[1024] = "";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert(write(fd, scene, sizeof scene - 1) == (ssize_t)(sizeof scene - 1));
  close(fd);
  struct ms_conformance_options o = {.struct_size = sizeof o,
                                     .scene_path = path};
  struct tally t;
  memset(&t, 0, sizeof t);
  int n = ms_conformance_run("flip", &o, collect, &t, err, sizeof err);
  unlink(path);
  ck_assert_msg(n >= 0, "the kit could not start: %s", err);
  ck_assert_msg(n == 0, "failed: %s", t.failures);
}
END_TEST

int main(void) {
  Suite *s = suite_create("flip_conformance");
  TCase *tc = tcase_create("kit");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, flip_conforms_builtin_scene);
  tcase_add_test(tc, flip_conforms_in_a_tank);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
