/* The simulation object: open a scene, run frames, write output. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "../io/io.h"
#include "run.h"
#include "../step/step.h"
#include "../coupling/coupling.h"


void ms_abi_version(int *major, int *minor) {
  if (major) *major = MS_ABI_MAJOR;
  if (minor) *minor = MS_ABI_MINOR;
}

void ms__counts_add(struct ms__counts *a, const struct ms__counts *b) {
  a->steps += b->steps;
  a->stage2_steps += b->stage2_steps;
  a->pairs += b->pairs;
  a->approaching += b->approaching;
  a->marked += b->marked;
  a->metas += b->metas;
  a->members += b->members;
  a->members_sq += b->members_sq;
  a->handed += b->handed;
  a->heat_pairs += b->heat_pairs;
  a->heat_moved += b->heat_moved;
  a->heat_injected += b->heat_injected;
  a->passes += b->passes;
  a->unconverged += b->unconverged;
  if (b->meta_max > a->meta_max) a->meta_max = b->meta_max;
  a->ledger.stored += b->ledger.stored;
  a->ledger.restored += b->ledger.restored;
  a->ledger.merges += b->ledger.merges;
  a->ledger.splits += b->ledger.splits;
  a->ledger.ortho += b->ledger.ortho;
  a->ledger.contact += b->ledger.contact;
  a->ledger.contacts += b->ledger.contacts;
  for (int k = 0; k < 3; k++) a->ledger.pdefect[k] += b->ledger.pdefect[k];
  a->ledger.pexch += b->ledger.pexch;
  ms__penetration_add(&a->pen, &b->pen);
}

static int write_frame(ms_sim *S) {
  int rc = ms__systems_refresh(&S->stepper);
  if (rc == MS_OK) rc = ms__energy_measure(S);
  if (rc) return rc;
  rc = ms__outputs_frame(S);
  int bad = rc == MS_OK && S->rep ? ms__report_frame(S->rep, S) : MS_OK;
  if (bad == MS_EIO) {
    S->rep_failed = 1;
    rc = ms__errf(&S->err, MS_EIO, "%s: cannot write the report: %s",
                  S->opt.report_path, strerror(errno));
  } else if (bad) {
    rc = ms__errf(&S->err, bad, "the report in memory: %s",
                  ms_strerror(bad));
  }
  for (uint32_t s = 0; s < S->nsys; s++) S->sys[s].ctx.nstats = 0;
  ms__memset(&S->stepper.frame_counts, 0, sizeof S->stepper.frame_counts);
  return rc ? rc : ms__outputs_checkpoint(S);
}

static void copy_options(ms_sim *S, const struct ms_sim_options *opt) {
  ms__memset(&S->opt, 0, sizeof S->opt);
  S->opt.verbosity = MS_SINK_INFO;
  if (!opt) return;
  size_t n = opt->struct_size < sizeof S->opt ? opt->struct_size
                                               : sizeof S->opt;
  ms__memcpy(&S->opt, opt, n);
  S->opt.struct_size = sizeof S->opt;
}

/* limits_follow_scale: n_min and n_max count particles at scale 1.  A
 * scale s refines lattices by s^(1/3) per axis, so a contact surface holds
 * s^(2/3) times the particles; the limits grow alike, and a meta-particle
 * keeps covering the same patch of contact. */
static void scale_limits(ms_sim *S) {
  struct ms__scene *sc = &S->scene;
  if (!sc->limits_follow_scale || sc->n_max == 0 || sc->scale == 1.0) return;
  uint32_t n0 = sc->n_min, n1 = sc->n_max;
  double f = pow(sc->scale, 2.0 / 3.0);
  double lo = floor(sc->n_min * f + 0.5), hi = floor(sc->n_max * f + 0.5);
  sc->n_min = lo < 2.0 ? 2u : lo > UINT32_MAX ? UINT32_MAX : (uint32_t)lo;
  sc->n_max = hi < sc->n_min ? sc->n_min
              : hi > UINT32_MAX ? UINT32_MAX : (uint32_t)hi;
  ms__log(S, MS_SINK_INFO, "scene.scale %g: meta-particle limits %u/%u "
          "become %u/%u (limits_follow_scale)", sc->scale, n0, n1, sc->n_min,
          sc->n_max);
}

