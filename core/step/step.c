/* One step of the merging-and-splitting driver:
 *   gather -> dt -> begin_step -> detect -> filter -> classify -> merge ->
 *   integrate (stage 1) -> [stage 2] -> sync [-> iterate] -> split ->
 *   write back -> end_step.
 * The systems' side (statements, integration, synchronisation) is in
 * couple.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"
#include "../coupling/coupling.h"
#include "step.h"

/* Margin of the candidate pairs kept across steps (detection.h), in units of
 * the smallest radius.  A larger margin searches less often but filters
 * more candidates each step; 1.5 balanced the two in the paper's scenes. */
#define LIST_MARGIN 1.5

#define TRY(expr)        \
  do {                   \
    int rc_ = (expr);    \
    if (rc_) return rc_; \
  } while (0)

static int reserve_particles(struct ms__particles *P, size_t n) {
  if (n <= P->cap) return MS_OK;
  size_t c = n + n / 4 + 64;
  if (ms__grow((void **)&P->x, c, 3 * sizeof(double)) ||
      ms__grow((void **)&P->v, c, 3 * sizeof(double)) ||
      ms__grow((void **)&P->m, c, sizeof(double)) ||
      ms__grow((void **)&P->r, c, sizeof(double)) ||
      ms__grow((void **)&P->sys, c, sizeof(uint32_t)) ||
      ms__grow((void **)&P->local, c, sizeof(uint32_t)))
    return MS_ENOMEM;
  P->cap = c;
  return MS_OK;
}

static int particle_ok(const double *x, double v2, double m, double r) {
  return isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]) && isfinite(v2) &&
         m > 0.0 && isfinite(m) && r > 0.0 && isfinite(r);
}

static int bad_particle(struct ms__stepper *S, const struct ms__system *y,
                        size_t bad) {
  const double *x = ms__at(&y->x, bad), *v = ms__at(&y->v, bad);
  return ms__errf(S->err, MS_ENUMERIC,
                  "system '%s' (solver '%s'): particle %zu has position "
                  "(%g, %g, %g), velocity (%g, %g, %g), mass %g, radius "
                  "%g at t = %g s (step %llu): not finite or not "
                  "positive", y->desc->name, y->plugin->desc.id, bad,
                  x[0], x[1], x[2], v[0], v[1], v[2], *ms__at(&y->m, bad),
                  *ms__at(&y->r, bad), S->time, (unsigned long long)S->step);
}

/* P = the particles of a piece of the scene (S->dom: ids in the whole,
 * sorted, so P's order is the whole scene's). */
static int gather_piece(struct ms__stepper *S, double *vmax, double *rmin) {
  const struct ms__domain *D = S->dom;
  ms__detect_forget(&S->det); /* index k names another particle now */
  S->ntotal = D->n;
  if (reserve_particles(&S->P, D->n))
    return ms__errf(S->err, MS_ENOMEM, "out of memory");
  double v2max = 0.0, rm = INFINITY;
  uint32_t s = 0;
  for (size_t k = 0; k < D->n; k++) {
    uint32_t g = D->gid[k];
    while (g >= S->sys[s].offset + S->sys[s].view.count) s++;
    const struct ms__system *y = &S->sys[s];
    size_t i = g - y->offset;
    const double *x = ms__at(&y->x, i), *v = ms__at(&y->v, i);
    double m = *ms__at(&y->m, i), r = *ms__at(&y->r, i), v2 = ms__norm2(v);
    ms__copy3(S->P.x + 3 * k, x);
    ms__copy3(S->P.v + 3 * k, v);
    S->P.m[k] = m, S->P.r[k] = r, S->P.sys[k] = s;
    S->P.local[k] = (uint32_t)i;
    if (!particle_ok(x, v2, m, r)) return bad_particle(S, y, i);
    v2max = fmax(v2max, v2);
    rm = fmin(rm, r);
  }
  S->P.n = D->n;
  *vmax = sqrt(v2max);
  *rmin = rm;
  return MS_OK;
}

