/* rigid — the domain walls.  A dynamic body that crosses a wall is moved
 * back along its normal by the deepest particle's depth.  The wall pushes
 * at the mean of the particles that touch it: the normal velocity there
 * reverses scaled by the restitution (none for a resting contact).  Each
 * touching particle then rubs with Coulomb friction (coefficient
 * `wall_friction`, its share of the push), so a box spinning flat on the
 * floor stops too.  The impulses act on the whole body (its mass and
 * inertia): a box landing on a corner starts to turn.  Bodies that moved
 * as one group in the step (resting on each other) meet the walls as one
 * object, so the floor carries the whole stack, not its lowest body. */
#include <math.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "rigid.h"

/* The bodies that meet the walls as one object: mass, centre, world
 * inertia about the centre (each body's in its Iw). */
struct set {
  struct rigid_body *body; /* the system's bodies */
  const uint32_t *list;    /* the set's: body[list[0 .. n - 1]] */
  uint32_t n;
  double m, c[3], I[6];
};

static void gather(struct set *S) {
  if (S->n == 1) { /* one body: its own numbers, bit for bit */
    struct rigid_body *b = (&S->body[S->list[0]]);
    rigid_world_inertia(b, &b->s, b->Iw);
    S->m = b->mass;
    memcpy(S->c, b->s.x, sizeof S->c);
    memcpy(S->I, b->Iw, sizeof S->I);
    return;
  }
  S->m = 0.0;
  for (int a = 0; a < 3; a++) S->c[a] = 0.0;
  for (uint32_t j = 0; j < S->n; j++) {
    S->m += (&S->body[S->list[j]])->mass;
    for (int a = 0; a < 3; a++) S->c[a] += (&S->body[S->list[j]])->mass * (&S->body[S->list[j]])->s.x[a];
  }
  for (int a = 0; a < 3; a++) S->c[a] /= S->m;
  ms_sym3_scalar(S->I, 0.0);
  for (uint32_t j = 0; j < S->n; j++) {
    struct rigid_body *b = (&S->body[S->list[j]]);
    double d[3];
    rigid_world_inertia(b, &b->s, b->Iw);
    for (int a = 0; a < 6; a++) S->I[a] += b->Iw[a];
    for (int a = 0; a < 3; a++) d[a] = b->s.x[a] - S->c[a];
    rigid_add_point_inertia(S->I, b->mass, d);
  }
}

/* Momentum and angular momentum about the centre of the set. */
static void momenta(const struct set *S, double *P, double *L) {
  if (S->n == 1) {
    memcpy(P, (&S->body[S->list[0]])->s.P, 3 * sizeof *P);
    memcpy(L, (&S->body[S->list[0]])->s.L, 3 * sizeof *L);
    return;
  }
  for (int a = 0; a < 3; a++) P[a] = L[a] = 0.0;
  for (uint32_t j = 0; j < S->n; j++) {
    const struct rigid_body *b = (&S->body[S->list[j]]);
    double d[3], dP[3];
    for (int a = 0; a < 3; a++) d[a] = b->s.x[a] - S->c[a];
    rigid_cross(dP, d, b->s.P);
    for (int a = 0; a < 3; a++) P[a] += b->s.P[a], L[a] += b->s.L[a] + dP[a];
  }
}

/* Impulse J at r (from the centre) and angular impulse T: on one body
 * directly; on a set, the rigid change of the whole, dV = J / m and
 * dw = I^-1 (r x J + T), shared as each body's momentum and spin. */
