/* The run: scene, systems (plugin instances, system.h), the stepper that
 * advances them (step.h), statistics, output.  Private to the core. */
#ifndef MS_CORE_SIM_H
#define MS_CORE_SIM_H

#include <mergesplit/core.h>
#include <mergesplit/plugin.h>

#include "energy.h"
#include "error.h"
#include "loader.h"
#include "metrics.h"
#include "scene.h"
#include "step.h"
#include "system.h"

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
  struct ms__preview *preview;
  char *checkpoint_path; /* NULL: no output, no checkpoints */
  struct ms__report *rep;
  struct ms__err err;
};

/* host.c */
extern const struct ms_host ms__host;
void ms__ctx_init(struct ms_sim *S, uint32_t index);
void ms__ctx_free(struct ms_ctx *ctx);
void ms__log(struct ms_sim *S, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* system.c */
int ms__systems_create(struct ms_sim *S);
void ms__systems_destroy(struct ms_sim *S);

/* frame_output.c: the run's outputs.  Open frame files, previews and the
 * checkpoint path (resuming when asked); write a finished frame's files
 * and previews; write a periodic checkpoint; stop on an interrupt. */
int ms__outputs_open(struct ms_sim *S);
int ms__outputs_frame(struct ms_sim *S);
int ms__outputs_checkpoint(struct ms_sim *S);
/* Wait until every frame file is in place; any failure to write one. */
int ms__outputs_flush(struct ms_sim *S);
int ms__interrupted(const struct ms_sim *S);
int ms__interrupt(struct ms_sim *S);
void ms__progress(struct ms_sim *S, int frame_done);
void ms__outputs_close(struct ms_sim *S);

#endif
