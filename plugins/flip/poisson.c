/* The pressure projection: the Poisson system over the fluid cells, its
 * right-hand side (the divergence), closed components, and the pressure
 * gradient applied to the faces.
 *
 * Unknowns are the fluid cells.  For an unknown c the row of A is
 *   diag(c) phi_c - sum over fluid neighbours phi_n,
 * diag(c) = neighbours that are not solid (air contributes phi = 0, the
 * free surface); b_c = -div(c).  After the solve each non-solid face next
 * to fluid changes by -(phi_2 - phi_1), which leaves div = -(b - A phi):
 * the residual.  A component of fluid cells with no air neighbour is
 * singular (pressure defined up to a constant): its b loses its mean (the
 * flux through closed walls sums to zero anyway, up to rounding) and its
 * first cell gets diag + 1, which pins the constant without changing the
 * solution of a consistent system. */
#include <stdlib.h>
#include <string.h>

#include "flip.h"

static int reserve(struct flip_poisson *p, const struct flip_grid *g) {
  if (p->mask) return 0;
  size_t nr = (size_t)g->n[1] * g->n[2];
  p->ncell = g->ncell;
  p->npad = ((size_t)g->n[0] + 2) * ((size_t)g->n[1] + 2) *
            ((size_t)g->n[2] + 2);
  p->mask = calloc(p->npad, 1);
  p->diag = calloc(p->npad, 1);
  p->row_lo = malloc(nr * sizeof *p->row_lo);
  p->row_hi = malloc(nr * sizeof *p->row_hi);
  p->rows = malloc(nr * sizeof *p->rows);
  p->rowpad = malloc(nr * sizeof *p->rowpad);
  p->part = malloc(3 * nr * sizeof *p->part);
  p->plane_row = malloc(((size_t)g->n[2] + 1) * sizeof *p->plane_row);
  p->queue = malloc(g->ncell * sizeof *p->queue);
  p->pressure = calloc(g->ncell, sizeof *p->pressure);
  double **v[] = {&p->phi, &p->b, &p->r, &p->z, &p->s, &p->q};
  p->precon = calloc(p->npad, sizeof *p->precon);
  int ok = p->mask && p->diag && p->row_lo && p->row_hi && p->rows &&
           p->rowpad && p->plane_row &&
           p->part && p->queue && p->pressure && p->precon;
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
    *v[i] = calloc(p->npad, sizeof(double));
    ok = ok && *v[i];
  }
  if (!ok) {
    flip_poisson_free(p);
    return -1;
  }
  return 0;
}

void flip_poisson_free(struct flip_poisson *p) {
  flip_cholmod_free(p);
  free(p->mask), free(p->diag), free(p->row_lo), free(p->row_hi);
  free(p->rows), free(p->rowpad), free(p->part), free(p->queue);
  free(p->plane_row);
  free(p->phi), free(p->b), free(p->r), free(p->z), free(p->s), free(p->q);
  free(p->precon), free(p->work), free(p->pressure);
  free(p->wd), free(p->wl[0]), free(p->wl[1]), free(p->wl[2]);
  memset(p, 0, sizeof *p);
}

/* Link bits and diagonal of grid cell c = (i, j, k), padded index e. */
static void cell_row(const struct flip_grid *g, struct flip_poisson *p,
                     int i, int j, int k, size_t c, size_t e) {
  const uint8_t *cl = g->cell;
  const size_t sj = (size_t)g->n[0], sk = sj * g->n[1];
  if (cl[c] != FLIP_FLUID) {
    p->mask[e] = 0;
    p->diag[e] = 0;
    return;
  }
  int ijk[3] = {i, j, k}, d = 0;
  const size_t st[3] = {1, sj, sk};
  uint8_t m = 0;
  for (int a = 0; a < 3; a++) {
    if (ijk[a] > 0 && cl[c - st[a]] != FLIP_SOLID) {
      d++;
      if (cl[c - st[a]] == FLIP_FLUID) m |= (uint8_t)(1u << (2 * a));
    }
    if (ijk[a] + 1 < g->n[a] && cl[c + st[a]] != FLIP_SOLID) {
      d++;
      if (cl[c + st[a]] == FLIP_FLUID) m |= (uint8_t)(2u << (2 * a));
    }
  }
  /* a fluid cell walled in on all sides has no unknown */
  p->mask[e] = d ? (uint8_t)(m | FLIP_M_SELF) : 0;
  p->diag[e] = (uint8_t)d;
}

