/* The step: the systems as the step sees them, the stepper's workspace,
 * the coupling methods' table, particle hand-over, the step's metrics. */
#ifndef MS_CORE_STEP_H
#define MS_CORE_STEP_H

#include <stddef.h>
#include <stdint.h>

#include <mergesplit/plugin.h>
#include <mergesplit/view.h>

#include "../base/base.h"
#include "../detection/detection.h"
#include "../scene/scene.h"
#include "../coupling/coupling.h"

/* ---- system.c ------------------------------------------------------------*/
/* The systems as the step sees them: one plugin instance each, its view
 * resolved into strided fields (system.c).  Private to the core. */
/* One system's energy [J]. */
struct ms__energy {
  double kinetic, potential, internal;
  int internal_known; /* the plugin reported it (energy()) */
};

/* The run's record: totals over all systems. */
struct ms__energy_record {
  uint64_t measured;      /* measurements so far */
  double start, now;      /* total at the first and the last one */
  double scale;           /* kinetic + |potential| + internal at the first */
  double max_rise;        /* largest increase between two in a row */
  int complete;           /* every system reported its internal energy */
};

/* A resolved strided double field of a view. */
struct ms__fref {
  char *base;
  size_t stride;
};

static inline double *ms__at(const struct ms__fref *f, size_t i) {
  return (double *)(f->base + i * f->stride);
}

struct ms__stat {
  char name[64];
  double value;
};

/* The host's context for one plugin instance (struct ms_ctx of host.h). */
/* A receiver a system declared at create() (host->declare_receiver). */
struct ms__receiver {
  const void *group; /* the config_setting_t that named it */
  char *key, *name;
};

struct ms_ctx {
  struct ms_sim *sim;
  uint32_t index;
  int creating; /* inside the plugin's create() */
  struct ms__receiver *recv;
  size_t nrecv;
  struct ms__rng rng;
  struct ms__err err;
  struct ms_scene_info info;
  struct ms__stat *stats; /* per frame, reset after each frame record */
  size_t nstats, cap_stats;
};

struct ms__system {
  const struct ms__sysdesc *desc;
  const struct ms__plugin *plugin;
  ms_instance *inst;
  struct ms_ctx ctx;
  int self_collision;
  struct ms_view view;
  struct ms__fref x, v, m, r;
  int heat;                  /* MS_PLUGIN_HEAT: T and c below resolved */
  struct ms__fref T, c;      /* "temperature", "specific_heat" */
  size_t offset; /* first global particle index */
  struct ms__sysmetas sm;
  struct ms__energy energy; /* at the last measurement */
  int32_t *meta_id; /* output: meta-particle of each particle, last step */
  size_t cap_meta_id;
  /* Forces a caller added for the next step (ms_sim_add_force): 3 per
   * particle of the uforce_n the system had then. */
  double *uforce;
  size_t uforce_n, cap_uforce;
  int uforce_on;
  int handed; /* gave or received particles at this step's start */
  /* Seconds in its begin_step, and in its end_step with the new view,
   * since the stepper began: the solver's share of the phase "other". */
  double time_begin, time_end;
  /* Stage-2 integrations not run because they would repeat stage 1's
   * (no meta-particle in either stage, the same forces; step.c). */
  uint64_t stage2_kept;
  /* Seconds in its integrate() in stage 1 and in stage 2 (a coupling
   * pass counts in its stage) since the stepper began: which system a
   * stage's time goes to. */
  double time_stage[2];
};

/* Attach a plugin's error to err: "WHAT: MESSAGE (system 'N', solver
 * 'ID' from PATH)"; returns status. */
int ms__system_fail(const struct ms__system *y, struct ms__err *err,
                    int status, const char *what);
/* Ask the system for its view again and resolve the required fields. */
int ms__system_view(struct ms__system *y, struct ms__err *err);
/* Bring the view's derived fields up to date before they are read (the
 * plugin's refresh(), ABI 1.8; nothing without one). */
int ms__system_refresh(struct ms__system *y, struct ms__err *err);
/* The same for every system of the stepper. */
struct ms__stepper;
int ms__systems_refresh(struct ms__stepper *S);
/* Add forces on the system's n particles for the next step (copied). */
int ms__system_add_force(struct ms__system *y, const double *f, size_t n);

