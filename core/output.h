/* Frame output: one VTK XML PolyData file (.vtp, appended raw binary) per
 * system and frame, a .pvd series per system and one for the whole scene.
 * Every file is written to a temporary name and renamed into place, so a
 * complete name never holds a half-written file. */
#ifndef MS_CORE_OUTPUT_H
#define MS_CORE_OUTPUT_H

#include <stdint.h>

#include <mergesplit/view.h>

#include "error.h"

struct ms__output;

int ms__output_open(struct ms__output **out, const char *dir, uint32_t nsys,
                    const char *const *names, struct ms__err *err);
/* Write frame `frame` (time t) of every system from its view. */
int ms__output_frame(struct ms__output *o, int64_t frame, double t,
                     const struct ms_view *views, struct ms__err *err);
void ms__output_close(struct ms__output *o);

/* Write one view as a .vtp file (atomically). */
int ms__vtp_write(const char *path, const struct ms_view *v,
                  struct ms__err *err);

#endif
