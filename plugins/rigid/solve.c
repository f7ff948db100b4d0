/* rigid — the contacts of a step, solved: Gauss-Seidel over the point
 * contacts between bodies (at their meta-particles' centres) and the
 * contacts of bodies' particles with the domain walls.  A contact may
 * not close along its normal (its impulse never pulls) and slides under
 * Coulomb friction; between two bodies the impulses are equal and
 * opposite at one point, so momentum and angular momentum are kept.  The
 * objects are the glued objects of contact.c (rigid.h: struct rigid_obj).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "rigid.h"

/* Gauss-Seidel over the contacts of a step (rigid_solve, and
 * rigid_solve_walls for a free body on the walls alone): sweeps until no
 * impulse changes by more than RIGID_TOL of the largest normal impulse,
 * at most RIGID_SWEEPS.  A fixed 16 sweeps left the dominoes' pile
 * rising by 3.5e-6 J in a frame (2.2e-5 of the scene's energy): at rest
 * the contacts take back gravity's whole m g dt each step, and what a
 * short solve leaves of it is motion from nowhere. */
#define RIGID_SWEEPS 100
#define RIGID_TOL 1e-6

/* Velocity of object o's point at r (from its centre). */
static void object_velocity(const struct rigid_obj *o, const double *r,
                            double *v) {
  double w[3], wr[3];
  if (!ms_sym3_solve(w, o->I, o->L)) w[0] = w[1] = w[2] = 0.0;
  rigid_cross(wr, w, r);
  for (int a = 0; a < 3; a++) v[a] = o->V[a] + wr[a];
}

/* K += 1/m 1 + [r]x^T I^-1 [r]x: the inverse mass object o shows to an
 * impulse at r (sym3). */
static void add_inverse_mass(const struct rigid_obj *o, const double *r,
                             double *K) {
  double Kf[9];
  for (int j = 0; j < 3; j++) { /* K e_j = e_j / m + (I^-1 (r x e_j)) x r */
    double e[3] = {0, 0, 0}, re[3], y[3] = {0, 0, 0}, yr[3];
    e[j] = 1.0;
    rigid_cross(re, r, e);
    if (!ms_sym3_solve(y, o->I, re)) y[0] = y[1] = y[2] = 0.0;
    rigid_cross(yr, y, r);
    for (int a = 0; a < 3; a++) Kf[3 * a + j] = e[a] / o->m + yr[a];
  }
  K[0] += Kf[0], K[1] += Kf[4], K[2] += Kf[8];
  K[3] += 0.5 * (Kf[1] + Kf[3]), K[4] += 0.5 * (Kf[2] + Kf[6]);
  K[5] += 0.5 * (Kf[5] + Kf[7]);
}

/* Impulse sign J at r (from the centre) on object o. */
void rigid_apply(struct rigid_obj *o, const double *r, const double *J,
                  double sign) {
  double rJ[3];
  rigid_cross(rJ, r, J);
  for (int a = 0; a < 3; a++)
    o->V[a] += sign * J[a] / o->m, o->L[a] += sign * rJ[a];
}

/* Where kinematic body B takes point p over the step, from its pose at
 * begin_step: position pn, velocity vn. */
void rigid_kinematic_point(const struct rigid_body *B, const double *p,
                            double dt, double *pn, double *vn) {
  double V[3] = {0, 0, 0}, w[3] = {0, 0, 0}, a[3], Q[9], r[3], q[3], wq[3];
  if (B->motion == RIGID_SCRIPTED) {
    memcpy(V, B->V, sizeof V);
    memcpy(w, B->w, sizeof w);
  }
  for (int i = 0; i < 3; i++) a[i] = dt * w[i], r[i] = p[i] - B->s0.x[i];
  rigid_rotation_of(a, Q);
  rigid_mat_vec(q, Q, r);
  rigid_cross(wq, w, q);
  for (int i = 0; i < 3; i++)
    pn[i] = B->s0.x[i] + dt * V[i] + q[i], vn[i] = V[i] + wq[i];
}

