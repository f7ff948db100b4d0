/* Conjugate gradients preconditioned with modified incomplete Cholesky,
 * MIC(0) (Bridson, Fluid Simulation for Computer Graphics, ch. 5).
 *
 * The factorisation and the two triangular solves run in lexicographic
 * order (x fastest), so cell (i, j, k) depends on (i-1, j, k), (i, j-1, k)
 * and (i, j, k-1).  They are parallel as a pipeline: thread t owns rows
 * j in [split[t], split[t+1]) of every z-plane and works on plane s - t at
 * stage s, one barrier per stage; backward sweeps run the pipeline in
 * reverse.  Every cell is computed from the same inputs in the same order
 * as on one thread, and dot products are summed per row then over rows in
 * a fixed order: the solve is bitwise the same for any thread count. */
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "flip.h"

#define MIC_TAU 0.97
#define MIC_SIGMA 0.25

typedef void (*row_fn)(struct flip_poisson *p, size_t c0, uint32_t row,
                       size_t sj, size_t sk);

#define BIT(m, b) ((double)(((m) >> (b)) & 1u))

static void precon_row(struct flip_poisson *p, size_t c0, uint32_t row,
                       size_t sj, size_t sk) {
  const uint8_t *M = p->mask;
  double *pc = p->precon;
  for (size_t c = c0 + p->row_lo[row]; c < c0 + p->row_hi[row]; c++) {
    uint8_t m = M[c];
    if (!(m & FLIP_M_SELF)) continue;
    double e = p->diag[c], d;
    if (m & FLIP_M_XM) {
      d = pc[c - 1];
      e -= d * d * (1.0 + MIC_TAU * (BIT(M[c - 1], 3) + BIT(M[c - 1], 5)));
    }
    if (m & FLIP_M_YM) {
      d = pc[c - sj];
      e -= d * d * (1.0 + MIC_TAU * (BIT(M[c - sj], 1) + BIT(M[c - sj], 5)));
    }
    if (m & FLIP_M_ZM) {
      d = pc[c - sk];
      e -= d * d * (1.0 + MIC_TAU * (BIT(M[c - sk], 1) + BIT(M[c - sk], 3)));
    }
    if (e < MIC_SIGMA * p->diag[c]) e = p->diag[c];
    pc[c] = 1.0 / sqrt(e);
  }
}

/* L q = r, q stored in z. */
static void lower_row(struct flip_poisson *p, size_t c0, uint32_t row,
                      size_t sj, size_t sk) {
  const uint8_t *M = p->mask;
  const double *pc = p->precon, *r = p->r;
  double *z = p->z;
  for (size_t c = c0 + p->row_lo[row]; c < c0 + p->row_hi[row]; c++) {
    uint8_t m = M[c];
    if (!(m & FLIP_M_SELF)) continue;
    double t = r[c];
    if (m & FLIP_M_XM) t += pc[c - 1] * z[c - 1];
    if (m & FLIP_M_YM) t += pc[c - sj] * z[c - sj];
    if (m & FLIP_M_ZM) t += pc[c - sk] * z[c - sk];
    z[c] = t * pc[c];
  }
}

/* L^T z = q in place, and this row's share of r . z. */
static void upper_row(struct flip_poisson *p, size_t c0, uint32_t row,
                      size_t sj, size_t sk) {
  const uint8_t *M = p->mask;
  const double *pc = p->precon, *r = p->r;
  double *z = p->z, dot = 0.0;
  if (p->row_hi[row] <= p->row_lo[row]) return;
  for (size_t c = c0 + p->row_hi[row]; c-- > c0 + p->row_lo[row];) {
    uint8_t m = M[c];
    if (!(m & FLIP_M_SELF)) continue;
    double t = 0.0;
    if (m & FLIP_M_XP) t += z[c + 1];
    if (m & FLIP_M_YP) t += z[c + sj];
    if (m & FLIP_M_ZP) t += z[c + sk];
    z[c] = (z[c] + pc[c] * t) * pc[c];
    dot += r[c] * z[c];
  }
  p->part[row] = dot;
}

/* Run fn over every row in pipelined order; dir > 0 forward. */
static void sweep(struct flip_poisson *p, const struct flip_grid *g,
                  int nt, int t, int dir, row_fn fn) {
  const int nz = g->n[2], ny = g->n[1];
  const int j0 = p->split[t], j1 = p->split[t + 1];
  const size_t nx = (size_t)g->n[0], sj = nx, sk = nx * ny;
  for (int s = 0; s < nz + nt - 1; s++) {
    int k = dir > 0 ? s - t : nz - 1 - (s - (nt - 1 - t));
    if (k >= 0 && k < nz) {
      for (int q = 0; q < j1 - j0; q++) {
        int j = dir > 0 ? j0 + q : j1 - 1 - q;
        uint32_t row = (uint32_t)(j + ny * k);
        if (p->row_hi[row] > p->row_lo[row])
          fn(p, (size_t)row * nx, row, sj, sk);
      }
    }
#pragma omp barrier
  }
}

/* Row ranges of the pipeline with about equal numbers of unknowns. */
static void make_splits(struct flip_poisson *p, const struct flip_grid *g,
                        int nt) {
  const int ny = g->n[1];
  double *cnt = p->part, total = 0.0, run = 0.0;
  for (int j = 0; j < ny; j++) cnt[j] = 0.0;
  for (size_t q = 0; q < p->nrows; q++) {
    uint32_t r = p->rows[q];
    cnt[r % ny] += (double)(p->row_hi[r] - p->row_lo[r]);
  }
  for (int j = 0; j < ny; j++) total += cnt[j];
  p->split[0] = 0;
  int t = 1;
  for (int j = 0; j < ny && t < nt; j++) {
    run += cnt[j];
    while (t < nt && run >= total * t / nt) p->split[t++] = j + 1;
  }
  while (t <= nt) p->split[t++] = ny;
}

