/* Lattice sampling of simple shapes. */
#include "scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/status.h>

#include "../base/base.h"
#include "../io/io.h"

#define MAX_POINTS ((size_t)1 << 31)

struct shape {
  int type;
  double c[3], axis[3], lo[3], hi[3];
  double radius, height, major, minor, thickness;
  double shift[3];  /* centred shapes: the lattice's offset [spacings] */
  int hemisphere;
  const char *file; /* mesh: as written, relative to its scene file */
  double xf[12];    /* mesh: scale, then rotate, then translate */
  int surface;      /* mesh: sample the surface, not the volume */
};

enum { BOX, SPHERE, CYLINDER, TORUS, SHELL, POINTS, MESH, FRAME };
#define SHAPE_NAMES \
  "box, sphere, cylinder, torus, shell, points, mesh or frame"

static int positive(struct ms__err *err, const config_setting_t *g,
                    const char *key, double def, double *out) {
  int rc = ms__cfg_double(g, key, def, out, err);
  if (rc) return rc;
  if (!(*out > 0.0))
    return ms__cfg_fail(err, g, key, "must be > 0 (got %g)", *out);
  return MS_OK;
}

static int need_vec3(struct ms__err *err, const config_setting_t *g,
                     const char *key, double *out) {
  int rc = ms__cfg_vec3(g, key, NULL, out, err);
  if (rc == MS_ENOENT) return ms__cfg_fail(err, g, key, "is required");
  return rc;
}

static int read_axis(struct ms__err *err, const config_setting_t *g,
                     double *ax) {
  static const double up[3] = {0.0, 1.0, 0.0};
  int rc = ms__cfg_vec3(g, "axis", up, ax, err);
  if (rc) return rc;
  double l = sqrt(ms__norm2(ax));
  if (!(l > 0.0)) return ms__cfg_fail(err, g, "axis", "must not be zero");
  ax[0] /= l, ax[1] /= l, ax[2] /= l;
  return MS_OK;
}

/* scale (a factor), then rotate = [rx, ry, rz] (degrees about x, then y,
 * then z), then translate. */
static int parse_mesh(const config_setting_t *g, struct shape *s,
                      struct ms__err *err) {
  static const double zero[3] = {0.0, 0.0, 0.0};
  double sc, r[3], t[3];
  int rc;
  s->type = MESH;
  if ((rc = ms__cfg_string(g, "file", NULL, &s->file, err))) return rc;
  if (!s->file || !*s->file)
    return ms__cfg_fail(err, g, "file", "is required (an OBJ, STL or PLY "
                        "file, relative to the scene file)");
  if ((rc = positive(err, g, "scale", 1.0, &sc)) ||
      (rc = ms__cfg_vec3(g, "rotate", zero, r, err)) ||
      (rc = ms__cfg_vec3(g, "translate", zero, t, err)) ||
      (rc = ms__cfg_bool(g, "surface", 0, &s->surface, err)))
    return rc;
  const double d = 3.14159265358979323846 / 180.0;
  double cx = cos(r[0] * d), sx = sin(r[0] * d), cy = cos(r[1] * d),
         sy = sin(r[1] * d), cz = cos(r[2] * d), sz = sin(r[2] * d);
  double R[9] = {cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx,
                 sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx,
                 -sy,     cy * sx,                cy * cx};
  for (int i = 0; i < 9; i++) s->xf[i] = R[i] * sc;
  ms__copy3(s->xf + 9, t);
  return MS_OK;
}

