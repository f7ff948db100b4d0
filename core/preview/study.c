/* Studies: the summary of many runs of one scene (mergesplit sweep) --
 * one row per run read from its report, written as CSV and Markdown, and
 * a chart of one column against each varied key (ms_study_summary,
 * core.h). */
#include "preview.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <mergesplit/core.h>
#include <mergesplit/status.h>

#include "../io/io.h"

/* What a report says of a run, one column each; every column is a
 * number (NaN when the run failed or the report lacks it). */
enum { C_PEN, C_PEN_MAX, C_CROSS, C_SPEED, C_E0, C_E1, C_RISE, C_STEPS,
       C_MS, C_RATIO, NCOL };
static const struct {
  const char *name, *title, *unit;
  int timing; /* 1: wall-clock, differs from run to run */
} cols[NCOL] = {
    {"penetrations", "penetrations", "count", 0},
    {"max_penetrations", "max penetrations", "count", 0},
    {"crossings", "sheet crossings", "count", 0},
    {"max_speed", "max speed", "m/s", 0},
    {"energy_start", "energy at the start", "J", 0},
    {"energy_end", "energy at the end", "J", 0},
    {"energy_max_rise", "largest energy rise", "J", 0},
    {"steps", "steps", "count", 0},
    {"ms_per_step", "time per step", "ms", 1},
    {"stage_ratio", "stage 2 / stage 1", "ratio", 1},
};

static double phase_seconds(json_object *root, const char *name) {
  json_object *ph = ms__json_at(root, "timing.phases");
  for (size_t i = 0; ph && i < json_object_array_length(ph); i++) {
    json_object *e = json_object_array_get_idx(ph, i), *p = ms__json_at(e, "phase");
    if (p && !strcmp(json_object_get_string(p), name))
      return ms__json_num(ms__json_at(e, "seconds"));
  }
  return NAN;
}

/* The run's report, complete ("status": "ok" and its totals), or NULL
 * with why not. */
static json_object *read_report(const char *path, char *why, size_t len) {
  struct stat st;
  if (stat(path, &st)) {
    snprintf(why, len, "no report (%s)", strerror(errno));
    return NULL;
  }
  json_object *r = json_object_from_file(path), *s = ms__json_at(r, "status");
  const char *status = s ? json_object_get_string(s) : NULL;
  if (!r || !ms__json_at(r, "totals") || !status) {
    snprintf(why, len, "the report is incomplete (the run was stopped)");
  } else if (strcmp(status, "ok")) {
    snprintf(why, len, "%s", status);
  } else {
    return r;
  }
  json_object_put(r);
  return NULL;
}

int ms_report_complete(const char *report, const char *const *overrides,
                       char *why, size_t len) {
  char buf[512];
  if (!why || !len) why = buf, len = sizeof buf;
  json_object *r = read_report(report, why, len);
  if (!r) return 0;
  json_object *ov = ms__json_at(r, "overrides");
  size_t n = 0, m = ov ? json_object_array_length(ov) : 0;
  while (overrides && overrides[n]) n++;
  int same = ov && n == m;
  for (size_t i = 0; same && i < n; i++)
    same = !strcmp(json_object_get_string(json_object_array_get_idx(ov, i)),
                   overrides[i]);
  if (!same) snprintf(why, len, "the report is of other overrides");
  json_object_put(r);
  return same;
}

static void row_of(json_object *r, double *v) {
  /* a report older than passages through solids has none */
  json_object *solid = ms__json_at(r, "totals.penetration.through_solid");
  v[C_PEN] = ms__json_num(ms__json_at(r, "totals.penetration.through_sheet")) +
             (solid ? ms__json_num(solid) : 0.0) +
             ms__json_num(ms__json_at(r, "totals.penetration.inside_solid"));
  v[C_PEN_MAX] = ms__json_num(ms__json_at(r, "totals.penetration.max"));
  v[C_CROSS] = ms__json_num(ms__json_at(r, "totals.penetration.crossings"));
  v[C_SPEED] = ms__json_num(ms__json_at(r, "totals.max_speed"));
  v[C_E0] = ms__json_num(ms__json_at(r, "totals.energy.start"));
  v[C_E1] = ms__json_num(ms__json_at(r, "totals.energy.end"));
  v[C_RISE] = ms__json_num(ms__json_at(r, "totals.energy.max_rise"));
  v[C_STEPS] = ms__json_num(ms__json_at(r, "totals.steps"));
  v[C_MS] = 1e3 * ms__json_num(ms__json_at(r, "timing.total_seconds")) / v[C_STEPS];
  v[C_RATIO] = phase_seconds(r, "stage2") / phase_seconds(r, "stage1");
}

