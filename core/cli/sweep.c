/* mergesplit sweep SCENE --set KEY=V1,V2,... : one run of SCENE per
 * combination of the values (and seed), each a `mergesplit run` child
 * process with its own output directory and report; then one summary of
 * them all (ms_study_summary).  Children run one at a time, N at a time
 * (-j N), or spread over MPI ranks (sweep_mpi.c); which process ran a
 * variant changes nothing in its files. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

extern char **environ;

/* Split "V1,V2,..." at the commas outside brackets, braces and quotes:
 * [0,-1,0] is one value. */
static int split_values(char *s, char **out, int max) {
  int n = 0, depth = 0, quoted = 0;
  out[n++] = s;
  for (char *p = s; *p; p++) {
    if (*p == '"' && (p == s || p[-1] != '\\')) quoted = !quoted;
    else if (!quoted && strchr("[({", *p)) depth++;
    else if (!quoted && strchr("])}", *p)) depth--;
    else if (!quoted && !depth && *p == ',') {
      if (n == max) return -1;
      *p = '\0';
      out[n++] = p + 1;
    }
  }
  return n;
}

/* Linked keys "K1&K2" take values "V1&V2" together: how many parts. */
static int parts(const char *s) {
  int n = 1;
  for (; *s; s++) n += *s == '&';
  return n;
}

/* One key and its values from "KEY=V1,V2,...": the axis owns a copy. */
static int parse_axis(struct sweep *w, const char *spec) {
  if (w->naxes == MAX_AXES)
    return cli_usage_error("a sweep varies at most %s keys", "64");
  struct axis *x = &w->axis[w->naxes++]; /* freed by sweep_free */
  char *eq;
  if (!(x->key = strdup(spec)) || !(eq = strchr(x->key, '=')))
    return cli_usage_error("--set needs KEY=VALUES, not '%s'", spec);
  *eq = '\0';
  x->n = split_values(eq + 1, x->value, MAX_VALUES);
  if (x->n < 0)
    return cli_usage_error("--set %s: more than 1000 values", x->key);
  for (int v = 0; v < x->n; v++) {
    if (!x->value[v][0])
      return cli_usage_error("--set %s: an empty value", spec);
    if (parts(x->value[v]) != parts(x->key))
      return cli_usage_error("--set %s: linked keys (KEY&KEY) need as many "
                             "values in each (V&V)", spec);
  }
  for (int j = 0; j < w->naxes - 1; j++)
    if (!strcmp(w->axis[j].key, x->key))
      return cli_usage_error("--set %s: the key is given twice", x->key);
  return 0;
}

/* The keys and their values, from --set and --seeds (scene.seed=1,...,N). */
static int parse_axes(struct args *a, struct sweep *w) {
  int rc = 0;
  for (int i = 0; !rc && i < a->nsets; i++) rc = parse_axis(w, a->sets[i]);
  if (!rc && a->seeds > 0) {
    char *seeds = malloc(16 + 6 * (size_t)a->seeds), *p = seeds;
    if (!seeds) return cli_usage_error("out of memory%s", "");
    p += sprintf(p, "scene.seed=");
    for (long long v = 1; v <= a->seeds; v++)
      p += sprintf(p, "%s%lld", v > 1 ? "," : "", v);
    rc = parse_axis(w, seeds);
    free(seeds);
  }
  if (rc) return rc;
  int total = 0;
  for (int k = 0; k < w->naxes; k++) total += parts(w->axis[k].key);
  if (total > MAX_SETS)
    return cli_usage_error("the sweep sets more than %s keys", "256");
  w->count = 1;
  for (int k = 0; k < w->naxes; k++) {
    if ((size_t)w->axis[k].n > SIZE_MAX / 2 / w->count ||
        w->count * (size_t)w->axis[k].n > MAX_VARIANTS)
      return cli_usage_error("the sweep has more than %s variants", "100000");
    w->count *= (size_t)w->axis[k].n;
  }
  return 0;
}

/* Variant i's value of key k: the last key varies fastest. */
static const char *sweep_value(const struct sweep *w, size_t i, int k) {
  for (int j = w->naxes - 1; j > k; j--) i /= (size_t)w->axis[j].n;
  return w->axis[k].value[i % (size_t)w->axis[k].n];
}

/* Variant i's directory name. */
static void sweep_name(size_t i, char *buf, size_t len) {
  snprintf(buf, len, "v%04zu", i);
}

/* "KEY=VALUE" of variant i, NULL-terminated (freed by the caller); a
 * linked key gives one per part. */
