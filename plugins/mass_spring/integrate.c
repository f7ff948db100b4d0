/* One step of the model in node space, for every integrator.
 *
 * Nodes (plugins/common/implicit.h): a free particle, or all own members of
 * a meta-particle moving rigidly with one velocity and the whole
 * meta-particle's mass; pinned particles (and meta-particles holding one)
 * are fixed.  A node's state during the step is its displacement U from
 * the start and its velocity V; a member's position is its start position
 * plus U, so forces are evaluated at the members' real positions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mass_spring.h"

void mss_work_init(struct mss_work *W) {
  memset(W, 0, sizeof *W);
  msi_nodes_init(&W->nodes);
  msi_topo_init(&W->topo);
}

void mss_work_free(struct mss_work *W) {
  msi_nodes_free(&W->nodes);
  msi_topo_free(&W->topo);
  msi_solver_destroy(W->solver);
  free(W->xw), free(W->vw), free(W->f), free(W->F), free(W->d);
  free(W->dV), free(W->U), free(W->V), free(W->A), free(W->Us);
  free(W->Vs), free(W->Ua), free(W->Va), free(W->hit);
  memset(W, 0, sizeof *W);
}

static int grow(void **p, size_t n, size_t size) {
  void *q = realloc(*p, (n ? n : 1) * size);
  if (!q) return -1;
  *p = q;
  return 0;
}

static int reserve(struct mss_work *W, size_t n, size_t nn, size_t ns) {
  if (n > W->cap_n) {
    if (grow((void **)&W->xw, n, 3 * sizeof(double)) ||
        grow((void **)&W->vw, n, 3 * sizeof(double)))
      return MS_ENOMEM;
    W->cap_n = n;
  }
  if (ns > W->cap_s) {
    if (grow((void **)&W->f, ns, 3 * sizeof(double))) return MS_ENOMEM;
    W->cap_s = ns;
  }
  if (nn > W->cap_nn || !W->F) {
    size_t c = nn + nn / 4 + 16, v3 = 3 * sizeof(double);
    if (grow((void **)&W->F, c, v3) || grow((void **)&W->d, c, sizeof(double))
        || grow((void **)&W->dV, c, v3) || grow((void **)&W->U, c, v3) ||
        grow((void **)&W->V, c, v3) || grow((void **)&W->A, c, v3) ||
        grow((void **)&W->Us, c, v3) || grow((void **)&W->Vs, c, v3) ||
        grow((void **)&W->Ua, c, v3) || grow((void **)&W->Va, c, v3) ||
        grow((void **)&W->hit, c, 1))
      return MS_ENOMEM;
    W->cap_nn = c;
  }
  return MS_OK;
}

static int fail(struct mss_work *W, int rc, const char *fmt, const char *s) {
  snprintf(W->error, sizeof W->error, fmt, s);
  return rc;
}

/* Node forces other than the springs: gravity on the whole node mass and
 * the external forces on its own members. */
static void base_forces(const struct mss_model *M, struct mss_work *W,
                        const double *fext, int threads) {
  const struct msi_nodes *N = &W->nodes;
#pragma omp parallel for schedule(static) num_threads(threads) \
    if (N->nn > MSS_PAR_MIN)
  for (size_t J = 0; J < N->nn; J++) {
    double *F = W->F + 3 * J;
    for (int a = 0; a < 3; a++) F[a] = N->mass[J] * M->gravity[a];
    for (uint32_t q = N->mem_off[J]; fext && q < N->mem_off[J + 1]; q++)
      for (int a = 0; a < 3; a++) F[a] += fext[3 * (size_t)N->mem[q] + a];
  }
}

/* Member positions x0 + U (only when U is given) and velocities V (fixed
 * particles: velocity 0). */
static void scatter(const struct mss_model *M, struct mss_work *W,
                    const double *U, const double *V, int threads) {
  const int32_t *node = W->nodes.node;
#pragma omp parallel for schedule(static) num_threads(threads) \
    if (M->n > MSS_PAR_MIN)
  for (size_t p = 0; p < M->n; p++) {
    int32_t J = node[p];
    for (int a = 0; a < 3; a++) {
      if (U)
        W->xw[3 * p + a] = M->x[3 * p + a] + (J >= 0 ? U[3 * J + a] : 0.0);
      W->vw[3 * p + a] = J >= 0 ? V[3 * (size_t)J + a] : 0.0;
    }
  }
}

