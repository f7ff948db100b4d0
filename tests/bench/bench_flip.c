/* Benchmark of the FLIP solver.
 *
 * 1. A dam break (the left half of an N^3 box of unit size filled with
 *    water, 8 jittered particles per fluid cell) stepped a few times on 1
 *    and 2 threads.  Per step, the milliseconds of each phase: transfers
 *    (binning, particle to grid, grid to particle), projection (building
 *    the system, the MIC(0)-PCG solve to 1e-6 with its iterations and time
 *    per iteration, applying the gradient and extrapolating) and advection.
 *    The first solve starts from 0 (cold), later ones from the previous
 *    step's pressure (warm), as in the plugin, unless --cold.  solve-cpu
 *    is the processor time of the solve summed over threads (on a busy
 *    machine wall time exceeds it).
 * 2. The cold solve alone of a 50 %-full box at rest (the left half, or
 *    the lower half: rows of N/2 or N cells), PCG on 1 and 2 threads and,
 *    up to --cholmod-max, CHOLMOD.
 *
 *   bench-flip [N ...] [--steps S] [--threads T] [--cold] [--no-cholmod]
 *              [--cholmod-max N]
 *
 * Defaults: N = 64 128, S = 3, 1 and 2 threads, CHOLMOD up to N = 64.
 * Times come from the monotonic clock, memory from getrusage. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "flip.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU time of the process (all threads), to read the wall times on a
 * shared machine. */
