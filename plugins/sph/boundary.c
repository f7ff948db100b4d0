/* Boundaries: domain walls and obstacle boxes as virtual particles.
 *
 * A wall is filled with the fluid's own lattice continued behind it:
 * virtual particles of the fluid's mass at depths s/2, 3s/2, ... behind
 * the wall plane (s: spacing), laterally aligned with the particle that
 * looks at them.  A block sampled against a wall therefore sees exactly
 * the neighbourhood it would see inside the fluid (no start-up pressure
 * pulse), and the wall's share of density and force depends smoothly on
 * the distance alone (no bumps along the wall).  Where walls meet, the
 * virtual lattices overlap; inclusion-exclusion (two walls: minus the
 * lattice behind both; three: plus the one behind all three) counts each
 * region once.
 *
 * A virtual particle's pressure extrapolates the fluid's: the pressure
 * around the particle (its Shepard average p_w) plus the pressure
 * gradient times its offset, p_b = p_w + G . (x_b - x_i), never negative.
 * Across the wall G is the hydrostatic rho g (Adami et al. 2012), along
 * it the fluid's own gradient: a wall holds a column at rest with the
 * pressure of the fluid it replaces, lets a free-falling sheet slide down
 * freely, and never pulls: nothing sticks.
 *
 * An obstacle box acts as the half-space behind the tangent plane at the
 * box point closest to the particle (exact in front of a face, slightly
 * repulsive near its convex edges and corners).
 *
 * A hard guard (sph_guard) keeps centres `margin` away from walls and out
 * of obstacles should pressure fail to stop a particle within a step. */
#include <math.h>
#include <stdlib.h>

#include "sph.h"

struct wall {
  int axis;
  double side; /* -1: lower wall (virtual particles below), +1: upper */
  double d;    /* distance of the particle in front of it */
};

/* What the virtual particles of particle i add up to. */
struct bsum {
  const struct sph_solver *S;
  int want_w, want_g;
  double pw, G[3];     /* pressure model: p_b = pw + G . (x_b - x_i) */
  double Gf[3], rg[3]; /* the fluid's pressure gradient, rho g */
  double w;            /* sum W_ib */
  double g1[3], gp[3]; /* sum grad_i W_ib, sum p_b grad_i W_ib */
};

/* The virtual particle at offset o = x_b - x_i, counted `sgn` times. */
static inline void add(struct bsum *B, const double *o, double sgn) {
  const struct sph_solver *S = B->S;
  double r2 = o[0] * o[0] + o[1] * o[1] + o[2] * o[2];
  if (r2 >= S->kw.R2) return;
  if (B->want_w) B->w += sgn * sph_w_in(&S->kw, S->kw.kind, r2);
  if (!B->want_g) return;
  double f = -sgn * sph_f_in(&S->kg, S->kg.kind, r2); /* grad = F (x_i-x_b) */
  double pb = B->pw + B->G[0] * o[0] + B->G[1] * o[1] + B->G[2] * o[2];
  for (int a = 0; a < 3; a++) {
    B->g1[a] += f * o[a];
    if (pb > 0.0) B->gp[a] += pb * f * o[a];
  }
}

/* One wall at distance d: its lattice, depths s/2, 3s/2, ..., normal n
 * (into the fluid), lateral axes t1, t2, one virtual particle at a
 * time. */
static void enumerate(struct bsum *B, double d, const double *n,
                      const double *t1, const double *t2) {
  const double s = B->S->P.spacing, R = B->S->kw.R;
  const int J = (int)(R / s);
  double o[3];
  for (int l = 0;; l++) {
    double z = d + (l + 0.5) * s;
    if (z >= R) break;
    for (int j = -J; j <= J; j++)
      for (int k = -J; k <= J; k++) {
        for (int a = 0; a < 3; a++)
          o[a] = -z * n[a] + j * s * t1[a] + k * s * t2[a];
        add(B, o, 1.0);
      }
  }
}

/* The sums over one wall's lattice depend on d alone; tabulated at
 * WT_N + 1 distances in [0, R] (linear interpolation):
 *   [0] sum W,  [1] sum F z,  [2] sum F z^2,  [3] sum F l^2
 * (z depth, l one lateral coordinate, F = W'/r of the gradient kernel). */
#define WT_N 2048

