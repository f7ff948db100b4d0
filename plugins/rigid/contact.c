/* rigid — the step with the core's meta-particles (plugin.h: META-
 * PARTICLES, COLLECTIVE RESPONSE).  Each meta-particle is glued to one
 * body, its host: a point of mass metas->mass at its centre, moving with
 * the body, so a contact feels the whole body.  Every other body with
 * members in it is held to the host there by a point contact (one normal
 * per pair of bodies), solved in solve.c: the two may still turn about
 * it and slide (a domino pushes the next one over).  Two bodies touching
 * face to face are welded for the step and move as one object, so a
 * stack stays square.  The core's impulses on LEAD meta-particles go into
 * their host's momentum and angular momentum, and the contacts are solved
 * again.  After the core's write each body is made rigid again with the
 * momentum its particles carry.  A meta-particle with a member of a
 * kinematic body is glued to that body and pinned to its scripted path;
 * the dynamic bodies in it rest on that path. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "rigid.h"

static int grow(struct state *s, uint32_t count) {
  if (count <= s->cap_meta) return MS_OK;
  uint32_t *a = realloc(s->host_of, count * sizeof *a);
  if (a) s->host_of = a;
  uint32_t *b = a ? realloc(s->hlist, count * sizeof *b) : NULL;
  if (b) s->hlist = b;
  uint32_t *c = b ? realloc(s->pin_of, count * sizeof *c) : NULL;
  if (c) s->pin_of = c;
  if (!a || !b || !c) return MS_ENOMEM;
  s->cap_meta = count;
  return MS_OK;
}

/* Body b holds to the host of meta-particle k at its centre; the normal
 * points from the meta-particle's centre to b's members in it (the
 * contact's side of b). */
static int add_constraint(struct state *s, const struct ms_metas *mt,
                          uint32_t k, uint32_t b) {
  if (rigid_room((void **)&s->con, s->ncon, &s->cap_con, sizeof *s->con))
    return MS_ENOMEM;
  struct rigid_constraint *c = &s->con[s->ncon++];
  double d[3] = {0, 0, 0}, m = 0.0;
  memset(c, 0, sizeof *c);
  c->meta = k, c->body = b, c->host = s->host_of[k];
  for (uint32_t q = mt->member_offset[k]; q < mt->member_offset[k + 1]; q++) {
    size_t j = mt->member[q];
    if (s->body_of[j] != b) continue;
    for (int a = 0; a < 3; a++)
      d[a] += s->m[j] * (s->x0[3 * j + a] - mt->position[3 * k + a]);
    m += s->m[j];
  }
  memcpy(c->n, d, sizeof d); /* summed per pair of bodies later */
  c->sticky = !(m > 0.0);
  return MS_OK;
}

static uint32_t find(struct state *s, uint32_t b) {
  while (s->body[b].group != b)
    b = s->body[b].group = s->body[s->body[b].group].group;
  return b;
}

/* Whether the meta-particles of constraints i .. j - 1 (one pair of
 * bodies) spread over a face, not along an edge or at a point: some lies
 * a particle radius off the line through the first and the farthest from
 * it.  Two bodies resting face to face are welded for the step (they
 * move as one object, so a stack stays square); an edge or a corner is
 * held by the point constraints, about which the two may still turn and
 * slide. */
static int face(const struct state *s, const struct ms_metas *mt, uint32_t i,
                uint32_t j) {
  const double *p0 = mt->position + 3 * s->con[i].meta, *pf = p0;
  double far = 0.0, e[3], reach = s->r[s->body[s->con[i].body].first];
  if (j - i < 3) return 0;
  for (uint32_t k = i; k < j; k++) {
    const double *p = mt->position + 3 * s->con[k].meta;
    double d[3] = {p[0] - p0[0], p[1] - p0[1], p[2] - p0[2]};
    if (rigid_dot(d, d) > far) far = rigid_dot(d, d), pf = p;
  }
  if (!(far > 0.0)) return 0;
  for (int a = 0; a < 3; a++) e[a] = (pf[a] - p0[a]) / sqrt(far);
  for (uint32_t k = i; k < j; k++) {
    const double *p = mt->position + 3 * s->con[k].meta;
    double d[3] = {p[0] - p0[0], p[1] - p0[1], p[2] - p0[2]}, x[3];
    rigid_cross(x, d, e);
    if (rigid_dot(x, x) > reach * reach) return 1;
  }
  return 0;
}

