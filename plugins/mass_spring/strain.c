/* Strain limiting (Provot 1995; long-range attachments, Kim et al. 2012).
 *
 * Springs alone let a cloth stretch without bound under a heavy load or a
 * fast impact: its cells open and what lies on it falls through.  After
 * the integration, in node space, every spring longer than (1 + limit)
 * times its rest length is shortened to it, the correction shared as
 * set out below.  The two lose their separating speed along it, as in an
 * inelastic collision (mass-weighted impulses, momentum unchanged): a
 * length already too long when the step began (the
 * core's write of a meta-particle) is pulled in without becoming a speed
 * (Provot's v += dx / h flung a cloth 1000x lighter than the ball on it
 * at 43 m/s), and no correction makes kinetic energy.  Gauss-Seidel
 * passes
 * in spring order (deterministic, thread-count free) until none is too
 * long or the pass budget is spent.
 *
 * Passes over springs carry a correction one spring per pass, and a light
 * node between a pin and a heavy one barely moves the heavy one: a body
 * 100x heavier per particle than the cloth would stretch the sheet for
 * hundreds of passes.  So each free particle is also tied to its nearest
 * pin (at rest) by a one-sided constraint, |x - x_pin| <= (1 + limit)
 * times their rest distance, which a continuum strained by no more than
 * the limit satisfies; the pin does not move, so the whole correction
 * goes to the particle's node, whatever its mass.
 *
 * A spring's two free ends take equal shares of the position correction,
 * whatever their masses: mass-weighted shares left springs 2 % beyond the
 * limit after 50 passes, and as much after 1000, around a particle 1000x
 * heavier than the rest of its sheet.  A meta-particle's node is the
 * exception: the synchronisation places it, so its neighbour moves alone
 * (with equal shares the sheet of Fig. 7 made 1000x lighter, left half
 * stretched at every contact, reached 22 m/s).  The velocities take
 * mass-weighted impulses, so momentum is exchanged as between the two
 * masses.
 *
 * The step cannot shorten a spring inside one node (two members of a
 * meta-particle) nor place a member, so end_step runs the limit again on
 * the particles as the core left them after the split
 * (mss_limit_strain_after_split). */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "mass_spring.h"

int mss_attach_pins(struct mss_model *M) {
  free(M->attach), free(M->attach_rest);
  M->attach = NULL, M->attach_rest = NULL;
  size_t npin = 0;
  for (size_t i = 0; i < M->n; i++) npin += M->pinned[i] != 0;
  if (!npin || !(M->strain_limit > 0.0)) return MS_OK;
  uint32_t *pin = malloc(npin * sizeof *pin);
  M->attach = malloc(M->n * sizeof *M->attach);
  M->attach_rest = malloc(M->n * sizeof *M->attach_rest);
  if (!pin || !M->attach || !M->attach_rest) {
    free(pin);
    return MS_ENOMEM;
  }
  npin = 0;
  for (size_t i = 0; i < M->n; i++)
    if (M->pinned[i]) pin[npin++] = (uint32_t)i;
  for (size_t i = 0; i < M->n; i++) {
    double best = DBL_MAX;
    uint32_t at = UINT32_MAX;
    for (size_t q = 0; !M->pinned[i] && q < npin; q++) {
      const double *a = M->x + 3 * i, *b = M->x + 3 * (size_t)pin[q];
      double d2 = (a[0] - b[0]) * (a[0] - b[0]) +
                  (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]);
      if (d2 < best) best = d2, at = pin[q]; /* ties: the lowest index */
    }
    M->attach[i] = at;
    M->attach_rest[i] = at == UINT32_MAX ? 0.0 : sqrt(best);
  }
  free(pin);
  return MS_OK;
}

/* A segment to shorten: its ends' positions, what their corrections go to
 * (displacements or positions; NULL: that end does not move) by shares
 * p, their velocities (NULL: fixed) and inverse masses w. */
struct seg {
  const double *x[2];
  double *u[2], *v[2];
  double p[2], w[2];
  const double *n[2]; /* unit normal: that end moves only across it */
};

/* Shorten it to at most lmax; the ends lose their separating speed by
 * impulses between their masses.  Returns the excess (l - lmax) / lmax,
 * or 0 when within. */
static double project(const struct seg *g, double lmax) {
  double d[3], l2 = 0.0, vr = 0.0;
  for (int k = 0; k < 3; k++) {
    d[k] = g->x[1][k] - g->x[0][k], l2 += d[k] * d[k];
    vr += d[k] * ((g->v[1] ? g->v[1][k] : 0.0) -
                  (g->v[0] ? g->v[0][k] : 0.0));
  }
  double ps = g->p[0] + g->p[1], ws = g->w[0] + g->w[1];
  if (!(l2 > lmax * lmax) || !(ps > 0.0)) return 0.0;
  double l = sqrt(l2), c = (l - lmax) / (l * ps);
  double dv = ws > 0.0 ? fmax(vr, 0.0) / (l2 * ws) : 0.0;
  for (int e = 0; e < 2; e++) {
    double sign = e ? -1.0 : 1.0, dn = 0.0;
    const double *n = g->n[e];
    for (int k = 0; n && k < 3; k++) dn += d[k] * n[k];
    for (int k = 0; k < 3; k++) {
      double t = d[k] - (n ? dn * n[k] : 0.0);
      if (g->u[e]) g->u[e][k] += sign * g->p[e] * c * t;
      if (g->v[e]) g->v[e][k] += sign * g->w[e] * dv * d[k];
    }
  }
  return (l - lmax) / lmax;
}

