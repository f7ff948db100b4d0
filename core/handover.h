/* The particle hand-over (handover.c). */
#ifndef MS_CORE_HANDOVER_H
#define MS_CORE_HANDOVER_H

#include "step.h"

/* Let every system give the particles it gives away now to
 * their receivers (plugin.h, PARTICLE HAND-OVER); start of a step. */
int ms__handover(struct ms__stepper *S);
void ms__handover_free(struct ms__handover_ws *W);

#endif