/* Node accelerations for the state (U, V). */
static void accel(const struct mss_model *M, struct mss_work *W,
                  const double *U, const double *V, const double *Fb,
                  double *A, int threads) {
  const struct msi_nodes *N = &W->nodes;
  const struct msi_law law = {(void *)&M->springs, mss_spring_eval};
  scatter(M, W, U, V, threads);
  msi_eval_forces(&law, M->springs.count, U ? W->xw : M->x, W->vw, W->f,
                  threads);
  for (size_t q = 0; q < 3 * N->nn; q++)
    A[q] = Fb[q] - M->mass_damping * N->mass[q / 3] * V[q];
  msi_gather_forces(&W->topo, W->f, A, threads);
  for (size_t q = 0; q < 3 * N->nn; q++) A[q] /= N->mass[q / 3];
}

static int explicit_step(const struct mss_model *M, struct mss_work *W,
                         double h, int threads) {
  const struct msi_nodes *N = &W->nodes;
  const struct msi_terms terms = {M->springs.count, M->springs.pair,
                                  M->serial};
  const double *V0 = N->vel;
  size_t n3 = 3 * N->nn;
  double *U = W->U, *V = W->V, *A = W->A, *Us = W->Us, *Vs = W->Vs;
  if (msi_topo_update(&W->topo, N, &terms, 0, threads))
    return fail(W, MS_ENOMEM, "%s", "out of memory");
  accel(M, W, NULL, V0, W->F, A, threads);
  switch (M->integrator) {
  case MSS_FORWARD_EULER:
    for (size_t q = 0; q < n3; q++) U[q] = h * V0[q], V[q] = V0[q] + h * A[q];
    return MS_OK;
  case MSS_SYMPLECTIC_EULER:
    for (size_t q = 0; q < n3; q++) V[q] = V0[q] + h * A[q], U[q] = h * V[q];
    return MS_OK;
  case MSS_MIDPOINT:
    for (size_t q = 0; q < n3; q++)
      Us[q] = 0.5 * h * V0[q], Vs[q] = V0[q] + 0.5 * h * A[q];
    accel(M, W, Us, Vs, W->F, A, threads);
    for (size_t q = 0; q < n3; q++) V[q] = V0[q] + h * A[q], U[q] = h * Vs[q];
    return MS_OK;
  default: /* RK4 */
    break;
  }
  double *Ua = W->Ua, *Va = W->Va;
  for (size_t q = 0; q < n3; q++) {
    Ua[q] = V0[q], Va[q] = A[q];
    Us[q] = 0.5 * h * V0[q], Vs[q] = V0[q] + 0.5 * h * A[q];
  }
  for (int s = 2; s <= 4; s++) {
    accel(M, W, Us, Vs, W->F, A, threads);
    double w = s < 4 ? 2.0 : 1.0, g = s < 3 ? 0.5 * h : h;
    for (size_t q = 0; q < n3; q++) {
      Ua[q] += w * Vs[q], Va[q] += w * A[q];
      Us[q] = g * Vs[q], Vs[q] = V0[q] + g * A[q];
    }
  }
  for (size_t q = 0; q < n3; q++)
    U[q] = h / 6.0 * Ua[q], V[q] = V0[q] + h / 6.0 * Va[q];
  return MS_OK;
}