/* Method and stiffness given by the caller (comparisons) win over the
 * scene's. */
static int apply_overrides(ms_sim *S) {
  if (S->opt.method) {
    int m = -1;
    for (int k = 0; k <= MS__METHOD_IMPULSE; k++)
      if (!strcmp(S->opt.method, ms__method_name(k))) m = k;
    if (m < 0)
      return ms__errf(&S->err, MS_EINVAL, "unknown coupling method '%s' "
                      "(expected merge-split, penalty, sph_force, impulse or "
                      "none)", S->opt.method);
    S->scene.method = m;
  }
  if (S->opt.struct_size >= offsetof(struct ms_sim_options, sync) +
                               sizeof S->opt.sync &&
      S->opt.sync) {
    int r = ms__sync_rule(S->opt.sync);
    if (r < 0)
      return ms__errf(&S->err, MS_EINVAL, "unknown synchronisation '%s' "
                      "(expected momentum or paper)", S->opt.sync);
    S->scene.sync = r;
  }
  if (S->opt.stiffness_scale > 0.0) S->scene.stiffness *= S->opt.stiffness_scale;
  if (S->opt.scale > 0.0) S->scene.scale = S->opt.scale;
  if (S->opt.checkpoint_every > 0)
    S->scene.checkpoint_every = S->opt.checkpoint_every;
  scale_limits(S);
  return MS_OK;
}

/* output.plots needs a report: OUTDIR/report.json unless --report names
 * one. */
static int plots_report(ms_sim *S) {
  if (!S->scene.out_plots || !S->out_dir || !S->opt.struct_size ||
      S->opt.report_path)
    return MS_OK;
  size_t n = strlen(S->out_dir) + 16;
  if (!(S->plots_report = malloc(n)))
    return ms__errf(&S->err, MS_ENOMEM, "out of memory");
  snprintf(S->plots_report, n, "%s/report.json", S->out_dir);
  S->opt.report_path = S->plots_report;
  return MS_OK;
}

static int open_all(ms_sim *S, const char *path, const char *text,
                    const char *dir) {
  int rc;
#ifdef _OPENMP
  if (S->opt.threads > 0) omp_set_num_threads(S->opt.threads);
  S->threads = omp_get_max_threads();
#else
  S->threads = 1;
#endif
  if ((rc = ms__scene_load(&S->scene, path, text, dir, S->opt.overrides,
                            &S->err))) return rc;
  if ((rc = apply_overrides(S))) return rc;
  if ((rc = ms_registry_open(S->opt.plugin_paths, &S->reg)))
    return ms__errf(&S->err, rc, "scanning plugins: %s", ms_strerror(rc));
  for (size_t i = 0; i < ms_registry_refusal_count(S->reg); i++)
    ms__log(S, MS_SINK_WARN, "plugin refused: %s",
            ms_registry_refusal(S->reg, i));
  if ((rc = ms__systems_create(S))) return rc;
  S->blas_threads = S->opt.blas_threads > 0 ? S->opt.blas_threads : 1;
  /* the plugins loaded CHOLMOD; an OpenMP build of OpenBLAS would set
   * OpenMP's count too */
#ifdef _OPENMP
  int omp_threads = omp_get_max_threads();
  ms__blas_set_threads(S->blas_threads);
  omp_set_num_threads(omp_threads);
#else
  ms__blas_set_threads(S->blas_threads);
#endif
  if ((rc = ms__stepper_init(&S->stepper, &S->scene, S->sys, S->nsys,
                             &S->err, &S->metrics)))
    return rc;
  S->frames_total = S->opt.frames > 0 ? S->opt.frames : S->scene.frames;
  if ((rc = ms__outputs_open(S))) return rc;
  if ((rc = plots_report(S))) return rc;
  if (S->opt.struct_size && (S->opt.report_path || S->opt.keep_report) &&
      (rc = ms__report_open(&S->rep, S->opt.report_path,
                            S->opt.keep_report, S, &S->err)))
    return rc;
  return MS_OK;
}

