/* The stepper: one step of the merging-and-splitting driver (step.c),
 * apart from the run.  It borrows the scene and the systems from the run
 * (sim.h) and owns the step's workspace, the simulation clock and the
 * counters of the frame in progress; couple.c, handover.c and metrics.c
 * work on it too. */
#ifndef MS_CORE_STEP_H
#define MS_CORE_STEP_H

#include <stdint.h>

#include "contacts.h"
#include "detect.h"
#include "error.h"
#include "group.h"
#include "iterate.h"
#include "metas.h"
#include "metrics.h"
#include "scene.h"
#include "system.h"
#include "timing.h"

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
/* Workspace of the particle hand-over (handover.c). */
struct ms__handover_ws {
  unsigned char *buf;       /* the handed particles' fields, packed */
  struct ms_field *fields;  /* their descriptions */
  uint32_t *to;             /* receiving system of each handed particle */
};

struct ms__stepper {
  /* borrowed from the run, set once its systems exist */
  const struct ms__scene *scene;
  struct ms__system *sys;
  uint32_t nsys;
  struct ms__err *err;           /* the run's error */
  struct ms__metrics *metrics;   /* the run's penetration tracking */
  /* the clock */
  double time;
  uint64_t step;
  /* workspace */
  size_t ntotal;
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
  /* counters */
  double phase[MS__PH_COUNT];
  struct ms__counts frame_counts;
};

/* Borrow the run's scene, systems (created, with their views), error and
 * metrics; size the per-system workspace. */
int ms__stepper_init(struct ms__stepper *S, const struct ms__scene *scene,
                     struct ms__system *sys, uint32_t nsys,
                     struct ms__err *err, struct ms__metrics *metrics);
/* Advance by one step, not beyond t_end. */
int ms__step(struct ms__stepper *S, double t_end);
/* Measure the metrics at the current state (end of a run). */
int ms__observe(struct ms__stepper *S);
/* Free the workspace (not what it borrows). */
void ms__stepper_free(struct ms__stepper *S);

#endif
