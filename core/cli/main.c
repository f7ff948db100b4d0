/* mergesplit — command-line front end of the coupling core: argument
 * parsing and the `plugins` command; run.c runs scenes, render.c draws
 * previews.  Exit codes: see cli.h, --help and mergesplit(1). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *usage_text =
    "usage: mergesplit run SCENE [-o DIR] [--frames N] [--threads N] [--scale S]\n"
    "                      [--max-particles N] [--blas-threads N]\n"
    "                      [--plugin-path DIR]... [--report FILE.json]\n"
    "                      [--resume CHECKPOINT] [--checkpoint-every N]\n"
    "                      [--method M] [--sync RULE] [--set KEY=VALUE]...\n"
    "                      [--no-output] [--quiet]\n"
    "       mergesplit check SCENE [--scale S] [--max-particles N]\n"
    "                      [--set KEY=VALUE]...\n"
    "                      [--plugin-path DIR]...\n"
    "       mergesplit render OUTDIR [--frame N] [--camera SPEC] [--size WxH]\n"
    "                      [--color-by FIELD] [--range R] [--fit WHAT]\n"
    "                      [--no-floor] [-o DIR] [--fps N] [--slow N]\n"
    "                      [--beside DIR]...\n"
    "                      [--movie] [--threads N] [--quiet]\n"
    "       mergesplit plot REPORT.json [-o DIR] [--size WxH] [--quiet]\n"
    "       mergesplit plugins [--plugin-path DIR]...\n"
    "       mergesplit compare SCENE [--methods LIST] [--frames N] [--scale S]\n"
    "                      [--max-particles N] [--threads N] [--set KEY=VALUE]...\n"
    "                      [-o DIR [--movie] [--fps N] [--slow N]]\n"
    "                      [--plugin-path DIR]...\n"
    "       mergesplit sweep SCENE --set KEY=V1,V2,...  [--set ...]... [--seeds N]\n"
    "                      [-o DIR] [-j N] [--run-threads T] [--index I] [--list]\n"
    "                      [--metric NAME]\n"
    "                      [--plugin-path DIR]... [--quiet]\n"
    "       mergesplit conformance PLUGIN_ID [--scene SCENE [--system NAME]]\n"
    "                      [--plugin-path DIR]...\n"
    "       mergesplit --version | --help\n";

static const char *help_text =
    "\n"
    "Couple particle solvers by merging colliding particles into\n"
    "meta-particles and splitting them back (Truong et al. 2021).\n"
    "\n"
    "commands:\n"
    "  run SCENE       simulate the scene file, write frames and a summary\n"
    "  check SCENE     validate the scene (loads plugins, creates systems)\n"
    "  render OUTDIR   draw PNG previews of the frames a run wrote to OUTDIR\n"
    "  plot REPORT     draw PNG charts of a run's report (run --report):\n"
    "                  energy, momentum, contacts, meta-particles, timing\n"
    "  plugins         list the solver plugins found, and refused files\n"
    "  compare SCENE   run SCENE once per collision method and print a table\n"
    "                  of penetrations, max speed, stability and cost\n"
    "  sweep SCENE     run SCENE once per combination of values (a study),\n"
    "                  serially, N at a time or over MPI ranks, and write\n"
    "                  a summary table and charts\n"
    "  conformance ID  check that plugin ID keeps the plugin contract; one\n"
    "                  line per check; exit 0 only if every check passes\n"
    "\n"
    "options of run and check:\n"
    "  -o, --output DIR      write frames to DIR (default: output.dir)\n"
    "  -n, --frames N        simulate N frames (default: duration * fps)\n"
    "  -j, --threads N       OpenMP threads (default: OMP_NUM_THREADS or all)\n"
    "      --blas-threads N  OpenBLAS threads of the implicit solvers'\n"
    "                        factorisations (default 1: results then do not\n"
    "                        depend on the machine; run only)\n"
    "      --scale S         overrides scene.scale (about S times as many\n"
    "                        particles; also for compare)\n"
    "      --max-particles N the most particles the scene's shapes may hold\n"
    "                        (default 50000000; also for compare)\n"
    "  -P, --plugin-path DIR also search DIR for plugins (repeatable)\n"
    "  -r, --report FILE     write a JSON report (per-frame totals, timing)\n"
    "      --resume FILE     continue the run saved in checkpoint FILE\n"
    "      --checkpoint-every N  overrides output.checkpoint_every (frames)\n"
    "      --method M        overrides coupling.method; M as in compare\n"
    "                        --methods (e.g. penalty:strong)\n"
    "      --sync RULE       overrides coupling.sync: momentum or paper\n"
    "      --set KEY=VALUE   overrides a key of the scene (repeatable), e.g.\n"
    "                        coupling.alpha=0.5, systems.[1].stiffness=2e4\n"
    "                        or systems.cloth.stiffness=2e4; VALUE as in\n"
    "                        the scene file\n"
    "      --no-output       write no files (frames, previews, checkpoints)\n"
    "  -q, --quiet           print errors only (no progress)\n"
    "\n"
    "options of render:\n"
    "      --frame N         only frame N (default: every frame)\n"
    "      --camera SPEC     AZ,EL[,ZOOM] (degrees) or\n"
    "                        EX,EY,EZ,TX,TY,TZ[,FOV]\n"
    "      --size WxH        image size in pixels (default 800x600)\n"
    "      --color-by FIELD  system (default), speed, or a point field\n"
    "      --range R         colour range: frame (each image its own; the\n"
    "                        default), run (one over every frame; the\n"
    "                        default of --movie) or MIN,MAX\n"
    "      --fit WHAT        the camera frames what moves (default) or all\n"
    "      --no-floor        do not draw the domain's floor\n"
    "  -o, --output DIR      write images to DIR (default: OUTDIR/preview)\n"
    "      --movie           also assemble movie.mp4 (needs ffmpeg)\n"
    "      --fps N           movie frames per second (default: real time)\n"
    "      --slow N          movie N times slower than real time\n"
    "      --beside DIR      draw the frames of the run in DIR beside\n"
    "                        OUTDIR's (repeatable, 7 at most)\n"
    "\n"
    "options of plot:\n"
    "  -o, --output DIR      write the charts to DIR (default: REPORT without\n"
    "                        .json, plus _plots)\n"
    "      --size WxH        image size in pixels (default 900x500)\n"
    "\n"
    "options of compare:\n"
    "      --methods LIST    comma-separated; merge-split, impulse, none,\n"
    "                        penalty[:weak|medium|strong], sph_force[:...]\n"
    "                        (default merge-split,penalty:weak,\n"
    "                        penalty:strong,sph_force:weak,impulse); strong\n"
    "                        is 10x and weak 0.1x coupling.stiffness\n"
    "  -o, --output DIR      write each method's frames to DIR/METHOD and\n"
    "                        draw them side by side in DIR/compare\n"
    "      --movie           also assemble DIR/compare/movie.mp4\n"
    "                        (--fps, --slow as for render)\n"
    "\n"
    "options of sweep:\n"
    "      --set KEY=V1,V2,...  the values of a key (repeatable): one run per\n"
    "                        combination, the last key varying fastest;\n"
    "                        commas inside [ ] ( ) { } or quotes do not split\n"
    "      --seeds N         also run each combination with scene.seed 1..N\n"
    "  -o, --output DIR      runs go to DIR/v0000, DIR/v0001, ... (frames,\n"
    "                        report.json, log.txt); the summary to\n"
    "                        DIR/summary.csv, DIR/summary.md and DIR/plots\n"
    "                        (default: sweep)\n"
    "  -j, --threads N       N runs at once (default 1)\n"
    "      --run-threads T   OpenMP threads of each run (default: the cores\n"
    "                        shared by the runs at once); results do not\n"
    "                        depend on T\n"
    "      --index I         run variant I only, no summary (a Slurm array\n"
    "                        task; a later sweep without --index summarises)\n"
    "      --list            print the variants and their number, run none\n"
    "      --metric NAME     the summary column charted against each key\n"
    "                        (default penetrations; max_speed, energy_end,\n"
    "                        energy_max_rise, ms_per_step, stage_ratio, ...)\n"
    "  a variant whose report is complete is not run again; a failed one\n"
    "  is a row with its error, the others go on, and the exit status is 1.\n"
    "  Under mpirun (a build configured --with-mpi) the ranks share the\n"
    "  variants and rank 0 writes the summary.\n"
    "\n"
    "options of conformance:\n"
    "      --scene SCENE     instantiate the plugin from SCENE (default: a\n"
    "                        built-in 0.1 m box with spacing 0.025)\n"
    "      --system NAME     the system of SCENE to test (default: the first\n"
    "                        of that plugin)\n"
    "\n"
    "plugins are searched in $(pkglibdir)/plugins, then in each directory of\n"
    "MERGESPLIT_PLUGIN_PATH (':'-separated), then in --plugin-path; for a\n"
    "solver id found twice the later directory wins.\n"
    "\n"
    "SIGINT or SIGTERM stops a run between two steps; it writes a checkpoint\n"
    "to OUTDIR/checkpoint.msck first (resume with --resume).\n"
    "\n"
    "exit status: 0 success, 1 simulation failed, 2 usage error, 3 invalid\n"
    "scene or checkpoint, 4 plugin problem, 5 output could not be written,\n"
    "130 stopped by SIGINT, 143 stopped by SIGTERM.\n";

int cli_exit_code(int status) {
  switch (status) {
  case MS_OK: return 0;
  case MS_ECONFIG:
  case MS_ETYPE:
  case MS_ESTATE:
  case MS_ERANGE: return EXIT_SCENE;
  case MS_EABI:
  case MS_EPLUGIN:
  case MS_ENOTSUP:
  case MS_ENOENT: return EXIT_PLUGIN;
  case MS_EIO: return EXIT_IO;
  default: return EXIT_SIM;
  }
}

int cli_usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "mergesplit: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n%s", usage_text);
  return EXIT_USAGE;
}

static int parse_count(const char *s, long long lo, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end || v < lo) return -1;
  *out = v;
  return 0;
}

/* A thread count in [1, 4096] given to option opt ("--threads"). */
static int parse_threads(const char *opt, const char *s, int *out) {
  long long v;
  if (parse_count(s, 1, &v) || v > 4096) {
    char fmt[64];
    snprintf(fmt, sizeof fmt, "%s needs a positive integer, not '%%s'", opt);
    return cli_usage_error(fmt, s);
  }
  *out = (int)v;
  return 0;
}

