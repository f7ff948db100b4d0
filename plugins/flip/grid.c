/* The MAC grid: allocation, cell marks, boundary conditions, velocity
 * extrapolation. */
#include <stdlib.h>
#include <string.h>

#include "flip.h"

int flip_grid_init(struct flip_grid *g, const double lo[3], const int n[3],
                   double h) {
  memset(g, 0, sizeof *g);
  double cells = 1.0;
  for (int b = 0; b < 3; b++) {
    if (n[b] < 2) return -1;
    cells *= (double)(n[b] + 1);
  }
  if (cells >= 2147483647.0) return -1;
  for (int b = 0; b < 3; b++) {
    g->n[b] = n[b];
    g->lo[b] = lo[b];
    for (int a = 0; a < 3; a++) g->fn[a][b] = n[b] + (a == b);
    g->fn[3][b] = n[b];
  }
  g->h = h;
  g->inv_h = 1.0 / h;
  g->ncell = (size_t)n[0] * (size_t)n[1] * (size_t)n[2];
  g->solid = calloc(g->ncell, 1);
  g->cell = calloc(g->ncell, 1);
  g->near = calloc(g->ncell, 1);
  int ok = g->solid && g->cell && g->near;
  for (int a = 0; a < 3; a++) {
    g->nface[a] = (size_t)g->fn[a][0] * g->fn[a][1] * g->fn[a][2];
    g->u[a] = calloc(g->nface[a], sizeof(double));
    g->u0[a] = calloc(g->nface[a], sizeof(double));
    g->wsum[a] = calloc(g->nface[a], sizeof(double));
    g->valid[a] = calloc(g->nface[a], 1);
    g->held[a] = calloc(g->nface[a], sizeof(double));
    ok = ok && g->u[a] && g->u0[a] && g->wsum[a] && g->valid[a] && g->held[a];
  }
  if (!ok) {
    flip_grid_free(g);
    return -1;
  }
  return 0;
}

void flip_grid_free(struct flip_grid *g) {
  free(g->solid);
  free(g->cell);
  free(g->near);
  for (int a = 0; a < 3; a++) {
    free(g->u[a]);
    free(g->u0[a]);
    free(g->wsum[a]);
    free(g->valid[a]);
    free(g->held[a]);
    free(g->beta[a]);
  }
  memset(g, 0, sizeof *g);
}

void flip_grid_add_obstacle(struct flip_grid *g, const struct flip_box *b) {
  for (int k = 0; k < g->n[2]; k++)
    for (int j = 0; j < g->n[1]; j++)
      for (int i = 0; i < g->n[0]; i++) {
        int ijk[3] = {i, j, k}, in = 1;
        for (int a = 0; a < 3; a++) {
          double c = g->lo[a] + ((double)ijk[a] + 0.5) * g->h;
          in = in && c >= b->lo[a] && c <= b->hi[a];
        }
        if (in) g->solid[flip_cell(g, i, j, k)] = 1;
      }
}

void flip_mark_reset(struct flip_grid *g, int threads) {
  threads = flip_team(threads, FLIP_CELL_WORK(g->ncell));
  const size_t nc = g->ncell;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t c = 0; c < nc; c++)
    g->cell[c] = g->solid[c] ? FLIP_SOLID : FLIP_AIR;
}

void flip_mark_bins(struct flip_grid *g, const struct flip_bins *b,
                    int threads) {
  const size_t nc = g->ncell;
  threads = flip_team(threads, FLIP_CELL_WORK(nc));
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t c = 0; c < nc; c++)
    if (b->start[c + 1] > b->start[c] && g->cell[c] != FLIP_SOLID)
      g->cell[c] = FLIP_FLUID;
}

/* A cell that only other systems' particles occupy has no velocity of
 * its own: its faces that no fluid particle weighs hold values
 * extrapolated from the fluid.  Once the cell is part of the pressure
 * solve, those values would act as fluid that is not there, and the
 * projection would hand their momentum to the fluid's faces: made up anew
 * from the fluid's own velocity every step, it feeds energy into the fluid
 * (a dam break through a shattered wall gained 5 % of its kinetic energy
 * a step).  Such faces start the solve at rest instead, in u and in u0. */
