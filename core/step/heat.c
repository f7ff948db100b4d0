/* Heat between touching particles of different systems (plugin.h, HEAT;
 * doc/heat.md).
 *
 * Each contact pair is taken alone over the step and solved exactly:
 * with C = m c, a = 1/C_i + 1/C_j, the pair's difference T_i - T_j decays
 * as exp(-G a t), so over dt the pair moves
 *     Q = (T_i - T_j) (1 - exp(-G a dt)) / a
 * from i to j.  Pairs are taken one after the other in the contact
 * search's canonical order (identical for any thread count), each from
 * the temperatures the pairs before it left: no temperature overshoots
 * its partner's whatever dt, and the sum of C T changes by rounding only.
 * Serial: a particle may touch several others, and the pairs touching
 * at most a few thousand particles cost far less than the step. */
#include <math.h>

#include <mergesplit/plugin_util.h>

#include "step.h"

double ms__heat_of(const struct ms__system *y) {
  double q = 0.0;
  if (!y->heat) return 0.0;
  for (size_t i = 0; i < y->view.count; i++)
    q += *ms__at(&y->m, i) * *ms__at(&y->c, i) * *ms__at(&y->T, i);
  return q;
}

/* Every particle's specific heat > 0 and finite, temperature finite. */
static int check_system(struct ms__stepper *S, const struct ms__system *y) {
  for (size_t i = 0; i < y->view.count; i++) {
    double c = *ms__at(&y->c, i), T = *ms__at(&y->T, i);
    if (c > 0.0 && isfinite(c) && isfinite(T)) continue;
    return ms__errf(S->err, MS_ENUMERIC,
                    "system '%s' (solver '%s' from %s): particle %zu has "
                    "temperature %g, specific heat %g J/(kg K) at t = %g s: "
                    "the temperature must be finite, the specific heat > 0",
                    y->desc->name, y->plugin->desc.id, y->plugin->path, i, T,
                    c, S->time);
  }
  return MS_OK;
}

/* The scene's heat sources (scene.heat_sources): a heat-carrying particle
 * whose centre is inside a source's box relaxes toward its temperature
 * over the step, exactly: T' = T_s + (T - T_s) exp(-rate dt) (rate
 * infinite: T' = T_s, held).  The heat they put in is counted. */
static void sources(struct ms__stepper *S, double dt) {
  const struct ms__scene *sc = S->scene;
  for (uint32_t h = 0; h < sc->nheat_src; h++) {
    const struct ms__heat_source *src = &sc->heat_src[h];
    double keep = isinf(src->rate) ? 0.0 : exp(-src->rate * dt);
    for (uint32_t s = 0; s < S->nsys; s++) {
      const struct ms__system *y = &S->sys[s];
      if (!y->heat) continue;
      for (size_t i = 0; i < y->view.count; i++) {
        const double *x = ms__at(&y->x, i);
        int in = 1;
        for (int a = 0; a < 3; a++)
          in = in && x[a] >= src->lo[a] && x[a] <= src->hi[a];
        if (!in) continue;
        double *T = ms__at(&y->T, i), t = *T;
        *T = src->temperature + (t - src->temperature) * keep;
        S->frame_counts.heat_injected +=
            *ms__at(&y->m, i) * *ms__at(&y->c, i) * (*T - t);
      }
    }
  }
}

/* coupling.heat_reach: the pairs of particles of different systems whose
 * surfaces are closer than `reach`, by a search of their own (the merge's
 * pairs are only those that touch or may touch within the step), in the
 * detection's canonical order.  Heat crosses a thin film: a fluid's
 * particles settle just out of touch of a solid, and touching pairs alone
 * let ice in hot FLIP water take 30 J in 4 s. */
static int reach_pairs(struct ms__stepper *S, double reach) {
  if (!S->no_self && !(S->no_self = calloc(S->nsys, 1)))
    return ms__errf(S->err, MS_ENOMEM, "heat pairs: out of memory");
  struct ms__detect_input in = {S->ntotal, S->P.x, S->P.r, S->P.sys,
                                S->no_self, reach, 0.0};
  size_t bad;
  if (ms__detect_pairs(&S->heat_det, &in, &bad))
    return ms__errf(S->err, MS_ENOMEM, "heat pairs: out of memory");
  return MS_OK;
}

int ms__heat_exchange(struct ms__stepper *S, double dt) {
  const double G = S->scene->conductance;
  uint32_t nheat = 0;
  for (uint32_t s = 0; s < S->nsys; s++) nheat += S->sys[s].heat != 0;
  int pairs = G > 0.0 && nheat >= 2;
  if (!nheat || (!pairs && S->scene->nheat_src == 0)) return MS_OK;
  for (uint32_t s = 0; s < S->nsys; s++)
    if (S->sys[s].heat) {
      int rc = check_system(S, &S->sys[s]);
      if (rc) return rc;
    }
  sources(S, dt);
  if (!pairs) return MS_OK;
  const struct ms__particles *P = &S->P;
  struct ms__counts *cnt = &S->frame_counts;
  const double reach = S->scene->heat_reach;
  const struct ms__detect *D = &S->det;
  if (reach > 0.0) {
    int rc = reach_pairs(S, reach);
    if (rc) return rc;
    D = &S->heat_det;
  }
  for (size_t k = 0; k < D->npairs; k++) {
    uint32_t i = D->pairs[2 * k], j = D->pairs[2 * k + 1];
    const struct ms__system *yi = &S->sys[P->sys[i]];
    const struct ms__system *yj = &S->sys[P->sys[j]];
    if (yi == yj || !yi->heat || !yj->heat) continue;
    double d[3];
    ms__sub(d, P->x + 3 * (size_t)j, P->x + 3 * (size_t)i);
    if (!ms__rule_contact(ms__norm2(d), P->r[i] + 0.5 * reach,
                          P->r[j] + 0.5 * reach))
      continue;
    uint32_t li = P->local[i], lj = P->local[j];
    double *Ti = ms__at(&yi->T, li), *Tj = ms__at(&yj->T, lj);
    double Ci = P->m[i] * *ms__at(&yi->c, li);
    double Cj = P->m[j] * *ms__at(&yj->c, lj);
    double Q = ms_heat_pair(Ti, Ci, Tj, Cj, G, dt);
    cnt->heat_pairs++;
    cnt->heat_moved += fabs(Q);
  }
  return MS_OK;
}
