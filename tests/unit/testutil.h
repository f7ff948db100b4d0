/* Helpers shared by the unit tests. */
#ifndef MS_TEST_UTIL_H
#define MS_TEST_UTIL_H

#include <check.h>
#include <math.h>

#include <mergesplit/core.h>
#include <mergesplit/status.h>

#include "../../core/base/base.h"
#include "suites.h"

/* Sample the group `shape` of the scene text (test_shapes.c): at most max
 * points into *xyz (malloc'ed, NULL on failure), the status in *rc, the
 * error line in msg (when not NULL). */
size_t t_sample_shape(const char *text, double h, size_t max, double **xyz,
                      int *rc, char *msg, size_t len);

/* Every system's positions and velocities, packed, 6 doubles a particle
 * (test_state.c); *n the doubles; the caller frees. */
double *t_sim_state(const ms_sim *sim, size_t *n);

/* |a - b| <= tol * max(|b|, floor) */
#define ck_assert_rel(a, b, tol, floor_)                                   \
  do {                                                                     \
    double a_ = (a), b_ = (b), s_ = fabs(b_) > (floor_) ? fabs(b_) : (floor_); \
    ck_assert_msg(fabs(a_ - b_) <= (tol) * s_,                             \
                  "%s = %.17g, expected %.17g (rel tol %g)", #a, a_, b_,   \
                  (double)(tol));                                          \
  } while (0)

static inline double t_uniform(struct ms__rng *r, double lo, double hi) {
  return lo + (hi - lo) * ms__rng_uniform(r);
}

static inline void t_vec(struct ms__rng *r, double s, double *v) {
  for (int a = 0; a < 3; a++) v[a] = t_uniform(r, -s, s);
}

static inline double t_ke(double m, const double *v) {
  return 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/* Dense Gaussian elimination with partial pivoting, n <= 9. */
static inline void t_solve(int n, double A[9][10]) {
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int i = c + 1; i < n; i++)
      if (fabs(A[i][c]) > fabs(A[p][c])) p = i;
    for (int j = 0; j <= n; j++) {
      double t = A[c][j];
      A[c][j] = A[p][j], A[p][j] = t;
    }
    for (int i = 0; i < n; i++) {
      if (i == c) continue;
      double f = A[i][c] / A[c][c];
      for (int j = c; j <= n; j++) A[i][j] -= f * A[c][j];
    }
  }
  for (int i = 0; i < n; i++) A[i][n] /= A[i][i];
}

#endif
