/* Helpers of the flip tests: a seeded random stream, particle lattices,
 * and grids filled with fluid or random velocities. */
#ifndef FLIP_FIXTURE_H
#define FLIP_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "flip.h"

/* splitmix64: deterministic, independent of the core. */
struct fx_rng {
  uint64_t s;
};
double fx_uniform(struct fx_rng *r, double lo, double hi);

/* Particles on the lattice h/4 + m h/2 of every cell of g whose cell state
 * (g->cell) is `state` (8 per cell), jittered by `jitter` h/2 (0: none).
 * Returns the count; *x is malloc'ed (3 per particle). */
size_t fx_lattice(const struct flip_grid *g, int state, double jitter,
                  struct fx_rng *r, double **x);

/* Open the scene text on 1, then 2 threads, run `steps` steps and assert
 * that system `system` (at least FLIP_PAR_MIN particles, so the parallel
 * loops run) ends bitwise the same. */
void fx_same_on_threads(const char *scene, const char *system, int steps);

/* A grid with every face velocity uniform in [-1, 1]. */
void fx_random_faces(struct flip_grid *g, struct fx_rng *r);

#endif