static double sum_rows(const struct flip_poisson *p) {
  double s = 0.0;
  for (size_t q = 0; q < p->nrows; q++) s += p->part[p->rows[q]];
  return s;
}

/* q = A s and this row's share of s . q. */
static void matvec_row(struct flip_poisson *p, size_t c0, uint32_t row,
                       size_t sj, size_t sk) {
  const uint8_t *M = p->mask;
  const double *s = p->s;
  double *q = p->q, dot = 0.0;
  for (size_t c = c0 + p->row_lo[row]; c < c0 + p->row_hi[row]; c++) {
    uint8_t m = M[c];
    if (!(m & FLIP_M_SELF)) continue;
    double t = p->diag[c] * s[c];
    if (m & FLIP_M_XM) t -= s[c - 1];
    if (m & FLIP_M_XP) t -= s[c + 1];
    if (m & FLIP_M_YM) t -= s[c - sj];
    if (m & FLIP_M_YP) t -= s[c + sj];
    if (m & FLIP_M_ZM) t -= s[c - sk];
    if (m & FLIP_M_ZP) t -= s[c + sk];
    q[c] = t;
    dot += s[c] * t;
  }
  p->part[row] = dot;
}

#define FOR_UNKNOWNS(p, nx, body)                                          \
  _Pragma("omp for schedule(static)")                                      \
  for (size_t q_ = 0; q_ < (p)->nrows; q_++) {                             \
    uint32_t row_ = (p)->rows[q_];                                         \
    size_t c0_ = (size_t)row_ * (nx);                                      \
    for (size_t c = c0_ + (p)->row_lo[row_]; c < c0_ + (p)->row_hi[row_];  \
         c++) {                                                            \
      if (!((p)->mask[c] & FLIP_M_SELF)) continue;                         \
      body                                                                 \
    }                                                                      \
  }

int flip_pcg_solve(struct flip_poisson *p, const struct flip_grid *g,
                   const struct flip_solve_opts *o,
                   struct flip_solve_stats *st) {
  /* the pipeline pays a barrier per plane: worth it for big systems only */
  int T = flip_team(o->threads, p->nfluid / 4);
  if (T > p->cap_threads) {
    int *s = realloc(p->split, (size_t)(T + 1) * sizeof *s);
    if (!s) return -1;
    p->split = s;
    p->cap_threads = T;
  }
  const size_t nx = (size_t)g->n[0], sj = nx, sk = nx * g->n[1];
  const double bmax = st->div_before, goal = o->tolerance * bmax;
  double sigma = 0.0, alpha = 0.0, beta = 0.0, rmax = bmax, rnow = 0.0;
  int it = 0, done = 0, bad = 0, stall = 0;
#pragma omp parallel num_threads(T)
  {
    int nt = 1, t = 0;
#ifdef _OPENMP
    nt = omp_get_num_threads();
    t = omp_get_thread_num();
#endif
#pragma omp single
    make_splits(p, g, nt);
    sweep(p, g, nt, t, 1, precon_row);
    FOR_UNKNOWNS(p, nx, p->phi[c] = 0.0; p->r[c] = p->b[c];)
    sweep(p, g, nt, t, 1, lower_row);
    sweep(p, g, nt, t, -1, upper_row);
    FOR_UNKNOWNS(p, nx, p->s[c] = p->z[c];)
#pragma omp single
    sigma = sum_rows(p);
    while (!done) {
      /* q = A s; alpha = sigma / (s . q) */
#pragma omp for schedule(static)
      for (size_t q = 0; q < p->nrows; q++)
        matvec_row(p, p->rows[q] * nx, p->rows[q], sj, sk);
#pragma omp single
      {
        double sq = sum_rows(p);
        alpha = sigma / sq;
        bad = !isfinite(sq);
        stall = !bad && !(sq > 0.0); /* s = 0: nothing left to gain */
        rnow = 0.0;
      }
      if (bad || stall) break;
#pragma omp for schedule(static) reduction(max : rnow)
      for (size_t q = 0; q < p->nrows; q++) {
        uint32_t row = p->rows[q];
        size_t c0 = (size_t)row * nx;
        for (size_t c = c0 + p->row_lo[row]; c < c0 + p->row_hi[row]; c++) {
          if (!(p->mask[c] & FLIP_M_SELF)) continue;
          p->phi[c] += alpha * p->s[c];
          p->r[c] -= alpha * p->q[c];
          rnow = fmax(rnow, fabs(p->r[c]));
        }
      }
#pragma omp single
      {
        it++;
        rmax = rnow;
        done = rmax <= goal || it >= o->max_iterations || !isfinite(rmax);
      }
      if (done) break;
      sweep(p, g, nt, t, 1, lower_row);
      sweep(p, g, nt, t, -1, upper_row);
#pragma omp single
      {
        double sn = sum_rows(p);
        beta = sn / sigma;
        sigma = sn;
      }
      FOR_UNKNOWNS(p, nx, p->s[c] = p->z[c] + beta * p->s[c];)
    }
  }
  st->iterations = it;
  st->residual = bmax > 0.0 ? rmax / bmax : 0.0;
  st->converged = !bad && !stall && rmax <= goal;
  if (bad || !isfinite(rmax)) return -2;
  return 0;
}
