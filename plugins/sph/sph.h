/* The weakly compressible SPH solver (Becker & Teschner 2007 style):
 * fluid state and the passes of one step.  Independent of the host: the
 * plugin glue (plugin.c) reads the scene and supplies the neighbour
 * search; benchmarks drive these functions directly.
 *
 * One step (integrate):
 *   neighbours   fixed-radius lists (support R = 2h) at the positions of
 *                the step start
 *   density      rho_i = m (W(0) + sum_j W_ij + sum_b W_ib), b: the wall's
 *                virtual particles (boundary.c)
 *                p_i = B ((rho_i / rho0)^gamma - 1), clamped at 0
 *   forces       pressure (symmetric form) + artificial viscosity
 *                (Monaghan); walls and obstacles with mirrored pressure
 *   integrate    symplectic Euler; meta-particles move as one particle;
 *                optional XSPH; hard wall / obstacle guard as a last resort
 *
 * The one internal header of the plugin: the kernels (kernel.c), the
 * solver (solver.c and the passes) and the glue (plugin.c, config.c).
 */
#ifndef SPH_H
#define SPH_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <mergesplit/plugin.h>

/* ---- kernels (kernel.c) ------------------------------------------------ */

/* SPH smoothing kernels: cubic spline (Monaghan), poly6 and spiky (Mueller
 * et al. 2003).  All share one convention: smoothing length h, support
 * radius R = 2h; every kernel and its gradient vanish for r >= R.
 *
 * Hot loops call the inline functions below with a constant `kind`, so the
 * compiler keeps one specialised loop per kernel. */

#define SPH_PI 3.14159265358979323846

enum sph_kernel_kind {
  SPH_CUBIC_SPLINE = 0,
  SPH_POLY6 = 1,
  SPH_SPIKY = 2,
  SPH_KERNEL_COUNT
};

struct sph_kernel {
  int kind;
  double h, R, R2;  /* smoothing length, support radius, R^2 */
  double inv_h;
  double norm;      /* normalisation constant of W */
  double w0;        /* W(0) */
};

/* Set up kernel `kind` for smoothing length h > 0. */
void sph_kernel_init(struct sph_kernel *k, int kind, double h);
/* "cubic_spline", "poly6", "spiky" <-> kind; -1 for an unknown name. */
int sph_kernel_from_name(const char *name);
const char *sph_kernel_name(int kind);

/* max(a, 0), exactly, without a branch (compilers turn a ?: into one). */
static inline double sph_pos(double a) { return 0.5 * (a + fabs(a)); }

/* W(r) = scale * raw(r^2) for r^2 < R^2: the pair loops sum raw values
 * and scale once.  Only neighbours inside the support are ever passed
 * (sph_kernel_w() below checks the support itself). */
static inline double sph_w_raw(const struct sph_kernel *k, int kind,
                               double r2) {
  if (kind == SPH_POLY6) {
    double d = k->R2 - r2;
    return d * d * d;
  }
  double r = sqrt(r2);
  if (kind == SPH_SPIKY) {
    double d = k->R - r;
    return d * d * d;
  }
  /* M4 spline: (2-q)^3 - 4 (1-q)^3, the second term cut at 0 without a
   * branch to mispredict (its outcome is a coin toss) */
  double q = r * k->inv_h, a = 2.0 - q, t = sph_pos(1.0 - q);
  return a * a * a - 4.0 * (t * t * t);
}

static inline double sph_w_scale(const struct sph_kernel *k, int kind) {
  return kind == SPH_CUBIC_SPLINE ? 0.25 * k->norm : k->norm;
}

static inline double sph_w_in(const struct sph_kernel *k, int kind,
                              double r2) {
  return sph_w_scale(k, kind) * sph_w_raw(k, kind, r2);
}

/* The gradient is grad W(x) = F(|x|) x; this returns F(r) = W'(r) / r for
 * r^2 < R^2, and 0 at r = 0 (where x = 0 too). */
static inline double sph_f_in(const struct sph_kernel *k, int kind,
                              double r2) {
  if (kind == SPH_POLY6) {
    double d = k->R2 - r2;
    return -6.0 * k->norm * d * d;
  }
  double r = sqrt(r2), g;
  if (kind == SPH_SPIKY) {
    double d = k->R - r;
    g = -3.0 * k->norm * d * d;
  } else {
    double q = r * k->inv_h, a = 2.0 - q, t = sph_pos(1.0 - q);
    g = k->norm * (3.0 * t * t - 0.75 * a * a) * k->inv_h;
  }
  return r > 0.0 ? g / r : 0.0; /* a select: vectorises */
}

