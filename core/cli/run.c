/* `mergesplit run` and `mergesplit check`: progress, signals, resume. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The signal that asked the run to stop (0: none).  The handler only sets
 * it; the library notices between two steps.  SA_RESETHAND: a second
 * signal ends the process the usual way. */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) { stop_signal = sig; }

static void catch_signals(void) {
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
  ms_sim_print_timing(sim, stdout);
}

int cli_run(struct args *a, int check_only) {
  struct ms_sim_options o = {0};
  char err[1200];
  ms_sim *sim;
  o.struct_size = sizeof o;
  o.threads = a->threads;
  o.frames = a->frames;
  o.scale = a->scale;
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
  if (!check_only) catch_signals();
  int rc = ms_sim_open(a->scene, &o, &sim, err, sizeof err);
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
