/* peridynamics — internals shared by the plugin, its tests and benchmark.
 *
 * Bond-based peridynamics (Silling & Askari 2005) as used for brittle
 * fracture in graphics (Levine et al., SCA 2014): particles on a lattice,
 * each bonded at creation to every particle within the horizon delta.  A
 * bond of reference length L = |X_j - X_i| and current length l carries the
 * stretch s = (l - L) / L and the force c s V_i V_j along the bond (c the
 * micromodulus, V the particle volume), plus a dashpot along the bond.  A
 * bond breaks for good once s exceeds the critical stretch of either end,
 * s0 = s00 - alpha min(0, s_min), s_min the stretch of that particle's most
 * compressed bond.
 *
 * A model knows nothing of the host, so the benchmark can build and step it
 * directly.  Internal symbols carry the prefix pd_. */
#ifndef MS_PLUGINS_PERIDYNAMICS_H
#define MS_PLUGINS_PERIDYNAMICS_H

#include <stddef.h>
#include <stdint.h>

#include <mergesplit/plugin.h>

#include "../common/implicit.h"

/* ---- material formulas (material.c) ----------------------------------- */

/* Bulk modulus from Young's modulus and Poisson's ratio: E / (3 (1 - 2 nu)).
 * Bond-based peridynamics has nu = 1/4, so K = 2 E / 3. */
double pd_bulk_modulus(double young, double poisson);
/* Micromodulus c = 18 K / (pi delta^4) [N/m^6]. */
double pd_micromodulus(double bulk, double horizon);
/* Critical stretch s00 = sqrt(5 G0 / (9 K delta)) (G0: fracture energy
 * [J/m^2]). */
double pd_critical_stretch(double fracture_energy, double bulk,
                           double horizon);

struct pd_material {
  double bulk;       /* K [Pa] */
  double horizon;    /* delta [m] */
  double micro;      /* c [N/m^6] */
  double s00;        /* critical stretch at no compression */
  double alpha;      /* compressive adjustment of the threshold */
  double damping;    /* bond dashpot = damping * bond stiffness [s] */
  double volume;     /* particle volume V [m^3] */
  int breakable;     /* 0: bonds never break */
};

/* ---- the model -------------------------------------------------------- */

/* Bonds, structure of arrays; pair[2b] < pair[2b+1].  A broken bond stays
 * in the arrays (force zero) until pd_compact() drops it at the end of a
 * step. */
struct pd_bonds {
  size_t count, cap;
  uint32_t *pair;
  double *rest;      /* reference length L */
  uint8_t *broken;
};

struct pd_model {
  size_t n;
  double *x, *v, *m, *r;   /* particles; x, v: 3 each */
  double *damage;          /* broken fraction of the initial bonds */
  uint32_t *nbonds;        /* intact bonds of each particle */
  uint32_t *nbonds0;       /* bonds at creation */
  uint8_t *pinned;         /* kinematic: moves with pin_v */
  double *pin_v;           /* 3 per particle: prescribed velocity */
  struct pd_bonds bonds;
  uint64_t serial;         /* bumped whenever the bond arrays change */
  /* Sorted bond neighbours of each particle: adj[adj_off[i] ..) ascending,
   * adj_bond the bond joining them. */
  uint32_t *adj_off, *adj, *adj_bond;
  size_t cap_adj;
  struct pd_material mat;
  double gravity[3], lo[3], hi[3];
  double restitution, friction; /* domain walls */
  struct msi_options opt;
  int newton_iterations;   /* at most this many per step (>= 1) */
  double newton_tolerance; /* stop when |dV| <= tolerance |V| */
};

/* Work space of one step (reused, grown as needed) and the state rewind
 * restores. */
