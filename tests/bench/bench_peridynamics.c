/* The peridynamics implicit step on a block of side^3 particles (default
 * 40^3 = 64000), horizon 3 spacings: bonds per particle, memory per bond,
 * time per implicit step split into force/Jacobian evaluation, assembly
 * and solve, Newton and PCG iterations, 1 vs 2 threads; then CHOLMOD
 * against PCG on the same kind of matrix.
 *
 *   bench-peridynamics [side] [steps] [cholmod-side]
 *       side          block side in particles (40)
 *       steps         timed steps per run (5)
 *       cholmod-side  largest block side for the CHOLMOD comparison (24;
 *                     0 to skip).  CHOLMOD uses OpenBLAS's own threads.
 *
 * The block (E = 1 MPa, 1000 kg/m^3, spacing 1 cm) spins, falls and
 * carries a shear wave, so every Newton iteration has work to do; bonds
 * do not break (the figures are for the solve). */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../../plugins/peridynamics/peridynamics.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static long max_rss_kb(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

/* Lattice neighbours within 3 spacings: offsets with i^2 + j^2 + k^2 <= 9. */
static int build(struct pd_model *M, int side, int solver) {
  const double h = 0.01;
  size_t n = (size_t)side * side * side;
  memset(M, 0, sizeof *M);
  if (pd_model_alloc(M, n)) return -1;
  for (int i = 0, p = 0; i < side; i++)
    for (int j = 0; j < side; j++)
      for (int k = 0; k < side; k++, p++) {
        double *x = M->x + 3 * p, *v = M->v + 3 * p;
        x[0] = i * h, x[1] = j * h, x[2] = k * h;
        double c = 0.5 * (side - 1) * h;
        /* spin about y, plus a shear wave along x */
        v[0] = 2.0 * (x[2] - c);
        v[1] = 0.05 * sin(6.283185307179586 * x[0] / (side * h));
        v[2] = -2.0 * (x[0] - c);
        M->m[p] = 1000.0 * h * h * h, M->r[p] = 0.5 * h;
      }
  uint32_t *off = malloc((n + 1) * sizeof *off);
  uint32_t *idx = malloc(n * 122 * sizeof *idx);
  if (!off || !idx) return -1;
  size_t q = 0;
  for (int i = 0, p = 0; i < side; i++)
    for (int j = 0; j < side; j++)
      for (int k = 0; k < side; k++, p++) {
        off[p] = (uint32_t)q;
        for (int a = -3; a <= 3; a++)
          for (int b = -3; b <= 3; b++)
            for (int c = -3; c <= 3; c++) {
              int r2 = a * a + b * b + c * c;
              int I = i + a, J = j + b, K = k + c;
              if (!r2 || r2 > 9 || I < 0 || J < 0 || K < 0 || I >= side ||
                  J >= side || K >= side)
                continue;
              idx[q++] = (uint32_t)((I * side + J) * side + K);
            }
      }
  off[n] = (uint32_t)q;
  int rc = pd_bonds_build(M, off, idx);
  free(off), free(idx);
  if (rc) return -1;
  M->mat.bulk = pd_bulk_modulus(1e6, 0.25);
  M->mat.horizon = 3.0 * h;
  M->mat.micro = pd_micromodulus(M->mat.bulk, M->mat.horizon);
  M->mat.volume = h * h * h;
  M->mat.breakable = 0;
  M->gravity[1] = -9.81;
  for (int a = 0; a < 3; a++) M->lo[a] = -INFINITY, M->hi[a] = INFINITY;
  M->opt.linear_solver = solver;
  M->opt.pcg_tolerance = 1e-8;
  M->opt.pcg_max_iterations = 1000;
  M->newton_iterations = 5;
  M->newton_tolerance = 1e-2;
  return 0;
}

struct figures {
  double best, median, eval, assembly, analysis, factor, solve, fracture;
  double newton, pcg, cpu;
};

/* One system advanced step by step with a fixed thread count. */
struct runner {
  struct pd_model M;
  struct pd_work W;
  int threads, steps;
  double *t, *cpu;    /* per timed step: wall and CPU seconds */
  struct msi_stats s0;
  double fr0, newton;
};

static double cpu_seconds(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec +
         (double)u.ru_stime.tv_sec + 1e-6 * (double)u.ru_stime.tv_usec;
}

static int step(struct runner *R, double dt, int k) {
  size_t broke;
  R->M.opt.threads = R->threads;
  omp_set_num_threads(R->threads);
  double t0 = now(), c0 = cpu_seconds();
  if (pd_begin(&R->M, &R->W) ||
      pd_step(&R->M, &R->W, dt, NULL, NULL, NULL, &broke)) {
    fprintf(stderr, "step failed: %s\n", R->W.error);
    return -1;
  }
  if (k < 0) { /* warm-up: the figures start after it */
    R->s0 = *msi_solver_stats(R->W.solver);
    R->fr0 = R->W.t_fracture;
    return 0;
  }
  R->t[k] = now() - t0;
  R->cpu[k] = cpu_seconds() - c0;
  R->newton += R->W.iterations;
  return 0;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(const double *v, int n) {
  double *c = malloc((size_t)n * sizeof *c);
  memcpy(c, v, (size_t)n * sizeof *c);
  qsort(c, (size_t)n, sizeof *c, cmp);
  double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
  free(c);
  return m;
}

static void figures(struct runner *R, struct figures *F) {
  const struct msi_stats *s = msi_solver_stats(R->W.solver);
  int n = R->steps;
  memset(F, 0, sizeof *F);
  F->best = INFINITY;
  for (int k = 0; k < n; k++) {
    F->best = fmin(F->best, R->t[k]);
    F->cpu += R->cpu[k] / n;
  }
  F->median = median(R->t, n);
  F->eval = (s->t_eval - R->s0.t_eval) / n;
  F->assembly = (s->t_assembly - R->s0.t_assembly) / n;
  F->analysis = (s->t_analysis - R->s0.t_analysis) / n;
  F->factor = (s->t_factor - R->s0.t_factor) / n;
  F->solve = (s->t_solve - R->s0.t_solve) / n;
  F->fracture = (R->W.t_fracture - R->fr0) / n;
  F->pcg = (double)(s->pcg_iterations - R->s0.pcg_iterations) / n;
  F->newton = R->newton / n;
}

static int runner_init(struct runner *R, int side, int solver, int threads,
                       int steps) {
  memset(R, 0, sizeof *R);
  R->threads = threads, R->steps = steps;
  R->t = calloc((size_t)steps, sizeof *R->t);
  R->cpu = calloc((size_t)steps, sizeof *R->cpu);
  pd_work_init(&R->W);
  return R->t && R->cpu ? build(&R->M, side, solver) : -1;
}

static void runner_free(struct runner *R) {
  pd_work_free(&R->W);
  pd_model_free(&R->M);
  free(R->t), free(R->cpu);
}

/* Systems advanced in lockstep, one step each in turn, so a load that
 * comes and goes on the machine hits them alike.  Results do not depend
 * on the thread count, so each round does the same work in every one. */
static int lockstep(struct runner *R, int count, double dt) {
  for (int k = -1; k < R[0].steps; k++)
    for (int r = 0; r < count; r++)
      if (step(&R[r], dt, k)) return -1;
  return 0;
}

static void print(const char *what, const struct figures *F) {
  printf("  %-14s best %8.1f ms  median %8.1f ms  cpu %8.1f ms | eval "
         "%6.1f  assembly %6.1f  analysis %6.1f  factor %8.1f  solve %7.1f "
         "ms | Newton %.2f  PCG %.1f per step (%.2f ms per PCG iteration)\n",
         what, 1e3 * F->best, 1e3 * F->median, 1e3 * F->cpu, 1e3 * F->eval,
         1e3 * F->assembly, 1e3 * F->analysis, 1e3 * F->factor,
         1e3 * F->solve, F->newton, F->pcg,
         F->pcg > 0 ? 1e3 * F->solve / F->pcg : 0.0);
}

int main(int argc, char **argv) {
  int side = argc > 1 ? atoi(argv[1]) : 40;
  int steps = argc > 2 ? atoi(argv[2]) : 5;
  int chol_side = argc > 3 ? atoi(argv[3]) : 24;
  const double dt = 1e-3;
  if (side < 4 || steps < 1) {
    fprintf(stderr, "usage: bench-peridynamics [side >= 4] [steps >= 1] "
            "[cholmod-side]\n");
    return 2;
  }
  long rss0 = max_rss_kb();
  struct runner R[2];
  if (runner_init(&R[0], side, MSI_PCG, 1, steps)) {
    fprintf(stderr, "out of memory building the block\n");
    return 1;
  }
  const struct pd_model *M = &R[0].M;
  size_t n = M->n, nb = M->bonds.count;
  uint32_t most = 0;
  for (size_t i = 0; i < n; i++)
    most = M->nbonds[i] > most ? M->nbonds[i] : most;
  printf("peridynamics implicit step: %d^3 = %zu particles, horizon 3 "
         "spacings, dt %g s\n", side, n, dt);
  printf("bonds: %zu, per particle %.1f on average, %u inside the block\n",
         nb, 2.0 * (double)nb / (double)n, most);
  /* bytes held per bond: the model (pair, rest length, flag, two
   * adjacency entries) and the shared solver (force, K, D, a D + b K per
   * term; incidence, other node and slot per end) */
  double model_b = 2 * 4 + 8 + 1 + 2 * (4 + 4);
  double solver_b = 3 * 8 + 3 * 6 * 8 + 2 * (4 + 4 + 4);
  if (lockstep(R, 1, dt)) return 1; /* one system first: its memory */
  long rss1 = max_rss_kb();
  printf("memory per bond: %.0f B in the model + %.0f B in the solver = "
         "%.0f B by layout; one system's peak RSS %.1f MB (%.0f B per "
         "bond)\n", model_b, solver_b, model_b + solver_b,
         (double)rss1 / 1024.0, 1024.0 * (double)(rss1 - rss0) / (double)nb);
  runner_free(&R[0]);
  if (runner_init(&R[0], side, MSI_PCG, 1, steps) ||
      runner_init(&R[1], side, MSI_PCG, 2, steps) || lockstep(R, 2, dt))
    return 1;
  struct figures F1, F2;
  figures(&R[0], &F1);
  figures(&R[1], &F2);
  double ratio[64];
  int nr = steps < 64 ? steps : 64;
  for (int k = 0; k < nr; k++) ratio[k] = R[0].t[k] / R[1].t[k];
  printf("PCG (block Jacobi, relative residual 1e-8), Newton to 1e-2; %d "
         "timed steps each, 1 and 2 threads in lockstep:\n", steps);
  print("1 thread", &F1);
  print("2 threads", &F2);
  printf("  speed-up 1 -> 2 threads: %.2fx (median of step pairs), %.2fx "
         "(best steps)\n", median(ratio, nr), F1.best / F2.best);
  runner_free(&R[0]);
  runner_free(&R[1]);
  if (chol_side >= 4) {
    printf("CHOLMOD vs PCG on smaller blocks (2 threads; CHOLMOD factorises "
           "every Newton iteration, its symbolic analysis is reused):\n");
    for (int s = 8; s <= chol_side; s += 8) {
      struct figures C, P;
      char what[64];
      if (runner_init(&R[0], s, MSI_CHOLMOD, 2, steps) ||
          runner_init(&R[1], s, MSI_PCG, 2, steps) || lockstep(R, 2, dt))
        return 1;
      figures(&R[0], &C);
      figures(&R[1], &P);
      snprintf(what, sizeof what, "%d^3 CHOLMOD", s);
      print(what, &C);
      snprintf(what, sizeof what, "%d^3 PCG", s);
      print(what, &P);
      printf("  %d^3: PCG is %.1fx faster (median step)\n", s,
             C.median / P.median);
      runner_free(&R[0]);
      runner_free(&R[1]);
    }
  }
  return 0;
}
