/* The conformance kit: a battery of checks any plugin must pass.
 *
 * The plugin is instantiated from a scene (a built-in one by default), then
 * every check runs in a forked child, so a plugin that crashes, hangs in a
 * way that kills the child, or prints fails that check instead of taking
 * the kit down.  Checks talk to the plugin exactly as the step driver does
 * (plugin.h), with hand-built meta-particles. */
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

#include "loader.h"
#include "settings.h"
#include "sim.h"
#include "step.h"

struct kit {
  ms_sim *S;
  struct ms__system *y;
  double dt;
};

struct verdict {
  int passed;
  char detail[480];
};

static int fail(struct verdict *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int fail(struct verdict *v, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v->detail, sizeof v->detail, fmt, ap);
  va_end(ap);
  return v->passed = 0;
}

static int pass(struct verdict *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int pass(struct verdict *v, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v->detail, sizeof v->detail, fmt, ap);
  va_end(ap);
  return v->passed = 1;
}

/* ---- state snapshots ------------------------------------------------- */

struct blob {
  unsigned char *p;
  size_t n, cap, pos;
};

static int blob_write(void *o, const void *data, size_t size) {
  struct blob *b = o;
  if (b->n + size > b->cap) {
    size_t c = (b->n + size) * 2 + 256;
    unsigned char *q = realloc(b->p, c);
    if (!q) return MS_ENOMEM;
    b->p = q, b->cap = c;
  }
  memcpy(b->p + b->n, data, size);
  b->n += size;
  return MS_OK;
}

static int blob_read(void *o, void *data, size_t size) {
  struct blob *b = o;
  if (b->pos + size > b->n) return MS_ESTATE;
  memcpy(data, b->p + b->pos, size);
  b->pos += size;
  return MS_OK;
}

static int save_state(struct kit *K, ms_instance *inst, struct blob *b) {
  struct ms_stream s = {b, blob_write, blob_read};
  b->n = b->pos = 0;
  return K->y->plugin->desc.save(inst, &s);
}

/* The view of an instance and its position and velocity fields; -1 when
 * view() fails or either field is missing. */
