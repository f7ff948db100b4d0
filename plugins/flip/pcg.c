/* Conjugate gradients preconditioned with modified incomplete Cholesky,
 * MIC(0) (Bridson, Fluid Simulation for Computer Graphics, ch. 5).
 *
 * Vectors live in the zero-padded layout and are 0 outside the unknowns,
 * as is the preconditioner: the kernels need no neighbour tests (a missing
 * neighbour contributes 0).  The factorisation and the triangular solves
 * run in lexicographic order (x fastest); each row is solved in two
 * passes: the terms from the rows before it (vectorisable), then the
 * recurrence along x, one multiply-add per cell.
 *
 * Parallel without a pipeline: MIC(0) is applied per block of z-planes
 * (FLIP_PCG_BLOCKS blocks with about equal numbers of unknowns; the links
 * between blocks are left out of the factor, block Jacobi), so a thread
 * runs both triangular solves of its blocks without waiting for anyone.
 * One iteration has three barriers, which matters on a busy machine.  The
 * price: 112 iterations instead of 98 for the benchmark's 128^3 solve
 * with two blocks (4 blocks: 138, 8: 165), so two blocks, for two cores.  The
 * blocks do not depend on the thread count, every cell is computed the
 * same way on any thread, and dot products are summed per row, then over
 * rows in a fixed order by every thread: the solve is bitwise the same for
 * any thread count. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "flip.h"

#define MIC_TAU 0.97
#define MIC_SIGMA 0.25

/* One row of the block's work: links to -z / +z kept only inside the
 * block. */
struct rowctx {
  struct flip_poisson *p;
  double *buf;   /* 2 nx doubles of this thread */
  int zm, zp;    /* the row's plane has a -z / +z neighbour plane in block */
};

#define BIT(m, b) ((double)(((m) >> (b)) & 1u))

static void precon_row(const struct rowctx *x, uint32_t row, size_t e0) {
  struct flip_poisson *p = x->p;
  const uint8_t *M = p->mask;
  float *restrict pc = p->precon;
  const size_t sj = p->sj, sk = p->sk;
  /* +z links of this plane's cells leave the block on its last plane */
  const double zp = x->zp;
  for (size_t c = e0 + p->row_lo[row]; c < e0 + p->row_hi[row]; c++) {
    uint8_t m = M[c];
    if (!(m & FLIP_M_SELF)) continue;
    double e = p->diag[c], d;
    if (m & FLIP_M_XM) {
      d = pc[c - 1];
      e -= d * d * (1.0 + MIC_TAU * (BIT(M[c - 1], 3) + zp * BIT(M[c - 1], 5)));
    }
    if (m & FLIP_M_YM) {
      d = pc[c - sj];
      e -= d * d *
           (1.0 + MIC_TAU * (BIT(M[c - sj], 1) + zp * BIT(M[c - sj], 5)));
    }
    if ((m & FLIP_M_ZM) && x->zm) {
      d = pc[c - sk];
      e -= d * d * (1.0 + MIC_TAU * (BIT(M[c - sk], 1) + BIT(M[c - sk], 3)));
    }
    if (e < MIC_SIGMA * p->diag[c]) e = p->diag[c];
    pc[c] = (float)(1.0 / sqrt(e));
  }
}

/* max |r| over the row. */
static double rowmax(const struct flip_poisson *p, uint32_t row, size_t e0) {
  const double *restrict r = p->r + e0 + p->row_lo[row];
  const size_t n = p->row_hi[row] - p->row_lo[row];
  double m = 0.0;
#pragma omp simd reduction(max : m)
  for (size_t i = 0; i < n; i++) {
    double a = fabs(r[i]);
    m = a > m ? a : m;
  }
  return m;
}

/* L q = r (q stored in z), after r -= alpha q (alpha 0: r as it is):
 *   z_c = (r_c + pc_{c-1} z_{c-1} + pc_{c-sj} z_{c-sj}
 *          + pc_{c-sk} z_{c-sk}) pc_c
 * Returns the row's max |r|. */
