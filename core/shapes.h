/* Sampling particles in shapes given by a scene group:
 *   box      min, max           lattice centred in the box
 *   sphere   center, radius
 *   cylinder center, radius, height, axis (default [0,1,0])
 *   torus    center, major_radius, minor_radius, axis
 *   shell    center, radius, thickness, axis, hemisphere (default true):
 *            a bowl opening towards +axis
 *   points   points = ( [x,y,z], ... )
 * Common key: jitter (fraction of the spacing, default 0). */
#ifndef MS_CORE_SHAPES_H
#define MS_CORE_SHAPES_H

#include <libconfig.h>
#include <stddef.h>

#include "error.h"
#include "rng.h"

int ms__shape_sample(const config_setting_t *shape, double spacing,
                     struct ms__rng *rng, double **xyz, size_t *n,
                     struct ms__err *err);

#endif
