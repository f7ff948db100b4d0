/* Solver state: allocation, constants, step limits, rewind. */
#define _POSIX_C_SOURCE 200809L
#include "sph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double sph_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *alloc0(size_t n, size_t size) {
  return calloc(n ? n : 1, size);
}

int sph_alloc(struct sph_solver *S, size_t n) {
  S->n = n;
  S->x = alloc0(SPH_XS * n, sizeof(double));
  S->v = alloc0(3 * n, sizeof(double));
  S->a = alloc0(3 * n, sizeof(double));
  S->m = alloc0(n, sizeof(double));
  S->r = alloc0(n, sizeof(double));
  S->rho = alloc0(n, sizeof(double));
  S->p = alloc0(n, sizeof(double));
  S->pr = alloc0(n, sizeof(double));
  S->x0 = alloc0(3 * n, sizeof(double));
  S->v0 = alloc0(3 * n, sizeof(double));
  S->walled = alloc0(n, 1);
  S->xref = alloc0(3 * n, sizeof(double));
  S->cstart = alloc0(n, sizeof(uint32_t));
  S->cend = alloc0(n, sizeof(uint32_t));
  S->id = alloc0(n, sizeof(uint32_t));
  S->meta = alloc0(n, sizeof(int32_t));
  S->T = alloc0(n, sizeof(double));
  S->c = alloc0(n, sizeof(double));
  S->T0 = alloc0(n, sizeof(double));
  S->dT = alloc0(n, sizeof(double));
  if (!(S->x && S->v && S->a && S->m && S->r && S->rho && S->p && S->pr &&
        S->x0 && S->v0 && S->walled && S->xref && S->cstart && S->cend &&
        S->id && S->meta && S->T && S->c && S->T0 && S->dT))
    return MS_ENOMEM;
  if (sph_wall_tables(S)) return MS_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    S->m[i] = S->P.mass;
    S->r[i] = S->P.radius;
    S->rho[i] = S->P.rho0;
    S->id[i] = (uint32_t)i;
    S->meta[i] = -1;
    S->c[i] = S->P.specific_heat;
  }
  return MS_OK;
}

void sph_free(struct sph_solver *S) {
  free(S->x), free(S->v), free(S->a), free(S->m), free(S->r);
  free(S->rho), free(S->p), free(S->pr), free(S->x0), free(S->v0);
  free(S->rho_others);
  sph_others_free(&S->others);
  free(S->walled), free(S->id), free(S->meta), free(S->box);
  free(S->aside.dens), free(S->aside.walled), free(S->aside.cut);
  memset(&S->aside, 0, sizeof S->aside);
  free(S->T), free(S->c), free(S->T0), free(S->dT);
  free(S->xref), free(S->cstart), free(S->cend), free(S->cidx);
  free(S->wtab);
  S->wtab = NULL;
  free(S->replay.x), free(S->replay.v), free(S->replay.T);
  memset(&S->replay, 0, sizeof S->replay);
  sph_kept_forces_free(&S->kept);
  S->xref = NULL, S->cstart = S->cend = S->cidx = NULL, S->ccap = 0;
  S->x = S->v = S->a = S->m = S->r = S->rho = S->p = S->pr = NULL;
  S->x0 = S->v0 = NULL;
  S->walled = NULL, S->id = NULL, S->meta = NULL, S->box = NULL;
}

/* sum of W over a cubic lattice of spacing s around a point of it */
static double lattice_sum(const struct sph_kernel *k, double s) {
  int J = (int)ceil(k->R / s);
  double sum = 0.0;
  for (int i = -J; i <= J; i++)
    for (int j = -J; j <= J; j++)
      for (int l = -J; l <= J; l++)
        sum += sph_kernel_w(k, s * sqrt((double)i * i + (double)j * j +
                                        (double)l * l));
  return sum;
}

void sph_init_constants(struct sph_solver *S) {
  struct sph_params *P = &S->P;
  sph_kernel_init(&S->kw, P->kernel, P->h);
  sph_kernel_init(&S->kg, P->grad_kernel, P->h);
  /* Particle mass from the spacing: the sampling lattice has exactly the
   * rest density (rho0 s^3 times 1.00003 for the cubic spline with
   * h = s, 0.99 for poly6, 0.81 for spiky as a density kernel). */
  if (!(P->mass > 0.0)) P->mass = P->rho0 / lattice_sum(&S->kw, P->spacing);
  P->B = P->rho0 * P->c * P->c / P->gamma;
  S->isa = SPH_ISA_COUNT - 1; /* the widest; SPH_ISA_C always runs */
  while (!sph_wsum_isa(S->isa)) S->isa--;
  /* The guard keeps centres this far from a wall: pressure holds the
   * first layer about half a spacing away, the guard only catches what
   * pressure failed to stop within one step. */
  S->margin = 0.5 * P->radius;
}

