/* shape_matching — the scene keys of a system (system section):
 *   substeps          position-based substeps per step, >= 1, default 1
 *   iterations        match-and-walls passes per substep, >= 1, default 2
 *                     (alpha is spread over them: the stiffness does not
 *                     depend on the count)
 *   cfl               the most a particle moves in a substep, in radii,
 *                     (0, 1], default 0.5: max_dt
 *   wall_restitution  normal restitution at the domain walls, [0, 1], 0.2
 *   wall_friction     Coulomb friction coefficient at the walls, >= 0, 0.5
 *   melt_into         the fluid system (one that accepts particles: flip)
 *                     a melting body's particles join (doc/heat.md
 *                     section 6)
 *   bodies            a list of body groups; without it the section is one
 * and of a body (a group of `bodies`, or the section): the keys every solid
 * plugin reads alike (plugins/common/bodies.h: shape, spacing, radius,
 * density or mass, velocity, angular_velocity, motion, temperature,
 * specific_heat) and
 *   mode              "rigid" | "linear" (default) | "quadratic"
 *   alpha             stiffness, (0, 1], default 1 (Gao's "stiffness")
 *   beta              share of the linear/quadratic fit in the goal,
 *                     [0, 1], default 0 (Gao's "elasticity")
 *   plastic_yield     strain |S - I| beyond which the body creeps, >= 0;
 *                     absent: elastic (linear and quadratic modes only)
 *   plastic_creep     creep rate [1/s], >= 0, default 20
 *   plastic_max       largest plastic strain |Sp - I|, > 0, default 1
 *   regions           [nx, ny, nz] overlapping clusters over the body's
 *                     bounding box (a soft, wobbly body), default [1, 1, 1]
 *   conductivity      [W/(m K)], >= 0: heat conducts between lattice
 *                     neighbours (k s each); absent: one temperature for
 *                     the body (lumped)
 *   melting_point     [K]: a particle above it fills its latent store,
 *                     then joins melt_into; absent: never melts
 *   latent_heat       [J/kg], >= 0, default 0: heat of melting
 *   melt_share        (0, 1], default 0.5: the share of m L a particle's
 *                     store holds when it turns fluid; it pays the rest
 *                     from its own heat (doc/heat.md section 6)
 * In a `bodies` list the section's spacing, radius, density, temperature,
 * specific heat and the keys above from mode on are the bodies' defaults. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "../common/bodies.h"
#include "shape_matching.h"

struct body_keys {
  struct msc_body b;
  double alpha, beta, yield, creep, cmax, regions[3];
  double conductivity; /* NAN: lumped */
  double melt_T, latent; /* melt_T NAN: never melts */
  double share;          /* melt_share */
  int mode;
};

_Static_assert((int)SM_DYNAMIC == (int)MSC_DYNAMIC &&
                   (int)SM_FIXED == (int)MSC_FIXED &&
                   (int)SM_SCRIPTED == (int)MSC_SCRIPTED,
               "enum sm_motion is enum msc_motion");

