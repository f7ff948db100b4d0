/* flip plugin — reading and checking the scene keys. */
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "flip.h"

void flip_params_free(struct flip_params *p) {
  free(p->obst);
  p->obst = NULL;
  p->nobst = 0;
}

static int positive(const struct ms_host *h, ms_ctx *c, const ms_config *sec,
                    const char *key, double v) {
  if (!(v > 0.0))
    return h->cfg_error(c, sec, key, "must be > 0 (got %g)", v);
  return MS_OK;
}

static int read_box(const struct ms_host *h, ms_ctx *c, const ms_config *g,
                    double lo[3], double hi[3]) {
  int rc;
  if ((rc = h->cfg_vec3(c, g, "min", NULL, lo)) == MS_ENOENT)
    return h->cfg_error(c, g, "min", "is required");
  if (rc) return rc;
  if ((rc = h->cfg_vec3(c, g, "max", NULL, hi)) == MS_ENOENT)
    return h->cfg_error(c, g, "max", "is required");
  if (rc) return rc;
  for (int a = 0; a < 3; a++)
    if (!(lo[a] < hi[a]))
      return h->cfg_error(c, g, "max", "must be above min on every axis");
  return MS_OK;
}

/* The tank (grid bounds): `tank`, or else the scene's domain. */
static int read_tank(const struct ms_host *h, ms_ctx *c, const ms_config *sec,
                     struct flip_params *p) {
  const struct ms_scene_info *info = h->scene(c);
  const ms_config *t;
  double lo[3], hi[3];
  int rc = h->cfg_child(c, sec, "tank", &t);
  if (rc && rc != MS_ENOENT) return rc;
  if (t) {
    if ((rc = read_box(h, c, t, lo, hi))) return rc;
    for (int a = 0; a < 3; a++)
      if (lo[a] < info->domain_min[a] || hi[a] > info->domain_max[a])
        return h->cfg_error(c, sec, "tank", "must lie inside the scene's "
                            "domain");
  } else {
    for (int a = 0; a < 3; a++) {
      lo[a] = info->domain_min[a];
      hi[a] = info->domain_max[a];
      if (!isfinite(lo[a]) || !isfinite(hi[a])) p->auto_tank = 1;
    }
    if (p->auto_tank) return MS_OK; /* fitted once the water is seeded */
  }
  const double cs = p->cell_size;
  for (int a = 0; a < 3; a++) {
    double cells = (hi[a] - lo[a]) / cs, r = floor(cells + 0.5);
    if (fabs(cells - r) > 1e-6 * fmax(1.0, r))
      return h->cfg_error(c, sec, "cell_size", "the tank's extent %g along "
                          "%c is not a multiple of the cell size %g (e.g. %g "
                          "or %g would fit)", hi[a] - lo[a], "xyz"[a], cs,
                          (hi[a] - lo[a]) / fmax(1.0, r),
                          (hi[a] - lo[a]) / (r + 1.0));
    if (r < 2.0 || r > 4096.0)
      return h->cfg_error(c, sec, "cell_size", "gives %.0f cells along %c; "
                          "2 to 4096 are supported", r, "xyz"[a]);
    p->n[a] = (int)r;
    p->lo[a] = lo[a];
  }
  if ((double)p->n[0] * p->n[1] * p->n[2] > 1.5e9)
    return h->cfg_error(c, sec, "cell_size", "gives %d x %d x %d cells: too "
                        "many", p->n[0], p->n[1], p->n[2]);
  return MS_OK;
}

static int read_obstacles(const struct ms_host *h, ms_ctx *c,
                          const ms_config *sec, struct flip_params *p) {
  const ms_config *l;
  int rc = h->cfg_child(c, sec, "obstacles", &l);
  if (rc == MS_ENOENT) return MS_OK;
  if (rc) return rc;
  uint32_t n = h->cfg_length(c, l);
  if (n > 1024)
    return h->cfg_error(c, sec, "obstacles", "at most 1024 boxes");
  p->obst = calloc(n ? n : 1, sizeof *p->obst);
  if (!p->obst) return MS_ENOMEM;
  for (uint32_t i = 0; i < n; i++) {
    const ms_config *e;
    if ((rc = h->cfg_index(c, l, i, &e))) return rc;
    if ((rc = read_box(h, c, e, p->obst[i].lo, p->obst[i].hi))) return rc;
    p->nobst++;
  }
  return MS_OK;
}

