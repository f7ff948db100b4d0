/* Parsing and validating the core part of a scene file. */
#include "scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/status.h>

#include "../io/io.h"

#define TRY(expr)          \
  do {                     \
    int rc_ = (expr);      \
    if (rc_) return rc_;   \
  } while (0)

/* One heat source: a group { min; max; temperature; rate; }. */
static int parse_heat_source(struct ms__heat_source *h, config_setting_t *e,
                             struct ms__err *err) {
  if (!config_setting_is_group(e))
    return ms__cfg_fail(err, e, NULL, "must be a group { min = [...]; max = "
                        "[...]; temperature = T; }");
  ms__cfg_mark(e);
  static const char *const req[3] = {"min", "max", "temperature"};
  for (int k = 0; k < 3; k++)
    if (!ms__cfg_get(e, req[k]))
      return ms__cfg_fail(err, e, req[k], "is required");
  TRY(ms__cfg_vec3(e, "min", NULL, h->lo, err));
  TRY(ms__cfg_vec3(e, "max", NULL, h->hi, err));
  TRY(ms__cfg_double(e, "temperature", 0.0, &h->temperature, err));
  TRY(ms__cfg_double(e, "rate", INFINITY, &h->rate, err));
  for (int a = 0; a < 3; a++)
    if (!(h->lo[a] < h->hi[a]))
      return ms__cfg_fail(err, e, "max", "must exceed min on every axis");
  if (!isfinite(h->temperature))
    return ms__cfg_fail(err, e, "temperature", "must be finite");
  if (!(h->rate > 0.0))
    return ms__cfg_fail(err, e, "rate", "must be > 0 [1/s] (got %g; leave "
                        "it out to hold the temperature)", h->rate);
  return ms__cfg_check_unknown(e, err);
}

/* scene.heat_sources = ( { ... }, ... ). */
static int parse_heat_sources(struct ms__scene *sc, config_setting_t *g,
                              struct ms__err *err) {
  config_setting_t *l = ms__cfg_get(g, "heat_sources");
  if (!l) return MS_OK;
  if (!config_setting_is_list(l))
    return ms__cfg_fail(err, l, NULL, "must be a list ( { min = [...]; max "
                        "= [...]; temperature = T; rate = R; }, ... )");
  int n = config_setting_length(l);
  sc->heat_src = calloc(n > 0 ? (size_t)n : 1, sizeof *sc->heat_src);
  if (!sc->heat_src) return ms__errf(err, MS_ENOMEM, "out of memory");
  for (int i = 0; i < n; i++)
    TRY(parse_heat_source(&sc->heat_src[i],
                          config_setting_get_elem(l, (unsigned)i), err));
  sc->nheat_src = (uint32_t)n;
  return MS_OK;
}

