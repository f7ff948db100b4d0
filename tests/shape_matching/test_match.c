/* The math of one cluster (plugins/shape_matching/match.c): the polar
 * decomposition to round-off, proper even for singular and inverted
 * matrices; the linear and quadratic fits reproduce an affine and a
 * quadratic deformation exactly; the goals exert no net force (and, in
 * rigid mode, no torque); degenerate rest shapes are found. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "../../plugins/shape_matching/shape_matching.h"
#include "suites.h"

static double det3(const double *A) {
  return A[0] * (A[4] * A[8] - A[5] * A[7]) -
         A[1] * (A[3] * A[8] - A[5] * A[6]) +
         A[2] * (A[3] * A[7] - A[4] * A[6]);
}

/* |R^T R - I| and the asymmetry of R^T A, both max-abs. */
static void polar_errors(const double *A, const double *R, double *orth,
                         double *asym) {
  double RtR[9], RtA[9];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      RtR[3 * r + c] = RtA[3 * r + c] = 0.0;
      for (int k = 0; k < 3; k++) {
        RtR[3 * r + c] += R[3 * k + r] * R[3 * k + c];
        RtA[3 * r + c] += R[3 * k + r] * A[3 * k + c];
      }
    }
  *orth = *asym = 0.0;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      *orth = fmax(*orth, fabs(RtR[3 * r + c] - (r == c)));
      *asym = fmax(*asym, fabs(RtA[3 * r + c] - RtA[3 * c + r]));
    }
}

START_TEST(polar_to_round_off) {
  static const double A[4][9] = {
      {2.0, 0.3, -0.1, 0.2, 1.5, 0.4, -0.3, 0.1, 0.8},      /* general */
      {1.0, 0.7, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0},        /* shear */
      {1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0},        /* planar */
      {-1.0, 0.2, 0.0, 0.1, 1.0, 0.0, 0.0, 0.0, 1.0}};      /* inverted */
  for (int t = 0; t < 4; t++) {
    double R[9], q[4] = {1, 0, 0, 0}, orth, asym;
    msc_polar(A[t], R, q);
    polar_errors(A[t], R, &orth, &asym);
    ck_assert_msg(orth < 1e-15 * 4, "case %d: |R^T R - I| = %g", t, orth);
    ck_assert_msg(fabs(det3(R) - 1.0) < 1e-14, "case %d: det R = %.17g", t,
                  det3(R));
    /* R^T A symmetric: the rotation of the polar decomposition itself
     * (for the inverted case, the best proper rotation's condition, which
     * the quaternion iteration reaches only linearly: a body turned inside
     * out needs the right way round, not round-off) */
    if (t < 3) ck_assert_msg(asym < 1e-14, "case %d: R^T A asym %g", t, asym);
    else ck_assert_msg(asym < 1e-8, "case %d: R^T A asym %g", t, asym);
  }
}
END_TEST

/* A lattice cluster of n^3 particles, spacing d, mass m, about its centre. */
#define N 4
static void lattice(double *q, double *w, double d) {
  int k = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int l = 0; l < N; l++, k++) {
        q[3 * k] = d * (i - 1.5), q[3 * k + 1] = d * (j - 1.5);
        q[3 * k + 2] = d * (l - 1.5), w[k] = 0.1 + 0.01 * (k % 7);
      }
  /* the weights are uneven: centre the offsets on the weighted mean */
  double c[3] = {0, 0, 0}, ws = 0.0;
  for (k = 0; k < N * N * N; k++) {
    ws += w[k];
    for (int a = 0; a < 3; a++) c[a] += w[k] * q[3 * k + a];
  }
  for (k = 0; k < N * N * N; k++)
    for (int a = 0; a < 3; a++) q[3 * k + a] -= c[a] / ws;
}

static void cluster_init(struct sm_cluster *c) {
  memset(c, 0, sizeof *c);
  c->cnt = N * N * N, c->qr[0] = 1.0;
  for (int i = 0; i < 9; i++) c->Sp[i] = i % 4 == 0;
}

