/* One neighbourhood's lattice (plugins/virtual_material/lattice.c): a
 * lattice turned and moved as a whole feels no force and its fitted
 * transform is the turn; a deformed one is pulled back, with no net force
 * and no net torque; the damping leaves a rigid velocity field alone and
 * keeps momentum and angular momentum of any other. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../plugins/virtual_material/virtual_material.h"
#include "suites.h"

#define D 0.01
#define NMAX 27

/* A hood: the centre (index 0) and its lattice neighbours within h =
 * 1.5 D (18), turned by R, moved by t, each then displaced by `jitter`
 * times a fixed pseudo-random offset. */
struct fixture {
  double x[3 * NMAX], m[NMAX], v[3 * NMAX];
  uint32_t nb[NMAX];
  struct vm_hood H;
  struct vm_slot slot[NMAX];
};

static void build(struct fixture *F, const double *R, const double *t,
                  double jitter) {
  uint32_t n = 0;
  unsigned seed = 12345;
  for (int i = -1; i <= 1; i++)
    for (int j = -1; j <= 1; j++)
      for (int k = -1; k <= 1; k++) {
        int centre = !i && !j && !k;
        if (i * i + j * j + k * k > 2) continue;
        uint32_t p = centre ? 0 : ++n;
        double l[3] = {i * D, j * D, k * D};
        for (int a = 0; a < 3; a++) {
          seed = seed * 1103515245u + 12345u;
          double e = jitter * D * (((seed >> 8) & 1023) / 1023.0 - 0.5);
          F->x[3 * p + a] = t[a] + R[3 * a] * l[0] + R[3 * a + 1] * l[1] +
                            R[3 * a + 2] * l[2] + e;
        }
        F->m[p] = 1e-3 * (1.0 + 0.1 * p);
      }
  for (uint32_t q = 0; q < n; q++) F->nb[q] = q + 1;
  F->H = (struct vm_hood){0, n, F->nb, D, 1.5 * D, 100.0, NULL};
}

/* A turn of 0.7 rad about the axis (1, 2, 3). */
static void turn(double *R) {
  double u[3] = {1, 2, 3}, a = 0.7, n = sqrt(14.0), c = cos(a), s = sin(a);
  for (int i = 0; i < 3; i++) u[i] /= n;
  double K[9] = {0, -u[2], u[1], u[2], 0, -u[0], -u[1], u[0], 0};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      R[3 * i + j] = (i == j) * c + s * K[3 * i + j] + (1 - c) * u[i] * u[j];
}

START_TEST(a_turned_lattice_feels_no_force) {
  static struct fixture F;
  double R[9], t[3] = {0.3, -0.2, 0.1}, fi[3], A[9];
  turn(R);
  build(&F, R, t, 0.0);
  ck_assert_uint_eq(F.H.count, 18);
  /* last step's transform: the turn itself, so every neighbour finds its
   * own lattice point */
  memcpy(A, R, sizeof A);
  double e = vm_hood_forces(&F.H, F.x, F.m, A, F.slot, fi);
  double worst = fabs(fi[0]) + fabs(fi[1]) + fabs(fi[2]), dA = 0.0;
  for (uint32_t q = 0; q < F.H.count; q++) {
    ck_assert(F.slot[q].used);
    for (int a = 0; a < 3; a++) worst = fmax(worst, fabs(F.slot[q].f[a]));
  }
  for (int i = 0; i < 9; i++) dA = fmax(dA, fabs(A[i] - R[i]));
  /* k D = 1 N: round-off of positions near 0.3 m */
  ck_assert_msg(worst < 1e-11, "force %g N on a turned lattice", worst);
  ck_assert_msg(e < 1e-24, "energy %g J", e);
  ck_assert_msg(dA < 1e-12, "fitted transform off the turn by %g", dA);
}
END_TEST

/* Net force and torque of a hood's forces (slots and centre). */
static void totals(const struct fixture *F, const double *fi, double *f,
                   double *tq) {
  for (int a = 0; a < 3; a++) f[a] = fi[a], tq[a] = 0.0;
  const double *x = F->x;
  tq[0] = x[1] * fi[2] - x[2] * fi[1];
  tq[1] = x[2] * fi[0] - x[0] * fi[2];
  tq[2] = x[0] * fi[1] - x[1] * fi[0];
  for (uint32_t q = 0; q < F->H.count; q++) {
    const double *p = x + 3 * (size_t)F->nb[q], *g = F->slot[q].f;
    for (int a = 0; a < 3; a++) f[a] += g[a];
    tq[0] += p[1] * g[2] - p[2] * g[1];
    tq[1] += p[2] * g[0] - p[0] * g[2];
    tq[2] += p[0] * g[1] - p[1] * g[0];
  }
}