static void weld(struct state *s, uint32_t a, uint32_t b) {
  uint32_t ra = find(s, a), rb = find(s, b);
  if (ra != rb) s->body[ra > rb ? ra : rb].group = ra < rb ? ra : rb;
}

static int by_pair(const void *pa, const void *pb) {
  const struct rigid_constraint *a = pa, *b = pb;
  if (a->host != b->host) return a->host < b->host ? -1 : 1;
  if (a->body != b->body) return a->body < b->body ? -1 : 1;
  return a->meta < b->meta ? -1 : a->meta > b->meta;
}

/* One normal per pair of bodies in contact: the sum over their meta-
 * particles of the body's members' offsets from the centre, normalised.
 * A single meta-particle's members lie lopsided about its centre; summed
 * over a face, the lopsidedness cancels and the normal is the face's. */
static void pair_normals(struct state *s, const struct ms_metas *mt) {
  if (s->ncon > 1) /* con is NULL before the first contact */
    qsort(s->con, s->ncon, sizeof *s->con, by_pair);
  for (uint32_t i = 0, j; i < s->ncon; i = j) {
    double d[3] = {0, 0, 0};
    uint32_t h = s->con[i].host;
    for (j = i; j < s->ncon && s->con[j].body == s->con[i].body &&
                s->con[j].host == h;
         j++)
      for (int a = 0; a < 3; a++) d[a] += s->con[j].n[a];
    double len = sqrt(rigid_dot(d, d));
    int sticky = !(len > 1e-9 * s->r[s->body[s->con[i].body].first]);
    if (s->body[h].motion == RIGID_DYNAMIC && face(s, mt, i, j))
      weld(s, s->con[i].body, h);
    for (uint32_t k = i; k < j; k++) {
      s->con[k].sticky |= sticky;
      for (int a = 0; a < 3; a++) s->con[k].n[a] = sticky ? 0.0 : d[a] / len;
    }
  }
}


/* Meta-particle k: its host (the first dynamic body among its members,
 * or the kinematic one that pins it), pin_of[k] (that kinematic body, or
 * UINT32_MAX); every dynamic body in it but the host is held to it. */
static int join(struct state *s, const struct ms_metas *mt, uint32_t k) {
  uint32_t q0 = mt->member_offset[k], q1 = mt->member_offset[k + 1];
  uint32_t kin = UINT32_MAX, dyn = UINT32_MAX;
  for (uint32_t q = q0; q < q1; q++) {
    uint32_t b = s->body_of[mt->member[q]];
    s->body[b].touched = 1;
    if (s->body[b].motion != RIGID_DYNAMIC) {
      if (b < kin) kin = b;
      continue;
    }
    if (b < dyn) dyn = b;
  }
  s->pin_of[k] = kin;
  s->host_of[k] = kin != UINT32_MAX ? kin : dyn;
  for (uint32_t q = q0; q < q1; q++) {
    uint32_t b = s->body_of[mt->member[q]];
    if (s->body[b].motion != RIGID_DYNAMIC || b == s->host_of[k] ||
        s->body[b].seen == k + 1)
      continue;
    s->body[b].seen = k + 1;
    if (add_constraint(s, mt, k, b)) return MS_ENOMEM;
  }
  return MS_OK;
}

