/* The conformance kit's checks of one instance (conformance.h): its
 * descriptor, create/destroy, rewind, save/load, meta-particles, the core's
 * writes, bad configuration, silence. */
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
#include "../run/run.h"
#include "../scene/scene.h"
#include "../step/step.h"

/* Bytes the program holds on the heap.  Under AddressSanitizer malloc is
 * its own and mallinfo2() says 0: ask the sanitizer (present only in
 * such a build). */
extern size_t __sanitizer_get_current_allocated_bytes(void)
    __attribute__((weak));
static size_t heap_in_use(void) {
  if (__sanitizer_get_current_allocated_bytes)
    return __sanitizer_get_current_allocated_bytes();
  return mallinfo2().uordblks;
}

int ms__kit_check_descriptor(struct ms__kit *K, struct ms__verdict *v) {
  const struct ms_plugin *d = &K->y->plugin->desc;
  char why[512];
  if (ms__plugin_validate(d, why, sizeof why))
    return ms__kit_fail(v, "%s", why);
  if (!d->license || !*d->license) return ms__kit_fail(v, "license is missing");
  if (!d->description || !*d->description)
    return ms__kit_fail(v, "description is missing");
  if (d->flags & ~(uint32_t)(MS_PLUGIN_SELF_COLLISION |
                             MS_PLUGIN_INERTIA_TENSOR |
                             MS_PLUGIN_META_OWN_MASS | MS_PLUGIN_HEAT))
    return ms__kit_fail(v, "unknown flag bits 0x%x", d->flags);
  if (d->reserved0) return ms__kit_fail(v, "reserved0 is not 0");
  return ms__kit_pass(v, "%s %s (%s), ABI %u.%u, %s", d->id, d->version,
                      K->y->plugin->path, d->abi_major, d->abi_minor,
                      d->license);
}

int ms__kit_check_max_dt(struct ms__kit *K, struct ms__verdict *v) {
  const struct ms_plugin *d = &K->y->plugin->desc;
  if (!d->max_dt)
    return ms__kit_pass(v, "no limit of its own (max_dt is NULL)");
  double dt = INFINITY;
  int rc = d->max_dt(K->y->inst, &dt);
  if (rc) return ms__kit_fail(v, "max_dt() returned %s", ms_status_name(rc));
  if (!(dt > 0.0)) return ms__kit_fail(v, "max_dt() gave %g", dt);
  return ms__kit_pass(v, "max dt %g s", dt);
}

int ms__kit_check_create_destroy(struct ms__kit *K, struct ms__verdict *v) {
  struct ms__system *y = K->y;
  const struct ms_plugin *d = &y->plugin->desc;
  const ms_config *sec = (const ms_config *)y->desc->section;
  size_t at[3] = {0, 0, 0};
  /* glibc keeps up to 7 freed chunks per size class in a per-thread cache
   * that still counts as in use, and which chunks sit there can shift
   * once by a few hundred bytes: measure two windows of 20 cycles after
   * 10 warm-up cycles.  A leak grows the heap in both; the cache's shift
   * shows in one at most. */
  for (int k = 0; k < 50; k++) {
    ms_instance *inst = NULL;
    if (k % 20 == 10) at[k / 20] = heap_in_use();
    int rc = d->create(&ms__host, &y->ctx, sec, &inst);
    if (rc)
      return ms__kit_fail(v, "create() failed on cycle %d: %s", k,
                          y->ctx.err.msg);
    d->destroy(inst);
  }
  at[2] = heap_in_use();
  long g1 = (long)at[1] - (long)at[0], g2 = (long)at[2] - (long)at[1];
  long grew = g1 < g2 ? g1 : g2;
  if (grew > 512)
    return ms__kit_fail(v, "the heap grew by %ld and %ld bytes over two "
                        "windows of 20 create/destroy cycles", g1, g2);
  return ms__kit_pass(v, "2 x 20 create/destroy cycles, heap change %ld "
                      "and %ld bytes", g1, g2);
}