/* ---- metrics.c -----------------------------------------------------------*/
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
 *    is not a sheet.  A particle p of another system (not a sheet's) is in
 *    a solid's *volume* when its centre is within the collision radius
 *    r_q of an intact particle q of the solid (its "damage", when the view
 *    has that field, below 0.5), or when at least three intact particles
 *    lie within min(1.5 r_q, 0.9 (r_p + r_q)) of it and around it (their
 *    unit vectors to p sum to less than half their count): a gap of the
 *    solid's lattice, with the particles about it overlapped.  A particle
 *    in a volume, or (a sheet's particles too) within an intact
 *    particle's radius, is *inside* the solid.
 *    Out of the volume and within the detection's reach of the solid's
 *    intact particles (contact distance, plus the step's skin), p's *side*
 *    is the direction of the sum of the unit vectors from them to p, read
 *    when that sum is at least half their count (between two layers it
 *    has none).  A particle whose first side after being in the volume is
 *    opposite (negative dot product) the side it had before has *passed*
 *    through the solid, and counts so from then on (once per solid).
 *    Two solids are each measured against the other's particles.  A
 *    particle resting against the solid (merged: at contact distance) is
 *    never in its volume, nor is one in a crack it fits through, so a
 *    fracture's fragments do not count.  Missed: a particle under about
 *    0.57 of the solid's radius, which can pass a square gap without
 *    overlapping its corners by a tenth; and a step that carries a
 *    particle from the volume out of reach at once (over 0.6 r_q past the
 *    last layer: `cfl` above 0.6).
 *  - penetrations = particles through a sheet + passages through a solid
 *    + particles inside a solid.
 * Measured every step on the detection's pairs (so at the start of each
 * step, which is the end of the previous one) and once more at the end of
 * the run.  Particle identities are global indices: a system whose
 * particles move to other global indices (its count, or one before it,
 * changed) restarts its sides and passages. */
struct ms__stepper;

struct ms__penetration {
  uint64_t crossings; /* side changes, summed */
  uint64_t through;   /* particles through a sheet, now */
  uint64_t inside;    /* particles inside a solid, now */
  uint64_t passed;    /* (particle, solid) passages so far */
  uint64_t max_pen;   /* largest through + passed + inside seen */
  double max_speed;   /* largest particle speed seen [m/s] */
};

/* Penetrations now: through a sheet + passages through a solid + inside. */
static inline uint64_t ms__penetrations(const struct ms__penetration *p) {
  return p->through + p->passed + p->inside;
}

/* What a particle knows of a sheet: its sides (-1, 1; 0: none yet) and
 * whether it was out of the sheet's contact distance at the last step. */
struct ms__side {
  int8_t first, now;
  uint8_t away;
};

/* What a particle knows of a solid: the side it was last read on (unit;
 * has_side 0: none yet), whether it was in the solid's volume at its last
 * reading, and whether it stands past a passage. */
struct ms__pass {
  float side[3];
  uint8_t has_side, inside, through;
};

/* One step's sums for a particle near a solid (see the definitions). */
struct ms__near {
  double all[3], close[3];
  uint32_t nall, nclose, ndeep;
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
  uint32_t nsolids;
  int32_t *solid_of;      /* per system: solid index or -1 */
  struct ms__pass *pass;  /* n * nsolids */
  uint64_t passed;        /* entries of pass with through set */
  struct ms__near *near;  /* scratch: near_cap * nsolids */
  uint32_t *near_p;       /* scratch: the particle of each near slot */
  uint32_t *slot;         /* n scratch: a particle's near slot this step */
  size_t near_cap;
};

void ms__metrics_free(struct ms__metrics *m);
/* Size the tracking arrays for the current systems (first use, or after a
 * system's particles moved to other global indices: a count changed before
 * it or in it); MS_ENOMEM. */
int ms__metrics_prepare(struct ms__stepper *S);
/* Recount m->passed from the tracked passages (after a reset or a load). */
void ms__metrics_count_passed(struct ms__metrics *m);
/* Update from the current detection pairs; adds to *frame. */
int ms__metrics_step(struct ms__stepper *S, double vmax,
                     struct ms__penetration *frame);
/* Fold a frame's figures into the run's. */
void ms__penetration_add(struct ms__penetration *run,
                         const struct ms__penetration *frame);

/* ---- step.c --------------------------------------------------------------*/
/* The stepper: one step of the merging-and-splitting driver (step.c),
 * apart from the run.  It borrows the scene and the systems from the run
 * (sim.h) and owns the step's workspace, the simulation clock and the
 * counters of the frame in progress; couple.c, handover.c and metrics.c
 * work on it too. */
/* Counters of one frame (and, summed, of the run). */
struct ms__counts {
  uint64_t steps, stage2_steps;
  uint64_t pairs, approaching, marked; /* summed over steps */
  uint64_t metas, members, meta_max;   /* final stage of each step */
  uint64_t members_sq;                 /* sum of squared meta sizes */
  uint64_t handed;                     /* particles handed over (handover.c) */
  uint64_t heat_pairs;                 /* pairs heat flowed over (heat.c) */
  double heat_moved;                   /* |Q| summed over them [J] */
  double heat_injected;                /* by scene.heat_sources [J] */
  uint64_t passes;      /* coupling iterations: integrations again */
  uint64_t unconverged; /* steps whose iterations did not converge */
  struct ms__ledger ledger;
  struct ms__penetration pen;          /* metrics.h */
};
/* Workspace of the particle hand-over (handover.c). */
struct ms__handover_ws {
  unsigned char *buf;       /* the handed particles' fields, packed */
  struct ms_field *fields;  /* their descriptions */
  uint32_t *to;             /* receiving system of each handed particle */
};

struct ms__stepper {
  /* borrowed from the run, set once its systems exist */
  const struct ms__scene *scene;
  struct ms__system *sys;
  uint32_t nsys;
  struct ms__err *err;           /* the run's error */
  struct ms__metrics *metrics;   /* the run's penetration tracking */
  /* the clock */
  double time;
  uint64_t step;
  /* workspace */
  size_t ntotal;
  struct ms__particles P;
  struct ms__detect det;
  struct ms__detect heat_det;    /* heat pairs within coupling.heat_reach */
  uint8_t *no_self;              /* per system: 0 (no intra-system pairs) */
  uint8_t *self;                 /* per system */
  uint8_t *touched;              /* per system: coupling iterations */
  uint8_t *kept;                 /* per system: stage 1's result stands */
  struct ms__iqn iqn;            /* coupling iterations (iterate.h) */
  uint32_t *appr, *marked;       /* pair lists, 2 ids per pair */
  size_t napp, nmarked, cap_app, cap_marked;
  uint32_t *lpairs;              /* filter_pairs workspace */
  uint8_t *keep, *lkeep;
  size_t cap_local;
  double *fext, *fext_store;     /* baseline contact forces, 3 per particle */
  size_t cap_fext;
  double *fpushed;               /* this stage: fext plus the forces systems
                                    with push() state (ABI 1.5), what the
                                    others receive; NULL: none pushed */
  double *fpush_store;
  size_t cap_fpush;
  struct ms__groups groups;
  struct ms__metaset metas;
  struct ms__contacts contacts;
  struct ms__handover_ws hov;
  struct ms__domain *dom;        /* NULL: the whole scene; else this
                                    process's piece of it (domain.c) */
  /* counters */
  double phase[MS__PH_COUNT];
  struct ms__counts frame_counts;
  int spin_ready; /* this step's split filled the systems' spin shares */
};

/* Borrow the run's scene, systems (created, with their views), error and
 * metrics; size the per-system workspace. */
int ms__stepper_init(struct ms__stepper *S, const struct ms__scene *scene,
                     struct ms__system *sys, uint32_t nsys,
                     struct ms__err *err, struct ms__metrics *metrics);
/* Advance by one step, not beyond t_end. */
int ms__step(struct ms__stepper *S, double t_end);
/* P = the start-of-step state of every particle (S->dom: of the piece);
 * the largest speed and the smallest radius among them. */
int ms__gather(struct ms__stepper *S, double *vmax, double *rmin);
/* Measure the metrics at the current state (end of a run). */
int ms__observe(struct ms__stepper *S);
/* Free the workspace (not what it borrows). */
void ms__stepper_free(struct ms__stepper *S);

/* ---- domain.c ------------------------------------------------------------*/
/* One run spread over processes by domain decomposition, the proof of
 * doc/distributed.md (section 5): space is cut into slabs along one axis,
 * one per process (rank); a rank owns the particles in its slab, receives
 * as ghosts the particles of others within `halo` of it, finds the pairs
 * whose smaller id it owns, gathers the approaching-pair components that
 * cross a face on the rank owning their smallest id, merges, integrates,
 * synchronises and splits them there, and sends the members it does not
 * own back.  Every rank holds every system whole (the plugins are not
 * changed) but reads and writes only its piece; what crosses ranks goes
 * through the transport and is counted.  For scenes whose solvers do not
 * couple their own particles (`particles`), one stage, merge-split with
 * coupling.group_draws = "per_group": the results are those of one
 * process, bit for bit. */
struct ms__transport {
  void *opaque;
  int rank, size;
  /* Every rank sends scount[q] bytes at send[q] to rank q; *recv is one
   * malloc'd buffer of what each rank q sent it (rcount[q] bytes), in rank
   * order.  Collective. */
  int (*alltoall)(void *opaque, void *const *send, const size_t *scount,
                  void **recv, size_t *rcount);
  /* v[0..n) = the largest over the ranks.  Collective. */
  int (*max)(void *opaque, double *v, int n);
};

/* What a rank sent, by kind: bytes and records. */
enum { MS__DOM_GHOST, MS__DOM_MIGRANT, MS__DOM_LINK, MS__DOM_COMPONENT,
       MS__DOM_RESULT, MS__DOM_FRAME, MS__DOM_KINDS };
struct ms__domain_traffic {
  uint64_t bytes[MS__DOM_KINDS], records[MS__DOM_KINDS];
};

struct ms__domain {
  struct ms__transport T;
  int axis;          /* the slabs' normal */
  double *cut;       /* size + 1: rank q owns [cut[q], cut[q + 1]) */
  double halo;       /* ghosts within this distance of a slab */
  uint32_t *gid;     /* the piece: owned, ghosts and the members of
                        components gathered here, sorted by id */
  size_t n, cap;
  uint32_t *own;     /* the ids owned, sorted */
  size_t nown, cap_own;
  size_t nall;       /* particles of the whole scene */
  uint8_t *role;     /* nall: 0 none, 1 owned, 2 ghost, 3 gathered */
  uint8_t *edge;     /* nall: owned and a ghost of some other rank */
  int32_t *from;     /* nall: the owner of a ghost or gathered particle */
  int32_t *meta_id;  /* rank 0, nall: the last step's meta-particle of each
                        particle as one process numbers them, or -1 */
  struct ms__domain_traffic sent, recvd; /* over the run */
  uint64_t steps;
  uint64_t first_ghosts; /* ghosts the first step brought this rank */
  uint64_t max_ghosts;   /* most ghosts one step brought this rank */
  void *ws;          /* workspace (domain.c) */
};

/* Check that the scene can be split (one line naming what cannot), cut
 * it into slabs by the particles' positions now and take this rank's
 * piece.  Every rank must hold the same scene in the same state.  After a
 * failure too, ms__domain_free releases what was taken. */
int ms__domain_open(struct ms__domain *D, struct ms__stepper *S,
                    const struct ms__transport *T);
void ms__domain_free(struct ms__domain *D);
/* At the step's start: particles that left the slab go to their owner's
 * rank, ghosts are exchanged, the piece is listed.  Collective. */
int ms__domain_begin(struct ms__domain *D, struct ms__stepper *S);
/* The candidate pairs whose smaller id this rank owns (each pair is then
 * found by one rank). */
void ms__domain_pairs(const struct ms__domain *D, struct ms__detect *det);
/* The largest speed and smallest radius over every rank.  Collective. */
int ms__domain_reduce(struct ms__domain *D, struct ms__stepper *S,
                      double *vmax, double *rmin);
/* The approaching pairs of components that touch a ghost, gathered; this
 * rank keeps the components whose smallest id it owns, with every member
 * in its piece (S->P gathered again).  Collective. */
int ms__domain_components(struct ms__domain *D, struct ms__stepper *S);
/* After the step: the members merged here but owned elsewhere go back to
 * their owners.  Collective. */
int ms__domain_end(struct ms__domain *D, struct ms__stepper *S);
/* Rank 0's systems receive every particle (before it writes a frame).
 * Collective. */
int ms__domain_frame(struct ms__domain *D, struct ms__stepper *S);

/* ---- couple.c ------------------------------------------------------------*/
/* The systems' side of a coupled step: the collective inertia they state,
 * their integration with the step's meta-particles, and the
 * synchronisation of the results with the leading systems' answers,
 * iterated when the scene asks (coupling.iterations; doc/sync.md). */
struct ms__stepper;

/* Every system that can states its collective inertia for the stage's
 * meta-particles; each then integrates with the others' added (ABI 1.1).
 * Nothing for the paper's rule. */
int ms__collective_inertia(struct ms__stepper *S, const struct ms_step *st);

/* Every system integrates its piece of the step: those with push() (ABI
 * 1.5) first, then the others with the forces those state added.  kept:
 * NULL, or per system 1 to leave it as the last integrate left it. */
int ms__integrate_all(struct ms__stepper *S, struct ms_step *st,
                      const uint8_t *kept);

/* Synchronise the meta-particles (sync.c), let the systems that lead some
 * answer, and with coupling.iterations > 1 integrate again until the
 * systems agree (iterate.h); the last pass's ledger counts. */
int ms__synchronise(struct ms__stepper *S, struct ms_step *st);

/* ---- handover.c ----------------------------------------------------------*/
/* The particle hand-over (handover.c). */
/* Let every system give the particles it gives away now to
 * their receivers (plugin.h, PARTICLE HAND-OVER); start of a step. */
int ms__handover(struct ms__stepper *S);
void ms__handover_free(struct ms__handover_ws *W);

/* ---- heat.c --------------------------------------------------------------*/
/* The scene's heat sources, then heat between touching particles of
 * different heat-carrying systems (plugin.h, HEAT; doc/heat.md), on the
 * step's contact pairs, before begin_step (W3).  No exchange without
 * coupling.conductance or with fewer than two such systems. */
int ms__heat_exchange(struct ms__stepper *S, double dt);
/* The heat sum of C T = m c T of system s [J]; 0 when it carries none. */
double ms__heat_of(const struct ms__system *y);

#endif