static int parse_scene(struct ms__scene *sc, config_setting_t *root,
                       struct ms__err *err) {
  config_setting_t *g = ms__cfg_get(root, "scene");
  static const double g0[3] = {0.0, -9.81, 0.0};
  static const double ninf[3] = {-INFINITY, -INFINITY, -INFINITY};
  static const double pinf[3] = {INFINITY, INFINITY, INFINITY};
  if (g && !config_setting_is_group(g))
    return ms__cfg_fail(err, g, NULL, "must be a group { ... }");
  int64_t seed;
  TRY(ms__cfg_double(g, "duration", 1.0, &sc->duration, err));
  TRY(ms__cfg_double(g, "fps", 30.0, &sc->fps, err));
  TRY(ms__cfg_int(g, "seed", 1, &seed, err));
  TRY(ms__cfg_vec3(g, "gravity", g0, sc->gravity, err));
  TRY(ms__cfg_double(g, "scale", 1.0, &sc->scale, err));
  if (!(sc->scale > 0.0 && sc->scale <= 1e6))
    return ms__cfg_fail(err, g, "scale", "must be in (0, 1e6] (got %g)",
                        sc->scale);
  if (!(sc->duration > 0.0))
    return ms__cfg_fail(err, g, "duration", "must be > 0 (got %g)",
                        sc->duration);
  if (!(sc->fps > 0.0))
    return ms__cfg_fail(err, g, "fps", "must be > 0 (got %g)", sc->fps);
  sc->seed = (uint64_t)seed;
  /* bounded before the conversion: 1e18 s at 30 fps wrapped to 1 frame */
  double nf = ceil(sc->duration * sc->fps - 1e-9);
  if (!(nf <= MS__MAX_FRAMES))
    return ms__cfg_fail(err, g, "duration", "%g s at %g frames per second "
                        "is %g frames, more than %g", sc->duration, sc->fps,
                        nf, MS__MAX_FRAMES);
  sc->frames = nf < 1.0 ? 1 : (int64_t)nf;

  config_setting_t *d = ms__cfg_get(g, "domain");
  ms__memcpy(sc->domain_min, ninf, sizeof ninf);
  ms__memcpy(sc->domain_max, pinf, sizeof pinf);
  if (d) {
    if (!config_setting_is_group(d))
      return ms__cfg_fail(err, d, NULL, "must be a group { min = [...]; max = [...]; }");
    if (ms__cfg_vec3(d, "min", NULL, sc->domain_min, err) == MS_ENOENT)
      return ms__cfg_fail(err, d, "min", "is required");
    if (err->status) return err->status;
    if (ms__cfg_vec3(d, "max", NULL, sc->domain_max, err) == MS_ENOENT)
      return ms__cfg_fail(err, d, "max", "is required");
    if (err->status) return err->status;
    for (int a = 0; a < 3; a++)
      if (!(sc->domain_min[a] < sc->domain_max[a]))
        return ms__cfg_fail(err, d, "max", "must exceed min on every axis");
  }
  TRY(parse_heat_sources(sc, g, err));
  return g ? ms__cfg_check_unknown(g, err) : MS_OK;
}

int ms__sync_rule(const char *name) {
  return !strcmp(name, "momentum") ? MS__SYNC_MOMENTUM
         : !strcmp(name, "paper")  ? MS__SYNC_PAPER
                                   : -1;
}

const char *ms__method_name(int method) {
  static const char *const names[] = {"merge-split", "none", "penalty",
                                      "sph_force", "impulse"};
  return method >= 0 && method <= MS__METHOD_IMPULSE ? names[method] : "?";
}

static int unit_interval(struct ms__err *err, config_setting_t *g,
                         const char *key, double v) {
  if (v >= 0.0 && v <= 1.0) return MS_OK;
  return ms__cfg_fail(err, g, key, "must be in [0, 1] (got %g)", v);
}

/* Coupling iterations (coupling.h): the momentum rule's partitioned step
 * integrated again until the systems agree.  The paper's rule averages:
 * it takes one pass whatever they say (step.c). */
static int parse_iterations(struct ms__scene *sc, config_setting_t *g,
                            struct ms__err *err) {
  int64_t it;
  TRY(ms__cfg_int(g, "iterations", 1, &it, err));
  if (it < 1 || it > 1000)
    return ms__cfg_fail(err, g, "iterations", "must be in [1, 1000] (got "
                        "%lld)", (long long)it);
  sc->iterations = (uint32_t)it;
  TRY(ms__cfg_double(g, "tolerance", 1e-3, &sc->tolerance, err));
  if (!(sc->tolerance > 0.0))
    return ms__cfg_fail(err, g, "tolerance", "must be > 0 (got %g)",
                        sc->tolerance);
  TRY(ms__cfg_double(g, "relaxation", 0.5, &sc->relaxation, err));
  if (!(sc->relaxation > 0.0 && sc->relaxation <= 1.0))
    return ms__cfg_fail(err, g, "relaxation", "must be in (0, 1] (got %g)",
                        sc->relaxation);
  return MS_OK;
}

