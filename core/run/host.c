/* The services table handed to plugins (struct ms_host). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../scene/scene.h"
#include "../detection/detection.h"
#include "run.h"

#ifdef _OPENMP
#include <omp.h>
#endif

void ms__log(struct ms_sim *S, int level, const char *fmt, ...) {
  char line[1024];
  va_list ap;
  if (level > S->opt.verbosity) return;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
#pragma omp critical(ms__log)
  {
    if (S->opt.log)
      S->opt.log(S->opt.log_opaque, level, line);
    else
      fprintf(stderr, "mergesplit: %s%s\n",
              level == MS_LOG_ERROR ? "error: "
              : level == MS_LOG_WARN ? "warning: " : "",
              line);
  }
}

static void h_log(ms_ctx *ctx, int level, const char *fmt, ...) {
  char msg[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  ms__log(ctx->sim, level, "[%s] %s", ctx->info.system_name, msg);
}

static int h_set_error(ms_ctx *ctx, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ms__verrf(&ctx->err, status, fmt, ap);
  va_end(ap);
  return status;
}

static const struct ms_scene_info *h_scene(ms_ctx *ctx) { return &ctx->info; }

static const config_setting_t *C(const ms_config *c) {
  return (const config_setting_t *)c;
}

static int h_cfg_double(ms_ctx *ctx, const ms_config *g, const char *key,
                        double def, double *out) {
  return ms__cfg_double(C(g), key, def, out, &ctx->err);
}
static int h_cfg_int(ms_ctx *ctx, const ms_config *g, const char *key,
                     int64_t def, int64_t *out) {
  return ms__cfg_int(C(g), key, def, out, &ctx->err);
}
static int h_cfg_bool(ms_ctx *ctx, const ms_config *g, const char *key,
                      int def, int *out) {
  return ms__cfg_bool(C(g), key, def, out, &ctx->err);
}
static int h_cfg_string(ms_ctx *ctx, const ms_config *g, const char *key,
                        const char *def, const char **out) {
  return ms__cfg_string(C(g), key, def, out, &ctx->err);
}
static int h_cfg_vec3(ms_ctx *ctx, const ms_config *g, const char *key,
                      const double *def, double out[3]) {
  return ms__cfg_vec3(C(g), key, def, out, &ctx->err);
}
static int h_cfg_child(ms_ctx *ctx, const ms_config *g, const char *key,
                       const ms_config **out) {
  config_setting_t *s = ms__cfg_get(C(g), key);
  *out = (const ms_config *)s;
  if (!s) return MS_ENOENT;
  if (!config_setting_is_aggregate(s)) {
    ms__cfg_fail(&ctx->err, s, NULL, "must be a group, a list or an array");
    return ctx->err.status = MS_ETYPE;
  }
  return MS_OK;
}
static uint32_t h_cfg_length(ms_ctx *ctx, const ms_config *s) {
  return s && config_setting_is_aggregate(C(s))
             ? (uint32_t)config_setting_length(C(s))
             : 0;
}
static int h_cfg_index(ms_ctx *ctx, const ms_config *s, uint32_t i,
                       const ms_config **out) {
  config_setting_t *e = s ? config_setting_get_elem(C(s), i) : NULL;
  *out = (const ms_config *)e;
  if (!e) return MS_ENOENT;
  ms__cfg_mark(e);
  return MS_OK;
}
static int h_cfg_error(ms_ctx *ctx, const ms_config *g, const char *key,
                       const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!g) return ms__errf(&ctx->err, MS_ECONFIG, "%s", msg);
  return ms__cfg_fail(&ctx->err, C(g), key, "%s", msg);
}

/* Every shape of the run draws on one particle budget (--max-particles). */
static int h_sample_shape(ms_ctx *ctx, const ms_config *shape, double spacing,
                          struct ms_points *out) {
  struct ms_sim *S = ctx->sim;
  uint64_t max = S->opt.max_particles ? S->opt.max_particles
                                      : MS_DEFAULT_MAX_PARTICLES;
  size_t left = S->sampled < max ? (size_t)(max - S->sampled) : 0;
  int rc = ms__shape_sample(C(shape), spacing, left, &ctx->rng, &out->xyz,
                            &out->count, &ctx->err);
  if (rc == MS_OK) S->sampled += out->count;
  return rc;
}

