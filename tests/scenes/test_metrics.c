/* Penetration metrics: a projectile against a rigid sheet and against a
 * block of grains, without coupling (it must be counted through/inside, or
 * through the block when it passes a gap of its lattice) and with
 * merging-and-splitting (it must not). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "suites.h"
#include "simtest.h"

/* A fixed 8x8 sheet in the plane y = 0 (fixture solver with a normal
 * field; particles at -0.14 .. 0.14 in x and z), with or without an edge
 * field, and one particle shot at it from y = 0.2 at (x, 0.02). */
static ms_sim *shot_scene(const char *method, double x, int edge) {
  char text[2048];
  snprintf(text, sizeof text,
           "scene = { duration = 0.4; fps = 20.0; gravity = [0.0, 0.0, 0.0]; };\n"
           "coupling = { method = \"%s\"; };\n"
           "systems = (\n"
           " { name = \"sheet\"; solver = \"fixture_good\"; count = 64;\n"
           "   spacing = 0.04; fixed = true; normal = [0.0, 1.0, 0.0];\n"
           "   edge = %s;\n"
           "   shape = { type = \"box\"; min = [-0.16, -0.02, -0.16];\n"
           "             max = [0.16, 0.02, 0.16]; }; },\n"
           " { name = \"shot\"; solver = \"particles\"; radius = 0.02; mass = 1.0;\n"
           "   shape = { type = \"points\"; points = ( [%.17g, 0.2, 0.02] ); };\n"
           "   velocity = [0.0, -2.0, 0.0]; } );\n",
           method, edge ? "true" : "false", x);
  return st_open_text(text, 1);
}

static ms_sim *sheet_scene(const char *method) {
  return shot_scene(method, 0.02, 0);
}

static struct ms_metrics run_metrics(ms_sim *S) {
  struct ms_metrics m = {.struct_size = sizeof m};
  ck_assert_int_eq(ms_sim_run(S), 0);
  ms_sim_metrics(S, &m);
  return m;
}

START_TEST(uncoupled_shot_goes_through_the_sheet) {
  setenv("MERGESPLIT_PLUGIN_PATH", getenv("MS_PLUGIN_AND_FIXTURES"), 1);
  ms_sim *S = sheet_scene("none");
  ck_assert_uint_eq(st_system(S, "sheet")->view.count, 64);
  struct ms_metrics m = run_metrics(S);
  ck_assert(ms__at(&st_system(S, "shot")->x, 0)[1] < -0.5); /* it flew on */
  ck_assert_uint_eq(m.through_sheet, 1);
  ck_assert_uint_eq(m.sheet_crossings, 1);
  ck_assert_uint_eq(m.penetrations, 1);
  st_close(S);
}
END_TEST

START_TEST(merge_split_shot_bounces_off_the_sheet) {
  setenv("MERGESPLIT_PLUGIN_PATH", getenv("MS_PLUGIN_AND_FIXTURES"), 1);
  ms_sim *S = sheet_scene("merge-split");
  struct ms_metrics m = run_metrics(S);
  const double *v = ms__at(&st_system(S, "shot")->v, 0);
  /* back up, never faster than it came (the pinned sheet particle has a
   * finite mass and keeps its share of the restored energy) */
  ck_assert_msg(v[1] > 0.5 && v[1] <= 2.0, "shot did not bounce back: vy = %g",
                v[1]);
  ck_assert_uint_eq(m.through_sheet, 0);
  ck_assert_uint_eq(m.sheet_crossings, 0);
  ck_assert_uint_eq(m.max_penetrations, 0);
  ck_assert_uint_ge(m.metas, 1);
  st_close(S);
}
END_TEST

/* A shot past the sheet's border (x = 0.17, 0.03 beyond the last column:
 * it touches the edge particles on its way down) changes side: a crossing
 * unless the sheet marks its edge.  Marked edges leave the crossing of the
 * interior counted. */