/* In node space, during the step: the segment from a (node I) to b
 * (node J; -1: fixed). */
static double shorten(const struct mss_model *M, struct mss_work *W,
                      size_t a, size_t b, double lmax) {
  const struct msi_nodes *N = &W->nodes;
  int32_t I = N->node[a], J = N->node[b];
  if (I == J) return 0.0; /* one rigid node, or both fixed */
  double wi = I >= 0 ? 1.0 / N->mass[I] : 0.0;
  double wj = J >= 0 ? 1.0 / N->mass[J] : 0.0;
  /* position shares: equal; a meta-particle's place is the core's (it
   * moves by dt times the synchronised velocity), so its free neighbour
   * takes the whole correction */
  int ma = N->meta_of[a] >= 0, mb = N->meta_of[b] >= 0;
  double pi = I >= 0 && !(ma && !mb && J >= 0);
  double pj = J >= 0 && !(mb && !ma && I >= 0);
  double xa[3], xb[3];
  for (int k = 0; k < 3; k++) {
    xa[k] = M->x[3 * a + k] + (I >= 0 ? W->U[3 * (size_t)I + k] : 0.0);
    xb[k] = M->x[3 * b + k] + (J >= 0 ? W->U[3 * (size_t)J + k] : 0.0);
  }
  struct seg g = {{xa, xb},
                  {I >= 0 ? W->U + 3 * (size_t)I : NULL,
                   J >= 0 ? W->U + 3 * (size_t)J : NULL},
                  {I >= 0 ? W->V + 3 * (size_t)I : NULL,
                   J >= 0 ? W->V + 3 * (size_t)J : NULL},
                  {pi, pj}, {wi, wj}, {NULL, NULL}};
  return project(&g, lmax);
}

/* After the split, on the particles as the core left them: the segment
 * from a to b; a pinned end does not move.  First pass set (equal = 0):
 * shares as in the step, a member of a meta-particle (its place the
 * synchronisation's, in contact with another system) leaving the
 * correction to a free neighbour: moved first, the members let the ball
 * of Fig. 7 on a sheet 1000x lighter through it.  Second (equal = 1), for
 * what the first could not satisfy (two members too far apart for the
 * free particles between them): equal shares, a cloth's members moving
 * only in the sheet's plane (moved along the normal too, they let 13 of
 * the ball's particles through the sheet of Fig. 3 at scale 4). */
static double shorten_particles(struct mss_model *M, const struct mss_work *W,
                                size_t a, size_t b, double lmax, int equal) {
  int fa = !M->pinned[a], fb = !M->pinned[b];
  if (!fa && !fb) return 0.0;
  const int32_t *meta = W->nodes.meta_of;
  int ma = meta && meta[a] >= 0, mb = meta && meta[b] >= 0;
  struct seg g = {{M->x + 3 * a, M->x + 3 * b},
                  {fa ? M->x + 3 * a : NULL, fb ? M->x + 3 * b : NULL},
                  {fa ? M->v + 3 * a : NULL, fb ? M->v + 3 * b : NULL},
                  {fa, fb},
                  {fa ? 1.0 / M->m[a] : 0.0, fb ? 1.0 / M->m[b] : 0.0},
                  {NULL, NULL}};
  if (!equal) {
    g.p[0] = fa && !(ma && !mb && fb);
    g.p[1] = fb && !(mb && !ma && fa);
  } else if (M->nu > 0) {
    /* a cloth's member slides in the sheet's plane: a move along the
     * normal would press it into what it touches, an overlap that
     * merging, which acts on velocities, never undoes */
    g.n[0] = ma ? M->normal + 3 * a : NULL;
    g.n[1] = mb ? M->normal + 3 * b : NULL;
  }
  return project(&g, lmax);
}

/* One segment, in node space during the step or on the particles after
 * the split. */
static double segment(struct mss_model *M, struct mss_work *W, int split,
                      size_t a, size_t b, double lmax) {
  return split ? shorten_particles(M, W, a, b, lmax, split == 2)
               : shorten(M, W, a, b, lmax);
}

static size_t limit(struct mss_model *M, struct mss_work *W, int split) {
  const struct mss_springs *S = &M->springs;
  const double f = 1.0 + M->strain_limit;
  size_t corrected = 0;
  for (int pass = 0; pass < M->strain_passes; pass++) {
    double worst = 0.0;
    for (size_t i = 0; M->attach && i < M->n; i++) {
      if (M->attach[i] == UINT32_MAX) continue;
      double e = segment(M, W, split, i, M->attach[i], f * M->attach_rest[i]);
      corrected += e > 0.0, worst = fmax(worst, e);
    }
    for (size_t s = 0; s < S->count; s++) {
      double e = segment(M, W, split, S->pair[2 * s], S->pair[2 * s + 1],
                         f * S->rest[s]);
      corrected += e > 0.0, worst = fmax(worst, e);
    }
    /* a pass that found every length within 1e-6 of its limit ends it */
    if (worst <= 1e-6) break;
  }
  return corrected;
}

size_t mss_limit_strain(struct mss_model *M, struct mss_work *W) {
  return limit(M, W, 0);
}

size_t mss_limit_strain_after_split(struct mss_model *M, struct mss_work *W) {
  return limit(M, W, 1) + limit(M, W, 2);
}
