/* flip — FLIP fluid (Zhu & Bridson 2005) coupled through merging-and-
 * splitting (Truong et al. 2021, Sec. 6.2).
 *
 * Per step: particles to a MAC grid (trilinear, mass-weighted), gravity,
 * solid walls and static box obstacles, pressure projection (MIC(0)-PCG or
 * CHOLMOD), grid to particles with a PIC/FLIP blend (PIC on the faces
 * meta-particle members weigh), advection by each particle's own velocity
 * (or through the grid's), particles pushed out of the solids.  Fluid
 * particles carry mass (density x spacing^3) so they can couple.  Cells
 * holding particles of any system count as fluid in the projection.
 *
 * Scene keys (system section):
 *   shape                 required: the fluid's initial volume, a shape
 *                         group or a list of them (not overlapping); a
 *                         shape's `jitter` defaults to 0.25 here (0: a
 *                         lattice)
 *   spacing               particle spacing [m], required
 *   cell_size             grid cell [m], default 2 spacings (8 per cell);
 *                         the tank's extents must be multiples of it
 *   radius                collision radius [m], default spacing / 2
 *   density               [kg/m^3], default 1000; a shape group may give
 *                         its own: several densities make the pressure
 *                         projection weigh each face by the density of the
 *                         particles around it (immiscible phases of one
 *                         system, MultiFLIP-style)
 *   velocity              initial velocity [m/s], default [0, 0, 0]
 *   flip_ratio            FLIP share of the PIC/FLIP blend, [0, 1], 0.97
 *   advect                "particle" (default): free particles move by
 *                         their own velocity; "grid": through the grid's;
 *                         "interface": their own within a cell of another
 *                         system's particle, the grid's elsewhere
 *   tank                  { min; max; } the solid walls; default: the
 *                         domain, or without one the water's bounding box
 *                         grown by 4 cells
 *   obstacles             ( { min; max; }, ... ) static solid boxes
 *   pressure_solver       "pcg" (MIC(0), default) or "cholmod"
 *   pressure_tolerance    max |div| after / before, default 1e-6
 *   pressure_max_iterations  PCG limit, default 1000
 *   pressure_warm_start   PCG starts from the last step's pressure, true
 *   cfl                   grid cells a particle may cross per step, 1
 *   couple_cells          other systems' particles fill cells, true
 *   separation            [0, 1], 0: share of the overlap below 0.8
 *                         spacing by which two particles are pushed apart
 *                         each step (keeps the volume in flows that clump
 *                         particles)
 *   energy_limit          true: a step without meta-particles or external
 *                         forces ends with at most the energy it began
 *                         with; the blend goes toward PIC (energy.c)
 *   buoyancy              false: the water's pressure acts on the other
 *                         systems' particles in it, as on a body's
 *                         surface (push(), plugin ABI 1.5; buoyancy.c)
 *   free_surface          "cell" (p = 0 at the first air cell's centre) or
 *                         "ghost" (at the surface the particles show;
 *                         surface.c)
 *   temperature           [K], 293.15; a shape group may give its own
 *   specific_heat         [J/(kg K)], > 0, 4186 (water)
 *   conductivity          [W/(m K)], >= 0, 0.6 (water): conduction
 *                         between the cells' lumps (heat.c)
 *
 * scene.scale = s (the scene's resolution knob) makes the spacing and a
 * given radius s^(1/3) times finer (at most 16) and the cells k times,
 * k the whole number nearest to s^(1/3) (1 to 16): s = 2 keeps the cells
 * and puts about 16 particles in each.
 *
 * Output fields: position, velocity, mass, radius, pressure [Pa] (grid
 * pressure interpolated at the particle's start-of-step position),
 * temperature, specific_heat (the core exchanges heat with other systems:
 * MS_PLUGIN_HEAT).  Particles handed over by another system (accept) join
 * the water with their mass, position, velocity, temperature and specific
 * heat. */
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin.h>
#include <mergesplit/plugin_util.h>

#include "flip.h"

struct state {
  const struct ms_host *host;
  ms_ctx *ctx;
  struct flip_sim sim;
  size_t n;
  double *x, *v, *m, *r, *pres; /* the view */
  double *x0, *v0, *pres0;      /* start of step, for rewind */
  double *T, *c, *T0;           /* temperature, specific heat; T0 for
                                   rewind */
  double *rho, *pv;             /* each particle's density; pv: the
                                   projection's volumes (phases only) */
  double *dx;                   /* 3 n: separation's work space */
  double *vp;                   /* 3 n: PIC's velocities (energy limit) */
  double separation, spacing;
  int energy_limit;
  int buoyancy;                 /* the water's pressure on the others */
  int ghost_fluid;              /* p = 0 at the surface (surface.c) */
  struct flip_foreign fo;       /* ... their particles this step */
  double pushJ[3];              /* the impulse they were pushed with */
  int phases;                   /* densities differ: variable-density
                                   projection */
  double *Cc, *Tc, *T0c;        /* per cell: conduction's work space */
  double conductivity, temperature, specific_heat, radius;
  double *phi0, dt0;            /* ... and the solver's warm start */
  int32_t *meta;                /* meta-particle of each particle, or -1 */
  double gravity[3], flip_ratio, density, cfl;
  int couple_cells, advect;
  struct ms_field fields[7];
};

