/* shape_matching — a body meets the domain walls as a body.  Before a
 * substep's prediction, every free particle of a dynamic body that would
 * reach a wall within the substep is a contact; impulses at the contacts
 * act on the body as on a rigid one (its free particles' mass, centre and
 * inertia), solved by Gauss-Seidel: the contact may not close faster than
 * its gap allows (speculative), bounces with wall_restitution when it
 * comes in faster than gravity adds in two substeps, and Coulomb friction
 * (wall_friction) holds its sliding.  The position corrections of the
 * step then have next to nothing to push out, and a body lands with the
 * impulse its whole mass needs -- not particle by particle, which a stiff
 * body answers with too little, sinks in and pops back out (energy from
 * nowhere). */
#include <math.h>
#include <string.h>

#include "shape_matching.h"

/* Gauss-Seidel sweeps until no impulse changes by more than TOL of the
 * largest, at most MAX_SWEEPS: a resting body's contacts take back the
 * whole of gravity's m g h every substep, and what a short solve leaves
 * of it is a velocity that lifts the body from nowhere (measured: 12
 * sweeps let a soft ball on the floor gain 3.7e-4 J a frame). */
#define TOL 1e-10
#define MAX_SWEEPS 1000

struct contact {
  size_t i;
  int axis;
  double n, gap, want; /* n: the normal's sign along axis (into the room) */
  double ln, lt[3];
};
_Static_assert(sizeof(struct contact) <= SM_CONTACT_SIZE,
               "SM_CONTACT_SIZE holds a contact");

static void cross(double *o, const double *a, const double *b) {
  double t0 = a[1] * b[2] - a[2] * b[1], t1 = a[2] * b[0] - a[0] * b[2],
         t2 = a[0] * b[1] - a[1] * b[0];
  o[0] = t0, o[1] = t1, o[2] = t2;
}

/* The velocity of particle i with the body's accumulated change dV, dw. */
static void vel(const struct state *s, size_t i, const double *c,
                const double *dV, const double *dw, double *v) {
  double r[3] = {s->x[3 * i] - c[0], s->x[3 * i + 1] - c[1],
                 s->x[3 * i + 2] - c[2]}, t[3];
  cross(t, dw, r);
  for (int a = 0; a < 3; a++) v[a] = s->v[3 * i + a] + dV[a] + t[a];
}

/* The body's rigid velocity at particle i: V + w x r, with the change. */
static void rigid_vel(const struct state *s, size_t i, const double *c,
                      const double *V, const double *w, double *v) {
  double r[3] = {s->x[3 * i] - c[0], s->x[3 * i + 1] - c[1],
                 s->x[3 * i + 2] - c[2]}, t[3];
  cross(t, w, r);
  for (int a = 0; a < 3; a++) v[a] = V[a] + t[a];
}

/* The rigid part of body b's free particles' motion: V = P / m,
 * w = I^-1 L about c. */
static void rigid_part(const struct state *s, uint32_t b, const double *c,
                       double m, const double *I, double *V, double *w) {
  const struct sm_body *B = &s->body[b];
  double P[3] = {0, 0, 0}, L[3] = {0, 0, 0};
  for (size_t i = B->first; i < B->first + B->count; i++) {
    if (s->meta[i] >= 0) continue;
    const double *v = s->v + 3 * i;
    double r[3] = {s->x[3 * i] - c[0], s->x[3 * i + 1] - c[1],
                   s->x[3 * i + 2] - c[2]}, t[3];
    cross(t, r, v);
    for (int a = 0; a < 3; a++) P[a] += s->m[i] * v[a], L[a] += s->m[i] * t[a];
  }
  for (int a = 0; a < 3; a++) V[a] = P[a] / m;
  if (!sm_inertia_solve(w, I, L)) w[0] = w[1] = w[2] = 0.0;
}

/* Impulse J at particle i onto the body: dV += J / m, dw += I^-1 r x J. */
static void apply(const struct state *s, size_t i, const double *c, double m,
                  const double *I, const double *J, double *dV, double *dw) {
  double r[3] = {s->x[3 * i] - c[0], s->x[3 * i + 1] - c[1],
                 s->x[3 * i + 2] - c[2]}, t[3], w[3];
  cross(t, r, J);
  if (!sm_inertia_solve(w, I, t)) w[0] = w[1] = w[2] = 0.0;
  for (int a = 0; a < 3; a++) dV[a] += J[a] / m, dw[a] += w[a];
}

/* 1 / (effective mass) of the body at particle i along unit d. */
static double inv_mass(const struct state *s, size_t i, const double *c,
                       double m, const double *I, const double *d) {
  double r[3] = {s->x[3 * i] - c[0], s->x[3 * i + 1] - c[1],
                 s->x[3 * i + 2] - c[2]}, t[3], w[3], u[3];
  cross(t, r, d);
  if (!sm_inertia_solve(w, I, t)) return 1.0 / m;
  cross(u, w, r);
  return 1.0 / m + u[0] * d[0] + u[1] * d[1] + u[2] * d[2];
}

