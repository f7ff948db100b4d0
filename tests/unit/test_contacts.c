/* Contact impulses between meta-particles the size limit keeps apart. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/coupling/coupling.h"
#include "../../core/detection/detection.h"
#include "../../core/base/base.h"
#include "testutil.h"

/* A random cloud of two systems, merged with small limits (singles on):
 * many pairs join different meta-particles. */
struct cloud {
  struct ms__particles P;
  struct ms__detect d;
  struct ms__groups G;
  struct ms__metaset M;
};

static void cloud_make(struct cloud *c, size_t n, uint64_t seed) {
  struct ms__rng r;
  memset(c, 0, sizeof *c);
  ms__rng_seed(&r, seed, 0, 0);
  struct ms__particles *P = &c->P;
  P->n = P->cap = n;
  P->x = malloc(3 * n * sizeof *P->x);
  P->v = malloc(3 * n * sizeof *P->v);
  P->m = malloc(n * sizeof *P->m);
  P->r = malloc(n * sizeof *P->r);
  P->sys = malloc(n * sizeof *P->sys);
  P->local = malloc(n * sizeof *P->local);
  for (size_t i = 0; i < n; i++) {
    t_vec(&r, 1.0, P->x + 3 * i);
    t_vec(&r, 2.0, P->v + 3 * i);
    P->m[i] = exp(t_uniform(&r, -2.0, 2.0));
    P->r[i] = 0.08;
    P->sys[i] = (uint32_t)(i % 2);
    P->local[i] = (uint32_t)(i / 2);
  }
  ms__detect_init(&c->d);
  struct ms__detect_input in = {n, P->x, P->r, NULL, NULL, 0.0, 0.0};
  size_t bad;
  ck_assert_int_eq(ms__detect_pairs(&c->d, &in, &bad), 0);
  ms__rng_seed(&r, seed, 1, 1);
  ck_assert_int_eq(ms__group(&c->G, n, c->d.pairs, c->d.npairs, 2, 4, 1, &r),
                   0);
  ck_assert_int_eq(ms__metaset_build(&c->M, &c->G, P), 0);
  /* as synchronisation leaves them: the merged velocity, kept over dt */
  struct ms__metaset *M = &c->M;
  memset(M->econ, 0, M->nentries);
  for (uint32_t k = 0; k < M->count; k++)
    for (int a = 0; a < 3; a++) {
      M->vfin[3 * k + a] = M->vel[3 * k + a];
      M->disp[3 * k + a] = 0.01 * M->vel[3 * k + a];
    }
}

static void cloud_free(struct cloud *c) {
  free(c->P.x), free(c->P.v), free(c->P.m), free(c->P.r), free(c->P.sys);
  free(c->P.local);
  ms__detect_free(&c->d);
  ms__groups_free(&c->G);
  ms__metaset_free(&c->M);
}

static void totals(const struct ms__metaset *M, double *p, double *ke) {
  p[0] = p[1] = p[2] = *ke = 0.0;
  for (uint32_t k = 0; k < M->count; k++) {
    for (int a = 0; a < 3; a++) p[a] += M->mass[k] * M->vfin[3 * k + a];
    *ke += t_ke(M->mass[k], M->vfin + 3 * k);
  }
}

START_TEST(singles_complete_the_groups) {
  struct cloud c;
  cloud_make(&c, 3000, 11);
  struct ms__groups G0 = {0};
  struct ms__rng r;
  ms__rng_seed(&r, 11, 1, 1);
  ms__group(&G0, 3000, c.d.pairs, c.d.npairs, 2, 4, 0, &r);
  /* the merged groups are those drawn without singles */
  ck_assert_uint_eq(c.G.merged, G0.count);
  ck_assert(!memcmp(c.G.offset, G0.offset, (G0.count + 1) * sizeof(uint32_t)));
  ck_assert(!memcmp(c.G.member, G0.member,
                    G0.offset[G0.count] * sizeof(uint32_t)));
  ck_assert_uint_gt(c.G.count, c.G.merged); /* some particles left alone */
  for (uint32_t k = c.G.merged; k < c.G.count; k++)
    ck_assert_uint_eq(c.G.offset[k + 1] - c.G.offset[k], 1);
  /* every particle of a pair is in exactly the group mark names */
  for (size_t q = 0; q < 2 * c.d.npairs; q++) {
    uint32_t p = c.d.pairs[q], k = c.G.mark[p];
    ck_assert_uint_lt(k, c.G.count);
    int found = 0;
    for (uint32_t s = c.G.offset[k]; s < c.G.offset[k + 1]; s++)
      found |= c.G.member[s] == p;
    ck_assert(found);
  }
  ck_assert_uint_eq(c.M.merged, c.G.merged);
  ms__groups_free(&G0);
  cloud_free(&c);
}
END_TEST

/* Sum of the approach speeds -n . dv over the approaching contacts;
 * their number in *n. */
static double approaching(const struct ms__contacts *C,
                          const struct ms__metaset *M, size_t *n) {
  double sum = 0.0;
  *n = 0;
  for (size_t q = 0; q < C->count; q++) {
    double dv[3];
    ms__sub(dv, M->vfin + 3 * C->body[2 * q + 1],
            M->vfin + 3 * C->body[2 * q]);
    double vn = ms__dot(C->normal + 3 * q, dv);
    if (vn < 0.0) sum -= vn, (*n)++;
  }
  return sum;
}

/* Momentum is exact; inelastic impulses only take energy, and the ledger
 * holds what they took; elastic ones keep it. */
