/* Run control through the library: a scene given as text
 * (ms_sim_open_string), forces for the next step (ms_sim_add_force), the
 * report in memory (ms_sim_report), and open/close cycles that leak
 * nothing (the sanitizer build counts leaks). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mergesplit/core.h>

#include "testutil.h"

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "%s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *s = malloc((size_t)n + 1);
  ck_assert_uint_eq(fread(s, 1, (size_t)n, f), (size_t)n);
  s[n] = '\0';
  fclose(f);
  return s;
}

static char *config_text(const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", getenv("MS_CONFIGS"), name);
  return slurp(path);
}

/* dir (a mkdtemp template) made, and path = dir/name in it; temp_gone
 * removes both. */
static void temp_path(char *dir, char *path, size_t len, const char *name) {
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, len, "%s/%s", dir, name);
}

static void temp_gone(const char *dir, const char *path) {
  unlink(path);
  rmdir(dir);
}

static struct ms_sim_options options(int64_t frames) {
  struct ms_sim_options o = {.struct_size = sizeof o, .threads = 1,
                             .frames = frames, .no_output = 1,
                             .verbosity = MS_SINK_ERROR};
  return o;
}

static ms_sim *open_file(const char *name, const struct ms_sim_options *o) {
  char path[4096], err[2048];
  snprintf(path, sizeof path, "%s/%s", getenv("MS_CONFIGS"), name);
  ms_sim *sim = NULL;
  ck_assert_msg(ms_sim_open(path, o, &sim, err, sizeof err) == MS_OK, "%s",
                err);
  return sim;
}

static ms_sim *open_text(const char *text, const char *dir,
                         const struct ms_sim_options *o) {
  char err[2048];
  ms_sim *sim = NULL;
  ck_assert_msg(ms_sim_open_string(text, "mine.cfg", dir, o, &sim, err,
                                   sizeof err) == MS_OK, "%s", err);
  return sim;
}

static void assert_same_state(ms_sim *a, ms_sim *b, const char *what) {
  size_t na, nb;
  double *xa = t_sim_state(a, &na), *xb = t_sim_state(b, &nb);
  ck_assert_uint_eq(na, nb);
  ck_assert_msg(!memcmp(xa, xb, na * sizeof *xa), "%s", what);
  free(xa);
  free(xb);
}

/* The text of two_balls.cfg is the file's run, bit for bit; so is a text
 * that @includes it from base_dir. */
START_TEST(text_scene_is_the_file) {
  struct ms_sim_options o = options(4);
  char *text = config_text("two_balls.cfg");
  ms_sim *f = open_file("two_balls.cfg", &o);
  ms_sim *t = open_text(text, NULL, &o);
  ms_sim *i = open_text("# a scene of one line\n@include \"two_balls.cfg\"\n",
                        getenv("MS_CONFIGS"), &o);
  ck_assert_int_eq(ms_sim_run(f), MS_OK);
  ck_assert_int_eq(ms_sim_run(t), MS_OK);
  ck_assert_int_eq(ms_sim_run(i), MS_OK);
  ck_assert_uint_eq(ms_sim_steps(f), ms_sim_steps(t));
  ck_assert_uint_gt(ms_sim_metas(f) + ms_sim_steps(f), 4);
  assert_same_state(f, t, "the text's run differs from the file's");
  assert_same_state(f, i, "the @including text's run differs");
  ms_sim_close(f);
  ms_sim_close(t);
  ms_sim_close(i);
  free(text);
}
END_TEST

/* Errors name the text as given, with the line. */
START_TEST(text_scene_errors_name_it) {
  struct ms_sim_options o = options(1);
  char err[2048];
  ms_sim *sim = (ms_sim *)&err; /* must become NULL */
  ck_assert_int_eq(ms_sim_open_string("scene = {\n  fps = -1.0;\n};\n"
                                      "systems = ();\n", "mine.cfg", NULL, &o,
                                      &sim, err, sizeof err), MS_ECONFIG);
  ck_assert_ptr_null(sim);
  ck_assert_str_eq(err, "mine.cfg:2: scene.fps: must be > 0 (got -1)");
  ck_assert_int_eq(ms_sim_open_string("scene = {\n\n  fps = ", NULL, NULL, &o,
                                      &sim, err, sizeof err), MS_ECONFIG);
  ck_assert_str_eq(err, "<string>:3: syntax error");
  ck_assert_int_eq(ms_sim_open_string("@include \"nowhere.cfg\"\n", "x.cfg",
                                      "/nonexistent-dir", &o, &sim, err,
                                      sizeof err), MS_ECONFIG);
  ck_assert_str_eq(err, "x.cfg:1: @include: cannot open "
                   "/nonexistent-dir/nowhere.cfg: No such file or directory");
  ck_assert_int_eq(ms_sim_open_string(NULL, "x.cfg", NULL, &o, &sim, err,
                                      sizeof err), MS_EINVAL);
  ck_assert_ptr_null(sim);
}
END_TEST

