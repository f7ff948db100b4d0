/* Scene-test helpers. */
#include "simtest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/detection/detection.h"
#include "../../core/run/run.h"
#include "../../core/step/step.h"

static void quiet_log(void *opaque, int level, const char *line) {
  (void)opaque;
  if (level <= MS_SINK_WARN) fprintf(stderr, "# %s\n", line);
}

static ms_sim *open_path(const char *path, int threads, int64_t frames,
                         const char *const *overrides) {
  struct ms_sim_options o = {.struct_size = sizeof o, .threads = threads,
                             .frames = frames, .no_output = 1,
                             .verbosity = MS_SINK_WARN, .log = quiet_log,
                             .overrides = overrides};
  char err[2048];
  ms_sim *S = NULL;
  int rc = ms_sim_open(path, &o, &S, err, sizeof err);
  ck_assert_msg(rc == 0, "opening %s: %s", path, err);
  return S;
}

/* Write text to a new temporary file; its name into path (a copy of
 * "/tmp/ms-scene-XXXXXX"). */
static void write_temp(const char *text, char *path) {
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
}

ms_sim *st_open_text(const char *text, int threads) {
  char path[] = "/tmp/ms-scene-XXXXXX";
  write_temp(text, path);
  ms_sim *S = open_path(path, threads, 0, NULL);
  unlink(path);
  return S;
}

static void silent_log(void *opaque, int level, const char *line) {
  (void)opaque, (void)level, (void)line;
}

int st_try_text(const char *text, char *err, size_t len, ms_sim **out) {
  char path[] = "/tmp/ms-scene-XXXXXX";
  write_temp(text, path);
  struct ms_sim_options o = {.struct_size = sizeof o, .threads = 1,
                             .no_output = 1, .log = silent_log};
  ms_sim *S = NULL;
  err[0] = 0;
  int rc = ms_sim_open(path, &o, &S, err, len);
  unlink(path);
  if (out)
    *out = S;
  else if (S)
    ms_sim_close(S);
  return rc;
}

int st_try_fixture_text(const char *text, ms_sim **out, char *err,
                        size_t len) {
  char path[] = "/tmp/ms-scene-XXXXXX";
  write_temp(text, path);
  const char *dirs[] = {getenv("MS_FIXTURES"), NULL};
  struct ms_sim_options o = {.struct_size = sizeof o, .threads = 1,
                             .no_output = 1, .plugin_paths = dirs,
                             .log = silent_log};
  err[0] = 0;
  *out = NULL;
  int rc = ms_sim_open(path, &o, out, err, len);
  unlink(path);
  return rc;
}

ms_sim *st_open_fixture_text(const char *text) {
  char err[1024];
  ms_sim *S;
  ck_assert_msg(st_try_fixture_text(text, &S, err, sizeof err) == 0, "%s",
                err);
  return S;
}

ms_sim *st_open_file(const char *name, int threads, int64_t frames) {
  return st_open_file_with(name, threads, frames, NULL);
}

ms_sim *st_open_file_with(const char *name, int threads, int64_t frames,
                          const char *const *overrides) {
  char path[4096];
  const char *dir = getenv("MS_CONFIGS");
  if (name[0] == '/' || !dir)
    snprintf(path, sizeof path, "%s", name);
  else
    snprintf(path, sizeof path, "%s/%s", dir, name);
  return open_path(path, threads, frames, overrides);
}

struct ms__system *st_system(ms_sim *S, const char *name) {
  for (uint32_t i = 0; i < S->nsys; i++)
    if (!strcmp(S->sys[i].desc->name, name)) return &S->sys[i];
  ck_abort_msg("no system '%s'", name);
  return NULL;
}

void st_step(ms_sim *S) {
  double t_end = (double)(S->frame + 1) / S->scene.fps;
  if (t_end - S->stepper.time <= 1e-9 / S->scene.fps) {
    S->frame++;
    t_end = (double)(S->frame + 1) / S->scene.fps;
  }
  int rc = ms__step(&S->stepper, t_end);
  ck_assert_msg(rc == 0, "step %llu: %s", (unsigned long long)S->stepper.step,
                ms_sim_error(S));
}

void st_metrics(ms_sim *S, struct ms_metrics *m) {
  struct ms__counts run = S->run_counts;
  ms__counts_add(&S->run_counts, &S->stepper.frame_counts);
  m->struct_size = sizeof *m;
  ck_assert_int_eq(ms_sim_metrics(S, m), 0);
  S->run_counts = run;
}

