/* mergesplit — the coupling core as a library (libmergesplit).
 *
 * Open a scene, run it frame by frame, read the outcome.  The `mergesplit`
 * command is a thin layer over this API.  Plugins do not use this header
 * (see plugin.h); they link against nothing of the core.
 *
 * Ownership: every handle is created by an *_open function and released by
 * the matching *_close; strings returned are owned by the handle and valid
 * until it is closed (or, for errors, until the next call on it).
 * Threading: a handle may be used by one thread at a time.
 */
#ifndef MERGESPLIT_CORE_H
#define MERGESPLIT_CORE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include <mergesplit/status.h>
#include <mergesplit/view.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && defined(MS_BUILDING_CORE)
#define MS_API __attribute__((visibility("default")))
#else
#define MS_API
#endif

/* Message / symbolic name of a status code; never NULL. */
MS_API const char *ms_strerror(int status);
MS_API const char *ms_status_name(int status);
/* The package version, e.g. "0.1.0". */
MS_API const char *ms_version(void);
/* The plugin ABI this core implements. */
MS_API void ms_abi_version(int *major, int *minor);
/* One line naming the BLAS library CHOLMOD resolves to in this process, e.g.
 * "OpenBLAS 0.3.21 (/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3)".
 * Sets *is_openblas when non-NULL. */
MS_API const char *ms_blas_info(int *is_openblas);

/* ---- plugins --------------------------------------------------------- */

typedef struct ms_registry ms_registry;

struct ms_plugin_info {
  const char *id, *name, *version, *license, *description;
  const char *path;       /* the shared object it came from */
  int abi_major, abi_minor;
  const char *shadowed;   /* NULL, or the path of a plugin with the same id
                             that this one overrides */
};

/* Scan the plugin directories: $(pkglibdir)/plugins, then each directory of
 * the MERGESPLIT_PLUGIN_PATH environment variable (':'-separated), then
 * `extra` (NULL-terminated, may be NULL).  For an id found more than once,
 * the later directory wins.  Files that are not acceptable plugins are
 * recorded as refusals; scanning goes on. */
MS_API int ms_registry_open(const char *const *extra, ms_registry **out);
MS_API size_t ms_registry_count(const ms_registry *reg);
MS_API int ms_registry_get(const ms_registry *reg, size_t i,
                           struct ms_plugin_info *out);
/* Refusals: one line each, "PATH: REASON". */
MS_API size_t ms_registry_refusal_count(const ms_registry *reg);
MS_API const char *ms_registry_refusal(const ms_registry *reg, size_t i);
MS_API void ms_registry_close(ms_registry *reg);
/* ---- appended in 0.2 ---- */
/* The directories scanned, in order, each once: directory i, NULL past
 * the last. */
MS_API const char *ms_registry_dir(const ms_registry *reg, size_t i);
/* The reason when no plugin was found, one line into buf (truncated to
 * len bytes, always terminated): "no plugins found in DIR, DIR (missing),
 * ...; install plugins there, or add a directory with ...".  Returns buf. */
MS_API char *ms_registry_none_found(const ms_registry *reg, char *buf,
                                    size_t len);

/* ---- simulations ----------------------------------------------------- */

typedef struct ms_sim ms_sim;

enum ms_log_sink_level { MS_SINK_ERROR = 0, MS_SINK_WARN, MS_SINK_INFO,
                         MS_SINK_DEBUG };

/* Where a run stands; handed to ms_sim_options.progress after every step
 * and after every finished frame. */
struct ms_progress {
  uint32_t struct_size;
  int frame_done;        /* 1: frame `frame` was just finished and written */
  int64_t frame, frames_total; /* frames done / to do */
  double time, end_time; /* simulated time now / at the last frame [s] */
  uint64_t steps;        /* steps taken since the run started (a resumed
                            run counts the steps before its checkpoint) */
  size_t particles;      /* over all systems */
  uint64_t metas;        /* meta-particles of the last step */
};

