/* One implicit step of the model in node space, then fracture.
 *
 * Nodes (plugins/common/implicit.h): a free particle, or all own members
 * of a meta-particle moving rigidly with one velocity and the whole
 * meta-particle's mass.  Pinned particles are kinematic: they move with
 * their prescribed velocity u (0 for a clamp), and so does a
 * meta-particle holding one.  The shared solver treats them as fixed with
 * velocity 0, so the bond law sees them already at their end-of-step
 * position x + h u: the backward-Euler step is then exact in their motion.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pd.h"

double pd_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void pd_work_init(struct pd_work *W) {
  memset(W, 0, sizeof *W);
  msi_nodes_init(&W->nodes);
}

void pd_work_free(struct pd_work *W) {
  msi_nodes_free(&W->nodes);
  msi_solver_destroy(W->solver);
  free(W->xw), free(W->vw), free(W->smin), free(W->F), free(W->d);
  free(W->dV), free(W->U), free(W->V), free(W->hit), free(W->chunk);
  free(W->fresh), free(W->x0), free(W->v0), free(W->mv);
  memset(W, 0, sizeof *W);
}

static int grow(void **p, size_t n, size_t size) {
  void *q = realloc(*p, (n ? n : 1) * size);
  if (!q) return -1;
  *p = q;
  return 0;
}

static int reserve(struct pd_work *W, size_t n, size_t nn, size_t nmeta) {
  const size_t v3 = 3 * sizeof(double);
  if (n > W->cap_n) {
    if (grow((void **)&W->xw, n, v3) || grow((void **)&W->vw, n, v3))
      return MS_ENOMEM;
    W->cap_n = n;
  }
  if (nn > W->cap_nn || !W->F) {
    size_t c = nn + nn / 4 + 16;
    if (grow((void **)&W->F, c, v3) || grow((void **)&W->d, c, sizeof(double))
        || grow((void **)&W->dV, c, v3) || grow((void **)&W->U, c, v3) ||
        grow((void **)&W->V, c, v3) || grow((void **)&W->hit, c, 1))
      return MS_ENOMEM;
    W->cap_nn = c;
  }
  if (nmeta > W->cap_meta || !W->mv) {
    size_t c = nmeta + nmeta / 2 + 16;
    if (grow((void **)&W->mv, c, v3)) return MS_ENOMEM;
    W->cap_meta = c;
  }
  return MS_OK;
}

static int fail(struct pd_work *W, int rc, const char *fmt, const char *s) {
  snprintf(W->error, sizeof W->error, fmt, s);
  return rc;
}

int pd_begin(struct pd_model *M, struct pd_work *W) {
  if (M->n > W->cap_x0) {
    if (grow((void **)&W->x0, M->n, 3 * sizeof(double)) ||
        grow((void **)&W->v0, M->n, 3 * sizeof(double)))
      return fail(W, MS_ENOMEM, "%s", "out of memory");
    W->cap_x0 = M->n;
  }
  memcpy(W->x0, M->x, 3 * M->n * sizeof(double));
  memcpy(W->v0, M->v, 3 * M->n * sizeof(double));
  W->nfresh = 0;
  return MS_OK;
}

void pd_rewind(struct pd_model *M, struct pd_work *W) {
  memcpy(M->x, W->x0, 3 * M->n * sizeof(double));
  memcpy(M->v, W->v0, 3 * M->n * sizeof(double));
  pd_unbreak(M, W);
}

/* Velocity of each fixed meta-particle: that of its first pinned member. */
static void fixed_metas(const struct pd_model *M, struct pd_work *W,
                        const struct ms_metas *metas) {
  for (uint32_t k = 0; metas && k < metas->count; k++) {
    double *u = W->mv + 3 * (size_t)k;
    u[0] = u[1] = u[2] = 0.0;
    if (W->nodes.meta_node[k] >= 0) continue;
    for (uint32_t q = metas->member_offset[k]; q < metas->member_offset[k + 1];
         q++) {
      uint32_t p = metas->member[q];
      if (!M->pinned[p]) continue;
      memcpy(u, M->pin_v + 3 * (size_t)p, 3 * sizeof *u);
      break;
    }
  }
}

/* Velocity of a fixed particle. */
static inline const double *fixed_velocity(const struct pd_model *M,
                                           const struct pd_work *W,
                                           size_t p) {
  int32_t k = W->nodes.meta_of[p];
  return k >= 0 ? W->mv + 3 * (size_t)k : M->pin_v + 3 * p;
}

/* The state the bond law is evaluated at: start positions (kinematic
 * particles at their end positions) and node velocities. */
static void scatter(const struct pd_model *M, struct pd_work *W, double h,
                    int threads) {
  const struct msi_nodes *N = &W->nodes;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t p = 0; p < M->n; p++) {
    int32_t J = N->node[p];
    const double *u = J >= 0 ? N->vel + 3 * (size_t)J
                             : fixed_velocity(M, W, p);
    for (int a = 0; a < 3; a++) {
      W->xw[3 * p + a] = M->x[3 * p + a] + (J >= 0 ? 0.0 : h * u[a]);
      W->vw[3 * p + a] = u[a];
    }
  }
}

/* Node forces other than the bonds: gravity on the whole node mass and the
 * external forces on its own members; the diagonal is the node mass. */
