/* Collision detection benchmark: an n^3 lattice with spacing 0.5 and radius
 * 0.5 (contact distance 1.0, strict <), in lattice and shuffled order, on
 * each thread count asked for.  Prints the pair count, the first (cold)
 * detection and the median of the following ones (warm: the workspace is
 * reused, as in a simulation; the counts take turns), the warm medians of the two phases (grid:
 * planning and the sorted grid; scan: the rounds of the pair search and the
 * copy into the list), the detector's workspace (every work array at its
 * capacity) and the peak resident memory; then the speed-up of each thread
 * count over the first (of the warm medians, and paired: the median over
 * the repeats of each repeat's ratio, the two calls taken one after the
 * other, which a machine whose speed drifts over seconds disturbs least),
 * and what the phases' fit T(p) = serial + parallel/p predicts for more
 * cores.
 *
 *   bench-detect [n [repeats [threads...]]]   (default 100, 7, 1 .. cores) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../../core/detection/detection.h"
#include "../../core/base/base.h"

#define MAX_COUNTS 16

struct figures {
  double cold, warm, best, grid, scan, paired;
  size_t pairs, bytes;
};

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return v[n / 2];
}

/* One detector per thread count, each called once cold, then warm in
 * turns (count after count, repeat after repeat), so that a machine whose
 * speed drifts slows every count alike. */
static void run(size_t N, const double *x, const double *r, const int *counts,
                int nc, int reps, struct figures *f) {
  struct ms__detect d[MAX_COUNTS];
  struct ms__detect_input in = {N, x, r, NULL, NULL, 0.0, 0.0};
  double *t = malloc(3 * (size_t)reps * nc * sizeof *t);
  size_t bad;
  for (int c = 0; c < nc; c++) ms__detect_init(&d[c]);
  for (int k = 0; k < reps; k++)
    for (int c = 0; c < nc; c++) {
      omp_set_num_threads(counts[c]);
      double t0 = ms__now();
      if (ms__detect_pairs(&d[c], &in, &bad)) {
        fprintf(stderr, "bench-detect: detection failed\n");
        exit(1);
      }
      double *tc = t + 3 * (size_t)reps * c;
      tc[k] = ms__now() - t0;
      tc[reps + k] = d[c].time_grid, tc[2 * reps + k] = d[c].time_scan;
    }
  double *ratio = malloc((size_t)reps * sizeof *ratio), paired[MAX_COUNTS];
  if (!ratio) {
    fprintf(stderr, "bench-detect: out of memory\n");
    exit(1);
  }
  for (int c = 0; c < nc; c++) { /* before the medians sort the times */
    const double *tc = t + 3 * (size_t)reps * c;
    for (int k = 1; k < reps; k++) ratio[k] = t[k] / tc[k];
    paired[c] = median(ratio + 1, reps - 1);
  }
  for (int c = 0; c < nc; c++) {
    double *tc = t + 3 * (size_t)reps * c;
    double warm = median(tc + 1, reps - 1); /* sorts them */
    f[c] = (struct figures){tc[0], warm, tc[1],
                            median(tc + reps + 1, reps - 1),
                            median(tc + 2 * reps + 1, reps - 1), paired[c],
                            d[c].npairs, ms__detect_bytes(&d[c])};
    ms__detect_free(&d[c]);
  }
  free(ratio);
  free(t);
}

/* Speed-ups over the first count, and the model fitted on the first and the
 * last count: a phase takes s + w/p on p threads (w: its parallel work on
 * one thread). */