START_TEST(going_around_an_edge_is_no_crossing) {
  setenv("MERGESPLIT_PLUGIN_PATH", getenv("MS_PLUGIN_AND_FIXTURES"), 1);
  static const struct {
    double x;
    int edge;
    uint64_t crossings;
  } cases[] = {{0.17, 0, 1}, {0.17, 1, 0}, {0.02, 1, 1}};
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    ms_sim *S = shot_scene("none", cases[k].x, cases[k].edge);
    struct ms_metrics m = run_metrics(S);
    ck_assert(ms__at(&st_system(S, "shot")->x, 0)[1] < -0.5); /* flew on */
    ck_assert_msg(m.sheet_crossings == cases[k].crossings &&
                      m.through_sheet == cases[k].crossings,
                  "x = %g, edge %d: %llu crossings, %llu through", cases[k].x,
                  cases[k].edge, (unsigned long long)m.sheet_crossings,
                  (unsigned long long)m.through_sheet);
    st_close(S);
  }
}
END_TEST

/* The sheet of shot_scene with edges marked, in a box with a floor at
 * y = -0.3, and an uncoupled shot under gravity that bounces off the
 * walls with restitution e. */
static struct ms_metrics lob(const double x0[2], const double v0[2],
                             double e, double *apex) {
  char text[2048];
  snprintf(text, sizeof text,
           "scene = { duration = 0.75; fps = 100.0;\n"
           "  gravity = [0.0, -10.0, 0.0];\n"
           "  domain = { min = [-0.3, -0.3, -0.3]; max = [0.3, 0.5, 0.3]; }; };\n"
           "coupling = { method = \"none\"; };\n"
           "systems = (\n"
           " { name = \"sheet\"; solver = \"fixture_good\"; count = 64;\n"
           "   spacing = 0.04; fixed = true; normal = [0.0, 1.0, 0.0];\n"
           "   edge = true;\n"
           "   shape = { type = \"box\"; min = [-0.16, -0.02, -0.16];\n"
           "             max = [0.16, 0.02, 0.16]; }; },\n"
           " { name = \"shot\"; solver = \"particles\"; radius = 0.02;\n"
           "   mass = 1.0; wall_restitution = %#.17g;\n"
           "   shape = { type = \"points\"; points = ( [%#.17g, %#.17g, 0.02] ); };\n"
           "   velocity = [%#.17g, %#.17g, 0.0]; } );\n",
           e, x0[0], x0[1], v0[0], v0[1]);
  ms_sim *S = st_open_text(text, 1);
  struct ms__system *shot = st_system(S, "shot");
  int rising = 0;
  *apex = -INFINITY; /* highest frame after the first floor bounce */
  while (S->frame < S->frames_total) {
    ck_assert_int_eq(ms_sim_frame(S), 0);
    const double *x = ms__at(&shot->x, 0), *v = ms__at(&shot->v, 0);
    if (x[1] < -0.25 && v[1] > 0.0) rising = 1;
    if (rising) *apex = fmax(*apex, x[1]);
  }
  struct ms_metrics m = {.struct_size = sizeof m};
  ms_sim_metrics(S, &m);
  st_close(S);
  return m;
}

/* A shot that touches the sheet from above, flies over its edge out of
 * contact distance, bounces off the wall and the floor and rises to just
 * under the sheet's middle went round the sheet: no crossing.  A shot
 * that went through the sheet and comes back up under it after the same
 * absence stays through.  (Both rise to about 0.02-0.03 below the sheet:
 * within contact distance, on the other side than they first touched.) */
START_TEST(coming_back_from_below_is_no_crossing) {
  setenv("MERGESPLIT_PLUGIN_PATH", getenv("MS_PLUGIN_AND_FIXTURES"), 1);
  double apex;
  struct ms_metrics m =
      lob((double[2]){0.06, 0.03}, (double[2]){1.0, 1.0}, 0.858, &apex);
  ck_assert_msg(apex > -0.035 && apex < -0.015, "round: apex %g", apex);
  ck_assert_msg(m.sheet_crossings == 0 && m.through_sheet == 0,
                "round: %llu crossings, %llu through",
                (unsigned long long)m.sheet_crossings,
                (unsigned long long)m.through_sheet);
  m = lob((double[2]){0.02, 0.2}, (double[2]){0.0, -2.0}, 0.62, &apex);
  ck_assert_msg(apex > -0.035 && apex < -0.015, "through: apex %g", apex);
  ck_assert_msg(m.sheet_crossings == 1 && m.through_sheet == 1,
                "through: %llu crossings, %llu through",
                (unsigned long long)m.sheet_crossings,
                (unsigned long long)m.through_sheet);
}
END_TEST

