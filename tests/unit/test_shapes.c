/* Shape sampling: exact counts on the lattice, containment, determinism. */
#include <check.h>
#include <libconfig.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "../../core/scene/scene.h"
#include "testutil.h"

size_t t_sample_shape(const char *text, double h, size_t max, double **xyz,
                      int *rc, char *msg, size_t len) {
  config_t cfg;
  struct ms__err err = {0};
  struct ms__rng r;
  size_t n = 0;
  config_init(&cfg);
  ck_assert_int_eq(config_read_string(&cfg, text), CONFIG_TRUE);
  ms__rng_seed(&r, 1, 2, 3);
  *xyz = NULL;
  *rc = ms__shape_sample(config_lookup(&cfg, "shape"), h, max, &r, xyz, &n,
                         &err);
  if (msg) ms__strlcpy(msg, err.msg, len);
  config_destroy(&cfg);
  return n;
}

/* At most max points: more are refused with MS_ECONFIG. */
static size_t sample_max(const char *text, double h, size_t max, double **xyz,
                         int *rc) {
  return t_sample_shape(text, h, max, xyz, rc, NULL, 0);
}

static size_t sample(const char *text, double h, double **xyz, int *rc) {
  return sample_max(text, h, SIZE_MAX, xyz, rc);
}

START_TEST(box_count_and_centring) {
  double *x;
  int rc;
  size_t n = sample("shape = { type = \"box\"; min = [0.0, 0.0, 0.0]; "
                    "max = [1.0, 0.5, 0.25]; };", 0.05, &x, &rc);
  ck_assert_int_eq(rc, 0);
  ck_assert_uint_eq(n, 20 * 10 * 5);
  double lo[3] = {1e9, 1e9, 1e9}, hi[3] = {-1e9, -1e9, -1e9};
  for (size_t i = 0; i < n; i++)
    for (int a = 0; a < 3; a++)
      lo[a] = fmin(lo[a], x[3 * i + a]), hi[a] = fmax(hi[a], x[3 * i + a]);
  ck_assert_rel(lo[0], 0.025, 1e-12, 1.0); /* cell-centred: r = h/2 fits */
  ck_assert_rel(hi[1], 0.475, 1e-12, 1.0);
  free(x);
}
END_TEST

START_TEST(sphere_symmetric_and_inside) {
  double *x;
  int rc;
  size_t n = sample("shape = { type = \"sphere\"; center = [1.0, 2.0, 3.0]; "
                    "radius = 0.5; };", 0.1, &x, &rc);
  ck_assert_int_eq(rc, 0);
  ck_assert_uint_eq(n, 515); /* lattice points with |k| <= 5 */
  double c[3] = {0, 0, 0};
  for (size_t i = 0; i < n; i++) {
    double d2 = 0;
    for (int a = 0; a < 3; a++) {
      double d = x[3 * i + a] - (a + 1.0);
      c[a] += d;
      d2 += d * d;
    }
    ck_assert(d2 <= 0.25 + 1e-9);
  }
  for (int a = 0; a < 3; a++) ck_assert(fabs(c[a]) < 1e-9);
  free(x);
}
END_TEST

/* Points of the lowest layer of n points (to 1e-9) and the points' mean. */
static size_t lowest_layer(const double *x, size_t n, double mean[3]) {
  double lo = 1e9;
  size_t cnt = 0;
  mean[0] = mean[1] = mean[2] = 0.0;
  for (size_t i = 0; i < n; i++) {
    lo = fmin(lo, x[3 * i + 1]);
    for (int a = 0; a < 3; a++) mean[a] += x[3 * i + a] / (double)n;
  }
  for (size_t i = 0; i < n; i++) cnt += x[3 * i + 1] < lo + 1e-9;
  return cnt;
}

/* A ball of radius 3 spacings: through its centre the lattice gives 123
 * points and one at the pole (a ball on it balances on one particle);
 * shifted by half a spacing on each axis, 136 points, a face of 12 at
 * the bottom, and the same centre of mass.  A shift of a whole spacing or
 * more is refused, naming the key. */
START_TEST(lattice_shift_moves_the_lattice) {
  const char *fmt = "shape = { type = \"sphere\"; center = [0.0, 0.92, 0.0]; "
                    "radius = 0.12; %s };";
  char text[256], msg[256];
  double *x, mean[3];
  int rc;
  snprintf(text, sizeof text, fmt, "");
  size_t n = sample(text, 0.04, &x, &rc);
  ck_assert_int_eq(rc, 0);
  ck_assert_uint_eq(n, 123);
  ck_assert_uint_eq(lowest_layer(x, n, mean), 1);
  free(x);
  snprintf(text, sizeof text, fmt, "lattice_shift = [0.5, 0.5, 0.5];");
  n = sample(text, 0.04, &x, &rc);
  ck_assert_int_eq(rc, 0);
  ck_assert_uint_eq(n, 136);
  ck_assert_uint_eq(lowest_layer(x, n, mean), 12);
  ck_assert_double_le(fabs(mean[0]) + fabs(mean[1] - 0.92) + fabs(mean[2]),
                      1e-12);
  free(x);
  snprintf(text, sizeof text, fmt, "lattice_shift = [0.0, 1.0, 0.0];");
  n = t_sample_shape(text, 0.04, SIZE_MAX, &x, &rc, msg, sizeof msg);
  ck_assert_int_ne(rc, 0);
  ck_assert_msg(strstr(msg, "lattice_shift") && strstr(msg, "[0, 1)"),
                "message: %s", msg);
  free(x);
}
END_TEST

