/* Penetration and stability metrics; definitions in step.h. */
#include "step.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"

void ms__metrics_free(struct ms__metrics *m) {
  free(m->sheet_of);
  free(m->offsets);
  free(m->side);
  free(m->best_d2);
  free(m->best_c);
  free(m->stamp);
  free(m->counts);
  free(m->normal);
  free(m->damage);
  free(m->edge);
  free(m->solid_of);
  free(m->pass);
  free(m->near);
  free(m->near_p);
  free(m->slot);
  ms__memset(m, 0, sizeof *m);
}

static const struct ms_field *field(const struct ms_view *v, const char *name,
                                    uint32_t comps) {
  return ms__view_field(v, name, MS_TYPE_F64, comps);
}

static const double *at(const struct ms_field *f, size_t i) {
  return (const double *)((const char *)f->data + i * f->stride);
}

/* (Re)size the tracking arrays; systems whose count changed start over.
 * Field pointers are looked up again: views may move between steps. */
int ms__metrics_prepare(struct ms__stepper *S) {
  struct ms__metrics *m = S->metrics;
  uint32_t ns = 0, nsol = 0;
  if (!m->sheet_of) {
    m->sheet_of = malloc(S->nsys * sizeof *m->sheet_of);
    m->solid_of = malloc(S->nsys * sizeof *m->solid_of);
    m->counts = calloc(S->nsys, sizeof *m->counts);
    m->offsets = calloc(S->nsys, sizeof *m->offsets);
    m->normal = calloc(S->nsys, sizeof *m->normal);
    m->damage = calloc(S->nsys, sizeof *m->damage);
    m->edge = calloc(S->nsys, sizeof *m->edge);
    if (!m->sheet_of || !m->solid_of || !m->counts || !m->offsets ||
        !m->normal || !m->damage || !m->edge)
      return MS_ENOMEM;
    for (uint32_t s = 0; s < S->nsys; s++) {
      m->sheet_of[s] = field(&S->sys[s].view, "normal", 3) ? (int32_t)ns++ : -1;
      m->solid_of[s] = S->self[s] && m->sheet_of[s] < 0 ? (int32_t)nsol++ : -1;
    }
    m->nsheets = ns, m->nsolids = nsol;
  }
  for (uint32_t s = 0; s < S->nsys; s++) {
    m->normal[s] = field(&S->sys[s].view, "normal", 3);
    m->damage[s] = field(&S->sys[s].view, "damage", 1);
    m->edge[s] = ms__view_field(&S->sys[s].view, "edge", MS_TYPE_U8, 1);
    if (m->sheet_of[s] >= 0 && !m->normal[s]) m->sheet_of[s] = -1;
  }
  size_t n = S->ntotal, k = m->nsheets ? m->nsheets : 1, ks = m->nsolids;
  if (n > m->cap) {
    size_t c = n + n / 4 + 64;
    if (ms__grow((void **)&m->side, c * k, sizeof *m->side) ||
        ms__grow((void **)&m->best_d2, c * k, sizeof(double)) ||
        ms__grow((void **)&m->best_c, c * k, sizeof(uint32_t)) ||
        ms__grow((void **)&m->stamp, c, sizeof(uint32_t)) ||
        (ks && (ms__grow((void **)&m->pass, c * ks, sizeof *m->pass) ||
                ms__grow((void **)&m->slot, c, sizeof(uint32_t)))))
      return MS_ENOMEM;
    ms__memset(m->side + m->cap * k, 0, (c - m->cap) * k * sizeof *m->side);
    ms__memset(m->stamp + m->cap, 0, (c - m->cap) * sizeof(uint32_t));
    if (ks)
      ms__memset(m->pass + m->cap * ks, 0, (c - m->cap) * ks * sizeof *m->pass);
    m->cap = c;
  }
  int moved = 0;
  for (uint32_t s = 0; s < S->nsys; s++) {
    size_t cnt = S->sys[s].view.count, off = S->sys[s].offset;
    if (cnt == m->counts[s] && off == m->offsets[s]) continue;
    ms__memset(m->side + off * k, 0, cnt * k * sizeof *m->side);
    if (ks) ms__memset(m->pass + off * ks, 0, cnt * ks * sizeof *m->pass);
    m->counts[s] = cnt, m->offsets[s] = off, moved = 1;
  }
  m->n = n;
  if (moved) ms__metrics_count_passed(m);
  return MS_OK;
}

void ms__metrics_count_passed(struct ms__metrics *m) {
  uint64_t c = 0;
  for (size_t e = 0; e < m->n * m->nsolids; e++) c += m->pass[e].through;
  m->passed = c;
}

