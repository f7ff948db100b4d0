/* shape_matching — the plugin: the descriptor and its entry points
 * (create, view, the step, save/load).  Model: shape_matching.h; keys: config.c; the
 * step: step.c; the math: match.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "../common/bodies.h"
#include "shape_matching.h"

#define S(inst) ((struct state *)(void *)(inst))

static void destroy(ms_instance *inst) {
  struct state *s = S(inst);
  if (!s) return;
  free(s->x), free(s->v), free(s->m), free(s->r), free(s->x0), free(s->v0);
  free(s->T), free(s->c), free(s->hp), free(s->hG);
  free(s->xs), free(s->dx), free(s->body_of), free(s->nclus), free(s->body);
  free(s->clus), free(s->ep), free(s->ew), free(s->eq0), free(s->eq);
  free(s->ep3), free(s->eg), free(s->aqq9), free(s->clus0), free(s->meta);
  free(s->host_of), free(s->pin), free(s->mV), free(s->mD), free(s->touch);
  free(s->dL), free(s->dd), free(s->share), free(s->contacts);
  free(s->lam), free(s->orig), free(s->xr), free(s->eqs), free(s->melt_into);
  free(s->give), free(s->give_to);
  free(s);
}

static int create(const struct ms_host *host, ms_ctx *ctx,
                  const ms_config *sec, ms_instance **out) {
  struct state *s = calloc(1, sizeof *s);
  if (!s) return MS_ENOMEM;
  s->host = host, s->ctx = ctx;
  const struct ms_scene_info *info = host->scene(ctx);
  memcpy(s->gravity, info->gravity, sizeof s->gravity);
  memcpy(s->lo, info->domain_min, sizeof s->lo);
  memcpy(s->hi, info->domain_max, sizeof s->hi);
  int rc = sm_configure(s, sec);
  if (!rc && !(s->touch = calloc(s->n ? s->n : 1, 1))) rc = MS_ENOMEM;
  /* wall contacts: up to three walls for each particle of the largest
   * body */
  size_t most = 1;
  for (uint32_t b = 0; !rc && b < s->nbody; b++)
    if (s->body[b].count > most) most = s->body[b].count;
  s->cap_contacts = (uint32_t)(3 * most);
  if (!rc && !(s->contacts = malloc(s->cap_contacts * (size_t)SM_CONTACT_SIZE)))
    rc = MS_ENOMEM;
  if (rc) {
    destroy((ms_instance *)(void *)s);
    return rc == MS_ENOMEM ? host->set_error(ctx, rc, "out of memory") : rc;
  }
  memcpy(s->x0, s->x, 3 * s->n * sizeof(double));
  memcpy(s->v0, s->v, 3 * s->n * sizeof(double));
  const size_t v3 = 3 * sizeof(double), v1 = sizeof(double);
  s->fields[0] = (struct ms_field){"position", MS_TYPE_F64, 3, v3, s->x};
  s->fields[1] = (struct ms_field){"velocity", MS_TYPE_F64, 3, v3, s->v};
  s->fields[2] = (struct ms_field){"mass", MS_TYPE_F64, 1, v1, s->m};
  s->fields[3] = (struct ms_field){"radius", MS_TYPE_F64, 1, v1, s->r};
  s->fields[4] = (struct ms_field){"temperature", MS_TYPE_F64, 1, v1, s->T};
  s->fields[6] = (struct ms_field){"latent_heat", MS_TYPE_F64, 1, v1, s->lam};
  s->fields[5] = (struct ms_field){"specific_heat", MS_TYPE_F64, 1, v1,
                                   s->c};
  *out = (ms_instance *)(void *)s;
  return MS_OK;
}

static int view(ms_instance *inst, struct ms_view *out) {
  struct state *s = S(inst);
  out->count = s->n;
  out->field_count = s->melts ? 7 : 6;
  out->fields = s->fields;
  return MS_OK;
}

/* What a step changes besides the particles: the clusters' plastic state
 * and warm-start rotation. */
static void keep_clusters(struct state *s) {
  for (uint32_t c = 0; c < s->nclusters; c++) {
    memcpy(s->clus0 + 13 * (size_t)c, s->clus[c].Sp, 9 * sizeof(double));
    memcpy(s->clus0 + 13 * (size_t)c + 9, s->clus[c].qr, 4 * sizeof(double));
  }
}

static void restore_clusters(struct state *s) {
  for (uint32_t c = 0; c < s->nclusters; c++) {
    struct sm_cluster *C = &s->clus[c];
    int plastic = memcmp(C->Sp, s->clus0 + 13 * (size_t)c, sizeof C->Sp);
    memcpy(C->Sp, s->clus0 + 13 * (size_t)c, sizeof C->Sp);
    memcpy(C->qr, s->clus0 + 13 * (size_t)c + 9, sizeof C->qr);
    if (plastic) sm_replastic(s, c);
  }
}

static int max_dt(ms_instance *inst, double *dt) {
  double d = sm_max_dt(S(inst));
  if (d < *dt) *dt = d;
  return MS_OK;
}

