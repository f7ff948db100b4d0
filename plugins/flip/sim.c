/* One FLIP step on the grid, phase by phase (the plugin and the benchmark
 * both drive it). */
#include <stdlib.h>
#include <string.h>

#include "flip.h"

int flip_sim_init(struct flip_sim *S, const double lo[3], const int n[3],
                  double h, const struct flip_box *obst, int nobst) {
  memset(S, 0, sizeof *S);
  if (flip_grid_init(&S->g, lo, n, h)) return -1;
  if (nobst > 0) {
    S->obst = malloc((size_t)nobst * sizeof *S->obst);
    if (!S->obst) {
      flip_grid_free(&S->g);
      return -1;
    }
    memcpy(S->obst, obst, (size_t)nobst * sizeof *obst);
    for (int o = 0; o < nobst; o++) flip_grid_add_obstacle(&S->g, obst + o);
  }
  S->nobst = nobst;
  S->layers = 2;
  S->threads = 1;
  S->solve = (struct flip_solve_opts){FLIP_SOLVER_PCG, 1e-6, 1000, 1, NULL,
                                      0.0};
  S->warm_start = 1;
  S->phi_prev = calloc(S->g.ncell, sizeof *S->phi_prev);
  if (!S->phi_prev) {
    flip_sim_free(S);
    return -1;
  }
  return 0;
}

void flip_sim_free(struct flip_sim *S) {
  flip_grid_free(&S->g);
  flip_bins_free(&S->bins);
  flip_poisson_free(&S->poisson);
  free(S->obst);
  free(S->phi_prev);
  memset(S, 0, sizeof *S);
}

int flip_sim_to_grid(struct flip_sim *S, const double *x, const double *v,
                     const double *pm, const int32_t *meta, size_t n) {
  if (flip_bins_sort(&S->bins, &S->g, x, n, S->threads)) return -1;
  flip_mark_reset(&S->g, S->threads);
  flip_mark_bins(&S->g, &S->bins, S->threads);
  flip_p2g(&S->g, &S->bins, x, v, pm, meta, S->threads);
  /* u0 is scratch until flip_save_old below */
  S->g.weighted = 0;
  if (S->pv &&
      flip_p2g_density(&S->g, &S->bins, x, pm, S->pv, S->g.u0, S->threads))
    return -1;
  flip_extrapolate(&S->g, S->layers, S->threads);
  flip_save_old(&S->g, S->threads);
  return 0;
}

int flip_sim_project(struct flip_sim *S, const double gravity[3], double dt,
                     struct flip_solve_stats *st) {
  flip_add_gravity(&S->g, gravity, dt, S->threads);
  flip_solid_bc(&S->g, S->threads);
  S->solve.threads = S->threads;
  int warm = S->warm_start && S->dt_prev > 0.0;
  S->solve.guess = warm ? S->phi_prev : NULL;
  S->solve.guess_scale = warm ? dt / S->dt_prev : 0.0;
  int rc = flip_project(&S->g, &S->poisson, &S->solve, st);
  if (rc) return rc;
  memcpy(S->phi_prev, S->poisson.pressure, S->g.ncell * sizeof *S->phi_prev);
  S->dt_prev = dt;
  flip_extrapolate_fluid(&S->g, S->layers, S->threads);
  return 0;
}

int flip_meta_finish(const struct flip_sim *S, const uint32_t *idx,
                     uint32_t cnt, const double *m, const double *r,
                     const double *x0, double *x, double *v, double dt,
                     double V[3], double d[3]) {
  double msum = 0.0;
  V[0] = V[1] = V[2] = 0.0;
  for (uint32_t q = 0; q < cnt; q++) {
    size_t i = idx[q];
    msum += m[i];
    for (int a = 0; a < 3; a++) V[a] += m[i] * v[3 * i + a];
  }
  for (int a = 0; a < 3; a++) {
    V[a] /= msum;
    d[a] = dt * V[a];
  }
  int hit = flip_clamp_rigid(&S->g, S->obst, S->nobst, x0, r, idx, cnt, d, V);
  for (uint32_t q = 0; q < cnt; q++) {
    size_t i = idx[q];
    for (int a = 0; a < 3; a++) {
      x[3 * i + a] = x0[3 * i + a] + d[a];
      v[3 * i + a] = V[a];
    }
  }
  return hit;
}
