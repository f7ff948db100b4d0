/* The cost of writing one big frame.  N particles (default 1,000,000) in
 * one system with the view the sph plugin shows (position with its
 * 4-double stride, velocity, mass, radius, density, pressure, id) plus the
 * core's system and meta fields; frames 1..R (default 5) are written
 * through the core's frame output as VTP, as PLY and as both, into DIR
 * (default $TMPDIR or /tmp), as a run writes them (in the background,
 * direct I/O), and as VTP written plainly on the caller's thread.  Prints
 * the best and the median time on the caller and until the files are in
 * place, the bytes written and the throughput, then the cost of a preview
 * image of the same particles.  Times from the program's monotonic clock; memory from
 * getrusage.
 *
 *   bench-output [N] [R] [DIR] */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../core/io/io.h"
#include "../../core/preview/preview.h"
#include "../../core/base/base.h"

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static off_t file_size(const char *path) {
  struct stat st;
  return stat(path, &st) ? 0 : st.st_size;
}

/* Frames 1..R of one view in format fmt through the core's frame output
 * with file-writer flags io.  Per frame: the time ms__output_frame takes
 * (what a run's thread pays: the files laid out and filled) and the time
 * until the files are in place. */
static off_t one_format(const char *dir, unsigned fmt, unsigned io,
                        const char *label, const struct ms_view *v,
                        const int32_t *meta, int R) {
  const char *names[] = {"fluid"};
  const int32_t *metas[] = {meta};
  double *t = malloc(2 * (size_t)R * sizeof *t), *done = t + R;
  struct ms__err err = {0};
  off_t bytes = 0;
  struct ms__output *o;
  if (ms__output_open(&o, dir, fmt, io, 1, names, &err)) {
    fprintf(stderr, "bench-output: %s\n", err.msg);
    exit(1);
  }
  for (int r = 0; r < R; r++) {
    double t0 = ms__now();
    if (ms__output_frame(o, r + 1, 0.5 * (r + 1), v, metas, NULL, &err)) {
      fprintf(stderr, "bench-output: %s\n", err.msg);
      exit(1);
    }
    t[r] = ms__now() - t0;
    if (ms__output_flush(o, &err)) {
      fprintf(stderr, "bench-output: %s\n", err.msg);
      exit(1);
    }
    done[r] = ms__now() - t0;
  }
  ms__output_close(o);
  for (int r = 0; r < R; r++) {
    char path[4096];
    bytes = 0;
    snprintf(path, sizeof path, "%s/fluid_%06d.vtp", dir, r + 1);
    bytes += (fmt & ms__format_bit("vtp")) ? file_size(path) : 0;
    remove(path);
    snprintf(path, sizeof path, "%s/fluid_%06d.ply", dir, r + 1);
    bytes += (fmt & ms__format_bit("ply")) ? file_size(path) : 0;
    remove(path);
  }
  qsort(t, (size_t)R, sizeof *t, cmp);
  qsort(done, (size_t)R, sizeof *done, cmp);
  printf("%-12s %7.1f %7.1f | %7.1f %7.1f | %6.1f MB %6.0f MB/s\n", label,
         1e3 * t[0], 1e3 * t[R / 2], 1e3 * done[0], 1e3 * done[R / 2],
         (double)bytes / 1e6, (double)bytes / 1e6 / done[0]);
  free(t);
  return bytes;
}

/* The floor: the same number of bytes from one buffer in one fwrite,
 * through a temporary file and a rename, into fresh files as the frames
 * are.  On a virtual machine whose free memory the host reclaims, fresh
 * page cache can cost ten times more than the copy: the floor shows it. */
static void floor_cost(const char *dir, off_t bytes, int R) {
  char *buf = malloc((size_t)bytes), path[4200], tmp[4200];
  double *t = malloc((size_t)R * sizeof *t);
  memset(buf, 1, (size_t)bytes);
  for (int r = 0; r < R; r++) {
    snprintf(path, sizeof path, "%s/floor%d.bin", dir, r);
    snprintf(tmp, sizeof tmp, "%s/floor%d.bin.tmp", dir, r);
    double t0 = ms__now();
    FILE *f = fopen(tmp, "wb");
    if (!f || fwrite(buf, 1, (size_t)bytes, f) != (size_t)bytes || fclose(f) ||
        rename(tmp, path)) {
      fprintf(stderr, "bench-output: cannot write %s\n", tmp);
      exit(1);
    }
    t[r] = ms__now() - t0;
  }
  for (int r = 0; r < R; r++) {
    snprintf(path, sizeof path, "%s/floor%d.bin", dir, r);
    remove(path);
  }
  qsort(t, (size_t)R, sizeof *t, cmp);
  printf("%-12s %7s %7s | %7.1f %7.1f | %6.1f MB %6.0f MB/s  (one fwrite "
         "of the VTP's size)\n", "floor", "", "", 1e3 * t[0], 1e3 * t[R / 2],
         (double)bytes / 1e6, (double)bytes / 1e6 / t[0]);
  free(t);
  free(buf);
}

