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

#include "peridynamics.h"

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
  free(W->xw), free(W->vw), free(W->fp), free(W->smin), free(W->F), free(W->d);
  free(W->dV), free(W->U), free(W->V), free(W->Fk), free(W->hit);
  free(W->chunk);
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
    if (grow((void **)&W->xw, n, v3) || grow((void **)&W->vw, n, v3) ||
        grow((void **)&W->fp, n, v3))
      return MS_ENOMEM;
    W->cap_n = n;
  }
  if (nn > W->cap_nn || !W->F) {
    size_t c = nn + nn / 4 + 16;
    if (grow((void **)&W->F, c, v3) || grow((void **)&W->d, c, sizeof(double))
        || grow((void **)&W->dV, c, v3) || grow((void **)&W->U, c, v3) ||
        grow((void **)&W->V, c, v3) || grow((void **)&W->Fk, c, v3) ||
        grow((void **)&W->hit, c, 1))
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
  msi_solver_mark(W->solver);
  return MS_OK;
}

/* Pins are the plugin's own: whatever the core wrote to a pinned particle
 * after the split (a velocity from the energy given back, a displacement
 * averaged with another system's constraint), it ends the step where its
 * prescribed velocity takes it. */
void pd_hold_pins(struct pd_model *M, const struct pd_work *W, double h) {
  if (!W->x0 || W->cap_x0 < M->n) return; /* no step begun */
  for (size_t p = 0; p < M->n; p++) {
    if (!M->pinned[p]) continue;
    for (int a = 0; a < 3; a++) {
      M->v[3 * p + a] = M->pin_v[3 * p + a];
      M->x[3 * p + a] = W->x0[3 * p + a] + h * M->pin_v[3 * p + a];
    }
  }
}

void pd_rewind(struct pd_model *M, struct pd_work *W) {
  if (!W->x0 || W->cap_x0 < M->n) return; /* no step begun */
  memcpy(M->x, W->x0, 3 * M->n * sizeof(double));
  memcpy(M->v, W->v0, 3 * M->n * sizeof(double));
  pd_unbreak(M, W);
  msi_solver_rewind(W->solver);
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

/* The state the bond law is evaluated at: kinematic particles at their
 * end positions; the others at the start (V NULL: first Newton iteration)
 * or at start + h V; velocities from the nodes. */
static void scatter(const struct pd_model *M, struct pd_work *W, double h,
                    const double *V, int threads) {
  const struct msi_nodes *N = &W->nodes;
  const double *vel = V ? V : N->vel;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t p = 0; p < M->n; p++) {
    int32_t J = N->node[p];
    const double *u = J >= 0 ? vel + 3 * (size_t)J : fixed_velocity(M, W, p);
    double g = J >= 0 && !V ? 0.0 : h;
    for (int a = 0; a < 3; a++) {
      W->xw[3 * p + a] = M->x[3 * p + a] + g * u[a];
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

/* Domain walls (plugins/common): on the nodes, from the step's start. */
static void walls(const struct pd_model *M, struct pd_work *W, int threads) {
  const struct msi_box box = {M->lo, M->hi, M->restitution, M->friction};
  msi_walls(&W->nodes, &box, M->x, M->r, W->U, W->V, W->hit, threads);
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
      res->constrained[k] = MS_PINNED;
      continue;
    }
    memcpy(rv, W->V + 3 * (size_t)J, 3 * sizeof *rv);
    memcpy(rd, W->U + 3 * (size_t)J, 3 * sizeof *rd);
    res->constrained[k] = W->hit[J];
  }
}

/* How far V is from solving the step: with r_J = h (F_J + bond forces on
 * the node's members at x0 + h V) / m_J - (V_J - V0_J), the velocity still
 * missing, returns |r| / max(|V|, |u|) in mass-weighted norms, u a floor
 * speed (what gravity adds in a step plus 1e-6 spacing per step) so a body
 * at rest does not chase round-off. */
static double residual(const struct pd_model *M, struct pd_work *W, double h,
                       int threads) {
  const struct msi_nodes *N = &W->nodes;
  scatter(M, W, h, W->V, threads);
#pragma omp parallel for schedule(dynamic, 256) num_threads(threads)
  for (size_t p = 0; p < M->n; p++) {
    double s[3] = {0.0, 0.0, 0.0}, f[3];
    if (N->node[p] >= 0)
      for (uint32_t e = M->adj_off[p]; e < M->adj_off[p + 1]; e++) {
        uint32_t b = M->adj_bond[e];
        double sg = M->bonds.pair[2 * (size_t)b] == p ? 1.0 : -1.0;
        pd_bond_force(M, b, W->xw, W->vw, f);
        for (int a = 0; a < 3; a++) s[a] += sg * f[a];
      }
    memcpy(W->fp + 3 * p, s, sizeof s);
  }
  double rn = 0.0, vn = 0.0, mt = 0.0;
  const double *g = M->gravity;
  double u = h * sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) +
             1e-6 * cbrt(M->mat.volume) / h;
  for (size_t J = 0; J < N->nn; J++) {
    mt += N->mass[J];
    double F[3] = {W->F[3 * J], W->F[3 * J + 1], W->F[3 * J + 2]};
    for (uint32_t q = N->mem_off[J]; q < N->mem_off[J + 1]; q++)
      for (int a = 0; a < 3; a++) F[a] += W->fp[3 * (size_t)N->mem[q] + a];
    for (int a = 0; a < 3; a++) {
      double V = W->V[3 * J + a];
      double r = h * F[a] / N->mass[J] - (V - N->vel[3 * J + a]);
      rn += N->mass[J] * r * r;
      vn += N->mass[J] * V * V;
    }
  }
  return sqrt(rn / fmax(vn, mt * u * u));
}