static void kick(struct set *S, const double *r, const double *J,
                 const double *T) {
  double rJ[3];
  rigid_cross(rJ, r, J);
  if (S->n == 1) {
    struct rigid_body *b = (&S->body[S->list[0]]);
    for (int a = 0; a < 3; a++) b->s.P[a] += J[a], b->s.L[a] += rJ[a] + T[a];
    return;
  }
  double dL[3], dw[3];
  for (int a = 0; a < 3; a++) dL[a] = rJ[a] + T[a];
  if (!ms_sym3_solve(dw, S->I, dL)) dw[0] = dw[1] = dw[2] = 0.0;
  for (uint32_t j = 0; j < S->n; j++) {
    struct rigid_body *b = (&S->body[S->list[j]]);
    double d[3], wd[3], Iw[3];
    for (int a = 0; a < 3; a++) d[a] = b->s.x[a] - S->c[a];
    rigid_cross(wd, dw, d);
    ms_sym3_mul(Iw, b->Iw, dw);
    for (int a = 0; a < 3; a++) {
      b->s.P[a] += b->mass * (J[a] / S->m + wd[a]);
      b->s.L[a] += Iw[a];
    }
  }
}

/* 1/m + d . ((I^-1 (r x d)) x r): the inverse mass the set shows to an
 * impulse along d at r. */
static double inverse_mass(const struct set *S, const double *r,
                           const double *d) {
  double rd[3], u[3], ur[3];
  rigid_cross(rd, r, d);
  if (!ms_sym3_solve(u, S->I, rd)) u[0] = u[1] = u[2] = 0.0;
  rigid_cross(ur, u, r);
  return 1.0 / S->m + rigid_dot(d, ur);
}

/* Angular velocity of the set; velocity of its point at r. */
static void omega(const struct set *S, double *w) {
  double P[3], L[3];
  momenta(S, P, L);
  if (!ms_sym3_solve(w, S->I, L)) w[0] = w[1] = w[2] = 0.0;
}

static void point_velocity(const struct set *S, const double *r, double *vp) {
  double P[3], L[3], w[3], wr[3];
  momenta(S, P, L);
  if (!ms_sym3_solve(w, S->I, L)) w[0] = w[1] = w[2] = 0.0;
  rigid_cross(wr, w, r);
  for (int a = 0; a < 3; a++) vp[a] = P[a] / S->m + wr[a];
}

static const double none[3] = {0.0, 0.0, 0.0};

/* The normal impulse of a contact at r (from the centre), normal n; 0
 * when the point leaves the wall.  A slow approach (below v_rest, what
 * gravity adds in two steps) is a resting contact: it stops without
 * bouncing. */
static double push(const struct state *s, struct set *S, const double *r,
                   const double *n, double v_rest) {
  double vp[3], J[3];
  point_velocity(S, r, vp);
  double vn = rigid_dot(vp, n);
  if (vn >= 0.0) return 0.0;
  double e = -vn < v_rest ? 0.0 : s->restitution;
  double jn = -(1.0 + e) * vn / inverse_mass(S, r, n);
  for (int a = 0; a < 3; a++) J[a] = jn * n[a];
  kick(S, r, J, none);
  return jn;
}

/* Coulomb friction of a contact at r (the mean of the touching
 * particles, rho their mean distance from it) that pushed with jn: the
 * tangential velocity there stops with at most mu jn, and the spin about
 * the normal with at most mu jn rho (a face flat on the wall rubs all
 * over, so a box spinning on the floor stops too). */
static void rub(const struct state *s, struct set *S, const double *r,
                const double *n, double jn, double rho) {
  double vp[3], vt[3], t[3], J[3], w[3], u[3], T[3];
  point_velocity(S, r, vp);
  double vn = rigid_dot(vp, n);
  for (int a = 0; a < 3; a++) vt[a] = vp[a] - vn * n[a];
  double st = sqrt(rigid_dot(vt, vt));
  if (st > 0.0) {
    for (int a = 0; a < 3; a++) t[a] = vt[a] / st;
    double jt = fmin(s->friction * jn, st / inverse_mass(S, r, t));
    for (int a = 0; a < 3; a++) J[a] = -jt * t[a];
    kick(S, r, J, none);
  }
  omega(S, w);
  double wn = rigid_dot(w, n);
  if (!(rho > 0.0) || wn == 0.0 || !ms_sym3_solve(u, S->I, n)) return;
  double k = rigid_dot(n, u); /* spin about n per unit torque impulse */
  double tau = fmin(s->friction * jn * rho, fabs(wn) / k);
  for (int a = 0; a < 3; a++) T[a] = -copysign(tau, wn) * n[a];
  kick(S, none, none, T);
}

