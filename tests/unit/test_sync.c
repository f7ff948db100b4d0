/* Velocity synchronisation (paper Eqs. 17-19, k systems). */
#include <check.h>

#include <string.h>

#include <mergesplit/plugin.h>
#include <mergesplit/plugin_util.h>

#include "../../core/coupling/coupling.h"
#include "../../core/base/base.h"
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
  double vfin[3], disp[3], dek[1] = {-1.0}, vel[3] = {0, 0, 0};
  uint8_t coll[1] = {0};
  double pdef[3], pexch[1];
  struct ms__metaset M = {.count = 1, .eoff = eoff, .esys = esys,
                          .emass = emass, .evel = evel, .edisp = edisp,
                          .econ = econ, .vfin = vfin, .disp = disp,
                          .dek = dek, .vel = vel, .coll = coll,
                          .pdef = pdef, .pexch = pexch};
  struct ms__ledger L = {0};
  const double g0[3] = {0.0, 0.0, 0.0};
  ms__metaset_sync(&M, MS__SYNC_PAPER, 0.01, g0, &L);
  for (int a = 0; a < 3; a++)
    ck_assert(vfin[a] == evel[6 + a] && disp[a] == edisp[6 + a]);
  ck_assert(dek[0] == 0.0 && L.stored == 0.0);
  econ[2] = 0; /* no pin: the wall's result */
  ms__metaset_sync(&M, MS__SYNC_PAPER, 0.01, g0, &L);
  for (int a = 0; a < 3; a++)
    ck_assert(vfin[a] == evel[3 + a] && disp[a] == edisp[3 + a]);
  ck_assert(dek[0] == 0.0 && L.stored == 0.0);
  ms__metaset_sync(&M, MS__SYNC_MOMENTUM, 0.01, g0, &L); /* the same rule */
  for (int a = 0; a < 3; a++)
    ck_assert(vfin[a] == evel[3 + a] && disp[a] == edisp[3 + a]);
  /* a wall's or a pin's impulse is external: no coupling defect counted */
  ck_assert(L.pexch == 0.0 && L.pdefect[0] == 0.0 && L.pdefect[1] == 0.0 &&
            L.pdefect[2] == 0.0);
}
END_TEST

/* ---- the momentum rule (doc/sync.md) ------------------------------------ */

/* One meta-particle over k systems, as the step builds it. */
struct one_meta {
  uint32_t eoff[2], esys[6];
  double emass[6], evel[18], edisp[18], ecoll[36], eweight[36], eimp[18];
  double ew[6];
  uint8_t elead[6], lead[6];
  uint8_t econ[6], coll[1];
  double mass[1], vel[3], vfin[3], disp[3], dek[1], inertia[6];
  double pdef[3], pexch[1];
  struct ms__metaset M;
  /* what each system receives */
  uint32_t entry[6], meta[6];
  double smass[6], sinertia[36], scoll[36], vsync[18], imp[18], dsync[18];
  struct ms__sysmetas S[6];
};

static void one_meta_init(struct one_meta *o, uint32_t k, double mass,
                          const double *v) {
  memset(o, 0, sizeof *o);
  o->eoff[1] = k;
  o->mass[0] = mass;
  ms__copy3(o->vel, v);
  o->M = (struct ms__metaset){
      .count = 1, .nentries = k, .eoff = o->eoff, .esys = o->esys,
      .emass = o->emass, .evel = o->evel, .edisp = o->edisp,
      .econ = o->econ, .vfin = o->vfin, .disp = o->disp, .dek = o->dek,
      .vel = o->vel, .mass = o->mass, .coll = o->coll,
      .inertia = o->inertia, .ecoll = o->ecoll, .eweight = o->eweight,
      .eimp = o->eimp, .ew = o->ew, .elead = o->elead, .pdef = o->pdef,
      .pexch = o->pexch};
  for (uint32_t s = 0; s < k; s++) {
    o->ew[s] = 1.0;
    o->esys[s] = s;
    o->entry[s] = s;
    o->smass[s] = mass;
    ms_sym3_scalar(o->sinertia + 6 * s, mass);
    o->S[s] = (struct ms__sysmetas){
        .count = 1, .entry = o->entry + s, .meta = o->meta + s,
        .mass = o->smass + s, .inertia = o->sinertia + 6 * s,
        .coll = o->scoll + 6 * s, .vsync = o->vsync + 3 * s,
        .imp = o->imp + 3 * s, .dsync = o->dsync + 3 * s,
        .lead = o->lead + s};
  }
}

