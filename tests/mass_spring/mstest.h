/* Helpers of the mass_spring tests (on tests/scenes/simtest.h). */
#ifndef MS_TESTS_MASS_SPRING_MSTEST_H
#define MS_TESTS_MASS_SPRING_MSTEST_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "../scenes/simtest.h"

/* st_open_text on printf-formatted scene text. */
ms_sim *mt_open(int threads, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Position / velocity / mass of particle i of a system. */
double *mt_x(struct ms__system *y, size_t i);
double *mt_v(struct ms__system *y, size_t i);
double mt_m(struct ms__system *y, size_t i);
/* A named optional field of the system's view (fails the test if absent). */
const struct ms_field *mt_field(struct ms__system *y, const char *name);
/* Total momentum and kinetic energy of one system. */
void mt_totals(struct ms__system *y, double p[3], double *ke);
/* Deterministic numbers in [-1, 1). */
double mt_random(uint64_t *state);
/* Run frames until the simulation's time reaches t (frames of the scene). */
void mt_run_to(ms_sim *S, double t);

/* Sides of the particles of `other` relative to the cloth sheet `cloth`
 * (a grid of nu x nv): +1 / -1 for the side of the local surface (normal
 * of the nearest sheet particle, from its grid neighbours), 0 when the
 * nearest sheet particle lies on the sheet's border (off the sheet). */
void mt_sides(struct ms__system *cloth, uint32_t nu, uint32_t nv,
              struct ms__system *other, int8_t *side);

#endif
