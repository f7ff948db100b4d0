/* The suites of the flip plugin's test runner (tests/flip/test_NAME.c
 * defines Suite *suite_NAME(void)). */
#ifndef FLIP_TEST_SUITES_H
#define FLIP_TEST_SUITES_H

#include <check.h>

#define FLIP_SUITES(X) \
  X(flip_transfer) X(flip_advect) X(flip_pressure) X(flip_config) \
  X(flip_scenes)

#define FLIP__DECLARE_SUITE(name) Suite *suite_##name(void);
FLIP_SUITES(FLIP__DECLARE_SUITE)

#endif
