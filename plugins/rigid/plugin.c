/* rigid — the plugin: the descriptor and its entry points (create, view,
 * the step, collective response, save/load).  Model: rigid.h; keys:
 * config.c; the coupled step: contact.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "../common/bodies.h"
#include "rigid.h"

#define S(inst) ((struct state *)(void *)(inst))

static void destroy(ms_instance *inst) {
  struct state *s = S(inst);
  if (!s) return;
  free(s->x), free(s->v), free(s->m), free(s->r), free(s->off);
  free(s->T), free(s->c);
  free(s->x0), free(s->v0), free(s->body_of), free(s->body);
  free(s->meta), free(s->host_of), free(s->pin_of);
  free(s->hoff), free(s->hlist), free(s->boff), free(s->blist);
  free(s->follow), free(s->con), free(s->wc);
  free(s);
}

static void place_all(struct state *s) {
  for (uint32_t b = 0; b < s->nbody; b++)
    rigid_place(&s->body[b], s->off, s->x, s->v);
}

/* The particles as placed: what the core may write over (W2). */
static void remember(struct state *s) {
  memcpy(s->x0, s->x, 3 * s->n * sizeof(double));
  memcpy(s->v0, s->v, 3 * s->n * sizeof(double));
}

static int create(const struct ms_host *host, ms_ctx *ctx,
                  const ms_config *sec, ms_instance **out) {
  struct state *s = calloc(1, sizeof *s);
  if (!s) return MS_ENOMEM;
  s->host = host, s->ctx = ctx;
  const struct ms_scene_info *info = host->scene(ctx);
  memcpy(s->gravity, info->gravity, sizeof s->gravity);
  memcpy(s->lo, info->domain_min, sizeof s->lo);
  memcpy(s->hi, info->domain_max, sizeof s->hi);
  int rc = rigid_configure(s, sec);
  if (rc) {
    destroy((ms_instance *)(void *)s);
    return rc == MS_ENOMEM ? host->set_error(ctx, rc, "out of memory") : rc;
  }
  place_all(s);
  remember(s);
  const size_t v3 = 3 * sizeof(double), v1 = sizeof(double);
  s->fields[0] = (struct ms_field){"position", MS_TYPE_F64, 3, v3, s->x};
  s->fields[1] = (struct ms_field){"velocity", MS_TYPE_F64, 3, v3, s->v};
  s->fields[2] = (struct ms_field){"mass", MS_TYPE_F64, 1, v1, s->m};
  s->fields[3] = (struct ms_field){"radius", MS_TYPE_F64, 1, v1, s->r};
  s->fields[4] = (struct ms_field){"temperature", MS_TYPE_F64, 1, v1, s->T};
  s->fields[5] = (struct ms_field){"specific_heat", MS_TYPE_F64, 1, v1,
                                   s->c};
  *out = (ms_instance *)(void *)s;
  return MS_OK;
}

static int view(ms_instance *inst, struct ms_view *out) {
  struct state *s = S(inst);
  out->count = s->n;
  out->field_count = 6;
  out->fields = s->fields;
  return MS_OK;
}

static int begin_step(ms_instance *inst, const struct ms_step *st) {
  struct state *s = S(inst);
  (void)st;
  for (uint32_t b = 0; b < s->nbody; b++) {
    /* the heat the core moved into some of its particles (W3) spreads */
    msc_body_lump_heat(s->body[b].first, s->body[b].count, s->m, s->c, s->T);
    rigid_absorb(s, b);
    s->body[b].s0 = s->body[b].s;
  }
  memcpy(s->x0, s->x, 3 * s->n * sizeof(double));
  memcpy(s->v0, s->v, 3 * s->n * sizeof(double));
  s->nfollow = 0;
  return MS_OK;
}

static int rewind_step(ms_instance *inst) {
  struct state *s = S(inst);
  for (uint32_t b = 0; b < s->nbody; b++) s->body[b].s = s->body[b].s0;
  memcpy(s->x, s->x0, 3 * s->n * sizeof(double));
  memcpy(s->v, s->v0, 3 * s->n * sizeof(double));
  s->nfollow = 0;
  return MS_OK;
}

/* A body never collides with itself; two bodies of the system do. */
static int filter_pairs(ms_instance *inst, const uint32_t *pairs, size_t count,
                        uint8_t *keep) {
  struct state *s = S(inst);
  for (size_t k = 0; k < count; k++)
    keep[k] = s->body_of[pairs[2 * k]] != s->body_of[pairs[2 * k + 1]];
  return MS_OK;
}

/* A body in free flight: the chosen integrator (or, near a wall, the
 * walls' impulses and then the move: walls.c), then the walls' guard. */
static int fly(struct state *s, uint32_t k, const double *F, double dt) {
  struct rigid_body *b = &s->body[k];
  int leaned;
  if (b->motion != RIGID_DYNAMIC) {
    rigid_advance_kinematic(b, &b->s, dt);
    rigid_place(b, s->off, s->x, s->v);
    return MS_OK;
  }
  double Ft[3] = {0, 0, 0}, Tt[3] = {0, 0, 0};
  for (size_t i = b->first; F && i < b->first + b->count; i++) {
    const double *f = F + 3 * i, *x = s->x + 3 * i;
    double r[3] = {x[0] - b->s.x[0], x[1] - b->s.x[1], x[2] - b->s.x[2]};
    for (int a = 0; a < 3; a++) Ft[a] += f[a];
    Tt[0] += r[1] * f[2] - r[2] * f[1];
    Tt[1] += r[2] * f[0] - r[0] * f[2];
    Tt[2] += r[0] * f[1] - r[1] * f[0];
  }
  if (rigid_lean_step(s, k, Ft, Tt, dt, &leaned)) return MS_ENOMEM;
  if (!leaned) rigid_advance(b, &b->s, s->integrator, dt, s->gravity, Ft, Tt);
  rigid_place(b, s->off, s->x, s->v);
  rigid_walls(s, b, dt);
  return MS_OK;
}