/* Collective response as the step runs it: every system states C_s
 * (scoll), then each learns the inertia it integrates with (use[s]: enum
 * ms__inertia_use). */
static void one_meta_inertia(struct one_meta *o, uint32_t k, const int *use) {
  for (uint32_t s = 0; s < k; s++)
    if (use[s] == MS__INERTIA_OWN) ms__sysmetas_own_mass(&o->S[s], &o->M);
  for (uint32_t s = 0; s < k; s++)
    ms__sysmetas_state_inertia(&o->S[s], &o->M);
  ms__metaset_inertia(&o->M);
  for (uint32_t s = 0; s < k; s++)
    ms__sysmetas_inertia(&o->S[s], &o->M, use[s]);
}

/* Without collective inertia every system's impulse beyond gravity counts
 * in full (V = v + g dt + sum (v^s - v - g dt)), a system that integrated
 * with its own mass (MS_PLUGIN_META_OWN_MASS) with that share of it;
 * nothing is stored for beta; members move by dt V.  The paper's rule on
 * the same results is the mass-weighted mean. */
START_TEST(momentum_rule_sums_the_impulses) {
  struct ms__rng r;
  struct one_meta o;
  ms__rng_seed(&r, 7, 0, 0);
  const double g[3] = {0.0, -9.81, 0.0}, dt = 1e-3;
  for (int c = 0; c < 500; c++) {
    uint32_t k = 2 + (uint32_t)ms__rng_range(&r, 0, 4);
    double v[3], M = 0.0;
    t_vec(&r, 2.0, v);
    one_meta_init(&o, k, 1.0, v);
    for (uint32_t s = 0; s < k; s++) {
      o.emass[s] = exp(t_uniform(&r, -2, 2));
      M += o.emass[s];
      t_vec(&r, 2.0, o.evel + 3 * s);
    }
    o.mass[0] = M;
    uint32_t own = (uint32_t)ms__rng_range(&r, 0, k); /* k: none */
    if (own < k) ms__sysmetas_own_mass(&o.S[own], &o.M);
    struct ms__ledger L = {0};
    ms__metaset_sync(&o.M, MS__SYNC_MOMENTUM, dt, g, &L);
    for (int a = 0; a < 3; a++) {
      double want = v[a] + g[a] * dt;
      for (uint32_t s = 0; s < k; s++)
        want += (s == own ? o.emass[s] / M : 1.0) *
                (o.evel[3 * s + a] - v[a] - g[a] * dt);
      ck_assert_rel(o.vfin[a], want, 1e-13, 10.0);
      ck_assert(o.disp[a] == dt * o.vfin[a]);
    }
    ck_assert(o.dek[0] == 0.0 && L.stored == 0.0);
    /* the momentum the rule created or lost: none (to round-off), of an
     * exchange of sum_s |J_s| */
    double xch = 0.0, lost[3] = {0, 0, 0};
    for (uint32_t s = 0; s < k; s++) {
      double u[3], w = s == own ? o.emass[s] / M : 1.0;
      for (int a = 0; a < 3; a++) u[a] = o.evel[3 * s + a] - v[a] - g[a] * dt;
      xch += w * M * sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
      /* Eq. 17 weighs system s by m_s / M where it gave w M u_s */
      for (int a = 0; a < 3; a++) lost[a] += (o.emass[s] - w * M) * u[a];
    }
    ck_assert_rel(L.pexch, xch, 1e-13, 1.0);
    for (int a = 0; a < 3; a++) ck_assert(fabs(L.pdefect[a]) <= 1e-13 * xch);
    double p[3] = {0, 0, 0};
    for (uint32_t s = 0; s < k; s++)
      for (int a = 0; a < 3; a++) p[a] += o.emass[s] * o.evel[3 * s + a];
    struct ms__ledger L2 = {0};
    ms__metaset_sync(&o.M, MS__SYNC_PAPER, dt, g, &L2);
    for (int a = 0; a < 3; a++) ck_assert_rel(o.vfin[a], p[a] / M, 1e-13, 1.0);
    ck_assert(o.dek[0] > 0.0 && L2.stored == o.dek[0]);
    for (int a = 0; a < 3; a++)
      ck_assert(fabs(L2.pdefect[a] - lost[a]) <= 1e-12 * xch);
  }
}
END_TEST

