/* The pressure projection: divergence removed, closed components,
 * hydrostatics, PCG against CHOLMOD, thread independence. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flip_fixture.h"
#include "suites.h"

static const double LO[3] = {0.0, 0.0, 0.0};

static struct flip_sim *sim_new(int nx, int ny, int nz, double h,
                                const struct flip_box *ob, int nob) {
  struct flip_sim *S = malloc(sizeof *S);
  int n[3] = {nx, ny, nz};
  ck_assert_int_eq(flip_sim_init(S, LO, n, h, ob, nob), 0);
  return S;
}

static void sim_del(struct flip_sim *S) {
  flip_sim_free(S);
  free(S);
}

/* Random fluid cells (probability `fill`, below row `top`), obstacles
 * kept solid, random face velocities, walls applied. */
static void random_case(struct flip_sim *S, struct fx_rng *r, double fill,
                        int top) {
  struct flip_grid *g = &S->g;
  flip_mark_reset(g, 1);
  for (int k = 0; k < g->n[2]; k++)
    for (int j = 0; j < g->n[1]; j++)
      for (int i = 0; i < g->n[0]; i++) {
        size_t c = flip_cell(g, i, j, k);
        if (g->cell[c] != FLIP_SOLID && j < top && fx_uniform(r, 0, 1) < fill)
          g->cell[c] = FLIP_FLUID;
      }
  fx_random_faces(g, r);
  flip_solid_bc(g, 1);
}

/* Copy of every face velocity. */
static void snapshot(const struct flip_grid *g, double *out[3]) {
  for (int a = 0; a < 3; a++) {
    out[a] = malloc(g->nface[a] * sizeof(double));
    memcpy(out[a], g->u[a], g->nface[a] * sizeof(double));
  }
}

/* Does face (a; i, j, k) touch a fluid cell? */
static int touches_fluid(const struct flip_grid *g, int a, int i, int j,
                         int k) {
  int fluid = 0;
  for (int s = -1; s <= 0; s++) {
    int c[3] = {i, j, k};
    c[a] += s;
    if (c[a] >= 0 && c[a] < g->n[a])
      fluid |= g->cell[flip_cell(g, c[0], c[1], c[2])] == FLIP_FLUID;
  }
  return fluid;
}

/* Faces that touch no fluid cell, and solid faces, are untouched. */
static void check_untouched(const struct flip_grid *g, double *before[3]) {
  for (int a = 0; a < 3; a++) {
    const int *fn = g->fn[a];
    for (int k = 0; k < fn[2]; k++)
      for (int j = 0; j < fn[1]; j++)
        for (int i = 0; i < fn[0]; i++) {
          size_t f = (size_t)i + (size_t)fn[0] * (j + (size_t)fn[1] * k);
          if (flip_face_solid(g, a, i, j, k))
            ck_assert(g->u[a][f] == 0.0);
          else if (!touches_fluid(g, a, i, j, k))
            ck_assert(g->u[a][f] == before[a][f]);
        }
    free(before[a]);
  }
}

static void divergence_case(int method, double want, uint64_t seed) {
  struct flip_box ob[2] = {{{0.55, 0.15, 0.25}, {0.85, 0.55, 0.65}},
                           {{1.2, 0.0, 0.0}, {1.4, 0.3, 1.0}}};
  struct flip_sim *S = sim_new(16, 12, 10, 0.1, ob, 2);
  struct fx_rng r = {seed};
  random_case(S, &r, 0.8, 9);
  double d0, d1, rms0, rms1, *before[3];
  flip_divergence(&S->g, &d0, &rms0);
  snapshot(&S->g, before);
  struct flip_solve_stats st;
  S->solve.method = method;
  ck_assert_int_eq(flip_project(&S->g, &S->poisson, &S->solve, &st), 0);
  flip_divergence(&S->g, &d1, &rms1);
  ck_assert(d0 > 0.5);
  ck_assert(fabs(st.div_before - d0) <= 1e-12 * d0);
  fprintf(stderr, "# %s seed %llu: max |div| %.3g -> %.3g (ratio %.3g), "
          "%zu unknowns, %d iterations\n", method ? "cholmod" : "pcg",
          (unsigned long long)seed, d0, d1, d1 / d0, st.unknowns,
          st.iterations);
  ck_assert_msg(d1 / d0 < want, "method %d seed %llu: max |div| %g -> %g "
                "(%.3g) in %d iterations", method, (unsigned long long)seed,
                d0, d1, d1 / d0, st.iterations);
  ck_assert(rms1 / rms0 < want);
  ck_assert(st.converged);
  check_untouched(&S->g, before);
  sim_del(S);
}

