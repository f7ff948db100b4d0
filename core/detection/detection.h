/* Detection: candidate pairs of particles within a reach (cell grid,
 * pair list) and the neighbour service the host offers plugins. */
#ifndef MS_CORE_DETECTION_H
#define MS_CORE_DETECTION_H

#include <stddef.h>
#include <stdint.h>

#include <mergesplit/host.h>

/* ---- detect.c ------------------------------------------------------------*/
/* Collision detection: every pair of particles with
 * |x_j - x_i| < r_i + r_j (paper Rule 1, Eq. 21), over all systems at once;
 * with a skin, every pair closer than r_i + r_j + skin.
 *
 * Uniform grids whose cells are at least the largest contact distance a
 * reported pair can have, filled by a counting sort (grid.c).  The largest
 * system that ignores its own pairs (a fluid) is the bulk; every other
 * point drives: it is tested against the drivers in its cell and 13
 * forward neighbours (each such pair is found once) and against the bulk
 * points in all 27 cells around it, in a second grid holding only the bulk
 * near the drivers.  The bulk's own pairs are never tested.  O(N),
 * OpenMP-parallel over fixed blocks of drivers (detect.c), concatenated in
 * block order: the list is identical for any thread count.  Workspace at a
 * million points of one system: the grid (40 B a point), the pair list
 * (8 B a pair) and one round's scratch. 
 *
 * With a reuse margin (pairlist.c), the grid search also lists the pairs
 * up to `reuse` farther apart as candidates, in canonical order (by first
 * index, then second), and later calls only filter those candidates while
 * no pair can have closed in by more than the margin since (a Verlet
 * list): the same pairs, in the same order, as a fresh search with that
 * margin -- so a run resumed from a checkpoint finds them in the same
 * order too. */
struct ms__detect_input {
  size_t n;
  const double *x;      /* 3n packed positions */
  const double *r;      /* n radii, > 0 */
  const uint32_t *sys;  /* n system ids, or NULL (all one system) */
  const uint8_t *self;  /* per system id: 1 keeps intra-system pairs; NULL:
                           keep all */
  double skin;          /* >= 0: report pairs closer than r_i + r_j + skin */
  double reuse;         /* >= 0: margin of the candidate list kept for the
                           next calls; 0 searches afresh every call */
};

/* Spatial grid over a point set, sorted by cell (reusable workspace). */
struct ms__grid {
  size_t n, cap;
  double cell, inv_cell, lo[3], skin;
  uint32_t dim[3];
  size_t ncells, cap_cells;
  uint32_t *cell_start; /* ncells + 2 */
  uint32_t *order;      /* n: sorted slot -> input index */
  double *sx, *sy, *sz, *sr; /* n: sorted positions and radii */
  uint32_t *skey;       /* n: sorted system key (bit 31: self-collision) */
  uint32_t *hist;       /* threads x ncells: the parallel sort's counts */
  size_t cap_hist;
};

struct ms__pairbuf {
  uint32_t *p;
  size_t n, cap;
};

struct ms__detect {
  struct ms__grid grid;  /* the drivers (below) */
  struct ms__grid bgrid; /* the bulk near the drivers */
  /* The search runs in rounds of drivers: a round's pairs are found into
   * one buffer per thread, then copied to `pairs` in block order, so the
   * scratch holds one round's pairs, not the whole list. */
  struct ms__pairbuf *tbuf; /* one per thread */
  int nthreads;
  uint32_t *blk_tid;  /* per block of the round: thread that produced it */
  size_t *blk_off, *blk_cnt, *blk_dst; /* its pairs in that buffer, and
                                          where they go in `pairs` */
  size_t nblocks_cap;
  size_t round_drivers; /* drivers per round; 0: the default (tests set
                           it small to cross many rounds) */
  uint32_t *pairs;    /* 2 * npairs: (i, j), i < j, input indices */
  size_t npairs, cap_pairs;
  /* The bulk: the system blind to its own pairs with the most points (a
   * fluid), or UINT32_MAX.  Only the other points, the drivers, scan: each
   * its forward cells in the drivers' grid, and all neighbouring cells in a
   * second grid holding the bulk's points near the drivers.  The rest of a
   * fluid costs one look at its positions. */
  uint32_t bulk;
  int dd;             /* drivers can pair with drivers */
  uint32_t *drivers, *bidx; /* input indices of the drivers, of the bulk */
  size_t ndrivers, nbulk, cap_idx;
  /* The last grid search: its pairs in canonical order, closer than
   * r_i + r_j + reach; the state it saw (pairlist.c). */
  uint32_t *cand;
  size_t ncand, cap_cand;
  uint32_t *row;      /* n + 2: canonical sort by first index */
  size_t cap_row;
  struct ms__reuse *reuse;
  uint64_t searches, reuses; /* statistics: grid searches, reused calls */
  /* The last search's phases [s]: planning and the grids; the rounds
   * (scan and copy); the canonical order (0 without a margin). */
  double time_grid, time_scan, time_order;
};
#define MS__SELF_BIT 0x80000000u

