/* shape_matching — the position-based step: predict, then match and keep
 * out of the walls (`iterations` passes), velocity from displacement; a
 * meta-particle of the core moves as one particle of its whole mass and
 * takes the corrections of its members summed (plugin.h, META-PARTICLES),
 * so the system's corrections still sum to no force. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shape_matching.h"

/* Rotate v by the rotation vector a (Rodrigues). */
static void rotate(const double *a, const double *v, double *o) {
  double th = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  if (!(th > 0.0)) {
    memcpy(o, v, 3 * sizeof *o);
    return;
  }
  double k[3] = {a[0] / th, a[1] / th, a[2] / th}, c = cos(th), sn = sin(th);
  double kv = k[0] * v[0] + k[1] * v[1] + k[2] * v[2];
  double kx[3] = {k[1] * v[2] - k[2] * v[1], k[2] * v[0] - k[0] * v[2],
                  k[0] * v[1] - k[1] * v[0]};
  for (int i = 0; i < 3; i++)
    o[i] = v[i] * c + kx[i] * sn + k[i] * kv * (1.0 - c);
}

/* Where particle i of kinematic body b is at time t: its rest offset in
 * the body's one cluster, turned by w t about the centre moving at V. */
static void kinematic_at(const struct state *s, const struct sm_body *b,
                         size_t i, double t, double *x) {
  const struct sm_cluster *c = &s->clus[b->cfirst];
  const double *q = s->eq + 3 * (c->off + (i - b->first));
  double a[3] = {b->w[0] * t, b->w[1] * t, b->w[2] * t}, r[3];
  rotate(a, q, r);
  for (int k = 0; k < 3; k++) x[k] = b->c0[k] + b->V[k] * t + r[k];
}

int sm_meta_room(struct state *s, uint32_t K) {
  if (K <= s->cap_meta) return MS_OK;
  uint32_t c = K < 64 ? 64 : K;
  uint32_t *h = realloc(s->host_of, c * sizeof *h);
  if (h) s->host_of = h;
  uint32_t *p = realloc(s->pin, c * sizeof *p);
  if (p) s->pin = p;
  double *v = realloc(s->mV, 3 * c * sizeof *v);
  if (v) s->mV = v;
  double *d = realloc(s->mD, 3 * c * sizeof *d);
  if (d) s->mD = d;
  double *e = realloc(s->share, c * sizeof *e);
  if (e) s->share = e;
  if (!h || !p || !v || !d || !e) return MS_ENOMEM;
  s->cap_meta = c;
  return MS_OK;
}

static int dynamic(const struct state *s, size_t i) {
  return s->body[s->body_of[i]].motion == SM_DYNAMIC;
}

static void predict(struct state *s, const struct ms_step *st,
                    const struct ms_metas *mt, double h, double t1) {
  const double *f = st->external_force, *g = s->gravity;
  for (size_t i = 0; i < s->n; i++)
    if (s->meta[i] < 0 && dynamic(s, i))
      for (int a = 0; a < 3; a++)
        s->v[3 * i + a] += h * (g[a] + (f ? f[3 * i + a] / s->m[i] : 0.0));
  sm_wall_contacts(s, h, s->contacts, s->cap_contacts);
  for (size_t i = 0; i < s->n; i++) {
    double *x = s->x + 3 * i, *v = s->v + 3 * i, *xs = s->xs + 3 * i,
           *dd = s->dd + 3 * i;
    s->touch[i] = 0;
    if (s->meta[i] >= 0) continue;
    if (!dynamic(s, i)) {
      kinematic_at(s, &s->body[s->body_of[i]], i, t1, xs);
      for (int a = 0; a < 3; a++) dd[a] = xs[a] - x[a];
      continue;
    }
    for (int a = 0; a < 3; a++) {
      dd[a] = h * v[a];
      xs[a] = x[a] + dd[a];
    }
  }
  for (uint32_t k = 0; k < mt->count; k++) {
    double d[3], *V = s->mV + 3 * k, F[3];
    if (s->pin[k] != SM_NONE) {
      size_t j = s->pin[k];
      kinematic_at(s, &s->body[s->body_of[j]], j, t1, d);
      for (int a = 0; a < 3; a++) d[a] -= s->x[3 * j + a];
    } else {
      ms_meta_sum(mt, k, f, F);
      for (int a = 0; a < 3; a++) {
        V[a] += h * (g[a] + F[a] / mt->mass[k]);
        d[a] = h * V[a];
      }
    }
    for (uint32_t q = mt->member_offset[k]; q < mt->member_offset[k + 1]; q++) {
      size_t i = mt->member[q];
      for (int a = 0; a < 3; a++) {
        s->dd[3 * i + a] = d[a];
        s->xs[3 * i + a] = s->x[3 * i + a] + d[a];
      }
    }
  }
}