START_TEST(random_fields_pcg) {
  for (uint64_t seed = 1; seed <= 6; seed++)
    divergence_case(FLIP_SOLVER_PCG, 1e-6, seed);
}
END_TEST

START_TEST(random_fields_cholmod) {
  for (uint64_t seed = 1; seed <= 3; seed++)
    divergence_case(FLIP_SOLVER_CHOLMOD, 1e-11, seed);
}
END_TEST

/* A tank full of fluid has no free surface: each closed component is
 * pinned and still becomes divergence-free. */
START_TEST(closed_components) {
  struct flip_box wall = {{0.0, 0.0, 0.42}, {1.0, 1.0, 0.52}};
  for (int method = 0; method < 2; method++) {
    struct flip_sim *S = sim_new(10, 10, 10, 0.1, &wall, 1);
    struct fx_rng r = {21};
    random_case(S, &r, 1.0, 10);
    ck_assert_uint_eq(flip_count_cells(&S->g, FLIP_SOLID), 100);
    double d0, d1, rms;
    flip_divergence(&S->g, &d0, &rms);
    struct flip_solve_stats st;
    S->solve.method = method;
    ck_assert_int_eq(flip_project(&S->g, &S->poisson, &S->solve, &st), 0);
    flip_divergence(&S->g, &d1, &rms);
    ck_assert_uint_eq(st.pinned, 2);
    ck_assert_uint_eq(st.unknowns, 900);
    ck_assert_msg(d1 / d0 < 1e-6, "method %d: %g", method, d1 / d0);
    sim_del(S);
  }
}
END_TEST

/* Water at rest D cells deep: gravity is held exactly by the discrete
 * hydrostatic pressure phi_j = g dt (D - j), nothing moves, and the air
 * above gets the water's (zero) velocity, not free fall. */
START_TEST(hydrostatic_column) {
  const int D = 7;
  const double dt = 0.01, g[3] = {0.0, -9.81, 0.0};
  struct flip_sim *S = sim_new(5, 12, 4, 0.1, NULL, 0);
  struct flip_grid *G = &S->g;
  flip_mark_reset(G, 1);
  for (size_t c = 0; c < G->ncell; c++)
    if ((int)(c / G->n[0] % G->n[1]) < D) G->cell[c] = FLIP_FLUID;
  for (int a = 0; a < 3; a++) memset(G->u[a], 0, G->nface[a] * sizeof(double));
  struct flip_solve_stats st;
  ck_assert_int_eq(flip_sim_project(S, g, dt, &st), 0);
  double umax = 0.0, perr = 0.0;
  /* the water's faces, and the air's, extrapolated from them */
  for (int a = 0; a < 3; a++)
    for (size_t f = 0; f < G->nface[a]; f++)
      umax = fmax(umax, fabs(G->u[a][f]));
  for (size_t c = 0; c < G->ncell; c++) {
    int j = (int)(c / G->n[0] % G->n[1]);
    double want = j < D ? 9.81 * dt * (D - j) : 0.0;
    perr = fmax(perr, fabs(S->poisson.pressure[c] - want));
  }
  ck_assert_msg(umax < 1e-6 * 9.81 * dt, "water moves: %g", umax);
  ck_assert_msg(perr < 1e-6 * 9.81 * dt * D, "pressure off by %g", perr);
  sim_del(S);
}
END_TEST

/* The solve starts from the last step's pressure scaled to the new dt:
 * for water at rest that guess is already the answer (phi is linear in dt),
 * so a second step, even with half the dt, needs no iteration. */
