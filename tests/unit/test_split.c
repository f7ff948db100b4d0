/* Merging and splitting math (paper Eqs. 1-16, 20). */
#include <check.h>
#include <math.h>
#include <string.h>

#include "../../core/coupling/coupling.h"
#include "../../core/base/base.h"
#include "testutil.h"

/* Scale of a velocity set, for relative tolerances. */
static double vscale(const double *a, const double *b, const double *c) {
  return fmax(fmax(sqrt(ms__norm2(a)), sqrt(ms__norm2(b))),
              fmax(sqrt(ms__norm2(c)), 1e-300));
}

START_TEST(random_splits_conserve) {
  struct ms__rng r;
  ms__rng_seed(&r, 42, 0, 0);
  int roots = 0, ortho = 0;
  for (int c = 0; c < 20000; c++) {
    double m1 = exp(t_uniform(&r, -5, 5)), m2 = exp(t_uniform(&r, -5, 5));
    double v1[3], v2[3], n[3], V[3], v1p[3], v2p[3];
    double vs = exp(t_uniform(&r, -3, 3));
    t_vec(&r, vs, v1);
    t_vec(&r, vs, v2);
    t_vec(&r, 1.0, n);
    /* V: anything an integrator might produce around the merged velocity */
    double m = m1 + m2, vm[3], dv[3];
    ms__lin2(vm, v1, m1 / m, v2, m2 / m);
    t_vec(&r, vs * exp(t_uniform(&r, -4, 1)), dv);
    for (int a = 0; a < 3; a++) V[a] = vm[a] + dv[a];
    double de = 0.5 * m1 * m2 / m * (ms__norm2(v1) + ms__norm2(v2) - 2 * ms__dot(v1, v2));
    double E = t_uniform(&r, 0, 1) * de + t_uniform(&r, 0, 1) * t_ke(m, dv);
    int o = ms__split2(m1, m2, V, v1, v2, n, E, v1p, v2p);
    ortho += o;
    roots += !o;
    double sc = vscale(V, v1p, v2p);
    for (int a = 0; a < 3; a++) /* momentum */
      ck_assert_rel(m1 * v1p[a] + m2 * v2p[a], m * V[a], 1e-12,
                    m * sc);
    double ke = t_ke(m1, v1p) + t_ke(m2, v2p);
    ck_assert_rel(ke, t_ke(m, V) + E, 1e-12, 1e-300);
    double nh[3], l = sqrt(ms__norm2(n)), rel[3];
    for (int a = 0; a < 3; a++) nh[a] = n[a] / l;
    ms__sub(rel, v2p, v1p);
    /* Separation: >= 0; the orthogonal branch gives exactly 0
     * mathematically, so allow rounding there. */
    ck_assert_msg(ms__dot(rel, nh) >= -1e-12 * sc,
                  "case %d: separation %.3g < 0", c, ms__dot(rel, nh));
  }
  /* Both branches must be exercised, and substantially. */
  ck_assert_int_ge(roots, 2000);
  ck_assert_int_ge(ortho, 2000);
}
END_TEST

START_TEST(equal_masses_head_on_exchange) {
  double m = 2.0, x1[3] = {0, 0, 0}, x2[3] = {0.1, 0, 0};
  double v1[3] = {3, 0.5, -1}, v2[3] = {-2, 0.5, -1};
  double M, X[3], V[3], de, v1p[3], v2p[3], n[3];
  ms__merge2(m, x1, v1, m, x2, v2, &M, X, V, &de);
  ck_assert_rel(de, 0.5 * (m * m / (2 * m)) * 25.0, 1e-15, 1.0);
  ms__sub(n, x2, x1);
  /* an integrator that leaves the meta-particle alone */
  int o = ms__split2(m, m, V, v1, v2, n, 1.0 * de, v1p, v2p);
  ck_assert_int_eq(o, 0);
  for (int a = 0; a < 3; a++) {
    ck_assert_rel(v1p[a], v2[a], 1e-14, 1.0);
    ck_assert_rel(v2p[a], v1[a], 1e-14, 1.0);
  }
}
END_TEST

