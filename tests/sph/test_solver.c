/* Solver tests without the core's step driver: walls as virtual fluid,
 * meta-particle integration. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/detection/detection.h"
#include "../../plugins/sph/sph.h"
#include "suites.h"

static int nb_core(void *opaque, const double *xyz, size_t stride,
                   size_t count, double radius, struct ms_neighbors *nb) {
  (void)opaque;
  return ms__neighbors_build(xyz, stride, count, radius, nb);
}

/* A solver for an nx x ny x nz lattice block at (i + 1/2) s from dlo (or
 * 0 where it is infinite), domain [dlo, dhi]. */
static void make(struct sph_solver *S, int nx, int ny, int nz, double s,
                 const double *dlo, const double *dhi, const double *g) {
  memset(S, 0, sizeof *S);
  struct sph_params *P = &S->P;
  P->spacing = s, P->h = s, P->rho0 = 1000.0, P->mass = 1000.0 * s * s * s;
  P->radius = 0.5 * s, P->gamma = 7.0, P->alpha = 0.1, P->cfl = 0.4;
  P->force_cfl = 0.25, P->kernel = P->grad_kernel = SPH_CUBIC_SPLINE;
  P->clamp_pressure = 1, P->c = 20.0;
  for (int a = 0; a < 3; a++)
    P->lo[a] = dlo[a], P->hi[a] = dhi[a], P->gravity[a] = g ? g[a] : 0.0;
  S->threads = 2;
  S->neighbors = nb_core;
  sph_init_constants(S);
  ck_assert_int_eq(sph_alloc(S, (size_t)nx * ny * nz), MS_OK);
  size_t q = 0;
  double o[3];
  for (int a = 0; a < 3; a++) o[a] = isfinite(dlo[a]) ? dlo[a] : 0.0;
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++)
      for (int k = 0; k < nz; k++, q++) {
        S->x[SPH_XS * q] = o[0] + (i + 0.5) * s;
        S->x[SPH_XS * q + 1] = o[1] + (j + 0.5) * s;
        S->x[SPH_XS * q + 2] = o[2] + (k + 0.5) * s;
      }
}

static void drop(struct sph_solver *S) {
  ms__neighbors_release(&S->nbl);
  sph_free(S);
}

/* m * sum of W over the infinite lattice: the bulk density. */
static double bulk_density(const struct sph_solver *S) {
  double s = S->P.spacing, sum = 0.0;
  for (int i = -4; i <= 4; i++)
    for (int j = -4; j <= 4; j++)
      for (int k = -4; k <= 4; k++) {
        double r = s * sqrt(i * i + j * j + k * k);
        sum += sph_kernel_w(&S->kw, r);
      }
  return S->P.mass * sum;
}

/* A block filling a corner: every particle farther than the support from
 * the block's free faces has the bulk density, at walls, edges and the
 * corner alike (the walls' virtual lattices continue the fluid exactly). */
START_TEST(walls_continue_the_lattice) {
  const double s = 0.01, lo[3] = {0.0, 0.0, 0.0}, hi[3] = {1.0, 1.0, 1.0};
  struct sph_solver S;
  make(&S, 7, 7, 7, s, lo, hi, NULL);
  ck_assert_int_eq(sph_prepare(&S), MS_OK);
  double bulk = bulk_density(&S);
  int checked = 0, walled = 0;
  for (size_t i = 0; i < S.n; i++) {
    const double *x = S.x + SPH_XS * i;
    if (x[0] > 0.05 || x[1] > 0.05 || x[2] > 0.05) continue;
    ck_assert_msg(fabs(S.rho[i] / bulk - 1.0) < 1e-9,
                  "density %.15g at (%g, %g, %g), bulk %.15g", S.rho[i], x[0],
                  x[1], x[2], bulk);
    checked++;
    walled += S.walled[i];
  }
  ck_assert_int_eq(checked, 125);
  /* virtual particles reach only the first layer (the second's nearest
   * mirror image is 2 s = R away) */
  ck_assert_int_eq(walled, 125 - 64);
  drop(&S);
}
END_TEST

/* A closed box filled with fluid at uniform pressure and no gravity: the
 * walls push exactly as the missing fluid would, so every particle is in
 * equilibrium, next to a wall, an edge or a corner. */
START_TEST(walls_balance_uniform_pressure) {
  const double s = 0.01, lo[3] = {0.0, 0.0, 0.0}, hi[3] = {0.06, 0.05, 0.07};
  struct sph_solver S;
  make(&S, 6, 5, 7, s, lo, hi, NULL);
  S.P.mass *= 1.02; /* compressed by 2 %: p > 0 */
  ck_assert_int_eq(sph_prepare(&S), MS_OK);
  sph_forces(&S);
  /* the scale of one neighbour's push */
  double x1[3] = {s, 0.0, 0.0}, g1[3];
  sph_kernel_grad(&S.kg, x1, g1);
  double unit = S.P.mass * 2.0 * S.pr[0] * fabs(g1[0]);
  ck_assert(S.p[0] > 0.0);
  for (size_t i = 0; i < S.n; i++) {
    ck_assert_msg(fabs(S.rho[i] - S.rho[0]) <= 1e-12 * S.rho[0],
                  "density %.15g != %.15g", S.rho[i], S.rho[0]);
    for (int a = 0; a < 3; a++)
      ck_assert_msg(fabs(S.a[3 * i + a]) <= 1e-9 * unit,
                    "particle %zu: a[%d] = %g (unit %g)", i, a, S.a[3 * i + a],
                    unit);
  }
  drop(&S);
}
END_TEST