void sm_replastic_at(struct state *s, struct sm_cluster *C, double *aqq9,
                     int *ok) {
  for (uint32_t e = C->off; e < C->off + C->cnt; e++) {
    const double *q0 = s->eq0 + 3 * e;
    for (int r = 0; r < 3; r++)
      s->eq[3 * e + r] = C->Sp[3 * r] * q0[0] + C->Sp[3 * r + 1] * q0[1] +
                         C->Sp[3 * r + 2] * q0[2];
  }
  const struct sm_body *B = &s->body[C->body];
  int mode = B->motion == SM_DYNAMIC ? B->mode : SM_RIGID;
  int r = sm_rest(C, s->ew + C->off, s->eq + 3 * C->off, mode, aqq9);
  if (ok) *ok = r;
}

void sm_replastic(struct state *s, uint32_t c) {
  sm_replastic_at(s, &s->clus[c], s->aqq9 + 81 * (size_t)c, NULL);
}

/* A free particle i moved within the substep from a to b.  Velocity from
 * displacement, v = (x_end - x) / h, counts every such move as an impulse
 * at the particle's START position x, not at a where it was made: the
 * body's angular momentum misses m (a - x) x (b - a) / h.  (A rigid
 * match's moves are torque-free about where they are made, so without
 * this its body would turn ever so slightly wrong.)  Collect it, to
 * give back at the end of the substep (angular_lag). */
static void moved(struct state *s, size_t i, const double *a,
                  const double *b) {
  const double *x = s->x + 3 * i;
  double r[3] = {a[0] - x[0], a[1] - x[1], a[2] - x[2]},
         d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  double *L = s->dL + 3 * (size_t)s->body_of[i], m = s->m[i];
  L[0] += m * (r[1] * d[2] - r[2] * d[1]);
  L[1] += m * (r[2] * d[0] - r[0] * d[2]);
  L[2] += m * (r[0] * d[1] - r[1] * d[0]);
}

/* One matching pass: the corrections dx of every dynamic body's free
 * particles and meta-particle members.  Plasticity reads the strain of
 * the first pass, where the particles are as predicted (the later passes
 * see what the first one already corrected). */
static void match(struct state *s, double h, int first) {
  memset(s->dx, 0, 3 * s->n * sizeof *s->dx);
  for (uint32_t c = 0; c < s->nclusters; c++) {
    struct sm_cluster *C = &s->clus[c];
    const struct sm_body *b = &s->body[C->body];
    if (b->motion != SM_DYNAMIC) continue;
    const struct sm_params prm = {b->mode, b->beta};
    double *p = s->ep3 + 3 * C->off, *g = s->eg + 3 * C->off, A[9];
    double al = 1.0 - pow(1.0 - b->alpha, 1.0 / s->iterations);
    for (uint32_t e = 0; e < C->cnt; e++)
      memcpy(p + 3 * e, s->xs + 3 * s->ep[C->off + e], 3 * sizeof *p);
    sm_goals(C, &prm, s->ew + C->off, s->eq + 3 * C->off,
             s->aqq9 + 81 * (size_t)c, p, g, A);
    /* the corrections g - p sum to no force exactly; the positions'
     * rounding (far from the origin) does not: take it out */
    double mean[3] = {0, 0, 0};
    const double *w = s->ew + C->off;
    for (uint32_t e = 0; e < C->cnt; e++)
      for (int a = 0; a < 3; a++) {
        g[3 * e + a] -= p[3 * e + a];
        mean[a] += w[e] * g[3 * e + a];
      }
    for (int a = 0; a < 3; a++) mean[a] /= C->wsum;
    for (uint32_t e = 0; e < C->cnt; e++) {
      uint32_t i = s->ep[C->off + e];
      for (int a = 0; a < 3; a++)
        s->dx[3 * i + a] += al * (g[3 * e + a] - mean[a]) / s->nclus[i];
    }
    if (first && isfinite(b->yield) &&
        sm_plastic(C, A, b->yield, b->creep, b->cmax, h))
      sm_replastic(s, c);
  }
}

