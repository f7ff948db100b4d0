/* `mergesplit run` and `mergesplit check`: progress, signals, resume. */
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* The signal that asked the run to stop (0: none).  The handler only sets
 * it; the library notices between two steps.  SA_RESETHAND: a second
 * signal ends the process the usual way. */
static volatile sig_atomic_t stop_signal;
/* Loading a scene (sampling, plugins' set-up, a checkpoint) does not look
 * at stop_signal, and a large one takes seconds: a signal then ends the
 * process at once, as nothing has been simulated. */
static volatile sig_atomic_t loading;

/* Half a second: setitimer is a plain system call on Linux. */
static void arm_alarm(void) {
  struct itimerval t = {{0, 0}, {0, 500000}};
  setitimer(ITIMER_REAL, &t, NULL);
}

static void on_signal(int sig) {
  stop_signal = sig;
  if (!loading) {
    arm_alarm(); /* on_alarm: a plugin that does not return */
    return;
  }
  static const char in[] = "mergesplit: SIGINT while loading the scene: "
                           "stopped before the first step\n";
  static const char te[] = "mergesplit: SIGTERM while loading the scene: "
                           "stopped before the first step\n";
  if (sig == SIGINT) (void)!write(2, in, sizeof in - 1);
  else (void)!write(2, te, sizeof te - 1);
  _exit(EXIT_SIGNAL + sig);
}

static void on_alarm(int sig);

static void catch_signals(void) {
  signal(SIGALRM, on_alarm);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  /* past a file size limit (ulimit -f) a write fails with EFBIG, and the
   * run stops with a line naming the file, instead of dying unexplained */
  signal(SIGXFSZ, SIG_IGN);
}

/* A plugin that crashes or calls exit(): one line naming its file, the
 * system and the entry point, exit status 4 (frames completed before
 * are in place; the one being written is not).  Only what is
 * async-signal-safe: write(2) and _exit(2). */
static void put(const char *s) {
  size_t n = strlen(s);
  while (n) {
    ssize_t w = write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w, n -= (size_t)w;
  }
}

static int report_plugin(const char *what, const char *how) {
  const char *sys, *fn, *file = ms_plugin_call_now(&sys, &fn);
  if (!file) return 0;
  if (isatty(STDERR_FILENO)) put("\r\033[K"); /* over a progress bar */
  put("mergesplit: error: plugin "), put(file), put(" (system "),
      put(sys ? sys : "?"), put(") "), put(what), put(" in "),
      put(fn ? fn : "?"), put("()"), put(how), put("\n");
  return 1;
}

/* A signal asked the run to stop, and 0.5 s later a plugin call has
 * still not returned: a plugin that hangs.  Name it and stop without a
 * checkpoint (the step is inside it).  Outside plugin calls the core is
 * stopping by itself (a checkpoint being written): wait on. */
static void on_alarm(int sig) {
  const char *sys, *fn, *file = ms_plugin_call_any(&sys, &fn);
  if (!file) {
    arm_alarm();
    return;
  }
  if (isatty(STDERR_FILENO)) put("\r\033[K");
  put("mergesplit: "), put(stop_signal == SIGINT ? "SIGINT" : "SIGTERM"),
      put(": plugin "), put(file), put(" (system "), put(sys ? sys : "?"),
      put(") did not return from "), put(fn ? fn : "?"),
      put("() within 0.5 s; stopped without a checkpoint\n");
  _exit(EXIT_SIGNAL + stop_signal);
}

static void on_crash(int sig) {
  const char *name = sig == SIGSEGV ? ": SIGSEGV" : sig == SIGBUS ? ": SIGBUS"
                     : sig == SIGFPE ? ": SIGFPE" : sig == SIGILL ? ": SIGILL"
                                                  : ": SIGABRT";
  if (report_plugin("crashed", name)) _exit(EXIT_PLUGIN);
  signal(sig, SIG_DFL); /* ours: die the usual way */
  raise(sig);
}

static void on_exit_call(void) {
  if (report_plugin("called exit()", "")) _exit(EXIT_PLUGIN);
}

