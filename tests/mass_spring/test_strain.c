/* Strain limiting (plugins/mass_spring/strain.c): no spring longer than
 * (1 + limit) rest and no particle farther from its nearest pin than
 * (1 + limit) times their rest distance at the end of any step, however
 * heavy the load; momentum kept and no energy made where nothing is
 * pinned.  Each case also runs with the limit off, to show it is what
 * holds the figure. */
#include <math.h>
#include <stdio.h>

#include "mstest.h"
#include "suites.h"

static double max_stretch(struct ms__system *y) {
  const struct ms_field *f = mt_field(y, "stretch");
  double worst = -INFINITY;
  for (size_t i = 0; i < y->view.count; i++)
    worst = fmax(worst, ((const double *)f->data)[i]);
  return worst;
}

/* A 9 x 9 sheet, 0.8 m wide, held at its edges, soft springs; its centre
 * particle weighs 1000 times the others. */
#define NU 9
static const double WIDTH = 0.8;

/* Largest |x - x_pin| / |x0 - x0_pin| - 1 over the free particles, the pin
 * the nearest one at rest on the grid's border (of equally near ones, the
 * first in index order, as the plugin documents). */
static double dist(const double *a, const double *b) {
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
              (a[2] - b[2]) * (a[2] - b[2]));
}

static double pin_strain(struct ms__system *y, const double *x0) {
  double worst = -INFINITY;
  for (int b = 1; b < NU - 1; b++)
    for (int a = 1; a < NU - 1; a++) {
      int i = b * NU + a, pin = -1;
      const double *x = mt_x(y, (size_t)i);
      double rest = INFINITY;
      for (int q = 0; q < NU * NU; q++) {
        int qa = q % NU, qb = q / NU;
        if (qa && qb && qa < NU - 1 && qb < NU - 1) continue;
        double d = dist(x0 + 3 * i, x0 + 3 * q);
        if (d < rest) rest = d, pin = q;
      }
      worst = fmax(worst, dist(x, mt_x(y, (size_t)pin)) / rest - 1.0);
    }
  return worst;
}

START_TEST(a_heavy_weight_stretches_nothing_beyond_the_limit) {
  int on = _i;
  ms_sim *S = mt_open(
      1,
      "scene = { duration = 1.0; fps = 30.0; gravity = [0.0, -9.81, 0.0];\n"
      "  domain = { min = [-1.0, -1.0, -1.0]; max = [1.0, 2.0, 1.0]; }; };\n"
      "systems = ( { name = \"c\"; solver = \"mass_spring\";\n"
      "  cloth = { corner = [-0.4, 1.0, -0.4]; edge_u = [%g, 0.0, 0.0];\n"
      "            edge_v = [0.0, 0.0, %g]; resolution = [%d, %d]; };\n"
      "  mass = 0.01; stiffness = 20.0; shear_stiffness = 10.0;\n"
      "  bend_stiffness = 1.0; damping = 0.1; mass_damping = 0.5;\n"
      "  strain_limit = %g;\n"
      "  pins = ( { edge = \"u0\"; }, { edge = \"u1\"; }, { edge = \"v0\"; },\n"
      "           { edge = \"v1\"; } ); } );\n",
      WIDTH, WIDTH, NU, NU, on ? 0.1 : 0.0);
  struct ms__system *y = st_system(S, "c");
  double *m = mt_field(y, "mass")->data;
  m[(NU / 2) * NU + NU / 2] = 10.0;
  double x0[3 * NU * NU];
  for (int i = 0; i < NU * NU; i++)
    for (int a = 0; a < 3; a++) x0[3 * i + a] = mt_x(y, (size_t)i)[a];
  double springs = -INFINITY, pins = -INFINITY;
  while (S->frame < S->frames_total) {
    ck_assert_int_eq(ms_sim_frame(S), 0);
    springs = fmax(springs, max_stretch(y));
    pins = fmax(pins, pin_strain(y, x0));
  }
  fprintf(stderr, "# 10 kg on a 0.8 g sheet, limit %s: largest spring "
          "strain %.6f, largest strain from the nearest pin %.6f, centre "
          "at y = %.4f\n", on ? "0.1" : "off", springs, pins,
          mt_x(y, (NU / 2) * NU + NU / 2)[1]);
  /* 200 passes (the default) bring every length within 1e-6 of the limit
   * in most steps, 1e-5 in all of this run; 50 left 7e-4 */
  if (on) {
    ck_assert_msg(springs <= 0.1 + 1e-5, "a spring reached %.6f", springs);
    ck_assert_msg(pins <= 0.1 + 1e-5, "a particle reached %.6f from its pin",
                  pins);
  } else {
    ck_assert_msg(springs > 0.5, "without the limit only %.3f", springs);
  }
  st_close(S);
}
END_TEST

