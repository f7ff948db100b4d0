/* Meta-particles inside integrate(), driven directly through the plugin's
 * descriptor with hand-made meta-particles: the members move rigidly, and
 * the meta-particle's momentum change equals the impulse of the plugin's
 * forces on its members plus gravity on its whole mass. */
#include <math.h>
#include <string.h>

#include "mstest.h"
#include "suites.h"

#define K 50.0
#define C 0.5

/* A chain of 4 particles (mass 1) with springs between neighbours (rest
 * length 1), pinned particle 3 when `pin`. */
static ms_sim *chain(const char *integrator, const double g[3], int pin) {
  return mt_open(
      1,
      "scene = { duration = 1.0; gravity = [%.17e, %.17e, %.17e]; };\n"
      "systems = ( { name = \"s\"; solver = \"mass_spring\";\n"
      "  self_collision = false;\n"
      "  shape = { type = \"points\"; points = ( [0.0, 0.0, 0.0],\n"
      "    [1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [3.0, 0.0, 0.0] ); };\n"
      "  spacing = 1.0; spring_radius = 1.2; radius = 0.1; mass = 1.0;\n"
      "  stiffness = %.17g; damping = %.17g; integrator = \"%s\";\n"
      "  %s } );\n",
      g[0], g[1], g[2], K, C, integrator,
      pin ? "pins = ( { min = [2.9, -0.1, -0.1]; max = [3.1, 0.1, 0.1]; } );"
          : "");
}

/* Spring force on particle b from particle a (rest length 1). */
static void spring_on(const double *xa, const double *va, const double *xb,
                      const double *vb, double *f) {
  double d[3], l = 0.0, s = 0.0;
  for (int k = 0; k < 3; k++) d[k] = xa[k] - xb[k], l += d[k] * d[k];
  l = sqrt(l);
  for (int k = 0; k < 3; k++) s += (va[k] - vb[k]) * d[k] / l;
  for (int k = 0; k < 3; k++) f[k] += (K * (l - 1.0) + C * s) * d[k] / l;
}

struct meta_run {
  double x0[4][3], v0[4][3], x1[4][3], v1[4][3];
  double V[3], M, rv[3], rd[3];
  uint8_t con;
};

/* Particles 1 and 2 form one meta-particle of whole mass 5 (own 2). */
static void run_meta(ms_sim *S, double dt, struct meta_run *R) {
  struct ms__system *y = st_system(S, "s");
  const struct ms_plugin *P = &y->plugin->desc;
  static const double x[4][3] = {{0.0, 0.1, 0.0}, {1.2, -0.1, 0.05},
                                 {2.1, 0.0, 0.1}, {2.9, 0.2, -0.1}};
  static const double v[4][3] = {{0.3, 0.1, 0.0}, {9.0, 9.0, 9.0},
                                 {9.0, 9.0, 9.0}, {-0.2, 0.0, 0.4}};
  for (int i = 0; i < 4; i++) {
    memcpy(mt_x(y, i), x[i], sizeof x[i]);
    if (!(*(const uint8_t *)((const char *)mt_field(y, "pinned")->data + i)))
      memcpy(mt_v(y, i), v[i], sizeof v[i]);
  }
  for (int i = 0; i < 4; i++) {
    memcpy(R->x0[i], mt_x(y, i), sizeof R->x0[i]);
    memcpy(R->v0[i], mt_v(y, i), sizeof R->v0[i]);
  }
  struct ms_step st = {sizeof st, 1, 0, 0.0, dt, NULL};
  uint32_t off[2] = {0, 2}, mem[2] = {1, 2};
  double mass = 5.0, own = 2.0, pos[3] = {1.65, -0.05, 0.075};
  R->V[0] = 0.7, R->V[1] = -0.4, R->V[2] = 0.25, R->M = mass;
  struct ms_metas m = {sizeof m, 1, off, mem, &mass, &own, pos, R->V, NULL};
  struct ms_meta_result r = {sizeof r, 1, R->rv, R->rd, &R->con};
  R->con = 0;
  ck_assert_int_eq(P->begin_step(y->inst, &st), 0);
  ck_assert_int_eq(P->integrate(y->inst, &st, &m, &r), 0);
  for (int i = 0; i < 4; i++) {
    memcpy(R->x1[i], mt_x(y, i), sizeof R->x1[i]);
    memcpy(R->v1[i], mt_v(y, i), sizeof R->v1[i]);
  }
}

/* Members: displaced by exactly the reported vector, moving with exactly
 * the reported velocity. */
static void check_rigid(const struct meta_run *R) {
  for (int i = 1; i <= 2; i++)
    for (int k = 0; k < 3; k++) {
      ck_assert(R->x1[i][k] == R->x0[i][k] + R->rd[k]);
      ck_assert(R->v1[i][k] == R->rv[k]);
    }
}

