/* Heat inside a shape-matching body that conducts (conductivity given):
 * a bar of 10 x 2 x 2 particles held at 400 K at one end by a scene heat
 * source relaxes at the slowest rate of its lattice, and the books close
 * (the heat sum grows by exactly what the source put in). */
#include <math.h>
#include <stdio.h>

#include "../scenes/simtest.h"
#include "../../core/step/step.h"
#include "suites.h"

/* Spacing s = 0.01 m, density 1000, c = 1000 J/(kg K): C = 1 J/K per
 * particle; k = 500 W/(m K): G = k s = 5 W/K between lattice neighbours.
 * The first layer (x = 0.005) is held at 400 K; the other nine, a chain
 * with a held end and an insulated end, relax at the slowest rate of
 * G/C tridiag(-1, 2, -1) (last diagonal 1): 4 (G/C) sin^2(pi / 38). */
static const char bar[] =
    "scene = { duration = 8.0; fps = 10.0; gravity = [0.0, 0.0, 0.0];\n"
    "  heat_sources = ( { min = [-0.001, -1.0, -1.0];\n"
    "    max = [0.01, 1.0, 1.0]; temperature = 400.0; } ); };\n"
    "coupling = { max_dt = 0.002; };\n"
    "systems = ( { name = \"bar\"; solver = \"shape_matching\";\n"
    "  shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
    "            max = [0.1, 0.02, 0.02]; };\n"
    "  spacing = 0.01; density = 1000.0; temperature = 300.0;\n"
    "  specific_heat = 1000.0; conductivity = 500.0; } );\n";

/* 400 K less the mean temperature of the far layer (x > 0.09). */
static double far_gap(const struct ms__system *y) {
  double t = 0.0;
  int n = 0;
  for (size_t i = 0; i < y->view.count; i++)
    if (ms__at(&y->x, i)[0] > 0.09) t += *ms__at(&y->T, i), n++;
  return 400.0 - t / n;
}

START_TEST(bar_relaxes_at_its_slowest_rate) {
  ms_sim *S = st_open_text(bar, 1);
  struct ms__system *y = st_system(S, "bar");
  ck_assert_uint_eq(y->view.count, 40);
  double q0 = ms__heat_of(y), g4 = 0.0, books = 0.0;
  while (S->stepper.time < 8.0 - 1e-9) {
    st_step(S);
    if (fabs(S->stepper.time - 4.0) < 1e-9) g4 = far_gap(y);
    double in = S->stepper.frame_counts.heat_injected;
    books = fmax(books, fabs(ms__heat_of(y) - q0 - in) / q0);
  }
  double g8 = far_gap(y), rate = log(g4 / g8) / 4.0;
  double want = 4.0 * 5.0 * pow(sin(M_PI / 38.0), 2);
  fprintf(stderr, "# bar: far end %.4f K below the hot end at 4 s, %.4f K "
          "at 8 s: rate %.5f /s, the lattice's slowest %.5f /s (%.2f %%); "
          "|heat - start - injected| / start %.3g\n", g4, g8, rate, want,
          100.0 * (rate / want - 1.0), books);
  ck_assert_double_gt(g4, 1.0); /* still far from the end state */
  ck_assert_double_le(fabs(rate / want - 1.0), 0.02);
  ck_assert_double_le(books, 1e-12);
  st_close(S);
}
END_TEST

Suite *suite_heat(void) {
  Suite *s = suite_create("heat");
  TCase *t = tcase_create("heat");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, bar_relaxes_at_its_slowest_rate);
  suite_add_tcase(s, t);
  return s;
}
