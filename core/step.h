/* One step of the merging-and-splitting driver (step.c). */
#ifndef MS_CORE_STEP_H
#define MS_CORE_STEP_H

struct ms_sim;

/* Advance by one step, not beyond t_end. */
int ms__step(struct ms_sim *S, double t_end);
/* Measure the metrics at the current state (end of a run). */
int ms__observe(struct ms_sim *S);

#endif
