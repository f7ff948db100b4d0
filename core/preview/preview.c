/* Previews during a run, from the systems' views. */
#include "preview.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/status.h>

#include "../io/io.h"

struct ms__preview {
  char *dir;
  struct ms__look look;
  double dom_lo[3], dom_hi[3];
  int framed; /* the camera is fixed after the first image */
  struct ms__camera cam;
  struct ms__splats s;
};

int ms__look_camera(const struct ms__look *lk, const double lo[3],
                    const double hi[3], struct ms__camera *cam) {
  double aspect = (double)lk->w / lk->h;
  if (lk->ncam)
    return ms__camera_from(cam, lk->cam, lk->ncam, lo, hi, lk->up, aspect);
  ms__camera_orbit(cam, lo, hi, lk->up, aspect, MS__CAM_AZ, MS__CAM_EL, 1.0);
  return 0;
}

int ms__preview_tiles(const char *path, const struct ms__tile *t, uint32_t n,
                      const struct ms__camera *cam, const struct ms__look *lk,
                      double lo, double hi, struct ms__err *err) {
  int by_value = strcmp(lk->color, "system") != 0;
  struct ms__style st = {by_value, lo, hi, lk->floor, {0}, {0}, {0}};
  ms__memcpy(st.box_lo, lk->box_lo, sizeof st.box_lo);
  ms__memcpy(st.box_hi, lk->box_hi, sizeof st.box_hi);
  ms__memcpy(st.up, lk->up, sizeof st.up);
  size_t tile = (size_t)lk->w * lk->h * 3, W = (size_t)lk->w * n;
  uint8_t *one = malloc(tile), *rgb = malloc(tile * n);
  struct ms__overlay *ov = calloc(n, sizeof *ov);
  int rc = one && rgb && ov ? MS_OK : MS_ENOMEM;
  for (uint32_t k = 0; !rc && k < n; k++) {
    if ((rc = ms__render(t[k].s, cam, &st, lk->w, lk->h, one))) break;
    for (int y = 0; y < lk->h; y++) /* tile k's rows into its column */
      ms__memcpy(rgb + 3 * ((size_t)y * W + (size_t)k * lk->w),
                 one + 3 * (size_t)y * lk->w, 3 * (size_t)lk->w);
    ov[k] = (struct ms__overlay){t[k].caption, t[k].nsys, t[k].names,
                                 by_value, lk->color, lo, hi};
  }
  if (rc) rc = ms__errf(err, rc, "%s: out of memory while rendering", path);
  else rc = ms__png_write(path, rgb, (int)W, lk->h, ov, n, err);
  free(one);
  free(rgb);
  free(ov);
  return rc;
}

int ms__preview_image(const char *path, const struct ms__splats *s,
                      const struct ms__camera *cam, const struct ms__look *lk,
                      double lo, double hi, const char *caption,
                      const char *const *names, uint32_t nsys,
                      struct ms__err *err) {
  const struct ms__tile t = {s, caption, names, nsys};
  return ms__preview_tiles(path, &t, 1, cam, lk, lo, hi, err);
}

int ms__preview_open(struct ms__preview **out, const struct ms__scene *sc,
                     const char *dir, struct ms__err *err) {
  struct ms__preview *p = calloc(1, sizeof *p);
  *out = NULL;
  if (!p || !(p->dir = strdup(dir))) {
    free(p);
    return ms__errf(err, MS_ENOMEM, "out of memory");
  }
  struct ms__look *lk = &p->look;
  lk->w = sc->preview_size[0];
  lk->h = sc->preview_size[1];
  lk->color = sc->preview_color;
  ms__memcpy(lk->range, sc->preview_range, sizeof lk->range);
  ms__memcpy(lk->cam, sc->preview_camera, sizeof lk->cam);
  lk->ncam = sc->preview_camera_n;
  double g = sqrt(sc->gravity[0] * sc->gravity[0] +
                  sc->gravity[1] * sc->gravity[1] +
                  sc->gravity[2] * sc->gravity[2]);
  for (int a = 0; a < 3; a++)
    lk->up[a] = g > 0 ? -sc->gravity[a] / g : (a == 1);
  ms__memcpy(p->dom_lo, sc->domain_min, sizeof p->dom_lo);
  ms__memcpy(p->dom_hi, sc->domain_max, sizeof p->dom_hi);
  lk->floor = 1;
  for (int a = 0; a < 3; a++)
    lk->floor &= isfinite(p->dom_lo[a]) && isfinite(p->dom_hi[a]) &&
                 p->dom_lo[a] < p->dom_hi[a];
  ms__memcpy(lk->box_lo, p->dom_lo, sizeof lk->box_lo);
  ms__memcpy(lk->box_hi, p->dom_hi, sizeof lk->box_hi);
  if (ms__make_dirs(dir)) {
    int e = errno;
    ms__preview_close(p);
    return ms__errf(err, MS_EIO, "%s: cannot create the preview directory: "
                    "%s", dir, strerror(e));
  }
  *out = p;
  return MS_OK;
}