#define S(inst) ((struct state *)(void *)(inst))

static void destroy(ms_instance *inst) {
  struct state *s = S(inst);
  if (!s) return;
  flip_sim_free(&s->sim);
  free(s->x), free(s->v), free(s->m), free(s->r), free(s->pres);
  free(s->x0), free(s->v0), free(s->pres0), free(s->meta);
  free(s->phi0);
  free(s->T), free(s->c), free(s->T0), free(s->Cc), free(s->Tc), free(s->T0c);
  free(s->rho), free(s->pv), free(s->dx), free(s->vp);
  flip_foreign_free(&s->fo);
  free(s);
}

static int alloc_arrays(struct state *s, size_t n) {
  size_t k = n ? n : 1;
  s->n = n;
  s->x = malloc(3 * k * sizeof(double));
  s->v = malloc(3 * k * sizeof(double));
  s->x0 = malloc(3 * k * sizeof(double));
  s->v0 = malloc(3 * k * sizeof(double));
  s->m = malloc(k * sizeof(double));
  s->r = malloc(k * sizeof(double));
  s->pres = calloc(k, sizeof(double));
  s->pres0 = calloc(k, sizeof(double));
  s->meta = malloc(k * sizeof(int32_t));
  s->T = malloc(k * sizeof(double));
  s->c = malloc(k * sizeof(double));
  s->T0 = malloc(k * sizeof(double));
  s->rho = malloc(k * sizeof(double));
  s->pv = malloc(k * sizeof(double));
  s->dx = malloc(3 * k * sizeof(double));
  s->vp = malloc(3 * k * sizeof(double));
  return s->x && s->v && s->x0 && s->v0 && s->m && s->r && s->pres &&
                 s->pres0 && s->meta && s->T && s->c && s->T0 && s->rho &&
                 s->pv && s->dx && s->vp
             ? MS_OK
             : MS_ENOMEM;
}

static int inside_tank(const struct flip_grid *g, const double *x) {
  for (int a = 0; a < 3; a++)
    if (!(x[a] >= g->lo[a] && x[a] <= g->lo[a] + g->n[a] * g->h)) return 0;
  return 1;
}

static int inside_obstacle(const struct flip_params *p, const double *x) {
  for (int o = 0; o < p->nobst; o++) {
    int in = 1;
    for (int a = 0; a < 3; a++)
      in = in && x[a] >= p->obst[o].lo[a] && x[a] <= p->obst[o].hi[a];
    if (in) return 1;
  }
  return 0;
}

/* Seeded particles before the tank and the obstacles filter them: per
 * particle 3 positions, 3 velocities, a temperature and its shape. */
struct seeds {
  double *x, *v, *T, *from;
  size_t n;
};

static int seeds_grow(struct seeds *q, size_t n) {
  double **a[4] = {&q->x, &q->v, &q->T, &q->from};
  const size_t per[4] = {3, 3, 1, 1};
  for (int k = 0; k < 4; k++) {
    double *b = realloc(*a[k], (per[k] * n + 1) * sizeof(double));
    if (!b) return MS_ENOMEM;
    *a[k] = b;
  }
  return MS_OK;
}

/* A "frame" shape (a previous output, ABI 1.6) carries each particle's
 * velocity (the `velocity` key adds to it) and temperature. */
static int restore(struct state *s, const ms_config *shape, double *v,
                   double *T, size_t n, const double *vel) {
  const struct ms_host *h = s->host;
  int rc = ms_shape_field(h, s->ctx, shape, "velocity", n, 3, v);
  if (rc == MS_OK)
    for (size_t i = 0; i < 3 * n; i++) v[i] += vel[i % 3];
  else if (rc != MS_ENOENT)
    return rc;
  if ((rc = ms_shape_field_opt(h, s->ctx, shape, "temperature", n, 1, T)))
    return rc;
  for (size_t i = 0; i < n; i++)
    if (!(isfinite(v[3 * i]) && isfinite(v[3 * i + 1]) &&
          isfinite(v[3 * i + 2]) && isfinite(T[i])))
      return h->cfg_error(s->ctx, shape, "file", "particle %zu: a velocity "
                          "or temperature not finite", i);
  return MS_OK;
}