void ms__detect_init(struct ms__detect *d);
void ms__detect_free(struct ms__detect *d);
/* Bytes the detector holds (every work array, at its capacity). */
size_t ms__detect_bytes(const struct ms__detect *d);
/* Returns MS_OK, MS_ENOMEM, or MS_EINVAL (non-finite input / radius <= 0;
 * *bad is set to the offending index). */
int ms__detect_pairs(struct ms__detect *d, const struct ms__detect_input *in,
                     size_t *bad);

/* Build `g` for points x (stride bytes apart) with cells of at least
 * `min_cell`.  key may be NULL. */
int ms__grid_build(struct ms__grid *g, const double *x, size_t stride,
                   size_t n, const double *r, double min_cell,
                   const uint32_t *key, const uint8_t *self, size_t *bad);
void ms__grid_free(struct ms__grid *g);
size_t ms__grid_bytes(const struct ms__grid *g);
/* Bounding box of the points (stride bytes apart); returns the first
 * non-finite index, or n. */
size_t ms__grid_bounds(const double *x, size_t stride, size_t n, double *lo,
                       double *hi);
/* The two halves of ms__grid_build, for a subset of the points in a box of
 * the caller's choosing (grid.c). */
int ms__grid_cells(struct ms__grid *g, const double *lo, const double *hi,
                   double min_cell, size_t n);
int ms__grid_fill(struct ms__grid *g, const double *x, size_t stride,
                  const double *r, const uint32_t *key, const uint8_t *self,
                  const uint32_t *idx, size_t m);

/* The cell of point p (clamped to the grid; compared before the
 * conversion, which is undefined for a value beyond uint32_t). */
static inline uint32_t ms__grid_axis(const struct ms__grid *g, double v,
                                     int a) {
  double f = (v - g->lo[a]) * g->inv_cell;
  uint32_t last = g->dim[a] - 1;
  return f < (double)last ? (f > 0.0 ? (uint32_t)f : 0u) : last;
}
static inline uint32_t ms__grid_cell(const struct ms__grid *g,
                                     const double *p) {
  return (ms__grid_axis(g, p[0], 0) * g->dim[1] + ms__grid_axis(g, p[1], 1)) *
             g->dim[2] +
         ms__grid_axis(g, p[2], 2);
}

/* The grid search behind ms__detect_pairs: every pair closer than
 * r_i + r_j + reach, into d->pairs in block order (detect.c), and with
 * `canonical` then sorted into d->cand (pairlist.c). */
int ms__detect_search(struct ms__detect *d, const struct ms__detect_input *in,
                      double reach, int canonical, size_t *bad);
/* d->pairs (block order, n points) into d->cand, sorted by first then
 * second index; d->npairs becomes 0 (the filter makes the pairs). */
int ms__pairs_canonical(struct ms__detect *d, size_t n);
/* Room in d->pairs for `total` pairs (contents kept); MS_ENOMEM. */
int ms__pairs_reserve(struct ms__detect *d, size_t total);
void ms__reuse_free(struct ms__reuse *R);
size_t ms__reuse_bytes(const struct ms__reuse *R);
/* Forget the kept candidates: the particles moved to other global indices
 * (a system's count changed). */
void ms__detect_forget(struct ms__detect *d);

/* ---- neighbors.c ---------------------------------------------------------*/
/* Fixed-radius neighbour lists (the host's neighbors() service). */
/* Fill nb for count points; storage in nb->priv is reused across calls. */
int ms__neighbors_build(const double *xyz, size_t stride, size_t count,
                        double radius, struct ms_neighbors *nb);
void ms__neighbors_release(struct ms_neighbors *nb);

#endif