/* A volume-keeping affine map (linear mode) and a bend with no linear
 * part (quadratic mode) are fitted exactly: with beta = 1 the goals are
 * where the particles are. */
START_TEST(fits_are_exact) {
  enum { M = N * N * N };
  double q[3 * M], w[M], p[3 * M], g[3 * M], aqq9[81];
  lattice(q, w, 0.1);
  const double F[9] = {1.2, 0.3, 0.0, 0.0, 1.0 / 1.2, 0.1, 0.0, 0.0, 1.0};
  const double t[3] = {0.5, -1.0, 2.0};
  for (int mode = SM_LINEAR; mode <= SM_QUADRATIC; mode++) {
    struct sm_cluster c;
    cluster_init(&c);
    ck_assert(sm_rest(&c, w, q, mode, aqq9));
    for (int e = 0; e < M; e++) {
      const double *x = q + 3 * e;
      for (int r = 0; r < 3; r++)
        p[3 * e + r] = t[r] + (mode == SM_LINEAR
                                   ? F[3 * r] * x[0] + F[3 * r + 1] * x[1] +
                                         F[3 * r + 2] * x[2]
                                   : x[r] + (r == 1 ? 3.0 * x[0] * x[0] +
                                                          1.5 * x[0] * x[2]
                                                    : 0.0));
    }
    struct sm_params prm = {mode, 1.0};
    sm_goals(&c, &prm, w, q, aqq9, p, g, NULL);
    double err = 0.0;
    for (int i = 0; i < 3 * M; i++) err = fmax(err, fabs(g[i] - p[i]));
    ck_assert_msg(err < 1e-14, "mode %d: goal off by %g", mode, err);
  }
}
END_TEST

/* For any positions the goals exert no net force, and the rigid goals no
 * torque about the centre (a free body keeps its momenta); with beta = 0
 * every mode's goals are the rest shape, rotated: distances exact. */
START_TEST(goals_exert_no_force) {
  enum { M = N * N * N };
  double q[3 * M], w[M], p[3 * M], g[3 * M], aqq9[81];
  lattice(q, w, 0.1);
  for (int e = 0; e < M; e++)
    for (int a = 0; a < 3; a++)
      p[3 * e + a] = q[3 * e + a] * (1.0 + 0.3 * a) +
                     0.02 * sin(7.0 * e + a) + 0.1 * q[3 * e + (a + 1) % 3];
  for (int mode = SM_RIGID; mode <= SM_QUADRATIC; mode++)
    for (int b = 0; b <= 1; b++) {
      struct sm_cluster c;
      cluster_init(&c);
      ck_assert(sm_rest(&c, w, q, mode, aqq9));
      struct sm_params prm = {mode, 0.7 * b};
      sm_goals(&c, &prm, w, q, aqq9, p, g, NULL);
      double F[3] = {0, 0, 0}, T[3] = {0, 0, 0}, cm[3] = {0, 0, 0};
      for (int e = 0; e < M; e++)
        for (int a = 0; a < 3; a++) cm[a] += w[e] * p[3 * e + a] / c.wsum;
      for (int e = 0; e < M; e++) {
        double d[3], r[3];
        for (int a = 0; a < 3; a++) {
          d[a] = w[e] * (g[3 * e + a] - p[3 * e + a]);
          r[a] = p[3 * e + a] - cm[a];
          F[a] += d[a];
        }
        T[0] += r[1] * d[2] - r[2] * d[1];
        T[1] += r[2] * d[0] - r[0] * d[2];
        T[2] += r[0] * d[1] - r[1] * d[0];
      }
      for (int a = 0; a < 3; a++) {
        ck_assert_msg(fabs(F[a]) < 1e-15, "mode %d beta %d: force %g", mode,
                      b, F[a]);
        if (mode == SM_RIGID || !b)
          ck_assert_msg(fabs(T[a]) < 1e-15, "mode %d beta %d: torque %g",
                        mode, b, T[a]);
      }
      if (b) continue;
      double worst = 0.0;
      for (int i = 0; i < M; i++)
        for (int j = i + 1; j < M; j++) {
          double d0 = 0.0, d1 = 0.0;
          for (int a = 0; a < 3; a++) {
            d0 += pow(q[3 * i + a] - q[3 * j + a], 2);
            d1 += pow(g[3 * i + a] - g[3 * j + a], 2);
          }
          worst = fmax(worst, fabs(sqrt(d1) / sqrt(d0) - 1.0));
        }
      ck_assert_msg(worst < 1e-14, "mode %d: distance off by %g", mode,
                    worst);
    }
}
END_TEST

