/* Per-phase wall-clock timing (the rows of the paper's Table I). */
#ifndef MS_CORE_TIMING_H
#define MS_CORE_TIMING_H

#include <time.h>

enum ms__phase {
  MS__PH_DETECT,  /* collision detection */
  MS__PH_MERGE,   /* filter, classify, group, merge */
  MS__PH_STAGE1,  /* integration, stage 1 */
  MS__PH_STAGE2,  /* rewind + regroup + integration, stage 2 */
  MS__PH_SYNC,    /* velocity synchronisation */
  MS__PH_SPLIT,   /* splitting and write-back */
  MS__PH_METRICS, /* penetration and speed measurements (not the method) */
  MS__PH_OTHER,   /* gathering state, dt, the plugins' begin/end step */
  MS__PH_COUNT
};

static inline double ms__now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A step's clock: each lap's time goes to the phase it names. */
struct ms__clock {
  double *phase; /* MS__PH_COUNT accounts */
  double t;      /* the last lap's end */
};

static inline void ms__clock_start(struct ms__clock *c, double *phase) {
  c->phase = phase;
  c->t = ms__now();
}

static inline void ms__lap(struct ms__clock *c, enum ms__phase ph) {
  double t = ms__now();
  c->phase[ph] += t - c->t;
  c->t = t;
}

extern const char *const ms__phase_names[MS__PH_COUNT];

#endif
