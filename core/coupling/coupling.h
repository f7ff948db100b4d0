/* Coupling: the paper's pair rules and the meta-particles -- grouping
 * into meta-particles, merging, synchronising across systems, splitting,
 * the coupling iteration, impulses between unmerged pairs, the baselines. */
#ifndef MS_CORE_COUPLING_H
#define MS_CORE_COUPLING_H

#include <stddef.h>
#include <stdint.h>

#include "../base/base.h"
#include "../scene/scene.h"

/* ---- rules (inline) ------------------------------------------------------*/
/* The paper's two rules for a pair of particles (Sec. 5, Eqs. 21-22), one
 * home each.  Every user asks these: the classification of candidate
 * pairs and stage 2 (step.c), the impulses on pairs left out of size-
 * limited meta-particles (contacts.c) and the baselines (baselines.c). */
/* Rule 1 (Eq. 21): two particles d2 = |x_j - x_i|^2 apart, of radii r_i
 * and r_j, touch: |x_j - x_i| < r_i + r_j (strictly: resting exactly at
 * the distance is not a contact). */
static inline int ms__rule_contact(double d2, double ri, double rj) {
  double t = ri + rj;
  return d2 < t * t;
}

/* Rule 2 (Eq. 22): a pair approaches when the normal component of its
 * relative motion, vn = n . (v_j - v_i) with n along x_j - x_i (any
 * positive length), is below -tol.  tol >= 0 absorbs rounding; 0 for the
 * paper's rule.  A pair at vn == 0 neither approaches nor separates; the
 * other side of the rule, separating, is vn > tol.
 *
 * MS__RULE_TWO_SWAPPED exchanges the two sides: only the test program
 * tests/rules/run-rule-swap defines it, to show that every user of the
 * rule follows this one place. */
#ifndef MS__RULE_TWO_SWAPPED
static inline int ms__rule_approaching(double vn, double tol) {
  return vn < -tol;
}
static inline int ms__rule_separating(double vn, double tol) {
  return vn > tol;
}
#else
static inline int ms__rule_approaching(double vn, double tol) {
  return vn > tol;
}
static inline int ms__rule_separating(double vn, double tol) {
  return vn < -tol;
}
#endif

/* ---- group.c -------------------------------------------------------------*/
/* Grouping approaching pairs into meta-particles (paper Sec. 5.2).
 *
 * Particles are visited in index order.  An unassigned particle with an
 * approaching pair starts a group whose size limit is drawn uniformly from
 * [n_min, n_max]; the group grows breadth-first over approaching pairs (each
 * particle's partners in increasing index order) until the limit.  Each
 * particle added is one merge node.  Sequential and seeded, so the result is
 * the same for any thread count.
 *
 * With a size limit, a pair may join two different groups, or a group and a
 * particle whose partners were all taken.  On request such a particle gets a
 * group of its own (after the merged ones), so that the pairs between
 * groups can be resolved by contact impulses (contacts.h).
 *
 * The size limits: by default drawn from `rng` in the order groups start
 * (coupling.group_draws = "sequence").  With per_group set, the group
 * that particle p starts draws its limit from a stream of its own,
 * (key[0], key[1], key[2] * 2^32 + p): a connected component of the pair
 * graph is then grouped the same whatever else the graph holds, which a
 * run divided over ranks needs (doc/distributed.md, section 2.1). */
struct ms__groups {
  int per_group;    /* draws keyed by the starting particle */
  const uint32_t *id; /* with per_group: the particles' ids in the draws'
                         keys (a piece of the scene: their ids in the
                         whole, domain.c); NULL: their indices */
  uint64_t key[3];  /* with per_group: seed, step, stage */
  uint32_t count;   /* groups */
  uint32_t merged;  /* [0, merged): >= 2 particles; the rest: one each */
  uint32_t *offset; /* count + 1 */
  uint32_t *member; /* particle ids, group by group, in merge order */
  uint32_t *mark;   /* n: group of each particle, UINT32_MAX for none */
  /* workspace */
  uint32_t *adj_off, *adj;
  size_t cap_n, cap_adj, cap_groups, cap_member;
};

