/* Scene tests of the step driver with the `particles` plugin. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "simtest.h"

/* Two particles (radius 0.1) stacked on the floor under gravity. */
START_TEST(rest_in_contact_1000_steps) {
  ms_sim *S = st_open_text(
      "scene = { duration = 1000.0; fps = 10.0;\n"
      "  domain = { min = [-1.0, 0.0, -1.0]; max = [1.0, 3.0, 1.0]; }; };\n"
      "systems = ( { name = \"p\"; solver = \"particles\";\n"
      "  shape = { type = \"points\"; points = ( [0.0, 0.1, 0.0], [0.0, 0.3, 0.0] ); };\n"
      "  radius = 0.1; mass = 1.0; wall_restitution = 0.0; } );\n",
      1);
  struct ms__system *p = st_system(S, "p");
  double worst = 0.0;
  for (int k = 0; k < 1000; k++) {
    st_step(S);
    const double *a = ms__at(&p->x, 0), *b = ms__at(&p->x, 1);
    double d = sqrt(pow(b[0] - a[0], 2) + pow(b[1] - a[1], 2) + pow(b[2] - a[2], 2));
    worst = fmax(worst, (0.2 - d) / 0.1);
    ck_assert_msg(isfinite(d), "NaN at step %d", k);
  }
  ck_assert_msg(worst <= 0.01, "overlap reached %.4f of the radius", worst);
  /* the resting contact is held by the second stage, every step */
  ck_assert_uint_ge(S->stepper.frame_counts.stage2_steps, 900);
  ck_assert_uint_eq(S->stepper.step, 1000);
  /* the bottom particle stays on the floor, the top on the bottom one */
  ck_assert(fabs(ms__at(&p->x, 0)[1] - 0.1) < 1e-3);
  st_close(S);
}
END_TEST

/* 1000 granular particles (jittered 10^3 box) dropped onto the floor. */
START_TEST(box_of_grains_comes_to_rest) {
  ms_sim *S = st_open_text(
      "scene = { duration = 2.0; fps = 10.0;\n"
      "  domain = { min = [-0.5, 0.0, -0.5]; max = [0.5, 2.0, 0.5]; }; };\n"
      "coupling = { alpha = 0.0; n_min = 0; n_max = 0; };\n"
      "systems = ( { name = \"g\"; solver = \"particles\";\n"
      "  shape = { type = \"box\"; min = [-0.1, 0.3, -0.1];\n"
      "            max = [0.1, 0.5, 0.1]; jitter = 0.05; };\n"
      "  spacing = 0.02; radius = 0.009;\n"
      "  wall_restitution = 0.0; wall_friction = 0.2; } );\n",
      0);
  struct ms__system *g = st_system(S, "g");
  ck_assert_uint_eq(g->view.count, 1000);
  double worst = 0.0;
  while (S->frame < S->frames_total) {
    ck_assert_int_eq(ms_sim_frame(S), 0);
    worst = fmax(worst, st_max_overlap(S));
  }
  double vmax = st_max_speed(S);
  ck_assert_msg(isfinite(vmax), "NaN in the pile");
  ck_assert_msg(vmax < 1e-9, "still moving: max speed %g m/s", vmax);
  ck_assert_msg(worst <= 0.01, "a pair overlapped by %.4f of the radius", worst);
  /* it did fall: every grain is below its start and above the floor */
  for (size_t i = 0; i < g->view.count; i++) {
    double y = ms__at(&g->x, i)[1];
    ck_assert(y >= 0.009 - 1e-12 && y < 0.25);
  }
  st_close(S);
}
END_TEST

