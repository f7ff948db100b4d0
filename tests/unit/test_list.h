/* The central list of unit test suites: one X(name) per tests/unit/test_NAME.c
 * (each defines Suite *suite_NAME(void)). */
#define MS_UNIT_SUITES(X) \
  X(split)                \
  X(sync)                 \
  X(rng)                  \
  X(detect)               \
  X(group)                \
  X(contacts)             \
  X(shapes)               \
  X(settings)             \
  X(loader)                \
  X(plugin_util)

#include <check.h>
#define MS__DECLARE_SUITE(name) Suite *suite_##name(void);
MS_UNIT_SUITES(MS__DECLARE_SUITE)