/* Meta-particles: rigid members, summed forces, whole mass, gravity on
 * all of it; results written back exactly. */
/* A free n^3 block at spacing 0.01 under gravity g, compressed (pressure
 * acts) and stirred: the same in S and in its reference R. */
static void stirred_pair(struct sph_solver *S, struct sph_solver *R, int n,
                         const double *g) {
  const double lo[3] = {-INFINITY, -INFINITY, -INFINITY},
               hi[3] = {INFINITY, INFINITY, INFINITY};
  make(S, n, n, n, 0.01, lo, hi, g);
  make(R, n, n, n, 0.01, lo, hi, g);
  S->P.mass = R->P.mass = 1.1 * S->P.mass;
  for (size_t i = 0; i < S->n; i++)
    for (int a = 0; a < 3; a++)
      S->v[3 * i + a] = R->v[3 * i + a] = 0.1 * sin(1.0 + i + 7.0 * a);
}

START_TEST(meta_particles_move_as_one) {
  const double g[3] = {0.0, -9.81, 0.0};
  struct sph_solver S, R;
  stirred_pair(&S, &R, 5, g);
  /* meta 0: members 0, 1, 6 and 2.5 kg of another system; meta 1: 62 */
  const uint32_t off[3] = {0, 3, 4}, mem[4] = {0, 1, 6, 62};
  const double mass[2] = {3 * S.P.mass + 2.5, S.P.mass + 0.75};
  const double own[2] = {3 * S.P.mass, S.P.mass};
  const double vel[6] = {0.3, -0.2, 0.1, -1.0, 0.5, 0.25}, pos[6] = {0};
  struct ms_metas M = {sizeof M, 2, off, mem, mass, own, pos, vel, NULL};
  double rv[6], rd[6];
  uint8_t rc[2] = {0, 0};
  struct ms_meta_result res = {sizeof res, 2, rv, rd, rc};
  const double dt = 1e-4;
  double x0[3 * 125];
  for (size_t i = 0; i < S.n; i++)
    for (int a = 0; a < 3; a++) x0[3 * i + a] = S.x[SPH_XS * i + a];
  sph_begin(&S);
  ck_assert_int_eq(sph_integrate(&S, 1.0, dt, NULL, &M, &res), MS_OK);
  /* reference forces: members carry the merged velocity */
  for (uint32_t k = 0; k < 2; k++)
    for (uint32_t q = off[k]; q < off[k + 1]; q++)
      memcpy(R.v + 3 * mem[q], vel + 3 * k, 3 * sizeof(double));
  ck_assert_int_eq(sph_prepare(&R), MS_OK);
  sph_forces(&R);
  for (uint32_t k = 0; k < 2; k++) {
    double f[3] = {0.0, 0.0, 0.0};
    for (uint32_t q = off[k]; q < off[k + 1]; q++)
      for (int a = 0; a < 3; a++) f[a] += R.P.mass * R.a[3 * mem[q] + a];
    for (int a = 0; a < 3; a++) {
      double V = vel[3 * k + a] + dt * (f[a] / mass[k] + g[a]);
      ck_assert_msg(fabs(rv[3 * k + a] - V) <= 1e-14 * (1.0 + fabs(V)),
                    "meta %u: velocity %.17g, expected %.17g", k,
                    rv[3 * k + a], V);
      ck_assert(rd[3 * k + a] == dt * rv[3 * k + a]);
    }
    ck_assert_int_eq(rc[k], 0);
    for (uint32_t q = off[k]; q < off[k + 1]; q++)
      for (int a = 0; a < 3; a++) {
        size_t i = mem[q];
        ck_assert(S.v[3 * i + a] == rv[3 * k + a]);
        ck_assert(S.x[SPH_XS * i + a] == x0[3 * i + a] + rd[3 * k + a]);
      }
  }
  /* the foreign mass slows the meta-particle: without it the SPH push on
   * its members would change its velocity more */
  double f0 = 0.0, dv = fabs(rv[0] - vel[0]); /* no gravity along x */
  for (uint32_t q = 0; q < 3; q++) f0 += R.P.mass * R.a[3 * mem[q]];
  ck_assert(fabs(f0) > 0.0);
  ck_assert(dv < fabs(dt * f0 / own[0]));
  /* free particles: their own symplectic Euler step */
  size_t i = 30;
  for (int a = 0; a < 3; a++) {
    double v = R.v[3 * i + a] + dt * (R.a[3 * i + a] + g[a]);
    ck_assert(fabs(S.v[3 * i + a] - v) <= 1e-15 * (1.0 + fabs(v)));
    ck_assert(S.x[SPH_XS * i + a] == x0[3 * i + a] + dt * S.v[3 * i + a]);
  }
  drop(&S);
  drop(&R);
}
END_TEST

