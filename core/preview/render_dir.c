/* ms_render: previews of the frames a run wrote, and a movie of them. */
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

struct job {
  const char *outdir;
  struct ms_render_options o;
  struct ms__look look;
  char *pdir;
  struct ms__pvd pvd;
  int64_t *frames; /* distinct frame numbers, ascending */
  size_t nframes;
  char **names;    /* per part; NULL: a surface, not drawn */
  uint8_t *surface; /* per part: a mesh without radii (output.surface) */
  uint32_t nparts;
  struct ms__splats s;
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
static int index_frames(struct job *j) {
  struct ms__pvd *p = &j->pvd;
  if (!(j->frames = malloc((p->n ? p->n : 1) * sizeof *j->frames)))
    return ms__errf(&j->err, MS_ENOMEM, "out of memory");
  for (size_t i = 0; i < p->n; i++) {
    j->frames[i] = p->e[i].frame;
    if (p->e[i].part + 1 > j->nparts) j->nparts = p->e[i].part + 1;
  }
  if (p->n > 1) qsort(j->frames, p->n, sizeof *j->frames, cmp_i64);
  for (size_t i = 0; i < p->n; i++)
    if (!j->nframes || j->frames[j->nframes - 1] != j->frames[i])
      j->frames[j->nframes++] = j->frames[i];
  if (j->nparts > 65535)
    return ms__errf(&j->err, MS_EINVAL, "too many systems (%u)", j->nparts);
  if (!(j->names = calloc(j->nparts ? j->nparts : 1, sizeof *j->names)) ||
      !(j->surface = calloc(j->nparts ? j->nparts : 1, 1)))
    return ms__errf(&j->err, MS_ENOMEM, "out of memory");
  for (size_t i = 0; i < p->n; i++)
    if (!j->names[p->e[i].part]) j->names[p->e[i].part] = p->e[i].name;
  for (uint32_t k = 0; k < j->nparts; k++)
    if (!j->names[k]) j->names[k] = "?";
  return MS_OK;
}

/* Append one .vtp's particles to the splats. */
static int load_part(struct job *j, const struct ms__pvd_entry *e) {
  char path[4096];
  struct ms__vtp v;
  snprintf(path, sizeof path, "%s/%s", j->outdir, e->file);
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
  if (!r && v.npolys) { /* a fluid's surface: the particles show it */
    j->surface[e->part] = 1;
    ms__vtp_free(&v);
    return MS_OK;
  }
  if (!r || r->comps != 1) {
    ms__vtp_free(&v);
    return ms__errf(&j->err, MS_EINVAL, "%s: no radius field", path);
  }
  size_t base = j->s.n;
  if (ms__splats_reserve(&j->s, base + v.n)) {
    ms__vtp_free(&v);
    return ms__errf(&j->err, MS_ENOMEM, "out of memory");
  }
  for (size_t i = 0; i < v.n; i++) {
    for (int a = 0; a < 3; a++)
      j->s.xyz[3 * (base + i) + a] = (float)ms__vtp_value(&v.a[0], i, a);
    j->s.r[base + i] = (float)ms__vtp_value(r, i, 0);
    j->s.value[base + i] = c ? (float)ms__vtp_value(c, i, -1) : NAN;
    j->s.speed[base + i] = vel ? (float)ms__vtp_value(vel, i, -1) : NAN;
    j->s.sys[base + i] = (uint16_t)e->part;
  }
  j->s.n = base + v.n;
  ms__vtp_free(&v);
  return MS_OK;
}

static int load_frame(struct job *j, int64_t frame, double *t) {
  j->s.n = 0;
  for (size_t i = 0; i < j->pvd.n; i++) {
    if (j->pvd.e[i].frame != frame) continue;
    *t = j->pvd.e[i].t;
    int rc = load_part(j, &j->pvd.e[i]);
    if (rc) return rc;
  }
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
  return j->o.frame < 0 || j->frames[k] == j->o.frame;
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

/* Pass 1: one camera and one colour range for every image. */
static int frame_all(struct job *j, struct ms__camera *cam, double *lo,
                     double *hi) {
  double blo[3] = {INFINITY, INFINITY, INFINITY};
  double bhi[3] = {-INFINITY, -INFINITY, -INFINITY}, a, b, t;
  double mlo[3] = {INFINITY, INFINITY, INFINITY};
  double mhi[3] = {-INFINITY, -INFINITY, -INFINITY};
  *lo = INFINITY, *hi = -INFINITY;
  for (size_t k = 0; k < j->nframes; k++) {
    if (!wanted(j, k)) continue;
    int rc = load_frame(j, j->frames[k], &t);
    if (rc) return rc;
    double flo[3], fhi[3];
    if (ms__splats_bounds(&j->s, flo, fhi)) grow_box(blo, bhi, flo, fhi);
    if (ms__splats_moving(&j->s, 0.02, flo, fhi)) grow_box(mlo, mhi, flo, fhi);
    if (ms__splats_range(&j->s, &a, &b)) *lo = fmin(*lo, a), *hi = fmax(*hi, b);
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
  for (uint32_t p = 0; p < j->nparts; p++)
    if (j->surface[p]) j->names[p] = NULL; /* no swatch in the legend */
  if (ms__look_camera(&j->look, blo, bhi, cam))
    return ms__errf(&j->err, MS_EINVAL, "--camera: the field of view must "
                    "lie in (1, 170) degrees");
  return MS_OK;
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
  for (size_t k = 0; k < j->nframes; k++) {
    if (!wanted(j, k)) continue;
    char path[4200], cap[128];
    if ((rc = load_frame(j, j->frames[k], &t))) return rc;
    snprintf(path, sizeof path, "%s/frame_%06lld.png", j->pdir,
             (long long)j->frames[k]);
    snprintf(cap, sizeof cap, "frame %lld   t = %.4g s",
             (long long)j->frames[k], t);
    double flo = lo, fhi = hi; /* this image's own range */
    if (j->o.range_per_frame && !(j->look.range[0] < j->look.range[1]) &&
        !ms__splats_range(&j->s, &flo, &fhi))
      flo = lo, fhi = hi;
    rc = ms__preview_image(path, &j->s, &cam, &j->look, flo, fhi, cap,
                           (const char *const *)j->names, j->nparts, &j->err);
    if (rc) return rc;
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
  j->outdir = outdir;
  struct ms__look *lk = &j->look;
  lk->w = j->o.width > 0 ? j->o.width : 800;
  lk->h = j->o.height > 0 ? j->o.height : 600;
  if (lk->w < 16 || lk->h < 16 || lk->w > 8192 || lk->h > 8192)
    return ms__errf(&j->err, MS_EINVAL, "image size %dx%d: each side must lie "
                    "in [16, 8192]", lk->w, lk->h);
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

static int run(struct job *j, const char *outdir) {
  char path[4200];
  snprintf(path, sizeof path, "%s/scene.pvd", outdir);
  int rc = ms__pvd_read(path, &j->pvd, &j->err);
  if (rc) return rc;
  if ((rc = index_frames(j))) return rc;
  if (!j->nframes)
    return ms__errf(&j->err, MS_EINVAL, "%s: lists no frames", path);
  if (j->o.frame >= 0 &&
      !bsearch(&j->o.frame, j->frames, j->nframes, sizeof *j->frames, cmp_i64))
    return ms__errf(&j->err, MS_EINVAL, "%s: frame %lld was not written "
                    "(frames %lld to %lld)", path, (long long)j->o.frame,
                    (long long)j->frames[0],
                    (long long)j->frames[j->nframes - 1]);
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
  if (!rc) rc = run(j, outdir);
  if (rc && err && errlen) snprintf(err, errlen, "%s", j->err.msg);
  ms__pvd_free(&j->pvd);
  ms__splats_free(&j->s);
  free(j->frames);
  free(j->names);
  free(j->surface);
  free(j->pdir);
  free(j);
  return rc;
}
