/* SPH benchmark: a dam break (a water block of 1 x 2 x 1 units at one end
 * of a tank 4 x 2.5 x 1 units), cubic spline, support 2 spacings.  For
 * each size, the first steps of the break on 1 and 2 threads: ms per step
 * in each pass (neighbour search through the host's service, density,
 * forces, integration), the 2-thread speed-up, the density pass again
 * with the particles in sampling order and shuffled (what the plugin's
 * cell ordering buys), and memory per particle.
 *
 *   bench-sph [particles ...] [-s steps] [-k kernel]
 *                          (default 100000 1000000, 5 steps, cubic_spline) */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../../core/detection/detection.h"
#include "../../plugins/sph/sph.h"

static int nb_core(void *opaque, const double *xyz, size_t stride,
                   size_t count, double radius, struct ms_neighbors *nb) {
  (void)opaque;
  return ms__neighbors_build(xyz, stride, count, radius, nb);
}

/* A dam-break solver with about `target` particles (unsorted). */
static int kernel = SPH_CUBIC_SPLINE;

static void setup(struct sph_solver *S, size_t target) {
  memset(S, 0, sizeof *S);
  struct sph_params *P = &S->P;
  const double L = 0.4; /* block 0.4 x 0.8 x 0.4 m */
  double s = cbrt(2.0 * L * L * L / (double)target);
  int nx = (int)floor(L / s + 1e-9), ny = 2 * nx, nz = nx;
  s = L / nx;
  P->spacing = s, P->h = s, P->rho0 = 1000.0, P->mass = 0.0; /* lattice */
  P->radius = 0.5 * s, P->gamma = 7.0, P->alpha = 0.1, P->cfl = 0.4;
  P->force_cfl = 0.25, P->kernel = kernel;
  P->grad_kernel = kernel == SPH_POLY6 ? SPH_SPIKY : kernel;
  P->clamp_pressure = 1, P->sort_every = 0, P->skin = 0.2;
  P->gravity[1] = -9.81;
  P->hi[0] = 4.0 * L, P->hi[1] = 2.5 * L, P->hi[2] = L;
  P->c = 10.0 * sqrt(2.0 * 9.81 * 2.0 * L);
  S->neighbors = nb_core;
  sph_init_constants(S);
  if (sph_alloc(S, (size_t)nx * ny * nz)) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  size_t q = 0;
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++)
      for (int k = 0; k < nz; k++, q++) {
        S->x[SPH_XS * q] = (i + 0.5) * s;
        S->x[SPH_XS * q + 1] = (j + 0.5) * s;
        S->x[SPH_XS * q + 2] = (k + 0.5) * s;
      }
}

static void step(struct sph_solver *S, double *t) {
  double dt = sph_max_dt(S);
  sph_begin(S);
  if (sph_integrate(S, *t, dt, NULL, NULL, NULL)) {
    fprintf(stderr, "neighbour search failed\n");
    exit(1);
  }
  *t += dt;
  S->steps++;
  if (sph_prepare(S)) { /* end of step: density at the new positions */
    fprintf(stderr, "neighbour search failed\n");
    exit(1);
  }
}

/* ms per step of each pass over `steps` steps on `threads` threads. */
static void run(struct sph_solver *S, int threads, int steps, double *t,
                double ms[SPH_T_COUNT]) {
  double t0[SPH_T_COUNT];
  S->threads = threads;
  omp_set_num_threads(threads);
  memcpy(t0, S->time, sizeof t0);
  for (int k = 0; k < steps; k++) step(S, t);
  for (int p = 0; p < SPH_T_COUNT; p++)
    ms[p] = 1e3 * (S->time[p] - t0[p]) / steps;
}

static double thread_cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The density pass alone, best of `reps` [ms]; *cpu: the calling
 * thread's CPU time in the best one (on 1 thread, the pass's work even
 * when the machine is shared). */
static double density_ms(struct sph_solver *S, int threads, int reps,
                         double *cpu) {
  double best = INFINITY;
  S->threads = threads;
  omp_set_num_threads(threads);
  S->fresh = 0;
  if (sph_prepare(S)) exit(1); /* the lists */
  for (int k = 0; k < reps; k++) {
    double d0 = S->time[SPH_T_DENSITY], c0 = thread_cpu();
    sph_density(S);
    double ms = 1e3 * (S->time[SPH_T_DENSITY] - d0);
    if (ms < best) {
      best = ms;
      if (cpu) *cpu = 1e3 * (thread_cpu() - c0);
    }
  }
  return best;
}

static void shuffle(struct sph_solver *S) {
  uint64_t z = 88172645463325252ULL;
  for (size_t i = S->n - 1; i > 0; i--) {
    z ^= z << 13, z ^= z >> 7, z ^= z << 17;
    size_t j = (size_t)(z % (i + 1));
    for (int c = 0; c < SPH_XS; c++) {
      double a = S->x[SPH_XS * i + c];
      S->x[SPH_XS * i + c] = S->x[SPH_XS * j + c];
      S->x[SPH_XS * j + c] = a;
    }
  }
}