static int h_shape_field(ms_ctx *ctx, const ms_config *shape,
                         const char *name, size_t count, uint32_t comps,
                         double *out) {
  if (!name || !out || (comps != 1 && comps != 3))
    return ms__errf(&ctx->err, MS_EINVAL, "shape_field(): a name, an output "
                    "and 1 or 3 components are required");
  return ms__shape_field(C(shape), name, count, comps, out, &ctx->err);
}

static void h_free(void *p) { free(p); }
static uint64_t h_rng_u64(ms_ctx *ctx) { return ms__rng_u64(&ctx->rng); }
static double h_rng_uniform(ms_ctx *ctx) {
  return ms__rng_uniform(&ctx->rng);
}

static int h_system_particles(ms_ctx *ctx, uint32_t index, const double **xyz,
                              const double **radius, size_t *count) {
  struct ms_sim *S = ctx->sim;
  if (index >= S->nsys)
    return ms__errf(&ctx->err, MS_EINVAL, "system index %u out of range",
                    index);
  if (S->stepper.P.n != S->stepper.ntotal)
    return ms__errf(&ctx->err, MS_EINVAL,
                    "system_particles() is only valid during a step");
  const struct ms__system *y = &S->sys[index];
  *xyz = S->stepper.P.x + 3 * y->offset;
  *radius = S->stepper.P.r + y->offset;
  *count = y->view.count;
  return MS_OK;
}

static int h_system_view(ms_ctx *ctx, uint32_t index, struct ms_view *out) {
  struct ms_sim *S = ctx->sim;
  if (index >= S->nsys)
    return ms__errf(&ctx->err, MS_EINVAL, "system index %u out of range",
                    index);
  uint32_t size = out->struct_size && out->struct_size < sizeof *out
                      ? out->struct_size
                      : (uint32_t)sizeof *out;
  ms__memcpy(out, &S->sys[index].view, size);
  out->struct_size = size;
  return MS_OK;
}

static int h_neighbors(ms_ctx *ctx, const double *xyz, size_t stride,
                       size_t count, double radius, struct ms_neighbors *nb) {
  int rc = ms__neighbors_build(xyz, stride, count, radius, nb);
  if (rc == MS_EINVAL)
    return ms__errf(&ctx->err, rc, "neighbors(): radius %g must be > 0 and "
                    "positions finite", radius);
  if (rc) return ms__errf(&ctx->err, rc, "neighbors(): out of memory");
  return MS_OK;
}

static void h_neighbors_release(ms_ctx *ctx, struct ms_neighbors *nb) {
  ms__neighbors_release(nb);
}

static int h_thread_count(ms_ctx *ctx) { return ctx->sim->threads; }

static void h_report(ms_ctx *ctx, const char *name, double value) {
#pragma omp critical(ms__report)
  {
    size_t i = 0;
    while (i < ctx->nstats && strcmp(ctx->stats[i].name, name)) i++;
    if (i == ctx->nstats && i == ctx->cap_stats) {
      size_t c = ctx->cap_stats ? 2 * ctx->cap_stats : 8;
      void *p = realloc(ctx->stats, c * sizeof *ctx->stats);
      if (p) ctx->stats = p, ctx->cap_stats = c;
    }
    if (i < ctx->cap_stats) {
      if (i == ctx->nstats) {
        ms__strlcpy(ctx->stats[i].name, name, sizeof ctx->stats[i].name);
        ctx->stats[i].value = 0.0;
        ctx->nstats++;
      }
      ctx->stats[i].value += value;
    }
  }
}

