/* The sph plugin's test suites (tests/sph/test_*.c), run by runner.c. */
#define SPH_SUITES(X) \
  X(sph_kernel)       \
  X(sph_solver)       \
  X(sph_config)       \
  X(sph_scenes)

#include <check.h>
#define SPH__DECLARE_SUITE(name) Suite *suite_##name(void);
SPH_SUITES(SPH__DECLARE_SUITE)