/* A meta-particle driven into a wall is stopped by the guard and reports
 * the constraint. */
START_TEST(meta_particle_at_wall_is_constrained) {
  const double s = 0.01, lo[3] = {0.0, 0.0, 0.0}, hi[3] = {1.0, 1.0, 1.0};
  struct sph_solver S;
  make(&S, 3, 3, 3, s, lo, hi, NULL);
  const uint32_t off[2] = {0, 2}, mem[2] = {0, 1}; /* at x = y = z = s/2 */
  const double mass[1] = {5.0}, own[1] = {2 * S.P.mass};
  const double vel[3] = {-30.0, 1.0, 0.0}, pos[3] = {0};
  struct ms_metas M = {sizeof M, 1, off, mem, mass, own, pos, vel, NULL};
  double rv[3], rd[3];
  uint8_t rc[1] = {0};
  struct ms_meta_result res = {sizeof res, 1, rv, rd, rc};
  sph_begin(&S);
  ck_assert_int_eq(sph_integrate(&S, 0.0, 1e-3, NULL, &M, &res), MS_OK);
  ck_assert_int_eq(rc[0], 1);
  ck_assert(rv[0] == 0.0); /* stopped against the wall */
  ck_assert(rv[1] > 0.9);  /* free to slide along it */
  for (int q = 0; q < 2; q++)
    ck_assert(S.x[SPH_XS * mem[q]] >= S.margin - 1e-15);
  drop(&S);
}
END_TEST

/* One wall's tabulated sums against the virtual lattice summed here. */
START_TEST(wall_tables_match_lattice_sums) {
  const double s = 0.01, lo[3] = {0.0, -INFINITY, -INFINITY},
               hi[3] = {INFINITY, INFINITY, INFINITY};
  struct sph_solver S;
  make(&S, 1, 1, 1, s, lo, hi, NULL);
  S.g_now[1] = -9.81;
  for (int t = 0; t < 200; t++) {
    double d = S.kw.R * (t + 0.37) / 200.0, x[3] = {d, 0.3, -0.2};
    double G[3] = {300.0 * sin(t), -9810.0, 100.0 * cos(t)};
    double pw = t % 2 ? 5000.0 : 50.0; /* odd: no virtual pressure < 0 */
    double w = 0.0, g1[3] = {0, 0, 0}, gp[3] = {0, 0, 0}, b1[3], bp[3];
    /* across the wall the gradient is rho g */
    double Gw[3] = {1000.0 * S.g_now[0], G[1], G[2]};
    for (int l = 0; l < 4; l++)
      for (int j = -3; j <= 3; j++)
        for (int k = -3; k <= 3; k++) {
          double o[3] = {-(d + (l + 0.5) * s), j * s, k * s};
          double r = sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]), gr[3];
          double mo[3] = {-o[0], -o[1], -o[2]};
          w += sph_kernel_w(&S.kw, r);
          sph_kernel_grad(&S.kg, mo, gr);
          double pb = pw + Gw[0] * o[0] + Gw[1] * o[1] + Gw[2] * o[2];
          for (int a = 0; a < 3; a++) {
            g1[a] += gr[a];
            gp[a] += (pb > 0.0 ? pb : 0.0) * gr[a];
          }
        }
    double wt = sph_boundary_density(&S, x), scale = S.kw.norm;
    ck_assert_msg(fabs(wt - w) <= 1e-6 * scale, "d = %g: W sum %.12g, "
                  "lattice %.12g", d, wt, w);
    sph_boundary_force(&S, x, pw, 1000.0, G, b1, bp);
    double gs = scale / S.kw.h, ps = gs * (pw + 9810.0 * S.kw.R);
    for (int a = 0; a < 3; a++) {
      ck_assert_msg(fabs(b1[a] - g1[a]) <= 1e-6 * gs, "d = %g: grad[%d] "
                    "%.12g vs %.12g", d, a, b1[a], g1[a]);
      ck_assert_msg(fabs(bp[a] - gp[a]) <= (t % 2 ? 1e-6 : 1e-12) * ps,
                    "d = %g, pw = %g: p grad[%d] %.12g vs %.12g", d, pw, a,
                    bp[a], gp[a]);
    }
  }
  drop(&S);
}
END_TEST

/* The density pass's kernel sums: every instruction set this machine
 * runs gives the plain C sums bitwise (four fixed lanes), for lists of
 * every length modulo 4, and those match a sequential sum to rounding. */