/* Move the predicted positions by the corrections: free particles by
 * their own, a meta-particle by its members' summed over its mass. */
static void correct(struct state *s, const struct ms_metas *mt) {
  for (size_t i = 0; i < s->n; i++) {
    if (s->meta[i] >= 0 || !dynamic(s, i)) continue;
    double *xs = s->xs + 3 * i, *dd = s->dd + 3 * i, b[3];
    for (int a = 0; a < 3; a++) {
      dd[a] += s->dx[3 * i + a];
      b[a] = s->x[3 * i + a] + dd[a];
    }
    moved(s, i, xs, b);
    memcpy(xs, b, sizeof b);
  }
  for (uint32_t k = 0; k < mt->count; k++) {
    if (s->pin[k] != SM_NONE) continue;
    double D[3] = {0, 0, 0};
    for (uint32_t q = mt->member_offset[k]; q < mt->member_offset[k + 1];
         q++) {
      size_t i = mt->member[q];
      for (int a = 0; a < 3; a++) D[a] += s->m[i] * s->dx[3 * i + a];
    }
    for (uint32_t q = mt->member_offset[k]; q < mt->member_offset[k + 1];
         q++) {
      size_t i = mt->member[q];
      for (int a = 0; a < 3; a++) {
        s->dd[3 * i + a] += D[a] / mt->mass[k];
        s->xs[3 * i + a] = s->x[3 * i + a] + s->dd[3 * i + a];
      }
    }
  }
}

/* Keep the predicted positions inside the domain: a free particle by
 * itself, a meta-particle as a whole. */
static void walls(struct state *s, const struct ms_metas *mt,
                  uint8_t *constrained) {
  for (size_t i = 0; i < s->n; i++) {
    if (s->meta[i] >= 0 || !dynamic(s, i)) continue;
    double *xs = s->xs + 3 * i, r = s->r[i], b[3];
    memcpy(b, xs, sizeof b);
    for (int a = 0; a < 3; a++) {
      if (b[a] < s->lo[a] + r) b[a] = s->lo[a] + r, s->touch[i] |= 1u << (2 * a);
      if (b[a] > s->hi[a] - r) b[a] = s->hi[a] - r, s->touch[i] |= 2u << (2 * a);
    }
    if (!s->touch[i]) continue;
    moved(s, i, xs, b);
    memcpy(xs, b, sizeof b);
    for (int a = 0; a < 3; a++) s->dd[3 * i + a] = b[a] - s->x[3 * i + a];
  }
  for (uint32_t k = 0; k < mt->count; k++) {
    if (s->pin[k] != SM_NONE) {
      if (constrained) constrained[k] = MS_PINNED;
      continue;
    }
    const uint32_t *mem = mt->member + mt->member_offset[k];
    uint32_t cnt = mt->member_offset[k + 1] - mt->member_offset[k];
    double d[3];
    memcpy(d, s->dd + 3 * mem[0], sizeof d);
    unsigned hit = ms_wall_clamp(s->lo, s->hi, s->x, s->r, mem, cnt, d);
    if (!hit) continue;
    if (constrained) constrained[k] = MS_CONSTRAINED;
    for (uint32_t q = 0; q < cnt; q++)
      for (int a = 0; a < 3; a++) {
        s->dd[3 * mem[q] + a] = d[a];
        s->xs[3 * mem[q] + a] = s->x[3 * mem[q] + a] + d[a];
      }
  }
}

