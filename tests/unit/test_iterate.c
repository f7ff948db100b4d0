/* Coupling iterations (doc/sync.md section 6): the partitioned step
 * reaches the monolithic one, and the unknowns keep their places. */
#include <check.h>

#include <math.h>
#include <string.h>

#include <mergesplit/plugin.h>

#include "../../core/coupling/coupling.h"
#include "suites.h"
#include "testutil.h"

/* Three meta-particles (mass m each) over three systems, one axis (the
 * others are alike).  System s holds meta k by a spring ks[s][k] to an
 * anchor a[s][k]; system 0 also joins metas 0 and 1 by a spring kc; system
 * 2 also pushes with a constant force.  System s's backward-Euler step
 * from start velocities w: (m 1 + h^2 K_s) v = m w - h K_s x + h b_s. */
#define IT_K 3
struct it_toy {
  double m, h, x[IT_K], v[IT_K];
  double K[3][IT_K][IT_K], b[3][IT_K];
};

static void it_toy_init(struct it_toy *t) {
  memset(t, 0, sizeof *t);
  t->m = 0.1, t->h = 0.01;
  const double ks[3][IT_K] = {{5e4, 3e4, 8e4}, {8e4, 6e4, 2e4},
                              {4e4, 9e4, 6e4}};
  const double anchor[3][IT_K] = {{0.01, -0.02, 0.0}, {-0.01, 0.03, 0.02},
                                  {0.0, 0.01, -0.01}};
  const double kc = 2e4, x[IT_K] = {0.0, 0.1, 0.2}, v[IT_K] = {1.0, -0.5, 0.2};
  memcpy(t->x, x, sizeof x);
  memcpy(t->v, v, sizeof v);
  for (int s = 0; s < 3; s++)
    for (int k = 0; k < IT_K; k++) {
      t->K[s][k][k] += ks[s][k];
      t->b[s][k] += ks[s][k] * anchor[s][k];
    }
  /* the coupling spring's rest length is its start length */
  t->K[0][0][0] += kc, t->K[0][1][1] += kc;
  t->K[0][0][1] -= kc, t->K[0][1][0] -= kc;
  t->b[0][0] -= kc * (t->x[1] - t->x[0]);
  t->b[0][1] += kc * (t->x[1] - t->x[0]);
  t->b[2][0] += 3.0, t->b[2][1] -= 1.0, t->b[2][2] += 2.0;
}

/* Backward Euler of the summed stiffness (sum_s K_s, inertia `mass`),
 * from start velocities w[k]. */
static void it_toy_step(const struct it_toy *t, const int *sys, int ns,
                        double mass, const double *w, double *out) {
  double A[9][10];
  memset(A, 0, sizeof A);
  for (int i = 0; i < IT_K; i++) {
    A[i][i] = mass;
    A[i][IT_K] = mass * w[i];
    for (int q = 0; q < ns; q++) {
      int s = sys[q];
      A[i][IT_K] += t->h * t->b[s][i];
      for (int j = 0; j < IT_K; j++) {
        A[i][j] += t->h * t->h * t->K[s][i][j];
        A[i][IT_K] -= t->h * t->K[s][i][j] * t->x[j];
      }
    }
  }
  t_solve(IT_K, A);
  for (int i = 0; i < IT_K; i++) out[i] = A[i][IT_K];
}

/* Iterate the partitioned step; returns the residual after `passes`
 * passes and leaves V in vfin (x components). */
