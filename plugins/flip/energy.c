/* The PIC/FLIP blend held to the energy a step starts with (flip.h).
 *
 * FLIP carries each particle's own velocity forward and adds the grid's
 * change; PIC takes the grid's velocity, which the transfer has averaged.
 * PIC never makes energy in a closed tank; FLIP's carried part can (the
 * dam break gained 1.4e-4 of its energy between two frames at ratio
 * 0.97).  The blend is linear in its ratio, so the step's end energy is a
 * quadratic in it; when the step ends above where it started, the blend
 * is taken back toward PIC just far enough to end there.  Sums run in
 * index order: the result does not depend on the thread count. */
#include <math.h>

#include <mergesplit/plugin_util.h>

#include "flip.h"

/* Kinetic energy of vp + t (v - vp) is A t^2 + B t + C. */
static void blend_quadratic(const double *v, const double *vp,
                            const double *m, size_t n, double *A, double *B,
                            double *C) {
  double a = 0.0, b = 0.0, c = 0.0;
  for (size_t i = 0; i < 3 * n; i++) {
    double d = v[i] - vp[i], w = 0.5 * m[i / 3];
    a += w * d * d;
    b += 2.0 * w * vp[i] * d;
    c += w * vp[i] * vp[i];
  }
  *A = a, *B = b, *C = c;
}

double flip_limit_energy(double *v, const double *vp, const double *x,
                         const double *m, const double g[3], size_t n,
                         double e0) {
  struct ms_energy end;
  double A, B, C;
  ms_energy_of_particles(n, x, v, m, g, &end);
  blend_quadratic(v, vp, m, n, &A, &B, &C);
  double kmax = e0 - end.potential;
  if (A + B + C <= kmax) return 1.0;
  double t = 0.0, s = 1.0;
  if (C < kmax && A > 0.0) {
    /* the larger root of A t^2 + B t + C - kmax; C - kmax < 0, so it is
     * positive, and below 1 because the blend ends above kmax */
    t = (-B + sqrt(B * B - 4.0 * A * (C - kmax))) / (2.0 * A);
    t = fmin(fmax(t, 0.0), 1.0);
  } else if (C > kmax && kmax > 0.0) {
    /* even PIC ends above: the step raised the particles (separation
     * pushes them apart against gravity); PIC's velocities scaled to end
     * there */
    s = sqrt(kmax / C);
  }
  for (size_t i = 0; i < 3 * n; i++) v[i] = s * (vp[i] + t * (v[i] - vp[i]));
  return t;
}
