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

/* A hood's particles, its inputs and its slots. */
struct fixture {
  double x[3 * NMAX], m[NMAX], v[3 * NMAX];
  uint32_t nb[NMAX];
  struct vm_hood H;
  struct vm_slot slot[NMAX];
};

/* A hood on the lattice (ccp: the cubic closest packing, else simple
 * cubic): the centre (index 0) and its lattice neighbours within h =
 * 1.5 D (18 on either), turned by R, moved by t, each then displaced by
 * `jitter` times a fixed pseudo-random offset. */
static void build_on(struct fixture *F, const double *R, const double *t,
                     double jitter, int ccp) {
  uint32_t n = 0;
  unsigned seed = ccp ? 777 : 12345;
  const double u = vm_unit(D, ccp);
  for (int i = -2; i <= 2; i++)
    for (int j = -2; j <= 2; j++)
      for (int k = -2; k <= 2; k++) {
        int centre = !i && !j && !k;
        if (!vm_is_point(i, j, k, ccp) ||
            u * u * (i * i + j * j + k * k) >= 2.25 * D * D)
          continue;
        uint32_t p = centre ? 0 : ++n;
        double l[3] = {i * u, j * u, k * u};
        for (int a = 0; a < 3; a++) {
          seed = seed * 1103515245u + 12345u;
          double e = jitter * D * (((seed >> 8) & 1023) / 1023.0 - 0.5);
          F->x[3 * p + a] = t[a] + R[3 * a] * l[0] + R[3 * a + 1] * l[1] +
                            R[3 * a + 2] * l[2] + e;
        }
        F->m[p] = 1e-3 * (1.0 + 0.1 * p);
      }
  for (uint32_t q = 0; q < n; q++) F->nb[q] = q + 1;
  F->H = (struct vm_hood){0, n, F->nb, D, 1.5 * D, 100.0, NULL, NULL, ccp};
}

static void build(struct fixture *F, const double *R, const double *t,
                  double jitter) {
  build_on(F, R, t, jitter, 0);
}

