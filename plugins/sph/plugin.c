/* sph — weakly compressible SPH fluid, explicit (symplectic Euler).
 *
 * Scene keys (system section; see README.md for the full list):
 *   shape | shapes     one shape group, or a list; each may carry its own
 *                      `velocity` (box block, cylinder column, sphere, ...)
 *   spacing            particle spacing [m] (required); mass: density
 *                      over the kernel sum of the sampling lattice (about
 *                      density * spacing^3);  scale (1): count factor
 *   density (1000)     rest density;  velocity ([0,0,0]) initial velocity
 *   smoothing_length   h [m], default = spacing; kernels vanish beyond 2h
 *   kernel             cubic_spline | poly6 | spiky;  gradient_kernel
 *   speed_of_sound | stiffness, exponent (7), viscosity (0.1), xsph (0),
 *   cfl (0.4), clamp_pressure (true), radius (spacing/2), gravity_ramp (0),
 *   others_as_boundary (false), temperature (293.15 K; a shape may give
 *   its own), specific_heat (4186 J/(kg K)), conductivity (0.6 W/(m K)),
 *   neighbor_skin (0.2), sort_every (0), energy_limit (true: a step
 *   without meta-particles or external forces ends with at most the
 *   energy it began with; energy.c), energy_limit_metas (false: so does
 *   a step with meta-particles, each one particle of its whole mass)
 *   obstacles          ( { min = [...]; max = [...]; }, ... ) static boxes
 *
 * Fluid-fluid interaction is SPH pressure, so the solver asks for no
 * self-collision through the core. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "sph.h"

#define PL(inst) ((struct sph_plugin *)(void *)(inst))

static int host_neighbors(void *opaque, const double *xyz, size_t stride,
                          size_t count, double radius,
                          struct ms_neighbors *nb) {
  struct sph_plugin *pl = opaque;
  return pl->host->neighbors(pl->ctx, xyz, stride, count, radius, nb);
}

static void destroy(ms_instance *inst) {
  struct sph_plugin *pl = PL(inst);
  if (!pl) return;
  pl->host->neighbors_release(pl->ctx, &pl->S.nbl);
  sph_free(&pl->S);
  free(pl->ob_x), free(pl->ob_vol);
  free(pl);
}

static void set_fields(struct sph_plugin *pl) {
  struct sph_solver *S = &pl->S;
  const size_t x4 = SPH_XS * sizeof(double), v3 = 3 * sizeof(double),
               d1 = sizeof(double);
  struct ms_field *f = pl->fields;
  f[0] = (struct ms_field){"position", MS_TYPE_F64, 3, x4, S->x};
  f[1] = (struct ms_field){"velocity", MS_TYPE_F64, 3, v3, S->v};
  f[2] = (struct ms_field){"mass", MS_TYPE_F64, 1, d1, S->m};
  f[3] = (struct ms_field){"radius", MS_TYPE_F64, 1, d1, S->r};
  f[4] = (struct ms_field){"density", MS_TYPE_F64, 1, d1, S->rho};
  f[5] = (struct ms_field){"pressure", MS_TYPE_F64, 1, d1, S->p};
  f[6] = (struct ms_field){"id", MS_TYPE_U32, 1, sizeof(uint32_t), S->id};
  f[7] = (struct ms_field){"temperature", MS_TYPE_F64, 1, d1, S->T};
  f[8] = (struct ms_field){"specific_heat", MS_TYPE_F64, 1, d1, S->c};
}

/* Solver arrays from the setup. */
static int build(struct sph_plugin *pl, struct sph_setup *su) {
  struct sph_solver *S = &pl->S;
  S->P = su->P;
  S->threads = pl->host->thread_count(pl->ctx);
  S->neighbors = host_neighbors;
  S->nb_opaque = pl;
  sph_init_constants(S);
  if (sph_alloc(S, su->n))
    return pl->host->set_error(pl->ctx, MS_ENOMEM, "out of memory for %zu "
                               "particles", su->n);
  S->box = su->box;
  S->nbox = su->nbox;
  su->box = NULL;
  for (size_t i = 0; i < su->n; i++)
    for (int a = 0; a < 3; a++) {
      S->x[SPH_XS * i + a] = su->xyz[3 * i + a];
      S->v[3 * i + a] = su->vel[3 * i + a];
      S->T[i] = su->temp[i];
    }
  /* Cell order (reorder.c) from the start: neighbours close in memory,
   * and the particles' indices stay what the core sees in frame 0
   * (renumbering later, sort_every > 0, is for fluid-only runs: the core
   * follows particles by index) */
  if (sph_sort(S))
    return pl->host->set_error(pl->ctx, MS_ENOMEM, "out of memory "
                               "ordering %zu particles", S->n);
  return sph_prepare(S); /* density and pressure of frame 0 */
}