static int parse_coupling(struct ms__scene *sc, config_setting_t *root,
                          struct ms__err *err) {
  config_setting_t *g = ms__cfg_get(root, "coupling");
  const char *method, *unmerged, *sync, *draws;
  int64_t nmin, nmax;
  if (g && !config_setting_is_group(g))
    return ms__cfg_fail(err, g, NULL, "must be a group { ... }");
  TRY(ms__cfg_string(g, "method", "merge-split", &method, err));
  TRY(ms__cfg_double(g, "alpha", 1.0, &sc->alpha, err));
  TRY(ms__cfg_double(g, "beta", 0.0, &sc->beta, err));
  TRY(ms__cfg_int(g, "n_min", 8, &nmin, err));
  TRY(ms__cfg_int(g, "n_max", 64, &nmax, err));
  TRY(ms__cfg_bool(g, "two_stage", 1, &sc->two_stage, err));
  TRY(ms__cfg_bool(g, "limits_follow_scale", 0, &sc->limits_follow_scale,
                   err));
  TRY(ms__cfg_string(g, "sync", "momentum", &sync, err));
  if ((sc->sync = ms__sync_rule(sync)) < 0)
    return ms__cfg_fail(err, g, "sync", "unknown synchronisation '%s' "
                        "(expected \"momentum\" or \"paper\")", sync);
  TRY(parse_iterations(sc, g, err));
  TRY(ms__cfg_string(g, "unmerged_pairs", "ignore", &unmerged, err));
  TRY(ms__cfg_double(g, "contact_restitution", 0.0, &sc->contact_restitution,
                     err));
  if (strcmp(unmerged, "impulse") && strcmp(unmerged, "ignore"))
    return ms__cfg_fail(err, g, "unmerged_pairs", "must be \"impulse\" or "
                        "\"ignore\" (got \"%s\")", unmerged);
  sc->unmerged_impulses = !strcmp(unmerged, "impulse");
  TRY(ms__cfg_string(g, "group_draws", "sequence", &draws, err));
  if (strcmp(draws, "sequence") && strcmp(draws, "per_group"))
    return ms__cfg_fail(err, g, "group_draws", "must be \"sequence\" or "
                        "\"per_group\" (got \"%s\")", draws);
  sc->group_per_group = !strcmp(draws, "per_group");
  TRY(ms__cfg_double(g, "conductance", 0.0, &sc->conductance, err));
  if (!(sc->conductance >= 0.0 && isfinite(sc->conductance)))
    return ms__cfg_fail(err, g, "conductance", "must be >= 0 and finite (got "
                        "%g) [W/K]", sc->conductance);
  TRY(ms__cfg_double(g, "heat_reach", 0.0, &sc->heat_reach, err));
  if (!(sc->heat_reach >= 0.0 && isfinite(sc->heat_reach)))
    return ms__cfg_fail(err, g, "heat_reach", "must be >= 0 and finite (got "
                        "%g) [m]", sc->heat_reach);
  TRY(ms__cfg_double(g, "cfl", 0.5, &sc->cfl, err));
  TRY(ms__cfg_double(g, "max_dt", INFINITY, &sc->max_dt, err));
  TRY(ms__cfg_double(g, "min_dt", 1e-9, &sc->min_dt, err));
  TRY(ms__cfg_double(g, "skin", 1.0, &sc->skin, err));
  int64_t stages;
  TRY(ms__cfg_int(g, "stages", 2, &stages, err));
  if (stages < 2 || stages > 64)
    return ms__cfg_fail(err, g, "stages", "must be in [2, 64] (got %lld)",
                        (long long)stages);
  sc->stages = (uint32_t)stages;
  TRY(ms__cfg_double(g, "stiffness", 1e3, &sc->stiffness, err));
  TRY(ms__cfg_double(g, "damping", 0.0, &sc->damping, err));
  TRY(ms__cfg_double(g, "restitution", 0.5, &sc->restitution, err));
  sc->method = -1;
  for (int m = 0; m <= MS__METHOD_IMPULSE; m++)
    if (!strcmp(method, ms__method_name(m))) sc->method = m;
  if (sc->method < 0)
    return ms__cfg_fail(err, g, "method",
                        "unknown method '%s' (expected merge-split, penalty, "
                        "sph_force, impulse or none)", method);
  if (!(sc->stiffness > 0.0))
    return ms__cfg_fail(err, g, "stiffness", "must be > 0 (got %g)",
                        sc->stiffness);
  if (!(sc->damping >= 0.0))
    return ms__cfg_fail(err, g, "damping", "must be >= 0 (got %g)",
                        sc->damping);
  TRY(unit_interval(err, g, "restitution", sc->restitution));
  TRY(unit_interval(err, g, "contact_restitution", sc->contact_restitution));
  TRY(unit_interval(err, g, "alpha", sc->alpha));
  TRY(unit_interval(err, g, "beta", sc->beta));
  if (!(nmin == 0 && nmax == 0)) {
    if (nmin < 2 || nmin > UINT32_MAX)
      return ms__cfg_fail(err, g, "n_min",
                          "must be >= 2, or n_min = n_max = 0 for no limit "
                          "(got %lld)", (long long)nmin);
    if (nmax < nmin || nmax > UINT32_MAX)
      return ms__cfg_fail(err, g, "n_min", "must not exceed n_max (%lld > %lld)",
                          (long long)nmin, (long long)nmax);
  }
  sc->n_min = (uint32_t)nmin;
  sc->n_max = (uint32_t)nmax;
  if (!(sc->cfl > 0.0 && sc->cfl <= 1.0))
    return ms__cfg_fail(err, g, "cfl", "must be in (0, 1] (got %g)", sc->cfl);
  if (!(sc->skin >= 0.0 && sc->skin <= 10.0))
    return ms__cfg_fail(err, g, "skin", "must be in [0, 10] (got %g)",
                        sc->skin);
  if (!(sc->max_dt > 0.0))
    return ms__cfg_fail(err, g, "max_dt", "must be > 0 (got %g)", sc->max_dt);
  if (!(sc->min_dt > 0.0) || sc->min_dt > sc->max_dt)
    return ms__cfg_fail(err, g, "min_dt", "must be > 0 and <= max_dt (got %g)",
                        sc->min_dt);
  return g ? ms__cfg_check_unknown(g, err) : MS_OK;
}