/* ABI 1.2: the system's share of its meta-particles' spin (step.c fills
 * it after the split); valid during end_step. */
static int h_meta_spin(ms_ctx *ctx, const double **spin, uint32_t *count) {
  const struct ms__sysmetas *sm = &ctx->sim->sys[ctx->index].sm;
  int ready = ctx->sim->stepper.spin_ready;
  *spin = ready ? sm->spin : NULL;
  *count = ready ? sm->count : 0;
  return MS_OK;
}

/* ABI 1.4: remembered here, checked by ms__systems_create once every
 * system exists. */
static int h_declare_receiver(ms_ctx *ctx, const ms_config *g,
                              const char *key, const char *name) {
  if (!name || !ctx->creating) return MS_EINVAL;
  struct ms__receiver *r = realloc(ctx->recv, (ctx->nrecv + 1) * sizeof *r);
  if (!r) return MS_ENOMEM;
  ctx->recv = r;
  r += ctx->nrecv;
  r->group = g;
  r->key = strdup(key ? key : "");
  r->name = strdup(name);
  if (!r->key || !r->name) return free(r->key), free(r->name), MS_ENOMEM;
  ctx->nrecv++;
  return MS_OK;
}

const struct ms_host ms__host = {
    .struct_size = sizeof(struct ms_host),
    .abi_major = MS_ABI_MAJOR,
    .abi_minor = MS_ABI_MINOR,
    .log = h_log,
    .set_error = h_set_error,
    .strerror = ms_strerror,
    .scene = h_scene,
    .cfg_double = h_cfg_double,
    .cfg_int = h_cfg_int,
    .cfg_bool = h_cfg_bool,
    .cfg_string = h_cfg_string,
    .cfg_vec3 = h_cfg_vec3,
    .cfg_child = h_cfg_child,
    .cfg_length = h_cfg_length,
    .cfg_index = h_cfg_index,
    .cfg_error = h_cfg_error,
    .sample_shape = h_sample_shape,
    .free = h_free,
    .rng_u64 = h_rng_u64,
    .rng_uniform = h_rng_uniform,
    .system_particles = h_system_particles,
    .system_view = h_system_view,
    .neighbors = h_neighbors,
    .neighbors_release = h_neighbors_release,
    .thread_count = h_thread_count,
    .report = h_report,
    .meta_spin = h_meta_spin,
    .declare_receiver = h_declare_receiver,
    .shape_field = h_shape_field,
};

void ms__ctx_init(struct ms_sim *S, uint32_t index) {
  struct ms_ctx *c = &S->sys[index].ctx;
  const struct ms__scene *sc = &S->scene;
  ms__memset(c, 0, sizeof *c);
  c->sim = S;
  c->index = index;
  /* Stream 1 + index: the grouping streams use other tags. */
  ms__rng_seed(&c->rng, sc->seed, 0x5157u, 1u + index);
  c->info.struct_size = sizeof c->info;
  c->info.system_index = index;
  c->info.system_count = S->nsys;
  c->info.system_name = sc->sys[index].name;
  ms__memcpy(c->info.gravity, sc->gravity, sizeof c->info.gravity);
  ms__memcpy(c->info.domain_min, sc->domain_min, sizeof c->info.domain_min);
  ms__memcpy(c->info.domain_max, sc->domain_max, sizeof c->info.domain_max);
  c->info.seed = sc->seed;
  c->info.scale = sc->scale;
}

void ms__ctx_free(struct ms_ctx *ctx) {
  for (size_t k = 0; k < ctx->nrecv; k++)
    free(ctx->recv[k].key), free(ctx->recv[k].name);
  free(ctx->recv);
  ctx->recv = NULL;
  ctx->nrecv = 0;
  free(ctx->stats);
  ctx->stats = NULL;
  ctx->nstats = ctx->cap_stats = 0;
}