static char **overrides(const struct sweep *w, size_t i) {
  size_t total = 0, m = 0;
  for (int k = 0; k < w->naxes; k++) total += (size_t)parts(w->axis[k].key);
  char **o = calloc(total + 1, sizeof *o);
  for (int k = 0; o && k < w->naxes; k++) {
    const char *key = w->axis[k].key, *v = sweep_value(w, i, k);
    for (int p = parts(key); p > 0; p--) {
      size_t kl = strcspn(key, "&"), vl = strcspn(v, "&");
      if (!(o[m] = malloc(kl + vl + 2))) return o; /* the run will say */
      snprintf(o[m++], kl + vl + 2, "%.*s=%.*s", (int)kl, key, (int)vl, v);
      key += kl + (key[kl] == '&'), v += vl + (v[vl] == '&');
    }
  }
  return o;
}

static void free_list(char **o) {
  for (size_t k = 0; o && o[k]; k++) free(o[k]);
  free(o);
}

/* Start `mergesplit run` for variant i: stdout and stderr to its log.
 * -1 when it could not start, and why. */
static pid_t spawn_run(const struct sweep *w, size_t i, char *why,
                       size_t len) {
  char name[16], dir[4200], report[4300], log[4300], threads[16];
  sweep_name(i, name, sizeof name);
  snprintf(dir, sizeof dir, "%s/%s", w->out, name);
  snprintf(report, sizeof report, "%s/report.json", dir);
  snprintf(log, sizeof log, "%s/log.txt", dir);
  if (mkdir(dir, 0777) && errno != EEXIST) {
    snprintf(why, len, "%s: cannot create the directory: %s", dir,
             strerror(errno));
    return -1;
  }
  char **o = overrides(w, i);
  size_t no = 0;
  while (o && o[no]) no++;
  const char **argv = malloc((16 + 2 * no + 2 * MAX_PATHS) * sizeof *argv);
  if (!argv) return free_list(o), -1;
  int n = 0;
  argv[n++] = w->self, argv[n++] = "run", argv[n++] = w->scene;
  argv[n++] = "-o", argv[n++] = dir, argv[n++] = "-r", argv[n++] = report;
  argv[n++] = "-q";
  if (w->threads > 0) {
    snprintf(threads, sizeof threads, "%d", w->threads);
    argv[n++] = "-j", argv[n++] = threads;
  }
  for (size_t k = 0; k < no; k++) argv[n++] = "--set", argv[n++] = o[k];
  for (int k = 0; w->paths[k]; k++) argv[n++] = "-P", argv[n++] = w->paths[k];
  argv[n] = NULL;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log,
                                   O_WRONLY | O_CREAT | O_TRUNC, 0666);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY,
                                   0);
  pid_t pid;
  int rc = posix_spawn(&pid, w->self, &fa, NULL, (char *const *)argv,
                       environ);
  posix_spawn_file_actions_destroy(&fa);
  free(argv);
  free_list(o);
  if (rc) { /* the log says why, for the summary */
    snprintf(why, len, "cannot start %s: %s", w->self, strerror(rc));
    FILE *f = fopen(log, "w");
    if (f) fprintf(f, "mergesplit: error: %s\n", why), fclose(f);
  }
  return rc ? -1 : pid;
}

/* Why variant i failed, from its exit status and its log's error line. */
static void failure(const struct sweep *w, size_t i, int status, char *why,
                    size_t len) {
  char name[16], log[4300], line[2048];
  sweep_name(i, name, sizeof name);
  snprintf(log, sizeof log, "%s/%s/log.txt", w->out, name);
  if (WIFSIGNALED(status))
    snprintf(why, len, "killed by signal %d", WTERMSIG(status));
  else
    snprintf(why, len, "exit status %d", WEXITSTATUS(status));
  FILE *f = fopen(log, "r");
  while (f && fgets(line, sizeof line, f)) {
    const char *e = strstr(line, "mergesplit: error: ");
    if (!e) continue;
    line[strcspn(line, "\n")] = '\0';
    snprintf(why, len, "%s", e + 19);
  }
  if (f) fclose(f);
}

