/* Collision detection over all systems: uniform grid + counting sort. */
#include "parallel.h"
#include "detect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/status.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "xalloc.h"

#define SELF_BIT 0x80000000u
/* Cells are made this much larger than the contact distance so that a pair
 * closer than the distance can never land two cells apart through rounding. */
#define CELL_MARGIN (1.0 + 1e-9)

void ms__grid_free(struct ms__grid *g) {
  free(g->cell_start);
  free(g->cell_of);
  free(g->order);
  free(g->sx);
  free(g->sy);
  free(g->sz);
  free(g->sr);
  free(g->skey);
  free(g->ctag);
  memset(g, 0, sizeof *g);
}

static int grid_reserve(struct ms__grid *g, size_t n) {
  if (n <= g->cap) return MS_OK;
  size_t cap = n + n / 4 + 64;
  if (ms__grow((void **)&g->cell_of, cap, sizeof(uint32_t)) ||
      ms__grow((void **)&g->order, cap, sizeof(uint32_t)) ||
      ms__grow((void **)&g->sx, cap, sizeof(double)) ||
      ms__grow((void **)&g->sy, cap, sizeof(double)) ||
      ms__grow((void **)&g->sz, cap, sizeof(double)) ||
      ms__grow((void **)&g->sr, cap, sizeof(double)) ||
      ms__grow((void **)&g->skey, cap, sizeof(uint32_t)))
    return MS_ENOMEM;
  g->cap = cap;
  return MS_OK;
}

/* Bounding box of the points; returns the first non-finite index or n. */
static size_t bounds(const double *x, size_t stride, size_t n, double *lo,
                     double *hi) {
  double l0 = INFINITY, l1 = INFINITY, l2 = INFINITY;
  double h0 = -INFINITY, h1 = -INFINITY, h2 = -INFINITY;
  size_t bad = n;
  const char *base = (const char *)x;
#pragma omp parallel for reduction(min : l0, l1, l2, bad) \
    reduction(max : h0, h1, h2) schedule(static) if (n > MS__PAR_MIN)
  for (size_t i = 0; i < n; i++) {
    const double *p = (const double *)(base + i * stride);
    if (!(isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]))) {
      if (i < bad) bad = i;
      continue;
    }
    l0 = fmin(l0, p[0]), h0 = fmax(h0, p[0]);
    l1 = fmin(l1, p[1]), h1 = fmax(h1, p[1]);
    l2 = fmin(l2, p[2]), h2 = fmax(h2, p[2]);
  }
  lo[0] = l0, lo[1] = l1, lo[2] = l2;
  hi[0] = h0, hi[1] = h1, hi[2] = h2;
  return bad;
}

/* Choose the cell size: at least min_cell, grown until the grid has at most
 * max(4n, 4096) cells (sparse scenes stay cheap in memory; correctness never
 * depends on the cell size, only the cost does). */
static void choose_cells(struct ms__grid *g, const double *lo, const double *hi,
                         double min_cell, size_t n) {
  double c = min_cell * CELL_MARGIN;
  size_t limit = 4 * n > 4096 ? 4 * n : 4096;
  for (;;) {
    double cells = 1.0;
    for (int a = 0; a < 3; a++) cells *= floor((hi[a] - lo[a]) / c) + 1.0;
    if (cells <= (double)limit) break;
    c *= 1.2599210498948732; /* 2^(1/3): halve the cell count */
  }
  g->cell = c;
  g->inv_cell = 1.0 / c;
  g->ncells = 1;
  for (int a = 0; a < 3; a++) {
    g->lo[a] = lo[a];
    g->dim[a] = (uint32_t)(floor((hi[a] - lo[a]) / c) + 1.0);
    g->ncells *= g->dim[a];
  }
}

static inline uint32_t cell_coord(const struct ms__grid *g, double v, int a) {
  double f = (v - g->lo[a]) * g->inv_cell;
  uint32_t i = (uint32_t)f;
  return i < g->dim[a] ? i : g->dim[a] - 1;
}

