/* The shipped scenes and contact through the core: nothing passes through
 * a cloth sheet, a folded cloth does not pass through itself. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mstest.h"
#include "suites.h"

static int finite_system(struct ms__system *y) {
  for (size_t i = 0; i < y->view.count; i++)
    for (int k = 0; k < 3; k++)
      if (!isfinite(mt_x(y, i)[k]) || !isfinite(mt_v(y, i)[k])) return 0;
  return 1;
}

/* Run a scene with a cloth sheet (nu x nv) and another system `other`
 * falling on it; count the particles of `other` that end on the far side
 * of the sheet.  Every particle starts on one side of the sheet's
 * interior and must end over the interior (none may leave the sheet). */
static void through_sheet(const char *scene, const char *cloth_name,
                          uint32_t nu, uint32_t nv, const char *other_name,
                          int64_t frames) {
  ms_sim *S = st_open_file(scene, 1, frames);
  struct ms__system *c = st_system(S, cloth_name);
  struct ms__system *o = st_system(S, other_name);
  ck_assert_uint_eq(c->view.count, (size_t)nu * nv);
  size_t n = o->view.count;
  int8_t *s0 = malloc(n), *s1 = malloc(n);
  mt_sides(c, nu, nv, o, s0);
  for (size_t p = 0; p < n; p++)
    ck_assert_msg(s0[p] != 0 && s0[p] == s0[0], "particle %zu does not "
                  "start on the same side of the sheet's interior", p);
  double low0 = INFINITY, low = INFINITY;
  for (size_t p = 0; p < n; p++) low0 = fmin(low0, mt_x(o, p)[1]);
  while (S->frame < S->frames_total) {
    ck_assert_msg(ms_sim_frame(S) == 0, "%s", ms_sim_error(S));
    ck_assert_msg(finite_system(c) && finite_system(o), "NaN at frame %lld",
                  (long long)S->frame);
  }
  mt_sides(c, nu, nv, o, s1);
  size_t through = 0, off = 0;
  for (size_t p = 0; p < n; p++) {
    through += s1[p] == -s0[p];
    off += s1[p] == 0;
    low = fmin(low, mt_x(o, p)[1]);
  }
  ck_assert_msg(through == 0, "%zu of %zu particles passed through the "
                "sheet", through, n);
  ck_assert_msg(off == 0, "%zu particles left the sheet", off);
  /* it was a real impact: contact happened and the sheet gave way */
  ck_assert_uint_gt(S->run_counts.members, 1000);
  double sheet_low = INFINITY;
  for (size_t q = 0; q < c->view.count; q++)
    sheet_low = fmin(sheet_low, mt_x(c, q)[1]);
  ck_assert_msg(sheet_low < 0.5 - 0.05, "the sheet did not sag (%.3f)",
                sheet_low);
  ck_assert(low < low0 - 0.1);
  free(s0), free(s1);
  st_close(S);
}

START_TEST(ball_on_cloth_no_penetration) {
  through_sheet("default.cfg", "cloth", 32, 32, "ball", 0);
}
END_TEST

START_TEST(soft_trampoline_no_penetration) {
  through_sheet("soft_trampoline.cfg", "trampoline", 32, 32, "ball", 0);
}
END_TEST

START_TEST(cloth_swing_runs) {
  ms_sim *S = st_open_file("cloth_swing.cfg", 1, 25);
  struct ms__system *c = st_system(S, "cloth");
  double low = INFINITY;
  while (S->frame < S->frames_total) {
    ck_assert_msg(ms_sim_frame(S) == 0, "%s", ms_sim_error(S));
    ck_assert(finite_system(c));
    for (size_t i = 0; i < c->view.count; i++)
      low = fmin(low, mt_x(c, i)[1]);
  }
  ck_assert_msg(low < 1.0, "the cloth did not swing down (lowest %.3f)",
                low);
  /* the two pinned corners stayed */
  ck_assert(mt_x(c, 0)[1] == 1.5 && mt_x(c, 23)[1] == 1.5);
  st_close(S);
}
END_TEST

