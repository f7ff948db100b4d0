/* A test solver that cannot be checkpointed: one free particle moving in a
 * straight line, and no save()/load().  Solver id "output_nosave". */
#include <string.h>
#include <stdlib.h>

#include <mergesplit/plugin.h>

struct one {
  double x[3], v[3], m, r, x0[3], v0[3];
  struct ms_field f[4];
};

#define ONE(i) ((struct one *)(void *)(i))

static int create(const struct ms_host *h, ms_ctx *c, const ms_config *sec,
                  ms_instance **out) {
  struct one *o = calloc(1, sizeof *o);
  if (!o) return MS_ENOMEM;
  int rc = h->cfg_vec3(c, sec, "velocity", (const double[3]){0, 0, 0}, o->v);
  if (rc) {
    free(o);
    return rc;
  }
  o->m = 1.0;
  o->r = 0.1;
  o->f[0] = (struct ms_field){"position", MS_TYPE_F64, 3, 24, o->x};
  o->f[1] = (struct ms_field){"velocity", MS_TYPE_F64, 3, 24, o->v};
  o->f[2] = (struct ms_field){"mass", MS_TYPE_F64, 1, 8, &o->m};
  o->f[3] = (struct ms_field){"radius", MS_TYPE_F64, 1, 8, &o->r};
  *out = (ms_instance *)(void *)o;
  return MS_OK;
}

static void destroy(ms_instance *i) { free(i); }

static int view(ms_instance *i, struct ms_view *out) {
  out->count = 1;
  out->field_count = 4;
  out->fields = ONE(i)->f;
  return MS_OK;
}

static int begin_step(ms_instance *i, const struct ms_step *st) {
  memcpy(ONE(i)->x0, ONE(i)->x, sizeof ONE(i)->x);
  memcpy(ONE(i)->v0, ONE(i)->v, sizeof ONE(i)->v);
  return MS_OK;
}

static int integrate(ms_instance *i, const struct ms_step *st,
                     const struct ms_metas *m, struct ms_meta_result *res) {
  struct one *o = ONE(i);
  if (m->count) memcpy(o->v, m->velocity, sizeof o->v);
  for (int a = 0; a < 3; a++) o->x[a] += st->dt * o->v[a];
  if (m->count) {
    memcpy(res->velocity, o->v, sizeof o->v);
    for (int a = 0; a < 3; a++) res->displacement[a] = o->x[a] - o->x0[a];
  }
  return MS_OK;
}

static int rewind_step(ms_instance *i) {
  memcpy(ONE(i)->x, ONE(i)->x0, sizeof ONE(i)->x);
  memcpy(ONE(i)->v, ONE(i)->v0, sizeof ONE(i)->v);
  return MS_OK;
}

static int end_step(ms_instance *i, const struct ms_step *st) { return MS_OK; }

static const struct ms_plugin desc = {
    MS_PLUGIN_HEADER_INIT,
    .id = "output_nosave",
    .name = "test solver without save/load",
    .version = "0",
    .license = "MIT",
    .description = "one free particle; cannot be checkpointed",
    .create = create,
    .destroy = destroy,
    .view = view,
    .begin_step = begin_step,
    .integrate = integrate,
    .rewind = rewind_step,
    .end_step = end_step,
};

MS_PLUGIN_EXPORT const struct ms_plugin *mergesplit_plugin(uint32_t index) {
  return index == 0 ? &desc : NULL;
}