/* Backward Euler, M (V - V0) = h (F + f(x0 + h V, V)), by Newton's
 * method in node space.  The first iteration is the classic linearised
 * step about the start of the step; each further one linearises about the
 * current guess, solving (M + h D + h^2 K) dV = h (F + f) - M (V - V0).
 * After each iteration the residual decides: stop once the velocity still
 * missing is at most newton_tolerance |V| (mass-weighted), or at the
 * iteration limit.  Leaves V and U = h V per node. */
static int newton(struct pd_model *M, struct pd_work *W, double h,
                  int threads) {
  const struct msi_nodes *N = &W->nodes;
  const struct msi_terms terms = {M->bonds.count, M->bonds.pair, M->serial};
  const struct msi_law law = {(void *)M, pd_bond_eval};
  size_t n3 = 3 * N->nn;
  int rc;
  W->iterations = 0;
  W->unconverged = 1;
  for (int it = 0; it < M->newton_iterations; it++) {
    double c = h * h;
    if (it == 0) {
      scatter(M, W, h, NULL, threads);
      memcpy(W->Fk, W->F, n3 * sizeof *W->Fk);
    } else { /* scatter() ran in residual() */
      c = 0.0;
      for (size_t q = 0; q < n3; q++)
        W->Fk[q] = W->F[q] - N->mass[q / 3] * (W->V[q] - N->vel[q]) / h;
    }
    rc = msi_implicit_step(W->solver, &M->opt, N, &terms, &law, W->xw,
                           W->vw, W->Fk, W->d, h, h, h * h, c, W->dV);
    if (rc) return fail(W, rc, "%s", msi_solver_error(W->solver));
    for (size_t q = 0; q < n3; q++)
      W->V[q] = (it ? W->V[q] : N->vel[q]) + W->dV[q];
    W->iterations++;
    if (it + 1 < M->newton_iterations &&
        residual(M, W, h, threads) <= M->newton_tolerance) {
      W->unconverged = 0;
      break;
    }
  }
  for (size_t q = 0; q < n3; q++) W->U[q] = h * W->V[q];
  return MS_OK;
}

int pd_step(struct pd_model *M, struct pd_work *W, double h,
            const double *fext, const struct ms_metas *metas,
            struct ms_meta_result *res, size_t *broke) {
  int threads = M->opt.threads > 0 ? M->opt.threads : 1, rc;
  const struct msi_nodes *N = &W->nodes;
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
  base_forces(M, W, fext, threads);
  if ((rc = newton(M, W, h, threads))) return rc;
  walls(M, W, threads);
  write_back(M, W, h, metas, res, threads);
  double t0 = pd_now();
  rc = pd_fracture(M, W, threads, broke);
  W->t_fracture += pd_now() - t0;
  if (rc) return fail(W, rc, "%s", "out of memory while breaking bonds");
  return MS_OK;
}
