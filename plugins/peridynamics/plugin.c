/* peridynamics — brittle solids that fracture (bond-based peridynamics,
 * Silling & Askari 2005; Levine et al., SCA 2014), integrated with the
 * shared implicit step (plugins/common/implicit.h).
 *
 * Bonded pairs never collide (filter_pairs); once a bond breaks, its two
 * ends collide through the core's merging-and-splitting, so fragments hit
 * each other and other systems.  Bonds break inside integrate() and a
 * rewind restores them; compaction of the broken ones waits for end_step.
 * Scene keys: see README.md beside this file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "../common/heat.h"
#include "peridynamics.h"

struct state {
  const struct ms_host *host;
  ms_ctx *ctx;
  struct pd_model M;
  struct pd_work W;
  struct msi_stats last; /* solver figures already reported */
  size_t dead;           /* broken bonds still in the arrays */
  uint64_t newton;       /* Newton iterations since the last report */
  uint64_t at_limit;     /* integrations that hit the iteration limit */
  double *T, *c;         /* heat: temperature, specific heat (insulated:
                            no conduction along the bonds yet) */
  struct ms_field fields[8];
};

#define S(inst) ((struct state *)(void *)(inst))

static void destroy(ms_instance *inst) {
  struct state *s = S(inst);
  if (!s) return;
  pd_model_free(&s->M);
  pd_work_free(&s->W);
  free(s->T), free(s->c);
  free(s);
}

static void set_fields(struct state *s) {
  const size_t v3 = 3 * sizeof(double), v1 = sizeof(double);
  struct pd_model *M = &s->M;
  s->fields[0] = (struct ms_field){"position", MS_TYPE_F64, 3, v3, M->x};
  s->fields[1] = (struct ms_field){"velocity", MS_TYPE_F64, 3, v3, M->v};
  s->fields[2] = (struct ms_field){"mass", MS_TYPE_F64, 1, v1, M->m};
  s->fields[3] = (struct ms_field){"radius", MS_TYPE_F64, 1, v1, M->r};
  s->fields[4] = (struct ms_field){"damage", MS_TYPE_F64, 1, v1, M->damage};
  s->fields[5] = (struct ms_field){"bonds", MS_TYPE_U32, 1, sizeof(uint32_t),
                                   M->nbonds};
  s->fields[6] = (struct ms_field){"temperature", MS_TYPE_F64, 1, v1, s->T};
  s->fields[7] = (struct ms_field){"specific_heat", MS_TYPE_F64, 1, v1,
                                   s->c};
}

static int create(const struct ms_host *host, ms_ctx *ctx,
                  const ms_config *sec, ms_instance **out) {
  struct state *s = calloc(1, sizeof *s);
  if (!s) return MS_ENOMEM;
  s->host = host;
  s->ctx = ctx;
  pd_work_init(&s->W);
  int rc = pd_config_read(host, ctx, sec, &s->M);
  if (!rc)
    rc = msc_heat_setup(host, ctx, sec, s->M.n, MSC_DEFAULT_TEMPERATURE,
                        MSC_DEFAULT_SPECIFIC_HEAT, &s->T, &s->c);
  if (rc) {
    if (rc == MS_ENOMEM) host->set_error(ctx, rc, "out of memory");
    destroy((ms_instance *)(void *)s);
    return rc;
  }
  set_fields(s);
  *out = (ms_instance *)(void *)s;
  return MS_OK;
}

static int view(ms_instance *inst, struct ms_view *out) {
  struct state *s = S(inst);
  out->count = s->M.n;
  out->field_count = 8;
  out->fields = s->fields;
  return MS_OK;
}

static int filter_pairs(ms_instance *inst, const uint32_t *pairs,
                        size_t count, uint8_t *keep) {
  struct state *s = S(inst);
  pd_filter_pairs(&s->M, pairs, count, keep,
                  s->host->thread_count(s->ctx));
  return MS_OK;
}

static int begin_step(ms_instance *inst, const struct ms_step *st) {
  struct state *s = S(inst);
  int rc = pd_begin(&s->M, &s->W);
  return rc ? s->host->set_error(s->ctx, rc, "%s", s->W.error) : MS_OK;
}

static int integrate(ms_instance *inst, const struct ms_step *st,
                     const struct ms_metas *metas,
                     struct ms_meta_result *res) {
  struct state *s = S(inst);
  size_t broke;
  s->M.opt.threads = s->host->thread_count(s->ctx);
  int rc = pd_step(&s->M, &s->W, st->dt, st->external_force, metas, res,
                   &broke);
  s->newton += (uint64_t)s->W.iterations;
  s->at_limit += s->M.newton_iterations > 1 && s->W.unconverged;
  if (rc)
    return s->host->set_error(s->ctx, rc, "step %llu at t = %g s: %s",
                              (unsigned long long)st->index, st->time,
                              s->W.error);
  return MS_OK;
}

