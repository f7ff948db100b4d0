/* Kernel tests: normalisation by quadrature, gradient (antisymmetry and
 * finite differences), compact support. */
#include <math.h>
#include <stdint.h>

#include "../../plugins/sph/sph.h"
#include "suites.h"

static const double H = 0.013; /* an arbitrary smoothing length [m] */

/* 5-point Gauss-Legendre on [-1, 1]. */
static const double gl_x[5] = {0.0, -0.5384693101056831, 0.5384693101056831,
                               -0.9061798459386640, 0.9061798459386640};
static const double gl_w[5] = {0.5688888888888889, 0.4786286704993665,
                               0.4786286704993665, 0.2369268850561891,
                               0.2369268850561891};

/* 4 pi int_0^b W(r) r^2 dr, composite Gauss-Legendre on m panels. */
static double radial_integral(const struct sph_kernel *k, double b, int m) {
  double sum = 0.0, w = b / m;
  for (int p = 0; p < m; p++) {
    double c = (p + 0.5) * w;
    for (int q = 0; q < 5; q++) {
      double r = c + 0.5 * w * gl_x[q];
      sum += 0.5 * w * gl_w[q] * sph_kernel_w(k, r) * r * r;
    }
  }
  return 4.0 * SPH_PI * sum;
}

/* Deterministic points in the support ball. */
static void point(uint64_t *z, double R, double *x) {
  do {
    for (int a = 0; a < 3; a++) {
      *z ^= *z << 13, *z ^= *z >> 7, *z ^= *z << 17;
      x[a] = R * (2.0 * (double)(*z >> 11) / 9007199254740992.0 - 1.0);
    }
  } while (x[0] * x[0] + x[1] * x[1] + x[2] * x[2] >= R * R);
}

START_TEST(integrates_to_one) {
  struct sph_kernel k;
  sph_kernel_init(&k, _i, H);
  double I = radial_integral(&k, k.R, 400);
  ck_assert_msg(fabs(I - 1.0) <= 1e-6, "%s integrates to %.12f",
                sph_kernel_name(_i), I);
  /* nothing lies beyond the support: integrating further adds nothing */
  double J = radial_integral(&k, 3.0 * k.R, 1200);
  ck_assert_msg(fabs(J - I) <= 1e-12, "%s: %.15f beyond R", sph_kernel_name(_i),
                J - I);
}
END_TEST

START_TEST(gradient_is_antisymmetric) {
  struct sph_kernel k;
  sph_kernel_init(&k, _i, H);
  uint64_t z = 0x9e3779b97f4a7c15ULL;
  int tested = 0;
  for (int t = 0; t < 2000; t++) {
    double a[3], b[3], dab[3], dba[3], ga[3], gb[3];
    point(&z, k.R, a);
    point(&z, 0.5 * k.R, b);
    for (int c = 0; c < 3; c++) dab[c] = a[c] - b[c], dba[c] = b[c] - a[c];
    sph_kernel_grad(&k, dab, ga);
    sph_kernel_grad(&k, dba, gb);
    for (int c = 0; c < 3; c++)
      ck_assert_msg(ga[c] == -gb[c], "%s: grad W(x_ij) != -grad W(x_ji)",
                    sph_kernel_name(_i));
    tested += ga[0] != 0.0 || ga[1] != 0.0 || ga[2] != 0.0;
  }
  ck_assert_int_gt(tested, 500); /* most pairs were inside the support */
}
END_TEST

