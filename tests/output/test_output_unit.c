/* Unit tests of the output layer: the checkpoint checksum, atomic files,
 * the background file writer, the writers' refusals, the colour map and
 * the camera. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suites.h"

#include "../../core/io/io.h"
#include "../../core/base/base.h"
#include "../../core/preview/preview.h"

START_TEST(hash_streaming_equals_one_shot) {
  unsigned char buf[257];
  for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)(i * 37 + 11);
  uint64_t whole = ms__hash64(buf, sizeof buf);
  for (size_t a = 0; a <= sizeof buf; a++)
    for (size_t b = a; b <= sizeof buf; b += 7) {
      struct ms__hash h;
      ms__hash_init(&h);
      ms__hash_update(&h, buf, a);
      ms__hash_update(&h, buf + a, b - a);
      ms__hash_update(&h, buf + b, sizeof buf - b);
      ck_assert_uint_eq(ms__hash_final(&h), whole);
    }
}
END_TEST

START_TEST(hash_sees_every_single_bit_flip) {
  unsigned char buf[1000];
  for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)(i ^ 0x5a);
  uint64_t h0 = ms__hash64(buf, sizeof buf);
  for (size_t bit = 0; bit < 8 * sizeof buf; bit++) {
    buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
    ck_assert_uint_ne(ms__hash64(buf, sizeof buf), h0);
    buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
  }
  /* Length matters too: a zero byte appended or a byte dropped. */
  unsigned char z[1001];
  memcpy(z, buf, sizeof buf);
  z[1000] = 0;
  ck_assert_uint_ne(ms__hash64(z, 1001), h0);
  ck_assert_uint_ne(ms__hash64(buf, 999), h0);
}
END_TEST

static char dir[64];

static void make_dir(void) {
  strcpy(dir, "/tmp/ms-unit-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

static int count_entries(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "ls -A %s | wc -l", dir);
  FILE *p = popen(cmd, "r");
  int n = -1;
  ck_assert_int_eq(fscanf(p, "%d", &n), 1);
  pclose(p);
  return n;
}

START_TEST(afile_commit_and_abort) {
  make_dir();
  char path[128];
  struct ms__afile a;
  struct ms__err err = {0};
  snprintf(path, sizeof path, "%s/f.txt", dir);
  ck_assert_int_eq(ms__afile_open(&a, path, &err), MS_OK);
  fputs("half", a.f);
  ck_assert_int_eq(access(path, F_OK), -1); /* nothing behind the name */
  ms__afile_abort(&a);
  ck_assert_int_eq(count_entries(), 0);     /* and no temporary left */
  ck_assert_int_eq(ms__afile_open(&a, path, &err), MS_OK);
  fputs("whole", a.f);
  ck_assert_int_eq(ms__afile_commit(&a, 1, &err), MS_OK);
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_eq(st.st_size, 5);
  ck_assert_int_eq(count_entries(), 1);
  remove(path);
  rmdir(dir);
}
END_TEST

/* One run per output directory: a second lock is refused with one line
 * naming the directory, and granted once the first is released. */
START_TEST(one_run_per_output_directory) {
  make_dir();
  struct ms__err err = {0};
  int a = -1, b = -1;
  ck_assert_int_eq(ms__lock_dir(dir, &a, &err), MS_OK);
  ck_assert_int_eq(ms__lock_dir(dir, &b, &err), MS_EIO);
  ck_assert_ptr_nonnull(strstr(err.msg, "another run is writing into this "
                                        "directory"));
  ck_assert_ptr_nonnull(strstr(err.msg, dir));
  ck_assert_ptr_null(strchr(err.msg, '\n'));
  close(a);
  ck_assert_int_eq(ms__lock_dir(dir, &b, &err), MS_OK);
  close(b);
  char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, MS__LOCK_NAME);
  ck_assert_int_eq(remove(path), 0);
  rmdir(dir);
}
END_TEST

static void put(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
}

