/* Heat between two rigid bodies of two systems (plugin ABI 1.3): each body
 * holds one temperature (lumped), the core lets heat flow over the 25
 * touching particle pairs of their faces.  Two lumped bodies follow
 *   dT/dt = -n G (1/C_a + 1/C_b) dT,
 * and the bodies' temperatures meet at the C-weighted mean. */
#include <math.h>
#include <stdio.h>

#include "../scenes/simtest.h"
#include "../../core/step/step.h"
#include "suites.h"

/* 5 x 5 x 5 particles each (spacing 0.02, radius 0.01), faces 0.019 apart:
 * C_a = 1 kg x 1000 J/(kg K), C_b = 3 kg x 500 J/(kg K). */
static const char two_blocks[] =
    "scene = { duration = 1.0; fps = 20.0; gravity = [0.0, 0.0, 0.0]; };\n"
    "coupling = { max_dt = 0.001; conductance = 48.0; };\n"
    "systems = ( { name = \"a\"; solver = \"rigid\"; spacing = 0.02;\n"
    "  shape = { type = \"box\"; min = [-0.1, -0.05, -0.05];\n"
    "            max = [0.0, 0.05, 0.05]; };\n"
    "  density = 1000.0; temperature = 273.15; specific_heat = 1000.0; },\n"
    " { name = \"b\"; solver = \"rigid\"; spacing = 0.02;\n"
    "  shape = { type = \"box\"; min = [-0.001, -0.05, -0.05];\n"
    "            max = [0.099, 0.05, 0.05]; };\n"
    "  density = 3000.0; temperature = 373.15; specific_heat = 500.0; } );\n";

static double body_t(const struct ms__system *y) {
  double t = *ms__at(&y->T, 0);
  for (size_t i = 1; i < y->view.count; i++)
    ck_assert_double_eq(*ms__at(&y->T, i), t); /* lumped: one value */
  return t;
}

START_TEST(two_lumped_blocks_approach_the_mean) {
  ms_sim *S = st_open_text(two_blocks, 1);
  struct ms__system *a = st_system(S, "a"), *b = st_system(S, "b");
  const double Ca = 1000.0, Cb = 1500.0, G = 48.0, n = 25.0, dt = 1e-3;
  const double ma = 1.0 / 125.0, mb = 3.0 / 125.0; /* particle masses */
  ck_assert_uint_eq(a->view.count, 125);
  ck_assert_uint_eq(b->view.count, 125);
  double q0 = ms__heat_of(a) + ms__heat_of(b), d0 = 100.0, d = d0;
  /* a step: each face pair alone, exactly (particle capacities), then
   * each body lumps what its face took */
  double ap = 1.0 / (ma * 1000.0) + 1.0 / (mb * 500.0);
  double q = -expm1(-G * ap * dt) / ap;
  double worst_discrete = 0.0, worst_closed = 0.0, drift = 0.0;
  uint64_t pairs0 = S->stepper.frame_counts.heat_pairs;
  int steps = 0;
  while (S->stepper.time < 1.0 - 1e-12) {
    st_step(S);
    steps++;
    d -= n * q * d * (1.0 / Ca + 1.0 / Cb);
    double now = body_t(b) - body_t(a);
    double closed = d0 * exp(-n * G * (1.0 / Ca + 1.0 / Cb) *
                             S->stepper.time);
    worst_discrete = fmax(worst_discrete, fabs(now - d) / d0);
    worst_closed = fmax(worst_closed, fabs(now - closed) / closed);
    drift = fmax(drift, fabs(ms__heat_of(a) + ms__heat_of(b) - q0) / q0);
  }
  uint64_t pairs = S->stepper.frame_counts.heat_pairs - pairs0;
  double mean = (Ca * 273.15 + Cb * 373.15) / (Ca + Cb);
  fprintf(stderr, "# two blocks: %d steps, %llu contact pairs, "
          "T_a %.6f K, T_b %.6f K (mean %.6f K); |dT - discrete| / "
          "dT0 %.3g, |dT - closed form| / dT %.4f at worst, heat drift "
          "%.3g\n", steps, (unsigned long long)pairs, body_t(a), body_t(b),
          mean, worst_discrete, worst_closed, drift);
  ck_assert_int_eq(steps, 1000);
  /* the 25 face pairs, every step (st_step keeps the counters) */
  ck_assert_uint_eq(pairs, 25 * 1000);
  /* the scheme as derived (doc/heat.md), to rounding */
  ck_assert_double_le(worst_discrete, 1e-11);
  /* the lumped closed form within 2 % (the bar) over 2.4 time
   * constants: the step's pair solution with particle capacities */
  ck_assert_double_le(worst_closed, 0.02);
  ck_assert_double_le(drift, 1e-12);
  ck_assert_double_lt(body_t(a), mean);
  ck_assert_double_gt(body_t(b), mean);
  st_close(S);
}
END_TEST

Suite *suite_heat(void) {
  Suite *s = suite_create("heat");
  TCase *t = tcase_create("heat");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, two_lumped_blocks_approach_the_mean);
  suite_add_tcase(s, t);
  return s;
}
