/* rigid — rigid bodies made of particles: the plugin's one internal
 * header.
 *
 * A body is a set of particles at fixed offsets from its centre of mass.
 * Its state is the lecture's (and Baraff and Witkin's): centre x, unit
 * quaternion q (body frame to world), linear momentum P, angular momentum
 * L; the angular velocity is w = I^-1 L with the world inertia
 * I = R Ib R^T.  Free flight (gravity, forces handed in by the core) is
 * integrated by symplectic Euler, the midpoint rule or RK4, the quaternion
 * renormalised after every step.  Bodies touch each other and other
 * systems only through the core's merging-and-splitting; a body answers a
 * contact with its whole mass and inertia (ABI 1.1 collective response).
 * The scene keys are in README.md and config.c. */
#ifndef MS_PLUGINS_RIGID_H
#define MS_PLUGINS_RIGID_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <mergesplit/plugin.h>
#include <mergesplit/plugin_util.h>

enum rigid_integrator {
  RIGID_SYMPLECTIC_EULER = 0,
  RIGID_MIDPOINT = 1,
  RIGID_RK4 = 2
};

/* How a body moves: by the forces on it, not at all, or as scripted (a
 * constant velocity and angular velocity); the last two are kinematic. */
enum rigid_motion { RIGID_DYNAMIC = 0, RIGID_FIXED = 1, RIGID_SCRIPTED = 2 };

/* The state of the lecture: x, q = (w, x, y, z), P, L. */
struct rigid_state {
  double x[3], q[4], P[3], L[3];
};

/* A body's glued object over a step (contact.c): its free particles and
 * the meta-particles it hosts, at the step's start. */
struct rigid_obj {
  double m, c[3], I[6]; /* mass, centre, inertia about it (sym3) */
  double V[3], L[3];    /* velocity, angular momentum about c */
};

struct rigid_body {
  size_t first, count; /* its particles: first .. first + count - 1 */
  double mass;
  double Ib[6];     /* inertia about the centre in the body frame (sym3) */
  int motion;       /* enum rigid_motion */
  double V[3], w[3]; /* scripted velocity and angular velocity */
  struct rigid_state s, s0; /* now; at begin_step */
  int touched;      /* the core handed it meta-particles this step */
  uint32_t group;   /* this step: the first body of its weld group (bodies
                       resting face to face move as one object) */
  uint32_t seen;    /* scratch: 1 + the last meta-particle it was held at */
  double held, outer; /* scratch: its members' mass in meta-particles, in
                         those shared with another system */
  struct rigid_obj o; /* this step's glued object */
  double spin[3];   /* this step: the members' spin handed back to it */
  double Iw[6];     /* scratch: world inertia about its centre (sym3) */
};

/* ---- small helpers of the plugin's files -------------------------------- */

/* Room for one more element in the list *p of *n elements of `size`
 * bytes, capacity *cap (doubled as it fills).  MS_ENOMEM or MS_OK. */
static inline int rigid_room(void **p, uint32_t n, uint32_t *cap,
                             size_t size) {
  if (n < *cap) return MS_OK;
  uint32_t c = *cap ? 2 * *cap : 64;
  void *q = realloc(*p, c * size);
  if (!q) return MS_ENOMEM;
  *p = q, *cap = c;
  return MS_OK;
}


static inline void rigid_cross(double *o, const double *a, const double *b) {
  double t0 = a[1] * b[2] - a[2] * b[1], t1 = a[2] * b[0] - a[0] * b[2],
         t2 = a[0] * b[1] - a[1] * b[0];
  o[0] = t0, o[1] = t1, o[2] = t2;
}

