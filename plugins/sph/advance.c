/* Symplectic Euler with meta-particles (the last pass of a step).
 *
 * A meta-particle is one particle of this system: its fluid members move
 * with one velocity starting from the merged one, the SPH forces on its
 * members (evaluated at their real positions) are summed onto it, and it
 * accelerates with its whole mass (other systems' members included);
 * gravity acts on all of it. */
#include <math.h>
#include <string.h>

#include "sph.h"

void sph_gravity(const struct sph_params *P, double t, double *g) {
  double f = 1.0;
  if (t < P->gravity_ramp) /* smooth start: no acoustic shock */
    f = 0.5 * (1.0 - cos(SPH_PI * t / P->gravity_ramp));
  for (int a = 0; a < 3; a++) g[a] = f * P->gravity[a];
}

/* Velocity update of free particles; returns the largest acceleration. */
static double kick_free(struct sph_solver *S, const double *g, double dt,
                        const double *ext) {
  const double im = 1.0 / S->P.mass;
  const size_t n = S->n;
  double *v = S->v, amax2 = 0.0;
  const double *acc = S->a;
  const int32_t *meta = S->meta;
#pragma omp parallel for reduction(max : amax2) schedule(static) \
    num_threads(sph_team(S, n, SPH_FLAT_MIN))
  for (size_t i = 0; i < n; i++) {
    if (meta[i] >= 0) continue;
    double t[3], s = 0.0;
    for (int c = 0; c < 3; c++) {
      t[c] = acc[3 * i + c] + g[c] + (ext ? ext[3 * i + c] * im : 0.0);
      v[3 * i + c] += dt * t[c];
      s += t[c] * t[c];
    }
    amax2 = s > amax2 ? s : amax2;
  }
  return amax2;
}

/* Velocity update of meta-particles: res->velocity; members take it. */
static double kick_metas(struct sph_solver *S, const double *g, double dt,
                         const double *ext, const struct ms_metas *M,
                         struct ms_meta_result *res) {
  const double m = S->P.mass;
  double amax2 = 0.0;
  int64_t cnt = M ? (int64_t)M->count : 0;
#pragma omp parallel for reduction(max : amax2) schedule(dynamic, 16) \
    num_threads(sph_team(S, (size_t)cnt, SPH_META_MIN))
  for (int64_t k = 0; k < cnt; k++) {
    double f[3] = {0.0, 0.0, 0.0}, t[3], s = 0.0;
    for (uint32_t q = M->member_offset[k]; q < M->member_offset[k + 1]; q++) {
      size_t i = M->member[q];
      for (int c = 0; c < 3; c++)
        f[c] += m * S->a[3 * i + c] + (ext ? ext[3 * i + c] : 0.0);
    }
    double *V = res->velocity + 3 * k;
    for (int c = 0; c < 3; c++) {
      t[c] = f[c] / M->mass[k] + g[c];
      V[c] = M->velocity[3 * k + c] + dt * t[c];
      s += t[c] * t[c];
    }
    for (uint32_t q = M->member_offset[k]; q < M->member_offset[k + 1]; q++)
      memcpy(S->v + 3 * (size_t)M->member[q], V, 3 * sizeof(double));
    amax2 = s > amax2 ? s : amax2;
  }
  return amax2;
}

/* XSPH: free particles advect with v_i + eps sum_j 2m/(rho_i + rho_j)
 * (v_j - v_i) W_ij.  The corrections go to S->a (no longer needed). */
static inline __attribute__((always_inline)) void
xsph_one(struct sph_solver *S, size_t i, const int kind) {
  const double *x = S->x, *v = S->v, *rho = S->rho;
  const double c = 2.0 * S->P.xsph * S->P.mass;
  double s[3] = {0.0, 0.0, 0.0};
  if (S->meta[i] < 0)
    for (uint32_t q = S->loff[i], e = S->lend[i]; q < e; q++) {
      const size_t j = S->lidx[q];
      const double *xj = x + SPH_XS * j;
      double dx = x[SPH_XS * i] - xj[0], dy = x[SPH_XS * i + 1] - xj[1],
             dz = x[SPH_XS * i + 2] - xj[2];
      double w = c * sph_w_in(&S->kw, kind, dx * dx + dy * dy + dz * dz) /
                 (rho[i] + rho[j]);
      for (int a = 0; a < 3; a++) s[a] += w * (v[3 * j + a] - v[3 * i + a]);
    }
  for (int a = 0; a < 3; a++) S->a[3 * i + a] = s[a];
}