/* A random symmetric positive semidefinite tensor (rank 0 to 3). */
static void t_psd(struct ms__rng *r, double *C) {
  ms_sym3_scalar(C, 0.0);
  int rank = (int)ms__rng_range(r, 0, 4);
  for (int i = 0; i < rank; i++) {
    double d[3];
    t_vec(r, 1.0, d);
    ms_sym3_add_outer(C, d, exp(t_uniform(r, -3, 3)));
  }
}

/* With collective inertia, whatever each system integrated with (the
 * tensor, the scalar or its own mass), the meta-particle's momentum
 * change plus the impulses the systems take back balances the impulses
 * they gave:  M u + sum_s (K_s - m_s u_s) = 0  (u = V - v - g dt).
 * With two or more statements every stating system FOLLOWS (K_s = C_s
 * (V - v^s)); with one, it LEADS: it receives G, the others' impulse, and
 * answers (here with the kit's per-meta answer, ms_meta_lead_lump); the
 * meta-particle ends as it says.  A system that stated nothing is handed
 * no impulse. */
START_TEST(collective_response_balances_momentum) {
  struct ms__rng r;
  struct one_meta o;
  ms__rng_seed(&r, 8, 0, 0);
  const double g[3] = {0.0, 0.0, -9.81}, dt = 2e-3;
  int leads = 0, follows = 0;
  for (int c = 0; c < 1000; c++) {
    uint32_t k = 2 + (uint32_t)ms__rng_range(&r, 0, 4), stating = 0;
    double v[3], M = exp(t_uniform(&r, -2, 2));
    int use[6]; /* enum ms__inertia_use */
    t_vec(&r, 2.0, v);
    one_meta_init(&o, k, M, v);
    for (uint32_t s = 0; s < k; s++) {
      o.emass[s] = M / k;
      t_vec(&r, 2.0, o.evel + 3 * s);
      t_vec(&r, 0.01, o.edisp + 3 * s);
      if (ms__rng_range(&r, 0, 2) == 0) t_psd(&r, o.scoll + 6 * s);
      stating += !ms_sym3_is_zero(o.scoll + 6 * s);
      use[s] = (int)ms__rng_range(&r, 0, 2); /* inclusive */
    }
    one_meta_inertia(&o, k, use);
    struct ms__ledger L = {0};
    ms__metaset_sync(&o.M, MS__SYNC_MOMENTUM, dt, g, &L);
    double K[18];
    int lead_s = -1;
    for (uint32_t s = 0; s < k; s++) {
      ms__sysmetas_response(&o.S[s], &o.M);
      /* the only stating system leads unless it weighs with its own mass */
      int states = !ms_sym3_is_zero(o.scoll + 6 * s);
      ck_assert_int_eq(o.lead[s], stating == 1 && states &&
                                      use[s] != MS__INERTIA_OWN);
      ms__copy3(K + 3 * s, o.imp + 3 * s);
      if (!o.lead[s]) continue;
      leads++;
      lead_s = (int)s;
      ms_meta_lead_lump(o.scoll + 6 * s, o.sinertia + 6 * s, o.imp + 3 * s,
                        dt, o.vsync + 3 * s, o.dsync + 3 * s, K + 3 * s);
      ms__sysmetas_led(&o.S[s], &o.M);
    }
    follows += stating > 1;
    double bal[3], scale = 0.0;
    for (int a = 0; a < 3; a++) bal[a] = M * (o.vfin[a] - v[a] - g[a] * dt);
    for (uint32_t s = 0; s < k; s++) {
      double us[3], mu[3], *ms_ = o.sinertia + 6 * s;
      for (int a = 0; a < 3; a++) us[a] = o.evel[3 * s + a] - v[a] - g[a] * dt;
      if (use[s] == MS__INERTIA_TENSOR) {
        ms_sym3_mul(mu, ms_, us);
      } else {
        double m = use[s] == MS__INERTIA_OWN ? o.emass[s] : o.smass[s];
        for (int a = 0; a < 3; a++) mu[a] = m * us[a];
      }
      for (int a = 0; a < 3; a++) {
        bal[a] += K[3 * s + a] - mu[a];
        scale = fmax(scale, fabs(mu[a]) + fabs(K[3 * s + a]));
      }
      if (ms_sym3_is_zero(o.scoll + 6 * s))
        for (int a = 0; a < 3; a++) ck_assert(K[3 * s + a] == 0.0);
    }
    for (int a = 0; a < 3; a++) {
      ck_assert_msg(fabs(bal[a]) <= 1e-12 * scale, "case %d: imbalance %g "
                    "of %g", c, bal[a], scale);
      /* members move as the leader says, else by dt V */
      ck_assert(o.disp[a] == (lead_s >= 0 ? o.dsync[3 * lead_s + a]
                                          : dt * o.vfin[a]));
    }
  }
  ck_assert(leads > 100 && follows > 100); /* both roles were exercised */
}
END_TEST

