/* virtual_material — a material held together by implicit connectivity
 * (Wicke, Hatt, Pauly, Mueller and Gross 2007, sects. 3-4): the plugin's
 * one internal header.
 *
 * No connectivity and no rest state are stored.  Each step, around every
 * particle i, the neighbours j of the same body within the support h are
 * assigned to points l_ij of a lattice of spacing D, through the
 * transform A_i of the last step (l_ij: the lattice point nearest to
 * A_i^-1 r_ij, r_ij = x_j - x_i; two neighbours on one point: the nearer
 * keeps it).  The linear transform that best maps the points onto the
 * neighbours, A_i = (sum w r l^T)(sum w l l^T)^-1, gives through its
 * polar decomposition the rotation R_i, and with it the rest position of
 * each neighbour, R_i l_ij.  The force F_ij = w(|l|) k (R_i l_ij - r_ij)
 * pulls j toward it: +F/2 on j, -F/2 on i (momentum), and the torque the
 * pair of halves leaves, tau_i = 1/2 sum r_ij x F_ij, is taken back by
 * turning the neighbourhood as a rigid body (F = m_j w x d_j with
 * I w = -tau_i): angular momentum is kept too.  Damping removes a share
 * of each neighbourhood's non-rigid velocity (its velocity less the
 * neighbourhood's rigid fit), a share the paper's bound eta <= m / dt
 * keeps at most 1, so rigid motion is never damped.
 *
 * The lattice here is the sampling's, simple cubic of spacing D (the
 * paper uses a cubic closest packing); keys in config.c; the lattice's
 * math, free of the host, in lattice.c; the step in plugin.c. */
#ifndef MS_PLUGINS_VIRTUAL_MATERIAL_H
#define MS_PLUGINS_VIRTUAL_MATERIAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include <mergesplit/plugin.h>

/* Fracture (Wicke et al. sect. 4.2): each particle keeps a docking rate
 * per point of its lattice; a neighbour the assignment brings to a point
 * docks there in a step with probability 1 - exp(-lambda dt) (once
 * docked it stays, while the assignment keeps it there), and not at
 * all when its spring is extended beyond the strain eps_c (the stress
 * criterion: tension along the spring, (r - R l) . R l > eps_c |l|^2).  A point docked in a step gains, one left empty loses
 * lambda_0 dt / tau of its rate (bounded to [0, lambda_0]): a point empty
 * for tau is lost for good, and what docked there does not dock again —
 * the pieces of a crack do not rejoin.  Rates are kept as lambda /
 * lambda_0, one float per point of the cube |a|, |b|, |c| <= K (K the
 * largest whole number of spacings below the support). */
struct vm_dock {
  float *rate;       /* the centre's (2K+1)^3 rates / lambda_0 */
  uint32_t *who;     /* per point, the neighbour docked there in the last
                        step (UINT32_MAX: none); it stays docked without a
                        draw — the Poisson process is the docking of a
                        particle that comes to the point */
  int K;             /* the cube |i|, |j|, |k| <= K in units vm_unit */
  double p_dt;       /* lambda_0 dt (INFINITY: a point with a rate docks) */
  double change;     /* dt / tau: the step's change of a rate */
  double strain;     /* eps_c (INFINITY: no stress criterion) */
  uint64_t key;      /* the random stream of this hood in this step */
  int step;          /* 1: draw and update the rates; 0 (an energy):
                        dock wherever the rate is above 0 */
};

/* A uniform number in [0, 1) from a 64-bit key (splitmix64's finish):
 * counter-based, so the same on any thread count and after a resume. */
