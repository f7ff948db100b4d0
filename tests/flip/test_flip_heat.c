/* Heat in FLIP water (heat.c) and particles handed to it (accept): the
 * cells' lumps conduct as the closed form says, the heat sum is kept while
 * the water moves, no temperature leaves the start's range, and handed-
 * over particles join with their mass, momentum and temperature. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../scenes/simtest.h"
#include "../../core/step/step.h"
#include "suites.h"

static double heat(const struct ms__system *y) { return ms__heat_of(y); }

/* The heat m c T of the first 1024 particles (a hot column's). */
static double column_heat(const struct ms__system *y) {
  double q = 0.0;
  for (size_t i = 0; i < 1024; i++)
    q += *ms__at(&y->m, i) * *ms__at(&y->c, i) * *ms__at(&y->T, i);
  return q;
}

/* Two cells of 0.1 m in a 2 x 2 x 2 tank, 8 particles each (spacing
 * 0.05, no jitter), at rest in zero gravity, the left at 373.15 K, the
 * right at 273.15 K: one pair of lumps of C = 8 x 0.125 kg x 4186
 * J/(kg K), G = k h = 1000 W/K. */
static const char two_cells[] =
    "scene = { duration = 1.0; fps = 10.0; gravity = [0.0, 0.0, 0.0];\n"
    "  domain = { min = [0.0, 0.0, 0.0]; max = [0.2, 0.2, 0.2]; }; };\n"
    "coupling = { max_dt = 0.01; };\n"
    "systems = ( { name = \"water\"; solver = \"flip\"; spacing = 0.05;\n"
    "  cell_size = 0.1; conductivity = 10000.0;\n"
    "  shape = ( { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
    "              max = [0.1, 0.1, 0.1]; jitter = 0.0;\n"
    "              temperature = 373.15; },\n"
    "            { type = \"box\"; min = [0.1, 0.0, 0.0];\n"
    "              max = [0.2, 0.1, 0.1]; jitter = 0.0;\n"
    "              temperature = 273.15; } ); } );\n";

START_TEST(cell_lumps_follow_the_closed_form) {
  ms_sim *S = st_open_text(two_cells, 1);
  struct ms__system *y = st_system(S, "water");
  ck_assert_uint_eq(y->view.count, 16);
  const double C = 8.0 * 0.125 * 4186.0, G = 10000.0 * 0.1;
  double q0 = heat(y), worst = 0.0, drift = 0.0;
  while (S->stepper.time < 1.0 - 1e-12) {
    st_step(S);
    double hot = 0.0, cold = 0.0;
    for (size_t i = 0; i < y->view.count; i++) {
      double t = *ms__at(&y->T, i);
      if (ms__at(&y->x, i)[0] < 0.1) hot += t / 8.0; else cold += t / 8.0;
    }
    double want = 100.0 * exp(-G * (2.0 / C) * S->stepper.time);
    worst = fmax(worst, fabs(hot - cold - want) / 100.0);
    drift = fmax(drift, fabs(heat(y) - q0) / q0);
  }
  fprintf(stderr, "# two cells: |dT - closed form| / dT0 %.3g, heat drift "
          "%.3g\n", worst, drift);
  ck_assert_double_le(worst, 1e-12);
  ck_assert_double_le(drift, 1e-14);
  st_close(S);
}
END_TEST

/* A dam break whose column is hot and whose pool is cold: the water moves
 * across cells, heat flows, and the heat sum stays to 1e-12 while no
 * temperature leaves [273.15, 373.15]. */
START_TEST(heat_kept_while_the_water_moves) {
  ms_sim *S = st_open_text(
      "scene = { duration = 0.5; fps = 20.0; gravity = [0.0, -9.81, 0.0];\n"
      "  domain = { min = [0.0, 0.0, 0.0]; max = [0.4, 0.3, 0.1]; }; };\n"
      "systems = ( { name = \"water\"; solver = \"flip\"; spacing = 0.0125;\n"
      "  conductivity = 50.0;\n"
      "  shape = ( { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
      "              max = [0.1, 0.2, 0.1]; temperature = 373.15; },\n"
      "            { type = \"box\"; min = [0.1, 0.0, 0.0];\n"
      "              max = [0.4, 0.05, 0.1]; temperature = 273.15; } ); } );\n",
      2);
  struct ms__system *y = st_system(S, "water");
  double q0 = heat(y), drift = 0.0, lo = INFINITY, hi = -INFINITY;
  ck_assert_uint_eq(y->view.count, 1024 + 768); /* column, then pool */
  double hot0 = column_heat(y);
  while (S->stepper.time < 0.5 - 1e-12) {
    st_step(S);
    drift = fmax(drift, fabs(heat(y) - q0) / q0);
  }
  double mean = 0.0;
  for (size_t i = 0; i < y->view.count; i++) {
    double t = *ms__at(&y->T, i);
    lo = fmin(lo, t), hi = fmax(hi, t);
    mean += t / (double)y->view.count;
  }
  double moved = hot0 - column_heat(y);
  fprintf(stderr, "# hot dam break: %zu particles, heat drift %.3g, T in "
          "[%.4f, %.4f] K, mean %.4f K, %.4g J left the column's "
          "particles\n", y->view.count, drift, lo, hi, mean, moved);
  ck_assert_double_le(drift, 1e-12);
  ck_assert_double_ge(lo, 273.15);
  ck_assert_double_le(hi, 373.15);
  /* heat moved from the column's particles to the pool's */
  ck_assert_double_gt(moved, 100.0);
  st_close(S);
}
END_TEST