/* A block of grains (a solid: it collides with itself), 5x5x5 (spacing
 * 0.04, radius 0.02; layers at -0.08 .. 0.08), and a grain shot down at
 * it along x = z = `at`, into a column of grains (0) or the middle of a
 * gap of the lattice (0.02: 1.41 r from the four grains about it, so its
 * centre never comes within a grain's radius; only the volume sees it). */
static const char *gap_text(char *text, size_t len, const char *method,
                            double at) {
  snprintf(text, len,
           "scene = { duration = 0.3; fps = 20.0; gravity = [0.0, 0.0, 0.0]; };\n"
           "coupling = { method = \"%s\"; n_min = 0; n_max = 0; };\n"
           "systems = (\n"
           " { name = \"block\"; solver = \"particles\"; spacing = 0.04;\n"
           "   shape = { type = \"box\"; min = [-0.1, -0.1, -0.1];\n"
           "             max = [0.1, 0.1, 0.1]; }; },\n"
           " { name = \"grain\"; solver = \"particles\"; radius = 0.02;\n"
           "   shape = { type = \"points\"; points = ( [%.6f, 0.3, %.6f] ); };\n"
           "   velocity = [0.0, -3.0, 0.0]; } );\n",
           method, at, at);
  return text;
}

static struct ms_metrics gap_shot(const char *method, double at, double *y) {
  char text[2048];
  ms_sim *S = st_open_text(gap_text(text, sizeof text, method, at), 1);
  struct ms_metrics m = run_metrics(S);
  *y = ms__at(&st_system(S, "grain")->x, 0)[1];
  st_close(S);
  return m;
}

START_TEST(uncoupled_grain_sinks_into_the_block) {
  double y;
  struct ms_metrics m = gap_shot("none", 0.0, &y);
  ck_assert_uint_ge(m.max_penetrations, 1);
}
END_TEST

START_TEST(merge_split_grain_stays_out_of_the_block) {
  double y;
  struct ms_metrics m = gap_shot("merge-split", 0.0, &y);
  ck_assert_uint_eq(m.max_penetrations, 0);
  ck_assert_uint_eq(m.penetrations, 0);
}
END_TEST

/* Through a gap, the radius test sees nothing and the volume a passage.
 * Straight down a column of the lattice, the grain is inside the grains on
 * its way and through the block after it; and each of the column's five
 * grains passed through the grain (a one-grain solid) the other way: 6. */
START_TEST(uncoupled_grain_passes_through_the_block) {
  static const struct {
    double at;
    unsigned through, most;
  } c[] = {{0.02, 1, 1}, {0.0, 6, 6}};
  for (int i = 0; i < 2; i++) {
    double y;
    struct ms_metrics m = gap_shot("none", c[i].at, &y);
    ck_assert_msg(y < -0.5, "the grain stopped at y = %g", y);
    ck_assert_msg(m.through_solid == c[i].through && m.inside_solid == 0 &&
                      m.penetrations == c[i].through &&
                      m.max_penetrations == c[i].most,
                  "at %g: %llu through, %llu inside, %llu, at most %llu",
                  c[i].at, (unsigned long long)m.through_solid,
                  (unsigned long long)m.inside_solid,
                  (unsigned long long)m.penetrations,
                  (unsigned long long)m.max_penetrations);
  }
}
END_TEST

START_TEST(merge_split_grain_does_not_pass_the_gap) {
  double y;
  struct ms_metrics m = gap_shot("merge-split", 0.02, &y);
  ck_assert_msg(y > 0.1, "the grain did not bounce: y = %g", y);
  ck_assert_uint_eq(m.through_solid, 0);
  ck_assert_uint_eq(m.max_penetrations, 0);
}
END_TEST

/* Into the gaps and back out of the same face is no passage: a fixed
 * 4x4x4 block (layers at -0.06 .. 0.06, a gap at x = z = 0) and gravity
 * upward, so a grain thrown down at 1.5 m/s from y = 0.13 turns at
 * y = 0.0175 (past two layers) and leaves upward; at 3 m/s it turns at
 * y = -0.32, below the block, and in 0.6 s comes back up through it: the
 * passage stands (it went through the solid, twice).  While in the gaps
 * it is inside the solid (on its way back, with its passage: 2). */
