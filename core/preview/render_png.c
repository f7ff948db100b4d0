/* Overlay and PNG output through cairo. */
#include "preview.h"

#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mergesplit/status.h>

#include "../io/io.h"

static cairo_status_t to_file(void *closure, const unsigned char *data,
                              unsigned int len) {
  FILE *f = closure;
  return fwrite(data, 1, len, f) == len ? CAIRO_STATUS_SUCCESS
                                        : CAIRO_STATUS_WRITE_ERROR;
}

static void text(cairo_t *cr, double x, double y, const char *s) {
  cairo_move_to(cr, x, y);
  cairo_show_text(cr, s);
}

static void legend(cairo_t *cr, const struct ms__overlay *ov, double fs,
                   double y) {
  for (uint32_t i = 0; i < ov->nsys; i++) {
    if (!ov->names[i]) continue; /* a part drawn as no particles */
    float c[3];
    ms__palette(i, c);
    cairo_set_source_rgb(cr, c[0], c[1], c[2]);
    cairo_arc(cr, fs, y - 0.35 * fs, 0.45 * fs, 0, 6.2832);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text(cr, 1.8 * fs, y, ov->names[i]);
    y += 1.5 * fs;
  }
}

/* The unit of a field the shipped solvers and the core write (view.h,
 * the solvers' pages); "" for a pure number or a field we do not know. */
const char *ms__field_unit(const char *name) {
  static const char *const units[][2] = {
      {"speed", "m/s"},     {"velocity", "m/s"},  {"position", "m"},
      {"radius", "m"},      {"mass", "kg"},       {"density", "kg/m^3"},
      {"pressure", "Pa"},   {"temperature", "K"}, {"specific_heat", "J/(kg K)"},
      {"stretch", ""},      {"damage", ""},       {"meta", ""},
      {"system", ""}};
  for (size_t k = 0; k < sizeof units / sizeof *units; k++)
    if (!strcmp(name, units[k][0])) return units[k][1];
  return "";
}

/* Equal ends (a field constant over the image): one label, no scale. */
static int degenerate(const struct ms__overlay *ov) {
  double s = fmax(fabs(ov->lo), fabs(ov->hi));
  return !(ov->hi - ov->lo > 1e-12 * (s > 0 ? s : 1));
}

static void colour_bar(cairo_t *cr, const struct ms__overlay *ov, int w,
                       int h, double fs) {
  double bw = fs, bh = 0.6 * h, x = w - 5.5 * fs, y = 0.2 * h;
  cairo_pattern_t *g = cairo_pattern_create_linear(0, y + bh, 0, y);
  for (int k = 0; k <= 16; k++) {
    float c[3];
    ms__colormap(k / 16.0, c);
    cairo_pattern_add_color_stop_rgb(g, k / 16.0, c[0], c[1], c[2]);
  }
  cairo_rectangle(cr, x, y, bw, bh);
  cairo_set_source(cr, g);
  cairo_fill_preserve(cr);
  cairo_pattern_destroy(g);
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  cairo_set_line_width(cr, 1);
  cairo_stroke(cr);
  char buf[64], label[160];
  if (degenerate(ov)) { /* every particle the same colour: say the value */
    snprintf(buf, sizeof buf, "all %.4g", ov->lo);
    text(cr, x + bw + 0.3 * fs, y + 0.5 * bh + 0.35 * fs, buf);
  } else {
    for (int k = 0; k <= 2; k++) {
      snprintf(buf, sizeof buf, "%.3g", ov->lo + 0.5 * k * (ov->hi - ov->lo));
      text(cr, x + bw + 0.3 * fs, y + bh - 0.5 * k * bh + 0.35 * fs, buf);
    }
  }
  const char *unit = ms__field_unit(ov->label);
  snprintf(label, sizeof label, unit[0] ? "%s [%s]" : "%s", ov->label, unit);
  cairo_text_extents_t te;
  cairo_text_extents(cr, label, &te);
  double lx = x + 0.5 * bw - 0.5 * te.x_advance;
  if (lx + te.x_advance > w - 2) lx = w - 2 - te.x_advance;
  text(cr, lx, y - 0.8 * fs, label);
}

/* The overlay of a tile w x h whose left edge is at x0. */
static void overlay(cairo_surface_t *sf, const struct ms__overlay *ov, int x0,
                    int w, int h) {
  cairo_t *cr = cairo_create(sf);
  cairo_translate(cr, x0, 0);
  cairo_rectangle(cr, 0, 0, w, h);
  cairo_clip(cr);
  double fs = h / 40.0 < 11 ? 11 : h / 40.0;
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                         CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, fs);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  if (ov->caption) text(cr, 0.6 * fs, 1.5 * fs, ov->caption);
  if (ov->by_value) colour_bar(cr, ov, w, h, fs);
  else legend(cr, ov, fs, 3.2 * fs);
  cairo_destroy(cr);
}

int ms__png_write(const char *path, const uint8_t *rgb, int w, int h,
                  const struct ms__overlay *ov, uint32_t nov,
                  struct ms__err *err) {
  cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
  if (cairo_surface_status(sf) != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(sf);
    return ms__errf(err, MS_ENOMEM, "%s: cannot create a %dx%d image", path,
                    w, h);
  }
  cairo_surface_flush(sf);
  unsigned char *px = cairo_image_surface_get_data(sf);
  int stride = cairo_image_surface_get_stride(sf);
  for (int y = 0; y < h; y++) {
    uint32_t *row = (uint32_t *)(void *)(px + (size_t)y * stride);
    const uint8_t *src = rgb + 3 * (size_t)y * w;
    for (int x = 0; x < w; x++)
      row[x] = (uint32_t)src[3 * x] << 16 | (uint32_t)src[3 * x + 1] << 8 |
               src[3 * x + 2];
  }
  cairo_surface_mark_dirty(sf);
  for (uint32_t k = 0; ov && k < nov; k++) /* tiles of equal width */
    overlay(sf, &ov[k], (int)(k * (uint32_t)w / nov), w / (int)nov, h);
  struct ms__afile a;
  int rc = ms__afile_open(&a, path, err);
  if (rc) {
    cairo_surface_destroy(sf);
    return rc;
  }
  cairo_status_t st = cairo_surface_write_to_png_stream(sf, to_file, a.f);
  cairo_surface_destroy(sf);
  if (st != CAIRO_STATUS_SUCCESS) {
    ms__afile_abort(&a);
    return ms__errf(err, MS_EIO, "%s: cannot write the PNG: %s", path,
                    cairo_status_to_string(st));
  }
  return ms__afile_commit(&a, MS__AFILE_DROP_OLD, err);
}