static int create(const struct ms_host *host, ms_ctx *ctx,
                  const ms_config *sec, ms_instance **out) {
  struct sph_plugin *pl = calloc(1, sizeof *pl);
  struct sph_setup su;
  if (!pl) return MS_ENOMEM;
  pl->host = host;
  pl->ctx = ctx;
  int rc = sphp_read_setup(pl, sec, &su);
  if (rc == MS_OK) rc = build(pl, &su);
  sphp_setup_free(&su);
  if (rc) {
    destroy((ms_instance *)(void *)pl);
    return rc;
  }
  set_fields(pl);
  *out = (ms_instance *)(void *)pl;
  return MS_OK;
}

/* With others_as_boundary: every particle of the scene's other systems
 * within the kernel's support of a fluid particle adds rho0 V W to its
 * density, V = (2 r)^3 its volume (Akinci et al. 2012's boundary
 * particles), at the positions of the step's start (others.c).  A solid
 * in the water then has water's density around it: without it the
 * particles beside a floating box see a free surface, press too little,
 * and the box rides too deep.  The fluid's pressure reaches the solid, as
 * every force does, through the meta-particles of their contact. */
static int others_density(struct sph_plugin *pl) {
  struct sph_solver *S = &pl->S;
  const struct ms_host *h = pl->host;
  const struct ms_scene_info *info = h->scene(pl->ctx);
  size_t m = 0;
  for (uint32_t y = 0; y < info->system_count; y++) {
    const double *xyz, *r;
    size_t cnt;
    if (y == info->system_index) continue;
    int rc = h->system_particles(pl->ctx, y, &xyz, &r, &cnt);
    if (rc) return rc;
    m += cnt;
  }
  if (!S->rho_others && !(S->rho_others = calloc(S->n ? S->n : 1,
                                                 sizeof(double))))
    return h->set_error(pl->ctx, MS_ENOMEM, "out of memory");
  if (m > pl->ob_cap) {
    double *nx = realloc(pl->ob_x, 3 * m * sizeof *nx);
    if (nx) pl->ob_x = nx;
    double *nv = realloc(pl->ob_vol, m * sizeof *nv);
    if (nv) pl->ob_vol = nv;
    if (!nx || !nv) return h->set_error(pl->ctx, MS_ENOMEM, "out of memory");
    pl->ob_cap = m;
  }
  double *x = pl->ob_x, *vol = pl->ob_vol;
  size_t at = 0;
  for (uint32_t y = 0; y < info->system_count; y++) {
    const double *xyz, *r;
    size_t cnt;
    if (y == info->system_index) continue;
    h->system_particles(pl->ctx, y, &xyz, &r, &cnt);
    memcpy(x + 3 * at, xyz, 3 * cnt * sizeof *x);
    for (size_t j = 0; j < cnt; j++) vol[at + j] = 8.0 * r[j] * r[j] * r[j];
    at += cnt;
  }
  /* the density is taken again with these, unless there are none now and
   * were none before */
  if (m || pl->ob_last) S->fresh = 0;
  pl->ob_last = m;
  int rc = sph_others_density(S, x, vol, m);
  if (rc == MS_ENUMERIC)
    return h->set_error(pl->ctx, rc, "another system's particle is not at "
                        "a finite position");
  if (rc) return h->set_error(pl->ctx, rc, "out of memory");
  return MS_OK;
}

static int view(ms_instance *inst, struct ms_view *out) {
  struct sph_plugin *pl = PL(inst);
  out->count = pl->S.n;
  out->field_count = SPH_NFIELDS;
  out->fields = pl->fields;
  return MS_OK;
}

