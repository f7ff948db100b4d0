/* flip — the FLIP fluid solver (Zhu & Bridson 2005) on a MAC grid.
 *
 * Internal interface of the solver library shared by the `flip` plugin, its
 * tests and its benchmark.  Units: the grid stores velocities [m/s] on cell
 * faces; the pressure unknown phi is scaled so that a face velocity changes
 * by the difference of phi across it (p = phi * density * h / dt).
 *
 * Every function that loops over particles or cells runs on `threads`
 * OpenMP threads and gives bitwise the same result for any thread count.
 */
#ifndef FLIP_H
#define FLIP_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include <mergesplit/plugin.h>

/* Cell states of one step. */
enum { FLIP_AIR = 0, FLIP_FLUID = 1, FLIP_SOLID = 2 };

/* An axis-aligned box [lo, hi]. */
struct flip_box {
  double lo[3], hi[3];
};

/* The MAC grid: cell (i, j, k) spans lo + h [i, i+1] x [j, j+1] x [k, k+1];
 * component a of the velocity lives on the faces normal to axis a. */
struct flip_grid {
  int n[3];          /* cells per axis, >= 2 */
  int fn[4][3];      /* fn[a]: face counts of component a; fn[3] = n */
  double lo[3], h, inv_h;
  size_t ncell, nface[3];
  uint8_t *solid;    /* static: cell centre inside an obstacle */
  uint8_t *cell;     /* FLIP_AIR, FLIP_FLUID or FLIP_SOLID this step */
  uint8_t *near;     /* within a cell of another system's particle */
  double *u[3];      /* face velocities */
  double *u0[3];     /* after the transfer, before forces (FLIP's old) */
  double *wsum[3];   /* transfer weights (mass) per face */
  uint8_t *valid[3]; /* face known (weighted or extrapolated) */
  double *held[3];   /* share of a face's weight from meta-particle
                        members (0 where no particle weighs it) */
  /* Variable density (flip_p2g_density): beta = rho0 / rho per face, the
   * projection's face weight; `weighted` 0: one density, beta unused. */
  double *beta[3];
  int weighted;
};

/* Particles binned by cell (a stable counting sort). */
struct flip_bins {
  size_t n, cap;
  uint32_t *key;     /* cell of each particle */
  uint32_t *perm;    /* particle indices ordered by cell, then index */
  uint32_t *tmp;
  uint32_t *start;   /* ncell + 1: particles of cell c: perm[start[c]..) */
  uint32_t *slab;    /* n[2] + 1: first sorted position of each z-slab */
  uint32_t *count;   /* threads x n[2] slab counts */
  int cap_threads;
};

/* The pressure Poisson system and the solvers' work space.  Its arrays use
 * a zero-padded layout of the fluid's bounding box: the box plus one ghost
 * cell on every side, so every unknown's six neighbours exist; every
 * vector is 0 outside the unknowns and the stencils need no tests.  (The
 * box keeps rows short and contiguous when the fluid fills little of the
 * tank.) */
enum { FLIP_SOLVER_PCG = 0, FLIP_SOLVER_CHOLMOD = 1 };

/* MIC(0) is applied block by block (block Jacobi over slabs of z-planes):
 * a fixed count, so the result does not depend on the thread count. */
#define FLIP_PCG_BLOCKS 2

