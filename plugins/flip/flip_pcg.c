/* Conjugate gradients preconditioned with modified incomplete Cholesky,
 * MIC(0) (Bridson, Fluid Simulation for Computer Graphics, ch. 5).
 *
 * Vectors live in the zero-padded layout and are 0 outside the unknowns,
 * as is the preconditioner: the kernels need no neighbour tests (a missing
 * neighbour contributes 0).  The factorisation and the two triangular
 * solves run in lexicographic order (x fastest), so cell (i, j, k) depends
 * on (i-1, j, k), (i, j-1, k) and (i, j, k-1).  Each row is solved in two
 * passes: the terms from the rows below (vectorisable), then the
 * recurrence along x, one multiply-add per cell.
 *
 * The sweeps are parallel as a pipeline: thread t owns rows j in
 * [split[t], split[t+1]) of every z-plane and works on block s - t of
 * `depth` planes at stage s, one barrier per stage; backward sweeps run
 * the pipeline in reverse.  Every cell is computed from the same inputs in
 * the same order as on one thread, and dot products are summed per row
 * then over rows in a fixed order: the solve is bitwise the same for any
 * thread count. */
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "flip.h"

#define MIC_TAU 0.97
#define MIC_SIGMA 0.25

struct rowctx {
  struct flip_poisson *p;
  const struct flip_grid *g;
  double *buf;  /* 2 nx doubles of this thread */
  double alpha; /* lower sweep: first r -= alpha q (when update) */
  int update;
  double rmax;  /* ... and this thread's max |r| */
};

typedef void (*row_fn)(struct rowctx *x, uint32_t row, size_t e0);

#define BIT(m, b) ((double)(((m) >> (b)) & 1u))

static void precon_row(struct rowctx *x, uint32_t row, size_t e0) {
  struct flip_poisson *p = x->p;
  const uint8_t *M = p->mask;
  float *restrict pc = p->precon;
  const size_t sj = p->sj, sk = p->sk;
  for (size_t c = e0 + p->row_lo[row]; c < e0 + p->row_hi[row]; c++) {
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
    pc[c] = (float)(1.0 / sqrt(e));
  }
}

/* L q = r (q stored in z):
 *   z_c = (r_c + pc_{c-1} z_{c-1} + pc_{c-sj} z_{c-sj}
 *          + pc_{c-sk} z_{c-sk}) pc_c
 * after the CG update r -= alpha q when x->update. */
static void lower_row(struct rowctx *x, uint32_t row, size_t e0) {
  const struct flip_poisson *p = x->p;
  const size_t sj = p->sj, sk = p->sk, c0 = e0 + p->row_lo[row];
  const size_t n = p->row_hi[row] - p->row_lo[row];
  const float *restrict pc = p->precon + c0;
  double *restrict r = p->r + c0, *restrict z = p->z + c0;
  double *restrict t = x->buf, *restrict w = x->buf + x->g->n[0];
  if (x->update) {
    const double *restrict q = p->q + c0, alpha = x->alpha;
    double m = x->rmax;
#pragma omp simd reduction(max : m)
    for (size_t i = 0; i < n; i++) {
      r[i] -= alpha * q[i];
      double a = fabs(r[i]);
      m = a > m ? a : m;
    }
    x->rmax = m;
  }
#pragma omp simd
  for (size_t i = 0; i < n; i++) {
    t[i] = (r[i] + (double)pc[i - sj] * z[i - sj] +
            (double)pc[i - sk] * z[i - sk]) * pc[i];
    w[i] = (double)pc[i - 1] * pc[i];
  }
  double prev = z[-1]; /* 0: not an unknown */
  for (size_t i = 0; i < n; i++) z[i] = prev = t[i] + w[i] * prev;
}

/* L^T z = q in place, and this row's share of r . z:
 *   z_c = (z_c + pc_c (z_{c+1} + z_{c+sj} + z_{c+sk})) pc_c */
static void upper_row(struct rowctx *x, uint32_t row, size_t e0) {
  struct flip_poisson *p = x->p;
  const size_t sj = p->sj, sk = p->sk, c0 = e0 + p->row_lo[row];
  const size_t n = p->row_hi[row] - p->row_lo[row];
  const float *restrict pc = p->precon + c0;
  const double *restrict r = p->r + c0;
  double *restrict z = p->z + c0;
  double *restrict t = x->buf, *restrict w = x->buf + x->g->n[0];
#pragma omp simd
  for (size_t i = 0; i < n; i++) {
    double d = pc[i];
    t[i] = (z[i] + d * (z[i + sj] + z[i + sk])) * d;
    w[i] = d * d;
  }
  double next = z[n], dot = 0.0; /* z[n]: 0, not an unknown */
  for (size_t i = n; i-- > 0;) z[i] = next = t[i] + w[i] * next;
#pragma omp simd reduction(+ : dot)
  for (size_t i = 0; i < n; i++) dot += r[i] * z[i];
  p->part[row] = dot;
}