void ms__groups_free(struct ms__groups *G);
/* pairs: 2 * npairs particle ids (< n).  n_max == 0 means no size limit.
 * singles: give each particle of a pair left outside every group a group of
 * its own.  Returns MS_OK or MS_ENOMEM. */
int ms__group(struct ms__groups *G, size_t n, const uint32_t *pairs,
              size_t npairs, uint32_t n_min, uint32_t n_max, int singles,
              struct ms__rng *rng);

/* ---- metas.c -------------------------------------------------------------*/
/* The meta-particles of one step: members in merge order with the data
 * merging stored for splitting, the per-system pieces handed to plugins,
 * and the per-system results that synchronisation combines. */
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
  double *spin; /* 3 * count: its share of the spin the split left out */
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
  double *spin;              /* after split: 3, the members' spin taken */
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
/* After splitting: system S's share of each meta-particle's spin D
 * (plugin.h, MEMBERS' SPIN; doc/sync.md section 7). */
void ms__sysmetas_spin(struct ms__sysmetas *S, const struct ms__metaset *M);

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

/* ---- merge.c -------------------------------------------------------------*/
/* Merging (paper Eqs. 1-5): particles -> meta-particles.
 *
 * A meta-particle of K members is a chain of K-1 binary merge nodes: node k
 * (1 <= k < K) joins child a = the meta-particle of members [0, k) with
 * child b = member k.  Per node we keep what splitting needs: n = x_b - x_a,
 * the children's pre-merge velocities and masses, and the energy
 * dE = m_a m_b / (2 m) |v_a - v_b|^2 the merge took out of the motion. */
/* Merge two bodies (Eqs. 1-4).  Outputs may alias nothing. */
void ms__merge2(double ma, const double *xa, const double *va, double mb,
                const double *xb, const double *vb, double *m, double *x,
                double *v, double *de);

/* Merge the K members of one meta-particle in order.  Member arrays (mass m,
 * position x[3K], velocity v[3K], system sys) are read; node arrays (indexed
 * by member; entry 0 is no node and is zeroed) are written: n[3K], va[3K], ma[K], de[K],
 * cross[K] (node joins members of different systems).  Writes the meta
 * particle's mass, centre and velocity. */
void ms__merge_chain(uint32_t K, const uint32_t *sys, const double *m,
                     const double *x, const double *v, double *n, double *va,
                     double *ma, double *de, uint8_t *cross, double *M,
                     double *X, double *V);

/* ---- split.c -------------------------------------------------------------*/
/* Splitting (paper Eqs. 8-16 and 20): meta-particles -> particles, with
 * momentum conserved exactly and the chosen energy restored. */
/* Split one merge node.  Children 1 (= a) and 2 (= b) with masses m1, m2 and
 * pre-merge velocities v1, v2; n = x2 - x1 at merge time; V the node's end
 * velocity; E >= 0 the energy to restore.  Writes v1p, v2p with
 *   m1 v1p + m2 v2p = (m1 + m2) V,
 *   1/2 m1 |v1p|^2 + 1/2 m2 |v2p|^2 = 1/2 (m1 + m2) |V|^2 + E,
 *   (v2p - v1p) . n >= 0.
 * Returns 1 when the quadratic (Eq. 13) had no real root and the orthogonal
 * term (Eqs. 15-16) was used, else 0. */
int ms__split2(double m1, double m2, const double *V, const double *v1,
               const double *v2, const double *n, double E, double *v1p,
               double *v2p);

/* Energy shares of the sync energy dEk over the nodes of one chain: node k
 * gets weight mu_k = ma m_b / (ma + m_b) if it joins members of different
 * systems, 0 otherwise; weights are normalised to sum 1 (all 0 if no node
 * crosses systems).  A two-particle meta-particle gets its whole dEk
 * (paper Eq. 20). */