#define XSPH_PASS(name, kind)                                    \
  static void name(struct sph_solver *S) {                       \
    const size_t n = S->n;                                       \
    _Pragma("omp parallel for schedule(dynamic, 512) \
            num_threads(sph_team(S, n, SPH_PAIR_MIN))")          \
    for (size_t i = 0; i < n; i++) xsph_one(S, i, kind);         \
  }
XSPH_PASS(xsph_cubic, SPH_CUBIC_SPLINE)
XSPH_PASS(xsph_poly6, SPH_POLY6)
XSPH_PASS(xsph_spiky, SPH_SPIKY)

static void drift_free(struct sph_solver *S, double dt, int xsph) {
  const size_t n = S->n;
  uint64_t clamps = 0;
#pragma omp parallel for reduction(+ : clamps) schedule(static) \
    num_threads(sph_team(S, n, SPH_FLAT_MIN))
  for (size_t i = 0; i < n; i++) {
    if (S->meta[i] >= 0) continue;
    double *v = S->v + 3 * i, d[3];
    for (int a = 0; a < 3; a++)
      d[a] = dt * (v[a] + (xsph ? S->a[3 * i + a] : 0.0));
    uint32_t one = (uint32_t)i;
    clamps += (uint64_t)sph_guard(S, &one, 1, d, v);
    for (int a = 0; a < 3; a++) S->x[SPH_XS * i + a] += d[a];
  }
  S->clamps += clamps;
}

static void drift_metas(struct sph_solver *S, double dt,
                        const struct ms_metas *M, struct ms_meta_result *res) {
  int64_t cnt = M ? (int64_t)M->count : 0;
  uint64_t clamps = 0;
#pragma omp parallel for reduction(+ : clamps) schedule(dynamic, 16) \
    num_threads(sph_team(S, (size_t)cnt, SPH_META_MIN))
  for (int64_t k = 0; k < cnt; k++) {
    uint32_t q0 = M->member_offset[k], q1 = M->member_offset[k + 1];
    double *V = res->velocity + 3 * k, *d = res->displacement + 3 * k;
    for (int a = 0; a < 3; a++) d[a] = dt * V[a];
    int hit = sph_guard(S, M->member + q0, q1 - q0, d, V);
    res->constrained[k] = (uint8_t)hit;
    clamps += (uint64_t)hit;
    for (uint32_t q = q0; q < q1; q++) {
      size_t i = M->member[q];
      for (int a = 0; a < 3; a++) {
        S->x[SPH_XS * i + a] += d[a];
        S->v[3 * i + a] = V[a];
      }
    }
  }
  S->clamps += clamps;
}

void sph_advance(struct sph_solver *S, double t, double dt, const double *ext,
                 const struct ms_metas *metas, struct ms_meta_result *res) {
  double t0 = sph_now(), g[3];
  sph_gravity(&S->P, t, g);
  double a1 = kick_free(S, g, dt, ext);
  double a2 = kick_metas(S, g, dt, ext, metas, res);
  S->amax = sqrt(fmax(a1, a2));
  int xsph = S->P.xsph > 0.0;
  if (xsph) {
    switch (S->kw.kind) {
    case SPH_POLY6: xsph_poly6(S); break;
    case SPH_SPIKY: xsph_spiky(S); break;
    default: xsph_cubic(S); break;
    }
  }
  drift_free(S, dt, xsph);
  drift_metas(S, dt, metas, res);
  S->time[SPH_T_INTEGRATE] += sph_now() - t0;
}

