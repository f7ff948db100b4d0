/* The conformance kit: a battery of checks any plugin must pass.
 *
 * The plugin is instantiated from a scene (a built-in one by default), then
 * every check runs in a forked child, so a plugin that crashes, hangs in a
 * way that kills the child, or prints fails that check instead of taking
 * the kit down.  Checks talk to the plugin exactly as the step driver does
 * (plugin.h), with hand-built meta-particles.  This file: the driver and
 * the helpers the checks share; conformance_checks.c: the checks of one
 * instance; conformance_coupled.c: the coupled-contact check. */
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <mergesplit/plugin_util.h>

#include "conformance.h"
#include "../scene/scene.h"
#include "../step/step.h"

int ms__kit_fail(struct ms__verdict *v, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v->detail, sizeof v->detail, fmt, ap);
  va_end(ap);
  return v->passed = 0;
}

int ms__kit_pass(struct ms__verdict *v, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v->detail, sizeof v->detail, fmt, ap);
  va_end(ap);
  return v->passed = 1;
}

/* ---- state snapshots ------------------------------------------------- */

int ms__kit_blob_write(void *o, const void *data, size_t size) {
  struct ms__blob *b = o;
  if (b->n + size > b->cap) {
    size_t c = (b->n + size) * 2 + 256;
    unsigned char *q = realloc(b->p, c);
    if (!q) return MS_ENOMEM;
    b->p = q, b->cap = c;
  }
  ms__memcpy(b->p + b->n, data, size);
  b->n += size;
  return MS_OK;
}

int ms__kit_blob_read(void *o, void *data, size_t size) {
  struct ms__blob *b = o;
  if (b->pos + size > b->n) return MS_ESTATE;
  ms__memcpy(data, b->p + b->pos, size);
  b->pos += size;
  return MS_OK;
}

int ms__kit_save_state(struct ms__kit *K, ms_instance *inst,
                       struct ms__blob *b) {
  struct ms_stream s = {b, ms__kit_blob_write, ms__kit_blob_read};
  b->n = b->pos = 0;
  const struct ms_plugin *d = &K->y->plugin->desc;
  int rc = d->refresh ? d->refresh(inst) : MS_OK; /* as the core does */
  return rc ? rc : d->save(inst, &s);
}

/* The view of an instance and its position and velocity fields; -1 when
 * view() fails or either field is missing. */
int ms__kit_view_xv(ms_instance *inst, const struct ms_plugin *d,
                    struct ms_view *v, const struct ms_field **x,
                    const struct ms_field **u) {
  *v = (struct ms_view){.struct_size = sizeof *v};
  *x = *u = NULL;
  if (d->view(inst, v)) return -1;
  for (uint32_t f = 0; f < v->field_count; f++) {
    if (!strcmp(v->fields[f].name, "position")) *x = &v->fields[f];
    if (!strcmp(v->fields[f].name, "velocity")) *u = &v->fields[f];
  }
  return *x && *u ? 0 : -1;
}

/* Positions and velocities of a view, packed. */
double *ms__kit_snap_view(ms_instance *inst, const struct ms_plugin *d,
                          size_t *n) {
  struct ms_view v;
  const struct ms_field *x, *u;
  if (ms__kit_view_xv(inst, d, &v, &x, &u)) return NULL;
  double *s = malloc((6 * v.count + 1) * sizeof *s);
  for (size_t i = 0; s && i < v.count; i++) {
    ms__memcpy(s + 6 * i, (char *)x->data + i * x->stride, 3 * sizeof(double));
    ms__memcpy(s + 6 * i + 3, (char *)u->data + i * u->stride, 3 * sizeof(double));
  }
  *n = v.count;
  return s;
}

/* ---- meta-particles built by hand --------------------------------------- */


/* Is particle i held by the plugin (a "pinned" field, when the view has
 * one)?  Pinned members make a meta-particle constrained, which the
 * meta-particle checks must avoid. */
int ms__kit_pinned(const struct ms__system *y, size_t i) {
  for (uint32_t f = 0; f < y->view.field_count; f++) {
    const struct ms_field *fd = &y->view.fields[f];
    if (!strcmp(fd->name, "pinned") && fd->type == MS_TYPE_U8)
      return *((const uint8_t *)fd->data + i * fd->stride) != 0;
  }
  return 0;
}

/* Free (unpinned) particles of the system. */
uint32_t ms__kit_free_count(const struct ms__system *y) {
  uint32_t n = 0;
  for (size_t i = 0; i < y->view.count; i++) n += !ms__kit_pinned(y, i);
  return n;
}

/* One meta-particle of the first k free particles with `foreign` extra
 * mass (k = 0: no meta-particle at all). */