/* Append shape i's particles: the shape's lattice, jittered unless the
 * shape jitters itself or is a frame. */
static int seed_shape(struct state *s, const struct flip_params *p, int i,
                      struct seeds *q) {
  const struct ms_host *h = s->host;
  struct ms_points pts = {NULL, 0};
  int rc = h->sample_shape(s->ctx, p->shape[i], p->spacing, &pts);
  if (rc) return rc;
  if (!isnan(p->jitter[i]))
    for (size_t k = 0; k < 3 * pts.count; k++)
      pts.xyz[k] += p->spacing * p->jitter[i] *
                    (2.0 * h->rng_uniform(s->ctx) - 1.0);
  rc = seeds_grow(q, q->n + pts.count);
  if (rc == MS_OK) {
    memcpy(q->x + 3 * q->n, pts.xyz, 3 * pts.count * sizeof(double));
    for (size_t k = 0; k < pts.count; k++) {
      memcpy(q->v + 3 * (q->n + k), p->velocity, 3 * sizeof(double));
      q->T[q->n + k] = p->temperature[i];
      q->from[q->n + k] = i;
    }
    rc = restore(s, p->shape[i], q->v + 3 * q->n, q->T + q->n, pts.count,
                 p->velocity);
    q->n += pts.count;
  }
  h->free(pts.xyz);
  return rc;
}

/* No domain and no tank: the tank is the water's bounding box on the
 * cell lattice, grown by FLIP_AUTO_TANK_MARGIN cells on every side. */
static int fit_tank(struct state *s, const ms_config *sec,
                    struct flip_params *p, const double *xyz, size_t n) {
  const double h = p->cell_size;
  for (int a = 0; a < 3; a++) {
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
      lo = fmin(lo, xyz[3 * i + a]);
      hi = fmax(hi, xyz[3 * i + a]);
    }
    double c0 = floor(lo / h) - FLIP_AUTO_TANK_MARGIN;
    double c1 = floor(hi / h) + 1.0 + FLIP_AUTO_TANK_MARGIN;
    if (!(c1 - c0 <= 4096.0))
      return s->host->cfg_error(s->ctx, sec, "tank", "the water spans too "
                                "many cells for a tank fitted around it; "
                                "give a tank or a domain");
    p->lo[a] = c0 * h;
    p->n[a] = (int)(c1 - c0);
  }
  s->host->log(s->ctx, MS_LOG_INFO, "no domain and no tank: the tank is "
               "[%g, %g] x [%g, %g] x [%g, %g] around the water", p->lo[0],
               p->lo[0] + p->n[0] * h, p->lo[1], p->lo[1] + p->n[1] * h,
               p->lo[2], p->lo[2] + p->n[2] * h);
  return MS_OK;
}

/* Seed the particles (dropping those outside the tank or inside an
 * obstacle) and set up the grid. */
static int seed(struct state *s, const ms_config *sec,
                struct flip_params *p) {
  const struct ms_host *h = s->host;
  struct seeds q = {0};
  size_t keep = 0;
  int rc = MS_OK;
  for (int i = 0; i < p->nshapes && !rc; i++) rc = seed_shape(s, p, i, &q);
  size_t n = q.n;
  if (!rc && p->auto_tank) rc = fit_tank(s, sec, p, q.x, n);
  if (!rc && flip_sim_init(&s->sim, p->lo, p->n, p->cell_size, p->obst,
                           p->nobst))
    rc = h->set_error(s->ctx, MS_ENOMEM, "out of memory for a %d x %d x %d "
                      "grid", p->n[0], p->n[1], p->n[2]);
  for (size_t i = 0; !rc && i < n; i++) {
    const double *x = q.x + 3 * i;
    if (inside_tank(&s->sim.g, x) && !inside_obstacle(p, x)) {
      q.from[keep] = q.from[i];
      q.T[keep] = q.T[i];
      memmove(q.v + 3 * keep, q.v + 3 * i, 3 * sizeof(double));
      memmove(q.x + 3 * keep++, x, 3 * sizeof(double));
    }
  }
  if (!rc && keep == 0)
    rc = h->cfg_error(s->ctx, sec, "shape", "holds no particle inside the "
                      "tank and outside the obstacles");
  if (!rc && keep < n)
    h->log(s->ctx, MS_LOG_INFO, "%zu seeded particles lie outside the tank "
           "or inside an obstacle and were dropped", n - keep);
  if (!rc) rc = alloc_arrays(s, keep);
  if (!rc) {
    memcpy(s->x, q.x, 3 * keep * sizeof(double));
    memcpy(s->v, q.v, 3 * keep * sizeof(double));
  }
  for (size_t i = 0; !rc && i < keep; i++) {
    int sh = (int)q.from[i];
    s->T[i] = q.T[i];
    s->rho[i] = p->shape_density[sh];
    s->m[i] = s->rho[i] * p->spacing * p->spacing * p->spacing;
  }
  free(q.x), free(q.v), free(q.T), free(q.from);
  if (rc) return rc;
  for (size_t i = 0; i < keep; i++) {
    s->r[i] = p->radius;
    s->c[i] = p->specific_heat;
  }
  /* A jittered seed may lie closer than its radius to a wall or an
   * obstacle; the first step would lift it out, potential energy the run
   * did not have.  Place it as that step would, before the start. */
  flip_push_out(&s->sim.g, s->sim.obst, s->sim.nobst, s->x, s->v, s->r, keep,
                NULL, 1);
  return MS_OK;
}