/* "WxH" */
static int parse_size(const char *s, struct args *a) {
  char *end;
  long w = strtol(s, &end, 10), h;
  if (end == s || (*end != 'x' && *end != 'X')) return -1;
  s = end + 1;
  h = strtol(s, &end, 10);
  if (end == s || *end || w < 16 || h < 16 || w > 8192 || h > 8192) return -1;
  a->width = (int)w;
  a->height = (int)h;
  return 0;
}

/* "MIN,MAX" */
static int parse_range(const char *s, double *r) {
  char *end;
  r[0] = strtod(s, &end);
  if (end == s || *end != ',') return -1;
  s = end + 1;
  r[1] = strtod(s, &end);
  if (end == s || *end || !isfinite(r[0]) || !isfinite(r[1]) || r[0] >= r[1])
    return -1;
  return 0;
}

enum { OPT_NO_OUTPUT = 256, OPT_SCALE, OPT_RESUME, OPT_FRAME, OPT_CAMERA, OPT_SIZE,
       OPT_COLOR, OPT_RANGE, OPT_MOVIE, OPT_SCENE, OPT_SYSTEM, OPT_METHODS,
       OPT_METHOD, OPT_SYNC, OPT_MAX_PARTICLES, OPT_CHECKPOINT_EVERY,
       OPT_FIT, OPT_NO_FLOOR, OPT_FPS, OPT_SLOW, OPT_BESIDE, OPT_SET,
       OPT_SEEDS, OPT_INDEX, OPT_LIST, OPT_METRIC, OPT_RUN_THREADS,
       OPT_BLAS_THREADS };