static void build_ccp(struct fixture *F, const double *R, const double *t,
                      double jitter) {
  build_on(F, R, t, jitter, 1);
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

/* A hood built turned by R, undisturbed: with last step's transform the
 * turn itself (every neighbour finds its own lattice point), no force, no
 * energy, and the fit gives the turn back. */
static void assert_turned_holds(struct fixture *F, const double R[9]) {
  double fi[3], A[9];
  memcpy(A, R, sizeof A);
  double e = vm_hood_forces(&F->H, F->x, F->m, A, F->slot, fi);
  double worst = fabs(fi[0]) + fabs(fi[1]) + fabs(fi[2]), dA = 0.0;
  for (uint32_t q = 0; q < F->H.count; q++) {
    ck_assert_int_eq(F->slot[q].used, 1);
    for (int a = 0; a < 3; a++) worst = fmax(worst, fabs(F->slot[q].f[a]));
  }
  for (int i = 0; i < 9; i++) dA = fmax(dA, fabs(A[i] - R[i]));
  /* k D = 1 N: round-off of positions near 0.3 m */
  ck_assert_msg(worst < 1e-11, "force %g N on a turned lattice", worst);
  ck_assert_msg(e < 1e-24, "energy %g J", e);
  ck_assert_msg(dA < 1e-12, "fitted transform off the turn by %g", dA);
}

START_TEST(a_turned_lattice_feels_no_force) {
  static struct fixture F;
  double R[9], t[3] = {0.3, -0.2, 0.1};
  turn(R);
  build(&F, R, t, 0.0);
  ck_assert_uint_eq(F.H.count, 18);
  assert_turned_holds(&F, R);
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

/* Fracture's docking (struct vm_dock) on the turned lattice at rest. */
static uint32_t who[27]; /* who docked where: none at first */

static struct vm_dock dock_of(float *rate, double p_dt, double change,
                              double strain, uint64_t key) {
  for (int p = 0; p < 27; p++) rate[p] = 1.0f, who[p] = UINT32_MAX;
  return (struct vm_dock){rate, who, 1, p_dt, change, strain, key, 1};
}

/* Each neighbour that comes to a point docks there with the Poisson
 * process's probability 1 - exp(-lambda dt): lambda_0 dt = ln 2 gives
 * one half; ln 4 at half the rate one half too (ignoring the rate: 3/4).
 * In the next step those docked stay, all of them, and half of the
 * others dock.  (At a half, a hood left with fewer than three docked,
 * which then holds none, is rare enough: 0.07 %.) */
START_TEST(docking_follows_its_poisson_rate) {
  static struct fixture F;
  double R[9], t[3] = {0.3, -0.2, 0.1}, fi[3], A[9];
  float rate[27];
  turn(R);
  build(&F, R, t, 0.0);
  const double want = 0.5, p_dt[2] = {log(2.0), log(4.0)};
  size_t stayed = 0, was = 0, joined = 0, left = 0;
  for (int half = 0; half < 2; half++) {
    size_t docked = 0, tries = 0;
    for (uint64_t key = 0; key < 4000; key++) {
      struct vm_dock K = dock_of(rate, p_dt[half], 0.0, INFINITY, key * 977);
      if (half)
        for (int p = 0; p < 27; p++) rate[p] = 0.5f;
      F.H.dock = &K;
      memcpy(A, R, sizeof A);
      vm_hood_forces(&F.H, F.x, F.m, A, F.slot, fi);
      int first[NMAX];
      for (uint32_t q = 0; q < F.H.count; q++) {
        docked += F.slot[q].used == 1;
        first[q] = F.slot[q].used == 1;
      }
      tries += F.H.count;
      if (half) continue;
      K.key += 1; /* the next step */
      memcpy(A, R, sizeof A);
      vm_hood_forces(&F.H, F.x, F.m, A, F.slot, fi);
      for (uint32_t q = 0; q < F.H.count; q++) {
        was += first[q], left += !first[q];
        stayed += first[q] && F.slot[q].used == 1;
        joined += !first[q] && F.slot[q].used == 1;
      }
    }
    double got = (double)docked / tries, sd = sqrt(want * (1 - want) / tries);
    ck_assert_msg(fabs(got - want) < 4 * sd, "docked %.4f of the "
                  "neighbours, the process says %.4f (sd %.4f)", got, want,
                  sd);
  }
  double sd = sqrt(0.25 / left);
  ck_assert_uint_eq(stayed, was);
  ck_assert_msg(fabs((double)joined / left - 0.5) < 4 * sd, "%zu of %zu "
                "docked in the next step", joined, left);
  F.H.dock = NULL;
}
END_TEST

/* A point left empty loses lambda_0 dt / tau a step: after tau / dt steps
 * it is lost, and a neighbour that comes back to it does not dock, while
 * the points that stayed docked keep their full rate. */
START_TEST(a_point_empty_for_its_memory_is_lost) {
  static struct fixture F;
  double R[9], t[3] = {0.3, -0.2, 0.1}, fi[3], A[9];
  float rate[27];
  turn(R);
  build(&F, R, t, 0.0);
  struct vm_dock K = dock_of(rate, INFINITY, 0.25, INFINITY, 1);
  F.H.dock = &K;
  uint32_t all = F.H.count;
  memcpy(A, R, sizeof A);
  vm_hood_forces(&F.H, F.x, F.m, A, F.slot, fi); /* whose point is whose */
  double l[3];
  memcpy(l, F.slot[all - 1].l, sizeof l);
  int p = 0;
  for (int a = 0; a < 3; a++) p = 3 * p + (int)lround(l[a] / D) + 1;
  for (int step = 1; step <= 4; step++) {
    F.H.count = all - 1; /* the last neighbour gone */
    vm_hood_forces(&F.H, F.x, F.m, A, F.slot, fi);
    ck_assert_msg(rate[p] == 1.0f - 0.25f * step, "step %d: rate %g", step,
                  rate[p]);
  }
  F.H.count = all; /* back */
  vm_hood_forces(&F.H, F.x, F.m, A, F.slot, fi);
  ck_assert_msg(!F.slot[all - 1].used, "a lost point docked again");
  for (uint32_t q = 0; q + 1 < all; q++) ck_assert_int_eq(F.slot[q].used, 1);
  for (int r = 0; r < 27; r++)
    if (r != p && r != 13 && fabs(r / 9 - 1.0) + fabs(r / 3 % 3 - 1.0) +
                                     fabs(r % 3 - 1.0) < 3)
      ck_assert_msg(rate[r] == 1.0f, "point %d: rate %g", r, rate[r]);
  F.H.dock = NULL;
}
END_TEST

/* The stress criterion: a spring extended beyond eps_c |l| along its
 * rest direction does not dock; one compressed or sheared as much does. */
START_TEST(the_stress_criterion_refuses_a_spring_in_tension) {
  static struct fixture F;
  double R[9], t[3] = {0.3, -0.2, 0.1}, fi[3], A[9];
  float rate[27];
  turn(R);
  const double by[4] = {1.03, 0.97, 1.01, 0.0};
  for (int k = 0; k < 4; k++) {
    build(&F, R, t, 0.0);
    struct vm_dock K = dock_of(rate, INFINITY, 0.0, 0.02, 1);
    F.H.dock = &K;
    double *x1 = F.x + 3; /* neighbour 0 (particle 1), moved along l */
    double d[3] = {x1[0] - F.x[0], x1[1] - F.x[1], x1[2] - F.x[2]};
    double s[3] = {-d[1], d[0], 0.0}; /* across it (k = 3: shear 3 %) */
    double sn = sqrt(s[0] * s[0] + s[1] * s[1]), dn = sqrt(d[0] * d[0] +
                                                          d[1] * d[1] +
                                                          d[2] * d[2]);
    for (int a = 0; a < 3; a++)
      x1[a] = F.x[a] + (k < 3 ? by[k] * d[a] : d[a] + 0.03 * dn * s[a] / sn);
    memcpy(A, R, sizeof A);
    vm_hood_forces(&F.H, F.x, F.m, A, F.slot, fi);
    /* refused: in the fit, without a spring (2); docked: 1 */
    ck_assert_msg(F.slot[0].used == (k != 0 ? 1 : 2), "case %d: used %d",
                  k, F.slot[0].used);
    for (uint32_t q = 1; q < F.H.count; q++)
      ck_assert_int_eq(F.slot[q].used, 1);
  }
  F.H.dock = NULL;
}
END_TEST

/* The packing: a turned hood of it feels no force and its fit is the
 * turn; a jittered one is pulled back with no net force or torque; the
 * nearest point of the packing to any point is a point of it, no
 * farther than the cubic grid's candidates. */
START_TEST(the_packed_lattice_holds_like_the_cubic) {
  static struct fixture F;
  double R[9], t[3] = {0.3, -0.2, 0.1}, fi[3], A[9], f[3], tq[3];
  turn(R);
  build_ccp(&F, R, t, 0.0);
  ck_assert_uint_eq(F.H.count, 18);
  assert_turned_holds(&F, R);
  build_ccp(&F, R, t, 0.3);
  memcpy(A, R, sizeof A);
  double e = vm_hood_forces(&F.H, F.x, F.m, A, F.slot, fi);
  totals(&F, fi, f, tq);
  double big = 0.0;
  for (uint32_t q = 0; q < F.H.count; q++)
    for (int a = 0; a < 3; a++) big = fmax(big, fabs(F.slot[q].f[a]));
  ck_assert(e > 0.0 && big > 1e-3);
  for (int a = 0; a < 3; a++)
    ck_assert_msg(fabs(f[a]) < 2e-13 * big && fabs(tq[a]) < 2e-13 * big,
                  "net force %g, torque %g", f[a], tq[a]);
  unsigned seed = 99;
  const double u = vm_unit(D, 1);
  for (int k = 0; k < 10000; k++) {
    double y[3], l[3], best = INFINITY, got = 0.0;
    for (int a = 0; a < 3; a++) {
      seed = seed * 1103515245u + 12345u;
      y[a] = 5.0 * D * (((seed >> 8) & 65535) / 65535.0 - 0.5);
    }
    vm_nearest(y, D, 1, l);
    int n[3];
    for (int a = 0; a < 3; a++) {
      n[a] = (int)lround(l[a] / u);
      got += (y[a] - l[a]) * (y[a] - l[a]);
    }
    ck_assert(vm_is_point(n[0], n[1], n[2], 1));
    for (int i = -1; i <= 1; i++)
      for (int j = -1; j <= 1; j++)
        for (int m = -1; m <= 1; m++) {
          int c[3] = {(int)floor(y[0] / u) + i, (int)floor(y[1] / u) + j,
                      (int)floor(y[2] / u) + m};
          if (!vm_is_point(c[0], c[1], c[2], 1)) continue;
          double d = 0.0;
          for (int a = 0; a < 3; a++)
            d += (y[a] - u * c[a]) * (y[a] - u * c[a]);
          best = fmin(best, d);
        }
    ck_assert_msg(got <= best * (1 + 1e-12), "not the nearest point");
  }
}
END_TEST

/* A hood under a uniform strain e (symmetric, so the fit's rotation is
 * none) stores (k c / 4) tr(e^2) on either lattice: the sum of w l l^T
 * over its points is c times the identity (both lattices are cubic),
 * which the modulus E = k c / (2 V) rests on. */
START_TEST(a_strained_hood_stores_what_the_modulus_says) {
  static struct fixture F;
  static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double t[3] = {0, 0, 0}, e[9] = {0.010, 0.004, -0.003, 0.004,
                                         -0.006, 0.002, -0.003, 0.002, 0.005};
  double fi[3], A[9], x[3];
  for (int ccp = 0; ccp < 2; ccp++) {
    if (ccp) build_ccp(&F, I3, t, 0.0);
    else build(&F, I3, t, 0.0);
    for (uint32_t p = 0; p <= F.H.count; p++) {
      for (int a = 0; a < 3; a++)
        x[a] = F.x[3 * p + a] + e[3 * a] * F.x[3 * p] +
               e[3 * a + 1] * F.x[3 * p + 1] + e[3 * a + 2] * F.x[3 * p + 2];
      memcpy(F.x + 3 * p, x, sizeof x);
    }
    memcpy(A, I3, sizeof A);
    double U = vm_hood_forces(&F.H, F.x, F.m, A, F.slot, fi), tr = 0.0;
    for (int i = 0; i < 9; i++) tr += e[i] * e[i];
    double want = 100.0 * vm_lattice_moment(D, 1.5 * D, ccp) / 4.0 * tr;
    ck_assert_msg(fabs(U / want - 1.0) < 1e-9, "%s: energy %g, want %g",
                  ccp ? "ccp" : "cubic", U, want);
  }
}
END_TEST

Suite *suite_lattice(void) {
  Suite *s = suite_create("lattice");
  TCase *t = tcase_create("hood");
  tcase_add_test(t, a_turned_lattice_feels_no_force);
  tcase_add_test(t, a_deformed_lattice_is_pulled_back_without_net_force_or_torque);
  tcase_add_test(t, damping_keeps_rigid_motion_and_momenta);
  tcase_add_test(t, docking_follows_its_poisson_rate);
  tcase_add_test(t, the_packed_lattice_holds_like_the_cubic);
  tcase_add_test(t, a_strained_hood_stores_what_the_modulus_says);
  tcase_add_test(t, a_point_empty_for_its_memory_is_lost);
  tcase_add_test(t, the_stress_criterion_refuses_a_spring_in_tension);
  suite_add_tcase(s, t);
  return s;
}