START_TEST(a_deformed_lattice_is_pulled_back_without_net_force_or_torque) {
  static struct fixture F;
  double R[9], t[3] = {0.3, -0.2, 0.1}, fi[3], A[9], f[3], tq[3];
  turn(R);
  build(&F, R, t, 0.3);
  memcpy(A, R, sizeof A);
  double e = vm_hood_forces(&F.H, F.x, F.m, A, F.slot, fi);
  totals(&F, fi, f, tq);
  double big = 0.0;
  for (uint32_t q = 0; q < F.H.count; q++)
    for (int a = 0; a < 3; a++) big = fmax(big, fabs(F.slot[q].f[a]));
  ck_assert(e > 0.0 && big > 1e-3);
  for (int a = 0; a < 3; a++) {
    ck_assert_msg(fabs(f[a]) < 1e-14 * big * 20, "net force %g of %g", f[a],
                  big);
    ck_assert_msg(fabs(tq[a]) < 1e-14 * big * 20, "net torque %g", tq[a]);
  }
  /* a neighbour pushed off its rest point is pulled back toward it: the
   * force on it does work against the displacement */
  double work = 0.0;
  for (uint32_t q = 0; q < F.H.count; q++) {
    double g[3], l[3];
    memcpy(l, F.slot[q].l, sizeof l);
    for (int a = 0; a < 3; a++)
      g[a] = F.x[a] + R[3 * a] * l[0] + R[3 * a + 1] * l[1] +
             R[3 * a + 2] * l[2];
    for (int a = 0; a < 3; a++)
      work += F.slot[q].f[a] * (F.x[3 * F.nb[q] + a] - g[a]);
  }
  ck_assert_msg(work < 0.0, "forces push away from the rest (%g)", work);
}
END_TEST

START_TEST(damping_keeps_rigid_motion_and_momenta) {
  static struct fixture F;
  double R[9], t[3] = {0.3, -0.2, 0.1}, dvi[3];
  turn(R);
  build(&F, R, t, 0.2);
  uint32_t n = F.H.count + 1;
  /* rigid: V + w x x */
  const double V[3] = {0.5, -1.0, 2.0}, w[3] = {3.0, -1.0, 0.5};
  for (uint32_t p = 0; p < n; p++) {
    const double *x = F.x + 3 * p;
    F.v[3 * p + 0] = V[0] + w[1] * x[2] - w[2] * x[1];
    F.v[3 * p + 1] = V[1] + w[2] * x[0] - w[0] * x[2];
    F.v[3 * p + 2] = V[2] + w[0] * x[1] - w[1] * x[0];
  }
  vm_hood_damping(&F.H, F.x, F.v, F.m, 0.05, F.slot, dvi);
  double worst = fabs(dvi[0]) + fabs(dvi[1]) + fabs(dvi[2]);
  for (uint32_t q = 0; q < F.H.count; q++)
    for (int a = 0; a < 3; a++) worst = fmax(worst, fabs(F.slot[q].f[a]));
  ck_assert_msg(worst < 1e-15, "rigid motion damped by %g m/s", worst);
  /* any other field: momentum and angular momentum unchanged */
  unsigned seed = 7;
  for (uint32_t p = 0; p < 3 * n; p++) {
    seed = seed * 1103515245u + 12345u;
    F.v[p] = ((seed >> 8) & 1023) / 512.0 - 1.0;
  }
  vm_hood_damping(&F.H, F.x, F.v, F.m, 0.05, F.slot, dvi);
  double P[3], L[3], big = 0.0;
  for (int a = 0; a < 3; a++) P[a] = F.m[0] * dvi[a];
  L[0] = F.m[0] * (F.x[1] * dvi[2] - F.x[2] * dvi[1]);
  L[1] = F.m[0] * (F.x[2] * dvi[0] - F.x[0] * dvi[2]);
  L[2] = F.m[0] * (F.x[0] * dvi[1] - F.x[1] * dvi[0]);
  for (uint32_t q = 0; q < F.H.count; q++) {
    const double *x = F.x + 3 * (q + 1), *d = F.slot[q].f;
    double mq = F.m[q + 1];
    for (int a = 0; a < 3; a++) P[a] += mq * d[a], big = fmax(big, fabs(d[a]));
    L[0] += mq * (x[1] * d[2] - x[2] * d[1]);
    L[1] += mq * (x[2] * d[0] - x[0] * d[2]);
    L[2] += mq * (x[0] * d[1] - x[1] * d[0]);
  }
  ck_assert(big > 1e-3);
  for (int a = 0; a < 3; a++) {
    ck_assert_msg(fabs(P[a]) < 1e-18, "momentum %g", P[a]);
    ck_assert_msg(fabs(L[a]) < 1e-18, "angular momentum %g", L[a]);
  }
}
END_TEST

Suite *suite_lattice(void) {
  Suite *s = suite_create("lattice");
  TCase *t = tcase_create("hood");
  tcase_add_test(t, a_turned_lattice_feels_no_force);
  tcase_add_test(t, a_deformed_lattice_is_pulled_back_without_net_force_or_torque);
  tcase_add_test(t, damping_keeps_rigid_motion_and_momenta);
  suite_add_tcase(s, t);
  return s;
}
