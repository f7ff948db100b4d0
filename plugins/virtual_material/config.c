/* virtual_material — the scene keys of a system (system section):
 *   support           the neighbourhood's radius h in lattice spacings,
 *                     [1.01, 3], default 1.5 (face and edge neighbours)
 *   lattice           "cubic" (default: simple cubic of the spacing D,
 *                     the sampling's) | "ccp" (the paper's cubic closest
 *                     packing, nearest neighbours at D; bodies sampled on
 *                     it, a particle per D^3 / sqrt 2)
 *   wall_restitution  normal restitution at the domain walls, [0, 1], 0.2
 *   wall_friction     Coulomb friction coefficient at the walls, >= 0, 0.5
 *   energy_limit      false (default): the model's own energy balance;
 *                     true: a step with no meta-particle, no external
 *                     force and no clamp moving ends with no more energy
 *                     than it began with, phase changes included, the
 *                     surplus taken from the motion about each body's
 *                     mean velocity (plugin.c, limit_energy; README.md,
 *                     "Energy")
 *   bodies            a list of body groups; without it the section is one
 * and of a body (a group of `bodies`, or the section): the keys every solid
 * plugin reads alike (plugins/common/bodies.h: shape, spacing, radius,
 * density or mass, velocity, angular_velocity, temperature, specific_heat;
 * motion: "dynamic" only, so far) and
 *   stiffness         k [N/m], > 0, default 1000: the pull toward a
 *                     neighbour's rest position, per unit of distance,
 *                     at scene.scale 1 (a scale s divides it by s^(1/3)
 *                     with the spacing, so the material keeps its
 *                     modulus, about k / D)
 *   damping           eta [kg/s], >= 0, default 0.1 sqrt(k m): the drag on
 *                     the velocity that is not a neighbourhood's rigid
 *                     motion (capped each step at the paper's m / dt)
 *   hold              { min = [x, y, z]; max = [x, y, z]; velocity =
 *                     [x, y, z]; until = t; }: the body's particles
 *                     inside (as sampled) move at the velocity (default
 *                     0: they stay put, a clamp) until the time `until`
 *                     [s] (default: for ever), then are let go (a press)
 *   phase             "solid" (default) | "fluid": in the lattice, or the
 *                     particle fluid alone
 *   speed_of_sound    c [m/s], >= 0: the fluid's Tait pressure
 *                     (rho0 c^2 / 7 ((rho / rho0)^7 - 1), clipped at 0);
 *                     default 0 for a solid (the lattice alone), 10 for a
 *                     fluid
 *   xsph              [0, 1], default 0.5: XSPH's share of the fluid
 *                     neighbours' mean velocity a fluid particle takes
 *   melting_point     [K]: a solid particle above it melts at the rate
 *   melting_rate      lambda_m0 [1/(s K)], >= 0, default 1: a particle
 *                     melts in a step with probability 1 - exp(-lambda_m0
 *                     (T - T_m) dt) (Wicke et al. Eq. 15)
 *   freezing_point    T_f [K]: a fluid particle below it, with more than
 *                     n_0 solid neighbours of its object, freezes at the
 *                     rate lambda_f0 (T_f - T)(n - n_0) min(1, v_max /
 *                     |v - vbar|) min(1, F_max / |sum_j F_ji|) (Eq. 16;
 *                     the last factor: freezing_force)
 *   freezing_rate     lambda_f0 [1/(s K)], >= 0, default 1
 *   freezing_neighbours  n_0, >= 0, default 4
 *   freezing_speed    v_max [m/s], > 0; absent: no speed limit
 *   freezing_force    F_max [N], > 0: the rate is also scaled by
 *                     min(1, F_max / |sum_j F_ji|), the lattice force the
 *                     solid neighbours would put on the particle (how
 *                     well it fits their lattice; Eq. 16's last factor);
 *                     absent: no such limit
 *   conductivity      lambda [W/(m K)], >= 0, default 0: heat conducts
 *                     between neighbours of an object, pair conductance
 *                     lambda 2 D^3 w(r) / c (c = sum_l w(|l|) l_x^2 over
 *                     the lattice points within the support: lambda D
 *                     across a face when only faces count), the
 *                     harmonic mean of the two bodies' lambda
 *   docking_rate      lambda_0 [1/s], > 0: fracture (Wicke et al. sect.
 *                     4.2).  A neighbour docks at its lattice point in a
 *                     step with probability 1 - exp(-lambda dt), lambda
 *                     the point's rate: lambda_0 at first, gaining
 *                     lambda_0 dt / tau in a step the point is docked,
 *                     losing as much in one it is empty.  Absent: every
 *                     neighbour docks while its point has a rate
 *   docking_memory    tau [s], > 0, default 0.01: how long a point may
 *                     stay empty before it is lost for good (a crack
 *                     closing sooner heals; later, its pieces collide and
 *                     do not rejoin)
 *   fracture_strain   eps_c, > 0: the stress criterion — a neighbour whose
 *                     spring is extended beyond eps_c |l| ((r - R l) . R l
 *                     / |l| under last step's rotation R: tension, not
 *                     compression or shear) does not dock.  Absent:
 *                     none.  With neither this nor docking_rate the body
 *                     does not fracture
 *   object            a name: bodies that give the same one are one
 *                     lattice object (their particles are each other's
 *                     neighbours: a fluid freezes onto a solid of its
 *                     object); they need the same spacing.  Default:
 *                     each body its own
 * In a `bodies` list the section's spacing, radius, density, temperature,
 * specific heat, stiffness and damping are the bodies' defaults. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "../common/bodies.h"
#include "virtual_material.h"

struct body_keys {
  struct msc_body b;
  double k, eta; /* eta NAN: the default */
  int fluid;     /* phase "fluid" */
  double c, xsph, melt_T, melt_rate; /* c NAN: the phase's default */
  double freeze_T, freeze_rate, freeze_n, freeze_v, freeze_F;
  double dock_rate, dock_tau, dock_strain; /* NAN: absent (tau: default) */
  double conductivity;
  const char *object;                 /* NULL: its own */
  int hold;      /* a hold box is given */
  double hold_lo[3], hold_hi[3], hold_v[3], hold_until;
};

