/* The splat renderer (preview.h). */
#include "preview.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/status.h>

#include "../base/base.h"

#define SS 2   /* supersampling factor per axis */
#define BAND 16 /* rows per band (supersampled) */

int ms__splats_reserve(struct ms__splats *s, size_t n) {
  if (n <= s->cap) return MS_OK;
  if (ms__grow((void **)&s->xyz, n, 3 * sizeof(float)) ||
      ms__grow((void **)&s->r, n, sizeof(float)) ||
      ms__grow((void **)&s->value, n, sizeof(float)) ||
      ms__grow((void **)&s->speed, n, sizeof(float)) ||
      ms__grow((void **)&s->sys, n, sizeof(uint16_t)))
    return MS_ENOMEM;
  s->cap = n;
  return MS_OK;
}

void ms__splats_free(struct ms__splats *s) {
  free(s->xyz);
  free(s->r);
  free(s->value);
  free(s->speed);
  free(s->sys);
  ms__memset(s, 0, sizeof *s);
}

/* The box of the spheres faster than vmin; every sphere when all. */
static int box_of(const struct ms__splats *s, int all, double vmin,
                  double lo[3], double hi[3]) {
  int any = 0;
  for (int a = 0; a < 3; a++) lo[a] = INFINITY, hi[a] = -INFINITY;
  for (size_t i = 0; i < s->n; i++) {
    if (!all && !(s->speed[i] > vmin)) continue; /* NaN: not moving */
    for (int a = 0; a < 3; a++) {
      double x = s->xyz[3 * i + a], r = s->r[i];
      if (!isfinite(x)) continue;
      lo[a] = fmin(lo[a], x - r);
      hi[a] = fmax(hi[a], x + r);
      any = 1;
    }
  }
  return any;
}

int ms__splats_moving(const struct ms__splats *s, double frac, double lo[3],
                      double hi[3]) {
  double vmax = 0;
  for (size_t i = 0; i < s->n; i++)
    if (s->speed[i] > vmax) vmax = s->speed[i]; /* NaN: not counted */
  if (!(vmax > 0)) {
    box_of(s, 0, INFINITY, lo, hi); /* empty */
    return 0;
  }
  return box_of(s, 0, frac * vmax, lo, hi);
}

int ms__splats_bounds(const struct ms__splats *s, double lo[3],
                      double hi[3]) {
  return box_of(s, 1, 0, lo, hi);
}

int ms__splats_range(const struct ms__splats *s, double *lo, double *hi) {
  double a = INFINITY, b = -INFINITY;
  for (size_t i = 0; i < s->n; i++)
    if (isfinite(s->value[i])) {
      a = fmin(a, s->value[i]);
      b = fmax(b, s->value[i]);
    }
  if (!(a <= b)) return 0;
  *lo = a;
  *hi = b;
  return 1;
}

/* ---- camera ---------------------------------------------------------- */

static void normalize(double *v) {
  double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (n > 0) v[0] /= n, v[1] /= n, v[2] /= n;
}

