/* ms_render: previews of the frames a run wrote, and a movie of them;
 * several runs side by side (ms_render_options.beside). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <mergesplit/core.h>

#include "../io/io.h"
#include "preview.h"
#include "../base/base.h"

extern char **environ;

/* One run's output directory: its series and the particles of a frame. */
struct side {
  const char *outdir;
  struct ms__pvd pvd;
  int64_t *frames; /* distinct frame numbers, ascending */
  size_t nframes;
  char **names;    /* per part; NULL: a surface, not drawn */
  uint8_t *surface; /* per part: a mesh without radii (output.surface) */
  uint32_t nparts;
  struct ms__splats s;
};

#define MAX_SIDES 8

struct job {
  struct ms_render_options o;
  struct ms__look look;
  char *pdir;
  struct side side[MAX_SIDES]; /* OUTDIR, then the runs beside it */
  uint32_t nsides;
  int has_color; /* some file holds the colour field */
  struct ms__err err;
};

static void say(const struct job *j, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(const struct job *j, const char *fmt, ...) {
  if (!j->o.log) return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  j->o.log(j->o.log_opaque, MS_SINK_INFO, line);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Distinct frames and the system name of every part. */
static int index_frames(struct job *j, struct side *d) {
  struct ms__pvd *p = &d->pvd;
  if (!(d->frames = malloc((p->n ? p->n : 1) * sizeof *d->frames)))
    return ms__errf(&j->err, MS_ENOMEM, "out of memory");
  for (size_t i = 0; i < p->n; i++) {
    d->frames[i] = p->e[i].frame;
    if (p->e[i].part + 1 > d->nparts) d->nparts = p->e[i].part + 1;
  }
  if (p->n > 1) qsort(d->frames, p->n, sizeof *d->frames, cmp_i64);
  for (size_t i = 0; i < p->n; i++)
    if (!d->nframes || d->frames[d->nframes - 1] != d->frames[i])
      d->frames[d->nframes++] = d->frames[i];
  if (d->nparts > 65535)
    return ms__errf(&j->err, MS_EINVAL, "too many systems (%u)", d->nparts);
  if (!(d->names = calloc(d->nparts ? d->nparts : 1, sizeof *d->names)) ||
      !(d->surface = calloc(d->nparts ? d->nparts : 1, 1)))
    return ms__errf(&j->err, MS_ENOMEM, "out of memory");
  for (size_t i = 0; i < p->n; i++)
    if (!d->names[p->e[i].part]) d->names[p->e[i].part] = p->e[i].name;
  for (uint32_t k = 0; k < d->nparts; k++)
    if (!d->names[k]) d->names[k] = "?";
  return MS_OK;
}

/* Append one .vtp's particles to the splats. */
static int load_part(struct job *j, struct side *d,
                     const struct ms__pvd_entry *e) {
  char path[4096];
  struct ms__vtp v;
  snprintf(path, sizeof path, "%s/%s", d->outdir, e->file);
  int rc = ms__vtp_read(path, &v, &j->err);
  if (rc) return rc;
  const struct ms__vtp_array *r = ms__vtp_find(&v, "radius");
  const struct ms__vtp_array *vel = ms__vtp_find(&v, "velocity");
  if (v.has_domain && !j->o.no_floor && !j->look.floor) { /* its floor */
    j->look.floor = 1;
    ms__memcpy(j->look.box_lo, v.domain, sizeof j->look.box_lo);
    ms__memcpy(j->look.box_hi, v.domain + 3, sizeof j->look.box_hi);
  }
  const char *cn = j->look.color;
  const struct ms__vtp_array *c = NULL;
  if (strcmp(cn, "system")) {
    c = ms__vtp_find(&v, cn);
    if (!c && !strcmp(cn, "speed")) c = ms__vtp_find(&v, "velocity");
    j->has_color |= c != NULL;
  }
  if (!r && (v.npolys || !v.n)) { /* a fluid's surface (perhaps empty) */
    d->surface[e->part] = 1;
    ms__vtp_free(&v);
    return MS_OK;
  }
  if (!r || r->comps != 1) {
    ms__vtp_free(&v);
    return ms__errf(&j->err, MS_EINVAL, "%s: no radius field", path);
  }
  size_t base = d->s.n;
  if (ms__splats_reserve(&d->s, base + v.n)) {
    ms__vtp_free(&v);
    return ms__errf(&j->err, MS_ENOMEM, "out of memory");
  }
  for (size_t i = 0; i < v.n; i++) {
    for (int a = 0; a < 3; a++)
      d->s.xyz[3 * (base + i) + a] = (float)ms__vtp_value(&v.a[0], i, a);
    d->s.r[base + i] = (float)ms__vtp_value(r, i, 0);
    d->s.value[base + i] = c ? (float)ms__vtp_value(c, i, -1) : NAN;
    d->s.speed[base + i] = vel ? (float)ms__vtp_value(vel, i, -1) : NAN;
    d->s.sys[base + i] = (uint16_t)e->part;
  }
  d->s.n = base + v.n;
  ms__vtp_free(&v);
  return MS_OK;
}

static int load_frame(struct job *j, struct side *d, int64_t frame,
                      double *t) {
  d->s.n = 0;
  int found = 0;
  for (size_t i = 0; i < d->pvd.n; i++) {
    if (d->pvd.e[i].frame != frame) continue;
    *t = d->pvd.e[i].t;
    found = 1;
    int rc = load_part(j, d, &d->pvd.e[i]);
    if (rc) return rc;
  }
  if (!found) /* a run beside the first that wrote other frames */
    return ms__errf(&j->err, MS_EINVAL, "%s/scene.pvd: frame %lld was not "
                    "written: runs side by side need the same frames",
                    d->outdir, (long long)frame);
  return MS_OK;
}

static int parse_camera(struct job *j) {
  const char *s = j->o.camera;
  if (!s) return MS_OK;
  char *end;
  int n = 0;
  while (*s && n < 8) {
    double v = strtod(s, &end);
    if (end == s || !isfinite(v)) break;
    if (n < 7) j->look.cam[n] = v;
    n++;
    s = end;
    if (*s == ',') s++;
    else break;
  }
  if (*s || !(n == 2 || n == 3 || n == 6 || n == 7))
    return ms__errf(&j->err, MS_EINVAL, "--camera '%s': expected AZ,EL[,ZOOM] "
                    "or EX,EY,EZ,TX,TY,TZ[,FOV] (numbers)", j->o.camera);
  j->look.ncam = n;
  return MS_OK;
}

static int find_program(const char *name) {
  const char *path = getenv("PATH");
  if (!path) return 0;
  char buf[4096];
  for (const char *p = path; *p;) {
    size_t n = strcspn(p, ":");
    snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, name);
    if (n && access(buf, X_OK) == 0) return 1;
    p += n + (p[n] == ':');
  }
  return 0;
}

static int make_movie(struct job *j, double fps) {
  char pattern[4200], tmp[4200], dst[4200], rate[32];
  snprintf(pattern, sizeof pattern, "%s/frame_*.png", j->pdir);
  snprintf(tmp, sizeof tmp, "%s/movie.tmp%ld.mp4", j->pdir, (long)getpid());
  snprintf(dst, sizeof dst, "%s/movie.mp4", j->pdir);
  snprintf(rate, sizeof rate, "%.6g", fps);
  char *argv[] = {"ffmpeg", "-nostdin", "-y", "-loglevel", "error",
                  "-framerate", rate, "-pattern_type", "glob", "-i", pattern,
                  "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-pix_fmt",
                  "yuv420p", tmp, NULL};
  pid_t pid;
  int st = 0, rc = posix_spawnp(&pid, "ffmpeg", NULL, NULL, argv, environ);
  if (rc)
    return ms__errf(&j->err, MS_EIO, "cannot run ffmpeg: %s", strerror(rc));
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || rename(tmp, dst)) {
    remove(tmp);
    return ms__errf(&j->err, MS_EIO, "%s: ffmpeg failed to assemble the "
                    "movie (exit status %d)", dst,
                    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  }
  say(j, "wrote %s", dst);
  return MS_OK;
}

static int wanted(const struct job *j, size_t k) {
  return j->o.frame < 0 || j->side[0].frames[k] == j->o.frame;
}

static void grow_box(double lo[3], double hi[3], const double flo[3],
                     const double fhi[3]) {
  for (int d = 0; d < 3; d++)
    lo[d] = fmin(lo[d], flo[d]), hi[d] = fmax(hi[d], fhi[d]);
}

/* What the camera frames: what moves (the particles faster than 2 % of
 * each frame's fastest, over the frames), at least a fifth of all the
 * particles' box on each side; or every particle (fit_all, or when
 * nothing moves). */
static void subject(const struct job *j, double blo[3], double bhi[3],
                    const double mlo[3], const double mhi[3]) {
  if (j->o.fit_all || !(mlo[0] <= mhi[0])) return;
  double side = 0;
  for (int d = 0; d < 3; d++) side = fmax(side, bhi[d] - blo[d]);
  for (int d = 0; d < 3; d++) {
    double c = 0.5 * (mlo[d] + mhi[d]);
    double h = fmax(0.5 * (mhi[d] - mlo[d]), 0.1 * side);
    blo[d] = fmax(blo[d], c - h), bhi[d] = fmin(bhi[d], c + h);
  }
}

/* Frame k of every side; t: the first side's time. */
static int load_sides(struct job *j, size_t k, double *t) {
  for (uint32_t i = 0; i < j->nsides; i++) {
    double ti = 0;
    int rc = load_frame(j, &j->side[i], j->side[0].frames[k], &ti);
    if (rc) return rc;
    if (!i) *t = ti;
  }
  return MS_OK;
}

/* The range of the colour field over every side's particles. */
static int sides_range(const struct job *j, double *lo, double *hi) {
  int any = 0;
  double a, b;
  *lo = INFINITY, *hi = -INFINITY;
  for (uint32_t i = 0; i < j->nsides; i++)
    if (ms__splats_range(&j->side[i].s, &a, &b))
      *lo = fmin(*lo, a), *hi = fmax(*hi, b), any = 1;
  return any;
}

/* Pass 1: one camera and one colour range for every image. */
static int frame_all(struct job *j, struct ms__camera *cam, double *lo,
                     double *hi) {
  double blo[3] = {INFINITY, INFINITY, INFINITY};
  double bhi[3] = {-INFINITY, -INFINITY, -INFINITY}, a, b, t;
  double mlo[3] = {INFINITY, INFINITY, INFINITY};
  double mhi[3] = {-INFINITY, -INFINITY, -INFINITY};
  *lo = INFINITY, *hi = -INFINITY;
  for (size_t k = 0; k < j->side[0].nframes; k++) {
    if (!wanted(j, k)) continue;
    int rc = load_sides(j, k, &t);
    if (rc) return rc;
    for (uint32_t i = 0; i < j->nsides; i++) {
      const struct ms__splats *s = &j->side[i].s;
      double flo[3], fhi[3];
      if (ms__splats_bounds(s, flo, fhi)) grow_box(blo, bhi, flo, fhi);
      if (ms__splats_moving(s, 0.02, flo, fhi)) grow_box(mlo, mhi, flo, fhi);
    }
    if (sides_range(j, &a, &b)) *lo = fmin(*lo, a), *hi = fmax(*hi, b);
  }
  subject(j, blo, bhi, mlo, mhi);
  if (strcmp(j->look.color, "system") && !j->has_color)
    return ms__errf(&j->err, MS_EINVAL, "--color-by %s: no frame has a "
                    "point field '%s'", j->look.color, j->look.color);
  if (!(blo[0] <= bhi[0]))
    for (int d = 0; d < 3; d++) blo[d] = -1, bhi[d] = 1;
  if (!(*lo <= *hi)) *lo = 0, *hi = 1;
  if (j->look.range[0] < j->look.range[1])
    *lo = j->look.range[0], *hi = j->look.range[1];
  for (uint32_t i = 0; i < j->nsides; i++)
    for (uint32_t p = 0; p < j->side[i].nparts; p++)
      if (j->side[i].surface[p]) j->side[i].names[p] = NULL; /* no swatch */
  if (ms__look_camera(&j->look, blo, bhi, cam))
    return ms__errf(&j->err, MS_EINVAL, "--camera: the field of view must "
                    "lie in (1, 170) degrees");
  return MS_OK;
}

/* The image of frame k: one tile per side, each with its caption. */
static int draw_frame(struct job *j, size_t k, const struct ms__camera *cam,
                      double lo, double hi, const char *path, double t) {
  struct ms__tile tile[MAX_SIDES];
  char cap[MAX_SIDES][160];
  if (j->o.range_per_frame && !(j->look.range[0] < j->look.range[1])) {
    double flo, fhi; /* this image's own range */
    if (sides_range(j, &flo, &fhi)) lo = flo, hi = fhi;
  }
  for (uint32_t i = 0; i < j->nsides; i++) {
    const struct side *d = &j->side[i];
    const char *name = strrchr(d->outdir, '/');
    name = name && name[1] ? name + 1 : d->outdir;
    if (j->nsides > 1)
      snprintf(cap[i], sizeof cap[i], "%s   frame %lld   t = %.4g s", name,
               (long long)j->side[0].frames[k], t);
    else
      snprintf(cap[i], sizeof cap[i], "frame %lld   t = %.4g s",
               (long long)j->side[0].frames[k], t);
    tile[i] = (struct ms__tile){&d->s, cap[i], (const char *const *)d->names,
                                d->nparts};
  }
  return ms__preview_tiles(path, tile, j->nsides, cam, &j->look, lo, hi,
                           &j->err);
}

static int render_all(struct job *j) {
  struct ms__camera cam;
  double lo, hi, t = 0, t0 = NAN, t1 = NAN;
  size_t done = 0;
  int rc = frame_all(j, &cam, &lo, &hi);
  if (rc) return rc;
  if (ms__make_dirs(j->pdir))
    return ms__errf(&j->err, MS_EIO, "%s: cannot create the directory: %s",
                    j->pdir, strerror(errno));
  for (size_t k = 0; k < j->side[0].nframes; k++) {
    if (!wanted(j, k)) continue;
    char path[4200];
    if ((rc = load_sides(j, k, &t))) return rc;
    snprintf(path, sizeof path, "%s/frame_%06lld.png", j->pdir,
             (long long)j->side[0].frames[k]);
    if ((rc = draw_frame(j, k, &cam, lo, hi, path, t))) return rc;
    say(j, "wrote %s", path);
    if (!done++) t0 = t;
    t1 = t;
  }
  if (!j->o.movie) return MS_OK;
  double real = done > 1 && t1 > t0 ? (double)(done - 1) / (t1 - t0) : 30.0;
  double fps = j->o.fps > 0 ? j->o.fps
                            : real / (j->o.slow > 1 ? j->o.slow : 1.0);
  say(j, "movie: %zu frames at %.4g frames/s, %.3g s (the run: %.3g s%s)",
      done, fps, done / fps, t1 - t0,
      j->o.fps > 0 || j->o.slow > 1 || done / fps >= 3
          ? ""
          : "; --slow N or --fps N for a longer movie");
  return make_movie(j, fps);
}

static int setup(struct job *j, const char *outdir,
                 const struct ms_render_options *opt) {
  ms__memset(&j->o, 0, sizeof j->o);
  j->o.frame = -1;
  if (opt) {
    size_t n = opt->struct_size < sizeof j->o ? opt->struct_size : sizeof j->o;
    ms__memcpy(&j->o, opt, n);
  }
  j->side[0].outdir = outdir;
  j->nsides = 1;
  for (const char *const *b = j->o.beside; b && *b; b++) {
    if (j->nsides == MAX_SIDES)
      return ms__errf(&j->err, MS_EINVAL, "%d runs side by side at most",
                      MAX_SIDES);
    j->side[j->nsides++].outdir = *b;
  }
  struct ms__look *lk = &j->look;
  lk->w = j->o.width > 0 ? j->o.width : 800;
  lk->h = j->o.height > 0 ? j->o.height : 600;
  if (lk->w < 16 || lk->h < 16 || lk->w > 8192 || lk->h > 8192 ||
      lk->w * (int)j->nsides > 16384)
    return ms__errf(&j->err, MS_EINVAL, "image size %dx%d: each side must lie "
                    "in [16, 8192], %u of them side by side at most 16384 "
                    "wide", lk->w, lk->h, j->nsides);
  lk->color = j->o.color_by && j->o.color_by[0] ? j->o.color_by : "system";
  lk->range[0] = j->o.range[0];
  lk->range[1] = j->o.range[1];
  lk->up[1] = 1.0; /* files do not say where gravity points */
#ifdef _OPENMP
  if (j->o.threads > 0) omp_set_num_threads(j->o.threads);
#endif
  size_t n = strlen(j->o.out_dir ? j->o.out_dir : outdir) + 16;
  if (!(j->pdir = malloc(n)))
    return ms__errf(&j->err, MS_ENOMEM, "out of memory");
  if (j->o.out_dir) snprintf(j->pdir, n, "%s", j->o.out_dir);
  else snprintf(j->pdir, n, "%s/preview", outdir);
  if (j->o.movie && j->o.frame >= 0)
    return ms__errf(&j->err, MS_EINVAL, "--movie needs every frame: drop "
                    "--frame");
  if (!(j->o.fps >= 0 && j->o.fps <= 1000) ||
      !(j->o.slow == 0 || (j->o.slow >= 1 && j->o.slow <= 1e6)))
    return ms__errf(&j->err, MS_EINVAL, "--fps must lie in (0, 1000] and "
                    "--slow in [1, 1e6] (got %g and %g)", j->o.fps, j->o.slow);
  if (j->o.movie && !find_program("ffmpeg"))
    return ms__errf(&j->err, MS_EIO, "--movie needs ffmpeg, which is not on "
                    "PATH: install the Debian package ffmpeg");
  return parse_camera(j);
}

static int open_side(struct job *j, struct side *d) {
  char path[4200];
  snprintf(path, sizeof path, "%s/scene.pvd", d->outdir);
  int rc = ms__pvd_read(path, &d->pvd, &j->err);
  if (rc) return rc;
  if ((rc = index_frames(j, d))) return rc;
  if (!d->nframes)
    return ms__errf(&j->err, MS_EINVAL, "%s: lists no frames", path);
  if (j->o.frame >= 0 &&
      !bsearch(&j->o.frame, d->frames, d->nframes, sizeof *d->frames, cmp_i64))
    return ms__errf(&j->err, MS_EINVAL, "%s: frame %lld was not written "
                    "(frames %lld to %lld)", path, (long long)j->o.frame,
                    (long long)d->frames[0],
                    (long long)d->frames[d->nframes - 1]);
  return MS_OK;
}

static int run(struct job *j) {
  for (uint32_t i = 0; i < j->nsides; i++) {
    int rc = open_side(j, &j->side[i]);
    if (rc) return rc;
  }
  return render_all(j);
}

int ms_render(const char *outdir, const struct ms_render_options *opt,
              char *err, size_t errlen) {
  struct job *j = calloc(1, sizeof *j);
  if (!j) {
    if (err && errlen) snprintf(err, errlen, "%s", ms_strerror(MS_ENOMEM));
    return MS_ENOMEM;
  }
  int rc = setup(j, outdir, opt);
  if (!rc) rc = run(j);
  if (rc && err && errlen) snprintf(err, errlen, "%s", j->err.msg);
  for (uint32_t i = 0; i < MAX_SIDES; i++) {
    struct side *d = &j->side[i];
    ms__pvd_free(&d->pvd);
    ms__splats_free(&d->s);
    free(d->frames);
    free(d->names);
    free(d->surface);
  }
  free(j->pdir);
  free(j);
  return rc;
}
