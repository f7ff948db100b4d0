/* Several liquids in one flip system: the variable-density projection
 * against closed forms, and oil rising out of water (issue acceptance:
 * the share of oil above the interface the volumes predict, the share of
 * oil particles with no oil neighbour). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../scenes/simtest.h"
#include "flip_fixture.h"
#include "suites.h"

static const double LO[3] = {0.0, 0.0, 0.0};

/* A 5 x 12 x 4 tank of cells 0.1 m; particles (8 per cell) in the lowest
 * D cells of every column, density rho_lo below row J, rho_hi from it; at
 * rest.  pv: each particle's volume times rho0 = rho_lo (NULL: the one-
 * density path, all particles of mass rho_lo (h/2)^3). */
enum { D = 7, J = 4 };

static struct flip_sim *layered(double rho_lo, double rho_hi, int phases,
                                double **xs, double **pvs, double **ms) {
  struct flip_sim *S = malloc(sizeof *S);
  const int n[3] = {5, 12, 4};
  ck_assert_int_eq(flip_sim_init(S, LO, n, 0.1, NULL, 0), 0);
  struct flip_grid *g = &S->g;
  flip_mark_reset(g, 1);
  for (size_t c = 0; c < g->ncell; c++)
    if ((int)(c / g->n[0] % g->n[1]) < D) g->cell[c] = FLIP_FLUID;
  double *x;
  size_t np = fx_lattice(g, FLIP_FLUID, 0.0, NULL, &x);
  ck_assert_uint_eq(np, 8 * 5 * D * 4);
  double *v = calloc(3 * np, sizeof *v), *m = malloc(np * sizeof *m);
  double *pv = malloc(np * sizeof *pv), s3 = 0.05 * 0.05 * 0.05;
  for (size_t p = 0; p < np; p++) {
    double rho = x[3 * p + 1] < J * g->h ? rho_lo : rho_hi;
    m[p] = rho * s3;
    pv[p] = m[p] * (rho_lo / rho);
  }
  S->pv = phases ? pv : NULL;
  ck_assert_int_eq(flip_sim_to_grid(S, x, v, m, NULL, np), 0);
  free(v);
  *xs = x, *pvs = pv, *ms = m;
  return S;
}

static void release(struct flip_sim *S, double *x, double *pv, double *m) {
  flip_sim_free(S);
  free(S), free(x), free(pv), free(m);
}

/* Water under a layer half as dense, at rest: the projection keeps every
 * face at rest and each cell's pressure is the closed form
 *   p_j = |g| h sum over the faces above j of rho_f,
 * rho_f = 1000 on the water's faces, 500 on the light layer's and their
 * mean 750 on the face between (its trilinear stencil holds as much of
 * either); that is the continuous column with the surface at the air
 * cell's centre: |g| (1000 (J - j - 1/2) + 500 (D - J + 1/2)) h below
 * the interface.  Both solvers; beta of the pure faces exactly 1 and 2. */