static void catch_plugin_failures(void) {
  static char stack[1 << 16]; /* a stack overflow still gets its line */
  stack_t ss = {.ss_sp = stack, .ss_size = sizeof stack};
  sigaltstack(&ss, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_crash;
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
    sigaction(sigs[i], &sa, NULL);
  atexit(on_exit_call);
}

void cli_log_sink(void *opaque, int level, const char *line) {
  (void)opaque;
  progress_clear();
  fprintf(stderr, "mergesplit: %s%s\n",
          level == MS_SINK_ERROR  ? "error: "
          : level == MS_SINK_WARN ? "warning: "
                                  : "",
          line);
}

static void summary(const struct args *a, ms_sim *sim) {
  printf("%s: %lld frames, %llu steps, t = %g s\n", a->scene,
         (long long)ms_sim_frames_done(sim),
         (unsigned long long)ms_sim_steps(sim), ms_sim_time(sim));
  const char *dir = ms_sim_output_dir(sim);
  char pvd[4200];
  struct stat st;
  if (dir) snprintf(pvd, sizeof pvd, "%s/scene.pvd", dir);
  if (dir && stat(pvd, &st) == 0)
    printf("output: %s (open %s in ParaView, or draw PNG previews with "
           "'mergesplit render %s')\n", dir, pvd, dir);
  else if (dir)
    printf("output: %s\n", dir);
  ms_sim_print_timing(sim, stdout);
}

int cli_run(struct args *a, int check_only) {
  struct ms_sim_options o = {0};
  char err[1200];
  ms_sim *sim;
  o.struct_size = sizeof o;
  o.threads = a->threads;
  o.blas_threads = a->blas_threads;
  o.frames = a->frames;
  o.scale = a->scale;
  o.max_particles = a->max_particles;
  o.checkpoint_every = a->checkpoint_every;
  o.overrides = a->sets;
  char method[32];
  if (a->method) {
    if (cli_parse_method(a->method, method, sizeof method,
                         &o.stiffness_scale))
      return cli_usage_error("unknown method '%s'", a->method);
    o.method = method;
  }
  if (a->sync && strcmp(a->sync, "momentum") && strcmp(a->sync, "paper"))
    return cli_usage_error("--sync needs momentum or paper, not '%s'",
                           a->sync);
  o.sync = a->sync;
  o.plugin_paths = a->paths;
  o.output_dir = a->output;
  o.report_path = check_only ? NULL : a->report;
  o.no_output = check_only || a->no_output;
  o.verbosity = a->quiet ? MS_SINK_ERROR : MS_SINK_INFO;
  o.log = cli_log_sink;
  o.resume_path = check_only ? NULL : a->resume;
  o.interrupt = &stop_signal;
  o.progress = progress_update;
  loading = 1;
  if (!check_only) catch_signals();
  catch_plugin_failures();
  int rc = ms_sim_open(a->scene, &o, &sim, err, sizeof err);
  loading = 0;
  if (rc) {
    fprintf(stderr, "mergesplit: error: %s\n", err);
    return stop_signal ? EXIT_SIGNAL + stop_signal : cli_exit_code(rc);
  }
  if (check_only) {
    printf("%s: OK (%lld frames)\n", a->scene,
           (long long)ms_sim_frames_total(sim));
    ms_sim_close(sim);
    return 0;
  }
  progress_start(a->quiet, ms_sim_time(sim), ms_sim_steps(sim));
  rc = ms_sim_run(sim);
  progress_finish();
  int code = cli_exit_code(rc);
  if (rc == MS_EINTR && stop_signal) {
    fprintf(stderr, "mergesplit: %s: %s\n",
            stop_signal == SIGINT ? "SIGINT" : "SIGTERM", ms_sim_error(sim));
    code = EXIT_SIGNAL + stop_signal;
  } else if (rc) {
    fprintf(stderr, "mergesplit: error: %s\n", ms_sim_error(sim));
  } else if (!a->quiet) {
    summary(a, sim);
  }
  ms_sim_close(sim);
  return code;
}
