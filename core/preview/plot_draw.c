/* Line and bar charts through cairo, written as PNG with the plotted
 * numbers in a tEXt chunk (preview.h). */
#include "preview.h"

#include <cairo.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include <mergesplit/status.h>

#include "../io/io.h"

enum { ML = 90, MR = 190, MT = 44, MB = 56 }; /* margins [px] */

void ms__plot_color(uint32_t k, uint8_t rgb[3]) {
  float c[3];
  ms__palette(k, c);
  for (int a = 0; a < 3; a++) rgb[a] = (uint8_t)(c[a] * 255.0f + 0.5f);
}

/* A round step near span / 5: 1, 2 or 5 times a power of ten. */
static double nice_step(double span) {
  double raw = span / 5.0, p = pow(10.0, floor(log10(raw))), f = raw / p;
  return (f < 1.5 ? 1.0 : f < 3.5 ? 2.0 : f < 7.5 ? 5.0 : 10.0) * p;
}

/* The y range of the finite values, padded; a constant series gets a
 * range around its value; none at all gets [0, 1]. */
static void y_range(const struct ms__chart *c, double *lo, double *hi) {
  *lo = INFINITY, *hi = -INFINITY;
  for (int s = 0; s < c->nseries; s++)
    for (size_t i = 0; i < c->n; i++)
      if (isfinite(c->y[s][i]))
        *lo = fmin(*lo, c->y[s][i]), *hi = fmax(*hi, c->y[s][i]);
  if (c->bars && *lo > 0.0) *lo = 0.0;
  if (!(*lo <= *hi)) *lo = 0.0, *hi = 1.0;
  double pad = 0.05 * (*hi - *lo);
  if (!(pad > 0.0)) pad = *hi != 0.0 ? 0.05 * fabs(*hi) : 0.5; /* constant */
  if (!(c->bars && *lo == 0.0)) *lo -= pad;
  *hi += pad;
}

struct frame_px {
  double x0, y0, x1, y1; /* the plot box */
  double xlo, xhi, ylo, yhi;
};

static double px_x(const struct frame_px *f, double x) {
  return f->x0 + (x - f->xlo) / (f->xhi - f->xlo) * (f->x1 - f->x0);
}
static double px_y(const struct frame_px *f, double y) {
  return f->y1 - (y - f->ylo) / (f->yhi - f->ylo) * (f->y1 - f->y0);
}

static void text_at(cairo_t *cr, double x, double y, const char *s,
                    double align) {
  cairo_text_extents_t te;
  cairo_text_extents(cr, s, &te);
  cairo_move_to(cr, x - align * te.x_advance, y);
  cairo_show_text(cr, s);
}

static void axes(cairo_t *cr, const struct ms__chart *c,
                 const struct frame_px *f) {
  char buf[64];
  cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
  cairo_set_line_width(cr, 1.0);
  cairo_rectangle(cr, f->x0, f->y0, f->x1 - f->x0, f->y1 - f->y0);
  cairo_stroke(cr);
  cairo_set_font_size(cr, 12.0);
  double st = nice_step(f->yhi - f->ylo);
  for (double v = ceil(f->ylo / st) * st; v <= f->yhi; v += st) {
    double y = floor(px_y(f, v)) + 0.5;
    snprintf(buf, sizeof buf, "%.4g", fabs(v) < 1e-9 * st ? 0.0 : v);
    text_at(cr, f->x0 - 6, y + 4, buf, 1.0);
    cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
    cairo_move_to(cr, f->x0 + 1, y), cairo_line_to(cr, f->x1 - 1, y);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
  }
  if (!c->bars && c->category) { /* lines over named values */
    for (size_t i = 0; i < c->n; i++)
      text_at(cr, px_x(f, c->x[i]), f->y1 + 16, c->category[i], 0.5);
  } else if (!c->bars) {
    st = nice_step(f->xhi - f->xlo);
    for (double v = ceil(f->xlo / st) * st; v <= f->xhi + 1e-9 * st; v += st) {
      snprintf(buf, sizeof buf, "%.4g", fabs(v) < 1e-9 * st ? 0.0 : v);
      text_at(cr, px_x(f, v), f->y1 + 16, buf, 0.5);
    }
  }
  text_at(cr, 0.5 * (f->x0 + f->x1), f->y1 + 38, c->xlabel, 0.5);
  cairo_save(cr);
  cairo_translate(cr, 22, 0.5 * (f->y0 + f->y1));
  cairo_rotate(cr, -1.5707963267948966);
  snprintf(buf, sizeof buf, "[%s]", c->unit);
  text_at(cr, 0, 0, buf, 0.5);
  cairo_restore(cr);
  cairo_set_font_size(cr, 15.0);
  text_at(cr, f->x0, 26, c->title, 0.0);
}