int sph_wall_tables(struct sph_solver *S) {
  const double s = S->P.spacing, R = S->kw.R;
  const int J = (int)(R / s);
  free(S->wtab);
  S->wtab = malloc(4 * (WT_N + 1) * sizeof(double));
  if (!S->wtab) return MS_ENOMEM;
  S->wtab_inv = WT_N / R;
  for (int t = 0; t <= WT_N; t++) {
    double d = R * t / WT_N, v[4] = {0.0, 0.0, 0.0, 0.0};
    for (int l = 0; d + (l + 0.5) * s < R; l++) {
      double z = d + (l + 0.5) * s;
      for (int j = -J; j <= J; j++)
        for (int k = -J; k <= J; k++) {
          double r2 = z * z + (j * s) * (j * s) + (k * s) * (k * s);
          if (r2 >= S->kw.R2) continue;
          double f = sph_f_in(&S->kg, S->kg.kind, r2);
          v[0] += sph_w_in(&S->kw, S->kw.kind, r2);
          v[1] += f * z;
          v[2] += f * z * z;
          v[3] += f * (j * s) * (j * s);
        }
    }
    for (int c = 0; c < 4; c++) S->wtab[4 * t + c] = v[c];
  }
  return MS_OK;
}

static void lookup(const struct sph_solver *S, double d, double *v) {
  double u = (d > 0.0 ? d : 0.0) * S->wtab_inv;
  int k = (int)u;
  if (k >= WT_N) {
    v[0] = v[1] = v[2] = v[3] = 0.0;
    return;
  }
  double t = u - k;
  const double *a = S->wtab + 4 * k;
  for (int c = 0; c < 4; c++) v[c] = (1.0 - t) * a[c] + t * a[c + 4];
}

/* One wall from the tables.  The force needs no clipping of negative
 * virtual pressures when pw >= |G| R (none can be negative): then
 *   sum grad W = S1 n,  sum p_b grad W = pw S1 n - G.n Mnn n - Mtt G_t,
 * else the lattice is summed one virtual particle at a time. */
static void single(struct bsum *B, double d, const double *n,
                   const double *t1, const double *t2) {
  const struct sph_solver *S = B->S;
  double v[4];
  lookup(S, d, v);
  if (B->want_w) B->w += v[0];
  if (!B->want_g) return;
  double G2 = B->G[0] * B->G[0] + B->G[1] * B->G[1] + B->G[2] * B->G[2];
  if (B->pw * B->pw < G2 * S->kw.R2) {
    int w = B->want_w;
    B->want_w = 0;
    enumerate(B, d, n, t1, t2);
    B->want_w = w;
    return;
  }
  double gn = B->G[0] * n[0] + B->G[1] * n[1] + B->G[2] * n[2];
  for (int a = 0; a < 3; a++) {
    double gt = B->G[a] - gn * n[a];
    B->g1[a] += v[1] * n[a];
    B->gp[a] += (B->pw * v[1] - gn * v[2]) * n[a] - v[3] * gt;
  }
}

/* Across the walls on the axes in `mask` the pressure gradient is the
 * hydrostatic rho g (Adami et al. 2012, static wall); along them, the
 * fluid's own. */
static void gradient(struct bsum *B, int mask) {
  for (int a = 0; a < 3; a++) B->G[a] = mask >> a & 1 ? B->rg[a] : B->Gf[a];
}

static void axis_wall(struct bsum *B, const struct wall *w) {
  double n[3] = {0.0, 0.0, 0.0}, t1[3] = {0.0, 0.0, 0.0},
         t2[3] = {0.0, 0.0, 0.0};
  gradient(B, 1 << w->axis);
  n[w->axis] = -w->side;
  t1[(w->axis + 1) % 3] = 1.0;
  t2[(w->axis + 2) % 3] = 1.0;
  single(B, w->d, n, t1, t2);
}

/* Two walls on different axes: the lattice behind both, subtracted. */
static void pair(struct bsum *B, const struct wall *u, const struct wall *v) {
  const double s = B->S->P.spacing, R = B->S->kw.R;
  const int J = (int)(R / s), c = 3 - u->axis - v->axis;
  double o[3];
  gradient(B, 1 << u->axis | 1 << v->axis);
  for (int l = 0;; l++) {
    double z1 = u->d + (l + 0.5) * s;
    if (z1 >= R) break;
    for (int m = 0;; m++) {
      double z2 = v->d + (m + 0.5) * s;
      if (z1 * z1 + z2 * z2 >= B->S->kw.R2) break;
      o[u->axis] = u->side * z1;
      o[v->axis] = v->side * z2;
      for (int k = -J; k <= J; k++) {
        o[c] = k * s;
        add(B, o, -1.0);
      }
    }
  }
}