void ms__kit_make_meta(struct ms__kit *K, struct ms__kit_metas *M, uint32_t k,
                       double foreign) {
  struct ms__system *y = K->y;
  ms__memset(M, 0, sizeof *M);
  M->member = malloc((k ? k : 1) * sizeof *M->member);
  M->off[0] = 0, M->off[1] = k;
  for (uint32_t i = 0, p = 0; i < k; i++, p++) {
    while (ms__kit_pinned(y, p)) p++;
    double m = *ms__at(&y->m, p);
    M->member[i] = p;
    M->own += m;
    for (int a = 0; a < 3; a++) {
      M->pos[a] += m * ms__at(&y->x, p)[a];
      M->vel[a] += m * ms__at(&y->v, p)[a];
    }
  }
  if (k) {
    for (int a = 0; a < 3; a++) M->pos[a] /= M->own, M->vel[a] /= M->own;
  }
  M->mass = M->own + foreign;
  ms_sym3_scalar(M->inertia, M->mass);
  M->in = (struct ms_metas){sizeof M->in, k ? 1 : 0, M->off, M->member,
                            &M->mass, &M->own, M->pos, M->vel, M->inertia};
  M->out = (struct ms_meta_result){sizeof M->out, k ? 1 : 0, M->rv, M->rd,
                                   &M->con};
}

int ms__kit_step_with(struct ms__kit *K, ms_instance *inst,
                      struct ms__kit_metas *M, const double *fext,
                      int do_begin) {
  const struct ms_plugin *d = &K->y->plugin->desc;
  struct ms_step st = {sizeof st, 1, 0, 0.0, K->dt, fext};
  int rc = do_begin ? d->begin_step(inst, &st) : MS_OK;
  return rc ? rc : d->integrate(inst, &st, &M->in, &M->out);
}

/* ---- driver ------------------------------------------------------------ */

static const struct {
  const char *name;
  int (*fn)(struct ms__kit *, struct ms__verdict *);
} checks[] = {
    {"descriptor", ms__kit_check_descriptor},
    {"max_dt", ms__kit_check_max_dt},
    {"create_destroy", ms__kit_check_create_destroy},
    {"rewind", ms__kit_check_rewind},
    {"save_load", ms__kit_check_save_load},
    {"meta_rigid", ms__kit_check_meta_rigid},
    {"meta_momentum", ms__kit_check_meta_momentum},
    {"bad_config", ms__kit_check_bad_config},
    {"write_w1", ms__kit_check_write_w1},
    {"write_w2", ms__kit_check_write_w2},
    {"write_w3", ms__kit_check_write_w3},
    {"coupled_contact", ms__kit_check_coupled},
    {"silent", ms__kit_check_silent},
};

/* Run one check in a child; a crash or a timeout is a failure. */
static void run_isolated(struct ms__kit *K, int c, struct ms__verdict *v) {
  int p[2];
  if (pipe(p)) {
    ms__kit_fail(v, "pipe() failed");
    return;
  }
  fflush(stdout), fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    close(p[0]);
    alarm(120);
    struct ms__verdict r = {0};
    checks[c].fn(K, &r);
    ssize_t w = write(p[1], &r, sizeof r);
    _exit(w == (ssize_t)sizeof r ? 0 : 1);
  }
  close(p[1]);
  ssize_t got = pid > 0 ? read(p[0], v, sizeof *v) : -1;
  close(p[0]);
  int status = 0;
  if (pid > 0) waitpid(pid, &status, 0);
  if (got != (ssize_t)sizeof *v) {
    if (pid > 0 && WIFSIGNALED(status))
      ms__kit_fail(v, "the plugin crashed (signal %d: %s)", WTERMSIG(status),
                   strsignal(WTERMSIG(status)));
    else
      ms__kit_fail(v, "the check did not complete");
  }
}

/* The kit's own scenes, tried in turn when the author gives none: a small
 * box of the usual `shape` and `spacing` keys, then a system of no keys
 * at all (the plugin's defaults). */
static const char *const builtin_scene[] = {
    "scene = { duration = 1.0; fps = 100.0; seed = 3;\n"
    "  gravity = [0.0, -9.81, 0.0]; };\n"
    "coupling = { method = \"none\"; };\n"
    "systems = ( { name = \"under_test\"; solver = \"%s\";\n"
    "  shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
    "            max = [0.1, 0.1, 0.1]; };\n"
    "  spacing = 0.025; } );\n",
    "scene = { duration = 1.0; fps = 100.0; seed = 3;\n"
    "  gravity = [0.0, -9.81, 0.0]; };\n"
    "coupling = { method = \"none\"; };\n"
    "systems = ( { name = \"under_test\"; solver = \"%s\"; } );\n",
};