/* Copy every system's state into P; check it; find max speed, min radius. */
int ms__gather(struct ms__stepper *S, double *vmax, double *rmin) {
  size_t total = 0;
  int moved = 0; /* offsets and total determine every system's count */
  for (uint32_t s = 0; s < S->nsys; s++) {
    moved |= S->sys[s].offset != total;
    S->sys[s].offset = total;
    total += S->sys[s].view.count;
  }
  if (total >= UINT32_MAX)
    return ms__errf(S->err, MS_EINVAL, "too many particles (%zu)", total);
  if (S->dom) return gather_piece(S, vmax, rmin);
  if (moved || total != S->ntotal) ms__detect_forget(&S->det);
  S->ntotal = total;
  if (reserve_particles(&S->P, total))
    return ms__errf(S->err, MS_ENOMEM, "out of memory");
  double v2max = 0.0, rm = INFINITY;
  for (uint32_t s = 0; s < S->nsys; s++) {
    const struct ms__system *y = &S->sys[s];
    size_t off = y->offset, n = y->view.count, bad = n;
#pragma omp parallel for reduction(max : v2max) reduction(min : rm, bad) \
    schedule(static) if (n > MS__PAR_MIN)
    for (size_t i = 0; i < n; i++) {
      size_t g = off + i;
      const double *x = ms__at(&y->x, i), *v = ms__at(&y->v, i);
      double m = *ms__at(&y->m, i), r = *ms__at(&y->r, i);
      ms__copy3(S->P.x + 3 * g, x);
      ms__copy3(S->P.v + 3 * g, v);
      S->P.m[g] = m;
      S->P.r[g] = r;
      S->P.sys[g] = s;
      S->P.local[g] = (uint32_t)i;
      double v2 = ms__norm2(v);
      if (!particle_ok(x, v2, m, r)) bad = i < bad ? i : bad;
      v2max = fmax(v2max, v2);
      rm = fmin(rm, r);
    }
    if (bad < n) return bad_particle(S, y, bad);
  }
  S->P.n = total;
  *vmax = sqrt(v2max);
  *rmin = rm;
  return MS_OK;
}

/* Largest step: CFL (max|v| dt + |g| dt^2 <= cfl r_min: no particle moves
 * more than cfl times the smallest radius, counting the speed gravity adds
 * within the step), the plugins' limits,
 * coupling.max_dt; then the frame remainder is cut into equal steps. */
static int choose_dt(struct ms__stepper *S, double t_end, double vmax,
                     double rmin, double *dt) {
  const struct ms__scene *sc = S->scene;
  double g = sqrt(ms__norm2(sc->gravity)), c = sc->cfl * rmin;
  double h = sc->max_dt;
  /* over ranks, vmax and rmin are every rank's: so is the particle count */
  size_t count = S->dom ? S->dom->nall : S->ntotal;
  if (count > 0 && isfinite(c)) {
    double disc = vmax * vmax + 4.0 * g * c;
    double cfl_dt = (vmax > 0.0 || g > 0.0) ? 2.0 * c / (vmax + sqrt(disc))
                                             : INFINITY;
    h = fmin(h, cfl_dt);
  }
  for (uint32_t s = 0; s < S->nsys; s++) {
    struct ms__system *y = &S->sys[s];
    if (!y->plugin->desc.max_dt) continue;
    double p = INFINITY;
    int rc = MS__CALL(y, max_dt, y->inst, &p);
    if (rc) return ms__system_fail(y, S->err, rc, "max_dt() failed");
    if (!(p > 0.0))
      return ms__errf(S->err, MS_ENUMERIC, "system '%s' (solver '%s') "
                      "reports max dt %g; it must be > 0", y->desc->name,
                      y->plugin->desc.id, p);
    h = fmin(h, p);
  }
  double rest = t_end - S->time;
  if (h >= rest) {
    *dt = rest;
    return MS_OK;
  }
  if (h < sc->min_dt)
    return ms__errf(S->err, MS_ENUMERIC,
                    "time step %.3g s fell below coupling.min_dt = %.3g s at "
                    "t = %g s (max speed %.3g m/s): the simulation is "
                    "unstable", h, sc->min_dt, S->time, vmax);
  double n = ceil(rest / h - 1e-9);
  *dt = rest / n;
  return MS_OK;
}