static inline double rigid_dot(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* o = M v for a 3x3 M (row-major). */
static inline void rigid_mat_vec(double *o, const double *M, const double *v) {
  double t0 = M[0] * v[0] + M[1] * v[1] + M[2] * v[2],
         t1 = M[3] * v[0] + M[4] * v[1] + M[5] * v[2],
         t2 = M[6] * v[0] + M[7] * v[1] + M[8] * v[2];
  o[0] = t0, o[1] = t1, o[2] = t2;
}

/* I += m (|r|^2 1 - r r^T): a point mass's inertia about the origin. */
static inline void rigid_add_point_inertia(double *I, double m,
                                           const double *r) {
  double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
  ms_sym3_add_outer(I, r, -m);
  I[0] += m * r2, I[1] += m * r2, I[2] += m * r2;
}

/* ---- body.c: the body's mechanics, free of the host ----------------- */

/* R (row-major) of a unit quaternion. */
void rigid_rotation(const double *q, double *R);
/* O = R S R^T for a symmetric S (sym3 in and out). */
void rigid_sym3_rotate(const double *R, const double *S, double *O);
/* World inertia R Ib R^T (sym3) of state s. */
void rigid_world_inertia(const struct rigid_body *b,
                         const struct rigid_state *s, double *I);
/* Angular velocity w = I^-1 L of state s (0 for a kinematic body's L). */
void rigid_omega(const struct rigid_body *b, const struct rigid_state *s,
                 double *w);
/* Mass, centre and body-frame inertia of n point masses m at x; the
 * offsets x - c into off.  Returns 0 when the inertia is degenerate (one
 * particle, or all on a line): such a body cannot turn. */
int rigid_mass_properties(size_t n, const double *x, const double *m,
                          double *mass, double *c, double *Ib, double *off);
/* Advance a dynamic body's state by dt under a constant acceleration g and
 * a constant force F and torque T (about the centre; NULL: none). */
void rigid_advance(const struct rigid_body *b, struct rigid_state *s,
                   int integrator, double dt, const double *g,
                   const double *F, const double *T);
/* The kinematic motion over dt: the scripted V, w (nothing if fixed). */
void rigid_advance_kinematic(const struct rigid_body *b,
                             struct rigid_state *s, double dt);
/* s from a rigid motion: centre velocity V, angular velocity w. */
void rigid_set_velocity(const struct rigid_body *b, struct rigid_state *s,
                        const double *V, const double *w);
/* The rotation matrix Q (row-major) of the rotation vector a. */
void rigid_rotation_of(const double *a, double *Q);
/* Rotate q by the rotation vector a (axis times angle): q = exp(a) q. */
void rigid_quat_rotate(double *q, const double *a);
/* Kinetic energy 1/2 |P|^2 / m + 1/2 L . w. */
double rigid_kinetic_energy(const struct rigid_body *b,
                            const struct rigid_state *s);
/* Place the body's particles (off: 3 per particle, body frame): positions
 * x + R off, velocities V + w x (R off). */
void rigid_place(const struct rigid_body *b, const double *off, double *x,
                 double *v);

/* Body `body` moves with the host of meta-particle `meta` at its centre
 * (it has members there). */
struct rigid_constraint {
  uint32_t meta, body, host; /* host: the body hosting the meta-particle */
  int sticky;        /* no normal found: the two move alike */
  double n[3];       /* normal at the contact, from the host into the body */
  double ln, lt[3];  /* normal and friction impulse so far this step */
};

/* A particle of a body within its radius of touching a domain wall at a
 * step's start. */
struct rigid_wall_contact {
  uint32_t body, wall; /* wall: axis 0, 1, 2 low then high (2 a + hi) */
  size_t particle;
  double gap;          /* how far from touching it at the step's start */
  double rebound;      /* > 0: the normal speed it leaves at (a bounce) */
  double ln, lt[3];    /* normal and friction impulse so far this step */
};

/* An impulse a FOLLOW meta-particle hands to the body that hosts it,
 * taken at end_step at the meta-particle's centre. */
struct rigid_follow {
  uint32_t body;
  double at[3], impulse[3];
};

struct state {
  const struct ms_host *host;
  ms_ctx *ctx;
  size_t n;                /* particles of all bodies, body after body */
  double *x, *v, *m, *r;   /* x, v: 3 per particle */
  double *T, *c;           /* temperature [K], specific heat [J/(kg K)]:
                              one temperature per body (lumped) */
  double *off;             /* 3 per particle: offset in the body frame */
  double *x0, *v0;         /* as placed after a step; at begin_step, for
                              rewind */
  uint32_t *body_of;       /* n: the body of each particle */
  struct rigid_body *body;
  uint32_t nbody;
  int integrator;          /* enum rigid_integrator */
  double restitution, friction; /* at the domain walls */
  double contact_friction; /* between bodies of the system */
  double gravity[3], lo[3], hi[3];
  /* the step's meta-particles (contact.c) */
  int32_t *meta;           /* n: meta-particle of each particle, or -1 */
  uint32_t *host_of;       /* per meta-particle: the body it is glued to */
  uint32_t *pin_of;        /* per meta-particle: kinematic body, or none */
  uint32_t *hoff, *hlist;  /* per body: the meta-particles it hosts */
  uint32_t *boff, *blist;  /* per weld group (its first body): its bodies */
  struct rigid_constraint *con; /* the step's point constraints */
  uint32_t ncon, cap_con;
  struct rigid_wall_contact *wc; /* the step's wall contacts */
  uint32_t nwc, cap_wc;
  uint32_t nmeta, cap_meta; /* meta-particles of the last integrate */
  struct rigid_follow *follow;
  uint32_t nfollow, cap_follow;
  struct ms_field fields[6];
};

/* ---- config.c: the scene keys ---------------------------------------- */

/* Read the system's keys and create its bodies and particles. */
int rigid_configure(struct state *s, const ms_config *sec);

/* ---- contact.c: the step with the core's meta-particles --------------- */

/* Host each meta-particle on a body (the first dynamic one among its
 * members, or the kinematic one that pins it), hold every other dynamic
 * body in it to the host (a point constraint), weld two bodies that touch
 * face to face, mark the bodies that take part.  MS_ENOMEM when the
 * tables cannot grow. */
int rigid_assign(struct state *s, const struct ms_metas *mt);
/* The step of the bodies that take part: each weld group with its hosted
 * meta-particles as one rigid object, the point constraints and the
 * contacts with the walls solved (Gauss-Seidel), kinematic bodies on
 * their path.  MS_ENOMEM when the tables cannot grow. */
int rigid_step(struct state *s, const struct ms_step *st,
               const struct ms_metas *mt, struct ms_meta_result *res);
/* The collective inertia of each meta-particle: its members' share of the
 * rest of their bodies' mass. */
void rigid_meta_inertia(struct state *s, const struct ms_metas *mt,
                        double *inertia);
/* ---- solve.c: the contacts of a step ------------------------------------ */

/* How far a particle at x (radius r) reaches past wall (axis a, side hi
 * of [lo, hi]): > 0 into it, 0 touching, < 0 short of it. */
static inline double rigid_wall_depth(const double *lo, const double *hi,
                                      int a, int side, double x, double r) {
  return side ? x + r - hi[a] : lo[a] + r - x;
}


/* The glued object of the weld group body b belongs to. */
static inline struct rigid_obj *rigid_object_of(struct state *s, uint32_t b) {
  return &s->body[s->body[b].group].o;
}
/* Impulse sign J at r (from its centre) on object o. */
void rigid_apply(struct rigid_obj *o, const double *r, const double *J,
                 double sign);
/* Where kinematic body B takes point p over the step, from its pose at
 * begin_step: position pn, velocity vn. */
void rigid_kinematic_point(const struct rigid_body *B, const double *p,
                           double dt, double *pn, double *vn);
/* Body b's particles within their radius of a domain wall at the step's
 * start, each a wall contact (s->wc).  MS_ENOMEM when the list cannot
 * grow. */
int rigid_find_walls(struct state *s, uint32_t b);
/* Gauss-Seidel over the step's point contacts (s->con) and wall contacts
 * (s->wc), onto the glued objects' V and L. */
void rigid_solve(struct state *s, const struct ms_metas *mt, double dt);
/* The wall contacts s->wc[from .. nwc) of free bodies alone: a contact
 * meeting its wall faster than v_rest within the step rebounds. */
void rigid_solve_walls(struct state *s, uint32_t from, double dt,
                       double v_rest);

/* Take the LEAD impulses into their hosts, solve the constraints again
 * and move the bodies again; keep FOLLOW impulses for end_step.
 * MS_ENOMEM when the list cannot grow. */
int rigid_meta_response(struct state *s, const struct ms_step *st,
                        const struct ms_metas *mt,
                        const struct ms_meta_response *r);
/* At end_step: each body's share of the spin the merge and split took
 * from its meta-particles' members (ABI 1.2, host->meta_spin), to add to
 * its angular momentum. */
void rigid_take_spin(struct state *s);
/* After the core's write: body b rigid again, with the linear and angular
 * momentum its particles carry (and the FOLLOW impulses and the spin
 * handed to it), centred where they are, turned from the step's start
 * orientation. */
void rigid_rigidify(struct state *s, uint32_t b, double dt);

/* At begin_step: when the core wrote to body b's particles since they
 * were placed (x0, v0 hold them as placed), take their momentum, angular
 * momentum and centre as the body's; 1 when it did. */
int rigid_absorb(struct state *s, uint32_t b);

/* ---- walls.c ---------------------------------------------------------- */

/* Push a dynamic body out of the domain walls it crosses and answer each
 * wall it touches with an impulse at the mean of its touching particles
 * (restitution, none below what gravity adds in two steps of dt; Coulomb
 * friction); 1 when a wall acted.  The particles are placed again.  (A
 * body that takes part in meta-particles also rests on the walls within
 * the step, contact.c; this is its landing and the positions' guard.) */
int rigid_walls(struct state *s, struct rigid_body *b, double dt);
/* A free dynamic body b with particles within their radius of a wall at
 * the step's start: its step over dt with force F and torque T (about its
 * centre), the walls' impulses solved before it moves (*done = 1); *done
 * = 0 (nothing changed) when no particle is that near.  MS_ENOMEM when the
 * contact list cannot grow. */
int rigid_lean_step(struct state *s, uint32_t b, const double *F,
                    const double *T, double dt, int *done);

#endif
