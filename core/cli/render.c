/* `mergesplit render OUTDIR`: PNG previews (and a movie) of a run's
 * frames. */
#include <stdio.h>

#include "cli.h"

static void render_log(void *opaque, int level, const char *line) {
  (void)opaque;
  (void)level;
  printf("%s\n", line);
}

int cli_render(struct args *a) {
  struct ms_render_options o = {0};
  char err[1200];
  o.struct_size = sizeof o;
  o.frame = a->frame;
  o.width = a->width;
  o.height = a->height;
  o.color_by = a->color;
  o.range[0] = a->range[0];
  o.range[1] = a->range[1];
  o.camera = a->camera;
  o.out_dir = a->output;
  o.movie = a->movie;
  /* each image its own range, but one range over a movie */
  o.range_per_frame = a->range_mode ? a->range_mode == 1 : !a->movie;
  o.fit_all = a->fit_all;
  o.no_floor = a->no_floor;
  o.fps = a->fps;
  o.slow = a->slow;
  a->beside[a->nbeside] = NULL;
  o.beside = a->nbeside ? a->beside : NULL;
  o.threads = a->threads;
  o.log = a->quiet ? NULL : render_log;
  int rc = ms_render(a->scene, &o, err, sizeof err);
  if (rc) fprintf(stderr, "mergesplit: error: %s\n", err);
  return cli_exit_code(rc);
}