/* 1 when variant i's report is complete and of its overrides. */
static int complete(const struct sweep *w, size_t i) {
  char name[16], report[4300];
  sweep_name(i, name, sizeof name);
  snprintf(report, sizeof report, "%s/%s/report.json", w->out, name);
  char **o = overrides(w, i);
  int done = o && ms_report_complete(report, (const char *const *)o, NULL, 0);
  free_list(o);
  return done;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void said(const struct sweep *w, size_t i, const char *what,
                 double seconds) {
  if (w->quiet) return;
  char name[16];
  sweep_name(i, name, sizeof name);
  printf("%s", name);
  for (int k = 0; k < w->naxes; k++)
    printf("%s%s=%s", k ? ", " : " ", w->axis[k].key, sweep_value(w, i, k));
  if (seconds >= 0.0) printf(": %s (%.1f s)\n", what, seconds);
  else printf(": %s\n", what);
  fflush(stdout);
}

/* Run the variants `next` hands out, up to w->jobs at once; each one's
 * outcome is reported through `done`.  Returns the number that failed. */
size_t sweep_work(struct sweep *w, long (*next)(void *), void *opaque) {
  pid_t pid[MAX_JOBS];
  size_t which[MAX_JOBS], failed = 0;
  double start[MAX_JOBS];
  int busy = 0, more = 1;
  while (more || busy) {
    while (more && busy < w->jobs) {
      long i = next(opaque);
      if (i < 0) {
        more = 0;
        break;
      }
      if (complete(w, (size_t)i)) {
        said(w, (size_t)i, "complete, not run again", -1.0);
        continue;
      }
      char why[1200] = "";
      pid_t p = spawn_run(w, (size_t)i, why, sizeof why);
      if (p < 0) {
        said(w, (size_t)i, why, -1.0);
        failed++;
        continue;
      }
      pid[busy] = p, which[busy] = (size_t)i, start[busy++] = now();
    }
    if (!busy) continue;
    int status;
    pid_t p;
    if (w->serve) { /* the MPI coordinator answers the ranks meanwhile */
      struct timespec nap = {0, 2000000};
      while ((p = waitpid(-1, &status, WNOHANG)) == 0)
        w->serve(w->serve_opaque), nanosleep(&nap, NULL);
    } else {
      p = waitpid(-1, &status, 0);
    }
    if (p < 0 && errno == EINTR) continue;
    if (p < 0) { /* no child to wait for: the runs cannot be followed */
      for (int s = 0; s < busy; s++)
        said(w, which[s], strerror(errno), -1.0), failed++;
      busy = 0;
      continue; /* next() still hands out the rest (MPI: up to its -1) */
    }
    for (int s = 0; s < busy; s++) {
      if (pid[s] != p) continue;
      char why[1200] = "ok";
      int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if (!ok) failure(w, which[s], status, why, sizeof why), failed++;
      said(w, which[s], ok ? "ok" : why, now() - start[s]);
      busy--;
      pid[s] = pid[busy], which[s] = which[busy], start[s] = start[busy];
      break;
    }
  }
  return failed;
}

static long next_local(void *opaque) {
  struct sweep *w = opaque;
  if (w->index >= 0) {
    long i = w->next ? -1 : w->index;
    w->next = 1;
    return i;
  }
  return w->next < w->count ? (long)w->next++ : -1;
}

/* The summary: every variant's report, or the error its log holds. */
static int sweep_summary(struct sweep *w) {
  struct ms_study_variant *v = calloc(w->count, sizeof *v);
  char (*name)[16] = calloc(w->count, sizeof *name);
  const char **keys = calloc((size_t)w->naxes + 1, sizeof *keys);
  const char **values = calloc(w->count * (size_t)w->naxes + 1,
                               sizeof *values);
  int rc = v && name && keys && values ? 0 : MS_ENOMEM;
  for (int k = 0; !rc && k < w->naxes; k++) keys[k] = w->axis[k].key;
  /* the paths and reasons are malloc'd as long as they are: a study of
   * 100000 variants holds them all at once */
  for (size_t i = 0; !rc && i < w->count; i++) {
    char path[4300], why[1200];
    sweep_name(i, name[i], sizeof name[i]);
    snprintf(path, sizeof path, "%s/%s/report.json", w->out, name[i]);
    for (int k = 0; k < w->naxes; k++)
      values[i * (size_t)w->naxes + (size_t)k] = sweep_value(w, i, k);
    v[i] = (struct ms_study_variant){name[i], strdup(path),
                                     values + i * (size_t)w->naxes, NULL};
    if (!v[i].report) rc = MS_ENOMEM;
    if (!rc && !complete(w, i)) {
      struct stat st;
      snprintf(path, sizeof path, "%s/%s/log.txt", w->out, name[i]);
      if (stat(path, &st)) snprintf(why, sizeof why, "not run");
      else failure(w, i, 1 << 8, why, sizeof why);
      if (!(v[i].error = strdup(why))) rc = MS_ENOMEM;
    }
  }
  char err[1200] = "out of memory";
  struct ms_study_options o = {.struct_size = sizeof o, .out_dir = w->out,
                               .metric = w->metric};
  if (!rc)
    rc = ms_study_summary(keys, (size_t)w->naxes, v, w->count, &o, err,
                          sizeof err);
  if (rc) fprintf(stderr, "mergesplit: error: %s\n", err);
  for (size_t i = 0; v && i < w->count; i++)
    free((char *)v[i].report), free((char *)v[i].error);
  free(v), free(name), free(keys), free(values);
  return rc;
}

/* The table on standard output: summary.md as written. */
static void print_summary(const struct sweep *w) {
  char path[4200], line[8192];
  snprintf(path, sizeof path, "%s/summary.md", w->out);
  FILE *f = fopen(path, "r");
  while (f && fgets(line, sizeof line, f)) fputs(line, stdout);
  if (f) fclose(f);
  printf("summary: %s/summary.csv, %s/summary.md, charts in %s/plots\n",
         w->out, w->out, w->out);
}

static int setup(struct args *a, struct sweep *w) {
  memset(w, 0, sizeof *w);
  w->scene = a->scene, w->paths = a->paths, w->quiet = a->quiet;
  w->out = a->output ? a->output : "sweep";
  w->metric = a->metric;
  w->index = a->index;
  w->jobs = a->threads > 0 ? a->threads : 1;
  if (w->jobs > MAX_JOBS) return cli_usage_error("-j: %s at most", "256");
  ssize_t n = readlink("/proc/self/exe", w->self, sizeof w->self - 1);
  if (n <= 0) {
    fprintf(stderr, "mergesplit: error: cannot find the mergesplit "
            "program (/proc/self/exe): %s\n", strerror(errno));
    return EXIT_SIM;
  }
  w->self[n] = '\0';
  int rc = parse_axes(a, w);
  if (rc) return rc;
  if (a->metric && ms_study_metric_timing(a->metric) < 0)
    return cli_usage_error("--metric: no column '%s' in the summary",
                           a->metric);
  /* children are waited for: not reaped behind our back */
  signal(SIGCHLD, SIG_DFL);
  if (w->index >= 0 && sweep_ranks() > 1)
    return cli_usage_error("--index %s runs one variant in one process: "
                           "start it without mpirun -np N", "I");
  if (w->index >= 0 && (size_t)w->index >= w->count) {
    char buf[32];
    snprintf(buf, sizeof buf, "%zu", w->count);
    fprintf(stderr, "mergesplit: --index %ld: the sweep has %s variants "
            "(0 to %zu)\n", w->index, buf, w->count - 1);
    return EXIT_USAGE;
  }
  /* threads of each run: --run-threads, else the machine's cores shared
   * by the runs at once */
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int at_once = w->jobs * sweep_local_ranks();
  w->threads = a->run_threads > 0 ? a->run_threads
               : cores / at_once > 1 ? (int)(cores / at_once) : 1;
  if (!a->list && mkdir(w->out, 0777) && errno != EEXIST) {
    fprintf(stderr, "mergesplit: error: %s: cannot create the directory: "
            "%s\n", w->out, strerror(errno));
    return EXIT_IO;
  }
  return 0;
}

static void list(const struct sweep *w) {
  for (size_t i = 0; i < w->count; i++) said(w, i, "to run", -1.0);
  printf("%zu variants\n", w->count);
}

int cli_sweep(struct args *a) {
  struct sweep w;
  int rc = setup(a, &w);
  if (rc == 0 && a->list) list(&w);
  else if (rc == 0) {
    size_t failed = 0;
    int summarise = w.index < 0;
    rc = sweep_mpi(&w, &failed, &summarise);
    if (rc == -2) { /* each rank would run every variant */
      fprintf(stderr, "mergesplit: error: started by mpirun, but this "
              "mergesplit was built without MPI (configure --with-mpi)\n");
      rc = EXIT_USAGE, summarise = 0;
    } else if (rc < 0) {
      failed = sweep_work(&w, next_local, &w), rc = 0;
    }
    if (!rc && summarise) {
      rc = sweep_summary(&w) ? EXIT_IO : 0;
      if (!rc && !w.quiet) print_summary(&w);
    }
    if (!rc && failed) {
      fprintf(stderr, "mergesplit: %zu of %zu variants failed\n", failed,
              w.index >= 0 ? (size_t)1 : w.count);
      rc = EXIT_SIM;
    }
  }
  for (int k = 0; k < w.naxes; k++) free(w.axis[k].key);
  return rc;
}
