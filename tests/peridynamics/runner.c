/* Runs the peridynamics suites of pd_list.h; TAP on stdout. */
#include <check.h>
#include <stdlib.h>

#include "pd_list.h"

int main(void) {
  SRunner *sr = srunner_create(NULL);
#define ADD(name) srunner_add_suite(sr, suite_##name());
  PD_SUITES(ADD)
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
