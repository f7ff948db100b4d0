/* mergesplit — command-line front end of the coupling core.
 *
 * Exit codes (documented in --help and mergesplit(1)):
 *   0 success, 1 the simulation failed, 2 usage error, 3 invalid scene,
 *   4 plugin problem, 5 output could not be written. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/core.h>

enum {
  EXIT_SIM = 1,
  EXIT_USAGE = 2,
  EXIT_SCENE = 3,
  EXIT_PLUGIN = 4,
  EXIT_IO = 5
};

#define MAX_PATHS 64

static const char *usage_text =
    "usage: mergesplit run SCENE [-o DIR] [--frames N] [--threads N]\n"
    "                      [--plugin-path DIR]... [--report FILE.json]\n"
    "                      [--no-output] [--quiet]\n"
    "       mergesplit check SCENE [--plugin-path DIR]...\n"
    "       mergesplit plugins [--plugin-path DIR]...\n"
    "       mergesplit --version | --help\n";

static const char *help_text =
    "\n"
    "Couple particle solvers by merging colliding particles into\n"
    "meta-particles and splitting them back (Truong et al. 2021).\n"
    "\n"
    "commands:\n"
    "  run SCENE       simulate the scene file, write frames and a summary\n"
    "  check SCENE     validate the scene (loads plugins, creates systems)\n"
    "  plugins         list the solver plugins found, and refused files\n"
    "\n"
    "options:\n"
    "  -o, --output DIR      write frames to DIR (default: output.dir)\n"
    "  -n, --frames N        simulate N frames (default: duration * fps)\n"
    "  -j, --threads N       OpenMP threads (default: OMP_NUM_THREADS or all)\n"
    "  -P, --plugin-path DIR also search DIR for plugins (repeatable)\n"
    "  -r, --report FILE     write a JSON report (per-frame totals, timing)\n"
    "      --no-output       write no frame files\n"
    "  -q, --quiet           print errors only\n"
    "\n"
    "plugins are searched in $(pkglibdir)/plugins, then in each directory of\n"
    "MERGESPLIT_PLUGIN_PATH (':'-separated), then in --plugin-path; for a\n"
    "solver id found twice the later directory wins.\n"
    "\n"
    "exit status: 0 success, 1 simulation failed, 2 usage error, 3 invalid\n"
    "scene, 4 plugin problem, 5 output could not be written.\n";

static int exit_code(int status) {
  switch (status) {
  case MS_OK: return 0;
  case MS_ECONFIG:
  case MS_ETYPE:
  case MS_ERANGE: return EXIT_SCENE;
  case MS_EABI:
  case MS_EPLUGIN:
  case MS_ENOENT: return EXIT_PLUGIN;
  case MS_EIO: return EXIT_IO;
  default: return EXIT_SIM;
  }
}

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "mergesplit: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n%s", usage_text);
  return EXIT_USAGE;
}

struct args {
  const char *scene, *output, *report;
  const char *paths[MAX_PATHS + 1];
  int npaths, threads, no_output, quiet;
  long long frames;
};

static int parse_count(const char *s, long long lo, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end || v < lo) return -1;
  *out = v;
  return 0;
}

static int parse_args(int argc, char **argv, struct args *a) {
  static const struct option opts[] = {
      {"output", required_argument, NULL, 'o'},
      {"frames", required_argument, NULL, 'n'},
      {"threads", required_argument, NULL, 'j'},
      {"plugin-path", required_argument, NULL, 'P'},
      {"report", required_argument, NULL, 'r'},
      {"no-output", no_argument, NULL, 1},
      {"quiet", no_argument, NULL, 'q'},
      {NULL, 0, NULL, 0}};
  int c;
  long long v;
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:n:j:P:r:q", opts, NULL)) != -1) {
    switch (c) {
    case 'o': a->output = optarg; break;
    case 'r': a->report = optarg; break;
    case 'q': a->quiet = 1; break;
    case 1: a->no_output = 1; break;
    case 'n':
      if (parse_count(optarg, 1, &v))
        return usage_error("--frames needs a positive integer, not '%s'",
                           optarg);
      a->frames = v;
      break;
    case 'j':
      if (parse_count(optarg, 1, &v) || v > 4096)
        return usage_error("--threads needs a positive integer, not '%s'",
                           optarg);
      a->threads = (int)v;
      break;
    case 'P':
      if (a->npaths == MAX_PATHS)
        return usage_error("too many --plugin-path options%s", "");
      a->paths[a->npaths++] = optarg;
      break;
    default:
      return usage_error("invalid option%s", "");
    }
  }
  a->paths[a->npaths] = NULL;
  return 0;
}

static int cmd_plugins(struct args *a) {
  ms_registry *reg;
  int rc = ms_registry_open(a->paths, &reg);
  if (rc) {
    fprintf(stderr, "mergesplit: scanning plugins: %s\n", ms_strerror(rc));
    return exit_code(rc);
  }
  size_t n = ms_registry_count(reg);
  printf("%-16s %-10s %-5s %-40s %s\n", "ID", "VERSION", "ABI", "NAME",
         "FILE");
  for (size_t i = 0; i < n; i++) {
    struct ms_plugin_info p;
    ms_registry_get(reg, i, &p);
    printf("%-16s %-10s %d.%-3d %-40s %s\n", p.id, p.version, p.abi_major,
           p.abi_minor, p.name, p.path);
    if (p.shadowed) printf("%-16s (overrides %s)\n", "", p.shadowed);
  }
  if (n == 0) printf("(no plugins found)\n");
  size_t nr = ms_registry_refusal_count(reg);
  if (nr) printf("\nrefused:\n");
  for (size_t i = 0; i < nr; i++) printf("  %s\n", ms_registry_refusal(reg, i));
  ms_registry_close(reg);
  return 0;
}

static void log_sink(void *opaque, int level, const char *line) {
  (void)opaque;
  fprintf(stderr, "mergesplit: %s%s\n",
          level == MS_SINK_ERROR  ? "error: "
          : level == MS_SINK_WARN ? "warning: "
                                  : "",
          line);
}

static int cmd_sim(struct args *a, int check_only) {
  struct ms_sim_options o = {0};
  char err[1200];
  ms_sim *sim;
  o.struct_size = sizeof o;
  o.threads = a->threads;
  o.frames = a->frames;
  o.plugin_paths = a->paths;
  o.output_dir = a->output;
  o.report_path = check_only ? NULL : a->report;
  o.no_output = check_only || a->no_output;
  o.verbosity = a->quiet ? MS_SINK_ERROR : MS_SINK_INFO;
  o.log = log_sink;
  int rc = ms_sim_open(a->scene, &o, &sim, err, sizeof err);
  if (rc) {
    fprintf(stderr, "mergesplit: error: %s\n", err);
    return exit_code(rc);
  }
  if (check_only) {
    printf("%s: OK (%lld frames)\n", a->scene,
           (long long)ms_sim_frames_total(sim));
    ms_sim_close(sim);
    return 0;
  }
  rc = ms_sim_run(sim);
  if (rc) {
    fprintf(stderr, "mergesplit: error: %s\n", ms_sim_error(sim));
  } else if (!a->quiet) {
    printf("%s: %lld frames, %llu steps, t = %g s\n", a->scene,
           (long long)ms_sim_frames_done(sim),
           (unsigned long long)ms_sim_steps(sim), ms_sim_time(sim));
    ms_sim_print_timing(sim, stdout);
  }
  ms_sim_close(sim);
  return exit_code(rc);
}

static int print_version(void) {
  int major, minor, openblas;
  ms_abi_version(&major, &minor);
  const char *blas = ms_blas_info(&openblas);
  printf("mergesplit %s\nplugin ABI %d.%d\nBLAS: %s\n", ms_version(), major,
         minor, blas);
  return 0;
}

int main(int argc, char **argv) {
  struct args a;
  memset(&a, 0, sizeof a);
  if (argc < 2) return usage_error("missing command%s", "");
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) return print_version();
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    printf("%s%s", usage_text, help_text);
    return 0;
  }
  int is_run = !strcmp(cmd, "run"), is_check = !strcmp(cmd, "check");
  if (!is_run && !is_check && strcmp(cmd, "plugins"))
    return usage_error("unknown command '%s'", cmd);
  int rc = parse_args(argc - 1, argv + 1, &a);
  if (rc) return rc;
  if (!is_run && !is_check) {
    if (optind < argc - 1)
      return usage_error("unexpected argument '%s'", argv[1 + optind]);
    return cmd_plugins(&a);
  }
  if (optind >= argc - 1) return usage_error("%s: missing SCENE", cmd);
  if (optind < argc - 2)
    return usage_error("unexpected argument '%s'", argv[2 + optind]);
  a.scene = argv[1 + optind];
  return cmd_sim(&a, is_check);
}