/* A block of the hand-over fixture flies into the water's tank and hands
 * every particle past x = 0.15 to the water: the water takes them with
 * their mass, position, velocity and temperature; the scene's mass is the
 * same bit for bit and its momentum is kept at every hand-over. */
START_TEST(handed_particles_join_the_water) {
  static const char text[] =
      "scene = { duration = 0.15; fps = 50.0; gravity = [0.0, 0.0, 0.0];\n"
      "  domain = { min = [0.0, 0.0, 0.0]; max = [0.4, 0.2, 0.2]; }; };\n"
      "coupling = { max_dt = 0.002; };\n"
      "systems = ( { name = \"ice\"; solver = \"fixture_handover\";\n"
      "  shape = { type = \"box\"; min = [0.02, 0.05, 0.05];\n"
      "            max = [0.08, 0.11, 0.11]; };\n"
      "  spacing = 0.02; velocity = [1.0, 0.0, 0.0]; temperature = 260.0;\n"
      "  give_to = \"water\"; give_offset = 0.15; },\n"
      "  { name = \"water\"; solver = \"flip\"; spacing = 0.02;\n"
      "    temperature = 300.0;\n"
      "    shape = { type = \"box\"; min = [0.3, 0.0, 0.0];\n"
      "              max = [0.4, 0.04, 0.2]; }; } );\n";
  char err[1024];
  ms_sim *S;
  ck_assert_msg(st_try_fixture_text(text, &S, err, sizeof err) == 0, "%s",
                err);
  struct ms__system *ice = st_system(S, "ice"), *water = st_system(S, "water");
  size_t nice = ice->view.count, nwater = water->view.count;
  size_t nm0;
  double *m0 = st_masses(S, &nm0), p0[3], ke;
  st_totals(S, p0, &ke);
  double worst = 0.0;
  while (S->stepper.time < 0.15 - 1e-12) {
    /* the hand-over alone, as the step starts it (the step's own call
     * then finds nothing more to give): momentum across it */
    double p[3], q[3];
    st_totals(S, p, &ke);
    ck_assert_int_eq(ms__handover(&S->stepper), 0);
    st_totals(S, q, &ke);
    for (int a = 0; a < 3; a++)
      worst = fmax(worst, fabs(q[a] - p[a]) / fabs(p0[0]));
    st_step(S);
  }
  ice = st_system(S, "ice"), water = st_system(S, "water");
  size_t nm;
  double *m = st_masses(S, &nm), tmin = INFINITY, tmax = -INFINITY;
  for (size_t i = nwater; i < water->view.count; i++) {
    tmin = fmin(tmin, *ms__at(&water->T, i));
    tmax = fmax(tmax, *ms__at(&water->T, i));
  }
  fprintf(stderr, "# hand-over into FLIP: %zu of %zu particles handed, "
          "momentum drift %.3g, their temperatures [%g, %g] K\n",
          water->view.count - nwater, nice, worst, tmin, tmax);
  ck_assert_uint_eq(ice->view.count, 0);
  ck_assert_uint_eq(water->view.count, nwater + nice);
  /* every particle's mass, bit for bit, wherever it went */
  ck_assert_uint_eq(nm, nm0);
  ck_assert_int_eq(memcmp(m, m0, nm * sizeof *m), 0);
  free(m), free(m0);
  ck_assert_double_le(worst, 1e-13);
  /* the water's conduction has not reached them: they are still the
   * ice's temperature, the water's defaults did not replace it */
  ck_assert_double_lt(tmax, 300.0);
  ck_assert_double_ge(tmin, 260.0);
  ms_sim_close(S);
}
END_TEST

Suite *suite_flip_heat(void) {
  Suite *s = suite_create("flip_heat");
  TCase *t = tcase_create("heat");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, cell_lumps_follow_the_closed_form);
  tcase_add_test(t, heat_kept_while_the_water_moves);
  tcase_add_test(t, handed_particles_join_the_water);
  suite_add_tcase(s, t);
  return s;
}
