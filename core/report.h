/* The run report (--report FILE.json): per-frame totals (momentum and
 * kinetic energy per system, merges, meta-particles, the split energy
 * ledger, plugin statistics) and the per-phase timing table. */
#ifndef MS_CORE_REPORT_H
#define MS_CORE_REPORT_H

#include "sim.h"

int ms__report_open(struct ms__report **r, const char *path,
                    const struct ms_sim *S, struct ms__err *err);
/* Append the frame just finished. */
int ms__report_frame(struct ms__report *r, const struct ms_sim *S);
/* Write the totals and the timing table, close.  error: NULL or the
 * reason the run stopped. */
int ms__report_close(struct ms__report *r, const struct ms_sim *S,
                     const char *error);

/* Momentum and kinetic energy of system s, summed in particle order. */
void ms__system_totals(const struct ms_sim *S, uint32_t s, double *p,
                       double *ke);

#endif