static int parse(const config_setting_t *g, struct shape *s,
                 struct ms__err *err) {
  const char *type;
  int rc;
  ms__memset(s, 0, sizeof *s);
  if ((rc = ms__cfg_string(g, "type", NULL, &type, err))) return rc;
  if (!type)
    return ms__cfg_fail(err, g, "type", "is required (" SHAPE_NAMES ")");
  static const char *const names[] = {"box", "sphere", "cylinder", "torus",
                                      "shell", "points", "mesh", "frame"};
  int known = 0;
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    known |= !strcmp(type, names[i]);
  if (!known)
    return ms__cfg_fail(err, g, "type", "unknown shape '%s' (expected "
                        SHAPE_NAMES ")", type);
  if (!strcmp(type, "mesh")) return parse_mesh(g, s, err);
  if (!strcmp(type, "frame")) {
    s->type = FRAME;
    if ((rc = ms__cfg_string(g, "file", NULL, &s->file, err))) return rc;
    if (!s->file || !*s->file)
      return ms__cfg_fail(err, g, "file", "is required (a frame file a run "
                          "wrote, e.g. \"out/water_000040.vtp\", relative to "
                          "the scene file)");
    return MS_OK;
  }
  if (!strcmp(type, "box")) {
    s->type = BOX;
    if ((rc = need_vec3(err, g, "min", s->lo)) ||
        (rc = need_vec3(err, g, "max", s->hi)))
      return rc;
    for (int a = 0; a < 3; a++)
      if (!(s->lo[a] <= s->hi[a]))
        return ms__cfg_fail(err, g, "max", "must not be below min");
    return MS_OK;
  }
  if (!strcmp(type, "points")) {
    s->type = POINTS;
    return MS_OK;
  }
  if ((rc = need_vec3(err, g, "center", s->c))) return rc;
  /* the lattice through the centre, or shifted from it: a sampled ball
   * whose centre is a lattice point has one particle at its pole, on
   * which it balances; shifted by half a spacing it has a face */
  static const double zero[3] = {0.0, 0.0, 0.0};
  if ((rc = ms__cfg_vec3(g, "lattice_shift", zero, s->shift, err))) return rc;
  for (int a = 0; a < 3; a++)
    if (!(s->shift[a] >= 0.0 && s->shift[a] < 1.0))
      return ms__cfg_fail(err, g, "lattice_shift", "must be in [0, 1) on "
                          "each axis, a fraction of the spacing (got %g)",
                          s->shift[a]);
  if (!strcmp(type, "sphere")) {
    s->type = SPHERE;
    return positive(err, g, "radius", 0.0, &s->radius);
  }
  if (!strcmp(type, "cylinder")) {
    s->type = CYLINDER;
    if ((rc = positive(err, g, "radius", 0.0, &s->radius)) ||
        (rc = positive(err, g, "height", 0.0, &s->height)))
      return rc;
    return read_axis(err, g, s->axis);
  }
  if (!strcmp(type, "torus")) {
    s->type = TORUS;
    if ((rc = positive(err, g, "major_radius", 0.0, &s->major)) ||
        (rc = positive(err, g, "minor_radius", 0.0, &s->minor)))
      return rc;
    return read_axis(err, g, s->axis);
  }
  if (!strcmp(type, "shell")) {
    s->type = SHELL;
    if ((rc = positive(err, g, "radius", 0.0, &s->radius)) ||
        (rc = positive(err, g, "thickness", 0.0, &s->thickness)) ||
        (rc = ms__cfg_bool(g, "hemisphere", 1, &s->hemisphere, err)))
      return rc;
    if (s->thickness > s->radius)
      return ms__cfg_fail(err, g, "thickness", "must not exceed radius");
    return read_axis(err, g, s->axis);
  }
  return ms__cfg_fail(err, g, "type", "unknown shape '%s' (expected "
                      SHAPE_NAMES ")", type);
}

/* Is p (relative to the centre) inside?  eps absorbs rounding so lattice
 * points exactly on the surface count as inside. */
static int inside(const struct shape *s, const double *p, double eps) {
  double r2 = ms__norm2(p), a, rho2;
  switch (s->type) {
  case SPHERE:
    return r2 <= s->radius * s->radius + eps;
  case CYLINDER:
    a = ms__dot(p, s->axis);
    rho2 = r2 - a * a;
    return fabs(a) <= 0.5 * s->height + eps && rho2 <= s->radius * s->radius + eps;
  case TORUS: {
    a = ms__dot(p, s->axis);
    double rho = sqrt(fmax(r2 - a * a, 0.0)) - s->major;
    return rho * rho + a * a <= s->minor * s->minor + eps;
  }
  case SHELL: {
    double ri = s->radius - s->thickness;
    if (r2 > s->radius * s->radius + eps || r2 < ri * ri - eps) return 0;
    return !s->hemisphere || ms__dot(p, s->axis) <= eps;
  }
  }
  return 0;
}

static double bound(const struct shape *s) {
  switch (s->type) {
  case CYLINDER:
    return sqrt(s->radius * s->radius + 0.25 * s->height * s->height);
  case TORUS:
    return s->major + s->minor;
  default:
    return s->radius;
  }
}

