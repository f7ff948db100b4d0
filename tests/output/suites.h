/* The output unit tests (checksum, atomic files, writers, colours,
 * camera): tests/output/test_output_unit.c; tests/runner.c runs them. */
#include <check.h>

#define MS_SUITES(X) X(output)

#define MS__DECLARE_SUITE(name) Suite *suite_##name(void);
MS_SUITES(MS__DECLARE_SUITE)