/* Options that belong to some commands only: the commands' letters
 * (r run/check, d render, l plot, k conformance, m compare); NULL: any
 * command. */
static const char *owner(int c) {
  switch (c) {
  case 'n': case OPT_SCALE: case OPT_MAX_PARTICLES: return "rm";
  case OPT_SET: return "rmw";
  case OPT_SEEDS: case OPT_INDEX: case OPT_LIST: case OPT_METRIC:
  case OPT_RUN_THREADS: return "w";
  case 'r': case OPT_RESUME: case OPT_NO_OUTPUT: case OPT_METHOD:
  case OPT_SYNC: case OPT_CHECKPOINT_EVERY: case OPT_BLAS_THREADS:
    return "r";
  case OPT_SIZE: return "dl";
  case OPT_FRAME: case OPT_CAMERA: case OPT_COLOR:
  case OPT_RANGE: case OPT_FIT: case OPT_NO_FLOOR: case OPT_BESIDE:
      return "d";
  case OPT_MOVIE: case OPT_FPS: case OPT_SLOW: return "dm";
  case OPT_SCENE: case OPT_SYSTEM: return "k";
  case OPT_METHODS: return "m";
  }
  return NULL;
}

static int parse_one(int c, struct args *a) {
  long long v;
  switch (c) {
  case 'o': a->output = optarg; break;
  case 'r': a->report = optarg; break;
  case 'q': a->quiet = 1; break;
  case OPT_NO_OUTPUT: a->no_output = 1; break;
  case OPT_RESUME: a->resume = optarg; break;
  case OPT_CAMERA: a->camera = optarg; break;
  case OPT_COLOR: a->color = optarg; break;
  case OPT_MOVIE: a->movie = 1; break;
  case OPT_NO_FLOOR: a->no_floor = 1; break;
  case OPT_BESIDE:
    if (a->nbeside == MAX_BESIDE)
      return cli_usage_error("--beside: %s runs at most", "7");
    a->beside[a->nbeside++] = optarg;
    break;
  case OPT_FIT:
    if (strcmp(optarg, "moving") && strcmp(optarg, "all"))
      return cli_usage_error("--fit needs moving or all, not '%s'", optarg);
    a->fit_all = !strcmp(optarg, "all");
    break;
  case OPT_FPS: case OPT_SLOW: {
    char *end;
    double x = strtod(optarg, &end);
    int bad = end == optarg || *end || !isfinite(x) ||
              (c == OPT_FPS ? !(x > 0 && x <= 1000) : !(x >= 1 && x <= 1e6));
    if (bad)
      return cli_usage_error(c == OPT_FPS ? "--fps needs a number in (0, "
                                            "1000], not '%s'"
                                          : "--slow needs a number in [1, "
                                            "1e6], not '%s'", optarg);
    if (c == OPT_FPS) a->fps = x;
    else a->slow = x;
    break;
  }
  case OPT_SCENE: a->conf_scene = optarg; break;
  case OPT_SYSTEM: a->conf_system = optarg; break;
  case OPT_METHODS: a->methods = optarg; break;
  case OPT_METHOD: a->method = optarg; break;
  case OPT_SYNC: a->sync = optarg; break;
  case OPT_LIST: a->list = 1; break;
  case OPT_RUN_THREADS:
    return parse_threads("--run-threads", optarg, &a->run_threads);
  case OPT_BLAS_THREADS:
    return parse_threads("--blas-threads", optarg, &a->blas_threads);
  case OPT_METRIC: a->metric = optarg; break;
  case OPT_SEEDS:
    if (parse_count(optarg, 1, &v) || v > 1000)
      return cli_usage_error("--seeds needs an integer in [1, 1000], not "
                             "'%s'", optarg);
    a->seeds = v;
    break;
  case OPT_INDEX:
    if (parse_count(optarg, 0, &v) || v > 99999999)
      return cli_usage_error("--index needs an integer >= 0, not '%s'",
                             optarg);
    a->index = (long)v;
    break;
  case OPT_SET:
    if (!strchr(optarg, '=') || optarg[0] == '=')
      return cli_usage_error("--set needs KEY=VALUE, not '%s'", optarg);
    if (a->nsets == MAX_SETS)
      return cli_usage_error("--set: %s at most", "256");
    a->sets[a->nsets++] = optarg;
    break;
  case OPT_SCALE: {
    char *end;
    a->scale = strtod(optarg, &end);
    if (end == optarg || *end || !(a->scale > 0.0) || a->scale > 1e6)
      return cli_usage_error("--scale needs a number in (0, 1e6], not '%s'",
                             optarg);
    break;
  }
  case OPT_CHECKPOINT_EVERY:
    if (parse_count(optarg, 1, &v))
      return cli_usage_error("--checkpoint-every needs a positive integer, "
                             "not '%s'", optarg);
    a->checkpoint_every = v;
    break;
  case OPT_MAX_PARTICLES:
    if (parse_count(optarg, 1, &v))
      return cli_usage_error("--max-particles needs a positive integer, not "
                             "'%s'", optarg);
    a->max_particles = (uint64_t)v;
    break;
  case 'n':
    if (parse_count(optarg, 1, &v))
      return cli_usage_error("--frames needs a positive integer, not '%s'",
                             optarg);
    a->frames = v;
    break;
  case OPT_FRAME:
    if (parse_count(optarg, 0, &v))
      return cli_usage_error("--frame needs an integer >= 0, not '%s'",
                             optarg);
    a->frame = v;
    break;
  case 'j': return parse_threads("--threads", optarg, &a->threads);
  case OPT_SIZE:
    if (parse_size(optarg, a))
      return cli_usage_error("--size needs WxH, each in [16, 8192], not '%s'",
                             optarg);
    break;
  case OPT_RANGE:
    a->range_mode = !strcmp(optarg, "frame") ? 1 : !strcmp(optarg, "run") ? 2 : 0;
    if (!a->range_mode && parse_range(optarg, a->range))
      return cli_usage_error("--range needs frame, run or MIN,MAX with MIN < "
                             "MAX, not '%s'", optarg);
    break;
  case 'P':
    if (a->npaths == MAX_PATHS)
      return cli_usage_error("too many --plugin-path options%s", "");
    a->paths[a->npaths++] = optarg;
    break;
  default:
    return cli_usage_error("invalid option%s", "");
  }
  return 0;
}