static int max_dt(ms_instance *inst, double *dt) {
  double d = sph_max_dt(&PL(inst)->S);
  if (d < *dt) *dt = d;
  return MS_OK;
}

static int begin_step(ms_instance *inst, const struct ms_step *st) {
  struct sph_plugin *pl = PL(inst);
  (void)st;
  if (pl->S.P.others_as_boundary) {
    int rc = others_density(pl);
    if (rc) return rc;
  }
  sph_begin(&pl->S);
  return MS_OK;
}

static int integrate(ms_instance *inst, const struct ms_step *st,
                     const struct ms_metas *metas,
                     struct ms_meta_result *res) {
  struct sph_plugin *pl = PL(inst);
  return sph_integrate(&pl->S, st->time, st->dt, st->external_force, metas,
                       res);
}

static int rewind_step(ms_instance *inst) {
  sph_rewind(&PL(inst)->S);
  return MS_OK;
}

static void report(struct sph_plugin *pl) {
  static const char *const names[SPH_T_COUNT] = {
      "time_neighbors", "time_density", "time_forces", "time_integrate",
      "time_sort"};
  struct sph_solver *S = &pl->S;
  for (int t = 0; t < SPH_T_COUNT; t++) {
    pl->host->report(pl->ctx, names[t], S->time[t] - pl->reported[t]);
    pl->reported[t] = S->time[t];
  }
  pl->host->report(pl->ctx, "guard_corrections",
                   (double)(S->clamps - pl->reported_clamps));
  pl->reported_clamps = S->clamps;
  pl->host->report(pl->ctx, "forces_kept",
                   (double)(S->kept.kept - pl->reported_kept));
  pl->reported_kept = S->kept.kept;
}

/* Kinetic, gravitational (the scene's gravity, whatever the ramp) and the
 * compression energy of the equation of state at the current densities
 * (made now if no one has yet: the core calls refresh() first). */
static int energy(ms_instance *inst, struct ms_energy *out) {
  struct sph_plugin *pl = PL(inst);
  struct sph_solver *S = &pl->S;
  int rc = sph_prepare(S);
  if (rc) return pl->host->set_error(pl->ctx, rc, "neighbour search failed");
  sph_energy(S, &out->kinetic, &out->potential, &out->internal);
  return MS_OK;
}

/* Density and pressure at the current positions (DERIVED FIELDS in
 * plugin.h); nothing when they are current. */
static int refresh(ms_instance *inst) {
  struct sph_plugin *pl = PL(inst);
  int rc = sph_prepare(&pl->S);
  if (rc) return pl->host->set_error(pl->ctx, rc, "neighbour search failed");
  return MS_OK;
}

static int end_step(ms_instance *inst, const struct ms_step *st) {
  struct sph_plugin *pl = PL(inst);
  struct sph_solver *S = &pl->S;
  S->steps++;
  if (!isfinite(S->amax))
    return pl->host->set_error(pl->ctx, MS_ENUMERIC, "acceleration is not "
                               "finite at t = %g s: the fluid is unstable "
                               "(raise speed_of_sound or viscosity, or "
                               "lower cfl)", st->time);
  if (S->P.sort_every && S->steps % (uint64_t)S->P.sort_every == 0 &&
      sph_sort(S))
    return pl->host->set_error(pl->ctx, MS_ENOMEM, "out of memory "
                               "reordering %zu particles", S->n);
  /* Density and pressure at the new positions: what the frame shows and
   * what the next step starts from.  A core that calls refresh() (ABI
   * 1.8) has them made when they are read or by the next integrate, so
   * the pass runs once per step, inside it.  The energy limit needs them
   * now: integrate made them at its end when the fluid was alone
   * (advance.c), so the pass counts in the step's integration. */
  int rc = MS_OK;
  if (S->alone || pl->host->abi_minor < 8) rc = sph_prepare(S);
  if (rc == MS_OK && S->alone) {
    double removed = sph_limit_energy(S, S->e_start);
    if (removed > 0.0) pl->host->report(pl->ctx, "energy_limited", removed);
  }
  if (S->limit_metas && S->limited_metas > 0.0)
    pl->host->report(pl->ctx, "energy_limited", S->limited_metas);
  report(pl);
  return rc;
}