int sm_inertia_solve(double *w, const double *I, const double *b) {
  double t = (I[0] + I[1] + I[2]) / 3.0;
  double det = I[0] * (I[1] * I[2] - I[5] * I[5]) -
               I[3] * (I[3] * I[2] - I[5] * I[4]) +
               I[4] * (I[3] * I[5] - I[1] * I[4]);
  return det > 1e-9 * t * t * t && ms_sym3_solve(w, I, b);
}

double sm_free_frame(const struct state *s, uint32_t b, double *c,
                     double *I) {
  const struct sm_body *B = &s->body[b];
  double m = 0.0;
  c[0] = c[1] = c[2] = 0.0;
  for (int k = 0; k < 6; k++) I[k] = 0.0;
  for (size_t i = B->first; i < B->first + B->count; i++) {
    if (s->meta[i] >= 0) continue;
    m += s->m[i];
    for (int a = 0; a < 3; a++) c[a] += s->m[i] * s->x[3 * i + a];
  }
  if (!(m > 0.0)) return 0.0;
  for (int a = 0; a < 3; a++) c[a] /= m;
  for (size_t i = B->first; i < B->first + B->count; i++) {
    if (s->meta[i] >= 0) continue;
    double r[3] = {s->x[3 * i] - c[0], s->x[3 * i + 1] - c[1],
                   s->x[3 * i + 2] - c[2]};
    double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    ms_sym3_add_outer(I, r, -s->m[i]);
    I[0] += s->m[i] * r2, I[1] += s->m[i] * r2, I[2] += s->m[i] * r2;
  }
  return m;
}

void sm_free_turn(struct state *s, uint32_t b, const double *c,
                  const double *V, const double *w, double dt) {
  const struct sm_body *B = &s->body[b];
  for (size_t i = B->first; i < B->first + B->count; i++) {
    if (s->meta[i] >= 0) continue;
    double *x = s->x + 3 * i, *v = s->v + 3 * i;
    double r[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]}, dv[3];
    dv[0] = V[0] + w[1] * r[2] - w[2] * r[1];
    dv[1] = V[1] + w[2] * r[0] - w[0] * r[2];
    dv[2] = V[2] + w[0] * r[1] - w[1] * r[0];
    for (int a = 0; a < 3; a++) v[a] += dv[a], x[a] += dt * dv[a];
  }
}

/* Give back what body b's moves missed (moved()) with a turn of its
 * free particles about their centre: v += dw x (x - c), I dw = lag / h.
 * The body's momentum is unchanged, and a rigid match then keeps its
 * angular momentum to round-off. */
static void angular_lag(struct state *s, uint32_t b, double h) {
  double *lag = s->dL + 3 * (size_t)b, c[3], I[6], w[3];
  static const double zero[3] = {0, 0, 0};
  double need[3] = {lag[0] / h, lag[1] / h, lag[2] / h};
  if (sm_free_frame(s, b, c, I) > 0.0 && sm_inertia_solve(w, I, need))
    sm_free_turn(s, b, c, zero, w, 0.0);
  lag[0] = lag[1] = lag[2] = 0.0;
}

/* End of a substep: velocities from displacement, positions taken. */
static void finish(struct state *s, const struct ms_metas *mt, double h) {
  for (size_t i = 0; i < s->n; i++) {
    if (s->meta[i] >= 0) continue;
    double *x = s->x + 3 * i, *v = s->v + 3 * i;
    for (int a = 0; a < 3; a++) {
      v[a] = s->dd[3 * i + a] / h;
      x[a] = s->xs[3 * i + a];
    }
  }
  for (uint32_t b = 0; b < s->nbody; b++)
    if (s->body[b].motion == SM_DYNAMIC) angular_lag(s, b, h);
  for (uint32_t k = 0; k < mt->count; k++) {
    uint32_t j = mt->member[mt->member_offset[k]];
    for (int a = 0; a < 3; a++) {
      double d = s->dd[3 * j + a];
      s->mV[3 * k + a] = d / h;
      s->mD[3 * k + a] += d;
    }
    for (uint32_t q = mt->member_offset[k]; q < mt->member_offset[k + 1]; q++)
      memcpy(s->x + 3 * mt->member[q], s->xs + 3 * mt->member[q],
             3 * sizeof *s->x);
  }
}