/* Checked versions for any r >= 0. */
double sph_kernel_w(const struct sph_kernel *k, double r);
void sph_kernel_grad(const struct sph_kernel *k, const double x[3],
                     double out[3]);

/* ---- the solver ---------------------------------------------------------- */

/* Doubles per stored position (x, y, z, pad): one aligned 32-byte slot. */
#define SPH_XS 4

struct sph_box {
  double lo[3], hi[3];
};

struct sph_params {
  double spacing;    /* sampling lattice spacing [m] */
  double h;          /* smoothing length [m]; support 2h */
  double rho0;       /* rest density [kg/m^3] */
  double mass;       /* particle mass [kg]; 0: rest density on the
                        sampling lattice (sph_init_constants) */
  double radius;     /* collision radius for the core [m] */
  double c;          /* speed of sound [m/s] */
  double B;          /* stiffness rho0 c^2 / gamma [Pa] */
  double gamma;      /* Tait exponent */
  double alpha;      /* artificial viscosity */
  double xsph;       /* XSPH factor (0: off) */
  double cfl;        /* lambda of the CFL and viscosity step limits */
  double force_cfl;  /* lambda of the force step limit */
  int kernel;        /* density kernel (enum sph_kernel_kind) */
  int grad_kernel;   /* gradient kernel */
  int clamp_pressure;/* negative pressure -> 0 */
  int others_as_boundary; /* other systems' particles count in the
                        density (boundary.c, sph_others_density) */
  int energy_limit;  /* a step without meta-particles or external forces
                        ends with at most the energy it began with
                        (energy.c) */
  int energy_limit_metas; /* ... and so does one with meta-particles
                             (with energy_limit; energy.c) */
  int sort_every;    /* spatial reordering period [steps], 0: never
                        (renumbers the particles: `id` keeps identity) */
  double skin;       /* neighbour lists reach R (1 + skin), rebuilt only
                        when a particle has moved skin R / 2 */
  double gravity_ramp; /* gravity grows smoothly from 0 over this [s] */
  double specific_heat; /* [J/(kg K)] */
  double conductivity;  /* [W/(m K)]; 0: no conduction (heat.c) */
  double gravity[3];
  double lo[3], hi[3]; /* domain walls (infinite: no wall) */
};

enum sph_timer {
  SPH_T_NEIGHBORS,
  SPH_T_DENSITY,
  SPH_T_FORCES,
  SPH_T_INTEGRATE,
  SPH_T_SORT,
  SPH_T_COUNT
};

/* Instruction sets of the density pass's kernel sums (wsum.c); all give
 * the same sums bitwise. */
enum sph_isa { SPH_ISA_C, SPH_ISA_SSE2, SPH_ISA_AVX, SPH_ISA_COUNT };

/* The neighbour search: the host's neighbors() or a stand-in with the same
 * contract (host.h). */
typedef int (*sph_neighbors_fn)(void *opaque, const double *xyz,
                                size_t stride, size_t count, double radius,
                                struct ms_neighbors *nb);

/* others.c's grid over the other systems' particles. */
struct sph_others {
  double lo[3], inv;    /* corner, 1 / cell size */
  size_t d[3];          /* cells per axis */
  uint32_t *start;      /* cells + 1: the others of cell k are */
  uint32_t *order;      /* order[start[k] .. start[k + 1]) */
  uint32_t *cell;       /* each other's cell (scratch) */
  size_t cap_cells, cap_m, cap_cell;
};

/* The end of a stage on the fluid alone (no meta-particle, no external
 * force), kept by rewind: a stage integrated again with the same inputs
 * ends there, bitwise, so integrate puts it back instead (solver.c). */
struct sph_replay {
  double *x, *v, *T;    /* SPH_XS n, 3n, n */
  double amax, t, dt;
  uint64_t clamps;
  size_t cap;
  int ok;               /* holds this step's end */
  int fresh;            /* ... with lists and density at it */
  uint64_t lists;       /* ... made by list build number lists */
};

/* The accelerations the step's last integration computed and the
 * velocities it computed them at (forces.c).  At the step's start
 * positions, lists and density are the same in every stage, so a force
 * changes only where a velocity did: integrated again after a rewind,
 * only particles whose velocity or a neighbour's differs are computed,
 * the others take what they had, bitwise what computing them gives. */
