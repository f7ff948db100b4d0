/* Merge and split cost per particle.  N particles on a lattice (spacing 1,
 * radius 0.45: no contacts), then 10 % of them are moved into approaching
 * contact in pairs and small clusters.  Times the core's phases on one step:
 * detection, classification + grouping + merging, synchronisation +
 * splitting, and reports nanoseconds per particle and per colliding
 * particle.
 *
 *   bench-mergesplit [N] [threads]            (default 1000000, 2) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/detection/detection.h"
#include "../../core/coupling/coupling.h"
#include "../../core/base/base.h"

int main(int argc, char **argv) {
  size_t N = argc > 1 ? (size_t)atol(argv[1]) : 1000000;
  int threads = argc > 2 ? atoi(argv[2]) : 2;
  omp_set_num_threads(threads);
  size_t side = 1;
  while (side * side * side < N) side++;
  struct ms__particles P = {0};
  P.n = N;
  P.x = malloc(3 * N * sizeof(double));
  P.v = calloc(3 * N, sizeof(double));
  P.m = malloc(N * sizeof(double));
  P.r = malloc(N * sizeof(double));
  P.sys = malloc(N * sizeof(uint32_t));
  P.local = malloc(N * sizeof(uint32_t));
  struct ms__rng g;
  ms__rng_seed(&g, 1, 2, 3);
  for (size_t i = 0; i < N; i++) {
    P.x[3 * i] = (double)(i % side);
    P.x[3 * i + 1] = (double)((i / side) % side);
    P.x[3 * i + 2] = (double)(i / (side * side));
    P.m[i] = 1.0 + ms__rng_uniform(&g);
    P.r[i] = 0.45;
    P.sys[i] = (uint32_t)(i % 2); /* two systems, interleaved */
    P.local[i] = (uint32_t)(i / 2);
  }
  /* 10 %: every 20th particle moves onto its +x neighbour (a pair), so
   * 2 of every 20 particles collide, approaching at 1 m/s. */
  size_t colliding = 0;
  for (size_t i = 0; i + 1 < N; i += 20) {
    if ((i + 1) % side == 0) continue;
    P.x[3 * i] += 0.2;
    P.v[3 * i] = 1.0;
    colliding += 2;
  }
  uint8_t self[2] = {1, 1};
  struct ms__detect d;
  ms__detect_init(&d);
  struct ms__detect_input in = {N, P.x, P.r, P.sys, self, 0.0, 0.0};
  struct ms__groups G = {0};
  struct ms__metaset M = {0};
  struct ms__ledger L = {0};
  size_t bad;
  double best[3] = {1e30, 1e30, 1e30};
  uint32_t *appr = malloc(2 * N * sizeof(uint32_t));
  for (int rep = 0; rep < 5; rep++) {
    double t0 = ms__now();
    ms__detect_pairs(&d, &in, &bad);
    double t1 = ms__now();
    size_t na = 0; /* classify: Rule 2 */
    for (size_t k = 0; k < d.npairs; k++) {
      uint32_t i = d.pairs[2 * k], j = d.pairs[2 * k + 1];
      double n[3], dv[3];
      ms__sub(n, P.x + 3 * j, P.x + 3 * i);
      ms__sub(dv, P.v + 3 * j, P.v + 3 * i);
      if (ms__rule_approaching(ms__dot(n, dv), 0.0))
        appr[2 * na] = i, appr[2 * na + 1] = j, na++;
    }
    struct ms__rng rr;
    ms__rng_seed(&rr, 7, (uint64_t)rep, 1);
    ms__group(&G, N, appr, na, 8, 64, 0, &rr);
    ms__metaset_build(&M, &G, &P);
    double t2 = ms__now();
    /* stand-in for the plugins: each system reports the merged velocity */
    for (uint32_t k = 0; k < M.count; k++)
      for (uint32_t e = M.eoff[k]; e < M.eoff[k + 1]; e++) {
        memcpy(M.evel + 3 * e, M.vel + 3 * k, 3 * sizeof(double));
        memset(M.edisp + 3 * e, 0, 3 * sizeof(double));
        M.econ[e] = 0;
      }
    const double g0[3] = {0.0, 0.0, 0.0};
    ms__metaset_sync(&M, MS__SYNC_MOMENTUM, 1e-3, g0, &L);
    ms__metaset_split(&M, 1.0, 1.0, &L);
    double t3 = ms__now();
    best[0] = t1 - t0 < best[0] ? t1 - t0 : best[0];
    best[1] = t2 - t1 < best[1] ? t2 - t1 : best[1];
    best[2] = t3 - t2 < best[2] ? t3 - t2 : best[2];
  }
  printf("N = %zu particles, %zu colliding (%.1f %%), %u meta-particles, "
         "%d threads (best of 5)\n", N, colliding, 100.0 * colliding / N,
         M.count, threads);
  const char *name[3] = {"detection", "merging (classify, group, merge)",
                         "splitting (sync, split)"};
  for (int p = 0; p < 3; p++)
    printf("%-34s %8.2f ms  %7.2f ns/particle  %8.2f ns/colliding particle\n",
           name[p], 1e3 * best[p], 1e9 * best[p] / N,
           1e9 * best[p] / colliding);
  return 0;
}