/* Discrete divergence of cell (i, j, k). */
static inline double cell_div(const struct flip_grid *g, int i, int j, int k) {
  size_t f[3];
  for (int a = 0; a < 3; a++)
    f[a] = (size_t)i +
           (size_t)g->fn[a][0] * ((size_t)j + (size_t)g->fn[a][1] * k);
  size_t f0 = f[0], f1 = f[1], f2 = f[2];
  return (g->u[0][f0 + 1] - g->u[0][f0]) +
         (g->u[1][f1 + (size_t)g->n[0]] - g->u[1][f1]) +
         (g->u[2][f2 + (size_t)g->n[0] * g->n[1]] - g->u[2][f2]);
}

static int links(uint8_t m) {
  int c = 0;
  for (int b = 0; b < 6; b++) c += (m >> b) & 1;
  return c;
}

/* Padded index of the first cell of grid row r. */
static inline size_t row_base(const struct flip_poisson *p,
                              const struct flip_grid *g, uint32_t r) {
  return flip_pad(p, 0, (int)(r % (uint32_t)g->n[1]),
                  (int)(r / (uint32_t)g->n[1]));
}

/* Breadth-first search through the links from the cells already queued
 * in queue[0..n); returns the number queued at the end. */
static size_t flood(struct flip_poisson *p, size_t n) {
  const size_t off[6] = {(size_t)-1, 1, (size_t)0 - p->sj, p->sj,
                         (size_t)0 - p->sk, p->sk};
  for (size_t h = 0; h < n; h++) {
    size_t c = p->queue[h];
    for (int b = 0; b < 6; b++) {
      if (!(p->mask[c] & (1u << b))) continue;
      size_t nb = c + off[b];
      if (p->mask[nb] & FLIP_M_SEEN) continue;
      p->mask[nb] |= FLIP_M_SEEN;
      p->queue[n++] = (uint32_t)nb;
    }
  }
  return n;
}

/* Find the closed components; make each consistent and pin it. */
static size_t close_components(const struct flip_grid *g,
                               struct flip_poisson *p) {
  size_t n = 0, pinned = 0;
  for (size_t r = 0; r < p->nrows; r++) {
    uint32_t row = p->rows[r];
    size_t c0 = row_base(p, g, row);
    for (size_t c = c0 + p->row_lo[row]; c < c0 + p->row_hi[row]; c++)
      if ((p->mask[c] & FLIP_M_SELF) && p->diag[c] > links(p->mask[c])) {
        p->mask[c] |= FLIP_M_SEEN;
        p->queue[n++] = (uint32_t)c;
      }
  }
  flood(p, n);
  for (size_t r = 0; r < p->nrows; r++) {
    uint32_t row = p->rows[r];
    size_t c0 = row_base(p, g, row);
    for (size_t c = c0 + p->row_lo[row]; c < c0 + p->row_hi[row]; c++) {
      if (!(p->mask[c] & FLIP_M_SELF) || (p->mask[c] & FLIP_M_SEEN)) continue;
      p->mask[c] |= FLIP_M_SEEN;
      p->queue[0] = (uint32_t)c;
      size_t m = flood(p, 1);
      double mean = 0.0;
      for (size_t q = 0; q < m; q++) mean += p->b[p->queue[q]];
      mean /= (double)m;
      for (size_t q = 0; q < m; q++) p->b[p->queue[q]] -= mean;
      p->diag[c]++;
      if (p->weighted) p->wd[c] += 1.0;
      pinned++;
    }
  }
  return pinned;
}

/* The bounding box of the fluid cells (an empty box when none). */
static void fluid_box(const struct flip_grid *g, struct flip_poisson *p,
                      int threads) {
  const int nx = g->n[0], ny = g->n[1], nz = g->n[2];
  int l0 = nx, l1 = ny, l2 = nz, h0 = -1, h1 = -1, h2 = -1;
#pragma omp parallel for schedule(static) num_threads(threads) \
    reduction(min : l0, l1, l2) reduction(max : h0, h1, h2)
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++) {
      const uint8_t *c = g->cell + (size_t)nx * ((size_t)j + (size_t)ny * k);
      for (int i = 0; i < nx; i++)
        if (c[i] == FLIP_FLUID) {
          l0 = i < l0 ? i : l0, h0 = i > h0 ? i : h0;
          l1 = j < l1 ? j : l1, h1 = j > h1 ? j : h1;
          l2 = k < l2 ? k : l2, h2 = k > h2 ? k : h2;
        }
    }
  if (h0 < 0) l0 = l1 = l2 = 0, h0 = h1 = h2 = -1;
  p->bo[0] = l0, p->bo[1] = l1, p->bo[2] = l2;
  p->bn[0] = h0 - l0 + 1, p->bn[1] = h1 - l1 + 1, p->bn[2] = h2 - l2 + 1;
  p->sj = (size_t)p->bn[0] + 2;
  p->sk = p->sj * ((size_t)p->bn[1] + 2);
  p->nused = p->sk * ((size_t)p->bn[2] + 2);
}

static int weights(const struct flip_grid *g, struct flip_poisson *p,
                   int threads);