int ms__kit_check_rewind(struct ms__kit *K, struct ms__verdict *v) {
  ms_instance *inst = K->y->inst;
  const struct ms_plugin *d = &K->y->plugin->desc;
  struct ms__blob a = {0}, b = {0};
  struct ms__kit_metas M;
  size_t n, n1;
  double *s0 = ms__kit_snap_view(inst, d, &n), *s1, *s2;
  int rc;
  if (d->save && (rc = ms__kit_save_state(K, inst, &a)))
    return ms__kit_fail(v, "save() failed: %s", ms_status_name(rc));
  uint32_t nf = ms__kit_free_count(K->y);
  ms__kit_make_meta(K, &M, nf < 3 ? nf : 3, 0.5);
  if ((rc = ms__kit_step_with(K, inst, &M, NULL, 1)))
    return ms__kit_fail(v, "begin_step/integrate failed: %s",
                        K->y->ctx.err.msg);
  s1 = ms__kit_snap_view(inst, d, &n1);
  if ((rc = d->rewind(inst)))
    return ms__kit_fail(v, "rewind() failed: %s", ms_status_name(rc));
  s2 = ms__kit_snap_view(inst, d, &n1);
  if (n1 != n || memcmp(s0, s2, 6 * n * sizeof *s0))
    return ms__kit_fail(
        v, "positions/velocities after rewind differ from the start "
           "of the step");
  if (d->save && (rc = ms__kit_save_state(K, inst, &b)))
    return ms__kit_fail(v, "save() after rewind failed: %s",
                        ms_status_name(rc));
  if (d->save && (a.n != b.n || memcmp(a.p, b.p, a.n)))
    return ms__kit_fail(
        v,
        "saved state after rewind differs from the start of the "
        "step (%zu vs %zu bytes)",
        a.n, b.n);
  if ((rc = ms__kit_step_with(K, inst, &M, NULL, 0)))
    return ms__kit_fail(v, "integrate after rewind failed: %s",
                        K->y->ctx.err.msg);
  free(s2);
  s2 = ms__kit_snap_view(inst, d, &n1);
  if (memcmp(s1, s2, 6 * n * sizeof *s1))
    return ms__kit_fail(v,
                        "integrating again after rewind gives another result");
  return ms__kit_pass(v, "state restored bitwise%s; re-integration identical",
                      d->save ? " (views and saved state)"
                              : " (views; no save())");
}

int ms__kit_check_save_load(struct ms__kit *K, struct ms__verdict *v) {
  struct ms__system *y = K->y;
  const struct ms_plugin *d = &y->plugin->desc;
  struct ms__blob a = {0}, b = {0};
  struct ms__kit_metas M;
  ms_instance *fresh = NULL;
  size_t n, m;
  int rc;
  if (!d->save || !d->load) return ms__kit_fail(v, "save/load not provided");
  ms__kit_make_meta(K, &M, 0,
                    0.0); /* move the state away from the initial one */
  if ((rc = ms__kit_step_with(K, y->inst, &M, NULL, 1)) ||
      (rc = d->end_step(y->inst, &(struct ms_step){sizeof(struct ms_step), 1, 0,
                                                   0.0, K->dt, NULL})))
    return ms__kit_fail(v, "a step failed: %s", y->ctx.err.msg);
  if ((rc = ms__kit_save_state(K, y->inst, &a)))
    return ms__kit_fail(v, "save() failed: %s", ms_status_name(rc));
  if ((rc = d->create(&ms__host, &y->ctx, (const ms_config *)y->desc->section,
                      &fresh)))
    return ms__kit_fail(v, "create() failed: %s", y->ctx.err.msg);
  struct ms_stream in = {&a, ms__kit_blob_write, ms__kit_blob_read};
  if ((rc = d->load(fresh, &in)))
    return ms__kit_fail(v, "load() failed: %s", ms_status_name(rc));
  if ((rc = ms__kit_save_state(K, fresh, &b)))
    return ms__kit_fail(v, "save() after load failed: %s", ms_status_name(rc));
  double *s0 = ms__kit_snap_view(y->inst, d, &n),
         *s1 = ms__kit_snap_view(fresh, d, &m);
  if (n != m || memcmp(s0, s1, 6 * n * sizeof *s0))
    return ms__kit_fail(v, "positions/velocities differ after save -> load");
  if (a.n != b.n || memcmp(a.p, b.p, a.n))
    return ms__kit_fail(
        v, "save -> load -> save gives other bytes (%zu vs %zu)", a.n, b.n);
  d->destroy(fresh);
  return ms__kit_pass(v, "%zu bytes round-trip bitwise", a.n);
}