/* Nearest sheet particle of every other-system particle near each sheet. */
static void nearest(struct ms__stepper *S, struct ms__metrics *m) {
  uint32_t k = m->nsheets;
  for (size_t i = 0; i < m->n * k; i++) m->best_d2[i] = INFINITY;
  const struct ms__particles *P = &S->P;
  for (size_t q = 0; q < S->det.npairs; q++) {
    uint32_t a = S->det.pairs[2 * q], b = S->det.pairs[2 * q + 1];
    if (P->sys[a] == P->sys[b]) continue;
    for (int flip = 0; flip < 2; flip++) {
      uint32_t p = flip ? b : a, c = flip ? a : b;
      int32_t sh = m->sheet_of[P->sys[c]];
      if (sh < 0) continue;
      double d[3];
      ms__sub(d, P->x + 3 * (size_t)p, P->x + 3 * (size_t)c);
      double d2 = ms__norm2(d);
      size_t e = (size_t)p * k + (size_t)sh;
      if (d2 < m->best_d2[e]) m->best_d2[e] = d2, m->best_c[e] = c;
    }
  }
}

static void sides(struct ms__stepper *S, struct ms__metrics *m,
                  struct ms__penetration *pen) {
  uint32_t k = m->nsheets;
  const struct ms__particles *P = &S->P;
  for (size_t e = 0; e < m->n * k; e++) {
    struct ms__side *t = &m->side[e];
    if (!isfinite(m->best_d2[e])) {
      t->away = 1;
      continue;
    }
    int back = t->away;
    t->away = 0;
    uint32_t p = (uint32_t)(e / k), c = m->best_c[e];
    const struct ms_field *edge = m->edge[P->sys[c]];
    if (edge && *((const uint8_t *)edge->data + P->local[c] * edge->stride)) {
      t->first = t->now = 0; /* by the edge: maybe going around it */
      continue;
    }
    const double *nc = at(m->normal[P->sys[c]], P->local[c]);
    double d[3];
    ms__sub(d, P->x + 3 * (size_t)p, P->x + 3 * (size_t)c);
    double s = ms__dot(nc, d);
    if (!(fabs(s) > 0.25 * P->r[p])) continue; /* on the mid-plane */
    int8_t side = s > 0 ? 1 : -1;
    /* Back on the other side after leaving on its first one: it went round
     * the sheet (a particle passing between sheet particles comes within
     * contact distance of them: the crossing would have been seen). */
    if (!t->first || (back && t->now == t->first)) t->first = t->now = side;
    if (side != t->now) pen->crossings++;
    t->now = side;
  }
  uint64_t through = 0;
  for (size_t p = 0; p < m->n; p++) {
    int bad = 0;
    for (const struct ms__side *t = m->side + p * k, *end = t + k; t < end;
         t++)
      bad |= t->first && t->now != t->first;
    through += (uint64_t)bad;
  }
  pen->through = through;
}

/* The next stamp epoch (stamps of another epoch are stale). */
static uint32_t next_epoch(struct ms__metrics *m) {
  if (++m->epoch == 0) { /* wrapped: clear the stamps */
    ms__memset(m->stamp, 0, m->cap * sizeof *m->stamp);
    m->epoch = 1;
  }
  return m->epoch;
}

/* Lattice-gap reach and balance of a solid's volume (definitions in
 * step.h): the centre of a square gap of spacing 2r is 1.41 r from its
 * corners; a merged contact rests at r_p + r_q. */
#define VOLUME_REACH 1.5
#define VOLUME_OVERLAP 0.9
#define VOLUME_MIN 3
#define BALANCED 0.5

/* The sums of particle p near solid j, taking a slot on first use. */
static struct ms__near *near_of(struct ms__metrics *m, uint32_t p, uint32_t j,
                                uint32_t ep, size_t *used) {
  uint32_t k = m->nsolids;
  if (m->stamp[p] != ep) {
    if (*used == m->near_cap) {
      size_t c = m->near_cap * 2 + 256;
      if (ms__grow((void **)&m->near, c * k, sizeof *m->near) ||
          ms__grow((void **)&m->near_p, c, sizeof *m->near_p))
        return NULL;
      m->near_cap = c;
    }
    m->stamp[p] = ep, m->slot[p] = (uint32_t)*used, m->near_p[*used] = p;
    ms__memset(m->near + *used * k, 0, k * sizeof *m->near);
    (*used)++;
  }
  return &m->near[(size_t)m->slot[p] * k + j];
}

/* One reading of a particle's sums into what it knows of the solid: in
 * its volume, or a side (none between layers); leaving the volume on the
 * side opposite the one it entered by is a passage, which stands. */
static void read_side(struct ms__pass *t, const struct ms__near *a,
                      uint64_t *passed) {
  if (a->ndeep || (a->nclose >= VOLUME_MIN &&
                    sqrt(ms__norm2(a->close)) < BALANCED * a->nclose)) {
    t->inside = 1;
    return;
  }
  double len = sqrt(ms__norm2(a->all));
  if (!(len >= BALANCED * a->nall)) return; /* between layers: no side */
  float u[3] = {(float)(a->all[0] / len), (float)(a->all[1] / len),
                (float)(a->all[2] / len)};
  if (t->inside && t->has_side && !t->through &&
      u[0] * t->side[0] + u[1] * t->side[1] + u[2] * t->side[2] < 0.0f)
    t->through = 1, ++*passed;
  t->inside = 0, t->has_side = 1;
  ms__memcpy(t->side, u, sizeof u);
}

