/* rigid — a body's mechanics: mass properties, the state (x, q, P, L) and
 * its free flight under the lecture's integrators.  No host, no particles
 * beyond placing them: the tests drive this file alone. */
#include <math.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "rigid.h"

void rigid_rotation(const double *q, double *R) {
  double n = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  double s = n > 0.0 ? 2.0 / n : 0.0; /* a stage's q need not be unit */
  double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - s * (y * y + z * z), R[1] = s * (x * y - w * z);
  R[2] = s * (x * z + w * y), R[3] = s * (x * y + w * z);
  R[4] = 1 - s * (x * x + z * z), R[5] = s * (y * z - w * x);
  R[6] = s * (x * z - w * y), R[7] = s * (y * z + w * x);
  R[8] = 1 - s * (x * x + y * y);
}

void rigid_sym3_rotate(const double *R, const double *S, double *O) {
  double F[9] = {S[0], S[3], S[4], S[3], S[1], S[5], S[4], S[5], S[2]};
  double T[9], B[9];
  for (int r = 0; r < 3; r++) /* T = R S */
    for (int c = 0; c < 3; c++)
      T[3 * r + c] = R[3 * r] * F[c] + R[3 * r + 1] * F[3 + c] +
                     R[3 * r + 2] * F[6 + c];
  for (int r = 0; r < 3; r++) /* B = T R^T */
    for (int c = 0; c < 3; c++)
      B[3 * r + c] = T[3 * r] * R[3 * c] + T[3 * r + 1] * R[3 * c + 1] +
                     T[3 * r + 2] * R[3 * c + 2];
  O[0] = B[0], O[1] = B[4], O[2] = B[8];
  O[3] = 0.5 * (B[1] + B[3]), O[4] = 0.5 * (B[2] + B[6]);
  O[5] = 0.5 * (B[5] + B[7]);
}

void rigid_world_inertia(const struct rigid_body *b,
                         const struct rigid_state *s, double *I) {
  double R[9];
  rigid_rotation(s->q, R);
  rigid_sym3_rotate(R, b->Ib, I);
}

void rigid_omega(const struct rigid_body *b, const struct rigid_state *s,
                 double *w) {
  if (b->motion != RIGID_DYNAMIC) {
    for (int a = 0; a < 3; a++)
      w[a] = b->motion == RIGID_SCRIPTED ? b->w[a] : 0.0;
    return;
  }
  double I[6];
  rigid_world_inertia(b, s, I);
  if (!ms_sym3_solve(w, I, s->L)) w[0] = w[1] = w[2] = 0.0;
}

int rigid_mass_properties(size_t n, const double *x, const double *m,
                          double *mass, double *c, double *Ib, double *off) {
  double M = 0.0, cx[3] = {0.0, 0.0, 0.0};
  for (size_t i = 0; i < n; i++) {
    M += m[i];
    for (int a = 0; a < 3; a++) cx[a] += m[i] * x[3 * i + a];
  }
  for (int a = 0; a < 3; a++) c[a] = cx[a] / M;
  ms_sym3_scalar(Ib, 0.0);
  for (size_t i = 0; i < n; i++) {
    for (int a = 0; a < 3; a++) off[3 * i + a] = x[3 * i + a] - c[a];
    rigid_add_point_inertia(Ib, m[i], off + 3 * i);
  }
  *mass = M;
  /* degenerate: the smallest principal moment vanishes next to the
   * others (det against the cube of the mean moment) */
  double t = (Ib[0] + Ib[1] + Ib[2]) / 3.0;
  return t > 0.0 && ms_sym3_det(Ib) > 1e-9 * t * t * t;
}

/* a (x) b for quaternions (w, x, y, z). */
static void quat_mul(const double *a, const double *b, double *o) {
  double t[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                 a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                 a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                 a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
  memcpy(o, t, sizeof t);
}

static void quat_normalise(double *q) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int a = 0; a < 4; a++) q[a] /= n;
}

void rigid_quat_rotate(double *q, const double *a) {
  double th = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  double h = 0.5 * th, s = th > 0.0 ? sin(h) / th : 0.5;
  double e[4] = {cos(h), s * a[0], s * a[1], s * a[2]};
  quat_mul(e, q, q);
  quat_normalise(q);
}

/* The state as 13 numbers and its time derivative:
 * x' = P/m, q' = 1/2 (0, w) (x) q, P' = m g + F, L' = T. */
enum { NY = 13 };
struct force {
  double g[3], F[3], T[3];
};

static void deriv(const struct rigid_body *b, const struct force *f,
                  const double *y, double *dy) {
  struct rigid_state s;
  double w[3], wq[4];
  memcpy(&s, y, sizeof s);
  rigid_omega(b, &s, w);
  double w4[4] = {0.0, w[0], w[1], w[2]};
  quat_mul(w4, s.q, wq);
  for (int a = 0; a < 3; a++) {
    dy[a] = s.P[a] / b->mass;
    dy[7 + a] = b->mass * f->g[a] + f->F[a];
    dy[10 + a] = f->T[a];
  }
  for (int a = 0; a < 4; a++) dy[3 + a] = 0.5 * wq[a];
}

