/* Reading a peridynamics system from its scene section: every key through
 * the host, every bad value refused with file:line and the key. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "peridynamics.h"

#define TRY(e)           \
  do {                   \
    int rc_ = (e);       \
    if (rc_) return rc_; \
  } while (0)

struct reader {
  const struct ms_host *h;
  ms_ctx *c;
  const ms_config *sec;
};

struct keys {
  const ms_config *shape, *pins;
  double spacing, radius, density, mass, vel[3], omega[3];
  double young, bulk, poisson, g0, s00, horizon;
};

/* NaN means absent. */
static int positive(struct reader *R, const char *key, double v) {
  if (isnan(v) || (v > 0.0 && isfinite(v))) return MS_OK;
  return R->h->cfg_error(R->c, R->sec, key, "must be > 0 (got %g)", v);
}

static int non_negative(struct reader *R, const char *key, double v) {
  if (v >= 0.0 && isfinite(v)) return MS_OK;
  return R->h->cfg_error(R->c, R->sec, key, "must be >= 0 (got %g)", v);
}

static int unit(struct reader *R, const char *key, double v) {
  if (v >= 0.0 && v <= 1.0) return MS_OK;
  return R->h->cfg_error(R->c, R->sec, key, "must be in [0, 1] (got %g)", v);
}

static int read_solver(struct reader *R, struct pd_model *M) {
  const char *s;
  int64_t it;
  TRY(R->h->cfg_string(R->c, R->sec, "linear_solver", "pcg", &s));
  if (!strcmp(s, "pcg")) M->opt.linear_solver = MSI_PCG;
  else if (!strcmp(s, "cholmod")) M->opt.linear_solver = MSI_CHOLMOD;
  else if (!strcmp(s, "auto")) M->opt.linear_solver = MSI_AUTO;
  else
    return R->h->cfg_error(R->c, R->sec, "linear_solver", "unknown solver "
                           "'%s' (expected pcg, cholmod or auto)", s);
  TRY(R->h->cfg_double(R->c, R->sec, "pcg_tolerance", 1e-8,
                       &M->opt.pcg_tolerance));
  TRY(R->h->cfg_int(R->c, R->sec, "pcg_max_iterations", 1000, &it));
  if (!(M->opt.pcg_tolerance > 0.0 && M->opt.pcg_tolerance < 1.0))
    return R->h->cfg_error(R->c, R->sec, "pcg_tolerance", "must be in (0, 1) "
                           "(got %g)", M->opt.pcg_tolerance);
  if (it < 1 || it > 1000000)
    return R->h->cfg_error(R->c, R->sec, "pcg_max_iterations", "must be in "
                           "[1, 1000000] (got %lld)", (long long)it);
  M->opt.pcg_max_iterations = (int)it;
  TRY(R->h->cfg_int(R->c, R->sec, "newton_iterations", 5, &it));
  TRY(R->h->cfg_double(R->c, R->sec, "newton_tolerance", 1e-2,
                       &M->newton_tolerance));
  if (it < 1 || it > 100)
    return R->h->cfg_error(R->c, R->sec, "newton_iterations", "must be in "
                           "[1, 100] (got %lld)", (long long)it);
  M->newton_iterations = (int)it;
  if (!(M->newton_tolerance > 0.0 && M->newton_tolerance < 1.0))
    return R->h->cfg_error(R->c, R->sec, "newton_tolerance", "must be in "
                           "(0, 1) (got %g)", M->newton_tolerance);
  return MS_OK;
}

/* scene.scale = s: about s times the particles in the same body.  Every
 * length shrinks by s^(1/3) (the horizon too, so a particle keeps its
 * bond count) and a given particle mass by s (same total mass). */
static void scene_scale(struct reader *R, struct keys *k) {
  const struct ms_scene_info *info = R->h->scene(R->c);
  double s = MS_SCENE_HAS(info, scale) ? info->scale : 1.0;
  if (s == 1.0) return;
  double f = cbrt(s);
  k->spacing /= f, k->radius /= f, k->horizon /= f, k->mass /= s;
}

