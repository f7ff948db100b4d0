/* Synchronising one meta-particle across the systems it spans: the
 * momentum rule (the systems' impulses summed; doc/sync.md) and the
 * paper's (Eqs. 17-19, generalised to k systems). */
#ifndef MS_CORE_SYNC_H
#define MS_CORE_SYNC_H

#include <stdint.h>

#include "metas.h"
#include "scene.h"

/* k systems; Ms[s] the mass of the members system s owns, vs[3s] the end
 * velocity system s computed.  Writes the synchronised velocity
 *   v = sum_s Ms vs / M
 * and returns the kinetic energy the averaging removed,
 *   dEk = 1/2 sum_s Ms |vs|^2 - 1/2 M |v|^2 = 1/2 sum_s Ms |vs - v|^2 >= 0. */
double ms__sync(uint32_t k, const double *Ms, const double *vs, double *v);

/* The momentum rule: k systems; v the merged start velocity, gd = g dt
 * (gravity over the step), vs[3s] the end velocity system s computed from
 * the start velocity v + ext[3s] (ext: the other systems' forces handed in
 * by a coupling iteration, iterate.h; NULL: none), so that system s's own
 * impulse is m_s (vs - ext - v - gd).
 * Without collective inertia (W == NULL) every system's impulse beyond
 * gravity counts in full, w[s] = m_s / M (1, or own mass / M for a system
 * that integrated with its own mass; w == NULL: all 1):
 *   V = v + gd + sum_s w_s (vs - v - gd).
 * With it, W[6s] = m_s + C_s (the inertia system s integrated with plus
 * its own collective inertia) and Mc = M 1 + sum_s C_s:
 *   Mc (V - v - gd) = sum_s W_s (vs - v - gd).
 * Writes V. */
void ms__sync_momentum(uint32_t k, const double *v, const double *gd,
                       const double *vs, const double *ext, const double *w,
                       const double *W, const double *Mc, double *V);

/* Synchronise every meta-particle by `rule` (enum ms__sync_rule);
 * dt for multi-system positions, g the scene's gravity. */
void ms__metaset_sync(struct ms__metaset *M, int rule, double dt,
                      const double *g, struct ms__ledger *L);

#endif