/* ---- tables ---------------------------------------------------------- */

struct table {
  const char *const *keys;
  size_t nkeys, n;
  const struct ms_study_variant *var;
  double (*v)[NCOL];
  char (*why)[512]; /* "" for a run that completed */
};

/* A CSV field: quoted when it holds a comma, quote or line break. */
static void csv_field(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\n\r")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* %.17g: the CSV holds the reports' numbers exactly. */
static void csv_num(FILE *f, double x) {
  if (isfinite(x)) fprintf(f, ",%.17g", x);
  else fputc(',', f);
}

static void write_csv(FILE *f, const struct table *t) {
  fputs("variant", f);
  for (size_t k = 0; k < t->nkeys; k++) fputc(',', f), csv_field(f, t->keys[k]);
  fputs(",status", f);
  for (int c = 0; c < NCOL; c++) fprintf(f, ",%s", cols[c].name);
  fputs(",error\n", f);
  for (size_t i = 0; i < t->n; i++) {
    csv_field(f, t->var[i].name);
    for (size_t k = 0; k < t->nkeys; k++)
      fputc(',', f), csv_field(f, t->var[i].values[k]);
    fputs(t->why[i][0] ? ",failed" : ",ok", f);
    for (int c = 0; c < NCOL; c++) csv_num(f, t->v[i][c]);
    fputc(',', f);
    csv_field(f, t->why[i]);
    fputc('\n', f);
  }
}

/* A Markdown cell: '|' escaped, line breaks as spaces. */
static void md_cell(FILE *f, const char *s) {
  fputc(' ', f);
  for (; *s; s++) {
    if (*s == '|') fputc('\\', f);
    fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
  }
  fputs(" |", f);
}

static void md_num(FILE *f, double x, int c) {
  char buf[64];
  if (!isfinite(x)) snprintf(buf, sizeof buf, "-");
  else if (c == C_PEN || c == C_PEN_MAX || c == C_CROSS || c == C_STEPS)
    snprintf(buf, sizeof buf, "%.0f", x);
  else snprintf(buf, sizeof buf, "%.4g", x);
  md_cell(f, buf);
}

static void write_md(FILE *f, const struct table *t) {
  fputs("| variant |", f);
  for (size_t k = 0; k < t->nkeys; k++) md_cell(f, t->keys[k]);
  fputs(" status |", f);
  for (int c = 0; c < NCOL; c++) md_cell(f, cols[c].title);
  fputs(" error |\n|---|", f);
  for (size_t k = 0; k < t->nkeys + 1 + NCOL + 1; k++) fputs("---|", f);
  fputc('\n', f);
  for (size_t i = 0; i < t->n; i++) {
    fputc('|', f);
    md_cell(f, t->var[i].name);
    for (size_t k = 0; k < t->nkeys; k++) md_cell(f, t->var[i].values[k]);
    md_cell(f, t->why[i][0] ? "failed" : "ok");
    for (int c = 0; c < NCOL; c++) md_num(f, t->v[i][c], c);
    md_cell(f, t->why[i]);
    fputc('\n', f);
  }
}

static int write_file(const char *dir, const char *name, const struct table *t,
                      void (*fill)(FILE *, const struct table *),
                      struct ms__err *err) {
  char path[4200];
  struct ms__afile a;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int rc = ms__afile_open(&a, path, err);
  if (rc) return rc;
  fill(a.f, t);
  return ms__afile_commit(&a, 0, err);
}

/* ---- charts: one column against each key --------------------------- */

static int is_number(const char *s, double *x) {
  char *end;
  *x = strtod(s, &end);
  return end != s && !*end && isfinite(*x);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Row i's values of every key but k, as one label ("0.5, paper"). */
static void others(const struct table *t, size_t i, size_t k, char *buf,
                   size_t len) {
  size_t n = 0;
  buf[0] = '\0';
  for (size_t j = 0; j < t->nkeys && n < len; j++)
    if (j != k)
      n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
                            t->var[i].values[j]);
  if (!buf[0]) snprintf(buf, len, "all runs");
  for (char *p = buf; *p; p++) /* the chart's numbers are JSON */
    if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20) *p = '\'';
}