static double lower_row(const struct rowctx *x, uint32_t row, size_t e0,
                        double alpha) {
  const struct flip_poisson *p = x->p;
  const size_t c0 = e0 + p->row_lo[row];
  const ptrdiff_t sj = (ptrdiff_t)p->sj, sk = x->zm ? (ptrdiff_t)p->sk : 0;
  const ptrdiff_t n = (ptrdiff_t)(p->row_hi[row] - p->row_lo[row]);
  const double kz = x->zm ? 1.0 : 0.0;
  const float *restrict pc = p->precon + c0;
  const double *restrict q = p->q + c0;
  double *restrict r = p->r + c0, *restrict z = p->z + c0, m = 0.0;
  double *restrict t = x->buf, *restrict w = x->buf + (p->sj - 2);
#pragma omp simd reduction(max : m)
  for (ptrdiff_t i = 0; i < n; i++) {
    double ri = alpha != 0.0 ? r[i] - alpha * q[i] : r[i];
    r[i] = ri;
    m = fabs(ri) > m ? fabs(ri) : m;
    t[i] = (ri + (double)pc[i - sj] * z[i - sj] +
            kz * (double)pc[i - sk] * z[i - sk]) * pc[i];
    w[i] = (double)pc[i - 1] * pc[i];
  }
  double prev = z[-1]; /* 0: not an unknown */
  for (ptrdiff_t i = 0; i < n; i++) z[i] = prev = t[i] + w[i] * prev;
  return m;
}

/* L^T z = q in place, and this row's share of r . z:
 *   z_c = (z_c + pc_c (z_{c+1} + z_{c+sj} + z_{c+sk})) pc_c */
static double upper_row(const struct rowctx *x, uint32_t row, size_t e0) {
  struct flip_poisson *p = x->p;
  const size_t sj = p->sj, sk = x->zp ? p->sk : 0, c0 = e0 + p->row_lo[row];
  const size_t n = p->row_hi[row] - p->row_lo[row];
  const double kz = x->zp ? 1.0 : 0.0;
  const float *restrict pc = p->precon + c0;
  const double *restrict r = p->r + c0;
  double *restrict z = p->z + c0;
  double *restrict t = x->buf, *restrict w = x->buf + (p->sj - 2);
#pragma omp simd
  for (size_t i = 0; i < n; i++) {
    double d = pc[i];
    t[i] = (z[i] + d * (z[i + sj] + kz * z[i + sk])) * d;
    w[i] = d * d;
  }
  double next = z[n], dot = 0.0; /* z[n]: 0, not an unknown */
  for (size_t i = n; i-- > 0;) z[i] = next = t[i] + w[i] * next;
#pragma omp simd reduction(+ : dot)
  for (size_t i = 0; i < n; i++) dot += r[i] * z[i];
  return dot;
}

/* y = A x over one row, several densities (flip.h: wd, wl). */
static inline double weighted_Ax(const struct flip_poisson *p, size_t c,
                                 const double *x) {
  const size_t sj = p->sj, sk = p->sk;
  const double *lx = p->wl[0], *ly = p->wl[1], *lz = p->wl[2];
  return p->wd[c] * x[c] - (lx[c - 1] * x[c - 1] + lx[c] * x[c + 1]) -
         (ly[c - sj] * x[c - sj] + ly[c] * x[c + sj]) -
         (lz[c - sk] * x[c - sk] + lz[c] * x[c + sk]);
}

/* q = A s and this row's share of s . q. */
static double matvec_row(struct flip_poisson *p, uint32_t row, size_t e0) {
  if (p->weighted) {
    const size_t c0 = e0 + p->row_lo[row], c1 = e0 + p->row_hi[row];
    double dot = 0.0;
    for (size_t c = c0; c < c1; c++) {
      p->q[c] = p->diag[c] ? weighted_Ax(p, c, p->s) : 0.0;
      dot += p->s[c] * p->q[c];
    }
    return dot;
  }
  const size_t c0 = e0 + p->row_lo[row];
  const ptrdiff_t sj = (ptrdiff_t)p->sj, sk = (ptrdiff_t)p->sk;
  const ptrdiff_t n = (ptrdiff_t)(p->row_hi[row] - p->row_lo[row]);
  const double *restrict s = p->s + c0;
  const uint8_t *restrict d = p->diag + c0;
  double *restrict q = p->q + c0, dot = 0.0;
#pragma omp simd reduction(+ : dot)
  for (ptrdiff_t i = 0; i < n; i++) {
    double t = d[i] * s[i] - (s[i - 1] + s[i + 1]) - (s[i - sj] + s[i + sj]) -
               (s[i - sk] + s[i + sk]);
    q[i] = d[i] ? t : 0.0;
    dot += s[i] * q[i];
  }
  return dot;
}