static void axpy(double *o, const double *y, double h, const double *k) {
  for (int i = 0; i < NY; i++) o[i] = y[i] + h * k[i];
}

void rigid_advance(const struct rigid_body *b, struct rigid_state *s,
                   int integrator, double dt, const double *g,
                   const double *F, const double *T) {
  struct force f;
  double y[NY], k1[NY], k2[NY], k3[NY], k4[NY], t[NY];
  for (int a = 0; a < 3; a++)
    f.g[a] = g[a], f.F[a] = F ? F[a] : 0.0, f.T[a] = T ? T[a] : 0.0;
  memcpy(y, s, sizeof y);
  if (integrator == RIGID_SYMPLECTIC_EULER) {
    /* momenta first, then the positions with the new momenta */
    struct rigid_state *n = s;
    double w[3], w4[4], wq[4];
    for (int a = 0; a < 3; a++) {
      n->P[a] += dt * (b->mass * f.g[a] + f.F[a]);
      n->L[a] += dt * f.T[a];
      n->x[a] += dt * n->P[a] / b->mass;
    }
    rigid_omega(b, n, w);
    w4[0] = 0.0, w4[1] = w[0], w4[2] = w[1], w4[3] = w[2];
    quat_mul(w4, n->q, wq);
    for (int a = 0; a < 4; a++) n->q[a] += 0.5 * dt * wq[a];
  } else if (integrator == RIGID_MIDPOINT) {
    deriv(b, &f, y, k1);
    axpy(t, y, 0.5 * dt, k1);
    deriv(b, &f, t, k2);
    axpy(y, y, dt, k2);
    memcpy(s, y, sizeof y);
  } else {
    deriv(b, &f, y, k1);
    axpy(t, y, 0.5 * dt, k1);
    deriv(b, &f, t, k2);
    axpy(t, y, 0.5 * dt, k2);
    deriv(b, &f, t, k3);
    axpy(t, y, dt, k3);
    deriv(b, &f, t, k4);
    for (int i = 0; i < NY; i++)
      y[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    memcpy(s, y, sizeof y);
  }
  quat_normalise(s->q);
}

void rigid_advance_kinematic(const struct rigid_body *b,
                             struct rigid_state *s, double dt) {
  if (b->motion != RIGID_SCRIPTED) return;
  double a[3];
  for (int i = 0; i < 3; i++) s->x[i] += dt * b->V[i], a[i] = dt * b->w[i];
  rigid_quat_rotate(s->q, a);
}

void rigid_set_velocity(const struct rigid_body *b, struct rigid_state *s,
                        const double *V, const double *w) {
  double I[6];
  rigid_world_inertia(b, s, I);
  ms_sym3_mul(s->L, I, w);
  for (int a = 0; a < 3; a++) s->P[a] = b->mass * V[a];
}

double rigid_kinetic_energy(const struct rigid_body *b,
                            const struct rigid_state *s) {
  double w[3];
  rigid_omega(b, s, w);
  double p2 = s->P[0] * s->P[0] + s->P[1] * s->P[1] + s->P[2] * s->P[2];
  return 0.5 * p2 / b->mass +
         0.5 * (s->L[0] * w[0] + s->L[1] * w[1] + s->L[2] * w[2]);
}

void rigid_place(const struct rigid_body *b, const double *off, double *x,
                 double *v) {
  double R[9], w[3], V[3];
  rigid_rotation(b->s.q, R);
  rigid_omega(b, &b->s, w);
  for (int a = 0; a < 3; a++)
    V[a] = b->motion == RIGID_DYNAMIC ? b->s.P[a] / b->mass
           : b->motion == RIGID_SCRIPTED ? b->V[a]
                                         : 0.0;
  for (size_t i = b->first; i < b->first + b->count; i++) {
    const double *o = off + 3 * i;
    double d[3];
    for (int r = 0; r < 3; r++)
      d[r] = R[3 * r] * o[0] + R[3 * r + 1] * o[1] + R[3 * r + 2] * o[2];
    double *xi = x + 3 * i, *vi = v + 3 * i;
    for (int a = 0; a < 3; a++) xi[a] = b->s.x[a] + d[a];
    vi[0] = V[0] + w[1] * d[2] - w[2] * d[1];
    vi[1] = V[1] + w[2] * d[0] - w[0] * d[2];
    vi[2] = V[2] + w[0] * d[1] - w[1] * d[0];
  }
}

void rigid_rotation_of(const double *a, double *Q) {
  double q[4] = {1.0, 0.0, 0.0, 0.0};
  rigid_quat_rotate(q, a);
  rigid_rotation(q, Q);
}
