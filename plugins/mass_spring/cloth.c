/* Cloth: a rectangular particle sheet with structural, shear and bending
 * springs, and its pins (corners, edges; boxes for any model). */
#include <math.h>

#include "mass_spring.h"

static double dist(const double *a, const double *b) {
  double d0 = b[0] - a[0], d1 = b[1] - a[1], d2 = b[2] - a[2];
  return sqrt(d0 * d0 + d1 * d1 + d2 * d2);
}

static int link(struct mss_model *M, uint32_t i, uint32_t j, double k,
                double c) {
  if (k <= 0.0 && c <= 0.0) return MS_OK; /* a spring that does nothing */
  return mss_spring_add(&M->springs, i, j, k, c,
                        dist(M->x + 3 * (size_t)i, M->x + 3 * (size_t)j));
}

int mss_cloth_build(struct mss_model *M, const double corner[3],
                    const double eu[3], const double ev[3], uint32_t nu,
                    uint32_t nv, double k_struct, double k_shear,
                    double k_bend, double damping) {
  M->nu = nu, M->nv = nv;
  for (uint32_t b = 0; b < nv; b++)
    for (uint32_t a = 0; a < nu; a++) {
      double s = (double)a / (double)(nu - 1), t = (double)b / (double)(nv - 1);
      double *x = M->x + 3 * ((size_t)b * nu + a);
      for (int k = 0; k < 3; k++) x[k] = corner[k] + s * eu[k] + t * ev[k];
      M->edge[(size_t)b * nu + a] = !a || !b || a + 1 == nu || b + 1 == nv;
    }
  int rc = MS_OK;
  for (uint32_t b = 0; b < nv && !rc; b++)
    for (uint32_t a = 0; a < nu && !rc; a++) {
      uint32_t i = b * nu + a;
      if (a + 1 < nu) rc |= link(M, i, i + 1, k_struct, damping);
      if (b + 1 < nv) rc |= link(M, i, i + nu, k_struct, damping);
      if (a + 1 < nu && b + 1 < nv) {
        rc |= link(M, i, i + nu + 1, k_shear, damping);
        rc |= link(M, i + 1, i + nu, k_shear, damping);
      }
      if (a + 2 < nu) rc |= link(M, i, i + 2, k_bend, damping);
      if (b + 2 < nv) rc |= link(M, i, i + 2 * nu, k_bend, damping);
    }
  return rc ? MS_ENOMEM : MS_OK;
}

size_t mss_cloth_pin_corner(struct mss_model *M, int u1, int v1) {
  uint32_t a = u1 ? M->nu - 1 : 0, b = v1 ? M->nv - 1 : 0;
  M->pinned[(size_t)b * M->nu + a] = 1;
  return 1;
}

size_t mss_cloth_pin_edge(struct mss_model *M, int axis, int side) {
  size_t n = 0;
  if (axis == 0) {
    uint32_t a = side ? M->nu - 1 : 0;
    for (uint32_t b = 0; b < M->nv; b++, n++)
      M->pinned[(size_t)b * M->nu + a] = 1;
  } else {
    uint32_t b = side ? M->nv - 1 : 0;
    for (uint32_t a = 0; a < M->nu; a++, n++)
      M->pinned[(size_t)b * M->nu + a] = 1;
  }
  return n;
}

size_t mss_pin_box(struct mss_model *M, const double lo[3],
                   const double hi[3]) {
  size_t n = 0;
  for (size_t i = 0; i < M->n; i++) {
    const double *x = M->x + 3 * i;
    if (x[0] >= lo[0] && x[0] <= hi[0] && x[1] >= lo[1] && x[1] <= hi[1] &&
        x[2] >= lo[2] && x[2] <= hi[2]) {
      M->pinned[i] = 1;
      n++;
    }
  }
  return n;
}

void mss_cloth_normals(struct mss_model *M) {
  uint32_t nu = M->nu, nv = M->nv;
  if (!nu || !nv) return;
  for (uint32_t b = 0; b < nv; b++)
    for (uint32_t a = 0; a < nu; a++) {
      const double *x = M->x;
      uint32_t a0 = a ? a - 1 : a, a1 = a + 1 < nu ? a + 1 : a;
      uint32_t b0 = b ? b - 1 : b, b1 = b + 1 < nv ? b + 1 : b;
      double tu[3], tv[3], *n = M->normal + 3 * ((size_t)b * nu + a);
      for (int k = 0; k < 3; k++) {
        tu[k] = x[3 * ((size_t)b * nu + a1) + k] - x[3 * ((size_t)b * nu + a0) + k];
        tv[k] = x[3 * ((size_t)b1 * nu + a) + k] - x[3 * ((size_t)b0 * nu + a) + k];
      }
      n[0] = tu[1] * tv[2] - tu[2] * tv[1];
      n[1] = tu[2] * tv[0] - tu[0] * tv[2];
      n[2] = tu[0] * tv[1] - tu[1] * tv[0];
      double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      for (int k = 0; k < 3; k++) n[k] = l > 0.0 ? n[k] / l : 0.0;
    }
}