static int open_sim(const char *path, const char *text, const char *dir,
                    const struct ms_sim_options *opt, ms_sim **out, char *err,
                    size_t errlen) {
  ms_sim *S = calloc(1, sizeof *S);
  *out = NULL;
  if (!S) {
    if (err && errlen) ms__strlcpy(err, ms_strerror(MS_ENOMEM), errlen);
    return MS_ENOMEM;
  }
  copy_options(S, opt);
  int rc = open_all(S, path, text, dir);
  if (rc == MS_OK && S->opt.frames >= 0 && !S->opt.resume_path)
    rc = write_frame(S); /* frame 0 */
  if (rc) {
    if (err && errlen) ms__strlcpy(err, S->err.msg, errlen);
    ms_sim_close(S);
    return rc;
  }
  *out = S;
  return MS_OK;
}

int ms_sim_open(const char *scene_path, const struct ms_sim_options *opt,
                ms_sim **out, char *err, size_t errlen) {
  return open_sim(scene_path, NULL, NULL, opt, out, err, errlen);
}

int ms_sim_open_string(const char *text, const char *name,
                       const char *base_dir, const struct ms_sim_options *opt,
                       ms_sim **out, char *err, size_t errlen) {
  if (!text) {
    *out = NULL;
    if (err && errlen) ms__strlcpy(err, "no scene text (NULL)", errlen);
    return MS_EINVAL;
  }
  return open_sim(name ? name : "<string>", text, base_dir, opt, out, err,
                  errlen);
}

/* The frame's end is reached: finish it (its files, the report). */
static int finish_frame(ms_sim *S, double t_end) {
  S->stepper.time = t_end;
  S->frame++;
  /* Metrics are taken at the start of each step; the last frame also needs
   * the state its last step left. */
  if (S->frame == S->frames_total) {
    int rc = ms__observe(&S->stepper);
    if (rc) return rc;
  }
  ms__counts_add(&S->run_counts, &S->stepper.frame_counts);
  if (S->stepper.dom) { /* a run over ranks: rank 0 writes every particle */
    int rc = ms__domain_frame(S->stepper.dom, &S->stepper);
    if (rc) return rc;
  }
  ms__log(S, MS_SINK_DEBUG,
          "frame %lld/%lld  t = %.4g s  steps %llu  stage-2 %llu  "
          "meta-particles %llu",
          (long long)S->frame, (long long)S->frames_total, S->stepper.time,
          (unsigned long long)S->stepper.frame_counts.steps,
          (unsigned long long)S->stepper.frame_counts.stage2_steps,
          (unsigned long long)S->stepper.frame_counts.metas);
  int rc = write_frame(S);
  /* The run is done when its last files are. */
  if (rc == MS_OK && S->frame == S->frames_total) rc = ms__outputs_flush(S);
  if (rc == MS_OK) ms__progress(S, 1);
  return rc;
}

/* One step of the run toward the current frame's end, and the frame
 * finished when the step reaches it; nothing once the run has ended. */
int ms_sim_step(ms_sim *S) {
  if (S->err.status) return S->err.status;
  if (S->frame >= S->frames_total) return MS_OK;
  double t_end = (double)(S->frame + 1) / S->scene.fps;
  double tol = 1e-9 / S->scene.fps;
  if (t_end - S->stepper.time > tol) {
    if (ms__interrupted(S)) return ms__interrupt(S);
    int rc = ms__step(&S->stepper, t_end);
    if (rc) {
      if (!S->err.status) ms__errf(&S->err, rc, "%s", ms_strerror(rc));
      return S->err.status;
    }
    ms__progress(S, 0);
  }
  return t_end - S->stepper.time > tol ? MS_OK : finish_frame(S, t_end);
}

int ms_sim_frame(ms_sim *S) {
  int64_t f = S->frame;
  while (S->frame == f && f < S->frames_total) {
    int rc = ms_sim_step(S);
    if (rc) return rc;
  }
  return S->err.status;
}