static double it_toy_run(const struct it_toy *t, uint32_t passes,
                         uint32_t cols, double omega0, double *V) {
  uint32_t eoff[IT_K + 1], esys[3 * IT_K];
  double emass[3 * IT_K], evel[9 * IT_K], edisp[9 * IT_K], eext[9 * IT_K];
  double ew[3 * IT_K], vel[3 * IT_K], vfin[3 * IT_K], disp[3 * IT_K];
  double mass[IT_K], dek[IT_K], pdef[3 * IT_K], pexch[IT_K];
  uint8_t econ[3 * IT_K] = {0}, elead[3 * IT_K] = {0}, coll[IT_K] = {0};
  uint8_t touched[3];
  const double g0[3] = {0.0, 0.0, 0.0};
  for (int k = 0; k <= IT_K; k++) eoff[k] = 3 * (uint32_t)k;
  for (int e = 0; e < 3 * IT_K; e++) esys[e] = (uint32_t)e % 3, ew[e] = 1.0;
  memset(vel, 0, sizeof vel);
  memset(eext, 0, sizeof eext);
  memset(evel, 0, sizeof evel);
  for (int k = 0; k < IT_K; k++) {
    mass[k] = t->m;
    vel[3 * k] = t->v[k];
  }
  struct ms__metaset M = {
      .count = IT_K, .nentries = 3 * IT_K, .eoff = eoff, .esys = esys,
      .emass = emass, .evel = evel, .edisp = edisp, .econ = econ,
      .vfin = vfin, .disp = disp, .dek = dek, .vel = vel, .mass = mass,
      .coll = coll, .ew = ew, .elead = elead, .pdef = pdef, .pexch = pexch,
      .eext = eext};
  struct ms__iqn Q = {0};
  ck_assert_int_eq(ms__iqn_start(&Q, &M, cols), MS_OK);
  double r = 0.0, scale;
  for (uint32_t p = 1; p <= passes; p++) {
    for (int s = 0; s < 3; s++) { /* each system on its own */
      double w[IT_K], out[IT_K];
      for (int k = 0; k < IT_K; k++) w[k] = t->v[k] + eext[3 * (3 * k + s)];
      it_toy_step(t, &s, 1, t->m, w, out);
      for (int k = 0; k < IT_K; k++) evel[3 * (3 * k + s)] = out[k];
    }
    struct ms__ledger L = {0};
    ms__metaset_sync(&M, MS__SYNC_MOMENTUM, t->h, g0, &L);
    r = ms__iqn_residual(&Q, &M, g0, touched, &scale);
    ck_assert(touched[0] && touched[1] && touched[2]);
    if (p < passes) ms__iqn_update(&Q, &M, omega0);
  }
  for (int k = 0; k < IT_K; k++) V[k] = vfin[3 * k];
  ms__iqn_free(&Q);
  return r / scale;
}

/* The fixed point of the iterations is the monolithic backward-Euler step
 * of all three systems together (doc/sync.md section 6); quasi-Newton
 * reaches it on stiff springs (h^2 k / m from 20 to 90) where plain
 * Jacobi, the one-pass rule iterated, grows without bound: each system
 * undoes nearly all of what it is handed, so with three of them the
 * iteration matrix has an eigenvalue near -2. */
START_TEST(coupling_iterations_reach_the_monolithic_step) {
  struct it_toy t;
  it_toy_init(&t);
  const int all[3] = {0, 1, 2};
  double mono[IT_K], V[IT_K];
  it_toy_step(&t, all, 3, t.m, t.v, mono);
  double r = it_toy_run(&t, 15, 32, 0.5, V);
  ck_assert_msg(r < 1e-10, "quasi-Newton: residual %g after 15 passes", r);
  for (int k = 0; k < IT_K; k++) ck_assert_rel(V[k], mono[k], 1e-10, 1.0);
  /* one pass is the plain momentum rule: far from the monolithic step */
  it_toy_run(&t, 1, 32, 0.5, V);
  ck_assert(fabs(V[0] - mono[0]) > 0.1);
  /* Jacobi: no history, no relaxation; its distance from the monolithic
   * step grows with the passes */
  double e5 = 0.0, e20 = 0.0;
  it_toy_run(&t, 5, 0, 1.0, V);
  for (int k = 0; k < IT_K; k++) e5 += fabs(V[k] - mono[k]);
  it_toy_run(&t, 20, 0, 1.0, V);
  for (int k = 0; k < IT_K; k++) e20 += fabs(V[k] - mono[k]);
  ck_assert_msg(e20 > 10.0 * e5 && e20 > 1.0,
                "Jacobi: |V - monolithic| %g after 5 passes, %g after 20",
                e5, e20);
}
END_TEST

