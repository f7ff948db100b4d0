/* Reading the sph section of a scene (every key through the host). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "sph.h"

#define H (pl->host)
#define C (pl->ctx)

static int positive(struct sph_plugin *pl, const ms_config *sec,
                    const char *key, double v) {
  if (v > 0.0 && isfinite(v)) return MS_OK;
  return H->cfg_error(C, sec, key, "must be > 0 (got %g)", v);
}

static int kernel_key(struct sph_plugin *pl, const ms_config *sec,
                      const char *key, const char *def, int *out) {
  const char *name;
  int rc = H->cfg_string(C, sec, key, def, &name);
  if (rc) return rc;
  if (!name) return MS_ENOENT;
  *out = sph_kernel_from_name(name);
  if (*out < 0)
    return H->cfg_error(C, sec, key, "unknown kernel '%s' (expected "
                        "cubic_spline, poly6 or spiky)", name);
  return MS_OK;
}

/* Scalar keys. */
static int read_scalars(struct sph_plugin *pl, const ms_config *sec,
                        struct sph_params *P, double *c, double *B,
                        double *scale) {
  int64_t sort_every;
  int rc;
  if ((rc = H->cfg_double(C, sec, "spacing", NAN, &P->spacing)) ||
      (rc = H->cfg_double(C, sec, "scale", 1.0, scale)) ||
      (rc = H->cfg_double(C, sec, "radius", NAN, &P->radius)) ||
      (rc = H->cfg_double(C, sec, "density", 1000.0, &P->rho0)) ||
      (rc = H->cfg_double(C, sec, "smoothing_length", NAN, &P->h)) ||
      (rc = H->cfg_double(C, sec, "speed_of_sound", NAN, c)) ||
      (rc = H->cfg_double(C, sec, "stiffness", NAN, B)) ||
      (rc = H->cfg_double(C, sec, "exponent", 7.0, &P->gamma)) ||
      (rc = H->cfg_double(C, sec, "viscosity", 0.1, &P->alpha)) ||
      (rc = H->cfg_double(C, sec, "xsph", 0.0, &P->xsph)) ||
      (rc = H->cfg_double(C, sec, "cfl", 0.4, &P->cfl)) ||
      (rc = H->cfg_bool(C, sec, "clamp_pressure", 1, &P->clamp_pressure)) ||
      (rc = H->cfg_bool(C, sec, "others_as_boundary", 0,
                        &P->others_as_boundary)) ||
      (rc = H->cfg_bool(C, sec, "energy_limit", 1, &P->energy_limit)) ||
      (rc = H->cfg_bool(C, sec, "energy_limit_metas", 0,
                        &P->energy_limit_metas)) ||
      (rc = H->cfg_int(C, sec, "sort_every", 0, &sort_every)) ||
      (rc = H->cfg_double(C, sec, "gravity_ramp", 0.0, &P->gravity_ramp)) ||
      (rc = H->cfg_double(C, sec, "specific_heat", 4186.0,
                          &P->specific_heat)) ||
      (rc = H->cfg_double(C, sec, "conductivity", 0.6, &P->conductivity)) ||
      (rc = H->cfg_double(C, sec, "neighbor_skin", 0.2, &P->skin)))
    return rc;
  if ((rc = kernel_key(pl, sec, "kernel", "cubic_spline", &P->kernel)))
    return rc;
  rc = kernel_key(pl, sec, "gradient_kernel", NULL, &P->grad_kernel);
  if (rc == MS_ENOENT) /* Mueller et al. pair poly6 with spiky gradients */
    P->grad_kernel = P->kernel == SPH_POLY6 ? SPH_SPIKY : P->kernel;
  else if (rc)
    return rc;
  if (isnan(P->spacing))
    return H->cfg_error(C, sec, "spacing", "is required (the particle "
                        "spacing [m])");
  if ((rc = positive(pl, sec, "spacing", P->spacing)) ||
      (rc = positive(pl, sec, "scale", *scale)) ||
      (rc = positive(pl, sec, "density", P->rho0)))
    return rc;
  /* the system's own scale multiplies the scene's resolution knob */
  const struct ms_scene_info *info = H->scene(C);
  if (MS_SCENE_HAS(info, scale)) *scale *= info->scale;
  P->spacing /= cbrt(*scale);
  if (isnan(P->radius)) P->radius = 0.5 * P->spacing;
  if (isnan(P->h)) P->h = P->spacing;
  if ((rc = positive(pl, sec, "radius", P->radius))) return rc;
  if (!(P->h >= 0.5 * P->spacing && P->h <= 4.0 * P->spacing))
    return H->cfg_error(C, sec, "smoothing_length", "must be between 0.5 and "
                        "4 spacings (%g and %g m; got %g)", 0.5 * P->spacing,
                        4.0 * P->spacing, P->h);
  if (!isnan(*c) && !isnan(*B))
    return H->cfg_error(C, sec, "stiffness", "give either speed_of_sound or "
                        "stiffness, not both");
  if (!isnan(*c) && (rc = positive(pl, sec, "speed_of_sound", *c))) return rc;
  if (!isnan(*B) && (rc = positive(pl, sec, "stiffness", *B))) return rc;
  if (!(P->gamma >= 1.0 && P->gamma <= 10.0))
    return H->cfg_error(C, sec, "exponent", "must be in [1, 10] (got %g)",
                        P->gamma);
  if (!(P->alpha >= 0.0 && P->alpha <= 10.0))
    return H->cfg_error(C, sec, "viscosity", "must be in [0, 10] (got %g)",
                        P->alpha);
  if (!(P->xsph >= 0.0 && P->xsph <= 1.0))
    return H->cfg_error(C, sec, "xsph", "must be in [0, 1] (got %g)",
                        P->xsph);
  if (!(P->cfl > 0.0 && P->cfl <= 1.0))
    return H->cfg_error(C, sec, "cfl", "must be in (0, 1] (got %g)", P->cfl);
  if (!(P->specific_heat > 0.0 && isfinite(P->specific_heat)))
    return H->cfg_error(C, sec, "specific_heat", "must be > 0 (got %g) "
                        "[J/(kg K)]", P->specific_heat);
  if (!(P->conductivity >= 0.0 && isfinite(P->conductivity)))
    return H->cfg_error(C, sec, "conductivity", "must be >= 0 (got %g) "
                        "[W/(m K)]", P->conductivity);
  if (sort_every < 0 || sort_every > 1000000)
    return H->cfg_error(C, sec, "sort_every", "must be in [0, 1000000] "
                        "(got %lld)", (long long)sort_every);
  P->sort_every = (int)sort_every;
  if (!(P->skin >= 0.0 && P->skin <= 1.0))
    return H->cfg_error(C, sec, "neighbor_skin", "must be in [0, 1] (a "
                        "fraction of the kernel support; got %g)", P->skin);
  if (!(P->gravity_ramp >= 0.0 && isfinite(P->gravity_ramp)))
    return H->cfg_error(C, sec, "gravity_ramp", "must be >= 0 [s] (got %g)",
                        P->gravity_ramp);
  P->force_cfl = 0.25;
  P->mass = 0.0; /* from the spacing and the kernel: sph_init_constants */
  return MS_OK;
}