static void check_impulse(const struct meta_run *R, const double g[3],
                          double dt, const double (*x)[3],
                          const double (*v)[3], double tol) {
  double f[3] = {0.0, 0.0, 0.0};
  spring_on(x[0], v[0], x[1], v[1], f); /* spring 0-1 on member 1 */
  spring_on(x[3], v[3], x[2], v[2], f); /* spring 2-3 on member 2 */
  for (int k = 0; k < 3; k++) {
    double dp = R->M * (R->rv[k] - R->V[k]);
    double J = dt * (f[k] + R->M * g[k]);
    ck_assert_msg(fabs(dp - J) <= tol * (fabs(J) + 1e-3),
                  "axis %d: M dV = %.15g, impulse %.15g", k, dp, J);
  }
}

/* Backward Euler: forces at the end of the step.  Along the chain's axis
 * the springs are linear, so one Newton step is exact. */
START_TEST(meta_backward_euler_axis) {
  static const double g[3] = {-2.0, 0.0, 0.0};
  ms_sim *S = chain("backward_euler", g, 0);
  struct ms__system *y = st_system(S, "s");
  const struct ms_plugin *P = &y->plugin->desc;
  double dt = 0.01;
  /* stay on the axis: positions and velocities along x only */
  static const double x[4] = {0.0, 1.2, 2.1, 2.9}, v[4] = {0.3, 0, 0, -0.2};
  for (int i = 0; i < 4; i++) {
    double *p = mt_x(y, i), *q = mt_v(y, i);
    p[0] = x[i], p[1] = p[2] = 0.0, q[0] = v[i], q[1] = q[2] = 0.0;
  }
  struct meta_run R;
  double x0[4][3], v1[4][3];
  for (int i = 0; i < 4; i++) memcpy(x0[i], mt_x(y, i), sizeof x0[i]);
  struct ms_step st = {sizeof st, 1, 0, 0.0, dt, NULL};
  uint32_t off[2] = {0, 2}, mem[2] = {1, 2};
  double mass = 5.0, own = 2.0, pos[3] = {1.65, 0.0, 0.0};
  double V[3] = {0.7, 0.0, 0.0}, rv[3], rd[3];
  uint8_t con = 0;
  struct ms_metas m = {sizeof m, 1, off, mem, &mass, &own, pos, V, NULL};
  struct ms_meta_result r = {sizeof r, 1, rv, rd, &con};
  ck_assert_int_eq(P->begin_step(y->inst, &st), 0);
  ck_assert_int_eq(P->integrate(y->inst, &st, &m, &r), 0);
  memcpy(R.V, V, sizeof V), memcpy(R.rv, rv, sizeof rv);
  memcpy(R.rd, rd, sizeof rd), R.M = mass;
  for (int i = 0; i < 4; i++) {
    memcpy(R.x0[i], x0[i], sizeof x0[i]);
    memcpy(R.x1[i], mt_x(y, i), sizeof R.x1[i]);
    memcpy(R.v1[i], mt_v(y, i), sizeof R.v1[i]);
    memcpy(v1[i], mt_v(y, i), sizeof v1[i]);
  }
  check_rigid(&R);
  ck_assert_int_eq(con, 0);
  for (int k = 0; k < 3; k++) ck_assert(fabs(rd[k] - dt * rv[k]) < 1e-15);
  check_impulse(&R, g, dt, (const double(*)[3])R.x1,
                (const double(*)[3])v1, 1e-11);
  /* the free ends obey the same law: m (v1 - v0) = dt f(end) */
  double f0[3] = {0.0, 0.0, 0.0};
  spring_on(R.x1[1], v1[1], R.x1[0], v1[0], f0);
  ck_assert(fabs((v1[0][0] - 0.3) - dt * (f0[0] + g[0])) < 1e-12);
  st_close(S);
}
END_TEST

/* Symplectic Euler: forces at the start, members moving with V. */
START_TEST(meta_symplectic_euler_3d) {
  static const double g[3] = {0.5, -9.81, 1.0};
  ms_sim *S = chain("symplectic_euler", g, 0);
  struct meta_run R;
  double dt = 1e-3, vstart[4][3];
  run_meta(S, dt, &R);
  check_rigid(&R);
  memcpy(vstart, R.v0, sizeof vstart);
  for (int i = 1; i <= 2; i++) memcpy(vstart[i], R.V, sizeof R.V);
  check_impulse(&R, g, dt, (const double(*)[3])R.x0,
                (const double(*)[3])vstart, 1e-12);
  for (int k = 0; k < 3; k++) ck_assert(R.rd[k] == dt * R.rv[k]);
  st_close(S);
}
END_TEST

/* Backward Euler in 3-D: rigid members, total momentum of the nodes
 * (free particles and the meta-particle with its whole mass) changes by
 * exactly the gravity impulse (the springs are internal). */