static int push_pair(uint32_t **buf, size_t *n, size_t *cap, uint32_t a,
                     uint32_t b) {
  if (*n == *cap) {
    size_t c = *cap ? 2 * *cap : 1024;
    if (ms__grow((void **)buf, c, 2 * sizeof(uint32_t))) return MS_ENOMEM;
    *cap = c;
  }
  (*buf)[2 * *n] = a;
  (*buf)[2 * *n + 1] = b;
  (*n)++;
  return MS_OK;
}

static int approaching(const struct ms__particles *P, const double *vi,
                       const double *vj, uint32_t i, uint32_t j) {
  double n[3], dv[3];
  ms__sub(n, P->x + 3 * (size_t)j, P->x + 3 * (size_t)i);
  ms__sub(dv, vj, vi);
  return ms__rule_approaching(ms__dot(n, dv), 0.0);
}

/* Rule 1 (Eq. 21) for positions xi, xj of particles i, j. */
static int in_contact(const struct ms__particles *P, const double *xi,
                      const double *xj, uint32_t i, uint32_t j) {
  double d[3];
  ms__sub(d, xj, xi);
  return ms__rule_contact(ms__norm2(d), P->r[i], P->r[j]);
}

/* A coupling method: how it sorts the candidate pairs, what it does with
 * them before the systems step (NULL: merge them), whether it looks for
 * pairs beyond contact (stage 2's skin). */
struct method {
  int (*classify)(struct ms__stepper *S, uint32_t i, uint32_t j);
  int (*act)(struct ms__stepper *S);
  int skin;
};

/* Let each plugin drop its connected intra-system pairs (S->keep). */
static int filter(struct ms__stepper *S) {
  const uint32_t *pr = S->det.pairs;
  size_t np = S->det.npairs;
  if (np > S->cap_local) {
    size_t c = np + np / 4 + 64;
    if (ms__grow((void **)&S->keep, c, 1) ||
        ms__grow((void **)&S->lkeep, c, 1) ||
        ms__grow((void **)&S->lpairs, c, 2 * sizeof(uint32_t)))
      return ms__errf(S->err, MS_ENOMEM, "out of memory");
    S->cap_local = c;
  }
  if (np) ms__memset(S->keep, 1, np); /* keep is NULL before the first pair */
  for (uint32_t s = 0; s < S->nsys; s++) {
    struct ms__system *y = &S->sys[s];
    if (!y->plugin->desc.filter_pairs || !S->self[s]) continue;
    size_t m = 0;
    for (size_t k = 0; k < np; k++)
      if (S->P.sys[pr[2 * k]] == s && S->P.sys[pr[2 * k + 1]] == s) {
        S->lpairs[2 * m] = S->P.local[pr[2 * k]];
        S->lpairs[2 * m + 1] = S->P.local[pr[2 * k + 1]];
        m++;
      }
    if (!m) continue;
    ms__memset(S->lkeep, 1, m);
    int rc = MS__CALL(y, filter_pairs, y->inst, S->lpairs, m, S->lkeep);
    if (rc)
      return ms__system_fail(y, S->err, rc, "filter_pairs() failed");
    size_t q = 0; /* same visiting order as the gather above */
    for (size_t k = 0; k < np; k++)
      if (S->P.sys[pr[2 * k]] == s && S->P.sys[pr[2 * k + 1]] == s)
        S->keep[k] = S->lkeep[q++] != 0;
  }
  return MS_OK;
}

/* The method sorts the pairs kept (merge-split: approaching, merged now,
 * and marked, checked after stage 1). */
static int classify(struct ms__stepper *S, const struct method *m) {
  const uint32_t *pr = S->det.pairs;
  S->napp = S->nmarked = 0;
  for (size_t k = 0; k < S->det.npairs; k++)
    if (S->keep[k]) TRY(m->classify(S, pr[2 * k], pr[2 * k + 1]));
  return MS_OK;
}

/* Merge-split: a pair in contact (Rule 1) and approaching (Rule 2) merges
 * now; the rest are marked for stage 2. */
