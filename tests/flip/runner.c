/* Runs the flip plugin's suites, TAP on stdout (one line per test case). */
#include <check.h>
#include <stdlib.h>

#include "suites.h"

int main(void) {
  SRunner *sr = srunner_create(NULL);
#define ADD(name) srunner_add_suite(sr, suite_##name());
  FLIP_SUITES(ADD)
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
