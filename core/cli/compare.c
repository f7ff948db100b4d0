/* mergesplit compare SCENE --methods LIST: run one scene once per collision
 * method and print a side-by-side table (paper Sec. 6.1).  A method is
 * merge-split, impulse, none, or penalty / sph_force with an optional
 * strength: weak, medium (the scene's coupling.stiffness) or strong, an
 * order of magnitude apart. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define DEFAULT_METHODS \
  "merge-split,penalty:weak,penalty:strong,sph_force:weak,impulse"

struct outcome {
  char label[48];
  char dir[4096]; /* -o DIR: DIR/LABEL, ':' as '_' */
  int status;
  char error[256];
  double fail_time;
  struct ms_metrics m;
};

int cli_parse_method(const char *spec, char *method, size_t len,
                     double *scale) {
  const char *colon = strchr(spec, ':');
  size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
  if (n == 0 || n >= len) return -1;
  memcpy(method, spec, n);
  method[n] = '\0';
  *scale = 1.0;
  if (!colon) return 0;
  if (strcmp(method, "penalty") && strcmp(method, "sph_force")) return -1;
  const char *s = colon + 1;
  if (!strcmp(s, "weak")) *scale = 0.1;
  else if (!strcmp(s, "medium")) *scale = 1.0;
  else if (!strcmp(s, "strong")) *scale = 10.0;
  else return -1;
  return 0;
}

static void quiet(void *o, int level, const char *line) {
  (void)o, (void)level, (void)line;
}

static void run_one(struct args *a, const char *spec, struct outcome *r) {
  char method[32];
  double scale;
  memset(r, 0, sizeof *r);
  snprintf(r->label, sizeof r->label, "%s", spec);
  if (cli_parse_method(spec, method, sizeof method, &scale)) {
    r->status = MS_EINVAL;
    snprintf(r->error, sizeof r->error, "unknown method '%s'", spec);
    return;
  }
  if (a->output) {
    int len = snprintf(r->dir, sizeof r->dir, "%s/%s", a->output, spec);
    if (len < 0 || (size_t)len >= sizeof r->dir) {
      r->status = MS_EINVAL;
      snprintf(r->error, sizeof r->error, "-o: the directory name is too "
               "long");
      return;
    }
    for (char *c = r->dir + strlen(a->output); *c; c++)
      if (*c == ':') *c = '_';
  }
  struct ms_sim_options o = {.struct_size = sizeof o, .threads = a->threads,
                             .frames = a->frames, .plugin_paths = a->paths,
                             .no_output = !a->output,
                             .output_dir = a->output ? r->dir : NULL,
                             .verbosity = MS_SINK_ERROR,
                             .log = quiet, .method = method,
                             .stiffness_scale = scale, .scale = a->scale,
                             .max_particles = a->max_particles,
                             .overrides = a->sets};
  ms_sim *sim;
  r->status = ms_sim_open(a->scene, &o, &sim, r->error, sizeof r->error);
  if (r->status) return;
  r->status = ms_sim_run(sim);
  if (r->status) {
    snprintf(r->error, sizeof r->error, "%s", ms_sim_error(sim));
    r->fail_time = ms_sim_time(sim);
  }
  r->m.struct_size = sizeof r->m;
  ms_sim_metrics(sim, &r->m);
  ms_sim_close(sim);
}