static int classify_merge(struct ms__stepper *S, uint32_t i, uint32_t j) {
  int merge = in_contact(&S->P, S->P.x + 3 * (size_t)i,
                         S->P.x + 3 * (size_t)j, i, j) &&
              approaching(&S->P, S->P.v + 3 * (size_t)i,
                          S->P.v + 3 * (size_t)j, i, j);
  int rc = merge ? push_pair(&S->appr, &S->napp, &S->cap_app, i, j)
                 : push_pair(&S->marked, &S->nmarked, &S->cap_marked, i, j);
  return rc ? ms__errf(S->err, MS_ENOMEM, "out of memory") : MS_OK;
}

/* The baselines act on every candidate pair. */
static int classify_all(struct ms__stepper *S, uint32_t i, uint32_t j) {
  if (push_pair(&S->appr, &S->napp, &S->cap_app, i, j))
    return ms__errf(S->err, MS_ENOMEM, "out of memory");
  return MS_OK;
}

static int classify_none(struct ms__stepper *S, uint32_t i, uint32_t j) {
  (void)S, (void)i, (void)j;
  return MS_OK;
}

/* Pairs left out of the size-limited groups are resolved by impulses. */
static int unmerged_impulses(const struct ms__scene *sc) {
  return sc->unmerged_impulses && sc->n_max != 0;
}

/* Group the approaching pairs, merge, and prepare each system's piece. */
static int group_pairs(struct ms__stepper *S, const struct ms_step *st) {
  const struct ms__scene *sc = S->scene;
  struct ms__rng rng;
  /* One stream per (seed, step, stage): reproducible, checkpoint-free;
   * or one per group started (coupling.group_draws). */
  ms__rng_seed(&rng, sc->seed, S->step, st->stage);
  S->groups.per_group = sc->group_per_group;
  S->groups.id = S->dom ? S->dom->gid : NULL;
  S->groups.key[0] = sc->seed;
  S->groups.key[1] = S->step;
  S->groups.key[2] = st->stage;
  if (ms__group(&S->groups, S->ntotal, S->appr, S->napp, sc->n_min, sc->n_max,
                unmerged_impulses(sc), &rng) ||
      ms__metaset_build(&S->metas, &S->groups, &S->P))
    return ms__errf(S->err, MS_ENOMEM, "out of memory");
  for (uint32_t s = 0; s < S->nsys; s++)
    if (ms__sysmetas_build(&S->sys[s].sm, &S->metas, &S->P, s))
      return ms__errf(S->err, MS_ENOMEM, "out of memory");
  return MS_OK;
}

/* The stage's meta-particles, from the core's state alone; then the
 * systems' collective inertia. */
static int merge_pairs(struct ms__stepper *S, const struct ms_step *st) {
  TRY(group_pairs(S, st));
  return ms__collective_inertia(S, st);
}

/* Stage 2 (paper Sec. 5.1, extended).  Marked pairs are the candidate
 * pairs not merged in stage 1: in contact but separating, or within the
 * skin (they could touch during the step).  After stage 1 a pair's motion
 * is judged twice: by the stage-1 velocities (read from the views: members
 * of a meta-particle carry its velocity) and by the relative displacement
 * stage 1 made.  The two agree for a solver that moves its particles by
 * dt v; a FLIP particle advected through the grid (advect = "grid") moves
 * by the grid's velocity while it carries its blended particle velocity, so
 * a pair can report separating velocities while the step carries one
 * particle into the other.
 *  - a marked pair triggers stage 2 if either measure approaches (Rule 2)
 *    and it is in contact at the start of the step or after stage 1;
 *  - stage 2 then merges every marked pair that either measure does not
 *    call separating.  A stack resting on the floor falls as one in stage
 *    1, so the pairs above the bottom contact have exactly zero relative
 *    velocity: they are still in contact and must join, or each would sink
 *    by g dt^2 per step (the paper's two stages would need one stage per
 *    layer).  Pairs that only came into contact during stage 1 join too, so
 *    a gap closed within one step does not become an overlap. */
static double closing(const double *n, const double *ai, const double *aj) {
  double d[3];
  ms__sub(d, aj, ai);
  return ms__dot(n, d);
}

/* Appends the stage-2 pairs to S->appr; *added: how many (0: nothing
 * triggers stage 2, the list is as it was). */
