/* Material formulas and the bond force law. */
#include <math.h>
#include <string.h>

#include "../../plugins/peridynamics/peridynamics.h"
#include "suites.h"
#include "pdtest.h"

/* The numbers: E = 2.1e5, nu = 1/4, delta = 0.0603, G0 = 2.7. */
START_TEST(formulas_match_reference_values) {
  double K = pd_bulk_modulus(2.1e5, 0.25);
  ck_assert_rel(K, 1.4e5, 1e-15, 0.0);
  ck_assert_rel(pd_critical_stretch(2.7, K, 0.0603), 0.013329779199, 1e-9,
                0.0);
  ck_assert_rel(pd_micromodulus(K, 0.0603), 6.0671037207e10, 1e-9, 0.0);
  /* other Poisson ratios follow E / (3 (1 - 2 nu)) */
  ck_assert_rel(pd_bulk_modulus(3.0, 0.0), 1.0, 1e-15, 0.0);
}
END_TEST

/* A two-particle model with one bond of rest length L along a direction. */
static void two(struct pd_model *M, double L, const double *dir) {
  static const uint32_t off[3] = {0, 1, 2}, idx[2] = {1, 0};
  memset(M, 0, sizeof *M);
  ck_assert_int_eq(pd_model_alloc(M, 2), 0);
  for (int a = 0; a < 3; a++) {
    M->x[a] = 0.1 * (a + 1);
    M->x[3 + a] = M->x[a] + L * dir[a];
  }
  M->mat.micro = 2.0e9, M->mat.volume = 1e-6, M->mat.damping = 0.003;
  ck_assert_int_eq(pd_bonds_build(M, off, idx), 0);
  ck_assert_uint_eq(M->bonds.count, 1);
  ck_assert_rel(M->bonds.rest[0], L, 1e-14, 0.0);
}

static void force(struct pd_model *M, const double *x, const double *v,
                  double *f, double *K, double *D) {
  pd_bond_eval(M, 0, 1, x, v, f, K, D);
}

/* Force c s V^2 along the bond plus the dashpot; its Jacobians agree with
 * central differences (stretched bond: full K; compressed: transverse part
 * clamped at zero). */
START_TEST(bond_force_and_jacobians) {
  const double dir[3] = {0.6, 0.0, 0.8}, L = 0.03;
  struct pd_model M;
  two(&M, L, dir);
  const double cv2 = 2.0e9 * 1e-12, k = cv2 / L;
  for (int c = 0; c < 2; c++) {
    double s = c ? -0.02 : 0.015; /* stretched, then compressed */
    double x[6], v[6] = {0.1, -0.2, 0.3, -0.4, 0.5, 0.25}, f[3], K[6], D[6];
    memcpy(x, M.x, 6 * sizeof *x);
    /* stretch along the bond, plus a sideways offset */
    for (int a = 0; a < 3; a++) x[3 + a] = x[a] + L * (1.0 + s) * dir[a];
    force(&M, x, v, f, K, D);
    double vn = 0.0;
    for (int a = 0; a < 3; a++) vn += (v[3 + a] - v[a]) * dir[a];
    for (int a = 0; a < 3; a++)
      ck_assert_rel(f[a], (cv2 * s + 0.003 * k * vn) * dir[a], 1e-12, 1e-12);
    /* central differences of f in x_j and v_j */
    static const int at[3][3] = {{0, 3, 4}, {3, 1, 5}, {4, 5, 2}};
    x[4] += (c ? 0.1 : 0.3) * L; /* off-axis: transverse stiffness shows */
    force(&M, x, v, f, K, D);
    double l = 0.0;
    for (int a = 0; a < 3; a++) l += pow(x[3 + a] - x[a], 2);
    l = sqrt(l);
    ck_assert(c ? l < L : l > L);
    for (int b = 0; b < 3; b++) {
      /* K is the elastic stiffness: differentiate at rest (the dashpot's
       * dependence on the bond direction is left out on purpose) */
      double e = 1e-7 * L, fp[3], fm[3], fv[3], Kd[6], Dd[6], vv[6];
      static const double rest[6] = {0.0};
      x[3 + b] += e;
      force(&M, x, rest, fp, Kd, Dd);
      x[3 + b] -= 2.0 * e;
      force(&M, x, rest, fm, Kd, Dd);
      x[3 + b] += e;
      memcpy(vv, v, sizeof vv);
      vv[3 + b] += 1e-3; /* the force is linear in v */
      force(&M, x, vv, fv, Kd, Dd);
      for (int a = 0; a < 3; a++) {
        if (l > L) /* stretched: K is the exact derivative */
          ck_assert_rel(K[at[a][b]], (fp[a] - fm[a]) / (2.0 * e), 1e-5,
                        k * 1e-6);
        ck_assert_rel(D[at[a][b]], (fv[a] - f[a]) / 1e-3, 1e-7, k * 1e-9);
      }
    }
    if (l < L) { /* compressed: only the axial part, so K is PSD */
      double n[3];
      for (int a = 0; a < 3; a++) n[a] = (x[3 + a] - x[a]) / l;
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
          ck_assert_rel(K[at[a][b]], k * n[a] * n[b], 1e-12, k * 1e-12);
    }
  }
  pd_model_free(&M);
}
END_TEST

/* A broken bond contributes nothing. */
START_TEST(broken_bond_is_silent) {
  const double dir[3] = {1.0, 0.0, 0.0};
  struct pd_model M;
  two(&M, 0.02, dir);
  M.bonds.broken[0] = 1;
  double x[6], v[6] = {1, 2, 3, 4, 5, 6}, f[3] = {9, 9, 9}, K[6], D[6];
  memcpy(x, M.x, sizeof x);
  x[3] += 0.01;
  force(&M, x, v, f, K, D);
  for (int a = 0; a < 3; a++) ck_assert(f[a] == 0.0);
  for (int a = 0; a < 6; a++) ck_assert(K[a] == 0.0 && D[a] == 0.0);
  pd_model_free(&M);
}
END_TEST

Suite *suite_material(void) {
  Suite *s = suite_create("material");
  TCase *tc = tcase_create("formulas");
  tcase_add_test(tc, formulas_match_reference_values);
  tcase_add_test(tc, bond_force_and_jacobians);
  tcase_add_test(tc, broken_bond_is_silent);
  suite_add_tcase(s, tc);
  return s;
}