struct flip_poisson {
  size_t ncell, npad;     /* grid cells; padded capacity */
  int bo[3], bn[3];       /* this step's box: first cell and size */
  size_t sj, sk, nused;   /* padded strides of j and k; padded cells used */
  uint8_t *mask;     /* per padded cell: FLIP_M_* bits below */
  uint8_t *diag;     /* diagonal of A: non-solid neighbours (+1 if pinned) */
  uint32_t *row_lo, *row_hi; /* per grid row (j + ny k): unknowns in i */
  uint32_t *rows;    /* rows holding unknowns, ascending */
  size_t *rowpad;    /* padded index of cell 0 of each of those rows */
  size_t nrows, nfluid;
  uint32_t *plane_row; /* nz + 1: active rows of plane k: [plane_row[k],
                          plane_row[k + 1]) */
  int kb[FLIP_PCG_BLOCKS + 1]; /* the preconditioner's blocks of planes */
  int cap_threads;
  double *phi, *b, *r, *z, *s, *q; /* padded */
  float *precon;     /* MIC(0) factor (float: it is only a preconditioner) */
  double *work;      /* per thread: two rows */
  double *pressure;  /* grid layout: phi of the unknowns, 0 elsewhere */
  double *part;      /* per row partial sums: 3 x rows (s.q, r.z, |r|) */
  uint32_t *queue;   /* breadth-first search of the components */
  /* Variable density (grid `weighted`): the row of A is wd(c) phi_c -
   * sum over fluid neighbours beta_f phi_n, wd(c) the sum of beta over the
   * cell's non-solid faces (+1 if pinned); wl[a][c]: beta of the link from
   * c to its + neighbour along a (0 without one).  Padded; NULL until
   * first needed. */
  int weighted;
  double *wd, *wl[3];
  void *chol;        /* CHOLMOD state, created on first use */
};

/* Padded index of cell (i, j, k) of the box (or of its ghost layer). */
static inline size_t flip_pad(const struct flip_poisson *p, int i, int j,
                              int k) {
  return (size_t)(i - p->bo[0] + 1) + p->sj * (size_t)(j - p->bo[1] + 1) +
         p->sk * (size_t)(k - p->bo[2] + 1);
}

/* Is cell (i, j, k) inside the box? */
static inline int flip_in_box(const struct flip_poisson *p, int i, int j,
                              int k) {
  return i >= p->bo[0] && i < p->bo[0] + p->bn[0] && j >= p->bo[1] &&
         j < p->bo[1] + p->bn[1] && k >= p->bo[2] && k < p->bo[2] + p->bn[2];
}

/* Mask bits: unknown linked to the neighbour at -x, +x, -y, +y, -z, +z. */
enum {
  FLIP_M_XM = 1, FLIP_M_XP = 2, FLIP_M_YM = 4, FLIP_M_YP = 8,
  FLIP_M_ZM = 16, FLIP_M_ZP = 32,
  FLIP_M_SELF = 64,  /* the cell is an unknown */
  FLIP_M_SEEN = 128  /* reached by the component search */
};

struct flip_solve_opts {
  int method;        /* FLIP_SOLVER_* */
  double tolerance;  /* max |residual| <= tolerance * max |divergence| */
  int max_iterations;
  int threads;
  /* PCG's first guess: guess_scale * guess (grid layout) at the unknowns,
   * or 0 when guess is NULL */
  const double *guess;
  double guess_scale;
};

struct flip_solve_stats {
  int iterations;
  int converged;
  size_t unknowns;   /* fluid cells in the solve */
  size_t pinned;     /* closed components (no free surface) */
  double div_before; /* max |divergence| over fluid cells before */
  double residual;   /* max |residual| / max |divergence| reached */
};

/* ---- grid (grid.c) ----------------------------------------------- */
int flip_grid_init(struct flip_grid *g, const double lo[3], const int n[3],
                   double h);
void flip_grid_free(struct flip_grid *g);
/* Mark the cells whose centre lies inside b as solid (static). */
void flip_grid_add_obstacle(struct flip_grid *g, const struct flip_box *b);
/* Start the step's marks: solid cells stay solid, the rest become air. */
void flip_mark_reset(struct flip_grid *g, int threads);
/* Cells holding binned particles become fluid (unless solid). */
void flip_mark_bins(struct flip_grid *g, const struct flip_bins *b,
                    int threads);
/* Air cells holding any of these points become fluid; points outside the
 * grid are ignored.  (Other systems' particles: paper Sec. 6.2.)  The faces
 * of such a cell that no fluid particle weighs are set to rest in u and u0:
 * call after flip_sim_to_grid(). */
void flip_mark_points(struct flip_grid *g, const double *xyz, size_t n);
/* Clear `near`. */
void flip_clear_near(struct flip_grid *g);
/* Mark `near` every cell within one cell (27-neighbourhood) of one of
 * these points; points outside the grid are ignored. */
