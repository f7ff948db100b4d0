/* Advection: the cells of the coupling's interface, and which particles
 * move by their own velocity there. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flip.h"
#include "suites.h"

static const double LO[3] = {0.3, -0.2, 0.1};

static size_t count_near(const struct flip_grid *g) {
  size_t n = 0;
  for (size_t c = 0; c < g->ncell; c++) n += g->near[c];
  return n;
}

/* A point marks its cell and the 26 around it, clipped at the grid's
 * edge; points outside the grid mark nothing; clearing empties it. */
START_TEST(interface_cells) {
  struct flip_grid g;
  const int n[3] = {6, 5, 4};
  ck_assert_int_eq(flip_grid_init(&g, LO, n, 0.1), 0);
  const double mid[3] = {LO[0] + 0.25, LO[1] + 0.25, LO[2] + 0.15};
  const double corner[3] = {LO[0] + 0.01, LO[1] + 0.01, LO[2] + 0.01};
  const double out[3] = {LO[0] - 0.01, LO[1] + 0.2, LO[2] + 0.2};
  flip_clear_near(&g);
  flip_mark_near(&g, mid, 1);
  ck_assert_uint_eq(count_near(&g), 27);
  ck_assert(g.near[flip_cell(&g, 1, 1, 0)] && g.near[flip_cell(&g, 3, 3, 2)]);
  ck_assert(!g.near[flip_cell(&g, 4, 2, 1)]);
  flip_clear_near(&g);
  flip_mark_near(&g, corner, 1);
  ck_assert_uint_eq(count_near(&g), 8);
  flip_clear_near(&g);
  flip_mark_near(&g, out, 1);
  ck_assert_uint_eq(count_near(&g), 0);
  flip_grid_free(&g);
}
END_TEST

/* In a uniform grid velocity U, a free particle in an interface cell
 * moves by dt times its own velocity, one elsewhere by dt U (the midpoint
 * step is exact for a uniform field), and a meta-particle member not at
 * all. */
START_TEST(interface_particles_move_by_their_own_velocity) {
  struct flip_grid g;
  const int n[3] = {8, 8, 8};
  const double U[3] = {0.5, -1.25, 2.0}, V[3] = {-3.0, 0.75, 1.5};
  const double dt = 0.01;
  ck_assert_int_eq(flip_grid_init(&g, LO, n, 0.1), 0);
  for (int a = 0; a < 3; a++)
    for (size_t f = 0; f < g.nface[a]; f++) g.u[a][f] = U[a];
  const double other[3] = {LO[0] + 0.15, LO[1] + 0.15, LO[2] + 0.15};
  flip_clear_near(&g);
  flip_mark_near(&g, other, 1);
  double x[9] = {LO[0] + 0.12, LO[1] + 0.18, LO[2] + 0.22,  /* near */
                 LO[0] + 0.55, LO[1] + 0.45, LO[2] + 0.61,  /* far */
                 LO[0] + 0.13, LO[1] + 0.14, LO[2] + 0.15}; /* member */
  double x0[9], v[9];
  const int32_t meta[3] = {-1, -1, 0};
  memcpy(x0, x, sizeof x);
  for (int p = 0; p < 3; p++) memcpy(v + 3 * p, V, sizeof V);
  flip_advect_interface(&g, x, v, 3, dt, meta, 1);
  for (int a = 0; a < 3; a++) {
    ck_assert(fabs(x[a] - (x0[a] + dt * V[a])) < 1e-15);
    ck_assert(fabs(x[3 + a] - (x0[3 + a] + dt * U[a])) < 1e-15);
    ck_assert(x[6 + a] == x0[6 + a]);
  }
  flip_grid_free(&g);
}
END_TEST

Suite *suite_flip_advect(void) {
  Suite *s = suite_create("flip_advect");
  TCase *t = tcase_create("advect");
  tcase_add_test(t, interface_cells);
  tcase_add_test(t, interface_particles_move_by_their_own_velocity);
  suite_add_tcase(s, t);
  return s;
}