static int stage_two_pairs(struct ms__stepper *S, size_t *added) {
  size_t n0 = S->napp;
  int trigger = 0;
  for (size_t k = 0; k < S->nmarked; k++) {
    uint32_t i = S->marked[2 * k], j = S->marked[2 * k + 1];
    const struct ms__system *yi = &S->sys[S->P.sys[i]];
    const struct ms__system *yj = &S->sys[S->P.sys[j]];
    uint32_t li = S->P.local[i], lj = S->P.local[j];
    const double *xi0 = S->P.x + 3 * (size_t)i, *xj0 = S->P.x + 3 * (size_t)j;
    const double *xi = ms__at(&yi->x, li), *xj = ms__at(&yj->x, lj);
    double n[3], ui[3], uj[3];
    ms__sub(n, xj0, xi0);
    ms__sub(ui, xi, xi0);
    ms__sub(uj, xj, xj0);
    double sv = closing(n, ms__at(&yi->v, li), ms__at(&yj->v, lj));
    double sx = closing(n, ui, uj);
    if (ms__rule_separating(sv, 0.0) && ms__rule_separating(sx, 0.0))
      continue; /* by both measures */
    if ((ms__rule_approaching(sv, 0.0) || ms__rule_approaching(sx, 0.0)) &&
        !trigger)
      trigger = in_contact(&S->P, xi0, xj0, i, j) ||
                in_contact(&S->P, xi, xj, i, j);
    if (push_pair(&S->appr, &S->napp, &S->cap_app, i, j)) {
      S->napp = n0;
      return ms__errf(S->err, MS_ENOMEM, "out of memory");
    }
  }
  if (!trigger) S->napp = n0;
  *added = S->napp - n0;
  return MS_OK;
}

/* Which systems stage 2 leaves as the last stage left them: those with
 * no meta-particle in it nor in the last stage (S->kept holds the last
 * stage's on entry) integrate with the same inputs again (the same forces
 * too: none pushed by another system), and rewind's contract makes the
 * result the same. */
static void mark_kept(struct ms__stepper *S) {
  int pushers = 0;
  for (uint32_t s = 0; s < S->nsys; s++)
    pushers |= S->sys[s].plugin->desc.push != NULL;
  for (uint32_t s = 0; s < S->nsys; s++) {
    const struct ms__system *y = &S->sys[s];
    S->kept[s] &= y->sm.count == 0 && (!pushers || y->plugin->desc.push);
  }
}

/* *ran: whether stage 2 merged anything and integrated again. */
static int stage_two(struct ms__stepper *S, struct ms_step *st, int *ran) {
  size_t added = 0;
  *ran = 0;
  TRY(stage_two_pairs(S, &added));
  if (added == 0) return MS_OK;
  for (uint32_t s = 0; s < S->nsys; s++) S->kept[s] = S->sys[s].sm.count == 0;
  st->stage = 2;
  TRY(group_pairs(S, st));
  mark_kept(S);
  for (uint32_t s = 0; s < S->nsys; s++) {
    struct ms__system *y = &S->sys[s];
    if (S->kept[s]) {
      y->stage2_kept++;
      continue;
    }
    int rc = MS__CALL(y, rewind, y->inst);
    if (rc) return ms__system_fail(y, S->err, rc, "rewind() failed");
  }
  TRY(ms__collective_inertia(S, st));
  S->frame_counts.stage2_steps++;
  *ran = 1;
  return ms__integrate_all(S, st, S->kept);
}

/* Write W1: final positions and velocities of every meta-particle member. */
static void write_back(struct ms__stepper *S) {
  const struct ms__metaset *M = &S->metas;
#pragma omp parallel for schedule(dynamic, 64) if (M->count > MS__PAR_MIN_METAS)
  for (uint32_t k = 0; k < M->count; k++)
    for (uint32_t q = M->offset[k]; q < M->offset[k + 1]; q++) {
      uint32_t g = M->member[q];
      const struct ms__system *y = &S->sys[M->sys[q]];
      double *x = ms__at(&y->x, S->P.local[g]);
      double *v = ms__at(&y->v, S->P.local[g]);
      for (int a = 0; a < 3; a++) {
        x[a] = M->x0[3 * q + a] + M->disp[3 * k + a];
        v[a] = M->vout[3 * q + a];
      }
    }
}