void ms__sync_shares(uint32_t K, const double *m, const double *ma,
                     const uint8_t *cross, double *share);

/* Split a whole chain of K members (merge.h) in inverse merge order, from
 * the meta-particle's end velocity V.  Node k restores
 * E_k = alpha * de[k] + beta * share[k] * dek.  Writes the members' end
 * velocities vout[3K]; adds the restored energy to *restored; returns the
 * number of nodes that took the orthogonal branch. */
/* The angular momentum about their centre X that merging K members
 * (masses m, start positions x, start velocities v; merged velocity V)
 * and splitting them (end velocities vout; end velocity Vf) took:
 *   D = sum_i m_i (x_i - X) x ((v_i - V) - (vout_i - Vf)). */
void ms__split_spin(uint32_t K, const double *m, const double *x,
                    const double *v, const double *vout, const double *X,
                    const double *V, const double *Vf, double *D);
uint32_t ms__split_chain(uint32_t K, const double *m, const double *v,
                         const double *n, const double *va, const double *ma,
                         const double *de, const double *share, double dek,
                         double alpha, double beta, const double *V,
                         double *vout, double *restored);

/* Split every meta-particle into member velocities vout. */
void ms__metaset_split(struct ms__metaset *M, double alpha, double beta,
                       struct ms__ledger *L);

/* The angular momentum the partitioned step of a meta-particle that
 * systems FOLLOW (collective inertia stated, no leader, nothing
 * constrained) gave beyond its impulses' moments, taken out of M->spin
 * (what is handed back): each system s moved the meta-particle, with the
 * inertia m_s it integrated it with, from x, v (+ x_s) to x + dx^s, v^s,
 * and kept its own angular momentum with it; the members end at x + dx,
 * V and every K_s acts at x + dx.  So the step gave
 *   E = M ((x + dx) x V - x x v - dt x x g) + sum_s (x + dx) x K_s
 *       - sum_s m_s ((x + dx^s) x v^s - x x (v + x_s) - dt x x g)
 * (doc/sync.md section 7); spin -= E. */
void ms__metaset_orbit(struct ms__metaset *M, double dt, const double *g);

/* ---- sync.c --------------------------------------------------------------*/
/* Synchronising one meta-particle across the systems it spans: the
 * momentum rule (the systems' impulses summed; doc/sync.md) and the
 * paper's (Eqs. 17-19, generalised to k systems). */
/* k systems; Ms[s] the mass of the members system s owns, vs[3s] the end
 * velocity system s computed.  Writes the synchronised velocity
 *   v = sum_s Ms vs / M
 * and returns the kinetic energy the averaging removed,
 *   dEk = 1/2 sum_s Ms |vs|^2 - 1/2 M |v|^2 = 1/2 sum_s Ms |vs - v|^2 >= 0. */
double ms__sync(uint32_t k, const double *Ms, const double *vs, double *v);

/* The momentum rule: k systems; v the merged start velocity, gd = g dt
 * (gravity over the step), vs[3s] the end velocity system s computed from
 * the start velocity v + ext[3s] (ext: the other systems' forces handed in
 * by a coupling iteration, iterate.h; NULL: none), so that system s's own
 * impulse is m_s (vs - ext - v - gd).
 * Without collective inertia (W == NULL) every system's impulse beyond
 * gravity counts in full, w[s] = m_s / M (1, or own mass / M for a system
 * that integrated with its own mass; w == NULL: all 1):
 *   V = v + gd + sum_s w_s (vs - v - gd).
 * With it, W[6s] = m_s + C_s (the inertia system s integrated with plus
 * its own collective inertia) and Mc = M 1 + sum_s C_s:
 *   Mc (V - v - gd) = sum_s W_s (vs - v - gd).
 * Writes V. */