void flip_mark_near(struct flip_grid *g, const double *xyz, size_t n);
size_t flip_count_cells(const struct flip_grid *g, int state);
/* Extrapolate face velocities into faces without weight, `layers` rings
 * deep (mean of known neighbours); faces still unknown get 0. */
void flip_extrapolate(struct flip_grid *g, int layers, int threads);
/* After the projection: keep the velocity of the faces next to fluid
 * (not solid), extrapolate it `layers` rings into the air, zero the rest
 * and the solid faces.  Particles near the surface then see the projected
 * field only. */
void flip_extrapolate_fluid(struct flip_grid *g, int layers, int threads);
/* u0 = u. */
void flip_save_old(struct flip_grid *g, int threads);
/* u += dt g on every face that is not solid. */
void flip_add_gravity(struct flip_grid *g, const double gravity[3], double dt,
                      int threads);
/* Zero the normal velocity on solid faces (walls, obstacles). */
void flip_solid_bc(struct flip_grid *g, int threads);
/* Is the face (a; i, j, k) solid? */
int flip_face_solid(const struct flip_grid *g, int a, int i, int j, int k);

/* ---- particle binning (bins.c) ---------------------------------- */
int flip_bins_sort(struct flip_bins *b, const struct flip_grid *g,
                   const double *x, size_t n, int threads);
void flip_bins_free(struct flip_bins *b);

/* ---- transfers (transfer.c) ------------------------------------- */
/* Mass-weighted trilinear particle-to-grid: u = sum w m v / sum w m per
 * face; faces without weight are marked unknown.  pm: transfer mass of
 * each particle; meta (NULL: none): >= 0 for a meta-particle member, whose
 * share of each face's weight goes to `held`. */
void flip_p2g(struct flip_grid *g, const struct flip_bins *b,
              const double *x, const double *v, const double *pm,
              const int32_t *meta, int threads);
/* Face densities of several phases (beta, `weighted` set): pv is each
 * particle's volume times the reference density rho0 (m rho0 / rho);
 * work: three face arrays of scratch.  Returns -1 when out of memory. */
int flip_p2g_density(struct flip_grid *g, const struct flip_bins *b,
                     const double *x, const double *pm, const double *pv,
                     double *work[3], int threads);
/* Grid-to-particle, PIC/FLIP blend: v = r (v + u(x) - u0(x)) + (1 - r)
 * u(x).  r = flip_ratio for a meta-particle member (meta[i] >= 0) and for
 * every particle when meta is NULL; a free particle takes r (1 - h), h the
 * members' share of the faces it reads (`held`, interpolated). */
void flip_g2p(const struct flip_grid *g, const double *x, double *v,
              const int32_t *meta, size_t n, double flip_ratio, int threads);
/* Trilinear interpolation of a cell-centred field f at each particle. */
void flip_sample_cells(const struct flip_grid *g, const double *f,
                       const double *x, double *out, size_t n, double scale,
                       int threads);

/* ---- advection (advect.c) --------------------------------------- */
/* How free particles move: by their own velocity after grid-to-particle
 * (the default: the coupling's velocity changes then move them, as they
 * move meta-particle members and every other solver's particles), through
 * the grid velocity (Zhu & Bridson), or by their own only at the
 * coupling's interface (`near` cells) and through the grid elsewhere. */
enum { FLIP_ADVECT_GRID, FLIP_ADVECT_PARTICLE, FLIP_ADVECT_INTERFACE };
/* Interface advection: a particle (skip[i] < 0) in a `near` cell moves by
 * dt v, every other one through the grid velocity (RK2). */
void flip_advect_interface(const struct flip_grid *g, double *x,
                           const double *v, size_t n, double dt,
                           const int32_t *skip, int threads);
/* x += dt v for every particle with skip[i] < 0 (all when skip is NULL). */
void flip_advect_own(double *x, const double *v, size_t n, double dt,
                     const int32_t *skip, int threads);
/* Midpoint (RK2) advection through the grid velocity of every particle
 * with skip[i] < 0 (all when skip is NULL). */
