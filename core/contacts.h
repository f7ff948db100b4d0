/* Contact impulses between meta-particles the size limit keeps apart.
 *
 * With n_min/n_max, an approaching pair may join two different groups (or a
 * group and a particle whose partners were all taken).  The paper leaves
 * such pairs alone (coupling.unmerged_pairs = "ignore", the default): the
 * two bodies may move into each other, and a body resting on another sinks
 * in, step after step.  With unmerged_pairs = "impulse", after
 * synchronisation every such pair whose bodies still approach
 * (n . (v_b - v_a) < 0 with the synchronised velocities, n from the
 * particles' start positions) gets a normal impulse between its two bodies
 * with restitution e (coupling.contact_restitution, 0 by default: the
 * impulse only stops the approach), and each body's displacement follows
 * its velocity change over the step (dx += dv dt): the two do not move into
 * each other during the step, as merged particles would not.  Impulses come
 * in equal and opposite pairs: momentum is unchanged; kinetic energy is
 * unchanged for e = 1 and can only drop for e < 1 (between free bodies);
 * the change is counted in the ledger.  A body whose result a system
 * constrained (a wall, a pin) is not moved.  Pairs are resolved in order,
 * sweep after sweep, so the result does not depend on the thread count. */
#ifndef MS_CORE_CONTACTS_H
#define MS_CORE_CONTACTS_H

#include <stddef.h>
#include <stdint.h>

#include "metas.h"

struct ms__contacts {
  size_t count;
  uint32_t *body;   /* 2 per contact: meta-particle ids */
  double *normal;   /* 3 per contact: unit, from body a's particle to b's */
  double *inv_mass; /* per meta-particle; 0 when constrained */
  size_t cap, cap_meta;
};

void ms__contacts_free(struct ms__contacts *C);

/* Collect the pairs whose particles are in different meta-particles.
 * group: the meta-particle of each particle (group.h `mark`); x: start
 * positions, 3 per particle; pairs: 2 * npairs particle ids.  Call after
 * synchronisation (it reads which results were constrained).  Returns MS_OK
 * or MS_ENOMEM. */
int ms__contacts_find(struct ms__contacts *C, const struct ms__metaset *M,
                      const uint32_t *group, const double *x,
                      const uint32_t *pairs, size_t npairs);

/* Apply the impulses, restitution in [0, 1], to the synchronised
 * velocities and displacements of M (vfin, disp); count them and the
 * kinetic energy they took in L. */
void ms__contacts_resolve(const struct ms__contacts *C, struct ms__metaset *M,
                          double restitution, double dt,
                          struct ms__ledger *L);

#endif