static int implicit_step(struct mss_model *M, struct mss_work *W, double h,
                         int threads) {
  const struct msi_nodes *N = &W->nodes;
  const struct msi_terms terms = {M->springs.count, M->springs.pair,
                                  M->serial};
  const struct msi_law law = {(void *)&M->springs, mss_spring_eval};
  int trap = M->integrator == MSS_TRAPEZOIDAL;
  double a = trap ? 0.5 * h : h, b = a * a, c = trap ? 0.5 * h * h : h * h;
  const double *V0 = N->vel;
  if (!W->solver && msi_solver_create(&W->solver))
    return fail(W, MS_ENOMEM, "%s", "out of memory");
  scatter(M, W, NULL, V0, threads);
  for (size_t J = 0; J < N->nn; J++) {
    double mu = M->mass_damping * N->mass[J];
    W->d[J] = N->mass[J] + a * mu;
    for (int k = 0; k < 3; k++) W->F[3 * J + k] -= mu * V0[3 * J + k];
  }
  int rc = msi_implicit_step(W->solver, &M->opt, N, &terms, &law, M->x,
                             W->vw, W->F, W->d, h, a, b, c, W->dV);
  if (rc) return fail(W, rc, "%s", msi_solver_error(W->solver));
  for (size_t q = 0; q < 3 * N->nn; q++) {
    W->V[q] = V0[q] + W->dV[q];
    W->U[q] = trap ? 0.5 * h * (V0[q] + W->V[q]) : h * W->V[q];
  }
  return MS_OK;
}

/* Domain walls (plugins/common): on the nodes, from the step's start. */
static void walls(const struct mss_model *M, struct mss_work *W, int threads) {
  const struct msi_box box = {M->lo, M->hi, M->restitution, M->friction};
  msi_walls(&W->nodes, &box, M->x, M->r, W->U, W->V, W->hit, threads);
}

static void write_back(struct mss_model *M, struct mss_work *W,
                       const struct ms_metas *metas,
                       struct ms_meta_result *res, int threads) {
  const struct msi_nodes *N = &W->nodes;
#pragma omp parallel for schedule(static) num_threads(threads) \
    if (M->n > MSS_PAR_MIN)
  for (size_t p = 0; p < M->n; p++) {
    int32_t J = N->node[p];
    for (int a = 0; a < 3; a++) {
      if (J >= 0) M->x[3 * p + a] += W->U[3 * (size_t)J + a];
      M->v[3 * p + a] = J >= 0 ? W->V[3 * (size_t)J + a] : 0.0;
    }
  }
  for (uint32_t k = 0; metas && k < metas->count; k++) {
    int32_t J = N->meta_node[k];
    double *rv = res->velocity + 3 * (size_t)k;
    double *rd = res->displacement + 3 * (size_t)k;
    if (J < 0) { /* holds a pinned particle */
      memset(rv, 0, 3 * sizeof *rv);
      memset(rd, 0, 3 * sizeof *rd);
      res->constrained[k] = MS_PINNED;
      continue;
    }
    memcpy(rv, W->V + 3 * (size_t)J, 3 * sizeof *rv);
    memcpy(rd, W->U + 3 * (size_t)J, 3 * sizeof *rd);
    res->constrained[k] = W->hit[J];
  }
}

int mss_step(struct mss_model *M, struct mss_work *W, double dt,
             const double *fext, const struct ms_metas *metas,
             struct ms_meta_result *res) {
  int threads = M->opt.threads > 0 ? M->opt.threads : 1, rc;
  W->error[0] = '\0';
  if ((rc = msi_nodes_build(&W->nodes, M->n, M->m, M->v, M->pinned, metas)))
    return fail(W, rc, "%s", rc == MS_ENOMEM ? "out of memory"
                                              : "bad meta-particle member");
  if (reserve(W, M->n, W->nodes.nn, M->springs.count))
    return fail(W, MS_ENOMEM, "%s", "out of memory");
  base_forces(M, W, fext, threads);
  rc = mss_is_implicit(M->integrator) ? implicit_step(M, W, dt, threads)
                                      : explicit_step(M, W, dt, threads);
  if (rc) return rc;
  for (size_t q = 0; q < 3 * W->nodes.nn; q++)
    if (!isfinite(W->U[q]) || !isfinite(W->V[q]))
      return fail(W, MS_ENUMERIC, "%s integration produced a non-finite "
                  "velocity: the step is too large for the stiffness (use "
                  "backward_euler, or more damping)",
                  mss_integrator_names[M->integrator]);
  W->limited = M->strain_limit > 0.0 ? mss_limit_strain(M, W) : 0;
  walls(M, W, threads);
  write_back(M, W, metas, res, threads);
  return MS_OK;
}
