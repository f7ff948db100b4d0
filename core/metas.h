/* The meta-particles of one step: members in merge order with the data
 * merging stored for splitting, the per-system pieces handed to plugins,
 * and the per-system results that synchronisation combines. */
#ifndef MS_CORE_METAS_H
#define MS_CORE_METAS_H

#include <stddef.h>
#include <stdint.h>

#include "group.h"

/* Start-of-step state of every particle of the scene, gathered from the
 * views: global index g = system offset + local index. */
struct ms__particles {
  size_t n, cap;
  double *x, *v, *m, *r; /* x, v: 3 per particle */
  uint32_t *sys;         /* owning system */
  uint32_t *local;       /* index inside the owning system */
};

/* The arrays one system's integrate() receives (struct ms_metas) and fills
 * (struct ms_meta_result). */
struct ms__sysmetas {
  uint32_t count;
  uint32_t *entry;         /* count: entry index in the meta set */
  uint32_t *meta;          /* count: its meta-particle in the meta set */
  uint32_t *member_offset; /* count + 1 */
  uint32_t *member;        /* local particle indices */
  double *mass, *own_mass, *pos, *vel, *rvel, *rdisp;
  uint8_t *rcon;
  /* collective response (ABI 1.1) */
  double *inertia; /* 6 * count: the tensor the system integrates with */
  double *coll;    /* 6 * count: collective inertia it states */
  /* meta_response(): role, impulse, velocity and displacement */
  uint8_t *lead;
  double *imp, *vsync, *dsync; /* 3 * count */
  int stated;      /* it stated a nonzero collective inertia this stage */
  size_t cap, cap_member;
};

struct ms__metaset {
  uint32_t count, nslots, nentries;
  uint32_t merged;  /* [0, merged): merged; the rest hold one particle */
  uint32_t *offset; /* count + 1: slots of meta k */
  /* per slot (member in merge order) */
  uint32_t *member, *sys;
  double *x0, *v0, *m;    /* start-of-step state, 3/3/1 per slot */
  double *n, *va, *ma, *de, *share; /* merge node joining [0,k) and k */
  uint8_t *cross;
  double *vout;           /* end velocity after splitting, 3 per slot */
  /* per meta */
  double *mass, *pos, *vel;  /* merged: 1/3/3 */
  double *vfin, *disp, *dek; /* after sync: 3/3/1 */
  double *pdef, *pexch;      /* after sync: momentum defect, impulse 3/1 */
  double *de_sum, *restored; /* ledger terms, summed in meta order */
  uint32_t *northo;
  /* per (meta, system) entry */
  uint32_t *eoff;   /* count + 1 */
  uint32_t *esys;
  double *emass, *evel, *edisp; /* own mass; the system's result v^s, dx^s */
  uint8_t *econ;                /* how the system constrained its result:
                                   0, MS_CONSTRAINED or MS_PINNED */
  /* collective response (ABI 1.1, doc/sync.md) */
  int collective;   /* some system stated collective inertia this stage */
  uint8_t *coll;    /* per meta: how many of its entries did (2: 2+) */
  double *inertia;  /* per meta, 6: Mc = M 1 + sum_s C_s */
  double *ecoll;    /* per entry, 6: C_s */
  double *eweight;  /* per entry, 6: m_s + C_s, m_s the inertia the system
                       integrated with */
  double *eimp;     /* per entry, 3: FOLLOW: K_s = C_s (V - v^s); LEAD: G,
                       the other entries' impulse on the meta */
  uint8_t *elead;   /* per entry: it leads its meta-particle */
  double *ew;       /* per entry: m_s / M, 1 unless the system integrated
                       with its own mass (MS_PLUGIN_META_OWN_MASS) */
  /* coupling iterations (iterate.h) */
  double *eext;     /* per entry, 3: the velocity added to the system's
                       start velocity for the other systems' forces; 0
                       in a step's first pass */
  size_t cap_meta, cap_slot, cap_entry;
};

void ms__metaset_free(struct ms__metaset *M);
void ms__sysmetas_free(struct ms__sysmetas *S);

/* Merge every group into a meta-particle (merge.h) and split the work into
 * per-system entries. */
int ms__metaset_build(struct ms__metaset *M, const struct ms__groups *G,
                      const struct ms__particles *P);

/* Fill the arrays system `s` receives. */
int ms__sysmetas_build(struct ms__sysmetas *S, const struct ms__metaset *M,
                       const struct ms__particles *P, uint32_t s);

/* Copy system s's reported results back into the entries. */
void ms__sysmetas_collect(const struct ms__sysmetas *S, struct ms__metaset *M);

/* Collective response.  Record the inertia system S stated (S->coll) in
 * the entries; then, once every system has, derive each meta-particle's Mc
 * and hand each system the inertia it integrates with (the others' C_s
 * added; `use`: enum ms__inertia_use).  Without any statement nothing
 * changes. */
void ms__sysmetas_state_inertia(struct ms__sysmetas *S, struct ms__metaset *M);
/* System S integrates its meta-particles with its members' own mass. */
void ms__sysmetas_own_mass(const struct ms__sysmetas *S,
                           struct ms__metaset *M);
void ms__metaset_inertia(struct ms__metaset *M);
/* How a system's integrate() takes a meta-particle's inertia. */
enum ms__inertia_use {
  MS__INERTIA_SCALAR = 0, /* metas->mass */
  MS__INERTIA_TENSOR = 1, /* metas->inertia (MS_PLUGIN_INERTIA_TENSOR) */
  MS__INERTIA_OWN = 2     /* own_mass (MS_PLUGIN_META_OWN_MASS) */
};
void ms__sysmetas_inertia(struct ms__sysmetas *S, const struct ms__metaset *M,
                          int use);
/* After synchronisation: the role, impulse, velocity and displacement of
 * system S's meta-particles for meta_response(); then, after the call,
 * the end velocity and displacement of the meta-particles S leads. */
void ms__sysmetas_response(struct ms__sysmetas *S,
                           const struct ms__metaset *M);
void ms__sysmetas_led(const struct ms__sysmetas *S, struct ms__metaset *M);

/* Energy ledger of one step. */
struct ms__ledger {
  double stored;    /* sum of dE (merging) and dEk (synchronisation) */
  double restored;  /* energy given back by splitting */
  uint64_t merges;  /* merge nodes */
  uint64_t splits;  /* split nodes */
  uint64_t ortho;   /* splits that took the no-real-root branch */
  double contact;   /* kinetic energy taken by contact impulses (contacts.h) */
  uint64_t contacts; /* contact impulses applied */
  /* Momentum the synchronisation created (+) or lost over the unconstrained
   * multi-system meta-particles: sum of Mc (V - v - g dt) - sum_s J_s, and
   * the coupling impulse exchanged, sum of |J_s| (doc/sync.md). */
  double pdefect[3], pexch;
};

#endif