struct ms_sim_options {
  uint32_t struct_size;          /* sizeof(struct ms_sim_options) */
  int threads;                   /* > 0: OpenMP threads; 0: default */
  int64_t frames;                /* > 0: run this many frames; 0: scene's */
  const char *const *plugin_paths; /* extra plugin dirs, NULL-terminated */
  const char *output_dir;        /* overrides output.dir; NULL: scene's */
  const char *report_path;       /* JSON report file; NULL: none */
  int no_output;                 /* 1: write no frame files */
  int verbosity;                 /* highest ms_log_sink_level shown */
  /* Where log lines go (one line per call, no newline); NULL: stderr. */
  void (*log)(void *opaque, int level, const char *line);
  void *log_opaque;
  /* ---- appended in 0.1 (output, checkpoints) ---- */
  /* Continue the run saved in this checkpoint (written by a run of the same
   * scene file); NULL: start from the scene. */
  const char *resume_path;
  /* When non-NULL and *interrupt becomes nonzero (e.g. set by a SIGINT
   * handler), the run stops between two steps, writes a checkpoint (unless
   * no_output) and ms_sim_frame returns MS_EINTR.  Frames already written
   * stay complete. */
  const volatile sig_atomic_t *interrupt;
  /* Called after every step and every finished frame; NULL: none. */
  void (*progress)(void *opaque, const struct ms_progress *p);
  void *progress_opaque;
  /* ---- appended in 0.1 (comparisons) ---- */
  /* Overrides coupling.method ("merge-split", "penalty", "sph_force",
   * "impulse", "none"); NULL: the scene's. */
  const char *method;
  /* > 0: multiplies coupling.stiffness (penalty, sph_force); 0: 1. */
  double stiffness_scale;
  /* > 0: overrides scene.scale (the plugins' resolution knob); 0: the
   * scene's. */
  double scale;
  /* ---- appended in 0.2 (synchronisation) ---- */
  /* Overrides coupling.sync ("momentum" or "paper"); NULL: the scene's. */
  const char *sync;
  /* ---- appended in 0.2 (limits) ---- */
  /* The most particles the scene's shapes may hold together; a scene
   * that would hold more is refused before it is sampled.  0: the default,
   * MS_DEFAULT_MAX_PARTICLES. */
  uint64_t max_particles;
  /* > 0: overrides output.checkpoint_every (frames); 0: the scene's. */
  int64_t checkpoint_every;
  /* ---- appended in 0.3 (overrides) ---- */
  /* NULL, or a NULL-terminated list of "KEY=VALUE" applied to the scene
   * file's settings in order, a later one winning: KEY a path of groups
   * and list elements ("coupling.alpha", "systems.[1].stiffness",
   * "systems.cloth.stiffness" for the element named cloth), VALUE in the
   * scene file's syntax (1.5, "text", true, [0, -9.81, 0]; a bare word
   * such as paper is a string).  A key absent from the file is added.
   * Each is checked like the file's own keys; an error about one names it
   * ("--set KEY=VALUE: ...").  A checkpoint records them: resuming needs
   * the same list. */
  const char *const *overrides;
  /* ---- appended in 0.3 (the report in memory) ---- */
  /* 1: keep the report's frames in memory for ms_sim_report (with or
   * without report_path); 0: ms_sim_report is not supported. */
  int keep_report;
  /* ---- appended in 0.4 (reproducible factorisations) ---- */
  /* > 0: threads of the BLAS (OpenBLAS) under the implicit solvers'
   * CHOLMOD factorisations; 0: 1.  Process-wide.  The factorisation's last
   * bits depend on the count, so with the default a run's results depend
   * on neither the machine's cores nor OPENBLAS_NUM_THREADS; more threads
   * are faster for large cloths and give other (equally valid) bits. */
  int blas_threads;
};

#define MS_DEFAULT_MAX_PARTICLES 50000000u

/* Load and validate the scene, load its plugins, create every system.
 * On failure *out is NULL and, when err is non-NULL, a one-line reason is
 * copied into err (errlen bytes). */
