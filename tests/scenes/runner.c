/* Runs the scene suites of scene_list.h (MS_RUN_SUITES, by default
 * MS_SCENE_SUITES), TAP on stdout. */
#include <check.h>
#include <stdlib.h>

#include "scene_list.h"

#ifndef MS_RUN_SUITES
#define MS_RUN_SUITES MS_SCENE_SUITES
#endif

int main(void) {
  SRunner *sr = srunner_create(NULL);
#define ADD(name) srunner_add_suite(sr, suite_##name());
  MS_RUN_SUITES(ADD)
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
