/* Forces on other systems (plugin ABI 1.5, push()): the forces a system
 * states reach the others' integrate() in the same step, exactly; a
 * system that pushes receives none; momentum is conserved when the pusher
 * takes the reaction; a force that is not finite stops the run with one
 * line naming the system. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "simtest.h"

Suite *suite_push(void);

/* Zero gravity, no contact: a pusher line of 2 particles (masses 1 and
 * 1.25 kg) and a good line of 3 (1, 1.25, 1.5 kg) 1 m away; fixed steps
 * of 0.01 s over 0.5 s. */
#define PUSH_SCENE(pusher, other, other_keys)                             \
  "scene = { duration = 0.5; fps = 10.0; gravity = [0.0, 0.0, 0.0]; };\n" \
  "coupling = { max_dt = 0.01; };\n"                                      \
  "systems = ( { name = \"p\"; solver = \"" pusher "\"; count = 2;\n"    \
  "  push = [0.5, -0.25, 2.0]; },\n"                                      \
  "  { name = \"q\"; solver = \"" other "\"; count = 3;\n"               \
  "  position = [0.0, 1.0, 0.0]; " other_keys " } );\n"

/* Total momentum of system y's particles into P. */
static void momentum_of(const struct ms__system *y, double P[3]) {
  P[0] = P[1] = P[2] = 0.0;
  for (size_t i = 0; i < y->view.count; i++) {
    double m = *ms__at(&y->m, i);
    const double *v = ms__at(&y->v, i);
    for (int a = 0; a < 3; a++) P[a] += m * v[a];
  }
}

/* The good line's particles each take F = (0.5, -0.25, 2) N every step:
 * after 50 steps of 0.01 s, v_i = 0.5 F / m_i to rounding (the springs
 * between them stay at rest: equal accelerations per unit mass would not,
 * so the test takes the mean velocity, sum m v / sum m = 0.5 * 3 F / M);
 * the pusher took -3F in all, and total momentum stays 0. */
START_TEST(pushed_forces_reach_the_others) {
  ms_sim *S = st_open_fixture_text(PUSH_SCENE("fixture_push", "fixture_good", ""));
  struct ms__system *q = st_system(S, "q");
  while (S->stepper.time < 0.5 - 1e-12) st_step(S);
  const double F[3] = {0.5, -0.25, 2.0};
  double P[3], Pq[3], ke;
  st_totals(S, P, &ke);
  momentum_of(q, Pq);
  double worst = 0.0, pmax = 0.0;
  for (int a = 0; a < 3; a++) {
    worst = fmax(worst, fabs(Pq[a] - 0.5 * 3.0 * F[a]) / (1.5 * 2.0));
    pmax = fmax(pmax, fabs(P[a]));
  }
  fprintf(stderr, "# push: receiver's momentum (%.15g, %.15g, %.15g) kg m/s "
          "for 0.5 s x 3 x (0.5, -0.25, 2) N; relative error %.3g; total "
          "momentum %.3g\n", Pq[0], Pq[1], Pq[2], worst, pmax);
  ck_assert_uint_eq(S->stepper.step, 50);
  ck_assert_double_le(worst, 1e-14);
  ck_assert_double_le(pmax, 1e-13);
  st_close(S);
}
END_TEST

/* Two pushers: neither receives the other's forces.  Each still takes the
 * reaction to what it would push (the fixture's own bookkeeping), so q,
 * pushing (1, 0, 0) N on each of p's 2 particles, ends with momentum
 * -0.5 s x 2 x (1, 0, 0) exactly: nothing of p's push arrived. */
START_TEST(pushers_receive_nothing) {
  ms_sim *S = st_open_fixture_text(
      PUSH_SCENE("fixture_push", "fixture_push", "push = [1.0, 0.0, 0.0];"));
  struct ms__system *q = st_system(S, "q");
  while (S->stepper.time < 0.5 - 1e-12) st_step(S);
  /* q's own reaction to pushing (1, 0, 0) N on p's 2 particles: its
   * momentum is -0.5 s x 2 x (1, 0, 0); nothing of p's push arrived */
  double Pq[3];
  momentum_of(q, Pq);
  ck_assert_double_eq_tol(Pq[0], -1.0, 1e-14);
  ck_assert_double_eq_tol(Pq[1], 0.0, 1e-15);
  ck_assert_double_eq_tol(Pq[2], 0.0, 1e-15);
  st_close(S);
}
END_TEST

/* A pushed NaN stops the run at the first step with one line naming the
 * pushing system and the receiver. */
START_TEST(a_force_that_is_not_finite_is_refused) {
  ms_sim *S = st_open_fixture_text(PUSH_SCENE("fixture_pushnan", "fixture_good", ""));
  ck_assert_int_ne(ms_sim_frame(S), 0);
  const char *e = ms_sim_error(S);
  fprintf(stderr, "# %s\n", e);
  ck_assert_ptr_nonnull(strstr(e, "system 'p' (solver 'fixture_pushnan'"));
  ck_assert_ptr_nonnull(strstr(e, "push() gave particle 0 of system 'q'"));
  ck_assert_ptr_null(strchr(e, '\n'));
  st_close(S);
}
END_TEST

Suite *suite_push(void) {
  Suite *s = suite_create("push");
  TCase *t = tcase_create("push");
  tcase_add_test(t, pushed_forces_reach_the_others);
  tcase_add_test(t, pushers_receive_nothing);
  tcase_add_test(t, a_force_that_is_not_finite_is_refused);
  suite_add_tcase(s, t);
  return s;
}