int ms__grid_build(struct ms__grid *g, const double *x, size_t stride,
                   size_t n, const double *r, double min_cell,
                   const uint32_t *key, const uint8_t *self, size_t *bad) {
  double lo[3], hi[3];
  const char *base = (const char *)x;

  g->n = n;
  if (grid_reserve(g, n)) return MS_ENOMEM;
  if (n == 0) {
    g->ncells = 0;
    return MS_OK;
  }
  size_t b = bounds(x, stride, n, lo, hi);
  if (b < n) {
    *bad = b;
    return MS_EINVAL;
  }
  if (!(min_cell > 0.0) || !isfinite(min_cell)) {
    *bad = 0;
    return MS_EINVAL;
  }
  choose_cells(g, lo, hi, min_cell, n);
  if (g->ncells + 2 > g->cap_cells) {
    size_t cap = g->ncells + g->ncells / 4 + 2;
    if (ms__grow((void **)&g->cell_start, cap, sizeof(uint32_t)))
      return MS_ENOMEM;
    g->cap_cells = cap;
  }
  uint32_t d1 = g->dim[1], d2 = g->dim[2];
#pragma omp parallel for schedule(static) if (n > MS__PAR_MIN)
  for (size_t i = 0; i < n; i++) {
    const double *p = (const double *)(base + i * stride);
    g->cell_of[i] = (cell_coord(g, p[0], 0) * d1 + cell_coord(g, p[1], 1)) *
                        d2 +
                    cell_coord(g, p[2], 2);
  }
  /* Stable counting sort: within a cell, points keep their input order. */
  uint32_t *start = g->cell_start;
  memset(start, 0, (g->ncells + 2) * sizeof *start);
  for (size_t i = 0; i < n; i++) start[g->cell_of[i] + 2]++;
  for (size_t c = 2; c < g->ncells + 2; c++) start[c] += start[c - 1];
  for (size_t i = 0; i < n; i++) g->order[start[g->cell_of[i] + 1]++] = (uint32_t)i;
  /* Gather in slot order: random reads overlap well across threads, where
   * scattering six arrays would mean six random writes per point. */
#pragma omp parallel for schedule(static) if (n > MS__PAR_MIN)
  for (size_t s = 0; s < n; s++) {
    uint32_t i = g->order[s];
    const double *p = (const double *)(base + i * stride);
    g->sx[s] = p[0];
    g->sy[s] = p[1];
    g->sz[s] = p[2];
    g->sr[s] = r ? r[i] : 0.0;
    uint32_t k = key ? key[i] : 0;
    g->skey[s] = k | ((!self || self[k]) ? SELF_BIT : 0u);
  }
  /* start[c] is now the first slot of cell c, start[ncells] == n. */
  return MS_OK;
}

void ms__detect_init(struct ms__detect *d) { memset(d, 0, sizeof *d); }

void ms__detect_free(struct ms__detect *d) {
  ms__grid_free(&d->grid);
  for (int t = 0; t < d->nthreads; t++) free(d->tbuf[t].p);
  free(d->tbuf);
  free(d->blk_tid);
  free(d->blk_off);
  free(d->blk_cnt);
  free(d->pairs);
  memset(d, 0, sizeof *d);
}

/* The forward neighbourhood of a cell as at most five contiguous slot ranges
 * (cells are numbered z-fastest, so the three cells of a z-row are adjacent
 * in slot order).  Range 0 is the cell itself plus its +z neighbour and is
 * scanned only past i. */
struct ranges {
  uint32_t lo[5], hi[5];
  uint32_t c0[5], c1[5]; /* the cells of each range, inclusive */
  int n;
};

