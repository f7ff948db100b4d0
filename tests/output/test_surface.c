/* Fluid surfaces for the output (core/io/surface.c): closed, outward,
 * holding the particles' volume; and refusals that name the system. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"

#include "../../core/io/io.h"
#include "../../core/base/base.h"

#define MAXP 8192

struct cloud {
  size_t n;
  double x[3 * MAXP], r[MAXP];
  struct ms_field f[2];
  struct ms_view v;
};

static void cloud_view(struct cloud *c) {
  c->f[0] = (struct ms_field){"position", MS_TYPE_F64, 3, 3 * sizeof(double),
                              c->x};
  c->f[1] = (struct ms_field){"radius", MS_TYPE_F64, 1, sizeof(double), c->r};
  c->v = (struct ms_view){sizeof c->v, 2, c->n, c->f};
}

/* Lattice points of spacing d in [0, a) x [0, b) x [0, c) that `keep`
 * accepts (NULL: all), centred on the lattice's cells. */
static void lattice(struct cloud *c, int a, int b, int k, double d,
                    int (*keep)(const double *)) {
  c->n = 0;
  for (int z = 0; z < k; z++)
    for (int y = 0; y < b; y++)
      for (int x = 0; x < a; x++) {
        double p[3] = {(x + 0.5) * d, (y + 0.5) * d, (z + 0.5) * d};
        if (keep && !keep(p)) continue;
        ck_assert_uint_lt(c->n, MAXP);
        memcpy(c->x + 3 * c->n, p, sizeof p);
        c->r[c->n++] = 0.5 * d;
      }
  cloud_view(c);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Every directed edge once, and its reverse once: closed and oriented. */
static void assert_closed(const struct ms__surface_mesh *m) {
  size_t ne = 3 * m->nt;
  uint64_t *e = malloc(ne * sizeof *e);
  ck_assert_ptr_nonnull(e);
  for (size_t t = 0; t < m->nt; t++)
    for (int q = 0; q < 3; q++) {
      uint64_t a = m->tri[3 * t + q], b = m->tri[3 * t + (q + 1) % 3];
      ck_assert_uint_lt(a, m->nv);
      ck_assert_uint_ne(a, b);
      e[3 * t + q] = a << 32 | b;
    }
  qsort(e, ne, sizeof *e, cmp_u64);
  for (size_t i = 0; i < ne; i++) {
    if (i) ck_assert_msg(e[i] != e[i - 1], "edge %llu used twice in one "
                         "direction", (unsigned long long)e[i]);
    uint64_t rev = (e[i] & 0xffffffffu) << 32 | e[i] >> 32;
    ck_assert_msg(bsearch(&rev, e, ne, sizeof *e, cmp_u64) != NULL,
                  "edge %llu has no opposite: the surface is open",
                  (unsigned long long)e[i]);
  }
  free(e);
}

static struct cloud C;

START_TEST(a_block_is_closed_outward_and_holds_its_volume) {
  const double d = 0.1;
  lattice(&C, 10, 12, 8, d, NULL);
  struct ms__surface_mesh m = {0};
  struct ms__err err = {0};
  ck_assert_int_eq(ms__surface_build(&m, &C.v, "block", 0.5, 1.5, &err), 0);
  ck_assert_uint_gt(m.nt, 1000);
  assert_closed(&m);
  double V = ms__surface_volume(&m), want = C.n * d * d * d;
  ck_assert_msg(fabs(V / want - 1) < 0.02, "volume %g, particles' %g", V,
                want);
  const double mid[3] = {0.5, 0.6, 0.4};
  for (size_t i = 0; i < m.nv; i++) {
    const double *x = m.x + 3 * i, *n = m.normal + 3 * i;
    double out = (x[0] - mid[0]) * n[0] + (x[1] - mid[1]) * n[1] +
                 (x[2] - mid[2]) * n[2];
    ck_assert_msg(out > 0, "vertex %zu's normal points inwards", i);
    ck_assert(fabs(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1) < 1e-12);
  }
  /* the faces lie half a spacing past the last layer, within a tenth */
  for (size_t i = 0; i < m.nv; i++) {
    const double *x = m.x + 3 * i;
    ck_assert(x[0] > -0.15 * d && x[0] < 1.0 + 0.15 * d);
    ck_assert(x[1] > -0.15 * d && x[1] < 1.2 + 0.15 * d);
  }
  /* reused for a second frame: the same mesh */
  size_t nt = m.nt;
  ck_assert_int_eq(ms__surface_build(&m, &C.v, "block", 0.5, 1.5, &err), 0);
  ck_assert_uint_eq(m.nt, nt);
  ck_assert(ms__surface_volume(&m) == V);
  ms__surface_free(&m);
}
END_TEST

static int in_ball(const double *p) {
  double x = p[0] - 1, y = p[1] - 1, z = p[2] - 1;
  return x * x + y * y + z * z < 0.9 * 0.9;
}

START_TEST(a_ball_is_round_and_holds_its_volume) {
  const double d = 0.1;
  lattice(&C, 20, 20, 20, d, in_ball);
  struct ms__surface_mesh m = {0};
  struct ms__err err = {0};
  ck_assert_int_eq(ms__surface_build(&m, &C.v, "drop", 0.5, 1.5, &err), 0);
  assert_closed(&m);
  double want = C.n * d * d * d, V = ms__surface_volume(&m);
  ck_assert_msg(fabs(V / want - 1) < 0.03, "volume %g, particles' %g", V,
                want);
  double R = cbrt(3 * want / (4 * M_PI));
  for (size_t i = 0; i < m.nv; i++) {
    const double *x = m.x + 3 * i;
    double r = sqrt((x[0] - 1) * (x[0] - 1) + (x[1] - 1) * (x[1] - 1) +
                    (x[2] - 1) * (x[2] - 1));
    ck_assert_msg(fabs(r - R) < 0.5 * d, "vertex at %g from the centre, "
                  "the ball's radius %g", r, R);
  }
  ms__surface_free(&m);
}
END_TEST

START_TEST(two_drops_two_closed_surfaces) {
  const double d = 0.1;
  lattice(&C, 6, 6, 6, d, NULL);
  size_t n = C.n;
  for (size_t i = 0; i < n; i++) { /* a copy, 1 m along x */
    memcpy(C.x + 3 * (n + i), C.x + 3 * i, 3 * sizeof(double));
    C.x[3 * (n + i)] += 1.0;
    C.r[n + i] = C.r[i];
  }
  C.n = 2 * n;
  cloud_view(&C);
  struct ms__surface_mesh m = {0}, one = {0};
  struct ms__err err = {0};
  ck_assert_int_eq(ms__surface_build(&m, &C.v, "drops", 0.5, 1.5, &err), 0);
  assert_closed(&m);
  C.v.count = n;
  ck_assert_int_eq(ms__surface_build(&one, &C.v, "drop", 0.5, 1.5, &err), 0);
  ck_assert_uint_eq(m.nt, 2 * one.nt);
  ck_assert(fabs(ms__surface_volume(&m) - 2 * ms__surface_volume(&one)) <
            1e-12);
  ms__surface_free(&m);
  ms__surface_free(&one);
}
END_TEST

START_TEST(nothing_a_lone_particle_and_bad_views) {
  struct ms__surface_mesh m = {0};
  struct ms__err err = {0};
  lattice(&C, 1, 1, 1, 0.1, NULL);
  /* a lone particle peaks at 0.46 of the level: smaller than the kernel,
   * it has no surface (doc/surfaces.md) */
  ck_assert_int_eq(ms__surface_build(&m, &C.v, "spray", 0.5, 1.5, &err), 0);
  ck_assert_uint_eq(m.nt, 0);
  C.v.count = 0;
  ck_assert_int_eq(ms__surface_build(&m, &C.v, "none", 0.5, 1.5, &err), 0);
  ck_assert_uint_eq(m.nt, 0);
  C.v.count = 1;
  C.v.field_count = 1; /* no radius */
  ck_assert_int_eq(ms__surface_build(&m, &C.v, "water", 0.5, 1.5, &err),
                   MS_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.msg, "system 'water'"));
  /* a particle gone NaN (the step's last write, before the next step's
   * check) has no place on the grid: the others' surface is unchanged */
  lattice(&C, 6, 6, 6, 0.1, NULL);
  struct ms__surface_mesh clean = {0};
  ck_assert_int_eq(ms__surface_build(&clean, &C.v, "water", 0.5, 1.5, &err),
                   0);
  C.x[3 * C.n] = NAN, C.x[3 * C.n + 1] = C.x[3 * C.n + 2] = 0.3;
  C.r[C.n] = 0.05;
  C.v.count = C.n + 1;
  ck_assert_int_eq(ms__surface_build(&m, &C.v, "water", 0.5, 1.5, &err), 0);
  ck_assert_uint_eq(m.nt, clean.nt);
  ck_assert(ms__surface_volume(&m) == ms__surface_volume(&clean));
  ms__surface_free(&clean);
  lattice(&C, 2, 1, 1, 1e-6, NULL);
  C.x[3] = 1e3; /* a particle flung 1 km away */
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(ms__surface_build(&m, &C.v, "water", 0.5, 1.5, &err),
                   MS_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.msg, "raise output.surface_cell"));
  ms__surface_free(&m);
}
END_TEST

Suite *suite_surface(void) {
  Suite *s = suite_create("surface");
  TCase *t = tcase_create("core");
  tcase_add_test(t, a_block_is_closed_outward_and_holds_its_volume);
  tcase_add_test(t, a_ball_is_round_and_holds_its_volume);
  tcase_add_test(t, two_drops_two_closed_surfaces);
  tcase_add_test(t, nothing_a_lone_particle_and_bad_views);
  tcase_set_timeout(t, 60);
  suite_add_tcase(s, t);
  return s;
}