struct sph_kept_forces {
  double *a, *v;        /* 3n each */
  uint8_t *changed, *redo; /* n each: the velocity differs; computed */
  size_t cap;
  double t, dt;
  uint64_t lists;       /* the list build they were computed on */
  int ok;               /* holds this step's */
  uint64_t kept;        /* particles that took their force, cumulative */
};

struct sph_solver {
  struct sph_params P;
  struct sph_kernel kw, kg; /* density and gradient kernels */
  size_t n;                 /* fluid particles */
  double *x;                /* SPH_XS per particle */
  double *v, *a;            /* 3n */
  double *m, *r;            /* n: uniform mass and radius (for the view) */
  double *rho, *p, *pr;     /* n: density, pressure, p / rho^2 */
  double *rho_others;       /* n or NULL: what other systems' particles
                               add to the density this step */
  struct sph_others others; /* ... found through this grid */
  uint8_t *walled;          /* n: a wall or obstacle is within reach */
  double *x0, *v0;          /* 3n: state at the start of the step */
  uint32_t *id;             /* n: particle identity (sampling order) */
  double *T, *c;            /* n: temperature [K], specific heat */
  double *T0, *dT;          /* n: T at begin (rewind); the pass's rates */
  int32_t *meta;            /* n: meta-particle of a particle, or -1 */
  struct sph_box *box;      /* obstacles */
  size_t nbox;
  double margin;            /* hard guard distance from walls/obstacles */
  double *wtab, wtab_inv;   /* one wall's lattice sums by distance */
  struct ms_neighbors nbl;  /* the search's lists (radius R (1 + skin)) */
  const uint32_t *loff, *lend, *lidx; /* neighbours closer than R: i's are
                                         lidx[loff[i] .. lend[i]) */
  uint32_t *cstart, *cend, *cidx; /* storage of the above (skin > 0) */
  size_t ccap;
  struct sph_aside {        /* the step start's lists and densities, kept
                               while the end's are taken (energy limit) */
    double *dens;           /* 3n: rho, p, pr */
    uint8_t *walled;        /* n */
    uint32_t *cut;          /* 2n + the cut lists' entries */
    size_t cap_dens, cap_walled, cap_cut;
    uint64_t lists;
    int fresh;
  } aside;
  double *xref;             /* 3n: positions when the lists were built */
  int lists_ok;             /* nbl holds lists for the current order */
  uint64_t searches;        /* neighbour searches run */
  sph_neighbors_fn neighbors;
  void *nb_opaque;
  int threads;
  int isa;                  /* enum sph_isa of the kernel sums: the widest
                               the processor has (sph_init_constants) */
  int fresh;                /* lists, rho, p match x */
  int fresh0;               /* ... match the positions of the step start */
  uint64_t steps;           /* steps taken (sorting cadence) */
  double amax;              /* largest |acceleration| of the last step */
  double amax0;             /* ... at begin_step, for rewind */
  uint64_t clamps0;
  double g_now[3];          /* gravity of the current step (ramped) */
  uint64_t clamps;          /* hard guard corrections, cumulative */
  int alone;                /* this step: no meta-particles, no external
                               force (the energy limit applies) */
  int plain;                /* the last integrate: alone, succeeded, at */
  double plain_t, plain_dt; /* ... this time and step */
  struct sph_replay replay;
  struct sph_kept_forces kept;
  double e_start;           /* ... and the energy it began with [J] */
  int limit_metas;          /* this step: meta-particles, no external
                               force, energy_limit on */
  double limited_metas;     /* what the last integrate with meta-particles
                               took [J] (the step's, after a rewind) */
  uint64_t lists;           /* neighbour list builds so far */
  double time[SPH_T_COUNT]; /* seconds per pass, cumulative */
  /* sph_sort's workspace, allocated for the sort only */
  double *scratch;          /* 4n doubles: permutation workspace */
  uint64_t *keys;           /* 2n: sort keys and their ping-pong copy */
  uint32_t *perm;           /* 2n */
};

/* Threads for a loop over `work` items: below `min` one thread (starting
 * a team and its barrier would cost more than the loop). */
#define SPH_PAIR_MIN 4096   /* loops over neighbour lists */
#define SPH_FLAT_MIN 65536  /* loops of a few flops per particle */
#define SPH_META_MIN 512    /* loops over meta-particles */
static inline int sph_team(const struct sph_solver *S, size_t work,
                           size_t min) {
  return work >= min ? S->threads : 1;
}

/* Grow *p to hold n elements of `size` bytes (*cap: what it holds);
 * contents kept.  MS_ENOMEM. */