/* A vertical cloth dropped on the floor crumples onto itself.  A particle
 * can only cross the sheet through the middle of a grid cell, at an
 * overlap of at least 1 - 1/sqrt(2) = 0.29 of the radius with the cell's
 * particles (radius = half the spacing); check every step that no
 * unconnected pair ever overlaps by 0.2 of a radius. */
START_TEST(folded_cloth_no_self_penetration) {
  ms_sim *S = mt_open(
      1,
      "scene = { duration = 1.2; fps = 20.0;\n"
      "  domain = { min = [-1.0, 0.0, -1.0]; max = [1.0, 2.0, 1.0]; }; };\n"
      "systems = ( { name = \"c\"; solver = \"mass_spring\";\n"
      "  cloth = { corner = [-0.3, 0.05, 0.0]; edge_u = [0.6, 0.0, 0.0];\n"
      "            edge_v = [0.0, 0.6, 0.1]; resolution = [16, 16]; };\n"
      "  density = 0.5; stiffness = 300.0; shear_stiffness = 100.0;\n"
      "  bend_stiffness = 0.5; damping = 0.1; mass_damping = 0.5;\n"
      "  wall_friction = 0.5; } );\n");
  struct ms__system *c = st_system(S, "c");
  double worst = 0.0, top0 = -INFINITY, top = -INFINITY;
  for (size_t i = 0; i < c->view.count; i++) top0 = fmax(top0, mt_x(c, i)[1]);
  uint64_t merged = 0;
  while (ms_sim_time(S) < 1.2 - 1e-9) {
    st_step(S);
    merged += S->stepper.metas.count;
    worst = fmax(worst, st_max_overlap(S));
    ck_assert(finite_system(c));
  }
  for (size_t i = 0; i < c->view.count; i++) top = fmax(top, mt_x(c, i)[1]);
  ck_assert_msg(worst < 0.2, "an unconnected pair overlapped by %.3f of the "
                "radius", worst);
  ck_assert_msg(top < 0.5 * top0, "the cloth did not fall onto itself (top "
                "%.3f, was %.3f)", top, top0);
  ck_assert_uint_gt(merged, 100); /* self-contact did happen */
  st_close(S);
}
END_TEST

/* Same scene with 1 and 2 threads: bitwise the same result. */
START_TEST(thread_count_independent) {
  double *x[2];
  size_t n = 0;
  for (int t = 1; t <= 2; t++) {
    ms_sim *S = st_open_file("default.cfg", t, 12);
    struct ms__system *c = st_system(S, "cloth");
    while (S->frame < S->frames_total)
      ck_assert_msg(ms_sim_frame(S) == 0, "%s", ms_sim_error(S));
    n = c->view.count;
    x[t - 1] = malloc(6 * n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
      memcpy(x[t - 1] + 6 * i, mt_x(c, i), 3 * sizeof(double));
      memcpy(x[t - 1] + 6 * i + 3, mt_v(c, i), 3 * sizeof(double));
    }
    st_close(S);
  }
  ck_assert_msg(!memcmp(x[0], x[1], 6 * n * sizeof(double)),
                "1 and 2 threads differ");
  free(x[0]), free(x[1]);
}
END_TEST

Suite *suite_scenes(void) {
  Suite *s = suite_create("scenes");
  TCase *tc = tcase_create("contact");
  tcase_set_timeout(tc, 170);
  tcase_add_test(tc, ball_on_cloth_no_penetration);
  tcase_add_test(tc, soft_trampoline_no_penetration);
  tcase_add_test(tc, cloth_swing_runs);
  tcase_add_test(tc, folded_cloth_no_self_penetration);
  tcase_add_test(tc, thread_count_independent);
  suite_add_tcase(s, tc);
  return s;
}
