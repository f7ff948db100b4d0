/* shape_matching — meshless solids by shape matching (Mueller,
 * Heidelberger, Teschner and Gross 2005, as Gao et al. 2018 use it): the
 * plugin's one internal header.
 *
 * A body is a set of particles with a rest shape.  Each step every
 * cluster of the body (the whole body, or overlapping regions of it)
 * finds the transform that best maps its rest shape onto where its
 * particles are predicted to go -- the rotation R of A_pq's polar
 * decomposition, the linear A, or the quadratic A~ -- and pulls them a
 * fraction alpha of the way to the goal positions it gives.  Position-
 * based integration: predict, match, correct, velocity from displacement.
 * Weighting every particle of a cluster by m_i / n_i (n_i: the clusters it
 * is in) makes the corrections of every cluster sum to no force and, in
 * rigid mode, to no torque: a free body keeps its momentum.
 * The scene keys are in README.md and config.c; the cluster's math in
 * match.c; the step in step.c; the collective response in couple.c. */
#ifndef MS_PLUGINS_SHAPE_MATCHING_H
#define MS_PLUGINS_SHAPE_MATCHING_H

#include <stddef.h>
#include <stdint.h>

#include <mergesplit/plugin.h>
#include <mergesplit/plugin_util.h>

#include "../common/polar.h"

enum sm_mode { SM_RIGID = 0, SM_LINEAR = 1, SM_QUADRATIC = 2 };
enum sm_motion { SM_DYNAMIC = 0, SM_FIXED = 1, SM_SCRIPTED = 2 };

/* One cluster: entries e = off .. off + cnt - 1 of the state's entry
 * arrays (particle, weight, rest offsets). */
struct sm_cluster {
  uint32_t off, cnt, body;
  uint32_t origin; /* its index at create: the order of a body's clusters
                      after it comes apart (melt.c) */
  double wsum;     /* sum of the weights m_i / n_i */
  double Aqq[9];   /* (sum w q q^T)^-1, row-major */
  double Sp[9];    /* plastic state (Mueller 2005 sect. 4.4), identity at
                      first; the rest offsets are Sp q0 */
  double qr[4];    /* the last rotation (quaternion): warm start */
  double qm[9];    /* weighted mean of the rest offsets' quadratic
                      coordinates: they are fitted about it, so the
                      quadratic goals too exert no net force */
};

/* The shape matching of one mode, host-free (match.c). */
struct sm_params {
  int mode;           /* enum sm_mode */
  double beta;        /* linear/quadratic share of the goal, [0, 1] */
};

struct sm_body {
  size_t first, count;  /* its particles */
  uint32_t cfirst, ccount; /* its clusters */
  int mode, motion;
  double alpha, beta;   /* stiffness (0, 1]; deformation share [0, 1] */
  double yield, creep, cmax; /* plasticity; yield = INFINITY: none */
  double mass;
  double V[3], w[3], c0[3]; /* scripted motion about the start centre c0 */
  double conductivity;  /* [W/(m K)]; NAN: one temperature (lumped) */
  double melt_T;        /* melting point [K]; INFINITY: never melts */
  double latent;        /* latent heat of melting [J/kg] */
  double share;         /* the store's share of m L at which it melts */
  double spacing;       /* its lattice's: face neighbours hold it together */
};

/* ---- match.c: the math, free of the host ------------------------------ */

/* The polar decomposition, rotations and 3x3 inverse: msc_polar,
 * msc_quat_matrix, msc_matrix_quat, msc_inverse3 (plugins/common/polar.h). */
/* Inverse of the symmetric positive definite n x n matrix M (row-major) in
 * place by Gauss-Jordan elimination with partial pivoting; 0 when a pivot
 * falls below tol times the largest diagonal entry. */
int sm_inverse_n(double *M, int n, double tol);
/* The quadratic coordinates q~ = (qx, qy, qz, qx^2, qy^2, qz^2, qx qy,
 * qy qz, qz qx) of q. */
void sm_quad(const double *q, double *qt);

/* Prepare cluster c's rest shape from its weights w and rest offsets q
 * (3 per entry, about the weighted centre): Aqq, and for the quadratic
 * mode the 9x9 (sum w q~ q~^T)^-1 into aqq9.  Returns 0 when the shape
 * is degenerate for the mode: coplanar (linear), or too few layers along
 * an axis to fit a quadratic. */
int sm_rest(struct sm_cluster *c, const double *w, const double *q,
            int mode, double *aqq9);

/* The goal positions g (3 per entry) of cluster c for the predicted
 * positions p of its particles (3 per entry, gathered), its weights w and
 * rest offsets q.  A_out, when not NULL, receives the volume-normalised
 * linear fit A (R when A is inverted): the deformation plasticity reads. */