static int read_solver(const struct ms_host *h, ms_ctx *c,
                       const ms_config *sec, struct flip_params *p) {
  const char *s;
  int rc;
  if ((rc = h->cfg_string(c, sec, "pressure_solver", "pcg", &s)) ||
      (rc = h->cfg_double(c, sec, "pressure_tolerance", 1e-6, &p->tol)) ||
      (rc = h->cfg_int(c, sec, "pressure_max_iterations", 1000,
                       &p->max_iterations)) ||
      (rc = h->cfg_bool(c, sec, "pressure_warm_start", 1, &p->warm_start)))
    return rc;
  if (!strcmp(s, "pcg"))
    p->solver = FLIP_SOLVER_PCG;
  else if (!strcmp(s, "cholmod"))
    p->solver = FLIP_SOLVER_CHOLMOD;
  else
    return h->cfg_error(c, sec, "pressure_solver", "unknown solver '%s' "
                        "(expected \"pcg\" or \"cholmod\")", s);
  if (!(p->tol > 0.0 && p->tol < 1.0))
    return h->cfg_error(c, sec, "pressure_tolerance", "must be in (0, 1) "
                        "(got %g)", p->tol);
  if (p->max_iterations < 1 || p->max_iterations > 1000000)
    return h->cfg_error(c, sec, "pressure_max_iterations", "must be in [1, "
                        "1000000] (got %lld)", (long long)p->max_iterations);
  return MS_OK;
}

/* `shape`: one shape group, or a list of them (their union; they should
 * not overlap). */
static int read_shapes(const struct ms_host *h, ms_ctx *c,
                       const ms_config *sec, struct flip_params *p) {
  const ms_config *s;
  const char *type;
  int rc;
  if ((rc = h->cfg_child(c, sec, "shape", &s)) == MS_ENOENT)
    return h->cfg_error(c, sec, "shape", "is required (the fluid's initial "
                        "volume, e.g. { type = \"box\"; min = [...]; max = "
                        "[...]; }, or a list of such groups)");
  if (rc || (rc = h->cfg_string(c, s, "type", NULL, &type))) return rc;
  if (type) {
    p->shape[p->nshapes++] = s;
  } else {
    uint32_t n = h->cfg_length(c, s);
    if (n == 0 || n > FLIP_MAX_SHAPES)
      return h->cfg_error(c, sec, "shape", "must be a shape group or a list "
                          "of 1 to %d of them", FLIP_MAX_SHAPES);
    for (uint32_t i = 0; i < n; i++)
      if ((rc = h->cfg_index(c, s, i, &p->shape[p->nshapes++]))) return rc;
  }
  double T, rho;
  if ((rc = h->cfg_double(c, sec, "temperature", 293.15, &T)) ||
      (rc = h->cfg_double(c, sec, "density", 1000.0, &rho)))
    return rc;
  for (int i = 0; i < p->nshapes; i++) {
    double j, *d = &p->shape_density[i];
    if ((rc = h->cfg_double(c, p->shape[i], "jitter", NAN, &j)) ||
        (rc = h->cfg_double(c, p->shape[i], "temperature", T,
                            &p->temperature[i])) ||
        (rc = h->cfg_double(c, p->shape[i], "density", rho, d)))
      return rc;
    if (!(*d > 0.0 && isfinite(*d)))
      return h->cfg_error(c, p->shape[i], "density", "must be > 0 (got %g) "
                          "[kg/m^3]", *d);
    p->phases |= *d != rho;
    /* a frame's particles stay where they were (ABI 1.6) */
    p->jitter[i] = isnan(j) && !ms_shape_is_given(h, c, p->shape[i])
                       ? FLIP_DEFAULT_JITTER
                       : NAN;
    if (!isfinite(p->temperature[i]))
      return h->cfg_error(c, p->shape[i], "temperature", "must be finite");
  }
  return MS_OK;
}

static int read_particles(const struct ms_host *h, ms_ctx *c,
                          const ms_config *sec, struct flip_params *p) {
  static const double zero[3] = {0.0, 0.0, 0.0};
  const struct ms_scene_info *info = h->scene(c);
  double scale = MS_SCENE_HAS(info, scale) ? info->scale : 1.0;
  int rc;
  if ((rc = read_shapes(h, c, sec, p)) ||
      (rc = h->cfg_double(c, sec, "spacing", NAN, &p->spacing)) ||
      (rc = h->cfg_double(c, sec, "cell_size", NAN, &p->cell_size)) ||
      (rc = h->cfg_double(c, sec, "radius", NAN, &p->radius)) ||
      (rc = h->cfg_double(c, sec, "density", 1000.0, &p->density)) ||
      (rc = h->cfg_vec3(c, sec, "velocity", zero, p->velocity)))
    return rc;
  if (isnan(p->spacing))
    return h->cfg_error(c, sec, "spacing", "is required (particle spacing; "
                        "the cell size defaults to twice it)");
  if ((rc = positive(h, c, sec, "spacing", p->spacing))) return rc;
  if (isnan(p->cell_size)) p->cell_size = FLIP_DEFAULT_PER_AXIS * p->spacing;
  /* scene.scale: about `scale` times the particles.  Particles shrink by
   * f = scale^(1/3), as in every other solver, so that they keep their
   * size relative to the bodies they meet.  Cells must still tile the
   * tank: they shrink by the whole factor nearest to f. */
  double f = cbrt(scale);
  p->refine = (int)floor(f + 0.5);
  if (p->refine < 1) p->refine = 1;
  if (p->refine > 16) p->refine = 16;
  if (f > 16.0) f = 16.0;
  if (fabs(f - p->refine) < 1e-9 * f) f = p->refine; /* cbrt(27) != 3 */
  p->spacing /= f;
  p->cell_size /= p->refine;
  if (!isnan(p->radius)) p->radius /= f;
  if (scale != 1.0)
    h->log(c, MS_LOG_INFO, "scene.scale %g: particles %.3g x and cells %d x "
           "finer", scale, f, p->refine);
  if ((rc = positive(h, c, sec, "cell_size", p->cell_size))) return rc;
  if (p->cell_size < p->spacing)
    return h->cfg_error(c, sec, "cell_size", "must not be below the spacing "
                        "%g (got %g)", p->spacing, p->cell_size);
  if (isnan(p->radius)) p->radius = 0.5 * p->spacing;
  if ((rc = positive(h, c, sec, "radius", p->radius)) ||
      (rc = positive(h, c, sec, "density", p->density)))
    return rc;
  return MS_OK;
}