START_TEST(kernel_sums_agree_across_instruction_sets) {
  const double s = 0.01, lo[3] = {0.0, 0.0, 0.0}, hi[3] = {1.0, 1.0, 1.0};
  struct sph_solver S;
  make(&S, 9, 8, 7, s, lo, hi, NULL);
  uint64_t z = 88172645463325252ULL;
  for (size_t i = 0; i < SPH_XS * S.n; i++) {
    z ^= z << 13, z ^= z >> 7, z ^= z << 17; /* jitter: ragged lists */
    if (i % SPH_XS < 3) S.x[i] += 0.3 * s * ((double)(z >> 11) / 0x1p53);
  }
  S.P.skin = 0.2; /* lists cut to R as in a run */
  ck_assert_int_eq(sph_prepare(&S), MS_OK);
  int lengths = 0;
  for (size_t i = 0; i < S.n; i++) lengths |= 1 << (S.lend[i] - S.loff[i]) % 4;
  ck_assert_int_eq(lengths, 15);
  double *ref = malloc(S.n * sizeof *ref), *out = malloc(S.n * sizeof *out);
  ck_assert(ref && out);
  for (int kind = 0; kind < SPH_KERNEL_COUNT; kind++) {
    sph_kernel_init(&S.kw, kind, S.P.h);
    S.isa = SPH_ISA_C;
    sph_wsum(&S, 0, S.n, ref);
    for (size_t i = 0; i < S.n; i++) {
      const double *xi = S.x + SPH_XS * i;
      double seq = 0.0;
      for (uint32_t q = S.loff[i]; q < S.lend[i]; q++) {
        const double *xj = S.x + SPH_XS * (size_t)S.lidx[q];
        double d[3] = {xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]};
        seq += sph_w_raw(&S.kw, kind, d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      }
      ck_assert_msg(fabs(ref[i] - seq) <= 1e-13 * seq, "%s, particle %zu: "
                    "%.17g vs %.17g", sph_kernel_name(kind), i, ref[i], seq);
    }
    for (int isa = SPH_ISA_C + 1; isa < SPH_ISA_COUNT; isa++) {
      if (!sph_wsum_isa(isa)) continue;
      S.isa = isa;
      sph_wsum(&S, 0, S.n, out);
      ck_assert_msg(!memcmp(out, ref, S.n * sizeof *ref),
                    "%s: instruction set %d differs from plain C",
                    sph_kernel_name(kind), isa);
    }
  }
  free(ref), free(out);
  drop(&S);
}
END_TEST

/* The compression energy per unit mass is the integral of the Tait
 * pressure over rho^2: its derivative is p / rho^2 (central differences,
 * 1e-7 relative), it is 0 at rest density and never negative, on both
 * sides of rho0 without clamping and 0 below rho0 with it. */
START_TEST(internal_energy_integrates_pressure) {
  struct sph_params P = {.rho0 = 1000.0, .B = 3.2e5, .gamma = 7.0};
  for (int clamp = 0; clamp < 2; clamp++) {
    P.clamp_pressure = clamp;
    ck_assert(sph_internal_energy(&P, P.rho0) == 0.0);
    for (double s = 0.9; s <= 1.1; s += 0.01) {
      double rho = s * P.rho0, h = 1e-4 * P.rho0;
      double e = sph_internal_energy(&P, rho);
      ck_assert(e >= 0.0);
      if (clamp && s < 1.0) {
        ck_assert(e == 0.0);
        continue;
      }
      if (fabs(s - 1.0) < 2e-3) continue; /* the clamp's kink */
      double de = (sph_internal_energy(&P, rho + h) -
                   sph_internal_energy(&P, rho - h)) / (2 * h);
      double want = sph_pressure(&P, rho) / (rho * rho);
      ck_assert_msg(fabs(de - want) <= 1e-6 * fabs(want), "s = %g: de/drho "
                    "%.10g, p/rho^2 %.10g", s, de, want);
    }
  }
  P.clamp_pressure = 0;
  for (int k = 0; k < 2; k++) { /* any exponent, the lowest allowed too */
    P.gamma = k ? 1.0 : 1.5;
    double rho = 1.05 * P.rho0, h = 1e-4 * P.rho0;
    double de = (sph_internal_energy(&P, rho + h) -
                 sph_internal_energy(&P, rho - h)) / (2 * h);
    ck_assert_msg(fabs(de - sph_pressure(&P, rho) / (rho * rho)) <=
                  1e-6 * sph_pressure(&P, rho) / (rho * rho), "gamma %g: "
                  "de/drho %.10g", P.gamma, de);
  }
  /* gamma = 1: (B / rho0) (ln s + 1 / s - 1) */
  double s = 1.05;
  ck_assert_double_eq_tol(sph_internal_energy(&P, s * P.rho0),
                          P.B / P.rho0 * (log(s) + 1.0 / s - 1.0), 1e-12);
}
END_TEST

/* others_as_boundary's grid (others.c) against the plain sum over every
 * other particle: a compact cluster inside the fluid, and a sparse
 * scatter over a box 100 times the fluid's (the grid coarsens); fluid
 * particles beyond a support of every other get exactly 0; 1 and 2
 * threads agree bitwise. */
