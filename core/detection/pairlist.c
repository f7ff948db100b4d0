/* The detected pairs in canonical order, and reusing a grid search across
 * calls (a Verlet list).
 *
 * A grid search with a margin lists every pair closer than
 * r0_i + r0_j + skin0 + margin (the reach).  While no pair can have closed
 * in by more than reach - skin since, a pair closer than r_i + r_j + skin
 * now is among those candidates, and filtering them with the very predicate
 * of the search gives exactly the pairs a fresh search would.  How far a
 * pair can have closed in is bounded per system: each system's
 * displacements since the search lie in a box of centre t_s and
 * half-diagonal D_s (plus its largest radius growth), so two particles of
 * systems s and s' closed in by at most D_s + D_s' + |t_s - t_s'|.  A body
 * moving as a whole (a falling solid, a translating cloth) has D_s ~ 0: only
 * its motion relative to the others and its deformation count. */
#include "../base/base.h"
#include "detection.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/status.h>


/* Systems whose displacements are boxed separately; ids beyond share the
 * last box (still correct, just a looser bound). */
#define GROUPS 64
/* Candidate-filter blocks for large lists (fixed: thread-count
 * independent). */
#define FILTER_BLOCKS 64

/* ---- canonical order ---------------------------------------------------- */

int ms__pairs_reserve(struct ms__detect *d, size_t total) {
  if (total <= d->cap_pairs) return MS_OK;
  /* little slack: at a million particles the list is 100 MiB */
  size_t cap = total + total / 16 + 4096;
  if (ms__grow((void **)&d->pairs, cap, 2 * sizeof(uint32_t)))
    return MS_ENOMEM;
  d->cap_pairs = cap;
  return MS_OK;
}

static void sort_second(uint32_t *p, size_t len) {
  for (size_t a = 1; a < len; a++) {
    uint32_t v = p[2 * a + 1];
    size_t b = a;
    while (b > 0 && p[2 * b - 1] > v) p[2 * b + 1] = p[2 * b - 1], b--;
    p[2 * b + 1] = v;
  }
}

static int cmp_second(const void *a, const void *b) {
  uint32_t x = ((const uint32_t *)a)[1], y = ((const uint32_t *)b)[1];
  return (x > y) - (x < y);
}

/* Row counts, then the rows filled: serially, or with atomic counters where
 * a list is long enough to share (where in its row a pair lands first does
 * not matter: pairs are distinct and the row sort fixes the order). */
static void count_rows(const uint32_t *p, size_t total, uint32_t *row,
                       int par) {
  if (!par) {
    for (size_t k = 0; k < total; k++) row[p[2 * k] + 2]++;
    return;
  }
#pragma omp parallel for schedule(static)
  for (size_t k = 0; k < total; k++) {
#pragma omp atomic update
    row[p[2 * k] + 2]++;
  }
}

static void fill_rows(const uint32_t *p, size_t total, uint32_t *row,
                      uint32_t *cand, int par) {
#pragma omp parallel for schedule(static) if (par)
  for (size_t k = 0; k < total; k++) {
    uint32_t q;
    if (!par) {
      q = row[p[2 * k] + 1]++;
    } else {
#pragma omp atomic capture
      q = row[p[2 * k] + 1]++;
    }
    cand[2 * q] = p[2 * k];
    cand[2 * q + 1] = p[2 * k + 1];
  }
}

/* The grid search's pairs (d->pairs, block order) into d->cand sorted by
 * first, then second index: a counting sort by the first index (the rows),
 * then each short row sorted by the second. */
int ms__pairs_canonical(struct ms__detect *d, size_t n) {
  size_t total = d->npairs;
  if (total > d->cap_cand) {
    size_t cap = total + total / 16 + 4096;
    if (ms__grow((void **)&d->cand, cap, 2 * sizeof(uint32_t)))
      return MS_ENOMEM;
    d->cap_cand = cap;
  }
  if (n + 2 > d->cap_row) {
    size_t cap = n + n / 16 + 2;
    if (ms__grow((void **)&d->row, cap, sizeof(uint32_t))) return MS_ENOMEM;
    d->cap_row = cap;
  }
  uint32_t *row = d->row, *cand = d->cand;
  const int par = total > MS__PAR_MIN_PAIRS;
  ms__memset(row, 0, (n + 2) * sizeof *row);
  count_rows(d->pairs, total, row, par);
  for (size_t i = 2; i < n + 2; i++) row[i] += row[i - 1];
  fill_rows(d->pairs, total, row, cand, par);
  /* row[i] is now the first candidate of particle i */
#pragma omp parallel for schedule(dynamic, 4096) if (par)
  for (size_t i = 0; i < n; i++) {
    size_t len = row[i + 1] - row[i];
    if (len > 32)
      qsort(cand + 2 * (size_t)row[i], len, 2 * sizeof(uint32_t), cmp_second);
    else if (len > 1)
      sort_second(cand + 2 * (size_t)row[i], len);
  }
  d->ncand = total;
  d->npairs = 0; /* the filter makes the pairs of the candidates */
  return MS_OK;
}