static void forward_ranges(const struct ms__grid *g, uint32_t c,
                           struct ranges *R) {
  const uint32_t *st = g->cell_start;
  uint32_t d1 = g->dim[1], d2 = g->dim[2];
  uint32_t iz = c % d2, iy = (c / d2) % d1, ix = c / (d2 * d1);
  uint32_t zlo = iz > 0 ? 1 : 0, zhi = iz + 1 < d2 ? 1 : 0;

  R->n = 0;
  R->lo[0] = st[c];
  R->hi[0] = st[c + 1 + zhi];
  R->c0[0] = c, R->c1[0] = c + zhi;
  R->n = 1;
  /* rows (dx, dy) in {(0,1), (1,-1), (1,0), (1,1)} */
  static const int rows[4][2] = {{0, 1}, {1, -1}, {1, 0}, {1, 1}};
  for (int k = 0; k < 4; k++) {
    int64_t jx = (int64_t)ix + rows[k][0], jy = (int64_t)iy + rows[k][1];
    if (jx >= g->dim[0] || jy < 0 || jy >= d1) continue;
    uint32_t cc = ((uint32_t)jx * d1 + (uint32_t)jy) * d2 + iz;
    uint32_t a = st[cc - zlo], b = st[cc + 1 + zhi];
    if (a < b) {
      R->lo[R->n] = a;
      R->hi[R->n] = b;
      R->c0[R->n] = cc - zlo, R->c1[R->n] = cc + zhi;
      R->n++;
    }
  }
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

/* Pairs of slot i against slots [lo, hi). */
static inline size_t scan(const struct ms__grid *g, uint32_t i, uint32_t lo,
                          uint32_t hi, uint32_t *out) {
  const double xi = g->sx[i], yi = g->sy[i], zi = g->sz[i], ri = g->sr[i];
  const double skin = g->skin;
  const uint32_t ki = g->skey[i], oi = g->order[i];
  size_t m = 0;
  for (uint32_t j = lo; j < hi; j++) {
    double dx = g->sx[j] - xi, dy = g->sy[j] - yi, dz = g->sz[j] - zi;
    double t = ri + g->sr[j] + skin;
    if (dx * dx + dy * dy + dz * dz < t * t) {
      if (g->skey[j] == ki && !(ki & SELF_BIT)) continue;
      uint32_t oj = g->order[j];
      out[2 * m] = oi < oj ? oi : oj;
      out[2 * m + 1] = oi < oj ? oj : oi;
      m++;
    }
  }
  return m;
}

/* Do cells [c0, c1] hold only points of key t (or none)? */
static int only_key(const struct ms__grid *g, uint32_t c0, uint32_t c1,
                    uint32_t t) {
  for (uint32_t c = c0; c <= c1; c++)
    if (g->ctag[c] != t && g->ctag[c] != MS__CTAG_EMPTY) return 0;
  return 1;
}

static int cell_pairs(const struct ms__grid *g, uint32_t c,
                      struct ms__pairbuf *buf) {
  uint32_t a = g->cell_start[c], b = g->cell_start[c + 1];
  if (a == b) return MS_OK;
  struct ranges R;
  forward_ranges(g, c, &R);
  /* A cell of one system that ignores its own pairs meets only the
   * ranges holding something else. */
  uint32_t t = g->ctag[c];
  if (t < MS__CTAG_MIXED) {
    int left = 0;
    for (int k = 0; k < R.n; k++) {
      if (only_key(g, R.c0[k], R.c1[k], t))
        R.hi[k] = R.lo[k]; /* empty; range 0 (scanned past i) too */
      left += R.hi[k] > R.lo[k];
    }
    if (!left) return MS_OK;
  }
  size_t span = 0;
  for (int k = 0; k < R.n; k++) span += R.hi[k] - R.lo[k];
  if (buf_reserve(buf, (size_t)(b - a) * span)) return MS_ENOMEM;
  uint32_t *out = buf->p + 2 * buf->n;
  size_t m = 0;
  for (uint32_t i = a; i < b; i++) {
    m += scan(g, i, i + 1, R.hi[0], out + 2 * m);
    for (int k = 1; k < R.n; k++) m += scan(g, i, R.lo[k], R.hi[k], out + 2 * m);
  }
  buf->n += m;
  return MS_OK;
}

static int ensure_threads(struct ms__detect *d, int nt, size_t nblocks) {
  if (nt > d->nthreads) {
    if (ms__grow((void **)&d->tbuf, (size_t)nt, sizeof *d->tbuf))
      return MS_ENOMEM;
    memset(d->tbuf + d->nthreads, 0,
           (size_t)(nt - d->nthreads) * sizeof *d->tbuf);
    d->nthreads = nt;
  }
  if (nblocks > d->nblocks_cap) {
    if (ms__grow((void **)&d->blk_tid, nblocks, sizeof(uint32_t)) ||
        ms__grow((void **)&d->blk_off, nblocks, sizeof(size_t)) ||
        ms__grow((void **)&d->blk_cnt, nblocks, sizeof(size_t)))
      return MS_ENOMEM;
    d->nblocks_cap = nblocks;
  }
  return MS_OK;
}

static int tag_cells(struct ms__grid *g) {
  if (g->ncells > g->cap_tags) {
    size_t cap = g->ncells + g->ncells / 4 + 2;
    if (ms__grow((void **)&g->ctag, cap, sizeof(uint32_t))) return MS_ENOMEM;
    g->cap_tags = cap;
  }
  const uint32_t *st = g->cell_start, *key = g->skey;
  const size_t nc = g->ncells;
#pragma omp parallel for schedule(static) if (g->n > MS__PAR_MIN)
  for (size_t c = 0; c < nc; c++) {
    uint32_t a = st[c], b = st[c + 1], t = MS__CTAG_EMPTY;
    if (a < b) {
      t = (key[a] & SELF_BIT) ? MS__CTAG_MIXED : key[a];
      for (uint32_t s = a + 1; s < b && t != MS__CTAG_MIXED; s++)
        if (key[s] != t) t = MS__CTAG_MIXED;
    }
    g->ctag[c] = t;
  }
  return MS_OK;
}

int ms__detect_pairs(struct ms__detect *d, const struct ms__detect_input *in,
                     size_t *bad) {
  struct ms__grid *g = &d->grid;
  double rmax = 0.0, skin = in->skin;
  d->npairs = 0;
  if (!(skin >= 0.0) || !isfinite(skin)) {
    *bad = 0;
    return MS_EINVAL;
  }
  if (in->n == 0) return MS_OK;
  for (size_t i = 0; i < in->n; i++) {
    if (!(in->r[i] > 0.0) || !isfinite(in->r[i])) {
      *bad = i;
      return MS_EINVAL;
    }
    if (in->r[i] > rmax) rmax = in->r[i];
  }
  int rc = ms__grid_build(g, in->x, 3 * sizeof(double), in->n, in->r,
                          2.0 * rmax + skin, in->sys, in->self, bad);
  g->skin = skin;
  if (rc) return rc;
  if ((rc = tag_cells(g))) return rc;

  int nt = 1;
#ifdef _OPENMP
  nt = in->n > MS__PAR_MIN ? omp_get_max_threads() : 1;
#endif
  /* A fixed block count (independent of the thread count) keeps the output
   * order identical for any number of threads. */
  size_t nblocks = g->ncells < 4096 ? g->ncells : 4096;
  if (ensure_threads(d, nt, nblocks)) return MS_ENOMEM;
  for (int t = 0; t < nt; t++) d->tbuf[t].n = 0;
  int failed = 0;
#pragma omp parallel num_threads(nt)
  {
    int tid = 0;
#ifdef _OPENMP
    tid = omp_get_thread_num();
#endif
    struct ms__pairbuf *buf = &d->tbuf[tid];
#pragma omp for schedule(dynamic, 1)
    for (size_t b = 0; b < nblocks; b++) {
      uint32_t c0 = (uint32_t)(g->ncells * b / nblocks);
      uint32_t c1 = (uint32_t)(g->ncells * (b + 1) / nblocks);
      size_t off = buf->n;
      for (uint32_t c = c0; c < c1; c++)
        if (cell_pairs(g, c, buf)) {
#pragma omp atomic write
          failed = 1;
          break;
        }
      d->blk_tid[b] = (uint32_t)tid;
      d->blk_off[b] = off;
      d->blk_cnt[b] = buf->n - off;
    }
  }
  if (failed) return MS_ENOMEM;
  size_t total = 0;
  for (size_t b = 0; b < nblocks; b++) total += d->blk_cnt[b];
  if (total > d->cap_pairs) {
    size_t cap = total + total / 4 + 1024;
    if (ms__grow((void **)&d->pairs, cap, 2 * sizeof(uint32_t)))
      return MS_ENOMEM;
    d->cap_pairs = cap;
  }
  /* Block b's pairs go after those of blocks 0..b-1. */
  size_t acc = 0;
  for (size_t b = 0; b < nblocks; b++) {
    size_t cnt = d->blk_cnt[b];
    d->blk_cnt[b] = acc; /* reuse as destination offset */
    acc += cnt;
  }
#pragma omp parallel for schedule(dynamic, 16) num_threads(nt)
  for (size_t b = 0; b < nblocks; b++) {
    size_t dst = d->blk_cnt[b];
    size_t cnt = (b + 1 < nblocks ? d->blk_cnt[b + 1] : total) - dst;
    memcpy(d->pairs + 2 * dst, d->tbuf[d->blk_tid[b]].p + 2 * d->blk_off[b],
           cnt * 2 * sizeof(uint32_t));
  }
  d->npairs = total;
  return MS_OK;
}