MS_API int ms_sim_open(const char *scene_path,
                       const struct ms_sim_options *opt, ms_sim **out,
                       char *err, size_t errlen);
/* Advance one frame (all its steps) and write its output. */
MS_API int ms_sim_frame(ms_sim *sim);
/* Run every remaining frame. */
MS_API int ms_sim_run(ms_sim *sim);
/* Frames done / to do, simulated time, steps taken. */
MS_API int64_t ms_sim_frames_done(const ms_sim *sim);
MS_API int64_t ms_sim_frames_total(const ms_sim *sim);
MS_API double ms_sim_time(const ms_sim *sim);
MS_API uint64_t ms_sim_steps(const ms_sim *sim);
/* The reason of the last failure, one line; "" if none. */
MS_API const char *ms_sim_error(const ms_sim *sim);
/* The plugin call the calling thread is inside, for a report from a
 * signal handler (a plugin crashed) or an atexit function (a plugin
 * called exit()): the plugin's file, *system the system's name and
 * *function the entry point ("integrate"); NULL when in none.
 * Async-signal-safe. */
MS_API const char *ms_plugin_call_now(const char **system,
                                      const char **function);
/* The same over all threads: NULL when no thread is inside a plugin
 * call, otherwise the call entered last (a plugin that never returns
 * holds its thread there).  Async-signal-safe. */
MS_API const char *ms_plugin_call_any(const char **system,
                                      const char **function);
/* Particles over all systems; meta-particles of the last step. */
MS_API size_t ms_sim_particles(const ms_sim *sim);
MS_API uint64_t ms_sim_metas(const ms_sim *sim);
/* Where the run writes its checkpoints (DIR/checkpoint.msck); NULL when it
 * writes no files. */
MS_API const char *ms_sim_checkpoint_path(const ms_sim *sim);
/* The directory the run writes its frames to; NULL when it writes no
 * files.  (Appended in 0.2.) */
MS_API const char *ms_sim_output_dir(const ms_sim *sim);
/* Write a checkpoint of the current state to `path` now (atomically). */
MS_API int ms_sim_checkpoint(ms_sim *sim, const char *path);
/* What a run measured so far (metrics.h in the sources documents the
 * definitions; mergesplit.cfg(5) too). */
struct ms_metrics {
  uint32_t struct_size;         /* sizeof(struct ms_metrics) */
  uint64_t steps;
  double step_seconds;          /* wall-clock time spent in steps */
  double max_speed;             /* largest particle speed seen [m/s] */
  uint64_t penetrations;        /* through a sheet or a solid + inside a
                                 * solid, now */
  uint64_t max_penetrations;    /* the largest such count seen */
  uint64_t through_sheet, inside_solid, sheet_crossings;
  uint64_t metas;               /* meta-particles, summed over steps */
  double meta_size_mean;        /* members per meta-particle */
  uint64_t meta_size_max;
  /* The size of a merged particle's meta-particle, averaged over merged
   * particles (sum of size^2 / sum of size): what rigidifies. */
  double meta_size_weighted;
  /* Impulses between meta-particles the size limit kept apart (scene key
   * coupling.unmerged_pairs), and the kinetic energy they took [J]. */
  uint64_t contact_impulses;
  double contact_energy;
  /* ---- appended in 0.2 (energy) ---- */
  /* Total energy (kinetic + gravitational + internal) of all systems [J],
   * measured at the start and after every frame: the first and the last
   * measurement, kinetic + |gravitational| + internal at the first (a
   * scale for relative figures), the largest increase from one frame to
   * the next, and whether every system reported its internal energy
   * (plugin ABI 1.1 energy(); else only kinetic and gravitational). */
  double energy_start, energy_end, energy_scale, energy_max_rise;
  int energy_complete;
  /* ---- appended in 0.2 (particle hand-over) ---- */
  /* Particles handed from one system to another (plugin ABI 1.1). */
  uint64_t handed_over;
  /* ---- appended in 0.4 (passages) ---- */
  /* Passages through a solid so far: a particle that entered a solid's
   * volume (a gap of its lattice) on one side and left on the other, once
   * per solid; part of `penetrations`. */
  uint64_t through_solid;
};
MS_API int ms_sim_metrics(const ms_sim *sim, struct ms_metrics *out);
/* Print the per-phase timing table (paper Table I) to a stdio FILE *. */
MS_API void ms_sim_print_timing(const ms_sim *sim, void *file);
/* Finish the report (when one was asked for) and free everything. */
MS_API void ms_sim_close(ms_sim *sim);