/* ---- reuse test --------------------------------------------------------- */

/* Points come in runs of one system (a simulation's systems are contiguous);
 * with more runs than this the candidates are not kept. */
#define MAX_RUNS 64
/* Points per piece of the drift pass (its unit of parallel work). */
#define PIECE 4096

struct run {
  size_t a, e;   /* points [a, e) */
  uint32_t key;  /* system id | MS__SELF_BIT */
};

/* A piece of a run: its displacement box lo[3], hi[3] and largest radius
 * growth; ok: the ids match and every value is finite. */
struct piece {
  size_t a, e;
  uint32_t run;
  int ok;
  double box[7];
};

struct ms__reuse {
  double *x0, *r0; /* positions and radii at the snapshot */
  size_t cap;
  struct run run[MAX_RUNS];
  int nruns;
  struct piece *piece;
  size_t npieces, cap_pieces;
  double reach, tol; /* tol: rounding allowance of the reuse test */
  size_t n;
  int have;          /* the candidates may be reused */
};

size_t ms__reuse_bytes(const struct ms__reuse *R) {
  return R ? sizeof *R + R->cap * 4 * sizeof(double) +
                 R->cap_pieces * sizeof *R->piece
           : 0;
}

void ms__reuse_free(struct ms__reuse *R) {
  if (!R) return;
  free(R->x0);
  free(R->r0);
  free(R->piece);
  free(R);
}

static inline uint32_t key_of(const struct ms__detect_input *in, size_t i) {
  uint32_t k = in->sys ? in->sys[i] : 0;
  return k | ((!in->self || in->self[k]) ? MS__SELF_BIT : 0u);
}

/* The runs of the input and their pieces; 0 if there are too many runs. */
static int find_runs(struct ms__reuse *R, const struct ms__detect_input *in) {
  R->nruns = 0;
  size_t np = 0;
  for (size_t a = 0, e; a < in->n; a = e) {
    uint32_t id = in->sys ? in->sys[a] : 0;
    for (e = a + 1; e < in->n && (in->sys ? in->sys[e] : 0) == id; e++) {
    }
    if (R->nruns == MAX_RUNS) return 0;
    R->run[R->nruns++] = (struct run){a, e, key_of(in, a)};
    np += (e - a + PIECE - 1) / PIECE;
  }
  if (np > R->cap_pieces) {
    if (ms__grow((void **)&R->piece, np, sizeof *R->piece)) return 0;
    R->cap_pieces = np;
  }
  R->npieces = 0;
  for (int k = 0; k < R->nruns; k++)
    for (size_t a = R->run[k].a; a < R->run[k].e; a += PIECE) {
      size_t e = a + PIECE < R->run[k].e ? a + PIECE : R->run[k].e;
      R->piece[R->npieces++] = (struct piece){.a = a, .e = e, .run = (uint32_t)k};
    }
  return 1;
}

/* Remember the state the candidates were found in (R->have = 0 if they
 * cannot be kept). */