/* CSR lists: per group (named by its root) the entries `of` names. */
static void bucket(uint32_t nroot, const uint32_t *of, uint32_t n,
                   uint32_t *off, uint32_t *list) {
  memset(off, 0, (nroot + 1) * sizeof *off);
  for (uint32_t k = 0; k < n; k++) off[of[k] + 1]++;
  for (uint32_t b = 0; b < nroot; b++) off[b + 1] += off[b];
  for (uint32_t k = 0; k < n; k++) list[off[of[k]]++] = k;
  for (uint32_t b = nroot; b > 0; b--) off[b] = off[b - 1];
  off[0] = 0;
}

int rigid_assign(struct state *s, const struct ms_metas *mt) {
  if (grow(s, mt->count)) return MS_ENOMEM;
  s->nmeta = mt->count;
  s->ncon = 0;
  ms_meta_mark(mt, s->n, s->meta);
  for (uint32_t b = 0; b < s->nbody; b++)
    s->body[b].touched = 0, s->body[b].group = b, s->body[b].seen = 0;
  for (uint32_t k = 0; k < mt->count; k++)
    if (join(s, mt, k)) return MS_ENOMEM;
  pair_normals(s, mt);
  for (uint32_t b = 0; b < s->nbody; b++) s->body[b].group = find(s, b);
  bucket(s->nbody, s->host_of, mt->count, s->hoff, s->hlist);
  memset(s->boff, 0, (s->nbody + 1) * sizeof *s->boff);
  for (uint32_t b = 0; b < s->nbody; b++) s->boff[s->body[b].group + 1]++;
  for (uint32_t b = 0; b < s->nbody; b++) s->boff[b + 1] += s->boff[b];
  for (uint32_t b = 0; b < s->nbody; b++)
    s->blist[s->boff[s->body[b].group]++] = b;
  for (uint32_t b = s->nbody; b > 0; b--) s->boff[b] = s->boff[b - 1];
  s->boff[0] = 0;
  return MS_OK;
}

/* The points of the glued object of group g (bodies welded for the step,
 * named by the first), one after the other: its bodies' free particles
 * (as at the step's start), then the meta-particles they host. */
struct point {
  double m, x[3];
  const double *v;
  size_t i;   /* particle, or SIZE_MAX */
  uint32_t k; /* meta-particle */
};
struct cursor {
  uint32_t g, nb, h; /* group, its bodies passed, hosted meta-particles
                        of the current body passed */
  int metas;         /* 0: particles, 1: meta-particles */
  size_t i;          /* next particle of the current body */
};

static const struct rigid_body *member(const struct state *s, uint32_t g,
                                       uint32_t j) {
  return &s->body[s->blist[s->boff[g] + j]];
}

static struct cursor start(const struct state *s, uint32_t g) {
  struct cursor c = {g, 0, 0, 0, member(s, g, 0)->first};
  return c;
}

static int next(const struct state *s, const struct ms_metas *mt,
                struct cursor *c, struct point *p) {
  uint32_t nb = s->boff[c->g + 1] - s->boff[c->g];
  while (!c->metas) {
    const struct rigid_body *B = member(s, c->g, c->nb);
    for (; c->i < B->first + B->count; c->i++) {
      if (s->meta[c->i] >= 0) continue;
      size_t i = c->i++;
      p->m = s->m[i], p->v = s->v0 + 3 * i, p->i = i;
      memcpy(p->x, s->x0 + 3 * i, sizeof p->x);
      return 1;
    }
    if (++c->nb < nb) c->i = member(s, c->g, c->nb)->first;
    else c->metas = 1, c->nb = 0;
  }
  for (; c->nb < nb; c->nb++, c->h = 0) {
    uint32_t b = s->blist[s->boff[c->g] + c->nb];
    if (c->h >= s->hoff[b + 1] - s->hoff[b]) continue;
    uint32_t k = s->hlist[s->hoff[b] + c->h++];
    p->m = mt->mass[k], p->v = mt->velocity + 3 * k, p->i = SIZE_MAX;
    p->k = k;
    memcpy(p->x, mt->position + 3 * k, sizeof p->x);
    return 1;
  }
  return 0;
}