static void count_metas(struct ms__stepper *S) {
  struct ms__counts *c = &S->frame_counts;
  const struct ms__metaset *M = &S->metas;
  c->metas += M->merged; /* the single-particle bodies are not merged */
  c->members += M->offset[M->merged];
  for (uint32_t k = 0; k < M->merged; k++) {
    uint64_t sz = M->offset[k + 1] - M->offset[k];
    if (sz > c->meta_max) c->meta_max = sz;
    c->members_sq += sz * sz;
  }
}

/* The baselines act on the contact pairs (S->appr holds them): impulses
 * change velocities now (W2), forces go to the plugins as external forces.
 * Nothing is merged. */
static int act_impulses(struct ms__stepper *S) {
  ms__baseline_impulses(&S->P, S->appr, S->napp, S->scene->restitution);
  for (size_t k = 0; k < 2 * S->napp; k++) {
    uint32_t g = S->appr[k];
    ms__copy3(ms__at(&S->sys[S->P.sys[g]].v, S->P.local[g]),
              S->P.v + 3 * (size_t)g);
  }
  S->napp = 0;
  return MS_OK;
}

/* S->fext, zeroed, for every particle. */
static int fext_zeroed(struct ms__stepper *S) {
  if (S->ntotal > S->cap_fext) {
    size_t c = S->ntotal + S->ntotal / 4 + 64;
    if (ms__grow((void **)&S->fext_store, c, 3 * sizeof(double)))
      return ms__errf(S->err, MS_ENOMEM, "out of memory");
    S->cap_fext = c;
  }
  S->fext = S->fext_store;
  ms__memset(S->fext, 0, 3 * S->ntotal * sizeof(double));
  return MS_OK;
}

static int act_forces(struct ms__stepper *S) {
  const struct ms__scene *sc = S->scene;
  TRY(fext_zeroed(S));
  ms__contact_forces(&S->P, S->appr, S->napp,
                     sc->method == MS__METHOD_SPH_FORCE, sc->stiffness,
                     sc->damping, S->fext);
  S->napp = 0;
  return MS_OK;
}

/* Forces a caller added for this step (ms_sim_add_force) join the
 * external forces, and are spent. */
static int user_forces(struct ms__stepper *S) {
  int any = 0;
  for (uint32_t s = 0; s < S->nsys; s++) any |= S->sys[s].uforce_on;
  if (!any) return MS_OK;
  if (S->dom) /* S->fext holds the piece's particles, not the systems' */
    return ms__errf(S->err, MS_ESTATE, "forces added by the caller are not "
                    "taken by a run over ranks");
  if (!S->fext) TRY(fext_zeroed(S));
  for (uint32_t s = 0; s < S->nsys; s++) {
    struct ms__system *y = &S->sys[s];
    if (!y->uforce_on) continue;
    y->uforce_on = 0;
    if (!y->uforce_n) continue; /* a system of no particles: nothing */
    if (y->handed)
      return ms__errf(S->err, MS_ESTATE, "system '%s': forces were added for "
                      "its %zu particles, but a hand-over at the step's start "
                      "moved its particles (it holds %zu now)", y->desc->name,
                      y->uforce_n, y->view.count);
    double *F = S->fext + 3 * y->offset;
    for (size_t i = 0; i < 3 * y->uforce_n; i++) F[i] += y->uforce[i];
  }
  return MS_OK;
}

static const struct method methods[] = {
    [MS__METHOD_MERGE_SPLIT] = {classify_merge, NULL, 1},
    [MS__METHOD_NONE] = {classify_none, NULL, 0},
    [MS__METHOD_PENALTY] = {classify_all, act_forces, 0},
    [MS__METHOD_SPH_FORCE] = {classify_all, act_forces, 0},
    [MS__METHOD_IMPULSE] = {classify_all, act_impulses, 0},
};

/* Candidate pairs (S->det), and the metrics on them.  Without coupling,
 * pairs are still found for the metrics when systems can meet (the "none"
 * baseline of a comparison). */