static void holds(const char *path, const char *text) {
  char got[64] = "";
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  size_t n = fread(got, 1, sizeof got - 1, f);
  fclose(f);
  got[n] = '\0';
  ck_assert_str_eq(got, text);
}

/* A symbolic link planted under an output name is replaced by the file,
 * never written through; temporary names differ from call to call (not
 * to be guessed and planted either). */
START_TEST(links_in_the_output_are_replaced_not_followed) {
  make_dir();
  char victim[] = "/tmp/ms-victim-XXXXXX", path[128], ftxt[128], vfile[64];
  ck_assert_ptr_nonnull(mkdtemp(victim));
  snprintf(vfile, sizeof vfile, "%s/precious", victim);
  put(vfile, "keep");
  struct ms__err err = {0};
  struct stat st;
  snprintf(ftxt, sizeof ftxt, "%s/f.txt", dir);
  ck_assert_int_eq(symlink(vfile, ftxt), 0);
  struct ms__afile a;
  ck_assert_int_eq(ms__afile_open(&a, ftxt, &err), MS_OK);
  fputs("new", a.f);
  ck_assert_int_eq(ms__afile_commit(&a, 0, &err), MS_OK);
  snprintf(path, sizeof path, "%s/g.bin", dir);
  ck_assert_int_eq(symlink(vfile, path), 0);
  ck_assert_int_eq(ms__fw_write_file(path, "bytes", 5, 0, &err), MS_OK);
  holds(vfile, "keep");
  ck_assert_int_eq(lstat(ftxt, &st), 0);
  ck_assert(S_ISREG(st.st_mode));
  holds(ftxt, "new");
  ck_assert_int_eq(lstat(path, &st), 0);
  ck_assert(S_ISREG(st.st_mode));
  holds(path, "bytes");
  char *t1, *t2;
  int f1 = ms__afile_create_tmp(ftxt, 0, &t1);
  int f2 = ms__afile_create_tmp(ftxt, 0, &t2);
  ck_assert(f1 >= 0 && f2 >= 0);
  ck_assert_str_ne(t1, t2);
  close(f1), close(f2), remove(t1), remove(t2), free(t1), free(t2);
  ck_assert_int_eq(count_entries(), 2);
  remove(ftxt), remove(path), rmdir(dir);
  remove(vfile), rmdir(victim);
}
END_TEST

/* The file at path holds exactly want[0..n). */
static void same_bytes(const char *path, const char *want, size_t n) {
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_uint_eq((size_t)st.st_size, n);
  FILE *f = fopen(path, "rb");
  char *got = malloc(n + 1);
  ck_assert_uint_eq(fread(got, 1, n + 1, f), n);
  fclose(f);
  ck_assert(memcmp(got, want, n) == 0);
  free(got);
}

/* A size that is no multiple of the block, big enough for direct I/O. */
#define ODD_SIZE ((size_t)(3u << 20) + 123)

START_TEST(file_writer_direct_and_plain_write_the_same_bytes) {
  make_dir();
  void *p;
  ck_assert_int_eq(posix_memalign(&p, MS__FW_ALIGN, ODD_SIZE + MS__FW_ALIGN),
                   0);
  char *buf = p, path[128];
  for (size_t i = 0; i < ODD_SIZE; i++) buf[i] = (char)(i * 7 + i / 4096);
  struct ms__err err = {0};
  for (int direct = 0; direct < 2; direct++) {
    snprintf(path, sizeof path, "%s/f%d", dir, direct);
    ck_assert_int_eq(ms__fw_write_file(path, buf, ODD_SIZE, direct, &err),
                     MS_OK);
    same_bytes(path, buf, ODD_SIZE);
    /* written again over itself: replaced whole */
    ck_assert_int_eq(ms__fw_write_file(path, buf + 1, ODD_SIZE - 1, direct,
                                       &err), MS_OK);
    same_bytes(path, buf + 1, ODD_SIZE - 1);
  }
  ck_assert_int_eq(count_entries(), 2); /* no temporary left */
  for (int direct = 0; direct < 2; direct++) {
    snprintf(path, sizeof path, "%s/f%d", dir, direct);
    remove(path);
  }
  rmdir(dir);
  free(buf);
}
END_TEST

