/* Grouping approaching pairs into meta-particles (paper Sec. 5.2).
 *
 * Particles are visited in index order.  An unassigned particle with an
 * approaching pair starts a group whose size limit is drawn uniformly from
 * [n_min, n_max]; the group grows breadth-first over approaching pairs (each
 * particle's partners in increasing index order) until the limit.  Each
 * particle added is one merge node.  Sequential and seeded, so the result is
 * the same for any thread count.
 *
 * With a size limit, a pair may join two different groups, or a group and a
 * particle whose partners were all taken.  On request such a particle gets a
 * group of its own (after the merged ones), so that the pairs between
 * groups can be resolved by contact impulses (contacts.h). */
#ifndef MS_CORE_GROUP_H
#define MS_CORE_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

struct ms__groups {
  uint32_t count;   /* groups */
  uint32_t merged;  /* [0, merged): >= 2 particles; the rest: one each */
  uint32_t *offset; /* count + 1 */
  uint32_t *member; /* particle ids, group by group, in merge order */
  uint32_t *mark;   /* n: group of each particle, UINT32_MAX for none */
  /* workspace */
  uint32_t *adj_off, *adj;
  size_t cap_n, cap_adj, cap_groups, cap_member;
};

void ms__groups_free(struct ms__groups *G);
/* pairs: 2 * npairs particle ids (< n).  n_max == 0 means no size limit.
 * singles: give each particle of a pair left outside every group a group of
 * its own.  Returns MS_OK or MS_ENOMEM. */
int ms__group(struct ms__groups *G, size_t n, const uint32_t *pairs,
              size_t npairs, uint32_t n_min, uint32_t n_max, int singles,
              struct ms__rng *rng);

#endif