/* Group g's glued object at the step's start: mass, centre, inertia
 * about it; its velocity and angular momentum after the force and torque
 * the core hands it and gravity over dt. */
static void begin_object(struct state *s, uint32_t b, const struct ms_metas *mt,
                         const double *F, double dt) {
  struct rigid_obj *o = &s->body[b].o;
  struct point p;
  struct cursor it = start(s, b);
  double P[3] = {0, 0, 0}, Ft[3] = {0, 0, 0}, T[3] = {0, 0, 0};
  o->m = 0.0;
  for (int a = 0; a < 3; a++) o->c[a] = o->L[a] = o->V[a] = 0.0;
  ms_sym3_scalar(o->I, 0.0);
  while (next(s, mt, &it, &p)) {
    o->m += p.m;
    for (int a = 0; a < 3; a++) o->c[a] += p.m * p.x[a], P[a] += p.m * p.v[a];
  }
  if (!(o->m > 0.0)) return; /* every particle moves with another body */
  for (int a = 0; a < 3; a++) o->c[a] /= o->m;
  it = start(s, b);
  while (next(s, mt, &it, &p)) {
    double r[3], rv[3];
    for (int a = 0; a < 3; a++) r[a] = p.x[a] - o->c[a];
    rigid_cross(rv, r, p.v);
    for (int a = 0; a < 3; a++) o->L[a] += p.m * rv[a];
    rigid_add_point_inertia(o->I, p.m, r);
  }
  it = start(s, b);
  while (F && next(s, mt, &it, &p)) {
    double r[3], f[3], t[3];
    if (p.i != SIZE_MAX) memcpy(f, F + 3 * p.i, sizeof f);
    else ms_meta_sum(mt, p.k, F, f);
    for (int a = 0; a < 3; a++) r[a] = p.x[a] - o->c[a];
    rigid_cross(t, r, f);
    for (int a = 0; a < 3; a++) Ft[a] += f[a], T[a] += t[a];
  }
  for (int a = 0; a < 3; a++) {
    o->V[a] = (P[a] + dt * Ft[a]) / o->m + dt * s->gravity[a];
    o->L[a] += dt * T[a];
  }
}

/* Meta-particle k ends at pn with velocity vn (into vel, disp), its
 * members with it. */
static void end_at(struct state *s, uint32_t k, const double *pn,
                   const double *vn, const struct ms_metas *mt, double *vel,
                   double *disp) {
  for (int a = 0; a < 3; a++) {
    vel[3 * k + a] = vn[a];
    disp[3 * k + a] = pn[a] - mt->position[3 * k + a];
  }
  for (uint32_t q = mt->member_offset[k]; q < mt->member_offset[k + 1]; q++) {
    size_t j = mt->member[q];
    for (int a = 0; a < 3; a++) {
      s->x[3 * j + a] = s->x0[3 * j + a] + disp[3 * k + a];
      s->v[3 * j + a] = vn[a];
    }
  }
}

/* A kinematic body: its particles on the scripted path, its meta-particles
 * pinned to it. */
static void step_kinematic(struct state *s, uint32_t b, double dt,
                           const struct ms_metas *mt,
                           struct ms_meta_result *res) {
  struct rigid_body *B = &s->body[b];
  rigid_advance_kinematic(B, &B->s, dt);
  rigid_place(B, s->off, s->x, s->v);
  for (uint32_t h = s->hoff[b]; h < s->hoff[b + 1]; h++) {
    uint32_t k = s->hlist[h];
    double pn[3], u[3];
    rigid_kinematic_point(B, mt->position + 3 * k, dt, pn, u);
    end_at(s, k, pn, u, mt, res->velocity, res->displacement);
    res->constrained[k] = MS_PINNED;
  }
}

/* Whether meta-particle k holds another system's particles: only those
 * take part in the synchronisation. */