static inline int sph_grow(void **p, size_t *cap, size_t n, size_t size) {
  if (n <= *cap) return MS_OK;
  void *q = realloc(*p, n * size);
  if (!q) return MS_ENOMEM;
  *p = q, *cap = n;
  return MS_OK;
}

/* Radius of the neighbour search (kernel support plus skin). */
static inline double sph_list_radius(const struct sph_solver *S) {
  return S->kw.R + S->P.skin * S->kw.R;
}

/* solver.c */
double sph_now(void);
/* Allocate arrays for n particles (zeroed).  P and the kernels
 * (sph_init_constants) must be set first.  MS_OK or MS_ENOMEM. */
int sph_alloc(struct sph_solver *S, size_t n);
void sph_free(struct sph_solver *S);
/* Kernels and derived constants (mass when 0, stiffness) from S->P. */
void sph_init_constants(struct sph_solver *S);
/* Largest stable step for the current state. */
double sph_max_dt(const struct sph_solver *S);
/* The step protocol: begin remembers what integrate changes, rewind puts
 * it back.  Density and pressure are computed for the positions a step
 * starts from (sph_prepare, at the end of the previous step), so rewind
 * leaves them as they are. */
void sph_begin(struct sph_solver *S);
void sph_rewind(struct sph_solver *S);
/* Put back the end rewind kept if integrate(t, dt) has the inputs of the
 * stage that made it (no meta-particle, no external force): 1 if done. */
int sph_replay(struct sph_solver *S, double t, double dt, int plain);

/* density.c: neighbour lists, density and pressure at the current
 * positions (no-op when already fresh).  Returns the neighbour search's
 * status. */
int sph_prepare(struct sph_solver *S);
/* The density pass alone, on lists sph_prepare made. */
void sph_density(struct sph_solver *S);
/* sph_prepare when it needs no new neighbour search (or, without a skin,
 * makes the lists these positions always give): lists cut again at
 * earlier positions are then the ones cut there before, bitwise.  *done:
 * whether it prepared (or found it fresh). */
int sph_prepare_same_search(struct sph_solver *S, int *done);
/* Keep the current cut lists, densities and pressures aside (skin > 0),
 * and put them back: a stage's start stays as it was while its end's
 * densities are taken.  Aside: MS_ENOMEM. */
int sph_density_aside(struct sph_solver *S);
void sph_density_back(struct sph_solver *S);
/* Equation of state, and the internal energy per unit mass it stores. */
double sph_pressure(const struct sph_params *P, double rho);
double sph_internal_energy(const struct sph_params *P, double rho);

/* wsum.c: out[i] = sum_j sph_w_raw(|x_i - x_j|^2) over the lists
 * (lidx, loff, lend) for i in [i0, i1), with instruction set S->isa. */
void sph_wsum(const struct sph_solver *S, size_t i0, size_t i1,
              double *out);
/* Whether this build and processor can run instruction set isa. */
int sph_wsum_isa(int isa);

/* energy.c: kinetic, gravitational (the scene's gravity) and compression
 * energy [J] at the current positions and densities. */
void sph_energy(const struct sph_solver *S, double *kinetic,
                double *potential, double *internal);
double sph_energy_total(const struct sph_solver *S);
/* Densities fresh at the end of a step that began with energy e0: if the
 * fluid holds more, scale its velocities about their mass-weighted mean
 * so that it holds e0.  Returns the energy removed [J]. */
double sph_limit_energy(struct sph_solver *S, double e0);
/* The same for a step with meta-particles (metas; V, d: their end
 * velocities and displacements, V changed, members' velocities with it),
 * the energy counting each meta-particle as one particle of its whole
 * mass (energy.c), d NULL at the step's start.  S->meta marks the
 * members; densities fresh at the current positions. */
double sph_energy_with_metas(const struct sph_solver *S,
                             const struct ms_metas *M, const double *V,
                             const double *d);
double sph_limit_energy_with_metas(struct sph_solver *S,
                                   const struct ms_metas *M, double *V,
                                   const double *d, double e0);

/* others.c: rho_others (n, allocated) from the m other particles at ox
 * (3m) of volumes ovol (m).  MS_ENUMERIC for a position that is not
 * finite, MS_ENOMEM. */
int sph_others_density(struct sph_solver *S, const double *ox,
                       const double *ovol, size_t m);
void sph_others_free(struct sph_others *G);

/* forces.c: accelerations of every fluid particle (pressure, viscosity,
 * walls, obstacles; no gravity) into S->a.  Needs sph_prepare. */