static int parse_args(int argc, char **argv, char cmd, struct args *a) {
  static const struct option opts[] = {
      {"output", required_argument, NULL, 'o'},
      {"frames", required_argument, NULL, 'n'},
      {"threads", required_argument, NULL, 'j'},
      {"plugin-path", required_argument, NULL, 'P'},
      {"report", required_argument, NULL, 'r'},
      {"no-output", no_argument, NULL, OPT_NO_OUTPUT},
      {"resume", required_argument, NULL, OPT_RESUME},
      {"quiet", no_argument, NULL, 'q'},
      {"frame", required_argument, NULL, OPT_FRAME},
      {"camera", required_argument, NULL, OPT_CAMERA},
      {"size", required_argument, NULL, OPT_SIZE},
      {"color-by", required_argument, NULL, OPT_COLOR},
      {"range", required_argument, NULL, OPT_RANGE},
      {"movie", no_argument, NULL, OPT_MOVIE},
      {"fit", required_argument, NULL, OPT_FIT},
      {"no-floor", no_argument, NULL, OPT_NO_FLOOR},
      {"fps", required_argument, NULL, OPT_FPS},
      {"slow", required_argument, NULL, OPT_SLOW},
      {"beside", required_argument, NULL, OPT_BESIDE},
      {"scene", required_argument, NULL, OPT_SCENE},
      {"system", required_argument, NULL, OPT_SYSTEM},
      {"methods", required_argument, NULL, OPT_METHODS},
      {"method", required_argument, NULL, OPT_METHOD},
      {"sync", required_argument, NULL, OPT_SYNC},
      {"scale", required_argument, NULL, OPT_SCALE},
      {"max-particles", required_argument, NULL, OPT_MAX_PARTICLES},
      {"checkpoint-every", required_argument, NULL, OPT_CHECKPOINT_EVERY},
      {"set", required_argument, NULL, OPT_SET},
      {"seeds", required_argument, NULL, OPT_SEEDS},
      {"index", required_argument, NULL, OPT_INDEX},
      {"list", no_argument, NULL, OPT_LIST},
      {"metric", required_argument, NULL, OPT_METRIC},
      {"run-threads", required_argument, NULL, OPT_RUN_THREADS},
      {"blas-threads", required_argument, NULL, OPT_BLAS_THREADS},
      {NULL, 0, NULL, 0}};
  int c, idx;
  optind = 1;
  opterr = 0; /* one message of ours instead of getopt's and ours */
  while ((c = getopt_long(argc, argv, ":o:n:j:P:r:q", opts, &idx)) != -1) {
    if (c == '?' || c == ':')
      return cli_usage_error(c == '?' ? "unknown option '%s'"
                                      : "option '%s' needs a value",
                             argv[optind - 1]);
    int rc = parse_one(c, a);
    if (rc) return rc;
    if (owner(c) && !strchr(owner(c), cmd)) {
      const char *name = opts[0].name;
      for (const struct option *o = opts; o->name; o++)
        if (o->val == c) name = o->name;
      return cli_usage_error("--%s is not an option of this command", name);
    }
  }
  a->paths[a->npaths] = NULL;
  a->sets[a->nsets] = NULL;
  return 0;
}

