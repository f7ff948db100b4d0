/* A rigid body's mechanics (plugins/rigid/body.c) against closed forms:
 * a lattice box's inertia, degenerate bodies, a torque-free body's
 * angular momentum, the intermediate-axis instability, RK4's energy
 * drift, and each integrator's order of convergence. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../plugins/rigid/rigid.h"
#include "suites.h"

static const double g0[3] = {0.0, 0.0, 0.0};

/* n^3 points, spacing h, mass m each: Ixx = m h^2 n^3 (n^2 - 1) / 6. */
START_TEST(lattice_box_inertia) {
  enum { N = 5 };
  double x[3 * N * N * N], m[N * N * N], off[3 * N * N * N];
  double h = 0.1, mass, c[3], Ib[6];
  size_t k = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int l = 0; l < N; l++, k++) {
        x[3 * k] = 1.0 + h * i, x[3 * k + 1] = -2.0 + h * j;
        x[3 * k + 2] = 0.5 + h * l, m[k] = 0.25;
      }
  ck_assert(rigid_mass_properties(k, x, m, &mass, c, Ib, off));
  double want = 0.25 * h * h * N * N * N * (N * N - 1) / 6.0;
  ck_assert_double_eq_tol(mass, 0.25 * N * N * N, 1e-12);
  ck_assert_double_eq_tol(c[0], 1.2, 1e-12);
  ck_assert_double_eq_tol(c[1], -1.8, 1e-12);
  for (int a = 0; a < 3; a++)
    ck_assert_double_eq_tol(Ib[a] / want, 1.0, 1e-12);
  for (int a = 3; a < 6; a++) ck_assert_double_eq_tol(Ib[a], 0.0, 1e-14);
}
END_TEST

START_TEST(degenerate_bodies_are_refused) {
  double x[9] = {0, 0, 0, 1, 1, 1, 2, 2, 2}, m[3] = {1, 2, 3}, off[9];
  double mass, c[3], Ib[6];
  ck_assert(!rigid_mass_properties(3, x, m, &mass, c, Ib, off)); /* line */
  ck_assert(!rigid_mass_properties(1, x, m, &mass, c, Ib, off)); /* point */
  x[8] = 2.5; /* off the line: it can turn */
  ck_assert(rigid_mass_properties(3, x, m, &mass, c, Ib, off));
}
END_TEST

/* A free body with principal moments 1, 2, 3 (the body frame is the
 * principal frame) spinning at w (world frame at q = 1). */
static void spinner(struct rigid_body *b, const double *w) {
  static const double V[3] = {0.3, -0.2, 0.1};
  memset(b, 0, sizeof *b);
  b->mass = 2.0;
  b->Ib[0] = 1.0, b->Ib[1] = 2.0, b->Ib[2] = 3.0;
  b->s.q[0] = 1.0;
  rigid_set_velocity(b, &b->s, V, w);
}

/* Body-frame angular velocity. */
static void body_omega(const struct rigid_body *b, double *wb) {
  double w[3], R[9];
  rigid_omega(b, &b->s, w);
  rigid_rotation(b->s.q, R);
  for (int a = 0; a < 3; a++)
    wb[a] = R[a] * w[0] + R[3 + a] * w[1] + R[6 + a] * w[2];
}

START_TEST(torque_free_body_keeps_L) {
  const double w[3] = {0.4, 1.0, -0.7};
  for (int it = 0; it < 3; it++) {
    struct rigid_body b;
    spinner(&b, w);
    double L0 = sqrt(b.s.L[0] * b.s.L[0] + b.s.L[1] * b.s.L[1] +
                     b.s.L[2] * b.s.L[2]);
    for (int n = 0; n < 10000; n++) rigid_advance(&b, &b.s, it, 1e-3, g0, 0, 0);
    double L = sqrt(b.s.L[0] * b.s.L[0] + b.s.L[1] * b.s.L[1] +
                    b.s.L[2] * b.s.L[2]);
    ck_assert_double_le(fabs(L - L0), 1e-12 * L0);
    double qn = sqrt(b.s.q[0] * b.s.q[0] + b.s.q[1] * b.s.q[1] +
                     b.s.q[2] * b.s.q[2] + b.s.q[3] * b.s.q[3]);
    ck_assert_double_le(fabs(qn - 1.0), 1e-14);
  }
}
END_TEST

/* Spin about axis a with a small perturbation: about the intermediate
 * axis (2) the body flips (the body-frame component changes sign); about
 * the smallest (1) and largest (3) it stays. */