void flip_advect(const struct flip_grid *g, double *x, size_t n, double dt,
                 const int32_t *skip, int threads);
/* Move free particles (skip[i] < 0) closer than d0 apart by k (d0 - r) / 2
 * (advect.c says why); dx: 3 n doubles of work space; re-sorts b on x.
 * Returns -1 when out of memory. */
int flip_separate(const struct flip_grid *g, struct flip_bins *b, double *x,
                  double *dx, size_t n, double d0, double k,
                  const int32_t *skip, int threads);
/* Push particles (skip[i] < 0) out of the walls and the obstacles by their
 * radius; the velocity into the surface is removed. */
void flip_push_out(const struct flip_grid *g, const struct flip_box *obst,
                   int nobst, double *x, double *v, const double *r,
                   size_t n, const int32_t *skip, int threads);
/* For a rigid set of particles (indices idx) at x moving by d with
 * velocity V: change d so none ends in a wall or obstacle; returns 1 when
 * something acted (V loses its component into the surface). */
int flip_clamp_rigid(const struct flip_grid *g, const struct flip_box *obst,
                     int nobst, const double *x, const double *r,
                     const uint32_t *idx, uint32_t cnt, double *d, double *V);

/* ---- projection (poisson.c, pcg.c, cholmod.c) ---------- */
/* Make u divergence-free in the fluid cells.  Returns 0, or -1 when out of
 * memory, -2 when the solver broke down (NaN). */
int flip_project(struct flip_grid *g, struct flip_poisson *p,
                 const struct flip_solve_opts *o, struct flip_solve_stats *st);
void flip_poisson_free(struct flip_poisson *p);
/* Discrete divergence (sum of face flux differences, in grid units) of the
 * fluid cells: max |div| and the root mean square. */
void flip_divergence(const struct flip_grid *g, double *max_abs, double *rms);

/* The projection in its three phases: build the system (and the
 * divergence), solve it for phi, apply the pressure gradient. */
int flip_poisson_build(struct flip_grid *g, struct flip_poisson *p,
                       int threads, struct flip_solve_stats *st);
int flip_poisson_solve(struct flip_poisson *p, const struct flip_grid *g,
                       const struct flip_solve_opts *o,
                       struct flip_solve_stats *st);
void flip_poisson_finish(struct flip_grid *g, struct flip_poisson *p,
                         int threads);
int flip_pcg_solve(struct flip_poisson *p, const struct flip_grid *g,
                   const struct flip_solve_opts *o,
                   struct flip_solve_stats *st);
int flip_cholmod_solve(struct flip_poisson *p, const struct flip_grid *g,
                       struct flip_solve_stats *st);
void flip_cholmod_free(struct flip_poisson *p);

/* ---- heat (heat.c) ---------------------------------------------- */
/* Conduction with conductivity k [W/(m K)] between the lumps of face-
 * adjacent occupied cells, each pair exact over dt; a particle takes its
 * cell's change of temperature.  Needs the bins of flip_sim_to_grid();
 * Cc, Tc, T0c: ncell each of work space.  Keeps sum m c T to rounding. */
void flip_heat_conduct(const struct flip_grid *g, const struct flip_bins *b,
                       const double *m, const double *c, double *T,
                       double k, double dt, double *Cc, double *Tc,
                       double *T0c);

/* ---- one step, phase by phase (sim.c) ---------------------------- */
struct flip_sim {
  struct flip_grid g;
  struct flip_bins bins;
  struct flip_poisson poisson;
  struct flip_box *obst; /* static box obstacles */
  int nobst;
  int layers;            /* velocity extrapolation depth (cells) */
  int threads;
  struct flip_solve_opts solve;
  /* Several densities: each particle's volume times rho0 (m rho0 / rho),
   * or NULL for one density (flip_p2g_density). */
  const double *pv;
  /* Warm start: the last step's phi (grid layout) and dt; the pressure
   * phi dt_prev / dt of the last step is the next solve's first guess.
   * State: snapshot it with the particles for rewind and checkpoints. */
  int warm_start;
  double *phi_prev, dt_prev; /* dt_prev 0: no guess */
};

