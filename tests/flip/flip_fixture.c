/* Helpers of the flip tests. */
#include "flip_fixture.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../scenes/simtest.h"

double fx_uniform(struct fx_rng *r, double lo, double hi) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return lo + (hi - lo) * ((double)(z >> 11) * 0x1.0p-53);
}

size_t fx_lattice(const struct flip_grid *g, int state, double jitter,
                  struct fx_rng *r, double **x) {
  size_t n = 0;
  *x = malloc(3 * 8 * g->ncell * sizeof(double));
  for (int k = 0; k < g->n[2]; k++)
    for (int j = 0; j < g->n[1]; j++)
      for (int i = 0; i < g->n[0]; i++) {
        if (g->cell[flip_cell(g, i, j, k)] != state) continue;
        for (int s = 0; s < 8; s++) {
          int ijk[3] = {i, j, k};
          double *p = *x + 3 * n++;
          for (int a = 0; a < 3; a++) {
            double off = ((s >> a) & 1) ? 0.75 : 0.25;
            double jt = jitter ? jitter * 0.5 * fx_uniform(r, -1.0, 1.0) : 0.0;
            p[a] = g->lo[a] + (ijk[a] + off + jt) * g->h;
          }
        }
      }
  return n;
}

void fx_random_faces(struct flip_grid *g, struct fx_rng *r) {
  for (int a = 0; a < 3; a++)
    for (size_t f = 0; f < g->nface[a]; f++)
      g->u[a][f] = fx_uniform(r, -1.0, 1.0);
}

/* Positions and velocities of y, packed. */
static double *state_of(const struct ms__system *y) {
  double *s = malloc(6 * y->view.count * sizeof *s);
  for (size_t i = 0; i < y->view.count; i++) {
    memcpy(s + 6 * i, ms__at(&y->x, i), 3 * sizeof(double));
    memcpy(s + 6 * i + 3, ms__at(&y->v, i), 3 * sizeof(double));
  }
  return s;
}

void fx_same_on_threads(const char *scene, const char *system, int steps) {
  double *s1 = NULL;
  size_t n = 0;
  for (int t = 1; t <= 2; t++) {
    ms_sim *S = st_open_text(scene, t);
    struct ms__system *w = st_system(S, system);
    ck_assert_uint_ge(w->view.count, FLIP_PAR_MIN); /* parallel loops run */
    for (int k = 0; k < steps; k++) st_step(S);
    double *s = state_of(w);
    if (t == 1) {
      s1 = s, n = w->view.count;
    } else {
      ck_assert_uint_eq(w->view.count, n);
      ck_assert_msg(!memcmp(s, s1, 6 * n * sizeof *s),
                    "1 and 2 threads differ");
      free(s);
    }
    st_close(S);
  }
  free(s1);
}