/* One backward-Euler step of a meta-particle (inertia tensor I at rest
 * velocity v) joined to neighbours j by linear springs K_j = k_j d_j d_j^T
 * stretched by e_j, all under gravity.  Bodies 0 (meta) and 1.. nb
 * (neighbours, masses n[j], velocities w[j]); writes the end velocities. */
static void t_backward_euler(int nb, const double *I, const double *v,
                             const double *n, const double *w,
                             const double *K, const double *e,
                             const double *g, double dt, double *out) {
  double A[9][10];
  int N = 3 * (nb + 1);
  memset(A, 0, sizeof A);
  /* unknowns: velocities; rows: momentum of each body */
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      int ab = a == b ? a : a + b + 2; /* xy = 3, xz = 4, yz = 5 */
      A[a][b] = I[ab];
    }
  for (int a = 0; a < 3; a++) {
    double Iv[3];
    ms_sym3_mul(Iv, I, v);
    double Ig[3];
    ms_sym3_mul(Ig, I, g);
    A[a][N] = Iv[a] + dt * Ig[a];
  }
  for (int j = 0; j < nb; j++) {
    int o = 3 * (j + 1);
    const double *Kj = K + 6 * j;
    double Ke[3];
    ms_sym3_mul(Ke, Kj, e + 3 * j);
    for (int a = 0; a < 3; a++) {
      A[o + a][o + a] += n[j];
      A[o + a][N] = n[j] * (w[3 * j + a] + dt * g[a]) - dt * Ke[a];
      A[a][N] += dt * Ke[a];
      for (int b = 0; b < 3; b++) {
        int ab = a == b ? a : a + b + 2;
        double h = dt * dt * Kj[ab];
        /* force on the meta: dt K (e + dt (w' - v')) */
        A[a][b] += h, A[a][o + b] -= h;
        A[o + a][o + b] += h, A[o + a][b] -= h;
      }
    }
  }
  t_solve(N, A);
  for (int i = 0; i < N; i++) out[i] = A[i][N];
}

/* doc/sync.md section 5: a meta-particle between two linear implicit
 * systems, each joining it by a spring to one neighbour.  Each system
 * states the Schur complement of its neighbour, C_s = dt^2 n_s K_s
 * (n_s + dt^2 K_s)^-1, integrates with the other's added, and takes K_s
 * back on its neighbour: the meta-particle's and both neighbours' end
 * velocities are those of ONE backward-Euler step of all three bodies. */