/* Other systems' particles inside the tank, taken at begin_step
 * (buoyancy.c): position, radius, and the pressure force on each after
 * the projection; sys and idx say whose.  p, known and queue: per cell,
 * the pressure carried out of the water and its work space. */
struct flip_foreign {
  size_t n, cap;
  double *x, *r, *force;
  uint32_t *sys, *idx;
  double *p;
  uint8_t *known;
  uint32_t *queue;
};
void flip_foreign_free(struct flip_foreign *f);
/* The per-cell arrays; -1: out of memory. */
int flip_foreign_init(struct flip_foreign *f, const struct flip_grid *g);
/* Read every other system's view (at begin_step: the step's start). */
int flip_foreign_gather(struct flip_foreign *f, const struct flip_grid *g,
                        const struct ms_host *host, ms_ctx *ctx);
/* After the water's cells are marked: the cells only the others occupy
 * become walls (at rest) for the projection. */
void flip_wall_others(struct flip_grid *g, const struct flip_foreign *f);
/* After the projection (phi its solution, scale * phi the pressure in
 * Pa): the force of the water's pressure on each of the others' particles
 * (buoyancy.c); J: their impulse over the step, summed [N s]. */
void flip_foreign_forces(struct flip_foreign *f, const struct flip_grid *g,
                         const double *phi, double scale, double rho,
                         const double gr[3], double dt, int threads,
                         double J[3]);
/* Add the forces on system `system`'s particles to force (3 * count). */
void flip_foreign_push(const struct flip_foreign *f, uint32_t system,
                       double *force, size_t count);

int flip_sim_init(struct flip_sim *S, const double lo[3], const int n[3],
                  double h, const struct flip_box *obst, int nobst);
void flip_sim_free(struct flip_sim *S);
/* Bin the particles, mark the cells they occupy as fluid, transfer to the
 * grid, extrapolate, keep the result as FLIP's old grid velocity. */
int flip_sim_to_grid(struct flip_sim *S, const double *x, const double *v,
                     const double *pm, const int32_t *meta, size_t n);
/* Gravity, solid walls and obstacles, pressure projection, extrapolation
 * of the projected velocity into the air.  Returns 0, -1 (out of memory)
 * or -2 (solver breakdown). */
int flip_sim_project(struct flip_sim *S, const double gravity[3], double dt,
                     struct flip_solve_stats *st);

/* End of step for one meta-particle (indices idx[0..cnt) of this system):
 * its velocity V is the mass-weighted mean of the members' velocities v
 * after grid-to-particle; every member moves by d = dt V from its start x0
 * (kept out of walls and obstacles) and takes velocity V.  Returns 1 when
 * a wall or an obstacle acted. */
int flip_meta_finish(const struct flip_sim *S, const uint32_t *idx,
                     uint32_t cnt, const double *m, const double *r,
                     const double *x0, double *x, double *v, double dt,
                     double V[3], double d[3]);

/* ---- inline helpers --------------------------------------------------- */

/* Threads worth starting for a loop over `work` particles: small loops
 * run on one (waking a team costs up to milliseconds on a busy or virtual
 * machine).  A cell costs about an eighth of a particle.  Results never
 * depend on it. */
#define FLIP_PAR_MIN 65536
#define FLIP_CELL_WORK(ncell) ((ncell) / 8)
static inline int flip_team(int threads, size_t work) {
  return work < FLIP_PAR_MIN || threads < 1 ? 1 : threads;
}

static inline size_t flip_cell(const struct flip_grid *g, int i, int j,
                               int k) {
  return (size_t)i + (size_t)g->n[0] * ((size_t)j + (size_t)g->n[1] * k);
}

/* Cell holding x; 0 (and c unspecified) when x is outside the grid. */
static inline int flip_cell_inside(const struct flip_grid *g,
                                   const double *x, int c[3]) {
  for (int b = 0; b < 3; b++) {
    double q = (x[b] - g->lo[b]) * g->inv_h;
    if (!(q >= 0.0 && q < (double)g->n[b])) return 0;
    c[b] = (int)q;
  }
  return 1;
}

