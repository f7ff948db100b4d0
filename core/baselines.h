/* The collision methods the paper compares merging-and-splitting with
 * (Sec. 6.1), applied to the same contact pairs (Rule 1, after filtering):
 *   penalty    f = k (r_i + r_j - d) n^, plus a dashpot c (dv . n^) n^
 *   sph_force  f = k (1 - d / (r_i + r_j))^2 n^   (a spiky-kernel gradient
 *              of the overlap: pressure-like, stiffening towards contact)
 *   impulse    an instantaneous exchange along n^ for approaching pairs,
 *              restitution e, no position correction; pairs are resolved
 *              one after another in detection order.
 * Forces reach the plugins as external forces (struct ms_step), constant
 * over the step; impulses change velocities before the step (write W2). */
#ifndef MS_CORE_BASELINES_H
#define MS_CORE_BASELINES_H

#include <stddef.h>
#include <stdint.h>

#include "metas.h"

/* Accumulate contact forces (3 per particle, global indices) for the pairs.
 * sph: 0 penalty, 1 sph_force. */
void ms__contact_forces(const struct ms__particles *P, const uint32_t *pairs,
                        size_t npairs, int sph, double k, double c,
                        double *f);

/* Apply impulses to P->v in pair order; returns the number applied. */
size_t ms__baseline_impulses(struct ms__particles *P, const uint32_t *pairs,
                            size_t npairs, double e);

#endif