/* Key k's distinct values: numbers sorted, else in order of first use
 * (then x is their index and the axis names them). */
static size_t key_values(const struct table *t, size_t k, double *x,
                         const char **name, int *numeric) {
  size_t m = 0;
  *numeric = 1;
  for (size_t i = 0; i < t->n; i++) {
    double v;
    *numeric = *numeric && is_number(t->var[i].values[k], &v);
  }
  for (size_t i = 0; i < t->n; i++) {
    const char *s = t->var[i].values[k];
    double v = 0.0;
    size_t j = 0;
    if (*numeric) is_number(s, &v);
    while (j < m && (*numeric ? x[j] != v : strcmp(name[j], s))) j++;
    if (j == m) x[m] = *numeric ? v : (double)m, name[m++] = s;
  }
  if (*numeric) qsort(x, m, sizeof *x, cmp_double);
  return m;
}

/* Chart of column c against key k: a line per combination of the other
 * keys' values (the mean over the runs that share it, e.g. seeds). */
static int chart_key(const struct table *t, size_t k, int c, const char *dir,
                     const struct ms_study_options *o, struct ms__err *err) {
  size_t n = t->n;
  double *x = malloc((n + 1) * sizeof *x);
  const char **name = malloc((n + 1) * sizeof *name);
  /* runs per (line, value), for the mean */
  size_t *cnt = calloc(MS__PLOT_SERIES * (n + 1), sizeof *cnt);
  char title[512], xlabel[300];
  size_t tl = (size_t)snprintf(title, sizeof title, "%s", cols[c].title);
  for (size_t j = 0, m = 0; j < t->nkeys && tl < sizeof title; j++)
    if (j != k)
      tl += (size_t)snprintf(title + tl, sizeof title - tl, "%s%s",
                             m++ ? ", " : ", a line per ", t->keys[j]);
  snprintf(xlabel, sizeof xlabel, "%s", t->keys[k]);
  struct ms__chart ch = {.title = title, .unit = cols[c].unit,
                         .xlabel = xlabel};
  int rc = x && cnt && name ? MS_OK
                            : ms__errf(err, MS_ENOMEM, "out of memory");
  int numeric = 1;
  if (!rc) ch.n = key_values(t, k, x, name, &numeric), ch.x = x;
  if (!numeric) ch.category = name;
  for (size_t i = 0; !rc && i < n; i++) {
    char label[64];
    others(t, i, k, label, sizeof label);
    int s = 0;
    while (s < ch.nseries && strcmp(ch.label[s], label)) s++;
    if (s == ch.nseries) {
      if (s == MS__PLOT_SERIES) continue; /* more are left out */
      if (!(ch.y[s] = calloc(ch.n + 1, sizeof(double)))) {
        rc = ms__errf(err, MS_ENOMEM, "out of memory");
        break;
      }
      ch.nseries++;
      ms__strlcpy(ch.label[s], label, sizeof ch.label[s]);
      ms__plot_color((uint32_t)s, ch.rgb[s]);
    }
    double v = 0.0;
    size_t j = 0;
    if (numeric) is_number(t->var[i].values[k], &v);
    while (numeric ? x[j] != v : strcmp(name[j], t->var[i].values[k])) j++;
    ch.y[s][j] += t->v[i][c];
    cnt[(size_t)s * (n + 1) + j]++;
  }
  for (int s = 0; !rc && s < ch.nseries; s++)
    for (size_t j = 0; j < ch.n; j++) {
      size_t m = cnt[(size_t)s * (n + 1) + j];
      ch.y[s][j] = m ? ch.y[s][j] / (double)m : NAN;
    }
  /* values over decades (masses, stiffnesses): a log axis */
  if (!rc && numeric && ch.n > 1 && x[0] > 0.0 && x[ch.n - 1] >= 100 * x[0]) {
    for (size_t j = 0; j < ch.n; j++) x[j] = log10(x[j]);
    snprintf(xlabel, sizeof xlabel, "log10 %s", t->keys[k]);
  }
  char file[4400], safe[256];
  size_t w = 0;
  for (const char *p = t->keys[k]; *p && w + 1 < sizeof safe; p++)
    safe[w++] = *p == '&' ? '+'
                : isalnum((unsigned char)*p) || strchr("._-", *p) ? *p : '_';
  safe[w] = '\0';
  snprintf(file, sizeof file, "%s/%s_vs_%s.png", dir, cols[c].name, safe);
  ch.name = cols[c].name;
  if (!rc)
    rc = ms__plot_write(file, &ch, o && o->width > 0 ? o->width : 900,
                        o && o->height > 0 ? o->height : 500, err);
  if (!rc && o && o->log) {
    char line[4500];
    snprintf(line, sizeof line, "wrote %s", file);
    o->log(o->log_opaque, MS_SINK_INFO, line);
  }
  for (int s = 0; s < ch.nseries; s++) free(ch.y[s]);
  free(x), free(cnt), free(name);
  return rc;
}

