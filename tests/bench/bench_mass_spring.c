/* mass_spring benchmark: an n x n cloth (1 m, pinned at two corners,
 * the cloth_swing stiffness) stepped with backward Euler.  For 1 and 2
 * threads (OpenMP and OpenBLAS) it prints the time per step split into
 * force evaluation + assembly, analysis (first step only), factorisation
 * and solve; then a bare CHOLMOD factor + solve of the same matrix (the
 * analysis reused) and the ratio step / bare.  It also compares, per step,
 * re-analysing every time (as when meta-particles change the node pattern)
 * and the matrix-free PCG.
 *
 *   bench-mass-spring [n ...] [-s steps]         (default 100 300, 20) */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <suitesparse/cholmod.h>

#include <mergesplit/core.h>

#include "../../plugins/mass_spring/mass_spring.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
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

static void build(struct mss_model *M, uint32_t n, int integrator,
                  int solver, int factor, int threads) {
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
  M->integrator = integrator;
  M->opt.linear_solver = solver;
  M->opt.factor = factor;
  M->opt.pcg_tolerance = 1e-8;
  M->opt.pcg_max_iterations = 100000;
  M->opt.threads = threads;
  mss_model_finish(M);
}

struct run {
  double step, eval, assembly, analysis, factor, solve; /* medians [s] */
  double first_analysis, bare;
  double pcg_iterations;
};

/* `steps` steps after one warm-up; medians of the per-step figures. */
static void run_steps(uint32_t n, int threads, int solver, int ordering,
                      int reanalyse, int steps, struct run *R,
                      cholmod_sparse **copy, cholmod_common *cc) {
  struct mss_model M;
  struct mss_work W;
  double dt = 1.0 / 600.0;
  double *t[7];
  for (int k = 0; k < 7; k++) t[k] = calloc((size_t)steps, sizeof(double));
  build(&M, n, MSS_BACKWARD_EULER, solver, MSI_FACTOR_AUTO, threads);
  M.opt.reanalyse_always = reanalyse;
  M.opt.ordering = ordering;
  mss_work_init(&W);
  memset(R, 0, sizeof *R);
  for (int s = -1; s < steps; s++) {
    struct msi_stats a = W.solver ? *msi_solver_stats(W.solver)
                                  : (struct msi_stats){0};
    double t0 = now();
    if (mss_step(&M, &W, dt, NULL, NULL, NULL)) {
      fprintf(stderr, "step failed: %s\n", W.error);
      exit(1);
    }
    double t1 = now();
    const struct msi_stats *b = msi_solver_stats(W.solver);
    if (s < 0) {
      R->first_analysis = b->t_analysis;
      continue;
    }
    t[0][s] = t1 - t0;
    t[1][s] = b->t_eval - a.t_eval;
    t[2][s] = b->t_assembly - a.t_assembly;
    t[3][s] = b->t_analysis - a.t_analysis;
    t[4][s] = b->t_factor - a.t_factor;
    t[5][s] = b->t_solve - a.t_solve;
    t[6][s] = (double)(b->pcg_iterations - a.pcg_iterations);
  }
  R->step = median(t[0], steps), R->eval = median(t[1], steps);
  R->assembly = median(t[2], steps), R->analysis = median(t[3], steps);
  R->factor = median(t[4], steps), R->solve = median(t[5], steps);
  R->pcg_iterations = median(t[6], steps);
  if (copy && msi_solver_matrix(W.solver))
    *copy = cholmod_l_copy_sparse((cholmod_sparse *)msi_solver_matrix(
                                      W.solver), cc);
  for (int k = 0; k < 7; k++) free(t[k]);
  mss_work_free(&W);
  mss_model_free(&M);
}

/* A bare CHOLMOD factor + solve of A (analysis done once, outside). */
static double bare(cholmod_sparse *A, int factor, int reps,
                   cholmod_common *cc) {
  cc->supernodal = factor == MSI_FACTOR_SIMPLICIAL ? CHOLMOD_SIMPLICIAL
                   : factor == MSI_FACTOR_SUPERNODAL ? CHOLMOD_SUPERNODAL
                                                    : CHOLMOD_AUTO;
  cholmod_factor *L = cholmod_l_analyze(A, cc);
  cholmod_dense *B = cholmod_l_ones(A->nrow, 1, CHOLMOD_REAL, cc), *X = NULL;
  cholmod_dense *Y = NULL, *E = NULL;
  double *t = calloc((size_t)reps, sizeof *t);
  for (int r = -1; r < reps; r++) {
    double t0 = now();
    cholmod_l_factorize(A, L, cc);
    cholmod_l_solve2(CHOLMOD_A, L, B, NULL, &X, NULL, &Y, &E, cc);
    if (r >= 0) t[r] = now() - t0;
  }
  double m = median(t, reps);
  free(t);
  cholmod_l_free_factor(&L, cc);
  cholmod_l_free_dense(&B, cc), cholmod_l_free_dense(&X, cc);
  cholmod_l_free_dense(&Y, cc), cholmod_l_free_dense(&E, cc);
  return m;
}

