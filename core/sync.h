/* Synchronising one meta-particle across the systems it spans (paper
 * Eqs. 17-19, generalised to k systems). */
#ifndef MS_CORE_SYNC_H
#define MS_CORE_SYNC_H

#include <stdint.h>

/* k systems; Ms[s] the mass of the members system s owns, vs[3s] the end
 * velocity system s computed.  Writes the synchronised velocity
 *   v = sum_s Ms vs / M
 * and returns the kinetic energy the averaging removed,
 *   dEk = 1/2 sum_s Ms |vs|^2 - 1/2 M |v|^2 = 1/2 sum_s Ms |vs - v|^2 >= 0. */
double ms__sync(uint32_t k, const double *Ms, const double *vs, double *v);

#endif
