/* scene.scale, the resolution knob, on every shipped solver: about `scale`
 * times the particles, the same bodies, the same total mass. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simtest.h"

static const char scene[] =
    "scene = { duration = 0.1; fps = 10.0; seed = 1;\n"
    "  gravity = [0.0, -9.81, 0.0];\n"
    "  domain = { min = [-1.0, -1.0, -1.0]; max = [1.0, 1.0, 1.0]; }; };\n"
    "systems = (\n"
    " { name = \"cloth\"; solver = \"mass_spring\";\n"
    "   cloth = { corner = [-0.5, 0.5, -0.5]; edge_u = [1.0, 0.0, 0.0];\n"
    "             edge_v = [0.0, 0.0, 0.5]; resolution = [9, 5]; };\n"
    "   mass = 0.01; },\n"
    " { name = \"soft\"; solver = \"mass_spring\";\n"
    "   shape = { type = \"sphere\"; center = [0.5, 0.0, 0.5];\n"
    "             radius = 0.1; };\n"
    "   spacing = 0.04; mass = 0.002; },\n"
    " { name = \"solid\"; solver = \"peridynamics\";\n"
    "   shape = { type = \"box\"; min = [-0.8, -0.8, -0.8];\n"
    "             max = [-0.48, -0.48, -0.48]; };\n"
    "   spacing = 0.04; density = 1000.0; youngs_modulus = 1e5; },\n"
    " { name = \"water\"; solver = \"sph\";\n"
    "   shape = { type = \"box\"; min = [0.3, -0.9, -0.9];\n"
    "             max = [0.5, -0.7, -0.7]; };\n"
    "   spacing = 0.04; density = 1000.0; },\n"
    " { name = \"flip\"; solver = \"flip\";\n"
    "   shape = { type = \"box\"; min = [-0.9, 0.3, 0.3];\n"
    "             max = [-0.7, 0.5, 0.5]; };\n"
    "   spacing = 0.04; density = 1000.0; }\n"
    ");\n";

Suite *suite_scale(void);

#define NSYS 5
static const char *const names[NSYS] = {"cloth", "soft", "solid", "water",
                                        "flip"};

struct census {
  size_t count[NSYS];
  double mass[NSYS], radius[NSYS];
  double max_bonds; /* peridynamics: the most bonds of any particle */
};

static double max_field(const struct ms_view *v, const char *name) {
  for (uint32_t f = 0; f < v->field_count; f++) {
    const struct ms_field *F = &v->fields[f];
    if (strcmp(F->name, name)) continue;
    double m = 0.0;
    for (size_t i = 0; i < v->count; i++) {
      const char *p = (const char *)F->data + i * F->stride;
      double x;
      if (F->type == MS_TYPE_F64) memcpy(&x, p, sizeof x);
      else if (F->type == MS_TYPE_U32) {
        uint32_t u;
        memcpy(&u, p, sizeof u);
        x = u;
      } else
        ck_abort_msg("field %s has an unexpected type", name);
      m = fmax(m, x);
    }
    return m;
  }
  ck_abort_msg("no field %s", name);
  return 0.0;
}

static void take_census(double scale, struct census *c) {
  char path[] = "/tmp/ms-scale-XXXXXX", err[1024];
  int fd = mkstemp(path);
  ck_assert(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs(scene, f);
  fclose(f);
  struct ms_sim_options o = {.struct_size = sizeof o, .no_output = 1,
                             .verbosity = MS_SINK_ERROR, .scale = scale};
  ms_sim *S;
  int rc = ms_sim_open(path, &o, &S, err, sizeof err);
  remove(path);
  ck_assert_msg(rc == 0, "%s", err);
  memset(c, 0, sizeof *c);
  for (int s = 0; s < NSYS; s++) {
    struct ms__system *y = st_system(S, names[s]);
    c->count[s] = y->view.count;
    c->radius[s] = *ms__at(&y->r, 0);
    for (size_t i = 0; i < y->view.count; i++) c->mass[s] += *ms__at(&y->m, i);
    if (s == 2) c->max_bonds = max_field(&y->view, "bonds");
  }
  ms_sim_close(S);
}

START_TEST(every_solver_follows_scale) {
  struct census a, b;
  take_census(1.0, &a);
  take_census(8.0, &b);
  for (int s = 0; s < NSYS; s++)
    fprintf(stderr, "# %-6s %7zu -> %7zu particles, mass %.6g -> %.6g, "
            "radius %g -> %g\n", names[s], a.count[s], b.count[s],
            a.mass[s], b.mass[s], a.radius[s], b.radius[s]);
  /* the cloth: (n - 1) * 2 + 1 per edge, its total mass kept exactly */
  ck_assert_uint_eq(a.count[0], 9 * 5);
  ck_assert_uint_eq(b.count[0], 17 * 9);
  ck_assert_msg(fabs(b.mass[0] - a.mass[0]) <= 1e-12 * a.mass[0],
                "cloth mass %.17g -> %.17g", a.mass[0], b.mass[0]);
  for (int s = 0; s < NSYS; s++) {
    /* every length halves */
    ck_assert_msg(fabs(b.radius[s] - 0.5 * a.radius[s]) <= 1e-15,
                  "%s radius %g -> %g", names[s], a.radius[s], b.radius[s]);
    if (s == 0) continue;
    /* 3D lattices: about 8x the particles (boundary layers aside)... */
    double r = (double)b.count[s] / (double)a.count[s];
    ck_assert_msg(r > 5.0 && r < 9.0, "%s: %zu -> %zu particles", names[s],
                  a.count[s], b.count[s]);
    /* ...and the mass of the sampled volume */
    double rm = b.mass[s] / a.mass[s] / (r / 8.0);
    ck_assert_msg(fabs(rm - 1.0) <= 1e-12, "%s: mass per particle %g -> %g "
                  "(expected / 8)", names[s], a.mass[s] / a.count[s],
                  b.mass[s] / b.count[s]);
  }
  /* the horizon (3 spacings) shrank with the spacing: an interior
   * particle keeps its 122 bonds, the lattice points within 3 spacings */
  ck_assert_msg(a.max_bonds == 122.0 && b.max_bonds == 122.0,
                "bonds per particle %g -> %g", a.max_bonds, b.max_bonds);
}
END_TEST

Suite *suite_scale(void) {
  Suite *s = suite_create("scale");
  TCase *tc = tcase_create("scale");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, every_solver_follows_scale);
  suite_add_tcase(s, tc);
  return s;
}
