/* A system as the step sees it: a plugin's error named after the system,
 * its view resolved into strided fields. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "step.h"

#include "../io/io.h"

int ms__system_fail(const struct ms__system *y, struct ms__err *err,
                    int status, const char *what) {
  const struct ms__err *pe = &y->ctx.err;
  const char *msg = pe->msg[0] ? pe->msg : ms_strerror(status);
  if (what)
    ms__errf(err, status, "%s: %s (system '%s', solver '%s' from %s)",
             what, msg, y->desc->name, y->plugin->desc.id, y->plugin->path);
  else
    ms__errf(err, status, "%s (system '%s', solver '%s' from %s)", msg,
             y->desc->name, y->plugin->desc.id, y->plugin->path);
  return status;
}

static int view_error(const struct ms__system *y, struct ms__err *err,
                      const char *fmt, const char *a) {
  char msg[256];
  snprintf(msg, sizeof msg, fmt, a);
  return ms__errf(err, MS_EPLUGIN,
                  "invalid particle view: %s (system '%s', solver '%s' from "
                  "%s)", msg, y->desc->name, y->plugin->desc.id,
                  y->plugin->path);
}

int ms__system_refresh(struct ms__system *y, struct ms__err *err) {
  if (!y->plugin->desc.refresh) return MS_OK;
  int rc = MS__CALL(y, refresh, y->inst);
  return rc ? ms__system_fail(y, err, rc, "refresh() failed") : MS_OK;
}

int ms__systems_refresh(struct ms__stepper *S) {
  for (uint32_t s = 0; s < S->nsys; s++) {
    int rc = ms__system_refresh(&S->sys[s], S->err);
    if (rc) return rc;
  }
  return MS_OK;
}

int ms__system_view(struct ms__system *y, struct ms__err *err) {
  struct ms_view v;
  ms__memset(&v, 0, sizeof v);
  v.struct_size = sizeof v;
  int rc = MS__CALL(y, view, y->inst, &v);
  if (rc) return ms__system_fail(y, err, rc, "view() failed");
  if (v.count >= UINT32_MAX)
    return view_error(y, err, "%s", "more than 2^32-1 particles");
  for (uint32_t f = 0; f < v.field_count; f++) {
    const struct ms_field *fd = &v.fields[f];
    size_t ts = ms__type_size(fd->type);
    if (!fd->name) return view_error(y, err, "%s", "a field has no name");
    if (!ts || fd->components < 1 || fd->components > 16)
      return view_error(y, err, "field '%s' has a bad type or component count",
                        fd->name);
    if (fd->stride < ts * fd->components)
      return view_error(y, err, "field '%s': stride smaller than one element",
                        fd->name);
    if (v.count && !fd->data)
      return view_error(y, err, "field '%s' has no data", fd->name);
  }
  static const struct {
    const char *name;
    uint32_t comps;
    size_t off;
  } req[] = {{"position", 3, offsetof(struct ms__system, x)},
             {"velocity", 3, offsetof(struct ms__system, v)},
             {"mass", 1, offsetof(struct ms__system, m)},
             {"radius", 1, offsetof(struct ms__system, r)}};
  for (size_t k = 0; k < 4; k++) {
    const struct ms_field *fd = ms__view_field(&v, req[k].name, 0, 0);
    if (!fd)
      return view_error(y, err, "required field '%s' is missing", req[k].name);
    if (fd->type != MS_TYPE_F64 || fd->components != req[k].comps)
      return view_error(y, err, "required field '%s' has the wrong type (must "
                        "be double)", req[k].name);
    struct ms__fref *ref = (struct ms__fref *)((char *)y + req[k].off);
    ref->base = fd->data;
    ref->stride = fd->stride;
  }
  y->heat = 0;
  if (y->plugin->desc.flags & MS_PLUGIN_HEAT) {
    static const char *const hf[2] = {"temperature", "specific_heat"};
    struct ms__fref *ref[2] = {&y->T, &y->c};
    for (int k = 0; k < 2; k++) {
      const struct ms_field *fd = ms__view_field(&v, hf[k], 0, 0);
      if (!fd || fd->type != MS_TYPE_F64 || fd->components != 1)
        return view_error(y, err, "the solver carries heat (MS_PLUGIN_HEAT) "
                          "but field '%s' is missing or not one double",
                          hf[k]);
      ref[k]->base = fd->data;
      ref[k]->stride = fd->stride;
    }
    y->heat = 1;
  }
  y->view = v;
  return MS_OK;
}

int ms__system_add_force(struct ms__system *y, const double *f, size_t n) {
  int fresh = !y->uforce_on || y->uforce_n != n;
  if (n > y->cap_uforce) {
    if (ms__grow((void **)&y->uforce, n, 3 * sizeof(double))) return MS_ENOMEM;
    y->cap_uforce = n;
  }
  if (n && fresh) ms__memset(y->uforce, 0, 3 * n * sizeof(double));
  for (size_t i = 0; i < 3 * n; i++) y->uforce[i] += f[i];
  y->uforce_n = n;
  y->uforce_on = 1;
  return MS_OK;
}