static int cmd_plugins(struct args *a) {
  ms_registry *reg;
  int rc = ms_registry_open(a->paths, &reg);
  if (rc) {
    fprintf(stderr, "mergesplit: scanning plugins: %s\n", ms_strerror(rc));
    return cli_exit_code(rc);
  }
  size_t n = ms_registry_count(reg);
  /* columns as wide as their longest entry */
  int w[3] = {2, 7, 4}; /* "ID", "VERSION", "NAME" */
  for (size_t i = 0; i < n; i++) {
    struct ms_plugin_info p;
    ms_registry_get(reg, i, &p);
    const char *col[3] = {p.id, p.version, p.name};
    for (int c = 0; c < 3; c++)
      if ((int)strlen(col[c]) > w[c]) w[c] = (int)strlen(col[c]);
  }
  if (n) printf("%-*s  %-*s  %-5s  %-*s  %s\n", w[0], "ID", w[1], "VERSION",
                "ABI", w[2], "NAME", "FILE");
  for (size_t i = 0; i < n; i++) {
    struct ms_plugin_info p;
    char abi[24];
    ms_registry_get(reg, i, &p);
    snprintf(abi, sizeof abi, "%d.%d", p.abi_major, p.abi_minor);
    printf("%-*s  %-*s  %-5s  %-*s  %s\n", w[0], p.id, w[1], p.version, abi,
           w[2], p.name, p.path);
    if (p.shadowed) printf("%-*s  (overrides %s)\n", w[0], "", p.shadowed);
  }
  size_t nr = ms_registry_refusal_count(reg);
  if (nr) printf("%srefused:\n", n ? "\n" : "");
  for (size_t i = 0; i < nr; i++) printf("  %s\n", ms_registry_refusal(reg, i));
  char dirs[1024];
  if (n == 0)
    fprintf(stderr, "mergesplit: error: %s\n",
            ms_registry_none_found(reg, dirs, sizeof dirs));
  ms_registry_close(reg);
  return n ? 0 : EXIT_PLUGIN;
}

