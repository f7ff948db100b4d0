/* Reading a mass_spring system from its scene section (every key through
 * the host, every bad value refused with file:line and the key). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mass_spring.h"

#define TRY(e)            \
  do {                    \
    int rc_ = (e);        \
    if (rc_) return rc_;  \
  } while (0)

struct keys {
  const ms_config *cloth, *shape, *pins;
  double k, k_shear, k_bend, damping, density, mass, radius, spacing;
  double spring_radius, vel[3];
  double scale; /* scene.scale: about this many times the particles */
};

static int non_negative(struct mss_reader *R, const char *key, double v) {
  if (v >= 0.0) return MS_OK;
  return R->host->cfg_error(R->ctx, R->sec, key, "must be >= 0 (got %g)", v);
}

static int positive(struct mss_reader *R, const char *key, double v) {
  if (isnan(v) || v > 0.0) return MS_OK; /* NaN: absent */
  return R->host->cfg_error(R->ctx, R->sec, key, "must be > 0 (got %g)", v);
}

static int pick(struct mss_reader *R, const char *key, const char *const *names,
                int count, const char *def, int *out) {
  const char *s;
  TRY(R->host->cfg_string(R->ctx, R->sec, key, def, &s));
  for (int i = 0; i < count; i++)
    if (!strcmp(s, names[i])) return *out = i, MS_OK;
  char list[256] = "";
  for (int i = 0; i < count; i++) {
    strcat(list, i ? (i + 1 < count ? ", " : " or ") : "");
    strcat(list, names[i]);
  }
  return R->host->cfg_error(R->ctx, R->sec, key, "unknown %s '%s' (expected "
                            "%s)", key, s, list);
}

static int read_solver(struct mss_reader *R, struct mss_model *M) {
  static const char *const solvers[] = {"auto", "cholmod", "pcg"};
  const struct ms_host *h = R->host;
  int64_t it;
  TRY(pick(R, "integrator", mss_integrator_names, MSS_INTEGRATOR_COUNT,
           "backward_euler", &M->integrator));
  TRY(pick(R, "linear_solver", solvers, 3, "auto",
           &M->opt.linear_solver));
  TRY(h->cfg_double(R->ctx, R->sec, "pcg_tolerance", 1e-8,
                    &M->opt.pcg_tolerance));
  TRY(h->cfg_int(R->ctx, R->sec, "pcg_max_iterations", 2000, &it));
  if (!(M->opt.pcg_tolerance > 0.0 && M->opt.pcg_tolerance < 1.0))
    return h->cfg_error(R->ctx, R->sec, "pcg_tolerance", "must be in (0, 1) "
                        "(got %g)", M->opt.pcg_tolerance);
  if (it < 1 || it > 1000000)
    return h->cfg_error(R->ctx, R->sec, "pcg_max_iterations", "must be in "
                        "[1, 1000000] (got %lld)", (long long)it);
  M->opt.pcg_max_iterations = (int)it;
  return MS_OK;
}

/* scene.scale = s refines every lattice by f = s^(1/3) so that a cloth
 * keeps its spacing matched to the 3D bodies it meets: lengths shrink by
 * f, a soft body's given particle mass by s; a cloth's resolution grows
 * by f per edge and its given particle mass shrinks to keep its total. */
static void scene_scale(struct mss_reader *R, struct keys *k) {
  const struct ms_scene_info *info = R->host->scene(R->ctx);
  k->scale = MS_SCENE_HAS(info, scale) ? info->scale : 1.0;
  if (k->scale == 1.0) return;
  double f = cbrt(k->scale);
  k->spacing /= f, k->spring_radius /= f, k->radius /= f;
  if (k->shape) k->mass /= k->scale;
}

static uint32_t refine(uint32_t n, double f) {
  double m = floor((n - 1) * f + 0.5) + 1.0;
  return m > 100000.0 ? 100000u : (uint32_t)m;
}

/* strain_limit: off by default (README.md, "Strain limit": on, with one
 * coupling pass a step, frames of Fig. 3's ball at scale 4 show springs
 * 2.6 % beyond it);
 * strain_limit_passes bounds its work per step. */
