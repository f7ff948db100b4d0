/* Particle hand-over between systems (plugin.h, PARTICLE HAND-OVER; the
 * reasoning in doc/handover.md).  At the start of a step every system that
 * gives particles away lists them; the core copies them out of the giver's
 * view, field by field, hands each receiver its share, checks that the
 * receiver took mass, position and velocity bit for bit, and lets the
 * giver drop them. */
#include <stdlib.h>
#include <string.h>

#include "../io/io.h"
#include "step.h"
#include "../base/base.h"

void ms__handover_free(struct ms__handover_ws *W) {
  free(W->buf);
  free(W->fields);
  free(W->to);
  ms__memset(W, 0, sizeof *W);
}

static int oom(struct ms__stepper *S) {
  return ms__errf(S->err, MS_ENOMEM, "particle hand-over: out of memory");
}

/* The index of system `name`, or -1. */
static int64_t system_named(const struct ms__stepper *S, const char *name) {
  for (uint32_t t = 0; name && t < S->nsys; t++)
    if (!strcmp(S->sys[t].desc->name, name)) return t;
  return -1;
}

/* Check the giver's list and resolve every particle's receiver into W->to. */
static int resolve(struct ms__stepper *S, uint32_t s,
                   const struct ms_handover *h) {
  const struct ms__system *y = &S->sys[s];
  struct ms__handover_ws *W = &S->hov;
  if (ms__grow((void **)&W->to, h->count, sizeof *W->to)) return oom(S);
  if (!h->index || !h->to)
    return ms__errf(S->err, MS_EPLUGIN, "system '%s' (solver '%s' from %s) "
                    "hands %u particles over without their indices or "
                    "receivers", y->desc->name, y->plugin->desc.id,
                    y->plugin->path, h->count);
  for (uint32_t q = 0; q < h->count; q++) {
    uint32_t i = h->index[q];
    if (i >= y->view.count || (q && i <= h->index[q - 1]))
      return ms__errf(S->err, MS_EPLUGIN, "system '%s' (solver '%s' from "
                      "%s) hands over particle %u (entry %u): the indices "
                      "must be strictly increasing and below %zu",
                      y->desc->name, y->plugin->desc.id, y->plugin->path, i,
                      q, y->view.count);
    int64_t t = system_named(S, h->to[q]);
    const char *to = h->to[q] ? h->to[q] : "(null)";
    if (t < 0)
      return ms__errf(S->err, MS_EINVAL, "system '%s' hands particles to "
                      "'%s', which is not a system of the scene (t = %g s, "
                      "step %llu)", y->desc->name, to, S->time,
                      (unsigned long long)S->step);
    if (t == s)
      return ms__errf(S->err, MS_EPLUGIN, "system '%s' (solver '%s') hands "
                      "particles to itself", y->desc->name,
                      y->plugin->desc.id);
    const struct ms__system *r = &S->sys[t];
    if (!r->plugin->desc.accept)
      return ms__errf(S->err, MS_EINVAL, "system '%s' hands particles to "
                      "'%s' (solver '%s' from %s), which cannot accept "
                      "particles (no accept()) (t = %g s, step %llu)",
                      y->desc->name, to, r->plugin->desc.id, r->plugin->path,
                      S->time, (unsigned long long)S->step);
    W->to[q] = (uint32_t)t;
  }
  return MS_OK;
}

/* Copy the giver's particles bound for system t into packed fields. */
static int pack(struct ms__stepper *S, uint32_t s, const struct ms_handover *h,
                uint32_t t, struct ms_view *in) {
  const struct ms_view *v = &S->sys[s].view;
  struct ms__handover_ws *W = &S->hov;
  size_t n = 0, row = 0;
  for (uint32_t q = 0; q < h->count; q++) n += W->to[q] == t;
  for (uint32_t f = 0; f < v->field_count; f++)
    row += ms__field_bytes(&v->fields[f]);
  if (ms__grow((void **)&W->buf, n * row + 1, 1) ||
      ms__grow((void **)&W->fields, v->field_count + 1, sizeof *W->fields))
    return oom(S);
  unsigned char *at = W->buf;
  for (uint32_t f = 0; f < v->field_count; f++) {
    const struct ms_field *src = &v->fields[f];
    size_t e = ms__field_bytes(src);
    W->fields[f] = *src;
    W->fields[f].stride = e;
    W->fields[f].data = at;
    for (uint32_t q = 0; q < h->count; q++) {
      if (W->to[q] != t) continue;
      ms__memcpy(at, (const char *)src->data + h->index[q] * src->stride, e);
      at += e;
    }
  }
  *in = (struct ms_view){sizeof *in, v->field_count, n, W->fields};
  return MS_OK;
}