/* ---- stepping and state (appended in 0.3) ------------------------------ */

/* One step of the run, the step `mergesplit run` takes next (toward the
 * current frame's end); when it reaches the frame's end the frame is
 * finished: its files written, its report entry, progress.  Nothing once
 * every frame is done.  A run driven by ms_sim_step, ms_sim_frame or
 * ms_sim_advance in any mix is the run ms_sim_run makes, bit for bit. */
MS_API int ms_sim_step(ms_sim *sim);
/* Step until the simulated time reaches t (within 1e-9 of a frame): the
 * last step ends at t or past it by less than one step -- no step is
 * shortened, so the run stays the one ms_sim_run makes; a frame's end is
 * reached exactly.  Stops at the last frame.  MS_EINVAL (nothing done)
 * when t is NaN. */
MS_API int ms_sim_advance(ms_sim *sim, double t);

/* The run's systems, in the scene's order: how many; system s's name and
 * solver id (NULL past the last, owned by the run); the index of the
 * system named `name` (MS_ENOENT when none). */
MS_API uint32_t ms_sim_system_count(const ms_sim *sim);
MS_API const char *ms_sim_system_name(const ms_sim *sim, uint32_t s);
MS_API const char *ms_sim_system_solver(const ms_sim *sim, uint32_t s);
MS_API int ms_sim_system_index(const ms_sim *sim, const char *name,
                               uint32_t *s);
/* System s's particles as its plugin shows them now (view.h): the count
 * and every field, typed and strided, the arrays the plugin owns.  Valid
 * until the next call that steps, resumes or closes the run.  Between
 * steps (after ms_sim_open, ms_sim_step, ms_sim_frame, ms_sim_advance,
 * before the next) a caller MAY write the "position" and "velocity"
 * fields: the plugin takes them as the state the next step starts from,
 * as it takes the core's write W2 (plugin.h); every other field is read
 * only.  MS_ERANGE past the last system. */
MS_API int ms_sim_view(const ms_sim *sim, uint32_t s, struct ms_view *out);
/* One field of that view by name, and the particle count (count may be
 * NULL); MS_ENOENT when the view has no such field. */
MS_API int ms_sim_field(const ms_sim *sim, uint32_t s, const char *name,
                        struct ms_field *out, size_t *count);

/* ---- scenes from text, forces, the report (appended in 0.3) ----------- */

/* ms_sim_open for a scene held in memory: `text` in the scene file's
 * syntax (copied).  `name` is what errors and the report call it
 * ("NAME:LINE: ..."; NULL: "<string>"); @include names files relative to
 * `base_dir` (NULL: the working directory).  A checkpoint records a hash
 * of the text: a resume needs the same text and overrides. */
MS_API int ms_sim_open_string(const char *text, const char *name,
                              const char *base_dir,
                              const struct ms_sim_options *opt, ms_sim **out,
                              char *err, size_t errlen);
/* Forces [N] on system s's particles over the next step only: `force`
 * holds 3 * count doubles (copied), count the system's particles now; a
 * second call before the step adds to the first.  The plugin receives
 * them in step->external_force (plugin.h) with any other external force,
 * in every stage of the step; a member of a meta-particle passes its
 * force to the meta-particle as the plugin's integrate() does.  Gravity
 * stays the scene's.  MS_EINVAL (nothing added) when count differs from
 * the system's particle count or a value is not finite; MS_ERANGE past
 * the last system; MS_ESTATE after the run has failed.  Should a
 * hand-over at the step's start give or bring the system particles, the
 * step fails (MS_ESTATE), naming it: the forces' order is the one before.
 * A checkpoint does not record forces not yet spent. */
