/* The free surface where the water is, not at the next cell's centre
 * (ghost fluid, Enright, Nguyen and Fedkiw 2003; Gibou et al. 2002).
 *
 * The projection puts p = 0 in every air cell, so the surface it sees
 * sits at the centre of the first air cell, half a cell above the water:
 * every pressure is too high by rho g h / 2.  The water does not feel a
 * uniform offset, but a body it presses on does: a box held at a draft
 * of 0.25, 0.5 and 0.75 of its height took Archimedes' force plus
 * rho g A h / 2 each time (one layer of its particles more; 2.8 N on a
 * 0.12 m box in 0.04 m cells), and floated at a quarter of its height
 * instead of half.  Here a fluid cell next to an air cell takes the
 * surface at its outermost layer (the mean of its particles within half a
 * spacing of the outermost one) plus half a spacing along that axis,
 * theta (in cells) from its centre, and the link to the air cell gets
 * the weight 1 / theta: p = 0 at the surface itself, extrapolated linearly
 * into the air cell (the ghost value).  In the variable-density projection
 * that is a face weight beta / theta; with one density the faces get
 * beta = 1 first. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flip.h"

/* Faces between fluid cells and air cells lean at least this far
 * (theta >= it): a surface right at a cell's centre would make the
 * system stiff without changing the answer much. */
#define FLIP_GHOST_THETA_MIN 0.1

/* theta of the link from fluid cell c (index ci, coordinates c) to its
 * air neighbour along axis a on side dir (-1, +1): 1 with no particle of
 * the water in c. */
static double theta(const struct flip_grid *g, const struct flip_bins *b,
                    const double *x, double spacing, size_t ci,
                    const int c[3], int a, int dir) {
  uint32_t q0 = b->start[ci], q1 = b->start[ci + 1];
  if (q0 == q1) return 1.0;
  double top = -INFINITY, sum = 0.0;
  for (uint32_t q = q0; q < q1; q++)
    top = fmax(top, dir * x[3 * (size_t)b->perm[q] + a]);
  /* the outermost layer: the particles within half a spacing of the
   * outermost one, at their mean (the outermost alone stands out of a
   * jittered layer by about the jitter) */
  int cnt = 0;
  for (uint32_t q = q0; q < q1; q++) {
    double xa = dir * x[3 * (size_t)b->perm[q] + a];
    if (xa >= top - 0.5 * spacing) sum += xa, cnt++;
  }
  double ext = sum / cnt;
  double centre = g->lo[a] + (c[a] + 0.5) * g->h;
  double t = (ext + 0.5 * spacing - dir * centre) * g->inv_h;
  return fmin(fmax(t, FLIP_GHOST_THETA_MIN), 1.0);
}

int flip_ghost_fluid(struct flip_grid *g, const struct flip_bins *b,
                     const double *x, double spacing, int threads) {
  threads = flip_team(threads, FLIP_CELL_WORK(g->ncell));
  if (!g->weighted)
    for (int a = 0; a < 3; a++) {
      if (!g->beta[a] && !(g->beta[a] = malloc(g->nface[a] * sizeof(double))))
        return -1;
      double *B = g->beta[a];
#pragma omp parallel for schedule(static) num_threads(threads)
      for (size_t f = 0; f < g->nface[a]; f++) B[f] = 1.0;
    }
  g->weighted = 1;
  const int nx = g->n[0], ny = g->n[1], nz = g->n[2];
  /* each face lies between one fluid and one air cell at most once, and
   * belongs to the fluid cell: no two iterations write one face */
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++) {
        size_t ci = flip_cell(g, i, j, k);
        if (g->cell[ci] != FLIP_FLUID) continue;
        const int c[3] = {i, j, k};
        for (int a = 0; a < 3; a++)
          for (int dir = -1; dir <= 1; dir += 2) {
            int n[3] = {i, j, k};
            n[a] += dir;
            if (n[a] < 0 || n[a] >= g->n[a]) continue;
            if (g->cell[flip_cell(g, n[0], n[1], n[2])] != FLIP_AIR) continue;
            const int *fn = g->fn[a];
            int f3[3] = {i, j, k};
            f3[a] += dir > 0;
            size_t f = (size_t)f3[0] +
                       (size_t)fn[0] * ((size_t)f3[1] + (size_t)fn[1] * f3[2]);
            g->beta[a][f] /= theta(g, b, x, spacing, ci, c, a, dir);
          }
      }
  return 0;
}
