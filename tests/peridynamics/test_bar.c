/* A bar clamped at one end and pulled at the other with a prescribed
 * velocity: bonds hold below the critical stretch and the bar parts in
 * two once the strain passes it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "suites.h"
#include "pdtest.h"

/* 30 x 4 x 4 particles, spacing 0.01, horizon 3 spacings, E = 1e6 Pa,
 * G0 = 3.6 J/m^2 (s0 = 0.01).  The grips are peridynamic boundary layers
 * one horizon (three layers) thick at each end, prescribed as pins.  Their
 * particles follow the bar's affine stretching: the clamp's inner face
 * (x = 0.025) stays at rest, the puller's (x = 0.275) moves at 0.01 m/s
 * along +x.  (A rigid grip would concentrate strain at its face, a
 * boundary effect of the nonlocal model, and break bonds there early.)
 * The puller's outer layers stretch 10 % faster than the bar: a perfectly
 * symmetric bar has no preferred end to break at, and would crack at both.
 */
static const double pull_speed = 0.01, clamp_x = 0.025, pull_x = 0.275;

static void bar_scene(char *text, size_t size) {
  const double L = pull_x - clamp_x, v = pull_speed, kappa = 1.1;
  int n = snprintf(text, size,
      "scene = { duration = 1.0; fps = 100.0; gravity = [0.0, 0.0, 0.0]; };\n"
      "coupling = { max_dt = 5e-4; };\n"
      "systems = ( { name = \"bar\"; solver = \"peridynamics\";\n"
      "  shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
      "            max = [0.3, 0.04, 0.04]; };\n"
      "  spacing = 0.01; youngs_modulus = 1e6; fracture_energy = 3.6;\n"
      "  pins = (");
  for (int k = 0; k < 6; k++) {
    double x = k < 3 ? 0.005 + 0.01 * k : 0.275 + 0.01 * (k - 3);
    double u = k < 3 ? v * (x - clamp_x) / L
                     : v * (1.0 + kappa * (x - pull_x) / L);
    n += snprintf(text + n, size - (size_t)n, "%s\n    { min = [%.6f, -1.0, "
                  "-1.0]; max = [%.6f, 1.0, 1.0]; velocity = [%.17e, 0.0, "
                  "0.0]; }", k ? "," : "", x - 0.001, x + 0.001, u);
  }
  snprintf(text + n, size - (size_t)n, " ); } );\n");
}

/* Mean x of the particles whose start x is within 1e-9 of x0. */
static double layer_x(struct ms__system *y, const double *x0, double at) {
  double s = 0.0;
  int k = 0;
  for (size_t i = 0; i < y->view.count; i++)
    if (fabs(x0[i] - at) < 1e-9) s += ms__at(&y->x, i)[0], k++;
  ck_assert_int_eq(k, 16);
  return s / k;
}

START_TEST(bar_parts_in_two_past_critical_stretch) {
  char text[4096];
  bar_scene(text, sizeof text);
  ms_sim *S = st_open_text(text, 1);
  struct ms__system *y = st_system(S, "bar");
  size_t n = y->view.count;
  ck_assert_uint_eq(n, 480);
  const double h = 0.01, delta = 3.0 * h, K = 2.0 / 3.0 * 1e6;
  const double s0 = sqrt(5.0 * 3.6 / (9.0 * K * delta));
  double *x0 = malloc(n * sizeof *x0);
  for (size_t i = 0; i < n; i++) x0[i] = ms__at(&y->x, i)[0];
  struct pdt_bonds B;
  pdt_bonds_init(&B, y, delta);
  ck_assert_uint_eq(pdt_observe(&B, y), 0);
  ck_assert_uint_eq(pdt_pieces(&B, NULL), 1);
  /* free length: from the clamp's inner face to the puller's */
  const double L = pull_x - clamp_x;
  double strain = 0.0, first_break = NAN;
  size_t broken = 0;
  while (strain < 1.25 * s0) {
    st_step(S);
    strain = (layer_x(y, x0, pull_x) - layer_x(y, x0, clamp_x)) / L - 1.0;
    ck_assert(fabs(strain - pull_speed * S->stepper.time / L) < 1e-12);
    broken = pdt_observe(&B, y);
    if (strain < 0.9 * s0)
      ck_assert_msg(broken == 0, "%zu bonds broke at strain %.5f < 0.9 s0 "
                    "= %.5f", broken, strain, 0.9 * s0);
    if (broken && isnan(first_break)) first_break = strain;
  }
  fprintf(stderr, "# bar: s0 %.5f, first break at strain %.5f (%.3f s0), "
          "%zu of %zu bonds broken at %.3f s0\n", s0, first_break,
          first_break / s0, broken, B.count, strain / s0);
  /* two pieces: one holds the clamp, the other the puller */
  uint32_t *label = malloc(n * sizeof *label);
  ck_assert_uint_eq(pdt_pieces(&B, label), 2);
  for (size_t i = 0; i < n; i++) {
    if (x0[i] < clamp_x + 1e-9) ck_assert_uint_eq(label[i], 0);
    if (x0[i] > pull_x - 1e-9) ck_assert_uint_eq(label[i], 1);
  }
  /* the plugin's own count and its view agree with the direct count */
  ck_assert_uint_eq((size_t)pdt_stat(y, "bonds_broken"), broken);
  const struct ms_field *bf = pdt_field(y, "bonds");
  const struct ms_field *df = pdt_field(y, "damage");
  ck_assert_ptr_nonnull(bf);
  ck_assert_ptr_nonnull(df);
  size_t twice = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t nb = *(const uint32_t *)((const char *)bf->data + i * bf->stride);
    size_t all = 0, intact = 0;
    for (size_t k = 0; k < B.count; k++)
      if (B.pair[2 * k] == i || B.pair[2 * k + 1] == i)
        all++, intact += B.intact[k];
    ck_assert_uint_eq(nb, intact);
    double d = *(const double *)((const char *)df->data + i * df->stride);
    ck_assert_rel(d, 1.0 - (double)intact / (double)all, 1e-15, 1e-15);
    twice += all - intact;
  }
  ck_assert_uint_eq(twice, 2 * broken);
  free(label);
  free(x0);
  pdt_bonds_free(&B);
  st_close(S);
}
END_TEST

Suite *suite_bar(void) {
  Suite *s = suite_create("bar");
  TCase *tc = tcase_create("pull");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, bar_parts_in_two_past_critical_stretch);
  suite_add_tcase(s, tc);
  return s;
}