void sm_goals(struct sm_cluster *c, const struct sm_params *prm,
              const double *w, const double *q, const double *aqq9,
              const double *p, double *g, double *A_out);

/* Mueller 2005's plasticity for one step of length h: with S = R^T A the
 * cluster's strain, Sp creeps towards it while |S - I| > yield, is capped
 * at |Sp - I| <= cmax and kept at det Sp = 1.  Returns 1 when Sp changed
 * (the caller updates the rest offsets q = Sp q0 and calls sm_rest). */
int sm_plastic(struct sm_cluster *c, const double *A, double yield,
               double creep, double cmax, double h);

/* ---- the plugin's state ----------------------------------------------- */

struct state {
  const struct ms_host *host;
  ms_ctx *ctx;
  size_t n;                 /* particles */
  double *x, *v, *m, *r;    /* x, v: 3 per particle */
  double *T, *c;            /* temperature [K], specific heat [J/(kg K)] */
  double *lam;              /* latent heat taken so far [J], <= m L */
  uint32_t *orig;           /* each particle's index at create */
  double *xr;               /* 3 per particle: where it was sampled */
  int melts;                /* some body has a melting point */
  char *melt_into;          /* the fluid system melted particles join */
  double melted_latent;     /* latent heat the particles handed over took */
  uint32_t *give;           /* hand_over()'s lists */
  const char **give_to;
  size_t cap_give;
  uint32_t *hp;             /* 2 per pair: lattice neighbours of a body
                               that conducts (conductivity given) */
  double *hG;               /* per pair: its conductance k s [W/K] */
  size_t nhp;
  double *x0, *v0;          /* at begin_step, for rewind */
  double *xs;               /* 3 per particle: the predicted positions */
  double *dx;               /* 3 per particle: a pass's correction */
  double *dd;               /* 3 per particle: its displacement in the
                               substep so far, summed from the moves (not
                               xs - x: far from the origin that loses the
                               digits the velocity needs) */
  uint32_t *body_of;        /* n */
  uint32_t *nclus;          /* n: clusters each particle is in */
  struct sm_body *body;
  uint32_t nbody;
  struct sm_cluster *clus;
  uint32_t nclusters;
  /* entries of the clusters: particle, weight, rest offsets as sampled
   * (q0) and as now (q = Sp q0), and scratch for gathered positions and
   * goals */
  uint32_t *ep;
  double *ew, *eq0, *eq, *ep3, *eg;
  double *eqs;              /* rest offsets as sampled, before centring on
                               the members left after a melt (melt.c) */
  size_t nentries;
  double *aqq9;             /* 81 per cluster (quadratic bodies) */
  double *clus0;            /* per cluster: Sp and qr at begin_step */
  int substeps, iterations;
  double h;                 /* the last substep's length (0: none yet) */
  double restitution, friction; /* at the domain walls */
  double cfl;               /* radii a particle may move per substep */
  double gravity[3], lo[3], hi[3];
  /* the step's meta-particles */
  int32_t *meta;            /* n: meta-particle of each particle, or -1 */
  uint32_t nmeta, cap_meta;
  uint32_t *host_of;        /* per meta: the body whose rest answers for it
                               (couple.c), or SM_NONE */
  double *share;            /* per meta: the collective inertia it states */
  uint32_t *pin;            /* per meta: a member of a kinematic body, or
                               SM_NONE */
  double *mV, *mD;          /* 3 per meta: its velocity over the substeps,
                               its displacement so far */
  uint8_t *touch;           /* n: walls a particle met this substep */
  void *contacts;           /* scratch of sm_wall_contacts */
  uint32_t cap_contacts;
  double *dL;               /* 3 per body: this substep's lag torque (step.c,
                               angular_lag) */
  struct ms_field fields[7];
};

#define SM_NONE UINT32_MAX

/* ---- config.c --------------------------------------------------------- */
/* Read the system's keys, create its bodies, particles and clusters. */
int sm_configure(struct state *s, const ms_config *sec);

/* ---- step.c: the position-based step ---------------------------------- */
/* The longest step in which no particle moves more than cfl times its
 * radius in a substep (its speed, and gravity's pull from rest): a wall
 * or a contact met within a substep is met shallow, so the position
 * corrections that keep particles out stay small. */
double sm_max_dt(const struct state *s);
/* Advance every body by dt in `substeps` substeps with the meta-particles
 * mt (may hold count 0), filling res. */
int sm_step(struct state *s, const struct ms_step *st,
            const struct ms_metas *mt, struct ms_meta_result *res);
