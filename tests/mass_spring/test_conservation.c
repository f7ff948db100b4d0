/* Conservation and equilibrium: momentum without gravity and pins for
 * every integrator; a cloth pinned at two corners settles symmetrically. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mstest.h"
#include "suites.h"

/* An 8 x 8 free cloth "c" in zero gravity, no drag, spring dashpots
 * `damping`, run `duration` s at `fps` frames with steps of at most max_dt.
 * The integrators alone: no strain limit (test_strain.c has its own). */
static ms_sim *free_cloth(const char *integrator, double duration, double fps,
                          double max_dt, double damping) {
  return mt_open(
      1,
      "scene = { duration = %g; fps = %g; gravity = [0.0, 0.0, 0.0]; };\n"
      "coupling = { max_dt = %g; };\n"
      "systems = ( { name = \"c\"; solver = \"mass_spring\";\n"
      "  self_collision = false;\n"
      "  cloth = { corner = [0.0, 0.0, 0.0]; edge_u = [1.0, 0.0, 0.0];\n"
      "            edge_v = [0.0, 0.2, 1.0]; resolution = [8, 8]; };\n"
      "  mass = 0.1; stiffness = 10.0; shear_stiffness = 10.0;\n"
      "  bend_stiffness = 1.0; damping = %g; integrator = \"%s\";\n"
      "  strain_limit = 0.0; } );\n",
      duration, fps, max_dt, damping, integrator);
}

/* The free cloth with random velocities, 1000 steps. */
static void momentum_case(const char *integrator) {
  ms_sim *S = free_cloth(integrator, 1.0, 10.0, 1e-3, 0.05);
  struct ms__system *y = st_system(S, "c");
  uint64_t seed = 7;
  double p0[3], p[3], ke0, ke;
  for (size_t i = 0; i < y->view.count; i++) {
    double *v = mt_v(y, i);
    v[0] = 0.5 + mt_random(&seed), v[1] = 0.2 + mt_random(&seed);
    v[2] = -0.3 + mt_random(&seed);
  }
  mt_totals(y, p0, &ke0);
  double v5 = mt_v(y, 5)[0];
  while (S->frame < S->frames_total) ck_assert_int_eq(ms_sim_frame(S), 0);
  ck_assert_uint_eq(S->stepper.step, 1000);
  mt_totals(y, p, &ke);
  double n0 = sqrt(p0[0] * p0[0] + p0[1] * p0[1] + p0[2] * p0[2]);
  double dp = sqrt(pow(p[0] - p0[0], 2) + pow(p[1] - p0[1], 2) +
                   pow(p[2] - p0[2], 2));
  ck_assert_msg(dp <= 1e-12 * n0, "%s: momentum drifted by %.3g relative",
                integrator, dp / n0);
  /* the springs did act: velocities changed */
  ck_assert_msg(fabs(mt_v(y, 5)[0] - v5) > 1e-2, "%s: nothing moved",
                integrator);
  st_close(S);
}

/* The cloth's energy() (kinetic + springs' k (l - L)^2 / 2): the same
 * free cloth, undamped.  RK4 at a small step keeps it to 1e-6 (it could
 * not with a wrong spring energy: the forces would not be its gradient);
 * backward Euler never lets it rise from one frame to the next. */
static double cloth_energy(struct ms__system *y) {
  struct ms_energy e = {.struct_size = sizeof e};
  ck_assert_int_eq(y->plugin->desc.energy(y->inst, &e), 0);
  ck_assert(e.potential == 0.0 && e.internal >= 0.0);
  return e.kinetic + e.internal;
}

static void energy_case(const char *integrator, double tol_total,
                        double *rise, double *ratio) {
  ms_sim *S = free_cloth(integrator, 0.5, 20.0, 2e-4, 0.0);
  struct ms__system *y = st_system(S, "c");
  uint64_t seed = 11;
  for (size_t i = 0; i < y->view.count; i++)
    for (int a = 0; a < 3; a++) mt_v(y, i)[a] = 0.3 * mt_random(&seed);
  double e0 = cloth_energy(y), prev = e0, springs = 0.0;
  *rise = 0.0;
  while (S->frame < S->frames_total) {
    ck_assert_int_eq(ms_sim_frame(S), 0);
    double e = cloth_energy(y);
    *rise = fmax(*rise, (e - prev) / e0);
    springs = fmax(springs, y->energy.internal);
    prev = e;
  }
  *ratio = prev / e0;
  /* the springs did take up energy: the test sees the internal part */
  ck_assert_msg(springs > 0.05 * e0, "%s: springs held at most %g of %g J",
                integrator, springs, e0);
  if (tol_total > 0)
    ck_assert_msg(fabs(prev - e0) <= tol_total * e0, "%s: energy %.9g -> "
                  "%.9g", integrator, e0, prev);
  st_close(S);
}