int ms_sim_advance(ms_sim *S, double t) {
  if (!(t == t)) return MS_EINVAL; /* NaN: a bad argument, the run goes on */
  double tol = 1e-9 / S->scene.fps;
  while (S->frame < S->frames_total && S->stepper.time < t - tol) {
    int rc = ms_sim_step(S);
    if (rc) return rc;
  }
  return S->err.status;
}

int ms_sim_run(ms_sim *S) {
  while (S->frame < S->frames_total) {
    int rc = ms_sim_frame(S);
    if (rc) return rc;
  }
  return MS_OK;
}

int64_t ms_sim_frames_done(const ms_sim *S) { return S->frame; }
int64_t ms_sim_frames_total(const ms_sim *S) { return S->frames_total; }
double ms_sim_time(const ms_sim *S) { return S->stepper.time; }
uint64_t ms_sim_steps(const ms_sim *S) { return S->stepper.step; }
const char *ms_sim_error(const ms_sim *S) { return S->err.msg; }
size_t ms_sim_particles(const ms_sim *S) {
  size_t n = 0;
  for (uint32_t s = 0; s < S->nsys; s++) n += S->sys[s].view.count;
  return n;
}
uint64_t ms_sim_metas(const ms_sim *S) { return S->stepper.metas.merged; }

void ms_sim_print_timing(const ms_sim *S, void *file) {
  FILE *f = file;
  double total = 0.0;
  uint64_t steps = S->run_counts.steps;
  for (int p = 0; p < MS__PH_COUNT; p++) total += S->stepper.phase[p];
  fprintf(f, "%-12s %12s %14s %8s\n", "phase", "total [s]", "per step [ms]",
          "share");
  for (int p = 0; p < MS__PH_COUNT; p++)
    fprintf(f, "%-12s %12.4f %14.4f %7.2f%%\n", ms__phase_names[p],
            S->stepper.phase[p],
            steps ? 1e3 * S->stepper.phase[p] / (double)steps : 0.0,
            total > 0 ? 100.0 * S->stepper.phase[p] / total : 0.0);
  fprintf(f, "%-12s %12.4f %14.4f %7.2f%%\n", "total", total,
          steps ? 1e3 * total / (double)steps : 0.0, 100.0);
  if (S->out_frames) {
    double step = total > 0 && steps ? total / (double)steps : 0.0;
    double each = S->out_seconds / (double)S->out_frames;
    fprintf(f, "frame files: %llu written, %.2f ms each on the run's thread "
               "(%.1f%% of a step",
            (unsigned long long)S->out_frames, 1e3 * each,
            step > 0 ? 100.0 * each / step : 0.0);
    if (S->out_frames > 1) { /* the first one allocates the buffers */
      double rest = (S->out_seconds - S->out_first_seconds) /
                    (double)(S->out_frames - 1);
      fprintf(f, "; after the first, %.2f ms, %.1f%%", 1e3 * rest,
              step > 0 ? 100.0 * rest / step : 0.0);
    }
    fprintf(f, "), %.2f ms each to write in the background\n",
            1e3 * S->out_write_seconds / (double)S->out_frames);
  }
  fprintf(f, "steps %llu, stage-2 steps %llu, meta-particles %llu (mean "
             "size %.2f, per merged particle %.2f, max %llu), splits %llu "
             "(%llu orthogonal)\n",
          (unsigned long long)steps,
          (unsigned long long)S->run_counts.stage2_steps,
          (unsigned long long)S->run_counts.metas,
          S->run_counts.metas ? (double)S->run_counts.members /
                                    (double)S->run_counts.metas
                              : 0.0,
          S->run_counts.members ? (double)S->run_counts.members_sq /
                                      (double)S->run_counts.members
                                : 0.0,
          (unsigned long long)S->run_counts.meta_max,
          (unsigned long long)S->run_counts.ledger.splits,
          (unsigned long long)S->run_counts.ledger.ortho);
  const struct ms__energy_record *e = &S->energy;
  if (e->measured)
    fprintf(f, "energy: %.6g J at the start, %.6g J at the end, largest rise "
               "between frames %.3g J (%.3g of %.4g J)%s\n",
            e->start, e->now, e->max_rise,
            e->scale > 0 ? e->max_rise / e->scale : 0.0, e->scale,
            e->complete ? "" : "; internal energy of some systems unknown");
  const struct ms__penetration *p = &S->run_counts.pen;
  fprintf(f, "penetrations: %llu at the end (%llu through a sheet, %llu "
             "through a solid, %llu inside a solid), at most %llu, %llu "
             "sheet crossings; max speed %.4g m/s\n",
          (unsigned long long)ms__penetrations(p),
          (unsigned long long)p->through, (unsigned long long)p->passed,
          (unsigned long long)p->inside,
          (unsigned long long)p->max_pen, (unsigned long long)p->crossings,
          p->max_speed);
}

