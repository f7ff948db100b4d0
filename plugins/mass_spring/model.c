/* The particle-and-spring model: storage, spring adjacency, the contact
 * filter, stretch, and the explicit schemes' stable step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mass_spring.h"

const char *const mss_integrator_names[MSS_INTEGRATOR_COUNT] = {
    "backward_euler", "forward_euler", "symplectic_euler",
    "midpoint",       "rk4",           "trapezoidal"};

int mss_model_alloc(struct mss_model *M, size_t n) {
  size_t k = n ? n : 1;
  M->n = n;
  M->x = calloc(3 * k, sizeof(double));
  M->v = calloc(3 * k, sizeof(double));
  M->m = calloc(k, sizeof(double));
  M->r = calloc(k, sizeof(double));
  M->stretch = calloc(k, sizeof(double));
  M->normal = calloc(3 * k, sizeof(double));
  M->pinned = calloc(k, 1);
  M->edge = calloc(k, 1);
  M->adj_off = calloc(k + 1, sizeof(uint32_t));
  return M->x && M->v && M->m && M->r && M->stretch && M->normal &&
                 M->pinned && M->edge && M->adj_off
             ? MS_OK
             : MS_ENOMEM;
}

void mss_model_free(struct mss_model *M) {
  free(M->x), free(M->v), free(M->m), free(M->r), free(M->stretch);
  free(M->normal);
  free(M->pinned), free(M->edge), free(M->adj_off), free(M->adj), free(M->adj_spring);
  free(M->springs.pair), free(M->springs.rest), free(M->springs.k);
  free(M->springs.c);
  free(M->attach), free(M->attach_rest);
  memset(M, 0, sizeof *M);
}

static int grow(void **p, size_t n, size_t size) {
  void *q = realloc(*p, n * size);
  if (!q) return -1;
  *p = q;
  return 0;
}

int mss_spring_add(struct mss_springs *S, uint32_t i, uint32_t j, double k,
                   double c, double rest) {
  if (S->count == S->cap) {
    size_t cap = S->cap ? 2 * S->cap : 1024;
    if (grow((void **)&S->pair, cap, 2 * sizeof(uint32_t)) ||
        grow((void **)&S->rest, cap, sizeof(double)) ||
        grow((void **)&S->k, cap, sizeof(double)) ||
        grow((void **)&S->c, cap, sizeof(double)))
      return MS_ENOMEM;
    S->cap = cap;
  }
  size_t s = S->count++;
  S->pair[2 * s] = i < j ? i : j;
  S->pair[2 * s + 1] = i < j ? j : i;
  S->k[s] = k;
  S->c[s] = c;
  S->rest[s] = rest;
  return MS_OK;
}

/* Sort each particle's neighbour list (with its spring ids) ascending. */
static void sort_neighbours(uint32_t *nb, uint32_t *sp, uint32_t n) {
  for (uint32_t a = 1; a < n; a++) {
    uint32_t v = nb[a], s = sp[a], b = a;
    while (b > 0 && nb[b - 1] > v) nb[b] = nb[b - 1], sp[b] = sp[b - 1], b--;
    nb[b] = v, sp[b] = s;
  }
}

int mss_model_finish(struct mss_model *M) {
  const struct mss_springs *S = &M->springs;
  if (S->count >= (size_t)1 << 31) return MS_ERANGE;
  free(M->adj), free(M->adj_spring);
  M->adj = malloc((2 * S->count + 1) * sizeof(uint32_t));
  M->adj_spring = malloc((2 * S->count + 1) * sizeof(uint32_t));
  if (!M->adj || !M->adj_spring) return MS_ENOMEM;
  uint32_t *off = M->adj_off;
  memset(off, 0, (M->n + 1) * sizeof *off);
  for (size_t s = 0; s < S->count; s++)
    off[S->pair[2 * s] + 1]++, off[S->pair[2 * s + 1] + 1]++;
  for (size_t i = 0; i < M->n; i++) off[i + 1] += off[i];
  for (size_t s = 0; s < S->count; s++)
    for (int e = 0; e < 2; e++) {
      uint32_t i = S->pair[2 * s + e], q = off[i]++;
      M->adj[q] = S->pair[2 * s + 1 - e];
      M->adj_spring[q] = (uint32_t)s;
    }
  for (size_t i = M->n; i > 0; i--) off[i] = off[i - 1];
  off[0] = 0;
  for (size_t i = 0; i < M->n; i++)
    sort_neighbours(M->adj + off[i], M->adj_spring + off[i],
                    off[i + 1] - off[i]);
  M->serial++;
  M->max_dt = mss_stable_dt(M);
  mss_update_stretch(M, 1);
  return MS_OK;
}

