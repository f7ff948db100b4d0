/* mass_spring — internals shared by the plugin, its tests and benchmark.
 *
 * A model is a set of particles joined by linear springs with dashpots
 * (cloth sheets or soft bodies); it knows nothing of the host, so the
 * benchmark can build and step it directly.  Internal symbols carry the
 * prefix mss_. */
#ifndef MS_PLUGINS_MASS_SPRING_H
#define MS_PLUGINS_MASS_SPRING_H

#include <stddef.h>
#include <stdint.h>

#include <mergesplit/plugin.h>

#include "../common/implicit.h"

/* Loops shorter than this run on one thread: forking would cost more. */
#define MSS_PAR_MIN 2048

enum mss_integrator {
  MSS_BACKWARD_EULER = 0, /* default: one linearised Newton step */
  MSS_FORWARD_EULER,
  MSS_SYMPLECTIC_EULER,
  MSS_MIDPOINT, /* explicit midpoint, RK2 */
  MSS_RK4,
  MSS_TRAPEZOIDAL, /* half forward, half backward Euler; linearised */
  MSS_INTEGRATOR_COUNT
};

/* Scene names of the integrators, indexed by enum mss_integrator. */
extern const char *const mss_integrator_names[MSS_INTEGRATOR_COUNT];

static inline int mss_is_implicit(int integrator) {
  return integrator == MSS_BACKWARD_EULER || integrator == MSS_TRAPEZOIDAL;
}

/* Springs: force on the first particle k (l - L) u + c ((v_j - v_i).u) u,
 * u = (x_j - x_i) / l. */
struct mss_springs {
  size_t count, cap;
  uint32_t *pair; /* 2 per spring, first < second */
  double *rest, *k, *c;
  /* Stiffening (springs.c): beyond (1 + stiff_onset) rest a spring's
   * stiffness is stiff_factor k; factor 1: off (the default). */
  double stiff_onset, stiff_factor;
};

struct mss_model {
  size_t n;
  double *x, *v, *m, *r; /* particles; x, v: 3 each */
  double *stretch;       /* max strain (l - L) / L of the particle's springs */
  double *normal;        /* cloth: unit surface normal, 3 per particle */
  uint8_t *edge;         /* cloth: 1 on the grid's border */
  uint8_t *pinned;
  struct mss_springs springs;
  uint64_t serial;       /* bumped when the spring list changes */
  /* Sorted spring neighbours of each particle (filter, stretch). */
  uint32_t *adj_off, *adj, *adj_spring;
  uint32_t nu, nv;       /* cloth resolution; 0 for a soft body */
  double gravity[3], lo[3], hi[3];
  double mass_damping;   /* [1/s] */
  double restitution, friction; /* domain walls */
  int integrator;        /* enum mss_integrator */
  struct msi_options opt;
  double max_dt;         /* stable step of the explicit scheme, or INF */
  /* Strain limit (strain.c): no spring longer than (1 + strain_limit)
   * rest, no particle farther from its pin than (1 + strain_limit) times
   * their rest distance; 0: off (the default). */
  double strain_limit;
  int strain_passes;     /* Gauss-Seidel passes at most per step */
  uint32_t *attach;      /* nearest pin of each particle, or UINT32_MAX */
  double *attach_rest;   /* its rest distance (0 for a pinned one) */
};

/* Work space of one step (reused, grown as needed). */
struct mss_work {
  struct msi_nodes nodes;
  struct msi_topo topo; /* explicit schemes */
  struct msi_solver *solver;
  double *xw, *vw;      /* 3 per particle: positions, velocities of a stage */
  double *f;            /* 3 per spring */
  double *F, *d, *dV, *U, *V, *A, *Us, *Vs, *Ua, *Va; /* per node */
  uint8_t *hit;         /* per node: a wall acted */
  size_t limited;       /* lengths the strain limit corrected this step */
  size_t cap_n, cap_nn, cap_s;
  char error[400];
};

