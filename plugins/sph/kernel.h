/* SPH smoothing kernels: cubic spline (Monaghan), poly6 and spiky (Mueller
 * et al. 2003).  All share one convention: smoothing length h, support
 * radius R = 2h; every kernel and its gradient vanish for r >= R.
 *
 * Hot loops call the inline functions below with a constant `kind`, so the
 * compiler keeps one specialised loop per kernel. */
#ifndef SPH_KERNEL_H
#define SPH_KERNEL_H

#include <math.h>

#define SPH_PI 3.14159265358979323846

enum sph_kernel_kind {
  SPH_CUBIC_SPLINE = 0,
  SPH_POLY6 = 1,
  SPH_SPIKY = 2,
  SPH_KERNEL_COUNT
};

struct sph_kernel {
  int kind;
  double h, R, R2;  /* smoothing length, support radius, R^2 */
  double inv_h;
  double norm;      /* normalisation constant of W */
  double w0;        /* W(0) */
};

/* Set up kernel `kind` for smoothing length h > 0. */
void sph_kernel_init(struct sph_kernel *k, int kind, double h);
/* "cubic_spline", "poly6", "spiky" <-> kind; -1 for an unknown name. */
int sph_kernel_from_name(const char *name);
const char *sph_kernel_name(int kind);

/* max(a, 0), exactly, without a branch (compilers turn a ?: into one). */
static inline double sph_pos(double a) { return 0.5 * (a + fabs(a)); }

/* W(r) = scale * raw(r^2) for r^2 < R^2: the pair loops sum raw values
 * and scale once.  Only neighbours inside the support are ever passed
 * (sph_kernel_w() below checks the support itself). */
static inline double sph_w_raw(const struct sph_kernel *k, int kind,
                               double r2) {
  if (kind == SPH_POLY6) {
    double d = k->R2 - r2;
    return d * d * d;
  }
  double r = sqrt(r2);
  if (kind == SPH_SPIKY) {
    double d = k->R - r;
    return d * d * d;
  }
  /* M4 spline: (2-q)^3 - 4 (1-q)^3, the second term cut at 0 without a
   * branch to mispredict (its outcome is a coin toss) */
  double q = r * k->inv_h, a = 2.0 - q, t = sph_pos(1.0 - q);
  return a * a * a - 4.0 * (t * t * t);
}

static inline double sph_w_scale(const struct sph_kernel *k, int kind) {
  return kind == SPH_CUBIC_SPLINE ? 0.25 * k->norm : k->norm;
}

static inline double sph_w_in(const struct sph_kernel *k, int kind,
                              double r2) {
  return sph_w_scale(k, kind) * sph_w_raw(k, kind, r2);
}

/* The gradient is grad W(x) = F(|x|) x; this returns F(r) = W'(r) / r for
 * r^2 < R^2, and 0 at r = 0 (where x = 0 too). */
static inline double sph_f_in(const struct sph_kernel *k, int kind,
                              double r2) {
  if (kind == SPH_POLY6) {
    double d = k->R2 - r2;
    return -6.0 * k->norm * d * d;
  }
  double r = sqrt(r2), g;
  if (kind == SPH_SPIKY) {
    double d = k->R - r;
    g = -3.0 * k->norm * d * d;
  } else {
    double q = r * k->inv_h, a = 2.0 - q, t = sph_pos(1.0 - q);
    g = k->norm * (3.0 * t * t - 0.75 * a * a) * k->inv_h;
  }
  return r > 0.0 ? g / r : 0.0; /* a select: vectorises */
}

/* Checked versions for any r >= 0. */
double sph_kernel_w(const struct sph_kernel *k, double r);
void sph_kernel_grad(const struct sph_kernel *k, const double x[3],
                     double out[3]);

#endif
