/* virtual_material — one neighbourhood's lattice, free of the host: the
 * assignment of neighbours to lattice points, the fitted transform, the
 * restoring forces with their torque taken back, and the damping of the
 * non-rigid velocity (Wicke et al. 2007, sects. 3.2, 3.4, 3.5).  Model
 * and notation: virtual_material.h. */
#include <math.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "../common/polar.h"
#include "virtual_material.h"

double vm_weight(double r, double h) {
  if (!(r < h)) return 0.0;
  double u = 1.0 - (r * r) / (h * h);
  return u * u * u;
}

double vm_unit(double D, int ccp) { return ccp ? D * VM_SQRT1_2 : D; }

double vm_volume(double D, int ccp) {
  return ccp ? D * D * D * VM_SQRT1_2 : D * D * D;
}

int vm_is_point(int i, int j, int k, int ccp) {
  return !ccp || ((i + j + k) & 1) == 0;
}

void vm_nearest(const double *y, double D, int ccp, double *l) {
  double u = vm_unit(D, ccp), n[3];
  for (int a = 0; a < 3; a++) n[a] = nearbyint(y[a] / u);
  if (ccp && fmod(fabs(n[0] + n[1] + n[2]), 2.0) == 1.0) {
    /* odd: move the coordinate rounded the farthest to its other
     * neighbour (the nearest point of the D3 lattice) */
    int m = 0;
    double worst = -1.0;
    for (int a = 0; a < 3; a++) {
      double e = fabs(y[a] / u - n[a]);
      if (e > worst) worst = e, m = a;
    }
    n[m] += y[m] / u > n[m] ? 1.0 : -1.0;
  }
  for (int a = 0; a < 3; a++) l[a] = u * n[a] + 0.0;
}

double vm_lattice_moment(double D, double h, int ccp) {
  double c = 0.0, u = vm_unit(D, ccp);
  int K = (int)ceil(h / u);
  for (int i = -K; i <= K; i++)
    for (int j = -K; j <= K; j++)
      for (int m = -K; m <= K; m++)
        if (vm_is_point(i, j, m, ccp))
          c += vm_weight(u * sqrt((double)(i * i + j * j + m * m)), h) *
               (i * u) * (i * u);
  return c;
}