START_TEST(two_layer_hydrostatics) {
  for (int method = 0; method < 2; method++) {
    double *x, *pv, *m;
    struct flip_sim *S = layered(1000.0, 500.0, 1, &x, &pv, &m);
    struct flip_grid *g = &S->g;
    const double dt = 0.01, grav[3] = {0.0, -9.81, 0.0};
    S->solve.method = method;
    S->solve.tolerance = 1e-10;
    ck_assert(g->weighted);
    /* the y faces of column (2, *, 1): face j sits at height j h */
    for (int j = 1; j <= D; j++) {
      double b = g->beta[1][2 + (size_t)g->fn[1][0] * (j + g->fn[1][1] * 1)];
      double want = j < J ? 1.0 : j > J ? 2.0 : 4.0 / 3.0;
      ck_assert_msg(j == J ? fabs(b - want) < 1e-15 : b == want,
                    "face %d: beta %.17g, want %.17g", j, b, want);
    }
    struct flip_solve_stats st;
    ck_assert_int_eq(flip_sim_project(S, grav, dt, &st), 0);
    double umax = 0.0, perr = 0.0, pmax = 0.0;
    for (int a = 0; a < 3; a++)
      for (size_t f = 0; f < g->nface[a]; f++)
        umax = fmax(umax, fabs(g->u[a][f]));
    for (size_t c = 0; c < g->ncell; c++) {
      int j = (int)(c / g->n[0] % g->n[1]);
      double depth = 0.0; /* sum of rho_f / rho0 over the faces above */
      for (int f = j + 1; f <= D && j < D; f++)
        depth += f < J ? 1.0 : f > J ? 0.5 : 0.75;
      /* phi = p dt / (rho0 h) */
      double want = 9.81 * dt * depth, got = S->poisson.pressure[c];
      perr = fmax(perr, fabs(got - want));
      pmax = fmax(pmax, want);
    }
    fprintf(stderr, "# two layers (%s): bottom pressure %.6f Pa (closed "
            "form %.6f), max |u| %.3g m/s, %d iterations\n",
            method ? "cholmod" : "pcg",
            S->poisson.pressure[0] * 1000.0 * 0.1 / dt,
            9.81 * 0.1 * (1000.0 * 3.5 + 500.0 * 3.5), umax, st.iterations);
    ck_assert_msg(fabs(pmax - 9.81 * dt * 5.25) < 1e-12, "%g", pmax);
    ck_assert_msg(umax < 1e-8 * 9.81 * dt, "the layers move: %g", umax);
    ck_assert_msg(perr < 1e-8 * pmax, "pressure off by %g of %g", perr,
                  pmax);
    release(S, x, pv, m);
  }
}
END_TEST

/* Phases of equal density take the weighted path with every beta exactly
 * 1: the same pressure as the one-density path, to rounding. */
START_TEST(equal_densities_match_one_density) {
  double *phi[2];
  for (int phases = 0; phases < 2; phases++) {
    double *x, *pv, *m;
    struct flip_sim *S = layered(1000.0, 1000.0, phases, &x, &pv, &m);
    struct fx_rng r = {7};
    fx_random_faces(&S->g, &r);
    flip_solid_bc(&S->g, 1);
    ck_assert_int_eq(S->g.weighted, phases);
    S->solve.tolerance = 1e-12;
    struct flip_solve_stats st;
    ck_assert_int_eq(flip_project(&S->g, &S->poisson, &S->solve, &st), 0);
    phi[phases] = malloc(S->g.ncell * sizeof(double));
    memcpy(phi[phases], S->poisson.pressure, S->g.ncell * sizeof(double));
    release(S, x, pv, m);
  }
  double diff = 0.0, scale = 0.0;
  for (size_t c = 0; c < 5 * 12 * 4; c++) {
    diff = fmax(diff, fabs(phi[1][c] - phi[0][c]));
    scale = fmax(scale, fabs(phi[0][c]));
  }
  ck_assert(scale > 0.1);
  ck_assert_msg(diff <= 1e-10 * scale, "differ by %g of %g", diff, scale);
  free(phi[0]), free(phi[1]);
}
END_TEST

/* Oil particles of w: mass below the water's (8e-4 x 1.25e-4 kg). */
static int is_oil(const struct ms__system *w, size_t i, double m_water) {
  return *ms__at(&w->m, i) < 0.9 * m_water;
}

/* configs/gao2018/oil_rises.cfg to its end (8 s): the oil ends above the
 * interface height the volumes predict (>= 95 % of its particles), keeps
 * to itself (< 2 % of its particles with no oil particle within 1.5
 * spacings), the liquids come to rest, and separation keeps the liquid's
 * volume: the particles' mean height (half the column's, for particles
 * of one volume) stays within 1 % of where it started. */
