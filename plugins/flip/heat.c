/* Heat conduction in the water, on the grid.
 *
 * Each cell that holds particles is a lump: heat capacity C_c = sum m c
 * and temperature T_c = sum m c T / C_c of its particles.  Two face-
 * adjacent lumps conduct through G = k h (area h^2 over distance h), and
 * each such pair is solved alone and exactly over the step, as the core
 * does between systems (doc/heat.md): Q = dT (1 - exp(-G a dt)) / a,
 * a = 1/C_1 + 1/C_2, so no step is too long and the heat sum is kept to
 * rounding.  The faces are swept once, in cell order (+x, +y, +z of each
 * cell).  A particle i of cell c then takes
 *     T_i' = T_c' + l_c (T_i - T_c),
 * its cell's new temperature plus l_c of its own deviation from the
 * cell's mean (sum over the cell of C_i (T_i - T_c) = 0, so any l_c puts
 * exactly the cell's heat into its particles).  l_c = 1 is FLIP's way
 * (the particle keeps its deviation); a particle at the system's coldest
 * in a cell that cools would then fall below every temperature the step
 * started with, so l_c is the largest value in [0, 1] that keeps every
 * particle of the cell within the start's range (0: PIC's way, the cell
 * mixed). */
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "flip.h"

/* The lumps of the cells: C, and T in place of the heat sum. */
static void lump(const struct flip_grid *g, const struct flip_bins *b,
                 const double *m, const double *c, const double *T,
                 double *Cc, double *Tc) {
  for (size_t q = 0; q < g->ncell; q++) {
    double C = 0.0, Q = 0.0;
    for (uint32_t s = b->start[q]; s < b->start[q + 1]; s++) {
      uint32_t i = b->perm[s];
      C += m[i] * c[i];
      Q += m[i] * c[i] * T[i];
    }
    Cc[q] = C;
    Tc[q] = C > 0.0 ? Q / C : 0.0;
  }
}

void flip_heat_conduct(const struct flip_grid *g, const struct flip_bins *b,
                       const double *m, const double *c, double *T,
                       double k, double dt, double *Cc, double *Tc,
                       double *T0c) {
  if (!(k > 0.0) || b->n == 0) return;
  /* the range the step starts with; water at one temperature (the
   * default) has nothing to conduct */
  double lo = T[0], hi = T[0];
  for (size_t i = 1; i < b->n; i++) lo = fmin(lo, T[i]), hi = fmax(hi, T[i]);
  if (lo == hi) return;
  lump(g, b, m, c, T, Cc, Tc);
  memcpy(T0c, Tc, g->ncell * sizeof *T0c);
  const double G = k * g->h;
  const size_t st[3] = {1, (size_t)g->n[0], (size_t)g->n[0] * g->n[1]};
  for (int kk = 0; kk < g->n[2]; kk++)
    for (int j = 0; j < g->n[1]; j++)
      for (int i = 0; i < g->n[0]; i++) {
        size_t q = flip_cell(g, i, j, kk);
        if (!(Cc[q] > 0.0)) continue;
        int ijk[3] = {i, j, kk};
        for (int a = 0; a < 3; a++) {
          if (ijk[a] + 1 >= g->n[a]) continue;
          size_t r = q + st[a];
          if (Cc[r] > 0.0) ms_heat_pair(&Tc[q], Cc[q], &Tc[r], Cc[r], G, dt);
        }
      }
  for (size_t q = 0; q < g->ncell; q++) {
    if (Tc[q] == T0c[q]) continue;
    double l = 1.0;
    for (uint32_t s = b->start[q]; s < b->start[q + 1]; s++) {
      double dev = T[b->perm[s]] - T0c[q], t = Tc[q] + dev;
      if (t > hi) l = fmin(l, (hi - Tc[q]) / dev);
      if (t < lo) l = fmin(l, (lo - Tc[q]) / dev);
    }
    l = fmax(l, 0.0);
    for (uint32_t s = b->start[q]; s < b->start[q + 1]; s++) {
      uint32_t i = b->perm[s];
      T[i] = Tc[q] + l * (T[i] - T0c[q]);
    }
  }
}