static double brute(const struct sph_solver *S, size_t i, const double *ox,
                    const double *ov, size_t m) {
  const struct sph_kernel *k = &S->kw;
  const double *x = S->x + SPH_XS * i;
  double sum = 0.0;
  for (size_t j = 0; j < m; j++) {
    double d0 = ox[3 * j] - x[0], d1 = ox[3 * j + 1] - x[1],
           d2 = ox[3 * j + 2] - x[2], r2 = d0 * d0 + d1 * d1 + d2 * d2;
    if (r2 < k->R2) sum += ov[j] * sph_w_in(k, k->kind, r2);
  }
  return S->P.rho0 * sum;
}

START_TEST(others_grid_matches_the_plain_sum) {
  const double lo[3] = {-INFINITY, -INFINITY, -INFINITY},
               hi[3] = {INFINITY, INFINITY, INFINITY}, s = 0.01;
  struct sph_solver S;
  make(&S, 42, 42, 42, s, lo, hi, NULL); /* 74088 > SPH_FLAT_MIN */
  S.rho_others = calloc(S.n, sizeof *S.rho_others);
  double *one = calloc(S.n, sizeof *one);
  enum { M = 600 };
  static double ox[3 * M], ov[M];
  uint64_t r = 12345;
  for (int pass = 0; pass < 2; pass++) {
    /* pass 0: 600 others in [0.1, 0.2]^3; pass 1: 60 over [-20, 20]^3,
     * five of them in the fluid */
    size_t m = pass ? 60 : M;
    double a = pass ? -20.0 : 0.1, w = pass ? 40.0 : 0.1;
    for (size_t j = 0; j < 3 * m; j++) {
      r = r * 6364136223846793005ull + 1442695040888963407ull;
      ox[j] = a + w * (double)(r >> 11) / 9007199254740992.0;
    }
    if (pass) /* five of the scatter inside the fluid */
      for (size_t j = 0; j < 15; j++) ox[j] = 0.1 + 0.005 * (j * 7 % 40);
    for (size_t j = 0; j < m; j++) ov[j] = s * s * s * (0.5 + 0.001 * j);
    S.threads = 1;
    ck_assert_int_eq(sph_others_density(&S, ox, ov, m), MS_OK);
    memcpy(one, S.rho_others, S.n * sizeof *one);
    S.threads = 2;
    ck_assert_int_eq(sph_others_density(&S, ox, ov, m), MS_OK);
    ck_assert(!memcmp(one, S.rho_others, S.n * sizeof *one));
    size_t touched = 0;
    for (size_t i = 0; i < S.n; i++) {
      double b = brute(&S, i, ox, ov, m);
      if (b == 0.0) {
        ck_assert_msg(one[i] == 0.0, "pass %d, particle %zu: %g, none near",
                      pass, i, one[i]);
        continue;
      }
      touched++;
      ck_assert_msg(fabs(one[i] - b) <= 1e-12 * b, "pass %d, particle %zu: "
                    "%.17g against %.17g", pass, i, one[i], b);
    }
    size_t want = pass ? 100 : 1500; /* 2086 of the lattice near the cluster */
    ck_assert_uint_ge(touched, want);
  }
  /* a position that is not finite is refused */
  ox[4] = NAN;
  ck_assert_int_eq(sph_others_density(&S, ox, ov, 10), MS_ENUMERIC);
  free(one);
  drop(&S);
}
END_TEST

/* Stage 2 after a rewind computes the forces only of particles whose
 * velocity, or a neighbour's, differs from stage 1's (a new meta-particle
 * at one corner of a 10^3 lattice): the step ends bitwise where a solver
 * that integrates only stage 2's inputs ends, the far particles keep
 * their force, and the same inputs again keep every one. */
START_TEST(stage_two_computes_only_what_changed) {
  const double g[3] = {0.0, -9.81, 0.0};
  struct sph_solver S, R;
  stirred_pair(&S, &R, 10, g);
  const size_t n = S.n, nx = SPH_XS * n * sizeof(double),
               nv = 3 * n * sizeof(double);
  /* stage 1: particles 0, 1; stage 2 adds 10 (a lattice neighbour) */
  const uint32_t off1[2] = {0, 2}, mem1[2] = {0, 1};
  const uint32_t off2[2] = {0, 3}, mem2[3] = {0, 1, 10};
  const double m1[1] = {2 * S.P.mass + 0.5}, own1[1] = {2 * S.P.mass};
  const double m2[1] = {3 * S.P.mass + 0.5}, own2[1] = {3 * S.P.mass};
  const double vel[3] = {0.3, -0.2, 0.1}, pos[3] = {0};
  struct ms_metas M1 = {sizeof M1, 1, off1, mem1, m1, own1, pos, vel, NULL};
  struct ms_metas M2 = {sizeof M2, 1, off2, mem2, m2, own2, pos, vel, NULL};
  double rv[3], rd[3], qv[3], qd[3];
  uint8_t rc[1] = {0}, qc[1] = {0};
  struct ms_meta_result res = {sizeof res, 1, rv, rd, rc};
  struct ms_meta_result req = {sizeof req, 1, qv, qd, qc};
  const double dt = 1e-4;
  for (int step = 0; step < 3; step++) {
    double t = step * dt;
    sph_begin(&S), sph_begin(&R);
    ck_assert_int_eq(sph_integrate(&S, t, dt, NULL, &M1, &res), MS_OK);
    ck_assert(S.kept.kept == 0); /* stage 1 computes every force */
    sph_rewind(&S);
    ck_assert_int_eq(sph_integrate(&S, t, dt, NULL, &M2, &res), MS_OK);
    uint64_t kept = S.kept.kept;
    ck_assert_int_eq(sph_integrate(&R, t, dt, NULL, &M2, &req), MS_OK);
    ck_assert(!memcmp(S.x, R.x, nx) && !memcmp(S.v, R.v, nv));
    ck_assert(!memcmp(rv, qv, sizeof rv) && !memcmp(rd, qd, sizeof rd));
    ck_assert(S.amax == R.amax && S.clamps == R.clamps);
    /* the neighbours of 0, 1 and 10 are computed, the far ones kept */
    ck_assert_uint_gt(kept, n / 2);
    ck_assert_uint_lt(kept, n);
    /* the same inputs again: every force kept, the same end */
    sph_rewind(&S);
    ck_assert_int_eq(sph_integrate(&S, t, dt, NULL, &M2, &res), MS_OK);
    ck_assert_uint_eq(S.kept.kept - kept, n);
    ck_assert(!memcmp(S.x, R.x, nx) && !memcmp(S.v, R.v, nv));
    S.kept.kept = 0;
  }
  drop(&S);
  drop(&R);
}
END_TEST

