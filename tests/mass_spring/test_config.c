/* Bad scene values are refused with one line naming file:line and key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mstest.h"
#include "suites.h"

static void quiet(void *opaque, int level, const char *line) {}

/* Open MS_DATA-like test data; expect failure with `want` in the error. */
static void refused(const char *file, const char *want) {
  char path[4096], err[2048];
  const char *dir = getenv("MS_MASS_SPRING_DATA");
  ck_assert_msg(dir != NULL, "MS_MASS_SPRING_DATA is not set");
  snprintf(path, sizeof path, "%s/%s", dir, file);
  struct ms_sim_options o = {.struct_size = sizeof o, .threads = 1,
                             .no_output = 1, .log = quiet};
  ms_sim *S = NULL;
  int rc = ms_sim_open(path, &o, &S, err, sizeof err);
  ck_assert_msg(rc == MS_ECONFIG, "%s: status %d (%s)", file, rc, err);
  ck_assert_ptr_null(S);
  ck_assert_msg(strstr(err, want) != NULL, "%s: '%s' lacks '%s'", file, err,
                want);
  ck_assert_msg(!strchr(err, '\n'), "not one line: %s", err);
}

START_TEST(negative_stiffness) {
  refused("bad_stiffness.cfg",
          "bad_stiffness.cfg:8: systems.[0].stiffness: must be > 0");
}
END_TEST

START_TEST(empty_pin_region) {
  refused("bad_pin_empty.cfg", "bad_pin_empty.cfg:9: systems.[0].pins.[1]: "
          "the pin region");
}
END_TEST

START_TEST(unknown_integrator) {
  refused("bad_integrator.cfg", "bad_integrator.cfg:8: "
          "systems.[0].integrator: unknown integrator 'verlet'");
}
END_TEST

START_TEST(other_bad_values) {
  refused("bad_shear.cfg", "bad_shear.cfg:8: systems.[0].shear_stiffness: "
          "must be >= 0");
  refused("bad_resolution.cfg", "bad_resolution.cfg:7: "
          "systems.[0].cloth.resolution");
  refused("bad_corner.cfg", "bad_corner.cfg:8: systems.[0].pins.[0].corner: "
          "unknown corner 'u2v0'");
  refused("bad_soft_edge.cfg", "bad_soft_edge.cfg:8: systems.[0].pins.[0]."
          "edge: only a cloth");
  refused("bad_model.cfg", "bad_model.cfg:6: systems.[0].shape: give "
          "either cloth");
  refused("bad_key.cfg", "bad_key.cfg:8: unknown key 'stifness'");
  refused("bad_strain_limit.cfg", "bad_strain_limit.cfg:8: systems.[0]."
          "strain_limit: must be in [0, 100] (got -0.1");
  refused("bad_strain_passes.cfg", "bad_strain_passes.cfg:8: systems.[0]."
          "strain_limit_passes: must be in [1, 100000] (got 0)");
  refused("bad_stiffening.cfg", "bad_stiffening.cfg:8: systems.[0]."
          "stiffening: must be in [1, 1e6] (got 0.5");
  refused("bad_stiffening_explicit.cfg", "bad_stiffening_explicit.cfg:8: "
          "systems.[0].stiffening: needs an implicit integrator "
          "(backward_euler or trapezoidal), not symplectic_euler");
}
END_TEST

Suite *suite_config(void) {
  Suite *s = suite_create("config");
  TCase *tc = tcase_create("refused");
  tcase_add_test(tc, negative_stiffness);
  tcase_add_test(tc, empty_pin_region);
  tcase_add_test(tc, unknown_integrator);
  tcase_add_test(tc, other_bad_values);
  suite_add_tcase(s, tc);
  return s;
}