START_TEST(meta_backward_euler_momentum) {
  static const double g[3] = {0.5, -9.81, 1.0};
  ms_sim *S = chain("backward_euler", g, 0);
  struct meta_run R;
  double dt = 5e-3;
  run_meta(S, dt, &R);
  check_rigid(&R);
  for (int k = 0; k < 3; k++) {
    double p0 = R.v0[0][k] + R.v0[3][k] + R.M * R.V[k];
    double p1 = R.v1[0][k] + R.v1[3][k] + R.M * R.rv[k];
    double want = dt * g[k] * (2.0 + R.M);
    ck_assert_msg(fabs(p1 - p0 - want) < 1e-12, "axis %d: %.15g vs %.15g",
                  k, p1 - p0, want);
  }
  st_close(S);
}
END_TEST

/* A meta-particle holding a pinned particle is pinned: it does not move,
 * and says so; and whatever the core then writes to the pinned particle
 * (a split's velocity, a displacement), end_step puts it back. */
START_TEST(meta_with_pin_is_constrained) {
  static const double g[3] = {0.0, -9.81, 0.0};
  ms_sim *S = chain("backward_euler", g, 1);
  struct ms__system *y = st_system(S, "s");
  const struct ms_plugin *P = &y->plugin->desc;
  struct ms_step st = {sizeof st, 1, 0, 0.0, 0.01, NULL};
  uint32_t off[2] = {0, 2}, mem[2] = {2, 3};
  double mass = 4.0, own = 2.0, pos[3] = {2.5, 0.0, 0.0};
  double V[3] = {1.0, 2.0, 3.0}, rv[3], rd[3], x2[3];
  uint8_t con = 0;
  memcpy(x2, mt_x(y, 2), sizeof x2);
  struct ms_metas m = {sizeof m, 1, off, mem, &mass, &own, pos, V, NULL};
  struct ms_meta_result r = {sizeof r, 1, rv, rd, &con};
  ck_assert_int_eq(P->begin_step(y->inst, &st), 0);
  ck_assert_int_eq(P->integrate(y->inst, &st, &m, &r), 0);
  ck_assert_int_eq(con, MS_PINNED);
  for (int k = 0; k < 3; k++) {
    ck_assert(rv[k] == 0.0 && rd[k] == 0.0);
    ck_assert(mt_x(y, 2)[k] == x2[k] && mt_v(y, 2)[k] == 0.0);
  }
  /* the free particles fell */
  ck_assert(mt_v(y, 0)[1] < 0.0);
  /* the core's write W1: particle 3 is the pinned one, 2 a free member */
  double x3[3];
  memcpy(x3, mt_x(y, 3), sizeof x3);
  for (int k = 0; k < 3; k++) {
    mt_x(y, 2)[k] += 0.01 * (k + 1), mt_v(y, 2)[k] = 0.5 * (k + 1);
    mt_x(y, 3)[k] += 0.01 * (k + 1), mt_v(y, 3)[k] = 0.5 * (k + 1);
  }
  ck_assert_int_eq(P->end_step(y->inst, &st), 0);
  for (int k = 0; k < 3; k++) {
    ck_assert(mt_x(y, 3)[k] == x3[k] && mt_v(y, 3)[k] == 0.0);
    ck_assert(mt_x(y, 2)[k] == x2[k] + 0.01 * (k + 1) &&
              mt_v(y, 2)[k] == 0.5 * (k + 1));
  }
  st_close(S);
}
END_TEST

/* Rewind restores the start bitwise; integrating again gives the same. */
START_TEST(rewind_is_bitwise) {
  static const double g[3] = {0.5, -9.81, 1.0};
  ms_sim *S = chain("backward_euler", g, 0);
  struct ms__system *y = st_system(S, "s");
  struct meta_run A, B;
  run_meta(S, 0.01, &A);
  ck_assert_int_eq(y->plugin->desc.rewind(y->inst), 0);
  for (int i = 0; i < 4; i++)
    ck_assert(!memcmp(mt_x(y, i), A.x0[i], sizeof A.x0[i]) &&
              !memcmp(mt_v(y, i), A.v0[i], sizeof A.v0[i]));
  run_meta(S, 0.01, &B);
  ck_assert(!memcmp(A.x1, B.x1, sizeof A.x1) &&
            !memcmp(A.v1, B.v1, sizeof A.v1));
  st_close(S);
}
END_TEST

Suite *suite_metas(void) {
  Suite *s = suite_create("metas");
  TCase *tc = tcase_create("integrate");
  tcase_add_test(tc, meta_backward_euler_axis);
  tcase_add_test(tc, meta_symplectic_euler_3d);
  tcase_add_test(tc, meta_backward_euler_momentum);
  tcase_add_test(tc, meta_with_pin_is_constrained);
  tcase_add_test(tc, rewind_is_bitwise);
  suite_add_tcase(s, tc);
  return s;
}
