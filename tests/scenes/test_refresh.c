/* Derived fields brought up to date when they are read (plugin ABI 1.8,
 * refresh()): the core leaves them stale from step to step and refreshes
 * them before a caller, a frame or a checkpoint reads them; a refresh that
 * fails stops the run with one line naming the system. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/io/io.h"
#include "simtest.h"

Suite *suite_refresh(void);

/* A line of 4 particles falling freely, 10 steps of 0.01 s per frame; the
 * fixture's "height" is each particle's y as of its last refresh(). */
#define LAZY_SCENE(solver)                                                \
  "scene = { duration = 0.3; fps = 10.0; gravity = [0.0, -9.81, 0.0]; };\n" \
  "coupling = { max_dt = 0.01; };\n"                                      \
  "systems = ( { name = \"a\"; solver = \"" solver "\"; count = 4;\n"    \
  "  position = [0.0, 1.0, 0.0]; } );\n"

/* Field `name` of system y's view (as the core holds it, not refreshed). */
static const double *raw_field(const struct ms__system *y, const char *name) {
  const struct ms_field *f = ms__view_field(&y->view, name, 0, 0);
  ck_assert_ptr_nonnull(f);
  return f->data;
}

/* Particle k's height equals its y bitwise for all (want 1) or none (0). */
static void check_heights(const double *h, const struct ms__system *y,
                          int want) {
  for (size_t k = 0; k < y->view.count; k++)
    ck_assert_msg((h[k] == ms__at(&y->x, k)[1]) == want,
                  "particle %zu: height %.17g, y %.17g (want %s)", k, h[k],
                  ms__at(&y->x, k)[1], want ? "equal" : "stale");
}

/* A step leaves the field stale (the core reads nothing but position,
 * velocity, mass and radius); ms_sim_field() and ms_sim_view() bring it up
 * to date, and the next step leaves it stale again. */
START_TEST(a_read_refreshes_what_a_step_left) {
  ms_sim *S = st_open_fixture_text(LAZY_SCENE("fixture_lazy"));
  struct ms__system *y = st_system(S, "a");
  for (int round = 0; round < 3; round++) {
    st_step(S);
    check_heights(raw_field(y, "height"), y, 0);
    struct ms_field f;
    size_t n;
    ck_assert_int_eq(ms_sim_field(S, 0, "height", &f, &n), MS_OK);
    ck_assert_uint_eq(n, 4);
    check_heights(f.data, y, 1);
    st_step(S);
    check_heights(raw_field(y, "height"), y, 0);
    struct ms_view v;
    ck_assert_int_eq(ms_sim_view(S, 0, &v), MS_OK);
    check_heights(raw_field(y, "height"), y, 1);
  }
  st_close(S);
}
END_TEST

/* Every frame file holds the field as of the frame's positions. */
START_TEST(frames_hold_current_fields) {
  char dir[] = "/tmp/ms-refresh-XXXXXX", scene[] = "/tmp/ms-scene-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  int fd = mkstemp(scene);
  ck_assert_int_ge(fd, 0);
  const char *text = LAZY_SCENE("fixture_lazy");
  ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  const char *dirs[] = {getenv("MS_FIXTURES"), NULL};
  struct ms_sim_options o = {.struct_size = sizeof o, .threads = 1,
                             .output_dir = dir, .plugin_paths = dirs,
                             .verbosity = MS_SINK_ERROR};
  ms_sim *S;
  char err[1024];
  ck_assert_msg(ms_sim_open(scene, &o, &S, err, sizeof err) == MS_OK, "%s",
                err);
  unlink(scene);
  ck_assert_int_eq(ms_sim_run(S), MS_OK);
  ms_sim_close(S); /* every frame file in place */
  for (int f = 0; f <= 3; f++) {
    char path[4200];
    struct ms__vtp v;
    struct ms__err e = {0};
    snprintf(path, sizeof path, "%s/a_%06d.vtp", dir, f);
    ck_assert_msg(ms__vtp_read(path, &v, &e) == MS_OK, "%s", e.msg);
    const struct ms__vtp_array *h = ms__vtp_find(&v, "height");
    ck_assert_ptr_nonnull(h);
    ck_assert_uint_eq(v.n, 4);
    for (size_t k = 0; k < v.n; k++) {
      double hk = ms__vtp_value(h, k, 0), yk = ms__vtp_value(&v.a[0], k, 1);
      ck_assert_msg(hk == yk, "frame %d, particle %zu: height %.17g, y "
                    "%.17g", f, k, hk, yk);
      if (f) ck_assert(yk < 1.0); /* it fell: a stale field would show */
    }
    ms__vtp_free(&v);
  }
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The fixture's second refresh() fails (the first is frame 0's). */
START_TEST(a_failed_refresh_stops_the_run) {
  ms_sim *S = st_open_fixture_text(LAZY_SCENE("fixture_lazyfail"));
  st_step(S);
  struct ms_field f;
  ck_assert_int_eq(ms_sim_field(S, 0, "height", &f, NULL), MS_ENUMERIC);
  const char *msg = ms_sim_error(S);
  ck_assert_msg(strstr(msg, "refresh() failed: the height broke (system "
                            "'a', solver 'fixture_lazyfail' from ") != NULL,
                "%s", msg);
  ck_assert_int_eq(ms_sim_step(S), MS_ENUMERIC);
  st_close(S);
}
END_TEST

Suite *suite_refresh(void) {
  Suite *s = suite_create("refresh");
  TCase *t = tcase_create("refresh");
  tcase_add_test(t, a_read_refreshes_what_a_step_left);
  tcase_add_test(t, frames_hold_current_fields);
  tcase_add_test(t, a_failed_refresh_stops_the_run);
  suite_add_tcase(s, t);
  return s;
}