static int print_version(void) {
  int major, minor, openblas;
  ms_abi_version(&major, &minor);
  const char *blas = ms_blas_info(&openblas);
  printf("mergesplit %s\nplugin ABI %d.%d\nBLAS: %s\n", ms_version(), major,
         minor, blas);
  return 0;
}

/* --help or -h anywhere before "--", after a command or in its place. */
static int wants_help(int argc, char **argv) {
  for (int i = 0; i < argc && strcmp(argv[i], "--"); i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
  return 0;
}

/* A sweep file: the sweep's options, one per line ("scene FILE", "set
 * KEY=V1,V2", "seeds N", "metric NAME"; # starts a comment), the scene
 * relative to the file.  Parsed again as the command line
 * "sweep [file's options] [command line's options] SCENE", so the
 * command line adds keys and overrides the rest. */
#define MAX_FILE_ARGS 600
static int sweep_file(const char *path, char **opts, int nopts,
                      struct args *a, char **store, size_t cap) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "mergesplit: error: %s: cannot read the sweep file: "
            "%s\n", path, strerror(errno));
    return EXIT_IO;
  }
  char *argv[MAX_FILE_ARGS + 8], line[4096], *scene = NULL;
  size_t used = 0;
  int n = 0, at = 0, rc = 0;
  argv[n++] = "sweep";
  while (!rc && fgets(line, sizeof line, f)) {
    at++;
    char *p = line + strspn(line, " \t"), *v;
    p[strcspn(p, "\r\n")] = '\0';
    if (!*p || *p == '#') continue;
    v = p + strcspn(p, " \t");
    if (*v) *v++ = '\0';
    v += strspn(v, " \t");
    for (char *e = v + strlen(v); e > v && strchr(" \t", e[-1]); e--) e[-1] = 0;
    int known = !strcmp(p, "scene") || !strcmp(p, "set") ||
                !strcmp(p, "seeds") || !strcmp(p, "metric");
    size_t len = strlen(v) + strlen(path) + 8;
    if (!known || !*v || n + 2 > MAX_FILE_ARGS || used + len > cap) {
      fprintf(stderr, "mergesplit: error: %s:%d: %s\n", path, at,
              !known ? "expected scene, set, seeds or metric, then a value"
              : !*v  ? "a value is missing"
                     : "too many lines");
      rc = EXIT_USAGE;
      break;
    }
    char *s = *store + used;
    used += len;
    if (!strcmp(p, "scene")) { /* relative to the sweep file */
      const char *slash = strrchr(path, '/');
      if (*v == '/' || !slash) snprintf(s, len, "%s", v);
      else snprintf(s, len, "%.*s/%s", (int)(slash - path), path, v);
      scene = s;
    } else {
      snprintf(s, len, "--%s", p);
      argv[n++] = s;
      s += strlen(s) + 1;
      argv[n++] = strcpy(s, v);
    }
  }
  fclose(f);
  if (!rc && !scene) {
    fprintf(stderr, "mergesplit: error: %s: no scene line\n", path);
    rc = EXIT_USAGE;
  }
  if (rc) return rc;
  for (int i = 0; i < nopts && n < MAX_FILE_ARGS; i++) argv[n++] = opts[i];
  argv[n++] = scene;
  argv[n] = NULL;
  memset(a, 0, sizeof *a);
  a->frame = -1, a->index = -1;
  if ((rc = parse_args(n, argv, 'w', a))) return rc;
  a->scene = scene;
  return 0;
}