/* One layer is coplanar (no linear fit); two layers cannot hold a
 * quadratic; the rigid mode takes both. */
START_TEST(degenerate_rest_shapes) {
  enum { M = N * N * N };
  double q[3 * M], w[M], aqq9[81];
  lattice(q, w, 0.1);
  struct sm_cluster c;
  double flat[3 * N * N], wf[N * N];
  for (int e = 0; e < N * N; e++) {
    flat[3 * e] = q[3 * 4 * e], flat[3 * e + 1] = q[3 * 4 * e + 1];
    flat[3 * e + 2] = 0.0, wf[e] = 1.0;
  }
  cluster_init(&c);
  c.cnt = N * N;
  ck_assert(!sm_rest(&c, wf, flat, SM_LINEAR, aqq9));
  ck_assert(sm_rest(&c, wf, flat, SM_RIGID, aqq9));
  /* two layers along z: z^2 is constant there */
  double two[3 * 2 * N * N], wt[2 * N * N];
  for (int e = 0; e < 2 * N * N; e++) {
    two[3 * e] = q[3 * 2 * e], two[3 * e + 1] = q[3 * 2 * e + 1];
    two[3 * e + 2] = e % 2 ? 0.05 : -0.05, wt[e] = 1.0;
  }
  cluster_init(&c);
  c.cnt = 2 * N * N;
  ck_assert(sm_rest(&c, wt, two, SM_LINEAR, aqq9));
  ck_assert(!sm_rest(&c, wt, two, SM_QUADRATIC, aqq9));
}
END_TEST

/* Mueller 2005's plasticity: below the yield nothing creeps; above it Sp
 * moves by h creep (S - I) (volume kept), and never past cmax. */
START_TEST(plastic_creep_and_cap) {
  struct sm_cluster c;
  cluster_init(&c);
  double A[9] = {1.1, 0, 0, 0, 1.0 / sqrt(1.1), 0, 0, 0, 1.0 / sqrt(1.1)};
  double e = 1.1 - 1.0; /* the xx strain */
  ck_assert(!sm_plastic(&c, A, 0.2, 50.0, 1.0, 0.01));
  ck_assert(sm_plastic(&c, A, 0.05, 50.0, 1.0, 0.01));
  /* Sp = (I + 0.5 E) / cbrt(det) */
  double sx = 1.0 + 0.5 * e, sy = 1.0 + 0.5 * (1.0 / sqrt(1.1) - 1.0);
  double f = cbrt(sx * sy * sy);
  ck_assert_double_eq_tol(c.Sp[0], sx / f, 1e-14);
  ck_assert_double_eq_tol(c.Sp[4], sy / f, 1e-14);
  ck_assert_double_eq_tol(det3(c.Sp), 1.0, 1e-14);
  cluster_init(&c);
  ck_assert(sm_plastic(&c, A, 0.0, 100.0, 0.01, 0.01));
  double D = 0.0;
  for (int i = 0; i < 9; i++) D += pow(c.Sp[i] * cbrt(1.0) - (i % 4 == 0), 2);
  ck_assert_msg(sqrt(D) <= 0.0101, "cap 0.01, |Sp - I| = %g", sqrt(D));
}
END_TEST

Suite *suite_match(void) {
  Suite *s = suite_create("match");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, polar_to_round_off);
  tcase_add_test(tc, fits_are_exact);
  tcase_add_test(tc, goals_exert_no_force);
  tcase_add_test(tc, degenerate_rest_shapes);
  tcase_add_test(tc, plastic_creep_and_cap);
  suite_add_tcase(s, tc);
  return s;
}