/* The volume a lattice shape holds, for the particle estimate. */
static double volume(const struct shape *s) {
  const double pi = 3.14159265358979323846;
  switch (s->type) {
  case SPHERE:
    return 4.0 / 3.0 * pi * s->radius * s->radius * s->radius;
  case CYLINDER:
    return pi * s->radius * s->radius * s->height;
  case TORUS:
    return 2.0 * pi * pi * s->major * s->minor * s->minor;
  case SHELL: {
    double ri = s->radius - s->thickness;
    double v = 4.0 / 3.0 * pi * (s->radius * s->radius * s->radius -
                                 ri * ri * ri);
    return s->hemisphere ? 0.5 * v : v;
  }
  }
  return 0.0;
}

/* Refused before anything is allocated: a scale of 1e6 or a radius of
 * 1e308 would otherwise fill the memory, or loop for hours, first. */
static int too_many(struct ms__err *err, const config_setting_t *g,
                    double estimate, size_t max) {
  if (estimate <= 0.0) /* counted while sampling: stopped at max + 1 */
    return ms__cfg_fail(err, g, NULL, "holds more than the %zu particles "
                        "left of the run's limit (raise the spacing, lower "
                        "scene.scale, or raise --max-particles)", max);
  return ms__cfg_fail(err, g, NULL, "would hold about %.3g particles, more "
                      "than the %zu left of the run's limit (raise the "
                      "spacing, lower scene.scale, or raise --max-particles)",
                      estimate, max);
}

static int push(double **xyz, size_t *n, size_t *cap, const double *p) {
  if (*n == *cap) {
    size_t c = *cap ? 2 * *cap : 1024;
    if (c > MAX_POINTS || ms__grow((void **)xyz, c, 3 * sizeof(double)))
      return MS_ENOMEM;
    *cap = c;
  }
  ms__copy3(*xyz + 3 * *n, p);
  (*n)++;
  return MS_OK;
}

static int sample_points(const config_setting_t *g, double **xyz, size_t *n,
                         size_t max, struct ms__err *err) {
  config_setting_t *l = ms__cfg_get(g, "points");
  size_t cap = 0;
  if (!l || !config_setting_is_list(l) || config_setting_length(l) < 1)
    return ms__cfg_fail(err, g, "points",
                        "must be a non-empty list ( [x, y, z], ... )");
  if ((size_t)config_setting_length(l) > max)
    return too_many(err, g, config_setting_length(l), max);
  for (int i = 0; i < config_setting_length(l); i++) {
    double p[3];
    config_setting_t *e = config_setting_get_elem(l, (unsigned)i);
    int rc = ms__cfg_vec3(e, NULL, NULL, p, err);
    if (rc) return rc;
    if ((rc = push(xyz, n, &cap, p))) return ms__errf(err, rc, "out of memory");
  }
  return MS_OK;
}

static int sample_box(const struct shape *s, double h, double **xyz,
                      size_t *n, size_t max, struct ms__err *err,
                      const config_setting_t *g) {
  size_t cnt[3], cap;
  double start[3];
  for (int a = 0; a < 3; a++) {
    double ext = s->hi[a] - s->lo[a];
    double f = floor(ext / h + 1e-9);
    cnt[a] = f < 1.0 ? 1 : (size_t)f;
    start[a] = s->lo[a] + 0.5 * (ext - (double)(cnt[a] - 1) * h);
  }
  double total = (double)cnt[0] * (double)cnt[1] * (double)cnt[2];
  if (total > (double)max) return too_many(err, g, total, max);
  cap = (size_t)total;
  if (ms__grow((void **)xyz, cap, 3 * sizeof(double)))
    return ms__errf(err, MS_ENOMEM, "out of memory");
  for (size_t i = 0; i < cnt[0]; i++)
    for (size_t j = 0; j < cnt[1]; j++)
      for (size_t k = 0; k < cnt[2]; k++) {
        double *p = *xyz + 3 * (*n)++;
        p[0] = start[0] + (double)i * h;
        p[1] = start[1] + (double)j * h;
        p[2] = start[2] + (double)k * h;
      }
  return MS_OK;
}

