/* CHOLMOD's own loops on the calling thread (header only).
 *
 * CHOLMOD 3 (SuiteSparse 5, Debian 12) opens an OpenMP team of a fixed
 * CHOLMOD_OMP_NUM_THREADS = 4 threads for each large supernode it clears
 * and fills during a factorisation: thousands of teams per call, however
 * many cores there are.  On 2 cores the teams' start-up and futex waits
 * made a 3,072-unknown cloth's factorisation 5 to 7 times slower than the
 * same factorisation with teams of one.  The factorisation's arithmetic
 * runs in BLAS, which has threads of its own (--blas-threads); the loops
 * CHOLMOD parallelises only clear and copy, so they give the same numbers
 * on any team, and gain nothing from a team at these sizes.
 *
 * With max-active-levels 0 no parallel region is active: every team
 * CHOLMOD opens in between has one thread.  The level is restored at the
 * end, so the caller's own regions are untouched. */
#ifndef MS_PLUGINS_COMMON_CHOLMOD_SERIAL_H
#define MS_PLUGINS_COMMON_CHOLMOD_SERIAL_H

#ifdef _OPENMP
#include <omp.h>
#endif

/* Returns the level to hand to msi_cholmod_serial_end. */
static inline int msi_cholmod_serial_begin(void) {
#ifdef _OPENMP
  int levels = omp_get_max_active_levels();
  omp_set_max_active_levels(0);
  return levels;
#else
  return 0;
#endif
}

static inline void msi_cholmod_serial_end(int levels) {
#ifdef _OPENMP
  omp_set_max_active_levels(levels);
#else
  (void)levels;
#endif
}

#endif
