/* Analytic checks on a single spring-mass oscillator: a particle of mass m
 * on a spring to a pinned particle, moving along the spring's axis. */
#include <math.h>
#include <stdio.h>

#include "mstest.h"
#include "suites.h"

/* Rest length 1 (the initial distance); the free particle is then moved to
 * stretch the spring by x0 (the plugin takes the view as the truth). */
static ms_sim *oscillator(const char *integrator, double k, double c,
                          double dt, double x0) {
  ms_sim *S = mt_open(
      1,
      "scene = { duration = 1.0; fps = 10.0; gravity = [0.0, 0.0, 0.0]; };\n"
      "coupling = { max_dt = %.17g; };\n"
      "systems = ( { name = \"s\"; solver = \"mass_spring\";\n"
      "  shape = { type = \"points\";\n"
      "            points = ( [0.0, 0.0, 0.0], [1.0, 0.0, 0.0] ); };\n"
      "  spacing = 1.0; spring_radius = 1.5; radius = 0.2; mass = 1.0;\n"
      "  stiffness = %.17g; damping = %.17g; integrator = \"%s\";\n"
      "  pins = ( { min = [-0.1, -0.1, -0.1]; max = [0.1, 0.1, 0.1]; } );\n"
      "} );\n",
      dt, k, c, integrator);
  struct ms__system *y = st_system(S, "s");
  ck_assert_uint_eq(y->view.count, 2);
  mt_x(y, 1)[0] = 1.0 + x0;
  return S;
}

static double stretch(struct ms__system *y) { return mt_x(y, 1)[0] - 1.0; }

static double energy(struct ms__system *y, double k) {
  const double *v = mt_v(y, 1);
  double x = stretch(y);
  return 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + 0.5 * k * x * x;
}

/* m = 1, k = 100, c = 2, x0 = 1, v0 = 0: zeta = 0.1, omega0 = 10. */
START_TEST(rk4_damped_oscillator) {
  const double k = 100.0, c = 2.0, w0 = 10.0, z = c / (2.0 * sqrt(k));
  const double wd = w0 * sqrt(1.0 - z * z);
  const struct { int frame; double x; } want[] = {
      {1, 0.568972}, {5, 0.098551}, {10, -0.336852}};
  ms_sim *S = oscillator("rk4", k, c, 1e-3, 1.0);
  struct ms__system *y = st_system(S, "s");
  for (int q = 0; q < 3; q++) {
    while (S->frame < want[q].frame)
      ck_assert_int_eq(ms_sim_frame(S), 0);
    double t = ms_sim_time(S);
    double exact = exp(-z * w0 * t) *
                   (cos(wd * t) + z / sqrt(1.0 - z * z) * sin(wd * t));
    ck_assert_msg(fabs(exact - want[q].x) < 1e-6, "formula %.7f", exact);
    ck_assert_msg(fabs(stretch(y) - want[q].x) < 1e-4,
                  "x(%.1f) = %.7f, expected %.6f", t, stretch(y), want[q].x);
    ck_assert(fabs(mt_x(y, 1)[1]) + fabs(mt_x(y, 1)[2]) == 0.0);
  }
  ck_assert_uint_eq(S->stepper.step, 1000); /* dt = 1e-3 */
  st_close(S);
}
END_TEST

/* Energy after each step over energy before, on the undamped oscillator
 * (k = 100, m = 1), checked against `factor(omega dt)` to 1e-9. */
static void energy_factor(const char *integrator, double dt, int steps,
                          double (*factor)(double)) {
  const double k = 100.0, w = 10.0;
  ms_sim *S = oscillator(integrator, k, 0.0, dt, 0.5);
  struct ms__system *y = st_system(S, "s");
  double e = energy(y, k), worst = 0.0;
  for (int s = 0; s < steps; s++) {
    double t0 = ms_sim_time(S);
    st_step(S);
    double h = ms_sim_time(S) - t0, e1 = energy(y, k);
    double err = fabs(e1 / e - factor(w * h));
    worst = fmax(worst, err);
    e = e1;
  }
  ck_assert_msg(worst < 1e-9, "%s: energy ratio off by %.3g", integrator,
                worst);
  st_close(S);
}

static double be_factor(double wh) { return 1.0 / (1.0 + wh * wh); }
static double fe_factor(double wh) { return 1.0 + wh * wh; }
static double one(double wh) { return 1.0; }
static double rk2_factor(double wh) { return 1.0 + pow(wh, 4) / 4.0; }
static double rk4_factor(double wh) {
  return 1.0 - pow(wh, 6) / 72.0 + pow(wh, 8) / 576.0;
}

START_TEST(backward_euler_energy_loss) {
  energy_factor("backward_euler", 0.01, 200, be_factor);
  energy_factor("backward_euler", 0.05, 40, be_factor);
}
END_TEST

START_TEST(forward_euler_energy_growth) {
  energy_factor("forward_euler", 1e-3, 500, fe_factor);
}
END_TEST

/* The linear trapezoidal rule is the Cayley transform: energy exact. */
START_TEST(trapezoidal_keeps_energy) {
  energy_factor("trapezoidal", 0.05, 100, one);
}
END_TEST