/* A stage integrated again after rewind with the inputs of the last (no
 * meta-particle, no external force, the same t and dt) is put back where
 * that one ended, bitwise, without integrating again; other inputs, or a
 * new step, integrate anew, as a second solver that never rewinds does. */
START_TEST(stage_two_alone_replays_stage_one) {
  const double g[3] = {0.0, -9.81, 0.0};
  struct sph_solver S, R;
  stirred_pair(&S, &R, 6, g);
  const size_t nx = SPH_XS * S.n * sizeof(double), nv = 3 * S.n * sizeof(double);
  const double dt = 1e-4;
  for (int step = 0; step < 3; step++) {
    double t = step * dt;
    sph_begin(&S), sph_begin(&R);
    ck_assert_int_eq(sph_integrate(&S, t, dt, NULL, NULL, NULL), MS_OK);
    ck_assert_int_eq(sph_integrate(&R, t, dt, NULL, NULL, NULL), MS_OK);
    double spent = S.time[SPH_T_FORCES];
    sph_rewind(&S);
    ck_assert_int_eq(sph_integrate(&S, t, dt, NULL, NULL, NULL), MS_OK);
    ck_assert(S.time[SPH_T_FORCES] == spent); /* put back, not integrated */
    ck_assert(!memcmp(S.x, R.x, nx) && !memcmp(S.v, R.v, nv));
    ck_assert(S.amax == R.amax && S.clamps == R.clamps);
    /* another dt integrates anew, and is the step a fresh solver makes */
    sph_rewind(&S);
    ck_assert_int_eq(sph_integrate(&S, t, 0.5 * dt, NULL, NULL, NULL), MS_OK);
    ck_assert(S.time[SPH_T_FORCES] > spent);
    ck_assert(memcmp(S.x, R.x, nx) != 0);
    /* back to dt: the kept end is the 0.5 dt stage's now, not dt's */
    sph_rewind(&S);
    spent = S.time[SPH_T_FORCES];
    ck_assert_int_eq(sph_integrate(&S, t, dt, NULL, NULL, NULL), MS_OK);
    ck_assert(S.time[SPH_T_FORCES] > spent);
    ck_assert(!memcmp(S.x, R.x, nx) && !memcmp(S.v, R.v, nv));
    ck_assert(sph_prepare(&S) == MS_OK && sph_prepare(&R) == MS_OK);
  }
  /* an external force is no replay: the force acts */
  double *f = calloc(3 * S.n, sizeof *f);
  for (size_t i = 0; i < S.n; i++) f[3 * i] = 1.0;
  sph_begin(&S);
  ck_assert_int_eq(sph_integrate(&S, 3 * dt, dt, NULL, NULL, NULL), MS_OK);
  double vx = S.v[0];
  sph_rewind(&S);
  ck_assert_int_eq(sph_integrate(&S, 3 * dt, dt, f, NULL, NULL), MS_OK);
  ck_assert_double_eq_tol(S.v[0] - vx, dt * 1.0 / S.P.mass, 1e-12);
  free(f);
  drop(&S);
  drop(&R);
}
END_TEST

/* A step on the fluid alone ends with the density at its end, which the
 * energy limit (end_step) and the next step need: the same numbers,
 * bitwise, as taking it afterwards (what end_step does when it reorders
 * the particles first).  A rewind then has no lists of the step's start
 * (they are cut again, from the same search), and a replay puts back the
 * end's lists with the end.  An end that needs a new neighbour search
 * leaves the pass to end_step. */