/* A text that @includes a file: an error in the text names the text; an
 * @include inside a comment is none (its file may be missing). */
START_TEST(text_scene_with_include_names_itself) {
  char dir[] = "/tmp/ms-control-XXXXXX", part[200], err[2048];
  temp_path(dir, part, sizeof part, "part.cfg");
  FILE *f = fopen(part, "w");
  fputs("output = { dir = \"out\"; };\n", f);
  fclose(f);
  struct ms_sim_options o = options(1);
  ms_sim *sim = NULL;
  ck_assert_int_eq(ms_sim_open_string("@include \"part.cfg\"\nscene = {\n"
                                      "  fps = -1.0;\n};\nsystems = ();\n",
                                      "mine.cfg", dir, &o, &sim, err,
                                      sizeof err), MS_ECONFIG);
  ck_assert_str_eq(err, "mine.cfg:3: scene.fps: must be > 0 (got -1)");
  char *text = config_text("two_balls.cfg");
  size_t n = strlen(text) + 100;
  char *commented = malloc(n);
  snprintf(commented, n, "/* once:\n@include \"old.cfg\"\n*/\n%s", text);
  sim = open_text(commented, dir, &o);
  ck_assert_uint_eq(ms_sim_system_count(sim), 2);
  ms_sim_close(sim);
  free(commented);
  free(text);
  temp_gone(dir, part);
}
END_TEST

/* A checkpoint of a text scene resumes bit-identically from the same text,
 * and is refused for another text. */
START_TEST(text_scene_resumes) {
  char dir[] = "/tmp/ms-control-XXXXXX", ck[200];
  temp_path(dir, ck, sizeof ck, "run.msck");
  struct ms_sim_options o = options(4);
  char *text = config_text("two_balls.cfg");
  ms_sim *a = open_text(text, NULL, &o);
  ck_assert_int_eq(ms_sim_frame(a), MS_OK);
  ck_assert_int_eq(ms_sim_frame(a), MS_OK);
  ck_assert_int_eq(ms_sim_checkpoint(a, ck), MS_OK);
  ck_assert_int_eq(ms_sim_run(a), MS_OK);
  o.resume_path = ck;
  ms_sim *b = open_text(text, NULL, &o);
  ck_assert_int_eq(ms_sim_frames_done(b), 2);
  ck_assert_int_eq(ms_sim_run(b), MS_OK);
  assert_same_state(a, b, "the resumed run differs");
  ms_sim_close(a);
  ms_sim_close(b);
  text[strlen(text) - 2] = ' '; /* another text: a byte changed */
  char err[2048];
  ms_sim *c = NULL;
  ck_assert_int_eq(ms_sim_open_string(text, "mine.cfg", NULL, &o, &c, err,
                                      sizeof err), MS_ESTATE);
  ck_assert_msg(strstr(err, "written for another scene: mine.cfg"), "%s",
                err);
  free(text);
  temp_gone(dir, ck);
}
END_TEST

static double *field(ms_sim *sim, uint32_t s, const char *name, size_t *n) {
  struct ms_field f;
  ck_assert_int_eq(ms_sim_field(sim, s, name, &f, n), MS_OK);
  ck_assert_uint_eq(f.stride, (f.components ? f.components : 1) * 8);
  return f.data;
}

/* two_balls.cfg (zero gravity, free grains, the balls apart): a force F_i
 * on every particle of the left ball over one step changes its velocity
 * by F_i dt / m_i and nothing else; the next step has no force. */
