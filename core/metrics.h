/* Penetration and stability metrics (paper Sec. 6.1 comparisons).
 *
 * Definitions (also in mergesplit.cfg(5) and the README):
 *  - A *sheet* is a system whose view has a "normal" field (unit normal per
 *    particle, consistently oriented; cloth).  Each particle p of another
 *    system is given a side of each sheet the first time it comes within
 *    contact distance (r_p + r_c + skin) of a sheet particle: the sign of
 *    n_c . (x_p - x_c) for its nearest sheet particle c, counted only when
 *    |n_c . (x_p - x_c)| > r_p / 4 (a particle grazing the sheet's mid-plane
 *    has no side yet).  From then on, whenever it is near the sheet again,
 *    its side is re-measured; a change is a *crossing*, and a particle on
 *    the other side than its first one is *through* the sheet.  When the
 *    sheet's view has an "edge" field (UInt8, 1 on the sheet's border) and
 *    the nearest sheet particle is on the edge, the particle forgets its
 *    side: going around a sheet's edge is no crossing.  Nor is coming
 *    back near the sheet on the other side after leaving it on the first:
 *    the particle went round it out of contact distance (say, splashed
 *    over the edge and came back up from below).  A particle that passes
 *    between sheet particles comes within contact distance of them, so a
 *    real crossing is always seen -- unless the sheet's gaps are wider than
 *    the particle, when it passes without touching and is not counted.
 *  - A *solid* is a system that collides with itself through the core and
 *    is not a sheet.  A particle p of another system is *inside* it when its
 *    centre is within the collision radius r_q of a particle q of the solid
 *    whose "damage" (when the view has that field) is below 0.5 — i.e. it
 *    sank past the surface of an intact region.
 *  - penetrations = particles through a sheet + particles inside a solid.
 * Measured every step on the detection's pairs (so at the start of each
 * step, which is the end of the previous one) and once more at the end of
 * the run.  Particle identities are global indices: a system whose particle
 * count changes restarts its sides. */
#ifndef MS_CORE_METRICS_H
#define MS_CORE_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include <mergesplit/view.h>

struct ms__stepper;

struct ms__penetration {
  uint64_t crossings; /* side changes, summed */
  uint64_t through;   /* particles through a sheet, now */
  uint64_t inside;    /* particles inside a solid, now */
  uint64_t max_pen;   /* largest through + inside seen */
  double max_speed;   /* largest particle speed seen [m/s] */
};

/* What a particle knows of a sheet: its sides (-1, 1; 0: none yet) and
 * whether it was out of the sheet's contact distance at the last step. */
struct ms__side {
  int8_t first, now;
  uint8_t away;
};

struct ms__metrics {
  uint32_t nsheets;
  int32_t *sheet_of;      /* per system: sheet index or -1 */
  size_t n, cap;          /* particles tracked */
  struct ms__side *side;  /* n * nsheets */
  double *best_d2;        /* n * nsheets scratch: nearest sheet particle */
  uint32_t *best_c;
  uint32_t *stamp, epoch; /* n: distinct-particle counting */
  size_t *counts;         /* per system: particle count last seen */
  size_t *offsets;        /* per system: its first global index then */
  const struct ms_field **normal, **damage, **edge; /* per system, or NULL */
};

void ms__metrics_free(struct ms__metrics *m);
/* Size the tracking arrays for the current systems (first use, or after a
 * system's particles moved to other global indices: a count changed before
 * it or in it); MS_ENOMEM. */
int ms__metrics_prepare(struct ms__stepper *S);
/* Update from the current detection pairs; adds to *frame. */
int ms__metrics_step(struct ms__stepper *S, double vmax,
                     struct ms__penetration *frame);
/* Fold a frame's figures into the run's. */
void ms__penetration_add(struct ms__penetration *run,
                         const struct ms__penetration *frame);

#endif
