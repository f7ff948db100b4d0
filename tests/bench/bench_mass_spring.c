/* mass_spring benchmark: an n x n cloth (1 m, pinned at two corners, the
 * stiffness of configs/cloth_swing.cfg), backward Euler, dt = 1/600 s.
 *
 * 1. For 1 and 2 threads (OpenMP and OpenBLAS both), the time per step
 *    split into forces + assembly, analysis (done once, on the first
 *    step), factorisation and solve, against a bare CHOLMOD factor + solve
 *    of the step's own matrix (CHOLMOD's default analysis, done once),
 *    timed right after each step so both see the same machine load: the
 *    ratio step / bare.  Wall-clock medians and minima, and the process
 *    CPU time (getrusage).
 * 2. When meta-particles change the node pattern every step (a pair of
 *    particles merged, a different pair each step): CHOLMOD re-analysing
 *    (the particle graph's order reused, or a fresh analysis), the
 *    matrix-free PCG, and the default policy (auto).
 *
 *   bench-mass-spring [n ...] [-s steps]       (default 100 300, 10) */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <suitesparse/cholmod.h>

#include <mergesplit/core.h>

#include "../../plugins/common/cholmod_serial.h"
#include "../../plugins/mass_spring/mass_spring.h"

#ifndef MSI_CLOCK
#define MSI_CLOCK CLOCK_MONOTONIC
#endif