/* The body's `hold` box, if any. */
static int read_hold(struct state *s, const ms_config *g,
                     struct body_keys *k) {
  const struct ms_host *h = s->host;
  const ms_config *box;
  int rc = h->cfg_child(s->ctx, g, "hold", &box);
  if (rc == MS_ENOENT) return k->hold = 0, MS_OK;
  if (rc) return rc;
  static const double nan3[3] = {NAN, NAN, NAN};
  static const double zero3[3] = {0, 0, 0};
  if ((rc = h->cfg_vec3(s->ctx, box, "min", nan3, k->hold_lo)) ||
      (rc = h->cfg_vec3(s->ctx, box, "max", nan3, k->hold_hi)) ||
      (rc = h->cfg_vec3(s->ctx, box, "velocity", zero3, k->hold_v)) ||
      (rc = ms_cfg_positive(h, s->ctx, box, "until", NAN, &k->hold_until)))
    return rc;
  if (isnan(k->hold_until)) k->hold_until = INFINITY;
  for (int a = 0; a < 3; a++)
    if (!(k->hold_lo[a] <= k->hold_hi[a]))
      return h->cfg_error(s->ctx, g, "hold", "needs min and max with min "
                          "<= max on every axis");
  k->hold = 1;
  return MS_OK;
}

