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
  uint32_t *member_offset; /* count + 1 */
  uint32_t *member;        /* local particle indices */
  double *mass, *own_mass, *pos, *vel, *rvel, *rdisp;
  uint8_t *rcon;
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
  double *de_sum, *restored; /* ledger terms, summed in meta order */
  uint32_t *northo;
  /* per (meta, system) entry */
  uint32_t *eoff;   /* count + 1 */
  uint32_t *esys;
  double *emass, *evel, *edisp; /* own mass; the system's result v^s, dx^s */
  uint8_t *econ;                /* how the system constrained its result:
                                   0, MS_CONSTRAINED or MS_PINNED */
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

/* Energy ledger of one step. */
struct ms__ledger {
  double stored;    /* sum of dE (merging) and dEk (synchronisation) */
  double restored;  /* energy given back by splitting */
  uint64_t merges;  /* merge nodes */
  uint64_t splits;  /* split nodes */
  uint64_t ortho;   /* splits that took the no-real-root branch */
  double contact;   /* kinetic energy taken by contact impulses (contacts.h) */
  uint64_t contacts; /* contact impulses applied */
};

/* Synchronise every meta-particle (sync.h); dt for multi-system positions. */
void ms__metaset_sync(struct ms__metaset *M, double dt,
                      struct ms__ledger *L);
/* Split every meta-particle into member velocities vout (split.h). */
void ms__metaset_split(struct ms__metaset *M, double alpha, double beta,
                       struct ms__ledger *L);

#endif