void ms__sync_momentum(uint32_t k, const double *v, const double *gd,
                       const double *vs, const double *ext, const double *w,
                       const double *W, const double *Mc, double *V);

/* Synchronise every meta-particle by `rule` (enum ms__sync_rule);
 * dt for multi-system positions, g the scene's gravity. */
void ms__metaset_sync(struct ms__metaset *M, int rule, double dt,
                      const double *g, struct ms__ledger *L);

/* ---- iterate.c -----------------------------------------------------------*/
/* Coupling iterations (coupling.iterations; doc/sync.md section 6).  The
 * synchronisation sums what every system did to a meta-particle as if the
 * others did nothing: one Jacobi pass of a partitioned coupling.  Iterating
 * hands each system the others' effect as a change of the meta-particle's
 * start velocity (an impulse at the start of the step: the same for an
 * explicit and a backward-Euler integrator) and integrates the step again,
 * until every system's end velocity agrees with the synchronised one.
 *
 * The unknown x is that change of start velocity, per entry (meta-
 * particle, system); one pass maps it to x~ = x + r, r_e = V_k - v^e.  The
 * update is interface quasi-Newton with least squares (IQN-ILS, Degroote
 * et al. 2009, as preCICE has it): the differences of r and of x~ over the
 * step's passes give an approximate inverse Jacobian, so stiff partners,
 * on which plain Jacobi grows, converge; the first pass is relaxed. */
struct ms__iqn {
  size_t n, cap_n;         /* unknowns this step: 3 per taking-part entry */
  uint32_t cols, max_cols, cap_cols; /* history, newest first */
  uint32_t passes;         /* updates made this step */
  double *r, *xt, *rp, *xtp; /* n: residual and x~, now and before */
  double *V, *W;           /* cols x n: differences of r and of x~ */
  double *Q, *R, *c;       /* least-squares workspace */
  uint8_t *part;           /* per meta-particle: takes part (fixed at the
                              step's start: the unknowns keep their places
                              even if a later pass constrains a result) */
  size_t cap_meta;
  double best;             /* the smallest relative residual this step */
  double *xbest;           /* 3 per entry: M->eext of that pass */
  size_t cap_best;
};

void ms__iqn_free(struct ms__iqn *Q);

/* Start a step's iterations over M's entries (history of at most
 * max_cols passes): the meta-particles that take part are those of
 * several systems that none constrained in the first pass.  MS_ENOMEM or
 * MS_OK. */
int ms__iqn_start(struct ms__iqn *Q, const struct ms__metaset *M,
                  uint32_t max_cols);

/* The residual of the pass just synchronised (and, for led meta-particles,
 * answered): r_e = V_k - v^e for every entry of a taking-part meta (as
 * ms__iqn_start fixed them) that does not lead it.  Returns |r| (2-norm over all entries); *scale is the
 * 2-norm of the velocity changes V_k - v_k, with |g dt| per meta-particle
 * as a floor.  Marks in sys_touched[s] (nsys bytes, zeroed by the caller)
 * every system holding an entry of a taking-part meta-particle. */
double ms__iqn_residual(struct ms__iqn *Q, const struct ms__metaset *M,
                        const double *gd, uint8_t *sys_touched,
                        double *scale);

/* The next start-velocity changes M->eext from the residual just measured:
 * omega0 r on the step's first update, then quasi-Newton. */
void ms__iqn_update(struct ms__iqn *Q, struct ms__metaset *M, double omega0);

/* Remember M->eext when the pass just measured (relative residual
 * `ratio`) is the step's best so far.  MS_ENOMEM or MS_OK. */
int ms__iqn_keep_best(struct ms__iqn *Q, const struct ms__metaset *M,
                      double ratio);
/* When the step's last pass (relative residual `ratio`) is worse than its
 * best, put the best pass's start-velocity changes back into M->eext and
 * return 1: the caller integrates once more from them (a quasi-Newton
 * step that does not converge may end anywhere; momentum is kept either
 * way, but a pass far from agreement can give energy). */
