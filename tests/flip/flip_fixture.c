/* Helpers of the flip tests. */
#include "flip_fixture.h"

#include <stdlib.h>

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
