/* Adding a frame format touches one new file and one table row: this
 * program links the toy format (writer_toy.c) and a copy of core/writers.c
 * with the row X(toy) added, then runs a scene that asks for it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mergesplit/core.h>

#include "../../core/io/io.h"
#include "suites.h"

START_TEST(the_table_has_the_toy_row) {
  char names[256];
  ck_assert_uint_eq(ms__format_bit("vtp"), 1u);
  ck_assert_uint_eq(ms__format_bit("ply"), 2u);
  ck_assert_uint_eq(ms__format_bit("obj"), 4u);
  ck_assert_uint_eq(ms__format_bit("toy"), 8u); /* the row added last */
  ck_assert_uint_eq(ms__format_bit("stl"), 0u);
  ck_assert_str_eq(ms__format_names(names, sizeof names),
                   "\"vtp\", \"ply\", \"obj\", \"toy\"");
}
END_TEST

static char dir[64];

static void make_dir(void) {
  strcpy(dir, "/tmp/ms-toy-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
}

/* Two balls of grains closing in zero gravity, two frames of one step. */
static const char *scene(const char *format) {
  static char path[4096];
  snprintf(path, sizeof path, "%s/toy.cfg", dir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f,
    "scene = { duration = 0.002; fps = 1000.0; seed = 3;\n"
    "          gravity = [0.0, 0.0, 0.0]; };\n"
    "output = { dir = \"out\"; format = %s; };\n"
    "systems = (\n"
    "  { name = \"left\"; solver = \"particles\";\n"
    "    shape = { type = \"sphere\"; center = [-0.1, 0.0, 0.0];\n"
    "              radius = 0.09; };\n"
    "    spacing = 0.03; radius = 0.0145; velocity = [1.0, 0.0, 0.0]; },\n"
    "  { name = \"right\"; solver = \"particles\";\n"
    "    shape = { type = \"sphere\"; center = [0.1, 0.0, 0.0];\n"
    "              radius = 0.09; };\n"
    "    spacing = 0.03; radius = 0.0145; velocity = [-1.0, 0.0, 0.0]; }\n"
    ");\n", format);
  fclose(f);
  return path;
}

/* The toy file equals its .vtp twin: same points, bit for bit. */
static void same_points(const char *name, int frame, double t) {
  char path[4200], head[256];
  struct ms__vtp v;
  struct ms__err err = {0};
  snprintf(path, sizeof path, "%s/out/%s_%06d.vtp", dir, name, frame);
  ck_assert_int_eq(ms__vtp_read(path, &v, &err), MS_OK);
  snprintf(path, sizeof path, "%s/out/%s_%06d.toy", dir, name, frame);
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  ck_assert_ptr_nonnull(fgets(head, sizeof head, f));
  char want[256];
  snprintf(want, sizeof want, "toy %s %u %d %.17g %zu\n", name,
           strcmp(name, "left") ? 1u : 0u, frame, t, v.n);
  ck_assert_str_eq(head, want);
  double *x = malloc(3 * sizeof(double) * v.n + 1);
  ck_assert_uint_eq(fread(x, 1, 3 * sizeof(double) * v.n + 1, f),
                    3 * sizeof(double) * v.n); /* nothing after them */
  fclose(f);
  ck_assert_uint_eq(v.a[0].type, MS_TYPE_F64);
  ck_assert_int_eq(memcmp(x, v.a[0].data, 3 * sizeof(double) * v.n), 0);
  free(x);
  ms__vtp_free(&v);
}

/* Open the scene with the given formats, frames into DIR/out: the
 * simulation, or NULL with the status in *rc and the error in err. */
static char out[4200];
static ms_sim *open_into_out(const char *formats, int *rc, char *err,
                             size_t len) {
  snprintf(out, sizeof out, "%s/out", dir);
  struct ms_sim_options opt = {.struct_size = sizeof opt, .threads = 1,
                               .output_dir = out};
  ms_sim *S = NULL;
  *rc = ms_sim_open(scene(formats), &opt, &S, err, len);
  return S;
}

START_TEST(a_scene_writes_toy_frames) {
  make_dir();
  char err[512] = "";
  int rc;
  ms_sim *S = open_into_out("[\"toy\", \"vtp\"]", &rc, err, sizeof err);
  ck_assert_msg(rc == MS_OK, "%s", err);
  ck_assert_int_eq(ms_sim_run(S), MS_OK);
  ms_sim_close(S);
  for (int frame = 0; frame <= 2; frame++) {
    same_points("left", frame, frame * 0.001);
    same_points("right", frame, frame * 0.001);
  }
  char path[4200];
  snprintf(path, sizeof path, "%s/out/left_000001.ply", dir);
  ck_assert_int_ne(access(path, F_OK), 0); /* not asked for */
  snprintf(path, sizeof path, "%s/out/scene.pvd", dir);
  ck_assert_int_eq(access(path, F_OK), 0); /* the .vtp series */
  remove_dir();
}
END_TEST

/* A second run into the directory a run writes to is refused with one
 * line; once the first is closed it may. */
START_TEST(a_second_run_into_the_directory_is_refused) {
  make_dir();
  char err[512] = "";
  int rc;
  ms_sim *S = open_into_out("\"vtp\"", &rc, err, sizeof err);
  ck_assert_msg(rc == MS_OK, "%s", err);
  ms_sim *T = open_into_out("\"vtp\"", &rc, err, sizeof err);
  ck_assert_int_eq(rc, MS_EIO);
  ck_assert_ptr_null(T);
  ck_assert_msg(strstr(err, "out: another run is writing into this "
                            "directory") && !strchr(err, '\n'), "%s", err);
  ck_assert_int_eq(ms_sim_run(S), MS_OK);
  ms_sim_close(S);
  T = open_into_out("\"vtp\"", &rc, err, sizeof err);
  ck_assert_msg(rc == MS_OK, "%s", err);
  ms_sim_close(T);
  remove_dir();
}
END_TEST

/* The output directory removed under a run: the run stops with MS_EIO
 * and a line naming the file it could not write.  The directory is moved
 * away in one rename, not deleted file by file: frame 0 may still be on
 * its way to disk from the background writer, and a file it creates
 * while `rm -rf` walks the directory makes the removal fail. */
START_TEST(a_vanished_output_directory_stops_the_run) {
  make_dir();
  char err[512] = "", gone[4300];
  int rc;
  ms_sim *S = open_into_out("\"vtp\"", &rc, err, sizeof err);
  ck_assert_msg(rc == MS_OK, "%s", err);
  snprintf(gone, sizeof gone, "%s/gone", dir);
  ck_assert_int_eq(rename(out, gone), 0);
  ck_assert_int_eq(ms_sim_run(S), MS_EIO);
  const char *e = ms_sim_error(S);
  ck_assert_msg(strstr(e, out) && strstr(e, "No such file or directory") &&
                !strchr(e, '\n'), "%s", e);
  ms_sim_close(S);
  remove_dir();
}
END_TEST

START_TEST(an_unknown_format_names_the_table) {
  make_dir();
  struct ms_sim_options opt = {.struct_size = sizeof opt, .threads = 1};
  ms_sim *S = NULL;
  char err[512] = "";
  ck_assert_int_eq(ms_sim_open(scene("\"stl\""), &opt, &S, err, sizeof err),
                   MS_ECONFIG);
  ck_assert_ptr_nonnull(strstr(err, "toy.cfg:3: output.format: must be "
                                    "\"vtp\", \"ply\", \"obj\", \"toy\" or "
                                    "[\"vtp\", \"ply\", \"obj\", \"toy\"] "
                                    "(got \"stl\")"));
  remove_dir();
}
END_TEST

Suite *suite_toy_format(void) {
  Suite *s = suite_create("toy_format");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, the_table_has_the_toy_row);
  tcase_add_test(tc, a_scene_writes_toy_frames);
  tcase_add_test(tc, an_unknown_format_names_the_table);
  tcase_add_test(tc, a_second_run_into_the_directory_is_refused);
  tcase_add_test(tc, a_vanished_output_directory_stops_the_run);
  suite_add_tcase(s, tc);
  return s;
}