/* A head-on pair of two different systems: the 1-D elastic collision. */
static void head_on(double m1, double m2, double alpha) {
  char text[2048];
  snprintf(text, sizeof text,
           "scene = { duration = 0.5; fps = 10.0; gravity = [0.0, 0.0, 0.0]; };\n"
           "coupling = { alpha = %.17g; beta = 1.0; };\n"
           "systems = (\n"
           " { name = \"a\"; solver = \"particles\"; radius = 0.1; mass = %.17g;\n"
           "   shape = { type = \"points\"; points = ( [0.0, 0.0, 0.0] ); };\n"
           "   velocity = [1.5, 0.0, 0.0]; },\n"
           " { name = \"b\"; solver = \"particles\"; radius = 0.1; mass = %.17g;\n"
           "   shape = { type = \"points\"; points = ( [0.5, 0.0, 0.0] ); };\n"
           "   velocity = [-0.5, 0.0, 0.0]; } );\n",
           alpha, m1, m2);
  ms_sim *S = st_open_text(text, 0);
  ck_assert_int_eq(ms_sim_run(S), 0);
  double v1 = ms__at(&st_system(S, "a")->v, 0)[0];
  double v2 = ms__at(&st_system(S, "b")->v, 0)[0];
  double u1 = 1.5, u2 = -0.5, M = m1 + m2, e = sqrt(alpha);
  /* momentum and restitution e = sqrt(alpha) along the line */
  double w1 = (m1 * u1 + m2 * u2 - m2 * e * (u1 - u2)) / M;
  double w2 = (m1 * u1 + m2 * u2 + m1 * e * (u1 - u2)) / M;
  ck_assert_msg(fabs(v1 - w1) <= 1e-12 * 1.5, "v1 = %.17g, expected %.17g", v1, w1);
  ck_assert_msg(fabs(v2 - w2) <= 1e-12 * 1.5, "v2 = %.17g, expected %.17g", v2, w2);
  ck_assert_uint_ge(S->run_counts.metas, 1);
  st_close(S);
}

START_TEST(head_on_two_systems_exchange) { head_on(1.0, 1.0, 1.0); }
END_TEST
START_TEST(head_on_unequal_masses) { head_on(1.0, 3.0, 1.0); }
END_TEST
START_TEST(head_on_partial_restitution) { head_on(2.0, 1.0, 0.36); }
END_TEST

/* The default scene: two balls of grains (two systems) collide in zero
 * gravity with alpha = beta = 1. */
START_TEST(two_balls_conserve_momentum_and_energy) {
  ms_sim *S = st_open_file("two_balls.cfg", 0, 0);
  double p0[3], k0, p[3], k;
  st_totals(S, p0, &k0);
  ck_assert_int_eq(ms_sim_run(S), 0);
  st_totals(S, p, &k);
  double pscale = sqrt(p0[0] * p0[0] + p0[1] * p0[1] + p0[2] * p0[2]);
  for (int a = 0; a < 3; a++)
    ck_assert_msg(fabs(p[a] - p0[a]) <= 1e-12 * pscale, "momentum[%d] %.17g -> %.17g",
                  a, p0[a], p[a]);
  ck_assert_msg(fabs(k - k0) <= 1e-12 * k0, "energy %.17g -> %.17g", k0, k);
  /* the balls did collide: many merges, energy stored and given back */
  ck_assert_uint_gt(S->run_counts.ledger.merges, 1000);
  ck_assert(S->run_counts.ledger.stored > 0.1 * k0);
  ck_assert(fabs(S->run_counts.ledger.restored - S->run_counts.ledger.stored) <=
            1e-12 * S->run_counts.ledger.stored);
  st_close(S);
}
END_TEST

static double *final_positions(int threads, size_t *n) {
  ms_sim *S = st_open_file("two_balls.cfg", threads, 12);
  ck_assert_int_eq(ms_sim_run(S), 0);
  *n = S->sys[0].view.count + S->sys[1].view.count;
  double *x = malloc(3 * *n * sizeof *x), *q = x;
  for (uint32_t s = 0; s < 2; s++)
    for (size_t i = 0; i < S->sys[s].view.count; i++, q += 3)
      memcpy(q, ms__at(&S->sys[s].x, i), 3 * sizeof *q);
  st_close(S);
  return x;
}

START_TEST(same_result_for_threads_and_runs) {
  size_t n1, n2, n3;
  double *a = final_positions(1, &n1), *b = final_positions(2, &n2),
         *c = final_positions(2, &n3);
  ck_assert_uint_eq(n1, n2);
  ck_assert(memcmp(a, b, 3 * n1 * sizeof *a) == 0); /* 1 vs 2 threads */
  ck_assert(memcmp(b, c, 3 * n1 * sizeof *a) == 0); /* repeated run */
  free(a), free(b), free(c);
}
END_TEST

/* scene.scale = 8 halves the spacing: a lattice ball of radius 5 spacings
 * (515 points) becomes one of radius 10 (4169), with the same mass. */