static void cross(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static double norm(const double *a) {
  return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

/* Whether neighbour q (q == count: the centre) takes part: a solid
 * particle (a fluid one feels no lattice force). */
static int in_hood(const struct vm_hood *H, uint32_t q) {
  return q == H->count || !H->solid || H->solid[H->nb[q]];
}

/* The nearest lattice point to A^-1 r for every neighbour; of two on one
 * point the nearer keeps it (the farther is left out of the hood), and
 * the centre's own point (0) is nobody's.  Slot f[0] holds the squared
 * miss while assigning. */
static void assign(const struct vm_hood *H, const double *x,
                   const double *Ai, struct vm_slot *slot) {
  const double *xi = x + 3 * (size_t)H->i, D = H->D;
  for (uint32_t q = 0; q < H->count; q++) {
    const double *xj = x + 3 * (size_t)H->nb[q];
    double r[3] = {xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]}, y[3], e = 0;
    struct vm_slot *S = &slot[q];
    for (int a = 0; a < 3; a++)
      y[a] = Ai[3 * a] * r[0] + Ai[3 * a + 1] * r[1] + Ai[3 * a + 2] * r[2];
    /* vm_nearest gives no -0, so two neighbours on one point compare
     * equal bit for bit (measured: with -0 two were pulled onto one
     * point, and a shattering block gained 85 % of its energy) */
    vm_nearest(y, D, H->ccp, S->l);
    for (int a = 0; a < 3; a++) e += (y[a] - S->l[a]) * (y[a] - S->l[a]);
    S->used = in_hood(H, q) &&
              (S->l[0] != 0.0 || S->l[1] != 0.0 || S->l[2] != 0.0);
    S->f[0] = e, S->f[1] = S->f[2] = 0.0;
  }
  for (uint32_t q = 0; q < H->count; q++)
    for (uint32_t p = q + 1; slot[q].used && p < H->count; p++) {
      if (!slot[p].used || memcmp(slot[q].l, slot[p].l, sizeof slot[q].l))
        continue;
      if (slot[p].f[0] < slot[q].f[0])
        slot[q].used = 0;
      else
        slot[p].used = 0;
    }
}

/* Fracture's docking (struct vm_dock): of the neighbours assigned a
 * point, those on a lost point (rate 0) leave the hood; those refused by
 * their draw or the stress criterion (their spring's extension (r - R l)
 * . R l / |l|^2 under the rotation R of the last step's transform A:
 * tension only, a brittle material's failure) stay in the fit but feel
 * no spring — the fit, and the rotation the other springs pull toward,
 * do not jump with each refusal (measured: refusing them from the fit
 * too left hoods of three or four springs whose rotation swung, and a
 * shattering block gained a third of its energy).  Then the rates of the
 * points docked gain and the others lose a step's change. */
static void dock(const struct vm_hood *H, const double *x, const double *A,
                 struct vm_slot *slot) {
  const struct vm_dock *K = H->dock;
  const int w = 2 * K->K + 1, crit = isfinite(K->strain);
  const double *xi = x + 3 * (size_t)H->i;
  double R[9], qw[4] = {1, 0, 0, 0};
  /* K <= 4: the support is at most 3 spacings, 3 sqrt 2 units */
  uint8_t hit[729] = {0};
  uint32_t now[729];
  const double u = vm_unit(H->D, H->ccp);
  for (int p = 0; p < w * w * w; p++) now[p] = UINT32_MAX;
  if (crit) msc_polar(A, R, qw);
  for (uint32_t q = 0; q < H->count; q++) {
    struct vm_slot *S = &slot[q];
    if (!S->used) continue;
    int p = 0, out = 0;
    for (int a = 0; a < 3; a++) {
      long c = lround(S->l[a] / u);
      out |= c < -K->K || c > K->K;
      p = p * w + (int)(c + K->K);
    }
    double rate = out ? 0.0 : K->rate[p];
    if (!(rate > 0.0)) { /* a lost point: out of the hood */
      S->used = 0;
      continue;
    }
    int docks = 1;
    if (crit) {
      const double *xj = x + 3 * (size_t)H->nb[q];
      double ext = 0.0, ll = 0.0; /* (r - R l) . R l */
      for (int a = 0; a < 3; a++) {
        double g = R[3 * a] * S->l[0] + R[3 * a + 1] * S->l[1] +
                   R[3 * a + 2] * S->l[2];
        ext += (xj[a] - xi[a] - g) * g, ll += g * g;
      }
      docks = !(ext > K->strain * ll);
    }
    /* a neighbour docked here in the last step stays without a draw */
    if (docks && K->step && isfinite(K->p_dt) && K->who[p] != H->nb[q] &&
        !(vm_uniform(K->key + (uint64_t)(p + 1) * 0xD1B54A32D192ED03ull) <
          1.0 - exp(-K->p_dt * rate)))
      docks = 0;
    S->used = docks ? 1 : 2;
    hit[p] |= (uint8_t)docks;
    if (docks) now[p] = H->nb[q];
  }
  if (!K->step) return;
  memcpy(K->who, now, (size_t)(w * w * w) * sizeof *now);
  for (int p = 0; p < w * w * w; p++)
    K->rate[p] = hit[p] ? fminf(1.0f, K->rate[p] + (float)K->change)
                        : fmaxf(0.0f, K->rate[p] - (float)K->change);
}

/* The hood (centre and every neighbour) as a rigid body: mass centre c,
 * inertia I about it (sym3); returns the mass. */
static double hood_frame(const struct vm_hood *H, const double *x,
                         const double *m, double *c, double *I) {
  double M = m[H->i];
  for (int a = 0; a < 3; a++) c[a] = M * x[3 * (size_t)H->i + a];
  for (uint32_t q = 0; q < H->count; q++) {
    size_t j = H->nb[q];
    if (!in_hood(H, q)) continue;
    M += m[j];
    for (int a = 0; a < 3; a++) c[a] += m[j] * x[3 * j + a];
  }
  for (int a = 0; a < 3; a++) c[a] /= M;
  memset(I, 0, 6 * sizeof *I);
  for (uint32_t q = 0; q <= H->count; q++) {
    size_t j = q < H->count ? H->nb[q] : H->i;
    if (!in_hood(H, q)) continue;
    double d[3] = {x[3 * j] - c[0], x[3 * j + 1] - c[1], x[3 * j + 2] - c[2]};
    double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    double e[6] = {dd, dd, dd, 0, 0, 0};
    ms_sym3_add(I, e, m[j]);
    ms_sym3_add_outer(I, d, -m[j]);
  }
  return M;
}

/* Turn the hood as a rigid body at rate w: force m_j w x d_j on each
 * member, added to its slot (the centre's to fi). */
static void turn(const struct vm_hood *H, const double *x, const double *m,
                 const double *c, const double *w, struct vm_slot *slot,
                 double *fi) {
  for (uint32_t q = 0; q <= H->count; q++) {
    size_t j = q < H->count ? H->nb[q] : H->i;
    if (!in_hood(H, q)) continue;
    double d[3] = {x[3 * j] - c[0], x[3 * j + 1] - c[1], x[3 * j + 2] - c[2]};
    double t[3];
    cross(w, d, t);
    double *f = q < H->count ? slot[q].f : fi;
    for (int a = 0; a < 3; a++) f[a] += m[j] * t[a];
  }
}

double vm_hood_forces(const struct vm_hood *H, const double *x,
                      const double *m, double *A, struct vm_slot *slot,
                      double *fi) {
  const double *xi = x + 3 * (size_t)H->i;
  double Ai[9], P[9] = {0}, Q[9] = {0}, energy = 0.0;
  static const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  if (!msc_inverse3(A, Ai, 0.0)) memcpy(Ai, eye, sizeof Ai);
  assign(H, x, Ai, slot);
  if (H->dock) dock(H, x, A, slot);
  fi[0] = fi[1] = fi[2] = 0.0;
  uint32_t used = 0;
  for (uint32_t q = 0; q < H->count; q++) {
    struct vm_slot *S = &slot[q];
    S->f[0] = 0.0;
    if (!S->used) continue;
    const double *xj = x + 3 * (size_t)H->nb[q];
    double r[3] = {xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]};
    double w = vm_weight(norm(r), H->h);
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) {
        P[3 * a + b] += w * r[a] * S->l[b];
        Q[3 * a + b] += w * S->l[a] * S->l[b];
      }
    used += w > 0.0;
  }
  double tq = (Q[0] + Q[4] + Q[8]) / 3.0, Qi[9], An[9], R[9];
  double qw[4] = {1, 0, 0, 0};
  /* a fracturing body's fragment of fewer than six (a corner's count)
   * holds none: its fit would be a few points' exact map whatever shape
   * they are in (measured: such fragments of four flung particles at
   * 9 m/s off a block falling at 2) */
  if (used < (H->dock ? 6u : 3u) || !msc_inverse3(Q, Qi, 1e-9 * tq * tq * tq)) {
    for (uint32_t q = 0; q < H->count; q++) slot[q].used = 0; /* holds none */
    return 0.0;
  }
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      An[3 * a + b] = P[3 * a] * Qi[b] + P[3 * a + 1] * Qi[3 + b] +
                      P[3 * a + 2] * Qi[6 + b];
  msc_polar(An, R, qw);
  memcpy(A, An, sizeof An);
  double tau[3] = {0, 0, 0};
  for (uint32_t q = 0; q < H->count; q++) {
    struct vm_slot *S = &slot[q];
    if (S->used != 1) continue; /* out, or in the fit only */
    const double *xj = x + 3 * (size_t)H->nb[q];
    double r[3] = {xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]}, F[3], t[3];
    double wk = vm_weight(norm(S->l), H->h) * H->k, e2 = 0.0;
    for (int a = 0; a < 3; a++) {
      double g = R[3 * a] * S->l[0] + R[3 * a + 1] * S->l[1] +
                 R[3 * a + 2] * S->l[2];
      F[a] = wk * (g - r[a]);
      e2 += (g - r[a]) * (g - r[a]);
      S->f[a] = 0.5 * F[a];
      fi[a] -= 0.5 * F[a];
    }
    cross(r, F, t);
    for (int a = 0; a < 3; a++) tau[a] += 0.5 * t[a];
    energy += 0.25 * wk * e2;
  }
  /* take the torque back: I w = -tau, forces m w x d */
  double c[3], I[6], w[3] = {-tau[0], -tau[1], -tau[2]};
  hood_frame(H, x, m, c, I);
  if (ms_sym3_solve(w, I, w)) turn(H, x, m, c, w, slot, fi);
  return energy;
}

