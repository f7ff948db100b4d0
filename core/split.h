/* Splitting (paper Eqs. 8-16 and 20): meta-particles -> particles, with
 * momentum conserved exactly and the chosen energy restored. */
#ifndef MS_CORE_SPLIT_H
#define MS_CORE_SPLIT_H

#include <stdint.h>

#include "metas.h"

/* Split one merge node.  Children 1 (= a) and 2 (= b) with masses m1, m2 and
 * pre-merge velocities v1, v2; n = x2 - x1 at merge time; V the node's end
 * velocity; E >= 0 the energy to restore.  Writes v1p, v2p with
 *   m1 v1p + m2 v2p = (m1 + m2) V,
 *   1/2 m1 |v1p|^2 + 1/2 m2 |v2p|^2 = 1/2 (m1 + m2) |V|^2 + E,
 *   (v2p - v1p) . n >= 0.
 * Returns 1 when the quadratic (Eq. 13) had no real root and the orthogonal
 * term (Eqs. 15-16) was used, else 0. */
int ms__split2(double m1, double m2, const double *V, const double *v1,
               const double *v2, const double *n, double E, double *v1p,
               double *v2p);

/* Energy shares of the sync energy dEk over the nodes of one chain: node k
 * gets weight mu_k = ma m_b / (ma + m_b) if it joins members of different
 * systems, 0 otherwise; weights are normalised to sum 1 (all 0 if no node
 * crosses systems).  A two-particle meta-particle gets its whole dEk
 * (paper Eq. 20). */
void ms__sync_shares(uint32_t K, const double *m, const double *ma,
                     const uint8_t *cross, double *share);

/* Split a whole chain of K members (merge.h) in inverse merge order, from
 * the meta-particle's end velocity V.  Node k restores
 * E_k = alpha * de[k] + beta * share[k] * dek.  Writes the members' end
 * velocities vout[3K]; adds the restored energy to *restored; returns the
 * number of nodes that took the orthogonal branch. */
uint32_t ms__split_chain(uint32_t K, const double *m, const double *v,
                         const double *n, const double *va, const double *ma,
                         const double *de, const double *share, double dek,
                         double alpha, double beta, const double *V,
                         double *vout, double *restored);

/* Split every meta-particle into member velocities vout. */
void ms__metaset_split(struct ms__metaset *M, double alpha, double beta,
                       struct ms__ledger *L);

#endif