void sph_forces(struct sph_solver *S);
/* The same after a rewind from what the last integration of the step at
 * time t with step dt computed (struct sph_kept_forces); 0 when it holds
 * nothing for these lists, t and dt (then call sph_forces). */
int sph_forces_again(struct sph_solver *S, double t, double dt);
/* Keep S->a and S->v for sph_forces_again (without the memory: nothing
 * kept, the next integration computes all). */
void sph_keep_forces(struct sph_solver *S, double t, double dt);
void sph_kept_forces_free(struct sph_kept_forces *K);

/* advance.c: one symplectic Euler step from time t of length dt.  ext:
 * NULL or 3n external forces [N].  metas may be NULL (none); res is
 * filled for every meta-particle. */
void sph_advance(struct sph_solver *S, double t, double dt, const double *ext,
                 const struct ms_metas *metas, struct ms_meta_result *res);
/* The whole integrate(): metas, prepare, forces, advance. */
int sph_integrate(struct sph_solver *S, double t, double dt,
                  const double *ext, const struct ms_metas *metas,
                  struct ms_meta_result *res);
/* Gravity at time t (with the ramp). */
void sph_gravity(const struct sph_params *P, double t, double *g);

/* boundary.c: walls and obstacles at point x through their virtual
 * particles b.  Density: sum_b W_ib (times the particle mass).  Force:
 * g1 = sum_b grad_i W_ib and gp = sum_b p_b grad_i W_ib with
 * p_b = max(0, pw + G . (x_b - x_i)), G the fluid's pressure gradient Gf
 * along a wall and rho g_now across it. */
double sph_boundary_density(const struct sph_solver *S, const double *x);
/* Whether a wall is within reach of x, or obstacles exist: otherwise
 * the sums above are 0 (most particles; the density pass asks this
 * first, inline). */
static inline int sph_boundary_near(const struct sph_solver *S,
                                    const double *x) {
  const double R = S->kw.R;
  int near = S->nbox > 0;
  for (int a = 0; a < 3; a++)
    near |= (x[a] - S->P.lo[a] < R) | (S->P.hi[a] - x[a] < R);
  return near;
}

/* Tabulate the sums over one wall's virtual lattice (kernels set). */
int sph_wall_tables(struct sph_solver *S);
void sph_boundary_force(const struct sph_solver *S, const double *x,
                        double pw, double rho, const double *Gf, double *g1,
                        double *gp);
/* Keep the displacement d of a rigid set of fluid particles (indices idx,
 * start positions in S->x) out of walls and obstacles, stopping the
 * velocity v on the axes touched.  Returns 1 when the guard acted. */
int sph_guard(const struct sph_solver *S, const uint32_t *idx, uint32_t cnt,
              double *d, double *v);

/* heat.c: conduction between neighbours (Cleary and Monaghan 1999) over
 * dt, explicit; needs sph_prepare's lists.  Keeps sum m c T to rounding.
 * The step it allows: sph_heat_dt. */
void sph_heat(struct sph_solver *S, double dt);
double sph_heat_dt(const struct sph_solver *S);

/* reorder.c: sort the fluid particles in row-major order of cells of
 * size h (neighbours close in memory).  MS_OK or MS_ENOMEM. */
int sph_sort(struct sph_solver *S);

/* ---- the glue between the host and the solver (plugin.c, config.c) ---- */

#define SPH_NFIELDS 9

struct sph_plugin {
  const struct ms_host *host;
  ms_ctx *ctx;
  struct sph_solver S;
  /* others_as_boundary: the other systems' positions and volumes, kept
   * from step to step */
  double *ob_x, *ob_vol;
  size_t ob_cap, ob_last; /* ..., and how many there were last step */
  struct ms_field fields[SPH_NFIELDS];
  double reported[SPH_T_COUNT]; /* timers already reported */
  uint64_t reported_clamps;
  uint64_t reported_kept;        /* forces kept already reported */
};

/* What the scene section describes, before the solver exists. */
struct sph_setup {
  struct sph_params P;
  double *xyz, *vel;       /* n sampled points and their velocities */
  double *temp;            /* n: their temperatures */
  size_t n, cap;
  struct sph_box *box;     /* obstacles (moved into the solver) */
  size_t nbox;
};

/* config.c: read and check every key of the section; sample the shapes.
 * On failure the error is recorded through the host. */
int sphp_read_setup(struct sph_plugin *pl, const ms_config *sec,
                    struct sph_setup *su);
void sphp_setup_free(struct sph_setup *su);

#endif