static void set_fields(struct state *s) {
  const size_t v3 = 3 * sizeof(double), v1 = sizeof(double);
  s->fields[0] = (struct ms_field){"position", MS_TYPE_F64, 3, v3, s->x};
  s->fields[1] = (struct ms_field){"velocity", MS_TYPE_F64, 3, v3, s->v};
  s->fields[2] = (struct ms_field){"mass", MS_TYPE_F64, 1, v1, s->m};
  s->fields[3] = (struct ms_field){"radius", MS_TYPE_F64, 1, v1, s->r};
  s->fields[4] = (struct ms_field){"pressure", MS_TYPE_F64, 1, v1, s->pres};
  s->fields[5] = (struct ms_field){"temperature", MS_TYPE_F64, 1, v1, s->T};
  s->fields[6] = (struct ms_field){"specific_heat", MS_TYPE_F64, 1, v1,
                                   s->c};
}

static int create(const struct ms_host *host, ms_ctx *ctx,
                  const ms_config *sec, ms_instance **out) {
  struct state *s = calloc(1, sizeof *s);
  struct flip_params p;
  int rc;
  if (!s) return MS_ENOMEM;
  s->host = host;
  s->ctx = ctx;
  memcpy(s->gravity, host->scene(ctx)->gravity, sizeof s->gravity);
  if ((rc = flip_read_params(host, ctx, sec, &p))) {
    destroy((ms_instance *)(void *)s);
    return rc;
  }
  if ((rc = seed(s, sec, &p))) goto fail;
  s->sim.solve.method = p.solver;
  s->sim.solve.tolerance = p.tol;
  s->sim.solve.max_iterations = (int)p.max_iterations;
  s->sim.warm_start = p.warm_start;
  s->separation = p.separation;
  s->energy_limit = p.energy_limit;
  s->buoyancy = p.buoyancy;
  s->ghost_fluid = p.ghost_fluid;
  if (s->buoyancy && flip_foreign_init(&s->fo, &s->sim.g)) {
    rc = host->set_error(ctx, MS_ENOMEM, "out of memory");
    goto fail;
  }
  s->spacing = p.spacing;
  s->phi0 = malloc(s->sim.g.ncell * sizeof *s->phi0);
  s->Cc = malloc(s->sim.g.ncell * sizeof *s->Cc);
  s->Tc = malloc(s->sim.g.ncell * sizeof *s->Tc);
  s->T0c = malloc(s->sim.g.ncell * sizeof *s->T0c);
  if (!s->phi0 || !s->Cc || !s->Tc || !s->T0c) {
    rc = host->set_error(ctx, MS_ENOMEM, "out of memory");
    goto fail;
  }
  s->flip_ratio = p.flip_ratio;
  s->density = p.density;
  s->phases = p.phases;
  s->cfl = p.cfl;
  s->couple_cells = p.couple_cells;
  s->conductivity = p.conductivity;
  s->temperature = p.temperature[0];
  s->specific_heat = p.specific_heat;
  s->radius = p.radius;
  s->advect = p.advect;
  set_fields(s);
  flip_params_free(&p);
  *out = (ms_instance *)(void *)s;
  return MS_OK;
fail:
  flip_params_free(&p);
  destroy((ms_instance *)(void *)s);
  return rc;
}

static int view(ms_instance *inst, struct ms_view *out) {
  struct state *s = S(inst);
  out->count = s->n;
  out->field_count = 7;
  out->fields = s->fields;
  return MS_OK;
}

static int begin_step(ms_instance *inst, const struct ms_step *st) {
  struct state *s = S(inst);
  memcpy(s->x0, s->x, 3 * s->n * sizeof(double));
  memcpy(s->v0, s->v, 3 * s->n * sizeof(double));
  memcpy(s->pres0, s->pres, s->n * sizeof(double));
  memcpy(s->T0, s->T, s->n * sizeof(double));
  memcpy(s->phi0, s->sim.phi_prev, s->sim.g.ncell * sizeof(double));
  s->dt0 = s->sim.dt_prev;
  if (s->buoyancy) {
    int rc = flip_foreign_gather(&s->fo, &s->sim.g, s->host, s->ctx);
    if (rc == MS_EINVAL)
      return s->host->set_error(s->ctx, rc, "buoyancy: another system's "
                                "view lacks position or radius as "
                                "doubles");
    if (rc) return rc;
  }
  return MS_OK;
}