START_TEST(warm_start_reuses_pressure) {
  const double g[3] = {0.0, -9.81, 0.0};
  struct flip_sim *S = sim_new(6, 10, 5, 0.1, NULL, 0);
  struct flip_grid *G = &S->g;
  int its[3];
  for (int step = 0; step < 3; step++) {
    double dt = step == 2 ? 0.005 : 0.01, d, rms;
    flip_mark_reset(G, 1);
    for (size_t c = 0; c < G->ncell; c++)
      if ((int)(c / G->n[0] % G->n[1]) < 6) G->cell[c] = FLIP_FLUID;
    for (int a = 0; a < 3; a++)
      memset(G->u[a], 0, G->nface[a] * sizeof(double));
    struct flip_solve_stats st;
    ck_assert_int_eq(flip_sim_project(S, g, dt, &st), 0);
    flip_divergence(G, &d, &rms);
    ck_assert_msg(d < 1e-6 * st.div_before, "step %d: div %g", step, d);
    ck_assert(fabs(st.div_before - 9.81 * dt) < 1e-12);
    its[step] = st.iterations;
  }
  ck_assert_int_gt(its[0], 3);
  ck_assert_int_eq(its[1], 0);
  ck_assert_int_eq(its[2], 0);
  /* without the warm start the second step iterates again */
  S->warm_start = 0;
  struct flip_solve_stats st;
  for (int a = 0; a < 3; a++) memset(G->u[a], 0, G->nface[a] * sizeof(double));
  ck_assert_int_eq(flip_sim_project(S, g, 0.01, &st), 0);
  ck_assert_int_eq(st.iterations, its[0]);
  sim_del(S);
}
END_TEST

/* PCG and sparse Cholesky agree on the pressure. */
START_TEST(pcg_matches_cholmod) {
  double *phi[2];
  for (int method = 0; method < 2; method++) {
    struct flip_sim *S = sim_new(14, 12, 10, 0.1, NULL, 0);
    struct fx_rng r = {31};
    random_case(S, &r, 0.9, 10);
    struct flip_solve_stats st;
    S->solve.method = method;
    S->solve.tolerance = 1e-10;
    ck_assert_int_eq(flip_project(&S->g, &S->poisson, &S->solve, &st), 0);
    phi[method] = malloc(S->g.ncell * sizeof(double));
    memcpy(phi[method], S->poisson.pressure, S->g.ncell * sizeof(double));
    if (method) {
      double scale = 0.0, diff = 0.0;
      for (size_t c = 0; c < S->g.ncell; c++) {
        scale = fmax(scale, fabs(phi[1][c]));
        diff = fmax(diff, fabs(phi[1][c] - phi[0][c]));
      }
      ck_assert(scale > 0.1);
      ck_assert_msg(diff <= 1e-7 * scale, "differ by %g of %g", diff, scale);
    }
    sim_del(S);
  }
  free(phi[0]), free(phi[1]);
}
END_TEST

/* A random field over 76800 unknowns becomes divergence-free, and the
 * solve gives bitwise the same pressure on 1 and 2 threads (big enough
 * that the parallel path runs). */
START_TEST(pcg_thread_independent) {
  double *phi1 = NULL, *u1 = NULL;
  int it1 = 0;
  for (int t = 1; t <= 2; t++) {
    struct flip_sim *S = sim_new(48, 48, 40, 0.02, NULL, 0);
    struct fx_rng r = {41};
    random_case(S, &r, 1.0, 40);
    struct flip_solve_stats st;
    double d0, d1, rms;
    flip_divergence(&S->g, &d0, &rms);
    S->solve.threads = t;
    ck_assert_int_eq(flip_project(&S->g, &S->poisson, &S->solve, &st), 0);
    flip_divergence(&S->g, &d1, &rms);
    fprintf(stderr, "# pcg, %d threads, random field: max |div| %.3g -> "
            "%.3g (ratio %.3g), %zu unknowns, %d iterations\n", t, d0, d1,
            d1 / d0, st.unknowns, st.iterations);
    ck_assert_msg(d1 / d0 < 1e-6, "divergence ratio %g", d1 / d0);
    ck_assert_uint_ge(st.unknowns, FLIP_PAR_MIN);
    ck_assert(st.converged);
    size_t nc = S->g.ncell, nf = S->g.nface[1];
    if (t == 1) {
      phi1 = malloc(nc * sizeof(double));
      u1 = malloc(nf * sizeof(double));
      memcpy(phi1, S->poisson.pressure, nc * sizeof(double));
      memcpy(u1, S->g.u[1], nf * sizeof(double));
      it1 = st.iterations;
    } else {
      ck_assert_int_eq(st.iterations, it1);
      ck_assert(!memcmp(phi1, S->poisson.pressure, nc * sizeof(double)));
      ck_assert(!memcmp(u1, S->g.u[1], nf * sizeof(double)));
    }
    sim_del(S);
  }
  free(phi1), free(u1);
}
END_TEST

/* Sum of u^2 over the faces that touch a fluid cell (and are not solid);
 * `own` alone: only the faces the fluid's particles weigh. */
