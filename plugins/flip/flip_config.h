/* flip plugin — the settings of one system, read through the host. */
#ifndef FLIP_CONFIG_H
#define FLIP_CONFIG_H

#include <mergesplit/plugin.h>

#include "flip.h"

/* Particles seeded per cell axis by default (2 x 2 x 2 = 8 per cell) and
 * the default jitter, a fraction of the spacing, when the shape gives
 * none. */
#define FLIP_DEFAULT_PER_AXIS 2.0
#define FLIP_DEFAULT_JITTER 0.25
#define FLIP_MAX_SHAPES 64
/* Without a finite domain or a tank: the tank is the water's bounding box
 * grown by this many cells on every side. */
#define FLIP_AUTO_TANK_MARGIN 4

struct flip_params {
  const ms_config *shape[FLIP_MAX_SHAPES]; /* one group, or a list's */
  double jitter[FLIP_MAX_SHAPES]; /* applied by the plugin; NAN when the
                                     shape jitters itself */
  int nshapes;
  double spacing, cell_size, radius, density, velocity[3];
  int refine;           /* scene.scale: spacing and cells this much finer */
  double flip_ratio;
  int advect;           /* FLIP_ADVECT_* */
  double tol, cfl;
  int64_t max_iterations;
  int solver;           /* FLIP_SOLVER_* */
  int warm_start;       /* PCG starts from the last step's pressure */
  int couple_cells;     /* other systems' particles make cells non-empty */
  double lo[3];         /* the tank: grid origin */
  int n[3];             /* cells per axis */
  int auto_tank;        /* lo, n: to be fitted around the water */
  struct flip_box *obst;
  int nobst;
};

/* Read and check every key of the section.  On failure the reason is
 * recorded through the host and nothing is leaked. */
int flip_read_params(const struct ms_host *h, ms_ctx *c, const ms_config *sec,
                     struct flip_params *p);
void flip_params_free(struct flip_params *p);

#endif