/* Run fn over the rows of plane k of thread t's range. */
static void sweep_plane(struct rowctx *x, int t, int k, int dir,
                        row_fn fn) {
  const struct flip_poisson *p = x->p;
  const int ny = x->g->n[1], j0 = p->split[t], j1 = p->split[t + 1];
  for (int q = 0; q < j1 - j0; q++) {
    int j = dir > 0 ? j0 + q : j1 - 1 - q;
    uint32_t row = (uint32_t)(j + ny * k);
    if (p->row_hi[row] > p->row_lo[row]) fn(x, row, flip_pad(p, 0, j, k));
  }
}

/* Run fn over every row in pipelined order; dir > 0 forward. */
static void sweep(struct rowctx *x, int nt, int t, int dir, row_fn fn) {
  const int nz = x->g->n[2];
  if (nt == 1) {
    for (int q = 0; q < nz; q++)
      sweep_plane(x, t, dir > 0 ? q : nz - 1 - q, dir, fn);
    return;
  }
  const int depth = nz / (8 * nt) > 1 ? nz / (8 * nt) : 1;
  const int nb = (nz + depth - 1) / depth;
  for (int s = 0; s < nb + nt - 1; s++) {
    int b = dir > 0 ? s - t : s - (nt - 1 - t);
    if (b >= 0 && b < nb)
      for (int q = b * depth; q < (b + 1) * depth && q < nz; q++)
        sweep_plane(x, t, dir > 0 ? q : nz - 1 - q, dir, fn);
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
static void matvec_row(struct flip_poisson *p, uint32_t row, size_t e0) {
  const size_t sj = p->sj, sk = p->sk, c0 = e0 + p->row_lo[row];
  const size_t n = p->row_hi[row] - p->row_lo[row];
  const double *restrict s = p->s + c0;
  const uint8_t *restrict d = p->diag + c0;
  double *restrict q = p->q + c0, dot = 0.0;
#pragma omp simd reduction(+ : dot)
  for (size_t i = 0; i < n; i++) {
    double t = d[i] * s[i] - (s[i - 1] + s[i + 1]) - (s[i - sj] + s[i + sj]) -
               (s[i - sk] + s[i + sk]);
    q[i] = d[i] ? t : 0.0;
    dot += s[i] * q[i];
  }
  p->part[row] = dot;
}

static int reserve(struct flip_poisson *p, const struct flip_grid *g, int T) {
  if (T <= p->cap_threads) return 0;
  int *s = realloc(p->split, (size_t)(T + 1) * sizeof *s);
  if (s) p->split = s;
  double *w = realloc(p->work, (size_t)T * 2 * g->n[0] * sizeof *w);
  if (w) p->work = w;
  if (!s || !w) return -1;
  p->cap_threads = T;
  return 0;
}

/* Body over the active rows: e0 padded row base, [lo, hi) the cells. */
#define FOR_ROWS(p, ...)                                               \
  _Pragma("omp for schedule(static)")                                      \
  for (size_t q_ = 0; q_ < (p)->nrows; q_++) {                             \
    uint32_t row = (p)->rows[q_];                                          \
    size_t e0 = (p)->rowpad[q_];                                           \
    size_t lo = e0 + (p)->row_lo[row], hi = e0 + (p)->row_hi[row];         \
    (void)lo, (void)hi;                                                    \
    __VA_ARGS__                                                            \
  }

/* r = b - A phi over one row (phi is 0 outside the unknowns). */
static void residual_row(struct flip_poisson *p, uint32_t row, size_t e0) {
  const size_t sj = p->sj, sk = p->sk, c0 = e0 + p->row_lo[row];
  const size_t n = p->row_hi[row] - p->row_lo[row];
  const double *restrict x = p->phi + c0, *restrict b = p->b + c0;
  const uint8_t *restrict d = p->diag + c0;
  double *restrict r = p->r + c0;
#pragma omp simd
  for (size_t i = 0; i < n; i++) {
    double t = d[i] * x[i] - (x[i - 1] + x[i + 1]) - (x[i - sj] + x[i + sj]) -
               (x[i - sk] + x[i + sk]);
    r[i] = d[i] ? b[i] - t : 0.0;
  }
}

int flip_pcg_solve(struct flip_poisson *p, const struct flip_grid *g,
                   const struct flip_solve_opts *o,
                   struct flip_solve_stats *st) {
  /* the pipeline pays a barrier per block: worth it for big systems only */
  int T = flip_team(o->threads, p->nfluid / 4);
  if (reserve(p, g, T)) return -1;
  const double bmax = st->div_before, goal = o->tolerance * bmax;
  const size_t np = p->npad, nx = (size_t)g->n[0];
  double sigma = 0.0, alpha = 0.0, beta = 0.0, rmax = bmax, rnow = 0.0;
  int it = 0, done = 0, bad = 0, stall = 0;
#pragma omp parallel num_threads(T)
  {
    int nt = 1, t = 0;
#ifdef _OPENMP
    nt = omp_get_num_threads();
    t = omp_get_thread_num();
#endif
    struct rowctx x = {p, g, p->work + (size_t)t * 2 * nx, 0.0, 0, 0.0};
#pragma omp single
    make_splits(p, g, nt);
    /* outside the unknowns every vector the stencils read is 0 */
#pragma omp for schedule(static)
    for (size_t c = 0; c < np; c++) {
      p->s[c] = p->z[c] = p->phi[c] = 0.0;
      p->precon[c] = 0.0f;
    }
    sweep(&x, nt, t, 1, precon_row);
    if (o->guess) {
      /* phi = the scaled guess at the unknowns; r = b - A phi */
      const double gs = o->guess_scale;
      FOR_ROWS(p, {
        const double *gu = o->guess + (size_t)row * nx;
        for (size_t c = lo; c < hi; c++)
          p->phi[c] = p->diag[c] ? gs * gu[c - e0] : 0.0;
      })
      FOR_ROWS(p, residual_row(p, row, e0);)
    } else {
      FOR_ROWS(p, for (size_t c = lo; c < hi; c++)
                       p->r[c] = p->diag[c] ? p->b[c] : 0.0;)
    }
#pragma omp for schedule(static) reduction(max : rnow)
    for (size_t q_ = 0; q_ < p->nrows; q_++) {
      uint32_t row = p->rows[q_];
      size_t lo = p->rowpad[q_] + p->row_lo[row];
      for (size_t i = 0; i < p->row_hi[row] - p->row_lo[row]; i++) {
        double a = fabs(p->r[lo + i]);
        rnow = a > rnow ? a : rnow;
      }
    }
#pragma omp single
    {
      rmax = rnow;
      done = rmax <= goal; /* the guess is good enough already */
    }
    if (!done) {
      sweep(&x, nt, t, 1, lower_row);
      sweep(&x, nt, t, -1, upper_row);
      FOR_ROWS(p, for (size_t c = lo; c < hi; c++) p->s[c] = p->z[c];)
#pragma omp single
      sigma = sum_rows(p);
    }
    while (!done) {
      /* q = A s; alpha = sigma / (s . q) */
      FOR_ROWS(p, matvec_row(p, row, e0);)
#pragma omp single
      {
        double sq = sum_rows(p);
        alpha = sigma / sq;
        bad = !isfinite(sq);
        stall = !bad && !(sq > 0.0); /* s = 0: nothing left to gain */
        rnow = 0.0;
      }
      if (bad || stall) break;
      /* r -= alpha q fused into z = M^-1 r (wasted once, at the end) */
      x.alpha = alpha, x.update = 1, x.rmax = 0.0;
      sweep(&x, nt, t, 1, lower_row);
#pragma omp critical(flip_pcg_rmax)
      rnow = x.rmax > rnow ? x.rmax : rnow;
#pragma omp barrier
#pragma omp single
      {
        it++;
        rmax = rnow;
        done = rmax <= goal || it >= o->max_iterations || !isfinite(rmax);
      }
      if (done) {
        FOR_ROWS(p, {
          double *restrict phi = p->phi;
          const double *restrict s = p->s;
          _Pragma("omp simd")
          for (size_t c = lo; c < hi; c++) phi[c] += alpha * s[c];
        })
        break;
      }
      sweep(&x, nt, t, -1, upper_row);
#pragma omp single
      {
        double sn = sum_rows(p);
        beta = sn / sigma;
        sigma = sn;
      }
      /* phi += alpha s with the old s, then s = z + beta s */
      FOR_ROWS(p, {
        double *restrict s = p->s, *restrict phi = p->phi;
        const double *restrict z = p->z;
        _Pragma("omp simd")
        for (size_t c = lo; c < hi; c++) {
          phi[c] += alpha * s[c];
          s[c] = z[c] + beta * s[c];
        }
      })
    }
  }
  st->iterations = it;
  st->residual = bmax > 0.0 ? rmax / bmax : 0.0;
  st->converged = !bad && rmax <= goal;
  if (bad || !isfinite(rmax)) return -2;
  return 0;
}
