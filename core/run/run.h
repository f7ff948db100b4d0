/* The run: struct ms_sim (scene, plugins, systems, stepper), the host's
 * services, systems created from the scene, energy, the report, frame
 * output and checkpoints. */
#ifndef MS_CORE_RUN_H
#define MS_CORE_RUN_H

#include <stdint.h>

#include <mergesplit/core.h>
#include <mergesplit/host.h>
#include <mergesplit/plugin.h>

#include "../base/base.h"
#include "../scene/scene.h"
#include "../step/step.h"

/* ---- sim.c ---------------------------------------------------------------*/
/* The run: scene, systems (plugin instances, system.h), the stepper that
 * advances them (step.h), statistics, output.  Private to the core. */
struct ms__output;
struct ms__preview;
struct ms__report;

struct ms_sim {
  struct ms_sim_options opt;
  struct ms__scene scene;
  ms_registry *reg;
  struct ms__system *sys;
  uint32_t nsys;
  int threads;
  int blas_threads; /* ms_sim_options.blas_threads, or 1 */
  int64_t frame, frames_total;
  struct ms__stepper stepper; /* the step, its clock and workspace (step.h) */
  /* statistics */
  double out_seconds;       /* frame files (not previews), this thread */
  double out_write_seconds; /* frame files' writes (in the background) */
  double out_first_seconds; /* the first frame's files, this thread */
  uint64_t out_frames;           /* frames written by this process */
  struct ms__counts run_counts;   /* the frames' counts, summed */
  struct ms__metrics metrics;
  struct ms__energy_record energy; /* energy.h */
  int method_override;           /* -1: the scene's coupling.method */
  double stiffness_scale;        /* baseline stiffness multiplier */
  struct ms__output *out;
  struct ms__surface_mesh *surf; /* output.surface: one per system named */
  struct ms__preview *preview;
  char *checkpoint_path; /* NULL: no output, no checkpoints */
  char *out_dir;         /* NULL: no output */
  struct ms__report *rep;
  char *plots_report; /* output.plots without --report: OUTDIR/report.json */
  int rep_failed; /* a report write failed and was said: once is enough */
  uint64_t sampled; /* particles the systems' shapes hold so far */
  struct ms__err err;
};

/* ---- host.c, systems.c ---------------------------------------------------*/
/* The host services plugins call (host.c): struct ms_host, the context
 * of each plugin instance, the run's log. */
struct ms_sim;

extern const struct ms_host ms__host;
/* a += b: what a frame counted (b) into the run's sums (a). */
void ms__counts_add(struct ms__counts *a, const struct ms__counts *b);
void ms__ctx_init(struct ms_sim *S, uint32_t index);
void ms__ctx_free(struct ms_ctx *ctx);
void ms__log(struct ms_sim *S, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Create every system of the run's scene (its plugin instance and view);
 * destroy them. */
int ms__systems_create(struct ms_sim *S);
void ms__systems_destroy(struct ms_sim *S);

/* ---- energy.c ------------------------------------------------------------*/
/* The systems' energy (ABI 1.1 energy(), or counted from the views) and
 * its course over a run: measured at the start and after every frame. */
struct ms_sim;

/* Measure every system (S->sys[s].energy) and update S->energy.  A plugin
 * reporting a negative or non-finite figure fails the run with one line
 * naming it. */
int ms__energy_measure(struct ms_sim *S);

/* Totals over the systems of the last measurement. */
void ms__energy_total(const struct ms_sim *S, struct ms__energy *total);

/* ---- report.c ------------------------------------------------------------*/
/* The run report (--report FILE.json): per-frame totals (momentum and
 * kinetic energy per system, merges, meta-particles, the split energy
 * ledger, plugin statistics) and the per-phase timing table. */
int ms__report_open(struct ms__report **r, const char *path, int keep,
                    const struct ms_sim *S, struct ms__err *err);
/* Append the frame just finished. */
int ms__report_frame(struct ms__report *r, const struct ms_sim *S);
/* Write the totals and the timing table, close.  error: NULL or the
 * reason the run stopped. */
int ms__report_close(struct ms__report *r, const struct ms_sim *S,
                     const char *error);
/* The document as it stands: the header and frames kept in memory
 * (keep), the totals so far and `status`; *out malloc'd. */
int ms__report_text(const struct ms__report *r, const struct ms_sim *S,
                    const char *status, const char *error, char **out,
                    size_t *len);

/* Momentum and kinetic energy of system s, summed in particle order. */
void ms__system_totals(const struct ms_sim *S, uint32_t s, double *p,
                       double *ke);

/* ---- frame_output.c ------------------------------------------------------*/
/* The run's outputs (frame_output.c): open frame files, previews and the
 * checkpoint path (resuming when asked); write a finished frame's files
 * and previews; write a periodic checkpoint; stop on an interrupt. */
struct ms_sim;

int ms__outputs_open(struct ms_sim *S);
int ms__outputs_frame(struct ms_sim *S);
int ms__outputs_checkpoint(struct ms_sim *S);
/* Wait until every frame file is in place; any failure to write one. */
int ms__outputs_flush(struct ms_sim *S);
int ms__interrupted(const struct ms_sim *S);
int ms__interrupt(struct ms_sim *S);
void ms__progress(struct ms_sim *S, int frame_done);
void ms__outputs_close(struct ms_sim *S);

/* ---- checkpoint.c --------------------------------------------------------*/
/* Checkpoints: the whole state of a run in one file, so `run --resume`
 * continues bit-identically (same thread count).
 *
 * Layout (little-endian on the machines we build for; native order):
 *   header, 64 bytes: magic "MSCKPT\r\n", format version (u32), plugin ABI
 *     major/minor (u16 each), hash of the scene file's bytes, total file
 *     length, hash of the body, number of systems, thread count, 8 reserved
 *     bytes, hash of the preceding 56 header bytes;
 *   body: time, step, frame, the frame's and the run's counters, phase
 *     timings; per system its name, solver id and version, host RNG
 *     state, the frame's plugin statistics, the plugin's save() stream and
 *     that stream's length; the penetration metrics' state (particles,
 *     sheets, solids, per system the count and offset it was tracked at,
 *     the sides, the passages); the output series.
 * Written to a temporary file, fsync'ed and renamed into place. */
struct ms_sim;

#define MS__CKPT_VERSION 9u

/* MS_OK when every system's plugin provides save() and load(); otherwise
 * MS_ENOTSUP with a line naming the first that does not. */
int ms__checkpoint_supported(const struct ms_sim *S, const char *why,
                             struct ms__err *err);
int ms__checkpoint_write(struct ms_sim *S, const char *path,
                         struct ms__err *err);
/* Restore a run opened from the same scene (systems freshly created). */
int ms__checkpoint_read(struct ms_sim *S, const char *path,
                        struct ms__err *err);

#endif