int ms__iqn_restore_best(struct ms__iqn *Q, struct ms__metaset *M,
                         double ratio);

/* ---- contacts.c ----------------------------------------------------------*/
/* Contact impulses between meta-particles the size limit keeps apart.
 *
 * With n_min/n_max, an approaching pair may join two different groups (or a
 * group and a particle whose partners were all taken).  The paper leaves
 * such pairs alone (coupling.unmerged_pairs = "ignore", the default): the
 * two bodies may move into each other, and a body resting on another sinks
 * in, step after step.  With unmerged_pairs = "impulse", after
 * synchronisation every such pair whose bodies still approach
 * (n . (v_b - v_a) < 0 with the synchronised velocities, n from the
 * particles' start positions) gets a normal impulse between its two bodies
 * with restitution e (coupling.contact_restitution, 0 by default: the
 * impulse only stops the approach), and each body's displacement follows
 * its velocity change over the step (dx += dv dt): the two do not move into
 * each other during the step, as merged particles would not.  Impulses come
 * in equal and opposite pairs: momentum is unchanged; kinetic energy is
 * unchanged for e = 1 and can only drop for e < 1 (between free bodies);
 * the change is counted in the ledger.  A body whose result a system
 * constrained (a wall, a pin) is not moved.  Pairs are resolved in order,
 * sweep after sweep, so the result does not depend on the thread count. */
struct ms__contacts {
  size_t count;
  uint32_t *body;   /* 2 per contact: meta-particle ids */
  double *normal;   /* 3 per contact: unit, from body a's particle to b's */
  double *inv_mass; /* per meta-particle; 0 when constrained */
  size_t cap, cap_meta;
};

void ms__contacts_free(struct ms__contacts *C);

/* Collect the pairs whose particles are in different meta-particles.
 * group: the meta-particle of each particle (group.h `mark`); x: start
 * positions, 3 per particle; pairs: 2 * npairs particle ids.  Call after
 * synchronisation (it reads which results were constrained).  Returns MS_OK
 * or MS_ENOMEM. */
int ms__contacts_find(struct ms__contacts *C, const struct ms__metaset *M,
                      const uint32_t *group, const double *x,
                      const uint32_t *pairs, size_t npairs);

/* Apply the impulses, restitution in [0, 1], to the synchronised
 * velocities and displacements of M (vfin, disp); count them and the
 * kinetic energy they took in L. */
void ms__contacts_resolve(const struct ms__contacts *C, struct ms__metaset *M,
                          double restitution, double dt,
                          struct ms__ledger *L);

/* ---- baselines.c ---------------------------------------------------------*/
/* The collision methods the paper compares merging-and-splitting with
 * (Sec. 6.1), applied to the same contact pairs (Rule 1, after filtering):
 *   penalty    f = k (r_i + r_j - d) n^, plus a dashpot c (dv . n^) n^
 *   sph_force  f = k (1 - d / (r_i + r_j))^2 n^   (a spiky-kernel gradient
 *              of the overlap: pressure-like, stiffening towards contact)
 *   impulse    an instantaneous exchange along n^ for approaching pairs,
 *              restitution e, no position correction; pairs are resolved
 *              one after another in detection order.
 * Forces reach the plugins as external forces (struct ms_step), constant
 * over the step; impulses change velocities before the step (write W2). */
/* Accumulate contact forces (3 per particle, global indices) for the pairs.
 * sph: 0 penalty, 1 sph_force. */
void ms__contact_forces(const struct ms__particles *P, const uint32_t *pairs,
                        size_t npairs, int sph, double k, double c,
                        double *f);

/* Apply impulses to P->v in pair order; returns the number applied. */
size_t ms__baseline_impulses(struct ms__particles *P, const uint32_t *pairs,
                            size_t npairs, double e);

#endif
