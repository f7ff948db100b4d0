/* The sph plugin's glue between the host and the solver. */
#ifndef SPH_PLUGIN_H
#define SPH_PLUGIN_H

#include <mergesplit/plugin.h>

#include "solver.h"

#define SPH_NFIELDS 7

struct sph_plugin {
  const struct ms_host *host;
  ms_ctx *ctx;
  struct sph_solver S;
  struct ms_field fields[SPH_NFIELDS];
  double reported[SPH_T_COUNT]; /* timers already reported */
  uint64_t reported_clamps;
};

/* What the scene section describes, before the solver exists. */
struct sph_setup {
  struct sph_params P;
  double *xyz, *vel;       /* n sampled points and their velocities */
  size_t n, cap;
  struct sph_box *box;     /* obstacles (moved into the solver) */
  size_t nbox;
};

/* config.c: read and check every key of the section; sample the shapes.
 * On failure the error is recorded through the host. */
int sphp_read_setup(struct sph_plugin *pl, const ms_config *sec,
                    struct sph_setup *su);
void sphp_setup_free(struct sph_setup *su);

#endif