/* The receiver MUST have appended the particles with mass, position and
 * velocity as given, bit for bit (mass and momentum conserved exactly). */
static int check_taken(struct ms__stepper *S, uint32_t t, size_t before,
                       const struct ms_view *in, const char *from) {
  const struct ms__system *r = &S->sys[t];
  static const char *const exact[] = {"mass", "position", "velocity"};
  if (r->view.count != before + in->count)
    return ms__errf(S->err, MS_EPLUGIN, "system '%s' (solver '%s' from %s) "
                    "accepted %zu particles from '%s' but its view went from "
                    "%zu to %zu", r->desc->name, r->plugin->desc.id,
                    r->plugin->path, in->count, from, before, r->view.count);
  const struct ms__fref *mine[] = {&r->m, &r->x, &r->v};
  for (int k = 0; k < 3; k++) {
    const struct ms_field *f = NULL;
    for (uint32_t g = 0; g < in->field_count; g++)
      if (!strcmp(in->fields[g].name, exact[k])) f = &in->fields[g];
    size_t e = f ? f->stride : 0;
    for (size_t i = 0; f && i < in->count; i++)
      if (memcmp(ms__at(mine[k], before + i), (const char *)f->data + i * e, e))
        return ms__errf(S->err, MS_EPLUGIN, "system '%s' (solver '%s' from "
                        "%s) did not take the %s of particle %zu handed over "
                        "by '%s' bit for bit", r->desc->name,
                        r->plugin->desc.id, r->plugin->path, exact[k], i, from);
  }
  return MS_OK;
}

/* One giver: list, hand each receiver its share, release. */
static int give(struct ms__stepper *S, uint32_t s) {
  struct ms__system *y = &S->sys[s];
  struct ms_handover h = {.struct_size = sizeof h};
  int rc = MS__CALL(y, hand_over, y->inst, &h);
  if (rc) return ms__system_fail(y, S->err, rc, "hand_over() failed");
  if (h.count == 0) return MS_OK;
  if ((rc = resolve(S, s, &h)) || (rc = ms__system_refresh(y, S->err)))
    return rc;
  y->handed = 1;
  size_t left = y->view.count - h.count;
  for (uint32_t t = 0; t < S->nsys; t++) {
    struct ms__system *r = &S->sys[t];
    struct ms_view in;
    if (t == s || (rc = pack(S, s, &h, t, &in))) {
      if (rc) return rc;
      continue;
    }
    if (!in.count) continue;
    size_t before = r->view.count;
    r->handed = 1;
    if ((rc = MS__CALL(r, accept, r->inst, &in, y->desc->name)))
      return ms__system_fail(&S->sys[t], S->err, rc, "accept() failed");
    if ((rc = ms__system_view(&S->sys[t], S->err)) ||
        (rc = check_taken(S, t, before, &in, y->desc->name)))
      return rc;
  }
  if ((rc = MS__CALL(y, release, y->inst, &h)))
    return ms__system_fail(y, S->err, rc, "release() failed");
  if ((rc = ms__system_view(y, S->err))) return rc;
  if (y->view.count != left)
    return ms__errf(S->err, MS_EPLUGIN, "system '%s' (solver '%s' from %s) "
                    "released %u particles but holds %zu, not %zu",
                    y->desc->name, y->plugin->desc.id, y->plugin->path,
                    h.count, y->view.count, left);
  S->frame_counts.handed += h.count;
  return MS_OK;
}

int ms__handover(struct ms__stepper *S) {
  for (uint32_t s = 0; s < S->nsys; s++) S->sys[s].handed = 0;
  for (uint32_t s = 0; s < S->nsys; s++) {
    if (!S->sys[s].plugin->desc.hand_over) continue;
    int rc = give(S, s);
    if (rc) return rc;
  }
  return MS_OK;
}
