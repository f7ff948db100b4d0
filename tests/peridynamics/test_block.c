/* A free block spinning and translating without gravity: linear momentum
 * is kept to the linear solver's tolerance, and kinetic + elastic energy
 * never grows (backward Euler dissipates). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "suites.h"
#include "pdtest.h"

/* 6 x 6 x 6 particles, spacing 0.01, horizon 3 spacings, E = 1e6 Pa,
 * default solver settings: PCG to a relative residual of 1e-8, Newton to a
 * relative velocity residual of 1e-2. */
static const char *block_scene =
    "scene = { duration = 10.0; fps = 10.0; gravity = [0.0, 0.0, 0.0]; };\n"
    "systems = ( { name = \"block\"; solver = \"peridynamics\";\n"
    "  shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
    "            max = [0.06, 0.06, 0.06]; };\n"
    "  spacing = 0.01; youngs_modulus = 1e6; breakable = false;\n"
    "  velocity = [0.3, 0.1, -0.2]; angular_velocity = [2.0, 5.0, 1.0]; "
    "} );\n";

/* sum 1/2 c V^2 L s^2 over the bonds, from the start positions X. */
static double elastic(struct ms__system *y, const struct pdt_bonds *B,
                      const double *X, double cv2) {
  double e = 0.0;
  for (size_t k = 0; k < B->count; k++) {
    size_t i = B->pair[2 * k], j = B->pair[2 * k + 1];
    double L = 0.0, l = 0.0;
    for (int a = 0; a < 3; a++) {
      L += pow(X[3 * j + a] - X[3 * i + a], 2);
      l += pow(ms__at(&y->x, j)[a] - ms__at(&y->x, i)[a], 2);
    }
    L = sqrt(L), l = sqrt(l);
    e += 0.5 * cv2 * (l - L) * (l - L) / L;
  }
  return e;
}

START_TEST(spinning_block_keeps_momentum_and_loses_energy) {
  ms_sim *S = st_open_text(block_scene, 1);
  struct ms__system *y = st_system(S, "block");
  size_t n = y->view.count;
  ck_assert_uint_eq(n, 216);
  const double h = 0.01, delta = 3.0 * h, K = 2.0 / 3.0 * 1e6;
  const double c = 18.0 * K / (3.14159265358979323846 * pow(delta, 4));
  const double cv2 = c * pow(h, 6);
  double *X = malloc(3 * n * sizeof *X);
  for (size_t i = 0; i < n; i++)
    for (int a = 0; a < 3; a++) X[3 * i + a] = ms__at(&y->x, i)[a];
  struct pdt_bonds B;
  pdt_bonds_init(&B, y, delta);
  double p0[3], ke, worst_p = 0.0, worst_e = -INFINITY;
  st_totals(S, p0, &ke);
  double np0 = sqrt(p0[0] * p0[0] + p0[1] * p0[1] + p0[2] * p0[2]);
  double e_prev = ke + elastic(y, &B, X, cv2), e_first = e_prev;
  for (int k = 0; k < 500; k++) {
    st_step(S);
    double p[3];
    st_totals(S, p, &ke);
    double dp = sqrt(pow(p[0] - p0[0], 2) + pow(p[1] - p0[1], 2) +
                     pow(p[2] - p0[2], 2));
    worst_p = fmax(worst_p, dp / np0);
    double e = ke + elastic(y, &B, X, cv2);
    worst_e = fmax(worst_e, (e - e_prev) / e_prev);
    e_prev = e;
  }
  fprintf(stderr,
          "# block: 500 steps, t = %.3f s, momentum drift %.3g "
          "(relative), largest energy rise %.3g (relative), energy kept "
          "%.4f, %.0f Newton iterations, %.0f PCG iterations\n",
          S->stepper.time, worst_p, worst_e, e_prev / e_first,
          pdt_stat(y, "newton_iterations"), pdt_stat(y, "pcg_iterations"));
  ck_assert_uint_eq(pdt_observe(&B, y), 0);
  ck_assert_msg(worst_p <= 1e-8, "momentum drifted by %.3g", worst_p);
  ck_assert_msg(worst_e <= 1e-6, "energy grew by %.3g in one step", worst_e);
  ck_assert(e_prev < e_first); /* it did dissipate */
  ck_assert(e_prev > 0.5 * e_first); /* ... but it still spins */
  free(X);
  pdt_bonds_free(&B);
  st_close(S);
}
END_TEST

Suite *suite_block(void) {
  Suite *s = suite_create("block");
  TCase *tc = tcase_create("conservation");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, spinning_block_keeps_momentum_and_loses_energy);
  suite_add_tcase(s, tc);
  return s;
}