static int begin_step(ms_instance *inst, const struct ms_step *st) {
  struct state *s = S(inst);
  /* the heat the core moved into some of its particles (W3) spreads: at
   * once through a lumped body, over its lattice pairs through one that
   * conducts (each pair exact over the step, in a fixed order) */
  for (uint32_t b = 0; b < s->nbody; b++)
    if (isnan(s->body[b].conductivity))
      msc_body_lump_heat(s->body[b].first, s->body[b].count, s->m, s->c,
                         s->T);
  for (size_t q = 0; q < s->nhp; q++) {
    uint32_t i = s->hp[2 * q], j = s->hp[2 * q + 1];
    ms_heat_pair(&s->T[i], s->m[i] * s->c[i], &s->T[j], s->m[j] * s->c[j],
                 s->hG[q], st->dt);
  }
  /* then melting bodies store what is above their melting point */
  if (s->melts) s->host->report(s->ctx, "latent_absorbed", sm_melt_store(s));
  memcpy(s->x0, s->x, 3 * s->n * sizeof(double));
  memcpy(s->v0, s->v, 3 * s->n * sizeof(double));
  keep_clusters(s);
  return MS_OK;
}

static int rewind_step(ms_instance *inst) {
  struct state *s = S(inst);
  memcpy(s->x, s->x0, 3 * s->n * sizeof(double));
  memcpy(s->v, s->v0, 3 * s->n * sizeof(double));
  restore_clusters(s);
  return MS_OK;
}

/* The particles of one body never collide with each other. */
static int filter_pairs(ms_instance *inst, const uint32_t *pairs, size_t count,
                        uint8_t *keep) {
  struct state *s = S(inst);
  for (size_t k = 0; k < count; k++)
    keep[k] = s->body_of[pairs[2 * k]] != s->body_of[pairs[2 * k + 1]];
  return MS_OK;
}

static int integrate(ms_instance *inst, const struct ms_step *st,
                     const struct ms_metas *metas,
                     struct ms_meta_result *res) {
  struct state *s = S(inst);
  if (sm_step(s, st, metas, res))
    return s->host->set_error(s->ctx, MS_ENOMEM, "out of memory");
  for (size_t i = 0; i < 3 * s->n; i++)
    if (!isfinite(s->x[i]) || !isfinite(s->v[i]))
      return s->host->set_error(s->ctx, MS_ESTATE, "particle %zu of body %u "
                                "is not finite after the step",
                                i / 3, s->body_of[i / 3]);
  return MS_OK;
}

static int meta_inertia(ms_instance *inst, const struct ms_step *st,
                        const struct ms_metas *metas, double *inertia) {
  struct state *s = S(inst);
  (void)st;
  if (sm_meta_inertia(s, metas, inertia))
    return s->host->set_error(s->ctx, MS_ENOMEM, "out of memory");
  return MS_OK;
}

static int meta_response(ms_instance *inst, const struct ms_step *st,
                         const struct ms_metas *metas,
                         const struct ms_meta_response *r) {
  return sm_meta_response(S(inst), st, metas, r);
}

/* Particles whose latent store is full join melt_into. */
static int hand_over(ms_instance *inst, struct ms_handover *out) {
  struct state *s = S(inst);
  if (!s->melts) return MS_OK;
  if (sm_melt_list(s, out))
    return s->host->set_error(s->ctx, MS_ENOMEM, "out of memory");
  return MS_OK;
}

static int release(ms_instance *inst, const struct ms_handover *given) {
  struct state *s = S(inst);
  uint32_t pieces = 0;
  int rc = sm_melt_release(s, given, &pieces);
  if (rc == MS_ENOMEM)
    return s->host->set_error(s->ctx, rc, "out of memory");
  if (rc) return rc;
  s->host->report(s->ctx, "melted", (double)given->count);
  if (pieces) s->host->report(s->ctx, "pieces", (double)pieces);
  return MS_OK;
}

/* The substep's length, for energy() (not in integrate: rewind would
 * have to undo it). */
static int end_step(ms_instance *inst, const struct ms_step *st) {
  struct state *s = S(inst);
  s->h = st->dt / s->substeps;
  return MS_OK;
}

/* The particles' kinetic and gravitational energy, and the deformation's
 * (sm_internal_energy). */
static int energy(ms_instance *inst, struct ms_energy *out) {
  struct state *s = S(inst);
  ms_energy_of_particles(s->n, s->x, s->v, s->m, s->gravity, out);
  out->internal = sm_internal_energy(s);
  return MS_OK;
}

/* The particles, the last substep's length (for energy()) and every
 * cluster's plastic state and warm start. */
