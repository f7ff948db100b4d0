/* The cost of a whole step: a scene (a paper scene, at a scale) stepped N
 * times after a warm-up, without output.  Prints the rows of the paper's
 * Table I (and the metrics' and the rest's, "other": gathering state,
 * choosing dt, the solvers' begin/end-step work) in ms per step and as a
 * share of the step, what of "other" the solvers' begin_step and end_step
 * took (each system's), stage 2 over stage 1, the peak resident memory and
 * particles x steps per second of wall time.
 *
 *   bench-step SCENE [--scale S] [--steps N] [--warmup W] [--threads T]
 *              [--plugin-path DIR] [--set KEY=VALUE]...
 *   (defaults: the scene's scale, 20 steps, 3 warm-up steps, 2 threads) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../../core/run/run.h"

#define MAX_SETS 32

static int usage(void) {
  fprintf(stderr, "usage: bench-step SCENE [--scale S] [--steps N] "
                  "[--warmup W] [--threads T] [--plugin-path DIR] "
                  "[--set KEY=VALUE]...\n");
  return 2;
}

/* The solvers' begin_step and end_step seconds when the timed steps
 * begin (systems beyond MAX_SYS are not itemised). */
#define MAX_SYS 256
static double begin0[MAX_SYS], end0[MAX_SYS], stage0[MAX_SYS][2];
static uint64_t kept0[MAX_SYS], stage2_0;

static void snapshot(const ms_sim *S) {
  for (uint32_t s = 0; s < S->stepper.nsys && s < MAX_SYS; s++)
    begin0[s] = S->stepper.sys[s].time_begin,
    end0[s] = S->stepper.sys[s].time_end,
    kept0[s] = S->stepper.sys[s].stage2_kept,
    stage0[s][0] = S->stepper.sys[s].time_stage[0],
    stage0[s][1] = S->stepper.sys[s].time_stage[1];
  stage2_0 = S->run_counts.stage2_steps + S->stepper.frame_counts.stage2_steps;
}

static double solvers_since(const ms_sim *S) {
  double t = 0.0;
  for (uint32_t s = 0; s < S->stepper.nsys && s < MAX_SYS; s++)
    t += S->stepper.sys[s].time_begin - begin0[s] +
         S->stepper.sys[s].time_end - end0[s];
  return t;
}

static size_t particles(const ms_sim *S) {
  size_t n = 0;
  for (uint32_t s = 0; s < S->stepper.nsys; s++)
    n += S->stepper.sys[s].view.count;
  return n;
}

int main(int argc, char **argv) {
  const char *scene = NULL, *paths[2] = {NULL, NULL}, *sets[MAX_SETS + 1];
  double scale = 0.0;
  long steps = 20, warmup = 3;
  int threads = 2, nsets = 0;
  for (int k = 1; k < argc; k++) {
    const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
    if (a[0] != '-' && !scene) {
      scene = a;
      continue;
    }
    if (!v) return usage();
    k++;
    if (!strcmp(a, "--scale")) scale = atof(v);
    else if (!strcmp(a, "--steps")) steps = atol(v);
    else if (!strcmp(a, "--warmup")) warmup = atol(v);
    else if (!strcmp(a, "--threads")) threads = atoi(v);
    else if (!strcmp(a, "--plugin-path")) paths[0] = v;
    else if (!strcmp(a, "--set") && nsets < MAX_SETS) sets[nsets++] = v;
    else return usage();
  }
  sets[nsets] = NULL;
  if (!scene || steps < 1 || warmup < 0 || threads < 1 || scale < 0.0)
    return usage();
  struct ms_sim_options opt = {.struct_size = sizeof opt, .threads = threads,
                               .no_output = 1, .scale = scale,
                               .plugin_paths = paths[0] ? paths : NULL,
                               .overrides = nsets ? sets : NULL};
  ms_sim *S = NULL;
  char err[1024];
  if (ms_sim_open(scene, &opt, &S, err, sizeof err)) {
    fprintf(stderr, "bench-step: %s\n", err);
    return 3;
  }
  double before[MS__PH_COUNT], t0 = 0.0;
  for (long k = 0; k < warmup + steps; k++) {
    if (k == warmup) {
      memcpy(before, S->stepper.phase, sizeof before);
      snapshot(S);
      t0 = ms__now();
    }
    if (ms_sim_step(S)) {
      fprintf(stderr, "bench-step: step %ld: %s\n", k, ms_sim_error(S));
      ms_sim_close(S);
      return 1;
    }
  }
  double wall = ms__now() - t0, ph[MS__PH_COUNT], total = 0.0;
  for (int p = 0; p < MS__PH_COUNT; p++)
    total += ph[p] = S->stepper.phase[p] - before[p];
  size_t n = particles(S);
  printf("%s at scale %g: %zu particles, %ld steps after %ld, %d threads\n",
         scene, S->scene.scale, n, steps, warmup, threads);
  for (int p = 0; p < MS__PH_COUNT; p++)
    printf("  %-10s %9.2f ms/step  %5.1f %%\n", ms__phase_names[p],
           1e3 * ph[p] / (double)steps, 100.0 * ph[p] / total);
  printf("  %-10s %9.2f ms/step\n", "step", 1e3 * total / (double)steps);
  double solvers = solvers_since(S);
  printf("other: the core's %.2f ms/step (%.2f %% of the step: gathering, "
         "dt, hand-over, the clock), the solvers' begin_step/end_step %.2f "
         "ms/step (%.2f %%)\n",
         1e3 * (ph[MS__PH_OTHER] - solvers) / (double)steps,
         100.0 * (ph[MS__PH_OTHER] - solvers) / total,
         1e3 * solvers / (double)steps, 100.0 * solvers / total);
  for (uint32_t s = 0; s < S->stepper.nsys && s < MAX_SYS; s++) {
    const struct ms__system *y = &S->stepper.sys[s];
    printf("  system '%s' (%s): begin_step %.2f, end_step %.2f ms/step; "
           "stage 2 kept stage 1's result in %llu of %llu steps\n",
           y->desc->name, y->plugin->desc.id,
           1e3 * (y->time_begin - begin0[s]) / (double)steps,
           1e3 * (y->time_end - end0[s]) / (double)steps,
           (unsigned long long)(y->stage2_kept - kept0[s]),
           (unsigned long long)(S->run_counts.stage2_steps +
                                S->stepper.frame_counts.stage2_steps -
                                stage2_0));
    double t1 = y->time_stage[0] - stage0[s][0],
           t2 = y->time_stage[1] - stage0[s][1];
    printf("    integrate: stage 1 %.2f, stage 2 %.2f ms/step (stage 2 / "
           "stage 1 %.3f)\n", 1e3 * t1 / (double)steps,
           1e3 * t2 / (double)steps, t1 > 0 ? t2 / t1 : 0.0);
  }
  printf("stage2/stage1 %.3f  other %.2f %%  %.3g particle-steps/s\n",
         ph[MS__PH_STAGE1] > 0 ? ph[MS__PH_STAGE2] / ph[MS__PH_STAGE1] : 0.0,
         100.0 * ph[MS__PH_OTHER] / total, (double)n * (double)steps / wall);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("peak resident %.1f MiB\n", ru.ru_maxrss / 1024.0);
  ms_sim_close(S);
  return 0;
}