/* The normal impulse of a contact (normal n, inverse mass K there) that
 * closes at `closing` (velocity along n, plus what may close a gap): the
 * impulse so far *ln grows to stop it but never pulls; its change into J.
 * 0 when the contact shows no inverse mass along n. */
static int normal_impulse(const double *n, const double *K, double closing,
                          double *ln, double *J) {
  double Kn[3];
  ms_sym3_mul(Kn, K, n);
  double kn = rigid_dot(n, Kn), l0 = *ln;
  if (!(kn > 0.0)) return 0;
  *ln = fmax(0.0, l0 - closing / kn);
  for (int a = 0; a < 3; a++) J[a] = (*ln - l0) * n[a];
  return 1;
}

/* Coulomb friction of a contact (normal n, inverse mass K) sliding at u
 * (its relative velocity there): the friction impulse so far lt grows to
 * stop the sliding, at most `cap` (mu times the push); its change into J.
 * 0 when it does not slide. */
static int friction_impulse(const double *u, const double *n, const double *K,
                            double cap, double *lt, double *J) {
  double un = rigid_dot(u, n), ut[3], t[3], Kt[3], l[3];
  for (int a = 0; a < 3; a++) ut[a] = u[a] - un * n[a];
  double st = sqrt(rigid_dot(ut, ut));
  if (!(st > 0.0)) return 0;
  for (int a = 0; a < 3; a++) t[a] = ut[a] / st;
  ms_sym3_mul(Kt, K, t);
  double kt = rigid_dot(t, Kt);
  if (!(kt > 0.0)) return 0;
  for (int a = 0; a < 3; a++) l[a] = lt[a] - st / kt * t[a];
  double mag = sqrt(rigid_dot(l, l));
  if (mag > cap)
    for (int a = 0; a < 3; a++) l[a] *= cap / mag;
  for (int a = 0; a < 3; a++) J[a] = l[a] - lt[a], lt[a] = l[a];
  return 1;
}

/* Relative velocity u = v_b - v_h of body c->body and the host of its
 * meta-particle at the centre x; K, the inverse mass they show there
 * together; rb, rh the lever arms; *oh the host's object (NULL: kinematic,
 * u relative to its path).  0 when the body (or a dynamic host) holds no
 * mass of its own in the step. */
static int relative(struct state *s, const struct rigid_constraint *c,
                    const struct ms_metas *mt, double dt, double *u, double *K,
                    double *rb, double *rh, struct rigid_obj **oh) {
  struct rigid_obj *ob = rigid_object_of(s, c->body);
  const double *x = mt->position + 3 * c->meta;
  const struct rigid_body *H = &s->body[s->host_of[c->meta]];
  double vb[3], vh[3];
  *oh = NULL;
  if (!(ob->m > 0.0)) return 0;
  if (H->motion == RIGID_DYNAMIC && H->group == s->body[c->body].group)
    return 0; /* welded: they move as one */
  for (int a = 0; a < 6; a++) K[a] = 0.0;
  for (int a = 0; a < 3; a++) rb[a] = x[a] - ob->c[a];
  object_velocity(ob, rb, vb);
  add_inverse_mass(ob, rb, K);
  if (H->motion != RIGID_DYNAMIC) {
    double pn[3];
    rigid_kinematic_point(H, x, dt, pn, vh);
  } else {
    *oh = rigid_object_of(s, s->host_of[c->meta]);
    if (!((*oh)->m > 0.0)) return 0;
    for (int a = 0; a < 3; a++) rh[a] = x[a] - (*oh)->c[a];
    object_velocity(*oh, rh, vh);
    add_inverse_mass(*oh, rh, K);
  }
  for (int a = 0; a < 3; a++) u[a] = vb[a] - vh[a];
  return 1;
}

/* J on the body, -J on a dynamic host, at the same point: momentum and
 * angular momentum are kept. */
static void exchange(struct state *s, const struct rigid_constraint *c,
                     const double *rb, const double *rh, struct rigid_obj *oh,
                     const double *J) {
  rigid_apply(rigid_object_of(s, c->body), rb, J, 1.0);
  if (oh) rigid_apply(oh, rh, J, -1.0);
}