/* Saved state: a header, then every array that carries state, and the
 * positions the neighbour lists were built at (the order of a list, hence
 * of its sums, depends on them). */
struct sph_header {
  char magic[8];
  uint64_t n, steps, clamps, lists_ok;
  double amax;
};

static int save(ms_instance *inst, const struct ms_stream *out) {
  struct sph_solver *S = &PL(inst)->S;
  struct sph_header hd = {"sph-v2", S->n, S->steps, S->clamps,
                          (uint64_t)S->lists_ok, S->amax};
  int rc;
  if ((rc = out->write(out->opaque, &hd, sizeof hd)) ||
      (rc = out->write(out->opaque, S->x, SPH_XS * S->n * sizeof(double))) ||
      (rc = out->write(out->opaque, S->v, 3 * S->n * sizeof(double))) ||
      (rc = out->write(out->opaque, S->rho, S->n * sizeof(double))) ||
      (rc = out->write(out->opaque, S->p, S->n * sizeof(double))) ||
      (rc = out->write(out->opaque, S->pr, S->n * sizeof(double))) ||
      (rc = out->write(out->opaque, S->id, S->n * sizeof(uint32_t))) ||
      (rc = out->write(out->opaque, S->T, S->n * sizeof(double))) ||
      (rc = out->write(out->opaque, S->xref, 3 * S->n * sizeof(double))))
    return rc;
  return MS_OK;
}

static int load(ms_instance *inst, const struct ms_stream *in) {
  struct sph_plugin *pl = PL(inst);
  struct sph_solver *S = &pl->S;
  struct sph_header hd;
  int rc = in->read(in->opaque, &hd, sizeof hd);
  if (rc) return rc;
  if (memcmp(hd.magic, "sph-v2", 7))
    return pl->host->set_error(pl->ctx, MS_ESTATE, "not an sph state");
  if (hd.n != S->n)
    return pl->host->set_error(pl->ctx, MS_ESTATE, "saved state holds %llu "
                               "particles, the scene %zu",
                               (unsigned long long)hd.n, S->n);
  if ((rc = in->read(in->opaque, S->x, SPH_XS * S->n * sizeof(double))) ||
      (rc = in->read(in->opaque, S->v, 3 * S->n * sizeof(double))) ||
      (rc = in->read(in->opaque, S->rho, S->n * sizeof(double))) ||
      (rc = in->read(in->opaque, S->p, S->n * sizeof(double))) ||
      (rc = in->read(in->opaque, S->pr, S->n * sizeof(double))) ||
      (rc = in->read(in->opaque, S->id, S->n * sizeof(uint32_t))) ||
      (rc = in->read(in->opaque, S->T, S->n * sizeof(double))) ||
      (rc = in->read(in->opaque, S->xref, 3 * S->n * sizeof(double))))
    return rc;
  S->steps = hd.steps;
  S->clamps = pl->reported_clamps = hd.clamps;
  S->amax = hd.amax;
  S->fresh = 0;
  S->lists_ok = 0;
  if (hd.lists_ok && S->P.skin > 0.0) { /* the same lists as the saver's */
    if ((rc = S->neighbors(pl, S->xref, 3 * sizeof(double), S->n,
                           sph_list_radius(S), &S->nbl)))
      return rc;
    S->lists_ok = 1;
  }
  return MS_OK;
}

static const struct ms_plugin sph = {
    MS_PLUGIN_HEADER_INIT,
    MS_PLUGIN_METHODS,
    /* fluid: SPH pressure, no self-collision; carries heat (ABI 1.3) */
    .flags = MS_PLUGIN_HEAT,
    .id = "sph",
    .name = "Weakly compressible SPH fluid",
    .version = PACKAGE_VERSION,
    .license = "MIT",
    .description = "Tait equation of state, artificial viscosity, "
                   "symplectic Euler, wall and obstacle boundaries",
    .max_dt = max_dt,
    .energy = energy,
    .refresh = refresh,
};

MS_PLUGIN_EXPORT_ONE(sph)