static int view_xv(ms_instance *inst, const struct ms_plugin *d,
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
static double *snap_view(ms_instance *inst, const struct ms_plugin *d,
                         size_t *n) {
  struct ms_view v;
  const struct ms_field *x, *u;
  if (view_xv(inst, d, &v, &x, &u)) return NULL;
  double *s = malloc((6 * v.count + 1) * sizeof *s);
  for (size_t i = 0; s && i < v.count; i++) {
    memcpy(s + 6 * i, (char *)x->data + i * x->stride, 3 * sizeof(double));
    memcpy(s + 6 * i + 3, (char *)u->data + i * u->stride, 3 * sizeof(double));
  }
  *n = v.count;
  return s;
}

/* ---- meta-particles built by hand --------------------------------------- */

struct metas {
  uint32_t off[2], *member;
  double mass, own, pos[3], vel[3], rv[3], rd[3], inertia[6];
  uint8_t con;
  struct ms_metas in;
  struct ms_meta_result out;
};

/* Is particle i held by the plugin (a "pinned" field, when the view has
 * one)?  Pinned members make a meta-particle constrained, which the
 * meta-particle checks must avoid. */
static int pinned(const struct ms__system *y, size_t i) {
  for (uint32_t f = 0; f < y->view.field_count; f++) {
    const struct ms_field *fd = &y->view.fields[f];
    if (!strcmp(fd->name, "pinned") && fd->type == MS_TYPE_U8)
      return *((const uint8_t *)fd->data + i * fd->stride) != 0;
  }
  return 0;
}

/* Free (unpinned) particles of the system. */
static uint32_t free_count(const struct ms__system *y) {
  uint32_t n = 0;
  for (size_t i = 0; i < y->view.count; i++) n += !pinned(y, i);
  return n;
}

/* One meta-particle of the first k free particles with `foreign` extra
 * mass (k = 0: no meta-particle at all). */
static void make_meta(struct kit *K, struct metas *M, uint32_t k,
                      double foreign) {
  struct ms__system *y = K->y;
  memset(M, 0, sizeof *M);
  M->member = malloc((k ? k : 1) * sizeof *M->member);
  M->off[0] = 0, M->off[1] = k;
  for (uint32_t i = 0, p = 0; i < k; i++, p++) {
    while (pinned(y, p)) p++;
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

static int step_with(struct kit *K, ms_instance *inst, struct metas *M,
                     const double *fext, int do_begin) {
  const struct ms_plugin *d = &K->y->plugin->desc;
  struct ms_step st = {sizeof st, 1, 0, 0.0, K->dt, fext};
  int rc = do_begin ? d->begin_step(inst, &st) : MS_OK;
  return rc ? rc : d->integrate(inst, &st, &M->in, &M->out);
}

/* ---- the checks ----------------------------------------------------------- */

static int check_descriptor(struct kit *K, struct verdict *v) {
  const struct ms_plugin *d = &K->y->plugin->desc;
  char why[512];
  if (ms__plugin_validate(d, why, sizeof why)) return fail(v, "%s", why);
  if (!d->license || !*d->license) return fail(v, "license is missing");
  if (!d->description || !*d->description)
    return fail(v, "description is missing");
  if (d->flags & ~(uint32_t)(MS_PLUGIN_SELF_COLLISION |
                             MS_PLUGIN_INERTIA_TENSOR |
                             MS_PLUGIN_META_OWN_MASS))
    return fail(v, "unknown flag bits 0x%x", d->flags);
  if (d->reserved0) return fail(v, "reserved0 is not 0");
  return pass(v, "%s %s (%s), ABI %u.%u, %s", d->id, d->version,
              K->y->plugin->path, d->abi_major, d->abi_minor, d->license);
}

static int check_max_dt(struct kit *K, struct verdict *v) {
  const struct ms_plugin *d = &K->y->plugin->desc;
  if (!d->max_dt) return pass(v, "no limit of its own (max_dt is NULL)");
  double dt = INFINITY;
  int rc = d->max_dt(K->y->inst, &dt);
  if (rc) return fail(v, "max_dt() returned %s", ms_status_name(rc));
  if (!(dt > 0.0)) return fail(v, "max_dt() gave %g", dt);
  return pass(v, "max dt %g s", dt);
}

static int check_create_destroy(struct kit *K, struct verdict *v) {
  struct ms__system *y = K->y;
  const struct ms_plugin *d = &y->plugin->desc;
  const ms_config *sec = (const ms_config *)y->desc->section;
  size_t before = 0;
  /* glibc keeps up to 7 freed chunks per size class in a per-thread cache
   * that still counts as in use: measure after 10 warm-up cycles. */
  for (int k = 0; k < 30; k++) {
    ms_instance *inst = NULL;
    if (k == 10) before = mallinfo2().uordblks;
    int rc = d->create(&ms__host, &y->ctx, sec, &inst);
    if (rc) return fail(v, "create() failed on cycle %d: %s", k, y->ctx.err.msg);
    d->destroy(inst);
  }
  long grew = (long)mallinfo2().uordblks - (long)before;
  if (grew > 1024)
    return fail(v, "the heap grew by %ld bytes over 20 create/destroy cycles",
                grew);
  return pass(v, "20 create/destroy cycles, heap change %ld bytes", grew);
}

static int check_rewind(struct kit *K, struct verdict *v) {
  ms_instance *inst = K->y->inst;
  const struct ms_plugin *d = &K->y->plugin->desc;
  struct blob a = {0}, b = {0};
  struct metas M;
  size_t n, n1;
  double *s0 = snap_view(inst, d, &n), *s1, *s2;
  int rc;
  if (d->save && (rc = save_state(K, inst, &a)))
    return fail(v, "save() failed: %s", ms_status_name(rc));
  uint32_t nf = free_count(K->y);
  make_meta(K, &M, nf < 3 ? nf : 3, 0.5);
  if ((rc = step_with(K, inst, &M, NULL, 1)))
    return fail(v, "begin_step/integrate failed: %s", K->y->ctx.err.msg);
  s1 = snap_view(inst, d, &n1);
  if ((rc = d->rewind(inst))) return fail(v, "rewind() failed: %s", ms_status_name(rc));
  s2 = snap_view(inst, d, &n1);
  if (n1 != n || memcmp(s0, s2, 6 * n * sizeof *s0))
    return fail(v, "positions/velocities after rewind differ from the start "
                "of the step");
  if (d->save && (rc = save_state(K, inst, &b)))
    return fail(v, "save() after rewind failed: %s", ms_status_name(rc));
  if (d->save && (a.n != b.n || memcmp(a.p, b.p, a.n)))
    return fail(v, "saved state after rewind differs from the start of the "
                "step (%zu vs %zu bytes)", a.n, b.n);
  if ((rc = step_with(K, inst, &M, NULL, 0)))
    return fail(v, "integrate after rewind failed: %s", K->y->ctx.err.msg);
  free(s2);
  s2 = snap_view(inst, d, &n1);
  if (memcmp(s1, s2, 6 * n * sizeof *s1))
    return fail(v, "integrating again after rewind gives another result");
  return pass(v, "state restored bitwise%s; re-integration identical",
              d->save ? " (views and saved state)" : " (views; no save())");
}

static int check_save_load(struct kit *K, struct verdict *v) {
  struct ms__system *y = K->y;
  const struct ms_plugin *d = &y->plugin->desc;
  struct blob a = {0}, b = {0};
  struct metas M;
  ms_instance *fresh = NULL;
  size_t n, m;
  int rc;
  if (!d->save || !d->load) return fail(v, "save/load not provided");
  make_meta(K, &M, 0, 0.0); /* move the state away from the initial one */
  if ((rc = step_with(K, y->inst, &M, NULL, 1)) ||
      (rc = d->end_step(y->inst, &(struct ms_step){sizeof(struct ms_step), 1,
                                                   0, 0.0, K->dt, NULL})))
    return fail(v, "a step failed: %s", y->ctx.err.msg);
  if ((rc = save_state(K, y->inst, &a)))
    return fail(v, "save() failed: %s", ms_status_name(rc));
  if ((rc = d->create(&ms__host, &y->ctx, (const ms_config *)y->desc->section,
                      &fresh)))
    return fail(v, "create() failed: %s", y->ctx.err.msg);
  struct ms_stream in = {&a, blob_write, blob_read};
  if ((rc = d->load(fresh, &in)))
    return fail(v, "load() failed: %s", ms_status_name(rc));
  if ((rc = save_state(K, fresh, &b)))
    return fail(v, "save() after load failed: %s", ms_status_name(rc));
  double *s0 = snap_view(y->inst, d, &n), *s1 = snap_view(fresh, d, &m);
  if (n != m || memcmp(s0, s1, 6 * n * sizeof *s0))
    return fail(v, "positions/velocities differ after save -> load");
  if (a.n != b.n || memcmp(a.p, b.p, a.n))
    return fail(v, "save -> load -> save gives other bytes (%zu vs %zu)", a.n,
                b.n);
  d->destroy(fresh);
  return pass(v, "%zu bytes round-trip bitwise", a.n);
}

static int check_meta_rigid(struct kit *K, struct verdict *v) {
  ms_instance *inst = K->y->inst;
  const struct ms_plugin *d = &K->y->plugin->desc;
  struct metas M;
  size_t n;
  double *s0 = snap_view(inst, d, &n);
  uint32_t nf = free_count(K->y);
  if (nf < 2) return fail(v, "needs at least 2 free particles (has %u)", nf);
  uint32_t k = nf < 4 ? nf : 4;
  make_meta(K, &M, k, 1.5 * 1.0);
  int rc = step_with(K, inst, &M, NULL, 1);
  if (rc) return fail(v, "begin_step/integrate failed: %s", K->y->ctx.err.msg);
  double *s1 = snap_view(inst, d, &n);
  for (uint32_t q = 0; q < k; q++) {
    size_t i = M.member[q];
    for (int a = 0; a < 3; a++) {
      double dx = s1[6 * i + a] - s0[6 * i + a];
      if (s1[6 * i + 3 + a] != M.rv[a])
        return fail(v, "member %zu: velocity %.17g, reported %.17g", i,
                    s1[6 * i + 3 + a], M.rv[a]);
      if (s1[6 * i + a] != s0[6 * i + a] + M.rd[a])
        return fail(v, "member %zu moved by %.17g, reported %.17g", i, dx,
                    M.rd[a]);
    }
  }
  return pass(v, "%u members moved by the reported displacement", k);
}

/* The same force on a meta-particle holding every particle, once with no
 * foreign mass and once with foreign mass equal to its own: a plugin that
 * treats the meta-particle with its whole mass changes the velocity half
 * as much the second time (internal forces cancel inside it). */
static int check_meta_momentum(struct kit *K, struct verdict *v) {
  struct ms__system *y = K->y;
  const struct ms_plugin *d = &y->plugin->desc;
  size_t n = y->view.count;
  double *F = calloc(3 * n, sizeof *F), dv[2][3];
  struct metas M;
  for (size_t i = 0; i < n; i++) {
    double m = *ms__at(&y->m, i);
    F[3 * i] = 2.0 * m, F[3 * i + 1] = -1.0 * m, F[3 * i + 2] = 0.5 * m;
  }
  for (int run = 0; run < 2; run++) {
    make_meta(K, &M, free_count(y), 0.0);
    M.mass = M.own * (run ? 2.0 : 1.0);
    int rc = step_with(K, y->inst, &M, F, 1);
    if (rc) return fail(v, "integrate failed: %s", y->ctx.err.msg);
    if (M.con) return fail(v, "the meta-particle was reported constrained; "
                           "use a scene where it moves freely");
    for (int a = 0; a < 3; a++) dv[run][a] = M.rv[a] - M.vel[a];
    if ((rc = d->rewind(y->inst))) return fail(v, "rewind failed");
  }
  /* gravity acts on both alike: subtract it through the difference */
  const double *g = y->ctx.info.gravity;
  double worst = 0.0;
  for (int a = 0; a < 3; a++) {
    double fa = a == 0 ? 2.0 : a == 1 ? -1.0 : 0.5; /* per unit own mass */
    double want = K->dt * fa * 0.5;  /* F/M_own - F/(2 M_own) */
    double got = (dv[0][a] - K->dt * g[a]) - (dv[1][a] - K->dt * g[a]);
    worst = fmax(worst, fabs(got - want) / (K->dt * 2.0));
  }
  if (worst > 1e-2)
    return fail(v, "velocity change does not scale with the whole mass "
                "(relative error %.3g)", worst);
  return pass(v, "momentum change = impulse / whole mass (error %.2g)", worst);
}

/* ---- the core's writes W1 and W2 --------------------------------------- */

/* Add dx to the positions and dv to the velocities of the free particles
 * of an instance, through its view, as the core does at W1 and W2. */
static int write_view(struct kit *K, ms_instance *inst, const double dx[3],
                      const double dv[3]) {
  struct ms_view w;
  const struct ms_field *x, *u;
  if (view_xv(inst, &K->y->plugin->desc, &w, &x, &u)) return MS_ESTATE;
  for (size_t i = 0; i < w.count; i++) {
    if (pinned(K->y, i)) continue;
    double *xi = (double *)((char *)x->data + i * x->stride);
    double *ui = (double *)((char *)u->data + i * u->stride);
    for (int a = 0; a < 3; a++) xi[a] += dx[a], ui[a] += dv[a];
  }
  return MS_OK;
}

/* Two fresh instances take the same two steps (the first with one meta-
 * particle of every free particle), except that the second receives the
 * core's write `when` (1: W1, before the first end_step; 2: W2, between
 * the steps) of dx, dv.  diff[0]: the mean difference, second minus first,
 * of the free particles' positions (0..2) and velocities (3..5) after the
 * first end_step; diff[1]: the same after the second step. */
static int probe_write(struct kit *K, int when, const double dx[3],
                       const double dv[3], double diff[2][6], char *why,
                       size_t whylen) {
  struct ms__system *y = K->y;
  const struct ms_plugin *d = &y->plugin->desc;
  const ms_config *sec = (const ms_config *)y->desc->section;
  double *s[2][2] = {{NULL, NULL}, {NULL, NULL}};
  size_t n[2][2] = {{0, 0}, {0, 0}};
  int rc = MS_OK;
  ms_ctx ctx[2] = {y->ctx, y->ctx}; /* alike, random draws included */
  for (int b = 0; b < 2 && !rc; b++) {
    ms_instance *inst = NULL;
    struct metas M, none;
    struct ms_step s0 = {sizeof s0, 1, 0, 0.0, K->dt, NULL};
    struct ms_step s1 = {sizeof s1, 1, 1, K->dt, K->dt, NULL};
    make_meta(K, &M, free_count(y), 0.5 * *ms__at(&y->m, 0));
    make_meta(K, &none, 0, 0.0);
    rc = d->create(&ms__host, &ctx[b], sec, &inst);
    if (!rc) rc = d->begin_step(inst, &s0);
    if (!rc) rc = d->integrate(inst, &s0, &M.in, &M.out);
    if (!rc && b && when == 1) rc = write_view(K, inst, dx, dv);
    if (!rc) rc = d->end_step(inst, &s0);
    if (!rc) s[b][0] = snap_view(inst, d, &n[b][0]);
    if (!rc && b && when == 2) rc = write_view(K, inst, dx, dv);
    if (!rc) rc = d->begin_step(inst, &s1);
    if (!rc) rc = d->integrate(inst, &s1, &none.in, &none.out);
    if (!rc) rc = d->end_step(inst, &s1);
    if (!rc) s[b][1] = snap_view(inst, d, &n[b][1]);
    if (!rc && (!s[b][0] || !s[b][1])) rc = MS_ESTATE;
    free(M.member), free(none.member);
    if (inst) d->destroy(inst);
  }
  if (rc) {
    const char *msg = ctx[0].err.msg[0] ? ctx[0].err.msg : ctx[1].err.msg;
    snprintf(why, whylen, "a step failed: %s",
             msg[0] ? msg : ms_status_name(rc));
  } else {
    for (int t = 0; t < 2; t++) {
      uint32_t nf = 0;
      memset(diff[t], 0, 6 * sizeof(double));
      for (size_t i = 0; i < n[0][t] && n[0][t] == n[1][t]; i++) {
        if (pinned(y, i)) continue;
        nf++;
        for (int c = 0; c < 6; c++)
          diff[t][c] += s[1][t][6 * i + c] - s[0][t][6 * i + c];
      }
      for (int c = 0; c < 6; c++) diff[t][c] /= nf ? nf : 1;
    }
  }
  for (int b = 0; b < 2; b++) free(s[b][0]), free(s[b][1]);
  return rc;
}

/* What the core wrote must be the plugin's state: right after end_step
 * the view shows a W1 write to within 1e-6, and one step later the written
 * velocity is still there to within a quarter and the written position
 * offset at least in part (a fluid moves its particles through a grid its
 * walls fix).  A plugin that ignores the write keeps none of it. */
static int check_write(struct kit *K, struct verdict *v, int when) {
  double span = 0.0, diff[2][6];
  for (size_t i = 0; i < K->y->view.count; i++)
    span = fmax(span, *ms__at(&K->y->r, i));
  const double dv[3] = {0.05, 0.0, 0.0};
  const double dx[3] = {when == 1 ? 0.1 * span : 0.0, 0.0, 0.0};
  char why[400];
  if (free_count(K->y) < 1) return fail(v, "needs a free particle");
  if (probe_write(K, when, dx, dv, diff, why, sizeof why))
    return fail(v, "%s", why);
  const char *at = when == 1 ? "W1 (after integrate, before end_step)"
                             : "W2 (between end_step and begin_step)";
  /* after end_step: W1 is there, W2 not yet written */
  double x0 = when == 1 ? diff[0][0] / dx[0] : 1.0;
  double u0 = when == 1 ? diff[0][3] / dv[0] : 1.0;
  double u1 = diff[1][3] / dv[0];
  double x1 = when == 1 ? (diff[1][0] - K->dt * dv[0]) / dx[0] : 1.0;
  if (fabs(x0 - 1.0) > 1e-6 || fabs(u0 - 1.0) > 1e-6)
    return fail(v, "end_step undid the core's write %s: the view keeps %.3g "
                "of the written position offset and %.3g of the velocity",
                at, x0, u0);
  if (fabs(u1 - 1.0) > 0.25 || x1 < 0.25 || x1 > 1.75)
    return fail(v, "ignores the core's write %s: one step later %.3g of the "
                "written velocity and %.3g of the position offset remain",
                at, u1, x1);
  if (when == 1)
    return pass(v, "the next step starts from the write %s (velocity kept "
                "%.3g, position offset %.3g)", at, u1, x1);
  return pass(v, "the next step starts from the write %s (velocity kept "
              "%.3g)", at, u1);
}

static int check_write_w1(struct kit *K, struct verdict *v) {
  return check_write(K, v, 1);
}

static int check_write_w2(struct kit *K, struct verdict *v) {
  return check_write(K, v, 2);
}

/* A number key the plugin read, given as a string, must be refused; so must
 * a negative value for keys that must be positive. */
static int check_bad_config(struct kit *K, struct verdict *v) {
  struct ms__system *y = K->y;
  const struct ms_plugin *d = &y->plugin->desc;
  config_setting_t *sec = y->desc->section, *num = NULL;
  static const char *const positive[] = {"spacing", "radius", "mass",
                                         "density", "stiffness"};
  char probes[256] = "";
  int tried = 0;
  for (int i = 0; i < config_setting_length(sec) && !num; i++) {
    config_setting_t *c = config_setting_get_elem(sec, (unsigned)i);
    if (config_setting_get_hook(c) && config_setting_is_number(c)) num = c;
  }
  for (int p = -1; p < 5; p++) {
    const char *key = p < 0 ? (num ? num->name : NULL) : positive[p];
    config_setting_t *c = key ? config_setting_get_member(sec, key) : NULL;
    if (!c || !config_setting_get_hook(c)) continue;
    char *name = strdup(key);
    config_setting_remove(sec, name);
    config_setting_t *bad = config_setting_add(
        sec, name, p < 0 ? CONFIG_TYPE_STRING : CONFIG_TYPE_FLOAT);
    if (p < 0)
      config_setting_set_string(bad, "not a number");
    else
      config_setting_set_float(bad, -1.0);
    ms__err_clear(&y->ctx.err);
    ms_instance *inst = NULL;
    int rc = d->create(&ms__host, &y->ctx, (const ms_config *)sec, &inst);
    if (rc == MS_OK) {
      if (inst) d->destroy(inst);
      return fail(v, "create() accepted %s = %s", name,
                  p < 0 ? "\"not a number\"" : "-1.0");
    }
    if (!y->ctx.err.msg[0])
      return fail(v, "create() refused %s but gave no message", name);
    snprintf(probes + strlen(probes), sizeof probes - strlen(probes),
             "%s%s = %s", tried++ ? ", " : "", name,
             p < 0 ? "\"not a number\"" : "-1.0");
    free(name);
  }
  if (!tried) return fail(v, "found no numeric key to probe in the section");
  return pass(v, "refused %s with a message", probes);
}

/* A whole cycle with stdout and stderr pointed at a file that must stay
 * empty. */
static int check_silent(struct kit *K, struct verdict *v) {
  char path[] = "/tmp/ms-conformance-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return fail(v, "cannot create a temporary file");
  unlink(path);
  fflush(stdout), fflush(stderr);
  dup2(fd, 1), dup2(fd, 2);
  struct verdict sub;
  check_rewind(K, &sub);
  check_meta_momentum(K, &sub);
  check_bad_config(K, &sub);
  check_create_destroy(K, &sub);
  fflush(stdout), fflush(stderr);
  struct stat st;
  fstat(fd, &st);
  if (st.st_size > 0)
    return fail(v, "the plugin wrote %lld bytes to stdout/stderr",
                (long long)st.st_size);
  return pass(v, "nothing printed during a full cycle");
}

/* ---- coupled contact ------------------------------------------------------ */

static void quiet(void *o, int level, const char *line) {
  (void)o, (void)level, (void)line;
}


/* Set group.key to a float (replacing what was there). */
static void set_float(config_setting_t *g, const char *key, double x) {
  if (config_setting_get_member(g, key)) config_setting_remove(g, key);
  config_setting_set_float(config_setting_add(g, key, CONFIG_TYPE_FLOAT), x);
}

static void set_vec(config_setting_t *g, const char *key,
                    const double *x) {
  if (config_setting_get_member(g, key)) config_setting_remove(g, key);
  config_setting_t *a = config_setting_add(g, key, CONFIG_TYPE_ARRAY);
  for (int i = 0; i < 3; i++) config_setting_set_float_elem(a, -1, x[i]);
}

/* The kit's scene turned into the coupled-contact scene: the momentum
 * rule, only the system under test and (with_slab) a slab of the
 * reference grains beside it, moving into it at `speed`; written to
 * `path`.  The slab's grains have the radius and mean mass of the
 * system's particles. */
static int coupled_scene(struct kit *K, int with_slab, double speed,
                         double duration, char *path) {
  const struct ms__system *y = K->y;
  config_t *cfg = &K->S->scene.cfg;
  config_setting_t *root = config_root_setting(cfg);
  config_setting_t *sc = config_setting_get_member(root, "scene");
  set_float(sc, "duration", duration);
  set_float(sc, "fps", 1.0 / duration);
  if (config_setting_get_member(root, "output"))
    config_setting_remove(root, "output");
  if (config_setting_get_member(root, "coupling"))
    config_setting_remove(root, "coupling");
  config_setting_t *cp = config_setting_add(root, "coupling", CONFIG_TYPE_GROUP);
  config_setting_set_string(config_setting_add(cp, "sync", CONFIG_TYPE_STRING),
                            "momentum");
  config_setting_t *sys = config_setting_get_member(root, "systems");
  for (int i = config_setting_length(sys) - 1; i >= 0; i--)
    if (config_setting_get_elem(sys, (unsigned)i) != y->desc->section)
      config_setting_remove_elem(sys, (unsigned)i);
  if (with_slab) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3], r = 0.0, m = 0.0;
    for (int a = 0; a < 3; a++) hi[a] = -INFINITY;
    for (size_t i = 0; i < y->view.count; i++) {
      for (int a = 0; a < 3; a++) {
        lo[a] = fmin(lo[a], ms__at(&y->x, i)[a]);
        hi[a] = fmax(hi[a], ms__at(&y->x, i)[a]);
      }
      r = fmax(r, *ms__at(&y->r, i));
      m += *ms__at(&y->m, i) / (double)y->view.count;
    }
    /* two layers, their near face one radius sum away */
    double s = 2.0 * r, smin[3], smax[3], vel[3] = {-speed, 0.0, 0.0};
    for (int a = 0; a < 3; a++) smin[a] = lo[a] - r, smax[a] = hi[a] + r;
    smin[0] = hi[0] + 1.5 * r, smax[0] = smin[0] + 2.0 * s;
    config_setting_t *g = config_setting_add(sys, NULL, CONFIG_TYPE_GROUP);
    config_setting_set_string(config_setting_add(g, "name", CONFIG_TYPE_STRING),
                              "conformance_slab");
    config_setting_set_string(
        config_setting_add(g, "solver", CONFIG_TYPE_STRING), "particles");
    config_setting_t *sh = config_setting_add(g, "shape", CONFIG_TYPE_GROUP);
    config_setting_set_string(
        config_setting_add(sh, "type", CONFIG_TYPE_STRING), "box");
    set_vec(sh, "min", smin);
    set_vec(sh, "max", smax);
    set_float(g, "spacing", s);
    set_float(g, "radius", r);
    set_float(g, "mass", m);
    set_vec(g, "velocity", vel);
  }
  int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) return MS_EIO;
  config_write(cfg, f);
  fclose(f);
  return MS_OK;
}