/* One contact of the body with its meta-particle's host: it may not
 * close along the normal (the impulse so far, ln, never pulls), and
 * Coulomb friction (coefficient contact_friction) holds the sliding with
 * at most mu ln; without a normal, the two move alike at that point. */
static double hold(struct state *s, struct rigid_constraint *c,
                   const struct ms_metas *mt, double dt) {
  double u[3], K[6], rb[3], rh[3], J[3], moved = 0.0;
  struct rigid_obj *oh;
  if (!relative(s, c, mt, dt, u, K, rb, rh, &oh)) return 0.0;
  if (c->sticky) {
    double mu[3] = {-u[0], -u[1], -u[2]};
    if (!ms_sym3_solve(J, K, mu)) return 0.0;
    exchange(s, c, rb, rh, oh, J);
    return sqrt(rigid_dot(J, J));
  }
  if (normal_impulse(c->n, K, rigid_dot(u, c->n), &c->ln, J)) {
    exchange(s, c, rb, rh, oh, J);
    moved = sqrt(rigid_dot(J, J));
  }
  if (!relative(s, c, mt, dt, u, K, rb, rh, &oh)) return moved;
  if (friction_impulse(u, c->n, K, s->contact_friction * c->ln, c->lt, J)) {
    exchange(s, c, rb, rh, oh, J);
    moved += sqrt(rigid_dot(J, J));
  }
  return moved;
}

/* The particles of body b within their radius of touching a domain wall
 * at the step's start, each a wall contact: the walls leave a resting
 * body touching with its deepest particle only, the others a little
 * above, and a face must rest on all of them. */
int rigid_find_walls(struct state *s, uint32_t b) {
  const struct rigid_body *B = &s->body[b];
  for (size_t i = B->first; i < B->first + B->count; i++)
    for (uint32_t w = 0; w < 6; w++) {
      uint32_t a = w / 2, hi = w % 2;
      double x = s->x0[3 * i + a], r = s->r[i];
      double depth = rigid_wall_depth(s->lo, s->hi, a, hi, x, r);
      if (depth < -r) continue;
      if (rigid_room((void **)&s->wc, s->nwc, &s->cap_wc, sizeof *s->wc))
        return MS_ENOMEM;
      struct rigid_wall_contact *c = &s->wc[s->nwc++];
      memset(c, 0, sizeof *c);
      c->body = b, c->wall = w, c->particle = i, c->gap = fmax(0.0, -depth);
    }
  return MS_OK;
}

/* A body's particle against its wall over the step: it may close its gap
 * but not move into the wall (or, with a rebound, leaves it at that
 * speed), and Coulomb friction (wall_friction) holds its sliding.  The
 * wall is outside the system: it takes no reaction.  Returns how much the
 * impulses changed (their norms' sum). */
static double lean(struct state *s, struct rigid_wall_contact *c, double dt) {
  struct rigid_obj *o = rigid_object_of(s, c->body);
  double n[3] = {0, 0, 0}, r[3], v[3], K[6] = {0, 0, 0, 0, 0, 0}, J[3];
  n[c->wall / 2] = c->wall % 2 ? -1.0 : 1.0;
  for (int a = 0; a < 3; a++) r[a] = s->x0[3 * c->particle + a] - o->c[a];
  add_inverse_mass(o, r, K);
  object_velocity(o, r, v);
  double allow = c->rebound > 0.0 ? -c->rebound : c->gap / dt, moved;
  if (!normal_impulse(n, K, rigid_dot(v, n) + allow, &c->ln, J)) return 0.0;
  rigid_apply(o, r, J, 1.0);
  moved = sqrt(rigid_dot(J, J));
  object_velocity(o, r, v);
  if (friction_impulse(v, n, K, s->friction * c->ln, c->lt, J)) {
    rigid_apply(o, r, J, 1.0);
    moved += sqrt(rigid_dot(J, J));
  }
  return moved;
}

