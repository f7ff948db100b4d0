/* The virtual_material test suites: one X(name) per test_NAME.c (each
 * defines Suite *suite_NAME(void)); tests/runner.c runs them. */
#include <check.h>

#define MS_SUITES(X) \
  X(lattice)        \
  X(bodies)         \
  X(fracture)

#define MS__DECLARE_SUITE(name) Suite *suite_##name(void);
MS_SUITES(MS__DECLARE_SUITE)
