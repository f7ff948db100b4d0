/* virtual_material — the particle fluid the material is built on (Wicke et
 * al. 2007, sect. 3: an XSPH-style SPH fluid to which the lattice adds
 * its forces): density, a Tait pressure clipped at zero, the symmetric
 * pressure force, and XSPH's velocity smoothing among fluid particles.
 * Every sum runs over a particle's own row (rows are symmetric), so a
 * pair's force is computed on both sides alike: momentum is kept to
 * round-off, and the loops run in parallel without scattering. */
#include <math.h>
#include <string.h>

#include "virtual_material.h"

#define VM_PI 3.14159265358979323846
#define VM_GAMMA 7.0

/* poly6 of radius R */
static double w_poly6(double r2, double R) {
  double R2 = R * R;
  if (!(r2 < R2)) return 0.0;
  double u = R2 - r2;
  return 315.0 / (64.0 * VM_PI * pow(R, 9)) * u * u * u;
}

/* The spiky kernel's gradient at x_i for d = x_i - x_j, |d| = r < R. */
static void grad_spiky(const double *d, double r, double R, double *g) {
  double s = r > 0.0 && r < R
                 ? -45.0 / (VM_PI * pow(R, 6)) * (R - r) * (R - r) / r
                 : 0.0;
  for (int a = 0; a < 3; a++) g[a] = s * d[a];
}

double vm_rest_density(double m, double D, double R, int ccp) {
  double rho = m * w_poly6(0.0, R), u = vm_unit(D, ccp);
  int n = (int)ceil(R / u);
  for (int i = -n; i <= n; i++)
    for (int j = -n; j <= n; j++)
      for (int k = -n; k <= n; k++)
        if ((i || j || k) && vm_is_point(i, j, k, ccp))
          rho += m * w_poly6(u * u * (i * i + j * j + k * k), R);
  return rho;
}

double vm_pressure(const struct vm_body *B, double rho) {
  double s = rho / B->rho0;
  if (!(B->c > 0.0) || s <= 1.0) return 0.0;
  return B->rho0 * B->c * B->c / VM_GAMMA * (pow(s, VM_GAMMA) - 1.0);
}

double vm_fluid_energy(const struct vm_body *B, double rho) {
  double s = rho / B->rho0;
  if (!(B->c > 0.0) || s <= 1.0) return 0.0;
  double g1 = VM_GAMMA - 1.0, e = (pow(s, g1) - 1.0) / g1 + 1.0 / s - 1.0;
  return e > 0.0 ? B->c * B->c / VM_GAMMA * e : 0.0;
}

static double dist2(const double *a, const double *b) {
  return (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
         (a[2] - b[2]) * (a[2] - b[2]);
}

void vm_fluid_density(struct state *s) {
#pragma omp parallel for schedule(static) num_threads(s->host->thread_count(s->ctx))
  for (size_t i = 0; i < s->n; i++) {
    const struct vm_body *B = &s->body[s->body_of[i]];
    double R = s->support * B->D, rho = s->m[i] * w_poly6(0.0, R);
    for (uint32_t q = s->off[i]; q < s->off[i + 1]; q++) {
      uint32_t j = s->idx[q];
      rho += s->m[j] * w_poly6(dist2(s->x + 3 * i, s->x + 3 * (size_t)j), R);
    }
    s->rho[i] = rho;
    s->p[i] = vm_pressure(B, rho);
  }
}

void vm_fluid_forces(struct state *s) {
#pragma omp parallel for schedule(static) num_threads(s->host->thread_count(s->ctx))
  for (size_t i = 0; i < s->n; i++) {
    const struct vm_body *B = &s->body[s->body_of[i]];
    double R = s->support * B->D, f[3] = {0, 0, 0};
    double ai = s->p[i] / (s->rho[i] * s->rho[i]);
    for (uint32_t q = s->off[i]; q < s->off[i + 1]; q++) {
      uint32_t j = s->idx[q];
      double aj = s->p[j] / (s->rho[j] * s->rho[j]), c = ai + aj, d[3], g[3];
      if (c == 0.0) continue;
      for (int a = 0; a < 3; a++) d[a] = s->x[3 * i + a] - s->x[3 * (size_t)j + a];
      grad_spiky(d, sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), R, g);
      for (int a = 0; a < 3; a++) f[a] -= s->m[i] * s->m[j] * c * g[a];
    }
    for (int a = 0; a < 3; a++) s->f[3 * i + a] += f[a];
  }
}

void vm_fluid_xsph(struct state *s, double *dv) {
#pragma omp parallel for schedule(static) num_threads(s->host->thread_count(s->ctx))
  for (size_t i = 0; i < s->n; i++) {
    const struct vm_body *B = &s->body[s->body_of[i]];
    double R = s->support * B->D, u[3] = {0, 0, 0};
    if (s->solid[i]) {
      dv[3 * i] = dv[3 * i + 1] = dv[3 * i + 2] = 0.0;
      continue;
    }
    for (uint32_t q = s->off[i]; q < s->off[i + 1]; q++) {
      uint32_t j = s->idx[q];
      if (s->solid[j]) continue;
      /* the pair's mean share: bodies of one object may differ */
      double e = 0.5 * (B->xsph + s->body[s->body_of[j]].xsph);
      double w = e * 2.0 * s->m[j] / (s->rho[i] + s->rho[j]) *
                 w_poly6(dist2(s->x + 3 * i, s->x + 3 * (size_t)j), R);
      for (int a = 0; a < 3; a++)
        u[a] += w * (s->v[3 * (size_t)j + a] - s->v[3 * i + a]);
    }
    for (int a = 0; a < 3; a++) dv[3 * i + a] = u[a];
  }
}