START_TEST(scale_refines_the_lattice) {
  char path[4096], err[1024];
  snprintf(path, sizeof path, "%s/two_balls.cfg", getenv("MS_CONFIGS"));
  double mass[2] = {0, 0};
  size_t count[2];
  for (int k = 0; k < 2; k++) {
    struct ms_sim_options o = {.struct_size = sizeof o, .no_output = 1,
                               .verbosity = MS_SINK_ERROR,
                               .scale = k ? 8.0 : 0.0};
    ms_sim *S;
    ck_assert_msg(ms_sim_open(path, &o, &S, err, sizeof err) == 0, "%s", err);
    struct ms__system *y = st_system(S, "left");
    count[k] = y->view.count;
    for (size_t i = 0; i < count[k]; i++) mass[k] += *ms__at(&y->m, i);
    ck_assert(fabs(*ms__at(&y->r, 0) - (k ? 0.0145 / 2 : 0.0145)) < 1e-15);
    ms_sim_close(S);
  }
  ck_assert_uint_eq(count[0], 515);
  ck_assert_uint_eq(count[1], 4169);
  ck_assert_msg(fabs(mass[1] / mass[0] - 1.0) < 0.02, "mass %g -> %g",
                mass[0], mass[1]);
}
END_TEST

static int open_fails(const char *scene, char *err, size_t len) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", getenv("MS_DATA"), scene);
  const char *paths[] = {getenv("MS_FIXTURES"), NULL};
  struct ms_sim_options o = {.struct_size = sizeof o, .no_output = 1,
                             .plugin_paths = paths, .verbosity = MS_SINK_ERROR};
  ms_sim *S;
  int rc = ms_sim_open(path, &o, &S, err, len);
  if (rc) return rc;
  rc = ms_sim_run(S);
  snprintf(err, len, "%s", ms_sim_error(S));
  ms_sim_close(S);
  return rc;
}

START_TEST(nan_from_a_solver_stops_the_run) {
  char err[2048];
  int rc = open_fails("nan_solver.cfg", err, sizeof err);
  ck_assert_int_eq(rc, MS_ENUMERIC);
  ck_assert_msg(strstr(err, "system 'broken' (solver 'fixture_nan'): particle 0") &&
                    strstr(err, "(step 4)") && !strchr(err, '\n'),
                "message: %s", err);
}
END_TEST

START_TEST(view_without_radius_refused) {
  char err[2048];
  int rc = open_fails("bad_view.cfg", err, sizeof err);
  ck_assert_int_eq(rc, MS_EPLUGIN);
  ck_assert_msg(strstr(err, "invalid particle view: required field 'radius' is "
                            "missing (system 'v', solver 'fixture_badview'"),
                "message: %s", err);
}
END_TEST

/* A particle whose solver carries it toward a held one while its own
 * velocity points away (as FLIP carries its particles through the grid):
 * stage 2 judges the pair by the displacement stage 1 made too, merges it,
 * and the pair never closes in.  (Judged by velocities alone it would be
 * left apart, and the particle carried 9 mm into the other every step.) */
START_TEST(carried_into_contact_is_merged) {
  const char *text =
      "scene = { duration = 0.3; fps = 10.0; gravity = [0.0, 0.0, 0.0]; };\n"
      "systems = (\n"
      " { name = \"held\"; solver = \"fixture_good\"; count = 1;\n"
      "   position = [0.09, 0.0, 0.0]; fixed = true; },\n"
      " { name = \"carried\"; solver = \"fixture_good\"; count = 1;\n"
      "   velocity = [-0.1, 0.0, 0.0]; drift = [1.0, 0.0, 0.0]; } );\n";
  setenv("MERGESPLIT_PLUGIN_PATH", getenv("MS_PLUGIN_AND_FIXTURES"), 1);
  ms_sim *S = st_open_text(text, 1);
  struct ms__system *h = st_system(S, "held"), *c = st_system(S, "carried");
  double d0 = ms__at(&h->x, 0)[0] - ms__at(&c->x, 0)[0];
  ck_assert(fabs(d0 - 0.09) < 1e-15); /* in contact: radii 0.05 */
  for (int steps = 1; steps <= 30; steps++) { /* 0.3 s of 10 ms steps */
    st_step(S);
    double d = ms__at(&h->x, 0)[0] - ms__at(&c->x, 0)[0];
    ck_assert_msg(d >= d0 - 1e-12, "step %d: %.17g apart, %.17g at the "
                  "start", steps, d, d0);
  }
  ck_assert_uint_eq(S->stepper.step, 30);
  ck_assert(ms__at(&h->x, 0)[0] == 0.09);
  ck_assert_uint_ge(S->stepper.frame_counts.stage2_steps, 1);
  st_close(S);
}
END_TEST

