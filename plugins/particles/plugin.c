/* particles — the plugin: the descriptor and its entry points (create,
 * view, the step, save/load).  Model: particles.h; keys: config.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "particles.h"

#define S(inst) ((struct state *)(void *)(inst))

static void destroy(ms_instance *inst) {
  struct state *s = S(inst);
  if (!s) return;
  free(s->x), free(s->v), free(s->m), free(s->r);
  free(s->x0), free(s->v0), free(s->meta);
  free(s->T), free(s->c);
  free(s);
}

static int alloc_arrays(struct state *s, size_t n) {
  s->n = n;
  size_t k = n ? n : 1;
  s->x = malloc(3 * k * sizeof(double));
  s->v = malloc(3 * k * sizeof(double));
  s->m = malloc(k * sizeof(double));
  s->r = malloc(k * sizeof(double));
  s->x0 = malloc(3 * k * sizeof(double));
  s->v0 = malloc(3 * k * sizeof(double));
  s->meta = malloc(k * sizeof(int32_t));
  s->T = malloc(k * sizeof(double));
  s->c = malloc(k * sizeof(double));
  return s->x && s->v && s->m && s->r && s->x0 && s->v0 && s->meta &&
                 s->T && s->c
             ? MS_OK
             : MS_ENOMEM;
}

static void set_fields(struct state *s) {
  const size_t v3 = 3 * sizeof(double), v1 = sizeof(double);
  s->fields[0] = (struct ms_field){"position", MS_TYPE_F64, 3, v3, s->x};
  s->fields[1] = (struct ms_field){"velocity", MS_TYPE_F64, 3, v3, s->v};
  s->fields[2] = (struct ms_field){"mass", MS_TYPE_F64, 1, v1, s->m};
  s->fields[3] = (struct ms_field){"radius", MS_TYPE_F64, 1, v1, s->r};
  s->fields[4] = (struct ms_field){"temperature", MS_TYPE_F64, 1, v1, s->T};
  s->fields[5] = (struct ms_field){"specific_heat", MS_TYPE_F64, 1, v1,
                                   s->c};
}

/* A "frame" shape (a previous output) carries each particle's velocity
 * (the `velocity` key adds to it), mass, radius and heat; what it does not
 * carry keeps the keys' values. */
static int restore(struct state *s, const ms_config *shape, const double *vel) {
  const struct ms_host *h = s->host;
  ms_ctx *c = s->ctx;
  int rc = ms_shape_field(h, c, shape, "velocity", s->n, 3, s->v);
  if (rc == MS_OK)
    for (size_t i = 0; i < 3 * s->n; i++) s->v[i] += vel[i % 3];
  else if (rc != MS_ENOENT)
    return rc;
  if ((rc = ms_shape_field_opt(h, c, shape, "mass", s->n, 1, s->m)) ||
      (rc = ms_shape_field_opt(h, c, shape, "radius", s->n, 1, s->r)) ||
      (rc = ms_shape_field_opt(h, c, shape, "temperature", s->n, 1, s->T)) ||
      (rc = ms_shape_field_opt(h, c, shape, "specific_heat", s->n, 1, s->c)))
    return rc;
  for (size_t i = 0; i < s->n; i++)
    if (!(s->m[i] > 0.0 && isfinite(s->m[i]) && s->r[i] > 0.0 &&
          isfinite(s->r[i]) && s->c[i] > 0.0 && isfinite(s->T[i]) &&
          isfinite(s->v[3 * i]) && isfinite(s->v[3 * i + 1]) &&
          isfinite(s->v[3 * i + 2])))
      return h->cfg_error(c, shape, "file", "particle %zu: a mass, radius or "
                          "specific heat not > 0, or a value not finite", i);
  return MS_OK;
}

static int create(const struct ms_host *host, ms_ctx *ctx,
                  const ms_config *sec, ms_instance **out) {
  struct state *s = calloc(1, sizeof *s);
  struct params p;
  struct ms_points pts = {NULL, 0};
  int rc;
  if (!s) return MS_ENOMEM;
  s->host = host;
  s->ctx = ctx;
  const struct ms_scene_info *info = host->scene(ctx);
  memcpy(s->gravity, info->gravity, sizeof s->gravity);
  memcpy(s->lo, info->domain_min, sizeof s->lo);
  memcpy(s->hi, info->domain_max, sizeof s->hi);
  if ((rc = particles_read_params(s, sec, &p)) ||
      (rc = host->sample_shape(ctx, p.shape,
                               isnan(p.spacing) ? 2.0 * p.radius : p.spacing,
                               &pts)))
    goto fail;
  if ((rc = alloc_arrays(s, pts.count))) goto fail;
  memcpy(s->x, pts.xyz, 3 * pts.count * sizeof(double));
  for (size_t i = 0; i < s->n; i++) {
    memcpy(s->v + 3 * i, p.vel, sizeof p.vel);
    s->m[i] = p.mass;
    s->r[i] = p.radius;
    s->T[i] = p.temperature, s->c[i] = p.specific_heat;
  }
  if ((rc = restore(s, p.shape, p.vel))) goto fail;
  host->free(pts.xyz);
  set_fields(s);
  *out = (ms_instance *)(void *)s;
  return MS_OK;
fail:
  host->free(pts.xyz);
  destroy((ms_instance *)(void *)s);
  return rc;
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
  memcpy(s->x0, s->x, 3 * s->n * sizeof(double));
  memcpy(s->v0, s->v, 3 * s->n * sizeof(double));
  return MS_OK;
}