START_TEST(midpoint_and_rk4_amplification) {
  energy_factor("midpoint", 2e-3, 300, rk2_factor);
  energy_factor("rk4", 0.02, 200, rk4_factor);
}
END_TEST

/* Symplectic Euler keeps the modified energy
 * v^2 + w^2 x^2 - w^2 h x v exactly for a linear oscillator. */
START_TEST(symplectic_euler_modified_energy) {
  const double k = 100.0, h = 0.01;
  ms_sim *S = oscillator("symplectic_euler", k, 0.0, h, 0.5);
  struct ms__system *y = st_system(S, "s");
  double x = stretch(y), v = mt_v(y, 1)[0];
  double e0 = v * v + k * x * x - k * h * x * v, worst = 0.0;
  for (int s = 0; s < 300; s++) {
    double t0 = ms_sim_time(S);
    st_step(S);
    ck_assert(fabs(ms_sim_time(S) - t0 - h) < 1e-15);
    x = stretch(y), v = mt_v(y, 1)[0];
    worst = fmax(worst, fabs(v * v + k * x * x - k * h * x * v - e0) / e0);
  }
  ck_assert_msg(worst < 1e-9, "modified energy drifts by %.3g", worst);
  st_close(S);
}
END_TEST

/* The explicit schemes report their stable step (w = 10 here). */
START_TEST(explicit_max_dt) {
  const struct { const char *name; double want; } c[] = {
      {"symplectic_euler", 0.9 * 2.0 / 10.0}, {"rk4", 0.9 * 2.78 / 10.0},
      {"forward_euler", 0.9 * 0.1 / 10.0}, {"midpoint", 0.9 * 0.6 / 10.0},
      {"backward_euler", INFINITY}, {"trapezoidal", INFINITY}};
  for (int i = 0; i < 6; i++) {
    ms_sim *S = oscillator(c[i].name, 100.0, 0.0, 1.0, 0.5);
    struct ms__system *y = st_system(S, "s");
    double dt = INFINITY;
    ck_assert_int_eq(y->plugin->desc.max_dt(y->inst, &dt), 0);
    ck_assert_msg(dt == c[i].want || fabs(dt - c[i].want) < 1e-12,
                  "%s: max dt %g, expected %g", c[i].name, dt, c[i].want);
    st_close(S);
  }
}
END_TEST

/* A particle of 1 kg hanging on a spring of rest length 1 (k = 100,
 * dashpot 20) under g = 9.81 along the spring: at rest the tension T(x)
 * equals m g.  Without stiffening x = g / k = 0.0981; with stiffening S =
 * 10 beyond the onset strain 0.05, k x + (S - 1) k (x - 0.05) = m g gives
 * x = (9.81 + 45) / 1000 = 0.05481; the internal energy is
 * k x^2 / 2 + (S - 1) k (x - 0.05)^2 / 2 (a wrong tension or a wrong
 * energy is off by far more than 1e-9 here). */
static void hanging(double factor, double want_x) {
  ms_sim *S = mt_open(
      1,
      "scene = { duration = 6.0; fps = 10.0; gravity = [9.81, 0.0, 0.0]; };\n"
      "coupling = { max_dt = 1e-3; };\n"
      "systems = ( { name = \"s\"; solver = \"mass_spring\";\n"
      "  shape = { type = \"points\";\n"
      "            points = ( [0.0, 0.0, 0.0], [1.0, 0.0, 0.0] ); };\n"
      "  spacing = 1.0; spring_radius = 1.5; radius = 0.2; mass = 1.0;\n"
      "  stiffness = 100.0; damping = 20.0; stiffening = %.17g;\n"
      "  pins = ( { min = [-0.1, -0.1, -0.1]; max = [0.1, 0.1, 0.1]; } );\n"
      "} );\n",
      factor);
  struct ms__system *y = st_system(S, "s");
  mt_run_to(S, 6.0);
  double x = stretch(y), xs = fmax(x - 0.05, 0.0);
  ck_assert_msg(fabs(x - want_x) < 1e-9, "stiffening %g: stretch %.12f, "
                "expected %.12f", factor, x, want_x);
  struct ms_energy e = {.struct_size = sizeof e};
  ck_assert_int_eq(y->plugin->desc.energy(y->inst, &e), 0);
  double want_e = 0.5 * 100.0 * x * x + 0.5 * (factor - 1.0) * 100.0 * xs * xs;
  ck_assert_msg(fabs(e.internal - want_e) < 1e-12, "internal energy %.15g, "
                "expected %.15g", e.internal, want_e);
  st_close(S);
}

START_TEST(stiffening_static_stretch) {
  hanging(1.0, 0.0981);
  hanging(10.0, 0.05481);
}
END_TEST

Suite *suite_analytic(void) {
  Suite *s = suite_create("analytic");
  TCase *tc = tcase_create("oscillator");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, rk4_damped_oscillator);
  tcase_add_test(tc, backward_euler_energy_loss);
  tcase_add_test(tc, forward_euler_energy_growth);
  tcase_add_test(tc, trapezoidal_keeps_energy);
  tcase_add_test(tc, midpoint_and_rk4_amplification);
  tcase_add_test(tc, symplectic_euler_modified_energy);
  tcase_add_test(tc, explicit_max_dt);
  tcase_add_test(tc, stiffening_static_stretch);
  suite_add_tcase(s, tc);
  return s;
}