static void preview_cost(const char *dir, const struct ms_view *v, int R) {
  struct ms__scene sc;
  memset(&sc, 0, sizeof sc);
  sc.preview_size[0] = 800;
  sc.preview_size[1] = 600;
  sc.preview_color = "speed";
  sc.preview_range[0] = sc.preview_range[1] = NAN;
  sc.gravity[1] = -9.81;
  for (int a = 0; a < 3; a++)
    sc.domain_min[a] = -INFINITY, sc.domain_max[a] = INFINITY;
  const char *names[] = {"fluid"};
  char pdir[4096];
  snprintf(pdir, sizeof pdir, "%s/preview", dir);
  struct ms__preview *p;
  struct ms__err err = {0};
  double best = INFINITY;
  if (ms__preview_open(&p, &sc, pdir, &err)) {
    fprintf(stderr, "bench-output: %s\n", err.msg);
    exit(1);
  }
  for (int r = 0; r < R; r++) {
    double t0 = ms__now();
    if (ms__preview_frame(p, 1, 0.5, v, names, 1, &err)) {
      fprintf(stderr, "bench-output: %s\n", err.msg);
      exit(1);
    }
    best = fmin(best, ms__now() - t0);
  }
  ms__preview_close(p);
  printf("%-12s %7.1f         |                 |  (800x600 PNG, coloured "
         "by speed)\n", "preview", 1e3 * best);
  snprintf(pdir, sizeof pdir, "%s/preview/frame_000001.png", dir);
  remove(pdir);
  snprintf(pdir, sizeof pdir, "%s/preview", dir);
  rmdir(pdir);
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? (size_t)atol(argv[1]) : 1000000;
  int R = argc > 2 ? atoi(argv[2]) : 5;
  const char *tmp = getenv("TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/bench-output.%ld",
           argc > 3 ? argv[3] : tmp ? tmp : "/tmp", (long)getpid());
  if (R < 1) R = 1;
  double *x = malloc(4 * n * sizeof *x), *v = malloc(3 * n * sizeof *v);
  uint32_t *id = malloc(n * sizeof *id);
  double *s = malloc(4 * n * sizeof *s); /* mass, radius, density, pressure */
  int32_t *meta = malloc(n * sizeof *meta);
  size_t side = (size_t)ceil(cbrt((double)n));
  for (size_t i = 0; i < n; i++) { /* a block of fluid, 1 cm spacing */
    x[4 * i] = 0.01 * (double)(i % side);
    x[4 * i + 1] = 0.01 * (double)(i / side % side);
    x[4 * i + 2] = 0.01 * (double)(i / (side * side));
    x[4 * i + 3] = 0.0;
    id[i] = (uint32_t)i;
    for (int a = 0; a < 3; a++) v[3 * i + a] = 0.1 * sin((double)(i + a));
    s[i] = 1e-3, s[n + i] = 0.005, s[2 * n + i] = 1000 + (double)(i % 7);
    s[3 * n + i] = 10.0 * (double)(i % 13);
    meta[i] = i % 10 ? -1 : (int32_t)(i / 10);
  }
  struct ms_field f[] = {{"position", MS_TYPE_F64, 3, 32, x},
                         {"velocity", MS_TYPE_F64, 3, 24, v},
                         {"mass", MS_TYPE_F64, 1, 8, s},
                         {"radius", MS_TYPE_F64, 1, 8, s + n},
                         {"density", MS_TYPE_F64, 1, 8, s + 2 * n},
                         {"pressure", MS_TYPE_F64, 1, 8, s + 3 * n},
                         {"id", MS_TYPE_U32, 1, 4, id}};
  struct ms_view view = {sizeof view, 7, n, f};
  printf("bench-output: one frame of %zu particles (7 fields + system, "
         "meta), %d threads, best of %d, into %s\n", n,
         omp_get_max_threads(), R, dir);
  printf("ms per frame  on the caller     | until in place  | written\n"
         "              best  median   |  best  median   |\n");
  const unsigned bg = MS__FW_BACKGROUND | MS__FW_DIRECT;
  off_t vtp_bytes = one_format(dir, ms__format_bit("vtp"), bg, "vtp", &view, meta, R);
  one_format(dir, ms__format_bit("ply"), bg, "ply", &view, meta, R);
  one_format(dir, ms__format_bit("vtp") | ms__format_bit("ply"), bg, "vtp+ply", &view, meta, R);
  one_format(dir, ms__format_bit("vtp"), 0, "vtp, plain", &view, meta, R);
  floor_cost(dir, vtp_bytes, R);
  preview_cost(dir, &view, R);
  static const char *const left[] = {"fluid.pvd", "scene.pvd"};
  for (size_t k = 0; k < sizeof left / sizeof *left; k++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, left[k]);
    remove(path);
  }
  rmdir(dir);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("peak resident memory %.0f MB\n", (double)ru.ru_maxrss / 1024.0);
  free(x), free(v), free(s), free(meta), free(id);
  return 0;
}