static int rewind_step(ms_instance *inst) {
  struct state *s = S(inst);
  memcpy(s->x, s->x0, 3 * s->n * sizeof(double));
  memcpy(s->v, s->v0, 3 * s->n * sizeof(double));
  memcpy(s->pres, s->pres0, s->n * sizeof(double));
  memcpy(s->T, s->T0, s->n * sizeof(double));
  memcpy(s->sim.phi_prev, s->phi0, s->sim.g.ncell * sizeof(double));
  s->sim.dt_prev = s->dt0;
  return MS_OK;
}

/* Start velocities: a member of a meta-particle carries the meta-
 * particle's velocity (plus the external force on all its members over the
 * whole mass).  It enters the transfer with its own mass, as every fluid
 * particle does, and the descriptor says so (MS_PLUGIN_META_OWN_MASS): the
 * core weighs FLIP's result for the meta-particle by the mass FLIP owns in
 * it, so the grid need not carry the foreign mass.
 * Carrying it (m_i M / M_own) let a held meta-particle -- one whose
 * velocity the core resets every step, e.g. to a pinned cloth edge --
 * outweigh the free water sharing its faces: the projection then moved
 * those faces toward the water's velocity, FLIP credited the change to the
 * water particle, and the reset brought the faces back for the next step,
 * a gain of a few percent per step (Fig. 11 without limits at scale 16:
 * water along the pinned edge reached 69 m/s). */
static void prepare(struct state *s, const struct ms_step *st,
                    const struct ms_metas *metas) {
  const double dt = st->dt, *F = st->external_force;
  for (size_t i = 0; i < s->n; i++) {
    s->meta[i] = -1;
    for (int a = 0; F && a < 3; a++)
      s->v[3 * i + a] += dt * F[3 * i + a] / s->m[i];
  }
  for (uint32_t k = 0; k < metas->count; k++) {
    uint32_t q0 = metas->member_offset[k], q1 = metas->member_offset[k + 1];
    double V[3], f[3] = {0.0, 0.0, 0.0};
    for (uint32_t q = q0; F && q < q1; q++)
      for (int a = 0; a < 3; a++) f[a] += F[3 * (size_t)metas->member[q] + a];
    for (int a = 0; a < 3; a++)
      V[a] = metas->velocity[3 * k + a] + dt * f[a] / metas->mass[k];
    for (uint32_t q = q0; q < q1; q++) {
      uint32_t i = metas->member[q];
      s->meta[i] = (int32_t)k;
      memcpy(s->v + 3 * (size_t)i, V, sizeof V);
    }
  }
}

/* Each meta-particle: mass-weighted mean of its members after grid-to-
 * particle, one rigid displacement, kept out of the solids. */
static void finish_metas(struct state *s, double dt,
                         const struct ms_metas *metas,
                         struct ms_meta_result *res) {
  for (uint32_t k = 0; k < metas->count; k++) {
    uint32_t q0 = metas->member_offset[k], q1 = metas->member_offset[k + 1];
    res->constrained[k] = (uint8_t)flip_meta_finish(
        &s->sim, metas->member + q0, q1 - q0, s->m, s->r, s->x0, s->x, s->v,
        dt, res->velocity + 3 * k, res->displacement + 3 * k);
  }
}

/* Hand every other system's particle positions to `mark`. */
static int mark_others(struct state *s,
                       void (*mark)(struct flip_grid *, const double *,
                                    size_t)) {
  const struct ms_scene_info *info = s->host->scene(s->ctx);
  for (uint32_t y = 0; y < info->system_count; y++) {
    const double *xyz, *rad;
    size_t cnt;
    if (y == info->system_index) continue;
    int rc = s->host->system_particles(s->ctx, y, &xyz, &rad, &cnt);
    if (rc) return rc;
    mark(&s->sim.g, xyz, cnt);
  }
  return MS_OK;
}