/* The gradient is the derivative of W: central differences agree. */
START_TEST(gradient_matches_w) {
  struct sph_kernel k;
  sph_kernel_init(&k, _i, H);
  uint64_t z = 12345;
  double scale = k.norm / k.h, del = 1e-6 * k.h, worst = 0.0;
  for (int t = 0; t < 2000; t++) {
    double x[3], g[3];
    point(&z, k.R, x);
    double r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    if (r < 0.05 * k.h) continue; /* spiky's gradient jumps at 0 */
    sph_kernel_grad(&k, x, g);
    for (int c = 0; c < 3; c++) {
      double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
      xp[c] += del, xm[c] -= del;
      double wp = sph_kernel_w(&k, sqrt(xp[0] * xp[0] + xp[1] * xp[1] +
                                        xp[2] * xp[2]));
      double wm = sph_kernel_w(&k, sqrt(xm[0] * xm[0] + xm[1] * xm[1] +
                                        xm[2] * xm[2]));
      worst = fmax(worst, fabs((wp - wm) / (2.0 * del) - g[c]) / scale);
    }
  }
  ck_assert_msg(worst <= 1e-6, "%s: gradient off by %.3g (relative)",
                sph_kernel_name(_i), worst);
  /* and it points inwards: W decreases outwards */
  double x[3] = {0.3 * k.h, 0.2 * k.h, -0.1 * k.h}, g[3];
  sph_kernel_grad(&k, x, g);
  ck_assert(g[0] < 0.0 && g[1] < 0.0 && g[2] > 0.0);
}
END_TEST

START_TEST(vanishes_beyond_support) {
  struct sph_kernel k;
  sph_kernel_init(&k, _i, H);
  const double at[] = {k.R, k.R * (1.0 + 1e-12), 1.5 * k.R, 10.0 * k.R, 1e30};
  for (size_t t = 0; t < sizeof at / sizeof *at; t++) {
    double x[3] = {at[t] * 0.6, -at[t] * 0.8, 0.0}, g[3];
    sph_kernel_grad(&k, x, g);
    ck_assert_msg(sph_kernel_w(&k, at[t]) == 0.0, "%s: W(%g R) != 0",
                  sph_kernel_name(_i), at[t] / k.R);
    ck_assert(g[0] == 0.0 && g[1] == 0.0 && g[2] == 0.0);
  }
  /* continuous at the edge of the support, positive inside */
  ck_assert(sph_kernel_w(&k, k.R * (1.0 - 1e-4)) <= 1e-9 * k.w0);
  ck_assert(sph_kernel_w(&k, k.R * (1.0 - 1e-4)) > 0.0);
  ck_assert(k.w0 == sph_kernel_w(&k, 0.0) && k.w0 > 0.0);
}
END_TEST

START_TEST(names_round_trip) {
  for (int i = 0; i < SPH_KERNEL_COUNT; i++)
    ck_assert_int_eq(sph_kernel_from_name(sph_kernel_name(i)), i);
  ck_assert_int_eq(sph_kernel_from_name("gaussian"), -1);
}
END_TEST

/* Particle mass = rest density * spacing^3 gives rest density on a cubic
 * lattice with the default cubic spline (h = spacing). */
START_TEST(cubic_lattice_sum) {
  struct sph_kernel k;
  double s = 0.02, sum = 0.0;
  sph_kernel_init(&k, SPH_CUBIC_SPLINE, s);
  for (int i = -3; i <= 3; i++)
    for (int j = -3; j <= 3; j++)
      for (int l = -3; l <= 3; l++)
        sum += sph_kernel_w(&k, s * sqrt(i * i + j * j + l * l)) * s * s * s;
  ck_assert_msg(fabs(sum - 1.0) < 1e-4, "lattice sum %.6f", sum);
}
END_TEST

Suite *suite_sph_kernel(void) {
  Suite *s = suite_create("sph_kernel");
  TCase *t = tcase_create("kernel");
  tcase_add_loop_test(t, integrates_to_one, 0, SPH_KERNEL_COUNT);
  tcase_add_loop_test(t, gradient_is_antisymmetric, 0, SPH_KERNEL_COUNT);
  tcase_add_loop_test(t, gradient_matches_w, 0, SPH_KERNEL_COUNT);
  tcase_add_loop_test(t, vanishes_beyond_support, 0, SPH_KERNEL_COUNT);
  tcase_add_test(t, names_round_trip);
  tcase_add_test(t, cubic_lattice_sum);
  suite_add_tcase(s, t);
  return s;
}
