/* Starting from a previous output (plugin ABI 1.6): a shape of type
 * "frame" names a frame file a run wrote; the solver takes its particles
 * where they were, with the velocities and temperatures (and, for grains,
 * masses and radii) they had, bit for bit.  A run of grains restarted so
 * continues exactly as the first run went on. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/run/run.h"
#include "simtest.h"
#include "suites.h"

#define SCENE_HEAD                                                          \
  "scene = { duration = 0.5; fps = 20.0; gravity = [0.0, -9.81, 0.0];\n"  \
  "  domain = { min = [-0.48, 0.0, -0.48]; max = [0.48, 0.96, 0.48]; };\n" \
  "};\n"

/* The systems: `%s` where the shape goes, then `%s` for more keys. */
static const char *const systems[] = {
    "systems = ( { name = \"grains\"; solver = \"particles\"; %s\n"
    "  spacing = 0.04; %s } );",
    "systems = ( { name = \"water\"; solver = \"sph\"; %s\n"
    "  spacing = 0.04; %s } );",
    "systems = ( { name = \"water\"; solver = \"flip\"; %s\n"
    "  spacing = 0.04; %s } );",
};
static const char *const names[] = {"grains", "water", "water"};
/* A's keys; B's differ, so equal values came from the frame file */
static const char *const keys_a[] = {
    "velocity = [1.0, 0.0, 0.5]; temperature = 350.0; radius = 0.01;",
    "velocity = [0.5, 0.0, 0.0]; temperature = 300.0;",
    "velocity = [0.5, 0.0, 0.0]; temperature = 300.0;"};
static const char *const keys_b[] = {"temperature = 200.0; density = 3000.0; "
                                     "radius = 0.015;",
                                     "temperature = 200.0;",
                                     "temperature = 200.0;"};
static const char ball[] = "shape = { type = \"sphere\"; center = [0.0, 0.4, "
                           "0.0]; radius = 0.12; };";

static ms_sim *open_scene(const char *sys, const char *shape,
                          const char *keys, const char *out) {
  char text[4096], path[] = "/tmp/ms-frame-XXXXXX";
  char body[1024];
  snprintf(body, sizeof body, sys, shape, keys);
  snprintf(text, sizeof text, SCENE_HEAD "%s\n", body);
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  struct ms_sim_options o = {.struct_size = sizeof o, .threads = 1,
                             .output_dir = out, .no_output = !out,
                             .verbosity = MS_SINK_WARN};
  char err[1024];
  ms_sim *S = NULL;
  int rc = ms_sim_open(path, &o, &S, err, sizeof err);
  unlink(path);
  ck_assert_msg(rc == 0, "%s", err);
  return S;
}

/* Field `name` of system 0 (packed copy, malloc'ed) and its count. */
static double *field(ms_sim *S, const char *name, size_t comps, size_t *n) {
  struct ms__system *y = &S->sys[0];
  *n = y->view.count;
  for (uint32_t f = 0; f < y->view.field_count; f++) {
    const struct ms_field *F = &y->view.fields[f];
    if (strcmp(F->name, name)) continue;
    ck_assert_uint_eq(F->components, comps);
    double *a = malloc((*n * comps + 1) * sizeof *a);
    for (size_t i = 0; i < *n; i++)
      memcpy(a + comps * i, (const char *)F->data + i * F->stride,
             comps * sizeof *a);
    return a;
  }
  ck_abort_msg("no field %s", name);
  return NULL;
}

/* The largest difference of field `name` between A and B (-1: bitwise
 * equal). */
static double differ(ms_sim *A, ms_sim *B, const char *name, size_t comps) {
  size_t na, nb;
  double *a = field(A, name, comps, &na), *b = field(B, name, comps, &nb);
  ck_assert_uint_eq(na, nb);
  double worst = 0.0;
  for (size_t i = 0; i < na * comps; i++)
    worst = fmax(worst, fabs(a[i] - b[i]));
  if (!memcmp(a, b, na * comps * sizeof *a)) worst = -1.0;
  free(a);
  free(b);
  return worst;
}

static void same(ms_sim *A, ms_sim *B, const char *name, size_t comps) {
  double d = differ(A, B, name, comps);
  ck_assert_msg(d < 0.0, "%s differs (by %g)", name, d);
}

/* Run A 4 frames (writing them), start B from A's frame 4: B's particles
 * are A's, bit for bit, though B's keys give other velocities (none),
 * temperatures and (grains) masses. */
START_TEST(a_frame_restores_the_particles) {
  char dir[] = "/tmp/ms-frames-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  ms_sim *A = open_scene(systems[_i], ball, keys_a[_i], dir);
  for (int f = 0; f < 4; f++) ck_assert_int_eq(ms_sim_frame(A), 0);
  ck_assert_int_eq(ms__outputs_flush(A), 0);
  char shape[512];
  snprintf(shape, sizeof shape, "shape = { type = \"frame\"; file = "
           "\"%s/%s_000004.vtp\"; };", dir, names[_i]);
  ms_sim *B = open_scene(systems[_i], shape, keys_b[_i], NULL);
  same(A, B, "position", 3);
  same(A, B, "velocity", 3);
  same(A, B, "temperature", 1);
  same(A, B, "mass", 1);
  fprintf(stderr, "# %s: %zu particles restored from frame 4\n", names[_i],
          A->sys[0].view.count);
  if (_i == 0) {
    /* grains (apart, in flight, bouncing off the floor): the restarted
     * run goes on as A did, to rounding -- B's clock starts at 0, A's at
     * 0.2 s, so their steps differ in the last bit */
    same(A, B, "radius", 1);
    for (int f = 0; f < 4; f++) {
      ck_assert_int_eq(ms_sim_frame(A), 0);
      ck_assert_int_eq(ms_sim_frame(B), 0);
    }
    double dx = differ(A, B, "position", 3), dv = differ(A, B, "velocity", 3);
    fprintf(stderr, "# grains 4 frames on: positions %.2g m, velocities "
            "%.2g m/s apart\n", dx, dv);
    ck_assert_double_le(dx, 1e-12);
    ck_assert_double_le(dv, 1e-12);
  }
  ms_sim_close(A);
  ms_sim_close(B);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *suite_frame_shape(void) {
  Suite *s = suite_create("frame_shape");
  TCase *tc = tcase_create("restart");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, a_frame_restores_the_particles, 0, 3);
  suite_add_tcase(s, tc);
  return s;
}