START_TEST(oil_rises_and_stays_apart) {
  ms_sim *S = st_open_file("gao2018/oil_rises.cfg", 1, 0);
  struct ms__system *w = st_system(S, "liquids");
  const double sp = 0.005, area = 0.2 * 0.04;
  double m_water = 1000.0 * sp * sp * sp, y0 = 0.0, mass0 = 0.0;
  size_t n = w->view.count, nw = 0, no = 0;
  for (size_t i = 0; i < n; i++) {
    int oil = is_oil(w, i, m_water);
    no += oil, nw += !oil;
    mass0 += *ms__at(&w->m, i);
    y0 += ms__at(&w->x, i)[1] / (double)n;
  }
  ck_assert_uint_eq(no, 20 * 16 * 8);
  while (S->frame < S->frames_total) ck_assert_int_eq(ms_sim_frame(S), 0);
  const double H = (double)nw * sp * sp * sp / area; /* 0.12 m */
  size_t above = 0, lone = 0;
  double y1 = 0.0, mass = 0.0;
  for (size_t i = 0; i < n; i++) {
    const double *xi = ms__at(&w->x, i);
    mass += *ms__at(&w->m, i);
    y1 += xi[1] / (double)n;
    if (!is_oil(w, i, m_water)) continue;
    above += xi[1] > H;
    int near = 0;
    for (size_t j = 0; j < n && !near; j++) {
      if (j == i || !is_oil(w, j, m_water)) continue;
      const double *xj = ms__at(&w->x, j);
      double d2 = 0.0;
      for (int a = 0; a < 3; a++) d2 += (xi[a] - xj[a]) * (xi[a] - xj[a]);
      near = d2 < (1.5 * sp) * (1.5 * sp);
    }
    lone += !near;
  }
  double p[3], ke;
  st_totals(S, p, &ke);
  double fa = (double)above / (double)no, fl = (double)lone / (double)no;
  fprintf(stderr, "# oil rises: interface predicted at %.4f m; oil above "
          "it %.2f %%, oil with no oil neighbour %.2f %%, mean "
          "height %.5f -> %.5f m, kinetic energy at the end %.3g J, max speed %.3g "
          "m/s\n", H, 100.0 * fa, 100.0 * fl, y0, y1, ke,
          st_max_speed(S));
  ck_assert(w->view.count == n && mass == mass0);
  ck_assert_msg(fa >= 0.95, "oil above the interface: %.4f", fa);
  ck_assert_msg(fl < 0.02, "oil mixed into the water: %.4f", fl);
  ck_assert_msg(fabs(y1 - y0) < 0.01 * y0, "mean height %g -> %g", y0, y1);
  /* at rest: under a thousandth of the potential energy the oil frees
   * rising 0.08 m (2560 x 1e-4 kg x 9.81 x 0.08 x (1000 - 800) / 800) */
  ck_assert_msg(ke < 1e-3 * 0.25 * 2560 * 1e-4 * 9.81 * 0.08, "ke %g", ke);
  st_close(S);
}
END_TEST

/* The oil scene twice as fine (81920 particles, so the particle loops run
 * on two threads), with face densities, separation and the weighted
 * solve: bitwise the same on 1 and 2 threads after 20 steps. */
START_TEST(phases_same_on_any_thread_count) {
  fx_same_on_threads(
      "scene = { duration = 1.0; fps = 20.0;\n"
      "  domain = { min = [0.0, 0.0, 0.0]; max = [0.2, 0.3, 0.04]; }; };\n"
      "systems = ( { name = \"l\"; solver = \"flip\"; spacing = 0.0025;\n"
      "  flip_ratio = 0.5; separation = 0.5;\n"
      "  shape = ( { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
      "              max = [0.2, 0.06, 0.04]; },\n"
      "            { type = \"box\"; min = [0.0, 0.06, 0.0];\n"
      "              max = [0.2, 0.16, 0.04]; density = 800.0; } ); } );\n",
      "l", 20);
}
END_TEST

Suite *suite_flip_phases(void) {
  Suite *s = suite_create("flip_phases");
  TCase *t = tcase_create("phases");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, two_layer_hydrostatics);
  tcase_add_test(t, equal_densities_match_one_density);
  tcase_add_test(t, oil_rises_and_stays_apart);
  tcase_add_test(t, phases_same_on_any_thread_count);
  suite_add_tcase(s, t);
  return s;
}