/* Cell holding x, clamped into the grid (NaN goes to cell 0). */
static inline void flip_cell_of(const struct flip_grid *g, const double *x,
                                int c[3]) {
  for (int b = 0; b < 3; b++) {
    double q = (x[b] - g->lo[b]) * g->inv_h;
    c[b] = q >= 1.0 ? (q < (double)(g->n[b] - 1) ? (int)q : g->n[b] - 1) : 0;
  }
}

/* Trilinear stencil of field `a` (0..2: faces of component a; 3: cell
 * centres) at x: base index, strides and fractions.  Outside the grid the
 * field is continued by its boundary values. */
struct flip_stencil {
  size_t base, sj, sk;
  double t[3];
};

/* Lower sample index and fraction on one axis with m + 2 samples. */
static inline void flip_axis(double q, int m, int *i, double *t) {
  if (!(q > 0.0))
    *i = 0, *t = 0.0;
  else if (q >= (double)m + 1.0)
    *i = m, *t = 1.0;
  else
    *i = (int)q, *t = q - (double)*i;
}

static inline void flip_stencil_at(const struct flip_grid *g, int a,
                                   const double *x, struct flip_stencil *s) {
  const int *fn = g->fn[a];
  int i[3];
  for (int b = 0; b < 3; b++)
    flip_axis((x[b] - g->lo[b]) * g->inv_h - (a == b ? 0.0 : 0.5), fn[b] - 2,
              i + b, s->t + b);
  s->sj = (size_t)fn[0];
  s->sk = (size_t)fn[0] * (size_t)fn[1];
  s->base = (size_t)i[0] + s->sj * (size_t)i[1] + s->sk * (size_t)i[2];
}

/* The three face stencils at x at once (6 axis lookups instead of 9). */
static inline void flip_stencils(const struct flip_grid *g, const double *x,
                                 struct flip_stencil s[3]) {
  int fi[3], ci[3];
  double ft[3], ct[3];
  for (int b = 0; b < 3; b++) {
    double q = (x[b] - g->lo[b]) * g->inv_h;
    flip_axis(q, g->n[b] - 1, fi + b, ft + b);
    flip_axis(q - 0.5, g->n[b] - 2, ci + b, ct + b);
  }
  for (int a = 0; a < 3; a++) {
    const int *fn = g->fn[a];
    size_t base = 0, st = 1;
    for (int b = 0; b < 3; b++) {
      base += st * (size_t)(a == b ? fi[b] : ci[b]);
      s[a].t[b] = a == b ? ft[b] : ct[b];
      st *= (size_t)fn[b];
    }
    s[a].base = base;
    s[a].sj = (size_t)fn[0];
    s[a].sk = (size_t)fn[0] * (size_t)fn[1];
  }
}

static inline double flip_stencil_eval(const struct flip_stencil *s,
                                       const double *f) {
  const double *p = f + s->base;
  double tx = s->t[0], ty = s->t[1], tz = s->t[2];
  size_t j = s->sj, k = s->sk;
  double a0 = (1.0 - tx) * p[0] + tx * p[1];
  double a1 = (1.0 - tx) * p[j] + tx * p[j + 1];
  double a2 = (1.0 - tx) * p[k] + tx * p[k + 1];
  double a3 = (1.0 - tx) * p[k + j] + tx * p[k + j + 1];
  double b0 = (1.0 - ty) * a0 + ty * a1, b1 = (1.0 - ty) * a2 + ty * a3;
  return (1.0 - tz) * b0 + tz * b1;
}

static inline double flip_interp(const struct flip_grid *g, int a,
                                 const double *f, const double *x) {
  struct flip_stencil s;
  flip_stencil_at(g, a, x, &s);
  return flip_stencil_eval(&s, f);
}

/* The grid velocity at x. */
static inline void flip_velocity(const struct flip_grid *g, const double *x,
                                 double u[3]) {
  struct flip_stencil s[3];
  flip_stencils(g, x, s);
  for (int a = 0; a < 3; a++) u[a] = flip_stencil_eval(s + a, g->u[a]);
}