static void bench(uint32_t n, int steps) {
  size_t dof = 3 * ((size_t)n * n - 2);
  printf("\n%u x %u cloth: %zu particles, %zu unknowns, backward Euler, "
         "CHOLMOD\n", n, n, (size_t)n * n, dof);
  printf("threads  step ms  eval+asm  analysis(1st)  factor   solve   "
         "bare f+s   step/bare\n");
  for (int th = 1; th <= 2; th++) {
    cholmod_common cc;
    cholmod_sparse *A = NULL;
    struct run R;
    set_blas_threads(th);
    cholmod_l_start(&cc);
    cc.print = 0;
    run_steps(n, th, MSI_CHOLMOD, MSI_ORDER_REUSE, 0, steps, &R, &A, &cc);
    double b = bare(A, MSI_FACTOR_AUTO, steps, &cc);
    if (th == 1) {
      double b1 = bare(A, MSI_FACTOR_SIMPLICIAL, steps, &cc);
      double b2 = bare(A, MSI_FACTOR_SUPERNODAL, steps, &cc);
      printf("  bare f+s: simplicial %.2f ms, supernodal %.2f ms; lnz %.0f, "
             "flops %.3g\n", 1e3 * b1, 1e3 * b2, cc.lnz, cc.fl);
      int ords[] = {CHOLMOD_AMD, CHOLMOD_METIS, CHOLMOD_NESDIS};
      const char *on[] = {"amd", "metis", "nesdis"};
      for (int o = 0; o < 3; o++) {
        cc.nmethods = 1;
        cc.method[0].ordering = ords[o];
        double ta = now();
        cholmod_factor *L = cholmod_l_analyze(A, &cc);
        ta = now() - ta;
        cholmod_l_free_factor(&L, &cc);
        double bb = bare(A, MSI_FACTOR_SUPERNODAL, steps, &cc);
        printf("  %-7s analysis %.2f ms, f+s %.2f ms, lnz %.0f, flops %.3g\n",
               on[o], 1e3 * ta, 1e3 * bb, cc.lnz, cc.fl);
      }
      cc.nmethods = 0;
    }
    printf("%7d %8.2f %9.2f %8.2f (%5.1f) %8.2f %7.2f %9.2f %10.3f\n", th,
           1e3 * R.step, 1e3 * (R.eval + R.assembly), 1e3 * R.analysis,
           1e3 * R.first_analysis, 1e3 * R.factor, 1e3 * R.solve, 1e3 * b,
           R.step / b);
    cholmod_l_free_sparse(&A, &cc);
    cholmod_l_finish(&cc);
  }
  printf("alternatives when the node pattern changes (2 threads), per "
         "step:\n");
  struct run R;
  run_steps(n, 2, MSI_CHOLMOD, MSI_ORDER_REUSE, 0, steps, &R, NULL, NULL);
  printf("  CHOLMOD, analysis reused   %8.2f ms\n", 1e3 * R.step);
  run_steps(n, 2, MSI_CHOLMOD, MSI_ORDER_REUSE, 1, steps, &R, NULL, NULL);
  printf("  CHOLMOD, re-analysed, particle order reused %8.2f ms  (analysis "
         "%.2f ms)\n", 1e3 * R.step, 1e3 * R.analysis);
  run_steps(n, 2, MSI_CHOLMOD, MSI_ORDER_FRESH, 1, steps, &R, NULL, NULL);
  printf("  CHOLMOD, re-analysed from scratch %8.2f ms  (analysis %.2f ms)\n",
         1e3 * R.step, 1e3 * R.analysis);
  run_steps(n, 2, MSI_PCG, MSI_ORDER_REUSE, 0, steps, &R, NULL, NULL);
  printf("  PCG (block Jacobi, 1e-8)   %8.2f ms  (%.0f iterations)\n",
         1e3 * R.step, R.pcg_iterations);
}

int main(int argc, char **argv) {
  uint32_t sizes[16];
  int ns = 0, steps = 20;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-s") && i + 1 < argc) steps = atoi(argv[++i]);
    else if (ns < 16) sizes[ns++] = (uint32_t)atoi(argv[i]);
  }
  if (!ns) sizes[ns++] = 100, sizes[ns++] = 300;
  for (int i = 0; i < ns; i++)
    if (sizes[i] < 3 || steps < 1) {
      fprintf(stderr, "usage: bench-mass-spring [n >= 3 ...] [-s steps]\n");
      return 2;
    }
  int ob;
  printf("BLAS under CHOLMOD: %s\n", ms_blas_info(&ob));
  for (int i = 0; i < ns; i++) bench(sizes[i], steps);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("\npeak resident memory %.1f MiB\n", ru.ru_maxrss / 1024.0);
  return 0;
}