static int read_strain_limit(struct mss_reader *R, struct mss_model *M) {
  const struct ms_host *h = R->host;
  int64_t passes;
  TRY(h->cfg_double(R->ctx, R->sec, "strain_limit", 0.0, &M->strain_limit));
  TRY(h->cfg_int(R->ctx, R->sec, "strain_limit_passes", 200, &passes));
  if (!(M->strain_limit >= 0.0 && M->strain_limit <= 100.0))
    return h->cfg_error(R->ctx, R->sec, "strain_limit", "must be in [0, "
                        "100] (got %g; 0 turns it off)", M->strain_limit);
  if (passes < 1 || passes > 100000)
    return h->cfg_error(R->ctx, R->sec, "strain_limit_passes", "must be in "
                        "[1, 100000] (got %lld)", (long long)passes);
  M->strain_passes = (int)passes;
  return MS_OK;
}

/* stiffening: off by default (factor 1); the implicit integrators only,
 * as an explicit scheme's stable step would shrink by sqrt(factor). */
static int read_stiffening(struct mss_reader *R, struct mss_model *M) {
  const struct ms_host *h = R->host;
  struct mss_springs *S = &M->springs;
  TRY(h->cfg_double(R->ctx, R->sec, "stiffening", 1.0, &S->stiff_factor));
  TRY(h->cfg_double(R->ctx, R->sec, "stiffening_strain", 0.05,
                    &S->stiff_onset));
  if (!(S->stiff_factor >= 1.0 && S->stiff_factor <= 1e6))
    return h->cfg_error(R->ctx, R->sec, "stiffening", "must be in [1, 1e6] "
                        "(got %g; 1 turns it off)", S->stiff_factor);
  if (!(S->stiff_onset >= 0.0 && S->stiff_onset <= 100.0))
    return h->cfg_error(R->ctx, R->sec, "stiffening_strain", "must be in "
                        "[0, 100] (got %g)", S->stiff_onset);
  if (S->stiff_factor > 1.0 && !mss_is_implicit(M->integrator))
    return h->cfg_error(R->ctx, R->sec, "stiffening", "needs an implicit "
                        "integrator (backward_euler or trapezoidal), not %s",
                        mss_integrator_names[M->integrator]);
  return MS_OK;
}

