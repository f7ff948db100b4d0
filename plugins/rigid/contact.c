/* rigid — the step with the core's meta-particles (plugin.h: META-
 * PARTICLES, COLLECTIVE RESPONSE).  Each meta-particle is glued to one
 * body: a point of mass metas->mass at its centre, moving with the body.
 * The body and its glued meta-particles integrate as one rigid object, so
 * a contact feels the whole body; the core's impulses on LEAD meta-
 * particles go into the body's linear and angular momentum at once; after
 * the core's write the body is made rigid again with the momentum its
 * particles carry.  A meta-particle with a member of a kinematic body is
 * glued to that body and pinned to its scripted path. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "rigid.h"

/* The rotation matrix of the rotation vector a. */
static void rotation_of(const double *a, double *Q) {
  double q[4] = {1.0, 0.0, 0.0, 0.0};
  rigid_quat_rotate(q, a);
  rigid_rotation(q, Q);
}

static void mat_vec(double *o, const double *M, const double *v) {
  for (int i = 0; i < 3; i++)
    o[i] = M[3 * i] * v[0] + M[3 * i + 1] * v[1] + M[3 * i + 2] * v[2];
}

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

static uint32_t find(struct state *s, uint32_t b) {
  while (s->body[b].group != b)
    b = s->body[b].group = s->body[s->body[b].group].group;
  return b;
}

/* Join the dynamic bodies of meta-particle k into one group (the lowest
 * first body names it); the group it is glued to, or the kinematic body
 * when it holds no dynamic member.  pin_of[k]: the kinematic body that
 * pins it, or UINT32_MAX. */