/* A free 8 x 8 cloth in zero gravity, soft undamped springs, torn at by
 * random velocities of 2 m/s: momentum to round-off, the energy (kinetic
 * + springs) never up from one frame to the next, no spring beyond the
 * limit. */
START_TEST(the_limit_keeps_momentum_and_makes_no_energy) {
  int on = _i;
  ms_sim *S = mt_open(
      1,
      "scene = { duration = 0.5; fps = 20.0; gravity = [0.0, 0.0, 0.0]; };\n"
      "coupling = { max_dt = 1e-3; };\n"
      "systems = ( { name = \"c\"; solver = \"mass_spring\";\n"
      "  self_collision = false;\n"
      "  cloth = { corner = [0.0, 0.0, 0.0]; edge_u = [1.0, 0.0, 0.0];\n"
      "            edge_v = [0.0, 0.2, 1.0]; resolution = [8, 8]; };\n"
      "  mass = 0.1; stiffness = 10.0; shear_stiffness = 10.0;\n"
      "  bend_stiffness = 1.0; strain_limit = %g; } );\n",
      on ? 0.1 : 0.0);
  struct ms__system *y = st_system(S, "c");
  uint64_t seed = 5;
  for (size_t i = 0; i < y->view.count; i++)
    for (int a = 0; a < 3; a++)
      mt_v(y, i)[a] = (a == 0 ? 0.3 : 0.0) + 2.0 * mt_random(&seed);
  double p0[3], p[3], ke;
  mt_totals(y, p0, &ke);
  struct ms_energy e = {.struct_size = sizeof e};
  ck_assert_int_eq(y->plugin->desc.energy(y->inst, &e), 0);
  double prev = e.kinetic + e.internal, e0 = prev, rise = 0.0;
  double worst = -INFINITY;
  while (S->frame < S->frames_total) {
    ck_assert_int_eq(ms_sim_frame(S), 0);
    ck_assert_int_eq(y->plugin->desc.energy(y->inst, &e), 0);
    rise = fmax(rise, (e.kinetic + e.internal - prev) / e0);
    prev = e.kinetic + e.internal;
    worst = fmax(worst, max_stretch(y));
  }
  mt_totals(y, p, &ke);
  double n0 = sqrt(p0[0] * p0[0] + p0[1] * p0[1] + p0[2] * p0[2]);
  double dp = sqrt(pow(p[0] - p0[0], 2) + pow(p[1] - p0[1], 2) +
                   pow(p[2] - p0[2], 2));
  fprintf(stderr, "# free cloth at 2 m/s, limit %s: largest strain %.6f, "
          "momentum drift %.3g, largest energy rise %.3g, energy left "
          "%.4f\n", on ? "0.1" : "off", worst, dp / n0, rise, prev / e0);
  ck_assert_msg(dp <= 1e-12 * n0, "momentum drifted by %.3g", dp / n0);
  ck_assert_msg(rise <= 1e-12, "the energy rose by %.3g", rise);
  if (on)
    ck_assert_msg(worst <= 0.1 + 1e-6, "a spring reached %.6f", worst);
  else
    ck_assert_msg(worst > 0.2, "without the limit only %.3f", worst);
  st_close(S);
}
END_TEST

/* Every frame of S: the largest stretch of y's springs at a frame's end,
 * and the run's metrics. */
static double run_to_the_end(ms_sim *S, struct ms__system *y,
                             struct ms_metrics *m) {
  double worst = -INFINITY;
  while (S->frame < S->frames_total) {
    ck_assert_msg(ms_sim_frame(S) == 0, "%s", ms_sim_error(S));
    worst = fmax(worst, max_stretch(y));
  }
  st_metrics(S, m);
  return worst;
}

/* The fidelity issue's cloths, in their shipped scenes: Fig. 4's column
 * shot at 10 m/s instead of 3, and Fig. 7 with the cloth 1000x lighter per
 * particle than the ball.  With the limit at 0.1 no spring ends a frame
 * beyond it, meta-particles' members, which the synchronisation places,
 * included (the pass after the split); nothing goes through the sheet or
 * crosses it.  Off (the default), the sheets stretch by 0.66 and 0.54 (and
 * 39 water particles go through the first). */
