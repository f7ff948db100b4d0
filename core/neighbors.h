/* Fixed-radius neighbour lists (the host's neighbors() service). */
#ifndef MS_CORE_NEIGHBORS_H
#define MS_CORE_NEIGHBORS_H

#include <mergesplit/host.h>

/* Fill nb for count points; storage in nb->priv is reused across calls. */
int ms__neighbors_build(const double *xyz, size_t stride, size_t count,
                        double radius, struct ms_neighbors *nb);
void ms__neighbors_release(struct ms_neighbors *nb);

#endif