/* r = b - A phi over one row (phi is 0 outside the unknowns). */
static void residual_row(struct flip_poisson *p, uint32_t row, size_t e0) {
  const size_t c0 = e0 + p->row_lo[row];
  const ptrdiff_t sj = (ptrdiff_t)p->sj, sk = (ptrdiff_t)p->sk;
  const ptrdiff_t n = (ptrdiff_t)(p->row_hi[row] - p->row_lo[row]);
  const double *restrict x = p->phi + c0, *restrict b = p->b + c0;
  const uint8_t *restrict d = p->diag + c0;
  double *restrict r = p->r + c0;
  if (p->weighted) {
    for (ptrdiff_t i = 0; i < n; i++)
      r[i] = d[i] ? b[i] - weighted_Ax(p, c0 + (size_t)i, p->phi) : 0.0;
    return;
  }
#pragma omp simd
  for (ptrdiff_t i = 0; i < n; i++) {
    double t = d[i] * x[i] - (x[i - 1] + x[i + 1]) - (x[i - sj] + x[i + sj]) -
               (x[i - sk] + x[i + sk]);
    r[i] = d[i] ? b[i] - t : 0.0;
  }
}

/* Blocks of planes with about equal numbers of unknowns (row extents). */
static void make_blocks(struct flip_poisson *p, const struct flip_grid *g) {
  const int nz = g->n[2], nb = nz < FLIP_PCG_BLOCKS ? nz : FLIP_PCG_BLOCKS;
  double total = 0.0, run = 0.0;
  for (size_t q = 0; q < p->nrows; q++)
    total += p->row_hi[p->rows[q]] - p->row_lo[p->rows[q]];
  int b = 1;
  p->kb[0] = 0;
  for (int k = 0; k < nz && b < nb; k++) {
    for (uint32_t q = p->plane_row[k]; q < p->plane_row[k + 1]; q++)
      run += p->row_hi[p->rows[q]] - p->row_lo[p->rows[q]];
    while (b < nb && run >= total * b / nb) p->kb[b++] = k + 1;
  }
  while (b <= FLIP_PCG_BLOCKS) p->kb[b++] = nz;
}

/* Active rows of block b: [*q0, *q1). */
static void block_rows(const struct flip_poisson *p, int b, uint32_t *q0,
                       uint32_t *q1) {
  *q0 = p->plane_row[p->kb[b]];
  *q1 = p->plane_row[p->kb[b + 1]];
}

/* Sum (or max) of a per-row array over the active rows, in row order. */
static double total_of(const struct flip_poisson *p, const double *a,
                       int max) {
  double s = 0.0;
  for (size_t q = 0; q < p->nrows; q++) {
    double v = a[p->rows[q]];
    s = max ? (v > s ? v : s) : s + v;
  }
  return s;
}

/* Triangular solves of block b (r -= alpha q first when update); writes
 * the rows' r . z and max |r| partials. */
static void apply_block(struct flip_poisson *p, const struct flip_grid *g,
                        int b, double *buf, int update, double alpha) {
  const int ny = g->n[1], k0 = p->kb[b], k1 = p->kb[b + 1];
  double *rz = p->part + p->ncell / g->n[0], *rm = rz + p->ncell / g->n[0];
  struct rowctx x = {p, buf, 0, 0};
  uint32_t q0, q1;
  block_rows(p, b, &q0, &q1);
  for (uint32_t q = q0; q < q1; q++) {
    int k = (int)(p->rows[q] / (uint32_t)ny);
    x.zm = k > k0;
    rm[p->rows[q]] = lower_row(&x, p->rows[q], p->rowpad[q],
                               update ? alpha : 0.0);
  }
  for (uint32_t q = q1; q-- > q0;) {
    int k = (int)(p->rows[q] / (uint32_t)ny);
    x.zp = k + 1 < k1;
    rz[p->rows[q]] = upper_row(&x, p->rows[q], p->rowpad[q]);
  }
}

/* A spinning barrier.  OpenMP's own barriers put waiting threads to sleep
 * after a short spin, and waking them costs milliseconds on some virtual
 * machines, many times the work between two barriers of an iteration.
 * This one spins, yielding the processor after a while so that a loaded
 * machine's other threads can run. */
struct spin_barrier {
  atomic_uint count, gen;
  unsigned n;
};