START_TEST(energy_rk4_conserved) {
  double rise, ratio;
  energy_case("rk4", 1e-6, &rise, &ratio);
}
END_TEST

START_TEST(energy_backward_euler_never_rises) {
  double rise, ratio;
  energy_case("backward_euler", 0.0, &rise, &ratio);
  ck_assert_msg(rise <= 0.0, "rose by %g of the start", rise);
  ck_assert(ratio < 1.0);
}
END_TEST

START_TEST(momentum_backward_euler) { momentum_case("backward_euler"); }
END_TEST
START_TEST(momentum_trapezoidal) { momentum_case("trapezoidal"); }
END_TEST
START_TEST(momentum_forward_euler) { momentum_case("forward_euler"); }
END_TEST
START_TEST(momentum_symplectic_euler) { momentum_case("symplectic_euler"); }
END_TEST
START_TEST(momentum_midpoint) { momentum_case("midpoint"); }
END_TEST
START_TEST(momentum_rk4) { momentum_case("rk4"); }
END_TEST

/* A 15 x 15 horizontal cloth pinned at the two corners of one edge swings
 * down and comes to rest; its shape is mirror-symmetric about the plane
 * half-way between the pins (x = 0). */
START_TEST(cloth_settles_symmetric) {
  const uint32_t n = 15;
  ms_sim *S = mt_open(
      1,
      "scene = { duration = 20.0; fps = 10.0; };\n"
      "systems = ( { name = \"c\"; solver = \"mass_spring\";\n"
      "  cloth = { corner = [-0.5, 1.0, -0.5]; edge_u = [1.0, 0.0, 0.0];\n"
      "            edge_v = [0.0, 0.0, 1.0]; resolution = [%u, %u]; };\n"
      "  density = 0.5; stiffness = 500.0; shear_stiffness = 200.0;\n"
      "  bend_stiffness = 5.0; damping = 0.2; mass_damping = 2.0;\n"
      "  pins = ( { corner = \"u0v0\"; }, { corner = \"u1v0\"; } ); } );\n",
      n, n);
  struct ms__system *y = st_system(S, "c");
  double p[3], ke, peak = 0.0;
  int settled = 0;
  while (S->frame < S->frames_total && !settled) {
    ck_assert_int_eq(ms_sim_frame(S), 0);
    mt_totals(y, p, &ke);
    peak = fmax(peak, ke);
    settled = ke < 1e-6 * peak;
  }
  ck_assert_msg(settled, "kinetic energy %.3g, peak %.3g after %g s", ke,
                peak, ms_sim_time(S));
  double low = INFINITY, asym = 0.0;
  for (uint32_t b = 0; b < n; b++)
    for (uint32_t a = 0; a < n; a++) {
      const double *q = mt_x(y, b * n + a), *r = mt_x(y, b * n + n - 1 - a);
      asym = fmax(asym, fabs(q[0] + r[0]));
      asym = fmax(asym, fmax(fabs(q[1] - r[1]), fabs(q[2] - r[2])));
      low = fmin(low, q[1]);
    }
  ck_assert_msg(asym < 1e-9, "asymmetry %.3g", asym);
  ck_assert_msg(low < 0.3, "it hangs: lowest point %.3f", low);
  /* the pins did not move */
  ck_assert(mt_x(y, 0)[0] == -0.5 && mt_x(y, 0)[1] == 1.0);
  ck_assert(mt_x(y, n - 1)[0] == 0.5 && mt_x(y, n - 1)[2] == -0.5);
  st_close(S);
}
END_TEST

Suite *suite_conservation(void) {
  Suite *s = suite_create("conservation");
  TCase *tc = tcase_create("momentum");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, energy_rk4_conserved);
  tcase_add_test(tc, energy_backward_euler_never_rises);
  tcase_add_test(tc, momentum_backward_euler);
  tcase_add_test(tc, momentum_trapezoidal);
  tcase_add_test(tc, momentum_forward_euler);
  tcase_add_test(tc, momentum_symplectic_euler);
  tcase_add_test(tc, momentum_midpoint);
  tcase_add_test(tc, momentum_rk4);
  suite_add_tcase(s, tc);
  tc = tcase_create("settle");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, cloth_settles_symmetric);
  suite_add_tcase(s, tc);
  return s;
}
