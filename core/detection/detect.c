/* Collision detection over all systems: the grid search (detection.h). */
#include "../base/base.h"
#include "detection.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/status.h>

#ifdef _OPENMP
#include <omp.h>
#endif


#define NO_BULK UINT32_MAX
/* Keys of up to PLAN_KEYS systems are told apart when planning a search. */
#define PLAN_KEYS 64
/* Drivers per block of work. */
#define BLOCK 32
/* Drivers per round: a round's pairs (some 13 a driver in a dense packing,
 * 3 MiB) wait in the threads' buffers, in cache, before the copy. */
#define ROUND_DRIVERS 32768
/* Bulk points outside the drivers' box grown by this many cells are left
 * out (a rounding allowance on top of the one cell that matters). */
#define BOX_CELLS 1.000001

void ms__detect_init(struct ms__detect *d) { ms__memset(d, 0, sizeof *d); }

void ms__detect_free(struct ms__detect *d) {
  ms__grid_free(&d->grid);
  ms__grid_free(&d->bgrid);
  for (int t = 0; t < d->nthreads; t++) free(d->tbuf[t].p);
  void *arrays[] = {d->tbuf,  d->blk_tid, d->blk_off, d->blk_cnt,
                    d->blk_dst, d->pairs, d->drivers, d->bidx,
                    d->cand,  d->row};
  ms__reuse_free(d->reuse);
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) free(arrays[i]);
  ms__memset(d, 0, sizeof *d);
}

size_t ms__detect_bytes(const struct ms__detect *d) {
  size_t b = ms__grid_bytes(&d->grid) + ms__grid_bytes(&d->bgrid) +
             (d->cap_pairs + d->cap_cand) * 2 * sizeof(uint32_t) +
             (d->cap_row + 2 * d->cap_idx) * sizeof(uint32_t) +
             d->nblocks_cap * (sizeof(uint32_t) + 3 * sizeof(size_t)) +
             (size_t)d->nthreads * sizeof *d->tbuf + ms__reuse_bytes(d->reuse);
  for (int t = 0; t < d->nthreads; t++)
    b += d->tbuf[t].cap * 2 * sizeof(uint32_t);
  return b;
}

/* Neighbouring cells as contiguous slot ranges: cells are numbered
 * z-fastest, so the three cells of a z-row are adjacent in slot order. */
struct ranges {
  uint32_t lo[9], hi[9];
  int n;
};

static void add_row(const struct ms__grid *g, int64_t jx, int64_t jy,
                    uint32_t iz, struct ranges *R) {
  uint32_t d1 = g->dim[1], d2 = g->dim[2];
  if (jx < 0 || jx >= g->dim[0] || jy < 0 || jy >= d1) return;
  uint32_t cc = ((uint32_t)jx * d1 + (uint32_t)jy) * d2 + iz;
  uint32_t a = g->cell_start[cc - (iz > 0)];
  uint32_t b = g->cell_start[cc + 1 + (iz + 1 < d2)];
  if (a < b) R->lo[R->n] = a, R->hi[R->n] = b, R->n++;
}

/* Forward: range 0 is the cell with its +z neighbour (the caller scans it
 * past the point), then the rows (dx, dy) = (0,1), (1,-1), (1,0), (1,1);
 * every pair in cells at most one apart is in one point's forward ranges. */
static void forward_ranges(const struct ms__grid *g, uint32_t c,
                           struct ranges *R) {
  static const int rows[4][2] = {{0, 1}, {1, -1}, {1, 0}, {1, 1}};
  uint32_t d1 = g->dim[1], d2 = g->dim[2];
  uint32_t iz = c % d2, iy = (c / d2) % d1, ix = c / (d2 * d1);
  R->lo[0] = g->cell_start[c];
  R->hi[0] = g->cell_start[c + 1 + (iz + 1 < d2)];
  R->n = 1;
  for (int k = 0; k < 4; k++)
    add_row(g, (int64_t)ix + rows[k][0], (int64_t)iy + rows[k][1], iz, R);
}