static void barrier_wait(struct spin_barrier *b) {
  if (b->n < 2) return;
  unsigned gen = atomic_load_explicit(&b->gen, memory_order_acquire);
  if (atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) + 1 ==
      b->n) {
    atomic_store_explicit(&b->count, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&b->gen, 1, memory_order_acq_rel);
    return;
  }
  for (unsigned spins = 0;
       atomic_load_explicit(&b->gen, memory_order_acquire) == gen;)
    if (++spins > 2048) thrd_yield();
}

static int reserve(struct flip_poisson *p, const struct flip_grid *g, int T) {
  if (T <= p->cap_threads) return 0;
  double *w = realloc(p->work, (size_t)T * 2 * g->n[0] * sizeof *w);
  if (!w) return -1;
  p->work = w;
  p->cap_threads = T;
  return 0;
}

/* The rows of block b, as a loop over q. */
#define FOR_BLOCK_ROWS(p, b, q)                                            \
  for (uint32_t q = (p)->plane_row[(p)->kb[b]];                            \
       q < (p)->plane_row[(p)->kb[(b) + 1]]; q++)

/* The blocks of thread t of nt. */
#define FOR_MY_BLOCKS(b) for (int b = t; b < FLIP_PCG_BLOCKS; b += nt)

/* Make the first guess and its residual; returns max |r|. */
static double start(struct flip_poisson *p, const struct flip_grid *g,
                    const struct flip_solve_opts *o, int t, int nt,
                    double *buf, struct spin_barrier *bar) {
  const size_t np = p->nused, nx = (size_t)g->n[0];
  const size_t c0 = np * (size_t)t / (size_t)nt, c1 = np * (size_t)(t + 1) / nt;
  double *rm = p->part + 2 * (p->ncell / nx);
  /* outside the unknowns every vector the stencils read is 0 */
  for (size_t c = c0; c < c1; c++) {
    p->s[c] = p->z[c] = p->phi[c] = 0.0;
    p->precon[c] = 0.0f;
  }
  barrier_wait(bar);
  FOR_MY_BLOCKS(b) {
    struct rowctx x = {p, buf, 0, 0};
    FOR_BLOCK_ROWS(p, b, q) {
      int k = (int)(p->rows[q] / (uint32_t)g->n[1]);
      x.zm = k > p->kb[b], x.zp = k + 1 < p->kb[b + 1];
      precon_row(&x, p->rows[q], p->rowpad[q]);
    }
    FOR_BLOCK_ROWS(p, b, q) {
      uint32_t row = p->rows[q];
      size_t e0 = p->rowpad[q], lo = e0 + p->row_lo[row];
      size_t hi = e0 + p->row_hi[row];
      if (o->guess) { /* phi = the scaled guess at the unknowns */
        const double *gu = o->guess + (size_t)row * nx;
        for (size_t c = lo; c < hi; c++)
          p->phi[c] = p->diag[c] ? o->guess_scale * gu[c - e0] : 0.0;
      } else {
        for (size_t c = lo; c < hi; c++) p->r[c] = p->diag[c] ? p->b[c] : 0.0;
      }
    }
  }
  barrier_wait(bar);
  /* r = b - A phi (phi of the neighbouring blocks is needed), max |r| */
  FOR_MY_BLOCKS(b) FOR_BLOCK_ROWS(p, b, q) {
    if (o->guess) residual_row(p, p->rows[q], p->rowpad[q]);
    rm[p->rows[q]] = rowmax(p, p->rows[q], p->rowpad[q]);
  }
  barrier_wait(bar);
  return total_of(p, rm, 1);
}

/* What one thread's iterations end with (every thread agrees). */
struct cg_end {
  int iterations, bad;
  double rmax;
};

/* Thread t of nt: preconditioned CG from the start's residual until the
 * goal, the iteration limit or a breakdown; restarted from the true
 * residual when rounding let the recurrence's drift above the goal. */