/* Three walls, one per axis: the lattice behind all three, added back. */
static void triple(struct bsum *B, const struct wall *t[3]) {
  const double s = B->S->P.spacing, R = B->S->kw.R;
  double o[3];
  gradient(B, 7);
  for (int l = 0; t[0]->d + (l + 0.5) * s < R; l++)
    for (int m = 0; t[1]->d + (m + 0.5) * s < R; m++)
      for (int k = 0; t[2]->d + (k + 0.5) * s < R; k++) {
        o[t[0]->axis] = t[0]->side * (t[0]->d + (l + 0.5) * s);
        o[t[1]->axis] = t[1]->side * (t[1]->d + (m + 0.5) * s);
        o[t[2]->axis] = t[2]->side * (t[2]->d + (k + 0.5) * s);
        add(B, o, 1.0);
      }
}

/* The walls within reach of x into W; returns their number. */
static int find_walls(const struct sph_solver *S, const double *x,
                      struct wall *W) {
  const struct sph_params *P = &S->P;
  const double R = S->kw.R;
  int nw = 0;
  for (int a = 0; a < 3; a++) {
    double dl = x[a] - P->lo[a], dh = P->hi[a] - x[a];
    if (dl < R) W[nw++] = (struct wall){a, -1.0, dl};
    if (dh < R) W[nw++] = (struct wall){a, 1.0, dh};
  }
  return nw;
}

static void walls(struct bsum *B, const double *x) {
  struct wall W[6];
  int nw = find_walls(B->S, x, W);
  for (int i = 0; i < nw; i++) axis_wall(B, &W[i]);
  for (int i = 0; i < nw; i++)
    for (int j = i + 1; j < nw; j++) {
      if (W[i].axis == W[j].axis) continue;
      pair(B, &W[i], &W[j]);
      for (int k = j + 1; k < nw; k++) {
        if (W[k].axis == W[i].axis || W[k].axis == W[j].axis) continue;
        const struct wall *t[3] = {&W[i], &W[j], &W[k]};
        triple(B, t);
      }
    }
}

/* Obstacle box b: distance and outward normal at the closest box point
 * (inside: the nearest face, distance 0). */
static double box_normal(const struct sph_box *b, const double *x,
                         double *n) {
  double o[3], d2 = 0.0;
  for (int a = 0; a < 3; a++) {
    double c = x[a] < b->lo[a] ? b->lo[a] : x[a] > b->hi[a] ? b->hi[a] : x[a];
    o[a] = x[a] - c;
    d2 += o[a] * o[a];
  }
  if (d2 > 0.0) {
    double d = sqrt(d2);
    for (int a = 0; a < 3; a++) n[a] = o[a] / d;
    return d;
  }
  double best = INFINITY;
  for (int a = 0; a < 3; a++) {
    double pl = x[a] - b->lo[a], ph = b->hi[a] - x[a];
    if (pl < best) best = pl, n[0] = n[1] = n[2] = 0.0, n[a] = -1.0;
    if (ph < best) best = ph, n[0] = n[1] = n[2] = 0.0, n[a] = 1.0;
  }
  return 0.0;
}

/* Two unit vectors completing n to an orthonormal basis. */
static void basis(const double *n, double *t1, double *t2) {
  int a = fabs(n[0]) <= fabs(n[1]) && fabs(n[0]) <= fabs(n[2]) ? 0
          : fabs(n[1]) <= fabs(n[2])                           ? 1
                                                               : 2;
  double e[3] = {0.0, 0.0, 0.0};
  e[a] = 1.0;
  t1[0] = n[1] * e[2] - n[2] * e[1];
  t1[1] = n[2] * e[0] - n[0] * e[2];
  t1[2] = n[0] * e[1] - n[1] * e[0];
  double l = sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
  for (int k = 0; k < 3; k++) t1[k] /= l;
  t2[0] = n[1] * t1[2] - n[2] * t1[1];
  t2[1] = n[2] * t1[0] - n[0] * t1[2];
  t2[2] = n[0] * t1[1] - n[1] * t1[0];
}

/* Whether obstacle b can reach x (the test obstacles() skips by). */
static int box_near(const struct sph_box *b, const double *x, double R) {
  return !(x[0] < b->lo[0] - R || x[0] > b->hi[0] + R ||
           x[1] < b->lo[1] - R || x[1] > b->hi[1] + R ||
           x[2] < b->lo[2] - R || x[2] > b->hi[2] + R);
}

static void obstacles(struct bsum *B, const double *x) {
  const struct sph_solver *S = B->S;
  const double R = S->kw.R;
  for (size_t b = 0; b < S->nbox; b++) {
    const struct sph_box *X = &S->box[b];
    if (!box_near(X, x, R)) continue;
    double n[3], t1[3], t2[3], d = box_normal(X, x, n);
    if (d >= R) continue;
    basis(n, t1, t2);
    /* the fluid's gradient along the face, rho g across it */
    double gn = 0.0, fn = 0.0;
    for (int a = 0; a < 3; a++) gn += B->rg[a] * n[a], fn += B->Gf[a] * n[a];
    for (int a = 0; a < 3; a++) B->G[a] = B->Gf[a] + (gn - fn) * n[a];
    single(B, d, n, t1, t2);
  }
}

