/* Neighbour lists, density and pressure (the first pass of a step). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "sph.h"

/* The Tait equation with clipping; one expression for the pass's loop
 * and for sph_pressure. */
static inline double tait(const struct sph_params *P, double rho) {
  double s = rho / P->rho0, t;
  if (P->gamma == 7.0) {
    double s2 = s * s;
    t = s2 * s2 * s2 * s;
  } else {
    t = pow(s, P->gamma);
  }
  double p = P->B * (t - 1.0);
  return P->clamp_pressure && p < 0.0 ? 0.0 : p;
}

double sph_pressure(const struct sph_params *P, double rho) {
  return tait(P, rho);
}

/* e(rho) = int_rho0^rho p / r^2 dr for the Tait pressure:
 *   (B / rho0) [ (s^(gamma-1) - 1) / (gamma - 1) + 1 / s - 1 ],  s = rho/rho0,
 * whose first term is ln s for gamma = 1 (its limit),
 * which is >= 0 on both sides of rho0 (its derivative, (s^gamma - 1) / s^2
 * times B / rho0, changes sign there); with clamping, p = 0 below rho0
 * and so is e.  The symmetric pressure force is minus the gradient of
 * sum_i m_i e(rho_i). */
double sph_internal_energy(const struct sph_params *P, double rho) {
  double s = rho / P->rho0;
  if (P->clamp_pressure && s < 1.0) return 0.0;
  double g1 = P->gamma - 1.0;
  double e = (g1 != 0.0 ? (pow(s, g1) - 1.0) / g1 : log(s)) + 1.0 / s - 1.0;
  return e > 0.0 ? P->B / P->rho0 * e : 0.0;
}

/* Pressure and p / rho^2 of particles [i0, i1) from their density.  For
 * the usual gamma = 7 without pow() or branches: two particles per
 * instruction. */
static void pressure_block(struct sph_solver *S, size_t i0, size_t i1) {
  const struct sph_params *P = &S->P;
  const double *restrict rho = S->rho;
  double *restrict p = S->p, *restrict pr = S->pr;
  if (P->gamma != 7.0) {
    for (size_t i = i0; i < i1; i++)
      p[i] = tait(P, rho[i]), pr[i] = p[i] / (rho[i] * rho[i]);
    return;
  }
  const double rho0 = P->rho0, B = P->B,
               lo = P->clamp_pressure ? 0.0 : -INFINITY;
#pragma omp simd
  for (size_t i = i0; i < i1; i++) {
    double r = rho[i], s = r / rho0, s2 = s * s;
    double q = B * (s2 * s2 * s2 * s - 1.0);
    q = q < lo ? lo : q; /* as tait(): clipped at 0, NaN kept */
    p[i] = q;
    pr[i] = q / (r * r);
  }
}

/* Density and pressure of particles [i0, i1): the kernel sums (wsum.c)
 * into rho, then finished while still in cache. */
static void density_block(struct sph_solver *S, size_t i0, size_t i1) {
  const struct sph_kernel *k = &S->kw;
  const double scale = sph_w_scale(k, k->kind), m = S->P.mass;
  sph_wsum(S, i0, i1, S->rho);
  for (size_t i = i0; i < i1; i++) {
    const double *x = S->x + SPH_XS * i;
    double wb = sph_boundary_near(S, x) ? sph_boundary_density(S, x) : 0.0;
    S->walled[i] = wb != 0.0;
    S->rho[i] = m * (k->w0 + scale * S->rho[i] + wb) +
                (S->rho_others ? S->rho_others[i] : 0.0);
  }
  pressure_block(S, i0, i1);
}

/* Blocks small enough for the sums to stay in L1 until finished, and for
 * the threads to share out the work dynamically. */
#define DENSITY_BLOCK 256

static void density_pass(struct sph_solver *S) {
  const size_t n = S->n, nb = (n + DENSITY_BLOCK - 1) / DENSITY_BLOCK;
#pragma omp parallel for schedule(dynamic, 2) \
    num_threads(sph_team(S, n, SPH_PAIR_MIN))
  for (size_t b = 0; b < nb; b++) {
    size_t i1 = (b + 1) * DENSITY_BLOCK;
    density_block(S, b * DENSITY_BLOCK, i1 < n ? i1 : n);
  }
}

/* Largest squared displacement since the lists were built. */
static double moved2(const struct sph_solver *S) {
  const size_t n = S->n;
  double m = 0.0;
#pragma omp parallel for reduction(max : m) schedule(static) \
    num_threads(sph_team(S, n, SPH_FLAT_MIN))
  for (size_t i = 0; i < n; i++) {
    double d2 = 0.0;
    for (int a = 0; a < 3; a++) {
      double d = S->x[SPH_XS * i + a] - S->xref[3 * i + a];
      d2 += d * d;
    }
    m = d2 > m ? d2 : m;
  }
  return m;
}

/* Whether the lists need a new search at the current positions: none
 * yet, no skin (the search's own lists, every time), or two particles may
 * have closed the skin. */
static int must_search(const struct sph_solver *S) {
  const double skin = S->P.skin * S->kw.R;
  return !S->lists_ok || skin == 0.0 || 4.0 * moved2(S) >= skin * skin;
}

/* Neighbour lists within R: the search's own when there is no skin,
 * else its lists (radius R (1 + skin)) cut to R, searching again only when
 * must_search says so. */