/* All nine rows around cell c. */
static void all_ranges(const struct ms__grid *g, uint32_t c,
                       struct ranges *R) {
  uint32_t d1 = g->dim[1], d2 = g->dim[2];
  uint32_t iz = c % d2, iy = (c / d2) % d1, ix = c / (d2 * d1);
  R->n = 0;
  for (int dx = -1; dx <= 1; dx++)
    for (int dy = -1; dy <= 1; dy++)
      add_row(g, (int64_t)ix + dx, (int64_t)iy + dy, iz, R);
}

static int buf_reserve(struct ms__pairbuf *b, size_t extra) {
  if (b->n + extra <= b->cap) return MS_OK;
  size_t cap = b->cap * 2;
  if (cap < b->n + extra) cap = b->n + extra;
  if (cap < 4096) cap = 4096;
  if (ms__grow((void **)&b->p, cap, 2 * sizeof(uint32_t))) return MS_ENOMEM;
  b->cap = cap;
  return MS_OK;
}

/* Pairs of slot i of grid a against slots [lo, hi) of grid b, without
 * those of a system with itself that ignores its own pairs. */
static inline size_t scan(const struct ms__grid *a, uint32_t i,
                          const struct ms__grid *b, uint32_t lo, uint32_t hi,
                          uint32_t *out) {
  const double xi = a->sx[i], yi = a->sy[i], zi = a->sz[i], ri = a->sr[i];
  const double skin = a->skin;
  const uint32_t ki = a->skey[i], oi = a->order[i];
  const int nonself = !(ki & MS__SELF_BIT);
  size_t m = 0;
  for (uint32_t j = lo; j < hi; j++) {
    double dx = b->sx[j] - xi, dy = b->sy[j] - yi, dz = b->sz[j] - zi;
    double t = ri + b->sr[j] + skin;
    if (dx * dx + dy * dy + dz * dz < t * t) {
      if (nonself & (b->skey[j] == ki)) continue;
      uint32_t oj = b->order[j];
      out[2 * m] = oi < oj ? oi : oj;
      out[2 * m + 1] = oi < oj ? oj : oi;
      m++;
    }
  }
  return m;
}

/* The pairs of the drivers in slots [s0, s1) of d->grid: the other drivers
 * in their forward ranges, the bulk in all neighbouring cells.  Ranges are
 * found once per cell. */
static int block_pairs(const struct ms__detect *d, uint32_t s0, uint32_t s1,
                       struct ms__pairbuf *shared) {
  /* The threads' buffers sit side by side: a local copy keeps each
   * thread's count off the cache line the others write. */
  struct ms__pairbuf local = *shared, *buf = &local;
  int rc = MS_OK;
  const struct ms__grid *g = &d->grid, *bg = &d->bgrid;
  const int dd = d->dd, db = d->nbulk > 0;
  struct ranges F = {.n = 0}, B = {.n = 0};
  uint32_t fc = UINT32_MAX, bc = UINT32_MAX;
  for (uint32_t i = s0; i < s1; i++) {
    const double p[3] = {g->sx[i], g->sy[i], g->sz[i]};
    uint32_t c = ms__grid_cell(g, p), cb = db ? ms__grid_cell(bg, p) : 0;
    if (dd && c != fc) forward_ranges(g, c, &F), fc = c;
    if (db && cb != bc) all_ranges(bg, cb, &B), bc = cb;
    size_t span = 0;
    for (int k = 0; k < F.n; k++) span += F.hi[k] - F.lo[k];
    for (int k = 0; k < B.n; k++) span += B.hi[k] - B.lo[k];
    if ((rc = buf_reserve(buf, span))) break;
    uint32_t *out = buf->p + 2 * buf->n;
    size_t m = 0;
    if (dd) m += scan(g, i, g, i + 1, F.hi[0], out);
    for (int k = 1; k < F.n; k++)
      m += scan(g, i, g, F.lo[k], F.hi[k], out + 2 * m);
    for (int k = 0; k < B.n; k++)
      m += scan(g, i, bg, B.lo[k], B.hi[k], out + 2 * m);
    buf->n += m;
  }
  *shared = local;
  return rc;
}