START_TEST(restitution_is_sqrt_alpha) {
  struct ms__rng r;
  ms__rng_seed(&r, 7, 0, 0);
  for (int c = 0; c < 200; c++) {
    double alpha = t_uniform(&r, 0, 1);
    double m1 = exp(t_uniform(&r, -3, 3)), m2 = exp(t_uniform(&r, -3, 3));
    double dir[3], v1[3], v2[3], x1[3] = {0, 0, 0}, x2[3], drift[3];
    t_vec(&r, 1.0, dir);
    double l = sqrt(ms__norm2(dir));
    t_vec(&r, 1.0, drift);
    double u = t_uniform(&r, 0.1, 5); /* closing speed */
    for (int a = 0; a < 3; a++) {
      dir[a] /= l;
      x2[a] = 0.2 * dir[a];
      v1[a] = drift[a] + u * dir[a]; /* head-on along the centre line */
      v2[a] = drift[a];
    }
    double M, X[3], V[3], de, v1p[3], v2p[3], n[3], rel[3];
    ms__merge2(m1, x1, v1, m2, x2, v2, &M, X, V, &de);
    ms__sub(n, x2, x1);
    ms__split2(m1, m2, V, v1, v2, n, alpha * de, v1p, v2p);
    ms__sub(rel, v2p, v1p);
    /* separating speed along n over closing speed == sqrt(alpha) */
    ck_assert_rel(ms__dot(rel, dir) / u, sqrt(alpha), 1e-12, 1e-6);
    ck_assert_rel(sqrt(ms__norm2(rel)), sqrt(alpha) * u, 1e-12, 1e-6);
  }
}
END_TEST

START_TEST(coincident_centres_still_separate) {
  double v1[3] = {1, 0, 0}, v2[3] = {-1, 0, 0}, n[3] = {0, 0, 0};
  double V[3] = {0, 0, 0}, v1p[3], v2p[3];
  ms__split2(1.0, 1.0, V, v1, v2, n, 1.0, v1p, v2p);
  ck_assert_rel(t_ke(1, v1p) + t_ke(1, v2p), 1.0, 1e-14, 1.0);
  /* the fallback normal is the approach direction v1 - v2 = +x */
  ck_assert(v2p[0] - v1p[0] >= 0.0);
}
END_TEST

/* Merge K random particles as a chain, move the meta-particle, split back:
 * momentum is M V and kinetic energy 1/2 M |V|^2 + sum_k E_k. */
START_TEST(recursive_chain_conserves) {
  struct ms__rng r;
  ms__rng_seed(&r, 99, 0, 0);
  enum { KMAX = 40 };
  for (int c = 0; c < 500; c++) {
    uint32_t K = 3 + (uint32_t)ms__rng_range(&r, 0, KMAX - 3);
    uint32_t sys[KMAX];
    double m[KMAX], x[3 * KMAX], v[3 * KMAX], n[3 * KMAX], va[3 * KMAX];
    double ma[KMAX], de[KMAX], share[KMAX], vout[3 * KMAX];
    uint8_t cross[KMAX];
    for (uint32_t k = 0; k < K; k++) {
      m[k] = exp(t_uniform(&r, -2, 2));
      sys[k] = (uint32_t)ms__rng_range(&r, 0, 2);
      t_vec(&r, 1.0, x + 3 * k);
      t_vec(&r, 3.0, v + 3 * k);
    }
    double M, X[3], V[3], p0[3] = {0, 0, 0}, ke0 = 0;
    ms__merge_chain(K, sys, m, x, v, n, va, ma, de, cross, &M, X, V);
    for (uint32_t k = 0; k < K; k++) {
      for (int a = 0; a < 3; a++) p0[a] += m[k] * v[3 * k + a];
      ke0 += t_ke(m[k], v + 3 * k);
    }
    /* merging conserves momentum and stores exactly the lost energy */
    double desum = 0;
    for (uint32_t k = 1; k < K; k++) desum += de[k];
    for (int a = 0; a < 3; a++) ck_assert_rel(M * V[a], p0[a], 1e-12, M);
    ck_assert_rel(t_ke(M, V) + desum, ke0, 1e-12, 1e-300);
    ms__sync_shares(K, m, ma, cross, share);
    double Vend[3], dek = t_uniform(&r, 0, 2), alpha = t_uniform(&r, 0, 1);
    double beta = t_uniform(&r, 0, 1), restored = 0;
    t_vec(&r, 3.0, Vend);
    ms__split_chain(K, m, v, n, va, ma, de, share, dek, alpha, beta, Vend,
                    vout, &restored);
    double p[3] = {0, 0, 0}, ke = 0, anycross = 0;
    for (uint32_t k = 0; k < K; k++) {
      for (int a = 0; a < 3; a++) p[a] += m[k] * vout[3 * k + a];
      ke += t_ke(m[k], vout + 3 * k);
      anycross += k > 0 && cross[k]; /* nodes are k >= 1 */
    }
    double E = alpha * desum + (anycross ? beta * dek : 0.0);
    ck_assert_rel(restored, E, 1e-12, 1e-300);
    for (int a = 0; a < 3; a++)
      ck_assert_rel(p[a], M * Vend[a], 1e-12, M * 3.0);
    ck_assert_rel(ke, t_ke(M, Vend) + E, 1e-12, 1e-300);
  }
}
END_TEST

