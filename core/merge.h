/* Merging (paper Eqs. 1-5): particles -> meta-particles.
 *
 * A meta-particle of K members is a chain of K-1 binary merge nodes: node k
 * (1 <= k < K) joins child a = the meta-particle of members [0, k) with
 * child b = member k.  Per node we keep what splitting needs: n = x_b - x_a,
 * the children's pre-merge velocities and masses, and the energy
 * dE = m_a m_b / (2 m) |v_a - v_b|^2 the merge took out of the motion. */
#ifndef MS_CORE_MERGE_H
#define MS_CORE_MERGE_H

#include <stdint.h>

/* Merge two bodies (Eqs. 1-4).  Outputs may alias nothing. */
void ms__merge2(double ma, const double *xa, const double *va, double mb,
                const double *xb, const double *vb, double *m, double *x,
                double *v, double *de);

/* Merge the K members of one meta-particle in order.  Member arrays (mass m,
 * position x[3K], velocity v[3K], system sys) are read; node arrays (indexed
 * by member; entry 0 is no node and is zeroed) are written: n[3K], va[3K], ma[K], de[K],
 * cross[K] (node joins members of different systems).  Writes the meta
 * particle's mass, centre and velocity. */
void ms__merge_chain(uint32_t K, const uint32_t *sys, const double *m,
                     const double *x, const double *v, double *n, double *va,
                     double *ma, double *de, uint8_t *cross, double *M,
                     double *X, double *V);

#endif