static int integrate(ms_instance *inst, const struct ms_step *st,
                     const struct ms_metas *metas,
                     struct ms_meta_result *res) {
  struct state *s = S(inst);
  struct flip_sim *F = &s->sim;
  struct flip_solve_stats ss;
  const double dt = st->dt;
  int rc;
  F->threads = s->host->thread_count(s->ctx);
  if (F->threads < 1) F->threads = 1;
  prepare(s, st, metas);
  /* the water's pressure on other systems' particles (buoyancy.c) */
  const int others = s->buoyancy && s->fo.n;
  /* a step on the water alone: held to the energy it starts with */
  const int limit = s->energy_limit && !metas->count && !st->external_force &&
                    !others;
  struct ms_energy start = {.kinetic = 0.0, .potential = 0.0};
  if (limit)
    ms_energy_of_particles(s->n, s->x, s->v, s->m, s->gravity, &start);
  /* members' shares of the faces matter only when there are members */
  const int32_t *tags = metas->count ? s->meta : NULL;
  /* several densities: each particle's volume in units of rho0 */
  F->pv = NULL;
  if (s->phases) {
    for (size_t i = 0; i < s->n; i++)
      s->pv[i] = s->m[i] * (s->density / s->rho[i]);
    F->pv = s->pv;
  }
  if (flip_sim_to_grid(F, s->x, s->v, s->m, tags, s->n))
    return s->host->set_error(s->ctx, MS_ENOMEM, "out of memory (binning "
                              "%zu particles)", s->n);
  /* heat within the water, on the cells the particles were binned to */
  flip_heat_conduct(&F->g, &F->bins, s->m, s->c, s->T, s->conductivity, dt,
                    s->Cc, s->Tc, s->T0c);
  /* cells holding other systems' particles count as fluid (Sec. 6.2);
   * with buoyancy they are walls, beside which the water's pressure is
   * a body's (buoyancy.c) */
  if (others) flip_wall_others(&F->g, &s->fo);
  else if (s->couple_cells && (rc = mark_others(s, flip_mark_points)))
    return rc;
  if (s->ghost_fluid &&
      flip_ghost_fluid(&F->g, &F->bins, s->x, s->spacing, F->threads))
    return s->host->set_error(s->ctx, MS_ENOMEM, "out of memory (face "
                              "weights)");
  rc = flip_sim_project(F, s->gravity, dt, &ss);
  if (rc == -1)
    return s->host->set_error(s->ctx, MS_ENOMEM, "out of memory (pressure "
                              "solve)");
  if (rc)
    return s->host->set_error(s->ctx, MS_ENUMERIC, "the pressure solve broke "
                              "down at t = %g s (%zu fluid cells, %d "
                              "iterations)", st->time, ss.unknowns,
                              ss.iterations);
  if (!ss.converged)
    s->host->log(s->ctx, MS_LOG_WARN, "pressure solve stopped at relative "
                 "residual %.3g after %d iterations (t = %g s)", ss.residual,
                 ss.iterations, st->time);
  if (others)
    flip_foreign_forces(&s->fo, &F->g, F->poisson.pressure,
                        s->density * F->g.h / dt, s->density, s->gravity, dt,
                        F->threads, s->pushJ);
  else s->pushJ[0] = s->pushJ[1] = s->pushJ[2] = 0.0;
  s->host->report(s->ctx, "pressure_iterations", ss.iterations);
  s->host->report(s->ctx, "fluid_cells", (double)ss.unknowns);
  if (limit) {
    memcpy(s->vp, s->v, 3 * s->n * sizeof(double));
    flip_g2p(&F->g, s->x, s->vp, tags, s->n, 0.0, F->threads);
  }
  flip_g2p(&F->g, s->x, s->v, tags, s->n, s->flip_ratio, F->threads);
  if (s->advect == FLIP_ADVECT_GRID)
    flip_advect(&F->g, s->x, s->n, dt, s->meta, F->threads);
  else if (s->advect == FLIP_ADVECT_PARTICLE)
    flip_advect_own(s->x, s->v, s->n, dt, s->meta, F->threads);
  else {
    /* the coupling's interface: within a cell of another system */
    flip_clear_near(&F->g);
    if ((rc = mark_others(s, flip_mark_near))) return rc;
    flip_advect_interface(&F->g, s->x, s->v, s->n, dt, s->meta, F->threads);
  }
  if (s->separation > 0.0 &&
      flip_separate(&F->g, &F->bins, s->x, s->dx, s->n, FLIP_SEPARATION_DISTANCE * s->spacing,
                    s->separation, s->meta, F->threads))
    return s->host->set_error(s->ctx, MS_ENOMEM, "out of memory (binning "
                              "%zu particles)", s->n);
  flip_push_out(&F->g, F->obst, F->nobst, s->x, s->v, s->r, s->n, s->meta,
                F->threads);
  if (limit &&
      flip_limit_energy(s->v, s->vp, s->x, s->m, s->gravity, s->n,
                        start.kinetic + start.potential) < 1.0)
    s->host->report(s->ctx, "energy_limited_steps", 1.0);
  finish_metas(s, dt, metas, res);
  flip_sample_cells(&F->g, F->poisson.pressure, s->x0, s->pres, s->n,
                    s->density * F->g.h / dt, F->threads);
  return MS_OK;
}