START_TEST(back_out_of_the_gaps_is_no_passage) {
  setenv("MERGESPLIT_PLUGIN_PATH", getenv("MS_PLUGIN_AND_FIXTURES"), 1);
  static const struct {
    double vy, duration, y;
    unsigned through, most;
  } c[] = {{-1.5, 0.3, 0.13, 0, 1}, {-3.0, 0.3, -0.32, 1, 1},
           {-3.0, 0.6, 0.13, 1, 2}};
  for (int i = 0; i < 3; i++) {
    char text[2048];
    snprintf(text, sizeof text,
             "scene = { duration = %.6f; fps = 20.0; gravity = [0.0, 10.0, 0.0]; };\n"
             "coupling = { method = \"none\"; };\n"
             "systems = (\n"
             " { name = \"block\"; solver = \"fixture_good\"; count = 64;\n"
             "   spacing = 0.04; fixed = true; self_collision = true;\n"
             "   shape = { type = \"box\"; min = [-0.08, -0.08, -0.08];\n"
             "             max = [0.08, 0.08, 0.08]; }; },\n"
             " { name = \"grain\"; solver = \"particles\"; radius = 0.02;\n"
             "   shape = { type = \"points\"; points = ( [0.0, 0.13, 0.0] ); };\n"
             "   velocity = [0.0, %.6f, 0.0]; } );\n",
             c[i].duration, c[i].vy);
    ms_sim *S = st_open_text(text, 1);
    struct ms_metrics m = run_metrics(S);
    const double *x = ms__at(&st_system(S, "grain")->x, 0);
    ck_assert_msg(fabs(x[1] - c[i].y) < 0.05, "grain at y = %g, not %g", x[1],
                  c[i].y);
    /* in the gaps, it counted as inside the solid then */
    ck_assert_msg(m.through_solid == c[i].through && m.inside_solid == 0 &&
                      m.max_penetrations == c[i].most,
                  "vy %g for %g s: %llu through, %llu inside, at most %llu",
                  c[i].vy, c[i].duration, (unsigned long long)m.through_solid,
                  (unsigned long long)m.inside_solid,
                  (unsigned long long)m.max_penetrations);
    st_close(S);
  }
}
END_TEST

/* A checkpoint taken while the grain is in the gaps (frame 2: y = 0) keeps
 * the side it came in by: the resumed run counts the passage too. */
START_TEST(resume_keeps_a_passage_under_way) {
  char text[2048];
  ms_sim *A, *C;
  st_resume_pair(gap_text(text, sizeof text, "none", 0.02), 2, &A, &C);
  struct ms_metrics a = {.struct_size = sizeof a}, c = {.struct_size = sizeof c};
  ms_sim_metrics(A, &a);
  ms_sim_metrics(C, &c);
  ck_assert_uint_eq(a.through_solid, 1);
  ck_assert_uint_eq(c.through_solid, 1);
  ck_assert_uint_eq(c.max_penetrations, a.max_penetrations);
  st_close(A);
  st_close(C);
}
END_TEST

Suite *suite_metrics(void) {
  Suite *s = suite_create("metrics");
  TCase *tc = tcase_create("penetration");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, uncoupled_shot_goes_through_the_sheet);
  tcase_add_test(tc, merge_split_shot_bounces_off_the_sheet);
  tcase_add_test(tc, going_around_an_edge_is_no_crossing);
  tcase_add_test(tc, coming_back_from_below_is_no_crossing);
  tcase_add_test(tc, uncoupled_grain_sinks_into_the_block);
  tcase_add_test(tc, merge_split_grain_stays_out_of_the_block);
  tcase_add_test(tc, uncoupled_grain_passes_through_the_block);
  tcase_add_test(tc, merge_split_grain_does_not_pass_the_gap);
  tcase_add_test(tc, back_out_of_the_gaps_is_no_passage);
  tcase_add_test(tc, resume_keeps_a_passage_under_way);
  suite_add_tcase(s, tc);
  return s;
}