/* The shape-matching keys of group g, defaults from d. */
static int read_material(struct state *s, const ms_config *g,
                         const struct body_keys *d, struct body_keys *k) {
  static const char *const modes[3] = {"rigid", "linear", "quadratic"};
  const struct ms_host *h = s->host;
  ms_ctx *c = s->ctx;
  int rc;
  if ((rc = msc_pick3(h, c, g, "mode", modes, d->mode, &k->mode)) ||
      (rc = h->cfg_double(c, g, "alpha", d->alpha, &k->alpha)) ||
      (rc = ms_cfg_unit(h, c, g, "beta", d->beta, &k->beta)) ||
      (rc = ms_cfg_non_negative(h, c, g, "plastic_yield", d->yield,
                                &k->yield)) ||
      (rc = ms_cfg_non_negative(h, c, g, "plastic_creep", d->creep,
                                &k->creep)) ||
      (rc = ms_cfg_positive(h, c, g, "plastic_max", d->cmax, &k->cmax)) ||
      (rc = h->cfg_vec3(c, g, "regions", d->regions, k->regions)) ||
      (rc = ms_cfg_non_negative(h, c, g, "conductivity", d->conductivity,
                                &k->conductivity)) ||
      (rc = h->cfg_double(c, g, "melting_point", d->melt_T, &k->melt_T)) ||
      (rc = ms_cfg_non_negative(h, c, g, "latent_heat", d->latent,
                                &k->latent)) ||
      (rc = ms_cfg_unit(h, c, g, "melt_share", d->share, &k->share)))
    return rc;
  if (!(k->share > 0.0))
    return h->cfg_error(c, g, "melt_share", "must be in (0, 1] (got %g)",
                        k->share);
  if (!isnan(k->melt_T) && !(isfinite(k->melt_T) && k->melt_T > 0.0))
    return h->cfg_error(c, g, "melting_point", "must be a temperature > 0 "
                        "K (got %g)", k->melt_T);
  if (!isnan(k->melt_T) && !s->melt_into)
    return h->cfg_error(c, g, "melting_point", "needs the system's "
                        "melt_into: the name of the fluid system (flip or "
                        "sph) its melted particles join");
  if (!(k->alpha > 0.0 && k->alpha <= 1.0))
    return h->cfg_error(c, g, "alpha", "must be in (0, 1] (got %g)",
                        k->alpha);
  if (!isnan(k->yield) && k->mode == SM_RIGID)
    return h->cfg_error(c, g, "plastic_yield", "needs mode \"linear\" or "
                        "\"quadratic\": a rigid body does not deform");
  for (int a = 0; a < 3; a++)
    if (!(k->regions[a] >= 1.0 && k->regions[a] <= 64.0 &&
          k->regions[a] == floor(k->regions[a])))
      return h->cfg_error(c, g, "regions", "must be three whole numbers in "
                          "[1, 64] (got %g)", k->regions[a]);
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
  /* a kinematic body's path is its rest shape about its first centre:
   * losing particles would move it */
  if (!isnan(k->melt_T) && k->b.motion != SM_DYNAMIC)
    return s->host->cfg_error(s->ctx, g, "melting_point", "needs a dynamic "
                              "body (motion \"fixed\" or \"scripted\" "
                              "cannot melt)");
  return MS_OK;
}

/* Region (a, b, c) of n[] cells over [lo, hi], widened by half a cell on
 * every side: whether x lies in it. */
static int in_region(const double *x, const double *lo, const double *hi,
                     const int *n, const int *cell) {
  for (int a = 0; a < 3; a++) {
    double w = (hi[a] - lo[a]) / n[a], e = 1e-9 * (hi[a] - lo[a] + 1.0);
    if (x[a] < lo[a] + (cell[a] - 0.5) * w - e ||
        x[a] > lo[a] + (cell[a] + 1.5) * w + e)
      return 0;
  }
  return 1;
}

/* The clusters of body b (its particles at x): count their entries, or
 * with fill set, write them. */
static size_t clusters_of(struct state *s, const struct sm_body *b,
                          const int *n, int fill) {
  double lo[3] = {INFINITY, INFINITY, INFINITY},
         hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t i = b->first; i < b->first + b->count; i++)
    for (int a = 0; a < 3; a++)
      lo[a] = fmin(lo[a], s->x[3 * i + a]), hi[a] = fmax(hi[a], s->x[3 * i + a]);
  size_t total = 0;
  int cell[3];
  for (cell[0] = 0; cell[0] < n[0]; cell[0]++)
    for (cell[1] = 0; cell[1] < n[1]; cell[1]++)
      for (cell[2] = 0; cell[2] < n[2]; cell[2]++) {
        uint32_t cnt = 0;
        for (size_t i = b->first; i < b->first + b->count; i++)
          cnt += (uint32_t)in_region(s->x + 3 * i, lo, hi, n, cell);
        if (cnt < 4) continue;
        total += cnt;
        if (!fill) continue;
        struct sm_cluster *c = &s->clus[s->nclusters++];
        memset(c, 0, sizeof *c);
        c->off = (uint32_t)s->nentries, c->cnt = cnt;
        c->body = (uint32_t)(b - s->body);
        c->origin = (uint32_t)(c - s->clus);
        c->qr[0] = 1.0;
        for (int i = 0; i < 9; i++) c->Sp[i] = i % 4 == 0 ? 1.0 : 0.0;
        for (size_t i = b->first; i < b->first + b->count; i++)
          if (in_region(s->x + 3 * i, lo, hi, n, cell)) {
            s->ep[s->nentries++] = (uint32_t)i;
            s->nclus[i]++;
          }
      }
  return total;
}

