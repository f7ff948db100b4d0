/* Shapes from mesh files: one particle set whatever the format, the
 * mesh's volume, holes bridged, surfaces spread, bad meshes refused. */
#include <check.h>
#include <libconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/scene/scene.h"
#include "testutil.h"

static char last_error[1024];

/* Sample shape = { type = "mesh"; file = DATA/meshes/FILE; EXTRA } */
static size_t mesh(const char *file, const char *extra, double h,
                   double **xyz, int *rc) {
  const char *dir = getenv("MS_DATA");
  ck_assert_msg(dir != NULL, "MS_DATA not set");
  char text[2048];
  snprintf(text, sizeof text, "shape = { type = \"mesh\"; file = "
           "\"%s%s%s\"; %s };", file[0] == '/' ? "" : dir,
           file[0] == '/' ? "" : "/meshes/", file, extra ? extra : "");
  return t_sample_shape(text, h, SIZE_MAX, xyz, rc, last_error,
                        sizeof last_error);
}

static double mesh_volume(const char *file) {
  static const double id[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  char path[2048], why[256];
  struct ms__mesh m;
  snprintf(path, sizeof path, "%s/meshes/%s", getenv("MS_DATA"), file);
  ck_assert_int_eq(ms__mesh_read(path, id, &m, why, sizeof why), MS_OK);
  double v = m.volume;
  ms__mesh_free(&m);
  return v;
}

/* The same surface as OBJ, ASCII and binary STL, ASCII and binary PLY:
 * bit for bit the same particles, in the same order. */
START_TEST(every_format_gives_the_same_particles) {
  static const char *files[] = {"pebble_ascii.stl", "pebble_binary.stl",
                                "pebble.ply", "pebble_binary.ply"};
  double *ref, *x;
  int rc;
  size_t n = mesh("pebble.obj", NULL, 0.02, &ref, &rc);
  ck_assert_int_eq(rc, MS_OK);
  ck_assert_uint_gt(n, 1000);
  for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
    size_t m = mesh(files[f], NULL, 0.02, &x, &rc);
    ck_assert_msg(rc == MS_OK, "%s: %s", files[f], last_error);
    ck_assert_uint_eq(m, n);
    ck_assert_msg(!memcmp(x, ref, 3 * n * sizeof *x), "%s differs", files[f]);
    free(x);
  }
  free(ref);
}
END_TEST

/* Lattice points h apart fill the mesh's volume: count h^3 within 3 %. */
START_TEST(fill_holds_the_mesh_volume) {
  double *x;
  int rc;
  double V = mesh_volume("pebble.obj");
  ck_assert_double_eq_tol(V, 0.00971291, 1e-8); /* make_meshes.py's figure */
  for (double h = 0.04; h >= 0.0099; h /= 2) {
    size_t n = mesh("pebble.obj", NULL, h, &x, &rc);
    ck_assert_int_eq(rc, MS_OK);
    double err = fabs((double)n * h * h * h - V) / V;
    fprintf(stderr, "# pebble at h = %g: %zu points, volume off by %.2f %%\n",
            h, n, 100 * err);
    ck_assert_msg(err < 0.03, "h %g: %zu points, volume off by %.2f %%", h,
                  n, 100 * err);
    for (size_t i = 0; i < n; i++) { /* inside the ellipsoid, to a spacing */
      double a = (x[3 * i] - 0.05) / 0.2, b = (x[3 * i + 1] - 0.3) / 0.12,
             c = x[3 * i + 2] / 0.1;
      ck_assert(a * a + b * b + c * c < 1.0);
    }
    free(x);
  }
}
END_TEST

/* A unit cube's mesh, its lattice cell-centred: exactly 11^3 points, and
 * scale, rotate, translate applied in that order. */