/* Total momentum, mass and sum of |m v| of every system of S. */
static void momentum_of(ms_sim *S, double P[3], double *mass,
                        double *scale) {
  P[0] = P[1] = P[2] = *mass = *scale = 0.0;
  for (uint32_t s = 0; s < S->nsys; s++)
    for (size_t i = 0; i < S->sys[s].view.count; i++) {
      double m = *ms__at(&S->sys[s].m, i);
      *mass += m;
      for (int a = 0; a < 3; a++) {
        double p = m * ms__at(&S->sys[s].v, i)[a];
        P[a] += p, *scale += fabs(p);
      }
    }
}

struct coupled {
  double drift;         /* |P1 - P0 - M g t| / sum |m v| at the start */
  uint64_t metas, pen;  /* meta-particles formed, particles penetrating */
  uint64_t constrained; /* meta-particles the system's walls or pins held */
};

/* Run the coupled-contact scene, with or without the slab (u0: a velocity
 * added first to the system under test, as the core's write W2 would). */
static int coupled_run(struct kit *K, int with_slab, double u0,
                       struct coupled *c, char *why, size_t whylen) {
  char path[] = "/tmp/ms-conformance-coupled-XXXXXX";
  double speed = 0.5, dur = 6.0 * (*ms__at(&K->y->r, 0)) / speed;
  if (coupled_scene(K, with_slab, speed, dur, path))
    return snprintf(why, whylen, "cannot write the coupled scene"), MS_EIO;
  struct ms_sim_options o = {.struct_size = sizeof o, .threads = 1,
                             .no_output = 1, .log = quiet,
                             .plugin_paths = K->S->opt.plugin_paths};
  ms_sim *S;
  char err[1024];
  int rc = ms_sim_open(path, &o, &S, err, sizeof err);
  unlink(path);
  if (rc) return snprintf(why, whylen, "%s", err), rc;
  /* alone: set it moving as the slab would (u0 along x) and squeezing
   * itself (u0 towards its centre), which its own forces must answer
   * without changing its momentum unless something outside it acts */
  const struct ms__system *y = &S->sys[0];
  double ctr[3] = {0.0, 0.0, 0.0}, R = 0.0;
  for (size_t i = 0; u0 != 0.0 && i < y->view.count; i++)
    for (int a = 0; a < 3; a++) ctr[a] += ms__at(&y->x, i)[a] / y->view.count;
  for (size_t i = 0; u0 != 0.0 && i < y->view.count; i++) {
    double d2 = 0.0;
    for (int a = 0; a < 3; a++)
      d2 += (ms__at(&y->x, i)[a] - ctr[a]) * (ms__at(&y->x, i)[a] - ctr[a]);
    R = fmax(R, sqrt(d2));
  }
  for (size_t i = 0; u0 != 0.0 && i < y->view.count; i++) {
    double *v = ms__at(&y->v, i);
    const double *x = ms__at(&y->x, i);
    v[0] += u0;
    for (int a = 0; R > 0.0 && a < 3; a++)
      v[a] += fabs(u0) * (ctr[a] - x[a]) / R;
  }
  double P0[3], P1[3], M, sc, t0 = S->time;
  momentum_of(S, P0, &M, &sc); /* sc: the momentum moved, at the start */
  memset(c, 0, sizeof *c);
  while (!rc && S->time < dur) {
    rc = ms__step(S, dur);
    const struct ms__metaset *ms = &S->metas;
    for (uint32_t k = 0; !rc && k < ms->merged; k++)
      for (uint32_t e = ms->eoff[k]; e < ms->eoff[k + 1]; e++)
        if (ms->esys[e] == 0 && ms->econ[e]) {
          c->constrained++;
          break;
        }
  }
  if (!rc) rc = ms__observe(S);
  if (rc) {
    snprintf(why, whylen, "%s", ms_sim_error(S));
    ms_sim_close(S);
    return rc;
  }
  momentum_of(S, P1, &M, &sc);
  double d2 = 0.0;
  for (int a = 0; a < 3; a++) {
    double d = P1[a] - P0[a] - M * S->scene.gravity[a] * (S->time - t0);
    d2 += d * d;
  }
  double sc1;
  momentum_of(S, P1, &M, &sc1); /* the larger of the start's and end's */
  c->drift = sqrt(d2) / fmax(fmax(sc, sc1), 1e-300);
  c->metas = S->frame_counts.metas;
  c->pen = S->frame_counts.pen.through + S->frame_counts.pen.inside;
  ms_sim_close(S);
  return MS_OK;
}