static int read_keys(struct reader *R, struct pd_model *M, struct keys *k) {
  const struct ms_host *h = R->h;
  ms_ctx *c = R->c;
  const ms_config *s = R->sec;
  static const double zero[3] = {0.0, 0.0, 0.0};
  int rc = h->cfg_child(c, s, "shape", &k->shape);
  if (rc == MS_ENOENT)
    return h->cfg_error(c, s, "shape", "is required (a group: type = "
                        "\"box\" | \"sphere\" | \"shell\" | \"torus\" | ...)");
  if (rc) return rc;
  if ((rc = h->cfg_child(c, s, "pins", &k->pins)) && rc != MS_ENOENT)
    return rc;
  TRY(h->cfg_double(c, s, "spacing", NAN, &k->spacing));
  TRY(h->cfg_double(c, s, "radius", NAN, &k->radius));
  TRY(h->cfg_double(c, s, "density", NAN, &k->density));
  TRY(h->cfg_double(c, s, "mass", NAN, &k->mass));
  TRY(h->cfg_vec3(c, s, "velocity", zero, k->vel));
  TRY(h->cfg_vec3(c, s, "angular_velocity", zero, k->omega));
  TRY(h->cfg_double(c, s, "youngs_modulus", NAN, &k->young));
  TRY(h->cfg_double(c, s, "bulk_modulus", NAN, &k->bulk));
  TRY(h->cfg_double(c, s, "poisson_ratio", 0.25, &k->poisson));
  TRY(h->cfg_double(c, s, "fracture_energy", NAN, &k->g0));
  TRY(h->cfg_double(c, s, "critical_stretch", NAN, &k->s00));
  TRY(h->cfg_bool(c, s, "breakable", 1, &M->mat.breakable));
  TRY(h->cfg_double(c, s, "horizon", NAN, &k->horizon));
  TRY(h->cfg_double(c, s, "compressive_adjustment", 0.25, &M->mat.alpha));
  TRY(h->cfg_double(c, s, "damping", 0.0, &M->mat.damping));
  TRY(h->cfg_double(c, s, "wall_restitution", 0.0, &M->restitution));
  TRY(h->cfg_double(c, s, "wall_friction", 0.0, &M->friction));
  TRY(read_solver(R, M));
  scene_scale(R, k);
  if (isnan(k->spacing))
    return h->cfg_error(c, s, "spacing", "is required (the lattice spacing "
                        "of shape)");
  TRY(positive(R, "spacing", k->spacing));
  TRY(positive(R, "radius", k->radius));
  TRY(positive(R, "density", k->density));
  TRY(positive(R, "mass", k->mass));
  TRY(positive(R, "youngs_modulus", k->young));
  TRY(positive(R, "bulk_modulus", k->bulk));
  TRY(positive(R, "fracture_energy", k->g0));
  TRY(positive(R, "critical_stretch", k->s00));
  TRY(positive(R, "horizon", k->horizon));
  TRY(non_negative(R, "compressive_adjustment", M->mat.alpha));
  TRY(non_negative(R, "damping", M->mat.damping));
  TRY(unit(R, "wall_restitution", M->restitution));
  TRY(unit(R, "wall_friction", M->friction));
  if (!isnan(k->mass) && !isnan(k->density))
    return h->cfg_error(c, s, "mass", "give either mass or density, not "
                        "both");
  if (!isnan(k->young) && !isnan(k->bulk))
    return h->cfg_error(c, s, "bulk_modulus", "give either youngs_modulus "
                        "or bulk_modulus, not both");
  if (k->poisson != 0.25)
    return h->cfg_error(c, s, "poisson_ratio", "must be 0.25 (got %g): "
                        "bond-based peridynamics has a Poisson ratio of 1/4",
                        k->poisson);
  if (!isnan(k->g0) && !isnan(k->s00))
    return h->cfg_error(c, s, "critical_stretch", "give either "
                        "fracture_energy or critical_stretch, not both");
  if (!isnan(k->horizon) && k->horizon < k->spacing)
    return h->cfg_error(c, s, "horizon", "must be at least the spacing "
                        "(got %g < %g): particles would have no bonds",
                        k->horizon, k->spacing);
  if (!isnan(k->horizon) && k->horizon > 20.0 * k->spacing)
    return h->cfg_error(c, s, "horizon", "must be at most 20 spacings (got "
                        "%g = %.3g spacings)", k->horizon,
                        k->horizon / k->spacing);
  return MS_OK;
}

static void material(struct pd_model *M, const struct keys *k) {
  struct pd_material *mt = &M->mat;
  double h3 = k->spacing * k->spacing * k->spacing;
  mt->horizon = isnan(k->horizon) ? 3.0 * k->spacing : k->horizon;
  mt->bulk = !isnan(k->bulk) ? k->bulk
             : pd_bulk_modulus(isnan(k->young) ? 1e6 : k->young, 0.25);
  mt->micro = pd_micromodulus(mt->bulk, mt->horizon);
  mt->s00 = !isnan(k->s00) ? k->s00
            : pd_critical_stretch(isnan(k->g0) ? 10.0 : k->g0, mt->bulk,
                                  mt->horizon);
  mt->volume = h3;
}