/* model.c */
int mss_model_alloc(struct mss_model *M, size_t n);
void mss_model_free(struct mss_model *M);
int mss_spring_add(struct mss_springs *S, uint32_t i, uint32_t j, double k,
                   double c, double rest);
/* After the springs are added: adjacency, stretch, stable step. */
int mss_model_finish(struct mss_model *M);
void mss_update_stretch(struct mss_model *M, int threads);
void mss_filter_pairs(const struct mss_model *M, const uint32_t *pairs,
                      size_t count, uint8_t *keep, int threads);
/* Largest stable step of the model's explicit integrator (INF for the
 * implicit ones), from a Gershgorin bound of the stiffest mode. */
double mss_stable_dt(const struct mss_model *M);

/* cloth.c: a nu x nv sheet, particle (a, b) = corner + a/(nu-1) edge_u +
 * b/(nv-1) edge_v at index b nu + a; structural, shear and bending
 * springs (rest lengths: the initial distances). */
int mss_cloth_build(struct mss_model *M, const double corner[3],
                    const double eu[3], const double ev[3], uint32_t nu,
                    uint32_t nv, double k_struct, double k_shear,
                    double k_bend, double damping);
/* Unit normals of a cloth (nu > 0) from its grid: edge_u x edge_v
 * oriented, central differences inside, one-sided at the borders. */
void mss_cloth_normals(struct mss_model *M);
/* Pin a corner (ua, vb in {0, 1}) or an edge (axis 0: u = side, 1: v =
 * side).  Returns the number of particles pinned. */
size_t mss_cloth_pin_corner(struct mss_model *M, int u1, int v1);
size_t mss_cloth_pin_edge(struct mss_model *M, int axis, int side);
/* Pin every particle inside the box; returns how many it holds. */
size_t mss_pin_box(struct mss_model *M, const double lo[3],
                   const double hi[3]);

/* strain.c: tie each free particle to its nearest pin (at rest); none
 * when nothing is pinned or the limit is off.  Call once the particles
 * are at rest and pinned. */
int mss_attach_pins(struct mss_model *M);
/* Shorten what the step W (U, V per node) stretched beyond the limit;
 * returns the number of corrections. */
size_t mss_limit_strain(struct mss_model *M, struct mss_work *W);
/* The same on the particles as the core left them after the split (a
 * meta-particle's members, placed by the synchronisation, included). */
size_t mss_limit_strain_after_split(struct mss_model *M, struct mss_work *W);

/* softbody.c: a spring for each neighbour pair (i < j) of the lists. */
int mss_soft_springs(struct mss_model *M, const uint32_t *offset,
                     const uint32_t *index, double k, double damping);

/* springs.c: spring t's elastic energy at positions x (stiffening
 * included). */
double mss_spring_energy(const struct mss_springs *S, size_t t,
                         const double *x);
/* springs.c: the spring force law (struct msi_law's eval). */
void mss_spring_eval(void *springs, size_t t0, size_t t1, const double *x,
                     const double *v, double *f, double *K, double *D);

/* integrate.c */
void mss_work_init(struct mss_work *W);
void mss_work_free(struct mss_work *W);
/* Advance the model by dt with the given meta-particles (may be NULL);
 * fext: NULL or 3 per particle.  On failure W->error says why. */
int mss_step(struct mss_model *M, struct mss_work *W, double dt,
             const double *fext, const struct ms_metas *metas,
             struct ms_meta_result *res);

/* config.c: reading a system from its scene section. */
struct mss_reader {
  const struct ms_host *host;
  ms_ctx *ctx;
  const ms_config *sec;
};

/* Read every key of the section, build the particles, springs and pins
 * into M (zeroed by the caller).  Bad values are refused through
 * host->cfg_error (file:line and key); M is then released by the caller
 * with mss_model_free. */
int mss_config_read(struct mss_reader *R, struct mss_model *M);

#endif