/* A step with meta-particles ends with at most the energy it began with,
 * each meta-particle one particle of its whole mass (energy.c), and the
 * momentum it hands the core (free particles' and the meta-particles')
 * is that of the step without the limit.  Without the limit the same
 * steps gain energy: the stirred block's symplectic steps do. */
static void mark_members(struct sph_solver *S, const struct ms_metas *M,
                         int32_t on) {
  for (uint32_t k = 0; k < M->count; k++)
    for (uint32_t q = M->member_offset[k]; q < M->member_offset[k + 1]; q++)
      S->meta[M->member[q]] = on ? (int32_t)k : -1;
}

static void momentum_with_metas(const struct sph_solver *S,
                                const struct ms_metas *M, const double *V,
                                double *P) {
  P[0] = P[1] = P[2] = 0.0;
  for (size_t i = 0; i < S->n; i++)
    if (S->meta[i] < 0)
      for (int a = 0; a < 3; a++) P[a] += S->m[i] * S->v[3 * i + a];
  for (uint32_t k = 0; k < M->count; k++)
    for (int a = 0; a < 3; a++) P[a] += M->mass[k] * V[3 * k + a];
}

START_TEST(step_with_metas_keeps_its_energy) {
  const double g[3] = {0.0, 0.0, 0.0};
  struct sph_solver S, R;
  stirred_pair(&S, &R, 6, g);
  S.P.energy_limit = S.P.energy_limit_metas = 1, R.P.energy_limit = 0;
  S.P.skin = R.P.skin = 0.2;
  S.lists_ok = R.lists_ok = S.fresh = R.fresh = 0;
  for (size_t i = 0; i < S.n; i++) { /* stirred hard: pressure works */
    S.m[i] = R.m[i] = S.P.mass; /* as the plugin sets them */
    for (int a = 0; a < 3; a++)
      S.v[3 * i + a] = R.v[3 * i + a] = 3.0 * sin(1.0 + i + 7.0 * a);
  }
  /* a heavy foreign body on two members, a light one on one */
  const uint32_t off[3] = {0, 2, 3}, mem[3] = {0, 1, 100};
  const double mass[2] = {2 * S.P.mass + 0.5, S.P.mass + 1e-4};
  const double own[2] = {2 * S.P.mass, S.P.mass}, pos[6] = {0};
  double vel[6] = {0.5, -0.3, 0.2, -1.0, 0.4, 0.1};
  struct ms_metas M = {sizeof M, 2, off, mem, mass, own, pos, vel, NULL};
  double sv[6], sd[6], rv[6], rd[6];
  uint8_t sc[2], rcn[2];
  struct ms_meta_result sr = {sizeof sr, 2, sv, sd, sc};
  struct ms_meta_result rr = {sizeof rr, 2, rv, rd, rcn};
  const double dt = 2e-4;
  double worst = -INFINITY, worst_free = -INFINITY, taken = 0.0;
  for (int step = 0; step < 20; step++) {
    double t = step * dt;
    sc[0] = sc[1] = rcn[0] = rcn[1] = 0;
    sph_begin(&S), sph_begin(&R);
    /* the start as integrate sees it: members at the merged velocity */
    ck_assert_int_eq(sph_prepare(&R), MS_OK);
    mark_members(&R, &M, 1);
    for (uint32_t k = 0; k < 2; k++)
      for (uint32_t q = off[k]; q < off[k + 1]; q++)
        memcpy(R.v + 3 * mem[q], vel + 3 * k, 3 * sizeof(double));
    double r0 = sph_energy_with_metas(&R, &M, vel, NULL), p0[3];
    momentum_with_metas(&R, &M, vel, p0);
    mark_members(&R, &M, 0);
    ck_assert_int_eq(sph_integrate(&S, t, dt, NULL, &M, &sr), MS_OK);
    ck_assert_int_eq(sph_integrate(&R, t, dt, NULL, &M, &rr), MS_OK);
    ck_assert(S.e_start == r0); /* the same start, the same sum */
    if (step % 5 == 0) { /* a stage again: the limit left the start as it
                            was, so it ends the same, forces kept */
      double v1[6], x1[SPH_XS * 216], u1[3 * 216];
      uint64_t kept = S.kept.kept;
      memcpy(v1, sv, sizeof v1);
      memcpy(x1, S.x, sizeof x1), memcpy(u1, S.v, sizeof u1);
      sph_rewind(&S);
      ck_assert_int_eq(sph_integrate(&S, t, dt, NULL, &M, &sr), MS_OK);
      ck_assert(!memcmp(v1, sv, sizeof v1));
      ck_assert(!memcmp(x1, S.x, sizeof x1) && !memcmp(u1, S.v, sizeof u1));
      ck_assert_uint_eq(S.kept.kept - kept, S.n);
    }
    taken += S.limited_metas;
    /* the energies at the step's end, on fresh densities */
    ck_assert_int_eq(sph_prepare(&S), MS_OK);
    ck_assert_int_eq(sph_prepare(&R), MS_OK);
    mark_members(&S, &M, 1), mark_members(&R, &M, 1);
    double es = sph_energy_with_metas(&S, &M, sv, sd);
    double er = sph_energy_with_metas(&R, &M, rv, rd);
    double ps[3];
    momentum_with_metas(&S, &M, sv, ps);
    mark_members(&S, &M, 0), mark_members(&R, &M, 0);
    worst = fmax(worst, (es - r0) / r0);
    worst_free = fmax(worst_free, (er - r0) / r0);
    /* no walls, no gravity: the step keeps the momentum it began with,
     * and the give-back, about the mean velocity, does too */
    for (int a = 0; a < 3; a++)
      ck_assert_msg(fabs(ps[a] - p0[a]) <= 1e-13 * (fabs(p0[a]) + 1.0),
                    "step %d: momentum %.17g, began %.17g", step, ps[a],
                    p0[a]);
    /* the next step starts where this one ended, as after a split that
     * gave every member its meta-particle's velocity */
    memcpy(vel, sv, sizeof vel);
    memcpy(R.v, S.v, 3 * S.n * sizeof *S.v);
    for (size_t i = 0; i < S.n; i++)
      for (int a = 0; a < 3; a++) R.x[SPH_XS * i + a] = S.x[SPH_XS * i + a];
    R.fresh = 0;
  }
  fprintf(stderr, "# step with meta-particles: largest rise %.3g of the "
          "energy with the limit (%.3g J taken), %.3g without\n", worst,
          taken, worst_free);
  ck_assert_msg(worst <= 1e-12, "a step gained %g of its energy", worst);
  ck_assert_msg(worst_free >= 1e-6, "without the limit the largest rise "
                "is %g: the test does not test", worst_free);
  drop(&S);
  drop(&R);
}
END_TEST