static int save(ms_instance *inst, const struct ms_stream *out) {
  struct state *s = S(inst);
  uint64_t n = s->n, nc = s->nclusters;
  size_t v3 = 3 * s->n * sizeof(double);
  int rc = out->write(out->opaque, &n, sizeof n);
  if (!rc) rc = out->write(out->opaque, &nc, sizeof nc);
  if (!rc) rc = out->write(out->opaque, &s->h, sizeof s->h);
  /* melting: which particles are left, and their latent stores */
  if (!rc && s->melts) rc = out->write(out->opaque, s->orig, n * 4);
  if (!rc && s->melts) rc = out->write(out->opaque, s->lam, n * 8);
  if (!rc && s->melts)
    rc = out->write(out->opaque, &s->melted_latent, sizeof(double));
  if (!rc) rc = out->write(out->opaque, s->x, v3);
  if (!rc) rc = out->write(out->opaque, s->v, v3);
  if (!rc) rc = out->write(out->opaque, s->T, s->n * sizeof(double));
  for (uint32_t c = 0; !rc && c < s->nclusters; c++) {
    rc = out->write(out->opaque, s->clus[c].Sp, sizeof s->clus[c].Sp);
    if (!rc) rc = out->write(out->opaque, s->clus[c].qr, sizeof s->clus[c].qr);
  }
  return rc;
}

/* Loading a melting scene: drop the particles the saved run had handed
 * over (the melt's rebuild, pieces included, depends only on which are
 * left: the order it gives must be the saved one), then read the
 * stores. */
static int melted_since(struct state *s, const struct ms_stream *in,
                        size_t n) {
  uint32_t *keep = malloc((n ? n : 1) * sizeof *keep);
  uint8_t *kept = calloc(s->n ? s->n : 1, 1);
  struct ms_handover gone = {sizeof gone, 0, NULL, NULL};
  int rc = keep && kept ? in->read(in->opaque, keep, n * sizeof *keep)
                        : MS_ENOMEM;
  uint32_t *idx = rc ? NULL : malloc((s->n ? s->n : 1) * sizeof *idx);
  if (!rc && !idx) rc = MS_ENOMEM;
  int bad = 0;
  for (size_t k = 0; !rc && k < n; k++) {
    bad |= keep[k] >= s->n || kept[keep[k]];
    if (!bad) kept[keep[k]] = 1;
  }
  for (size_t i = 0; !rc && !bad && i < s->n; i++)
    if (!kept[i]) idx[gone.count++] = (uint32_t)i;
  gone.index = idx;
  if (!rc && !bad && gone.count) rc = sm_melt_release(s, &gone, NULL);
  if (!rc && !bad) bad = memcmp(keep, s->orig, n * sizeof *keep) != 0;
  if (!rc && bad)
    rc = s->host->set_error(s->ctx, MS_ESTATE, "saved state keeps "
                            "particles this scene does not have, or in "
                            "another order");
  if (!rc) rc = in->read(in->opaque, s->lam, n * sizeof *s->lam);
  if (!rc) rc = in->read(in->opaque, &s->melted_latent, sizeof(double));
  free(keep), free(kept), free(idx);
  return rc == MS_ENOMEM ? s->host->set_error(s->ctx, rc, "out of memory")
                         : rc;
}

static int load(ms_instance *inst, const struct ms_stream *in) {
  struct state *s = S(inst);
  uint64_t n, nc;
  int rc = in->read(in->opaque, &n, sizeof n);
  if (!rc) rc = in->read(in->opaque, &nc, sizeof nc);
  if (rc) return rc;
  if (!rc) rc = in->read(in->opaque, &s->h, sizeof s->h);
  if (!rc && s->melts && n <= s->n) rc = melted_since(s, in, (size_t)n);
  if (rc) return rc;
  if (n != s->n || nc != s->nclusters)
    return s->host->set_error(s->ctx, MS_ESTATE, "saved state holds %llu "
                              "particles in %llu clusters, the scene %zu in "
                              "%u", (unsigned long long)n,
                              (unsigned long long)nc, s->n, s->nclusters);
  size_t v3 = 3 * s->n * sizeof(double);
  if (!rc) rc = in->read(in->opaque, s->x, v3);
  if (!rc) rc = in->read(in->opaque, s->v, v3);
  if (!rc) rc = in->read(in->opaque, s->T, s->n * sizeof(double));
  for (uint32_t c = 0; !rc && c < s->nclusters; c++) {
    rc = in->read(in->opaque, s->clus[c].Sp, sizeof s->clus[c].Sp);
    if (!rc) rc = in->read(in->opaque, s->clus[c].qr, sizeof s->clus[c].qr);
    if (!rc && isfinite(s->body[s->clus[c].body].yield)) sm_replastic(s, c);
  }
  return rc;
}

static const struct ms_plugin shape_matching = {
    MS_PLUGIN_HEADER_INIT_NEEDS(1),
    MS_PLUGIN_METHODS,
    /* heat: one temperature per body; a 1.2 core ignores the flag */
    .flags = MS_PLUGIN_SELF_COLLISION | MS_PLUGIN_HEAT,
    .id = "shape_matching",
    .name = "Meshless shape matching",
    .version = PACKAGE_VERSION,
    .license = "MIT",
    .description = "rigid, linear and quadratic shape matching with "
                   "plasticity and regions; contacts answer with the body "
                   "(ABI 1.1)",
    .max_dt = max_dt,
    .filter_pairs = filter_pairs,
    .energy = energy,
    .meta_inertia = meta_inertia,
    .meta_response = meta_response,
    .hand_over = hand_over,
    .release = release,
};

MS_PLUGIN_EXPORT_ONE(shape_matching)
