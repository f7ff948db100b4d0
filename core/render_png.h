/* Finishing a preview: caption, legend or colour bar, and the PNG file
 * (cairo draws the text and writes the PNG). */
#ifndef MS_CORE_RENDER_PNG_H
#define MS_CORE_RENDER_PNG_H

#include <stdint.h>

#include "error.h"

struct ms__overlay {
  const char *caption;       /* top left; NULL: none */
  uint32_t nsys;             /* legend: one swatch per system */
  const char *const *names;
  int by_value;              /* colour bar instead of the legend */
  const char *label;
  double lo, hi;
};

/* Write rgb (w * h * 3 bytes) with the overlay as a PNG, atomically. */
int ms__png_write(const char *path, const uint8_t *rgb, int w, int h,
                  const struct ms__overlay *ov, struct ms__err *err);

#endif
