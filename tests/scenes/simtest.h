/* Helpers for scene tests: open a scene (file or inline text), step it,
 * look at the systems' particles by name.  Scene tests link the core's
 * convenience library, so they may read the simulation's internals. */
#ifndef MS_SIMTEST_H
#define MS_SIMTEST_H

#include <check.h>
#include <stddef.h>

#include <mergesplit/core.h>

#include "../../core/run/run.h"

/* Open scene text (libconfig) written to a temporary file.  threads 0:
 * default.  Fails the test with the error message on failure. */
ms_sim *st_open_text(const char *text, int threads);
/* Try to open scene text (written to a temporary file), silently: the
 * status, the error line in err (len bytes); *out the simulation if it
 * opened and out is given (the caller closes it), else it is closed. */
int st_try_text(const char *text, char *err, size_t len, ms_sim **out);
/* Open scene text with the test fixtures ($MS_FIXTURES) on the plugin
 * path, silently: the status, the error line in err (len bytes), the
 * simulation in *out (NULL on failure; the caller closes it). */
int st_try_fixture_text(const char *text, ms_sim **out, char *err,
                        size_t len);
/* The same, failing the test with the error line if it does not open. */
ms_sim *st_open_fixture_text(const char *text);
/* Open a scene file; relative names are looked up in $MS_CONFIGS. */
ms_sim *st_open_file(const char *path, int threads, int64_t frames);
/* The same with `--set`-style overrides (NULL-terminated; NULL: none). */
ms_sim *st_open_file_with(const char *path, int threads, int64_t frames,
                          const char *const *overrides);
/* The system called `name` (fails the test if absent). */
struct ms__system *st_system(ms_sim *S, const char *name);
/* One step (not past the current frame's end, which is then advanced).
 * Its counts stay in S->stepper.frame_counts, summed over every st_step()
 * (no frame is written): read the metrics with st_metrics(). */
void st_step(ms_sim *S);
/* ms_sim_metrics() over every step taken, st_step()'s included (the run's
 * counts plus the current frame's). */
void st_metrics(ms_sim *S, struct ms_metrics *m);
/* Largest overlap (r_i + r_j - |x_j - x_i|) / min(r_i, r_j) over all pairs
 * of all systems, excluding pairs a plugin declares connected; 0 if none. */
double st_max_overlap(ms_sim *S);
/* Largest speed over all particles; NaN if any value is not finite. */
double st_max_speed(ms_sim *S);
/* Total momentum and kinetic energy over all systems. */
void st_totals(ms_sim *S, double *p, double *ke);
void st_close(ms_sim *S);
/* Run S to its last frame and close it: the largest rise of the total
 * energy (every system reporting its internal energy) from one frame to
 * the next, relative to the energy's scale; the end's energy over the
 * start's in *end (when not NULL). */
double st_energy_rise(ms_sim *S, double *end);
/* Every particle's mass over all systems, sorted (malloc'ed; *n of them):
 * equal for two states when each mass travelled bit for bit. */
double *st_masses(ms_sim *S, size_t *n);
/* Resume test: scene text run to its end in one go (*A), and run for
 * `frames` frames, checkpointed, reopened from the checkpoint and run to
 * its end (*C); one thread, no output.  The caller compares and closes
 * both. */
void st_resume_pair(const char *text, int frames, ms_sim **A, ms_sim **C);

#endif