START_TEST(shell_is_a_bowl) {
  double *x;
  int rc;
  size_t n = sample("shape = { type = \"shell\"; center = [0.0, 0.0, 0.0]; "
                    "radius = 1.0; thickness = 0.2; };", 0.1, &x, &rc);
  ck_assert_int_eq(rc, 0);
  ck_assert_uint_gt(n, 100);
  for (size_t i = 0; i < n; i++) {
    double r = sqrt(x[3 * i] * x[3 * i] + x[3 * i + 1] * x[3 * i + 1] +
                    x[3 * i + 2] * x[3 * i + 2]);
    ck_assert(r >= 0.8 - 1e-9 && r <= 1.0 + 1e-9);
    ck_assert(x[3 * i + 1] <= 1e-9); /* opens towards +y */
  }
  free(x);
}
END_TEST

START_TEST(jitter_is_seeded) {
  double *a, *b;
  int rc;
  const char *t = "shape = { type = \"box\"; min = [0.0, 0.0, 0.0]; "
                  "max = [0.3, 0.3, 0.3]; jitter = 0.1; };";
  size_t n = sample(t, 0.1, &a, &rc);
  ck_assert_uint_eq(sample(t, 0.1, &b, &rc), n);
  for (size_t i = 0; i < 3 * n; i++) ck_assert(a[i] == b[i]);
  free(a);
  free(b);
}
END_TEST

/* The particle limit is exact: a shape of n points passes with max = n
 * and is refused with n - 1 (a box before it is allocated, a ball when
 * its count crosses max, or at once when its volume says it is far
 * beyond). */
START_TEST(particle_limit_exact) {
  static const char *box = "shape = { type = \"box\"; min = [0.0, 0.0, 0.0]; "
                           "max = [1.0, 0.5, 0.25]; };";
  static const char *ball = "shape = { type = \"sphere\"; center = [0.0, "
                            "0.0, 0.0]; radius = 0.05; };";
  static const char *pts = "shape = { type = \"points\"; points = ( [0.0, "
                           "0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0] ); };";
  double *x;
  int rc;
  ck_assert_uint_eq(sample_max(box, 0.05, 1000, &x, &rc), 1000);
  ck_assert_int_eq(rc, MS_OK);
  free(x);
  ck_assert_uint_eq(sample_max(box, 0.05, 999, &x, &rc), 0);
  ck_assert_int_eq(rc, MS_ECONFIG);
  ck_assert_ptr_null(x);
  size_t n = sample(ball, 0.01, &x, &rc);
  ck_assert_uint_eq(n, 515); /* lattice points within 5 spacings */
  free(x);
  ck_assert_uint_eq(sample_max(ball, 0.01, 515, &x, &rc), 515);
  free(x);
  ck_assert_uint_eq(sample_max(ball, 0.01, 514, &x, &rc), 0);
  ck_assert_int_eq(rc, MS_ECONFIG);
  ck_assert_ptr_null(x);
  /* 4/3 pi 5^3 = 523.6 > 2 x 261: refused by the estimate */
  ck_assert_uint_eq(sample_max(ball, 0.01, 261, &x, &rc), 0);
  ck_assert_int_eq(rc, MS_ECONFIG);
  ck_assert_uint_eq(sample_max(pts, 1.0, 3, &x, &rc), 3);
  free(x);
  ck_assert_uint_eq(sample_max(pts, 1.0, 2, &x, &rc), 0);
  ck_assert_int_eq(rc, MS_ECONFIG);
}
END_TEST

START_TEST(empty_shape_refused) {
  double *x;
  int rc;
  sample("shape = { type = \"torus\"; center = [0.0, 0.0, 0.0]; "
         "major_radius = 1.0; minor_radius = 0.01; };", 0.3, &x, &rc);
  ck_assert_int_eq(rc, MS_ECONFIG);
}
END_TEST

Suite *suite_shapes(void) {
  Suite *s = suite_create("shapes");
  TCase *tc = tcase_create("lattice");
  tcase_add_test(tc, box_count_and_centring);
  tcase_add_test(tc, sphere_symmetric_and_inside);
  tcase_add_test(tc, shell_is_a_bowl);
  tcase_add_test(tc, lattice_shift_moves_the_lattice);
  tcase_add_test(tc, jitter_is_seeded);
  tcase_add_test(tc, empty_shape_refused);
  tcase_add_test(tc, particle_limit_exact);
  suite_add_tcase(s, tc);
  return s;
}
