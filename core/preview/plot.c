/* `mergesplit plot`: charts of a run's report (ms_plot, core.h).  What is
 * plotted, read from the report with json-c; plot_draw.c draws. */
#include "preview.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <mergesplit/core.h>
#include <mergesplit/status.h>

enum { ON_FRAME, PER_SYSTEM, TOTAL_XYZ, PHASES };

/* One chart: a value per frame at each path (a dotted path into the
 * frame's object; a vector counts by its length), or one series per
 * system of a path into each system's entry, or the three components of
 * a vector summed over the systems, or the report's time per phase. */
struct def {
  const char *name, *title, *unit;
  int kind;
  const char *path[5], *label[5];
};

static const struct def defs[] = {
    {"energy", "Energy of the scene", "J", ON_FRAME,
     {"energy.total", "energy.kinetic", "energy.potential", "energy.internal"},
     {"total", "kinetic", "gravitational", "internal"}},
    {"energy_systems", "Energy of each system (kinetic + gravitational + "
     "internal)", "J", PER_SYSTEM, {"energy.total"}, {0}},
    {"momentum", "Momentum of the scene (sum over the systems)", "kg m/s",
     TOTAL_XYZ, {"momentum"}, {"x", "y", "z"}},
    {"momentum_systems", "Momentum of each system (length)", "kg m/s",
     PER_SYSTEM, {"momentum"}, {0}},
    {"contacts", "Contacts", "count", ON_FRAME,
     {"metas", "penetration.through_sheet", "penetration.through_solid",
      "penetration.inside_solid", "penetration.crossings"},
     {"meta-particles", "through a sheet", "through a solid",
      "inside a solid", "sheet crossings"}},
    {"meta_sizes", "Meta-particle sizes", "particles", ON_FRAME,
     {"meta_size_mean", "meta_size_weighted", "meta_size_max"},
     {"mean", "per merged particle", "largest"}},
    {"ledger", "Merge-split energy ledger (per frame)", "J", ON_FRAME,
     {"ledger.stored", "ledger.restored", "ledger.dissipated",
      "ledger.contact_energy"},
     {"stored", "restored", "dissipated", "contact impulses"}},
    {"timing", "Time per phase (the whole run)", "s", PHASES, {0}, {0}},
};

/* preview.h */
json_object *ms__json_at(json_object *o, const char *path) {
  char key[64];
  while (o && *path) {
    size_t n = strcspn(path, ".");
    if (n >= sizeof key) return NULL;
    ms__memcpy(key, path, n);
    key[n] = '\0';
    if (!json_object_is_type(o, json_type_object) ||
        !json_object_object_get_ex(o, key, &o))
      return NULL;
    path += n + (path[n] == '.');
  }
  return o;
}

/* A number; a vector's length; NaN for null or nothing. */
/* preview.h */
double ms__json_num(json_object *o) {
  if (!o) return NAN;
  if (json_object_is_type(o, json_type_double) ||
      json_object_is_type(o, json_type_int))
    return json_object_get_double(o);
  if (json_object_is_type(o, json_type_array)) {
    double s = 0.0;
    for (size_t k = 0; k < json_object_array_length(o); k++) {
      double v = ms__json_num(json_object_array_get_idx(o, k));
      s += v * v;
    }
    return sqrt(s);
  }
  return NAN;
}

struct report {
  json_object *root, *frames;
  size_t n;
  double *t;
};

static int add_series(struct ms__chart *c, const char *label) {
  if (c->nseries == MS__PLOT_SERIES) return 0; /* more are left out */
  int s = c->nseries++;
  ms__strlcpy(c->label[s], label, sizeof c->label[s]);
  ms__plot_color((uint32_t)s, c->rgb[s]);
  c->y[s] = malloc((c->n + 1) * sizeof(double));
  return c->y[s] ? 1 : -1;
}

static json_object *frame(const struct report *r, size_t i) {
  return json_object_array_get_idx(r->frames, i);
}

static int fill(struct ms__chart *c, const struct def *d,
                const struct report *r) {
  json_object *sys0 = ms__json_at(frame(r, 0), "systems");
  size_t ns = sys0 ? json_object_array_length(sys0) : 0;
  int got;
  for (int k = 0; d->kind == ON_FRAME && k < 5 && d->path[k]; k++) {
    if ((got = add_series(c, d->label[k])) <= 0) return got;
    for (size_t i = 0; i < r->n; i++)
      c->y[k][i] = ms__json_num(ms__json_at(frame(r, i), d->path[k]));
  }
  for (int k = 0; d->kind == TOTAL_XYZ && k < 3; k++) {
    if ((got = add_series(c, d->label[k])) <= 0) return got;
    for (size_t i = 0; i < r->n; i++) {
      json_object *sy = ms__json_at(frame(r, i), "systems");
      double s = 0.0;
      for (size_t j = 0; sy && j < json_object_array_length(sy); j++)
        s += ms__json_num(json_object_array_get_idx(
            ms__json_at(json_object_array_get_idx(sy, j), d->path[0]), (size_t)k));
      c->y[k][i] = s;
    }
  }
  for (size_t j = 0; d->kind == PER_SYSTEM && j < ns; j++) {
    json_object *nm = ms__json_at(json_object_array_get_idx(sys0, j), "name");
    if ((got = add_series(c, nm ? json_object_get_string(nm) : "?")) <= 0)
      return got;
    for (size_t i = 0; i < r->n; i++)
      c->y[c->nseries - 1][i] = ms__json_num(ms__json_at(
          json_object_array_get_idx(ms__json_at(frame(r, i), "systems"), j),
          d->path[0]));
  }
  return 0;
}