static int add_points(struct sph_setup *su, const double *xyz, size_t n,
                      const double *vel, double temp) {
  if (su->n + n > su->cap) {
    size_t cap = 2 * (su->n + n);
    double *a = realloc(su->xyz, 3 * cap * sizeof(double));
    if (!a) return MS_ENOMEM;
    su->xyz = a;
    double *b = realloc(su->vel, 3 * cap * sizeof(double));
    if (!b) return MS_ENOMEM;
    su->vel = b;
    double *t = realloc(su->temp, cap * sizeof(double));
    if (!t) return MS_ENOMEM;
    su->temp = t;
    su->cap = cap;
  }
  memcpy(su->xyz + 3 * su->n, xyz, 3 * n * sizeof(double));
  for (size_t i = 0; i < n; i++) {
    memcpy(su->vel + 3 * (su->n + i), vel, 3 * sizeof(double));
    su->temp[su->n + i] = temp;
  }
  su->n += n;
  return MS_OK;
}

/* A "frame" shape (a previous output) carries each particle's velocity
 * (the `velocity` key adds to it) and temperature: for the n particles
 * from index `at`. */
static int restore(struct sph_plugin *pl, const ms_config *shape,
                   const double *vel, struct sph_setup *su, size_t at,
                   size_t n) {
  double *v = su->vel + 3 * at, *T = su->temp + at;
  int rc = ms_shape_field(H, C, shape, "velocity", n, 3, v);
  if (rc == MS_OK)
    for (size_t i = 0; i < 3 * n; i++) v[i] += vel[i % 3];
  else if (rc != MS_ENOENT)
    return rc;
  if ((rc = ms_shape_field_opt(H, C, shape, "temperature", n, 1, T)))
    return rc;
  for (size_t i = 0; i < n; i++)
    if (!(isfinite(v[3 * i]) && isfinite(v[3 * i + 1]) &&
          isfinite(v[3 * i + 2]) && isfinite(T[i])))
      return H->cfg_error(C, shape, "file", "particle %zu: a velocity or "
                          "temperature not finite", i);
  return MS_OK;
}