/* Stage 2 integrates again only the systems it could change: a third
 * system far from a head-on pair keeps its stage-1 result (no rewind, no
 * second integrate) in every step with a stage 2, and ends where it ends
 * alone, bitwise; the pair is integrated again every time. */
#define FAR_SYSTEM                                                        \
  " { name = \"c\"; solver = \"particles\"; radius = 0.1; mass = 1.0;\n" \
  "   shape = { type = \"points\"; points = ( [5.0, 0.0, 0.0] ); };\n"     \
  "   velocity = [0.25, 0.3, -0.1]; }"
START_TEST(stage_two_keeps_the_systems_it_leaves_out) {
  const char *head =
      "scene = { duration = 0.5; fps = 10.0; gravity = [0.0, 0.0, 0.0]; };\n"
      "coupling = { max_dt = 0.002; };\n";
  char both[2048], alone[1024];
  snprintf(both, sizeof both,
           "%ssystems = (\n"
           " { name = \"a\"; solver = \"particles\"; radius = 0.1;\n"
           "   shape = { type = \"points\"; points = ( [0.0, 0.0, 0.0] ); };\n"
           "   velocity = [1.5, 0.0, 0.0]; },\n"
           " { name = \"b\"; solver = \"particles\"; radius = 0.1;\n"
           "   shape = { type = \"points\"; points = ( [0.5, 0.0, 0.0] ); };\n"
           "   velocity = [-0.5, 0.0, 0.0]; },\n" FAR_SYSTEM " );\n",
           head);
  snprintf(alone, sizeof alone, "%ssystems = (\n" FAR_SYSTEM " );\n", head);
  ms_sim *S = st_open_text(both, 0), *A = st_open_text(alone, 0);
  ck_assert_int_eq(ms_sim_run(S), 0);
  ck_assert_int_eq(ms_sim_run(A), 0);
  uint64_t stage2 = S->run_counts.stage2_steps;
  ck_assert_uint_ge(stage2, 1);
  ck_assert_uint_eq(S->run_counts.steps, A->run_counts.steps);
  ck_assert_uint_eq(st_system(S, "c")->stage2_kept, stage2);
  ck_assert_uint_eq(st_system(S, "a")->stage2_kept, 0);
  ck_assert_uint_eq(st_system(S, "b")->stage2_kept, 0);
  const struct ms__system *c = st_system(S, "c"), *ca = st_system(A, "c");
  ck_assert(!memcmp(ms__at(&c->x, 0), ms__at(&ca->x, 0), 3 * sizeof(double)));
  ck_assert(!memcmp(ms__at(&c->v, 0), ms__at(&ca->v, 0), 3 * sizeof(double)));
  /* and the pair still collides: the elastic exchange of head_on */
  ck_assert(fabs(ms__at(&st_system(S, "a")->v, 0)[0] + 0.5) < 1e-12);
  st_close(S);
  st_close(A);
}
END_TEST
#undef FAR_SYSTEM

Suite *suite_core_scenes(void) {
  Suite *s = suite_create("core_scenes");
  TCase *tc = tcase_create("particles");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, rest_in_contact_1000_steps);
  tcase_add_test(tc, box_of_grains_comes_to_rest);
  tcase_add_test(tc, head_on_two_systems_exchange);
  tcase_add_test(tc, head_on_unequal_masses);
  tcase_add_test(tc, head_on_partial_restitution);
  tcase_add_test(tc, two_balls_conserve_momentum_and_energy);
  tcase_add_test(tc, same_result_for_threads_and_runs);
  tcase_add_test(tc, scale_refines_the_lattice);
  tcase_add_test(tc, nan_from_a_solver_stops_the_run);
  tcase_add_test(tc, view_without_radius_refused);
  tcase_add_test(tc, carried_into_contact_is_merged);
  tcase_add_test(tc, stage_two_keeps_the_systems_it_leaves_out);
  suite_add_tcase(s, tc);
  return s;
}
