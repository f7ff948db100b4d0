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
  uint32_t ns = 0;
  if (!m->sheet_of) {
    m->sheet_of = malloc(S->nsys * sizeof *m->sheet_of);
    m->counts = calloc(S->nsys, sizeof *m->counts);
    m->offsets = calloc(S->nsys, sizeof *m->offsets);
    m->normal = calloc(S->nsys, sizeof *m->normal);
    m->damage = calloc(S->nsys, sizeof *m->damage);
    m->edge = calloc(S->nsys, sizeof *m->edge);
    if (!m->sheet_of || !m->counts || !m->offsets || !m->normal ||
        !m->damage || !m->edge)
      return MS_ENOMEM;
    for (uint32_t s = 0; s < S->nsys; s++)
      m->sheet_of[s] = field(&S->sys[s].view, "normal", 3) ? (int32_t)ns++ : -1;
    m->nsheets = ns;
  }
  for (uint32_t s = 0; s < S->nsys; s++) {
    m->normal[s] = field(&S->sys[s].view, "normal", 3);
    m->damage[s] = field(&S->sys[s].view, "damage", 1);
    m->edge[s] = ms__view_field(&S->sys[s].view, "edge", MS_TYPE_U8, 1);
    if (m->sheet_of[s] >= 0 && !m->normal[s]) m->sheet_of[s] = -1;
  }
  size_t n = S->ntotal, k = m->nsheets ? m->nsheets : 1;
  if (n > m->cap) {
    size_t c = n + n / 4 + 64;
    if (ms__grow((void **)&m->side, c * k, sizeof *m->side) ||
        ms__grow((void **)&m->best_d2, c * k, sizeof(double)) ||
        ms__grow((void **)&m->best_c, c * k, sizeof(uint32_t)) ||
        ms__grow((void **)&m->stamp, c, sizeof(uint32_t)))
      return MS_ENOMEM;
    ms__memset(m->side + m->cap * k, 0, (c - m->cap) * k * sizeof *m->side);
    ms__memset(m->stamp + m->cap, 0, (c - m->cap) * sizeof(uint32_t));
    m->cap = c;
  }
  for (uint32_t s = 0; s < S->nsys; s++) {
    size_t cnt = S->sys[s].view.count, off = S->sys[s].offset;
    if (cnt == m->counts[s] && off == m->offsets[s]) continue;
    ms__memset(m->side + off * k, 0, cnt * k * sizeof *m->side);
    m->counts[s] = cnt, m->offsets[s] = off;
  }
  m->n = n;
  return MS_OK;
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

static void inside(struct ms__stepper *S, struct ms__metrics *m,
                   struct ms__penetration *pen) {
  const struct ms__particles *P = &S->P;
  uint64_t count = 0;
  if (++m->epoch == 0) { /* wrapped: clear the stamps */
    ms__memset(m->stamp, 0, m->cap * sizeof *m->stamp);
    m->epoch = 1;
  }
  for (size_t q = 0; q < S->det.npairs; q++) {
    uint32_t a = S->det.pairs[2 * q], b = S->det.pairs[2 * q + 1];
    if (P->sys[a] == P->sys[b]) continue;
    for (int flip = 0; flip < 2; flip++) {
      uint32_t p = flip ? b : a, c = flip ? a : b;
      uint32_t s = P->sys[c];
      if (!S->self[s] || m->sheet_of[s] >= 0 || m->stamp[p] == m->epoch)
        continue;
      const struct ms_field *dmg = m->damage[s];
      if (dmg && !(*at(dmg, P->local[c]) < 0.5)) continue;
      double d[3];
      ms__sub(d, P->x + 3 * (size_t)p, P->x + 3 * (size_t)c);
      if (ms__norm2(d) < P->r[c] * P->r[c]) {
        m->stamp[p] = m->epoch;
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
  inside(S, m, pen);
  uint64_t now = pen->through + pen->inside;
  if (now > pen->max_pen) pen->max_pen = now;
  return MS_OK;
}

void ms__penetration_add(struct ms__penetration *run,
                         const struct ms__penetration *frame) {
  run->crossings += frame->crossings;
  run->through = frame->through;
  run->inside = frame->inside;
  if (frame->max_pen > run->max_pen) run->max_pen = frame->max_pen;
  if (frame->max_speed > run->max_speed) run->max_speed = frame->max_speed;
}
