/* The one test runner.  Every Check program of the tree compiles it with
 * the suite list of its own directory, suites.h (found through -I), which
 * defines MS_SUITES(X): one X(name) per Suite *suite_NAME(void).  A
 * program may run another list of the same header by defining
 * MS_RUN_SUITES.  Reports in TAP on stdout, one line per test case, which
 * the automake TAP driver counts. */
#include <check.h>
#include <stdlib.h>

#include "suites.h"

#ifndef MS_RUN_SUITES
#define MS_RUN_SUITES MS_SUITES
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
