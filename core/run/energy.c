/* The systems' energy and its course over a run (run.h). */
#include "run.h"

#include <math.h>


/* Kinetic and gravitational energy of the view's particles. */
static void counted(const struct ms_sim *S, uint32_t s, struct ms__energy *e) {
  const struct ms__system *y = &S->sys[s];
  const double *g = S->scene.gravity;
  double k = 0.0, p = 0.0;
  for (size_t i = 0; i < y->view.count; i++) {
    const double *x = ms__at(&y->x, i), *v = ms__at(&y->v, i);
    double m = *ms__at(&y->m, i);
    k += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    p -= m * (g[0] * x[0] + g[1] * x[1] + g[2] * x[2]);
  }
  e->kinetic = k, e->potential = p, e->internal = 0.0;
  e->internal_known = 0;
}

static int system_energy(struct ms_sim *S, uint32_t s) {
  struct ms__system *y = &S->sys[s];
  struct ms__energy *e = &y->energy;
  if (!y->plugin->desc.energy) {
    counted(S, s, e);
    return MS_OK;
  }
  struct ms_energy out = {.struct_size = sizeof out};
  int rc = MS__CALL(y, energy, y->inst, &out);
  if (rc) return ms__system_fail(&S->sys[s], &S->err, rc, "energy() failed");
  if (!(isfinite(out.kinetic) && isfinite(out.potential) &&
        isfinite(out.internal) && out.kinetic >= 0.0 && out.internal >= 0.0))
    return ms__errf(&S->err, MS_ENUMERIC,
                    "system '%s' (solver '%s', %s): energy() reported "
                    "kinetic %g J, potential %g J, internal %g J at t = %g s: "
                    "each must be finite, kinetic and internal >= 0",
                    y->desc->name, y->plugin->desc.id, y->plugin->path,
                    out.kinetic, out.potential, out.internal, S->stepper.time);
  e->kinetic = out.kinetic, e->potential = out.potential;
  e->internal = out.internal, e->internal_known = 1;
  return MS_OK;
}

void ms__energy_total(const struct ms_sim *S, struct ms__energy *t) {
  t->kinetic = t->potential = t->internal = 0.0;
  t->internal_known = 1;
  for (uint32_t s = 0; s < S->nsys; s++) {
    const struct ms__energy *e = &S->sys[s].energy;
    t->kinetic += e->kinetic, t->potential += e->potential;
    t->internal += e->internal;
    t->internal_known &= e->internal_known;
  }
}

int ms__energy_measure(struct ms_sim *S) {
  for (uint32_t s = 0; s < S->nsys; s++) {
    int rc = system_energy(S, s);
    if (rc) return rc;
  }
  struct ms__energy t;
  ms__energy_total(S, &t);
  struct ms__energy_record *r = &S->energy;
  double now = t.kinetic + t.potential + t.internal;
  if (r->measured == 0) {
    r->start = now;
    r->scale = t.kinetic + fabs(t.potential) + t.internal;
    r->max_rise = 0.0;
  } else if (now - r->now > r->max_rise) {
    r->max_rise = now - r->now;
  }
  r->now = now;
  r->complete = t.internal_known;
  r->measured++;
  return MS_OK;
}