static double cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double uniform(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

struct run {
  struct flip_sim S;
  double *x, *v, *m, *r;
  size_t n;
};

static int cold = 0;

static int setup(struct run *R, int N, int threads) {
  const double lo[3] = {0.0, 0.0, 0.0}, h = 1.0 / N;
  const int n[3] = {N, N, N};
  uint64_t seed = 12345;
  if (flip_sim_init(&R->S, lo, n, h, NULL, 0)) return -1;
  R->S.threads = threads;
  R->S.warm_start = !cold;
  R->n = (size_t)(N / 2) * N * N * 8;
  R->x = malloc(3 * R->n * sizeof(double));
  R->v = calloc(3 * R->n, sizeof(double));
  R->m = malloc(R->n * sizeof(double));
  R->r = malloc(R->n * sizeof(double));
  if (!R->x || !R->v || !R->m || !R->r) return -1;
  size_t p = 0;
  for (int k = 0; k < N; k++)
    for (int j = 0; j < N; j++)
      for (int i = 0; i < N / 2; i++)
        for (int s = 0; s < 8; s++, p++) {
          int ijk[3] = {i, j, k};
          for (int a = 0; a < 3; a++)
            R->x[3 * p + a] = (ijk[a] + ((s >> a) & 1 ? 0.75 : 0.25) +
                               0.125 * (2.0 * uniform(&seed) - 1.0)) * h;
          R->m[p] = 1000.0 * h * h * h / 8.0;
          R->r[p] = 0.25 * h;
        }
  return 0;
}

static void teardown(struct run *R) {
  flip_sim_free(&R->S);
  free(R->x), free(R->v), free(R->m), free(R->r);
}

struct times {
  double bin, p2g, g2p, build, solve, apply, advect, total, solve_cpu;
  struct flip_solve_stats st;
};

static int step(struct run *R, double dt, struct times *T) {
  struct flip_sim *S = &R->S;
  const double g[3] = {0.0, -9.81, 0.0};
  const int th = S->threads;
  double t0 = now();
  if (flip_bins_sort(&S->bins, &S->g, R->x, R->n, th)) return -1;
  flip_mark_reset(&S->g, th);
  flip_mark_bins(&S->g, &S->bins, th);
  double t1 = now();
  flip_p2g(&S->g, &S->bins, R->x, R->v, R->m, NULL, th);
  flip_extrapolate(&S->g, S->layers, th);
  flip_save_old(&S->g, th);
  flip_add_gravity(&S->g, g, dt, th);
  flip_solid_bc(&S->g, th);
  double t2 = now();
  S->solve.threads = th;
  int warm = S->warm_start && S->dt_prev > 0.0;
  S->solve.guess = warm ? S->phi_prev : NULL;
  S->solve.guess_scale = warm ? dt / S->dt_prev : 0.0;
  if (flip_poisson_build(&S->g, &S->poisson, th, &T->st)) return -1;
  double t3 = now(), c3 = cpu();
  if (flip_poisson_solve(&S->poisson, &S->g, &S->solve, &T->st)) return -2;
  double t4 = now();
  T->solve_cpu = cpu() - c3;
  flip_poisson_finish(&S->g, &S->poisson, th);
  memcpy(S->phi_prev, S->poisson.pressure, S->g.ncell * sizeof(double));
  S->dt_prev = dt;
  flip_extrapolate_fluid(&S->g, S->layers, th);
  double t5 = now();
  flip_g2p(&S->g, R->x, R->v, NULL, R->n, 0.97, th);
  double t6 = now();
  flip_advect(&S->g, R->x, R->n, dt, NULL, th);
  flip_push_out(&S->g, NULL, 0, R->x, R->v, R->r, R->n, NULL, th);
  double t7 = now();
  T->bin = t1 - t0, T->p2g = t2 - t1, T->build = t3 - t2;
  T->solve = t4 - t3, T->apply = t5 - t4, T->g2p = t6 - t5;
  T->advect = t7 - t6, T->total = t7 - t0;
  return 0;
}

static void print_step(int N, int threads, int s, const struct times *T) {
  const double ms = 1e3;
  double tr = T->bin + T->p2g + T->g2p, pr = T->build + T->solve + T->apply;
  int it = T->st.iterations;
  printf("%4d %2d %4d | %8.1f (%7.1f %7.1f %7.1f) | %8.1f (%6.1f %8.1f "
         "%5.1f) %4d it %6.2f ms/it %8.1e %8.1f | %7.1f | %8.1f\n",
         N, threads, s, ms * tr, ms * T->bin, ms * T->p2g, ms * T->g2p,
         ms * pr, ms * T->build, ms * T->solve, ms * T->apply, it,
         it ? ms * T->solve / it : 0.0, T->st.residual, ms * T->solve_cpu,
         ms * T->advect, ms * T->total);
}

/* The cold pressure solve to 1e-6 of a 50 %-full N^3 box at rest under
 * gravity (the hydrostatic system of a first step): the left half full
 * (dam: rows of N/2 cells) or the lower half (tank: rows of N cells). */
static void solve_only(int N, int tank, int threads, int method) {
  const double lo[3] = {0.0, 0.0, 0.0}, g[3] = {0.0, -9.81, 0.0};
  const int n[3] = {N, N, N};
  struct flip_sim S;
  struct flip_solve_stats st;
  if (flip_sim_init(&S, lo, n, 1.0 / N, NULL, 0)) {
    printf("%d^3: out of memory\n", N);
    return;
  }
  flip_mark_reset(&S.g, threads);
  for (int k = 0; k < N; k++)
    for (int j = 0; j < N; j++)
      for (int i = 0; i < N; i++)
        if (tank ? j < N / 2 : i < N / 2)
          S.g.cell[flip_cell(&S.g, i, j, k)] = FLIP_FLUID;
  flip_add_gravity(&S.g, g, 0.5 / N / sqrt(9.81), threads);
  flip_solid_bc(&S.g, threads);
  flip_poisson_build(&S.g, &S.poisson, threads, &st);
  S.solve.threads = threads;
  S.solve.method = method;
  double t0 = now(), c0 = cpu();
  int rc = flip_poisson_solve(&S.poisson, &S.g, &S.solve, &st);
  double t = now() - t0, c = cpu() - c0;
  if (rc)
    printf("  %-7s %4d^3 %-4s %d threads: failed (%d)\n",
           method ? "CHOLMOD" : "PCG", N, tank ? "tank" : "dam", threads, rc);
  else
    printf("  %-7s %4d^3 %-4s %d threads: %8zu unknowns %5d it %9.1f ms "
           "(%6.2f ms/it, cpu %9.1f ms) residual %.1e\n",
           method ? "CHOLMOD" : "PCG", N, tank ? "tank" : "dam", threads,
           st.unknowns, st.iterations, 1e3 * t,
           st.iterations ? 1e3 * t / st.iterations : 0.0, 1e3 * c,
           st.residual);
  flip_sim_free(&S);
}

int main(int argc, char **argv) {
  int sizes[8], ns = 0, steps = 3, chol = 1, chol_max = 64, t0 = 1, t1 = 2;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--steps") && i + 1 < argc)
      steps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
      t0 = t1 = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--cold"))
      cold = 1;
    else if (!strcmp(argv[i], "--no-cholmod"))
      chol = 0;
    else if (!strcmp(argv[i], "--cholmod-max") && i + 1 < argc)
      chol_max = atoi(argv[++i]);
    else if (atoi(argv[i]) >= 4 && ns < 8)
      sizes[ns++] = atoi(argv[i]);
    else {
      fprintf(stderr, "usage: %s [N ...] [--steps S] [--threads T] [--cold] "
              "[--no-cholmod] [--cholmod-max N]\n", argv[0]);
      return 2;
    }
  }
  if (!ns) sizes[ns++] = 64, sizes[ns++] = 128;
  if (steps < 1) steps = 1;
  if (t0 < 1) t0 = t1 = 1;
  printf("FLIP dam break, N^3 grid, left half full (8 particles per fluid "
         "cell); times in ms\n");
  printf("   N th step | transfers (bin     p2g     g2p) | projection (build "
         "   solve apply) iterations          residual solve-cpu | advect |"
         "    total\n");
  for (int q = 0; q < ns; q++) {
    int N = sizes[q];
    double dt = 0.5 / N / sqrt(9.81); /* half a cell at the wave speed */
    for (int th = t0; th <= t1; th++) {
      struct run R;
      struct times T;
      memset(&R, 0, sizeof R);
      if (setup(&R, N, th)) {
        printf("%d^3: out of memory\n", N);
        teardown(&R);
        return 1;
      }
      for (int s = 1; s <= steps; s++) {
        int rc = step(&R, dt, &T);
        if (rc) {
          printf("%d^3: step failed (%d)\n", N, rc);
          teardown(&R);
          return 1;
        }
        print_step(N, th, s, &T);
      }
      printf("     %zu particles, %zu fluid cells\n", R.n, T.st.unknowns);
      teardown(&R);
    }
  }
  printf("Cold pressure solve to 1e-6, 50 %% full (dam: left half; tank: "
         "lower half):\n");
  for (int q = 0; q < ns; q++)
    for (int tank = 0; tank < 2; tank++)
      for (int th = t0; th <= t1; th++) solve_only(sizes[q], tank, th, 0);
  for (int q = 0; chol && q < ns; q++)
    if (sizes[q] <= chol_max)
      for (int tank = 0; tank < 2; tank++) solve_only(sizes[q], tank, t1, 1);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("max resident memory: %.0f MB\n", ru.ru_maxrss / 1024.0);
  return 0;
}