static double face_energy(const struct flip_grid *g, int own) {
  double e = 0.0;
  for (int a = 0; a < 3; a++) {
    const int *fn = g->fn[a];
    for (int k = 0; k < fn[2]; k++)
      for (int j = 0; j < fn[1]; j++)
        for (int i = 0; i < fn[0]; i++) {
          size_t f = (size_t)i + (size_t)fn[0] * (j + (size_t)fn[1] * k);
          if (!touches_fluid(g, a, i, j, k) || flip_face_solid(g, a, i, j, k))
            continue;
          if (own && g->valid[a][f] != 1) continue;
          e += g->u[a][f] * g->u[a][f];
        }
  }
  return e;
}

/* Cells that only another system's particles occupy join the solve (paper
 * Sec. 6.2), but hold no fluid: the projection may not hand the fluid more
 * energy than its own faces carried.  A block of fluid drifting with
 * random particle velocities around a common one, wrapped in a shell of
 * cells holding other particles, ends with at most the kinetic energy of
 * its own faces, and the shell's faces no fluid particle weighs start at
 * rest.  (Velocities extrapolated from the fluid into the shell would be
 * fluid that is not there: the drift then keeps them, and the fluid ends
 * with more energy than it had.) */
START_TEST(other_cells_add_no_energy) {
  for (uint64_t seed = 1; seed <= 4; seed++) {
    struct flip_sim *S = sim_new(12, 12, 12, 0.1, NULL, 0);
    struct flip_grid *g = &S->g;
    struct fx_rng r = {seed};
    flip_mark_reset(g, 1);
    for (int k = 4; k < 8; k++)
      for (int j = 4; j < 8; j++)
        for (int i = 4; i < 8; i++) g->cell[flip_cell(g, i, j, k)] = 1;
    double *x, *v, *m;
    size_t n = fx_lattice(g, FLIP_FLUID, 0.5, &r, &x);
    v = malloc(3 * n * sizeof *v);
    m = malloc(n * sizeof *m);
    const double drift[3] = {0.8, -0.5, 0.3};
    for (size_t p = 0; p < n; p++) {
      m[p] = 1.0;
      for (int a = 0; a < 3; a++)
        v[3 * p + a] = drift[a] + fx_uniform(&r, -0.2, 0.2);
    }
    ck_assert_int_eq(flip_sim_to_grid(S, x, v, m, NULL, n), 0);
    double shell[3 * 6 * 6 * 6];
    size_t ns = 0;
    for (int k = 3; k < 9; k++)
      for (int j = 3; j < 9; j++)
        for (int i = 3; i < 9; i++) {
          if (i > 3 && i < 8 && j > 3 && j < 8 && k > 3 && k < 8) continue;
          int ijk[3] = {i, j, k};
          for (int a = 0; a < 3; a++)
            shell[3 * ns + a] = g->lo[a] + (ijk[a] + 0.5) * g->h;
          ns++;
        }
    flip_mark_points(g, shell, ns);
    ck_assert_uint_eq(flip_count_cells(g, FLIP_FLUID), 6 * 6 * 6);
    double own = face_energy(g, 1), all = face_energy(g, 0);
    ck_assert_msg(all == own, "shell faces hold %g", all - own);
    struct flip_solve_stats st;
    ck_assert_int_eq(flip_project(&S->g, &S->poisson, &S->solve, &st), 0);
    double after = face_energy(g, 0);
    fprintf(stderr, "# seed %llu: fluid's own faces %.6g, after the "
            "projection %.6g\n", (unsigned long long)seed, own, after);
    ck_assert_msg(after <= own * (1.0 + 1e-12), "%g > %g", after, own);
    free(x), free(v), free(m);
    sim_del(S);
  }
}
END_TEST

Suite *suite_flip_pressure(void) {
  Suite *s = suite_create("flip_pressure");
  TCase *t = tcase_create("projection");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, random_fields_pcg);
  tcase_add_test(t, random_fields_cholmod);
  tcase_add_test(t, closed_components);
  tcase_add_test(t, hydrostatic_column);
  tcase_add_test(t, warm_start_reuses_pressure);
  tcase_add_test(t, pcg_matches_cholmod);
  tcase_add_test(t, pcg_thread_independent);
  tcase_add_test(t, other_cells_add_no_energy);
  suite_add_tcase(s, t);
  return s;
}
