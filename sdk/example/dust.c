/* dust — an example third-party mergesplit plugin.
 *
 * A cloud of fine dust: particles that fall under gravity and relax towards
 * the velocity of the surrounding air (`wind`) with a drag rate, bounce off
 * the domain floor.  Copy this file to start a plugin of your own; every
 * piece of the contract (sdk plugin.h) appears once:
 *   - reading the system's scene section through the host (every key read,
 *     bad values refused with cfg_error, which names file:line);
 *   - sampling a shape, owning the particles, showing them as a view;
 *   - integrate() with meta-particles: each is one particle of the whole
 *     meta-particle mass, its members move rigidly, its result is reported;
 *   - begin_step/rewind for two-stage integration, save/load for
 *     checkpoints; never printing, never aborting.
 * The pieces every plugin writes alike (checked keys, the meta-particle
 * clause, the wall clamp) come from <mergesplit/plugin_util.h>.
 *
 * Scene keys: shape (required), spacing (required), radius (default
 * spacing / 2), density (default 1500), drag [1/s] (default 2), wind [m/s]
 * (default [0, 0, 0]), velocity (default [0, 0, 0]). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin.h>
#include <mergesplit/plugin_util.h>

struct dust {
  const struct ms_host *host;
  ms_ctx *ctx;
  size_t n;
  double *x, *v, *m, *r, *x0, *v0; /* x, v, x0, v0: 3 per particle */
  int32_t *meta_of;                /* scratch for integrate() */
  double g[3], wind[3], drag, floor_y;
  struct ms_field fields[4];
};

#define D(inst) ((struct dust *)(void *)(inst))

static void dust_destroy(ms_instance *inst) {
  struct dust *d = D(inst);
  if (!d) return;
  free(d->x), free(d->v), free(d->m), free(d->r), free(d->x0), free(d->v0);
  free(d->meta_of);
  free(d);
}

static int read_keys(struct dust *d, const ms_config *sec,
                     const ms_config **shape, double *h, double *rad,
                     double *rho, double *vel) {
  const struct ms_host *H = d->host;
  static const double zero[3] = {0, 0, 0};
  int rc;
  if ((rc = H->cfg_child(d->ctx, sec, "shape", shape)) == MS_ENOENT)
    return H->cfg_error(d->ctx, sec, "shape", "is required");
  if (rc || (rc = ms_cfg_positive(H, d->ctx, sec, "spacing", 0.0, h)) ||
      (rc = ms_cfg_positive(H, d->ctx, sec, "radius", NAN, rad)) ||
      (rc = ms_cfg_positive(H, d->ctx, sec, "density", 1500.0, rho)) ||
      (rc = ms_cfg_non_negative(H, d->ctx, sec, "drag", 2.0, &d->drag)) ||
      (rc = H->cfg_vec3(d->ctx, sec, "wind", zero, d->wind)) ||
      (rc = H->cfg_vec3(d->ctx, sec, "velocity", zero, vel)))
    return rc;
  if (isnan(*rad)) *rad = 0.5 * *h;
  return MS_OK;
}

static int dust_create(const struct ms_host *host, ms_ctx *ctx,
                       const ms_config *sec, ms_instance **out) {
  struct dust *d = calloc(1, sizeof *d);
  const ms_config *shape;
  double h, rad, rho, vel[3];
  struct ms_points pts = {NULL, 0};
  if (!d) return MS_ENOMEM;
  d->host = host;
  d->ctx = ctx;
  int rc = read_keys(d, sec, &shape, &h, &rad, &rho, vel);
  if (!rc) rc = host->sample_shape(ctx, shape, h, &pts);
  if (rc) {
    dust_destroy((ms_instance *)(void *)d);
    return rc;
  }
  const struct ms_scene_info *info = host->scene(ctx);
  memcpy(d->g, info->gravity, sizeof d->g);
  d->floor_y = info->domain_min[1]; /* -inf without a domain */
  d->n = pts.count;
  size_t b3 = 3 * d->n * sizeof(double), b1 = d->n * sizeof(double);
  d->x = malloc(b3), d->v = malloc(b3), d->x0 = malloc(b3);
  d->v0 = malloc(b3), d->m = malloc(b1), d->r = malloc(b1);
  d->meta_of = malloc((d->n ? d->n : 1) * sizeof *d->meta_of);
  if (!d->x || !d->v || !d->x0 || !d->v0 || !d->m || !d->r || !d->meta_of) {
    host->free(pts.xyz);
    dust_destroy((ms_instance *)(void *)d);
    return MS_ENOMEM;
  }
  memcpy(d->x, pts.xyz, b3);
  host->free(pts.xyz);
  for (size_t i = 0; i < d->n; i++) {
    memcpy(d->v + 3 * i, vel, sizeof vel);
    d->m[i] = rho * h * h * h;
    d->r[i] = rad;
  }
  d->fields[0] = (struct ms_field){"position", MS_TYPE_F64, 3, 24, d->x};
  d->fields[1] = (struct ms_field){"velocity", MS_TYPE_F64, 3, 24, d->v};
  d->fields[2] = (struct ms_field){"mass", MS_TYPE_F64, 1, 8, d->m};
  d->fields[3] = (struct ms_field){"radius", MS_TYPE_F64, 1, 8, d->r};
  *out = (ms_instance *)(void *)d;
  return MS_OK;
}