/* The particles carry the fluid's velocity between steps (the grid's is
 * rebuilt from them each step); an incompressible fluid stores no
 * internal energy. */
static int energy(ms_instance *inst, struct ms_energy *out) {
  const struct state *s = S(inst);
  ms_energy_of_particles(s->n, s->x, s->v, s->m, s->gravity, out);
  out->internal = 0.0;
  return MS_OK;
}

/* Buoyancy: the pressure force on system `sys`'s particles (ABI 1.5). */
static int push(ms_instance *inst, const struct ms_step *st, uint32_t sys,
                double *force, size_t count) {
  struct state *s = S(inst);
  (void)st;
  if (s->buoyancy) flip_foreign_push(&s->fo, sys, force, count);
  return MS_OK;
}

/* What the last integrate pushed (a stage 2 integrates again), summed
 * per frame in the report [N s]. */
static int end_step(ms_instance *inst, const struct ms_step *st) {
  static const char *const name[3] = {"pushed_impulse_x", "pushed_impulse_y",
                                      "pushed_impulse_z"};
  struct state *s = S(inst);
  (void)st;
  for (int a = 0; s->buoyancy && a < 3; a++)
    s->host->report(s->ctx, name[a], s->pushJ[a]);
  return MS_OK;
}

/* The grid may be crossed by at most `cfl` cells per step (with the speed
 * gravity adds within the step). */
static int max_dt(ms_instance *inst, double *dt) {
  struct state *s = S(inst);
  const double *u = s->v;
  const size_t n = s->n;
  double v2 = 0.0;
#pragma omp parallel for schedule(static) reduction(max : v2) \
    num_threads(flip_team(s->host->thread_count(s->ctx), n))
  for (size_t i = 0; i < n; i++) {
    double w = u[3 * i] * u[3 * i] + u[3 * i + 1] * u[3 * i + 1] +
               u[3 * i + 2] * u[3 * i + 2];
    v2 = w > v2 ? w : v2;
  }
  double v = sqrt(v2), c = s->cfl * s->sim.g.h;
  const double *G = s->gravity;
  double g = sqrt(G[0] * G[0] + G[1] * G[1] + G[2] * G[2]);
  if (v > 0.0 || g > 0.0)
    *dt = fmin(*dt, 2.0 * c / (v + sqrt(v * v + 4.0 * g * c)));
  return MS_OK;
}

/* Particle arrays for n particles (accepted ones join at the end); the
 * first min(n, count) keep their values. */
static int resize(struct state *s, size_t n) {
  size_t k = n ? n : 1;
  double **d3[] = {&s->x, &s->v, &s->x0, &s->v0, &s->dx, &s->vp};
  double **d1[] = {&s->m, &s->r, &s->pres, &s->pres0, &s->T, &s->c, &s->T0,
                   &s->rho, &s->pv};
  for (size_t q = 0; q < sizeof d3 / sizeof *d3; q++) {
    double *p = realloc(*d3[q], 3 * k * sizeof(double));
    if (!p) return MS_ENOMEM;
    *d3[q] = p;
  }
  for (size_t q = 0; q < sizeof d1 / sizeof *d1; q++) {
    double *p = realloc(*d1[q], k * sizeof(double));
    if (!p) return MS_ENOMEM;
    *d1[q] = p;
  }
  int32_t *mt = realloc(s->meta, k * sizeof(int32_t));
  if (!mt) return MS_ENOMEM;
  s->meta = mt;
  for (size_t i = s->n; i < n; i++) s->pres[i] = s->pres0[i] = 0.0;
  s->n = n;
  set_fields(s);
  return MS_OK;
}

/* A field of a handed-over view, by name (double, `comps` components). */
static const struct ms_field *given(const struct ms_view *in,
                                    const char *name, uint32_t comps) {
  for (uint32_t f = 0; f < in->field_count; f++)
    if (!strcmp(in->fields[f].name, name) &&
        in->fields[f].type == MS_TYPE_F64 &&
        in->fields[f].components == comps)
      return &in->fields[f];
  return NULL;
}

#define GIVEN(f, i, a) \
  (((const double *)((const char *)(f)->data + (i) * (f)->stride))[a])

/* Particles another system hands over (a melting solid's) become water
 * with their mass, position and velocity bit for bit, their temperature
 * and specific heat when they carry them (else the water's defaults). */