/* Body b's contacts with the walls this substep, into ct (cap entries);
 * returns their count. */
static uint32_t find(const struct state *s, uint32_t b, double h, double g,
                     struct contact *ct, uint32_t cap) {
  const struct sm_body *B = &s->body[b];
  uint32_t n = 0;
  for (size_t i = B->first; i < B->first + B->count && n < cap; i++) {
    if (s->meta[i] >= 0) continue;
    const double *x = s->x + 3 * i, *v = s->v + 3 * i, r = s->r[i];
    for (int a = 0; a < 3 && n < cap; a++)
      for (int side = 0; side < 2 && n < cap; side++) {
        double sg = side ? -1.0 : 1.0;
        double gap = side ? s->hi[a] - r - x[a] : x[a] - s->lo[a] - r;
        double vin = -sg * v[a]; /* approach speed */
        if (!isfinite(gap) || gap > h * vin) continue;
        struct contact *k = &ct[n++];
        memset(k, 0, sizeof *k);
        k->i = i, k->axis = a, k->n = sg, k->gap = gap;
        /* close at most the gap; when fast, bounce: end where a point
         * reflected with the restitution would, e past the wall's face
         * what it would have crossed */
        gap = fmax(gap, 0.0);
        k->want = vin > 2.0 * g * h
                      ? s->restitution * vin - (1.0 + s->restitution) * gap / h
                      : -gap / h;
      }
  }
  return n;
}

void sm_wall_contacts(struct state *s, double h, void *scratch, uint32_t cap) {
  struct contact *ct = scratch;
  double g = sqrt(s->gravity[0] * s->gravity[0] + s->gravity[1] * s->gravity[1] +
                  s->gravity[2] * s->gravity[2]);
  for (uint32_t b = 0; b < s->nbody; b++) {
    if (s->body[b].motion != SM_DYNAMIC) continue;
    uint32_t n = find(s, b, h, g, ct, cap);
    if (!n) continue;
    double c[3], I[6], dV[3] = {0, 0, 0}, dw[3] = {0, 0, 0}, V[3], w[3];
    double m = sm_free_frame(s, b, c, I);
    if (!(m > 0.0)) continue;
    rigid_part(s, b, c, m, I, V, w);
    double big = 0.0, change = INFINITY;
    for (int sweep = 0; sweep < MAX_SWEEPS && change > TOL * big; sweep++) {
      big = change = 0.0;
      for (uint32_t k = 0; k < n; k++) {
        struct contact *q = &ct[k];
        double nrm[3] = {0, 0, 0}, v[3], J[3];
        nrm[q->axis] = q->n;
        vel(s, q->i, c, dV, dw, v);
        double vn = v[q->axis] * q->n;
        double dl = (q->want - vn) / inv_mass(s, q->i, c, m, I, nrm);
        double ln = fmax(0.0, q->ln + dl);
        dl = ln - q->ln, q->ln = ln;
        change = fmax(change, fabs(dl)), big = fmax(big, ln);
        for (int a = 0; a < 3; a++) J[a] = dl * nrm[a];
        apply(s, q->i, c, m, I, J, dV, dw);
        /* friction: stop the body's sliding at the contact (its rigid
         * motion there: against a particle's own, deforming, motion an
         * impulse on the whole body could feed it energy) within the cone
         * mu ln */
        double Vn[3] = {V[0] + dV[0], V[1] + dV[1], V[2] + dV[2]},
               wn[3] = {w[0] + dw[0], w[1] + dw[1], w[2] + dw[2]};
        rigid_vel(s, q->i, c, Vn, wn, v);
        double vt[3], st = 0.0;
        for (int a = 0; a < 3; a++) vt[a] = a == q->axis ? 0.0 : v[a];
        st = sqrt(vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2]);
        if (!(st > 0.0)) continue;
        double t[3] = {vt[0] / st, vt[1] / st, vt[2] / st};
        double jt = -st / inv_mass(s, q->i, c, m, I, t), lt[3], ll = 0.0;
        for (int a = 0; a < 3; a++) lt[a] = q->lt[a] + jt * t[a], ll += lt[a] * lt[a];
        ll = sqrt(ll);
        double cap_t = s->friction * q->ln;
        if (ll > cap_t)
          for (int a = 0; a < 3; a++) lt[a] *= cap_t / ll;
        for (int a = 0; a < 3; a++) J[a] = lt[a] - q->lt[a], q->lt[a] = lt[a];
        change = fmax(change, fabs(J[0]) + fabs(J[1]) + fabs(J[2]));
        apply(s, q->i, c, m, I, J, dV, dw);
      }
    }
    sm_free_turn(s, b, c, dV, dw, 0.0);
  }
}