static void base_forces(const struct pd_model *M, struct pd_work *W,
                        const double *fext, int threads) {
  const struct msi_nodes *N = &W->nodes;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t J = 0; J < N->nn; J++) {
    double *F = W->F + 3 * J;
    for (int a = 0; a < 3; a++) F[a] = N->mass[J] * M->gravity[a];
    for (uint32_t q = N->mem_off[J]; fext && q < N->mem_off[J + 1]; q++)
      for (int a = 0; a < 3; a++) F[a] += fext[3 * (size_t)N->mem[q] + a];
    W->d[J] = N->mass[J];
  }
}

/* Domain walls: clamp each node's displacement so none of its members
 * leaves the domain; bounce and rub its velocity on the axes touched. */
static void walls(const struct pd_model *M, struct pd_work *W, int threads) {
  const struct msi_nodes *N = &W->nodes;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t J = 0; J < N->nn; J++) {
    double *U = W->U + 3 * J, *V = W->V + 3 * J;
    int hit = 0;
    for (int a = 0; a < 3; a++) {
      if (isinf(M->lo[a]) && isinf(M->hi[a])) continue;
      double lo = -INFINITY, hi = INFINITY;
      for (uint32_t q = N->mem_off[J]; q < N->mem_off[J + 1]; q++) {
        size_t p = N->mem[q];
        lo = fmax(lo, M->lo[a] + M->r[p] - M->x[3 * p + a]);
        hi = fmin(hi, M->hi[a] - M->r[p] - M->x[3 * p + a]);
      }
      int side = U[a] < lo ? -1 : U[a] > hi ? 1 : 0;
      if (!side) continue;
      U[a] = side < 0 ? lo : hi;
      if (side * V[a] > 0.0) V[a] = -M->restitution * V[a];
      for (int b = 0; b < 3; b++)
        if (b != a) V[b] *= 1.0 - M->friction;
      hit = 1;
    }
    W->hit[J] = (uint8_t)hit;
  }
}

static void write_back(struct pd_model *M, struct pd_work *W, double h,
                       const struct ms_metas *metas,
                       struct ms_meta_result *res, int threads) {
  const struct msi_nodes *N = &W->nodes;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t p = 0; p < M->n; p++) {
    int32_t J = N->node[p];
    const double *u = J >= 0 ? W->V + 3 * (size_t)J : fixed_velocity(M, W, p);
    for (int a = 0; a < 3; a++) {
      M->x[3 * p + a] += J >= 0 ? W->U[3 * (size_t)J + a] : h * u[a];
      M->v[3 * p + a] = u[a];
    }
  }
  for (uint32_t k = 0; metas && k < metas->count; k++) {
    int32_t J = N->meta_node[k];
    double *rv = res->velocity + 3 * (size_t)k;
    double *rd = res->displacement + 3 * (size_t)k;
    if (J < 0) { /* holds a pinned particle */
      const double *u = W->mv + 3 * (size_t)k;
      for (int a = 0; a < 3; a++) rv[a] = u[a], rd[a] = h * u[a];
      res->constrained[k] = 1;
      continue;
    }
    memcpy(rv, W->V + 3 * (size_t)J, 3 * sizeof *rv);
    memcpy(rd, W->U + 3 * (size_t)J, 3 * sizeof *rd);
    res->constrained[k] = W->hit[J];
  }
}

int pd_step(struct pd_model *M, struct pd_work *W, double h,
            const double *fext, const struct ms_metas *metas,
            struct ms_meta_result *res, size_t *broke) {
  int threads = M->opt.threads > 0 ? M->opt.threads : 1, rc;
  const struct msi_nodes *N = &W->nodes;
  const struct msi_terms terms = {M->bonds.count, M->bonds.pair, M->serial};
  const struct msi_law law = {(void *)M, pd_bond_eval};
  W->error[0] = '\0';
  *broke = 0;
  if ((rc = msi_nodes_build(&W->nodes, M->n, M->m, M->v, M->pinned, metas)))
    return fail(W, rc, "%s", rc == MS_ENOMEM ? "out of memory"
                                              : "bad meta-particle member");
  if (reserve(W, M->n, N->nn, metas ? metas->count : 0))
    return fail(W, MS_ENOMEM, "%s", "out of memory");
  if (!W->solver && msi_solver_create(&W->solver))
    return fail(W, MS_ENOMEM, "%s", "out of memory");
  fixed_metas(M, W, metas);
  scatter(M, W, h, threads);
  base_forces(M, W, fext, threads);
  rc = msi_implicit_step(W->solver, &M->opt, N, &terms, &law, W->xw, W->vw,
                         W->F, W->d, h, h, h * h, h * h, W->dV);
  if (rc) return fail(W, rc, "%s", msi_solver_error(W->solver));
  for (size_t q = 0; q < 3 * N->nn; q++) {
    W->V[q] = N->vel[q] + W->dV[q];
    W->U[q] = h * W->V[q];
  }
  walls(M, W, threads);
  write_back(M, W, h, metas, res, threads);
  double t0 = pd_now();
  rc = pd_fracture(M, W, threads, broke);
  W->t_fracture += pd_now() - t0;
  if (rc) return fail(W, rc, "%s", "out of memory while breaking bonds");
  return MS_OK;
}
