/* The suites of the mass_spring tests (test_NAME.c defines suite_NAME). */
#ifndef MS_TESTS_MASS_SPRING_SUITES_H
#define MS_TESTS_MASS_SPRING_SUITES_H

#include <check.h>

#define MSS_SUITES(X) \
  X(analytic) X(conservation) X(metas) X(solver) X(config) X(scenes)

#define MSS__DECLARE(name) Suite *suite_##name(void);
MSS_SUITES(MSS__DECLARE)

#endif