int flip_poisson_build(struct flip_grid *g, struct flip_poisson *p,
                       int threads, struct flip_solve_stats *st) {
  memset(st, 0, sizeof *st);
  if (reserve(p, g)) return -1;
  threads = flip_team(threads, FLIP_CELL_WORK(g->ncell));
  const int nx = g->n[0], ny = g->n[1], nz = g->n[2];
  fluid_box(g, p, threads);
  memset(p->mask, 0, p->nused);
  memset(p->diag, 0, p->nused);
  memset(p->row_lo, 0, (size_t)ny * nz * sizeof *p->row_lo);
  memset(p->row_hi, 0, (size_t)ny * nz * sizeof *p->row_hi);
  const int *bo = p->bo, *bn = p->bn;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int k = bo[2]; k < bo[2] + bn[2]; k++)
    for (int j = bo[1]; j < bo[1] + bn[1]; j++) {
      size_t r = (size_t)j + (size_t)ny * k, c0 = r * nx;
      size_t e0 = flip_pad(p, 0, j, k);
      uint32_t lo = (uint32_t)nx, hi = 0;
      for (int i = bo[0]; i < bo[0] + bn[0]; i++) {
        cell_row(g, p, i, j, k, c0 + i, e0 + i);
        if (p->mask[e0 + i] & FLIP_M_SELF) {
          if (lo == (uint32_t)nx) lo = (uint32_t)i;
          hi = (uint32_t)i + 1;
        }
      }
      p->row_lo[r] = hi ? lo : 0;
      p->row_hi[r] = hi;
    }
  p->nrows = 0;
  for (size_t r = 0; r < (size_t)ny * nz; r++) {
    if (r % ny == 0) p->plane_row[r / ny] = (uint32_t)p->nrows;
    if (p->row_hi[r] > p->row_lo[r]) {
      p->rowpad[p->nrows] = row_base(p, g, (uint32_t)r);
      p->rows[p->nrows++] = (uint32_t)r;
    }
  }
  p->plane_row[nz] = (uint32_t)p->nrows;
  size_t nfluid = 0;
  double dmax = 0.0;
#pragma omp parallel for schedule(static) num_threads(threads) \
    reduction(+ : nfluid) reduction(max : dmax)
  for (size_t q = 0; q < p->nrows; q++) {
    uint32_t r = p->rows[q];
    size_t e0 = row_base(p, g, r);
    int j = (int)(r % ny), k = (int)(r / ny);
    for (uint32_t i = p->row_lo[r]; i < p->row_hi[r]; i++) {
      size_t e = e0 + i;
      if (!(p->mask[e] & FLIP_M_SELF)) {
        p->b[e] = 0.0;
        continue;
      }
      double d = cell_div(g, (int)i, j, k);
      p->b[e] = -d;
      dmax = fabs(d) > dmax ? fabs(d) : dmax;
      nfluid++;
    }
  }
  p->nfluid = nfluid;
  p->weighted = g->weighted;
  if (p->weighted && weights(g, p, threads)) return -1;
  st->unknowns = nfluid;
  st->div_before = dmax;
  st->pinned = close_components(g, p);
  return 0;
}

/* Variable density: the weighted diagonal and links of every unknown
 * (flip.h).  Face (a; i, j, k) is the lower face of cell (i, j, k). */
static int weights(const struct flip_grid *g, struct flip_poisson *p,
                   int threads) {
  double **v[] = {&p->wd, &p->wl[0], &p->wl[1], &p->wl[2]};
  for (int q = 0; q < 4; q++)
    if (!*v[q] && !(*v[q] = calloc(p->npad, sizeof(double)))) return -1;
  const int ny = g->n[1];
  const size_t cst[3] = {1, (size_t)g->n[0], (size_t)g->n[0] * g->n[1]};
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t q = 0; q < p->nrows; q++) {
    uint32_t r = p->rows[q];
    size_t e0 = row_base(p, g, r);
    int j = (int)(r % ny), k = (int)(r / ny);
    for (uint32_t i = p->row_lo[r]; i < p->row_hi[r]; i++) {
      size_t e = e0 + i, c = flip_cell(g, (int)i, j, k);
      uint8_t m = p->mask[e];
      double d = 0.0;
      for (int a = 0; a < 3; a++) p->wl[a][e] = 0.0;
      if (!(m & FLIP_M_SELF)) {
        p->wd[e] = 0.0;
        continue;
      }
      int ijk[3] = {(int)i, j, k};
      for (int a = 0; a < 3; a++) {
        const int *fn = g->fn[a];
        size_t f = (size_t)i + (size_t)fn[0] * ((size_t)j + (size_t)fn[1] * k);
        size_t fs = a == 0 ? 1 : a == 1 ? (size_t)fn[0]
                                        : (size_t)fn[0] * fn[1];
        if (ijk[a] > 0 && g->cell[c - cst[a]] != FLIP_SOLID)
          d += g->beta[a][f];
        if (ijk[a] + 1 < g->n[a] && g->cell[c + cst[a]] != FLIP_SOLID) {
          d += g->beta[a][f + fs];
          if (m & (2u << (2 * a))) p->wl[a][e] = g->beta[a][f + fs];
        }
      }
      p->wd[e] = d;
    }
  }
  return 0;
}

