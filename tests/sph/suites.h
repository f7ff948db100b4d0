/* The sph plugin's test suites (tests/sph/test_*.c); tests/runner.c runs
 * them. */
#include <check.h>

#define MS_SUITES(X) \
  X(sph_kernel)      \
  X(sph_solver)      \
  X(sph_config)      \
  X(sph_scenes)      \
  X(sph_heat)

#define MS__DECLARE_SUITE(name) Suite *suite_##name(void);
MS_SUITES(MS__DECLARE_SUITE)