/* Weights and rest offsets of cluster c from the particles now. */
static void rest_offsets(struct state *s, struct sm_cluster *c) {
  for (uint32_t e = c->off; e < c->off + c->cnt; e++)
    memcpy(s->eqs + 3 * e, s->x + 3 * s->ep[e], 3 * sizeof(double));
  sm_reweigh(s, c);
  memcpy(s->eq + 3 * c->off, s->eq0 + 3 * c->off, 3 * c->cnt * sizeof(double));
}

static int build_clusters(struct state *s, const struct body_keys *keys) {
  size_t entries = 0, nclus = 0;
  int n[3];
  for (uint32_t b = 0; b < s->nbody; b++) {
    for (int a = 0; a < 3; a++)
      n[a] = s->body[b].motion == SM_DYNAMIC ? (int)keys[b].regions[a] : 1;
    entries += clusters_of(s, &s->body[b], n, 0);
    nclus += (size_t)n[0] * n[1] * n[2];
  }
  s->clus = calloc(nclus, sizeof *s->clus);
  s->ep = malloc(entries * sizeof *s->ep);
  s->ew = malloc(entries * sizeof *s->ew);
  s->eq0 = malloc(3 * entries * sizeof *s->eq0);
  s->eq = malloc(3 * entries * sizeof *s->eq);
  s->eqs = malloc(3 * entries * sizeof *s->eqs);
  s->ep3 = malloc(3 * entries * sizeof *s->ep3);
  s->eg = malloc(3 * entries * sizeof *s->eg);
  s->aqq9 = calloc(81 * nclus, sizeof *s->aqq9);
  s->clus0 = malloc(13 * nclus * sizeof *s->clus0);
  if (!s->clus || !s->ep || !s->ew || !s->eq0 || !s->eq || !s->eqs ||
      !s->ep3 ||
      !s->eg || !s->aqq9 || !s->clus0)
    return MS_ENOMEM;
  for (uint32_t b = 0; b < s->nbody; b++) {
    struct sm_body *B = &s->body[b];
    for (int a = 0; a < 3; a++)
      n[a] = B->motion == SM_DYNAMIC ? (int)keys[b].regions[a] : 1;
    B->cfirst = s->nclusters;
    clusters_of(s, B, n, 1);
    B->ccount = s->nclusters - B->cfirst;
    for (size_t i = B->first; i < B->first + B->count; i++)
      if (!s->nclus[i])
        return s->host->cfg_error(s->ctx, keys[b].b.group, "regions", "too "
                                  "fine: a particle is in no region of 4 "
                                  "or more particles");
  }
  for (uint32_t c = 0; c < s->nclusters; c++) rest_offsets(s, &s->clus[c]);
  for (uint32_t c = 0; c < s->nclusters; c++) {
    struct sm_cluster *C = &s->clus[c];
    const struct body_keys *k = &keys[C->body];
    int mode = s->body[C->body].motion == SM_DYNAMIC ? k->mode : SM_RIGID;
    if (sm_rest(C, s->ew + C->off, s->eq + 3 * C->off, mode,
                s->aqq9 + 81 * (size_t)c))
      continue;
    const char *key = C->cnt < s->body[C->body].count ? "regions" : "shape";
    return s->host->cfg_error(
        s->ctx, k->b.group, key, mode == SM_LINEAR
            ? "its particles lie in a plane: the linear mode needs a solid "
              "rest shape"
            : "too few layers of particles: the quadratic mode needs at "
              "least three along every axis, not all in a plane");
  }
  return MS_OK;
}

