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

struct rigid_body {
  size_t first, count; /* its particles: first .. first + count - 1 */
  double mass;
  double Ib[6];     /* inertia about the centre in the body frame (sym3) */
  int motion;       /* enum rigid_motion */
  double V[3], w[3]; /* scripted velocity and angular velocity */
  struct rigid_state s, s0; /* now; at begin_step */
  int touched;      /* the core handed it meta-particles this step */
  uint32_t group;   /* this step: the body whose group it belongs to */
  double spin[3];   /* this step: the members' spin handed back to it */
  double Iw[6];     /* scratch: world inertia about its centre (sym3) */
};

/* ---- small vector helpers of the plugin's files ------------------------ */

static inline void rigid_cross(double *o, const double *a, const double *b) {
  double t0 = a[1] * b[2] - a[2] * b[1], t1 = a[2] * b[0] - a[0] * b[2],
         t2 = a[0] * b[1] - a[1] * b[0];
  o[0] = t0, o[1] = t1, o[2] = t2;
}

static inline double rigid_dot(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
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
/* Rotate q by the rotation vector a (axis times angle): q = exp(a) q. */
void rigid_quat_rotate(double *q, const double *a);
/* Kinetic energy 1/2 |P|^2 / m + 1/2 L . w. */
double rigid_kinetic_energy(const struct rigid_body *b,
                            const struct rigid_state *s);
/* Place the body's particles (off: 3 per particle, body frame): positions
 * x + R off, velocities V + w x (R off). */
void rigid_place(const struct rigid_body *b, const double *off, double *x,
                 double *v);

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
  double *off;             /* 3 per particle: offset in the body frame */
  double *x0, *v0;         /* as placed after a step; at begin_step, for
                              rewind */
  uint32_t *body_of;       /* n: the body of each particle */
  struct rigid_body *body;
  uint32_t nbody;
  int integrator;          /* enum rigid_integrator */
  double restitution, friction; /* at the domain walls */
  double gravity[3], lo[3], hi[3];
  /* the step's meta-particles (contact.c) */
  int32_t *meta;           /* n: meta-particle of each particle, or -1 */
  uint32_t *host_of;       /* per meta-particle: the group it is glued to */
  uint32_t *pin_of;        /* per meta-particle: kinematic body, or none */
  uint32_t *hoff, *hlist;  /* per group (its first body): its meta-particles */
  uint32_t *boff, *blist;  /* per group: its bodies */
  uint32_t nmeta, cap_meta; /* meta-particles of the last integrate */
  struct rigid_follow *follow;
  uint32_t nfollow, cap_follow;
  struct ms_field fields[4];
};

/* ---- config.c: the scene keys ---------------------------------------- */

/* Read the system's keys and create its bodies and particles. */
int rigid_configure(struct state *s, const ms_config *sec);

/* ---- contact.c: the step with the core's meta-particles --------------- */

/* Dynamic bodies that share a meta-particle form a group for the step
 * (merged, they move as one); glue every meta-particle to a group, or to
 * a kinematic body when a member is kinematic; mark the bodies that take
 * part.  MS_ENOMEM when the tables cannot grow. */
int rigid_assign(struct state *s, const struct ms_metas *mt);
/* The step of group g (named by its first body), or of a kinematic body
 * g: its bodies and the meta-particles glued to it as one rigid object. */
void rigid_step_glued(struct state *s, uint32_t g, const struct ms_step *st,
                      const struct ms_metas *mt, struct ms_meta_result *res);
/* The collective inertia of each meta-particle: its share of the rest of
 * its body's mass. */
void rigid_meta_inertia(const struct state *s, const struct ms_metas *mt,
                        double *inertia);
/* Take LEAD impulses onto each body at once; keep FOLLOW ones for
 * end_step.  MS_ENOMEM when the list cannot grow. */
int rigid_meta_response(struct state *s, const struct ms_step *st,
                        const struct ms_metas *mt,
                        const struct ms_meta_response *r);
/* At end_step: each body's share of the spin the merge and split took
 * from its meta-particles' members (ABI 1.2, host->meta_spin), to add to
 * its angular momentum. */
void rigid_take_spin(struct state *s);
/* After the core's write: the bodies of group g (named by its root)
 * rigid again, each with the linear and angular momentum its particles
 * carry, centred where they are, turned from the step's start
 * orientation; the FOLLOW impulses and the spin handed to the group act
 * on it as on one rigid object (its bodies moved as one). */
void rigid_rigidify(struct state *s, uint32_t g, double dt);

/* At begin_step: when the core wrote to body b's particles since they
 * were placed (x0, v0 hold them as placed), take their momentum, angular
 * momentum and centre as the body's; 1 when it did. */
int rigid_absorb(struct state *s, uint32_t b);

/* ---- walls.c ---------------------------------------------------------- */

/* Push dynamic bodies body[list[0 .. n - 1]] (one, or a group that moved
 * as one) out of the
 * domain walls they cross and answer each wall they touch with an
 * impulse at the mean of the touching particles (restitution, none below
 * what gravity adds in two steps of dt; Coulomb friction), on them as on
 * one rigid object; 1 when a wall acted.  The particles are placed
 * again. */
int rigid_walls(struct state *s, const uint32_t *list, uint32_t n, double dt);

#endif