/* One pins entry: { min = [...]; max = [...]; velocity = [...]; }. */
static int read_pin(struct reader *R, struct pd_model *M, const ms_config *p,
                    size_t *held) {
  const struct ms_host *h = R->h;
  static const double zero[3] = {0.0, 0.0, 0.0};
  double lo[3], hi[3], u[3];
  int rc = h->cfg_vec3(R->c, p, "min", NULL, lo);
  if (rc == MS_ENOENT)
    return h->cfg_error(R->c, p, "min", "is required: a pin is { min = "
                        "[...]; max = [...]; velocity = [...]; }");
  if (rc) return rc;
  if ((rc = h->cfg_vec3(R->c, p, "max", NULL, hi)) == MS_ENOENT)
    return h->cfg_error(R->c, p, "max", "is required: a pin is { min = "
                        "[...]; max = [...]; velocity = [...]; }");
  if (rc) return rc;
  TRY(h->cfg_vec3(R->c, p, "velocity", zero, u));
  for (int a = 0; a < 3; a++)
    if (!(lo[a] <= hi[a]))
      return h->cfg_error(R->c, p, "max", "must not be below min");
  *held = 0;
  for (size_t i = 0; i < M->n; i++) {
    const double *x = M->x + 3 * i;
    int in = 1;
    for (int a = 0; a < 3; a++) in &= x[a] >= lo[a] && x[a] <= hi[a];
    if (!in) continue;
    M->pinned[i] = 1;
    memcpy(M->pin_v + 3 * i, u, sizeof u);
    memcpy(M->v + 3 * i, u, sizeof u);
    (*held)++;
  }
  return MS_OK;
}

static int read_pins(struct reader *R, struct pd_model *M,
                     const ms_config *pins) {
  const struct ms_host *h = R->h;
  uint32_t n = h->cfg_length(R->c, pins);
  for (uint32_t i = 0; i < n; i++) {
    const ms_config *p;
    size_t held = 0;
    TRY(h->cfg_index(R->c, pins, i, &p));
    if (h->cfg_length(R->c, p) == 0)
      return h->cfg_error(R->c, p, NULL, "a pin is a group { min = [...]; "
                          "max = [...]; velocity = [...]; }");
    TRY(read_pin(R, M, p, &held));
    if (!held)
      return h->cfg_error(R->c, p, NULL, "holds no particle");
  }
  return MS_OK;
}

/* Velocity: translation plus rotation about the centre of mass. */
static void initial_velocity(struct pd_model *M, const struct keys *k) {
  double c[3] = {0.0, 0.0, 0.0}, mt = 0.0;
  for (size_t i = 0; i < M->n; i++) {
    for (int a = 0; a < 3; a++) c[a] += M->m[i] * M->x[3 * i + a];
    mt += M->m[i];
  }
  for (int a = 0; a < 3; a++) c[a] /= mt;
  const double *w = k->omega;
  for (size_t i = 0; i < M->n; i++) {
    double d[3] = {M->x[3 * i] - c[0], M->x[3 * i + 1] - c[1],
                   M->x[3 * i + 2] - c[2]};
    double *v = M->v + 3 * i;
    v[0] = k->vel[0] + w[1] * d[2] - w[2] * d[1];
    v[1] = k->vel[1] + w[2] * d[0] - w[0] * d[2];
    v[2] = k->vel[2] + w[0] * d[1] - w[1] * d[0];
  }
}

static int build(struct reader *R, struct pd_model *M, const struct keys *k) {
  const struct ms_host *h = R->h;
  struct ms_points pts = {NULL, 0};
  struct ms_neighbors nb;
  int rc = h->sample_shape(R->c, k->shape, k->spacing, &pts);
  if (rc) return rc;
  if ((rc = pd_model_alloc(M, pts.count))) {
    h->free(pts.xyz);
    return rc;
  }
  memcpy(M->x, pts.xyz, 3 * pts.count * sizeof(double));
  h->free(pts.xyz);
  double m = !isnan(k->mass) ? k->mass
             : (isnan(k->density) ? 1000.0 : k->density) * M->mat.volume;
  double r = isnan(k->radius) ? 0.5 * k->spacing : k->radius;
  for (size_t i = 0; i < M->n; i++) M->m[i] = m, M->r[i] = r;
  initial_velocity(M, k);
  /* |X_j - X_i| <= delta: lattice points exactly on the horizon count */
  memset(&nb, 0, sizeof nb);
  if ((rc = h->neighbors(R->c, M->x, 3 * sizeof(double), M->n,
                         M->mat.horizon * (1.0 + 1e-6), &nb)))
    return rc;
  rc = pd_bonds_build(M, nb.offset, nb.index);
  h->neighbors_release(R->c, &nb);
  if (rc == MS_ERANGE)
    return h->cfg_error(R->c, R->sec, "horizon", "gives more than 2^31 "
                        "bonds");
  if (rc) return rc;
  return k->pins ? read_pins(R, M, k->pins) : MS_OK;
}

int pd_config_read(const struct ms_host *host, ms_ctx *ctx,
                   const ms_config *sec, struct pd_model *M) {
  struct reader R = {host, ctx, sec};
  struct keys k;
  memset(&k, 0, sizeof k);
  TRY(read_keys(&R, M, &k));
  material(M, &k);
  const struct ms_scene_info *info = host->scene(ctx);
  memcpy(M->gravity, info->gravity, sizeof M->gravity);
  memcpy(M->lo, info->domain_min, sizeof M->lo);
  memcpy(M->hi, info->domain_max, sizeof M->hi);
  return build(&R, M, &k);
}
