/* The rule-swap program's suite (test_rule_swap.c); tests/runner.c runs
 * it. */
#include <check.h>

#define MS_SUITES(X) X(rule_swap)

#define MS__DECLARE_SUITE(name) Suite *suite_##name(void);
MS_SUITES(MS__DECLARE_SUITE)
