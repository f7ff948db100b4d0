/* Pressure and viscosity accelerations (the second pass of a step).
 *
 *   a_i = - sum_j m (p_i/rho_i^2 + p_j/rho_j^2 + Pi_ij) grad W_ij
 *         - sum_b m (p_i + p_b)/rho_i^2 grad W_ib     (walls, obstacles)
 *   Pi_ij = -nu min(v_ij . x_ij, 0) / (|x_ij|^2 + 0.01 h^2),
 *   nu = 2 alpha h c / (rho_i + rho_j)          (Becker & Teschner 2007)
 *
 * b runs over the virtual particles of boundary.c; their pressure
 * extrapolates the fluid's around i: the Shepard average sum_j p_j W_ij /
 * sum_j W_ij (i included) and, along the wall, the fluid's pressure
 * gradient (per axis, normalised by the same sums over x_ji).  A wall
 * pushes on a particle as hard as the fluid around it does, so a
 * free-surface particle at a wall (zero pressure of its own) is not
 * squeezed into the wall by the fluid below it.
 *
 * Every fluid pair contributes exactly opposite terms to i and j (the same
 * floating-point expression with x_ij = -x_ji), so without walls the
 * total momentum changes only by the rounding of the sums. */
#include <stdlib.h>
#include <string.h>

#include "sph.h"

struct pass {
  const struct sph_kernel *kg, *kw;
  const double *x, *v, *rho, *pr, *p;
  const uint32_t *off, *end, *idx;
  double m, nu0, eps;
};

/* What a particle next to a wall needs of its fluid neighbours. */
struct near {
  double ps, ws;       /* sum p_j W_ij, sum W_ij */
  double num[3], den[3]; /* pressure gradient, axis by axis: num / den */
};

/* The pair term of i and j: s = -m (p_i/rho_i^2 + p_j/rho_j^2 + Pi_ij)
 * F(r), so that i gains s x_ij and j gains -s x_ij (the same operations
 * on the same operands in either order: exactly opposite). */
#define PAIR_TERM(c, kind, x, v, jx, jv)                                     \
  double dx = xi - x[jx], dy = yi - x[jx + 1], dz = zi - x[jx + 2];         \
  double r2 = dx * dx + dy * dy + dz * dz;                                  \
  double vr = (ui - v[jv]) * dx + (vi - v[jv + 1]) * dy +                   \
              (wi - v[jv + 2]) * dz;                                        \
  /* viscosity only between approaching particles: min(vr, 0) without a     \
   * branch (its outcome is a coin toss) */                                 \
  vr = -sph_pos(-vr);                                                       \
  double coef = pri + pr[j] - nu0 * vr / ((rhoi + rho[j]) * (r2 + eps));   \
  double f = sph_f_in(&kg, kind, r2), s = -m * coef * f

/* The pair sums of particle i into a[3]; with `walled`, also the sums of
 * struct near (V_j = m / rho_j):
 *   num_a = sum_j V_j (p_j - p_i) dW_ij/dx_a,
 *   den_a = sum_j V_j (x_j - x_i)_a dW_ij/dx_a. */
