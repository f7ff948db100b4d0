/* Scene keys of the sph solver: what is accepted, what is refused (one
 * error line naming the key and where it is). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../plugins/sph/sph.h"
#include "../scenes/simtest.h"
#include "suites.h"

#define HEAD                                                            \
  "scene = { duration = 0.1; gravity = [0.0, -9.81, 0.0];\n"            \
  "  domain = { min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.0]; }; };\n"  \
  "systems = ( { name = \"w\"; solver = \"sph\";\n"

static void silent(void *opaque, int level, const char *line) {
  (void)opaque, (void)level, (void)line;
}

/* Open the scene (HEAD + body + " } );"); return the status, the error
 * line in err. */
static int try_open(const char *body, char *err, size_t len, ms_sim **out) {
  char text[4096];
  snprintf(text, sizeof text, "%s%s } );\n", HEAD, body);
  return st_try_text(text, err, len, out);
}

static const struct {
  const char *body, *key, *msg;
} bad[] = {
    {"shape = { type = \"box\"; min = [0.1, 0.1, 0.1]; max = [0.2, 0.2, "
     "0.2]; };", "spacing", "is required"},
    {"spacing = -0.02; shape = { type = \"sphere\"; center = [0.5, 0.5, "
     "0.5]; radius = 0.1; };", "spacing", "must be > 0"},
    {"spacing = 0.02;", "shape", "is required"},
    {"spacing = 0.02; kernel = \"gaussian\"; shape = { type = \"sphere\"; "
     "center = [0.5, 0.5, 0.5]; radius = 0.1; };", "kernel",
     "unknown kernel 'gaussian'"},
    {"spacing = 0.02; gradient_kernel = 3; shape = { type = \"sphere\"; "
     "center = [0.5, 0.5, 0.5]; radius = 0.1; };", "gradient_kernel", ""},
    {"spacing = 0.02; viscosity = -1.0; shape = { type = \"sphere\"; "
     "center = [0.5, 0.5, 0.5]; radius = 0.1; };", "viscosity",
     "must be in [0, 10]"},
    {"spacing = 0.02; speed_of_sound = 20.0; stiffness = 1e5; shape = { "
     "type = \"sphere\"; center = [0.5, 0.5, 0.5]; radius = 0.1; };",
     "stiffness", "either speed_of_sound or stiffness"},
    {"spacing = 0.02; viscosty = 0.1; shape = { type = \"sphere\"; "
     "center = [0.5, 0.5, 0.5]; radius = 0.1; };", "viscosty",
     "unknown key"},
    {"spacing = 0.02; smoothing_length = 0.2; shape = { type = \"sphere\"; "
     "center = [0.5, 0.5, 0.5]; radius = 0.1; };", "smoothing_length",
     "between 0.5 and 4 spacings"},
    {"spacing = 0.02; cfl = 1.5; shape = { type = \"sphere\"; center = "
     "[0.5, 0.5, 0.5]; radius = 0.1; };", "cfl", "must be in (0, 1]"},
    {"spacing = 0.02; sort_every = -1; shape = { type = \"sphere\"; "
     "center = [0.5, 0.5, 0.5]; radius = 0.1; };", "sort_every",
     "must be in [0, 1000000]"},
    {"spacing = 0.02; gravity_ramp = -1.0; shape = { type = \"sphere\"; "
     "center = [0.5, 0.5, 0.5]; radius = 0.1; };", "gravity_ramp",
     "must be >= 0"},
    {"spacing = 0.02; exponent = 0.0; shape = { type = \"sphere\"; "
     "center = [0.5, 0.5, 0.5]; radius = 0.1; };", "exponent",
     "must be in [1, 10]"},
    {"spacing = 0.02; shape = { type = \"sphere\"; center = [0.95, 0.5, "
     "0.5]; radius = 0.1; };", "w", "outside the domain"},
    {"spacing = 0.02; shape = { type = \"sphere\"; center = [0.5, 0.5, "
     "0.5]; radius = 0.1; }; obstacles = ( { min = [0.4, 0.4, 0.4]; } );",
     "max", "is required"},
    {"spacing = 0.02; shape = { type = \"sphere\"; center = [0.5, 0.5, "
     "0.5]; radius = 0.1; }; obstacles = ( { min = [0.45, 0.45, 0.45]; "
     "max = [0.55, 0.55, 0.55]; } );", "obstacles", "inside obstacle 1"},
    {"spacing = 0.02; shape = { type = \"sphere\"; center = [0.5, 0.5, "
     "0.5]; radius = 0.1; }; shapes = ( { type = \"box\"; min = [0.1, 0.1, "
     "0.1]; max = [0.2, 0.2, 0.2]; } );", "shapes", "not both"},
    {"spacing = 0.02; shape = { type = \"sphere\"; center = [0.5, 0.5, "
     "0.5]; radius = 0.1; velocity = [1.0, 0.0]; };", "velocity", ""},
};

START_TEST(bad_values_are_refused) {
  char err[1024];
  int rc = try_open(bad[_i].body, err, sizeof err, NULL);
  ck_assert_msg(rc != 0, "accepted: %s", bad[_i].body);
  ck_assert_msg(strstr(err, bad[_i].key) && strstr(err, bad[_i].msg),
                "error for '%s' does not name '%s' / '%s': %s", bad[_i].body,
                bad[_i].key, bad[_i].msg, err);
  ck_assert_msg(strstr(err, "/tmp/ms-scene-") && !strchr(err, '\n'),
                "not one line naming the file: %s", err);
}
END_TEST

