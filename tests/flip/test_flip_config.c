/* Bad settings of a flip system: one clear error naming file, line, key. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mergesplit/core.h>

#include "../scenes/simtest.h"
#include "suites.h"

#define SCENE_HEAD                                                        \
  "scene = { duration = 0.1; domain = { min = [0.0, 0.0, 0.0];\n"        \
  "  max = [1.0, 0.5, 0.2]; }; };\n"

/* Open scene text; expect failure with every `want` fragment in the
 * message. */
static void expect_error(const char *text, const char *want1,
                         const char *want2) {
  char err[2048] = "";
  int rc = st_try_text(text, err, sizeof err, NULL);
  ck_assert_msg(rc != 0, "accepted: %s", text);
  ck_assert_msg(strstr(err, "/tmp/ms-scene-") != NULL, "no file in '%s'",
                err);
  ck_assert_msg(strstr(err, want1) != NULL, "'%s' not in '%s'", want1, err);
  ck_assert_msg(!want2 || strstr(err, want2) != NULL, "'%s' not in '%s'",
                want2, err);
  ck_assert_msg(!strchr(err, '\n'), "more than one line: '%s'", err);
}

#define WATER(extra)                                                      \
  SCENE_HEAD "systems = ( { name = \"w\"; solver = \"flip\";\n"           \
  "  shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"                 \
  "            max = [0.2, 0.2, 0.2]; };\n" extra " } );\n"

START_TEST(missing_spacing) {
  expect_error(WATER(""), "systems.[0].spacing", "is required");
}
END_TEST

START_TEST(cell_size_must_fit_tank) {
  expect_error(WATER("spacing = 0.025; cell_size = 0.07;"),
               "cell_size", "not a multiple of the cell size");
}
END_TEST

START_TEST(flip_ratio_range) {
  expect_error(WATER("spacing = 0.025; flip_ratio = 1.5;"),
               "flip_ratio", "must be in [0, 1]");
}
END_TEST

START_TEST(unknown_pressure_solver) {
  expect_error(WATER("spacing = 0.025; pressure_solver = \"jacobi\";"),
               "pressure_solver", "unknown solver 'jacobi'");
}
END_TEST

START_TEST(unknown_advection) {
  expect_error(WATER("spacing = 0.025; advect = \"sideways\";"),
               "systems.[0].advect", "unknown advection 'sideways'");
}
END_TEST

START_TEST(unknown_free_surface) {
  expect_error(WATER("spacing = 0.025; free_surface = \"level_set\";"),
               "systems.[0].free_surface", "unknown free surface 'level_set'");
}
END_TEST

START_TEST(buoyancy_is_a_switch) {
  expect_error(WATER("spacing = 0.025; buoyancy = 1.0;"),
               "systems.[0].buoyancy", "true or false");
}
END_TEST

START_TEST(bad_tolerance) {
  expect_error(WATER("spacing = 0.025; pressure_tolerance = 0.0;"),
               "pressure_tolerance", "must be in (0, 1)");
}
END_TEST

START_TEST(obstacle_box_inverted) {
  expect_error(WATER("spacing = 0.025; obstacles = ( { min = [0.5, 0.0, "
                     "0.0]; max = [0.4, 0.1, 0.1]; } );"),
               "obstacles.[0].max", "must be above min");
}
END_TEST

START_TEST(tank_outside_domain) {
  expect_error(WATER("spacing = 0.025; tank = { min = [0.0, 0.0, 0.0]; "
                     "max = [2.0, 0.5, 0.2]; };"),
               "tank", "inside the scene's domain");
}
END_TEST

START_TEST(unknown_key) {
  expect_error(WATER("spacing = 0.025; flip_ratoi = 0.9;"),
               "unknown key 'flip_ratoi'", NULL);
}
END_TEST

START_TEST(wrong_type) {
  expect_error(WATER("spacing = \"fine\";"), "spacing", "must be a number");
}
END_TEST

START_TEST(shape_density_positive) {
  expect_error(SCENE_HEAD "systems = ( { name = \"w\"; solver = \"flip\";\n"
               "  shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
               "            max = [0.2, 0.2, 0.2]; density = -800.0; };\n"
               "  spacing = 0.025; } );\n",
               "systems.[0].shape.density", "must be > 0");
}
END_TEST

START_TEST(separation_range) {
  expect_error(WATER("spacing = 0.025; separation = 2.0;"), "separation",
               "must be in [0, 1]");
}
END_TEST

START_TEST(fluid_outside_tank) {
  expect_error(SCENE_HEAD "systems = ( { name = \"w\"; solver = \"flip\";\n"
               "  shape = { type = \"box\"; min = [2.0, 2.0, 2.0];\n"
               "            max = [2.2, 2.2, 2.2]; }; spacing = 0.025; } );\n",
               "shape", "holds no particle inside the tank");
}
END_TEST

Suite *suite_flip_config(void) {
  Suite *s = suite_create("flip_config");
  TCase *t = tcase_create("config");
  tcase_add_test(t, missing_spacing);
  tcase_add_test(t, cell_size_must_fit_tank);
  tcase_add_test(t, flip_ratio_range);
  tcase_add_test(t, unknown_pressure_solver);
  tcase_add_test(t, unknown_advection);
  tcase_add_test(t, unknown_free_surface);
  tcase_add_test(t, buoyancy_is_a_switch);
  tcase_add_test(t, bad_tolerance);
  tcase_add_test(t, obstacle_box_inverted);
  tcase_add_test(t, tank_outside_domain);
  tcase_add_test(t, unknown_key);
  tcase_add_test(t, wrong_type);
  tcase_add_test(t, fluid_outside_tank);
  tcase_add_test(t, shape_density_positive);
  tcase_add_test(t, separation_range);
  suite_add_tcase(s, t);
  return s;
}
