/* The baseline collision methods, checked against their formulas on one
 * step of two overlapping particles of two systems (zero gravity). */
#include <math.h>
#include <stdio.h>

#include "suites.h"
#include "simtest.h"

/* Particles a (mass ma, at 0) and b (mass mb, at d along x), radius 0.1,
 * velocities ua, ub along x. */
static ms_sim *pair(const char *coupling, double ma, double mb, double d,
                    double ua, double ub) {
  char text[2048];
  snprintf(text, sizeof text,
           "scene = { duration = 1.0; fps = 100.0; gravity = [0.0, 0.0, 0.0]; };\n"
           "coupling = { %s };\n"
           "systems = (\n"
           " { name = \"a\"; solver = \"particles\"; radius = 0.1; mass = %.17g;\n"
           "   shape = { type = \"points\"; points = ( [0.0, 0.0, 0.0] ); };\n"
           "   velocity = [%#.17g, 0.0, 0.0]; },\n"
           " { name = \"b\"; solver = \"particles\"; radius = 0.1; mass = %.17g;\n"
           "   shape = { type = \"points\"; points = ( [%#.17g, 0.0, 0.0] ); };\n"
           "   velocity = [%#.17g, 0.0, 0.0]; } );\n",
           coupling, ma, ua, mb, d, ub);
  return st_open_text(text, 1);
}

static double vx(ms_sim *S, const char *name) {
  return ms__at(&st_system(S, name)->v, 0)[0];
}

START_TEST(impulse_exchanges_with_restitution) {
  double ma = 1.0, mb = 3.0, ua = 1.0, ub = -0.5, e = 0.6;
  ms_sim *S = pair("method = \"impulse\"; restitution = 0.6;", ma, mb, 0.15,
                   ua, ub);
  st_step(S);
  double M = ma + mb;
  double wa = (ma * ua + mb * ub - mb * e * (ua - ub)) / M;
  double wb = (ma * ua + mb * ub + ma * e * (ua - ub)) / M;
  ck_assert_msg(fabs(vx(S, "a") - wa) < 1e-14, "a: %.17g vs %.17g", vx(S, "a"), wa);
  ck_assert_msg(fabs(vx(S, "b") - wb) < 1e-14, "b: %.17g vs %.17g", vx(S, "b"), wb);
  /* no merging, no position correction */
  ck_assert_uint_eq(S->run_counts.metas + S->stepper.frame_counts.metas, 0);
  st_close(S);
}
END_TEST

static void force_law(const char *method, int sph) {
  double ma = 1.0, mb = 2.0, d = 0.15, k = 250.0, h = 0.2;
  char c[256];
  snprintf(c, sizeof c, "method = \"%s\"; stiffness = %g;", method, k);
  ms_sim *S = pair(c, ma, mb, d, 0.0, 0.0);
  st_step(S);
  double dt = S->stepper.time,
         f = sph ? k * (1 - d / h) * (1 - d / h) : k * (h - d);
  /* symplectic Euler: v = dt f / m, pushing the pair apart */
  ck_assert_msg(fabs(vx(S, "a") + dt * f / ma) < 1e-14 * f, "a: %.17g", vx(S, "a"));
  ck_assert_msg(fabs(vx(S, "b") - dt * f / mb) < 1e-14 * f, "b: %.17g", vx(S, "b"));
  ck_assert(fabs(ma * vx(S, "a") + mb * vx(S, "b")) < 1e-15);
  st_close(S);
}

START_TEST(penalty_force_is_k_times_overlap) { force_law("penalty", 0); }
END_TEST
START_TEST(sph_force_is_spiky_in_overlap) { force_law("sph_force", 1); }
END_TEST

START_TEST(separate_particles_feel_nothing) {
  ms_sim *S = pair("method = \"penalty\"; stiffness = 1000.0;", 1, 1, 0.25, 0, 0);
  st_step(S);
  ck_assert(vx(S, "a") == 0.0 && vx(S, "b") == 0.0);
  st_close(S);
}
END_TEST

Suite *suite_baselines(void) {
  Suite *s = suite_create("baselines");
  TCase *tc = tcase_create("formulas");
  tcase_add_test(tc, impulse_exchanges_with_restitution);
  tcase_add_test(tc, penalty_force_is_k_times_overlap);
  tcase_add_test(tc, sph_force_is_spiky_in_overlap);
  tcase_add_test(tc, separate_particles_feel_nothing);
  suite_add_tcase(s, tc);
  return s;
}