static void rest_unweighted_faces(struct flip_grid *g, const int c[3]) {
  for (int a = 0; a < 3; a++)
    for (int side = 0; side < 2; side++) {
      int f3[3] = {c[0], c[1], c[2]};
      f3[a] += side;
      const int *fn = g->fn[a];
      size_t f = (size_t)f3[0] + (size_t)fn[0] * ((size_t)f3[1] +
                                                  (size_t)fn[1] * f3[2]);
      if (g->valid[a][f] == 1) continue; /* weighed by fluid particles */
      g->u[a][f] = g->u0[a][f] = 0.0;
    }
}

void flip_mark_points(struct flip_grid *g, const double *xyz, size_t n) {
  for (size_t p = 0; p < n; p++) {
    int c[3];
    if (!flip_cell_inside(g, xyz + 3 * p, c)) continue;
    size_t i = flip_cell(g, c[0], c[1], c[2]);
    if (g->cell[i] != FLIP_AIR) continue;
    g->cell[i] = FLIP_FLUID;
    rest_unweighted_faces(g, c);
  }
}

void flip_clear_near(struct flip_grid *g) { memset(g->near, 0, g->ncell); }

void flip_mark_near(struct flip_grid *g, const double *xyz, size_t n) {
  for (size_t p = 0; p < n; p++) {
    int c[3], lo[3], hi[3];
    if (!flip_cell_inside(g, xyz + 3 * p, c)) continue;
    for (int b = 0; b < 3; b++) {
      lo[b] = c[b] > 0 ? c[b] - 1 : 0;
      hi[b] = c[b] + 1 < g->n[b] ? c[b] + 1 : c[b];
    }
    for (int k = lo[2]; k <= hi[2]; k++)
      for (int j = lo[1]; j <= hi[1]; j++)
        for (int i = lo[0]; i <= hi[0]; i++)
          g->near[flip_cell(g, i, j, k)] = 1;
  }
}

size_t flip_count_cells(const struct flip_grid *g, int state) {
  size_t cnt = 0;
  for (size_t c = 0; c < g->ncell; c++) cnt += g->cell[c] == state;
  return cnt;
}

int flip_face_solid(const struct flip_grid *g, int a, int i, int j, int k) {
  int ijk[3] = {i, j, k};
  if (ijk[a] == 0 || ijk[a] == g->n[a]) return 1;
  size_t c2 = flip_cell(g, i, j, k);
  size_t c1 = c2 - (a == 0 ? 1 : a == 1 ? (size_t)g->n[0]
                                        : (size_t)g->n[0] * g->n[1]);
  return g->cell[c1] == FLIP_SOLID || g->cell[c2] == FLIP_SOLID;
}

/* Face f = (i, j, k) of component a: mean of the neighbours known before
 * layer L (valid in 1..L).  Returns 1 when there was one. */
static int extrapolate_face(const struct flip_grid *g, int a, int i, int j,
                            int k, int L, double *out) {
  const int *fn = g->fn[a];
  const uint8_t *val = g->valid[a];
  const double *u = g->u[a];
  size_t sj = (size_t)fn[0], sk = sj * fn[1];
  size_t f = (size_t)i + sj * j + sk * k;
  double sum = 0.0;
  int cnt = 0;
#define NB(cond, off)                                   \
  if (cond && val[off] >= 1 && val[off] <= L) {         \
    sum += u[off];                                      \
    cnt++;                                              \
  }
  NB(i > 0, f - 1)
  NB(i + 1 < fn[0], f + 1)
  NB(j > 0, f - sj)
  NB(j + 1 < fn[1], f + sj)
  NB(k > 0, f - sk)
  NB(k + 1 < fn[2], f + sk)
#undef NB
  if (!cnt) return 0;
  *out = sum / cnt;
  return 1;
}

/* One layer in two passes (values, then marks) so that the result does not
 * depend on the order faces are visited in. */