/* format = NAME | [NAME, ...], NAME a row of the writers' table (io.h);
 * the default is its first row. */
static int parse_formats(struct ms__scene *sc, config_setting_t *g,
                         struct ms__err *err) {
  config_setting_t *f = ms__cfg_get(g, "format");
  char names[256];
  sc->out_formats = 1u;
  if (!f) return MS_OK;
  int many = config_setting_is_array(f) || config_setting_is_list(f);
  int n = many ? config_setting_length(f) : 1;
  sc->out_formats = 0;
  for (int i = 0; i < n; i++) {
    config_setting_t *e = many ? config_setting_get_elem(f, (unsigned)i) : f;
    const char *v = config_setting_get_string(e);
    unsigned bit = v ? ms__format_bit(v) : 0;
    if (!bit)
      return ms__cfg_fail(err, f, NULL, "must be %s or [%s]%s%s%s",
                          ms__format_names(names, sizeof names),
                          names, v ? " (got \"" : "", v ? v : "",
                          v ? "\")" : "");
    sc->out_formats |= bit;
  }
  if (!sc->out_formats)
    return ms__cfg_fail(err, f, NULL, "names no format (%s)",
                        ms__format_names(names, sizeof names));
  return MS_OK;
}

/* An array of n numbers with n in [lo, hi]; returns n, or -1 (error set). */
static int number_array(config_setting_t *g, const char *key, int lo, int hi,
                        double *out, struct ms__err *err) {
  config_setting_t *a = ms__cfg_get(g, key);
  if (!a) return 0;
  int n = config_setting_is_array(a) || config_setting_is_list(a)
              ? config_setting_length(a) : -1;
  for (int i = 0; n >= lo && n <= hi && i < n; i++) {
    config_setting_t *e = config_setting_get_elem(a, (unsigned)i);
    if (!config_setting_is_number(e)) n = -1;
    else out[i] = config_setting_type(e) == CONFIG_TYPE_FLOAT
                      ? config_setting_get_float(e)
                      : (double)config_setting_get_int64(e);
    if (n > 0 && !isfinite(out[i])) n = -1;
  }
  if (n < lo || n > hi) {
    if (lo == hi)
      ms__cfg_fail(err, a, NULL, "must be an array of %d finite numbers", lo);
    else
      ms__cfg_fail(err, a, NULL, "must be an array of %d to %d finite "
                   "numbers", lo, hi);
    return -1;
  }
  return n;
}