static int shared(const struct ms_metas *mt, uint32_t k) {
  return mt->own_mass[k] < mt->mass[k];
}

/* Move group g's glued object over the step from its start, by its o->V
 * and o->L: x -> c1 + Q (x - c), v = V + w1 x Q (x - c) with the rotation
 * Q of w = I^-1 L and w1 = (Q I Q^T)^-1 L (the object keeps its angular
 * momentum exactly).  The hosted meta-particles' velocity and
 * displacement go to vel, disp (only those with mask[k], if mask), their
 * members with them. */
static void place_object(struct state *s, uint32_t g, const struct ms_metas *mt,
                         double dt, double *vel, double *disp,
                         const uint8_t *mask) {
  const struct rigid_obj *o = &s->body[g].o;
  double w[3], a[3], Q[9], c1[3], I1[6], w1[3];
  struct point p;
  struct cursor it = start(s, g);
  if (!(o->m > 0.0)) return;
  if (!ms_sym3_solve(w, o->I, o->L)) w[0] = w[1] = w[2] = 0.0;
  for (int i = 0; i < 3; i++) a[i] = dt * w[i], c1[i] = o->c[i] + dt * o->V[i];
  rigid_rotation_of(a, Q);
  /* the velocities turn with the object's inertia: w1 = (Q I Q^T)^-1 L
   * keeps the angular momentum L exactly */
  rigid_sym3_rotate(Q, o->I, I1);
  if (!ms_sym3_solve(w1, I1, o->L)) memcpy(w1, w, sizeof w1);
  while (next(s, mt, &it, &p)) {
    double r[3], q[3], wq[3], xn[3], vn[3];
    if (p.i == SIZE_MAX && mask && !mask[p.k]) continue;
    for (int i = 0; i < 3; i++) r[i] = p.x[i] - o->c[i];
    rigid_mat_vec(q, Q, r);
    rigid_cross(wq, w1, q);
    for (int i = 0; i < 3; i++) xn[i] = c1[i] + q[i], vn[i] = o->V[i] + wq[i];
    if (p.i != SIZE_MAX) {
      memcpy(s->x + 3 * p.i, xn, sizeof xn);
      memcpy(s->v + 3 * p.i, vn, sizeof vn);
    } else {
      end_at(s, p.k, xn, vn, mt, vel, disp);
    }
  }
}

int rigid_step(struct state *s, const struct ms_step *st,
               const struct ms_metas *mt, struct ms_meta_result *res) {
  s->nwc = 0;
  for (uint32_t b = 0; b < s->nbody; b++) {
    if (!s->body[b].touched || s->body[b].motion != RIGID_DYNAMIC) continue;
    if (s->body[b].group == b)
      begin_object(s, b, mt, st->external_force, st->dt);
    if (rigid_find_walls(s, b)) return MS_ENOMEM;
  }
  rigid_solve(s, mt, st->dt);
  for (uint32_t b = 0; b < s->nbody; b++) {
    if (!s->body[b].touched) continue;
    if (s->body[b].motion != RIGID_DYNAMIC)
      step_kinematic(s, b, st->dt, mt, res);
    else if (s->body[b].group == b)
      place_object(s, b, mt, st->dt, res->velocity, res->displacement, NULL);
  }
  for (uint32_t k = 0; k < mt->count; k++)
    if (s->pin_of[k] != UINT32_MAX) res->constrained[k] = MS_PINNED;
  return MS_OK;
}

/* The collective inertia of each meta-particle: for each dynamic body with
 * members in it, their share of the rest of the body's mass (the rest
 * among the meta-particles another system meets, in proportion to its
 * members' mass there; one of this system alone, seen by no one, states a
 * share too, so that it is LEAD and ends as its host moves).  None for a
 * meta-particle a kinematic body pins. */
