/* Systems: one plugin instance each, created from its scene section. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "../scene/scene.h"

/* Geometric sanity at check time: a radius beyond the domain, or
 * positions that are not finite, would only fail later, and obscurely
 * (a detection grid of one cell, a time step of 0). */
static int check_geometry(struct ms_sim *S, uint32_t i) {
  const struct ms__system *y = &S->sys[i];
  const struct ms__scene *sc = &S->scene;
  double across = 0.0;
  for (int a = 0; a < 3; a++)
    across = fmax(across, sc->domain_max[a] - sc->domain_min[a]);
  for (size_t p = 0; p < y->view.count; p++) {
    const double *x = ms__at(&y->x, p), r = *ms__at(&y->r, p);
    const char *why = NULL;
    if (!(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2])))
      return ms__cfg_fail(&S->err, y->desc->section, NULL, "particle %zu's "
                          "position is not finite (system '%s', solver '%s')",
                          p, y->desc->name, y->desc->solver);
    if (!(r > 0.0 && isfinite(r))) why = "must be finite and > 0";
    else if (r > across) why = "is larger than the domain";
    if (why)
      return ms__cfg_fail(&S->err, y->desc->section, "radius", "particle "
                          "%zu's radius %g %s (system '%s', solver '%s')", p,
                          r, why, y->desc->name, y->desc->solver);
  }
  return MS_OK;
}

static int create_one(struct ms_sim *S, uint32_t i) {
  struct ms__system *y = &S->sys[i];
  const struct ms__sysdesc *d = &S->scene.sys[i];
  y->desc = d;
  y->plugin = ms__registry_find(S->reg, d->solver);
  if (!y->plugin) {
    char where[700], why[1400];
    ms__cfg_where(d->section, "solver", where, sizeof where);
    return ms__errf(&S->err, MS_ENOENT, "%s: %s", where,
                    ms__registry_missing(S->reg, d->solver, why, sizeof why));
  }
  if (y->plugin->shadowed)
    ms__log(S, MS_SINK_WARN, "system '%s': solver '%s' from %s overrides the "
            "one in %s", d->name, d->solver, y->plugin->path,
            y->plugin->shadowed);
  ms__ctx_init(S, i);
  y->self_collision = d->self_collision >= 0
                          ? d->self_collision
                          : !!(y->plugin->desc.flags & MS_PLUGIN_SELF_COLLISION);
  y->ctx.creating = 1;
  int rc = MS__CALL(y, create, &ms__host, &y->ctx,
                    (const ms_config *)d->section, &y->inst);
  y->ctx.creating = 0;
  if (rc) {
    y->inst = NULL;
    if (!y->ctx.err.msg[0]) ms__errf(&y->ctx.err, rc, "%s", ms_strerror(rc));
    return ms__system_fail(&S->sys[i], &S->err, rc, NULL);
  }
  if (!y->inst)
    return ms__errf(&S->err, MS_EPLUGIN, "create() returned no instance "
                    "(system '%s', solver '%s' from %s)", d->name,
                    y->plugin->desc.id, y->plugin->path);
  /* Keys the plugin never asked for are typos. */
  struct ms__err ue = {0};
  if ((rc = ms__cfg_check_unknown(d->section, &ue))) {
    ms__errf(&S->err, rc, "%s (system '%s', solver '%s')", ue.msg, d->name,
             d->solver);
    return rc;
  }
  if ((rc = ms__system_view(&S->sys[i], &S->err))) return rc;
  return check_geometry(S, i);
}

/* The receivers system i declared (host->declare_receiver) exist, are not
 * itself and can accept particles. */
static int check_receivers(struct ms_sim *S, uint32_t i) {
  const struct ms__system *y = &S->sys[i];
  for (size_t k = 0; k < y->ctx.nrecv; k++) {
    const struct ms__receiver *r = &y->ctx.recv[k];
    uint32_t t = 0;
    while (t < S->nsys && strcmp(S->scene.sys[t].name, r->name)) t++;
    const char *why = t == S->nsys ? "is not a system of the scene"
                      : t == i ? "is this system itself"
                      : !S->sys[t].plugin->desc.accept
                          ? "cannot take particles (its solver has no "
                            "accept())"
                          : NULL;
    if (!why) continue;
    char solver[600] = "";
    if (t < S->nsys && t != i)
      snprintf(solver, sizeof solver, " (solver '%s' from %s)",
               S->sys[t].plugin->desc.id, S->sys[t].plugin->path);
    const config_setting_t *g = r->group ? r->group : y->desc->section;
    return ms__cfg_fail(&S->err, g, r->key[0] ? r->key : NULL, "system '%s' hands "
                        "particles to '%s'%s, which %s", y->desc->name,
                        r->name, solver, why);
  }
  return MS_OK;
}

int ms__systems_create(struct ms_sim *S) {
  S->nsys = S->scene.nsys;
  S->sys = calloc(S->nsys, sizeof *S->sys);
  if (!S->sys) return ms__errf(&S->err, MS_ENOMEM, "out of memory");
  size_t total = 0;
  for (uint32_t i = 0; i < S->nsys; i++) {
    int rc = create_one(S, i);
    if (rc) return rc;
    S->sys[i].offset = total;
    total += S->sys[i].view.count;
  }
  for (uint32_t i = 0; i < S->nsys; i++) {
    int rc = check_receivers(S, i);
    if (rc) return rc;
  }
  if (total >= UINT32_MAX)
    return ms__errf(&S->err, MS_EINVAL, "the scene holds %zu particles; at "
                    "most 2^32-2 are supported", total);
  return MS_OK;
}

void ms__systems_destroy(struct ms_sim *S) {
  if (!S->sys) return;
  for (uint32_t i = 0; i < S->nsys; i++) {
    struct ms__system *y = &S->sys[i];
    if (y->inst) y->plugin->desc.destroy(y->inst);
    ms__sysmetas_free(&y->sm);
    ms__ctx_free(&y->ctx);
    free(y->uforce);
  }
  free(S->sys);
  S->sys = NULL;
}