static struct cg_end iterate(struct flip_poisson *p,
                             const struct flip_grid *g,
                             const struct flip_solve_opts *o, double goal,
                             struct spin_barrier *bar, int t, int nt) {
  const size_t np = p->nused, nx = (size_t)g->n[0], nr = p->ncell / nx;
  double *sq = p->part, *rz = sq + nr, *rm = rz + nr;
  double *buf = p->work + (size_t)t * 2 * nx;
  const size_t c0 = np * (size_t)t / (size_t)nt;
  const size_t c1 = np * (size_t)(t + 1) / (size_t)nt;
  /* every thread keeps its own copy of the scalars: same values */
  double sigma = 0.0, alpha = 0.0, beta;
  int it = 0, bad = 0, stall = 0;
  double rmax = start(p, g, o, t, nt, buf, bar);
  int done = rmax <= goal; /* the guess is good enough already */
  for (int restart = 0; !done; restart++) {
    /* z = M^-1 r, s = z */
    FOR_MY_BLOCKS(b) apply_block(p, g, b, buf, 0, 0.0);
    barrier_wait(bar);
    for (size_t c = c0; c < c1; c++) p->s[c] = p->z[c];
    sigma = total_of(p, rz, 0);
    barrier_wait(bar);
    while (!done) {
      /* q = A s; alpha = sigma / (s . q) */
      FOR_MY_BLOCKS(b) FOR_BLOCK_ROWS(p, b, q)
        sq[p->rows[q]] = matvec_row(p, p->rows[q], p->rowpad[q]);
      barrier_wait(bar);
      double sqt = total_of(p, sq, 0);
      alpha = sigma / sqt;
      bad = !isfinite(sqt);
      stall = !bad && !(sqt > 0.0); /* s = 0: nothing left to gain */
      if (bad || stall) break;
      /* r -= alpha q, then z = M^-1 r (wasted once, at the end) */
      FOR_MY_BLOCKS(b) apply_block(p, g, b, buf, 1, alpha);
      barrier_wait(bar);
      it++;
      rmax = total_of(p, rm, 1);
      done = rmax <= goal || it >= o->max_iterations || !isfinite(rmax);
      double sn = total_of(p, rz, 0);
      beta = sn / sigma;
      sigma = sn;
      /* phi += alpha s with the old s; then s = z + beta s */
      FOR_MY_BLOCKS(b) FOR_BLOCK_ROWS(p, b, q) {
        uint32_t row = p->rows[q];
        size_t e = p->rowpad[q] + p->row_lo[row];
        size_t n = p->row_hi[row] - p->row_lo[row];
        double *restrict s = p->s + e, *restrict phi = p->phi + e;
        const double *restrict z = p->z + e;
#pragma omp simd
        for (size_t i = 0; i < n; i++) {
          phi[i] += alpha * s[i];
          s[i] = z[i] + beta * s[i];
        }
      }
      barrier_wait(bar);
    }
    if (bad || stall || it >= o->max_iterations || !isfinite(rmax)) break;
    /* The recurrence says converged: check the true residual b - A phi
     * (it is the divergence the projection leaves) and restart from it
     * if rounding let it drift above the goal. */
    FOR_MY_BLOCKS(b) FOR_BLOCK_ROWS(p, b, q) {
      residual_row(p, p->rows[q], p->rowpad[q]);
      rm[p->rows[q]] = rowmax(p, p->rows[q], p->rowpad[q]);
    }
    barrier_wait(bar);
    rmax = total_of(p, rm, 1);
    done = rmax <= goal || restart >= 2;
  }
  return (struct cg_end){it, bad, rmax};
}

int flip_pcg_solve(struct flip_poisson *p, const struct flip_grid *g,
                   const struct flip_solve_opts *o,
                   struct flip_solve_stats *st) {
  int T = flip_team(o->threads, p->nfluid);
  if (reserve(p, g, T)) return -1;
  make_blocks(p, g);
  const double bmax = st->div_before, goal = o->tolerance * bmax;
  struct cg_end end = {0, 0, bmax};
  struct spin_barrier bar;
  atomic_init(&bar.count, 0);
  atomic_init(&bar.gen, 0);
  bar.n = 1;
#pragma omp parallel num_threads(T)
  {
    int t = 0, nt = 1;
#ifdef _OPENMP
    t = omp_get_thread_num();
    nt = omp_get_num_threads();
#endif
#pragma omp single
    bar.n = (unsigned)nt;
    struct cg_end e = iterate(p, g, o, goal, &bar, t, nt);
    if (t == 0) end = e;
  }
  st->iterations = end.iterations;
  st->residual = bmax > 0.0 ? end.rmax / bmax : 0.0;
  st->converged = !end.bad && end.rmax <= goal;
  if (end.bad || !isfinite(end.rmax)) return -2;
  return 0;
}
