/* Advection (through the grid velocity, or by the particles' own) and the
 * solid boundaries of the particles: the tank walls and static box
 * obstacles. */
#include "flip.h"

/* One midpoint (RK2) step of xp through the grid velocity. */
static inline void midpoint_step(const struct flip_grid *g, double *xp,
                                 double dt) {
  double u1[3], mid[3], u2[3];
  flip_velocity(g, xp, u1);
  for (int a = 0; a < 3; a++) mid[a] = xp[a] + 0.5 * dt * u1[a];
  flip_velocity(g, mid, u2);
  for (int a = 0; a < 3; a++) xp[a] += dt * u2[a];
}

void flip_advect(const struct flip_grid *g, double *x, size_t n, double dt,
                 const int32_t *skip, int threads) {
  threads = flip_team(threads, n);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t p = 0; p < n; p++)
    if (!skip || skip[p] < 0) midpoint_step(g, x + 3 * p, dt);
}

void flip_advect_own(double *x, const double *v, size_t n, double dt,
                     const int32_t *skip, int threads) {
  threads = flip_team(threads, n);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t p = 0; p < n; p++) {
    if (skip && skip[p] >= 0) continue;
    for (int a = 0; a < 3; a++) x[3 * p + a] += dt * v[3 * p + a];
  }
}

void flip_advect_interface(const struct flip_grid *g, double *x,
                           const double *v, size_t n, double dt,
                           const int32_t *skip, int threads) {
  threads = flip_team(threads, n);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t p = 0; p < n; p++) {
    if (skip && skip[p] >= 0) continue;
    double *xp = x + 3 * p;
    int c[3];
    flip_cell_of(g, xp, c);
    if (!g->near[flip_cell(g, c[0], c[1], c[2])]) {
      midpoint_step(g, xp, dt);
      continue;
    }
    for (int a = 0; a < 3; a++) xp[a] += dt * v[3 * p + a];
  }
}

/* Smallest move of point y out of box b grown by r: axis and signed
 * amount; returns 0 when y is not inside. */
static int exit_move(const struct flip_box *b, double r, const double *y,
                     int *axis, double *amount) {
  double best = INFINITY;
  for (int a = 0; a < 3; a++)
    if (!(y[a] > b->lo[a] - r && y[a] < b->hi[a] + r)) return 0;
  for (int a = 0; a < 3; a++) {
    double down = b->lo[a] - r - y[a], up = b->hi[a] + r - y[a];
    if (-down < best) best = -down, *axis = a, *amount = down;
    if (up < best) best = up, *axis = a, *amount = up;
  }
  return 1;
}

static void wall_limits(const struct flip_grid *g, int a, double r,
                        double *lo, double *hi) {
  *lo = g->lo[a] + r;
  *hi = g->lo[a] + g->n[a] * g->h - r;
}

void flip_push_out(const struct flip_grid *g, const struct flip_box *obst,
                   int nobst, double *x, double *v, const double *r,
                   size_t n, const int32_t *skip, int threads) {
  threads = flip_team(threads, n);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t p = 0; p < n; p++) {
    if (skip && skip[p] >= 0) continue;
    double *xp = x + 3 * p, *vp = v + 3 * p;
    for (int o = 0; o < nobst; o++) {
      int a;
      double d;
      if (!exit_move(obst + o, r[p], xp, &a, &d)) continue;
      xp[a] += d;
      if (d > 0.0 ? vp[a] < 0.0 : vp[a] > 0.0) vp[a] = 0.0;
    }
    for (int a = 0; a < 3; a++) {
      double lo, hi;
      wall_limits(g, a, r[p], &lo, &hi);
      if (xp[a] < lo) {
        xp[a] = lo;
        if (vp[a] < 0.0) vp[a] = 0.0;
      } else if (xp[a] > hi) {
        xp[a] = hi;
        if (vp[a] > 0.0) vp[a] = 0.0;
      }
    }
  }
}