static int read_advect(const struct ms_host *h, ms_ctx *c,
                       const ms_config *sec, struct flip_params *p) {
  const char *s;
  int rc = h->cfg_string(c, sec, "advect", "particle", &s);
  if (rc) return rc;
  if (!strcmp(s, "particle")) p->advect = FLIP_ADVECT_PARTICLE;
  else if (!strcmp(s, "grid")) p->advect = FLIP_ADVECT_GRID;
  else if (!strcmp(s, "interface")) p->advect = FLIP_ADVECT_INTERFACE;
  else
    return h->cfg_error(c, sec, "advect", "unknown advection '%s' (expected "
                        "\"particle\", \"interface\" or \"grid\")", s);
  return MS_OK;
}

/* free_surface: "cell" (p = 0 at the first air cell's centre) or "ghost"
 * (at the surface the particles show: surface.c). */
static int read_surface(const struct ms_host *h, ms_ctx *c,
                        const ms_config *sec, struct flip_params *p) {
  const char *s;
  int rc = h->cfg_string(c, sec, "free_surface", "cell", &s);
  if (rc) return rc;
  if (!strcmp(s, "cell")) p->ghost_fluid = 0;
  else if (!strcmp(s, "ghost")) p->ghost_fluid = 1;
  else
    return h->cfg_error(c, sec, "free_surface", "unknown free surface '%s' "
                        "(expected \"cell\" or \"ghost\")", s);
  return MS_OK;
}

int flip_read_params(const struct ms_host *h, ms_ctx *c, const ms_config *sec,
                     struct flip_params *p) {
  int rc;
  memset(p, 0, sizeof *p);
  if ((rc = read_particles(h, c, sec, p)) ||
      (rc = h->cfg_double(c, sec, "flip_ratio", 0.97, &p->flip_ratio)) ||
      (rc = read_advect(h, c, sec, p)) || (rc = read_surface(h, c, sec, p)) ||
      (rc = h->cfg_double(c, sec, "cfl", 1.0, &p->cfl)) ||
      (rc = h->cfg_bool(c, sec, "couple_cells", 1, &p->couple_cells)) ||
      (rc = h->cfg_double(c, sec, "separation", 0.0, &p->separation)) ||
      (rc = h->cfg_bool(c, sec, "energy_limit", 1, &p->energy_limit)) ||
      (rc = h->cfg_bool(c, sec, "buoyancy", 0, &p->buoyancy)) ||
      (rc = h->cfg_double(c, sec, "specific_heat", 4186.0,
                          &p->specific_heat)) ||
      (rc = h->cfg_double(c, sec, "conductivity", 0.6, &p->conductivity)) ||
      (rc = read_solver(h, c, sec, p)) || (rc = read_tank(h, c, sec, p)) ||
      (rc = read_obstacles(h, c, sec, p)))
    goto fail;
  if (!(p->flip_ratio >= 0.0 && p->flip_ratio <= 1.0)) {
    rc = h->cfg_error(c, sec, "flip_ratio", "must be in [0, 1] (got %g)",
                      p->flip_ratio);
    goto fail;
  }
  if (!(p->separation >= 0.0 && p->separation <= 1.0)) {
    rc = h->cfg_error(c, sec, "separation", "must be in [0, 1] (the share "
                      "of two particles' overlap below 0.8 spacing removed "
                      "per step; got %g)", p->separation);
    goto fail;
  }
  if (!(p->specific_heat > 0.0 && isfinite(p->specific_heat))) {
    rc = h->cfg_error(c, sec, "specific_heat", "must be > 0 (got %g) "
                      "[J/(kg K)]", p->specific_heat);
    goto fail;
  }
  if (!(p->conductivity >= 0.0 && isfinite(p->conductivity))) {
    rc = h->cfg_error(c, sec, "conductivity", "must be >= 0 (got %g) "
                      "[W/(m K)]", p->conductivity);
    goto fail;
  }
  if (!(p->cfl > 0.0 && p->cfl <= 5.0)) {
    rc = h->cfg_error(c, sec, "cfl", "must be in (0, 5] cells per step (got "
                      "%g)", p->cfl);
    goto fail;
  }
  return MS_OK;
fail:
  flip_params_free(p);
  return rc;
}