/* Rest offsets of cluster c from its plastic state, and its rest shape
 * again. */
void sm_replastic(struct state *s, uint32_t c);
/* The same for cluster C with its quadratic work space aqq9; *ok: 0 when
 * the rest shape is degenerate for the body's mode. */
void sm_replastic_at(struct state *s, struct sm_cluster *C, double *aqq9,
                     int *ok);
/* Body b's particles outside meta-particles (s->meta of the step): their
 * mass (returned; 0: none), centre c and inertia I about it (sym3). */
double sm_free_frame(const struct state *s, uint32_t b, double *c,
                     double *I);
/* w = I^-1 b for an inertia tensor I (sym3); 0 when I is singular to
 * rounding (det <= 1e-9 (tr I / 3)^3): free particles on a line -- two,
 * say, when the rest of a melting body is all in meta-particles -- have
 * none about it, and solving with a determinant of rounding gave them
 * 1e11 m/s.  The caller then leaves out the turn. */
int sm_inertia_solve(double *w, const double *I, const double *b);
/* Add the rigid velocity V + w x (x - c) to body b's free particles, and
 * dt times it to their positions. */
void sm_free_turn(struct state *s, uint32_t b, const double *c,
                  const double *V, const double *w, double dt);

/* ---- melt.c: melting (doc/heat.md section 6) -------------------------- */
/* Cluster C's weights m_i / n_i (n_i: the particle's cluster count now)
 * and rest offsets eq0: its sampled positions eqs about their weighted
 * centre.  At build, and after a melt on the members left. */
void sm_reweigh(struct state *s, struct sm_cluster *C);
/* Each particle above its body's melting point moves its excess heat
 * into its latent store, up to m L; returns the heat moved [J]. */
double sm_melt_store(struct state *s);
/* The particles whose store is full, for hand_over(); MS_ENOMEM. */
int sm_melt_list(struct state *s, struct ms_handover *out);
/* Drop the particles handed over: compact the arrays, the conduction
 * pairs and the clusters (re-weighed and re-centred on the members that
 * stay; dropped below 4 members or when degenerate); a body whose
 * particles no longer hang together (face neighbours of its lattice)
 * becomes one body per piece, each with its part of every cluster;
 * then the bodies' ranges and masses.  *pieces (may be NULL): the bodies
 * added.  MS_ENOMEM. */
int sm_melt_release(struct state *s, const struct ms_handover *given,
                    uint32_t *pieces);

/* ---- pieces.c: a melting body that comes apart ------------------------ */
/* After a melt's compaction (bodies' ranges current, clusters not yet
 * pruned): each body that lost particles (lost[b]) and no longer hangs
 * together by face neighbours of its sampled lattice becomes one body per
 * piece, in a canonical order (pieces.c); empty bodies go.  *added: the
 * bodies the split added.  MS_ENOMEM or a neighbors() status. */
int sm_split_pieces(struct state *s, const uint8_t *lost, uint32_t *added);

/* ---- walls.c: a body meets the walls as a body ------------------------- */
/* Before a substep h's prediction: the impulses of body-level wall
 * contacts (speculative, restitution, Coulomb friction) onto the free
 * particles' velocities.  scratch holds cap contacts of one body. */
void sm_wall_contacts(struct state *s, double h, void *scratch, uint32_t cap);
#define SM_CONTACT_SIZE 80 /* bytes per contact in sm_wall_contacts' scratch */

/* ---- couple.c: collective response (ABI 1.1) -------------------------- */
/* Per meta-particle: its host (the body of its first dynamic member) and
 * the inertia alpha (the host's free mass) (member mass there) / (member
 * mass in all the host's meta-particles), isotropic, into inertia (6 per
 * meta-particle).  MS_ENOMEM when the tables cannot grow. */
int sm_meta_inertia(struct state *s, const struct ms_metas *mt,
                    double *inertia);
/* LEAD: each meta-particle and its share of the host take G together
 * (ms_meta_lead_lump); FOLLOW: the share takes K.  Either way the share's
 * impulse goes to the host's free particles as a rigid body's would, at
 * the meta-particle's centre. */
int sm_meta_response(struct state *s, const struct ms_step *st,
                     const struct ms_metas *mt,
                     const struct ms_meta_response *r);
/* The energy stored in the bodies' deformation: the potential whose
 * force gives a substep h's corrections, sum w alpha |g - x|^2 / (2 h^2)
 * over every cluster, goals from the particles as they are.  0 before
 * the first step. */
double sm_internal_energy(struct state *s);
/* Room for K meta-particles in the per-meta tables; MS_ENOMEM. */
int sm_meta_room(struct state *s, uint32_t K);

#endif