/* u -= beta grad phi on the non-solid faces next to an unknown (beta 1
 * for one density); the pressure copied to the grid layout. */
static void apply_gradient(struct flip_grid *g, struct flip_poisson *p,
                           int threads) {
  const size_t st[3] = {1, p->sj, p->sk};
  for (int a = 0; a < 3; a++) {
    const int *fn = g->fn[a];
    double *u = g->u[a];
    const size_t sj = (size_t)fn[0], sk = sj * fn[1];
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int k = 0; k < fn[2]; k++)
      for (int j = 0; j < fn[1]; j++)
        for (int i = 0; i < fn[0]; i++) {
          int ijk[3] = {i, j, k};
          if (ijk[a] == 0 || ijk[a] == g->n[a]) continue;
          /* cell 2 = (i, j, k), cell 1 one below along a; both may lie
           * in the ghost layer, where mask and phi are 0 */
          int m[3] = {i, j, k};
          m[a]--;
          int in2 = flip_in_box(p, i, j, k);
          int in1 = flip_in_box(p, m[0], m[1], m[2]);
          if (!in1 && !in2) continue;
          size_t e2 = in2 ? flip_pad(p, i, j, k)
                          : flip_pad(p, m[0], m[1], m[2]) + st[a];
          size_t e1 = e2 - st[a];
          if (!((p->mask[e1] | p->mask[e2]) & FLIP_M_SELF)) continue;
          size_t c2 = flip_cell(g, i, j, k);
          size_t c1 = c2 - (a == 0 ? 1 : a == 1 ? (size_t)g->n[0]
                                                : (size_t)g->n[0] * g->n[1]);
          if (g->cell[c1] == FLIP_SOLID || g->cell[c2] == FLIP_SOLID) continue;
          /* phi is 0 outside the unknowns */
          size_t f = (size_t)i + sj * j + sk * k;
          double dp = p->phi[e2] - p->phi[e1];
          u[f] -= p->weighted ? g->beta[a][f] * dp : dp;
        }
  }
  const int nx = g->n[0], ny = g->n[1];
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int k = 0; k < g->n[2]; k++)
    for (int j = 0; j < ny; j++) {
      size_t c0 = (size_t)nx * ((size_t)j + (size_t)ny * k);
      for (int i = 0; i < nx; i++) {
        size_t e = flip_in_box(p, i, j, k) ? flip_pad(p, i, j, k) : 0;
        p->pressure[c0 + i] =
            e && (p->mask[e] & FLIP_M_SELF) ? p->phi[e] : 0.0;
      }
    }
}

int flip_poisson_solve(struct flip_poisson *p, const struct flip_grid *g,
                       const struct flip_solve_opts *o,
                       struct flip_solve_stats *st) {
  st->converged = 1;
  if (!p->nfluid || !(st->div_before > 0.0)) {
    memset(p->phi, 0, p->nused * sizeof *p->phi);
    return 0;
  }
  if (o->method == FLIP_SOLVER_CHOLMOD) return flip_cholmod_solve(p, g, st);
  return flip_pcg_solve(p, g, o, st);
}

void flip_poisson_finish(struct flip_grid *g, struct flip_poisson *p,
                         int threads) {
  apply_gradient(g, p, flip_team(threads, FLIP_CELL_WORK(g->ncell)));
}

int flip_project(struct flip_grid *g, struct flip_poisson *p,
                 const struct flip_solve_opts *o,
                 struct flip_solve_stats *st) {
  if (flip_poisson_build(g, p, o->threads, st)) return -1;
  int rc = flip_poisson_solve(p, g, o, st);
  if (rc) return rc;
  flip_poisson_finish(g, p, o->threads);
  return 0;
}

void flip_divergence(const struct flip_grid *g, double *max_abs,
                     double *rms) {
  double m = 0.0, s = 0.0;
  size_t cnt = 0;
  for (int k = 0; k < g->n[2]; k++)
    for (int j = 0; j < g->n[1]; j++)
      for (int i = 0; i < g->n[0]; i++) {
        if (g->cell[flip_cell(g, i, j, k)] != FLIP_FLUID) continue;
        double d = cell_div(g, i, j, k);
        m = fmax(m, fabs(d));
        s += d * d;
        cnt++;
      }
  *max_abs = m;
  *rms = cnt ? sqrt(s / (double)cnt) : 0.0;
}