double sm_max_dt(const struct state *s) {
  double g = sqrt(s->gravity[0] * s->gravity[0] + s->gravity[1] * s->gravity[1] +
                  s->gravity[2] * s->gravity[2]), dt = INFINITY;
  for (size_t i = 0; i < s->n; i++) {
    const double *v = s->v + 3 * i, d = s->cfl * s->r[i];
    double speed = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    double lim = d / (speed + sqrt(d * g));
    if (lim < dt) dt = lim;
  }
  return dt * s->substeps;
}

int sm_step(struct state *s, const struct ms_step *st,
            const struct ms_metas *mt, struct ms_meta_result *res) {
  const uint32_t K = mt->count;
  const double h = st->dt / s->substeps;
  if (sm_meta_room(s, K)) return MS_ENOMEM;
  ms_meta_mark(mt, s->n, s->meta);
  for (uint32_t k = 0; k < K; k++) {
    memcpy(s->mV + 3 * k, mt->velocity + 3 * k, 3 * sizeof *s->mV);
    memset(s->mD + 3 * k, 0, 3 * sizeof *s->mD);
    s->pin[k] = SM_NONE;
    for (uint32_t q = mt->member_offset[k];
         q < mt->member_offset[k + 1] && s->pin[k] == SM_NONE; q++)
      if (!dynamic(s, mt->member[q])) s->pin[k] = mt->member[q];
  }
  for (int sub = 0; sub < s->substeps; sub++) {
    predict(s, st, mt, h, st->time + (sub + 1) * h);
    for (int it = 0; it < s->iterations; it++) {
      walls(s, mt, NULL);
      match(s, h, it == 0);
      correct(s, mt);
    }
    walls(s, mt, res->constrained);
    finish(s, mt, h);
  }
  /* the contract's exact end: start position + displacement */
  for (uint32_t k = 0; k < K; k++) {
    for (uint32_t q = mt->member_offset[k]; q < mt->member_offset[k + 1]; q++)
      memcpy(s->x + 3 * mt->member[q], s->x0 + 3 * mt->member[q],
             3 * sizeof *s->x);
    ms_meta_finish(mt, k, s->mV + 3 * k, s->mD + 3 * k, s->x, s->v, res);
  }
  return MS_OK;
}

double sm_internal_energy(struct state *s) {
  double e = 0.0;
  if (!(s->h > 0.0)) return 0.0;
  for (uint32_t c = 0; c < s->nclusters; c++) {
    struct sm_cluster C = s->clus[c]; /* a copy: the warm start is state */
    const struct sm_body *b = &s->body[C.body];
    if (b->motion != SM_DYNAMIC) continue;
    const struct sm_params prm = {b->mode, b->beta};
    double *p = s->ep3 + 3 * C.off, *g = s->eg + 3 * C.off, sum = 0.0;
    for (uint32_t k = 0; k < C.cnt; k++)
      memcpy(p + 3 * k, s->x + 3 * s->ep[C.off + k], 3 * sizeof *p);
    sm_goals(&C, &prm, s->ew + C.off, s->eq + 3 * C.off,
             s->aqq9 + 81 * (size_t)c, p, g, NULL);
    for (uint32_t k = 0; k < C.cnt; k++) {
      double d2 = 0.0;
      for (int a = 0; a < 3; a++) d2 += pow(g[3 * k + a] - p[3 * k + a], 2);
      sum += s->ew[C.off + k] * d2;
    }
    e += 0.5 * b->alpha * sum / (s->h * s->h);
  }
  return e;
}