static void set_rgb(cairo_t *cr, const uint8_t *c) {
  cairo_set_source_rgb(cr, c[0] / 255.0, c[1] / 255.0, c[2] / 255.0);
}

/* Lines first, then a dot at each value (centred on its pixel, so the
 * pixel holds the series' colour exactly), series in order. */
static void lines(cairo_t *cr, const struct ms__chart *c,
                  const struct frame_px *f) {
  cairo_set_line_width(cr, 1.5);
  for (int s = 0; s < c->nseries; s++) {
    set_rgb(cr, c->rgb[s]);
    int pen = 0;
    for (size_t i = 0; i < c->n; i++) {
      if (!isfinite(c->y[s][i])) {
        pen = 0;
        continue;
      }
      double x = px_x(f, c->x[i]), y = px_y(f, c->y[s][i]);
      if (pen) cairo_line_to(cr, x, y);
      else cairo_move_to(cr, x, y);
      pen = 1;
    }
    cairo_stroke(cr);
  }
  for (int s = 0; s < c->nseries && c->n <= MS__PLOT_DOTS; s++) {
    set_rgb(cr, c->rgb[s]);
    for (size_t i = 0; i < c->n; i++)
      if (isfinite(c->y[s][i])) {
        cairo_arc(cr, floor(px_x(f, c->x[i])) + 0.5,
                  floor(px_y(f, c->y[s][i])) + 0.5, 2.5, 0, 6.2832);
        cairo_fill(cr);
      }
  }
}

static void bars(cairo_t *cr, const struct ms__chart *c,
                 const struct frame_px *f) {
  cairo_set_font_size(cr, 11.0);
  for (size_t i = 0; i < c->n; i++) {
    double xa = px_x(f, c->x[i] - 0.35), xb = px_x(f, c->x[i] + 0.35);
    double y = px_y(f, c->y[0][i]), y0 = px_y(f, 0.0);
    set_rgb(cr, c->rgb[0]);
    cairo_rectangle(cr, floor(xa), floor(fmin(y, y0)), floor(xb) - floor(xa),
                    fmax(1.0, floor(fabs(y0 - y))));
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    text_at(cr, 0.5 * (xa + xb), f->y1 + 16, c->category[i], 0.5);
  }
}

static void legend(cairo_t *cr, const struct ms__chart *c,
                   const struct frame_px *f) {
  cairo_set_font_size(cr, 12.0);
  for (int s = 0; s < c->nseries && !c->bars; s++) {
    double y = f->y0 + 14 + 20 * s;
    set_rgb(cr, c->rgb[s]);
    cairo_set_line_width(cr, 2.0);
    cairo_move_to(cr, f->x1 + 12, y - 4), cairo_line_to(cr, f->x1 + 34, y - 4);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text_at(cr, f->x1 + 40, y, c->label[s], 0.0);
  }
}

/* ---- the PNG and its tEXt chunk ------------------------------------------*/
struct membuf {
  unsigned char *p;
  size_t n, cap;
};

static int put(struct membuf *b, const void *d, size_t n) {
  if (b->n + n > b->cap) {
    size_t c = 2 * (b->n + n) + 4096;
    if (ms__grow((void **)&b->p, c, 1)) return -1;
    b->cap = c;
  }
  ms__memcpy(b->p + b->n, d, n);
  b->n += n;
  return 0;
}

static cairo_status_t to_mem(void *closure, const unsigned char *data,
                             unsigned int len) {
  return put(closure, data, len) ? CAIRO_STATUS_NO_MEMORY
                                 : CAIRO_STATUS_SUCCESS;
}

static void be32(unsigned char *o, uint32_t v) {
  o[0] = (unsigned char)(v >> 24), o[1] = (unsigned char)(v >> 16);
  o[2] = (unsigned char)(v >> 8), o[3] = (unsigned char)v;
}