static int read_keys(struct mss_reader *R, struct mss_model *M,
                     struct keys *k) {
  const struct ms_host *h = R->host;
  ms_ctx *c = R->ctx;
  const ms_config *s = R->sec;
  static const double zero[3] = {0.0, 0.0, 0.0};
  int rc = h->cfg_child(c, s, "cloth", &k->cloth);
  if (rc && rc != MS_ENOENT) return rc;
  if ((rc = h->cfg_child(c, s, "shape", &k->shape)) && rc != MS_ENOENT)
    return rc;
  if ((rc = h->cfg_child(c, s, "pins", &k->pins)) && rc != MS_ENOENT)
    return rc;
  if (!k->cloth == !k->shape)
    return h->cfg_error(c, s, k->cloth ? "shape" : NULL, "give either cloth "
                        "= { ... } (a sheet) or shape = { ... } (a soft "
                        "body)%s", k->cloth ? ", not both" : "");
  TRY(h->cfg_double(c, s, "stiffness", 1000.0, &k->k));
  TRY(h->cfg_double(c, s, "shear_stiffness", NAN, &k->k_shear));
  TRY(h->cfg_double(c, s, "bend_stiffness", NAN, &k->k_bend));
  TRY(h->cfg_double(c, s, "damping", 0.0, &k->damping));
  TRY(h->cfg_double(c, s, "mass_damping", 0.0, &M->mass_damping));
  TRY(h->cfg_double(c, s, "density", NAN, &k->density));
  TRY(h->cfg_double(c, s, "mass", NAN, &k->mass));
  TRY(h->cfg_double(c, s, "radius", NAN, &k->radius));
  TRY(h->cfg_double(c, s, "spacing", NAN, &k->spacing));
  TRY(h->cfg_double(c, s, "spring_radius", NAN, &k->spring_radius));
  TRY(h->cfg_vec3(c, s, "velocity", zero, k->vel));
  TRY(h->cfg_double(c, s, "wall_restitution", 0.0, &M->restitution));
  TRY(h->cfg_double(c, s, "wall_friction", 0.0, &M->friction));
  TRY(read_strain_limit(R, M));
  scene_scale(R, k);
  if (!(k->k > 0.0))
    return h->cfg_error(c, s, "stiffness", "must be > 0 (got %g)", k->k);
  if (k->shape && (!isnan(k->k_shear) || !isnan(k->k_bend)))
    return h->cfg_error(c, s, isnan(k->k_shear) ? "bend_stiffness"
                        : "shear_stiffness", "is for cloth; a soft body's "
                        "springs all take stiffness");
  if (isnan(k->k_shear)) k->k_shear = k->k;
  if (isnan(k->k_bend)) k->k_bend = 0.1 * k->k;
  TRY(non_negative(R, "shear_stiffness", k->k_shear));
  TRY(non_negative(R, "bend_stiffness", k->k_bend));
  TRY(non_negative(R, "damping", k->damping));
  TRY(non_negative(R, "mass_damping", M->mass_damping));
  TRY(positive(R, "density", k->density));
  TRY(positive(R, "mass", k->mass));
  TRY(positive(R, "radius", k->radius));
  TRY(positive(R, "spacing", k->spacing));
  TRY(positive(R, "spring_radius", k->spring_radius));
  if (!isnan(k->mass) && !isnan(k->density))
    return h->cfg_error(c, s, "mass", "give either mass or density, not "
                        "both");
  if (!(M->restitution >= 0.0 && M->restitution <= 1.0))
    return h->cfg_error(c, s, "wall_restitution", "must be in [0, 1] (got "
                        "%g)", M->restitution);
  if (!(M->friction >= 0.0 && M->friction <= 1.0))
    return h->cfg_error(c, s, "wall_friction", "must be in [0, 1] (got %g)",
                        M->friction);
  TRY(read_solver(R, M));
  return read_stiffening(R, M);
}

/* resolution = [nu, nv], integers >= 2. */
static int read_resolution(struct mss_reader *R, const ms_config *cl,
                           uint32_t *nu, uint32_t *nv) {
  const struct ms_host *h = R->host;
  const ms_config *res, *e;
  int64_t v[2];
  int rc = h->cfg_child(R->ctx, cl, "resolution", &res);
  if (rc == MS_ENOENT)
    return h->cfg_error(R->ctx, cl, "resolution", "is required: [nu, nv], "
                        "particles along edge_u and edge_v");
  if (rc) return rc;
  if (h->cfg_length(R->ctx, res) != 2)
    return h->cfg_error(R->ctx, cl, "resolution", "must be [nu, nv] (two "
                        "integers)");
  for (uint32_t i = 0; i < 2; i++) {
    TRY(h->cfg_index(R->ctx, res, i, &e));
    TRY(h->cfg_int(R->ctx, e, NULL, 0, &v[i]));
    if (v[i] < 2 || v[i] > 100000)
      return h->cfg_error(R->ctx, cl, "resolution", "must hold integers in "
                          "[2, 100000] (got %lld)", (long long)v[i]);
  }
  if (v[0] * v[1] > ((int64_t)1 << 30))
    return h->cfg_error(R->ctx, cl, "resolution", "%lld x %lld particles are "
                        "too many", (long long)v[0], (long long)v[1]);
  *nu = (uint32_t)v[0], *nv = (uint32_t)v[1];
  return MS_OK;
}

static int need_vec3(struct mss_reader *R, const ms_config *g,
                     const char *key, double *out) {
  int rc = R->host->cfg_vec3(R->ctx, g, key, NULL, out);
  if (rc == MS_ENOENT)
    return R->host->cfg_error(R->ctx, g, key, "is required (an array of 3 "
                              "numbers)");
  return rc;
}