START_TEST(alone_step_ends_with_its_density) {
  const double g[3] = {0.0, -9.81, 0.0};
  struct sph_solver S, R;
  stirred_pair(&S, &R, 6, g);
  S.P.energy_limit = R.P.energy_limit = 1; /* the plugin's defaults */
  S.P.skin = R.P.skin = 0.2;
  S.lists_ok = R.lists_ok = S.fresh = R.fresh = 0; /* searched with it */
  R.P.sort_every = 1; /* a reordering at every end_step: left to it */
  const size_t nx = SPH_XS * S.n * sizeof(double), nv = 3 * S.n * sizeof(double);
  const double dt = 4e-4;
  double removed = 0.0;
  int inside = 0, left = 0;
  for (int step = 0; step < 6; step++) {
    double t = step * dt;
    sph_begin(&S), sph_begin(&R);
    ck_assert_int_eq(sph_integrate(&S, t, dt, NULL, NULL, NULL), MS_OK);
    ck_assert_int_eq(sph_integrate(&R, t, dt, NULL, NULL, NULL), MS_OK);
    ck_assert(!R.fresh);
    int made = S.fresh;
    if (made) { /* a rewind cuts the start's lists again; a replay brings
                   the end's back */
      uint64_t built = S.lists;
      sph_rewind(&S);
      ck_assert(!S.fresh);
      ck_assert_int_eq(sph_integrate(&S, t, dt, NULL, NULL, NULL), MS_OK);
      ck_assert(S.fresh && S.lists == built);
    }
    inside += made, left += !made;
    /* end_step: the density (a no-op when integrate made it), the limit */
    ck_assert_int_eq(sph_prepare(&S), MS_OK);
    ck_assert_int_eq(sph_prepare(&R), MS_OK);
    double r = sph_limit_energy(&R, R.e_start);
    ck_assert(sph_limit_energy(&S, S.e_start) == r);
    removed += r;
    ck_assert(!memcmp(S.x, R.x, nx) && !memcmp(S.v, R.v, nv));
    ck_assert(!memcmp(S.rho, R.rho, S.n * sizeof *S.rho));
  }
  ck_assert_msg(removed > 0.0, "the limit never acted (%g J)", removed);
  ck_assert_msg(inside >= 1 && left >= 1, "%d steps ended with their "
                "density, %d left it to end_step", inside, left);
  drop(&S);
  drop(&R);
}
END_TEST

Suite *suite_sph_solver(void) {
  Suite *s = suite_create("sph_solver");
  TCase *t = tcase_create("solver");
  tcase_add_test(t, walls_continue_the_lattice);
  tcase_add_test(t, walls_balance_uniform_pressure);
  tcase_add_test(t, meta_particles_move_as_one);
  tcase_add_test(t, meta_particle_at_wall_is_constrained);
  tcase_add_test(t, wall_tables_match_lattice_sums);
  tcase_add_test(t, kernel_sums_agree_across_instruction_sets);
  tcase_add_test(t, internal_energy_integrates_pressure);
  tcase_add_test(t, others_grid_matches_the_plain_sum);
  tcase_add_test(t, stage_two_alone_replays_stage_one);
  tcase_add_test(t, stage_two_computes_only_what_changed);
  tcase_add_test(t, alone_step_ends_with_its_density);
  tcase_add_test(t, step_with_metas_keeps_its_energy);
  suite_add_tcase(s, t);
  return s;
}
