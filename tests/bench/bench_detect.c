/* Collision detection benchmark: an n^3 lattice with spacing 0.5 and radius
 * 0.5 (contact distance 1.0, strict <), in lattice and shuffled order, on 1
 * and 2 threads.  Prints the pair count, the first (cold) detection and the
 * median of the following ones (warm: the workspace is reused, as in a
 * simulation), the workspace size and the peak resident memory.
 *
 *   bench-detect [n] [repeats]          (default 100, 7) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../../core/detection/detection.h"
#include "../../core/base/base.h"

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static size_t workspace_bytes(const struct ms__detect *d) {
  const struct ms__grid *g = &d->grid;
  size_t b = g->cap * (4 * sizeof(double) + 3 * sizeof(uint32_t)) +
             g->cap_cells * sizeof(uint32_t) +
             d->cap_pairs * 2 * sizeof(uint32_t);
  for (int t = 0; t < d->nthreads; t++) b += d->tbuf[t].cap * 2 * sizeof(uint32_t);
  return b;
}

static void run(const char *label, size_t N, const double *x, const double *r,
                int threads, int reps) {
  struct ms__detect d;
  struct ms__detect_input in = {N, x, r, NULL, NULL, 0.0, 0.0};
  double *t = malloc((size_t)reps * sizeof *t);
  size_t bad;
  omp_set_num_threads(threads);
  ms__detect_init(&d);
  for (int k = 0; k < reps; k++) {
    double t0 = ms__now();
    if (ms__detect_pairs(&d, &in, &bad)) {
      fprintf(stderr, "detection failed\n");
      exit(1);
    }
    t[k] = ms__now() - t0;
  }
  double cold = t[0];
  qsort(t + 1, (size_t)reps - 1, sizeof *t, cmp_d);
  printf("%-9s threads=%d  pairs=%zu  cold %7.1f ms  warm median %7.1f ms  "
         "(min %.1f)  workspace %.1f MiB\n",
         label, threads, d.npairs, 1e3 * cold, 1e3 * t[reps / 2],
         1e3 * t[1], workspace_bytes(&d) / 1048576.0);
  ms__detect_free(&d);
  free(t);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100, reps = argc > 2 ? atoi(argv[2]) : 7;
  if (n < 2 || reps < 2) {
    fprintf(stderr, "usage: bench-detect [n >= 2] [repeats >= 2]\n");
    return 2;
  }
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
  run("lattice", N, x, r, 1, reps);
  run("lattice", N, x, r, 2, reps);
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
  run("shuffled", N, x, r, 1, reps);
  run("shuffled", N, x, r, 2, reps);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("input %.1f MiB, peak resident %.1f MiB\n",
         (double)N * 32 / 1048576.0, ru.ru_maxrss / 1024.0);
  free(x);
  free(r);
  return 0;
}