static int ensure_threads(struct ms__detect *d, int nt, size_t nblocks) {
  if (nt > d->nthreads) {
    if (ms__grow((void **)&d->tbuf, (size_t)nt, sizeof *d->tbuf))
      return MS_ENOMEM;
    ms__memset(d->tbuf + d->nthreads, 0,
           (size_t)(nt - d->nthreads) * sizeof *d->tbuf);
    d->nthreads = nt;
  }
  if (nblocks > d->nblocks_cap) {
    if (ms__grow((void **)&d->blk_tid, nblocks, sizeof(uint32_t)) ||
        ms__grow((void **)&d->blk_off, nblocks, sizeof(size_t)) ||
        ms__grow((void **)&d->blk_cnt, nblocks, sizeof(size_t)) ||
        ms__grow((void **)&d->blk_dst, nblocks, sizeof(size_t)))
      return MS_ENOMEM;
    d->nblocks_cap = nblocks;
  }
  return MS_OK;
}

/* The contact distances r_i + r_j a reported pair can have, which is all
 * the cells must span: w[0] among the drivers, w[1] between drivers and
 * bulk (a fluid that ignores its own pairs is not sized by 2 r).  Picks the
 * bulk: the system ignoring its own pairs with the most points.  With keys
 * beyond PLAN_KEYS: 2 r_max and no bulk.  Returns -1 when a radius is not
 * positive and finite (*bad). */
static int plan(struct ms__detect *d, const struct ms__detect_input *in,
                double *w, size_t *bad) {
  double kmax[PLAN_KEYS] = {0.0}, rmax = 0.0;
  size_t count[PLAN_KEYS] = {0}, most = 0, first_bad = in->n;
  int many = 0;
#pragma omp parallel for schedule(static) reduction(max : kmax[:PLAN_KEYS], \
    rmax) reduction(+ : count[:PLAN_KEYS]) reduction(min : first_bad) \
    reduction(| : many) if (in->n > MS__PAR_MIN_STREAM)
  for (size_t i = 0; i < in->n; i++) {
    double r = in->r[i];
    uint32_t k = in->sys ? in->sys[i] : 0;
    if (!(r > 0.0) || !isfinite(r)) {
      first_bad = i < first_bad ? i : first_bad;
      continue;
    }
    rmax = r > rmax ? r : rmax;
    if (k >= PLAN_KEYS) {
      many = 1;
      continue;
    }
    kmax[k] = r > kmax[k] ? r : kmax[k];
    count[k]++;
  }
  if (first_bad < in->n) {
    *bad = first_bad;
    return -1;
  }
  d->bulk = NO_BULK;
  w[0] = many ? 2.0 * rmax : 0.0, w[1] = 0.0;
  for (uint32_t k = 0; !many && in->self && k < PLAN_KEYS; k++)
    if (count[k] > most && !in->self[k]) most = count[k], d->bulk = k;
  for (uint32_t k = 0; !many && k < PLAN_KEYS; k++) {
    if (!count[k] || k == d->bulk) continue;
    if (!in->self || in->self[k]) w[0] = fmax(w[0], 2.0 * kmax[k]);
    for (uint32_t l = k + 1; l < PLAN_KEYS; l++)
      if (count[l] && l != d->bulk) w[0] = fmax(w[0], kmax[k] + kmax[l]);
    if (d->bulk != NO_BULK) w[1] = fmax(w[1], kmax[k] + kmax[d->bulk]);
  }
  return 0;
}

static inline uint32_t key_id(const struct ms__detect_input *in, size_t i) {
  return in->sys ? in->sys[i] : 0;
}

/* Split the points into drivers and bulk; box the drivers.  Returns the
 * first point with a non-finite position, or n. */