static int rewind_step(ms_instance *inst) {
  struct state *s = S(inst);
  memcpy(s->x, s->x0, 3 * s->n * sizeof(double));
  memcpy(s->v, s->v0, 3 * s->n * sizeof(double));
  return MS_OK;
}

/* Velocity change of one step: gravity, external force, drag (implicit in
 * the drag term so any rate is stable). */
static void kick(const struct state *s, double dt, const double *f, double m,
                 double *v) {
  double k = 1.0 / (1.0 + dt * s->drag);
  for (int a = 0; a < 3; a++)
    v[a] = (v[a] + dt * (s->gravity[a] + (f ? f[a] / m : 0.0))) * k;
}

/* Clamp the displacement d of a rigid set of particles to the domain and
 * bounce their shared velocity v off the walls touched; 1 when a wall
 * acted. */
static int walls(const struct state *s, const uint32_t *idx, uint32_t cnt,
                 double *d, double *v) {
  unsigned hit = ms_wall_clamp(s->lo, s->hi, s->x, s->r, idx, cnt, d);
  ms_wall_bounce(hit, s->restitution, s->friction, v);
  return hit != 0;
}

static int integrate(ms_instance *inst, const struct ms_step *st,
                     const struct ms_metas *metas,
                     struct ms_meta_result *res) {
  struct state *s = S(inst);
  const double dt = st->dt, *F = st->external_force;
  ms_meta_mark(metas, s->n, s->meta);

#pragma omp parallel for schedule(static) num_threads(s->host->thread_count(s->ctx))
  for (size_t i = 0; i < s->n; i++) {
    if (s->meta[i] >= 0) continue;
    double *v = s->v + 3 * i, d[3];
    uint32_t one = (uint32_t)i;
    kick(s, dt, F ? F + 3 * i : NULL, s->m[i], v);
    for (int a = 0; a < 3; a++) d[a] = dt * v[a];
    walls(s, &one, 1, d, v);
    for (int a = 0; a < 3; a++) s->x[3 * i + a] += d[a];
  }
  for (uint32_t k = 0; k < metas->count; k++) {
    uint32_t q0 = metas->member_offset[k], q1 = metas->member_offset[k + 1];
    double f[3], V[3], d[3];
    ms_meta_sum(metas, k, F, f);
    memcpy(V, metas->velocity + 3 * k, sizeof V);
    kick(s, dt, F ? f : NULL, metas->mass[k], V);
    for (int a = 0; a < 3; a++) d[a] = dt * V[a];
    res->constrained[k] = (uint8_t)walls(s, metas->member + q0, q1 - q0, d, V);
    ms_meta_finish(metas, k, V, d, s->x, s->v, res);
  }
  return MS_OK;
}

/* Free grains store nothing: kinetic and gravitational energy only. */
static int energy(ms_instance *inst, struct ms_energy *out) {
  const struct state *s = S(inst);
  ms_energy_of_particles(s->n, s->x, s->v, s->m, s->gravity, out);
  out->internal = 0.0;
  return MS_OK;
}

static int end_step(ms_instance *inst, const struct ms_step *st) {
  return MS_OK;
}

static int save(ms_instance *inst, const struct ms_stream *out) {
  struct state *s = S(inst);
  uint64_t n = s->n;
  int rc;
  if ((rc = out->write(out->opaque, &n, sizeof n)) ||
      (rc = out->write(out->opaque, s->x, 3 * s->n * sizeof(double))) ||
      (rc = out->write(out->opaque, s->v, 3 * s->n * sizeof(double))) ||
      (rc = out->write(out->opaque, s->m, s->n * sizeof(double))) ||
      (rc = out->write(out->opaque, s->r, s->n * sizeof(double))) ||
      (rc = out->write(out->opaque, s->T, s->n * sizeof(double))))
    return rc;
  return MS_OK;
}

static int load(ms_instance *inst, const struct ms_stream *in) {
  struct state *s = S(inst);
  uint64_t n;
  int rc = in->read(in->opaque, &n, sizeof n);
  if (rc) return rc;
  if (n != s->n)
    return s->host->set_error(s->ctx, MS_ESTATE, "saved state holds %llu "
                              "particles, the scene %zu",
                              (unsigned long long)n, s->n);
  if ((rc = in->read(in->opaque, s->x, 3 * s->n * sizeof(double))) ||
      (rc = in->read(in->opaque, s->v, 3 * s->n * sizeof(double))) ||
      (rc = in->read(in->opaque, s->m, s->n * sizeof(double))) ||
      (rc = in->read(in->opaque, s->r, s->n * sizeof(double))) ||
      (rc = in->read(in->opaque, s->T, s->n * sizeof(double))))
    return rc;
  return MS_OK;
}

static const struct ms_plugin particles = {
    MS_PLUGIN_HEADER_INIT,
    MS_PLUGIN_METHODS,
    /* grains carry heat (ABI 1.3): a 1.2 core ignores the flag */
    .flags = MS_PLUGIN_SELF_COLLISION | MS_PLUGIN_HEAT,
    .id = "particles",
    .name = "Free spherical particles (granular)",
    .version = PACKAGE_VERSION,
    .license = "MIT",
    .description = "symplectic Euler, gravity, drag, domain walls",
    .energy = energy,
};

MS_PLUGIN_EXPORT_ONE(particles)
