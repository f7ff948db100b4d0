/* Polar decomposition and rotations of 3x3 matrices (row-major), free of
 * the host: shared by the plugins that match shapes (shape_matching,
 * virtual_material).  Notation in polar.h. */
#include <math.h>
#include <string.h>

#include "polar.h"

double msc_det3(const double *A) {
  return A[0] * (A[4] * A[8] - A[5] * A[7]) -
         A[1] * (A[3] * A[8] - A[5] * A[6]) +
         A[2] * (A[3] * A[7] - A[4] * A[6]);
}

static double frob(const double *A, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += A[i] * A[i];
  return sqrt(s);
}

int msc_inverse3(const double *A, double *Ai, double tol) {
  double d = msc_det3(A);
  if (!(fabs(d) > tol) || !isfinite(d)) return 0;
  double c[9] = {A[4] * A[8] - A[5] * A[7], A[2] * A[7] - A[1] * A[8],
                 A[1] * A[5] - A[2] * A[4], A[5] * A[6] - A[3] * A[8],
                 A[0] * A[8] - A[2] * A[6], A[2] * A[3] - A[0] * A[5],
                 A[3] * A[7] - A[4] * A[6], A[1] * A[6] - A[0] * A[7],
                 A[0] * A[4] - A[1] * A[3]};
  for (int i = 0; i < 9; i++) Ai[i] = c[i] / d;
  return 1;
}

void msc_quat_matrix(const double *q, double *R) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z),
  R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z),
  R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x),
  R[8] = 1 - 2 * (x * x + y * y);
}

void msc_matrix_quat(const double *R, double *q) {
  double t = R[0] + R[4] + R[8];
  if (t > 0) {
    double s = 2.0 * sqrt(1.0 + t);
    q[0] = 0.25 * s, q[1] = (R[7] - R[5]) / s, q[2] = (R[2] - R[6]) / s,
    q[3] = (R[3] - R[1]) / s;
  } else if (R[0] > R[4] && R[0] > R[8]) {
    double s = 2.0 * sqrt(1.0 + R[0] - R[4] - R[8]);
    q[0] = (R[7] - R[5]) / s, q[1] = 0.25 * s, q[2] = (R[1] + R[3]) / s,
    q[3] = (R[2] + R[6]) / s;
  } else if (R[4] > R[8]) {
    double s = 2.0 * sqrt(1.0 + R[4] - R[0] - R[8]);
    q[0] = (R[2] - R[6]) / s, q[1] = (R[1] + R[3]) / s, q[2] = 0.25 * s,
    q[3] = (R[5] + R[7]) / s;
  } else {
    double s = 2.0 * sqrt(1.0 + R[8] - R[0] - R[4]);
    q[0] = (R[3] - R[1]) / s, q[1] = (R[2] + R[6]) / s,
    q[2] = (R[5] + R[7]) / s, q[3] = 0.25 * s;
  }
  double n = frob(q, 4);
  for (int i = 0; i < 4; i++) q[i] /= n;
}

/* Newton's iteration for the orthogonal polar factor, scaled while far
 * from converged (Higham); one plain step after the change falls below
 * 1e-9, which quadratic convergence takes to round-off. */
static void polar_newton(const double *A, double *R) {
  double X[9], Xi[9];
  memcpy(X, A, sizeof X);
  for (int it = 0; it < 60; it++) {
    if (!msc_inverse3(X, Xi, 0.0)) break;
    double g = sqrt(frob(Xi, 9) / frob(X, 9)), d = 0.0, Y[9];
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++)
        Y[3 * r + c] = 0.5 * (g * X[3 * r + c] + Xi[3 * c + r] / g);
    for (int i = 0; i < 9; i++) d += (Y[i] - X[i]) * (Y[i] - X[i]);
    memcpy(X, Y, sizeof X);
    if (sqrt(d) < 1e-9) {
      if (msc_inverse3(X, Xi, 0.0))
        for (int r = 0; r < 3; r++)
          for (int c = 0; c < 3; c++)
            Y[3 * r + c] = 0.5 * (X[3 * r + c] + Xi[3 * c + r]);
      memcpy(X, Y, sizeof X);
      break;
    }
  }
  memcpy(R, X, sizeof X);
}

/* Mueller, Bender, Chentanez and Macklin 2016: turn q until its columns
 * align with A's (sum r_i x a_i = 0), a proper rotation even for a
 * singular or inverted A. */
static void polar_quat(const double *A, double *q) {
  for (int it = 0; it < 200; it++) {
    double R[9], om[3] = {0, 0, 0}, dot = 0.0;
    msc_quat_matrix(q, R);
    for (int c = 0; c < 3; c++) {
      double r[3] = {R[c], R[3 + c], R[6 + c]}, a[3] = {A[c], A[3 + c],
                                                        A[6 + c]};
      om[0] += r[1] * a[2] - r[2] * a[1];
      om[1] += r[2] * a[0] - r[0] * a[2];
      om[2] += r[0] * a[1] - r[1] * a[0];
      dot += r[0] * a[0] + r[1] * a[1] + r[2] * a[2];
    }
    double s = 1.0 / (fabs(dot) + 1e-300), w;
    for (int a = 0; a < 3; a++) om[a] *= s;
    w = frob(om, 3);
    if (!(w > 1e-15)) break;
    double h = sin(0.5 * w) / w, dq[4] = {cos(0.5 * w), h * om[0], h * om[1],
                                          h * om[2]};
    double n[4] = {dq[0] * q[0] - dq[1] * q[1] - dq[2] * q[2] - dq[3] * q[3],
                   dq[0] * q[1] + dq[1] * q[0] + dq[2] * q[3] - dq[3] * q[2],
                   dq[0] * q[2] - dq[1] * q[3] + dq[2] * q[0] + dq[3] * q[1],
                   dq[0] * q[3] + dq[1] * q[2] - dq[2] * q[1] + dq[3] * q[0]};
    double nn = frob(n, 4);
    for (int i = 0; i < 4; i++) q[i] = n[i] / nn;
  }
}

void msc_polar(const double *A, double *R, double *q) {
  double nrm = frob(A, 9), d = msc_det3(A);
  if (d > 1e-6 * nrm * nrm * nrm) {
    polar_newton(A, R);
    msc_matrix_quat(R, q);
    return;
  }
  polar_quat(A, q);
  msc_quat_matrix(q, R);
}