static size_t split_points(struct ms__detect *d,
                           const struct ms__detect_input *in, double *lo,
                           double *hi) {
  size_t nd = 0, nb = 0, bad = in->n;
  if (d->bulk == NO_BULK) { /* every point drives: no index lists */
    d->ndrivers = in->n, d->nbulk = 0;
    return ms__grid_bounds(in->x, 3 * sizeof(double), in->n, lo, hi);
  }
  for (int a = 0; a < 3; a++) lo[a] = INFINITY, hi[a] = -INFINITY;
  for (size_t i = 0; i < in->n; i++) {
    const double *p = in->x + 3 * i;
    if (!(isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]))) {
      bad = bad < i ? bad : i;
      continue;
    }
    if (key_id(in, i) == d->bulk) {
      d->bidx[nb++] = (uint32_t)i;
      continue;
    }
    d->drivers[nd++] = (uint32_t)i;
    for (int a = 0; a < 3; a++) {
      lo[a] = p[a] < lo[a] ? p[a] : lo[a];
      hi[a] = p[a] > hi[a] ? p[a] : hi[a];
    }
  }
  d->ndrivers = nd, d->nbulk = nb;
  return bad;
}

/* Keep the bulk points within reach of the drivers' box [lo, hi]; make the
 * bulk grid's box of them. */
static void near_bulk(struct ms__detect *d, const struct ms__detect_input *in,
                      double reach, double *lo, double *hi) {
  size_t m = 0;
  for (int a = 0; a < 3; a++) lo[a] -= reach, hi[a] += reach;
  for (size_t k = 0; k < d->nbulk; k++) {
    const double *p = in->x + 3 * (size_t)d->bidx[k];
    int in_box = 1;
    for (int a = 0; a < 3; a++) in_box &= p[a] >= lo[a] && p[a] <= hi[a];
    d->bidx[m] = d->bidx[k];
    m += (size_t)in_box;
  }
  d->nbulk = m;
}

static int prepare_grids(struct ms__detect *d,
                         const struct ms__detect_input *in, double reach,
                         size_t *bad) {
  double w[2], lo[3], hi[3];
  if (plan(d, in, w, bad)) return MS_EINVAL;
  if (d->bulk != NO_BULK && in->n > d->cap_idx) {
    size_t cap = in->n + in->n / 16 + 64;
    if (ms__grow((void **)&d->drivers, cap, sizeof(uint32_t)) ||
        ms__grow((void **)&d->bidx, cap, sizeof(uint32_t)))
      return MS_ENOMEM;
    d->cap_idx = cap;
  }
  if ((*bad = split_points(d, in, lo, hi)) < in->n) return MS_EINVAL;
  /* Drivers of one system blind to itself, or none: nothing to find. */
  d->dd = w[0] > 0.0;
  if (d->ndrivers == 0 || (!d->dd && d->nbulk == 0)) {
    d->ndrivers = d->nbulk = 0;
    return MS_OK;
  }
  struct ms__grid *g = &d->grid, *bg = &d->bgrid;
  double cell = (d->dd ? w[0] : w[1]) + reach;
  g->skin = bg->skin = reach;
  if (ms__grid_cells(g, lo, hi, cell, d->ndrivers) ||
      ms__grid_fill(g, in->x, 3 * sizeof(double), in->r, in->sys, in->self,
                    d->bulk == NO_BULK ? NULL : d->drivers, d->ndrivers))
    return MS_ENOMEM;
  if (d->nbulk == 0) return MS_OK;
  near_bulk(d, in, BOX_CELLS * (w[1] + reach), lo, hi);
  if (ms__grid_cells(bg, lo, hi, w[1] + reach, d->nbulk) ||
      ms__grid_fill(bg, in->x, 3 * sizeof(double), in->r, in->sys, in->self,
                    d->bidx, d->nbulk))
    return MS_ENOMEM;
  return MS_OK;
}

