/* The mergesplit command: shared declarations of its parts. */
#ifndef MS_CLI_H
#define MS_CLI_H

#include <stddef.h>
#include <stdint.h>

#include <mergesplit/core.h>

/* Exit codes (documented in --help, mergesplit(1) and the README). */
enum {
  EXIT_SIM = 1,    /* the simulation failed */
  EXIT_USAGE = 2,  /* bad command line */
  EXIT_SCENE = 3,  /* invalid scene (or checkpoint that does not fit it) */
  EXIT_PLUGIN = 4, /* plugin problem */
  EXIT_IO = 5,     /* output could not be written / input not read */
  EXIT_SIGNAL = 128 /* + signal number: 130 SIGINT, 143 SIGTERM */
};

#define MAX_PATHS 64
#define MAX_BESIDE 7
#define MAX_SETS 256

struct args {
  const char *scene, *output, *report, *resume;
  const char *paths[MAX_PATHS + 1];
  int npaths, threads, no_output, quiet;
  long long frames;
  double scale; /* --scale: 0 = the scene's */
  uint64_t max_particles; /* --max-particles: 0 = the default */
  int64_t checkpoint_every; /* --checkpoint-every: 0 = the scene's */
  /* render */
  long long frame;
  int width, height, movie;
  const char *color, *camera;
  double range[2];
  int range_mode; /* 0: MIN,MAX or unset, 1: frame, 2: run */
  int fit_all, no_floor;
  double fps, slow;
  const char *beside[MAX_BESIDE + 1]; /* render --beside, NULL-terminated */
  int nbeside;
  /* conformance */
  const char *conf_scene, *conf_system;
  /* compare */
  const char *methods;
  const char *method; /* run --method */
  const char *sync;   /* run --sync */
  const char *sets[MAX_SETS + 1]; /* --set KEY=VALUE, NULL-terminated */
  int nsets;
  /* sweep */
  long long seeds;    /* --seeds N: scene.seed = 1..N; 0: the scene's */
  long index;         /* --index I: only variant I; -1: all */
  int list;           /* --list: print the variants, run none */
  const char *metric; /* --metric: the column the charts show */
  int run_threads;    /* --run-threads T: threads of each run; 0: shared */
  int blas_threads;   /* run --blas-threads N; 0: the default, 1 */
};

int cli_exit_code(int status);
int cli_usage_error(const char *fmt, const char *arg);
/* stderr line "mergesplit: [error: |warning: ]LINE" (clears a progress
 * bar first). */
void cli_log_sink(void *opaque, int level, const char *line);

int cli_run(struct args *a, int check_only);
int cli_render(struct args *a);
int cli_plot(struct args *a);
int cli_conformance(struct args *a);
int cli_compare(struct args *a);
int cli_sweep(struct args *a);
/* "penalty:strong" -> method "penalty", stiffness scale 10; -1 if the
 * spec is not a method[:weak|medium|strong]. */
int cli_parse_method(const char *spec, char *method, size_t len,
                     double *scale);

/* ---- progress.c: progress of `mergesplit run` on stderr, a bar redrawn
 * in place on a terminal, one plain line per frame otherwise, nothing with
 * --quiet. */
/* Before the first frame: the run's simulated time and step count now. */
void progress_start(int quiet, double time, uint64_t steps);
/* The ms_sim_options.progress callback. */
void progress_update(void *opaque, const struct ms_progress *p);
/* Erase the bar before other text goes to the terminal. */
void progress_clear(void);
/* End the bar's line. */
void progress_finish(void);

/* ---- sweep.c, sweep_mpi.c: mergesplit sweep -- the variants (sweep.c)
 * and where they run (locally, or over MPI ranks: sweep_mpi.c). */
#define MAX_AXES 64
#define MAX_VALUES 1000
#define MAX_VARIANTS 100000
#define MAX_JOBS 256

/* One key and its values (pointers into key, which owns the text). */
struct axis {
  char *key;
  char *value[MAX_VALUES];
  int n;
};

struct sweep {
  const char *scene, *out, *metric;
  const char *const *paths; /* --plugin-path, NULL-terminated */
  struct axis axis[MAX_AXES + 1];
  int naxes;
  size_t count;  /* variants: the product of the axes' value counts */
  long index;    /* --index: only this variant; -1: all */
  int jobs;      /* runs at once in this process */
  int threads;   /* OpenMP threads of each run; 0: the run's default */
  int quiet;
  char self[4096]; /* this program, which the runs execute */
  size_t next;     /* the next variant to hand out (local) */
  /* Called while runs are busy, between checks for one that ended (the
   * MPI coordinator answers the ranks' requests there); NULL: none. */
  void (*serve)(void *opaque);
  void *serve_opaque;
};

/* Run the variants next() hands out (-1: no more), w->jobs at once;
 * returns how many failed. */
size_t sweep_work(struct sweep *w, long (*next)(void *), void *opaque);

/* Under mpirun (and built with MPI): the ranks share the variants, each
 * asking rank 0 for the next when it has a free slot; *failed is the
 * count over all ranks, *summarise is set on rank 0 only.  Returns 0, or
 * -1 when not under MPI (the caller runs the variants itself). */
int sweep_mpi(struct sweep *w, size_t *failed, int *summarise);
/* The ranks of this sweep on this machine, and in all (1 without MPI). */
int sweep_local_ranks(void);
int sweep_ranks(void);


#endif