static int accept(ms_instance *inst, const struct ms_view *in,
                  const char *from) {
  struct state *s = S(inst);
  const struct ms_field *x = given(in, "position", 3);
  const struct ms_field *v = given(in, "velocity", 3);
  const struct ms_field *m = given(in, "mass", 1);
  const struct ms_field *T = given(in, "temperature", 1);
  const struct ms_field *c = given(in, "specific_heat", 1);
  if (!x || !v || !m)
    return s->host->set_error(s->ctx, MS_EINVAL, "particles handed over by "
                              "'%s' lack position, velocity or mass", from);
  size_t n0 = s->n;
  if (resize(s, n0 + in->count))
    return s->host->set_error(s->ctx, MS_ENOMEM, "out of memory");
  for (size_t i = 0; i < in->count; i++) {
    size_t p = n0 + i;
    for (int a = 0; a < 3; a++) {
      s->x[3 * p + a] = GIVEN(x, i, a);
      s->v[3 * p + a] = GIVEN(v, i, a);
    }
    s->m[p] = GIVEN(m, i, 0);
    s->rho[p] = s->density;
    s->r[p] = s->radius;
    s->T[p] = T ? GIVEN(T, i, 0) : s->temperature;
    s->c[p] = c && GIVEN(c, i, 0) > 0.0 ? GIVEN(c, i, 0) : s->specific_heat;
  }
  return MS_OK;
}

/* The particles (count first: handed-over ones change it) with their
 * masses and heat, and the pressure solve's warm start. */
static int save(ms_instance *inst, const struct ms_stream *out) {
  struct state *s = S(inst);
  uint64_t n[2] = {s->n, s->sim.g.ncell};
  int rc;
  if ((rc = out->write(out->opaque, n, sizeof n)) ||
      (rc = out->write(out->opaque, s->x, 3 * s->n * sizeof(double))) ||
      (rc = out->write(out->opaque, s->v, 3 * s->n * sizeof(double))) ||
      (rc = out->write(out->opaque, s->m, s->n * sizeof(double))) ||
      (rc = out->write(out->opaque, s->r, s->n * sizeof(double))) ||
      (rc = out->write(out->opaque, s->T, s->n * sizeof(double))) ||
      (rc = out->write(out->opaque, s->c, s->n * sizeof(double))) ||
      (rc = out->write(out->opaque, s->pres, s->n * sizeof(double))) ||
      (s->phases &&
       (rc = out->write(out->opaque, s->rho, s->n * sizeof(double)))) ||
      (rc = out->write(out->opaque, &s->sim.dt_prev, sizeof(double))) ||
      (rc = out->write(out->opaque, s->sim.phi_prev,
                       s->sim.g.ncell * sizeof(double))))
    return rc;
  return MS_OK;
}

static int load(ms_instance *inst, const struct ms_stream *in) {
  struct state *s = S(inst);
  uint64_t n[2];
  int rc = in->read(in->opaque, n, sizeof n);
  if (rc) return rc;
  if (n[1] != s->sim.g.ncell || n[0] > ((size_t)1 << 40))
    return s->host->set_error(s->ctx, MS_ESTATE, "saved state holds %llu "
                              "particles and %llu cells, the scene %zu "
                              "cells", (unsigned long long)n[0],
                              (unsigned long long)n[1], s->sim.g.ncell);
  if (n[0] != s->n && resize(s, (size_t)n[0]))
    return s->host->set_error(s->ctx, MS_ENOMEM, "out of memory");
  if ((rc = in->read(in->opaque, s->x, 3 * s->n * sizeof(double))) ||
      (rc = in->read(in->opaque, s->v, 3 * s->n * sizeof(double))) ||
      (rc = in->read(in->opaque, s->m, s->n * sizeof(double))) ||
      (rc = in->read(in->opaque, s->r, s->n * sizeof(double))) ||
      (rc = in->read(in->opaque, s->T, s->n * sizeof(double))) ||
      (rc = in->read(in->opaque, s->c, s->n * sizeof(double))) ||
      (rc = in->read(in->opaque, s->pres, s->n * sizeof(double))) ||
      (s->phases &&
       (rc = in->read(in->opaque, s->rho, s->n * sizeof(double)))) ||
      (rc = in->read(in->opaque, &s->sim.dt_prev, sizeof(double))) ||
      (rc = in->read(in->opaque, s->sim.phi_prev,
                     s->sim.g.ncell * sizeof(double))))
    return rc;
  return MS_OK;
}

static const struct ms_plugin flip = {
    MS_PLUGIN_HEADER_INIT,
    MS_PLUGIN_METHODS,
    /* fluid: particles interact through the grid, which weighs meta-
     * particle members with their own masses (prepare()) */
    .flags = MS_PLUGIN_META_OWN_MASS | MS_PLUGIN_HEAT,
    .id = "flip",
    .name = "FLIP fluid",
    .version = PACKAGE_VERSION,
    .license = "MIT",
    .description = "FLIP/PIC on a MAC grid, MIC(0)-PCG pressure projection",
    .max_dt = max_dt,
    .energy = energy,
    .accept = accept,
    .push = push,
};

MS_PLUGIN_EXPORT_ONE(flip)