int ms__kit_check_meta_rigid(struct ms__kit *K, struct ms__verdict *v) {
  ms_instance *inst = K->y->inst;
  const struct ms_plugin *d = &K->y->plugin->desc;
  struct ms__kit_metas M;
  size_t n;
  double *s0 = ms__kit_snap_view(inst, d, &n);
  uint32_t nf = ms__kit_free_count(K->y);
  if (nf < 2)
    return ms__kit_fail(v, "needs at least 2 free particles (has %u)", nf);
  uint32_t k = nf < 4 ? nf : 4;
  ms__kit_make_meta(K, &M, k, 1.5 * 1.0);
  int rc = ms__kit_step_with(K, inst, &M, NULL, 1);
  if (rc)
    return ms__kit_fail(v, "begin_step/integrate failed: %s",
                        K->y->ctx.err.msg);
  double *s1 = ms__kit_snap_view(inst, d, &n);
  for (uint32_t q = 0; q < k; q++) {
    size_t i = M.member[q];
    for (int a = 0; a < 3; a++) {
      double dx = s1[6 * i + a] - s0[6 * i + a];
      if (s1[6 * i + 3 + a] != M.rv[a])
        return ms__kit_fail(v, "member %zu: velocity %.17g, reported %.17g", i,
                            s1[6 * i + 3 + a], M.rv[a]);
      if (s1[6 * i + a] != s0[6 * i + a] + M.rd[a])
        return ms__kit_fail(v, "member %zu moved by %.17g, reported %.17g", i,
                            dx, M.rd[a]);
    }
  }
  return ms__kit_pass(v, "%u members moved by the reported displacement", k);
}

/* The same force on a meta-particle holding every particle, once with no
 * foreign mass and once with foreign mass equal to its own: a plugin that
 * treats the meta-particle with its whole mass changes the velocity half
 * as much the second time (internal forces cancel inside it). */