/* The bars of the time per phase: x = 0, 1, ..., named by phase. */
static int phases(struct ms__chart *c, const struct report *r, double **x,
                  const char ***names) {
  json_object *ph = ms__json_at(r->root, "timing.phases");
  size_t n = ph ? json_object_array_length(ph) : 0;
  *x = malloc((n + 1) * sizeof **x);
  *names = malloc((n + 1) * sizeof **names);
  c->n = n, c->bars = 1, c->x = *x, c->category = *names;
  if (!*x || !*names || add_series(c, "seconds") < 0) return -1;
  for (size_t i = 0; i < n; i++) {
    json_object *e = json_object_array_get_idx(ph, i), *p = ms__json_at(e, "phase");
    (*x)[i] = (double)i;
    (*names)[i] = p ? json_object_get_string(p) : "?";
    c->y[0][i] = ms__json_num(ms__json_at(e, "seconds"));
  }
  return 0;
}

static int one_chart(const struct def *d, const struct report *r,
                     const char *dir, const struct ms_plot_options *o,
                     struct ms__err *err) {
  struct ms__chart c = {.name = d->name, .title = d->title, .unit = d->unit,
                        .xlabel = "time [s]", .n = r->n, .x = r->t};
  double *bx = NULL;
  const char **names = NULL;
  if (d->kind == PHASES) c.xlabel = "phase";
  int bad = d->kind == PHASES ? phases(&c, r, &bx, &names) : fill(&c, d, r);
  int rc = bad ? ms__errf(err, MS_ENOMEM, "out of memory") : MS_OK;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.png", dir, d->name);
  if (!rc)
    rc = ms__plot_write(path, &c, o && o->width > 0 ? o->width : 900,
                        o && o->height > 0 ? o->height : 500, err);
  if (!rc && o && o->log) {
    char line[4200];
    snprintf(line, sizeof line, "wrote %s", path);
    o->log(o->log_opaque, MS_SINK_INFO, line);
  }
  for (int s = 0; s < c.nseries; s++) free(c.y[s]);
  free(bx);
  free(names);
  return rc;
}

static int open_report(const char *path, struct report *r,
                       struct ms__err *err) {
  ms__memset(r, 0, sizeof *r);
  r->root = json_object_from_file(path);
  json_object *fmt = ms__json_at(r->root, "format");
  if (!r->root)
    return ms__errf(err, MS_EIO, "%s: cannot read the report: %s", path,
                    json_util_get_last_err() ? json_util_get_last_err()
                                             : "not JSON");
  if (!fmt || strcmp(json_object_get_string(fmt), "mergesplit-report"))
    return ms__errf(err, MS_EIO, "%s: not a mergesplit report (the "
                    "JSON of mergesplit run --report)", path);
  r->frames = ms__json_at(r->root, "frames");
  r->n = r->frames && json_object_is_type(r->frames, json_type_array)
             ? json_object_array_length(r->frames) : 0;
  if (r->n == 0)
    return ms__errf(err, MS_EIO, "%s: the report holds no frames", path);
  if (!(r->t = malloc(r->n * sizeof *r->t)))
    return ms__errf(err, MS_ENOMEM, "out of memory");
  for (size_t i = 0; i < r->n; i++) r->t[i] = ms__json_num(ms__json_at(frame(r, i), "time"));
  return MS_OK;
}

int ms_plot(const char *report, const struct ms_plot_options *o, char *errbuf,
            size_t errlen) {
  struct ms__err err = {0};
  struct report r;
  char dir[4096];
  int rc = open_report(report, &r, &err);
  if (o && o->out_dir)
    snprintf(dir, sizeof dir, "%s", o->out_dir);
  else {
    size_t n = strlen(report);
    if (n > 5 && !strcmp(report + n - 5, ".json")) n -= 5;
    snprintf(dir, sizeof dir, "%.*s_plots", (int)n, report);
  }
  if (!rc && mkdir(dir, 0777) && errno != EEXIST)
    rc = ms__errf(&err, MS_EIO, "%s: cannot create the directory: %s", dir,
                  strerror(errno));
  for (size_t d = 0; !rc && d < sizeof defs / sizeof *defs; d++)
    rc = one_chart(&defs[d], &r, dir, o, &err);
  if (rc && errbuf && errlen) ms__strlcpy(errbuf, err.msg, errlen);
  json_object_put(r.root);
  free(r.t);
  return rc;
}