/* The plugin's particles hit by a slab of the reference grains (the
 * shipped `particles` solver): they must meet (meta-particles form),
 * nothing ends through a sheet or inside a solid, and the total momentum
 * changes by gravity alone, to 1e-9 of the momentum moved -- unless the
 * system exchanges momentum with something outside it (walls, pins, a
 * free surface's pressure: seen when it is set moving and squeezed alone,
 * or holds a contact), which the line then says. */
static int check_coupled(struct kit *K, struct verdict *v) {
  struct coupled alone, both;
  char why[600];
  if (coupled_run(K, 0, -0.2, &alone, why, sizeof why)) /* as pushed */
    return fail(v, "the system alone: %s", why);
  if (coupled_run(K, 1, 0.0, &both, why, sizeof why))
    return fail(v, "against the reference grains: %s", why);
  if (!both.metas)
    return fail(v, "the reference grains never met the particles");
  if (both.pen)
    return fail(v, "%llu particles ended through a sheet or inside a solid",
                (unsigned long long)both.pen);
  if (alone.drift > 1e-9 || both.constrained)
    return pass(v, "%llu meta-particles, no penetration; momentum not "
                "checked: something outside the system acts on it (walls, "
                "pins, a free surface: alone, set moving and squeezed, it "
                "changes its momentum by %.2g; %llu contacts held)",
                (unsigned long long)both.metas, alone.drift,
                (unsigned long long)both.constrained);
  if (both.drift > 1e-9)
    return fail(v, "momentum drifted by %.3g of the momentum moved in the "
                "contact (alone: %.1g)", both.drift, alone.drift);
  return pass(v, "%llu meta-particles, no penetration, momentum kept to "
              "%.1g", (unsigned long long)both.metas, both.drift);
}

