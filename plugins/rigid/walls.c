/* rigid — the domain walls.  A dynamic body that crosses a wall is moved
 * back along its normal by the deepest particle's depth.  The wall pushes
 * at the mean of the particles that touch it: the normal velocity there
 * reverses scaled by the restitution (none for a resting contact).  Each
 * touching particle then rubs with Coulomb friction (coefficient
 * `wall_friction`, its share of the push), so a box spinning flat on the
 * floor stops too.  The impulses act on the whole body (its mass and
 * inertia): a box landing on a corner starts to turn. */
#include <math.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "rigid.h"

/* 1/m + d . ((I^-1 (r x d)) x r): the inverse mass the body shows to an
 * impulse along d at r. */
static double inverse_mass(const struct rigid_body *b, const double *I,
                           const double *r, const double *d) {
  double rd[3], u[3], ur[3];
  rigid_cross(rd, r, d);
  if (!ms_sym3_solve(u, I, rd)) u[0] = u[1] = u[2] = 0.0;
  rigid_cross(ur, u, r);
  return 1.0 / b->mass + rigid_dot(d, ur);
}

/* Apply impulse J at r (from the centre). */
static void kick(struct rigid_body *b, const double *r, const double *J) {
  double rJ[3];
  rigid_cross(rJ, r, J);
  for (int a = 0; a < 3; a++) b->s.P[a] += J[a], b->s.L[a] += rJ[a];
}

/* Velocity of the body's point at r (from the centre); its inertia. */
static void point_velocity(const struct rigid_body *b, const double *r,
                           double *I, double *vp) {
  double w[3], wr[3];
  rigid_world_inertia(b, &b->s, I);
  rigid_omega(b, &b->s, w);
  rigid_cross(wr, w, r);
  for (int a = 0; a < 3; a++) vp[a] = b->s.P[a] / b->mass + wr[a];
}

/* The normal impulse of a contact at r (from the centre), normal n; 0
 * when the point leaves the wall.  A slow approach (below v_rest, what
 * gravity adds in two steps) is a resting contact: it stops without
 * bouncing. */
static double push(const struct state *s, struct rigid_body *b,
                   const double *r, const double *n, double v_rest) {
  double I[6], vp[3], J[3];
  point_velocity(b, r, I, vp);
  double vn = rigid_dot(vp, n);
  if (vn >= 0.0) return 0.0;
  double e = -vn < v_rest ? 0.0 : s->restitution;
  double jn = -(1.0 + e) * vn / inverse_mass(b, I, r, n);
  for (int a = 0; a < 3; a++) J[a] = jn * n[a];
  kick(b, r, J);
  return jn;
}

/* Coulomb friction of a contact at r (the mean of the touching
 * particles, rho their mean distance from it) that pushed with jn: the
 * tangential velocity there stops with at most mu jn, and the spin about
 * the normal with at most mu jn rho (a face flat on the wall rubs all
 * over, so a box spinning on the floor stops too). */
static void rub(const struct state *s, struct rigid_body *b, const double *r,
                const double *n, double jn, double rho) {
  double I[6], vp[3], vt[3], t[3], J[3], w[3], u[3];
  point_velocity(b, r, I, vp);
  double vn = rigid_dot(vp, n);
  for (int a = 0; a < 3; a++) vt[a] = vp[a] - vn * n[a];
  double st = sqrt(rigid_dot(vt, vt));
  if (st > 0.0) {
    for (int a = 0; a < 3; a++) t[a] = vt[a] / st;
    double jt = fmin(s->friction * jn, st / inverse_mass(b, I, r, t));
    for (int a = 0; a < 3; a++) J[a] = -jt * t[a];
    kick(b, r, J);
  }
  rigid_omega(b, &b->s, w);
  double wn = rigid_dot(w, n);
  if (!(rho > 0.0) || wn == 0.0 || !ms_sym3_solve(u, I, n)) return;
  double k = rigid_dot(n, u); /* spin about n per unit torque impulse */
  double tau = fmin(s->friction * jn * rho, fabs(wn) / k);
  for (int a = 0; a < 3; a++) b->s.L[a] -= copysign(tau, wn) * n[a];
}

/* Is particle i touching wall (a, hi)?  A face nearly flat on the wall
 * touches with all of it. */
static int touching(const struct state *s, size_t i, int a, int hi,
                    double *depth) {
  double x = s->x[3 * i + a], r = s->r[i];
  *depth = rigid_wall_depth(s->lo, s->hi, a, hi, x, r);
  return *depth >= -1e-9 * r;
}