static void add_body(struct state *s, const struct body_keys *k,
                     const struct ms_points *pts, double mass) {
  struct sm_body *b = &s->body[s->nbody];
  size_t n0 = s->n, n = pts->count;
  memset(b, 0, sizeof *b);
  b->first = n0, b->count = n, b->motion = k->b.motion, b->mode = k->mode;
  b->alpha = k->alpha, b->beta = k->beta, b->mass = mass;
  b->yield = isnan(k->yield) ? INFINITY : k->yield;
  b->creep = k->creep, b->cmax = k->cmax;
  b->conductivity = k->conductivity;
  b->melt_T = isnan(k->melt_T) ? INFINITY : k->melt_T;
  b->latent = k->latent, b->share = k->share;
  b->spacing = isnan(k->b.spacing) ? 2.0 * k->b.radius : k->b.spacing;
  s->melts |= !isnan(k->melt_T);
  double c[3] = {0, 0, 0};
  for (size_t i = 0; i < n; i++)
    for (int a = 0; a < 3; a++) c[a] += pts->xyz[3 * i + a] / (double)n;
  memcpy(b->c0, c, sizeof c);
  memcpy(b->V, k->b.vel, sizeof b->V);
  memcpy(b->w, k->b.omega, sizeof b->w);
  for (size_t i = 0; i < n; i++) {
    size_t p = n0 + i;
    s->m[p] = mass / (double)n, s->r[p] = k->b.radius, s->body_of[p] = s->nbody;
    s->T[p] = k->b.temperature, s->c[p] = k->b.specific_heat;
    s->nclus[p] = 0;
    s->orig[p] = (uint32_t)p;
    const double *x = pts->xyz + 3 * i;
    double d[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
    for (int a = 0; a < 3; a++) s->x[3 * p + a] = s->xr[3 * p + a] = x[a];
    const double *V = k->b.vel, *w = k->b.omega;
    s->v[3 * p + 0] = V[0] + w[1] * d[2] - w[2] * d[1];
    s->v[3 * p + 1] = V[1] + w[2] * d[0] - w[0] * d[2];
    s->v[3 * p + 2] = V[2] + w[0] * d[1] - w[1] * d[0];
    if (k->b.motion == SM_FIXED)
      s->v[3 * p] = s->v[3 * p + 1] = s->v[3 * p + 2] = 0.0;
  }
  s->n += n;
  s->nbody++;
}

/* Conduction inside body b: its lattice neighbours (rest distance within
 * 1.01 spacings: the six faces of a particle's cube) conduct through
 * k s, a face of area s^2 across a distance s. */
static int heat_pairs(struct state *s, uint32_t b, double spacing,
                      double k) {
  const struct sm_body *B = &s->body[b];
  struct ms_neighbors nb = {0};
  int rc = s->host->neighbors(s->ctx, s->x + 3 * B->first, 3 * sizeof(double),
                              B->count, 1.01 * spacing, &nb);
  if (rc) return rc;
  size_t add = 0;
  for (size_t i = 0; i < B->count; i++)
    for (uint32_t q = nb.offset[i]; q < nb.offset[i + 1]; q++)
      add += nb.index[q] > i;
  uint32_t *hp = realloc(s->hp, 2 * (s->nhp + add + 1) * sizeof *hp);
  double *hG = hp ? realloc(s->hG, (s->nhp + add + 1) * sizeof *hG) : NULL;
  if (hp) s->hp = hp;
  if (hG) s->hG = hG;
  if (!hp || !hG) {
    s->host->neighbors_release(s->ctx, &nb);
    return MS_ENOMEM;
  }
  for (size_t i = 0; i < B->count; i++)
    for (uint32_t q = nb.offset[i]; q < nb.offset[i + 1]; q++) {
      uint32_t j = nb.index[q];
      if (j <= i) continue;
      s->hp[2 * s->nhp] = (uint32_t)(B->first + i);
      s->hp[2 * s->nhp + 1] = (uint32_t)(B->first + j);
      s->hG[s->nhp++] = k * spacing;
    }
  s->host->neighbors_release(s->ctx, &nb);
  return MS_OK;
}

static int alloc(struct state *s, size_t n, uint32_t nbody) {
  size_t k = n ? n : 1, d3 = 3 * k * sizeof(double);
  s->x = malloc(d3), s->v = malloc(d3), s->x0 = malloc(d3);
  s->v0 = malloc(d3), s->xs = malloc(d3), s->dx = malloc(d3);
  s->dd = malloc(d3), s->xr = malloc(d3);
  s->m = malloc(k * sizeof(double)), s->r = malloc(k * sizeof(double));
  s->T = malloc(k * sizeof(double)), s->c = malloc(k * sizeof(double));
  s->lam = calloc(k, sizeof(double));
  s->orig = malloc(k * sizeof(uint32_t));
  s->meta = malloc(k * sizeof(int32_t));
  s->body_of = malloc(k * sizeof(uint32_t));
  s->nclus = calloc(k, sizeof(uint32_t));
  s->body = calloc(nbody, sizeof *s->body);
  s->dL = calloc(3 * (size_t)nbody, sizeof *s->dL);
  return s->dL && s->dd && s->xr && s->x && s->v && s->x0 && s->v0 && s->xs &&
                 s->dx && s->m && s->r && s->T && s->c && s->lam &&
                 s->orig && s->meta &&
                 s->body_of &&
                 s->nclus && s->body
             ? MS_OK
             : MS_ENOMEM;
}

static int system_keys(struct state *s, const ms_config *sec) {
  const struct ms_host *h = s->host;
  int rc;
  int64_t sub, it;
  if ((rc = h->cfg_int(s->ctx, sec, "substeps", 1, &sub)) ||
      (rc = h->cfg_int(s->ctx, sec, "iterations", 2, &it)) ||
      (rc = h->cfg_double(s->ctx, sec, "cfl", 0.5, &s->cfl)) ||
      (rc = ms_cfg_unit(h, s->ctx, sec, "wall_restitution", 0.2,
                        &s->restitution)) ||
      (rc = ms_cfg_non_negative(h, s->ctx, sec, "wall_friction", 0.5,
                                &s->friction)))
    return rc;
  const char *into;
  if ((rc = h->cfg_string(s->ctx, sec, "melt_into", NULL, &into))) return rc;
  if (into && !strcmp(into, h->scene(s->ctx)->system_name))
    return h->cfg_error(s->ctx, sec, "melt_into", "names this system "
                        "itself; give the fluid system its melted "
                        "particles join");
  if (into) {
    size_t len = strlen(into) + 1;
    if (!(s->melt_into = malloc(len))) return MS_ENOMEM;
    memcpy(s->melt_into, into, len);
    /* ABI 1.4: a wrong target fails when the scene opens, not at the
     * first particle that melts */
    if (MS_HOST_HAS(h, declare_receiver) &&
        (rc = h->declare_receiver(s->ctx, sec, "melt_into", into)))
      return rc;
  }
  if (sub < 1 || sub > 1000)
    return h->cfg_error(s->ctx, sec, "substeps", "must be in [1, 1000] "
                        "(got %lld)", (long long)sub);
  if (it < 1 || it > 100)
    return h->cfg_error(s->ctx, sec, "iterations", "must be in [1, 100] "
                        "(got %lld)", (long long)it);
  if (!(s->cfl > 0.0 && s->cfl <= 1.0))
    return h->cfg_error(s->ctx, sec, "cfl", "must be in (0, 1] radii per "
                        "substep (got %g)", s->cfl);
  s->substeps = (int)sub, s->iterations = (int)it;
  return MS_OK;
}

int sm_configure(struct state *s, const ms_config *sec) {
  const ms_config *list;
  uint32_t nb;
  struct body_keys def = {.b = MSC_BODY_UNSET,
                          .mode = SM_LINEAR, .alpha = 1.0, .beta = 0.0,
                          .yield = NAN, .creep = 20.0, .cmax = 1.0,
                          .conductivity = NAN, .melt_T = NAN,
                          .latent = 0.0, .share = 0.5,
                          .regions = {1, 1, 1}};
  int rc;
  if ((rc = system_keys(s, sec)) ||
      (rc = msc_body_list(s->host, s->ctx, sec, &list, &nb)))
    return rc;
  if (list && ((rc = msc_body_defaults(s->host, s->ctx, sec, &def.b)) ||
               (rc = read_material(s, sec, &def, &def))))
    return rc;
  struct msc_bodies B;
  rc = msc_bodies_sample(s->host, s->ctx, sec, list, nb, sizeof(struct body_keys),
                         &def, read_body, s, 4, "a shape-matching body", &B);
  const struct body_keys *keys = B.keys;
  if (!rc) rc = alloc(s, B.total, nb);
  for (uint32_t b = 0; !rc && b < nb; b++)
    add_body(s, &keys[b], &B.pts[b], B.mass[b]);
  if (!rc) rc = build_clusters(s, keys);
  for (uint32_t b = 0; !rc && b < nb; b++)
    if (!isnan(keys[b].conductivity))
      rc = heat_pairs(s, b, isnan(keys[b].b.spacing) ? 2.0 * keys[b].b.radius
                                                     : keys[b].b.spacing,
                      keys[b].conductivity);
  msc_bodies_free(s->host, &B);
  return rc;
}