START_TEST(force_is_one_step_of_impulse) {
  struct ms_sim_options o = options(1);
  ms_sim *a = open_file("two_balls.cfg", &o), *b = open_file("two_balls.cfg", &o);
  size_t n, n1;
  double *m = field(a, 0, "mass", &n);
  double *F = malloc(3 * n * sizeof *F);
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) F[3 * i + k] = 0.01 * (double)(k + 1) * ((i % 7) - 3.0);
  double v0[3];
  memcpy(v0, field(a, 0, "velocity", &n1), sizeof v0);
  ck_assert_int_eq(ms_sim_add_force(b, 0, F, n), MS_OK);
  double t0 = ms_sim_time(a);
  ck_assert_int_eq(ms_sim_step(a), MS_OK);
  ck_assert_int_eq(ms_sim_step(b), MS_OK);
  double dt = ms_sim_time(a) - t0;
  ck_assert_double_eq(ms_sim_time(b), ms_sim_time(a));
  double *va = field(a, 0, "velocity", &n1), *vb = field(b, 0, "velocity", &n1);
  double P[3] = {0, 0, 0}, FT[3] = {0, 0, 0}, tol = 0.0;
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      double dv = vb[3 * i + k] - va[3 * i + k], want = F[3 * i + k] * dt / m[i];
      ck_assert_msg(fabs(dv - want) <= 1e-15 * (fabs(va[3 * i + k]) + fabs(want)),
                    "particle %zu axis %d: dv %.17g, F dt / m %.17g", i, k, dv,
                    want);
      P[k] += m[i] * dv;
      FT[k] += F[3 * i + k] * dt;
      tol += 2e-15 * m[i] * (fabs(va[3 * i + k]) + fabs(want));
    }
  for (int k = 0; k < 3; k++)
    ck_assert_msg(fabs(P[k] - FT[k]) <= tol,
                  "momentum change %.17g, impulse %.17g", P[k], FT[k]);
  /* the other ball: untouched, bit for bit */
  size_t n2;
  double *wa = field(a, 1, "velocity", &n2), *wb = field(b, 1, "velocity", &n2);
  ck_assert(!memcmp(wa, wb, 3 * n2 * sizeof *wa));
  /* spent: the next step keeps the velocity difference (free grains) */
  double d0 = vb[0] - va[0];
  ck_assert_int_eq(ms_sim_step(a), MS_OK);
  ck_assert_int_eq(ms_sim_step(b), MS_OK);
  va = field(a, 0, "velocity", &n1), vb = field(b, 0, "velocity", &n1);
  ck_assert_double_eq_tol(vb[0] - va[0], d0, 1e-15);
  ms_sim_close(a);
  ms_sim_close(b);
  free(F);
}
END_TEST

/* Two calls add up (F + F is 2F exactly); a refused call adds nothing. */
START_TEST(forces_add_and_refusals_add_nothing) {
  struct ms_sim_options o = options(1);
  ms_sim *a = open_file("two_balls.cfg", &o), *b = open_file("two_balls.cfg", &o);
  size_t n;
  (void)field(a, 0, "mass", &n);
  double *F = calloc(3 * n, sizeof *F), *F2 = calloc(3 * n, sizeof *F2);
  for (size_t i = 0; i < 3 * n; i++) F[i] = 0.3 * sin((double)i), F2[i] = 2 * F[i];
  ck_assert_int_eq(ms_sim_add_force(a, 0, F, n), MS_OK);
  ck_assert_int_eq(ms_sim_add_force(a, 0, F, n), MS_OK);
  ck_assert_int_eq(ms_sim_add_force(b, 0, F2, n), MS_OK);
  ck_assert_int_eq(ms_sim_add_force(a, 2, F, n), MS_ERANGE);
  ck_assert_int_eq(ms_sim_add_force(a, 0, F, n - 1), MS_EINVAL);
  ck_assert_int_eq(ms_sim_add_force(a, 0, NULL, n), MS_EINVAL);
  F[5] = NAN;
  ck_assert_int_eq(ms_sim_add_force(a, 0, F, n), MS_EINVAL);
  F[5] = INFINITY;
  ck_assert_int_eq(ms_sim_add_force(a, 0, F, n), MS_EINVAL);
  ck_assert_int_eq(ms_sim_step(a), MS_OK);
  ck_assert_int_eq(ms_sim_step(b), MS_OK);
  assert_same_state(a, b, "F + F differs from 2F, or a refused call added");
  ms_sim_close(a);
  ms_sim_close(b);
  free(F);
  free(F2);
}
END_TEST

/* Forces added before a step whose hand-over moves the system's particles
 * would land on other particles: the step is refused, naming the system
 * (tests/data/handover.cfg: "solid" gives particles to "liquid"). */
START_TEST(forces_refused_across_a_hand_over) {
  char path[4096], err[2048];
  const char *dirs[] = {getenv("MS_FIXTURES"), NULL};
  snprintf(path, sizeof path, "%s/handover.cfg", getenv("MS_DATA"));
  struct ms_sim_options o = options(0);
  o.plugin_paths = dirs;
  ms_sim *sim = NULL;
  ck_assert_msg(ms_sim_open(path, &o, &sim, err, sizeof err) == MS_OK, "%s",
                err);
  int rc = MS_OK, fine = 0;
  for (int k = 0; k < 5000 && rc == MS_OK; k++) {
    struct ms_view v;
    ck_assert_int_eq(ms_sim_view(sim, 0, &v), MS_OK);
    double *F = calloc(3 * v.count + 1, sizeof *F);
    ck_assert_int_eq(ms_sim_add_force(sim, 0, F, v.count), MS_OK);
    free(F);
    if ((rc = ms_sim_step(sim)) == MS_OK) fine++;
  }
  ck_assert_int_eq(rc, MS_ESTATE);
  ck_assert_int_gt(fine, 10); /* steps before the first hand-over */
  ck_assert_msg(strstr(ms_sim_error(sim), "system 'solid': forces were added "
                       "for its 1000 particles, but a hand-over at the step's "
                       "start moved its particles"), "%s", ms_sim_error(sim));
  double F[3] = {0};
  ck_assert_int_eq(ms_sim_add_force(sim, 1, F, 0), MS_ESTATE); /* failed */
  ms_sim_close(sim);
}
END_TEST