double st_max_overlap(ms_sim *S) {
  size_t n = 0;
  for (uint32_t s = 0; s < S->nsys; s++) n += S->sys[s].view.count;
  double *x = malloc(3 * n * sizeof *x), *r = malloc(n * sizeof *r);
  uint32_t *sys = malloc(n * sizeof *sys), *loc = malloc(n * sizeof *loc);
  size_t g = 0;
  for (uint32_t s = 0; s < S->nsys; s++)
    for (size_t i = 0; i < S->sys[s].view.count; i++, g++) {
      memcpy(x + 3 * g, ms__at(&S->sys[s].x, i), 3 * sizeof(double));
      r[g] = *ms__at(&S->sys[s].r, i);
      sys[g] = s;
      loc[g] = (uint32_t)i;
    }
  struct ms__detect d;
  ms__detect_init(&d);
  struct ms__detect_input in = {n, x, r, sys, S->stepper.self, 0.0, 0.0};
  size_t bad;
  ck_assert_int_eq(ms__detect_pairs(&d, &in, &bad), 0);
  double worst = 0.0;
  for (size_t k = 0; k < d.npairs; k++) {
    uint32_t i = d.pairs[2 * k], j = d.pairs[2 * k + 1];
    if (sys[i] == sys[j] && S->sys[sys[i]].plugin->desc.filter_pairs) {
      uint32_t lp[2] = {loc[i], loc[j]};
      uint8_t keep = 1;
      S->sys[sys[i]].plugin->desc.filter_pairs(S->sys[sys[i]].inst, lp, 1, &keep);
      if (!keep) continue;
    }
    double dd = 0;
    for (int a = 0; a < 3; a++) {
      double e = x[3 * j + a] - x[3 * i + a];
      dd += e * e;
    }
    double ov = (r[i] + r[j] - sqrt(dd)) / fmin(r[i], r[j]);
    if (ov > worst) worst = ov;
  }
  ms__detect_free(&d);
  free(x), free(r), free(sys), free(loc);
  return worst;
}

double st_max_speed(ms_sim *S) {
  double vmax = 0.0;
  for (uint32_t s = 0; s < S->nsys; s++)
    for (size_t i = 0; i < S->sys[s].view.count; i++) {
      const double *v = ms__at(&S->sys[s].v, i), *x = ms__at(&S->sys[s].x, i);
      double sp = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      if (!isfinite(sp) || !isfinite(x[0] + x[1] + x[2])) return NAN;
      vmax = fmax(vmax, sp);
    }
  return vmax;
}

void st_totals(ms_sim *S, double *p, double *ke) {
  p[0] = p[1] = p[2] = *ke = 0.0;
  for (uint32_t s = 0; s < S->nsys; s++) {
    double ps[3], ks;
    ms__system_totals(S, s, ps, &ks);
    for (int a = 0; a < 3; a++) p[a] += ps[a];
    *ke += ks;
  }
}

void st_close(ms_sim *S) { ms_sim_close(S); }

double st_energy_rise(ms_sim *S, double *end) {
  while (ms_sim_frames_done(S) < ms_sim_frames_total(S))
    ck_assert_msg(ms_sim_frame(S) == 0, "%s", ms_sim_error(S));
  struct ms_metrics m = {.struct_size = sizeof m};
  ck_assert_int_eq(ms_sim_metrics(S, &m), 0);
  ck_assert(m.energy_complete);
  if (end) *end = m.energy_end / m.energy_start;
  ms_sim_close(S);
  return m.energy_max_rise / m.energy_scale;
}

static int by_value(const void *a, const void *b) {
  double s = *(const double *)a, t = *(const double *)b;
  return (s > t) - (s < t);
}

double *st_masses(ms_sim *S, size_t *n) {
  size_t k = 0;
  for (uint32_t s = 0; s < S->nsys; s++) k += S->sys[s].view.count;
  double *m = malloc((k ? k : 1) * sizeof *m);
  k = 0;
  for (uint32_t s = 0; s < S->nsys; s++)
    for (size_t i = 0; i < S->sys[s].view.count; i++)
      m[k++] = *ms__at(&S->sys[s].m, i);
  qsort(m, k, sizeof *m, by_value);
  *n = k;
  return m;
}

static ms_sim *open_resume(const char *path, const char *resume) {
  char err[1024];
  struct ms_sim_options o = {.struct_size = sizeof o, .threads = 1,
                             .no_output = 1, .resume_path = resume,
                             .verbosity = MS_SINK_ERROR, .log = quiet_log};
  ms_sim *S = NULL;
  ck_assert_msg(ms_sim_open(path, &o, &S, err, sizeof err) == 0, "%s", err);
  return S;
}

void st_resume_pair(const char *text, int frames, ms_sim **A, ms_sim **C) {
  char scene[] = "/tmp/ms-scene-XXXXXX", ck[] = "/tmp/ms-ckpt-XXXXXX";
  write_temp(text, scene);
  int fd = mkstemp(ck);
  ck_assert_int_ge(fd, 0);
  close(fd);
  *A = open_resume(scene, NULL);
  ck_assert_int_eq(ms_sim_run(*A), 0);
  ms_sim *B = open_resume(scene, NULL);
  for (int f = 0; f < frames; f++) ck_assert_int_eq(ms_sim_frame(B), 0);
  ck_assert_int_eq(ms_sim_checkpoint(B, ck), 0);
  st_close(B);
  *C = open_resume(scene, ck);
  unlink(ck), unlink(scene);
  ck_assert_int_eq(ms_sim_run(*C), 0);
}
