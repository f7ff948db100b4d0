/* Stepping and state through the library (ms_sim_step, ms_sim_advance,
 * ms_sim_view, ms_sim_field): a run driven step by step is the run
 * ms_sim_run makes, bit for bit; the view between steps is what the frame
 * files hold; a velocity written between steps is the one the next step
 * starts from. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mergesplit/core.h>

#include "../../core/io/io.h"
#include "testutil.h"

static ms_sim *open_scene(const char *name, int64_t frames, const char *out) {
  char path[4096], err[2048];
  snprintf(path, sizeof path, "%s/%s", getenv("MS_CONFIGS"), name);
  struct ms_sim_options o = {.struct_size = sizeof o, .threads = 1,
                             .frames = frames, .no_output = out == NULL,
                             .output_dir = out, .verbosity = MS_SINK_ERROR};
  ms_sim *sim = NULL;
  int rc = ms_sim_open(path, &o, &sim, err, sizeof err);
  ck_assert_msg(rc == MS_OK, "%s: %s", name, err);
  return sim;
}

double *t_sim_state(const ms_sim *sim, size_t *n) {
  size_t total = 0;
  for (uint32_t s = 0; s < ms_sim_system_count(sim); s++) {
    struct ms_view v;
    ck_assert_int_eq(ms_sim_view(sim, s, &v), MS_OK);
    total += v.count;
  }
  double *x = malloc((6 * total + 1) * sizeof *x), *p = x;
  for (uint32_t s = 0; s < ms_sim_system_count(sim); s++) {
    struct ms_field fx, fv;
    size_t c;
    ck_assert_int_eq(ms_sim_field(sim, s, "position", &fx, &c), MS_OK);
    ck_assert_int_eq(ms_sim_field(sim, s, "velocity", &fv, NULL), MS_OK);
    for (size_t i = 0; i < c; i++, p += 6) {
      memcpy(p, (char *)fx.data + i * fx.stride, 3 * sizeof(double));
      memcpy(p + 3, (char *)fv.data + i * fv.stride, 3 * sizeof(double));
    }
  }
  *n = 6 * total;
  return x;
}

/* default.cfg (cloth, CHOLMOD; grains) over 6 frames: by ms_sim_run, by
 * steps, by frames and advance() in a mix: the same state, bit for bit. */
START_TEST(stepping_is_the_run) {
  size_t n[3];
  double *x[3];
  ms_sim *a = open_scene("default.cfg", 6, NULL);
  ck_assert_int_eq(ms_sim_run(a), MS_OK);
  x[0] = t_sim_state(a, &n[0]);
  uint64_t steps = ms_sim_steps(a);
  ms_sim_close(a);

  ms_sim *b = open_scene("default.cfg", 6, NULL);
  uint64_t k = 0;
  while (ms_sim_frames_done(b) < 6) {
    int64_t f = ms_sim_frames_done(b);
    ck_assert_int_eq(ms_sim_step(b), MS_OK);
    k++;
    ck_assert_uint_eq(ms_sim_steps(b), k);
    /* a frame is done exactly when its end time is reached */
    if (ms_sim_frames_done(b) > f)
      ck_assert_double_eq_tol(ms_sim_time(b), (f + 1) / 30.0, 1e-12);
    else
      ck_assert(ms_sim_time(b) < (f + 1) / 30.0);
  }
  ck_assert_int_eq(ms_sim_step(b), MS_OK); /* past the end: nothing */
  ck_assert_uint_eq(ms_sim_steps(b), steps);
  x[1] = t_sim_state(b, &n[1]);
  ms_sim_close(b);

  ms_sim *c = open_scene("default.cfg", 6, NULL);
  ck_assert_int_eq(ms_sim_frame(c), MS_OK);
  ck_assert_int_eq(ms_sim_advance(c, 0.07), MS_OK); /* inside frame 3 */
  ck_assert(ms_sim_time(c) >= 0.07 - 1e-12 && ms_sim_time(c) < 0.1);
  ck_assert_int_eq(ms_sim_frames_done(c), 2);
  ck_assert_int_eq(ms_sim_advance(c, NAN), MS_EINVAL);
  ck_assert_int_eq(ms_sim_advance(c, 0.1), MS_OK); /* a frame's end */
  ck_assert_int_eq(ms_sim_frames_done(c), 3);
  ck_assert_double_eq(ms_sim_time(c), 0.1);
  ck_assert_int_eq(ms_sim_advance(c, 1e9), MS_OK); /* stops at the end */
  ck_assert_int_eq(ms_sim_frames_done(c), 6);
  x[2] = t_sim_state(c, &n[2]);
  ms_sim_close(c);

  ck_assert_uint_eq(n[0], n[1]);
  ck_assert_uint_eq(n[0], n[2]);
  ck_assert_msg(!memcmp(x[0], x[1], n[0] * sizeof(double)),
                "step by step differs from ms_sim_run");
  ck_assert_msg(!memcmp(x[0], x[2], n[0] * sizeof(double)),
                "frames and advance() differ from ms_sim_run");
  for (int i = 0; i < 3; i++) free(x[i]);
}
END_TEST

/* After each frame the view holds what that frame's .vtp file holds (the
 * files are written in the background: compared once the run is closed). */