START_TEST(two_particle_share_is_whole) {
  double m[2] = {1.0, 3.0}, ma[2] = {0.0, 1.0}, share[2];
  uint8_t cross[2] = {0, 1};
  ms__sync_shares(2, m, ma, cross, share);
  ck_assert_rel(share[1], 1.0, 0.0, 1.0);
  cross[1] = 0; /* same system: no sync energy to restore */
  ms__sync_shares(2, m, ma, cross, share);
  ck_assert_rel(share[1], 0.0, 0.0, 1.0);
}
END_TEST


/* The spin a merge and split take (doc/sync.md section 7).  Merged and
 * not split apart (vout = Vf): all of the members' spin about their
 * centre, for two members mu (x1 - x2) x (v1 - v2).  Split back to their
 * own velocities (vout - Vf = v - V): none.  And in random chains, the
 * angular momentum about the origin of the members after the split plus
 * D equals the merged meta-particle's plus the members' spin before. */
START_TEST(split_spin_is_what_the_cycle_takes) {
  double m[2] = {1.5, 0.5}, x[6] = {0.1, 0.2, -0.3, 0.4, -0.1, 0.2};
  double v[6] = {1.0, -2.0, 0.5, -0.3, 0.7, 2.0}, X[3], V[3], D[3];
  double vout[6], rel[3], dv[3], want[3];
  for (int a = 0; a < 3; a++) {
    X[a] = (m[0] * x[a] + m[1] * x[3 + a]) / 2.0;
    V[a] = (m[0] * v[a] + m[1] * v[3 + a]) / 2.0;
    vout[a] = vout[3 + a] = V[a];
  }
  ms__sub(rel, x, x + 3);
  ms__sub(dv, v, v + 3);
  ms__cross(want, rel, dv);
  ms__split_spin(2, m, x, v, vout, X, V, V, D);
  for (int a = 0; a < 3; a++)
    ck_assert_rel(D[a], 0.375 * want[a], 1e-14, 1.0); /* mu = 3/8 */
  ms__split_spin(2, m, x, v, v, X, V, V, D);
  for (int a = 0; a < 3; a++) ck_assert_double_eq_tol(D[a], 0.0, 1e-15);
  struct ms__rng r;
  ms__rng_seed(&r, 7, 0, 0);
  enum { K = 6 };
  for (int c = 0; c < 200; c++) {
    uint32_t sys[K];
    double mk[K], xk[3 * K], vk[3 * K], n[3 * K], va[3 * K], ma[K], de[K];
    double share[K], vo[3 * K], M, Xc[3], Vc[3], Vend[3], restored = 0.0;
    double L0[3] = {0, 0, 0}, L1[3] = {0, 0, 0}, c3[3], S0[3] = {0, 0, 0};
    uint8_t cross[K];
    for (uint32_t k = 0; k < K; k++) {
      mk[k] = exp(t_uniform(&r, -2, 2)), sys[k] = k % 2;
      t_vec(&r, 1.0, xk + 3 * k);
      t_vec(&r, 3.0, vk + 3 * k);
    }
    ms__merge_chain(K, sys, mk, xk, vk, n, va, ma, de, cross, &M, Xc, Vc);
    ms__sync_shares(K, mk, ma, cross, share);
    t_vec(&r, 3.0, Vend);
    ms__split_chain(K, mk, vk, n, va, ma, de, share, 0.5, 0.7, 0.3, Vend, vo,
                    &restored);
    ms__split_spin(K, mk, xk, vk, vo, Xc, Vc, Vend, D);
    for (uint32_t k = 0; k < K; k++) {
      double rr[3], u[3];
      ms__sub(rr, xk + 3 * k, Xc);
      ms__sub(u, vk + 3 * k, Vc);
      ms__cross(c3, rr, u);
      for (int a = 0; a < 3; a++) S0[a] += mk[k] * c3[a];
      ms__cross(c3, xk + 3 * k, vo + 3 * k);
      for (int a = 0; a < 3; a++) L1[a] += mk[k] * c3[a];
    }
    ms__cross(c3, Xc, Vend);
    for (int a = 0; a < 3; a++) L0[a] = M * c3[a] + S0[a];
    for (int a = 0; a < 3; a++)
      ck_assert_rel(L1[a] + D[a], L0[a], 1e-12, 1.0);
  }
}
END_TEST

Suite *suite_split(void) {
  Suite *s = suite_create("split");
  TCase *tc = tcase_create("math");
  tcase_add_test(tc, random_splits_conserve);
  tcase_add_test(tc, equal_masses_head_on_exchange);
  tcase_add_test(tc, restitution_is_sqrt_alpha);
  tcase_add_test(tc, coincident_centres_still_separate);
  tcase_add_test(tc, recursive_chain_conserves);
  tcase_add_test(tc, two_particle_share_is_whole);
  tcase_add_test(tc, split_spin_is_what_the_cycle_takes);
  suite_add_tcase(s, tc);
  return s;
}
