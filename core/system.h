/* The systems as the step sees them: one plugin instance each, its view
 * resolved into strided fields (system.c).  Private to the core. */
#ifndef MS_CORE_SYSTEM_H
#define MS_CORE_SYSTEM_H

#include <mergesplit/plugin.h>

#include "error.h"
#include "loader.h"
#include "metas.h"
#include "rng.h"
#include "scene.h"

/* One system's energy [J]. */
struct ms__energy {
  double kinetic, potential, internal;
  int internal_known; /* the plugin reported it (energy()) */
};

/* The run's record: totals over all systems. */
struct ms__energy_record {
  uint64_t measured;      /* measurements so far */
  double start, now;      /* total at the first and the last one */
  double scale;           /* kinetic + |potential| + internal at the first */
  double max_rise;        /* largest increase between two in a row */
  int complete;           /* every system reported its internal energy */
};

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
  struct ms__energy energy; /* at the last measurement */
  int32_t *meta_id; /* output: meta-particle of each particle, last step */
  size_t cap_meta_id;
};

/* Attach a plugin's error to err: "WHAT: MESSAGE (system 'N', solver
 * 'ID' from PATH)"; returns status. */
int ms__system_fail(const struct ms__system *y, struct ms__err *err,
                    int status, const char *what);
/* Ask the system for its view again and resolve the required fields. */
int ms__system_view(struct ms__system *y, struct ms__err *err);

#endif