void vm_hood_damping(const struct vm_hood *H, const double *x,
                     const double *v, const double *m, double share,
                     struct vm_slot *slot, double *dvi) {
  double c[3], I[6], vbar[3] = {0, 0, 0}, L[3] = {0, 0, 0}, w[3];
  double M = hood_frame(H, x, m, c, I);
  for (uint32_t q = 0; q <= H->count; q++) {
    size_t j = q < H->count ? H->nb[q] : H->i;
    if (in_hood(H, q))
      for (int a = 0; a < 3; a++) vbar[a] += m[j] * v[3 * j + a] / M;
  }
  for (uint32_t q = 0; q <= H->count; q++) {
    size_t j = q < H->count ? H->nb[q] : H->i;
    if (!in_hood(H, q)) continue;
    double d[3] = {x[3 * j] - c[0], x[3 * j + 1] - c[1], x[3 * j + 2] - c[2]};
    double u[3] = {v[3 * j] - vbar[0], v[3 * j + 1] - vbar[1],
                   v[3 * j + 2] - vbar[2]}, t[3];
    cross(d, u, t);
    for (int a = 0; a < 3; a++) L[a] += m[j] * t[a];
  }
  memcpy(w, L, sizeof w);
  if (!ms_sym3_solve(w, I, w)) w[0] = w[1] = w[2] = 0.0;
  for (uint32_t q = 0; q <= H->count; q++) {
    size_t j = q < H->count ? H->nb[q] : H->i;
    double d[3] = {x[3 * j] - c[0], x[3 * j + 1] - c[1], x[3 * j + 2] - c[2]};
    double t[3], *dv = q < H->count ? slot[q].f : dvi;
    cross(w, d, t);
    for (int a = 0; a < 3; a++)
      dv[a] = in_hood(H, q) ? -share * (v[3 * j + a] - vbar[a] - t[a]) : 0.0;
  }
}
