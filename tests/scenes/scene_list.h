/* The central list of scene test suites (tests/scenes/test_NAME.c defines
 * Suite *suite_NAME(void)).  Plugins add theirs in their own runners. */
#define MS_SCENE_SUITES(X) X(core_scenes) X(baselines) X(metrics) X(scale)

#include <check.h>
#define MS__DECLARE_SCENE_SUITE(name) Suite *suite_##name(void);
MS_SCENE_SUITES(MS__DECLARE_SCENE_SUITE)