static int read_material(struct state *s, const ms_config *g,
                         const struct body_keys *d, struct body_keys *k) {
  const struct ms_host *h = s->host;
  int rc;
  const char *phase = NULL;
  if ((rc = ms_cfg_positive(h, s->ctx, g, "stiffness", d->k, &k->k)) ||
      (rc = ms_cfg_non_negative(h, s->ctx, g, "damping", d->eta, &k->eta)) ||
      (rc = h->cfg_string(s->ctx, g, "phase", NULL, &phase)) ||
      (rc = ms_cfg_non_negative(h, s->ctx, g, "speed_of_sound", d->c,
                                &k->c)) ||
      (rc = ms_cfg_unit(h, s->ctx, g, "xsph", d->xsph, &k->xsph)) ||
      (rc = h->cfg_double(s->ctx, g, "melting_point", d->melt_T,
                          &k->melt_T)) ||
      (rc = ms_cfg_non_negative(h, s->ctx, g, "melting_rate", d->melt_rate,
                                &k->melt_rate)) ||
      (rc = h->cfg_double(s->ctx, g, "freezing_point", d->freeze_T,
                          &k->freeze_T)) ||
      (rc = ms_cfg_non_negative(h, s->ctx, g, "freezing_rate",
                                d->freeze_rate, &k->freeze_rate)) ||
      (rc = ms_cfg_non_negative(h, s->ctx, g, "freezing_neighbours",
                                d->freeze_n, &k->freeze_n)) ||
      (rc = ms_cfg_positive(h, s->ctx, g, "freezing_speed", d->freeze_v,
                            &k->freeze_v)) ||
      (rc = ms_cfg_positive(h, s->ctx, g, "freezing_force", d->freeze_F,
                            &k->freeze_F)) ||
      (rc = ms_cfg_non_negative(h, s->ctx, g, "conductivity",
                                d->conductivity, &k->conductivity)) ||
      (rc = ms_cfg_positive(h, s->ctx, g, "docking_rate", d->dock_rate,
                            &k->dock_rate)) ||
      (rc = ms_cfg_positive(h, s->ctx, g, "docking_memory", d->dock_tau,
                            &k->dock_tau)) ||
      (rc = ms_cfg_positive(h, s->ctx, g, "fracture_strain", d->dock_strain,
                            &k->dock_strain)))
    return rc;
  if (!isnan(k->freeze_T) && !(isfinite(k->freeze_T) && k->freeze_T > 0.0))
    return h->cfg_error(s->ctx, g, "freezing_point", "must be a "
                        "temperature > 0 K (got %g)", k->freeze_T);
  k->fluid = d->fluid;
  if (phase && strcmp(phase, "solid") && strcmp(phase, "fluid"))
    return h->cfg_error(s->ctx, g, "phase", "unknown value \"%s\" "
                        "(expected \"solid\" or \"fluid\")", phase);
  if (phase) k->fluid = !strcmp(phase, "fluid");
  if (!isnan(k->melt_T) && !(isfinite(k->melt_T) && k->melt_T > 0.0))
    return h->cfg_error(s->ctx, g, "melting_point", "must be a temperature "
                        "> 0 K (got %g)", k->melt_T);
  return MS_OK;
}

/* A body group's keys (msc_body_reader: s, defaults, into k). */
static int read_body(void *ud, const ms_config *g, const void *def,
                     void *key) {
  struct state *s = ud;
  const struct body_keys *d = def;
  struct body_keys *k = key;
  int rc;
  *k = *d;
  if ((rc = msc_body_read(s->host, s->ctx, g, &d->b, &k->b)) ||
      (rc = read_material(s, g, d, k)))
    return rc;
  if (k->b.motion != MSC_DYNAMIC)
    return s->host->cfg_error(s->ctx, g, "motion", "must be \"dynamic\": "
                              "fixed and scripted virtual materials are not "
                              "built yet (a clamp: hold)");
  if ((rc = s->host->cfg_string(s->ctx, g, "object", NULL, &k->object)))
    return rc;
  return read_hold(s, g, k);
}

