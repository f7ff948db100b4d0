/* The peridynamics implicit step on a block of side^3 particles (default
 * 40^3 = 64000), horizon 3 spacings: bonds per particle, memory per bond,
 * time per implicit step split into force/Jacobian evaluation, assembly
 * and solve, Newton and PCG iterations, 1 vs 2 threads; then CHOLMOD
 * against PCG on the same kind of matrix.
 *
 *   bench-peridynamics [side] [steps] [cholmod-side]
 *       side          block side in particles (40)
 *       steps         timed steps per run (4)
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

#include "../../plugins/peridynamics/pd.h"

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
  M->newton_tolerance = 1e-3;
  return 0;
}

struct figures {
  double best, mean, eval, assembly, analysis, factor, solve, fracture;
  double newton, pcg;
};

/* One warm-up step, then `steps` timed ones. */
static int run(struct pd_model *M, int threads, int steps, double dt,
               struct figures *F) {
  struct pd_work W;
  size_t broke;
  pd_work_init(&W);
  M->opt.threads = threads;
  omp_set_num_threads(threads);
  memset(F, 0, sizeof *F);
  F->best = INFINITY;
  if (pd_begin(M, &W) || pd_step(M, &W, dt, NULL, NULL, NULL, &broke)) {
    fprintf(stderr, "step failed: %s\n", W.error);
    return -1;
  }
  struct msi_stats s0 = *msi_solver_stats(W.solver);
  double fr0 = W.t_fracture;
  for (int k = 0; k < steps; k++) {
    double t0 = now();
    if (pd_begin(M, &W) || pd_step(M, &W, dt, NULL, NULL, NULL, &broke)) {
      fprintf(stderr, "step failed: %s\n", W.error);
      return -1;
    }
    double t = now() - t0;
    F->best = fmin(F->best, t);
    F->mean += t / steps;
    F->newton += (double)W.iterations / steps;
  }
  const struct msi_stats *s = msi_solver_stats(W.solver);
  F->eval = (s->t_eval - s0.t_eval) / steps;
  F->assembly = (s->t_assembly - s0.t_assembly) / steps;
  F->analysis = (s->t_analysis - s0.t_analysis) / steps;
  F->factor = (s->t_factor - s0.t_factor) / steps;
  F->solve = (s->t_solve - s0.t_solve) / steps;
  F->fracture = (W.t_fracture - fr0) / steps;
  F->pcg = (double)(s->pcg_iterations - s0.pcg_iterations) / steps;
  pd_work_free(&W);
  return 0;
}

static void print(const char *what, const struct figures *F) {
  printf("  %-22s best %8.1f ms  mean %8.1f ms | eval %7.1f  assembly "
         "%6.1f  analysis %7.1f  factor %8.1f  solve %7.1f  fracture "
         "%5.1f ms | Newton %.2f  PCG %.1f per step\n",
         what, 1e3 * F->best, 1e3 * F->mean, 1e3 * F->eval,
         1e3 * F->assembly, 1e3 * F->analysis, 1e3 * F->factor,
         1e3 * F->solve, 1e3 * F->fracture, F->newton, F->pcg);
}

/* A fresh block of the given side, stepped with one solver. */
static int block_run(int side, int solver, int threads, int steps,
                     double dt, struct figures *F) {
  struct pd_model M;
  if (build(&M, side, solver)) return -1;
  int rc = run(&M, threads, steps, dt, F);
  pd_model_free(&M);
  return rc;
}

int main(int argc, char **argv) {
  int side = argc > 1 ? atoi(argv[1]) : 40;
  int steps = argc > 2 ? atoi(argv[2]) : 4;
  int chol_side = argc > 3 ? atoi(argv[3]) : 24;
  const double dt = 1e-3;
  if (side < 4 || steps < 1) {
    fprintf(stderr, "usage: bench-peridynamics [side >= 4] [steps >= 1] "
            "[cholmod-side]\n");
    return 2;
  }
  long rss0 = max_rss_kb();
  struct pd_model M;
  if (build(&M, side, MSI_PCG)) {
    fprintf(stderr, "out of memory building the block\n");
    return 1;
  }
  size_t n = M.n, nb = M.bonds.count;
  uint32_t most = 0;
  for (size_t i = 0; i < n; i++) most = M.nbonds[i] > most ? M.nbonds[i] : most;
  printf("peridynamics implicit step: %d^3 = %zu particles, horizon 3 "
         "spacings, dt %g s\n", side, n, dt);
  printf("bonds: %zu, per particle %.1f on average, %u inside the block\n",
         nb, 2.0 * (double)nb / (double)n, most);
  /* bytes held per bond: the model (pair, rest length, flag, two
   * adjacency entries) and the shared solver (force, K, D, a D + b K per
   * term; incidence, other node and slot per end) */
  double model_b = 2 * 4 + 8 + 1 + 2 * (4 + 4);
  double solver_b = 3 * 8 + 3 * 6 * 8 + 2 * (4 + 4 + 4);
  struct figures F1, F2;
  if (run(&M, 1, steps, dt, &F1)) return 1;
  long rss1 = max_rss_kb();
  printf("memory per bond: %.0f B in the model + %.0f B in the solver = "
         "%.0f B by layout; peak RSS %.1f MB (%.0f B per bond)\n", model_b,
         solver_b, model_b + solver_b, (double)rss1 / 1024.0,
         1024.0 * (double)(rss1 - rss0) / (double)nb);
  pd_model_free(&M);
  if (block_run(side, MSI_PCG, 2, steps, dt, &F2)) return 1;
  printf("PCG (block Jacobi, relative residual 1e-8), Newton to 1e-3:\n");
  print("1 thread", &F1);
  print("2 threads", &F2);
  printf("  speed-up 1 -> 2 threads: %.2fx (best step), %.2fx (mean)\n",
         F1.best / F2.best, F1.mean / F2.mean);
  if (chol_side >= 4) {
    printf("CHOLMOD vs PCG on smaller blocks (2 threads; CHOLMOD factorises "
           "every Newton iteration, its symbolic analysis is reused):\n");
    for (int s = 8; s <= chol_side; s += 8) {
      struct figures C, P;
      char what[64];
      if (block_run(s, MSI_CHOLMOD, 2, steps, dt, &C) ||
          block_run(s, MSI_PCG, 2, steps, dt, &P))
        return 1;
      snprintf(what, sizeof what, "%d^3 CHOLMOD", s);
      print(what, &C);
      snprintf(what, sizeof what, "%d^3 PCG", s);
      print(what, &P);
      printf("  %d^3: PCG is %.1fx faster\n", s, C.best / P.best);
    }
  }
  return 0;
}
