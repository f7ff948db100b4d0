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

#endif