/* A step on the fluid alone ends with the density its energy limit needs
 * (end_step applies the limit: stage 2 judges the pairs by the velocities
 * integrate leaves), which is what the next step starts from: the pass
 * runs once a step either way, and counts in the integration.  A rewind
 * then cuts the start's lists again from the same search (a stage 2
 * keeps the fluid out of it when it stays alone: plugin.h, LIFECYCLE).
 * Left to end_step when the end needs a new search (the start's lists
 * would then come from it, in another order) or end_step reorders the
 * particles first. */
static int end_density(struct sph_solver *S) {
  uint64_t every = (uint64_t)S->P.sort_every;
  if (every && (S->steps + 1) % every == 0) return MS_OK;
  int done, rc = sph_prepare_same_search(S, &done);
  if (done) S->fresh0 = 0;
  return rc;
}

/* The energy limit of a step with meta-particles, on the densities at the
 * step's end, taken with the start's lists and densities kept aside: a
 * rewound stage starts from them again (and takes its forces from this
 * one where nothing changed), and the core moves the members after the
 * step (fresh = 0).  Skipped in a step whose end needs a new neighbour
 * search, and without a skin (each density pass searches). */
static int limit_with_metas(struct sph_solver *S, const struct ms_metas *M,
                            struct ms_meta_result *res) {
  if (S->P.skin == 0.0) return MS_OK;
  int done, rc = sph_density_aside(S);
  if (rc) return rc;
  if ((rc = sph_prepare_same_search(S, &done)) == MS_OK && done)
    S->limited_metas = sph_limit_energy_with_metas(S, M, res->velocity,
                                                   res->displacement,
                                                   S->e_start);
  sph_density_back(S);
  S->fresh = 0;
  return rc;
}

int sph_integrate(struct sph_solver *S, double t, double dt,
                  const double *ext, const struct ms_metas *metas,
                  struct ms_meta_result *res) {
  uint32_t cnt = metas ? metas->count : 0;
  int plain = !cnt && !ext;
  S->plain = 0;
  if (sph_replay(S, t, dt, plain)) {
    sph_gravity(&S->P, t, S->g_now);
    S->plain = 1, S->plain_t = t, S->plain_dt = dt;
    return MS_OK; /* alone, the same stage again: where it ended */
  }
  /* Members move with the merged velocity from the start of the step (the
   * viscosity sees it too). */
  for (uint32_t k = 0; k < cnt; k++)
    for (uint32_t q = metas->member_offset[k]; q < metas->member_offset[k + 1];
         q++) {
      uint32_t i = metas->member[q];
      S->meta[i] = (int32_t)k;
      memcpy(S->v + 3 * (size_t)i, metas->velocity + 3 * (size_t)k,
             3 * sizeof(double));
    }
  int fresh = S->fresh; /* lists and density at the step's start */
  int rc = sph_prepare(S);
  S->fresh0 = rc == MS_OK;
  sph_gravity(&S->P, t, S->g_now);
  S->alone = S->P.energy_limit && !cnt && !ext;
  S->limit_metas = S->P.energy_limit && S->P.energy_limit_metas && cnt &&
                   !ext;
  S->limited_metas = 0.0;
  if (rc == MS_OK) {
    if (S->alone) S->e_start = sph_energy_total(S);
    if (S->limit_metas)
      S->e_start = sph_energy_with_metas(S, metas, metas->velocity, NULL);
    sph_heat(S, dt); /* on the lists of the step's start */
    if (!(fresh && sph_forces_again(S, t, dt))) sph_forces(S);
    sph_keep_forces(S, t, dt);
    sph_advance(S, t, dt, ext, metas, res);
    S->fresh = 0; /* the particles moved */
    S->plain = plain, S->plain_t = t, S->plain_dt = dt;
    if (S->alone) rc = end_density(S);
    if (S->limit_metas) rc = limit_with_metas(S, metas, res);
  }
  for (uint32_t k = 0; k < cnt; k++)
    for (uint32_t q = metas->member_offset[k]; q < metas->member_offset[k + 1];
         q++)
      S->meta[metas->member[q]] = -1;
  return rc;
}