static void summary(const char *label, const int *counts, int nc,
                    const struct figures *f) {
  printf("%-9s speed-up:", label);
  for (int k = 0; k < nc; k++)
    printf("  %d threads %.2fx", counts[k], f[0].warm / f[k].warm);
  printf("\n%-9s paired:  ", label);
  for (int k = 0; k < nc; k++)
    printf("  %d threads %.2fx", counts[k], f[k].paired);
  printf("\n");
  if (nc < 2 || counts[nc - 1] == counts[0]) return;
  double p0 = counts[0], p1 = counts[nc - 1], s = 0.0, w = 0.0;
  const double phase[2][2] = {{f[0].grid, f[nc - 1].grid},
                              {f[0].scan, f[nc - 1].scan}};
  printf("%-9s model:   ", label);
  for (int q = 0; q < 2; q++) { /* t0 = s + w/p0, t1 = s + w/p1 */
    double wq = (phase[q][0] - phase[q][1]) / (1.0 / p0 - 1.0 / p1);
    double sq = phase[q][0] - wq / p0;
    if (sq < 0.0) sq = 0.0, wq = phase[q][0] * p0; /* better than linear */
    printf("  %s %.1f ms serial + %.1f ms / p", q ? "scan" : "grid", 1e3 * sq,
           1e3 * wq);
    s += sq, w += wq;
  }
  printf("\n%-9s predicts:", label);
  for (int p = 4; p <= 16; p *= 2)
    printf("  %d threads %.1fx", p, (s + w) / (s + w / p));
  printf("  (grid + scan over 1 thread; serial share %.1f %%)\n",
         100.0 * s / (s + w));
}

static void bench(const char *label, size_t N, const double *x,
                  const double *r, const int *counts, int nc, int reps) {
  struct figures f[MAX_COUNTS];
  run(N, x, r, counts, nc, reps, f);
  for (int k = 0; k < nc; k++) {
    printf("%-9s threads=%d  pairs=%zu  cold %7.1f ms  warm median %7.1f ms"
           "  (min %.1f; grid %.1f, scan %.1f)  workspace %.1f MiB\n",
           label, counts[k], f[k].pairs, 1e3 * f[k].cold, 1e3 * f[k].warm,
           1e3 * f[k].best, 1e3 * f[k].grid, 1e3 * f[k].scan,
           f[k].bytes / 1048576.0);
  }
  summary(label, counts, nc, f);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100, reps = argc > 2 ? atoi(argv[2]) : 7;
  int counts[MAX_COUNTS], nc = 0;
  for (int k = 3; k < argc && nc < MAX_COUNTS; k++)
    if ((counts[nc++] = atoi(argv[k])) < 1) nc = -MAX_COUNTS;
  if (n < 2 || reps < 2 || nc < 0 || argc > 3 + MAX_COUNTS) {
    fprintf(stderr, "usage: bench-detect [n >= 2 [repeats >= 2 "
                    "[threads >= 1 ...]]] (at most %d counts)\n", MAX_COUNTS);
    return 2;
  }
  for (int p = 1; nc == 0 && p <= omp_get_num_procs(); p++) counts[p - 1] = p;
  if (nc == 0) nc = omp_get_num_procs() < MAX_COUNTS ? omp_get_num_procs()
                                                     : MAX_COUNTS;
  size_t N = (size_t)n * n * n;
  double *x = malloc(3 * N * sizeof *x), *r = malloc(N * sizeof *r);
  size_t k = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int l = 0; l < n; l++, k++) {
        x[3 * k] = 0.5 * i, x[3 * k + 1] = 0.5 * j, x[3 * k + 2] = 0.5 * l;
        r[k] = 0.5;
      }
  printf("detection on a %d^3 lattice (%zu particles), spacing 0.5, radius "
         "0.5, contact distance 1.0 (strict <)\n", n, N);
  bench("lattice", N, x, r, counts, nc, reps);
  struct ms__rng g;
  ms__rng_seed(&g, 12345, 0, 0);
  for (size_t i = N - 1; i > 0; i--) { /* Fisher-Yates */
    size_t j = (size_t)ms__rng_range(&g, 0, i);
    for (int a = 0; a < 3; a++) {
      double tmp = x[3 * i + a];
      x[3 * i + a] = x[3 * j + a];
      x[3 * j + a] = tmp;
    }
  }
  bench("shuffled", N, x, r, counts, nc, reps);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("input %.1f MiB, peak resident %.1f MiB (the input and one "
         "detector per thread count)\n",
         (double)N * 32 / 1048576.0, ru.ru_maxrss / 1024.0);
  free(x);
  free(r);
  return 0;
}