static int flips(int axis) {
  double w[3] = {1e-3, 1e-3, 1e-3}, wb[3];
  w[axis] = 1.0;
  struct rigid_body b;
  spinner(&b, w);
  for (int n = 0; n < 40000; n++) {
    rigid_advance(&b, &b.s, RIGID_RK4, 1e-3, g0, 0, 0);
    body_omega(&b, wb);
    if (wb[axis] < 0.0) return 1;
  }
  return 0;
}

START_TEST(intermediate_axis_instability) {
  ck_assert(flips(1));
  ck_assert(!flips(0));
  ck_assert(!flips(2));
}
END_TEST

START_TEST(rk4_energy_drift) {
  const double w[3] = {0.4, 1.0, -0.7};
  struct rigid_body b;
  spinner(&b, w);
  double e0 = rigid_kinetic_energy(&b, &b.s), worst = 0.0;
  for (int n = 0; n < 10000; n++) {
    rigid_advance(&b, &b.s, RIGID_RK4, 1e-3, g0, 0, 0);
    worst = fmax(worst, fabs(rigid_kinetic_energy(&b, &b.s) - e0) / e0);
  }
  fprintf(stderr, "# RK4, 10^4 steps of 1 ms: largest relative energy "
          "change %.2e\n", worst);
  ck_assert_double_lt(worst, 1e-6);
}
END_TEST

/* A point of the body at time 1 under gravity, a force and a torque,
 * reached in n steps. */
static void point_at_1(int integrator, int n, double *p) {
  static const double w[3] = {0.4, 1.0, -0.7}, g[3] = {0.0, 0.0, -9.81};
  static const double F[3] = {0.5, 0.0, 0.0}, T[3] = {0.0, 0.3, 0.1};
  static const double o[3] = {0.3, -0.2, 0.5};
  struct rigid_body b;
  spinner(&b, w);
  for (int k = 0; k < n; k++)
    rigid_advance(&b, &b.s, integrator, 1.0 / n, g, F, T);
  double R[9];
  rigid_rotation(b.s.q, R);
  for (int a = 0; a < 3; a++)
    p[a] = b.s.x[a] + R[3 * a] * o[0] + R[3 * a + 1] * o[1] +
           R[3 * a + 2] * o[2];
}

static double err(int integrator, int n, const double *ref) {
  double p[3];
  point_at_1(integrator, n, p);
  return sqrt((p[0] - ref[0]) * (p[0] - ref[0]) +
              (p[1] - ref[1]) * (p[1] - ref[1]) +
              (p[2] - ref[2]) * (p[2] - ref[2]));
}

START_TEST(integrators_converge_at_their_orders) {
  static const struct {
    int integrator, n;
    double lo, hi;
  } c[3] = {{RIGID_SYMPLECTIC_EULER, 200, 0.9, 1.1},
            {RIGID_MIDPOINT, 100, 1.9, 2.1},
            {RIGID_RK4, 25, 3.8, 4.2}};
  double ref[3];
  point_at_1(RIGID_RK4, 20000, ref);
  for (int i = 0; i < 3; i++) {
    double e1 = err(c[i].integrator, c[i].n, ref);
    double e2 = err(c[i].integrator, 2 * c[i].n, ref);
    double e4 = err(c[i].integrator, 4 * c[i].n, ref);
    double s1 = log2(e1 / e2), s2 = log2(e2 / e4);
    fprintf(stderr, "# integrator %d: errors %.3g %.3g %.3g at %d, %d, %d "
            "steps; slopes %.3f %.3f\n", c[i].integrator, e1, e2, e4,
            c[i].n, 2 * c[i].n, 4 * c[i].n, s1, s2);
    ck_assert_msg(s1 > c[i].lo && s1 < c[i].hi && s2 > c[i].lo &&
                      s2 < c[i].hi,
                  "integrator %d: slopes %.3f %.3f (errors %.3g %.3g %.3g)",
                  c[i].integrator, s1, s2, e1, e2, e4);
  }
}
END_TEST

Suite *suite_body(void) {
  Suite *s = suite_create("body");
  TCase *tc = tcase_create("mechanics");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, lattice_box_inertia);
  tcase_add_test(tc, degenerate_bodies_are_refused);
  tcase_add_test(tc, torque_free_body_keeps_L);
  tcase_add_test(tc, intermediate_axis_instability);
  tcase_add_test(tc, rk4_energy_drift);
  tcase_add_test(tc, integrators_converge_at_their_orders);
  suite_add_tcase(s, tc);
  return s;
}