struct pd_work {
  struct msi_nodes nodes;
  struct msi_solver *solver;
  double *xw, *vw;         /* 3 per particle: law evaluation state */
  double *fp;              /* 3 per particle: bond forces (residual) */
  double *smin;            /* per particle: most compressed stretch */
  double *F, *Fk, *d, *dV, *U, *V; /* per node */
  int iterations;          /* Newton iterations of the last step */
  int unconverged;         /* the last step stopped at the limit */
  uint8_t *hit;            /* per node: a wall acted */
  uint32_t *chunk;         /* per bond chunk: bonds broken in it */
  uint32_t *fresh;         /* bonds broken in the current step */
  size_t nfresh, cap_fresh;
  double *mv;              /* 3 per meta-particle: velocity when fixed */
  size_t cap_n, cap_nn, cap_chunk, cap_meta, cap_smin;
  double *x0, *v0;         /* start of step */
  size_t cap_x0;
  double t_fracture;       /* seconds in the fracture pass (cumulative) */
  char error[400];
};

/* model.c */
int pd_model_alloc(struct pd_model *M, size_t n);
void pd_model_free(struct pd_model *M);
/* One bond per pair of the neighbour lists (compressed rows; a pair may be
 * listed from both sides or from either), reference length = the current
 * distance; resets the initial bond counts and the damage. */
int pd_bonds_build(struct pd_model *M, const uint32_t *offset,
                   const uint32_t *index);
/* Adjacency from the bond arrays; recounts intact bonds and damage. */
int pd_adjacency_build(struct pd_model *M);
/* Drop broken bonds from the arrays (and the adjacency); serial++. */
int pd_compact(struct pd_model *M);
/* keep[k] = 0 for each pair joined by an intact bond. */
void pd_filter_pairs(const struct pd_model *M, const uint32_t *pairs,
                     size_t count, uint8_t *keep, int threads);
/* Number of pieces: connected components over intact bonds; if `label` is
 * not NULL it receives each particle's piece (0, 1, ... by smallest
 * member).  Allocates scratch; returns 0 on allocation failure. */
size_t pd_pieces(const struct pd_model *M, uint32_t *label);
/* Elastic energy of the intact bonds: sum 1/2 c V^2 L s^2. */
double pd_elastic_energy(const struct pd_model *M, int threads);
/* Bonds broken in total (initial minus intact, over both ends / 2). */
size_t pd_broken_count(const struct pd_model *M);

/* law.c: the bond force law (struct msi_law's eval; ctx = the model), and
 * the force of one bond on its first particle. */
void pd_bond_force(const struct pd_model *M, size_t b, const double *x,
                   const double *v, double *f);
void pd_bond_eval(void *model, size_t t0, size_t t1, const double *x,
                  const double *v, double *f, double *K, double *D);

/* fracture.c */
/* Break every bond stretched past its threshold at the positions M->x;
 * remembers them in W->fresh for pd_unbreak; *broke: how many broke. */
int pd_fracture(struct pd_model *M, struct pd_work *W, int threads,
                size_t *broke);
/* Undo the breaks of the current step (rewind). */
void pd_unbreak(struct pd_model *M, struct pd_work *W);

/* step.c */
void pd_work_init(struct pd_work *W);
void pd_work_free(struct pd_work *W);
/* Remember the state the step may change. */
int pd_begin(struct pd_model *M, struct pd_work *W);
/* Restore it bitwise. */
void pd_rewind(struct pd_model *M, struct pd_work *W);
/* End of step: pinned particles back on their prescribed path (x at the
 * step's start + h pin_v, v = pin_v). */
void pd_hold_pins(struct pd_model *M, const struct pd_work *W, double h);
/* Advance by dt with the meta-particles (may be NULL), then break bonds
 * (*broke: how many).  fext: NULL or 3 per particle.  On failure W->error
 * says why. */
int pd_step(struct pd_model *M, struct pd_work *W, double dt,
            const double *fext, const struct ms_metas *metas,
            struct ms_meta_result *res, size_t *broke);
/* Monotonic clock [s]. */
double pd_now(void);

/* config.c (the module only: it reads the scene through the host).
 * Reads the section, samples the shape, bonds and pins the particles. */
int pd_config_read(const struct ms_host *host, ms_ctx *ctx,
                   const ms_config *sec, struct pd_model *M);

#endif