static uint32_t join(struct state *s, const struct ms_metas *mt, uint32_t k) {
  uint32_t q0 = mt->member_offset[k], q1 = mt->member_offset[k + 1];
  uint32_t kin = UINT32_MAX, g = UINT32_MAX;
  for (uint32_t q = q0; q < q1; q++) {
    uint32_t b = s->body_of[mt->member[q]];
    s->body[b].touched = 1;
    if (s->body[b].motion != RIGID_DYNAMIC) {
      if (b < kin) kin = b;
      continue;
    }
    uint32_t r = find(s, b);
    if (g == UINT32_MAX) g = r;
    else if (r != g) {
      uint32_t lo = r < g ? r : g, hi = r < g ? g : r;
      s->body[hi].group = lo, g = lo;
    }
  }
  s->pin_of[k] = kin;
  return g != UINT32_MAX ? g : kin;
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
  ms_meta_mark(mt, s->n, s->meta);
  for (uint32_t b = 0; b < s->nbody; b++)
    s->body[b].touched = 0, s->body[b].group = b;
  for (uint32_t k = 0; k < mt->count; k++) s->host_of[k] = join(s, mt, k);
  for (uint32_t b = 0; b < s->nbody; b++) s->body[b].group = find(s, b);
  for (uint32_t k = 0; k < mt->count; k++) /* a group named late */
    if (s->body[s->host_of[k]].motion == RIGID_DYNAMIC)
      s->host_of[k] = s->body[s->host_of[k]].group;
  for (uint32_t b = 0; b < s->nbody; b++) /* a group moves together */
    s->body[b].touched |= s->body[s->body[b].group].touched;
  for (uint32_t b = 0; b < s->nbody; b++)
    s->body[s->body[b].group].touched |= s->body[b].touched;
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

/* The points of group g's glued object, one after the other: the free
 * particles of its bodies, then the meta-particles glued to it (at their
 * centre plus disp, if given). */
struct point {
  double m, x[3];
  const double *v;
  size_t i;   /* particle, or SIZE_MAX */
  uint32_t k; /* meta-particle */
};
struct cursor {
  uint32_t g, nb, h; /* group, bodies passed, meta-particles passed */
  size_t i;          /* next particle of the current body */
};

static struct cursor start(const struct state *s, uint32_t g) {
  struct cursor c = {g, 0, 0, s->body[s->blist[s->boff[g]]].first};
  return c;
}

static int next(const struct state *s, const struct ms_metas *mt,
                const double *disp, struct cursor *c, struct point *p) {
  uint32_t nbody = s->boff[c->g + 1] - s->boff[c->g];
  while (c->nb < nbody) {
    const struct rigid_body *b = &s->body[s->blist[s->boff[c->g] + c->nb]];
    for (; c->i < b->first + b->count; c->i++) {
      if (s->meta[c->i] >= 0) continue;
      size_t i = c->i++;
      p->m = s->m[i], p->v = s->v + 3 * i, p->i = i;
      memcpy(p->x, s->x + 3 * i, sizeof p->x);
      return 1;
    }
    if (++c->nb < nbody) c->i = s->body[s->blist[s->boff[c->g] + c->nb]].first;
  }
  if (c->h >= s->hoff[c->g + 1] - s->hoff[c->g]) return 0;
  uint32_t k = s->hlist[s->hoff[c->g] + c->h++];
  p->m = mt->mass[k], p->v = mt->velocity + 3 * k, p->i = SIZE_MAX, p->k = k;
  for (int a = 0; a < 3; a++)
    p->x[a] = mt->position[3 * k + a] + (disp ? disp[3 * k + a] : 0.0);
  return 1;
}

/* Mass, centre, momentum, angular momentum and inertia about the centre
 * of group g's glued object. */
static void glued(const struct state *s, uint32_t g, const struct ms_metas *mt,
                  const double *disp, double *c, double *mtot, double *P,
                  double *L, double *I) {
  struct point p;
  struct cursor it = start(s, g);
  *mtot = 0.0;
  for (int a = 0; a < 3; a++) c[a] = P[a] = L[a] = 0.0;
  ms_sym3_scalar(I, 0.0);
  while (next(s, mt, disp, &it, &p)) {
    *mtot += p.m;
    for (int a = 0; a < 3; a++) c[a] += p.m * p.x[a], P[a] += p.m * p.v[a];
  }
  if (!(*mtot > 0.0)) return;
  for (int a = 0; a < 3; a++) c[a] /= *mtot;
  it = start(s, g);
  while (next(s, mt, disp, &it, &p)) {
    double r[3], rv[3];
    for (int a = 0; a < 3; a++) r[a] = p.x[a] - c[a];
    rigid_cross(rv, r, p.v);
    for (int a = 0; a < 3; a++) L[a] += p.m * rv[a];
    rigid_add_point_inertia(I, p.m, r);
  }
}

/* Force and torque about c the core hands group g's glued object. */
static void external(const struct state *s, uint32_t g,
                     const struct ms_metas *mt, const double *F,
                     const double *c, double *Ft, double *Tt) {
  struct point p;
  struct cursor it = start(s, g);
  for (int a = 0; a < 3; a++) Ft[a] = Tt[a] = 0.0;
  while (F && next(s, mt, NULL, &it, &p)) {
    double f[3], r[3], t[3];
    if (p.i != SIZE_MAX) memcpy(f, F + 3 * p.i, sizeof f);
    else ms_meta_sum(mt, p.k, F, f);
    for (int a = 0; a < 3; a++) r[a] = p.x[a] - c[a];
    rigid_cross(t, r, f);
    for (int a = 0; a < 3; a++) Ft[a] += f[a], Tt[a] += t[a];
  }
}

/* Move point p of the object: x -> c1 + Q (x - c0), v = V + w x Q (x - c0);
 * a meta-particle's members follow it from where they began the step. */
static void move(struct state *s, const struct point *p, const double *c0,
                 const double *c1, const double *Q, const double *V,
                 const double *w, const struct ms_metas *mt,
                 struct ms_meta_result *res) {
  double r[3], q[3], wq[3], xn[3], vn[3];
  for (int a = 0; a < 3; a++) r[a] = p->x[a] - c0[a];
  mat_vec(q, Q, r);
  rigid_cross(wq, w, q);
  for (int a = 0; a < 3; a++) xn[a] = c1[a] + q[a], vn[a] = V[a] + wq[a];
  if (p->i != SIZE_MAX) {
    memcpy(s->x + 3 * p->i, xn, sizeof xn);
    memcpy(s->v + 3 * p->i, vn, sizeof vn);
    return;
  }
  uint32_t k = p->k;
  for (int a = 0; a < 3; a++) {
    res->velocity[3 * k + a] = vn[a];
    res->displacement[3 * k + a] = xn[a] - p->x[a];
  }
  for (uint32_t q2 = mt->member_offset[k]; q2 < mt->member_offset[k + 1];
       q2++) {
    size_t j = mt->member[q2];
    for (int a = 0; a < 3; a++) {
      s->x[3 * j + a] = s->x0[3 * j + a] + res->displacement[3 * k + a];
      s->v[3 * j + a] = vn[a];
    }
  }
}

/* Where kinematic body B takes point p over the step, from its pose at
 * begin_step: position pn, velocity vn. */
static void kinematic_point(const struct rigid_body *B, const double *p,
                            double dt, double *pn, double *vn) {
  double V[3] = {0, 0, 0}, w[3] = {0, 0, 0}, a[3], Q[9], r[3], q[3], wq[3];
  if (B->motion == RIGID_SCRIPTED) {
    memcpy(V, B->V, sizeof V);
    memcpy(w, B->w, sizeof w);
  }
  for (int i = 0; i < 3; i++) a[i] = dt * w[i], r[i] = p[i] - B->s0.x[i];
  rotation_of(a, Q);
  mat_vec(q, Q, r);
  rigid_cross(wq, w, q);
  for (int i = 0; i < 3; i++)
    pn[i] = B->s0.x[i] + dt * V[i] + q[i], vn[i] = V[i] + wq[i];
}

/* Meta-particle k ends at pn with velocity vn, its members with it. */
static void end_at(struct state *s, uint32_t k, const double *pn,
                   const double *vn, const struct ms_metas *mt,
                   struct ms_meta_result *res) {
  for (int a = 0; a < 3; a++) {
    res->velocity[3 * k + a] = vn[a];
    res->displacement[3 * k + a] = pn[a] - mt->position[3 * k + a];
  }
  for (uint32_t q = mt->member_offset[k]; q < mt->member_offset[k + 1]; q++) {
    size_t j = mt->member[q];
    for (int a = 0; a < 3; a++) {
      s->x[3 * j + a] = s->x0[3 * j + a] + res->displacement[3 * k + a];
      s->v[3 * j + a] = vn[a];
    }
  }
}

/* The meta-particles of group g that also hold a kinematic body's
 * particles stick to it, as a merge would have them: impulses at their
 * centres (Gauss-Seidel over them) make each move with its kinematic
 * body.  V, L: the object's velocity and angular momentum about c. */
static void stick(const struct state *s, uint32_t g, const struct ms_metas *mt,
                  double dt, const double *c, double m, const double *I,
                  double *V, double *L) {
  for (int pass = 0; pass < 8; pass++)
    for (uint32_t h = s->hoff[g]; h < s->hoff[g + 1]; h++) {
      uint32_t k = s->hlist[h];
      if (s->pin_of[k] == UINT32_MAX) continue;
      double r[3], pn[3], u[3], w[3], wr[3], d[3], J[3], rJ[3], K[9];
      for (int a = 0; a < 3; a++) r[a] = mt->position[3 * k + a] - c[a];
      kinematic_point(&s->body[s->pin_of[k]], mt->position + 3 * k, dt, pn, u);
      if (!ms_sym3_solve(w, I, L)) w[0] = w[1] = w[2] = 0.0;
      rigid_cross(wr, w, r);
      for (int a = 0; a < 3; a++) d[a] = u[a] - V[a] - wr[a];
      for (int j = 0; j < 3; j++) { /* K e_j = e_j / m + (I^-1 (r x e_j)) x r */
        double e[3] = {0, 0, 0}, re[3], y[3] = {0, 0, 0}, yr[3];
        e[j] = 1.0;
        rigid_cross(re, r, e);
        ms_sym3_solve(y, I, re);
        rigid_cross(yr, y, r);
        for (int a = 0; a < 3; a++) K[3 * a + j] = e[a] / m + yr[a];
      }
      double Ks[6] = {K[0], K[4], K[8], 0.5 * (K[1] + K[3]),
                      0.5 * (K[2] + K[6]), 0.5 * (K[5] + K[7])};
      if (!ms_sym3_solve(J, Ks, d)) continue;
      rigid_cross(rJ, r, J);
      for (int a = 0; a < 3; a++) V[a] += J[a] / m, L[a] += rJ[a];
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
    kinematic_point(B, mt->position + 3 * k, dt, pn, u);
    end_at(s, k, pn, u, mt, res);
    res->constrained[k] = MS_PINNED;
  }
}

void rigid_step_glued(struct state *s, uint32_t b, const struct ms_step *st,
                      const struct ms_metas *mt, struct ms_meta_result *res) {
  if (s->body[b].motion != RIGID_DYNAMIC) {
    step_kinematic(s, b, st->dt, mt, res);
    return;
  }
  const double dt = st->dt;
  double c[3], m, P[3], L[3], I[6], F[3], T[3], V[3], w[3], a[3], Q[9], c1[3];
  struct point p;
  glued(s, b, mt, NULL, c, &m, P, L, I);
  if (!(m > 0.0)) return; /* every particle moves with another body */
  external(s, b, mt, st->external_force, c, F, T);
  for (int i = 0; i < 3; i++) {
    V[i] = (P[i] + dt * F[i]) / m + dt * s->gravity[i];
    L[i] += dt * T[i];
  }
  stick(s, b, mt, dt, c, m, I, V, L);
  if (!ms_sym3_solve(w, I, L)) w[0] = w[1] = w[2] = 0.0;
  for (int i = 0; i < 3; i++) a[i] = dt * w[i], c1[i] = c[i] + dt * V[i];
  rotation_of(a, Q);
  /* the velocities turn with the object's inertia: w1 = (Q I Q^T)^-1 L
   * keeps the angular momentum L exactly */
  double I1[6], w1[3];
  rigid_sym3_rotate(Q, I, I1);
  if (!ms_sym3_solve(w1, I1, L)) memcpy(w1, w, sizeof w1);
  struct cursor it = start(s, b);
  while (next(s, mt, NULL, &it, &p)) move(s, &p, c, c1, Q, V, w1, mt, res);
  for (uint32_t h = s->hoff[b]; h < s->hoff[b + 1]; h++) {
    uint32_t k = s->hlist[h];
    if (s->pin_of[k] == UINT32_MAX) continue;
    double pn[3], u[3];
    kinematic_point(&s->body[s->pin_of[k]], mt->position + 3 * k, dt, pn, u);
    end_at(s, k, pn, u, mt, res);
    res->constrained[k] = MS_PINNED;
  }
}

/* Whether meta-particle k holds another system's particles: only those
 * take part in the synchronisation. */
static int shared(const struct ms_metas *mt, uint32_t k) {
  return mt->own_mass[k] < mt->mass[k];
}

void rigid_meta_inertia(const struct state *s, const struct ms_metas *mt,
                        double *inertia) {
  for (uint32_t b = 0; b < s->nbody; b++) {
    double held = 0.0, mass = 0.0, outer = 0.0;
    if (s->body[b].group != b || s->hoff[b] == s->hoff[b + 1]) continue;
    for (uint32_t h = s->hoff[b]; h < s->hoff[b + 1]; h++) {
      uint32_t k = s->hlist[h];
      held += mt->own_mass[k];
      if (shared(mt, k)) outer += mt->own_mass[k];
    }
    for (uint32_t j = s->boff[b]; j < s->boff[b + 1]; j++)
      mass += s->body[s->blist[j]].mass;
    double rest = s->body[b].motion == RIGID_DYNAMIC ? mass - held : 0.0;
    /* the rest of the group's mass among the meta-particles another
     * system meets; one of this system alone (seen by no one) states a
     * share too, so that it is LEAD and ends as the group moves */
    for (uint32_t h = s->hoff[b]; h < s->hoff[b + 1]; h++) {
      uint32_t k = s->hlist[h];
      double among = outer > 0.0 && shared(mt, k) ? outer : held;
      ms_sym3_scalar(inertia + 6 * k,
                     rest > 0.0 ? rest * mt->own_mass[k] / among : 0.0);
    }
  }
}

static int keep_follow(struct state *s, uint32_t b, const double *at,
                       const double *impulse) {
  if (s->nfollow == s->cap_follow) {
    uint32_t cap = s->cap_follow ? 2 * s->cap_follow : 16;
    struct rigid_follow *f = realloc(s->follow, cap * sizeof *f);
    if (!f) return MS_ENOMEM;
    s->follow = f, s->cap_follow = cap;
  }
  struct rigid_follow *f = &s->follow[s->nfollow++];
  f->body = b;
  memcpy(f->at, at, sizeof f->at);
  memcpy(f->impulse, impulse, sizeof f->impulse);
  return MS_OK;
}

/* Every LEAD impulse G on body b's glued object at once. */
static void lead(struct state *s, uint32_t b, const struct ms_step *st,
                 const struct ms_metas *mt, const struct ms_meta_response *r) {
  double c[3], m, P[3], L[3], I[6], dP[3] = {0, 0, 0}, dL[3] = {0, 0, 0};
  double dV[3], dw[3] = {0, 0, 0};
  int any = 0;
  for (uint32_t h = s->hoff[b]; h < s->hoff[b + 1]; h++)
    any |= r->lead[s->hlist[h]];
  if (!any) return;
  glued(s, b, mt, r->displacement, c, &m, P, L, I);
  for (uint32_t h = s->hoff[b]; h < s->hoff[b + 1]; h++) {
    uint32_t k = s->hlist[h];
    if (!r->lead[k]) continue;
    double x[3], rG[3];
    for (int a = 0; a < 3; a++)
      x[a] = mt->position[3 * k + a] + r->displacement[3 * k + a] - c[a];
    rigid_cross(rG, x, r->impulse + 3 * k);
    for (int a = 0; a < 3; a++) dP[a] += r->impulse[3 * k + a], dL[a] += rG[a];
  }
  for (int a = 0; a < 3; a++) dV[a] = dP[a] / m;
  if (!ms_sym3_solve(dw, I, dL)) dw[0] = dw[1] = dw[2] = 0.0;
  struct point p;
  struct cursor it = start(s, b);
  while (next(s, mt, r->displacement, &it, &p)) {
    if (p.i == SIZE_MAX && !r->lead[p.k]) continue;
    double *v = p.i != SIZE_MAX ? s->v + 3 * p.i : r->velocity + 3 * p.k;
    double *d = p.i != SIZE_MAX ? s->x + 3 * p.i : r->displacement + 3 * p.k;
    double x[3], wx[3];
    for (int a = 0; a < 3; a++) x[a] = p.x[a] - c[a];
    rigid_cross(wx, dw, x);
    for (int a = 0; a < 3; a++) {
      v[a] += dV[a] + wx[a];
      d[a] += st->dt * (dV[a] + wx[a]);
    }
  }
}

int rigid_meta_response(struct state *s, const struct ms_step *st,
                        const struct ms_metas *mt,
                        const struct ms_meta_response *r) {
  s->nfollow = 0;
  for (uint32_t b = 0; b < s->nbody; b++)
    if (s->body[b].motion == RIGID_DYNAMIC && s->body[b].group == b)
      lead(s, b, st, mt, r);
  for (uint32_t k = 0; k < r->count; k++) {
    if (r->lead[k]) continue;
    const double *G = r->impulse + 3 * k;
    if (G[0] == 0.0 && G[1] == 0.0 && G[2] == 0.0) continue;
    double at[3];
    for (int a = 0; a < 3; a++)
      at[a] = mt->position[3 * k + a] + r->displacement[3 * k + a];
    if (keep_follow(s, s->host_of[k], at, G))
      return s->host->set_error(s->ctx, MS_ENOMEM, "out of memory");
  }
  return MS_OK;
}

/* Body B's centre, momentum, angular momentum and world inertia from its
 * particles as the core wrote them (the state otherwise as at the step's
 * start). */
static void measure(struct state *s, struct rigid_body *B) {
  double c[3] = {0, 0, 0}, P[3] = {0, 0, 0}, L[3] = {0, 0, 0};
  size_t i0 = B->first, i1 = B->first + B->count;
  for (size_t i = i0; i < i1; i++)
    for (int a = 0; a < 3; a++) {
      c[a] += s->m[i] * s->x[3 * i + a] / B->mass;
      P[a] += s->m[i] * s->v[3 * i + a];
    }
  ms_sym3_scalar(B->Iw, 0.0);
  for (size_t i = i0; i < i1; i++) {
    double r[3], rp[3], p[3];
    for (int a = 0; a < 3; a++)
      r[a] = s->x[3 * i + a] - c[a], p[a] = s->m[i] * s->v[3 * i + a];
    rigid_cross(rp, r, p);
    for (int a = 0; a < 3; a++) L[a] += rp[a];
    rigid_add_point_inertia(B->Iw, s->m[i], r);
  }
  B->s = B->s0;
  memcpy(B->s.x, c, sizeof c);
  memcpy(B->s.P, P, sizeof P);
  memcpy(B->s.L, L, sizeof L);
}

/* The FOLLOW impulses and the spin handed to group g, on its one body. */
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

/* ... on the bodies of a group of several, as on one rigid object (they
 * moved as one): its change dV = dP / m, dw = I^-1 dL (about its centre)
 * shared as each body's momentum and spin, so that the group's momentum
 * and angular momentum change by exactly dP, dL. */
static void take_many(struct state *s, uint32_t g) {
  const uint32_t *list = s->blist + s->boff[g];
  uint32_t nb = s->boff[g + 1] - s->boff[g];
  double m = 0.0, c[3] = {0, 0, 0}, I[6], dP[3] = {0, 0, 0}, dL[3], dw[3];
  for (uint32_t j = 0; j < nb; j++) {
    const struct rigid_body *B = &s->body[list[j]];
    m += B->mass;
    for (int a = 0; a < 3; a++) c[a] += B->mass * B->s.x[a];
  }
  for (int a = 0; a < 3; a++) c[a] /= m, dL[a] = s->body[g].spin[a];
  ms_sym3_scalar(I, 0.0);
  for (uint32_t j = 0; j < nb; j++) {
    const struct rigid_body *B = &s->body[list[j]];
    double d[3];
    for (int a = 0; a < 6; a++) I[a] += B->Iw[a];
    for (int a = 0; a < 3; a++) d[a] = B->s.x[a] - c[a];
    rigid_add_point_inertia(I, B->mass, d);
  }
  for (uint32_t f = 0; f < s->nfollow; f++) {
    const struct rigid_follow *F = &s->follow[f];
    if (F->body != g) continue;
    double r[3], rp[3];
    for (int a = 0; a < 3; a++) r[a] = F->at[a] - c[a];
    rigid_cross(rp, r, F->impulse);
    for (int a = 0; a < 3; a++) dP[a] += F->impulse[a], dL[a] += rp[a];
  }
  if (!ms_sym3_solve(dw, I, dL)) dw[0] = dw[1] = dw[2] = 0.0;
  for (uint32_t j = 0; j < nb; j++) {
    struct rigid_body *B = &s->body[list[j]];
    double d[3], wd[3], Idw[3];
    for (int a = 0; a < 3; a++) d[a] = B->s.x[a] - c[a];
    rigid_cross(wd, dw, d);
    ms_sym3_mul(Idw, B->Iw, dw);
    for (int a = 0; a < 3; a++)
      B->s.P[a] += B->mass * (dP[a] / m + wd[a]), B->s.L[a] += Idw[a];
  }
}

void rigid_rigidify(struct state *s, uint32_t g, double dt) {
  const uint32_t *list = s->blist + s->boff[g];
  uint32_t nb = s->boff[g + 1] - s->boff[g];
  for (uint32_t j = 0; j < nb; j++) measure(s, &s->body[list[j]]);
  if (nb == 1) take_one(s, g);
  else take_many(s, g);
  /* centred where the particles are, so that c x P + L is the angular
   * momentum they carry; turned from the step's start orientation */
  for (uint32_t j = 0; j < nb; j++) {
    struct rigid_body *B = &s->body[list[j]];
    double w[3], a[3];
    if (!ms_sym3_solve(w, B->Iw, B->s.L)) w[0] = w[1] = w[2] = 0.0;
    for (int k = 0; k < 3; k++) a[k] = dt * w[k];
    rigid_quat_rotate(B->s.q, a);
  }
}

int rigid_absorb(struct state *s, uint32_t b) {
  struct rigid_body *B = &s->body[b];
  size_t i0 = B->first, i1 = B->first + B->count;
  if (!memcmp(s->x + 3 * i0, s->x0 + 3 * i0, 3 * B->count * sizeof(double)) &&
      !memcmp(s->v + 3 * i0, s->v0 + 3 * i0, 3 * B->count * sizeof(double)))
    return 0;
  double c[3] = {0, 0, 0}, P[3] = {0, 0, 0}, L[3] = {0, 0, 0};
  for (size_t i = i0; i < i1; i++)
    for (int a = 0; a < 3; a++) {
      c[a] += s->m[i] * s->x[3 * i + a] / B->mass;
      P[a] += s->m[i] * s->v[3 * i + a];
    }
  for (size_t i = i0; i < i1; i++) {
    double r[3], rp[3], p[3];
    for (int a = 0; a < 3; a++)
      r[a] = s->x[3 * i + a] - c[a], p[a] = s->m[i] * s->v[3 * i + a];
    rigid_cross(rp, r, p);
    for (int a = 0; a < 3; a++) L[a] += rp[a];
  }
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