/* 1 when key k takes more than one value over the rows. */
static int varies(const struct table *t, size_t k) {
  for (size_t i = 1; i < t->n; i++)
    if (strcmp(t->var[0].values[k], t->var[i].values[k])) return 1;
  return 0;
}

static int column(const char *name) {
  for (int c = 0; c < NCOL; c++)
    if (!strcmp(cols[c].name, name)) return c;
  return -1;
}

int ms_study_summary(const char *const *keys, size_t nkeys,
                     const struct ms_study_variant *var, size_t n,
                     const struct ms_study_options *o, char *errbuf,
                     size_t errlen) {
  struct ms__err err = {0};
  struct table t = {keys, nkeys, n, var, calloc(n + 1, sizeof *t.v),
                    calloc(n + 1, sizeof *t.why)};
  const char *dir = o && o->out_dir ? o->out_dir : ".";
  const char *metric = o && o->metric ? o->metric : "penetrations";
  int c = column(metric), rc = MS_OK;
  char plots[4200];
  if (!t.v || !t.why) rc = ms__errf(&err, MS_ENOMEM, "out of memory");
  else if (c < 0)
    rc = ms__errf(&err, MS_EINVAL, "unknown metric '%s' (expected a column "
                  "of the summary: penetrations, max_speed, energy_end, "
                  "energy_max_rise, ms_per_step, ...)", metric);
  for (size_t i = 0; !rc && i < n; i++) {
    json_object *r = NULL;
    for (int k = 0; k < NCOL; k++) t.v[i][k] = NAN;
    if (var[i].error) ms__strlcpy(t.why[i], var[i].error, sizeof t.why[i]);
    else if ((r = read_report(var[i].report, t.why[i], sizeof t.why[i])))
      row_of(r, t.v[i]);
    json_object_put(r);
  }
  if (!rc) rc = write_file(dir, "summary.csv", &t, write_csv, &err);
  if (!rc) rc = write_file(dir, "summary.md", &t, write_md, &err);
  snprintf(plots, sizeof plots, "%s/plots", dir);
  if (!rc && nkeys && mkdir(plots, 0777) && errno != EEXIST)
    rc = ms__errf(&err, MS_EIO, "%s: cannot create the directory: %s", plots,
                  strerror(errno));
  for (size_t k = 0; !rc && k < nkeys; k++)
    if (varies(&t, k)) rc = chart_key(&t, k, c, plots, o, &err);
  if (rc && errbuf && errlen) ms__strlcpy(errbuf, err.msg, errlen);
  free(t.v);
  free(t.why);
  return rc;
}

int ms_study_metric_timing(const char *name) {
  int c = column(name);
  return c < 0 ? -1 : cols[c].timing;
}