/* Kinetic, gravitational, and the intact bonds' elastic energy
 * (k (l - L)^2 / 2 with the law's k = c V^2 / L, law.c). */
static int energy(ms_instance *inst, struct ms_energy *out) {
  const struct pd_model *M = &S(inst)->M;
  const struct pd_bonds *B = &M->bonds;
  const double cv2 = M->mat.micro * M->mat.volume * M->mat.volume;
  double e = 0.0;
  ms_energy_of_particles(M->n, M->x, M->v, M->m, M->gravity, out);
  for (size_t b = 0; b < B->count; b++)
    if (!B->broken[b])
      e += ms_spring_energy(M->x + 3 * (size_t)B->pair[2 * b],
                            M->x + 3 * (size_t)B->pair[2 * b + 1],
                            cv2 / B->rest[b], B->rest[b]);
  out->internal = e;
  return MS_OK;
}

static int rewind_step(ms_instance *inst) {
  struct state *s = S(inst);
  pd_rewind(&s->M, &s->W);
  return MS_OK;
}

/* Solver figures of the step into the run report. */
static void report(struct state *s, size_t broke) {
  const struct msi_stats *now = s->W.solver ? msi_solver_stats(s->W.solver)
                                            : NULL;
  if (broke) s->host->report(s->ctx, "bonds_broken", (double)broke);
  s->host->report(s->ctx, "newton_iterations", (double)s->newton);
  if (s->at_limit)
    s->host->report(s->ctx, "newton_at_limit", (double)s->at_limit);
  s->newton = s->at_limit = 0;
  if (!now) return;
  if (now->pcg_iterations > s->last.pcg_iterations)
    s->host->report(s->ctx, "pcg_iterations",
                    (double)(now->pcg_iterations - s->last.pcg_iterations));
  s->host->report(s->ctx, "solve_seconds",
                  (now->t_eval + now->t_assembly + now->t_analysis +
                   now->t_factor + now->t_solve) -
                      (s->last.t_eval + s->last.t_assembly +
                       s->last.t_analysis + s->last.t_factor +
                       s->last.t_solve));
  s->last = *now;
}

/* Pins first (the core's write may have moved them).  Broken bonds leave
 * the arrays once they are 1/16 of them: the solver's pattern then changes
 * rarely, and dead bonds cost little meanwhile. */
static int end_step(ms_instance *inst, const struct ms_step *st) {
  struct state *s = S(inst);
  pd_hold_pins(&s->M, &s->W, st->dt);
  size_t broke = s->W.nfresh;
  s->W.nfresh = 0; /* the step is final */
  s->dead += broke;
  report(s, broke);
  if (s->dead && 16 * s->dead >= s->M.bonds.count) {
    int rc = pd_compact(&s->M);
    if (rc) return s->host->set_error(s->ctx, rc, "out of memory");
    s->dead = 0;
  }
  return MS_OK;
}

/* ---- checkpoints ------------------------------------------------------- */

#define MAGIC 0x32445045u  /* "EPD2": with the implicit solver's state */
#define MAGIC1 0x31445045u /* "EPD1": without it, still loads */

static int put(const struct ms_stream *o, const void *p, size_t n) {
  return o->write(o->opaque, p, n);
}

static int get(const struct ms_stream *i, void *p, size_t n) {
  return i->read(i->opaque, p, n);
}

static int save(ms_instance *inst, const struct ms_stream *out) {
  struct state *s = S(inst);
  const struct pd_model *M = &s->M;
  uint32_t magic = MAGIC;
  uint64_t n = M->n, nb = M->bonds.count;
  int rc;
  if ((rc = put(out, &magic, sizeof magic)) || (rc = put(out, &n, sizeof n)) ||
      (rc = put(out, M->x, 3 * n * sizeof(double))) ||
      (rc = put(out, M->v, 3 * n * sizeof(double))) ||
      (rc = put(out, M->m, n * sizeof(double))) ||
      (rc = put(out, M->r, n * sizeof(double))) ||
      (rc = put(out, M->pinned, n)) ||
      (rc = put(out, M->pin_v, 3 * n * sizeof(double))) ||
      (rc = put(out, M->nbonds0, n * sizeof(uint32_t))) ||
      (rc = put(out, &nb, sizeof nb)) ||
      (rc = put(out, M->bonds.pair, 2 * nb * sizeof(uint32_t))) ||
      (rc = put(out, M->bonds.rest, nb * sizeof(double))) ||
      (rc = put(out, M->bonds.broken, nb)) ||
      (rc = put(out, s->T, n * sizeof(double))) ||
      (rc = msi_solver_save(s->W.solver, out)))
    return s->host->set_error(s->ctx, rc, "cannot write the state");
  return MS_OK;
}

