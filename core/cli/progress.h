/* Progress of `mergesplit run` on stderr: a bar redrawn in place on a
 * terminal, one plain line per frame otherwise, nothing with --quiet. */
#ifndef MS_CLI_PROGRESS_H
#define MS_CLI_PROGRESS_H

#include <stdint.h>

#include <mergesplit/core.h>

/* Before the first frame: the run's simulated time and step count now. */
void progress_start(int quiet, double time, uint64_t steps);
/* The ms_sim_options.progress callback. */
void progress_update(void *opaque, const struct ms_progress *p);
/* Erase the bar before other text goes to the terminal. */
void progress_clear(void);
/* End the bar's line. */
void progress_finish(void);

#endif