/* output.plots: the charts of the finished run's report, OUTDIR/plots. */
static void draw_plots(ms_sim *S) {
  char dir[4096], err[512] = "";
  snprintf(dir, sizeof dir, "%s/plots", S->out_dir);
  struct ms_plot_options o = {.struct_size = sizeof o, .out_dir = dir};
  if (ms_plot(S->opt.report_path, &o, err, sizeof err))
    ms__log(S, MS_SINK_ERROR, "output.plots: %s", err);
  else
    ms__log(S, MS_SINK_INFO, "charts of the run in %s", dir);
}

void ms_sim_close(ms_sim *S) {
  if (!S) return;
  if (S->rep) {
    int bad = ms__report_close(S->rep, S, S->err.status ? S->err.msg : NULL);
    if (bad && !S->rep_failed)
      ms__log(S, MS_SINK_ERROR, "%s: cannot write the report: %s",
              S->opt.report_path, strerror(errno));
    S->rep = NULL;
    if (!bad && S->scene.out_plots && S->out_dir && S->frame > 0)
      draw_plots(S);
  }
  free(S->plots_report);
  ms__outputs_close(S);
  ms__systems_destroy(S);
  ms_registry_close(S->reg);
  ms__scene_free(&S->scene);
  ms__stepper_free(&S->stepper);
  ms__metrics_free(&S->metrics);
  free(S);
}

int ms_sim_report(const ms_sim *S, char **json, size_t *len) {
  *json = NULL;
  if (!S->rep || !S->opt.keep_report) return MS_ENOTSUP;
  const char *status = S->err.status                  ? "error"
                       : S->frame >= S->frames_total ? "ok"
                                                     : "running";
  return ms__report_text(S->rep, S, status,
                         S->err.status ? S->err.msg : NULL, json, len);
}

void ms_free(void *p) { free(p); }

int ms_sim_metrics(const ms_sim *S, struct ms_metrics *out) {
  struct ms_metrics m;
  const struct ms__counts *c = &S->run_counts;
  ms__memset(&m, 0, sizeof m);
  m.struct_size = sizeof m;
  m.steps = c->steps;
  for (int p = 0; p < MS__PH_COUNT; p++) m.step_seconds += S->stepper.phase[p];
  m.max_speed = c->pen.max_speed;
  m.through_sheet = c->pen.through;
  m.inside_solid = c->pen.inside;
  m.through_solid = c->pen.passed;
  m.penetrations = ms__penetrations(&c->pen);
  m.max_penetrations = c->pen.max_pen;
  m.sheet_crossings = c->pen.crossings;
  m.metas = c->metas;
  m.meta_size_mean = c->metas ? (double)c->members / (double)c->metas : 0.0;
  m.meta_size_max = c->meta_max;
  m.meta_size_weighted =
      c->members ? (double)c->members_sq / (double)c->members : 0.0;
  m.contact_impulses = c->ledger.contacts;
  m.contact_energy = c->ledger.contact;
  m.energy_start = S->energy.start;
  m.energy_end = S->energy.now;
  m.energy_scale = S->energy.scale;
  m.energy_max_rise = S->energy.max_rise;
  m.energy_complete = S->energy.complete;
  m.handed_over = c->handed;
  size_t n = out->struct_size && out->struct_size < sizeof m ? out->struct_size
                                                              : sizeof m;
  ms__memcpy(out, &m, n);
  out->struct_size = (uint32_t)n;
  return MS_OK;
}
