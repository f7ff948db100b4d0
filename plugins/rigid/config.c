/* rigid — the scene keys of a system (system section):
 *   integrator        "symplectic_euler" (default) | "midpoint" | "rk4"
 *   wall_restitution  normal restitution at the domain walls, [0, 1], 0.2
 *   wall_friction     Coulomb friction coefficient at the walls, >= 0, 0.5
 *   contact_friction  Coulomb friction coefficient between two bodies of
 *                     the system (and a body on a kinematic one), >= 0,
 *                     0.5
 *   bodies            a list of body groups; without it the section is one
 * and of a body (a group of `bodies`, or the section; read as every solid
 * plugin reads them, plugins/common/bodies.c):
 *   shape             group, required (box, sphere, cylinder, torus, shell,
 *                     points)
 *   spacing           lattice spacing [m]; required unless shape is points
 *   radius            collision radius [m]; default spacing / 2
 *   density           [kg/m^3] of the lattice, default 1000; or
 *   mass              the body's mass [kg]
 *   velocity          [m/s] of the centre, default [0, 0, 0]
 *   angular_velocity  [rad/s], default [0, 0, 0]
 *   motion            "dynamic" (default) | "fixed" | "scripted" (moves
 *                     with velocity and angular_velocity whatever hits it)
 *   temperature       [K], default 293.15; one per body (lumped: the body
 *                     conducts much faster than its contacts)
 *   specific_heat     [J/(kg K)], > 0, default 1000
 * In a `bodies` list, spacing, radius, density, temperature and specific
 * heat of the section are the bodies' defaults.  scene.scale = s refines every lattice: spacing and
 * radius / s^(1/3), the body's mass unchanged. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "../common/bodies.h"
#include "rigid.h"

/* The rigid plugin's motions are the shared ones (bodies.h). */
_Static_assert((int)RIGID_DYNAMIC == (int)MSC_DYNAMIC &&
                   (int)RIGID_FIXED == (int)MSC_FIXED &&
                   (int)RIGID_SCRIPTED == (int)MSC_SCRIPTED,
               "enum rigid_motion is enum msc_motion");

/* Append body k (its sampled points) to the state. */
static int add_body(struct state *s, const struct msc_body *k,
                    const struct ms_points *pts, double mass) {
  struct rigid_body *b = &s->body[s->nbody];
  size_t n0 = s->n, n = pts->count;
  memset(b, 0, sizeof *b);
  b->first = n0, b->count = n, b->motion = k->motion;
  for (size_t i = 0; i < n; i++) {
    s->m[n0 + i] = mass / (double)n, s->r[n0 + i] = k->radius;
    s->T[n0 + i] = k->temperature, s->c[n0 + i] = k->specific_heat;
    s->body_of[n0 + i] = s->nbody;
  }
  int solid = rigid_mass_properties(n, pts->xyz, s->m + n0, &b->mass,
                                    b->s.x, b->Ib, s->off + 3 * n0);
  if (!solid && k->motion == RIGID_DYNAMIC)
    return s->host->cfg_error(s->ctx, k->group, "shape", "its %zu "
                              "particle(s) lie on a line: the inertia is "
                              "degenerate, a dynamic body cannot turn", n);
  b->s.q[0] = 1.0;
  if (k->motion == RIGID_SCRIPTED) {
    memcpy(b->V, k->vel, sizeof b->V);
    memcpy(b->w, k->omega, sizeof b->w);
  } else if (k->motion == RIGID_DYNAMIC) {
    rigid_set_velocity(b, &b->s, k->vel, k->omega);
  }
  s->n += n;
  s->nbody++;
  return MS_OK;
}

static int alloc(struct state *s, size_t n, uint32_t nbody) {
  size_t k = n ? n : 1;
  s->x = malloc(3 * k * sizeof(double)), s->v = malloc(3 * k * sizeof(double));
  s->x0 = malloc(3 * k * sizeof(double)),
  s->v0 = malloc(3 * k * sizeof(double));
  s->off = malloc(3 * k * sizeof(double)), s->m = malloc(k * sizeof(double));
  s->r = malloc(k * sizeof(double)), s->meta = malloc(k * sizeof(int32_t));
  s->T = malloc(k * sizeof(double)), s->c = malloc(k * sizeof(double));
  s->body_of = malloc(k * sizeof(uint32_t));
  s->body = calloc(nbody, sizeof *s->body);
  s->hoff = calloc(nbody + 1, sizeof *s->hoff);
  s->boff = calloc(nbody + 1, sizeof *s->boff);
  s->blist = calloc(nbody, sizeof *s->blist);
  return s->x && s->v && s->x0 && s->v0 && s->off && s->m && s->r &&
                 s->T && s->c &&
                 s->meta && s->body_of && s->body && s->hoff && s->boff &&
                 s->blist
             ? MS_OK
             : MS_ENOMEM;
}

/* The bodies' groups: the list `bodies`, or the section itself. */
static int system_keys(struct state *s, const ms_config *sec) {
  static const char *const names[3] = {"symplectic_euler", "midpoint",
                                       "rk4"};
  const struct ms_host *h = s->host;
  int rc;
  if ((rc = msc_pick3(h, s->ctx, sec, "integrator", names,
                      RIGID_SYMPLECTIC_EULER, &s->integrator)) ||
      (rc = ms_cfg_unit(h, s->ctx, sec, "wall_restitution", 0.2,
                        &s->restitution)) ||
      (rc = ms_cfg_non_negative(h, s->ctx, sec, "wall_friction", 0.5,
                                &s->friction)) ||
      (rc = ms_cfg_non_negative(h, s->ctx, sec, "contact_friction", 0.5,
                                &s->contact_friction)))
    return rc;
  return MS_OK;
}

/* A body group's keys: the shared ones (msc_body_reader). */
static int read_body(void *ud, const ms_config *g, const void *def,
                     void *key) {
  const struct state *s = ud;
  return msc_body_read(s->host, s->ctx, g, def, key);
}

int rigid_configure(struct state *s, const ms_config *sec) {
  const ms_config *list;
  uint32_t nb;
  struct msc_body def = MSC_BODY_UNSET;
  int rc;
  if ((rc = system_keys(s, sec)) ||
      (rc = msc_body_list(s->host, s->ctx, sec, &list, &nb)))
    return rc;
  if (list && (rc = msc_body_defaults(s->host, s->ctx, sec, &def)))
    return rc;
  struct msc_bodies B;
  rc = msc_bodies_sample(s->host, s->ctx, sec, list, nb, sizeof(struct msc_body),
                         &def, read_body, s, 1, "a body", &B);
  const struct msc_body *keys = B.keys;
  if (!rc) rc = alloc(s, B.total, nb);
  for (uint32_t b = 0; !rc && b < nb; b++) {
    memcpy(s->x + 3 * s->n, B.pts[b].xyz,
           3 * B.pts[b].count * sizeof(double));
    rc = add_body(s, &keys[b], &B.pts[b], B.mass[b]);
  }
  msc_bodies_free(s->host, &B);
  return rc;
}
