/* The systems' side of a coupled step: the collective inertia they state,
 * their integration with the step's meta-particles, and the
 * synchronisation of the results with the leading systems' answers,
 * iterated when the scene asks (coupling.iterations; doc/sync.md). */
#ifndef MS_CORE_COUPLE_H
#define MS_CORE_COUPLE_H

#include <mergesplit/plugin.h>

struct ms__stepper;

/* Every system that can states its collective inertia for the stage's
 * meta-particles; each then integrates with the others' added (ABI 1.1).
 * Nothing for the paper's rule. */
int ms__collective_inertia(struct ms__stepper *S, const struct ms_step *st);

/* Every system integrates its piece of the step. */
int ms__integrate_all(struct ms__stepper *S, struct ms_step *st);

/* Synchronise the meta-particles (sync.c), let the systems that lead some
 * answer, and with coupling.iterations > 1 integrate again until the
 * systems agree (iterate.h); the last pass's ledger counts. */
int ms__synchronise(struct ms__stepper *S, struct ms_step *st);

#endif