static int sample_lattice(const struct shape *s, double h, double **xyz,
                          size_t *n, size_t max, struct ms__err *err,
                          const config_setting_t *g) {
  /* the estimate is only a quick refusal of what is far beyond the
   * limit (a small ball's lattice holds fewer points than its volume
   * says); the count below is exact */
  double estimate = volume(s) / (h * h * h);
  if (!(estimate <= 2.0 * (double)max)) return too_many(err, g, estimate, max);
  double B = bound(s);
  double kmax = ceil(B / h);
  double side = 2.0 * kmax + 1.0;
  if (side * side * side > 8.0 * (double)MAX_POINTS)
    return ms__cfg_fail(err, g, NULL, "is too large for the spacing %g", h);
  long K = (long)kmax;
  size_t cap = 0;
  double eps = 1e-9 * h * h;
  const double *f = s->shift;
  for (long i = -K - 1; i <= K; i++)
    for (long j = -K - 1; j <= K; j++)
      for (long k = -K - 1; k <= K; k++) {
        double d[3] = {((double)i + f[0]) * h, ((double)j + f[1]) * h,
                       ((double)k + f[2]) * h};
        if (!inside(s, d, eps)) continue;
        if (*n == max) return too_many(err, g, 0.0, max);
        double p[3] = {s->c[0] + d[0], s->c[1] + d[1], s->c[2] + d[2]};
        if (push(xyz, n, &cap, p))
          return ms__errf(err, MS_ENOMEM, "out of memory");
      }
  return MS_OK;
}

/* A shape's file (a mesh, a frame), relative to the scene file the
 * shape is written in. */
static void scene_relative(const config_setting_t *g, const char *file,
                           char *buf, size_t len) {
  const char *src = config_setting_source_file(g);
  const char *slash = src ? strrchr(src, '/') : NULL;
  if (file[0] == '/' || !slash)
    snprintf(buf, len, "%s", file);
  else
    snprintf(buf, len, "%.*s/%s", (int)(slash - src), src, file);
}

/* A fill needs an inside: a closed mesh (small holes are bridged by the
 * winding number) that holds a volume. */
static int mesh_usable(const struct shape *s, const struct ms__mesh *m,
                       const char *path, struct ms__err *err,
                       const config_setting_t *g) {
  double ext = 0.0;
  for (int a = 0; a < 3; a++) ext = fmax(ext, m->hi[a] - m->lo[a]);
  if (!(m->area > 1e-12 * ext * ext))
    return ms__cfg_fail(err, g, "file", "%s: degenerate: its triangles have "
                        "no area", path);
  if (s->surface) return MS_OK;
  if (m->open > 0.05)
    return ms__cfg_fail(err, g, "file", "%s: not closed (about %.0f %% of "
                        "its surface is missing); a fill needs a closed mesh "
                        "-- or set surface = true", path, 100.0 * m->open);
  if (!(fabs(m->volume) > 1e-9 * ext * ext * ext))
    return ms__cfg_fail(err, g, "file", "%s: degenerate: it encloses no "
                        "volume", path);
  return MS_OK;
}

static int sample_mesh(const struct shape *s, double h, double **xyz,
                       size_t *n, size_t max, struct ms__err *err,
                       const config_setting_t *g) {
  char path[4096], why[512];
  struct ms__mesh m;
  scene_relative(g, s->file, path, sizeof path);
  int rc = ms__mesh_read(path, s->xf, &m, why, sizeof why);
  if (rc) return ms__cfg_fail(err, g, "file", "%s: %s", path, why);
  rc = mesh_usable(s, &m, path, err, g);
  double cells = 1.0;
  for (int a = 0; a < 3; a++) cells *= (m.hi[a] - m.lo[a]) / h + 3.0;
  if (!rc && !s->surface && !(cells <= 8.0 * (double)MAX_POINTS))
    rc = ms__cfg_fail(err, g, NULL, "is too large for the spacing %g", h);
  double estimate = s->surface ? m.area / (h * h) : fabs(m.volume) / (h * h * h);
  if (!rc && !(estimate <= 2.0 * (double)max))
    rc = too_many(err, g, estimate, max);
  if (!rc) {
    rc = s->surface ? ms__mesh_surface(&m, h, max, xyz, n)
                    : ms__mesh_fill(&m, h, max, xyz, n);
    if (rc == MS_ERANGE) rc = too_many(err, g, 0.0, max);
    else if (rc) rc = ms__errf(err, rc, "out of memory");
  }
  ms__mesh_free(&m);
  return rc;
}

/* The reader's line (it names the file) after the scene's file:line. */
static int frame_read(const char *path, struct ms__vtp *v,
                      struct ms__err *err, const config_setting_t *g) {
  struct ms__err e = {0};
  if (ms__vtp_read(path, v, &e) == MS_OK) return MS_OK;
  return ms__cfg_fail(err, g, "file", "%s", e.msg);
}

