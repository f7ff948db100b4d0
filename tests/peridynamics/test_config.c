/* Bad scene values are refused with one line naming the key and where. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suites.h"
#include "pdtest.h"

/* Open a one-system scene whose peridynamics section holds `keys`; expect
 * a refusal whose message contains every string of `want`. */
static void refused(const char *keys, const char *const *want) {
  char path[] = "/tmp/ms-pd-config-XXXXXX", err[2048];
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE *f = fdopen(fd, "w");
  fprintf(f, "scene = { duration = 0.1; };\n"
             "systems = ( { name = \"solid\"; solver = \"peridynamics\";\n"
             "  shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
             "            max = [0.05, 0.05, 0.05]; };\n"
             "  %s\n} );\n", keys);
  fclose(f);
  struct ms_sim_options o = {.struct_size = sizeof o, .threads = 1,
                             .no_output = 1, .verbosity = MS_SINK_ERROR};
  ms_sim *S = NULL;
  int rc = ms_sim_open(path, &o, &S, err, sizeof err);
  unlink(path);
  ck_assert_msg(rc != 0, "accepted: %s", keys);
  ck_assert_ptr_null(S);
  ck_assert_msg(strchr(err, '\n') == NULL, "more than one line: %s", err);
  ck_assert_msg(strstr(err, "ms-pd-config-") != NULL, "no file in: %s", err);
  for (const char *const *w = want; *w; w++)
    ck_assert_msg(strstr(err, *w), "'%s' not in: %s", *w, err);
}

#define REFUSED(keys, ...) \
  refused(keys, (const char *const[]){__VA_ARGS__, NULL})

START_TEST(bad_values_are_refused) {
  REFUSED("youngs_modulus = 1e6;", "spacing", "required");
  REFUSED("spacing = -0.01;", "spacing", "> 0");
  REFUSED("spacing = \"fine\";", "spacing");
  REFUSED("spacing = 0.01; poisson_ratio = 0.3;", "poisson_ratio", "0.25");
  REFUSED("spacing = 0.01; youngs_modulus = 1e6; bulk_modulus = 1e6;",
          "bulk_modulus", "not both");
  REFUSED("spacing = 0.01; fracture_energy = 2.0; critical_stretch = 0.01;",
          "critical_stretch", "not both");
  REFUSED("spacing = 0.01; fracture_energy = 0.0;", "fracture_energy");
  REFUSED("spacing = 0.01; horizon = 0.005;", "horizon", "spacing");
  REFUSED("spacing = 0.01; compressive_adjustment = -0.1;",
          "compressive_adjustment");
  REFUSED("spacing = 0.01; damping = -1.0;", "damping");
  REFUSED("spacing = 0.01; linear_solver = \"lu\";", "linear_solver", "pcg");
  REFUSED("spacing = 0.01; pcg_tolerance = 2.0;", "pcg_tolerance");
  REFUSED("spacing = 0.01; newton_iterations = 0;", "newton_iterations");
  REFUSED("spacing = 0.01; wall_restitution = 1.5;", "wall_restitution");
  REFUSED("spacing = 0.01; breakable = 3.0;", "breakable");
  REFUSED("spacing = 0.01; pins = ( { min = [1.0, 1.0, 1.0]; "
          "max = [2.0, 2.0, 2.0]; } );", "pins", "no particle");
  REFUSED("spacing = 0.01; pins = ( { max = [2.0, 2.0, 2.0]; } );", "min",
          "required");
  REFUSED("spacing = 0.01; stiffness = 5.0;", "stiffness");
}
END_TEST

/* Every shape the issue names builds bonded particles and steps: a box
 * wall, a sphere, a bowl (hemispherical shell) and a torus. */
START_TEST(shapes_build_and_step) {
  static const char *const shapes[] = {
      "type = \"box\"; min = [0.0, 0.0, 0.0]; max = [0.1, 0.1, 0.03];",
      "type = \"sphere\"; center = [0.0, 0.5, 0.0]; radius = 0.05;",
      "type = \"shell\"; center = [0.0, 0.5, 0.0]; radius = 0.08; "
      "thickness = 0.025;",
      "type = \"torus\"; center = [0.0, 0.5, 0.0]; major_radius = 0.07; "
      "minor_radius = 0.025;"};
  for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
    char text[1024];
    snprintf(text, sizeof text,
             "scene = { duration = 1.0; fps = 100.0; };\n"
             "systems = ( { name = \"solid\"; solver = \"peridynamics\";\n"
             "  shape = { %s };\n  spacing = 0.01; } );\n", shapes[k]);
    ms_sim *S = st_open_text(text, 1);
    struct ms__system *y = st_system(S, "solid");
    struct pdt_bonds B;
    pdt_bonds_init(&B, y, 0.03);
    ck_assert_uint_gt(y->view.count, 50);
    ck_assert_uint_gt(B.count, 10 * y->view.count);
    /* the plugin bonded exactly the pairs within the horizon */
    ck_assert_uint_eq(pdt_observe(&B, y), 0);
    const struct ms_field *bf = pdt_field(y, "bonds");
    size_t total = 0;
    for (size_t i = 0; i < y->view.count; i++)
      total += *(const uint32_t *)((const char *)bf->data + i * bf->stride);
    ck_assert_uint_eq(total, 2 * B.count);
    for (int s = 0; s < 5; s++) st_step(S);
    ck_assert(isfinite(st_max_speed(S)));
    pdt_bonds_free(&B);
    st_close(S);
  }
}
END_TEST

Suite *suite_config(void) {
  Suite *s = suite_create("config");
  TCase *tc = tcase_create("refused");
  tcase_add_test(tc, bad_values_are_refused);
  tcase_add_test(tc, shapes_build_and_step);
  suite_add_tcase(s, tc);
  return s;
}
