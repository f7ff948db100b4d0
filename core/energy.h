/* The systems' energy (ABI 1.1 energy(), or counted from the views) and
 * its course over a run: measured at the start and after every frame. */
#ifndef MS_CORE_ENERGY_H
#define MS_CORE_ENERGY_H

#include <stdint.h>

#include "system.h"

struct ms_sim;

/* Measure every system (S->sys[s].energy) and update S->energy.  A plugin
 * reporting a negative or non-finite figure fails the run with one line
 * naming it. */
int ms__energy_measure(struct ms_sim *S);

/* Totals over the systems of the last measurement. */
void ms__energy_total(const struct ms_sim *S, struct ms__energy *total);

#endif
