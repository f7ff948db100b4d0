/* The flip plugin's test suites (tests/flip/test_NAME.c defines
 * Suite *suite_NAME(void)); tests/runner.c runs them. */
#ifndef FLIP_TEST_SUITES_H
#define FLIP_TEST_SUITES_H

#include <check.h>

#define MS_SUITES(X) \
  X(flip_transfer) X(flip_advect) X(flip_pressure) X(flip_config) \
  X(flip_scenes) X(flip_heat) X(flip_phases)

#define MS__DECLARE_SUITE(name) Suite *suite_##name(void);
MS_SUITES(MS__DECLARE_SUITE)

#endif