/* Bonds sorted by (i, j), i < j < n, flags 0/1, lengths positive. */
static int bonds_valid(const struct pd_model *M) {
  const struct pd_bonds *B = &M->bonds;
  for (size_t b = 0; b < B->count; b++) {
    uint32_t i = B->pair[2 * b], j = B->pair[2 * b + 1];
    if (!(i < j && j < M->n && B->broken[b] <= 1 && B->rest[b] > 0.0 &&
          isfinite(B->rest[b])))
      return 0;
    if (b && (B->pair[2 * b - 2] > i ||
              (B->pair[2 * b - 2] == i && B->pair[2 * b - 1] >= j)))
      return 0;
  }
  return 1;
}

static int load(ms_instance *inst, const struct ms_stream *in) {
  struct state *s = S(inst);
  struct pd_model *M = &s->M;
  uint32_t magic;
  uint64_t n, nb;
  int rc;
  if ((rc = get(in, &magic, sizeof magic)) || (rc = get(in, &n, sizeof n)))
    return s->host->set_error(s->ctx, rc, "saved state is truncated");
  if (magic != MAGIC && magic != MAGIC1)
    return s->host->set_error(s->ctx, MS_ESTATE, "saved state is not a "
                              "peridynamics state");
  if (n != M->n)
    return s->host->set_error(s->ctx, MS_ESTATE, "saved state holds %llu "
                              "particles, the scene %zu",
                              (unsigned long long)n, M->n);
  if ((rc = get(in, M->x, 3 * n * sizeof(double))) ||
      (rc = get(in, M->v, 3 * n * sizeof(double))) ||
      (rc = get(in, M->m, n * sizeof(double))) ||
      (rc = get(in, M->r, n * sizeof(double))) ||
      (rc = get(in, M->pinned, n)) ||
      (rc = get(in, M->pin_v, 3 * n * sizeof(double))) ||
      (rc = get(in, M->nbonds0, n * sizeof(uint32_t))) ||
      (rc = get(in, &nb, sizeof nb)))
    return s->host->set_error(s->ctx, rc, "saved state is truncated");
  if (nb > M->bonds.cap)
    return s->host->set_error(s->ctx, MS_ESTATE, "saved state holds %llu "
                              "bonds, more than the scene creates (%zu)",
                              (unsigned long long)nb, M->bonds.cap);
  M->bonds.count = (size_t)nb;
  if ((rc = get(in, M->bonds.pair, 2 * nb * sizeof(uint32_t))) ||
      (rc = get(in, M->bonds.rest, nb * sizeof(double))) ||
      (rc = get(in, M->bonds.broken, nb)) ||
      (rc = get(in, s->T, n * sizeof(double))))
    return s->host->set_error(s->ctx, rc, "saved state is truncated");
  if (!bonds_valid(M))
    return s->host->set_error(s->ctx, MS_ESTATE, "saved bonds are corrupt");
  if (magic == MAGIC && (rc = msi_solver_load(&s->W.solver, in, M->n)))
    return s->host->set_error(s->ctx, rc, "%s", s->W.solver
                              ? msi_solver_error(s->W.solver)
                              : "out of memory");
  M->serial++;
  s->dead = 0;
  for (size_t b = 0; b < nb; b++) s->dead += M->bonds.broken[b];
  if ((rc = pd_adjacency_build(M)))
    return s->host->set_error(s->ctx, rc, "out of memory");
  for (size_t i = 0; i < M->n; i++)
    if (M->nbonds[i] > M->nbonds0[i])
      return s->host->set_error(s->ctx, MS_ESTATE, "saved state: particle "
                                "%zu has more bonds than it was created "
                                "with", i);
  return MS_OK;
}

static const struct ms_plugin peridynamics = {
    MS_PLUGIN_HEADER_INIT,
    MS_PLUGIN_METHODS,
    /* carries heat (ABI 1.3; a 1.2 core ignores the flag) */
    .flags = MS_PLUGIN_SELF_COLLISION | MS_PLUGIN_HEAT,
    .id = "peridynamics",
    .name = "Bond-based peridynamics (brittle fracture)",
    .version = PACKAGE_VERSION,
    .license = "MIT",
    .description = "brittle solids that fracture; implicit (backward Euler)",
    .filter_pairs = filter_pairs,
    .energy = energy,
};

MS_PLUGIN_EXPORT_ONE(peridynamics)