static double norm3(const double *a) {
  return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

static int build_cloth(struct mss_reader *R, struct mss_model *M,
                       struct keys *k) {
  const struct ms_host *h = R->host;
  const ms_config *cl = k->cloth;
  double corner[3], eu[3], ev[3];
  uint32_t nu = 0, nv = 0;
  TRY(need_vec3(R, cl, "corner", corner));
  TRY(need_vec3(R, cl, "edge_u", eu));
  TRY(need_vec3(R, cl, "edge_v", ev));
  TRY(read_resolution(R, cl, &nu, &nv));
  if (k->scale != 1.0) {
    uint32_t nu0 = nu, nv0 = nv;
    nu = refine(nu, cbrt(k->scale)), nv = refine(nv, cbrt(k->scale));
    k->mass *= (double)nu0 * nv0 / ((double)nu * nv);
  }
  double n[3] = {eu[1] * ev[2] - eu[2] * ev[1], eu[2] * ev[0] - eu[0] * ev[2],
                 eu[0] * ev[1] - eu[1] * ev[0]};
  double area = norm3(n);
  if (!(area > 1e-12 * norm3(eu) * norm3(ev)) || !(norm3(eu) > 0.0))
    return h->cfg_error(R->ctx, cl, "edge_v", "must not be zero or parallel "
                        "to edge_u");
  if (!isnan(k->spacing) || !isnan(k->spring_radius))
    return h->cfg_error(R->ctx, R->sec, !isnan(k->spacing) ? "spacing"
                        : "spring_radius", "is for soft bodies (shape = "
                        "{ ... }); a cloth takes its resolution");
  if (mss_model_alloc(M, (size_t)nu * nv)) return MS_ENOMEM;
  TRY(mss_cloth_build(M, corner, eu, ev, nu, nv, k->k, k->k_shear, k->k_bend,
                      k->damping));
  double du = norm3(eu) / (nu - 1), dv = norm3(ev) / (nv - 1);
  double m = !isnan(k->mass) ? k->mass
             : (isnan(k->density) ? 0.5 : k->density) * area / (double)M->n;
  double r = isnan(k->radius) ? 0.5 * fmin(du, dv) : k->radius;
  for (size_t i = 0; i < M->n; i++) M->m[i] = m, M->r[i] = r;
  return MS_OK;
}

static int build_soft(struct mss_reader *R, struct mss_model *M,
                      struct keys *k) {
  const struct ms_host *h = R->host;
  struct ms_points pts = {NULL, 0};
  struct ms_neighbors nb;
  if (isnan(k->spacing))
    return h->cfg_error(R->ctx, R->sec, "spacing", "is required for a soft "
                        "body (the lattice spacing of shape)");
  int rc = h->sample_shape(R->ctx, k->shape, k->spacing, &pts);
  if (rc) return rc;
  if (pts.count == 0) {
    h->free(pts.xyz);
    return h->cfg_error(R->ctx, R->sec, "shape", "holds no particle at "
                        "spacing %g", k->spacing);
  }
  if ((rc = mss_model_alloc(M, pts.count))) {
    h->free(pts.xyz);
    return rc;
  }
  memcpy(M->x, pts.xyz, 3 * pts.count * sizeof(double));
  h->free(pts.xyz);
  double sr = isnan(k->spring_radius) ? 1.5 * k->spacing : k->spring_radius;
  memset(&nb, 0, sizeof nb);
  rc = h->neighbors(R->ctx, M->x, 3 * sizeof(double), M->n, sr, &nb);
  if (!rc) rc = mss_soft_springs(M, nb.offset, nb.index, k->k, k->damping);
  h->neighbors_release(R->ctx, &nb);
  if (rc) return rc;
  double s3 = k->spacing * k->spacing * k->spacing;
  double m = !isnan(k->mass) ? k->mass
             : (isnan(k->density) ? 1000.0 : k->density) * s3;
  double r = isnan(k->radius) ? 0.5 * k->spacing : k->radius;
  for (size_t i = 0; i < M->n; i++) M->m[i] = m, M->r[i] = r;
  return MS_OK;
}

/* One pins entry: { corner = "u0v1"; } | { edge = "v0"; } |
 * { min = [...]; max = [...]; }. */
static int read_pin(struct mss_reader *R, struct mss_model *M,
                    const ms_config *p) {
  const struct ms_host *h = R->host;
  const char *corner, *edge;
  double lo[3], hi[3];
  TRY(h->cfg_string(R->ctx, p, "corner", NULL, &corner));
  TRY(h->cfg_string(R->ctx, p, "edge", NULL, &edge));
  int rl = h->cfg_vec3(R->ctx, p, "min", NULL, lo);
  if (rl && rl != MS_ENOENT) return rl;
  int rh = h->cfg_vec3(R->ctx, p, "max", NULL, hi);
  if (rh && rh != MS_ENOENT) return rh;
  int kinds = !!corner + !!edge + (!rl || !rh);
  if (kinds != 1)
    return h->cfg_error(R->ctx, p, NULL, "a pin is one of { corner = "
                        "\"u0v0\"; }, { edge = \"v1\"; } or { min = [...]; "
                        "max = [...]; }");
  if ((corner || edge) && !M->nu)
    return h->cfg_error(R->ctx, p, corner ? "corner" : "edge", "only a cloth "
                        "has corners and edges; pin a soft body with min, "
                        "max");
  if (corner) {
    if (strlen(corner) != 4 || corner[0] != 'u' || corner[2] != 'v' ||
        (corner[1] != '0' && corner[1] != '1') ||
        (corner[3] != '0' && corner[3] != '1'))
      return h->cfg_error(R->ctx, p, "corner", "unknown corner '%s' "
                          "(expected u0v0, u1v0, u0v1 or u1v1)", corner);
    mss_cloth_pin_corner(M, corner[1] == '1', corner[3] == '1');
    return MS_OK;
  }
  if (edge) {
    if (strlen(edge) != 2 || (edge[0] != 'u' && edge[0] != 'v') ||
        (edge[1] != '0' && edge[1] != '1'))
      return h->cfg_error(R->ctx, p, "edge", "unknown edge '%s' (expected "
                          "u0, u1, v0 or v1)", edge);
    mss_cloth_pin_edge(M, edge[0] == 'v', edge[1] == '1');
    return MS_OK;
  }
  if (rl || rh)
    return h->cfg_error(R->ctx, p, rl ? "min" : "max", "is required with %s",
                        rl ? "max" : "min");
  for (int a = 0; a < 3; a++)
    if (!(lo[a] <= hi[a]))
      return h->cfg_error(R->ctx, p, "max", "must be >= min on every axis");
  if (mss_pin_box(M, lo, hi) == 0)
    return h->cfg_error(R->ctx, p, NULL, "the pin region [%g, %g, %g] .. "
                        "[%g, %g, %g] holds no particle", lo[0], lo[1], lo[2],
                        hi[0], hi[1], hi[2]);
  return MS_OK;
}

static int read_pins(struct mss_reader *R, struct mss_model *M,
                     const ms_config *pins) {
  const struct ms_host *h = R->host;
  uint32_t n = h->cfg_length(R->ctx, pins);
  for (uint32_t i = 0; i < n; i++) {
    const ms_config *p;
    TRY(h->cfg_index(R->ctx, pins, i, &p));
    TRY(read_pin(R, M, p));
  }
  return MS_OK;
}

int mss_config_read(struct mss_reader *R, struct mss_model *M) {
  struct keys k;
  memset(&k, 0, sizeof k);
  const struct ms_scene_info *info = R->host->scene(R->ctx);
  memcpy(M->gravity, info->gravity, sizeof M->gravity);
  memcpy(M->lo, info->domain_min, sizeof M->lo);
  memcpy(M->hi, info->domain_max, sizeof M->hi);
  TRY(read_keys(R, M, &k));
  TRY(k.cloth ? build_cloth(R, M, &k) : build_soft(R, M, &k));
  for (size_t i = 0; i < M->n; i++) memcpy(M->v + 3 * i, k.vel, sizeof k.vel);
  if (k.pins) TRY(read_pins(R, M, k.pins));
  for (size_t i = 0; i < M->n; i++)
    if (M->pinned[i]) memset(M->v + 3 * i, 0, 3 * sizeof(double));
  TRY(mss_attach_pins(M));
  return mss_model_finish(M);
}