static int command(int argc, char **argv) {
  struct args a;
  memset(&a, 0, sizeof a);
  a.frame = -1;
  a.index = -1;
  if (argc < 2) return cli_usage_error("missing command%s", "");
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) return print_version();
  if (!strcmp(cmd, "help") || wants_help(argc - 1, argv + 1)) {
    printf("%s%s", usage_text, help_text);
    return 0;
  }
  char kind = !strcmp(cmd, "run")       ? 'r'
              : !strcmp(cmd, "check")   ? 'c'
              : !strcmp(cmd, "render")  ? 'd'
              : !strcmp(cmd, "plugins") ? 'p'
              : !strcmp(cmd, "plot")    ? 'l'
              : !strcmp(cmd, "conformance") ? 'k'
              : !strcmp(cmd, "compare") ? 'm'
              : !strcmp(cmd, "sweep")   ? 'w'
                                        : 0;
  if (!kind) return cli_usage_error("unknown command '%s'", cmd);
  int rc = parse_args(argc - 1, argv + 1, kind == 'c' ? 'r' : kind, &a);
  if (rc) return rc;
  if (kind == 'p') {
    if (optind < argc - 1)
      return cli_usage_error("unexpected argument '%s'", argv[1 + optind]);
    return cmd_plugins(&a);
  }
  if (optind >= argc - 1)
    return cli_usage_error(kind == 'd'   ? "%s: missing OUTDIR"
                           : kind == 'l' ? "%s: missing REPORT"
                           : kind == 'k' ? "%s: missing PLUGIN_ID"
                                         : "%s: missing SCENE", cmd);
  if (optind < argc - 2)
    return cli_usage_error("unexpected argument '%s'", argv[2 + optind]);
  a.scene = argv[1 + optind];
  size_t len = strlen(a.scene);
  if (kind == 'w' && len > 6 && !strcmp(a.scene + len - 6, ".sweep")) {
    static char store[1 << 20];
    char *s = store;
    if ((rc = sweep_file(a.scene, argv + 2, optind - 1, &a, &s,
                         sizeof store)))
      return rc;
  }
  if (kind == 'd') return cli_render(&a);
  if (kind == 'l') return cli_plot(&a);
  if (kind == 'k') return cli_conformance(&a);
  if (kind == 'm') return cli_compare(&a);
  if (kind == 'w') return cli_sweep(&a);
  return cli_run(&a, kind == 'c');
}

/* What never reached standard output (a full disk: > /dev/full) is a
 * failure too, said on stderr. */
int main(int argc, char **argv) {
  int rc = command(argc, argv);
  errno = 0;
  if (fflush(stdout) == 0 && !ferror(stdout)) return rc;
  fprintf(stderr, "mergesplit: error: cannot write to standard output: "
          "%s\n", errno ? strerror(errno) : "write error");
  return rc ? rc : EXIT_IO;
}
