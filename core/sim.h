/* The simulation: scene, systems (plugin instances), step workspace,
 * statistics, output.  Private to the core. */
#ifndef MS_CORE_SIM_H
#define MS_CORE_SIM_H

#include <mergesplit/core.h>
#include <mergesplit/plugin.h>

#include "contacts.h"
#include "detect.h"
#include "energy.h"
#include "error.h"
#include "group.h"
#include "loader.h"
#include "metas.h"
#include "iterate.h"
#include "metrics.h"
#include "rng.h"
#include "scene.h"
#include "timing.h"

/* A resolved strided double field of a view. */
struct ms__fref {
  char *base;
  size_t stride;
};

static inline double *ms__at(const struct ms__fref *f, size_t i) {
  return (double *)(f->base + i * f->stride);
}

struct ms__stat {
  char name[64];
  double value;
};

/* The host's context for one plugin instance (struct ms_ctx of host.h). */
struct ms_ctx {
  struct ms_sim *sim;
  uint32_t index;
  struct ms__rng rng;
  struct ms__err err;
  struct ms_scene_info info;
  struct ms__stat *stats; /* per frame, reset after each frame record */
  size_t nstats, cap_stats;
};

/* Workspace of the particle hand-over (handover.c). */
struct ms__handover_ws {
  unsigned char *buf;       /* the handed particles' fields, packed */
  struct ms_field *fields;  /* their descriptions */
  uint32_t *to;             /* receiving system of each handed particle */
};

struct ms__system {
  const struct ms__sysdesc *desc;
  const struct ms__plugin *plugin;
  ms_instance *inst;
  struct ms_ctx ctx;
  int self_collision;
  struct ms_view view;
  struct ms__fref x, v, m, r;
  size_t offset; /* first global particle index */
  struct ms__sysmetas sm;
  struct ms__energy energy; /* at the last measurement (energy.h) */
  int32_t *meta_id; /* output: meta-particle of each particle, last step */
  size_t cap_meta_id;
};

/* Counters of one frame (and, summed, of the run). */
struct ms__counts {
  uint64_t steps, stage2_steps;
  uint64_t pairs, approaching, marked; /* summed over steps */
  uint64_t metas, members, meta_max;   /* final stage of each step */
  uint64_t members_sq;                 /* sum of squared meta sizes */
  uint64_t handed;                     /* particles handed over (handover.c) */
  uint64_t passes;      /* coupling iterations: integrations again */
  uint64_t unconverged; /* steps whose iterations did not converge */
  struct ms__ledger ledger;
  struct ms__penetration pen;          /* metrics.h */
};

struct ms__output;
struct ms__preview;
struct ms__report;

struct ms_sim {
  struct ms_sim_options opt;
  struct ms__scene scene;
  ms_registry *reg;
  struct ms__system *sys;
  uint32_t nsys;
  size_t ntotal;
  int threads;
  /* time */
  double time;
  uint64_t step;
  int64_t frame, frames_total;
  /* step workspace */
  struct ms__particles P;
  struct ms__detect det;
  uint8_t *self;                 /* per system */
  uint8_t *touched;              /* per system: coupling iterations */
  struct ms__iqn iqn;            /* coupling iterations (iterate.h) */
  uint32_t *appr, *marked;       /* pair lists, 2 ids per pair */
  size_t napp, nmarked, cap_app, cap_marked;
  uint32_t *lpairs;              /* filter_pairs workspace */
  uint8_t *keep, *lkeep;
  size_t cap_local;
  double *fext, *fext_store;     /* baseline contact forces, 3 per particle */
  size_t cap_fext;
  struct ms__groups groups;
  struct ms__metaset metas;
  struct ms__contacts contacts;
  struct ms__handover_ws hov;
  /* statistics */
  double phase[MS__PH_COUNT];
  double out_seconds;       /* frame files (not previews), this thread */
  double out_write_seconds; /* frame files' writes (in the background) */
  double out_first_seconds; /* the first frame's files, this thread */
  uint64_t out_frames;           /* frames written by this process */
  struct ms__counts frame_counts, run_counts;
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
/* Ask system i for its view again and resolve the required fields. */
int ms__system_view(struct ms_sim *S, uint32_t i);
/* Attach a plugin's error to S->err: "MESSAGE (system 'N', solver 'ID')". */
int ms__system_fail(struct ms_sim *S, uint32_t i, int status,
                    const char *what);

/* handover.c: let every system give the particles it gives away now to
 * their receivers (plugin.h, PARTICLE HAND-OVER); start of a step. */
int ms__handover(struct ms_sim *S);
void ms__handover_free(struct ms__handover_ws *W);

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