static void bench(size_t target, int steps) {
  static const char *const names[SPH_T_COUNT] = {
      "neighbours", "density", "forces", "integration", "reorder"};
  (void)names[SPH_T_SORT];
  struct sph_solver S;
  double t = 0.0, ms[2][SPH_T_COUNT];
  setup(&S, target);
  size_t n = S.n;
  printf("\ndam break, %zu particles (spacing %.4g m), %s kernel, support "
         "%.4g m\n", n, S.P.spacing, sph_kernel_name(S.kw.kind), S.kw.R);
  /* in sampling order, then in the plugin's order of cells (sorted once) */
  double dens_sampling = density_ms(&S, 2, 3, NULL);
  sph_sort(&S);
  run(&S, 2, 2, &t, ms[1]); /* warm-up: first pages, lists sized */
  run(&S, 1, steps, &t, ms[0]);
  run(&S, 2, steps, &t, ms[1]);
  size_t pairs = 0;
  for (size_t i = 0; i < n; i++) pairs += S.lend[i] - S.loff[i];
  double nbmean = (double)pairs / (double)n;
  double cand = (double)S.nbl.offset[n] / (double)n;
  printf("mean neighbours %.1f (searched with skin %.2f R: %.1f), %llu "
         "searches in %llu steps, dt %.3g s, simulated %.4f s\n", nbmean,
         S.P.skin, cand, (unsigned long long)S.searches,
         (unsigned long long)S.steps, sph_max_dt(&S), t);
  printf("%-12s %10s %10s %8s\n", "ms/step", "1 thread", "2 threads",
         "speedup");
  double tot[2] = {0.0, 0.0};
  for (int p = 0; p < SPH_T_SORT; p++) {
    printf("%-12s %10.2f %10.2f %7.2fx\n", names[p], ms[0][p], ms[1][p],
           ms[0][p] / ms[1][p]);
    tot[0] += ms[0][p], tot[1] += ms[1][p];
  }
  printf("%-12s %10.2f %10.2f %7.2fx\n", "total", tot[0], tot[1],
         tot[0] / tot[1]);
  double c1 = 0.0, d1 = density_ms(&S, 1, 5, &c1);
  double d2 = density_ms(&S, 2, 5, NULL);
  printf("density pass alone (best of 5): %.2f ms on 1 thread (CPU %.2f ms: "
         "%.2f ns per neighbour), %.2f ms on 2 threads (%.2fx)\n", d1, c1,
         1e6 * c1 / ((double)n * nbmean), d2, d1 / d2);
  shuffle(&S);
  S.fresh = 0;
  sph_prepare(&S);
  double ds = density_ms(&S, 2, 3, NULL);
  printf("density pass on 2 threads by particle order: cells %.2f ms, "
         "sampling order %.2f ms, shuffled %.2f ms\n", d2, dens_sampling, ds);
  /* x, v, a, m, r, rho, p, pr, x0, v0, walled, xref, starts, ends, id,
   * meta (struct sph_solver) */
  size_t solver = n * (SPH_XS * 8 + 3 * 8 + 3 * 8 + 5 * 8 + 2 * 3 * 8 + 1 +
                       3 * 8 + 4 * 4);
  size_t search = (n + 1) * 4 + (size_t)S.nbl.offset[n] * 4;
  size_t packed = S.ccap * 4;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("memory per particle: solver arrays %.0f B, neighbour lists %.0f B "
         "(the search's, radius R (1 + skin)) + %.0f B (packed, within R), "
         "the host's grid about 44 B; peak resident %.0f B\n",
         (double)solver / n, (double)search / n, (double)packed / n,
         ru.ru_maxrss * 1024.0 / n);
  ms__neighbors_release(&S.nbl);
  sph_free(&S);
}

int main(int argc, char **argv) {
  size_t sizes[16];
  int ns = 0, steps = 5;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-s") && i + 1 < argc)
      steps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-k") && i + 1 < argc)
      kernel = sph_kernel_from_name(argv[++i]);
    else if (ns < 16)
      sizes[ns++] = (size_t)atof(argv[i]);
  }
  if (!ns) sizes[ns++] = 100000, sizes[ns++] = 1000000;
  if (steps < 1 || kernel < 0) {
    fprintf(stderr, "usage: bench-sph [particles ...] [-s steps >= 1] "
            "[-k cubic_spline|poly6|spiky]\n");
    return 2;
  }
  printf("SPH dam break benchmark: %d steps per thread count after 2 "
         "warm-up steps; times from the solver's monotonic clock\n", steps);
  for (int i = 0; i < ns; i++) bench(sizes[i], steps);
  return 0;
}