/* The unknowns are fixed when a step's iterations start: a result a later
 * pass constrains (a wall reached after the start velocity changed) keeps
 * its meta-particle's place, so the history stays aligned and nothing is
 * written past the vectors. */
START_TEST(iteration_unknowns_keep_their_places) {
  uint32_t eoff[3] = {0, 2, 4}, esys[4] = {0, 1, 0, 1};
  double evel[12] = {1, 0, 0, 2, 0, 0, 0, 1, 0, 0, 3, 0}, eext[12] = {0};
  double vel[6] = {0}, vfin[6] = {1.5, 0, 0, 0, 2, 0};
  uint8_t econ[4] = {0, 0, MS_CONSTRAINED, 0}, elead[4] = {0}, touched[2];
  struct ms__metaset M = {.count = 2, .nentries = 4, .eoff = eoff,
                          .esys = esys, .evel = evel, .econ = econ,
                          .elead = elead, .vel = vel, .vfin = vfin,
                          .eext = eext};
  struct ms__iqn Q = {0};
  const double g0[3] = {0.0, 0.0, 0.0};
  ck_assert_int_eq(ms__iqn_start(&Q, &M, 4), MS_OK);
  ck_assert_uint_eq(Q.n, 6); /* meta 0 only: meta 1 has a wall */
  econ[0] = MS_CONSTRAINED, econ[2] = 0; /* the next pass differs */
  double scale, r = ms__iqn_residual(&Q, &M, g0, touched, &scale);
  ck_assert_double_eq_tol(r, sqrt(0.25 + 0.25), 1e-15);
  ms__iqn_update(&Q, &M, 0.5);
  ck_assert(eext[0] == 0.25 && eext[3] == -0.25 && eext[7] == 0.0);
  ms__iqn_free(&Q);
}
END_TEST

/* A step whose last pass agrees less than an earlier one goes back to
 * that one's start-velocity changes: the best is kept (only when it is
 * better), and restored only when the last is worse. */
START_TEST(a_worse_last_pass_goes_back_to_the_best) {
  uint32_t eoff[2] = {0, 2}, esys[2] = {0, 1};
  double evel[6] = {1, 0, 0, 2, 0, 0}, eext[6] = {0.1, 0, 0, -0.1, 0, 0};
  double vel[3] = {0}, vfin[3] = {1.5, 0, 0};
  uint8_t econ[2] = {0}, elead[2] = {0};
  struct ms__metaset M = {.count = 1, .nentries = 2, .eoff = eoff,
                          .esys = esys, .evel = evel, .econ = econ,
                          .elead = elead, .vel = vel, .vfin = vfin,
                          .eext = eext};
  struct ms__iqn Q = {0};
  ck_assert_int_eq(ms__iqn_start(&Q, &M, 4), MS_OK);
  ck_assert_int_eq(ms__iqn_keep_best(&Q, &M, 0.5), MS_OK); /* kept */
  eext[0] = 7.0, eext[3] = -7.0;
  ck_assert_int_eq(ms__iqn_keep_best(&Q, &M, 0.6), MS_OK); /* not better */
  ck_assert_int_eq(ms__iqn_restore_best(&Q, &M, 0.4), 0); /* last is best */
  ck_assert(eext[0] == 7.0 && eext[3] == -7.0);
  ck_assert_int_eq(ms__iqn_restore_best(&Q, &M, 0.9), 1);
  ck_assert(eext[0] == 0.1 && eext[3] == -0.1 && eext[1] == 0.0);
  ck_assert_int_eq(ms__iqn_start(&Q, &M, 4), MS_OK); /* a new step */
  ck_assert_int_eq(ms__iqn_restore_best(&Q, &M, 0.9), 0);
  ms__iqn_free(&Q);
}
END_TEST

Suite *suite_iterate(void) {
  Suite *s = suite_create("iterate");
  TCase *tc = tcase_create("math");
  tcase_add_test(tc, coupling_iterations_reach_the_monolithic_step);
  tcase_add_test(tc, iteration_unknowns_keep_their_places);
  tcase_add_test(tc, a_worse_last_pass_goes_back_to_the_best);
  suite_add_tcase(s, tc);
  return s;
}