/* Gauss-Seidel over the contacts between bodies and with the walls, so
 * that the floor carries a whole stack within the step. */
void rigid_solve(struct state *s, const struct ms_metas *mt, double dt) {
  for (int sweep = 0; sweep < RIGID_SWEEPS; sweep++) {
    double moved = 0.0, most = 0.0;
    for (uint32_t c = 0; c < s->ncon; c++) {
      moved = fmax(moved, hold(s, &s->con[c], mt, dt));
      most = fmax(most, s->con[c].ln);
    }
    for (uint32_t c = 0; c < s->nwc; c++)
      if (rigid_object_of(s, s->wc[c].body)->m > 0.0) {
        moved = fmax(moved, lean(s, &s->wc[c], dt));
        most = fmax(most, s->wc[c].ln);
      }
    if (moved <= RIGID_TOL * most) break;
  }
}

/* A free body's touching contacts with wall w at once: an impulse at
 * their mean stops the mean's approach (none when one of them bounces).  A body
 * resting flat is then at rest before the sweeps begin, as the walls'
 * guard leaves it, and an impulse inside the contacts' hull is one they
 * could share: it pushes and takes kinetic energy only. */
static void settle(struct state *s, uint32_t from, uint32_t w) {
  double at[3] = {0, 0, 0}, n[3] = {0, 0, 0}, r[3], v[3], K[6] = {0}, J[3];
  double ln = 0.0;
  size_t count = 0;
  struct rigid_obj *o = NULL;
  for (uint32_t c = from; c < s->nwc; c++) {
    const struct rigid_wall_contact *k = &s->wc[c];
    if (k->wall != w) continue;
    if (k->rebound > 0.0) return;
    if (k->gap > 1e-6 * s->r[k->particle]) continue; /* not touching yet */
    o = rigid_object_of(s, k->body);
    for (int a = 0; a < 3; a++) at[a] += s->x0[3 * k->particle + a];
    count++;
  }
  if (!count) return;
  n[w / 2] = w % 2 ? -1.0 : 1.0;
  for (int a = 0; a < 3; a++) r[a] = at[a] / (double)count - o->c[a];
  add_inverse_mass(o, r, K);
  object_velocity(o, r, v);
  if (normal_impulse(n, K, rigid_dot(v, n), &ln, J)) rigid_apply(o, r, J, 1.0);
}

/* A free body on the walls alone.  A face resting on many particles is a
 * badly conditioned system (a domino's base: 10 contacts under a body 10
 * times as tall as it is thick), and 16 sweeps left a standing domino
 * turning at 0.06 rad/s and gaining 1e-6 J a step.  So each wall's
 * contacts first settle at once (above; one that meets its wall faster
 * than v_rest within the step leaves it at the restitution's share of
 * that speed instead), and the sweeps go on to RIGID_TOL. */
void rigid_solve_walls(struct state *s, uint32_t from, double dt,
                       double v_rest) {
  for (uint32_t c = from; c < s->nwc; c++) { /* a fast meeting bounces */
    struct rigid_wall_contact *k = &s->wc[c];
    const struct rigid_obj *o = rigid_object_of(s, k->body);
    double r[3], v[3];
    for (int a = 0; a < 3; a++) r[a] = s->x0[3 * k->particle + a] - o->c[a];
    object_velocity(o, r, v);
    double vn = (k->wall % 2 ? -1.0 : 1.0) * v[k->wall / 2];
    if (vn < -v_rest && vn * dt + k->gap < 0.0)
      k->rebound = -s->restitution * vn;
  }
  for (uint32_t w = 0; w < 6; w++) settle(s, from, w);
  for (int sweep = 0; sweep < RIGID_SWEEPS; sweep++) {
    double moved = 0.0, most = 0.0;
    for (uint32_t c = from; c < s->nwc; c++) {
      moved = fmax(moved, lean(s, &s->wc[c], dt));
      most = fmax(most, s->wc[c].ln);
    }
    if (moved <= RIGID_TOL * most) break;
  }
}