static int parse_preview(struct ms__scene *sc, config_setting_t *g,
                         struct ms__err *err) {
  double size[2] = {800, 600};
  sc->preview_range[0] = sc->preview_range[1] = NAN;
  TRY(ms__cfg_bool(g, "preview", 0, &sc->preview, err));
  TRY(ms__cfg_string(g, "preview_color", "system", &sc->preview_color, err));
  if (number_array(g, "preview_size", 2, 2, size, err) < 0) return err->status;
  if (number_array(g, "preview_range", 2, 2, sc->preview_range, err) < 0)
    return err->status;
  sc->preview_camera_n = number_array(g, "preview_camera", 2, 7,
                                      sc->preview_camera, err);
  if (sc->preview_camera_n < 0) return err->status;
  if (sc->preview_camera_n == 4 || sc->preview_camera_n == 5)
    return ms__cfg_fail(err, g, "preview_camera", "must be [azimuth, "
                        "elevation, zoom] or [eye x, y, z, target x, y, z, "
                        "fov] (got %d numbers)", sc->preview_camera_n);
  for (int i = 0; i < 2; i++)
    if (!(size[i] >= 16 && size[i] <= 8192 && size[i] == (int)size[i]))
      return ms__cfg_fail(err, g, "preview_size", "must be two integers in "
                          "[16, 8192] (width, height)");
  sc->preview_size[0] = (int)size[0];
  sc->preview_size[1] = (int)size[1];
  if (!(sc->preview_range[0] < sc->preview_range[1]) &&
      !isnan(sc->preview_range[0]))
    return ms__cfg_fail(err, g, "preview_range", "must be [min, max] with "
                        "min < max");
  if (!sc->preview_color[0])
    return ms__cfg_fail(err, g, "preview_color", "must not be empty");
  return MS_OK;
}

static int parse_output(struct ms__scene *sc, config_setting_t *root,
                        struct ms__err *err) {
  config_setting_t *g = ms__cfg_get(root, "output");
  if (g && !config_setting_is_group(g))
    return ms__cfg_fail(err, g, NULL, "must be a group { ... }");
  TRY(ms__cfg_string(g, "dir", "out", &sc->out_dir, err));
  TRY(ms__cfg_int(g, "every", 1, &sc->out_every, err));
  TRY(ms__cfg_int(g, "checkpoint_every", 0, &sc->checkpoint_every, err));
  TRY(parse_formats(sc, g, err));
  TRY(parse_preview(sc, g, err));
  TRY(ms__cfg_double(g, "surface_cell", 0.5, &sc->surface_cell, err));
  TRY(ms__cfg_double(g, "surface_kernel", 1.5, &sc->surface_kernel, err));
  TRY(ms__cfg_bool(g, "plots", 0, &sc->out_plots, err));
  ms__cfg_get(g, "surface"); /* read once the systems are (parse_surfaces) */
  if (!(sc->surface_cell >= 0.1 && sc->surface_cell <= 2.0))
    return ms__cfg_fail(err, g, "surface_cell", "must be in [0.1, 2] particle "
                        "spacings (got %g)", sc->surface_cell);
  if (!(sc->surface_kernel >= 1.0 && sc->surface_kernel <= 4.0))
    return ms__cfg_fail(err, g, "surface_kernel", "must be in [1, 4] particle "
                        "spacings (got %g)", sc->surface_kernel);
  const char *compress;
  TRY(ms__cfg_string(g, "compress", "none", &compress, err));
  sc->out_zlib = !strcmp(compress, "zlib");
  if (!sc->out_zlib && strcmp(compress, "none"))
    return ms__cfg_fail(err, g, "compress", "must be \"none\" or \"zlib\" "
                        "(got \"%s\")", compress);
  if (sc->out_every < 1)
    return ms__cfg_fail(err, g, "every", "must be >= 1 (got %lld)",
                        (long long)sc->out_every);
  if (sc->checkpoint_every < 0)
    return ms__cfg_fail(err, g, "checkpoint_every", "must be >= 0 frames, 0 "
                        "for none (got %lld)", (long long)sc->checkpoint_every);
  if (!sc->out_dir[0])
    return ms__cfg_fail(err, g, "dir", "must not be empty");
  return g ? ms__cfg_check_unknown(g, err) : MS_OK;
}