static inline __attribute__((always_inline)) void
pairs(const struct pass *c, size_t i, const int kind, const int walled,
      double *a, struct near *nr) {
  const double *x = c->x, *v = c->v;
  const double xi = x[SPH_XS * i], yi = x[SPH_XS * i + 1],
               zi = x[SPH_XS * i + 2];
  const double ui = v[3 * i], vi = v[3 * i + 1], wi = v[3 * i + 2];
  const double pri = c->pr[i], rhoi = c->rho[i];
  const uint32_t q0 = c->off[i], q1 = c->end[i], *idx = c->idx;
  const double *pr = c->pr, *rho = c->rho;
  const double m = c->m, nu0 = c->nu0, eps = c->eps;
  const struct sph_kernel kg = *c->kg; /* a local copy: no aliasing */
  double ax = 0.0, ay = 0.0, az = 0.0;
  if (!walled) {
    /* two pairs per instruction (SSE2; neighbours gathered by index) */
#pragma omp simd reduction(+ : ax, ay, az)
    for (uint32_t q = q0; q < q1; q++) {
      const size_t j = idx[q], jx = SPH_XS * j, jv = 3 * j;
      PAIR_TERM(c, kind, x, v, jx, jv);
      ax += s * dx;
      ay += s * dy;
      az += s * dz;
    }
  } else {
    struct near t = {0.0, 0.0, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    for (uint32_t q = q0; q < q1; q++) {
      const size_t j = idx[q], jx = SPH_XS * j, jv = 3 * j;
      PAIR_TERM(c, kind, x, v, jx, jv);
      ax += s * dx;
      ay += s * dy;
      az += s * dz;
      double w = sph_w_in(c->kw, c->kw->kind, r2), vf = m / rho[j] * f;
      double dp = vf * (c->p[j] - c->p[i]), d[3] = {dx, dy, dz};
      t.ps += c->p[j] * w;
      t.ws += w;
      for (int k = 0; k < 3; k++) {
        t.num[k] += dp * d[k];
        t.den[k] -= vf * d[k] * d[k];
      }
    }
    *nr = t;
  }
  a[0] = ax, a[1] = ay, a[2] = az;
}

/* Acceleration of particle i; inlined with a literal kind into each
 * kernel's own parallel loop. */
static inline __attribute__((always_inline)) void
force_one(const struct sph_solver *S, const struct pass *c, size_t i,
          const int kind) {
  double a[3];
  struct near nr;
  if (!S->walled[i]) {
    pairs(c, i, kind, 0, a, &nr);
  } else {
    pairs(c, i, kind, 1, a, &nr);
    double w0 = S->kw.w0, pw = (nr.ps + c->p[i] * w0) / (nr.ws + w0);
    double G[3], g1[3], gp[3], s = -c->m / (c->rho[i] * c->rho[i]);
    /* den is about 1 for a full neighbourhood, 1/2 at a wall; with
     * fewer neighbours along an axis (splashes) the estimate is noise */
    for (int k = 0; k < 3; k++)
      G[k] = nr.den[k] > 0.25 ? nr.num[k] / nr.den[k] : 0.0;
    sph_boundary_force(S, c->x + SPH_XS * i, pw, c->rho[i], G, g1, gp);
    for (int k = 0; k < 3; k++) a[k] += s * (c->p[i] * g1[k] + gp[k]);
  }
  for (int k = 0; k < 3; k++) S->a[3 * i + k] = a[k];
}

/* Every particle's acceleration, or with `redo` those it marks, the
 * others taking their kept force (sph_forces_again). */
#define FORCE_PASS(name, kind)                                          \
  static void name(struct sph_solver *S, const uint8_t *redo) {         \
    const struct sph_params *P = &S->P;                                 \
    const struct pass c = {&S->kg, &S->kw, S->x, S->v, S->rho, S->pr,   \
                           S->p, S->loff, S->lend, S->lidx, P->mass,     \
                           2.0 * P->alpha * P->h * P->c,                \
                           0.01 * P->h * P->h};                         \
    const size_t n = S->n;                                              \
    const double *ka = S->kept.a;                                       \
    _Pragma("omp parallel for schedule(dynamic, 512) \
            num_threads(sph_team(S, n, SPH_PAIR_MIN))")                 \
    for (size_t i = 0; i < n; i++) {                                    \
      if (!redo || redo[i]) force_one(S, &c, i, kind);                  \
      else memcpy(S->a + 3 * i, ka + 3 * i, 3 * sizeof(double));        \
    }                                                                   \
  }
FORCE_PASS(forces_cubic, SPH_CUBIC_SPLINE)
FORCE_PASS(forces_poly6, SPH_POLY6)
FORCE_PASS(forces_spiky, SPH_SPIKY)

static void forces_of(struct sph_solver *S, const uint8_t *redo) {
  switch (S->kg.kind) {
  case SPH_POLY6: forces_poly6(S, redo); break;
  case SPH_SPIKY: forces_spiky(S, redo); break;
  default: forces_cubic(S, redo); break;
  }
}

void sph_kept_forces_free(struct sph_kept_forces *K) {
  free(K->a), free(K->v), free(K->changed), free(K->redo);
  memset(K, 0, sizeof *K);
}

void sph_keep_forces(struct sph_solver *S, double t, double dt) {
  struct sph_kept_forces *K = &S->kept;
  size_t n = S->n;
  K->ok = 0;
  if (n > K->cap) {
    double *a = realloc(K->a, 3 * n * sizeof *a);
    if (a) K->a = a;
    double *v = realloc(K->v, 3 * n * sizeof *v);
    if (v) K->v = v;
    uint8_t *c = realloc(K->changed, n), *r = realloc(K->redo, n);
    if (c) K->changed = c;
    if (r) K->redo = r;
    if (!a || !v || !c || !r) return;
    K->cap = n;
  }
  memcpy(K->a, S->a, 3 * n * sizeof *K->a);
  memcpy(K->v, S->v, 3 * n * sizeof *K->v);
  K->t = t, K->dt = dt, K->lists = S->lists;
  K->ok = 1;
}

int sph_forces_again(struct sph_solver *S, double t, double dt) {
  struct sph_kept_forces *K = &S->kept;
  if (!K->ok || K->t != t || K->dt != dt || K->lists != S->lists) return 0;
  double t0 = sph_now();
  const size_t n = S->n;
  uint8_t *changed = K->changed, *redo = K->redo;
  const double *v = S->v, *kv = K->v;
  uint64_t kept = 0;
#pragma omp parallel for schedule(static) \
    num_threads(sph_team(S, n, SPH_FLAT_MIN))
  for (size_t i = 0; i < n; i++)
    changed[i] = memcmp(v + 3 * i, kv + 3 * i, 3 * sizeof *v) != 0;
  /* the pair term of i reads v_i and v_j of its neighbours only */
#pragma omp parallel for reduction(+ : kept) schedule(dynamic, 512) \
    num_threads(sph_team(S, n, SPH_PAIR_MIN))
  for (size_t i = 0; i < n; i++) {
    uint8_t r = changed[i];
    for (uint32_t q = S->loff[i], e = S->lend[i]; q < e && !r; q++)
      r = changed[S->lidx[q]];
    redo[i] = r;
    kept += !r;
  }
  K->kept += kept;
  forces_of(S, redo);
  S->time[SPH_T_FORCES] += sph_now() - t0;
  return 1;
}

void sph_forces(struct sph_solver *S) {
  double t0 = sph_now();
  forces_of(S, NULL);
  S->time[SPH_T_FORCES] += sph_now() - t0;
}