static int detect(struct ms__stepper *S, const struct method *m, double dt,
                  double vmax, double rmin, struct ms__clock *c) {
  const struct ms__scene *sc = S->scene;
  S->det.npairs = 0;
  if (sc->method == MS__METHOD_NONE && S->nsys < 2) return MS_OK;
  /* The largest relative displacement two particles can make this step
   * (both at the top speed, plus gravity): pairs closer than that may
   * touch before the step ends and are candidates for stage 2. */
  double skin = m->skin && sc->two_stage
                    ? sc->skin * 2.0 * dt *
                          (vmax + dt * sqrt(ms__norm2(sc->gravity)))
                    : 0.0;
  struct ms__detect_input in = {S->ntotal, S->P.x, S->P.r, S->P.sys,
                                S->self, skin, LIST_MARGIN * rmin};
  size_t bad;
  if (ms__detect_pairs(&S->det, &in, &bad))
    return ms__errf(S->err, MS_ENOMEM, "collision detection: out of memory");
  ms__lap(c, MS__PH_DETECT);
  if (S->dom) { /* the penetration metrics index the whole scene */
    ms__domain_pairs(S->dom, &S->det);
    return MS_OK;
  }
  return ms__metrics_step(S, vmax, &S->frame_counts.pen);
}

/* Every system's begin_step (end: 0) or end_step (1) and new view. */
static int tell_systems(struct ms__stepper *S, const struct ms_step *st,
                        int end) {
  for (uint32_t s = 0; s < S->nsys; s++) {
    struct ms__system *y = &S->sys[s];
    double t0 = ms__now();
    int rc = end ? MS__CALL(y, end_step, y->inst, st)
                 : MS__CALL(y, begin_step, y->inst, st);
    if (rc)
      return ms__system_fail(y, S->err, rc,
                             end ? "end_step() failed" : "begin_step() failed");
    if (end) TRY(ms__system_view(y, S->err));
    *(end ? &y->time_end : &y->time_begin) += ms__now() - t0;
  }
  return MS_OK;
}

/* Stage 2, as often as scene.stages allows and it merges pairs. */
static int later_stages(struct ms__stepper *S, struct ms_step *st) {
  const struct ms__scene *sc = S->scene;
  for (uint32_t k = 2; sc->two_stage && S->nmarked && k <= sc->stages; k++) {
    int ran;
    TRY(stage_two(S, st, &ran));
    if (!ran) break;
  }
  return MS_OK;
}

/* Impulses on the pairs left out of size-limited meta-particles, then the
 * split and the write-back (W1). */
static int split(struct ms__stepper *S, double dt) {
  const struct ms__scene *sc = S->scene;
  if (unmerged_impulses(sc)) {
    if (ms__contacts_find(&S->contacts, &S->metas, S->groups.mark, S->P.x,
                          S->appr, S->napp))
      return ms__errf(S->err, MS_ENOMEM, "out of memory");
    ms__contacts_resolve(&S->contacts, &S->metas, sc->contact_restitution, dt,
                         &S->frame_counts.ledger);
  }
  ms__metaset_split(&S->metas, sc->alpha, sc->beta, &S->frame_counts.ledger);
  ms__metaset_orbit(&S->metas, dt, sc->gravity);
  for (uint32_t s = 0; s < S->nsys; s++)
    ms__sysmetas_spin(&S->sys[s].sm, &S->metas);
  S->spin_ready = 1;
  write_back(S);
  return MS_OK;
}

static void count_step(struct ms__stepper *S) {
  struct ms__counts *c = &S->frame_counts;
  c->steps++;
  c->pairs += S->det.npairs;
  c->approaching += S->napp;
  c->marked += S->nmarked;
  count_metas(S);
}