/* ---- the settings of one system, read through the host (config.c) ---- */

/* Particles seeded per cell axis by default (2 x 2 x 2 = 8 per cell) and
 * the default jitter, a fraction of the spacing, when the shape gives
 * none. */
#define FLIP_DEFAULT_PER_AXIS 2.0
#define FLIP_DEFAULT_JITTER 0.25
#define FLIP_MAX_SHAPES 64
/* Without a finite domain or a tank: the tank is the water's bounding box
 * grown by this many cells on every side. */
#define FLIP_AUTO_TANK_MARGIN 4
/* Particle separation acts on pairs closer than this many spacings.  At
 * 1.0 the liquid swells (its top rose 6 % in the oil-under-water scene):
 * a jittered lattice has many pairs closer than a spacing; at 0.8 its
 * mean height stays within 1 % over 8 s (advect.c). */
#define FLIP_SEPARATION_DISTANCE 0.8

struct flip_params {
  const ms_config *shape[FLIP_MAX_SHAPES]; /* one group, or a list's */
  double jitter[FLIP_MAX_SHAPES]; /* applied by the plugin; NAN when the
                                     shape jitters itself */
  double temperature[FLIP_MAX_SHAPES]; /* [K]: the shape's, or the
                                          system's */
  double shape_density[FLIP_MAX_SHAPES]; /* [kg/m^3]: the shape's, or
                                            the system's */
  int phases;            /* some shape's density differs from `density` */
  double specific_heat;  /* [J/(kg K)] */
  double conductivity;   /* [W/(m K)] */
  int nshapes;
  double spacing, cell_size, radius, density, velocity[3];
  int refine;           /* scene.scale: spacing and cells this much finer */
  double flip_ratio;
  int advect;           /* FLIP_ADVECT_* */
  double tol, cfl;
  int64_t max_iterations;
  int solver;           /* FLIP_SOLVER_* */
  int warm_start;       /* PCG starts from the last step's pressure */
  int couple_cells;     /* other systems' particles make cells non-empty */
  double separation;    /* share of an overlap below
                           FLIP_SEPARATION_DISTANCE spacings a pair of
                           particles is moved apart per step */
  int energy_limit;     /* a step without meta-particles ends with at most
                           the energy it started with (energy.c) */
  int buoyancy;         /* the water's pressure force on other systems'
                           particles (buoyancy.c) */
  int ghost_fluid;      /* free_surface = "ghost": p = 0 at the surface
                           itself (surface.c) */
  double lo[3];         /* the tank: grid origin */
  int n[3];             /* cells per axis */
  int auto_tank;        /* lo, n: to be fitted around the water */
  struct flip_box *obst;
  int nobst;
};

/* Ghost-fluid free surface (surface.c): the links from fluid cells to air
 * cells weighted by 1 / theta, theta the distance in cells from the fluid
 * cell's centre to the surface its particles (binned in b) show; turns
 * the variable-density path on (beta = 1 with one density).  After the
 * cells are marked, before the projection. */
int flip_ghost_fluid(struct flip_grid *g, const struct flip_bins *b,
                     const double *x, double spacing, int threads);

/* Hold a step to the energy e0 (kinetic + gravitational,
 * ms_energy_of_particles) it started with: v (the blend's end
 * velocities) is moved toward vp (PIC's) as far as needed so that the
 * particles at x end with at most e0, and PIC's scaled down when even
 * they end above (the step raised the particles); returns the share of
 * the blend's FLIP part kept, 1 when nothing changed.  Serial: thread-
 * count free. */
double flip_limit_energy(double *v, const double *vp, const double *x,
                         const double *m, const double g[3], size_t n,
                         double e0);

/* Read and check every key of the section.  On failure the reason is
 * recorded through the host and nothing is leaked. */
int flip_read_params(const struct ms_host *h, ms_ctx *c, const ms_config *sec,
                     struct flip_params *p);
void flip_params_free(struct flip_params *p);

#endif /* FLIP_H */