static const struct ms_field *field(const struct ms_view *v, const char *n) {
  return ms__view_field(v, n, 0, 0);
}

/* Component c of element i as a double. */
static double elem(const struct ms_field *f, size_t i, uint32_t c) {
  const char *p = (const char *)f->data + i * f->stride +
                  c * ms__type_size(f->type);
  switch (f->type) {
  case MS_TYPE_F64: return *(const double *)(const void *)p;
  case MS_TYPE_F32: return *(const float *)(const void *)p;
  case MS_TYPE_I32: return *(const int32_t *)(const void *)p;
  case MS_TYPE_U32: return *(const uint32_t *)(const void *)p;
  case MS_TYPE_I64: return (double)*(const int64_t *)(const void *)p;
  case MS_TYPE_U8: return *(const uint8_t *)p;
  }
  return NAN;
}

static double scalar(const struct ms_field *f, size_t i) {
  if (f->components == 1) return elem(f, i, 0);
  double s = 0;
  for (uint32_t c = 0; c < f->components; c++) {
    double x = elem(f, i, c);
    s += x * x;
  }
  return sqrt(s);
}

/* Gather the splats; the colour field ("speed": |velocity| unless a field
 * is called so) must exist in at least one system. */
static int gather(struct ms__preview *p, const struct ms_view *views,
                  uint32_t nsys, struct ms__err *err) {
  size_t n = 0, found = 0;
  const char *cn = p->look.color;
  int by_value = strcmp(cn, "system") != 0;
  for (uint32_t s = 0; s < nsys; s++) n += views[s].count;
  if (ms__splats_reserve(&p->s, n))
    return ms__errf(err, MS_ENOMEM, "out of memory");
  p->s.n = 0;
  for (uint32_t s = 0; s < nsys; s++) {
    const struct ms_view *v = &views[s];
    const struct ms_field *x = field(v, "position"), *r = field(v, "radius");
    const struct ms_field *c = by_value ? field(v, cn) : NULL;
    const struct ms_field *vel = field(v, "velocity");
    if (by_value && !c && !strcmp(cn, "speed")) c = field(v, "velocity");
    found += c != NULL;
    for (size_t i = 0; i < v->count; i++, p->s.n++) {
      for (int a = 0; a < 3; a++)
        p->s.xyz[3 * p->s.n + a] = (float)elem(x, i, (uint32_t)a);
      p->s.r[p->s.n] = (float)elem(r, i, 0);
      p->s.value[p->s.n] = c ? (float)scalar(c, i) : NAN;
      p->s.speed[p->s.n] = vel ? (float)scalar(vel, i) : NAN;
      p->s.sys[p->s.n] = (uint16_t)s;
    }
  }
  if (by_value && !found)
    return ms__errf(err, MS_ECONFIG, "output.preview_color: no system has a "
                    "field '%s'", cn);
  return MS_OK;
}

int ms__preview_frame(struct ms__preview *p, int64_t frame, double t,
                      const struct ms_view *views, const char *const *names,
                      uint32_t nsys, struct ms__err *err) {
  int rc = gather(p, views, nsys, err);
  if (rc) return rc;
  if (!p->framed) { /* 1.5 times the first frame's particles, within the
                       domain: the subject, not the tank around it */
    double lo[3], hi[3];
    int finite = 1;
    for (int a = 0; a < 3; a++)
      finite &= isfinite(p->dom_lo[a]) && isfinite(p->dom_hi[a]);
    if (ms__splats_bounds(&p->s, lo, hi)) {
      for (int a = 0; a < 3; a++) {
        double c = 0.5 * (lo[a] + hi[a]), h = 0.75 * (hi[a] - lo[a]);
        lo[a] = c - h, hi[a] = c + h;
        if (finite) lo[a] = fmax(lo[a], p->dom_lo[a]);
        if (finite) hi[a] = fmin(hi[a], p->dom_hi[a]);
      }
    } else if (finite) {
      ms__memcpy(lo, p->dom_lo, sizeof lo);
      ms__memcpy(hi, p->dom_hi, sizeof hi);
    } else {
      for (int a = 0; a < 3; a++) lo[a] = -1, hi[a] = 1;
    }
    if (ms__look_camera(&p->look, lo, hi, &p->cam))
      return ms__errf(err, MS_ECONFIG, "output.preview_camera: bad camera");
    p->framed = 1;
  }
  double lo = p->look.range[0], hi = p->look.range[1];
  if (isnan(lo) && !ms__splats_range(&p->s, &lo, &hi)) lo = 0, hi = 1;
  char path[4096], caption[128];
  snprintf(path, sizeof path, "%s/frame_%06lld.png", p->dir, (long long)frame);
  snprintf(caption, sizeof caption, "frame %lld   t = %.4g s",
           (long long)frame, t);
  return ms__preview_image(path, &p->s, &p->cam, &p->look, lo, hi, caption,
                           names, nsys, err);
}

void ms__preview_close(struct ms__preview *p) {
  if (!p) return;
  ms__splats_free(&p->s);
  free(p->dir);
  free(p);
}
