/* The mass_spring test suites (test_NAME.c defines suite_NAME);
 * tests/runner.c runs them. */
#ifndef MS_TESTS_MASS_SPRING_SUITES_H
#define MS_TESTS_MASS_SPRING_SUITES_H

#include <check.h>

#define MS_SUITES(X) \
  X(analytic) X(conservation) X(metas) X(solver) X(config) X(scenes) X(strain)

#define MS__DECLARE_SUITE(name) Suite *suite_##name(void);
MS_SUITES(MS__DECLARE_SUITE)

#endif