void mss_update_stretch(struct mss_model *M, int threads) {
  const struct mss_springs *S = &M->springs;
#pragma omp parallel for schedule(static) num_threads(threads) \
    if (M->n > MSS_PAR_MIN)
  for (size_t i = 0; i < M->n; i++) {
    double worst = -INFINITY;
    for (uint32_t q = M->adj_off[i]; q < M->adj_off[i + 1]; q++) {
      size_t s = M->adj_spring[q];
      const double *a = M->x + 3 * i, *b = M->x + 3 * (size_t)M->adj[q];
      double l = sqrt((b[0] - a[0]) * (b[0] - a[0]) +
                      (b[1] - a[1]) * (b[1] - a[1]) +
                      (b[2] - a[2]) * (b[2] - a[2]));
      double e = S->rest[s] > 0.0 ? (l - S->rest[s]) / S->rest[s] : 0.0;
      worst = fmax(worst, e);
    }
    M->stretch[i] = isfinite(worst) ? worst : 0.0;
  }
}

static int connected(const struct mss_model *M, uint32_t i, uint32_t j) {
  const uint32_t *a = M->adj + M->adj_off[i];
  uint32_t lo = 0, hi = M->adj_off[i + 1] - M->adj_off[i];
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (a[mid] < j) lo = mid + 1;
    else hi = mid;
  }
  return lo < M->adj_off[i + 1] - M->adj_off[i] && a[lo] == j;
}

void mss_filter_pairs(const struct mss_model *M, const uint32_t *pairs,
                      size_t count, uint8_t *keep, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads) \
    if (count > MSS_PAR_MIN)
  for (size_t k = 0; k < count; k++) {
    uint32_t i = pairs[2 * k], j = pairs[2 * k + 1];
    if (i < M->n && j < M->n && connected(M, i, j)) keep[k] = 0;
  }
}

/* Gershgorin bound on the stiffest mode of M^-1/2 K M^-1/2 (omega^2) and
 * of the damping (gamma), over free particles; a pinned neighbour adds
 * only its diagonal share. */
static void stiffest(const struct mss_model *M, double *w2, double *g) {
  const struct mss_springs *S = &M->springs;
  double wmax = 0.0, gmax = 0.0;
  for (size_t i = 0; i < M->n; i++) {
    if (M->pinned[i]) continue;
    double wi = 0.0, gi = 0.0;
    for (uint32_t q = M->adj_off[i]; q < M->adj_off[i + 1]; q++) {
      size_t s = M->adj_spring[q], j = M->adj[q];
      double share = 1.0 / M->m[i] +
                     (M->pinned[j] ? 0.0 : 1.0 / sqrt(M->m[i] * M->m[j]));
      wi += S->k[s] * share;
      gi += S->c[s] * share;
    }
    wmax = fmax(wmax, wi);
    gmax = fmax(gmax, gi);
  }
  *w2 = wmax;
  *g = gmax + M->mass_damping;
}

/* Explicit schemes, on the linear test equation with the stiffest
 * eigenvalue magnitude L = g/2 + sqrt(g^2/4 + w^2):
 *   symplectic Euler  h <= 2 / L          (imaginary-axis limit 2)
 *   RK4               h <= 2.78 / L
 *   forward Euler     unstable for an undamped oscillation at any h (energy
 *   midpoint (RK2)    grows by 1 + (w h)^2, resp. 1 + (w h)^4 / 4, per
 *                     step): their limit keeps that growth near 1 %
 *                     (w h <= 0.1, resp. 0.6) unless the damping makes the
 *                     step stable (h <= g / w^2), and never exceeds 2 / L.
 * Each is taken with a safety factor 0.9. */
double mss_stable_dt(const struct mss_model *M) {
  if (mss_is_implicit(M->integrator)) return INFINITY;
  double w2, g;
  stiffest(M, &w2, &g);
  double w = sqrt(w2), L = 0.5 * g + sqrt(0.25 * g * g + w2);
  if (!(L > 0.0)) return INFINITY;
  double h;
  switch (M->integrator) {
  case MSS_SYMPLECTIC_EULER: h = 2.0 / L; break;
  case MSS_RK4: h = 2.78 / L; break;
  case MSS_FORWARD_EULER:
    h = w > 0.0 ? fmin(2.0 / L, fmax(0.1 / w, g / w2)) : 2.0 / L;
    break;
  default: /* midpoint */
    h = w > 0.0 ? fmin(2.0 / L, fmax(0.6 / w, g / w2)) : 2.0 / L;
    break;
  }
  return 0.9 * h;
}