static void cross(double *o, const double *a, const double *b) {
  o[0] = a[1] * b[2] - a[2] * b[1];
  o[1] = a[2] * b[0] - a[0] * b[2];
  o[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

void ms__camera_orbit(struct ms__camera *c, const double lo[3],
                      const double hi[3], const double up[3], double aspect,
                      double az, double el, double zoom) {
  double u[3] = {up[0], up[1], up[2]}, side[3], back[3], ctr[3], f[3], r[3];
  normalize(u);
  /* A reference frame with u up: "back" is +z unless up is along z. */
  double ref[3] = {0, 0, 1};
  if (fabs(dot(u, ref)) > 0.9) ref[0] = 0, ref[1] = -1, ref[2] = 0;
  cross(side, u, ref);
  normalize(side);
  cross(back, side, u);
  c->fov = 30.0;
  double A = az * M_PI / 180, E = el * M_PI / 180;
  for (int a = 0; a < 3; a++) {
    ctr[a] = 0.5 * (lo[a] + hi[a]);
    f[a] = -(cos(E) * (cos(A) * back[a] + sin(A) * side[a]) + sin(E) * u[a]);
  }
  cross(r, f, u);
  normalize(r);
  double uu[3];
  cross(uu, r, f);
  /* Back off until every corner of the box is in view (5 % margin). */
  double tv = tan(0.5 * c->fov * M_PI / 180) * 0.95, th = tv * aspect;
  double dist = 1e-9;
  for (int k = 0; k < 8; k++) {
    double o[3];
    for (int a = 0; a < 3; a++)
      o[a] = ((k >> a) & 1 ? hi[a] : lo[a]) - ctr[a];
    if (!isfinite(o[0] + o[1] + o[2])) continue;
    dist = fmax(dist, fabs(dot(o, r)) / th - dot(o, f));
    dist = fmax(dist, fabs(dot(o, uu)) / tv - dot(o, f));
  }
  dist /= zoom > 0 ? zoom : 1;
  for (int a = 0; a < 3; a++) {
    c->target[a] = ctr[a];
    c->eye[a] = ctr[a] - dist * f[a];
    c->up[a] = u[a];
  }
}

int ms__camera_from(struct ms__camera *c, const double *v, int n,
                    const double lo[3], const double hi[3],
                    const double up[3], double aspect) {
  if (n == 2 || n == 3) {
    ms__camera_orbit(c, lo, hi, up, aspect, v[0], v[1], n == 3 ? v[2] : 1.0);
    return 0;
  }
  if (n != 6 && n != 7) return -1;
  ms__memcpy(c->eye, v, sizeof c->eye);
  ms__memcpy(c->target, v + 3, sizeof c->target);
  ms__memcpy(c->up, up, sizeof c->up);
  c->fov = n == 7 ? v[6] : 30.0;
  if (!(c->fov > 1 && c->fov < 170)) return -1;
  return 0;
}

/* ---- colours --------------------------------------------------------- */

void ms__palette(uint32_t sys, float rgb[3]) {
  static const float pal[10][3] = {
      {0.20f, 0.45f, 0.80f}, {0.95f, 0.50f, 0.10f}, {0.25f, 0.65f, 0.30f},
      {0.85f, 0.20f, 0.20f}, {0.55f, 0.35f, 0.75f}, {0.55f, 0.35f, 0.25f},
      {0.90f, 0.45f, 0.70f}, {0.45f, 0.45f, 0.45f}, {0.70f, 0.70f, 0.15f},
      {0.10f, 0.70f, 0.80f}};
  ms__memcpy(rgb, pal[sys % 10], 3 * sizeof(float));
}

void ms__colormap(double t, float rgb[3]) {
  static const float cp[5][3] = {{0.10f, 0.15f, 0.50f},
                                 {0.10f, 0.45f, 0.85f},
                                 {0.30f, 0.75f, 0.55f},
                                 {0.95f, 0.80f, 0.25f},
                                 {0.80f, 0.15f, 0.10f}};
  if (!(t >= 0)) t = 0; /* NaN too */
  if (t > 1) t = 1;
  double x = t * 4;
  int k = x >= 4 ? 3 : (int)x;
  float f = (float)(x - k);
  for (int a = 0; a < 3; a++) rgb[a] = cp[k][a] + f * (cp[k + 1][a] - cp[k][a]);
}

/* ---- rasterising ----------------------------------------------------- */

/* A sphere projected to the (supersampled) screen. */
struct proj {
  float sx, sy, sr, z, r;
  float rgb[3];
};

struct frame_buf {
  int W, H;
  float *depth, *rgb;
};

static void background(struct frame_buf *fb) {
  for (int y = 0; y < fb->H; y++) {
    float t = (float)y / (float)(fb->H > 1 ? fb->H - 1 : 1);
    float c[3] = {0.97f - 0.15f * t, 0.97f - 0.13f * t, 0.98f - 0.11f * t};
    for (int x = 0; x < fb->W; x++) {
      size_t p = (size_t)y * fb->W + x;
      fb->depth[p] = INFINITY;
      ms__memcpy(fb->rgb + 3 * p, c, sizeof c);
    }
  }
}

/* Lambert + ambient + Blinn highlight; the light comes from the upper
 * left, in front of the scene.  n is in camera space (z away). */
static void shade(const float *base, float nx, float ny, float nz,
                  float *out) {
  const float L[3] = {-0.4534f, 0.6046f, -0.6549f};
  const float Hv[3] = {-0.2492f, 0.3323f, -0.9097f}; /* (L + V) / |L + V| */
  float d = nx * L[0] + ny * L[1] + nz * L[2];
  float s = nx * Hv[0] + ny * Hv[1] + nz * Hv[2];
  float k = 0.30f + 0.70f * (d > 0 ? d : 0);
  float sp = 0;
  if (s > 0) {
    float s2 = s * s, s4 = s2 * s2, s8 = s4 * s4, s16 = s8 * s8;
    sp = 0.30f * s16 * s16;
  }
  for (int a = 0; a < 3; a++) {
    float v = base[a] * k + sp;
    out[a] = v < 1 ? v : 1;
  }
}

static void draw(struct frame_buf *fb, const struct proj *p, int y0, int y1) {
  if (p->sr < 0.75f) { /* smaller than a pixel: one flat-shaded pixel */
    int x = (int)floorf(p->sx), y = (int)floorf(p->sy);
    if (x < 0 || x >= fb->W || y < y0 || y >= y1) return;
    size_t q = (size_t)y * fb->W + x;
    if (p->z < fb->depth[q]) {
      fb->depth[q] = p->z;
      shade(p->rgb, 0, 0, -1, fb->rgb + 3 * q);
    }
    return;
  }
  int ya = (int)floorf(p->sy - p->sr), yb = (int)ceilf(p->sy + p->sr);
  int xa = (int)floorf(p->sx - p->sr), xb = (int)ceilf(p->sx + p->sr);
  if (ya < y0) ya = y0;
  if (yb > y1) yb = y1;
  if (xa < 0) xa = 0;
  if (xb > fb->W) xb = fb->W;
  float inv = 1.0f / p->sr;
  for (int y = ya; y < yb; y++) {
    float dy = ((float)y + 0.5f - p->sy) * inv;
    for (int x = xa; x < xb; x++) {
      float dx = ((float)x + 0.5f - p->sx) * inv, d2 = dx * dx + dy * dy;
      if (d2 >= 1) continue;
      float nz = sqrtf(1 - d2), z = p->z - p->r * nz;
      size_t q = (size_t)y * fb->W + x;
      if (z < fb->depth[q]) {
        fb->depth[q] = z;
        shade(p->rgb, dx, -dy, -nz, fb->rgb + 3 * q);
      }
    }
  }
}

/* The camera's frame: forward f, right r, up u, and the focal length F
 * in pixels of an image H high. */
static double basis(const struct ms__camera *c, int H, double f[3],
                    double r[3], double u[3]) {
  for (int a = 0; a < 3; a++) f[a] = c->target[a] - c->eye[a];
  normalize(f);
  cross(r, f, c->up);
  if (dot(r, r) < 1e-20) { /* looking along up: any side will do */
    double alt[3] = {c->up[1], c->up[2], c->up[0]};
    cross(r, f, alt);
  }
  normalize(r);
  cross(u, r, f);
  return 0.5 * H / tan(0.5 * c->fov * M_PI / 180);
}

/* The floor: each pixel's ray meets the plane up . x = h (the box's
 * lowest corner along up) at depth z, inside the box: a checkerboard of
 * 10 squares along the box's longer side, behind whatever comes nearer. */
static void floor_plane(struct frame_buf *fb, const struct ms__camera *c,
                        const struct ms__style *st) {
  double f[3], r[3], u[3], F = basis(c, fb->H, f, r, u), h = INFINITY;
  double side = 0, tol[3];
  for (int k = 0; k < 8; k++) {
    double p[3] = {k & 1 ? st->box_hi[0] : st->box_lo[0],
                   k & 2 ? st->box_hi[1] : st->box_lo[1],
                   k & 4 ? st->box_hi[2] : st->box_lo[2]};
    h = fmin(h, dot(st->up, p));
  }
  for (int a = 0; a < 3; a++) {
    side = fmax(side, st->box_hi[a] - st->box_lo[a]);
    tol[a] = 1e-9 * (st->box_hi[a] - st->box_lo[a] + 1);
  }
  int ua = 0; /* the axis nearest up: no squares along it */
  for (int a = 1; a < 3; a++)
    if (fabs(st->up[a]) > fabs(st->up[ua])) ua = a;
  double cell = side / 10, above = dot(st->up, c->eye) - h;
  if (!(cell > 0) || !(above > 0)) return; /* seen from below: none */
#pragma omp parallel for schedule(static)
  for (int y = 0; y < fb->H; y++)
    for (int x = 0; x < fb->W; x++) {
      double d[3], X[3];
      for (int a = 0; a < 3; a++)
        d[a] = f[a] + ((x + 0.5 - 0.5 * fb->W) * r[a] -
                       (y + 0.5 - 0.5 * fb->H) * u[a]) / F;
      double dn = dot(st->up, d);
      if (!(dn < 0)) continue;
      double z = -above / dn; /* depth along f: d has unit f-component */
      int in = 1, parity = 0;
      for (int a = 0; a < 3; a++) {
        X[a] = c->eye[a] + z * d[a];
        in &= X[a] >= st->box_lo[a] - tol[a] && X[a] <= st->box_hi[a] + tol[a];
        if (a != ua) parity += (int)floor((X[a] - st->box_lo[a]) / cell);
      }
      size_t q = (size_t)y * fb->W + x;
      if (!in || !((float)z < fb->depth[q])) continue;
      fb->depth[q] = (float)z;
      float g = parity & 1 ? 0.80f : 0.88f;
      fb->rgb[3 * q] = g, fb->rgb[3 * q + 1] = g, fb->rgb[3 * q + 2] = g - 0.02f;
    }
}

static void project(const struct ms__splats *s, const struct ms__camera *c,
                    const struct ms__style *st, int W, int H,
                    struct proj *out, uint8_t *visible) {
  double f[3], r[3], u[3];
  double F = basis(c, H, f, r, u);
  double span = st->hi - st->lo;
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < s->n; i++) {
    double d[3];
    for (int a = 0; a < 3; a++) d[a] = s->xyz[3 * i + a] - c->eye[a];
    double z = dot(d, f), rad = s->r[i];
    struct proj *p = &out[i];
    visible[i] = z > rad && isfinite(z);
    if (!visible[i]) continue;
    p->sx = (float)(0.5 * W + F * dot(d, r) / z);
    p->sy = (float)(0.5 * H - F * dot(d, u) / z);
    p->sr = (float)(F * rad / z);
    p->z = (float)z;
    p->r = (float)rad;
    if (!st->by_value) ms__palette(s->sys[i], p->rgb);
    else if (isfinite(s->value[i]))
      ms__colormap(span > 0 ? (s->value[i] - st->lo) / span : 0.5, p->rgb);
    else p->rgb[0] = p->rgb[1] = p->rgb[2] = 0.6f;
  }
}

/* Bands of rows: each sphere is listed in the bands it touches, in index
 * order, and each band is drawn by one thread. */
static int bin(const struct proj *p, const uint8_t *vis, size_t n, int H,
               int nb, size_t **off_out, uint32_t **idx_out) {
  size_t *off = calloc((size_t)nb + 1, sizeof *off);
  if (!off) return MS_ENOMEM;
  for (int pass = 0; pass < 2; pass++) {
    uint32_t *idx = pass ? *idx_out : NULL;
    size_t *fill = pass ? malloc((size_t)nb * sizeof *fill) : NULL;
    if (pass && !fill) return free(off), MS_ENOMEM;
    if (pass) ms__memcpy(fill, off, (size_t)nb * sizeof *fill);
    for (size_t i = 0; i < n; i++) {
      if (!vis[i]) continue;
      float ya = p[i].sy - p[i].sr - 1, yb = p[i].sy + p[i].sr + 1;
      if (yb < 0 || ya >= (float)H) continue;
      int b0 = ya < 0 ? 0 : (int)ya / BAND;
      int b1 = yb >= (float)H ? nb - 1 : (int)yb / BAND;
      for (int b = b0; b <= b1; b++) {
        if (pass) idx[fill[b]++] = (uint32_t)i;
        else off[b + 1]++;
      }
    }
    if (!pass) {
      for (int b = 0; b < nb; b++) off[b + 1] += off[b];
      *idx_out = malloc((off[nb] ? off[nb] : 1) * sizeof **idx_out);
      if (!*idx_out) return free(off), MS_ENOMEM;
    }
    free(fill);
  }
  *off_out = off;
  return MS_OK;
}

static void downsample(const struct frame_buf *fb, int w, int h,
                       uint8_t *rgb) {
#pragma omp parallel for schedule(static)
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int a = 0; a < 3; a++) {
        float sum = 0;
        for (int j = 0; j < SS; j++)
          for (int i = 0; i < SS; i++)
            sum += fb->rgb[3 * ((size_t)(SS * y + j) * fb->W + SS * x + i) + a];
        int v = (int)(255.0f * sum / (SS * SS) + 0.5f);
        rgb[3 * ((size_t)y * w + x) + a] = (uint8_t)(v > 255 ? 255 : v);
      }
}