int ms__kit_check_meta_momentum(struct ms__kit *K, struct ms__verdict *v) {
  struct ms__system *y = K->y;
  const struct ms_plugin *d = &y->plugin->desc;
  size_t n = y->view.count;
  double *F = calloc(3 * n, sizeof *F), dv[2][3];
  struct ms__kit_metas M;
  for (size_t i = 0; i < n; i++) {
    double m = *ms__at(&y->m, i);
    F[3 * i] = 2.0 * m, F[3 * i + 1] = -1.0 * m, F[3 * i + 2] = 0.5 * m;
  }
  for (int run = 0; run < 2; run++) {
    ms__kit_make_meta(K, &M, ms__kit_free_count(y), 0.0);
    M.mass = M.own * (run ? 2.0 : 1.0);
    int rc = ms__kit_step_with(K, y->inst, &M, F, 1);
    if (rc) return ms__kit_fail(v, "integrate failed: %s", y->ctx.err.msg);
    if (M.con)
      return ms__kit_fail(v, "the meta-particle was reported constrained; "
                             "use a scene where it moves freely");
    for (int a = 0; a < 3; a++) dv[run][a] = M.rv[a] - M.vel[a];
    if ((rc = d->rewind(y->inst))) return ms__kit_fail(v, "rewind failed");
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
    return ms__kit_fail(v,
                        "velocity change does not scale with the whole mass "
                        "(relative error %.3g)",
                        worst);
  return ms__kit_pass(v, "momentum change = impulse / whole mass (error %.2g)",
                      worst);
}

/* ---- the core's writes W1 and W2 --------------------------------------- */

/* Add dx to the positions and dv to the velocities of the free particles
 * of an instance, through its view, as the core does at W1 and W2. */
static int write_view(struct ms__kit *K, ms_instance *inst, const double dx[3],
                      const double dv[3]) {
  struct ms_view w;
  const struct ms_field *x, *u;
  if (ms__kit_view_xv(inst, &K->y->plugin->desc, &w, &x, &u)) return MS_ESTATE;
  for (size_t i = 0; i < w.count; i++) {
    if (ms__kit_pinned(K->y, i)) continue;
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
static int probe_write(struct ms__kit *K, int when, const double dx[3],
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
    struct ms__kit_metas M, none;
    struct ms_step s0 = {sizeof s0, 1, 0, 0.0, K->dt, NULL};
    struct ms_step s1 = {sizeof s1, 1, 1, K->dt, K->dt, NULL};
    ms__kit_make_meta(K, &M, ms__kit_free_count(y), 0.5 * *ms__at(&y->m, 0));
    ms__kit_make_meta(K, &none, 0, 0.0);
    rc = d->create(&ms__host, &ctx[b], sec, &inst);
    if (!rc) rc = d->begin_step(inst, &s0);
    if (!rc) rc = d->integrate(inst, &s0, &M.in, &M.out);
    if (!rc && b && when == 1) rc = write_view(K, inst, dx, dv);
    if (!rc) rc = d->end_step(inst, &s0);
    if (!rc) s[b][0] = ms__kit_snap_view(inst, d, &n[b][0]);
    if (!rc && b && when == 2) rc = write_view(K, inst, dx, dv);
    if (!rc) rc = d->begin_step(inst, &s1);
    if (!rc) rc = d->integrate(inst, &s1, &none.in, &none.out);
    if (!rc) rc = d->end_step(inst, &s1);
    if (!rc) s[b][1] = ms__kit_snap_view(inst, d, &n[b][1]);
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
      ms__memset(diff[t], 0, 6 * sizeof(double));
      for (size_t i = 0; i < n[0][t] && n[0][t] == n[1][t]; i++) {
        if (ms__kit_pinned(y, i)) continue;
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
static int check_write(struct ms__kit *K, struct ms__verdict *v, int when) {
  double span = 0.0, diff[2][6];
  for (size_t i = 0; i < K->y->view.count; i++)
    span = fmax(span, *ms__at(&K->y->r, i));
  const double dv[3] = {0.05, 0.0, 0.0};
  const double dx[3] = {when == 1 ? 0.1 * span : 0.0, 0.0, 0.0};
  char why[400];
  if (ms__kit_free_count(K->y) < 1)
    return ms__kit_fail(v, "needs a free particle");
  if (probe_write(K, when, dx, dv, diff, why, sizeof why))
    return ms__kit_fail(v, "%s", why);
  const char *at = when == 1 ? "W1 (after integrate, before end_step)"
                             : "W2 (between end_step and begin_step)";
  /* after end_step: W1 is there, W2 not yet written */
  double x0 = when == 1 ? diff[0][0] / dx[0] : 1.0;
  double u0 = when == 1 ? diff[0][3] / dv[0] : 1.0;
  double u1 = diff[1][3] / dv[0];
  double x1 = when == 1 ? (diff[1][0] - K->dt * dv[0]) / dx[0] : 1.0;
  if (fabs(x0 - 1.0) > 1e-6 || fabs(u0 - 1.0) > 1e-6)
    return ms__kit_fail(
        v,
        "end_step undid the core's write %s: the view keeps %.3g "
        "of the written position offset and %.3g of the velocity",
        at, x0, u0);
  if (fabs(u1 - 1.0) > 0.25 || x1 < 0.25 || x1 > 1.75)
    return ms__kit_fail(
        v,
        "ignores the core's write %s: one step later %.3g of the "
        "written velocity and %.3g of the position offset remain",
        at, u1, x1);
  if (when == 1)
    return ms__kit_pass(v,
                        "the next step starts from the write %s (velocity kept "
                        "%.3g, position offset %.3g)",
                        at, u1, x1);
  return ms__kit_pass(v,
                      "the next step starts from the write %s (velocity kept "
                      "%.3g)",
                      at, u1);
}

int ms__kit_check_write_w1(struct ms__kit *K, struct ms__verdict *v) {
  return check_write(K, v, 1);
}

int ms__kit_check_write_w2(struct ms__kit *K, struct ms__verdict *v) {
  return check_write(K, v, 2);
}

/* ---- the core's write W3 (heat, ABI 1.3) -------------------------------- */

/* The view's heat fields of an instance (NULL when absent). */
static void heat_fields(ms_instance *inst, const struct ms_plugin *d,
                        struct ms_view *w, const struct ms_field **T,
                        const struct ms_field **c, const struct ms_field **m) {
  const struct ms_field **out[3] = {T, c, m};
  static const char *const names[3] = {"temperature", "specific_heat",
                                       "mass"};
  ms__memset(w, 0, sizeof *w);
  w->struct_size = sizeof *w;
  *T = *c = *m = NULL;
  if (d->view(inst, w)) return;
  for (uint32_t f = 0; f < w->field_count; f++)
    for (int k = 0; k < 3; k++)
      if (!strcmp(w->fields[f].name, names[k]) &&
          w->fields[f].type == MS_TYPE_F64 && w->fields[f].components == 1)
        *out[k] = &w->fields[f];
}

#define HEAT_AT(f, i) (*(double *)((char *)(f)->data + (i) * (f)->stride))

/* Sum of m c T over an instance's view; NAN when a field is missing. */
static double heat_sum(ms_instance *inst, const struct ms_plugin *d) {
  struct ms_view w;
  const struct ms_field *T, *c, *m;
  heat_fields(inst, d, &w, &T, &c, &m);
  if (!T || !c || !m) return NAN;
  double q = 0.0;
  for (size_t i = 0; i < w.count; i++)
    q += HEAT_AT(m, i) * HEAT_AT(c, i) * HEAT_AT(T, i);
  return q;
}

/* A plugin that carries heat keeps what the core writes before begin_step:
 * 10 K more on one particle, one step alone (no heat comes in or goes
 * out), and the heat sum m c T is the written one to 1e-12; save and load
 * give the temperatures back bitwise. */
int ms__kit_check_write_w3(struct ms__kit *K, struct ms__verdict *v) {
  struct ms__system *y = K->y;
  const struct ms_plugin *d = &y->plugin->desc;
  if (!(d->flags & MS_PLUGIN_HEAT))
    return ms__kit_pass(v, "carries no heat (no MS_PLUGIN_HEAT)");
  struct ms_view w;
  const struct ms_field *T, *c, *m;
  heat_fields(y->inst, d, &w, &T, &c, &m);
  if (!T || !c)
    return ms__kit_fail(v, "MS_PLUGIN_HEAT without a double 'temperature' "
                        "and 'specific_heat' in the view");
  for (size_t i = 0; i < w.count; i++)
    if (!(HEAT_AT(c, i) > 0.0 && isfinite(HEAT_AT(c, i)) &&
          isfinite(HEAT_AT(T, i))))
      return ms__kit_fail(v, "particle %zu: temperature %g, specific heat "
                          "%g", i, HEAT_AT(T, i), HEAT_AT(c, i));
  if (w.count < 1) return ms__kit_fail(v, "needs a particle");
  HEAT_AT(T, 0) += 10.0;
  double want = heat_sum(y->inst, d);
  struct ms__kit_metas M;
  ms__kit_make_meta(K, &M, 0, 0.0);
  int rc = ms__kit_step_with(K, y->inst, &M, NULL, 1);
  if (!rc)
    rc = d->end_step(y->inst, &(struct ms_step){sizeof(struct ms_step), 1, 0,
                                                0.0, K->dt, NULL});
  free(M.member);
  if (rc) return ms__kit_fail(v, "a step failed: %s", y->ctx.err.msg);
  double got = heat_sum(y->inst, d);
  if (!(fabs(got - want) <= 1e-12 * fabs(want)))
    return ms__kit_fail(v, "the heat the core wrote (W3) is not kept: sum of "
                        "m c T %.17g after a step alone, %.17g written",
                        got, want);
  struct ms__blob a = {0};
  ms_instance *fresh = NULL;
  if ((rc = ms__kit_save_state(K, y->inst, &a)) ||
      (rc = d->create(&ms__host, &y->ctx, (const ms_config *)y->desc->section,
                      &fresh)))
    return free(a.p), ms__kit_fail(v, "save() or create() failed: %s",
                                   ms_status_name(rc));
  struct ms_stream in = {&a, ms__kit_blob_write, ms__kit_blob_read};
  rc = d->load(fresh, &in);
  double back = rc ? NAN : heat_sum(fresh, d);
  d->destroy(fresh);
  free(a.p);
  if (rc || back != got)
    return ms__kit_fail(v, "save -> load gives the heat sum %.17g, not "
                        "%.17g", back, got);
  return ms__kit_pass(v, "a step keeps the heat written before begin_step "
                      "(%.3g relative), save/load keeps it bitwise",
                      fabs(got - want) / fabs(want));
}

/* A number key the plugin read, given as a string, must be refused; so must
 * a negative value for keys that must be positive. */
int ms__kit_check_bad_config(struct ms__kit *K, struct ms__verdict *v) {
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
      return ms__kit_fail(v, "create() accepted %s = %s", name,
                          p < 0 ? "\"not a number\"" : "-1.0");
    }
    if (!y->ctx.err.msg[0])
      return ms__kit_fail(v, "create() refused %s but gave no message", name);
    snprintf(probes + strlen(probes), sizeof probes - strlen(probes),
             "%s%s = %s", tried++ ? ", " : "", name,
             p < 0 ? "\"not a number\"" : "-1.0");
    free(name);
  }
  if (!tried)
    return ms__kit_fail(v, "found no numeric key to probe in the section");
  return ms__kit_pass(v, "refused %s with a message", probes);
}

/* A whole cycle with stdout and stderr pointed at a file that must stay
 * empty. */
int ms__kit_check_silent(struct ms__kit *K, struct ms__verdict *v) {
  char path[] = "/tmp/ms-conformance-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return ms__kit_fail(v, "cannot create a temporary file");
  unlink(path);
  fflush(stdout), fflush(stderr);
  dup2(fd, 1), dup2(fd, 2);
  struct ms__verdict sub;
  ms__kit_check_rewind(K, &sub);
  ms__kit_check_meta_momentum(K, &sub);
  ms__kit_check_bad_config(K, &sub);
  ms__kit_check_create_destroy(K, &sub);
  fflush(stdout), fflush(stderr);
  struct stat st;
  fstat(fd, &st);
  if (st.st_size > 0)
    return ms__kit_fail(v, "the plugin wrote %lld bytes to stdout/stderr",
                        (long long)st.st_size);
  return ms__kit_pass(v, "nothing printed during a full cycle");
}