static int snapshot(struct ms__detect *d, const struct ms__detect_input *in,
                    double reach) {
  struct ms__reuse *R = d->reuse;
  size_t n = in->n;
  if (!R && !(R = d->reuse = calloc(1, sizeof *R))) return MS_ENOMEM;
  R->have = 0;
  if (n > R->cap) {
    size_t cap = n + n / 16 + 64;
    if (ms__grow((void **)&R->x0, cap, 3 * sizeof(double)) ||
        ms__grow((void **)&R->r0, cap, sizeof(double)))
      return MS_ENOMEM;
    R->cap = cap;
  }
  if (!find_runs(R, in)) return MS_OK;
  ms__memcpy(R->x0, in->x, 3 * n * sizeof(double));
  ms__memcpy(R->r0, in->r, n * sizeof(double));
  double rmax = 0.0, xmag = 0.0;
  for (size_t i = 0; i < n; i++) {
    rmax = in->r[i] > rmax ? in->r[i] : rmax;
    for (int a = 0; a < 3; a++) {
      double v = fabs(in->x[3 * i + a]);
      xmag = v > xmag ? v : xmag;
    }
  }
  /* Rounding: distances are found to a few ulps of the coordinates and of
   * the contact distance; allow far more than that. */
  R->tol = 1e-9 * (2.0 * rmax + reach) + 1e-12 * xmag;
  R->reach = reach;
  R->n = n;
  R->have = 1;
  return MS_OK;
}

/* Box the displacements of piece p since the snapshot, in registers.
 * NaN and infinities reach the sum. */
static void drift_piece(const struct ms__reuse *R,
                        const struct ms__detect_input *in, struct piece *p) {
  const double *x = in->x, *x0 = R->x0, *r = in->r, *r0 = R->r0;
  uint32_t id = R->run[p->run].key & ~MS__SELF_BIT, diff = 0;
  double l0 = INFINITY, l1 = INFINITY, l2 = INFINITY;
  double h0 = -INFINITY, h1 = -INFINITY, h2 = -INFINITY;
  double sum = 0.0, rmin = INFINITY, grow = 0.0;
  for (size_t i = p->a; i < p->e; i++) {
    double dx = x[3 * i] - x0[3 * i], dy = x[3 * i + 1] - x0[3 * i + 1];
    double dz = x[3 * i + 2] - x0[3 * i + 2], dr = r[i] - r0[i];
    diff |= (in->sys ? in->sys[i] : 0) ^ id;
    sum += dx + dy + dz + dr;
    rmin = r[i] < rmin ? r[i] : rmin, grow = dr > grow ? dr : grow;
    l0 = dx < l0 ? dx : l0, h0 = dx > h0 ? dx : h0;
    l1 = dy < l1 ? dy : l1, h1 = dy > h1 ? dy : h1;
    l2 = dz < l2 ? dz : l2, h2 = dz > h2 ? dz : h2;
  }
  p->ok = !diff && isfinite(sum) && rmin > 0.0;
  p->box[0] = l0, p->box[1] = l1, p->box[2] = l2;
  p->box[3] = h0, p->box[4] = h1, p->box[5] = h2, p->box[6] = grow;
}

/* Per system group: displacement box lo[3], hi[3], the largest radius
 * growth, and whether it may hold pairs within itself. */
struct gbox {
  double b[6], grow;
  int within;
};

/* Fold the pieces into the groups' boxes; 0: the candidates cannot be
 * reused (another layout, self-collision flag, or non-finite values). */
static int group_boxes(const struct ms__reuse *R,
                       const struct ms__detect_input *in, struct gbox *G) {
  for (int g = 0; g < GROUPS; g++) {
    G[g] = (struct gbox){{INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY,
                          -INFINITY}, 0.0, g == GROUPS - 1};
  }
  for (size_t q = 0; q < R->npieces; q++) {
    const struct piece *p = &R->piece[q];
    const struct run *u = &R->run[p->run];
    if (!p->ok || key_of(in, u->a) != u->key) return 0;
    uint32_t id = u->key & ~MS__SELF_BIT;
    struct gbox *b = &G[id < GROUPS ? id : GROUPS - 1];
    for (int a = 0; a < 3; a++) {
      b->b[a] = fmin(b->b[a], p->box[a]);
      b->b[a + 3] = fmax(b->b[a + 3], p->box[a + 3]);
    }
    b->grow = fmax(b->grow, p->box[6]);
    b->within |= (u->key & MS__SELF_BIT) != 0;
  }
  return 1;
}

/* The most any pair can have closed in since the snapshot (INFINITY: the
 * candidates cannot be reused). */
