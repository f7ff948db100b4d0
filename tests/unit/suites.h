/* The unit test suites: one X(name) per tests/unit/test_NAME.c (each
 * defines Suite *suite_NAME(void)); tests/runner.c runs them. */
#include <check.h>

#define MS_SUITES(X) \
  X(split)           \
  X(sync)            \
  X(iterate)         \
  X(rng)             \
  X(detect)          \
  X(group)           \
  X(contacts)        \
  X(rules)           \
  X(shapes)          \
  X(mesh_shapes)     \
  X(settings)        \
  X(overrides)       \
  X(state)           \
  X(control)         \
  X(loader)          \
  X(plugin_util)

#define MS__DECLARE_SUITE(name) Suite *suite_##name(void);
MS_SUITES(MS__DECLARE_SUITE)