static int integrate(ms_instance *inst, const struct ms_step *st,
                     const struct ms_metas *metas,
                     struct ms_meta_result *res) {
  struct state *s = S(inst);
  if (rigid_assign(s, metas))
    return s->host->set_error(s->ctx, MS_ENOMEM, "out of memory");
  s->nwc = 0;
  for (uint32_t b = 0; b < s->nbody; b++)
    if (!s->body[b].touched && fly(s, b, st->external_force, st->dt))
      return s->host->set_error(s->ctx, MS_ENOMEM, "out of memory");
  if (rigid_step(s, st, metas, res))
    return s->host->set_error(s->ctx, MS_ENOMEM, "out of memory");
  return MS_OK;
}

static int meta_inertia(ms_instance *inst, const struct ms_step *st,
                        const struct ms_metas *metas, double *inertia) {
  struct state *s = S(inst);
  (void)st;
  if (rigid_assign(s, metas))
    return s->host->set_error(s->ctx, MS_ENOMEM, "out of memory");
  rigid_meta_inertia(s, metas, inertia);
  return MS_OK;
}

static int meta_response(ms_instance *inst, const struct ms_step *st,
                         const struct ms_metas *metas,
                         const struct ms_meta_response *r) {
  return rigid_meta_response(S(inst), st, metas, r);
}

/* Bodies that took part in meta-particles: rigid again from what the core
 * wrote, then the walls. */
static int end_step(ms_instance *inst, const struct ms_step *st) {
  struct state *s = S(inst);
  rigid_take_spin(s);
  for (uint32_t b = 0; b < s->nbody; b++) {
    struct rigid_body *B = &s->body[b];
    if (!B->touched) continue;
    if (B->motion == RIGID_DYNAMIC) rigid_rigidify(s, b, st->dt);
    rigid_place(B, s->off, s->x, s->v);
    if (B->motion == RIGID_DYNAMIC) rigid_walls(s, B, st->dt);
    B->touched = 0;
  }
  s->nfollow = 0;
  remember(s);
  return MS_OK;
}

/* The particles carry the bodies' motion (rotation included) once. */
static int energy(ms_instance *inst, struct ms_energy *out) {
  const struct state *s = S(inst);
  ms_energy_of_particles(s->n, s->x, s->v, s->m, s->gravity, out);
  out->internal = 0.0;
  return MS_OK;
}

/* The bodies' states, and the particles as they are and as they were
 * placed: what the core wrote to them since (W2) is taken at the next
 * begin_step, in a resumed run as in an uninterrupted one. */
static int save(ms_instance *inst, const struct ms_stream *out) {
  struct state *s = S(inst);
  uint64_t nb = s->nbody, n = s->n;
  size_t v3 = 3 * s->n * sizeof(double);
  int rc = out->write(out->opaque, &nb, sizeof nb);
  if (!rc) rc = out->write(out->opaque, &n, sizeof n);
  for (uint32_t b = 0; !rc && b < s->nbody; b++)
    rc = out->write(out->opaque, &s->body[b].s, sizeof s->body[b].s);
  if (!rc) rc = out->write(out->opaque, s->x, v3);
  if (!rc) rc = out->write(out->opaque, s->v, v3);
  if (!rc) rc = out->write(out->opaque, s->x0, v3);
  if (!rc) rc = out->write(out->opaque, s->v0, v3);
  if (!rc) rc = out->write(out->opaque, s->T, s->n * sizeof(double));
  return rc;
}

static int load(ms_instance *inst, const struct ms_stream *in) {
  struct state *s = S(inst);
  uint64_t nb, n;
  size_t v3 = 3 * s->n * sizeof(double);
  int rc = in->read(in->opaque, &nb, sizeof nb);
  if (!rc) rc = in->read(in->opaque, &n, sizeof n);
  if (rc) return rc;
  if (nb != s->nbody || n != s->n)
    return s->host->set_error(s->ctx, MS_ESTATE, "saved state holds %llu "
                              "bodies of %llu particles, the scene %u of %zu",
                              (unsigned long long)nb, (unsigned long long)n,
                              s->nbody, s->n);
  for (uint32_t b = 0; !rc && b < s->nbody; b++)
    rc = in->read(in->opaque, &s->body[b].s, sizeof s->body[b].s);
  if (!rc) rc = in->read(in->opaque, s->x, v3);
  if (!rc) rc = in->read(in->opaque, s->v, v3);
  if (!rc) rc = in->read(in->opaque, s->x0, v3);
  if (!rc) rc = in->read(in->opaque, s->v0, v3);
  if (!rc) rc = in->read(in->opaque, s->T, s->n * sizeof(double));
  return rc;
}

static const struct ms_plugin rigid = {
    MS_PLUGIN_HEADER_INIT_NEEDS(1),
    MS_PLUGIN_METHODS,
    /* heat: one temperature per body; a 1.2 core ignores the flag */
    .flags = MS_PLUGIN_SELF_COLLISION | MS_PLUGIN_HEAT,
    .id = "rigid",
    .name = "Rigid bodies of particles",
    .version = PACKAGE_VERSION,
    .license = "MIT",
    .description = "x, q, P, L per body; symplectic Euler, midpoint or RK4; "
                   "contacts answer with the whole body (ABI 1.1)",
    .filter_pairs = filter_pairs,
    .energy = energy,
    .meta_inertia = meta_inertia,
    .meta_response = meta_response,
};

MS_PLUGIN_EXPORT_ONE(rigid)