static int valid_name(const char *s) {
  if (!*s) return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
          (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
      return 0;
  return 1;
}

static int parse_system(struct ms__scene *sc, config_setting_t *s, uint32_t i,
                        struct ms__err *err) {
  struct ms__sysdesc *d = &sc->sys[i];
  ms__cfg_mark(s);
  if (!config_setting_is_group(s))
    return ms__cfg_fail(err, s, NULL, "each system must be a group { ... }");
  d->section = s;
  TRY(ms__cfg_string(s, "solver", NULL, &d->solver, err));
  if (!d->solver)
    return ms__cfg_fail(err, s, "solver", "is required (a plugin id, see "
                        "'mergesplit plugins')");
  TRY(ms__cfg_string(s, "name", NULL, &d->name, err));
  if (!d->name)
    return ms__cfg_fail(err, s, "name", "is required");
  if (!valid_name(d->name))
    return ms__cfg_fail(err, s, "name",
                        "'%s' must use only letters, digits, '_' and '-'",
                        d->name);
  for (uint32_t j = 0; j < i; j++)
    if (!strcmp(sc->sys[j].name, d->name))
      return ms__cfg_fail(err, s, "name", "'%s' is used by another system",
                          d->name);
  int self = -1;
  if (config_setting_get_member(s, "self_collision"))
    TRY(ms__cfg_bool(s, "self_collision", 0, &self, err));
  d->self_collision = self;
  return MS_OK;
}

static int parse_systems(struct ms__scene *sc, config_setting_t *root,
                         struct ms__err *err) {
  config_setting_t *l = ms__cfg_get(root, "systems");
  if (!l)
    return ms__errf(err, MS_ECONFIG, "%s: 'systems' is required: a list ( "
                    "{ name = ...; solver = ...; ... }, ... )", sc->path);
  if (!config_setting_is_list(l))
    return ms__cfg_fail(err, l, NULL, "must be a list ( { ... }, ... )");
  int n = config_setting_length(l);
  if (n < 1) return ms__cfg_fail(err, l, NULL, "must hold at least one system");
  sc->nsys = (uint32_t)n;
  sc->sys = calloc((size_t)n, sizeof *sc->sys);
  if (!sc->sys) return ms__errf(err, MS_ENOMEM, "out of memory");
  for (int i = 0; i < n; i++)
    TRY(parse_system(sc, config_setting_get_elem(l, (unsigned)i), (uint32_t)i,
                     err));
  return MS_OK;
}

/* output.surface = NAME | [NAME, ...]: systems of the scene, once each. */
static int parse_surfaces(struct ms__scene *sc, config_setting_t *root,
                          struct ms__err *err) {
  config_setting_t *g = ms__cfg_get(root, "output");
  config_setting_t *f = g ? ms__cfg_get(g, "surface") : NULL;
  if (!f) return MS_OK;
  int many = config_setting_is_array(f) || config_setting_is_list(f);
  int n = many ? config_setting_length(f) : 1;
  if (!(sc->surface_sys = calloc(n ? (size_t)n : 1, sizeof *sc->surface_sys)))
    return ms__errf(err, MS_ENOMEM, "out of memory");
  for (int i = 0; i < n; i++) {
    config_setting_t *e = many ? config_setting_get_elem(f, (unsigned)i) : f;
    const char *v = config_setting_get_string(e);
    uint32_t s = 0;
    while (v && s < sc->nsys && strcmp(sc->sys[s].name, v)) s++;
    if (!v || s == sc->nsys)
      return ms__cfg_fail(err, f, NULL, "must name systems of the scene (got "
                          "%s%s%s)", v ? "\"" : "a non-string", v ? v : "",
                          v ? "\"" : "");
    for (uint32_t j = 0; j < sc->nsurface; j++)
      if (sc->surface_sys[j] == s)
        return ms__cfg_fail(err, f, NULL, "names \"%s\" twice", v);
    for (uint32_t j = 0; j < sc->nsys; j++) /* its series: NAME_surface */
      if (!strncmp(sc->sys[j].name, v, strlen(v)) &&
          !strcmp(sc->sys[j].name + strlen(v), "_surface"))
        return ms__cfg_fail(err, f, NULL, "\"%s\": its surface's files "
                            "would be named like system \"%s\"'s", v,
                            sc->sys[j].name);
    sc->surface_sys[sc->nsurface++] = s;
  }
  return MS_OK;
}

/* Apply each KEY=VALUE to the parsed file, in order (a later one wins);
 * the scene keeps "--set KEY=VALUE" as the origin its errors name. */
static int apply_overrides(struct ms__scene *sc, const char *const *set,
                           struct ms__err *err) {
  size_t n = 0;
  while (set && set[n]) n++;
  if (!n) return MS_OK;
  if (!(sc->overrides = calloc(n, sizeof *sc->overrides)))
    return ms__errf(err, MS_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(set[i]) + 7;
    if (!(sc->overrides[i] = malloc(len)))
      return ms__errf(err, MS_ENOMEM, "out of memory");
    sc->noverrides = i + 1;
    snprintf(sc->overrides[i], len, "--set %s", set[i]);
    TRY(ms__cfg_override(&sc->cfg, set[i], sc->overrides[i], err));
  }
  return MS_OK;
}

int ms__scene_load(struct ms__scene *sc, const char *path, const char *text,
                   const char *dir, const char *const *overrides,
                   struct ms__err *err) {
  ms__memset(sc, 0, sizeof *sc);
  sc->path = strdup(path);
  if (!sc->path || (text && !(sc->text = strdup(text))))
    return ms__errf(err, MS_ENOMEM, "out of memory");
  if (text) TRY(ms__cfg_load_text(&sc->cfg, sc->path, text, dir, err));
  else TRY(ms__cfg_load(&sc->cfg, path, err));
  sc->loaded = 1;
  TRY(apply_overrides(sc, overrides, err));
  config_setting_t *root = config_root_setting(&sc->cfg);
  TRY(parse_scene(sc, root, err));
  TRY(parse_coupling(sc, root, err));
  TRY(parse_output(sc, root, err));
  TRY(parse_systems(sc, root, err));
  TRY(parse_surfaces(sc, root, err));
  /* Top-level keys: anything but the four sections is a typo. */
  for (int i = 0; i < config_setting_length(root); i++) {
    config_setting_t *c = config_setting_get_elem(root, (unsigned)i);
    char at[600];
    if (config_setting_get_hook(c)) continue;
    ms__cfg_at(c, at, sizeof at);
    return ms__errf(err, MS_ECONFIG, "%s: unknown top-level key '%s' "
                    "(expected scene, coupling, output, systems)", at,
                    config_setting_name(c));
  }
  return MS_OK;
}

void ms__scene_free(struct ms__scene *sc) {
  if (sc->loaded) config_destroy(&sc->cfg);
  free(sc->sys);
  free(sc->heat_src);
  free(sc->surface_sys);
  free(sc->path);
  free(sc->text);
  for (size_t i = 0; i < sc->noverrides; i++) free(sc->overrides[i]);
  free(sc->overrides);
  ms__memset(sc, 0, sizeof *sc);
}