START_TEST(cube_exact_count_and_transform) {
  char path[] = "/tmp/ms_cube_XXXXXX.obj";
  int fd = mkstemps(path, 4);
  ck_assert_int_ge(fd, 0);
  FILE *f = fdopen(fd, "w");
  static const int q[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                              {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  for (int i = 0; i < 8; i++) /* vertex i: bit 0 x, bit 1 y, bit 2 z */
    fprintf(f, "v %g %g %g\n", i & 1 ? 1.05 : -0.05, i & 2 ? 1.05 : -0.05,
            i & 4 ? 1.05 : -0.05);
  for (int i = 0; i < 6; i++) /* quads, outward: assimp triangulates them */
    fprintf(f, "f %d %d %d %d\n", q[i][0] + 1, q[i][3] + 1, q[i][2] + 1,
            q[i][1] + 1);
  fclose(f);
  double *x;
  int rc;
  ck_assert_uint_eq(mesh(path, NULL, 0.1, &x, &rc), 11 * 11 * 11);
  free(x);
  /* scaled by 2: 0.2 apart; turned 90 degrees about z: x -> y, y -> -x */
  size_t n = mesh(path, "scale = 2.0; rotate = [0.0, 0.0, 90.0]; "
                  "translate = [10.0, 20.0, 30.0];", 0.2, &x, &rc);
  ck_assert_uint_eq(n, 11 * 11 * 11);
  double lo[3] = {1e9, 1e9, 1e9}, hi[3] = {-1e9, -1e9, -1e9};
  for (size_t i = 0; i < n; i++)
    for (int a = 0; a < 3; a++)
      lo[a] = fmin(lo[a], x[3 * i + a]), hi[a] = fmax(hi[a], x[3 * i + a]);
  /* to the files' precision: meshes are read as 32-bit floats */
  ck_assert_double_eq_tol(lo[0], 10.0 - 2.0, 1e-6);
  ck_assert_double_eq_tol(hi[0], 10.0, 1e-6);
  ck_assert_double_eq_tol(lo[1], 20.0, 1e-6);
  ck_assert_double_eq_tol(hi[1], 22.0, 1e-6);
  ck_assert_double_eq_tol(lo[2], 30.0, 1e-6);
  ck_assert_double_eq_tol(hi[2], 32.0, 1e-6);
  free(x);
  unlink(path);
}
END_TEST

/* A hole of 1 % of the surface is bridged: the winding number is still
 * near 1 inside. */
START_TEST(small_hole_still_fills) {
  double *x, *ref;
  int rc;
  size_t n = mesh("pebble.obj", NULL, 0.02, &ref, &rc);
  size_t m = mesh("pebble_hole.obj", NULL, 0.02, &x, &rc);
  ck_assert_msg(rc == MS_OK, "%s", last_error);
  ck_assert_msg(fabs((double)m - (double)n) <= 0.01 * (double)n,
                "%zu points with the hole, %zu without", m, n);
  free(x);
  free(ref);
}
END_TEST

static void refused(const char *file, const char *extra, const char *why) {
  double *x;
  int rc;
  mesh(file, extra, 0.02, &x, &rc);
  ck_assert_int_eq(rc, MS_ECONFIG);
  ck_assert_ptr_null(x);
  ck_assert_msg(strstr(last_error, file) && strstr(last_error, why) &&
                    !strchr(last_error, '\n'),
                "%s: '%s' (expected '%s')", file, last_error, why);
}

START_TEST(bad_meshes_refused_naming_the_file) {
  refused("bowl_open.obj", NULL, "not closed");
  refused("flat.obj", NULL, "encloses no volume");
  refused("empty.obj", NULL, "holds no triangles");
  refused("garbage.stl", NULL, "not a mesh");
  refused("missing.obj", NULL, "cannot open the mesh");
  double *x;
  int rc; /* a bad key: the scene's file and line, and the key */
  mesh("pebble.obj", "scale = -1.0;", 0.02, &x, &rc);
  ck_assert_int_eq(rc, MS_ECONFIG);
  ck_assert_msg(strstr(last_error, ":1: shape.scale: must be > 0"), "%s",
                last_error);
}
END_TEST

/* surface = true: points on the triangles, none closer than 0.8 h, none of
 * the mesh's vertices farther than h from one; open meshes are fine. */
START_TEST(surface_points_spread_and_cover) {
  const double h = 0.02;
  double *x;
  int rc;
  size_t n = mesh("pebble.obj", "surface = true;", h, &x, &rc);
  ck_assert_int_eq(rc, MS_OK);
  double dmin = INFINITY;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      double d[3];
      ms__sub(d, x + 3 * i, x + 3 * j);
      dmin = fmin(dmin, ms__norm2(d));
    }
  ck_assert_double_ge(sqrt(dmin), 0.8 * h * (1 - 1e-12));
  static const double id[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  char path[2048], why[256];
  struct ms__mesh m;
  snprintf(path, sizeof path, "%s/meshes/pebble.obj", getenv("MS_DATA"));
  ck_assert_int_eq(ms__mesh_read(path, id, &m, why, sizeof why), MS_OK);
  for (size_t v = 0; v < m.nv; v++) {
    double best = INFINITY;
    for (size_t i = 0; i < n; i++) {
      double d[3];
      ms__sub(d, x + 3 * i, m.v + 3 * v);
      best = fmin(best, ms__norm2(d));
    }
    ck_assert_double_le(sqrt(best), h);
  }
  /* each point on the surface: between the ellipsoid and its mesh */
  for (size_t i = 0; i < n; i++) {
    double a = (x[3 * i] - 0.05) / 0.2, b = (x[3 * i + 1] - 0.3) / 0.12,
           c = x[3 * i + 2] / 0.1, r = sqrt(a * a + b * b + c * c);
    ck_assert(r <= 1.0 + 1e-6 && r > 0.95);
  }
  /* about area / (0.8 h)^2 ... area / (0.8 h)^2 * 2 / sqrt(3) points */
  double A = m.area / (0.64 * h * h);
  ck_assert_msg(n > 0.5 * A && n < 1.2 * A, "%zu points, area %g", n, m.area);
  ms__mesh_free(&m);
  free(x);
  size_t k = mesh("bowl_open.obj", "surface = true;", h, &x, &rc);
  ck_assert_int_eq(rc, MS_OK);
  ck_assert_uint_gt(k, n / 3);
  ck_assert_uint_lt(k, 2 * n / 3);
  free(x);
}
END_TEST

/* The winding number of a closed mesh: 1 inside, 0 outside, to rounding
 * and the far groups' dipole approximation. */
START_TEST(winding_number_inside_outside) {
  static const double id[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  char path[2048], why[256];
  struct ms__mesh m;
  snprintf(path, sizeof path, "%s/meshes/pebble.obj", getenv("MS_DATA"));
  ck_assert_int_eq(ms__mesh_read(path, id, &m, why, sizeof why), MS_OK);
  ck_assert_uint_eq(m.nv, 162);
  ck_assert_uint_eq(m.nt, 320);
  ck_assert_double_eq(m.open, 0.0);
  double in[3] = {0.05, 0.3, 0.0}, out[3] = {0.3, 0.3, 0.0},
         far[3] = {5.0, -3.0, 2.0};
  ck_assert_double_eq_tol(ms__mesh_winding(&m, in), 1.0, 1e-2);
  ck_assert_double_eq_tol(ms__mesh_winding(&m, out), 0.0, 1e-2);
  ck_assert_double_eq_tol(ms__mesh_winding(&m, far), 0.0, 1e-6);
  ms__mesh_free(&m);
}
END_TEST

/* A frame shape names a file a run wrote: a missing or broken one is one
 * line naming it; a frame takes no jitter; other shapes carry no fields. */
START_TEST(frame_shape_errors) {
  double *x, v[3];
  int rc;
  mesh("no_such_frame.vtp", NULL, 0.02, &x, &rc); /* as a mesh: not found */
  ck_assert_int_eq(rc, MS_ECONFIG);
  static const char *bad[][2] = {
      {"shape = { type = \"frame\"; file = \"/nonexistent/w_000004.vtp\"; };",
       "/nonexistent/w_000004.vtp: cannot open"},
      {"shape = { type = \"frame\"; };", "shape.file: is required"},
      {"shape = { type = \"frame\"; file = \"x.vtp\"; jitter = 0.1; };",
       "shape.jitter: a frame's particles are taken where they were"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    t_sample_shape(bad[i][0], 0.02, SIZE_MAX, &x, &rc, last_error,
                   sizeof last_error);
    ck_assert_int_eq(rc, MS_ECONFIG);
    ck_assert_msg(strstr(last_error, bad[i][1]) && !strchr(last_error, '\n'),
                  "'%s' (expected '%s')", last_error, bad[i][1]);
  }
  config_t cfg;
  struct ms__err err = {0};
  config_init(&cfg);
  ck_assert_int_eq(config_read_string(&cfg, "shape = { type = \"sphere\"; "
                   "center = [0.0, 0.0, 0.0]; radius = 1.0; };"), CONFIG_TRUE);
  ck_assert_int_eq(ms__shape_field(config_lookup(&cfg, "shape"), "velocity",
                                   1, 3, v, &err), MS_ENOENT);
  ck_assert_int_eq(err.status, 0);
  config_destroy(&cfg);
}
END_TEST

Suite *suite_mesh_shapes(void) {
  Suite *s = suite_create("mesh_shapes");
  TCase *tc = tcase_create("mesh");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, every_format_gives_the_same_particles);
  tcase_add_test(tc, fill_holds_the_mesh_volume);
  tcase_add_test(tc, cube_exact_count_and_transform);
  tcase_add_test(tc, small_hole_still_fills);
  tcase_add_test(tc, bad_meshes_refused_naming_the_file);
  tcase_add_test(tc, surface_points_spread_and_cover);
  tcase_add_test(tc, winding_number_inside_outside);
  tcase_add_test(tc, frame_shape_errors);
  suite_add_tcase(s, tc);
  return s;
}