static int dust_view(ms_instance *inst, struct ms_view *out) {
  out->count = D(inst)->n;
  out->field_count = 4;
  out->fields = D(inst)->fields;
  return MS_OK;
}

static int dust_begin_step(ms_instance *inst, const struct ms_step *st) {
  struct dust *d = D(inst);
  (void)st;
  memcpy(d->x0, d->x, 3 * d->n * sizeof(double));
  memcpy(d->v0, d->v, 3 * d->n * sizeof(double));
  return MS_OK;
}

static int dust_rewind(ms_instance *inst) {
  struct dust *d = D(inst);
  memcpy(d->x, d->x0, 3 * d->n * sizeof(double));
  memcpy(d->v, d->v0, 3 * d->n * sizeof(double));
  return MS_OK;
}

/* New velocity of a body of mass m: gravity, external force f, and drag
 * towards the wind (implicit, so any drag rate is stable).  Drag acts on
 * the body's own dust, i.e. on own_m of its mass m. */
static void advance(const struct dust *d, double dt, const double *f,
                    double m, double own_m, double *v) {
  double k = dt * d->drag * own_m / m;
  for (int a = 0; a < 3; a++)
    v[a] = (v[a] + dt * (d->g[a] + (f ? f[a] / m : 0.0)) + k * d->wind[a]) /
           (1.0 + k);
}

/* Keep the lowest member above the floor (the domain's, if any); returns 1
 * if the floor acted.  Dust does not bounce. */
static int floor_clamp(const struct dust *d, const uint32_t *idx, uint32_t k,
                       double *disp, double *v) {
  const double lo[3] = {-INFINITY, d->floor_y, -INFINITY};
  const double hi[3] = {INFINITY, INFINITY, INFINITY};
  if (!ms_wall_clamp(lo, hi, d->x, d->r, idx, k, disp)) return 0;
  if (v[1] < 0.0) v[1] = 0.0;
  return 1;
}

static int dust_integrate(ms_instance *inst, const struct ms_step *st,
                          const struct ms_metas *metas,
                          struct ms_meta_result *res) {
  struct dust *d = D(inst);
  const double *F = st->external_force;
  double dt = st->dt;
  ms_meta_mark(metas, d->n, d->meta_of);
  for (uint32_t k = 0; k < metas->count; k++) {
    uint32_t q0 = metas->member_offset[k], q1 = metas->member_offset[k + 1];
    double f[3], V[3], disp[3];
    ms_meta_sum(metas, k, F, f);
    memcpy(V, metas->velocity + 3 * k, sizeof V);
    advance(d, dt, F ? f : NULL, metas->mass[k], metas->own_mass[k], V);
    for (int a = 0; a < 3; a++) disp[a] = dt * V[a];
    res->constrained[k] =
        (uint8_t)floor_clamp(d, metas->member + q0, q1 - q0, disp, V);
    ms_meta_finish(metas, k, V, disp, d->x, d->v, res);
  }
  for (size_t i = 0; i < d->n; i++) {
    if (d->meta_of[i] >= 0) continue;
    double *v = d->v + 3 * i, disp[3];
    uint32_t one = (uint32_t)i;
    advance(d, dt, F ? F + 3 * i : NULL, d->m[i], d->m[i], v);
    for (int a = 0; a < 3; a++) disp[a] = dt * v[a];
    floor_clamp(d, &one, 1, disp, v);
    for (int a = 0; a < 3; a++) d->x[3 * i + a] += disp[a];
  }
  return MS_OK;
}

static int dust_end_step(ms_instance *inst, const struct ms_step *st) {
  (void)inst, (void)st; /* nothing derived to update */
  return MS_OK;
}

static int dust_save(ms_instance *inst, const struct ms_stream *s) {
  struct dust *d = D(inst);
  uint64_t n = d->n;
  int rc = s->write(s->opaque, &n, sizeof n);
  if (!rc) rc = s->write(s->opaque, d->x, 3 * d->n * sizeof(double));
  if (!rc) rc = s->write(s->opaque, d->v, 3 * d->n * sizeof(double));
  return rc;
}

static int dust_load(ms_instance *inst, const struct ms_stream *s) {
  struct dust *d = D(inst);
  uint64_t n;
  int rc = s->read(s->opaque, &n, sizeof n);
  if (rc) return rc;
  if (n != d->n)
    return d->host->set_error(d->ctx, MS_ESTATE, "saved state holds %llu "
                              "particles, this system %zu",
                              (unsigned long long)n, d->n);
  rc = s->read(s->opaque, d->x, 3 * d->n * sizeof(double));
  if (!rc) rc = s->read(s->opaque, d->v, 3 * d->n * sizeof(double));
  return rc;
}

static const struct ms_plugin dust = {
    MS_PLUGIN_HEADER_INIT,
    .flags = MS_PLUGIN_SELF_COLLISION,
    .id = "dust",
    .name = "Dust (example plugin)",
    .version = "1.0.0",
    .license = "MIT",
    .description = "particles with air drag towards a wind, on a floor",
    .create = dust_create,
    .destroy = dust_destroy,
    .view = dust_view,
    .begin_step = dust_begin_step,
    .integrate = dust_integrate,
    .rewind = dust_rewind,
    .end_step = dust_end_step,
    .save = dust_save,
    .load = dust_load,
};

MS_PLUGIN_EXPORT const struct ms_plugin *mergesplit_plugin(uint32_t index) {
  return index == 0 ? &dust : NULL;
}