/* Replace every occurrence of `from` in s by `to`, in place. */
static void replace_all(char *s, size_t cap, const char *from, const char *to) {
  char out[1200];
  size_t n = 0, lf = strlen(from);
  for (const char *p = s; *p && n + 1 < sizeof out;) {
    if (lf && !strncmp(p, from, lf)) {
      n += (size_t)snprintf(out + n, sizeof out - n, "%s", to);
      p += lf;
    } else {
      out[n++] = *p++;
    }
  }
  out[n < sizeof out ? n : sizeof out - 1] = '\0';
  snprintf(s, cap, "%s", out);
}

/* Open the simulation the kit runs in: the author's scene, or the first
 * built-in one the plugin accepts.  Errors name the author's file, or the
 * built-in scenes and how to give one's own. */
static int open_scene(const char *plugin_id, const char *user_path,
                      const struct ms_sim_options *o, ms_sim **S, char *err,
                      size_t errlen) {
  if (user_path) return ms_sim_open(user_path, o, S, err, errlen);
  char first[1200] = "";
  int rc = MS_EIO;
  for (size_t k = 0; k < sizeof builtin_scene / sizeof *builtin_scene; k++) {
    char path[] = "/tmp/ms-conformance-scene-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
      snprintf(err, errlen, "cannot write the built-in scene to /tmp");
      return MS_EIO;
    }
    fprintf(f, builtin_scene[k], plugin_id);
    fclose(f);
    rc = ms_sim_open(path, o, S, err, errlen);
    unlink(path);
    if (!rc) return MS_OK;
    replace_all(err, errlen, path, k ? "built-in scene 2 (no keys)"
                                     : "built-in scene 1 (shape, spacing)");
    if (!k) snprintf(first, sizeof first, "%s", err);
  }
  char last[1200];
  snprintf(last, sizeof last, "%s", err);
  replace_all(last, sizeof last, "built-in scene 2 (no keys)",
              "built-in scene 1 (shape, spacing)");
  if (!strcmp(first, last)) /* the same complaint twice: say it once */
    snprintf(err, errlen, "solver '%s' refuses both built-in scenes: %s; "
             "give a scene of your own with --scene FILE", plugin_id, first);
  else
    snprintf(err, errlen, "solver '%s' refuses both built-in scenes (%s; %s);"
             " give a scene of your own with --scene FILE", plugin_id, first,
             last);
  return rc;
}

int ms_conformance_run(const char *plugin_id,
                       const struct ms_conformance_options *opt,
                       ms_conformance_fn report, void *opaque, char *err,
                       size_t errlen) {
  const char *path = opt && opt->scene_path ? opt->scene_path : NULL;
  ms_registry *reg;
  int rc = ms_registry_open(opt ? opt->plugin_paths : NULL, &reg);
  if (rc) {
    snprintf(err, errlen, "scanning plugins: %s", ms_strerror(rc));
    return rc;
  }
  int found = ms__registry_find(reg, plugin_id) != NULL;
  if (!found) ms__registry_missing(reg, plugin_id, err, errlen);
  ms_registry_close(reg);
  if (!found) return MS_ENOENT;
#ifdef _OPENMP
  omp_set_num_threads(1); /* no thread pool in the parent: children fork */
#endif
  struct ms_sim_options o = {.struct_size = sizeof o,
                             .threads = 1,
                             .no_output = 1,
                             .log = ms__kit_quiet,
                             .plugin_paths = opt ? opt->plugin_paths : NULL};
  struct ms__kit K = {0};
  if ((rc = open_scene(plugin_id, path, &o, &K.S, err, errlen))) return rc;
  for (uint32_t s = 0; s < K.S->nsys && !K.y; s++) {
    struct ms__system *y = &K.S->sys[s];
    int named = opt && opt->system_name;
    if (named ? !strcmp(y->desc->name, opt->system_name)
              : !strcmp(y->plugin->desc.id, plugin_id))
      K.y = y;
  }
  if (!K.y || strcmp(K.y->plugin->desc.id, plugin_id)) {
    snprintf(err, errlen, "%s: no system of solver '%s'%s%s",
             path ? path : "built-in scene", plugin_id,
             opt && opt->system_name ? " named " : "",
             opt && opt->system_name ? opt->system_name : "");
    ms_sim_close(K.S);
    return MS_ENOENT;
  }
  double maxdt = INFINITY;
  if (K.y->plugin->desc.max_dt) K.y->plugin->desc.max_dt(K.y->inst, &maxdt);
  K.dt = maxdt > 0.0 && maxdt < 2e-4 ? 0.5 * maxdt : 1e-4;
  int failed = 0;
  for (size_t c = 0; c < sizeof checks / sizeof *checks; c++) {
    struct ms__verdict v = {0};
    run_isolated(&K, (int)c, &v);
    failed += !v.passed;
    report(opaque, checks[c].name, v.passed, v.detail);
  }
  ms_sim_close(K.S);
  return failed;
}