/* A frame file a run wrote: its particles' positions, as stored. */
static int sample_frame(const struct shape *s, double **xyz, size_t *n,
                        size_t max, struct ms__err *err,
                        const config_setting_t *g) {
  char path[4096];
  struct ms__vtp v;
  scene_relative(g, s->file, path, sizeof path);
  int rc = frame_read(path, &v, err, g);
  if (rc) return rc;
  const struct ms__vtp_array *a = &v.a[0];
  if (v.n > max) rc = too_many(err, g, (double)v.n, max);
  else if (ms__grow((void **)xyz, v.n ? v.n : 1, 3 * sizeof(double)))
    rc = ms__errf(err, MS_ENOMEM, "out of memory");
  for (size_t i = 0; !rc && i < v.n; i++, (*n)++)
    for (int c = 0; c < 3 && !rc; c++)
      if (!isfinite((*xyz)[3 * i + c] = ms__vtp_value(a, i, c)))
        rc = ms__cfg_fail(err, g, "file", "%s: particle %zu's position is "
                          "not finite", path, i);
  ms__vtp_free(&v);
  return rc;
}

int ms__shape_field(const config_setting_t *g, const char *name, size_t count,
                    uint32_t comps, double *out, struct ms__err *err) {
  struct shape s;
  struct ms__err quiet = {0};
  if (!g || !config_setting_is_group(g) || parse(g, &s, &quiet) ||
      s.type != FRAME)
    return MS_ENOENT;
  char path[4096];
  struct ms__vtp v;
  scene_relative(g, s.file, path, sizeof path);
  int rc = frame_read(path, &v, err, g);
  if (rc) return rc;
  const struct ms__vtp_array *a = ms__vtp_find(&v, name);
  if (!a)
    rc = MS_ENOENT;
  else if (a->comps != comps)
    rc = ms__cfg_fail(err, g, "file", "%s: the field '%s' has %u "
                      "components, not %u", path, name, a->comps, comps);
  else if (v.n != count)
    rc = ms__cfg_fail(err, g, "file", "%s: holds %zu particles now, not "
                      "the %zu sampled", path, v.n, count);
  for (size_t i = 0; !rc && i < count; i++)
    for (uint32_t c = 0; c < comps; c++)
      out[comps * i + c] = ms__vtp_value(a, i, (int)c);
  ms__vtp_free(&v);
  return rc;
}

int ms__shape_sample(const config_setting_t *g, double spacing, size_t max,
                     struct ms__rng *rng, double **xyz, size_t *n,
                     struct ms__err *err) {
  struct shape s;
  double jitter;
  int rc;
  *xyz = NULL;
  *n = 0;
  if (!g || !config_setting_is_group(g))
    return g ? ms__cfg_fail(err, g, NULL, "a shape must be a group { type = "
                            "...; ... }")
             : ms__errf(err, MS_ECONFIG, "no shape given");
  if ((rc = parse(g, &s, err)) ||
      (rc = ms__cfg_double(g, "jitter", 0.0, &jitter, err)))
    return rc;
  if (!(jitter >= 0.0 && jitter < 0.5))
    return ms__cfg_fail(err, g, "jitter", "must be in [0, 0.5) (got %g)",
                        jitter);
  if (s.type == FRAME && jitter > 0.0)
    return ms__cfg_fail(err, g, "jitter", "a frame's particles are taken "
                        "where they were: no jitter");
  if (s.type != POINTS && s.type != FRAME &&
      !(spacing > 0.0 && isfinite(spacing)))
    return ms__errf(err, MS_ECONFIG, "spacing must be > 0 (got %g)", spacing);
  if (max > MAX_POINTS) max = MAX_POINTS;
  if (s.type == POINTS)
    rc = sample_points(g, xyz, n, max, err);
  else if (s.type == BOX)
    rc = sample_box(&s, spacing, xyz, n, max, err, g);
  else if (s.type == MESH)
    rc = sample_mesh(&s, spacing, xyz, n, max, err, g);
  else if (s.type == FRAME)
    rc = sample_frame(&s, xyz, n, max, err, g);
  else
    rc = sample_lattice(&s, spacing, xyz, n, max, err, g);
  if (rc == MS_OK && *n == 0)
    rc = ms__cfg_fail(err, g, NULL, "holds no particle at spacing %g", spacing);
  if (rc == MS_OK && jitter > 0.0)
    for (size_t i = 0; i < 3 * *n; i++)
      (*xyz)[i] += spacing * jitter * (2.0 * ms__rng_uniform(rng) - 1.0);
  if (rc) {
    free(*xyz);
    *xyz = NULL;
    *n = 0;
  }
  return rc;
}