void flip_extrapolate(struct flip_grid *g, int layers, int threads) {
  threads = flip_team(threads, FLIP_CELL_WORK(g->ncell));
  for (int a = 0; a < 3; a++) {
    const int *fn = g->fn[a];
    uint8_t *val = g->valid[a];
    double *u = g->u[a], *w = g->wsum[a];
    size_t sj = (size_t)fn[0], sk = sj * fn[1];
    for (int L = 1; L <= layers; L++) {
      /* wsum of unknown faces is 0: borrow it as the new value's flag */
#pragma omp parallel for schedule(static) num_threads(threads)
      for (int k = 0; k < fn[2]; k++)
        for (int j = 0; j < fn[1]; j++)
          for (int i = 0; i < fn[0]; i++) {
            size_t f = (size_t)i + sj * j + sk * k;
            double v;
            if (val[f]) continue;
            if (extrapolate_face(g, a, i, j, k, L, &v)) {
              w[f] = -1.0; /* negative: "filled in layer L" */
              u[f] = v;
            }
          }
#pragma omp parallel for schedule(static) num_threads(threads)
      for (size_t f = 0; f < g->nface[a]; f++)
        if (!val[f] && w[f] < 0.0) {
          val[f] = (uint8_t)(L + 1);
          w[f] = 0.0;
        }
    }
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t f = 0; f < g->nface[a]; f++)
      if (!val[f]) u[f] = 0.0;
  }
}

/* Does the inner face (a; i, j, k) touch a fluid cell?  (Faces on the
 * grid boundary are walls.) */
static int face_fluid(const struct flip_grid *g, int a, int i, int j, int k) {
  int ijk[3] = {i, j, k};
  if (ijk[a] == 0 || ijk[a] == g->n[a]) return 0;
  size_t c2 = flip_cell(g, i, j, k);
  size_t c1 = c2 - (a == 0 ? 1 : a == 1 ? (size_t)g->n[0]
                                        : (size_t)g->n[0] * g->n[1]);
  return g->cell[c1] == FLIP_FLUID || g->cell[c2] == FLIP_FLUID;
}

void flip_extrapolate_fluid(struct flip_grid *g, int layers, int threads) {
  threads = flip_team(threads, FLIP_CELL_WORK(g->ncell));
  for (int a = 0; a < 3; a++) {
    const int *fn = g->fn[a];
    size_t sj = (size_t)fn[0], sk = sj * fn[1];
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int k = 0; k < fn[2]; k++)
      for (int j = 0; j < fn[1]; j++)
        for (int i = 0; i < fn[0]; i++) {
          size_t f = (size_t)i + sj * j + sk * k;
          g->valid[a][f] =
              face_fluid(g, a, i, j, k) && !flip_face_solid(g, a, i, j, k);
          g->wsum[a][f] = 0.0;
        }
  }
  flip_extrapolate(g, layers, threads);
  flip_solid_bc(g, threads);
}

void flip_save_old(struct flip_grid *g, int threads) {
  threads = flip_team(threads, FLIP_CELL_WORK(g->ncell));
  for (int a = 0; a < 3; a++) {
    const double *u = g->u[a];
    double *u0 = g->u0[a];
    const size_t nf = g->nface[a];
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t f = 0; f < nf; f++) u0[f] = u[f];
  }
}

void flip_add_gravity(struct flip_grid *g, const double gravity[3], double dt,
                      int threads) {
  threads = flip_team(threads, FLIP_CELL_WORK(g->ncell));
  for (int a = 0; a < 3; a++) {
    double du = gravity[a] * dt;
    double *u = g->u[a];
    const size_t nf = g->nface[a];
    if (du == 0.0) continue;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t f = 0; f < nf; f++) u[f] += du;
  }
}

void flip_solid_bc(struct flip_grid *g, int threads) {
  threads = flip_team(threads, FLIP_CELL_WORK(g->ncell));
  for (int a = 0; a < 3; a++) {
    const int *fn = g->fn[a];
    double *u = g->u[a];
    size_t sj = (size_t)fn[0], sk = sj * fn[1];
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int k = 0; k < fn[2]; k++)
      for (int j = 0; j < fn[1]; j++)
        for (int i = 0; i < fn[0]; i++)
          if (flip_face_solid(g, a, i, j, k))
            u[(size_t)i + sj * j + sk * k] = 0.0;
  }
}