/* The common cases skip clearing a struct bsum: nothing within reach,
 * or one wall alone (what walls() would add to B.w = 0). */
double sph_boundary_density(const struct sph_solver *S, const double *x) {
  struct wall W[6];
  int nw = find_walls(S, x, W), boxes = 0;
  for (size_t b = 0; b < S->nbox && !boxes; b++)
    boxes = box_near(&S->box[b], x, S->kw.R);
  if (!boxes && nw < 2) {
    double v[4] = {0.0, 0.0, 0.0, 0.0};
    if (nw) lookup(S, W[0].d, v);
    return 0.0 + v[0];
  }
  struct bsum B = {.S = S, .want_w = 1};
  walls(&B, x);
  obstacles(&B, x);
  return B.w;
}

void sph_boundary_force(const struct sph_solver *S, const double *x,
                        double pw, double rho, const double *Gf, double *g1,
                        double *gp) {
  struct bsum B = {.S = S, .want_g = 1, .pw = pw};
  for (int a = 0; a < 3; a++) B.Gf[a] = Gf[a], B.rg[a] = rho * S->g_now[a];
  walls(&B, x);
  obstacles(&B, x);
  for (int a = 0; a < 3; a++) g1[a] = B.g1[a], gp[a] = B.gp[a];
}

/* Constrain d[a] >= bound (side < 0) or d[a] <= bound (side > 0); stop
 * v[a] moving further that way. */
static int limit(double *d, double *v, int a, int side, double bound) {
  if (side < 0 ? d[a] >= bound : d[a] <= bound) return 0;
  d[a] = bound;
  if (side < 0 ? v[a] < 0.0 : v[a] > 0.0) v[a] = 0.0;
  return 1;
}

/* Member at x (start) moving by d ends inside box b grown by g: push it
 * back out through the face it came in by (the axis on which it started
 * farthest outside), or the nearest face if it started inside. */
static int obstacle(const struct sph_box *b, double g, const double *x,
                    double *d, double *v) {
  double p[3], best = -INFINITY;
  int axis = -1, side = 0;
  for (int a = 0; a < 3; a++) {
    p[a] = x[a] + d[a];
    if (!(p[a] > b->lo[a] - g && p[a] < b->hi[a] + g)) return 0;
  }
  for (int a = 0; a < 3; a++) {
    double out_lo = (b->lo[a] - g) - x[a], out_hi = x[a] - (b->hi[a] + g);
    if (out_lo >= 0.0 && out_lo > best) best = out_lo, axis = a, side = -1;
    if (out_hi >= 0.0 && out_hi > best) best = out_hi, axis = a, side = 1;
  }
  if (axis < 0) { /* started inside: the nearest face */
    for (int a = 0; a < 3; a++) {
      double pen_lo = p[a] - (b->lo[a] - g), pen_hi = (b->hi[a] + g) - p[a];
      if (-pen_lo > best) best = -pen_lo, axis = a, side = -1;
      if (-pen_hi > best) best = -pen_hi, axis = a, side = 1;
    }
  }
  if (side < 0) /* stay below lo - g: d[a] <= lo - g - x[a] */
    return limit(d, v, axis, 1, b->lo[axis] - g - x[axis]);
  return limit(d, v, axis, -1, b->hi[axis] + g - x[axis]);
}

int sph_guard(const struct sph_solver *S, const uint32_t *idx, uint32_t cnt,
              double *d, double *v) {
  const struct sph_params *P = &S->P;
  const double g = S->margin;
  int hit = 0;
  for (size_t b = 0; b < S->nbox; b++)
    for (uint32_t q = 0; q < cnt; q++)
      hit |= obstacle(&S->box[b], g, S->x + SPH_XS * (size_t)idx[q], d, v);
  for (int a = 0; a < 3; a++) {
    double need_lo = -INFINITY, need_hi = INFINITY;
    for (uint32_t q = 0; q < cnt; q++) {
      double xa = S->x[SPH_XS * (size_t)idx[q] + a];
      need_lo = fmax(need_lo, P->lo[a] + g - xa);
      need_hi = fmin(need_hi, P->hi[a] - g - xa);
    }
    if (isfinite(need_lo)) hit |= limit(d, v, a, -1, need_lo);
    if (isfinite(need_hi)) hit |= limit(d, v, a, 1, need_hi);
  }
  return hit;
}