MS_API int ms_sim_add_force(ms_sim *sim, uint32_t s, const double *force,
                            size_t count);
/* The run's report -- the JSON document --report writes (format_version
 * 1) -- as it stands now: the frames finished so far, the totals and the
 * timing up to now, and "status": "running" while frames remain, "ok"
 * once every frame is done, "error" (with "error") after a failure.
 * Needs ms_sim_options.keep_report (else MS_ENOTSUP).  *json is
 * NUL-terminated and the caller's, to release with ms_free(); *len its
 * length in bytes (len may be NULL). */
MS_API int ms_sim_report(const ms_sim *sim, char **json, size_t *len);
/* Release memory the library handed to the caller. */
MS_API void ms_free(void *p);

/* ---- previews ---------------------------------------------------------- */

struct ms_render_options {
  uint32_t struct_size;  /* sizeof(struct ms_render_options) */
  int64_t frame;         /* >= 0: only this frame; < 0: every frame */
  int width, height;     /* image size; 0: 800 x 600 */
  /* Colour: NULL or "system" (one colour per system), "speed", or the name
   * of a point field (magnitude for vectors), with a colour bar. */
  const char *color_by;
  double range[2];       /* colour range; range[0] >= range[1]: automatic */
  /* NULL: a camera that frames every rendered frame.  "AZ,EL[,ZOOM]"
   * (degrees around the frames' centre, zoom factor) or
   * "EX,EY,EZ,TX,TY,TZ[,FOV]" (eye, target, vertical field of view). */
  const char *camera;
  const char *out_dir;   /* NULL: OUTDIR/preview */
  int movie;             /* 1: also assemble movie.mp4 with ffmpeg */
  int threads;           /* > 0: OpenMP threads */
  void (*log)(void *opaque, int level, const char *line); /* NULL: quiet */
  void *log_opaque;
  /* ---- appended in 0.3 (absent: 0) ---- */
  int range_per_frame;   /* automatic range: 1 each image's own, 0 the run's */
  int fit_all;           /* camera: 1 every particle, 0 what moves */
  int no_floor;          /* 1: do not draw the domain's floor */
  double fps;            /* movie: > 0 frames per second; 0: real time */
  double slow;           /* movie: > 1 slowed this many times (with fps 0) */
  /* NULL, or a NULL-terminated list of more output directories (at most
   * 7), drawn beside OUTDIR in every image: the same frames, one camera
   * and one colour range over all (mergesplit compare --movie). */
  const char *const *beside;
};

/* Render PNG previews of the frames a run wrote to `outdir` (it reads
 * outdir/scene.pvd and the .vtp files).  Images go to out_dir as
 * frame_NNNNNN.png.  On failure a one-line reason goes to err. */
MS_API int ms_render(const char *outdir, const struct ms_render_options *opt,
                     char *err, size_t errlen);

/* ---- plots (appended in 0.2) ------------------------------------------- */

struct ms_plot_options {
  uint32_t struct_size;  /* sizeof(struct ms_plot_options) */
  const char *out_dir;   /* NULL: the report's name without .json + _plots */
  int width, height;     /* image size; 0: 900 x 500 */
  void (*log)(void *opaque, int level, const char *line); /* NULL: quiet */
  void *log_opaque;
};

/* Draw PNG charts of a run's report (mergesplit run --report): the
 * scene's energy, each system's, the momentum (scene and systems),
 * contacts and penetrations, meta-particle sizes, the merge-split energy
 * ledger and the time per phase, one file each.  Every PNG carries the
 * numbers it drew, and how they map to its pixels, as JSON in a tEXt
 * chunk "mergesplit:plot".  On failure a one-line reason goes to err. */
