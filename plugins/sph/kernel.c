/* SPH kernels: set-up and checked evaluation. */
#include "sph.h"

#include <string.h>

static const char *const names[SPH_KERNEL_COUNT] = {"cubic_spline", "poly6",
                                                    "spiky"};

int sph_kernel_from_name(const char *name) {
  for (int k = 0; k < SPH_KERNEL_COUNT; k++)
    if (!strcmp(name, names[k])) return k;
  return -1;
}

const char *sph_kernel_name(int kind) {
  return kind >= 0 && kind < SPH_KERNEL_COUNT ? names[kind] : "?";
}

void sph_kernel_init(struct sph_kernel *k, int kind, double h) {
  k->kind = kind;
  k->h = h;
  k->R = 2.0 * h;
  k->R2 = k->R * k->R;
  k->inv_h = 1.0 / h;
  switch (kind) {
  case SPH_POLY6:
    k->norm = 315.0 / (64.0 * SPH_PI * pow(k->R, 9));
    break;
  case SPH_SPIKY:
    k->norm = 15.0 / (SPH_PI * pow(k->R, 6));
    break;
  default:
    k->norm = 1.0 / (SPH_PI * h * h * h);
    break;
  }
  k->w0 = sph_w_in(k, kind, 0.0);
}

double sph_kernel_w(const struct sph_kernel *k, double r) {
  if (!(r >= 0.0) || r >= k->R) return 0.0;
  return sph_w_in(k, k->kind, r * r);
}

void sph_kernel_grad(const struct sph_kernel *k, const double x[3],
                     double out[3]) {
  double r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
  double f = r2 < k->R2 ? sph_f_in(k, k->kind, r2) : 0.0;
  for (int a = 0; a < 3; a++) out[a] = f * x[a];
}