/* Is particle i touching wall (a, hi)?  A face nearly flat on the wall
 * touches with all of it. */
static int touching(const struct state *s, size_t i, int a, int hi,
                    double *depth) {
  double x = s->x[3 * i + a], r = s->r[i];
  *depth = hi ? x + r - s->hi[a] : s->lo[a] + r - x;
  return *depth >= -1e-9 * r;
}

/* How far the set's particles cross wall (axis a, side hi) at most, the
 * mean of those that touch it (where it pushes) and how many do. */
static double crossing(const struct state *s, const struct set *S, int a,
                       int hi, double *at, size_t *n) {
  double worst = -INFINITY, sum[3] = {0, 0, 0}, d;
  *n = 0;
  for (uint32_t j = 0; j < S->n; j++)
    for (size_t i = (&S->body[S->list[j]])->first; i < (&S->body[S->list[j]])->first + (&S->body[S->list[j]])->count;
         i++) {
      if (!touching(s, i, a, hi, &d)) continue;
      worst = fmax(worst, d);
      for (int k = 0; k < 3; k++) sum[k] += s->x[3 * i + k];
      (*n)++;
    }
  for (int k = 0; k < 3; k++) at[k] = *n ? sum[k] / (double)*n : 0.0;
  return worst;
}

/* Mean distance from `at` of the set's particles touching wall (a, hi). */
static double spread(const struct state *s, const struct set *S, int a,
                     int hi, const double *at, size_t nt) {
  double rho = 0.0, d;
  for (uint32_t j = 0; j < S->n; j++)
    for (size_t i = (&S->body[S->list[j]])->first; i < (&S->body[S->list[j]])->first + (&S->body[S->list[j]])->count;
         i++) {
      if (!touching(s, i, a, hi, &d)) continue;
      double q[3];
      for (int k = 0; k < 3; k++) q[k] = s->x[3 * i + k] - at[k];
      rho += sqrt(rigid_dot(q, q)) / (double)nt;
    }
  return rho;
}

static void place(struct state *s, const struct set *S) {
  for (uint32_t j = 0; j < S->n; j++)
    rigid_place((&S->body[S->list[j]]), s->off, s->x, s->v);
}

int rigid_walls(struct state *s, const uint32_t *list, uint32_t nb,
                double dt) {
  const double *g = s->gravity;
  double v_rest = 2.0 * dt * sqrt(rigid_dot(g, g));
  struct set S = {s->body, list, nb, 0.0, {0, 0, 0}, {0, 0, 0, 0, 0, 0}};
  int acted = 0;
  gather(&S);
  for (int pass = 0; pass < 4; pass++) {
    int any = 0;
    for (int a = 0; a < 3; a++)
      for (int hi = 0; hi < 2; hi++) {
        double at[3], n[3] = {0.0, 0.0, 0.0}, r[3];
        size_t nt;
        double depth = crossing(s, &S, a, hi, at, &nt);
        if (!nt) continue;
        n[a] = hi ? -1.0 : 1.0;
        if (depth > 0.0) {
          for (uint32_t j = 0; j < nb; j++) s->body[list[j]].s.x[a] += n[a] * depth;
          S.c[a] += n[a] * depth;
          place(s, &S);
          at[a] += n[a] * depth;
        }
        for (int k = 0; k < 3; k++) r[k] = at[k] - S.c[k];
        double jn = push(s, &S, r, n, v_rest);
        if (jn > 0.0) rub(s, &S, r, n, jn, spread(s, &S, a, hi, at, nt));
        place(s, &S);
        any |= depth > 0.0;
        acted = 1;
      }
    if (!any) break;
  }
  return acted;
}
