/* The output unit tests (checksum, atomic files, writers, colours,
 * camera): tests/output/test_output_unit.c; tests/runner.c runs them. */
#include <check.h>

#define MS_SUITES(X) X(output) X(surface)
/* tests/output/run-toy-format: a format added by one file and one row. */
#define MS_TOY_FORMAT_SUITES(X) X(toy_format)

#define MS__DECLARE_SUITE(name) Suite *suite_##name(void);
MS_SUITES(MS__DECLARE_SUITE)
MS_TOY_FORMAT_SUITES(MS__DECLARE_SUITE)