/* Keep a rigid set inside the walls: one shared displacement. */
static int clamp_walls(const struct flip_grid *g, const double *x,
                       const double *r, const uint32_t *idx, uint32_t cnt,
                       double *d, double *V) {
  int hit = 0;
  for (int a = 0; a < 3; a++) {
    double need_lo = -INFINITY, need_hi = INFINITY;
    for (uint32_t q = 0; q < cnt; q++) {
      double lo, hi;
      uint32_t i = idx[q];
      wall_limits(g, a, r[i], &lo, &hi);
      need_lo = fmax(need_lo, lo - x[3 * (size_t)i + a]);
      need_hi = fmin(need_hi, hi - x[3 * (size_t)i + a]);
    }
    if (d[a] < need_lo) {
      d[a] = need_lo;
      if (V[a] < 0.0) V[a] = 0.0;
      hit = 1;
    } else if (d[a] > need_hi) {
      d[a] = need_hi;
      if (V[a] > 0.0) V[a] = 0.0;
      hit = 1;
    }
  }
  return hit;
}

int flip_clamp_rigid(const struct flip_grid *g, const struct flip_box *obst,
                     int nobst, const double *x, const double *r,
                     const uint32_t *idx, uint32_t cnt, double *d,
                     double *V) {
  double up[3] = {0.0, 0.0, 0.0}, down[3] = {0.0, 0.0, 0.0};
  int hit = 0;
  for (int o = 0; o < nobst; o++)
    for (uint32_t q = 0; q < cnt; q++) {
      const double *xi = x + 3 * (size_t)idx[q];
      double y[3] = {xi[0] + d[0], xi[1] + d[1], xi[2] + d[2]}, m;
      int a;
      if (!exit_move(obst + o, r[idx[q]], y, &a, &m)) continue;
      if (m > 0.0) up[a] = fmax(up[a], m);
      else down[a] = fmin(down[a], m);
      hit = 1;
    }
  for (int a = 0; hit && a < 3; a++) {
    d[a] += up[a] + down[a];
    if (up[a] > 0.0 && V[a] < 0.0) V[a] = 0.0;
    if (down[a] < 0.0 && V[a] > 0.0) V[a] = 0.0;
  }
  return clamp_walls(g, x, r, idx, cnt, d, V) || hit;
}

/* Particle separation: every free particle (skip[i] < 0) closer than d0
 * to another of the system moves away from it by k (d0 - r) / 2, all at
 * once (Jacobi: the result does not depend on the order or the thread
 * count).  In a flow FLIP's particles drift into clumps -- trilinear
 * velocities are not divergence-free between the faces -- and a clump
 * holds more particles than its cells' volume, so the liquid loses volume
 * (configs/gao2018/oil_rises.cfg: the particles' mean height sinks 4.5 %
 * over 8 s without separation, rises 0.9 % with k = 0.5).  Velocities are
 * untouched, so momentum is too.  The bins are rebuilt on x. */
int flip_separate(const struct flip_grid *g, struct flip_bins *b, double *x,
                  double *dx, size_t n, double d0, double k,
                  const int32_t *skip, int threads) {
  if (flip_bins_sort(b, g, x, n, threads)) return -1;
  const double d2 = d0 * d0;
  threads = flip_team(threads, n);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t i = 0; i < n; i++) {
    double *d = dx + 3 * i;
    const double *xi = x + 3 * i;
    int c[3];
    d[0] = d[1] = d[2] = 0.0;
    if (skip && skip[i] >= 0) continue;
    flip_cell_of(g, xi, c);
    for (int kk = c[2] - 1; kk <= c[2] + 1; kk++)
      for (int jj = c[1] - 1; jj <= c[1] + 1; jj++)
        for (int ii = c[0] - 1; ii <= c[0] + 1; ii++) {
          if (ii < 0 || jj < 0 || kk < 0 || ii >= g->n[0] || jj >= g->n[1] ||
              kk >= g->n[2])
            continue;
          size_t cell = flip_cell(g, ii, jj, kk);
          for (uint32_t q = b->start[cell]; q < b->start[cell + 1]; q++) {
            size_t j = b->perm[q];
            const double *xj = x + 3 * j;
            double e[3] = {xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]};
            double r2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
            if (j == i || !(r2 < d2) || !(r2 > 0.0)) continue;
            double r = sqrt(r2), f = 0.5 * k * (d0 - r) / r;
            for (int a = 0; a < 3; a++) d[a] += f * e[a];
          }
        }
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t i = 0; i < 3 * n; i++) x[i] += dx[i];
  return 0;
}