/* Batches in the background: files in place after the wait, a slot's
 * buffer grown and reused, a failure returned by the next call, with the
 * file's name, and the writer usable after it. */
START_TEST(file_writer_background_batches_and_failures) {
  make_dir();
  struct ms__file_writer *w;
  struct ms__err err = {0};
  ck_assert_int_eq(ms__fw_open(&w, MS__FW_BACKGROUND | MS__FW_DIRECT, &err),
                   MS_OK);
  char path[160], want[2][64];
  for (int k = 0; k < 2; k++) {
    size_t n = k ? ODD_SIZE : 10;
    char *b = ms__fw_buffer(w, 0, n, &err);
    ck_assert_ptr_nonnull(b);
    for (size_t i = 0; i < n; i++) b[i] = (char)('a' + (i + k) % 26);
    memcpy(want[k], b, sizeof want[k]);
    snprintf(path, sizeof path, "%s/batch%d", dir, k);
    ck_assert_int_eq(ms__fw_add(w, 0, n, path, &err), MS_OK);
    ck_assert_int_eq(ms__fw_commit(w, &err), MS_OK);
  }
  ck_assert_int_eq(ms__fw_wait(w, &err), MS_OK);
  snprintf(path, sizeof path, "%s/batch0", dir);
  same_bytes(path, want[0], 10);
  snprintf(path, sizeof path, "%s/batch1", dir);
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_uint_eq((size_t)st.st_size, ODD_SIZE);
  /* into a directory that is not there: the commit returns, the wait
   * fails and names the file */
  char *b = ms__fw_buffer(w, 1, 5, &err);
  memcpy(b, "hello", 5);
  snprintf(path, sizeof path, "%s/no/such/dir/f", dir);
  ck_assert_int_eq(ms__fw_add(w, 1, 5, path, &err), MS_OK);
  ck_assert_int_eq(ms__fw_commit(w, &err), MS_OK);
  ck_assert_int_eq(ms__fw_wait(w, &err), MS_EIO);
  ck_assert_ptr_nonnull(strstr(err.msg, path));
  ck_assert_ptr_nonnull(strstr(err.msg, "cannot create"));
  ck_assert_int_eq(ms__fw_wait(w, &err), MS_OK); /* reported once */
  b = ms__fw_buffer(w, 1, 5, &err);
  snprintf(path, sizeof path, "%s/after", dir);
  ck_assert_int_eq(ms__fw_add(w, 1, 5, path, &err), MS_OK);
  ck_assert_int_eq(ms__fw_commit(w, &err), MS_OK);
  ck_assert_int_eq(ms__fw_wait(w, &err), MS_OK);
  same_bytes(path, "hello", 5);
  ck_assert(ms__fw_seconds(w) > 0);
  ms__fw_close(w);
  ck_assert_int_eq(count_entries(), 3);
  const char *left[] = {"batch0", "batch1", "after"};
  for (int k = 0; k < 3; k++) {
    snprintf(path, sizeof path, "%s/%s", dir, left[k]);
    remove(path);
  }
  rmdir(dir);
}
END_TEST

START_TEST(writers_need_positions) {
  make_dir();
  double m[2] = {1, 2};
  struct ms_field f[] = {{"mass", MS_TYPE_F64, 1, 8, m}};
  struct ms_view v = {sizeof v, 1, 2, f};
  struct ms__err err = {0};
  char path[128];
  snprintf(path, sizeof path, "%s/x.vtp", dir);
  ck_assert_int_eq(ms__vtp_write(path, &v, 0, &err), MS_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.msg, "no 3-component position field"));
  snprintf(path, sizeof path, "%s/x.ply", dir);
  ck_assert_int_eq(ms__ply_write(path, &v, NULL, &err), MS_EINVAL);
  ck_assert_int_eq(count_entries(), 0);
  rmdir(dir);
}
END_TEST