static const struct {
  const char *file, *set;
  int64_t frames; /* 0: the whole scene */
  double off_at_least;
} cloths[] = {
    {"paper/fig04_column_on_cloth.cfg",
     "systems.water.shape.velocity=[0,-10,0]", 12, 0.5}, /* the impact */
    {"paper/fig07_mass_ratio_100.cfg", "systems.cloth.mass=2.7e-6", 0, 0.4},
};

START_TEST(contacts_stretch_nothing_beyond_the_limit) {
  int c = _i / 2, on = _i % 2;
  const char *sets[] = {cloths[c].set,
                        on ? "systems.cloth.strain_limit=0.1" : NULL, NULL};
  ms_sim *S = st_open_file_with(cloths[c].file, 2, cloths[c].frames, sets);
  struct ms__system *y = st_system(S, "cloth");
  struct ms_metrics m;
  double worst = run_to_the_end(S, y, &m);
  fprintf(stderr, "# %s, %s, limit %s: largest strain %.6f, penetrations "
          "at most %llu, crossings %llu, fastest %.3g m/s\n", cloths[c].file,
          cloths[c].set, on ? "0.1" : "off (default)", worst,
          (unsigned long long)m.max_penetrations,
          (unsigned long long)m.sheet_crossings, m.max_speed);
  if (on) {
    ck_assert_msg(worst <= 0.1 + 1e-6, "a spring reached %.6f", worst);
    ck_assert_msg(m.max_penetrations == 0 && m.sheet_crossings == 0,
                  "%llu penetrations, %llu crossings",
                  (unsigned long long)m.max_penetrations,
                  (unsigned long long)m.sheet_crossings);
  } else {
    ck_assert_msg(worst > cloths[c].off_at_least, "without the limit only "
                  "%.3f", worst);
  }
  st_close(S);
}
END_TEST

/* Fig. 3's high drop at scale 4 (the ball's 1044 particles on a 50 x 50
 * sheet), started just above the sheet at the speed of the drop: the
 * contact takes more particles than a meta-particle holds.  The pass
 * after the split used to move members of meta-particles along the
 * sheet's normal too, pressing them into the ball's particles they
 * touched; merging acts on velocities and never undid the overlap, and
 * the ball's particles came out under the sheet (1 here by 0.3 s; 13 in
 * the whole drop).  Members now slide only in the sheet's plane. */
START_TEST(members_are_not_pressed_into_what_they_touch) {
  const char *sets[] = {"scene.scale=4", "systems.cloth.strain_limit=0.1",
                        "systems.ball.shape.center=[0,0.66,0]",
                        "systems.ball.velocity=[0,-4.4,0]",
                        "scene.duration=0.34", NULL};
  ms_sim *S = st_open_file_with("paper/fig03_ball_on_cloth_high.cfg", 2, 0,
                                sets);
  struct ms__system *y = st_system(S, "cloth");
  struct ms_metrics m;
  double worst = run_to_the_end(S, y, &m);
  fprintf(stderr, "# fig03 high drop at scale 4 from 0.66 m at 4.4 m/s, "
          "limit 0.1: penetrations at most %llu, crossings %llu, largest "
          "strain %.4f\n", (unsigned long long)m.max_penetrations,
          (unsigned long long)m.sheet_crossings, worst);
  ck_assert_msg(m.max_penetrations == 0 && m.sheet_crossings == 0,
                "%llu penetrations, %llu crossings",
                (unsigned long long)m.max_penetrations,
                (unsigned long long)m.sheet_crossings);
  st_close(S);
}
END_TEST

Suite *suite_strain(void) {
  Suite *s = suite_create("strain");
  TCase *tc = tcase_create("limit");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, a_heavy_weight_stretches_nothing_beyond_the_limit,
                      0, 2);
  tcase_add_loop_test(tc, the_limit_keeps_momentum_and_makes_no_energy, 0,
                      2);
  tcase_add_loop_test(tc, contacts_stretch_nothing_beyond_the_limit, 0, 4);
  tcase_add_test(tc, members_are_not_pressed_into_what_they_touch);
  suite_add_tcase(s, tc);
  return s;
}