/* One shape group: sampled at the spacing, its own `velocity` and
 * `temperature` or the section's. */
static int sample_one(struct sph_plugin *pl, const ms_config *shape,
                      const double *vdef, double tdef, struct sph_setup *su) {
  double vel[3], temp;
  struct ms_points pts = {NULL, 0};
  int rc = H->cfg_vec3(C, shape, "velocity", vdef, vel);
  if (!rc) rc = H->cfg_double(C, shape, "temperature", tdef, &temp);
  if (rc) return rc;
  if (!isfinite(temp))
    return H->cfg_error(C, shape, "temperature", "must be finite");
  if (!(isfinite(vel[0]) && isfinite(vel[1]) && isfinite(vel[2])))
    return H->cfg_error(C, shape, "velocity", "must be finite");
  if ((rc = H->sample_shape(C, shape, su->P.spacing, &pts))) return rc;
  if (su->n + pts.count >= UINT32_MAX / 2) {
    H->free(pts.xyz);
    return H->cfg_error(C, shape, NULL, "too many particles (raise the "
                        "spacing)");
  }
  rc = add_points(su, pts.xyz, pts.count, vel, temp);
  H->free(pts.xyz);
  if (rc) return H->set_error(C, rc, "out of memory sampling the shapes");
  return restore(pl, shape, vel, su, su->n - pts.count, pts.count);
}

static int read_shapes(struct sph_plugin *pl, const ms_config *sec,
                       struct sph_setup *su) {
  static const double zero[3] = {0.0, 0.0, 0.0};
  const ms_config *one, *list;
  double vdef[3], tdef;
  int rc;
  if ((rc = H->cfg_vec3(C, sec, "velocity", zero, vdef))) return rc;
  int r1 = H->cfg_child(C, sec, "shape", &one);
  int r2 = H->cfg_child(C, sec, "shapes", &list);
  if ((r1 && r1 != MS_ENOENT) || (r2 && r2 != MS_ENOENT))
    return r1 && r1 != MS_ENOENT ? r1 : r2;
  if (one && list)
    return H->cfg_error(C, sec, "shapes", "give either shape or shapes, not "
                        "both");
  if (!one && !list)
    return H->cfg_error(C, sec, "shape", "is required (a group: type = "
                        "\"box\" | \"cylinder\" | \"sphere\" | ...), or "
                        "shapes = ( { ... }, ... )");
  if ((rc = H->cfg_double(C, sec, "temperature", 293.15, &tdef))) return rc;
  if (one) return sample_one(pl, one, vdef, tdef, su);
  uint32_t cnt = H->cfg_length(C, list);
  if (cnt == 0)
    return H->cfg_error(C, sec, "shapes", "must hold at least one shape");
  for (uint32_t i = 0; i < cnt; i++) {
    const ms_config *e;
    if ((rc = H->cfg_index(C, list, i, &e)) ||
        (rc = sample_one(pl, e, vdef, tdef, su)))
      return rc;
  }
  return MS_OK;
}

static int read_obstacles(struct sph_plugin *pl, const ms_config *sec,
                          struct sph_setup *su) {
  const ms_config *list;
  int rc = H->cfg_child(C, sec, "obstacles", &list);
  if (rc == MS_ENOENT) return MS_OK;
  if (rc) return rc;
  uint32_t cnt = H->cfg_length(C, list);
  su->box = calloc(cnt ? cnt : 1, sizeof *su->box);
  if (!su->box) return H->set_error(C, MS_ENOMEM, "out of memory");
  for (uint32_t i = 0; i < cnt; i++) {
    const ms_config *e;
    struct sph_box *b = &su->box[i];
    if ((rc = H->cfg_index(C, list, i, &e))) return rc;
    rc = H->cfg_vec3(C, e, "min", NULL, b->lo);
    if (rc == MS_ENOENT)
      return H->cfg_error(C, e, "min", "is required (obstacles are boxes "
                          "{ min = [x, y, z]; max = [x, y, z]; })");
    if (rc) return rc;
    rc = H->cfg_vec3(C, e, "max", NULL, b->hi);
    if (rc == MS_ENOENT) return H->cfg_error(C, e, "max", "is required");
    if (rc) return rc;
    for (int a = 0; a < 3; a++)
      if (!(isfinite(b->lo[a]) && isfinite(b->hi[a]) && b->lo[a] <= b->hi[a]))
        return H->cfg_error(C, e, "max", "must be finite and not below min");
    su->nbox++;
  }
  return MS_OK;
}