static int alloc(struct state *s, size_t n, uint32_t nbody) {
  size_t k = n ? n : 1, d3 = 3 * k * sizeof(double);
  s->x = malloc(d3), s->v = malloc(d3), s->x0 = malloc(d3);
  s->v0 = malloc(d3), s->f = malloc(d3), s->dv = malloc(d3);
  s->own = malloc(d3), s->work = malloc(k * sizeof(double));
  s->A = malloc(9 * k * sizeof(double)), s->A0 = malloc(9 * k * sizeof(double));
  s->m = malloc(k * sizeof(double)), s->r = malloc(k * sizeof(double));
  s->T = malloc(k * sizeof(double)), s->c = malloc(k * sizeof(double));
  s->body_of = malloc(k * sizeof(uint32_t));
  s->held = malloc(k), s->solid = malloc(k), s->in_hold = malloc(k);
  s->object_of = malloc(k * sizeof(uint32_t));
  s->rho = malloc(k * sizeof(double)), s->p = malloc(k * sizeof(double));
  s->dvx = malloc(d3);
  s->meta = malloc(k * sizeof(int32_t));
  s->off = malloc((k + 1) * sizeof(uint32_t));
  s->piece = malloc(k * sizeof(uint32_t));
  s->piece0 = malloc(k * sizeof(uint32_t));
  s->body = calloc(nbody ? nbody : 1, sizeof *s->body);
  if (s->energy_limit) { /* the limit's scratch and its kept end pass */
    s->x_ahead = malloc(d3), s->m_ahead = malloc(k * sizeof(double));
    s->solid_ahead = malloc(k), s->A_ahead = malloc(9 * k * sizeof(double));
    s->acc = malloc(4 * (nbody ? nbody : 1) * sizeof(double));
    if (!s->acc || !s->x_ahead || !s->m_ahead || !s->solid_ahead ||
        !s->A_ahead)
      return MS_ENOMEM;
  }
  return s->x && s->v && s->x0 && s->v0 && s->f && s->dv && s->own &&
                 s->work && s->A &&
                 s->A0 && s->m && s->r && s->T && s->c && s->body_of &&
                 s->held && s->in_hold && s->solid && s->rho && s->p && s->dvx &&
                 s->object_of &&
                 s->meta && s->off && s->body && s->piece && s->piece0
             ? MS_OK
             : MS_ENOMEM;
}

/* Body k's lattice object: an earlier body's of the same `object` name
 * (which must share its spacing), else a new one.  The id, or -1 with
 * the error set. */
static int64_t object_id(struct state *s, const struct body_keys *k,
                         double D) {
  uint32_t fresh = 0;
  for (uint32_t b = 0; b < s->nbody; b++) {
    const struct vm_body *o = &s->body[b];
    fresh = o->object + 1 > fresh ? o->object + 1 : fresh;
    if (!k->object || !o->object_name || strcmp(k->object, o->object_name))
      continue;
    if (o->D != D)
      return s->host->cfg_error(s->ctx, k->b.group, "object", "\"%s\" "
                                "holds bodies of spacing %g and %g: one "
                                "object has one lattice", k->object, o->D,
                                D), -1;
    return o->object;
  }
  return fresh;
}

