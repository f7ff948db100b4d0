/* shape_matching — the collective response (ABI 1.1): a body answers a
 * contact with more than the touching particle.  Over one step shape
 * matching moves a body's particles together (rigidly for alpha = 1), so
 * each meta-particle states, as its collective inertia, its share of the
 * rest of its host body -- alpha times the body's free mass, shared among
 * the meta-particles the body has members in, by member mass.  The
 * response then hands the share's impulse to the body's free particles
 * as an impulse on a rigid body at the meta-particle's centre: momentum
 * and angular momentum change by exactly that impulse, and the next
 * step's matching spreads it through a soft body. */
#include <math.h>
#include <string.h>

#include "shape_matching.h"

/* The host of meta-particle k: the body of its first dynamic member. */
static uint32_t host_of(const struct state *s, const struct ms_metas *mt,
                        uint32_t k) {
  for (uint32_t q = mt->member_offset[k]; q < mt->member_offset[k + 1]; q++) {
    uint32_t b = s->body_of[mt->member[q]];
    if (s->body[b].motion == SM_DYNAMIC) return b;
  }
  return SM_NONE;
}

int sm_meta_inertia(struct state *s, const struct ms_metas *mt,
                    double *inertia) {
  if (sm_meta_room(s, mt->count)) return MS_ENOMEM;
  ms_meta_mark(mt, s->n, s->meta);
  /* per body: the free mass (dL serves as scratch: held, free, -) */
  for (uint32_t b = 0; b < s->nbody; b++) s->dL[3 * b] = s->dL[3 * b + 1] = 0.0;
  for (size_t i = 0; i < s->n; i++)
    s->dL[3 * s->body_of[i] + (s->meta[i] < 0)] += s->m[i];
  for (uint32_t k = 0; k < mt->count; k++) {
    uint32_t b = s->host_of[k] = host_of(s, mt, k);
    s->share[k] = 0.0;
    if (b == SM_NONE) continue;
    double own = 0.0;
    for (uint32_t q = mt->member_offset[k]; q < mt->member_offset[k + 1]; q++)
      if (s->body_of[mt->member[q]] == b) own += s->m[mt->member[q]];
    double held = s->dL[3 * b], free_mass = s->dL[3 * b + 1];
    s->share[k] = held > 0.0 ? s->body[b].alpha * free_mass * own / held : 0.0;
    ms_sym3_scalar(inertia + 6 * (size_t)k, s->share[k]);
  }
  for (uint32_t b = 0; b < s->nbody; b++) s->dL[3 * b] = s->dL[3 * b + 1] = 0.0;
  return MS_OK;
}

/* Impulse J at point p on body b's free particles, as on a rigid body:
 * velocities by J / m + I^-1 ((p - c) x J) x (x - c), and the step's end
 * positions by dt times that. */
static void push_body(struct state *s, uint32_t b, const double *p,
                      const double *J, double dt) {
  double c[3], I[6], w[3], T[3], V[3];
  double m = sm_free_frame(s, b, c, I);
  if (!(m > 0.0)) return;
  double r[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
  T[0] = r[1] * J[2] - r[2] * J[1];
  T[1] = r[2] * J[0] - r[0] * J[2];
  T[2] = r[0] * J[1] - r[1] * J[0];
  if (!sm_inertia_solve(w, I, T)) w[0] = w[1] = w[2] = 0.0;
  for (int a = 0; a < 3; a++) V[a] = J[a] / m;
  sm_free_turn(s, b, c, V, w, dt);
}

int sm_meta_response(struct state *s, const struct ms_step *st,
                     const struct ms_metas *mt,
                     const struct ms_meta_response *r) {
  for (uint32_t k = 0; k < mt->count; k++) {
    uint32_t b = s->host_of[k];
    if (b == SM_NONE || !(s->share[k] > 0.0)) continue;
    double K[3], C[6], I[6];
    const double *G = r->impulse + 3 * (size_t)k;
    if (r->lead[k]) {
      ms_sym3_scalar(C, s->share[k]);
      if (MS_HAS(mt, struct ms_metas, inertia) && mt->inertia)
        memcpy(I, mt->inertia + 6 * (size_t)k, sizeof I);
      else
        ms_sym3_scalar(I, mt->mass[k]);
      ms_meta_lead_lump(C, I, G, st->dt, r->velocity + 3 * (size_t)k,
                        r->displacement + 3 * (size_t)k, K);
    } else {
      memcpy(K, G, sizeof K);
    }
    push_body(s, b, mt->position + 3 * (size_t)k, K, st->dt);
  }
  return MS_OK;
}
