/* Bodies sampled from a shape: the keys (bodies.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "bodies.h"

int msc_pick3(const struct ms_host *h, ms_ctx *c, const ms_config *g,
              const char *key, const char *const *names, int def, int *out) {
  const char *v = NULL;
  int rc = h->cfg_string(c, g, key, NULL, &v);
  if (rc || !v) return *out = def, rc;
  for (int i = 0; i < 3; i++)
    if (!strcmp(v, names[i])) return *out = i, MS_OK;
  return h->cfg_error(c, g, key, "unknown value \"%s\" (expected \"%s\", "
                      "\"%s\" or \"%s\")", v, names[0], names[1], names[2]);
}

int msc_body_list(const struct ms_host *h, ms_ctx *c, const ms_config *sec,
                  const ms_config **list, uint32_t *count) {
  int rc = h->cfg_child(c, sec, "bodies", list);
  if (rc == MS_ENOENT) return *list = NULL, *count = 1, MS_OK;
  if (rc) return rc;
  *count = h->cfg_length(c, *list);
  if (*count < 1)
    return h->cfg_error(c, sec, "bodies", "holds no body (a list of "
                        "groups, each with a shape)");
  return MS_OK;
}

int msc_body_defaults(const struct ms_host *h, ms_ctx *c,
                      const ms_config *sec, struct msc_body *d) {
  int rc;
  if ((rc = ms_cfg_positive(h, c, sec, "spacing", NAN, &d->spacing)) ||
      (rc = ms_cfg_positive(h, c, sec, "radius", NAN, &d->radius)) ||
      (rc = ms_cfg_positive(h, c, sec, "density", NAN, &d->density)) ||
      (rc = h->cfg_double(c, sec, "temperature", NAN, &d->temperature)) ||
      (rc = ms_cfg_positive(h, c, sec, "specific_heat", NAN,
                            &d->specific_heat)))
    return rc;
  return MS_OK;
}

static int heat_keys(const struct ms_host *h, ms_ctx *c, const ms_config *g,
                     const struct msc_body *d, struct msc_body *k) {
  double t0 = isnan(d->temperature) ? MSC_DEFAULT_TEMPERATURE
                                    : d->temperature;
  double c0 = isnan(d->specific_heat) ? MSC_DEFAULT_SPECIFIC_HEAT
                                      : d->specific_heat;
  return msc_heat_keys(h, c, g, t0, c0, &k->temperature, &k->specific_heat);
}

void msc_body_lump_heat(size_t first, size_t count, const double *m,
                        const double *c, double *T) {
  double C = 0.0, Q = 0.0;
  for (size_t i = first; i < first + count; i++) {
    C += m[i] * c[i];
    Q += m[i] * c[i] * T[i];
  }
  if (!(C > 0.0)) return;
  for (size_t i = first; i < first + count; i++) T[i] = Q / C;
}

int msc_body_read(const struct ms_host *h, ms_ctx *c, const ms_config *g,
                  const struct msc_body *d, struct msc_body *k) {
  static const char *const motions[3] = {"dynamic", "fixed", "scripted"};
  static const double zero[3] = {0.0, 0.0, 0.0};
  int rc;
  *k = *d;
  k->group = g;
  if ((rc = h->cfg_child(c, g, "shape", &k->shape)) == MS_ENOENT)
    return h->cfg_error(c, g, "shape", "is required (a group: type = "
                        "\"box\" | \"sphere\" | \"points\" | ...)");
  if (rc || (rc = ms_cfg_positive(h, c, g, "spacing", d->spacing,
                                  &k->spacing)) ||
      (rc = ms_cfg_positive(h, c, g, "radius", d->radius, &k->radius)) ||
      (rc = ms_cfg_positive(h, c, g, "density", NAN, &k->density)) ||
      (rc = ms_cfg_positive(h, c, g, "mass", NAN, &k->mass)) ||
      (rc = h->cfg_vec3(c, g, "velocity", zero, k->vel)) ||
      (rc = h->cfg_vec3(c, g, "angular_velocity", zero, k->omega)) ||
      (rc = msc_pick3(h, c, g, "motion", motions, MSC_DYNAMIC, &k->motion)))
    return rc;
  if ((rc = heat_keys(h, c, g, d, k))) return rc;
  k->points = ms_shape_is_given(h, c, k->shape);
  if (isnan(k->spacing) && !(k->points && !isnan(k->radius)))
    return h->cfg_error(c, g, "spacing", "is required (or a points shape "
                        "and a radius)");
  if (isnan(k->radius)) k->radius = 0.5 * k->spacing;
  if (!isnan(k->mass) && !isnan(k->density))
    return h->cfg_error(c, g, "mass", "give either mass or density, not "
                        "both");
  if (isnan(k->density)) k->density = d->density;
  const struct ms_scene_info *info = h->scene(c);
  double scale = MS_SCENE_HAS(info, scale) ? info->scale : 1.0;
  if (scale != 1.0 && !k->points) {
    double f = cbrt(scale);
    k->spacing /= f, k->radius /= f;
  }
  return MS_OK;
}

int msc_body_sample(const struct ms_host *h, ms_ctx *c,
                    const struct msc_body *k, size_t least, const char *what,
                    struct ms_points *pts, double *mass) {
  double lattice = isnan(k->spacing) ? 2.0 * k->radius : k->spacing;
  int rc = h->sample_shape(c, k->shape, lattice, pts);
  if (rc) return rc;
  if (pts->count < least)
    return h->cfg_error(c, k->group, "shape", "holds %zu particle(s) at "
                        "spacing %g: %s needs at least %zu", pts->count,
                        lattice, what, least);
  double rho = isnan(k->density) ? 1000.0 : k->density;
  *mass = isnan(k->mass) ? rho * lattice * lattice * lattice *
                               (double)pts->count
                         : k->mass;
  return MS_OK;
}

int msc_bodies_sample(const struct ms_host *h, ms_ctx *c,
                      const ms_config *sec, const ms_config *list,
                      uint32_t count, size_t key_size, const void *def,
                      msc_body_reader read, void *ud, size_t least,
                      const char *what, struct msc_bodies *out) {
  memset(out, 0, sizeof *out);
  out->count = count;
  out->keys = calloc(count, key_size);
  out->pts = calloc(count, sizeof *out->pts);
  out->mass = calloc(count, sizeof *out->mass);
  if (!out->keys || !out->pts || !out->mass) return MS_ENOMEM;
  for (uint32_t b = 0; b < count; b++) {
    const ms_config *g = sec;
    void *key = (char *)out->keys + b * key_size;
    int rc;
    if ((list && (rc = h->cfg_index(c, list, b, &g))) ||
        (rc = read(ud, g, def, key)) ||
        (rc = msc_body_sample(h, c, (const struct msc_body *)key, least,
                              what, &out->pts[b], &out->mass[b])))
      return rc;
    out->total += out->pts[b].count;
  }
  return MS_OK;
}

void msc_bodies_free(const struct ms_host *h, struct msc_bodies *b) {
  for (uint32_t i = 0; b->pts && i < b->count; i++) h->free(b->pts[i].xyz);
  free(b->keys), free(b->pts), free(b->mass);
  memset(b, 0, sizeof *b);
}
