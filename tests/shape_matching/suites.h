/* The shape_matching test suites: one X(name) per test_NAME.c (each
 * defines Suite *suite_NAME(void)); tests/runner.c runs them. */
#include <check.h>

#define MS_SUITES(X) \
  X(match)          \
  X(scenes)         \
  X(heat)           \
  X(melt)

#define MS__DECLARE_SUITE(name) Suite *suite_##name(void);
MS_SUITES(MS__DECLARE_SUITE)
