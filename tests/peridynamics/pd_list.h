/* The peridynamics test suites: one X(name) per test_NAME.c (each defines
 * Suite *suite_NAME(void)). */
#define PD_SUITES(X) \
  X(material)        \
  X(bonds)           \
  X(config)          \
  X(rewind)          \
  X(bar)             \
  X(block)           \
  X(scenes)

#include <check.h>
#define PD_DECLARE_SUITE(name) Suite *suite_##name(void);
PD_SUITES(PD_DECLARE_SUITE)