MS_API int ms_plot(const char *report, const struct ms_plot_options *opt,
                   char *err, size_t errlen);

/* ---- studies (appended in 0.3) ------------------------------------------ */

/* One run of a study (mergesplit sweep): its name, its report (run
 * --report), the value each varied key took (as given), and, when the run
 * failed before its report could say so, why (one line); NULL: read the
 * report. */
struct ms_study_variant {
  const char *name;
  const char *report;
  const char *const *values;
  const char *error;
};

struct ms_study_options {
  uint32_t struct_size; /* sizeof(struct ms_study_options) */
  const char *out_dir;  /* where the summary goes; NULL: "." */
  /* The column charted against each key; NULL: "penetrations". */
  const char *metric;
  int width, height;    /* chart size; 0: 900 x 500 */
  void (*log)(void *opaque, int level, const char *line); /* NULL: quiet */
  void *log_opaque;
};

/* The summary of a study: a row per run, read from its report --
 * penetrations (at the end and the most), sheet crossings, max speed,
 * energy at the start and end and its largest rise between frames, steps,
 * milliseconds per step and the stage 2 / stage 1 time ratio (NaN, an
 * empty cell, for a failed run, whose error is in the row) -- written to
 * out_dir/summary.csv (numbers with 17 digits: the reports' values
 * exactly) and out_dir/summary.md, and one PNG chart per key,
 * out_dir/plots/METRIC_vs_KEY.png: the metric against the key's values, a
 * line per combination of the other keys' values, the mean of runs that
 * share one (seeds).  On failure a one-line reason goes to err. */
MS_API int ms_study_summary(const char *const *keys, size_t nkeys,
                            const struct ms_study_variant *variants,
                            size_t n, const struct ms_study_options *opt,
                            char *err, size_t errlen);
/* 1 when `report` is complete (the run ended, "status": "ok") and was
 * written by a run with exactly these overrides (NULL-terminated, as in
 * ms_sim_options.overrides); else 0 and, when why is non-NULL, why not. */
MS_API int ms_report_complete(const char *report,
                              const char *const *overrides, char *why,
                              size_t len);
/* 1 when the summary column `name` is wall-clock time (it differs from
 * one run of the same variant to the next), 0 when it is not, -1 when
 * there is no such column. */
MS_API int ms_study_metric_timing(const char *name);

/* ---- conformance kit --------------------------------------------------- */

/* Called once per check, in order: its name, whether it passed, one line of
 * detail (the measured figure or why it failed). */
typedef void (*ms_conformance_fn)(void *opaque, const char *check,
                                  int passed, const char *detail);

struct ms_conformance_options {
  uint32_t struct_size;              /* sizeof(struct ms_conformance_options) */
  const char *const *plugin_paths;   /* extra plugin dirs, NULL-terminated */
  const char *scene_path;            /* NULL: a built-in scene (a 0.1 m box
                                        shape with spacing 0.025; if the
                                        plugin refuses it, a system of no
                                        keys) */
  const char *system_name;           /* system under test in scene_path;
                                        NULL: the first of the plugin */
};

/* Run the conformance checks on solver `plugin_id`: descriptor, max_dt,
 * create_destroy (no leak), rewind (bitwise), save_load (bitwise),
 * meta_rigid, meta_momentum (whole-mass treatment), bad_config (refused
 * with a status and a message), write_w1 and write_w2 (the core's writes
 * are the state the next step starts from), coupled_contact (a slab of
 * the shipped grains driven into the plugin's particles: contact, no
 * penetration, momentum kept), silent (never prints).  Each check runs in
 * a child process, so a crash fails the check only.  Returns the number of
 * failed checks, or a negative status (with err) if the kit could not
 * start: unknown plugin, or a scene its create() refuses. */
MS_API int ms_conformance_run(const char *plugin_id,
                              const struct ms_conformance_options *opt,
                              ms_conformance_fn report, void *opaque,
                              char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* MERGESPLIT_CORE_H */