/* The PNG with a tEXt chunk (keyword, NUL, text) before its IEND. */
static int with_text(const struct membuf *png, const char *key,
                     const char *text, struct membuf *out) {
  size_t kl = strlen(key), tl = strlen(text);
  if (png->n < 12 || kl + 1 + tl > 0x7fffffffu) return -1;
  unsigned char head[8], crc[4];
  be32(head, (uint32_t)(kl + 1 + tl));
  ms__memcpy(head + 4, "tEXt", 4);
  uLong c = crc32(0L, head + 4, 4);
  c = crc32(c, (const Bytef *)key, (uInt)kl + 1);
  c = crc32(c, (const Bytef *)text, (uInt)tl);
  be32(crc, (uint32_t)c);
  return put(out, png->p, png->n - 12) || put(out, head, 8) ||
                 put(out, key, kl + 1) || put(out, text, tl) ||
                 put(out, crc, 4) || put(out, png->p + png->n - 12, 12)
             ? -1
             : 0;
}

/* The numbers behind the chart, as JSON: the box and ranges map a value to
 * its pixel (x0 + (x - xlo) / (xhi - xlo) * (x1 - x0), likewise y from the
 * bottom), so a reader can check what was drawn. */
static int chart_json(const struct ms__chart *c, const struct frame_px *f,
                      struct membuf *j) {
  char b[128];
#define J(...) (snprintf(b, sizeof b, __VA_ARGS__), put(j, b, strlen(b)))
  int bad = J("{\"chart\": \"%s\", \"box\": [%.17g, %.17g, %.17g, %.17g], ",
              c->name, f->x0, f->y0, f->x1, f->y1) ||
            J("\"x_range\": [%.17g, %.17g], \"y_range\": [%.17g, %.17g], "
              "\"dots\": %d, \"bars\": %d, \"x\": [", f->xlo, f->xhi, f->ylo,
              f->yhi, c->n <= MS__PLOT_DOTS, c->bars);
  for (size_t i = 0; i < c->n && !bad; i++)
    bad = J("%s%.17g", i ? ", " : "", c->x[i]);
  bad = bad || J("], \"series\": [");
  for (int s = 0; s < c->nseries && !bad; s++) {
    bad = J("%s{\"label\": \"%s\", \"rgb\": [%d, %d, %d], \"y\": [",
            s ? ", " : "", c->label[s], c->rgb[s][0], c->rgb[s][1],
            c->rgb[s][2]);
    for (size_t i = 0; i < c->n && !bad; i++)
      bad = isfinite(c->y[s][i]) ? J("%s%.17g", i ? ", " : "", c->y[s][i])
                                 : J("%snull", i ? ", " : "");
    bad = bad || J("]}");
  }
  bad = bad || J("]}") || put(j, "", 1);
#undef J
  return bad ? -1 : 0;
}

int ms__plot_write(const char *path, const struct ms__chart *c, int w, int h,
                   struct ms__err *err) {
  struct frame_px f = {ML, MT, w - MR, h - MB, 0, 1, 0, 1};
  if (f.x1 - f.x0 < 100 || f.y1 - f.y0 < 100)
    return ms__errf(err, MS_EINVAL, "plots need at least %dx%d pixels",
                    ML + MR + 100, MT + MB + 100);
  f.xlo = c->n ? c->x[0] : 0.0, f.xhi = c->n ? c->x[c->n - 1] : 1.0;
  if (c->bars) f.xlo -= 0.5, f.xhi += 0.5;
  if (!(f.xhi > f.xlo)) f.xlo -= 0.5, f.xhi += 0.5;
  y_range(c, &f.ylo, &f.yhi);
  cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
  cairo_t *cr = cairo_create(sf);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         CAIRO_FONT_WEIGHT_NORMAL);
  axes(cr, c, &f);
  if (c->bars) bars(cr, c, &f);
  else lines(cr, c, &f);
  legend(cr, c, &f);
  cairo_destroy(cr);
  struct membuf png = {0}, out = {0}, js = {0};
  int bad = cairo_surface_write_to_png_stream(sf, to_mem, &png) !=
                CAIRO_STATUS_SUCCESS ||
            chart_json(c, &f, &js) ||
            with_text(&png, "mergesplit:plot", (const char *)js.p, &out);
  cairo_surface_destroy(sf);
  int rc = bad ? ms__errf(err, MS_ENOMEM, "%s: cannot draw the chart", path)
               : MS_OK;
  struct ms__afile a;
  if (!rc && !(rc = ms__afile_open(&a, path, err))) {
    if (fwrite(out.p, 1, out.n, a.f) != out.n) {
      ms__afile_abort(&a);
      rc = ms__errf(err, MS_EIO, "%s: cannot write", path);
    } else {
      rc = ms__afile_commit(&a, 0, err);
    }
  }
  free(png.p), free(out.p), free(js.p);
  return rc;
}