/* Becker & Teschner (2007), Sec. 3.4: CFL dt <= lambda h / v_max,
 * viscosity dt <= lambda h / (c (1 + 0.6 alpha)), force
 * dt <= lambda_f sqrt(h / a_max). */
double sph_max_dt(const struct sph_solver *S) {
  const struct sph_params *P = &S->P;
  double v2 = 0.0;
  const double *v = S->v;
  size_t n = S->n;
#pragma omp parallel for reduction(max : v2) schedule(static) \
    num_threads(sph_team(S, n, SPH_FLAT_MIN))
  for (size_t i = 0; i < n; i++) {
    double s = v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] +
               v[3 * i + 2] * v[3 * i + 2];
    v2 = s > v2 ? s : v2;
  }
  double g = sqrt(P->gravity[0] * P->gravity[0] +
                  P->gravity[1] * P->gravity[1] +
                  P->gravity[2] * P->gravity[2]);
  double amax = fmax(S->amax, g);
  double dt = P->cfl * P->h / (P->c * (1.0 + 0.6 * P->alpha));
  if (v2 > 0.0) dt = fmin(dt, P->cfl * P->h / sqrt(v2));
  if (amax > 0.0) dt = fmin(dt, P->force_cfl * sqrt(P->h / amax));
  return fmin(dt, sph_heat_dt(S));
}

void sph_begin(struct sph_solver *S) {
  size_t n = S->n;
  S->replay.ok = 0;
  S->kept.ok = 0;
  S->amax0 = S->amax;
  S->clamps0 = S->clamps;
  S->fresh0 = S->fresh;
  memcpy(S->T0, S->T, n * sizeof *S->T0);
#pragma omp parallel for schedule(static) \
    num_threads(sph_team(S, n, SPH_FLAT_MIN))
  for (size_t i = 0; i < n; i++)
    for (int c = 0; c < 3; c++) {
      S->x0[3 * i + c] = S->x[SPH_XS * i + c];
      S->v0[3 * i + c] = S->v[3 * i + c];
    }
}

/* Keep the end of a stage on the fluid alone before rewinding it. */
static void keep_end(struct sph_solver *S) {
  struct sph_replay *R = &S->replay;
  size_t n = S->n;
  R->ok = 0;
  if (!S->plain) return;
  if (n > R->cap) { /* without the memory, stage 2 integrates again */
    double *x = realloc(R->x, SPH_XS * n * sizeof *x);
    if (x) R->x = x;
    double *v = realloc(R->v, 3 * n * sizeof *v);
    if (v) R->v = v;
    double *T = realloc(R->T, n * sizeof *T);
    if (T) R->T = T;
    if (!x || !v || !T) return;
    R->cap = n;
  }
  memcpy(R->x, S->x, SPH_XS * n * sizeof *R->x);
  memcpy(R->v, S->v, 3 * n * sizeof *R->v);
  memcpy(R->T, S->T, n * sizeof *R->T);
  R->amax = S->amax, R->clamps = S->clamps;
  R->t = S->plain_t, R->dt = S->plain_dt;
  R->fresh = S->fresh, R->lists = S->lists;
  R->ok = 1;
}

int sph_replay(struct sph_solver *S, double t, double dt, int plain) {
  struct sph_replay *R = &S->replay;
  if (!R->ok || !plain || t != R->t || dt != R->dt) return 0;
  size_t n = S->n;
  memcpy(S->x, R->x, SPH_XS * n * sizeof *S->x);
  memcpy(S->v, R->v, 3 * n * sizeof *S->v);
  memcpy(S->T, R->T, n * sizeof *S->T);
  S->amax = R->amax, S->clamps = R->clamps;
  /* the lists integrate made at the end, unless rebuilt since */
  S->fresh = R->fresh && S->lists == R->lists;
  return 1;
}

void sph_rewind(struct sph_solver *S) {
  size_t n = S->n;
  keep_end(S);
#pragma omp parallel for schedule(static) \
    num_threads(sph_team(S, n, SPH_FLAT_MIN))
  for (size_t i = 0; i < n; i++)
    for (int c = 0; c < 3; c++) {
      S->x[SPH_XS * i + c] = S->x0[3 * i + c];
      S->v[3 * i + c] = S->v0[3 * i + c];
    }
  S->amax = S->amax0;
  S->clamps = S->clamps0;
  memcpy(S->T, S->T0, n * sizeof *S->T);
  /* positions are those of the step start: so are lists and density if
   * integrate computed them */
  S->fresh = S->fresh0;
}