static inline double vm_uniform(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

/* The lattice: simple cubic of spacing D, or the paper's cubic closest
 * packing (face-centred cubic) of nearest-neighbour distance D — the
 * points u (i, j, k) with i + j + k even, u = D / sqrt 2.  The unit u
 * of a lattice's integer coordinates; whether (i, j, k) is a point; the
 * point nearest to y (into l, 3; never -0: equal points compare equal
 * bit for bit). */
#define VM_SQRT1_2 0.70710678118654752440
double vm_unit(double D, int ccp);
int vm_is_point(int i, int j, int k, int ccp);
void vm_nearest(const double *y, double D, int ccp, double *l);
/* The volume per particle: D^3, or D^3 / sqrt 2 for the packing. */
double vm_volume(double D, int ccp);

/* One neighbourhood's inputs, host-free (lattice.c). */
struct vm_hood {
  uint32_t i;             /* the centre particle */
  uint32_t count;         /* its neighbours (same body, within h) */
  const uint32_t *nb;     /* their indices */
  double D, h, k;         /* lattice spacing, support, stiffness [N/m] */
  const uint8_t *solid;   /* per particle: in the lattice (NULL: all) */
  const struct vm_dock *dock; /* the centre's docking (NULL: no fracture) */
  int ccp;                /* the lattice: 0 simple cubic, 1 the packing */
};

/* Per neighbour slot of a neighbourhood: the lattice point (3), and the
 * force on the neighbour from this neighbourhood (3). */
struct vm_slot {
  double l[3], f[3];
  int used; /* 0: out of the hood; 1: docked at its lattice point (in the
               fit, pulled); 2: in the fit only (fracture refused its
               docking this step) */
};

/* The smooth weight of the support h: (1 - (r / h)^2)^3 within h. */
double vm_weight(double r, double h);

/* Assign the neighbours of hood H to lattice points through A (the
 * centre's transform of the last step), fit the transform anew into A,
 * and write each neighbour's force into slot[q].f and the centre's own
 * into fi (3), torque corrected (above).  x: positions (3 per particle),
 * m: masses.  Returns the hood's elastic energy, sum k w |R l - r|^2 / 4;
 * leaves the forces zero and A as it was when the points cannot fix a
 * transform (fewer than three, or all in a plane). */
double vm_hood_forces(const struct vm_hood *H, const double *x,
                      const double *m, double *A, struct vm_slot *slot,
                      double *fi);

/* The velocity changes (into slot[q].f as dv, and dvi for the centre)
 * that remove the share `share` of the hood's non-rigid velocity: mass-
 * weighted, so the hood's momentum and angular momentum are unchanged. */
void vm_hood_damping(const struct vm_hood *H, const double *x,
                     const double *v, const double *m, double share,
                     struct vm_slot *slot, double *dvi);

/* ---- the plugin's state ----------------------------------------------- */

struct vm_body {
  size_t first, count;
  double D, k, eta; /* lattice spacing, stiffness [N/m], damping [kg/s] */
  double rho0, c, xsph; /* fluid: rest density of the lattice, speed of
                           sound (0: no pressure), XSPH share */
  double melt_T, melt_rate; /* melting point [K] (INFINITY: never), the
                               rate per kelvin above it [1/(s K)] */
  double freeze_T, freeze_rate, freeze_n, freeze_v; /* Eq. 16: T_f
                               (-INFINITY: never), lambda_f0, n_0, v_max */
  double freeze_F;          /* Eq. 16's F_max [N] (INFINITY: none) */
  double dock_rate, dock_tau, dock_strain; /* fracture: lambda_0 [1/s],
                               tau [s], eps_c (INFINITY: none); off when
                               both lambda_0 and eps_c are infinite */
  double conductivity;      /* lambda [W/(m K)], 0: none */
  double conduct_G;         /* 2 V / c: a pair's conductance per lambda
                               and weight (config.c, once) */
  double hold_v[3], hold_until; /* the clamp's velocity [m/s], and when
                               it lets go [s] (INFINITY: never) */
  uint32_t object;          /* its lattice object */
  const char *object_name;  /* the scene's `object`, or NULL */
};

struct state {
  const struct ms_host *host;
  ms_ctx *ctx;
  size_t n;
  double *x, *v, *m, *r, *T, *c; /* view */
  double *x0, *v0, *A0;          /* at begin_step, for rewind */
  double *A;                     /* 9 per particle: last step's transform */
  double *f, *dv;                /* 3 per particle: forces, damping's
                                    velocity changes (gathered) */
  double *own, *work;            /* 3 per particle: a hood's share for its
                                    centre; 1 per particle: its energy */
  uint32_t *body_of, *object_of;
  uint8_t *in_hold;              /* in its body's hold box as sampled */
  uint8_t *held;                 /* held this step: moved by its clamp */
  uint8_t *solid;                /* in the lattice (else fluid) */
  double *rho, *p;               /* fluid: density, pressure */
  double *dvx;                   /* 3 per particle: XSPH's change */
  uint64_t steps, seed;          /* melting's random draws */
  float *dock, *dock0;           /* fracture: per particle (2K+1)^3 rates
                                    (struct vm_dock), NULL without */
  uint32_t *who, *who0;          /* and who is docked at each point */
  int dock_K;
  uint32_t *piece;               /* per particle: the least index of the
                                    solid particles the lattice holds
                                    together with it (UINT32_MAX: fluid) */
  uint32_t *piece0, pieces, pieces0; /* at begin_step, for rewind; how
                                    many pieces after the last step */
  uint32_t pieces_most;          /* the most there were at a step's end */
  int32_t *meta;
  struct vm_body *body;
  uint32_t nbody;
  double support;                /* h / D */
  int ccp;                       /* the lattice (struct vm_hood) */
  double restitution, friction;  /* at the domain walls */
  double gravity[3], lo[3], hi[3];
  /* the step's neighbourhoods: rows of the host's lists, same body only,
   * sorted; per entry a slot */
  uint32_t *off, *idx;
  struct vm_slot *slot;
  size_t cap_idx;
  double elastic;                /* energy of the last fit [J] */
  int energy_limit;              /* the key: hold a step alone to its
                                    starting energy */
  int alone;                     /* this step: no meta-particle, no
                                    external force, no clamp moving */
  double e_start;                /* the energy the step began with [J] */
  int ahead;                     /* the limit's end pass is kept: */
  double *x_ahead, *m_ahead;     /* the positions and masses it saw, */
  uint8_t *solid_ahead;          /* the phases, */
  double *A_ahead;               /* 9 per particle: the transforms it fit */
  double *acc;                   /* 4 per body: the give-back's scratch */
  struct ms_field fields[8];
};

/* Whether body B fractures (docking_rate or fracture_strain given). */
static inline int vm_fractures(const struct vm_body *B) {
  return B->dock_rate < INFINITY || B->dock_strain < INFINITY;
}

/* c = sum over the lattice points l within the support h of w(|l|)
 * l_x^2 [m^2], for spacing D: a neighbourhood's second moment (the
 * modulus E = k c / (2 D^3), the conductance lambda 2 D^3 w / c). */
double vm_lattice_moment(double D, double h, int ccp);

/* config.c: the system's keys, its bodies and particles. */
int vm_configure(struct state *s, const ms_config *sec);

/* ---- fluid.c: the particle fluid under the lattice ------------------- */
/* Density of an interior particle of a perfect lattice (mass m, spacing
 * D, kernel radius R): the rest density, so a lattice at rest feels no
 * pressure. */
double vm_rest_density(double m, double D, double R, int ccp);
/* The Tait pressure (gamma 7, B = rho0 c^2 / 7) clipped at 0, and its
 * energy per mass (int p / rho^2 d rho from rho0). */
double vm_pressure(const struct vm_body *B, double rho);
double vm_fluid_energy(const struct vm_body *B, double rho);
/* rho and p of every particle over its row. */
void vm_fluid_density(struct state *s);
/* Add the symmetric pressure force to s->f. */
void vm_fluid_forces(struct state *s);
/* XSPH's velocity change of every fluid particle into dv (3 per
 * particle), among fluid neighbours. */
void vm_fluid_xsph(struct state *s, double *dv);

#endif