START_TEST(collective_response_is_monolithic_for_one_ring) {
  struct ms__rng r;
  struct one_meta o;
  ms__rng_seed(&r, 9, 0, 0);
  const double g[3] = {0.0, -9.81, 0.0};
  int use[2] = {MS__INERTIA_TENSOR, MS__INERTIA_TENSOR};
  for (int c = 0; c < 200; c++) {
    double dt = exp(t_uniform(&r, log(1e-4), log(1e-2)));
    double M = exp(t_uniform(&r, -2, 2)), v[3], n[2], w[6], K[12], e[6];
    t_vec(&r, 1.0, v);
    for (int j = 0; j < 2; j++) {
      double d[3];
      t_vec(&r, 1.0, d);
      double l = sqrt(ms__norm2(d));
      for (int a = 0; a < 3; a++) d[a] /= l;
      n[j] = exp(t_uniform(&r, -2, 2));
      ms_sym3_scalar(K + 6 * j, 0.0); /* from soft to very stiff */
      ms_sym3_add_outer(K + 6 * j, d, exp(t_uniform(&r, 0, 14)));
      t_vec(&r, 1.0, w + 3 * j);
      t_vec(&r, 0.01, e + 3 * j);
    }
    double mono[9], Mi[6];
    ms_sym3_scalar(Mi, M);
    t_backward_euler(2, Mi, v, n, w, K, e, g, dt, mono);

    one_meta_init(&o, 2, M, v);
    for (int s = 0; s < 2; s++) { /* stated: the neighbour's Schur part */
      double k = ms_sym3_trace(K + 6 * s), d[3] = {0, 0, 0};
      /* K = k d d^T with |d| = 1: recover d from the tensor's diagonal */
      for (int a = 0; a < 3; a++) d[a] = sqrt(K[6 * s + a] / k);
      if (K[6 * s + 3] < 0) d[1] = -d[1];
      if (K[6 * s + 4] * d[0] * d[2] < 0) d[2] = -d[2];
      ms_sym3_add_outer(o.scoll + 6 * s, d,
                        dt * dt * n[s] * k / (n[s] + dt * dt * k));
      o.emass[s] = M / 2;
    }
    one_meta_inertia(&o, 2, use);
    double part[2][6];
    for (int s = 0; s < 2; s++) { /* each system alone */
      t_backward_euler(1, o.sinertia + 6 * s, v, n + s, w + 3 * s,
                       K + 6 * s, e + 3 * s, g, dt, part[s]);
      ms__copy3(o.evel + 3 * s, part[s]);
    }
    struct ms__ledger L = {0};
    ms__metaset_sync(&o.M, MS__SYNC_MOMENTUM, dt, g, &L);
    for (int a = 0; a < 3; a++)
      ck_assert_rel(o.vfin[a], mono[a], 1e-9, 1.0);
    for (int s = 0; s < 2; s++) {
      ms__sysmetas_response(&o.S[s], &o.M);
      for (int a = 0; a < 3; a++) /* the neighbour takes K_s */
        ck_assert_rel(part[s][3 + a] + o.imp[3 * s + a] / n[s],
                      mono[3 * (s + 1) + a], 1e-9, 1.0);
    }
  }
}
END_TEST

Suite *suite_sync(void) {
  Suite *s = suite_create("sync");
  TCase *tc = tcase_create("math");
  tcase_add_test(tc, two_systems_reduce_to_eqs_17_19);
  tcase_add_test(tc, k_systems_energy_difference);
  tcase_add_test(tc, a_pin_outranks_a_wall);
  tcase_add_test(tc, momentum_rule_sums_the_impulses);
  tcase_add_test(tc, collective_response_balances_momentum);
  tcase_add_test(tc, collective_response_is_monolithic_for_one_ring);
  suite_add_tcase(s, tc);
  return s;
}