/* Becker & Teschner: c about 10 times the largest expected speed, here
 * the initial speed or the speed of a free fall from the fluid's top to
 * the domain floor (or through the fluid's own height). */
static int default_speed(struct sph_plugin *pl, const ms_config *sec,
                         struct sph_setup *su) {
  const struct sph_params *P = &su->P;
  const double *g = P->gravity;
  double gn = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]), v2 = 0.0;
  double top = -INFINITY, bottom = INFINITY, floor_ = -INFINITY;
  for (size_t i = 0; i < su->n; i++) {
    const double *v = su->vel + 3 * i, *x = su->xyz + 3 * i;
    v2 = fmax(v2, v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (gn > 0.0) {
      double up = -(x[0] * g[0] + x[1] * g[1] + x[2] * g[2]) / gn;
      top = fmax(top, up);
      bottom = fmin(bottom, up);
    }
  }
  if (gn > 0.0) { /* lowest corner of the domain along gravity */
    double f = 0.0;
    for (int a = 0; a < 3; a++)
      f += -g[a] / gn * (g[a] > 0.0 ? P->hi[a] : P->lo[a]);
    floor_ = isfinite(f) ? f : bottom;
  }
  double fall = gn > 0.0 ? sqrt(2.0 * gn * fmax(top - floor_, P->spacing))
                         : 0.0;
  double c = 10.0 * fmax(sqrt(v2), fall);
  if (!(c > 0.0))
    return H->cfg_error(C, sec, "speed_of_sound", "is required when there "
                        "is neither gravity nor an initial velocity");
  su->P.c = c;
  return MS_OK;
}

int sphp_read_setup(struct sph_plugin *pl, const ms_config *sec,
                    struct sph_setup *su) {
  const struct ms_scene_info *info = H->scene(C);
  struct sph_params *P = &su->P;
  double c, B, scale;
  int rc;
  memset(su, 0, sizeof *su);
  memcpy(P->gravity, info->gravity, sizeof P->gravity);
  memcpy(P->lo, info->domain_min, sizeof P->lo);
  memcpy(P->hi, info->domain_max, sizeof P->hi);
  if ((rc = read_scalars(pl, sec, P, &c, &B, &scale)) ||
      (rc = read_shapes(pl, sec, su)) ||
      (rc = read_obstacles(pl, sec, su)))
    return rc;
  for (size_t i = 0; i < su->n; i++)
    for (int a = 0; a < 3; a++) {
      double x = su->xyz[3 * i + a];
      if (!(x > P->lo[a] && x < P->hi[a]))
        return H->cfg_error(C, sec, NULL, "the shapes put a particle at (%g, "
                            "%g, %g), outside the domain",
                            su->xyz[3 * i], su->xyz[3 * i + 1],
                            su->xyz[3 * i + 2]);
    }
  for (size_t i = 0; i < su->n; i++)
    for (size_t b = 0; b < su->nbox; b++) {
      const double *x = su->xyz + 3 * i, *lo = su->box[b].lo,
                   *hi = su->box[b].hi;
      if (x[0] >= lo[0] && x[0] <= hi[0] && x[1] >= lo[1] && x[1] <= hi[1] &&
          x[2] >= lo[2] && x[2] <= hi[2])
        return H->cfg_error(C, sec, "obstacles", "fluid particle at (%g, %g, "
                            "%g) lies inside obstacle %zu", x[0], x[1], x[2],
                            b + 1);
    }
  if (!isnan(c))
    P->c = c;
  else if (!isnan(B))
    P->c = sqrt(P->gamma * B / P->rho0);
  else if ((rc = default_speed(pl, sec, su)))
    return rc;
  return MS_OK;
}

void sphp_setup_free(struct sph_setup *su) {
  free(su->xyz);
  free(su->vel);
  free(su->temp);
  free(su->box);
  su->xyz = su->vel = su->temp = NULL;
  su->box = NULL;
}