/* The report in memory is the file --report writes, byte for byte, once
 * the run has ended; meanwhile it is the frames so far, "running". */
START_TEST(report_in_memory_is_the_file) {
  char dir[] = "/tmp/ms-control-XXXXXX", path[200];
  temp_path(dir, path, sizeof path, "report.json");
  struct ms_sim_options o = options(3);
  char *json = NULL;
  size_t len = 0;
  ms_sim *no = open_file("two_balls.cfg", &o);
  ck_assert_int_eq(ms_sim_report(no, &json, &len), MS_ENOTSUP);
  ck_assert_ptr_null(json);
  ms_sim_close(no);
  o.keep_report = 1;
  o.report_path = path;
  ms_sim *sim = open_file("two_balls.cfg", &o);
  ck_assert_int_eq(ms_sim_frame(sim), MS_OK);
  ck_assert_int_eq(ms_sim_report(sim, &json, &len), MS_OK);
  ck_assert_uint_eq(strlen(json), len);
  ck_assert_ptr_nonnull(strstr(json, "\"status\": \"running\""));
  ck_assert_ptr_nonnull(strstr(json, "{\"frame\": 1, "));
  ck_assert_ptr_null(strstr(json, "{\"frame\": 2, "));
  ck_assert_ptr_nonnull(strstr(json, "\"totals\": {\"frames\": 1, "));
  ms_free(json);
  ck_assert_int_eq(ms_sim_run(sim), MS_OK);
  ck_assert_int_eq(ms_sim_report(sim, &json, NULL), MS_OK);
  ck_assert_ptr_nonnull(strstr(json, "\"status\": \"ok\""));
  ms_sim_close(sim);
  char *file = slurp(path);
  ck_assert_msg(!strcmp(json, file), "the report in memory differs from "
                "the file");
  ms_free(json);
  free(file);
  temp_gone(dir, path);
}
END_TEST

/* 1000 open/step/report/close cycles of a small text scene: the sanitizer
 * build fails the suite on any leak. */
START_TEST(open_close_cycles) {
  const char *text =
      "scene = { duration = 0.1; fps = 30.0; gravity = [0.0, -9.81, 0.0]; "
      "domain = { min = [-1.0, -1.0, -1.0]; max = [1.0, 1.0, 1.0]; }; };\n"
      "systems = ({ name = \"g\"; solver = \"particles\"; shape = { type = "
      "\"box\"; min = [0.0, 0.0, 0.0]; max = [0.04, 0.04, 0.04]; }; spacing = "
      "0.02; radius = 0.009; density = 1000.0; });\n";
  struct ms_sim_options o = options(1);
  o.keep_report = 1;
  for (int k = 0; k < 1000; k++) {
    ms_sim *sim = open_text(text, NULL, &o);
    size_t n;
    (void)field(sim, 0, "mass", &n);
    ck_assert_uint_eq(n, 8);
    double F[24] = {0};
    ck_assert_int_eq(ms_sim_add_force(sim, 0, F, n), MS_OK);
    ck_assert_int_eq(ms_sim_step(sim), MS_OK);
    char *json;
    ck_assert_int_eq(ms_sim_report(sim, &json, NULL), MS_OK);
    ms_free(json);
    ms_sim_close(sim);
  }
}
END_TEST

Suite *suite_control(void) {
  Suite *s = suite_create("control");
  TCase *tc = tcase_create("control");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, text_scene_is_the_file);
  tcase_add_test(tc, text_scene_errors_name_it);
  tcase_add_test(tc, text_scene_with_include_names_itself);
  tcase_add_test(tc, text_scene_resumes);
  tcase_add_test(tc, force_is_one_step_of_impulse);
  tcase_add_test(tc, forces_add_and_refusals_add_nothing);
  tcase_add_test(tc, forces_refused_across_a_hand_over);
  tcase_add_test(tc, report_in_memory_is_the_file);
  tcase_add_test(tc, open_close_cycles);
  suite_add_tcase(s, tc);
  return s;
}
