/* Helpers of the peridynamics tests.
 *
 * Bond state is observed from outside the plugin: the initial bonds are
 * recomputed by brute force from the start positions and the horizon, and
 * a bond counts as intact when the plugin's filter_pairs() declares the
 * pair connected.  Broken-bond counts and pieces found this way are a
 * direct count, independent of the plugin's own counters. */
#ifndef MS_PDTEST_H
#define MS_PDTEST_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "../scenes/simtest.h"

/* |a - b| <= tol * max(|b|, floor) */
#define ck_assert_rel(a, b, tol, floor_)                                   \
  do {                                                                     \
    double a_ = (a), b_ = (b);                                             \
    double s_ = fabs(b_) > (floor_) ? fabs(b_) : (floor_);                 \
    ck_assert_msg(fabs(a_ - b_) <= (tol) * s_,                             \
                  "%s = %.17g, expected %.17g (rel tol %g)", #a, a_, b_,   \
                  (double)(tol));                                          \
  } while (0)

struct pdt_bonds {
  size_t n, count;   /* particles, bonds */
  uint32_t *pair;    /* 2 per bond, i < j */
  uint8_t *intact;   /* per bond, from the last pdt_observe() */
};

/* Pairs with |X_j - X_i| <= horizon (1 + 1e-6) at the system's current
 * positions (call right after opening the scene). */
void pdt_bonds_init(struct pdt_bonds *B, struct ms__system *y,
                    double horizon);
void pdt_bonds_free(struct pdt_bonds *B);
/* Ask the plugin which bonds are intact; returns how many are broken. */
size_t pdt_observe(struct pdt_bonds *B, struct ms__system *y);
/* Pieces (connected components over the intact bonds of the last
 * observation); label may be NULL. */
size_t pdt_pieces(const struct pdt_bonds *B, uint32_t *label);
/* The value of a plugin statistic accumulated in the system's context. */
double pdt_stat(const struct ms__system *y, const char *name);
/* A named optional field of a system's view, or NULL. */
const struct ms_field *pdt_field(const struct ms__system *y,
                                 const char *name);

/* Side of a cloth sheet (mass_spring grid nu x nv, particle (a, b) at
 * b nu + a) each particle of `o` is on: +1 above (along +y), -1 below,
 * 0 beyond the sheet's edge in the x-z plane.  The sheet is taken as a
 * height field over x-z, its quads split in two triangles. */
void pdt_cloth_sides(struct ms__system *c, uint32_t nu, uint32_t nv,
                     struct ms__system *o, int8_t *side);

#endif