/* How far body b's particles cross wall (axis a, side hi) at most, the
 * mean of those that touch it (where it pushes) and how many do. */
static double crossing(const struct state *s, const struct rigid_body *b,
                       int a, int hi, double *at, size_t *n) {
  double worst = -INFINITY, sum[3] = {0, 0, 0}, d;
  *n = 0;
  for (size_t i = b->first; i < b->first + b->count; i++) {
    if (!touching(s, i, a, hi, &d)) continue;
    worst = fmax(worst, d);
    for (int k = 0; k < 3; k++) sum[k] += s->x[3 * i + k];
    (*n)++;
  }
  for (int k = 0; k < 3; k++) at[k] = *n ? sum[k] / (double)*n : 0.0;
  return worst;
}

int rigid_walls(struct state *s, struct rigid_body *b, double dt) {
  const double *g = s->gravity;
  double v_rest = 2.0 * dt * sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
  int acted = 0;
  for (int pass = 0; pass < 4; pass++) {
    int any = 0;
    for (int a = 0; a < 3; a++)
      for (int hi = 0; hi < 2; hi++) {
        double at[3], n[3] = {0.0, 0.0, 0.0}, r[3], d;
        size_t nt;
        double depth = crossing(s, b, a, hi, at, &nt);
        if (!nt) continue;
        n[a] = hi ? -1.0 : 1.0;
        if (depth > 0.0) {
          b->s.x[a] += n[a] * depth;
          rigid_place(b, s->off, s->x, s->v);
          at[a] += n[a] * depth;
        }
        for (int k = 0; k < 3; k++) r[k] = at[k] - b->s.x[k];
        double jn = push(s, b, r, n, v_rest), rho = 0.0;
        for (size_t i = b->first; jn > 0.0 && i < b->first + b->count; i++) {
          if (!touching(s, i, a, hi, &d)) continue;
          double q[3];
          for (int k = 0; k < 3; k++) q[k] = s->x[3 * i + k] - at[k];
          rho += sqrt(rigid_dot(q, q)) / (double)nt;
        }
        if (jn > 0.0) rub(s, b, r, n, jn, rho);
        rigid_place(b, s->off, s->x, s->v);
        any |= depth > 0.0;
        acted = 1;
      }
    if (!any) break;
  }
  return acted;
}

/* The walls' guard above lifts a body by its deepest particle's depth.  A
 * body pivoting on an edge would have turned about that edge instead, so
 * each lift is energy it never had: the first domino of dominoes.cfg
 * gained 3.7e-5 J a frame as it tipped.  So a free body with particles
 * within their radius of a wall at the step's start takes the walls'
 * impulses before it moves, as a body in meta-particles does (solve.c:
 * lean, here swept by rigid_solve_walls): its velocities after gravity
 * and the forces, then the contacts, then the move (the centre by dt V,
 * the orientation by the rotation of dt w, L kept: semi-implicit Euler,
 * whatever the integrator of free flight).  A particle meeting the wall
 * within the step faster than v_rest leaves it at the restitution's
 * share of that speed; the guard then rarely has anything to do. */
int rigid_lean_step(struct state *s, uint32_t b, const double *F,
                    const double *T, double dt, int *done) {
  struct rigid_body *B = &s->body[b];
  struct rigid_obj *o = rigid_object_of(s, b);
  const double *g = s->gravity;
  const uint32_t from = s->nwc;
  double w[3], rot[3];
  *done = 0;
  if (rigid_find_walls(s, b)) return MS_ENOMEM;
  if (s->nwc == from) return MS_OK; /* in flight: the integrator's step */
  o->m = B->mass;
  memcpy(o->c, B->s.x, sizeof o->c);
  rigid_world_inertia(B, &B->s, o->I);
  for (int a = 0; a < 3; a++) {
    o->V[a] = (B->s.P[a] + dt * F[a]) / B->mass + dt * g[a];
    o->L[a] = B->s.L[a] + dt * T[a];
  }
  rigid_solve_walls(s, from, dt, 2.0 * dt * sqrt(rigid_dot(g, g)));
  if (!ms_sym3_solve(w, o->I, o->L)) w[0] = w[1] = w[2] = 0.0;
  for (int a = 0; a < 3; a++) {
    rot[a] = dt * w[a];
    B->s.x[a] = o->c[a] + dt * o->V[a];
    B->s.P[a] = B->mass * o->V[a];
    B->s.L[a] = o->L[a];
  }
  rigid_quat_rotate(B->s.q, rot);
  s->nwc = from;
  *done = 1;
  return MS_OK;
}