START_TEST(colour_map_ends_and_clamps) {
  float a[3], b[3];
  ms__colormap(0, a);
  ms__colormap(-5, b);
  ck_assert(memcmp(a, b, sizeof a) == 0);
  ms__colormap(NAN, b);
  ck_assert(memcmp(a, b, sizeof a) == 0);
  ms__colormap(1, a);
  ms__colormap(7, b);
  ck_assert(memcmp(a, b, sizeof a) == 0);
  ck_assert(a[0] > a[2]); /* the top is red, the bottom blue */
  ms__colormap(0, b);
  ck_assert(b[2] > b[0]);
}
END_TEST

START_TEST(colour_bars_name_units) {
  ck_assert_str_eq(ms__field_unit("speed"), "m/s");
  ck_assert_str_eq(ms__field_unit("velocity"), "m/s");
  ck_assert_str_eq(ms__field_unit("density"), "kg/m^3");
  ck_assert_str_eq(ms__field_unit("pressure"), "Pa");
  ck_assert_str_eq(ms__field_unit("temperature"), "K");
  ck_assert_str_eq(ms__field_unit("damage"), ""); /* a pure number */
  ck_assert_str_eq(ms__field_unit("my_field"), ""); /* unknown: none */
}
END_TEST

START_TEST(camera_keeps_the_box_in_view) {
  const double lo[3] = {-1, -0.2, -0.3}, hi[3] = {3, 0.4, 0.5};
  const double up[3] = {0, 1, 0};
  for (int az = -180; az <= 180; az += 30)
    for (int el = -60; el <= 60; el += 30) {
      struct ms__camera c;
      ms__camera_orbit(&c, lo, hi, up, 4.0 / 3.0, az, el, 1.0);
      /* Project the corners: all inside [-1, 1]^2 of the image. */
      double f[3], r[3], u[3], n = 0;
      for (int k = 0; k < 3; k++)
        f[k] = c.target[k] - c.eye[k], n += f[k] * f[k];
      for (int k = 0; k < 3; k++) f[k] /= sqrt(n);
      r[0] = f[1] * up[2] - f[2] * up[1];
      r[1] = f[2] * up[0] - f[0] * up[2];
      r[2] = f[0] * up[1] - f[1] * up[0];
      n = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
      for (int k = 0; k < 3; k++) r[k] /= n;
      u[0] = r[1] * f[2] - r[2] * f[1];
      u[1] = r[2] * f[0] - r[0] * f[2];
      u[2] = r[0] * f[1] - r[1] * f[0];
      double tv = tan(c.fov * M_PI / 360);
      for (int k = 0; k < 8; k++) {
        double d[3], x = 0, y = 0, z = 0;
        for (int a = 0; a < 3; a++) {
          d[a] = ((k >> a) & 1 ? hi[a] : lo[a]) - c.eye[a];
          x += d[a] * r[a], y += d[a] * u[a], z += d[a] * f[a];
        }
        ck_assert(z > 0);
        ck_assert(fabs(x / z) <= tv * 4.0 / 3.0 + 1e-12);
        ck_assert(fabs(y / z) <= tv + 1e-12);
      }
    }
}
END_TEST

Suite *suite_output(void) {
  Suite *s = suite_create("output");
  TCase *t = tcase_create("unit");
  tcase_add_test(t, hash_streaming_equals_one_shot);
  tcase_add_test(t, hash_sees_every_single_bit_flip);
  tcase_add_test(t, afile_commit_and_abort);
  tcase_add_test(t, one_run_per_output_directory);
  tcase_add_test(t, links_in_the_output_are_replaced_not_followed);
  tcase_add_test(t, file_writer_direct_and_plain_write_the_same_bytes);
  tcase_add_test(t, file_writer_background_batches_and_failures);
  tcase_add_test(t, writers_need_positions);
  tcase_add_test(t, colour_map_ends_and_clamps);
  tcase_add_test(t, camera_keeps_the_box_in_view);
  tcase_add_test(t, colour_bars_name_units);
  suite_add_tcase(s, t);
  return s;
}