/* ---- driver ------------------------------------------------------------ */

static const struct {
  const char *name;
  int (*fn)(struct kit *, struct verdict *);
} checks[] = {
    {"descriptor", check_descriptor},     {"max_dt", check_max_dt},
    {"create_destroy", check_create_destroy}, {"rewind", check_rewind},
    {"save_load", check_save_load},       {"meta_rigid", check_meta_rigid},
    {"meta_momentum", check_meta_momentum}, {"bad_config", check_bad_config},
    {"write_w1", check_write_w1},         {"write_w2", check_write_w2},
    {"coupled_contact", check_coupled},   {"silent", check_silent},
};

/* Run one check in a child; a crash or a timeout is a failure. */
static void run_isolated(struct kit *K, int c, struct verdict *v) {
  int p[2];
  if (pipe(p)) {
    fail(v, "pipe() failed");
    return;
  }
  fflush(stdout), fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    close(p[0]);
    alarm(120);
    struct verdict r = {0};
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
      fail(v, "the plugin crashed (signal %d: %s)", WTERMSIG(status),
           strsignal(WTERMSIG(status)));
    else
      fail(v, "the check did not complete");
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
  ms_registry_close(reg);
  if (!found) {
    snprintf(err, errlen, "no plugin provides solver '%s' (see 'mergesplit "
             "plugins')", plugin_id);
    return MS_ENOENT;
  }
#ifdef _OPENMP
  omp_set_num_threads(1); /* no thread pool in the parent: children fork */
#endif
  struct ms_sim_options o = {.struct_size = sizeof o, .threads = 1,
                             .no_output = 1, .log = quiet,
                             .plugin_paths = opt ? opt->plugin_paths : NULL};
  struct kit K = {0};
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
    struct verdict v = {0};
    run_isolated(&K, (int)c, &v);
    failed += !v.passed;
    report(opaque, checks[c].name, v.passed, v.detail);
  }
  ms_sim_close(K.S);
  return failed;
}
