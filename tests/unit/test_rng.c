/* Seeded random numbers: reproducible and in range. */
#include <check.h>
#include <stdlib.h>

#include "../../core/base/base.h"

#include "suites.h"

START_TEST(same_seed_same_stream) {
  struct ms__rng a, b, c;
  ms__rng_seed(&a, 1, 2, 3);
  ms__rng_seed(&b, 1, 2, 3);
  ms__rng_seed(&c, 1, 2, 4);
  int differ = 0;
  for (int i = 0; i < 1000; i++) {
    uint64_t x = ms__rng_u64(&a), y = ms__rng_u64(&b), z = ms__rng_u64(&c);
    ck_assert_uint_eq(x, y);
    differ += x != z;
  }
  ck_assert_int_gt(differ, 990);
}
END_TEST

START_TEST(range_is_inclusive_and_uniform) {
  struct ms__rng r;
  int hist[8] = {0};
  ms__rng_seed(&r, 9, 0, 0);
  for (int i = 0; i < 80000; i++) {
    uint64_t v = ms__rng_range(&r, 8, 15);
    ck_assert(v >= 8 && v <= 15);
    hist[v - 8]++;
  }
  for (int k = 0; k < 8; k++) /* 10000 expected; 5 sigma ~ 470 */
    ck_assert_int_lt(abs(hist[k] - 10000), 500);
  for (int i = 0; i < 1000; i++) {
    double u = ms__rng_uniform(&r);
    ck_assert(u >= 0.0 && u < 1.0);
  }
}
END_TEST

Suite *suite_rng(void) {
  Suite *s = suite_create("rng");
  TCase *tc = tcase_create("streams");
  tcase_add_test(tc, same_seed_same_stream);
  tcase_add_test(tc, range_is_inclusive_and_uniform);
  suite_add_tcase(s, tc);
  return s;
}
