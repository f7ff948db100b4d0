/* The scene test suites (tests/scenes/test_NAME.c defines
 * Suite *suite_NAME(void)); tests/runner.c runs them. */
#include <check.h>

#define MS_SUITES(X) \
  X(core_scenes) X(baselines) X(metrics) X(scale) X(sync_scenes) X(handover) \
  X(heat) X(push) X(frame_shape) X(refresh)
/* The paper's experiments: a program of their own (tests/scenes/run-paper,
 * MS_RUN_SUITES=MS_PAPER_SUITES), so that they run beside the others under
 * make -j. */
#define MS_PAPER_SUITES(X) X(paper)
/* The conformance kit's: its own program too (tests/scenes/run-conformance),
 * because the kit forks and nothing may have started OpenMP threads in
 * the process before. */
#define MS_CONFORMANCE_SUITES(X) X(conformance)

#define MS__DECLARE_SUITE(name) Suite *suite_##name(void);
MS_SUITES(MS__DECLARE_SUITE)
MS_PAPER_SUITES(MS__DECLARE_SUITE)
MS_CONFORMANCE_SUITES(MS__DECLARE_SUITE)