void rigid_meta_inertia(struct state *s, const struct ms_metas *mt,
                        double *inertia) {
  for (uint32_t b = 0; b < s->nbody; b++)
    s->body[b].held = s->body[b].outer = 0.0;
  for (uint32_t k = 0; k < mt->count; k++)
    for (uint32_t q = mt->member_offset[k]; q < mt->member_offset[k + 1];
         q++) {
      struct rigid_body *B = &s->body[s->body_of[mt->member[q]]];
      B->held += s->m[mt->member[q]];
      if (shared(mt, k)) B->outer += s->m[mt->member[q]];
    }
  for (uint32_t k = 0; k < mt->count; k++) {
    double C = 0.0;
    for (uint32_t q = mt->member_offset[k];
         s->pin_of[k] == UINT32_MAX && q < mt->member_offset[k + 1]; q++) {
      const struct rigid_body *B = &s->body[s->body_of[mt->member[q]]];
      double rest = B->mass - B->held;
      double among = B->outer > 0.0 && shared(mt, k) ? B->outer : B->held;
      if (B->motion == RIGID_DYNAMIC && rest > 0.0)
        C += rest * s->m[mt->member[q]] / among;
    }
    ms_sym3_scalar(inertia + 6 * k, C);
  }
}

static int keep_follow(struct state *s, uint32_t b, const double *at,
                       const double *impulse) {
  if (rigid_room((void **)&s->follow, s->nfollow, &s->cap_follow,
                 sizeof *s->follow))
    return MS_ENOMEM;
  struct rigid_follow *f = &s->follow[s->nfollow++];
  f->body = b;
  memcpy(f->at, at, sizeof f->at);
  memcpy(f->impulse, impulse, sizeof f->impulse);
  return MS_OK;
}

/* Every LEAD impulse G into its host's momentum and angular momentum
 * (at the meta-particle's centre), then the constraints again and every
 * touched body moved again from the step's start: the LEAD meta-
 * particles' end velocity and displacement into r.  FOLLOW impulses are
 * kept for end_step. */
int rigid_meta_response(struct state *s, const struct ms_step *st,
                        const struct ms_metas *mt,
                        const struct ms_meta_response *r) {
  int any = 0;
  s->nfollow = 0;
  for (uint32_t k = 0; k < r->count; k++) {
    const double *G = r->impulse + 3 * k;
    uint32_t h = s->host_of[k];
    if (G[0] == 0.0 && G[1] == 0.0 && G[2] == 0.0) continue;
    if (!r->lead[k]) {
      double at[3];
      for (int a = 0; a < 3; a++)
        at[a] = mt->position[3 * k + a] + r->displacement[3 * k + a];
      if (keep_follow(s, h, at, G))
        return s->host->set_error(s->ctx, MS_ENOMEM, "out of memory");
      continue;
    }
    if (s->body[h].motion != RIGID_DYNAMIC || !(rigid_object_of(s, h)->m > 0.0))
      continue;
    double x[3];
    for (int a = 0; a < 3; a++)
      x[a] = mt->position[3 * k + a] - rigid_object_of(s, h)->c[a];
    rigid_apply(rigid_object_of(s, h), x, G, 1.0);
    any = 1;
  }
  if (!any) return MS_OK;
  rigid_solve(s, mt, st->dt);
  for (uint32_t b = 0; b < s->nbody; b++)
    if (s->body[b].touched && s->body[b].motion == RIGID_DYNAMIC &&
        s->body[b].group == b)
      place_object(s, b, mt, st->dt, r->velocity, r->displacement, r->lead);
  return MS_OK;
}

/* Centre, momentum, angular momentum about the centre and (if I) world
 * inertia of body B's particles as they are. */
