/* Velocity synchronisation (paper Eqs. 17-19, k systems). */
#include <check.h>

#include <mergesplit/plugin.h>

#include "../../core/metas.h"
#include "../../core/sync.h"
#include "../../core/vec3.h"
#include "testutil.h"

START_TEST(two_systems_reduce_to_eqs_17_19) {
  struct ms__rng r;
  ms__rng_seed(&r, 5, 0, 0);
  for (int c = 0; c < 1000; c++) {
    double M[2] = {exp(t_uniform(&r, -3, 3)), exp(t_uniform(&r, -3, 3))};
    double vs[6], v[3];
    t_vec(&r, 4.0, vs);
    t_vec(&r, 4.0, vs + 3);
    double dek = ms__sync(2, M, vs, v);
    double m12 = M[0] + M[1], d[3];
    for (int a = 0; a < 3; a++) /* Eq. 17 */
      ck_assert_rel(v[a], (M[0] * vs[a] + M[1] * vs[3 + a]) / m12, 1e-14, 4.0);
    ms__sub(d, vs, vs + 3); /* Eq. 19 */
    ck_assert_rel(dek, M[0] * M[1] / (2 * m12) * ms__norm2(d), 1e-12, 1e-300);
  }
}
END_TEST

START_TEST(k_systems_energy_difference) {
  struct ms__rng r;
  ms__rng_seed(&r, 6, 0, 0);
  for (int c = 0; c < 1000; c++) {
    uint32_t k = 1 + (uint32_t)ms__rng_range(&r, 0, 5);
    double M[6], vs[18], v[3], Mt = 0, ke = 0, p[3] = {0, 0, 0};
    for (uint32_t s = 0; s < k; s++) {
      M[s] = exp(t_uniform(&r, -2, 2));
      t_vec(&r, 2.0, vs + 3 * s);
      Mt += M[s];
      ke += t_ke(M[s], vs + 3 * s);
      for (int a = 0; a < 3; a++) p[a] += M[s] * vs[3 * s + a];
    }
    double dek = ms__sync(k, M, vs, v);
    ck_assert(dek >= 0.0);
    for (int a = 0; a < 3; a++) ck_assert_rel(Mt * v[a], p[a], 1e-13, Mt);
    /* dEk = 1/2 sum M_s |v_s|^2 - 1/2 M |v'|^2 */
    ck_assert_rel(dek, ke - t_ke(Mt, v), 1e-10, ke);
    if (k == 1) ck_assert(dek == 0.0);
  }
}
END_TEST

/* One meta-particle over three systems: free (0), touching a wall (1),
 * pinned (2).  The pin's result stands, not averaged with the wall's; with
 * the wall alone, the wall's; neither stores synchronisation energy. */
START_TEST(a_pin_outranks_a_wall) {
  uint32_t eoff[2] = {0, 3}, esys[3] = {0, 1, 2};
  double emass[3] = {1.0, 2.0, 3.0};
  double evel[9] = {1, 2, 3, 4, 5, 6, 0.5, 0, 0};
  double edisp[9] = {.01, .02, .03, .04, .05, .06, .005, 0, 0};
  uint8_t econ[3] = {0, MS_CONSTRAINED, MS_PINNED};
  double vfin[3], disp[3], dek[1] = {-1.0};
  struct ms__metaset M = {.count = 1, .eoff = eoff, .esys = esys,
                          .emass = emass, .evel = evel, .edisp = edisp,
                          .econ = econ, .vfin = vfin, .disp = disp,
                          .dek = dek};
  struct ms__ledger L = {0};
  ms__metaset_sync(&M, 0.01, &L);
  for (int a = 0; a < 3; a++)
    ck_assert(vfin[a] == evel[6 + a] && disp[a] == edisp[6 + a]);
  ck_assert(dek[0] == 0.0 && L.stored == 0.0);
  econ[2] = 0; /* no pin: the wall's result */
  ms__metaset_sync(&M, 0.01, &L);
  for (int a = 0; a < 3; a++)
    ck_assert(vfin[a] == evel[3 + a] && disp[a] == edisp[3 + a]);
  ck_assert(dek[0] == 0.0 && L.stored == 0.0);
}
END_TEST

Suite *suite_sync(void) {
  Suite *s = suite_create("sync");
  TCase *tc = tcase_create("math");
  tcase_add_test(tc, two_systems_reduce_to_eqs_17_19);
  tcase_add_test(tc, k_systems_energy_difference);
  tcase_add_test(tc, a_pin_outranks_a_wall);
  suite_add_tcase(s, tc);
  return s;
}