static double now(void) {
  struct timespec t;
  clock_gettime(MSI_CLOCK, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec +
         (double)u.ru_stime.tv_sec + 1e-6 * (double)u.ru_stime.tv_usec;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, cmp_d);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static void set_blas_threads(int n) {
  void *f = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
  if (f) {
    void (*set)(int);
    memcpy(&set, &f, sizeof set);
    set(n);
  }
}

static void build(struct mss_model *M, uint32_t n, int solver, int ordering,
                  int threads) {
  static const double corner[3] = {-0.5, 1.5, -0.5}, eu[3] = {1.0, 0.0, 0.0},
                      ev[3] = {0.0, 0.0, 1.0};
  memset(M, 0, sizeof *M);
  if (mss_model_alloc(M, (size_t)n * n) ||
      mss_cloth_build(M, corner, eu, ev, n, n, 2000.0, 500.0, 20.0, 0.5)) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  for (size_t i = 0; i < M->n; i++) M->m[i] = 0.3 / (double)M->n;
  for (size_t i = 0; i < M->n; i++) M->r[i] = 0.5 / (n - 1);
  mss_cloth_pin_corner(M, 0, 0);
  mss_cloth_pin_corner(M, 1, 0);
  M->gravity[1] = -9.81;
  for (int a = 0; a < 3; a++) M->lo[a] = -INFINITY, M->hi[a] = INFINITY;
  M->mass_damping = 0.2;
  M->integrator = MSS_BACKWARD_EULER;
  M->opt.linear_solver = solver;
  M->opt.ordering = ordering;
  M->opt.pcg_tolerance = 1e-8;
  M->opt.pcg_max_iterations = 100000;
  M->opt.threads = threads;
  mss_model_finish(M);
}

/* Medians per step [s]; with `bare`, also the minima and the bare
 * factor + solve. */
struct run {
  double step, cpu, forces, assembly, analysis, factor, solve, iterations;
  double first_analysis, lnz, flops;
  double step_min, bare, bare_min, bare_cpu, bare_lnz, bare_flops;
  uint64_t analyses, pcg_solves;
};

/* A bare CHOLMOD factorisation of the step's own matrix: CHOLMOD's
 * default analysis, done once outside the timing. */
struct bare {
  cholmod_common cc;
  cholmod_factor *L;
  cholmod_dense *B, *X, *Y, *E;
};

static void bare_time(struct bare *b, cholmod_sparse *A, double *wall,
                      double *cput) {
  if (!b->L) {
    b->L = cholmod_l_analyze(A, &b->cc);
    b->B = cholmod_l_ones(A->nrow, 1, CHOLMOD_REAL, &b->cc);
  }
  double t0 = now(), c0 = cpu();
  int levels = msi_cholmod_serial_begin(); /* as the plugins factorise */
  cholmod_l_factorize(A, b->L, &b->cc);
  msi_cholmod_serial_end(levels);
  cholmod_l_solve2(CHOLMOD_A, b->L, b->B, NULL, &b->X, NULL, &b->Y, &b->E,
                   &b->cc);
  *wall = now() - t0, *cput = cpu() - c0;
}

static double minimum(const double *t, int n) {
  double m = t[0];
  for (int i = 1; i < n; i++) m = fmin(m, t[i]);
  return m;
}

/* One step's meta-particle: particles k and k + 1 of the middle row. */
struct pair_meta {
  uint32_t off[2], mem[2];
  double mass, own, pos[3], vel[3], rv[3], rd[3];
  uint8_t con;
  struct ms_metas m;
  struct ms_meta_result r;
};

static void pair_meta(struct pair_meta *q, const struct mss_model *M,
                      uint32_t n, int s) {
  uint32_t a = (n / 2) * n + 2 + (uint32_t)s % (n - 4);
  q->off[0] = 0, q->off[1] = 2, q->mem[0] = a, q->mem[1] = a + 1;
  q->own = M->m[a] + M->m[a + 1], q->mass = 2.0 * q->own;
  for (int k = 0; k < 3; k++) {
    q->pos[k] = 0.5 * (M->x[3 * a + k] + M->x[3 * a + 3 + k]);
    q->vel[k] = 0.5 * (M->v[3 * a + k] + M->v[3 * a + 3 + k]);
  }
  q->m = (struct ms_metas){.struct_size = sizeof q->m, .count = 1,
                           .member_offset = q->off, .member = q->mem,
                           .mass = &q->mass, .own_mass = &q->own,
                           .position = q->pos, .velocity = q->vel};
  q->r = (struct ms_meta_result){sizeof q->r, 1, q->rv, q->rd, &q->con};
}

/* One warm-up step, then `steps` steps. */
static void run_steps(uint32_t n, int threads, int solver, int ordering,
                      int moving, int steps, struct run *R, int with_bare) {
  struct mss_model M;
  struct mss_work W;
  struct pair_meta q;
  struct bare b_;
  double *t[10];
  for (int k = 0; k < 10; k++) t[k] = calloc((size_t)steps, sizeof(double));
  memset(&b_, 0, sizeof b_);
  if (with_bare) {
    cholmod_l_start(&b_.cc);
    b_.cc.print = 0;
  }
  build(&M, n, solver, ordering, threads);
  mss_work_init(&W);
  memset(R, 0, sizeof *R);
  for (int s = -1; s < steps; s++) {
    struct msi_stats a = W.solver ? *msi_solver_stats(W.solver)
                                  : (struct msi_stats){0};
    if (moving) pair_meta(&q, &M, n, s + 1);
    double t0 = now(), c0 = cpu();
    if (mss_step(&M, &W, 1.0 / 600.0, NULL, moving ? &q.m : NULL,
                 moving ? &q.r : NULL)) {
      fprintf(stderr, "step failed: %s\n", W.error);
      exit(1);
    }
    double t1 = now(), c1 = cpu();
    const struct msi_stats *b = msi_solver_stats(W.solver);
    if (s < 0) {
      R->first_analysis = b->t_analysis;
      continue;
    }
    t[0][s] = t1 - t0, t[1][s] = c1 - c0;
    t[2][s] = b->t_eval - a.t_eval, t[3][s] = b->t_assembly - a.t_assembly;
    t[4][s] = b->t_analysis - a.t_analysis;
    t[5][s] = b->t_factor - a.t_factor, t[6][s] = b->t_solve - a.t_solve;
    t[7][s] = (double)(b->pcg_iterations - a.pcg_iterations);
    if (with_bare) /* interleaved: both see the same machine load */
      bare_time(&b_, (cholmod_sparse *)msi_solver_matrix(W.solver),
                &t[8][s], &t[9][s]);
  }
  const struct msi_stats *b = msi_solver_stats(W.solver);
  R->analyses = b->analyses, R->pcg_solves = b->pcg_solves;
  R->lnz = b->lnz, R->flops = b->flops;
  R->step_min = minimum(t[0], steps);
  if (with_bare) {
    R->bare_min = minimum(t[8], steps);
    R->bare = median(t[8], steps), R->bare_cpu = median(t[9], steps);
    R->bare_lnz = b_.cc.lnz, R->bare_flops = b_.cc.fl;
  }
  R->step = median(t[0], steps), R->cpu = median(t[1], steps);
  R->forces = median(t[2], steps), R->assembly = median(t[3], steps);
  R->analysis = median(t[4], steps), R->factor = median(t[5], steps);
  R->solve = median(t[6], steps), R->iterations = median(t[7], steps);
  if (with_bare) {
    cholmod_l_free_factor(&b_.L, &b_.cc);
    cholmod_l_free_dense(&b_.B, &b_.cc), cholmod_l_free_dense(&b_.X, &b_.cc);
    cholmod_l_free_dense(&b_.Y, &b_.cc), cholmod_l_free_dense(&b_.E, &b_.cc);
    cholmod_l_finish(&b_.cc);
  }
  for (int k = 0; k < 10; k++) free(t[k]);
  mss_work_free(&W);
  mss_model_free(&M);
}

static void bench(uint32_t n, int steps) {
  struct run R;
  printf("\n%u x %u cloth: %u particles, %u unknowns; %d steps, ms "
         "(median, min)\n", n, n, n * n, 3 * (n * n - 2), steps);
  printf("threads  step (min)         forces+asm  analysis  factor   solve |"
         " bare f+s (min)      step/bare (min) | CPU: step   bare  ratio\n");
  for (int th = 1; th <= 2; th++) {
    set_blas_threads(th);
    run_steps(n, th, MSI_CHOLMOD, MSI_ORDER_REUSE, 0, steps, &R, 1);
    printf("%7d %8.2f (%8.2f) %9.2f %9.2f %7.2f %7.2f | %8.2f (%8.2f) "
           "%7.3f (%5.3f) | %8.2f %6.2f %6.3f\n", th, 1e3 * R.step,
           1e3 * R.step_min, 1e3 * (R.forces + R.assembly), 1e3 * R.analysis,
           1e3 * R.factor, 1e3 * R.solve, 1e3 * R.bare, 1e3 * R.bare_min,
           R.step / R.bare, R.step_min / R.bare_min, 1e3 * R.cpu,
           1e3 * R.bare_cpu, R.cpu / R.bare_cpu);
    printf("        first step: analysis %.2f ms; L: %.4g nonzeros, %.4g "
           "flops (bare: %.4g, %.4g); %llu analysis in all\n",
           1e3 * R.first_analysis, R.lnz, R.flops, R.bare_lnz, R.bare_flops,
           (unsigned long long)R.analyses);
  }
  int th = 1;
  set_blas_threads(th);
  printf("node pattern changing every step (%d thread), per step:\n", th);
  run_steps(n, th, MSI_CHOLMOD, MSI_ORDER_REUSE, 1, steps, &R, 0);
  printf("  CHOLMOD, re-analysed (order reused)  %8.2f ms (analysis %.2f, "
         "factor %.2f, solve %.2f)\n", 1e3 * R.step, 1e3 * R.analysis,
         1e3 * R.factor, 1e3 * R.solve);
  run_steps(n, th, MSI_CHOLMOD, MSI_ORDER_FRESH, 1, steps, &R, 0);
  printf("  CHOLMOD, analysed from scratch       %8.2f ms (analysis %.2f)\n",
         1e3 * R.step, 1e3 * R.analysis);
  run_steps(n, th, MSI_PCG, MSI_ORDER_REUSE, 1, steps, &R, 0);
  printf("  PCG, block Jacobi, 1e-8              %8.2f ms (%.0f iterations)"
         "\n", 1e3 * R.step, R.iterations);
  run_steps(n, th, MSI_AUTO, MSI_ORDER_REUSE, 1, steps, &R, 0);
  printf("  auto (the default)                   %8.2f ms (%llu of %d "
         "solves by PCG)\n", 1e3 * R.step, (unsigned long long)R.pcg_solves,
         steps + 1);
}

int main(int argc, char **argv) {
  uint32_t sizes[16];
  int ns = 0, steps = 10;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-s") && i + 1 < argc) steps = atoi(argv[++i]);
    else if (ns < 16) sizes[ns++] = (uint32_t)atoi(argv[i]);
  }
  if (!ns) sizes[ns++] = 100, sizes[ns++] = 300;
  for (int i = 0; i < ns; i++)
    if (sizes[i] < 8 || sizes[i] > 2000 || steps < 1) {
      fprintf(stderr, "usage: bench-mass-spring [n in 8..2000 ...] "
              "[-s steps >= 1]\n");
      return 2;
    }
  int ob;
  double load[3];
  setvbuf(stdout, NULL, _IOLBF, 0); /* progress shows when redirected */
  printf("BLAS under CHOLMOD: %s\n", ms_blas_info(&ob));
  if (getloadavg(load, 3) == 3)
    printf("load average at the start: %.2f %.2f %.2f\n", load[0], load[1],
           load[2]);
  for (int i = 0; i < ns; i++) bench(sizes[i], steps);
  if (getloadavg(load, 3) == 3)
    printf("\nload average at the end: %.2f %.2f %.2f", load[0], load[1],
           load[2]);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("\npeak resident memory %.1f MiB\n", ru.ru_maxrss / 1024.0);
  return 0;
}
