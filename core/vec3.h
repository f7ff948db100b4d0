/* Small inline 3-vector helpers for the core.  Vectors are double[3]. */
#ifndef MS_CORE_VEC3_H
#define MS_CORE_VEC3_H

#include <math.h>

static inline double ms__dot(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline double ms__norm2(const double *a) { return ms__dot(a, a); }

static inline void ms__sub(double *out, const double *a, const double *b) {
  out[0] = a[0] - b[0];
  out[1] = a[1] - b[1];
  out[2] = a[2] - b[2];
}

static inline void ms__copy3(double *out, const double *a) {
  out[0] = a[0];
  out[1] = a[1];
  out[2] = a[2];
}

/* out = a * sa + b * sb */
static inline void ms__lin2(double *out, const double *a, double sa,
                            const double *b, double sb) {
  out[0] = a[0] * sa + b[0] * sb;
  out[1] = a[1] * sa + b[1] * sb;
  out[2] = a[2] * sa + b[2] * sb;
}

#endif