static int add_body(struct state *s, const struct body_keys *k,
                     const struct ms_points *pts, double mass) {
  static const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  struct vm_body *b = &s->body[s->nbody];
  size_t n0 = s->n, n = pts->count;
  double c[3] = {0, 0, 0}, mi = mass / (double)n;
  const struct ms_scene_info *info = s->host->scene(s->ctx);
  double scale = MS_SCENE_HAS(info, scale) ? info->scale : 1.0;
  b->first = n0, b->count = n;
  b->k = k->b.points ? k->k : k->k / cbrt(scale);
  b->D = isnan(k->b.spacing) ? 2.0 * k->b.radius : k->b.spacing;
  b->eta = isnan(k->eta) ? 0.1 * sqrt(k->k * mi) : k->eta;
  b->rho0 = vm_rest_density(mi, b->D, s->support * b->D, s->ccp);
  b->c = isnan(k->c) ? (k->fluid ? 10.0 : 0.0) : k->c;
  b->xsph = k->xsph;
  b->melt_T = isnan(k->melt_T) ? INFINITY : k->melt_T;
  b->melt_rate = k->melt_rate;
  b->freeze_T = isnan(k->freeze_T) ? -INFINITY : k->freeze_T;
  b->freeze_rate = k->freeze_rate, b->freeze_n = k->freeze_n;
  b->freeze_v = isnan(k->freeze_v) ? INFINITY : k->freeze_v;
  b->freeze_F = isnan(k->freeze_F) ? INFINITY : k->freeze_F;
  b->dock_rate = isnan(k->dock_rate) ? INFINITY : k->dock_rate;
  b->dock_tau = isnan(k->dock_tau) ? 0.01 : k->dock_tau;
  b->dock_strain = isnan(k->dock_strain) ? INFINITY : k->dock_strain;
  b->conductivity = k->conductivity;
  b->conduct_G = 2.0 * vm_volume(b->D, s->ccp) /
                 vm_lattice_moment(b->D, s->support * b->D, s->ccp);
  memcpy(b->hold_v, k->hold_v, sizeof b->hold_v);
  b->hold_until = k->hold ? k->hold_until : INFINITY;
  int64_t obj = object_id(s, k, b->D);
  if (obj < 0) return MS_ECONFIG;
  b->object = (uint32_t)obj, b->object_name = k->object;
  for (size_t i = 0; i < n; i++)
    for (int a = 0; a < 3; a++) c[a] += pts->xyz[3 * i + a] / (double)n;
  for (size_t i = 0; i < n; i++) {
    size_t p = n0 + i;
    const double *x = pts->xyz + 3 * i, *V = k->b.vel, *w = k->b.omega;
    double d[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
    memcpy(s->x + 3 * p, x, 3 * sizeof(double));
    s->v[3 * p + 0] = V[0] + w[1] * d[2] - w[2] * d[1];
    s->v[3 * p + 1] = V[1] + w[2] * d[0] - w[0] * d[2];
    s->v[3 * p + 2] = V[2] + w[0] * d[1] - w[1] * d[0];
    memcpy(s->A + 9 * p, eye, sizeof eye);
    s->m[p] = mi, s->r[p] = k->b.radius, s->body_of[p] = s->nbody;
    s->object_of[p] = b->object;
    s->in_hold[p] = k->hold && x[0] >= k->hold_lo[0] && x[0] <= k->hold_hi[0] &&
                 x[1] >= k->hold_lo[1] && x[1] <= k->hold_hi[1] &&
                 x[2] >= k->hold_lo[2] && x[2] <= k->hold_hi[2];
    s->held[p] = s->in_hold[p];
    if (s->held[p]) memcpy(s->v + 3 * p, k->hold_v, 3 * sizeof(double));
    s->solid[p] = !k->fluid;
    s->T[p] = k->b.temperature, s->c[p] = k->b.specific_heat;
  }
  s->n += n;
  s->nbody++;
  return MS_OK;
}

static int system_keys(struct state *s, const ms_config *sec) {
  const struct ms_host *h = s->host;
  int rc;
  if ((rc = h->cfg_double(s->ctx, sec, "support", 1.5, &s->support)) ||
      (rc = ms_cfg_unit(h, s->ctx, sec, "wall_restitution", 0.2,
                        &s->restitution)) ||
      (rc = ms_cfg_non_negative(h, s->ctx, sec, "wall_friction", 0.5,
                                &s->friction)) ||
      (rc = h->cfg_bool(s->ctx, sec, "energy_limit", 0, &s->energy_limit)))
    return rc;
  const char *lattice = NULL;
  if ((rc = h->cfg_string(s->ctx, sec, "lattice", NULL, &lattice))) return rc;
  if (lattice && strcmp(lattice, "cubic") && strcmp(lattice, "ccp"))
    return h->cfg_error(s->ctx, sec, "lattice", "unknown value \"%s\" "
                        "(expected \"cubic\" or \"ccp\")", lattice);
  s->ccp = lattice && !strcmp(lattice, "ccp");
  if (!(s->support >= 1.01 && s->support <= 3.0))
    return h->cfg_error(s->ctx, sec, "support", "must be in [1.01, 3] "
                        "lattice spacings (got %g)", s->support);
  return MS_OK;
}

/* Fracture's rates, when a body fractures: every point's at lambda_0.
 * The pieces at first: one per lattice object (the first step finds the
 * lattice's own). */
static int docking(struct state *s) {
  int any = 0;
  for (uint32_t b = 0; b < s->nbody; b++)
    any |= vm_fractures(&s->body[b]);
  uint32_t *first = malloc((s->nbody ? s->nbody : 1) * sizeof *first);
  if (!first) return MS_ENOMEM;
  for (uint32_t b = 0; b < s->nbody; b++) first[b] = UINT32_MAX;
  for (size_t i = 0; i < s->n; i++) { /* object ids are below nbody */
    uint32_t *f = &first[s->object_of[i]];
    if (s->solid[i] && *f == UINT32_MAX) *f = (uint32_t)i;
    s->piece[i] = s->solid[i] ? *f : UINT32_MAX;
    s->pieces += s->piece[i] == i;
  }
  free(first);
  s->pieces_most = s->pieces;
  if (!any) return MS_OK;
  s->dock_K = (int)ceil(s->support / vm_unit(1.0, s->ccp)) - 1;
  int w = 2 * s->dock_K + 1;
  size_t count = s->n * (size_t)(w * w * w);
  s->dock = malloc((count ? count : 1) * sizeof *s->dock);
  s->dock0 = malloc((count ? count : 1) * sizeof *s->dock0);
  s->who = malloc((count ? count : 1) * sizeof *s->who);
  s->who0 = malloc((count ? count : 1) * sizeof *s->who0);
  if (!s->dock || !s->dock0 || !s->who || !s->who0) return MS_ENOMEM;
  /* every point fresh; the first step's neighbours count as docked (the
   * body starts whole) */
  for (size_t q = 0; q < count; q++) s->dock[q] = 1.0f, s->who[q] = UINT32_MAX;
  return MS_OK;
}

/* The cubic closest packing of a body (lattice = "ccp"): its shape
 * sampled cubic at D / sqrt 2, kept where i + j + k is even (counted
 * from the first point: the sampler's points share one grid), in place
 * of the cubic sampling; a density's mass over D^3 / sqrt 2 a particle.
 * A points shape is the user's and stays. */
static int pack(struct state *s, const struct body_keys *k,
                struct ms_points *pts, double *mass) {
  if (k->b.points) return MS_OK;
  const struct ms_host *h = s->host;
  double D = isnan(k->b.spacing) ? 2.0 * k->b.radius : k->b.spacing;
  double u = vm_unit(D, 1);
  struct ms_points fine = {0};
  int rc = h->sample_shape(s->ctx, k->b.shape, u, &fine);
  if (rc) return rc;
  size_t n = 0;
  for (size_t i = 0; i < fine.count; i++) {
    const double *x = fine.xyz + 3 * i;
    long p = 0;
    for (int a = 0; a < 3; a++) p += lround((x[a] - fine.xyz[a]) / u);
    if (p % 2) continue;
    memmove(fine.xyz + 3 * n++, x, 3 * sizeof *x);
  }
  fine.count = n;
  if (n < 4) {
    h->free(fine.xyz);
    return h->cfg_error(s->ctx, k->b.group, "shape", "holds %zu particle(s) "
                        "of the packing at spacing %g: a virtual-material "
                        "body needs at least 4", n, D);
  }
  h->free(pts->xyz);
  *pts = fine;
  if (isnan(k->b.mass))
    *mass = (isnan(k->b.density) ? 1000.0 : k->b.density) *
            vm_volume(D, 1) * (double)n;
  return MS_OK;
}

int vm_configure(struct state *s, const ms_config *sec) {
  const ms_config *list;
  uint32_t nb;
  struct body_keys def = {.b = MSC_BODY_UNSET, .k = 1000.0, .eta = NAN,
                          .c = NAN, .xsph = 0.5, .melt_T = NAN,
                          .melt_rate = 1.0, .freeze_T = NAN,
                          .freeze_rate = 1.0, .freeze_n = 4.0,
                          .freeze_v = NAN, .freeze_F = NAN, .dock_rate = NAN,
                          .dock_tau = NAN, .dock_strain = NAN,
                          .conductivity = 0.0};
  int rc;
  if ((rc = system_keys(s, sec)) ||
      (rc = msc_body_list(s->host, s->ctx, sec, &list, &nb)))
    return rc;
  if (list && ((rc = msc_body_defaults(s->host, s->ctx, sec, &def.b)) ||
               (rc = read_material(s, sec, &def, &def))))
    return rc;
  struct msc_bodies B;
  rc = msc_bodies_sample(s->host, s->ctx, sec, list, nb, sizeof(struct body_keys),
                         &def, read_body, s, 4, "a virtual-material body",
                         &B);
  for (uint32_t b = 0; !rc && s->ccp && b < nb; b++)
    rc = pack(s, (const struct body_keys *)B.keys + b, &B.pts[b], &B.mass[b]);
  if (!rc) {
    B.total = 0;
    for (uint32_t b = 0; b < nb; b++) B.total += B.pts[b].count;
    rc = alloc(s, B.total, nb);
  }
  for (uint32_t b = 0; !rc && b < nb; b++)
    rc = add_body(s, (const struct body_keys *)B.keys + b, &B.pts[b],
                  B.mass[b]);
  msc_bodies_free(s->host, &B);
  return rc ? rc : docking(s);
}