static int lists(struct sph_solver *S, int search) {
  const size_t n = S->n;
  const double skin = S->P.skin * S->kw.R;
  if (search) {
    int rc = S->neighbors(S->nb_opaque, S->x, SPH_XS * sizeof(double), n,
                          sph_list_radius(S), &S->nbl);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++)
      for (int a = 0; a < 3; a++) S->xref[3 * i + a] = S->x[SPH_XS * i + a];
    S->lists_ok = 1;
    S->searches++;
  }
  S->loff = S->nbl.offset;
  if (skin == 0.0) {
    S->lend = S->nbl.offset + 1, S->lidx = S->nbl.index;
    return MS_OK;
  }
  size_t total = S->nbl.offset[n];
  if (total > S->ccap) {
    uint32_t *p = realloc(S->cidx, (total + total / 4 + 16) * sizeof *p);
    if (!p) return MS_ENOMEM;
    S->cidx = p, S->ccap = total + total / 4 + 16;
  }
  const uint32_t *off = S->nbl.offset, *cand = S->nbl.index;
  const double *x = S->x, R2 = S->kw.R2;
  uint32_t *out = S->cidx, *start = S->cstart, *end = S->cend;
  const int team = sph_team(S, n, SPH_PAIR_MIN);
  /* Each thread packs the lists of a contiguous block of particles into
   * that block's own stretch of the search's storage: no gaps between
   * lists for the passes to stride over. */
#pragma omp parallel num_threads(team)
  {
    size_t t = 0, T = 1;
#ifdef _OPENMP
    t = (size_t)omp_get_thread_num(), T = (size_t)omp_get_num_threads();
#endif
    size_t a = n * t / T, b = n * (t + 1) / T;
    uint32_t e = a < n ? off[a] : 0;
    for (size_t i = a; i < b; i++) {
      const double xi = x[SPH_XS * i], yi = x[SPH_XS * i + 1],
                   zi = x[SPH_XS * i + 2];
      start[i] = e;
      for (uint32_t q = off[i]; q < off[i + 1]; q++) {
        const double *xj = x + SPH_XS * (size_t)cand[q];
        double dx = xi - xj[0], dy = yi - xj[1], dz = zi - xj[2];
        out[e] = cand[q];
        e += dx * dx + dy * dy + dz * dz < R2;
      }
      end[i] = e;
    }
  }
  S->loff = S->cstart, S->lend = S->cend, S->lidx = S->cidx;
  return MS_OK;
}

void sph_density(struct sph_solver *S) {
  double t0 = sph_now();
  density_pass(S);
  S->time[SPH_T_DENSITY] += sph_now() - t0;
}

/* Lists (searched again if search), density and pressure; the clock
 * runs from t0, when must_search began. */
static int prepare(struct sph_solver *S, int search, double t0) {
  int rc = lists(S, search);
  S->time[SPH_T_NEIGHBORS] += sph_now() - t0;
  S->lists++;
  if (rc) return rc;
  sph_density(S);
  S->fresh = 1;
  return MS_OK;
}

int sph_prepare(struct sph_solver *S) {
  if (S->fresh) return MS_OK;
  double t0 = sph_now();
  return prepare(S, must_search(S), t0);
}

int sph_prepare_same_search(struct sph_solver *S, int *done) {
  *done = 1;
  if (S->fresh) return MS_OK;
  double t0 = sph_now();
  int search = must_search(S);
  *done = !search || S->P.skin == 0.0;
  if (!*done) {
    S->time[SPH_T_NEIGHBORS] += sph_now() - t0;
    return MS_OK;
  }
  return prepare(S, search, t0);
}

int sph_density_aside(struct sph_solver *S) {
  struct sph_aside *A = &S->aside;
  const size_t n = S->n, cut = S->nbl.offset[n];
  if (sph_grow((void **)&A->dens, &A->cap_dens, 3 * n, sizeof *A->dens) ||
      sph_grow((void **)&A->walled, &A->cap_walled, n, 1) ||
      sph_grow((void **)&A->cut, &A->cap_cut, 2 * n + cut, sizeof *A->cut))
    return MS_ENOMEM;
  memcpy(A->dens, S->rho, n * sizeof *S->rho);
  memcpy(A->dens + n, S->p, n * sizeof *S->p);
  memcpy(A->dens + 2 * n, S->pr, n * sizeof *S->pr);
  memcpy(A->walled, S->walled, n);
  memcpy(A->cut, S->cstart, n * sizeof *S->cstart);
  memcpy(A->cut + n, S->cend, n * sizeof *S->cend);
  memcpy(A->cut + 2 * n, S->cidx, cut * sizeof *S->cidx);
  A->lists = S->lists, A->fresh = S->fresh;
  return MS_OK;
}

void sph_density_back(struct sph_solver *S) {
  const struct sph_aside *A = &S->aside;
  const size_t n = S->n, cut = S->nbl.offset[n];
  memcpy(S->rho, A->dens, n * sizeof *S->rho);
  memcpy(S->p, A->dens + n, n * sizeof *S->p);
  memcpy(S->pr, A->dens + 2 * n, n * sizeof *S->pr);
  memcpy(S->walled, A->walled, n);
  memcpy(S->cstart, A->cut, n * sizeof *S->cstart);
  memcpy(S->cend, A->cut + n, n * sizeof *S->cend);
  memcpy(S->cidx, A->cut + 2 * n, cut * sizeof *S->cidx);
  S->loff = S->cstart, S->lend = S->cend, S->lidx = S->cidx;
  S->lists = A->lists, S->fresh = A->fresh;
}
