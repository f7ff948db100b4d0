/* The central list of scene test suites (tests/scenes/test_NAME.c defines
 * Suite *suite_NAME(void)).  Plugins add theirs in their own runners. */
#define MS_SCENE_SUITES(X) \
  X(core_scenes) X(baselines) X(metrics) X(scale) X(sync_scenes) X(handover)
/* The paper's experiments: a program of their own (tests/scenes/run-paper),
 * so that they run beside the others under make -j. */
#define MS_PAPER_SUITES(X) X(paper)

#include <check.h>
#define MS__DECLARE_SCENE_SUITE(name) Suite *suite_##name(void);
MS_SCENE_SUITES(MS__DECLARE_SCENE_SUITE)
MS_PAPER_SUITES(MS__DECLARE_SCENE_SUITE)