/* The nb blocks of a round done: where each block's pairs go in d->pairs
 * (block order), room made; one thread.  Returns MS_ENOMEM. */
static int round_offsets(struct ms__detect *d, size_t nb) {
  size_t at = d->npairs;
  for (size_t b = 0; b < nb; b++) d->blk_dst[b] = at, at += d->blk_cnt[b];
  if (ms__pairs_reserve(d, at)) return MS_ENOMEM;
  d->npairs = at;
  return MS_OK;
}

/* The blocks of drivers, in rounds of rb blocks: found by the threads into
 * their buffers (blocks handed out dynamically), then copied to d->pairs in
 * block order -- the same list for any thread count.  Every thread meets
 * the same barriers, failed or not. */
static int search_rounds(struct ms__detect *d, int nt, size_t nblocks,
                         size_t rb) {
  size_t nd = d->ndrivers;
  int failed = 0;
#pragma omp parallel num_threads(nt)
  {
    int tid = 0;
#ifdef _OPENMP
    tid = omp_get_thread_num();
#endif
    struct ms__pairbuf *buf = &d->tbuf[tid];
    for (size_t b0 = 0; b0 < nblocks; b0 += rb) {
      size_t nb = b0 + rb < nblocks ? rb : nblocks - b0;
      buf->n = 0;
      /* 8 blocks a chunk (64 B of blk_off, of blk_cnt): the threads
       * share at most the lines at a chunk's ends, not one a block. */
#pragma omp for schedule(dynamic, 8)
      for (size_t k = 0; k < nb; k++) {
        size_t s0 = BLOCK * (b0 + k), s1 = s0 + BLOCK < nd ? s0 + BLOCK : nd;
        size_t off = buf->n;
        if (block_pairs(d, (uint32_t)s0, (uint32_t)s1, buf)) {
#pragma omp atomic write
          failed = 1;
          buf->n = off;
        }
        d->blk_tid[k] = (uint32_t)tid;
        d->blk_off[k] = off;
        d->blk_cnt[k] = buf->n - off;
      }
#pragma omp single
      if (round_offsets(d, nb)) failed = 1;
      int stop;
#pragma omp atomic read
      stop = failed;
      if (stop) break; /* every thread reads it here, between barriers */
#pragma omp for schedule(static)
      for (size_t k = 0; k < nb; k++)
        if (d->blk_cnt[k]) /* an empty block's buffer may be NULL */
          ms__memcpy(d->pairs + 2 * d->blk_dst[k],
                     d->tbuf[d->blk_tid[k]].p + 2 * d->blk_off[k],
                     d->blk_cnt[k] * 2 * sizeof(uint32_t));
    }
  }
  return failed ? MS_ENOMEM : MS_OK;
}

int ms__detect_search(struct ms__detect *d, const struct ms__detect_input *in,
                      double reach, int canonical, size_t *bad) {
  double t0 = ms__now();
  d->ncand = d->npairs = 0;
  d->time_scan = d->time_order = 0.0;
  int rc = prepare_grids(d, in, reach, bad);
  double t1 = ms__now();
  d->time_grid = t1 - t0;
  if (rc || d->ndrivers == 0) return rc;
  size_t nd = d->ndrivers, nblocks = (nd + BLOCK - 1) / BLOCK;
  size_t rd = d->round_drivers ? d->round_drivers : ROUND_DRIVERS;
  size_t rb = rd > BLOCK ? rd / BLOCK : 1;
  rb = rb < nblocks ? rb : nblocks;
  int nt = 1;
#ifdef _OPENMP
  nt = nd > MS__PAR_MIN_DRIVERS ? omp_get_max_threads() : 1;
#endif
  if (ensure_threads(d, nt, rb)) return MS_ENOMEM;
  rc = search_rounds(d, nt, nblocks, rb);
  double t2 = ms__now();
  d->time_scan = t2 - t1;
  if (rc || !canonical) return rc;
  rc = ms__pairs_canonical(d, in->n);
  d->time_order = ms__now() - t2;
  return rc;
}