static void check_conservation(double restitution) {
  struct cloud c;
  cloud_make(&c, 3000, 12);
  struct ms__metaset *M = &c.M;
  struct ms__contacts C = {0};
  ck_assert_int_eq(ms__contacts_find(&C, M, c.G.mark, c.P.x, c.d.pairs,
                                     c.d.npairs), 0);
  ck_assert_uint_gt(C.count, 500);
  size_t before, after;
  double speed0 = approaching(&C, M, &before);
  ck_assert_uint_gt(before, 100);
  double p0[3], k0, p1[3], k1, *d0 = malloc(3 * M->count * sizeof *d0);
  memcpy(d0, M->disp, 3 * M->count * sizeof *d0);
  totals(M, p0, &k0);
  struct ms__ledger L = {0};
  ms__contacts_resolve(&C, M, restitution, 0.01, &L);
  totals(M, p1, &k1);
  double pscale = 0.0;
  for (uint32_t k = 0; k < M->count; k++)
    pscale += M->mass[k] * sqrt(ms__norm2(M->vfin + 3 * k));
  for (int a = 0; a < 3; a++) ck_assert_rel(p1[a], p0[a], 1e-13, pscale);
  ck_assert_uint_ge(L.contacts, before);
  ck_assert_rel(L.contact, k0 - k1, 1e-12, k0);
  if (restitution == 0.0) {
    ck_assert(k1 < k0);
    double speed1 = approaching(&C, M, &after);
    ck_assert(speed1 < 1e-2 * speed0); /* a dense cloud: far from exact */
  } else {
    ck_assert_rel(k1, k0, 1e-12, k0);
  }
  /* displacements follow the velocity change over dt */
  for (uint32_t k = 0; k < M->count; k++)
    for (int a = 0; a < 3; a++)
      ck_assert_rel(M->disp[3 * k + a] - d0[3 * k + a],
                    0.01 * (M->vfin[3 * k + a] - M->vel[3 * k + a]), 1e-9,
                    1e-12);
  free(d0);
  ms__contacts_free(&C);
  cloud_free(&c);
}

START_TEST(inelastic_keeps_momentum_and_takes_energy) {
  check_conservation(0.0);
}
END_TEST

START_TEST(elastic_keeps_momentum_and_energy) { check_conservation(1.0); }
END_TEST

/* Two bodies, one contact: the textbook impulse; a constrained body does
 * not move and the other stops approaching it. */
START_TEST(one_contact_analytic) {
  struct ms__particles P = {0};
  double x[6] = {0, 0, 0, 0.1, 0.05, 0}, v[6] = {1, 0, 0, -2, 1, 0};
  double m[2] = {1.0, 3.0}, rr[2] = {0.1, 0.1};
  uint32_t sys[2] = {0, 1}, local[2] = {0, 0}, pair[2] = {0, 1};
  P.n = P.cap = 2, P.x = x, P.v = v, P.m = m, P.r = rr, P.sys = sys;
  P.local = local;
  for (int con = 0; con < 2; con++) {
    struct ms__groups G = {0};
    struct ms__metaset M = {0};
    struct ms__contacts C = {0};
    struct ms__rng r;
    ms__rng_seed(&r, 1, 0, 0);
    /* a limit of 2 to 2 still merges the pair; use two singles instead */
    ck_assert_int_eq(ms__group(&G, 2, pair, 1, 2, 2, 1, &r), 0);
    G.count = G.merged = 0;
    for (uint32_t p = 0; p < 2; p++) G.mark[p] = UINT32_MAX;
    G.offset[0] = 0;
    for (uint32_t p = 0; p < 2; p++) { /* the singles add_singles makes */
      G.mark[p] = G.count;
      G.member[p] = p;
      G.offset[++G.count] = p + 1;
    }
    ck_assert_int_eq(ms__metaset_build(&M, &G, &P), 0);
    for (uint32_t e = 0; e < M.nentries; e++) M.econ[e] = con && e == 0;
    memcpy(M.vfin, v, sizeof v);
    memset(M.disp, 0, sizeof v);
    ck_assert_int_eq(ms__contacts_find(&C, &M, G.mark, x, pair, 1), 0);
    ck_assert_uint_eq(C.count, 1);
    struct ms__ledger L = {0};
    ms__contacts_resolve(&C, &M, 0.5, 0.1, &L);
    double n[3] = {0.1, 0.05, 0}, len = sqrt(0.0125);
    for (int a = 0; a < 3; a++) n[a] /= len;
    double vn = ms__dot(n, (double[3]){-3, 1, 0}); /* < 0: approaching */
    double wa = con ? 0.0 : 1.0, wb = 1.0 / 3.0;
    double J = -1.5 * vn / (wa + wb);
    for (int a = 0; a < 3; a++) {
      ck_assert_rel(M.vfin[a], v[a] - J * wa * n[a], 1e-14, 1.0);
      ck_assert_rel(M.vfin[3 + a], v[3 + a] + J * wb * n[a], 1e-14, 1.0);
      ck_assert_rel(M.disp[3 + a], 0.1 * J * wb * n[a], 1e-14, 1.0);
    }
    double dv[3];
    ms__sub(dv, M.vfin + 3, M.vfin);
    ck_assert_rel(ms__dot(n, dv), -0.5 * vn, 1e-14, 1.0); /* e = 0.5 */
    ck_assert_uint_eq(L.contacts, 1);
    ms__groups_free(&G);
    ms__metaset_free(&M);
    ms__contacts_free(&C);
  }
}
END_TEST

Suite *suite_contacts(void) {
  Suite *s = suite_create("contacts");
  TCase *tc = tcase_create("impulses");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, singles_complete_the_groups);
  tcase_add_test(tc, inelastic_keeps_momentum_and_takes_energy);
  tcase_add_test(tc, elastic_keeps_momentum_and_energy);
  tcase_add_test(tc, one_contact_analytic);
  suite_add_tcase(s, tc);
  return s;
}
