/* Collision detection: every pair of particles with
 * |x_j - x_i| < r_i + r_j (paper Rule 1, Eq. 21), over all systems at once;
 * with a skin, every pair closer than r_i + r_j + skin.
 *
 * A uniform grid whose cells are at least the largest contact distance,
 * filled by a counting sort; each cell is tested against itself and its 13
 * forward neighbours, so every pair is found once.  O(N), OpenMP-parallel
 * over fixed blocks of cells whose results are concatenated in block order:
 * the pair list is identical for any thread count. */
#ifndef MS_CORE_DETECT_H
#define MS_CORE_DETECT_H

#include <stddef.h>
#include <stdint.h>

struct ms__detect_input {
  size_t n;
  const double *x;      /* 3n packed positions */
  const double *r;      /* n radii, > 0 */
  const uint32_t *sys;  /* n system ids, or NULL (all one system) */
  const uint8_t *self;  /* per system id: 1 keeps intra-system pairs; NULL:
                           keep all */
  double skin;          /* >= 0: report pairs closer than r_i + r_j + skin */
};

/* Spatial grid over a point set, sorted by cell (reusable workspace). */
struct ms__grid {
  size_t n, cap;
  double cell, inv_cell, lo[3], skin;
  uint32_t dim[3];
  size_t ncells, cap_cells;
  uint32_t *cell_start; /* ncells + 1 */
  uint32_t *cell_of;    /* n: cell of each input point */
  uint32_t *order;      /* n: sorted slot -> input index */
  double *sx, *sy, *sz, *sr; /* n: sorted positions and radii */
  uint32_t *skey;       /* n: sorted system key (bit 31: self-collision) */
  /* detection only, ncells: the key all of a cell's points share when
   * their system does not collide with itself, else MS__CTAG_MIXED (or
   * MS__CTAG_EMPTY) -- lets a fluid's bulk skip its own pairs by cell */
  uint32_t *ctag;
  size_t cap_tags;
};
#define MS__CTAG_MIXED 0xfffffffeu
#define MS__CTAG_EMPTY 0xffffffffu

struct ms__pairbuf {
  uint32_t *p;
  size_t n, cap;
};

struct ms__detect {
  struct ms__grid grid;
  struct ms__pairbuf *tbuf; /* one per thread */
  int nthreads;
  uint32_t *blk_tid;  /* per block: thread that produced it */
  size_t *blk_off, *blk_cnt;
  size_t nblocks_cap;
  uint32_t *pairs;    /* 2 * npairs: (i, j), i < j, input indices */
  size_t npairs, cap_pairs;
};

void ms__detect_init(struct ms__detect *d);
void ms__detect_free(struct ms__detect *d);
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

#endif