static void print_table(const struct outcome *r, int n) {
  printf("%-18s %14s %9s %15s %-24s %10s\n", "method", "penetrations",
         "crossings", "max speed [m/s]", "stability", "ms/step");
  printf("%-18s %14s %9s %15s %-24s %10s\n", "", "(end / max)", "", "", "",
         "");
  for (int i = 0; i < n; i++) {
    const struct ms_metrics *m = &r[i].m;
    char pen[32], stab[64];
    snprintf(pen, sizeof pen, "%llu / %llu",
             (unsigned long long)m->penetrations,
             (unsigned long long)m->max_penetrations);
    if (r[i].status == MS_OK)
      snprintf(stab, sizeof stab, "stable");
    else if (r[i].status == MS_ENUMERIC)
      snprintf(stab, sizeof stab, "UNSTABLE at t = %.3g s", r[i].fail_time);
    else
      snprintf(stab, sizeof stab, "FAILED (see below)");
    printf("%-18s %14s %9llu %15.4g %-24s %10.3f\n", r[i].label, pen,
           (unsigned long long)m->sheet_crossings, m->max_speed, stab,
           m->steps ? 1e3 * m->step_seconds / (double)m->steps : 0.0);
  }
  for (int i = 0; i < n; i++)
    if (r[i].status) printf("%s: %s\n", r[i].label, r[i].error);
}

/* -o DIR: the methods that ran to the end, side by side in DIR/compare,
 * one camera and one colour range over all. */
static int draw_side_by_side(struct args *a, const struct outcome *r,
                             int n) {
  const char *dirs[MAX_BESIDE + 2];
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (r[i].status == MS_OK && k <= MAX_BESIDE) dirs[k++] = r[i].dir;
    else fprintf(stderr, "mergesplit: %s left out of the side-by-side "
                 "images: %s\n", r[i].label, r[i].status == MS_OK
                 ? "8 runs at most" : "it did not run to the end");
  }
  if (!k) return MS_OK;
  dirs[k] = NULL;
  char out[4200], err[1200];
  snprintf(out, sizeof out, "%s/compare", a->output);
  struct ms_render_options o = {.struct_size = sizeof o, .frame = -1,
                                .width = 480, .height = 360,
                                .out_dir = out, .movie = a->movie,
                                .threads = a->threads,
                                .log = a->quiet ? NULL : cli_log_sink,
                                .fps = a->fps, .slow = a->slow,
                                .beside = k > 1 ? dirs + 1 : NULL};
  int rc = ms_render(dirs[0], &o, err, sizeof err);
  if (rc) fprintf(stderr, "mergesplit: error: %s\n", err);
  return rc;
}

int cli_compare(struct args *a) {
  if ((a->movie || a->fps > 0 || a->slow > 0) && !a->output)
    return cli_usage_error("--movie, --fps and --slow of compare need -o "
                           "DIR%s", "");
  char *list = strdup(a->methods ? a->methods : DEFAULT_METHODS);
  struct outcome *r = calloc(64, sizeof *r);
  int n = 0, worst = 0;
  if (!list || !r) {
    free(list), free(r);
    fprintf(stderr, "mergesplit: error: out of memory\n");
    return EXIT_SIM;
  }
  for (char *save, *tok = strtok_r(list, ",", &save); tok && n < 64;
       tok = strtok_r(NULL, ",", &save)) {
    if (!a->quiet) fprintf(stderr, "mergesplit: running %s ...\n", tok);
    run_one(a, tok, &r[n]);
    /* a scene that cannot even be opened fails the same for every method */
    if (r[n].status && r[n].status != MS_ENUMERIC && r[n].m.steps == 0 &&
        r[n].status != MS_EINVAL) {
      fprintf(stderr, "mergesplit: error: %s\n", r[n].error);
      free(list), free(r);
      return cli_exit_code(r[n].status);
    }
    if (r[n].status == MS_EINVAL) {
      fprintf(stderr, "mergesplit: error: %s\n", r[n].error);
      free(list), free(r);
      return EXIT_USAGE;
    }
    n++;
  }
  print_table(r, n);
  for (int i = 0; i < n; i++)
    if (r[i].status && r[i].status != MS_ENUMERIC) worst = r[i].status;
  if (a->output) {
    int rc = draw_side_by_side(a, r, n);
    if (rc && !worst) worst = rc;
  }
  free(list), free(r);
  return worst ? cli_exit_code(worst) : 0;
}
