/* Previews: PNG images of frames, written while a run goes
 * (output.preview = true) or afterwards from its files (ms_render). */
#ifndef MS_CORE_PREVIEW_H
#define MS_CORE_PREVIEW_H

#include <stdint.h>

#include <mergesplit/view.h>

#include "error.h"
#include "render.h"
#include "scene.h"

/* Look and camera shared by both ways of making previews. */
struct ms__look {
  int w, h;
  const char *color;     /* "system", "speed" or a field name */
  double range[2];       /* NaN: automatic */
  double cam[7];
  int ncam;              /* 0: default orbit */
  double up[3];
};

/* Default orbit angles [degrees]. */
#define MS__CAM_AZ 25.0
#define MS__CAM_EL 20.0

int ms__look_camera(const struct ms__look *lk, const double lo[3],
                    const double hi[3], struct ms__camera *cam);
/* Render splats and write the PNG (caption, legend / colour bar). */
int ms__preview_image(const char *path, const struct ms__splats *s,
                      const struct ms__camera *cam, const struct ms__look *lk,
                      double lo, double hi, const char *caption,
                      const char *const *names, uint32_t nsys,
                      struct ms__err *err);

struct ms__preview;

int ms__preview_open(struct ms__preview **p, const struct ms__scene *sc,
                     const char *dir, struct ms__err *err);
int ms__preview_frame(struct ms__preview *p, int64_t frame, double t,
                      const struct ms_view *views, const char *const *names,
                      uint32_t nsys, struct ms__err *err);
void ms__preview_close(struct ms__preview *p);

#endif