int ms__render(const struct ms__splats *s, const struct ms__camera *cam,
               const struct ms__style *style, int w, int h, uint8_t *rgb) {
  struct frame_buf fb = {SS * w, SS * h, NULL, NULL};
  size_t npix = (size_t)fb.W * fb.H, *off = NULL;
  uint32_t *idx = NULL;
  struct proj *p = malloc((s->n ? s->n : 1) * sizeof *p);
  uint8_t *vis = malloc(s->n ? s->n : 1);
  fb.depth = malloc(npix * sizeof *fb.depth);
  fb.rgb = malloc(3 * npix * sizeof *fb.rgb);
  int nb = (fb.H + BAND - 1) / BAND, rc = MS_ENOMEM;
  if (p && vis && fb.depth && fb.rgb) {
    background(&fb);
    if (style->floor) floor_plane(&fb, cam, style);
    project(s, cam, style, fb.W, fb.H, p, vis);
    rc = bin(p, vis, s->n, fb.H, nb, &off, &idx);
  }
  if (rc == MS_OK) {
#pragma omp parallel for schedule(dynamic, 1)
    for (int b = 0; b < nb; b++) {
      int y0 = b * BAND, y1 = y0 + BAND < fb.H ? y0 + BAND : fb.H;
      for (size_t k = off[b]; k < off[b + 1]; k++)
        draw(&fb, &p[idx[k]], y0, y1);
    }
    downsample(&fb, w, h, rgb);
  }
  free(off), free(idx), free(p), free(vis), free(fb.depth), free(fb.rgb);
  return rc;
}