static void particle_momenta(const struct state *s, const struct rigid_body *B,
                             double *c, double *P, double *L, double *I) {
  size_t i0 = B->first, i1 = B->first + B->count;
  for (int a = 0; a < 3; a++) c[a] = P[a] = L[a] = 0.0;
  for (size_t i = i0; i < i1; i++)
    for (int a = 0; a < 3; a++) {
      c[a] += s->m[i] * s->x[3 * i + a] / B->mass;
      P[a] += s->m[i] * s->v[3 * i + a];
    }
  if (I) ms_sym3_scalar(I, 0.0);
  for (size_t i = i0; i < i1; i++) {
    double r[3], rp[3], p[3];
    for (int a = 0; a < 3; a++)
      r[a] = s->x[3 * i + a] - c[a], p[a] = s->m[i] * s->v[3 * i + a];
    rigid_cross(rp, r, p);
    for (int a = 0; a < 3; a++) L[a] += rp[a];
    if (I) rigid_add_point_inertia(I, s->m[i], r);
  }
}

/* Body B's state from its particles as the core wrote them (the rest as
 * at the step's start); its world inertia into B->Iw. */
static void measure(struct state *s, struct rigid_body *B) {
  double c[3], P[3], L[3];
  particle_momenta(s, B, c, P, L, B->Iw);
  B->s = B->s0;
  memcpy(B->s.x, c, sizeof c);
  memcpy(B->s.P, P, sizeof P);
  memcpy(B->s.L, L, sizeof L);
}

/* The FOLLOW impulses and the spin handed to body g. */
static void take_one(struct state *s, uint32_t g) {
  struct rigid_body *B = &s->body[g];
  for (uint32_t f = 0; f < s->nfollow; f++) {
    const struct rigid_follow *F = &s->follow[f];
    if (F->body != g) continue;
    double r[3], rp[3];
    for (int a = 0; a < 3; a++) r[a] = F->at[a] - B->s.x[a];
    rigid_cross(rp, r, F->impulse);
    for (int a = 0; a < 3; a++) B->s.P[a] += F->impulse[a], B->s.L[a] += rp[a];
  }
  for (int a = 0; a < 3; a++) B->s.L[a] += B->spin[a];
}

void rigid_rigidify(struct state *s, uint32_t b, double dt) {
  struct rigid_body *B = &s->body[b];
  double w[3], a[3];
  measure(s, B);
  take_one(s, b);
  /* centred where the particles are, so that c x P + L is the angular
   * momentum they carry; turned from the step's start orientation */
  if (!ms_sym3_solve(w, B->Iw, B->s.L)) w[0] = w[1] = w[2] = 0.0;
  for (int k = 0; k < 3; k++) a[k] = dt * w[k];
  rigid_quat_rotate(B->s.q, a);
}

int rigid_absorb(struct state *s, uint32_t b) {
  struct rigid_body *B = &s->body[b];
  size_t i0 = B->first;
  if (!memcmp(s->x + 3 * i0, s->x0 + 3 * i0, 3 * B->count * sizeof(double)) &&
      !memcmp(s->v + 3 * i0, s->v0 + 3 * i0, 3 * B->count * sizeof(double)))
    return 0;
  double c[3], P[3], L[3];
  particle_momenta(s, B, c, P, L, NULL);
  if (B->motion == RIGID_DYNAMIC)
    for (int a = 0; a < 3; a++) B->s.P[a] = P[a], B->s.L[a] = L[a];
  memcpy(B->s.x, c, sizeof c);
  rigid_place(B, s->off, s->x, s->v);
  return 1;
}

void rigid_take_spin(struct state *s) {
  const double *spin = NULL;
  uint32_t count = 0;
  for (uint32_t b = 0; b < s->nbody; b++)
    s->body[b].spin[0] = s->body[b].spin[1] = s->body[b].spin[2] = 0.0;
  if (!MS_HOST_HAS(s->host, meta_spin) ||
      s->host->meta_spin(s->ctx, &spin, &count) || !spin ||
      count != s->nmeta)
    return;
  for (uint32_t k = 0; k < count; k++) {
    struct rigid_body *B = &s->body[s->host_of[k]];
    if (B->motion != RIGID_DYNAMIC) continue; /* a kinematic body: no L */
    for (int a = 0; a < 3; a++) B->spin[a] += spin[3 * k + a];
  }
}