START_TEST(view_is_the_frame_written) {
  char dir[] = "/tmp/ms-state-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  ms_sim *sim = open_scene("default.cfg", 3, dir);
  const char *names[] = {"position", "velocity", "mass"};
  uint32_t ns = ms_sim_system_count(sim);
  char sys[2][64];
  double *kept[3][2][3];
  size_t count[2];
  ck_assert_uint_eq(ns, 2);
  for (int f = 0; f < 3; f++) {
    ck_assert_int_eq(ms_sim_frame(sim), MS_OK);
    for (uint32_t s = 0; s < ns; s++) {
      snprintf(sys[s], sizeof sys[s], "%s", ms_sim_system_name(sim, s));
      for (int k = 0; k < 3; k++) {
        struct ms_field fd;
        ck_assert_int_eq(ms_sim_field(sim, s, names[k], &fd, &count[s]),
                         MS_OK);
        size_t w = fd.components * sizeof(double);
        kept[f][s][k] = malloc(count[s] * w + 1);
        for (size_t i = 0; i < count[s]; i++)
          memcpy((char *)kept[f][s][k] + i * w,
                 (char *)fd.data + i * fd.stride, w);
      }
    }
  }
  ms_sim_close(sim); /* every frame file in place */
  for (int f = 0; f < 3; f++)
    for (uint32_t s = 0; s < ns; s++) {
      char path[4200];
      struct ms__vtp v;
      struct ms__err err = {0};
      snprintf(path, sizeof path, "%s/%s_%06d.vtp", dir, sys[s], f + 1);
      ck_assert_msg(ms__vtp_read(path, &v, &err) == MS_OK, "%s", err.msg);
      ck_assert_uint_eq(v.n, count[s]);
      for (int k = 0; k < 3; k++) {
        const struct ms__vtp_array *a = k ? ms__vtp_find(&v, names[k])
                                          : &v.a[0];
        ck_assert_ptr_nonnull(a);
        ck_assert_msg(!memcmp(a->data, kept[f][s][k],
                              count[s] * a->comps * sizeof(double)),
                      "frame %d, system %s: %s differs from the file", f + 1,
                      sys[s], names[k]);
        free(kept[f][s][k]);
      }
      ms__vtp_free(&v);
    }
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* two_balls.cfg's grains in zero gravity (symplectic Euler, x += v dt): a
 * velocity written between steps is the one the next step starts from.
 * Particle 0 is sent away from its ball's centre, so it touches nothing. */
START_TEST(written_velocity_starts_the_next_step) {
  ms_sim *sim = open_scene("two_balls.cfg", 2, NULL);
  ck_assert_int_eq(ms_sim_step(sim), MS_OK);
  uint32_t s;
  ck_assert_int_eq(ms_sim_system_index(sim, ms_sim_system_name(sim, 0), &s),
                   MS_OK);
  ck_assert_uint_eq(s, 0);
  ck_assert_int_eq(ms_sim_system_index(sim, "nobody", &s), MS_ENOENT);
  struct ms_field fx, fv;
  size_t count;
  ck_assert_int_eq(ms_sim_field(sim, 0, "position", &fx, &count), MS_OK);
  ck_assert_int_eq(ms_sim_field(sim, 0, "velocity", &fv, NULL), MS_OK);
  double c[3] = {0, 0, 0}, x0[3], v0[3], t0 = ms_sim_time(sim);
  for (size_t i = 0; i < count; i++)
    for (int a = 0; a < 3; a++)
      c[a] += ((double *)((char *)fx.data + i * fx.stride))[a] / count;
  double *x = (double *)fx.data, *v = (double *)fv.data, d = 0.0;
  memcpy(x0, x, sizeof x0);
  for (int a = 0; a < 3; a++) d += (x0[a] - c[a]) * (x0[a] - c[a]);
  for (int a = 0; a < 3; a++) v0[a] = v[a] + 0.5 * (x0[a] - c[a]) / sqrt(d);
  memcpy(v, v0, sizeof v0);
  ck_assert_int_eq(ms_sim_step(sim), MS_OK);
  double dt = ms_sim_time(sim) - t0;
  ck_assert_int_eq(ms_sim_field(sim, 0, "velocity", &fv, NULL), MS_OK);
  ck_assert_int_eq(ms_sim_field(sim, 0, "position", &fx, NULL), MS_OK);
  ck_assert_msg(!memcmp(fv.data, v0, sizeof v0), "the velocity changed");
  for (int a = 0; a < 3; a++) {
    double xa = x0[a] + v0[a] * dt;
    ck_assert_msg(fabs(((double *)fx.data)[a] - xa) <= 1e-15 * (1 + fabs(xa)),
                  "axis %d: %.17g, expected %.17g", a,
                  ((double *)fx.data)[a], xa);
  }
  ms_sim_close(sim);
}
END_TEST

START_TEST(bad_arguments) {
  ms_sim *sim = open_scene("two_balls.cfg", 1, NULL);
  struct ms_view v;
  struct ms_field f;
  uint32_t n = ms_sim_system_count(sim);
  ck_assert_uint_eq(n, 2);
  ck_assert_ptr_null(ms_sim_system_name(sim, n));
  ck_assert_ptr_null(ms_sim_system_solver(sim, n));
  ck_assert_str_eq(ms_sim_system_solver(sim, 0), "particles");
  ck_assert_int_eq(ms_sim_view(sim, n, &v), MS_ERANGE);
  ck_assert_int_eq(ms_sim_field(sim, n, "position", &f, NULL), MS_ERANGE);
  ck_assert_int_eq(ms_sim_field(sim, 0, "no_such_field", &f, NULL),
                   MS_ENOENT);
  ck_assert_int_eq(ms_sim_field(sim, 0, NULL, &f, NULL), MS_ENOENT);
  ms_sim_close(sim);
}
END_TEST

Suite *suite_state(void) {
  Suite *s = suite_create("state");
  TCase *tc = tcase_create("state");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, stepping_is_the_run);
  tcase_add_test(tc, view_is_the_frame_written);
  tcase_add_test(tc, written_velocity_starts_the_next_step);
  tcase_add_test(tc, bad_arguments);
  suite_add_tcase(s, tc);
  return s;
}