static double closing_bound(struct ms__reuse *R,
                            const struct ms__detect_input *in) {
  struct gbox G[GROUPS];
  double worst = 0.0, t[GROUPS][3], D[GROUPS];
  if (in->n != R->n || (R->nruns && R->run[R->nruns - 1].e != in->n))
    return INFINITY;
#pragma omp parallel for schedule(static) if (in->n > MS__PAR_MIN_STREAM)
  for (size_t q = 0; q < R->npieces; q++) drift_piece(R, in, &R->piece[q]);
  if (!group_boxes(R, in, G)) return INFINITY;
  for (int g = 0; g < GROUPS; g++) {
    const double *b = G[g].b;
    if (!(b[0] <= b[3])) continue;
    double h2 = 0.0;
    for (int a = 0; a < 3; a++) {
      t[g][a] = 0.5 * (b[a] + b[a + 3]);
      h2 += (b[a + 3] - b[a]) * (b[a + 3] - b[a]);
    }
    D[g] = 0.5 * sqrt(h2) + G[g].grow;
    if (G[g].within) worst = fmax(worst, 2.0 * D[g]);
    for (int h = 0; h < g; h++) {
      if (!(G[h].b[0] <= G[h].b[3])) continue;
      double e2 = 0.0;
      for (int a = 0; a < 3; a++) e2 += (t[g][a] - t[h][a]) * (t[g][a] - t[h][a]);
      worst = fmax(worst, D[g] + D[h] + sqrt(e2));
    }
  }
  return worst;
}

/* ---- filtering ---------------------------------------------------------- */

/* Candidates [a, b) that are pairs now, with the grid search's predicate
 * (detect.c: scan), branch-free like it. */
static size_t filter_range(const uint32_t *c, size_t a, size_t b,
                           const double *x, const double *r, double skin,
                           uint32_t *out) {
  size_t m = 0;
  for (size_t k = a; k < b; k++) {
    uint32_t i = c[2 * k], j = c[2 * k + 1];
    const double *p = x + 3 * (size_t)i, *q = x + 3 * (size_t)j;
    double dx = q[0] - p[0], dy = q[1] - p[1], dz = q[2] - p[2];
    double t = r[i] + r[j] + skin;
    out[2 * m] = i;
    out[2 * m + 1] = j;
    m += (size_t)(dx * dx + dy * dy + dz * dz < t * t);
  }
  return m;
}

static int filter(struct ms__detect *d, const struct ms__detect_input *in) {
  size_t nc = d->ncand;
  if (ms__pairs_reserve(d, nc)) return MS_ENOMEM;
  if (nc <= MS__PAR_MIN_PAIRS) {
    d->npairs = filter_range(d->cand, 0, nc, in->x, in->r, in->skin, d->pairs);
    return MS_OK;
  }
  /* Each block writes at its candidates' offset; then the blocks close up
   * in order. */
  size_t cnt[FILTER_BLOCKS];
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t b = 0; b < FILTER_BLOCKS; b++) {
    size_t lo = nc * b / FILTER_BLOCKS, hi = nc * (b + 1) / FILTER_BLOCKS;
    cnt[b] = filter_range(d->cand, lo, hi, in->x, in->r, in->skin,
                          d->pairs + 2 * lo);
  }
  size_t m = 0;
  for (size_t b = 0; b < FILTER_BLOCKS; b++) {
    size_t lo = nc * b / FILTER_BLOCKS;
    ms__memmove(d->pairs + 2 * m, d->pairs + 2 * lo, cnt[b] * 2 * sizeof(uint32_t));
    m += cnt[b];
  }
  d->npairs = m;
  return MS_OK;
}

/* ---- the entry point ---------------------------------------------------- */

void ms__detect_forget(struct ms__detect *d) {
  if (d->reuse) d->reuse->have = 0;
}

int ms__detect_pairs(struct ms__detect *d, const struct ms__detect_input *in,
                     size_t *bad) {
  double skin = in->skin, margin = in->reuse;
  d->npairs = 0;
  if (!(skin >= 0.0) || !isfinite(skin) || !(margin >= 0.0) ||
      !isfinite(margin)) {
    *bad = 0;
    return MS_EINVAL;
  }
  if (in->n == 0) {
    if (d->reuse) d->reuse->have = 0;
    return MS_OK;
  }
  struct ms__reuse *R = d->reuse;
  if (margin > 0.0 && R && R->have &&
      closing_bound(R, in) + skin + R->tol <= R->reach) {
    d->reuses++;
    return filter(d, in);
  }
  if (R) R->have = 0;
  d->searches++;
  int rc = ms__detect_search(d, in, skin + margin, margin > 0.0, bad);
  if (rc || margin == 0.0) return rc; /* then the pairs are found directly */
  if ((rc = snapshot(d, in, skin + margin))) return rc;
  return filter(d, in);
}