int ms__step(struct ms__stepper *S, double t_end) {
  const struct method *m = &methods[S->scene->method];
  double vmax = 0.0, rmin = INFINITY, dt = 0.0;
  struct ms__clock c;
  ms__clock_start(&c, S->phase);
  S->spin_ready = 0;
  TRY(ms__handover(S));
  if (S->dom) TRY(ms__domain_begin(S->dom, S));
  TRY(ms__gather(S, &vmax, &rmin));
  if (S->dom) TRY(ms__domain_reduce(S->dom, S, &vmax, &rmin));
  TRY(choose_dt(S, t_end, vmax, rmin, &dt));
  ms__lap(&c, MS__PH_OTHER);
  S->fext = NULL;
  S->fpushed = NULL;
  TRY(detect(S, m, dt, vmax, rmin, &c));
  ms__lap(&c, MS__PH_METRICS);
  TRY(ms__heat_exchange(S, dt));
  TRY(filter(S));
  TRY(classify(S, m));
  if (S->dom) TRY(ms__domain_components(S->dom, S));
  if (m->act) TRY(m->act(S));
  TRY(user_forces(S));
  struct ms_step st = {.struct_size = sizeof st, .stage = 1,
                       .index = S->step, .time = S->time, .dt = dt,
                       .external_force = NULL};
  ms__lap(&c, MS__PH_MERGE);
  TRY(tell_systems(S, &st, 0));
  ms__lap(&c, MS__PH_OTHER);
  TRY(merge_pairs(S, &st));
  ms__lap(&c, MS__PH_MERGE);
  TRY(ms__integrate_all(S, &st, NULL));
  ms__lap(&c, MS__PH_STAGE1);
  TRY(later_stages(S, &st));
  ms__lap(&c, MS__PH_STAGE2);
  TRY(ms__synchronise(S, &st));
  ms__lap(&c, MS__PH_SYNC);
  TRY(split(S, dt));
  ms__lap(&c, MS__PH_SPLIT);
  TRY(tell_systems(S, &st, 1));
  ms__lap(&c, MS__PH_OTHER);
  count_step(S);
  if (S->dom) TRY(ms__domain_end(S->dom, S));
  S->step++;
  S->time = (dt == t_end - S->time) ? t_end : S->time + dt;
  return MS_OK;
}

int ms__observe(struct ms__stepper *S) {
  double vmax = 0.0, rmin = INFINITY;
  if ((S->scene->method == MS__METHOD_NONE && S->nsys < 2) || S->dom)
    return MS_OK;
  TRY(ms__gather(S, &vmax, &rmin));
  struct ms__detect_input in = {S->ntotal, S->P.x, S->P.r, S->P.sys, S->self,
                                0.0, 0.0};
  size_t bad;
  if (ms__detect_pairs(&S->det, &in, &bad))
    return ms__errf(S->err, MS_ENOMEM, "collision detection: out of memory");
  return ms__metrics_step(S, vmax, &S->frame_counts.pen);
}

int ms__stepper_init(struct ms__stepper *S, const struct ms__scene *scene,
                     struct ms__system *sys, uint32_t nsys,
                     struct ms__err *err, struct ms__metrics *metrics) {
  S->scene = scene;
  S->sys = sys;
  S->nsys = nsys;
  S->err = err;
  S->metrics = metrics;
  S->self = calloc(nsys, 1);
  S->touched = calloc(nsys, 1);
  S->kept = calloc(nsys, 1);
  if (!S->self || !S->touched || !S->kept)
    return ms__errf(err, MS_ENOMEM, "out of memory");
  S->ntotal = 0;
  for (uint32_t i = 0; i < nsys; i++) {
    S->ntotal += sys[i].view.count;
    S->self[i] = (uint8_t)sys[i].self_collision;
  }
  return MS_OK;
}

void ms__stepper_free(struct ms__stepper *S) {
  ms__detect_free(&S->det);
  ms__detect_free(&S->heat_det);
  free(S->no_self);
  ms__groups_free(&S->groups);
  ms__metaset_free(&S->metas);
  ms__contacts_free(&S->contacts);
  ms__handover_free(&S->hov);
  struct ms__particles *P = &S->P;
  free(P->x), free(P->v), free(P->m), free(P->r), free(P->sys),
      free(P->local);
  free(S->self);
  free(S->touched);
  free(S->kept);
  ms__iqn_free(&S->iqn);
  free(S->appr);
  free(S->marked);
  free(S->lpairs);
  free(S->keep);
  free(S->lkeep);
  free(S->fext_store);
  free(S->fpush_store);
}
