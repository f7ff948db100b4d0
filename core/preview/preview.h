/* Previews: the software rasteriser and the PNG previews of frames. */
#ifndef MS_CORE_PREVIEW_H
#define MS_CORE_PREVIEW_H

#include <stddef.h>
#include <stdint.h>

#include <mergesplit/view.h>

#include "../base/base.h"
#include "../scene/scene.h"

/* ---- render.c ------------------------------------------------------------*/
/* Previews: a software renderer that draws particles as shaded spheres
 * (per-pixel normals, one light, specular highlight) with a depth buffer,
 * so occlusion is exact even where spheres intersect.  Rendered at twice
 * the size and averaged down (anti-aliasing).  Parallel over bands of
 * rows; the image does not depend on the thread count. */
/* The particles of one image. */
struct ms__splats {
  size_t n, cap;
  float *xyz;     /* 3 per particle */
  float *r;       /* radius */
  float *value;   /* scalar to colour by (NaN: none) */
  float *speed;   /* |velocity| (NaN: unknown), to frame what moves */
  uint16_t *sys;  /* system index, for per-system colours */
};

struct ms__camera {
  double eye[3], target[3], up[3];
  double fov; /* vertical field of view [degrees] */
};

/* Colours: by system, or `value` through the colour map over [lo, hi];
 * and a floor: the face of the box [box_lo, box_hi] lowest along `up`
 * (the domain's floor), drawn as a checkerboard under the particles. */
struct ms__style {
  int by_value;
  double lo, hi;
  int floor;
  double box_lo[3], box_hi[3], up[3];
};

int ms__splats_reserve(struct ms__splats *s, size_t n);
void ms__splats_free(struct ms__splats *s);
/* Bounding box of the spheres; returns 0 when there are none. */
int ms__splats_bounds(const struct ms__splats *s, double lo[3], double hi[3]);
/* Bounding box of the spheres faster than frac x the fastest; returns 0
 * when none moves. */
int ms__splats_moving(const struct ms__splats *s, double frac, double lo[3],
                      double hi[3]);
/* Range of the finite values; returns 0 when there are none. */
int ms__splats_range(const struct ms__splats *s, double *lo, double *hi);

/* A camera looking at box [lo, hi] from azimuth az and elevation el
 * (degrees; az = 0 looks along -z with `up` upward), the whole box in view
 * at zoom 1 in an image of the given aspect ratio (width / height). */
void ms__camera_orbit(struct ms__camera *c, const double lo[3],
                      const double hi[3], const double up[3], double aspect,
                      double az, double el, double zoom);
/* From numbers: [az, el] / [az, el, zoom] (orbit around the box) or
 * [eye(3), target(3)] / [..., fov].  Returns -1 for another count. */
int ms__camera_from(struct ms__camera *c, const double *v, int n,
                    const double lo[3], const double hi[3],
                    const double up[3], double aspect);

void ms__palette(uint32_t sys, float rgb[3]);
void ms__colormap(double t, float rgb[3]);

/* Render into rgb (w * h * 3 bytes, rows top to bottom). */
int ms__render(const struct ms__splats *s, const struct ms__camera *cam,
               const struct ms__style *style, int w, int h, uint8_t *rgb);

/* ---- render_png.c --------------------------------------------------------*/
/* Finishing a preview: caption, legend or colour bar, and the PNG file
 * (cairo draws the text and writes the PNG). */
struct ms__overlay {
  const char *caption;       /* top left; NULL: none */
  uint32_t nsys;             /* legend: one swatch per system */
  const char *const *names;
  int by_value;              /* colour bar instead of the legend */
  const char *label;
  double lo, hi;
};

/* The unit of a point field by name ("m/s" for "speed"), "" if none. */
const char *ms__field_unit(const char *name);

/* Write rgb (w * h * 3 bytes) as a PNG, atomically, with nov overlays,
 * one per tile of width w / nov, left to right. */
int ms__png_write(const char *path, const uint8_t *rgb, int w, int h,
                  const struct ms__overlay *ov, uint32_t nov,
                  struct ms__err *err);

/* ---- plot.c ----------------------------------------------------------------*/
/* The member a dotted path names in a report's JSON ("totals.energy.end");
 * NULL when absent. */
struct json_object;
struct json_object *ms__json_at(struct json_object *o, const char *path);
/* A number; a vector's length; NaN for null or nothing. */
double ms__json_num(struct json_object *o);

/* ---- plot_draw.c ---------------------------------------------------------*/
/* Charts of a run's report: lines over time, or bars. */
#define MS__PLOT_SERIES 16 /* lines per chart */
#define MS__PLOT_DOTS 400  /* a dot at each value up to this many values */
struct ms__chart {
  const char *name, *title, *unit, *xlabel;
  int bars;                 /* bars at x = 0, 1, ... named by category */
  size_t n;                 /* values per series */
  const double *x;          /* n */
  const char *const *category; /* bars, or lines over x = 0, 1, ...: n
                                  names for the x axis */
  int nseries;
  char label[MS__PLOT_SERIES][64];
  uint8_t rgb[MS__PLOT_SERIES][3];
  double *y[MS__PLOT_SERIES]; /* n each; NaN: no value (a gap) */
};

/* Series k's colour (the previews' palette, in 8 bits). */
void ms__plot_color(uint32_t k, uint8_t rgb[3]);
/* Draw the chart into a w x h PNG at path (atomically), with a tEXt chunk
 * "mergesplit:plot" holding the numbers drawn and how they map to pixels
 * (JSON). */
int ms__plot_write(const char *path, const struct ms__chart *c, int w, int h,
                   struct ms__err *err);

/* ---- preview.c -----------------------------------------------------------*/
/* Previews: PNG images of frames, written while a run goes
 * (output.preview = true) or afterwards from its files (ms_render). */
/* Look and camera shared by both ways of making previews. */
struct ms__look {
  int w, h;
  const char *color;     /* "system", "speed" or a field name */
  double range[2];       /* NaN: automatic */
  double cam[7];
  int ncam;              /* 0: default orbit */
  double up[3];
  int floor;             /* draw the floor of the box below */
  double box_lo[3], box_hi[3]; /* the domain */
};

/* Default orbit angles [degrees]. */
#define MS__CAM_AZ 25.0
#define MS__CAM_EL 20.0

int ms__look_camera(const struct ms__look *lk, const double lo[3],
                    const double hi[3], struct ms__camera *cam);
/* One tile of an image: its particles, caption and legend. */
struct ms__tile {
  const struct ms__splats *s;
  const char *caption;
  const char *const *names;
  uint32_t nsys;
};

/* Render n tiles side by side, each lk->w x lk->h with one camera and one
 * colour range, and write the PNG. */
int ms__preview_tiles(const char *path, const struct ms__tile *t, uint32_t n,
                      const struct ms__camera *cam, const struct ms__look *lk,
                      double lo, double hi, struct ms__err *err);
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
