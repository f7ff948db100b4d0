/* `mergesplit plot REPORT.json`: PNG charts of a run's report. */
#include <stdio.h>

#include "cli.h"

static void plot_log(void *opaque, int level, const char *line) {
  (void)opaque;
  (void)level;
  printf("%s\n", line);
}

int cli_plot(struct args *a) {
  struct ms_plot_options o = {0};
  char err[1200];
  o.struct_size = sizeof o;
  o.out_dir = a->output;
  o.width = a->width;
  o.height = a->height;
  o.log = a->quiet ? NULL : plot_log;
  int rc = ms_plot(a->scene, &o, err, sizeof err);
  if (rc) fprintf(stderr, "mergesplit: error: %s\n", err);
  /* MS_EINVAL: an option the charts cannot take (too small a size) */
  return rc == MS_EINVAL ? EXIT_USAGE : cli_exit_code(rc);
}