/* With neither gravity nor motion there is no speed to derive c from. */
START_TEST(speed_of_sound_needed_at_rest) {
  char path[] = "/tmp/ms-sph-XXXXXX", err[1024];
  int fd = mkstemp(path);
  FILE *f = fdopen(fd, "w");
  fputs("scene = { gravity = [0.0, 0.0, 0.0]; };\n"
        "systems = ( { name = \"w\"; solver = \"sph\"; spacing = 0.02;\n"
        "  shape = { type = \"sphere\"; center = [0.0, 0.0, 0.0]; radius = "
        "0.05; }; } );\n", f);
  fclose(f);
  struct ms_sim_options o = {.struct_size = sizeof o, .no_output = 1,
                             .log = silent};
  ms_sim *S = NULL;
  ck_assert_int_ne(ms_sim_open(path, &o, &S, err, sizeof err), 0);
  unlink(path);
  ck_assert_msg(strstr(err, "speed_of_sound") && strstr(err, "is required"),
                "%s", err);
}
END_TEST

static struct sph_plugin *plugin_of(ms_sim *S) {
  return (struct sph_plugin *)(void *)st_system(S, "w")->inst;
}

/* Shapes, their own velocities, mass from spacing, scale, defaults. */
START_TEST(shapes_and_velocities) {
  char err[1024];
  ms_sim *S;
  int rc = try_open(
      "spacing = 0.04; scale = 8.0; density = 800.0;\n"
      "velocity = [0.0, 0.0, -1.0];\n"
      "shapes = ( { type = \"box\"; min = [0.1, 0.1, 0.1];\n"
      "             max = [0.3, 0.3, 0.3]; velocity = [2.0, 0.0, 0.0]; },\n"
      "           { type = \"box\"; min = [0.5, 0.1, 0.1];\n"
      "             max = [0.6, 0.2, 0.2]; } );",
      err, sizeof err, &S);
  ck_assert_msg(rc == 0, "%s", err);
  struct ms__system *w = st_system(S, "w");
  struct sph_plugin *pl = plugin_of(S);
  /* scale 8 halves the spacing: 10^3 + 5^3 particles */
  ck_assert_uint_eq(w->view.count, 1125);
  ck_assert(fabs(pl->S.P.spacing - 0.02) < 1e-15);
  size_t fast = 0, down = 0;
  for (size_t i = 0; i < w->view.count; i++) {
    const double *v = ms__at(&w->v, i), *x = ms__at(&w->x, i);
    ck_assert(*ms__at(&w->m, i) == pl->S.P.mass);
    ck_assert(*ms__at(&w->r, i) == 0.01);
    if (x[0] < 0.4) {
      ck_assert(v[0] == 2.0 && v[1] == 0.0 && v[2] == 0.0);
      fast++;
    } else {
      ck_assert(v[0] == 0.0 && v[1] == 0.0 && v[2] == -1.0);
      down++;
    }
  }
  ck_assert_uint_eq(fast, 1000);
  ck_assert_uint_eq(down, 125);
  /* c: 10 x the larger of the initial speed (2) and the fall from the
   * top (0.29) to the floor */
  double fall = sqrt(2.0 * 9.81 * 0.29);
  ck_assert(fabs(pl->S.P.c - 10.0 * fmax(2.0, fall)) < 1e-12);
  ck_assert(pl->S.P.h == pl->S.P.spacing && pl->S.kw.R == 2.0 * 0.02);
  /* mass from the spacing: frame 0 shows a block's interior at rest
   * density (the cubic spline's lattice sum is 0.99997) */
  ck_assert(fabs(pl->S.P.mass / (800.0 * 0.02 * 0.02 * 0.02) - 1.0) < 1e-4);
  double rmax = 0.0;
  for (size_t i = 0; i < w->view.count; i++)
    rmax = fmax(rmax, pl->S.rho[i]);
  ck_assert(fabs(rmax / 800.0 - 1.0) < 1e-12);
  ms_sim_close(S);
}
END_TEST

START_TEST(kernels_and_stiffness) {
  char err[1024];
  ms_sim *S;
  int rc = try_open(
      "spacing = 0.02; kernel = \"poly6\"; stiffness = 2e5; exponent = 7;\n"
      "smoothing_length = 0.025; xsph = 0.5; clamp_pressure = false;\n"
      "shape = { type = \"sphere\"; center = [0.5, 0.5, 0.5]; radius = 0.1;"
      " };", err, sizeof err, &S);
  ck_assert_msg(rc == 0, "%s", err);
  struct sph_plugin *pl = plugin_of(S);
  ck_assert_int_eq(pl->S.kw.kind, SPH_POLY6);
  ck_assert_int_eq(pl->S.kg.kind, SPH_SPIKY); /* Mueller's pairing */
  ck_assert(fabs(pl->S.P.B - 2e5) < 1e-6);
  ck_assert(pl->S.kw.R == 0.05 && !pl->S.P.clamp_pressure);
  ms_sim_close(S);
}
END_TEST

Suite *suite_sph_config(void) {
  Suite *s = suite_create("sph_config");
  TCase *t = tcase_create("config");
  tcase_add_loop_test(t, bad_values_are_refused, 0,
                      (int)(sizeof bad / sizeof *bad));
  tcase_add_test(t, speed_of_sound_needed_at_rest);
  tcase_add_test(t, shapes_and_velocities);
  tcase_add_test(t, kernels_and_stiffness);
  suite_add_tcase(s, t);
  return s;
}
