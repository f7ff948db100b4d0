/* particles — free spherical particles (granular material).
 *
 * Symplectic Euler under gravity, optional linear drag, inelastic domain
 * walls with restitution and friction.  Particles collide with each other
 * (and with other systems) only through the core's merging-and-splitting.
 *
 * Scene keys (system section):
 *   shape            group, required (box, sphere, ..., points)
 *   spacing          lattice spacing [m]; required unless shape is points
 *   radius           collision radius [m]; default spacing / 2
 *   density          [kg/m^3], default 1000; particle mass = density *
 *                    spacing^3 (or (2 radius)^3 for points)
 *   mass             per-particle mass [kg]; instead of density
 *   velocity         initial velocity [m/s], default [0, 0, 0]
 * scene.scale = s refines the lattice: spacing and radius / s^(1/3), an
 * explicit per-particle mass / s (same volume, same total mass).
 *   drag             linear drag rate [1/s], default 0
 *   wall_restitution normal restitution at the domain walls, [0, 1], 0.5
 *   wall_friction    fraction of tangential speed lost at a wall hit, 0
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin.h>
#include <mergesplit/plugin_util.h>

struct state {
  const struct ms_host *host;
  ms_ctx *ctx;
  size_t n;
  double *x, *v, *m, *r; /* x, v: 3 per particle */
  double *x0, *v0;       /* start of step, for rewind */
  int32_t *meta;         /* meta-particle of each particle during integrate */
  double gravity[3], lo[3], hi[3];
  double drag, restitution, friction;
  struct ms_field fields[4];
};

#define S(inst) ((struct state *)(void *)(inst))

static void destroy(ms_instance *inst) {
  struct state *s = S(inst);
  if (!s) return;
  free(s->x), free(s->v), free(s->m), free(s->r);
  free(s->x0), free(s->v0), free(s->meta);
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
  return s->x && s->v && s->m && s->r && s->x0 && s->v0 && s->meta
             ? MS_OK
             : MS_ENOMEM;
}

/* Is the shape an explicit point list (which scene.scale cannot refine)? */
static int is_points(const struct ms_host *h, ms_ctx *c,
                     const ms_config *shape) {
  const char *type = NULL;
  return h->cfg_string(c, shape, "type", NULL, &type) == MS_OK && type &&
         !strcmp(type, "points");
}

/* Read and check the section's keys; all are read so the host can flag the
 * rest as unknown. */
struct params {
  double spacing, radius, density, mass, vel[3];
  const ms_config *shape;
};

static int read_params(struct state *s, const ms_config *sec,
                       struct params *p) {
  const struct ms_host *h = s->host;
  ms_ctx *c = s->ctx;
  static const double zero[3] = {0.0, 0.0, 0.0};
  int rc;
  if ((rc = h->cfg_child(c, sec, "shape", &p->shape)) == MS_ENOENT)
    return h->cfg_error(c, sec, "shape", "is required (a group: type = "
                        "\"box\" | \"sphere\" | \"points\" | ...)");
  if (rc) return rc;
  if ((rc = ms_cfg_positive(h, c, sec, "spacing", NAN, &p->spacing)) ||
      (rc = ms_cfg_positive(h, c, sec, "radius", NAN, &p->radius)) ||
      (rc = ms_cfg_positive(h, c, sec, "density", NAN, &p->density)) ||
      (rc = ms_cfg_positive(h, c, sec, "mass", NAN, &p->mass)) ||
      (rc = h->cfg_vec3(c, sec, "velocity", zero, p->vel)) ||
      (rc = ms_cfg_non_negative(h, c, sec, "drag", 0.0, &s->drag)) ||
      (rc = ms_cfg_unit(h, c, sec, "wall_restitution", 0.5,
                        &s->restitution)) ||
      (rc = ms_cfg_unit(h, c, sec, "wall_friction", 0.0, &s->friction)))
    return rc;
  if (isnan(p->radius) && isnan(p->spacing))
    return h->cfg_error(c, sec, "radius", "is required when no spacing is "
                        "given");
  if (isnan(p->radius)) p->radius = 0.5 * p->spacing;
  if (!isnan(p->mass) && !isnan(p->density))
    return h->cfg_error(c, sec, "mass", "give either mass or density, not "
                        "both");
  /* scene.scale: about `scale` times as many particles in the same
   * volume and mass (explicit points are taken as they are) */
  const struct ms_scene_info *info = h->scene(c);
  double scale = MS_SCENE_HAS(info, scale) ? info->scale : 1.0;
  if (scale != 1.0 && !is_points(h, c, p->shape)) {
    double f = cbrt(scale);
    if (!isnan(p->spacing)) p->spacing /= f;
    p->radius /= f;
    if (!isnan(p->mass)) p->mass /= scale;
  }
  if (isnan(p->mass)) {
    double d = isnan(p->density) ? 1000.0 : p->density;
    double h3 = isnan(p->spacing) ? 2.0 * p->radius : p->spacing;
    p->mass = d * h3 * h3 * h3;
  }
  return MS_OK;
}

static void set_fields(struct state *s) {
  const size_t v3 = 3 * sizeof(double), v1 = sizeof(double);
  s->fields[0] = (struct ms_field){"position", MS_TYPE_F64, 3, v3, s->x};
  s->fields[1] = (struct ms_field){"velocity", MS_TYPE_F64, 3, v3, s->v};
  s->fields[2] = (struct ms_field){"mass", MS_TYPE_F64, 1, v1, s->m};
  s->fields[3] = (struct ms_field){"radius", MS_TYPE_F64, 1, v1, s->r};
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
  if ((rc = read_params(s, sec, &p)) ||
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
  }
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
  out->field_count = 4;
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
      (rc = out->write(out->opaque, s->r, s->n * sizeof(double))))
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
      (rc = in->read(in->opaque, s->r, s->n * sizeof(double))))
    return rc;
  return MS_OK;
}

static const struct ms_plugin particles = {
    MS_PLUGIN_HEADER_INIT,
    .flags = MS_PLUGIN_SELF_COLLISION,
    .id = "particles",
    .name = "Free spherical particles (granular)",
    .version = PACKAGE_VERSION,
    .license = "MIT",
    .description = "symplectic Euler, gravity, drag, domain walls",
    .create = create,
    .destroy = destroy,
    .view = view,
    .begin_step = begin_step,
    .integrate = integrate,
    .rewind = rewind_step,
    .end_step = end_step,
    .save = save,
    .load = load,
    .energy = energy,
};

MS_PLUGIN_EXPORT const struct ms_plugin *mergesplit_plugin(uint32_t index) {
  return index == 0 ? &particles : NULL;
}