/* Passages through solids: the sums over each particle's intact solid
 * neighbours, then one reading per (particle, solid) near each other. */
static int passages(struct ms__stepper *S, struct ms__metrics *m,
                    struct ms__penetration *pen, uint64_t *volume) {
  uint32_t k = m->nsolids, ep = next_epoch(m);
  const struct ms__particles *P = &S->P;
  size_t used = 0;
  for (size_t q = 0; q < S->det.npairs; q++) {
    uint32_t a = S->det.pairs[2 * q], b = S->det.pairs[2 * q + 1];
    if (P->sys[a] == P->sys[b]) continue;
    for (int flip = 0; flip < 2; flip++) {
      uint32_t p = flip ? b : a, c = flip ? a : b, s = P->sys[c];
      int32_t j = m->solid_of[s];
      if (j < 0 || m->sheet_of[P->sys[p]] >= 0) continue; /* sheets: sides */
      const struct ms_field *dmg = m->damage[s];
      if (dmg && !(*at(dmg, P->local[c]) < 0.5)) continue;
      double d[3];
      ms__sub(d, P->x + 3 * (size_t)p, P->x + 3 * (size_t)c);
      double dist = sqrt(ms__norm2(d));
      struct ms__near *n = near_of(m, p, (uint32_t)j, ep, &used);
      if (!n) return MS_ENOMEM;
      n->ndeep += dist < P->r[c];
      if (!(dist > 0.0)) continue;
      double reach = fmin(VOLUME_REACH * P->r[c],
                          VOLUME_OVERLAP * (P->r[p] + P->r[c]));
      int close = dist < reach;
      for (int i = 0; i < 3; i++) {
        n->all[i] += d[i] / dist;
        if (close) n->close[i] += d[i] / dist;
      }
      n->nall++, n->nclose += (uint32_t)close;
    }
  }
  for (size_t i = 0; i < used; i++) {
    size_t p = m->near_p[i];
    for (uint32_t j = 0; j < k; j++)
      if (m->near[i * k + j].nall || m->near[i * k + j].ndeep)
        read_side(&m->pass[p * k + j], &m->near[i * k + j], &m->passed);
  }
  pen->passed = m->passed;
  /* in a volume now: stamped for inside() to count once */
  uint32_t now = next_epoch(m);
  for (size_t i = 0; i < used; i++) {
    size_t p = m->near_p[i];
    int in = 0;
    for (uint32_t j = 0; j < k; j++) in |= m->pass[p * k + j].inside;
    if (in) m->stamp[p] = now, (*volume)++;
  }
  return MS_OK;
}

/* Particles inside a solid now: in its volume (counted by passages(),
 * which saw the others' particles within a radius too, and stamped with
 * the current epoch), or a sheet's particle within an intact particle's
 * radius. */
static void inside(struct ms__stepper *S, struct ms__metrics *m,
                   struct ms__penetration *pen, uint64_t count) {
  const struct ms__particles *P = &S->P;
  uint32_t ep = m->epoch;
  for (size_t q = 0; q < S->det.npairs; q++) {
    uint32_t a = S->det.pairs[2 * q], b = S->det.pairs[2 * q + 1];
    if (P->sys[a] == P->sys[b]) continue;
    for (int flip = 0; flip < 2; flip++) {
      uint32_t p = flip ? b : a, c = flip ? a : b;
      uint32_t s = P->sys[c];
      if (m->solid_of[s] < 0 || m->sheet_of[P->sys[p]] < 0 ||
          m->stamp[p] == ep)
        continue;
      const struct ms_field *dmg = m->damage[s];
      if (dmg && !(*at(dmg, P->local[c]) < 0.5)) continue;
      double d[3];
      ms__sub(d, P->x + 3 * (size_t)p, P->x + 3 * (size_t)c);
      if (ms__norm2(d) < P->r[c] * P->r[c]) {
        m->stamp[p] = ep;
        count++;
      }
    }
  }
  pen->inside = count;
}

int ms__metrics_step(struct ms__stepper *S, double vmax,
                     struct ms__penetration *pen) {
  struct ms__metrics *m = S->metrics;
  if (ms__metrics_prepare(S))
    return ms__errf(S->err, MS_ENOMEM, "out of memory");
  if (vmax > pen->max_speed) pen->max_speed = vmax;
  if (m->nsheets) {
    nearest(S, m);
    sides(S, m, pen);
  }
  uint64_t volume = 0;
  if (m->nsolids) {
    if (passages(S, m, pen, &volume))
      return ms__errf(S->err, MS_ENOMEM, "out of memory");
    inside(S, m, pen, volume);
  }
  uint64_t now = ms__penetrations(pen);
  if (now > pen->max_pen) pen->max_pen = now;
  return MS_OK;
}

void ms__penetration_add(struct ms__penetration *run,
                         const struct ms__penetration *frame) {
  run->crossings += frame->crossings;
  run->through = frame->through;
  run->inside = frame->inside;
  run->passed = frame->passed;
  if (frame->max_pen > run->max_pen) run->max_pen = frame->max_pen;
  if (frame->max_speed > run->max_speed) run->max_speed = frame->max_speed;
}
