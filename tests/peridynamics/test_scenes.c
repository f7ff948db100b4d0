/* The shipped scenes: a brittle wall broken by a heavy ball (paper Figs.
 * 5-6) and an unbreakable ball dropped on a cloth (paper Fig. 3). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "pdtest.h"

static int finite_system(struct ms__system *y) {
  for (size_t i = 0; i < y->view.count; i++)
    for (int k = 0; k < 3; k++)
      if (!isfinite(ms__at(&y->x, i)[k]) || !isfinite(ms__at(&y->v, i)[k]))
        return 0;
  return 1;
}

static double damage_of(struct ms__system *y, size_t i) {
  const struct ms_field *f = pdt_field(y, "damage");
  ck_assert_ptr_nonnull(f);
  return *(const double *)((const char *)f->data + i * f->stride);
}

/* Deepest overlap (r_b + r_w - |x_b - x_w|) / min(r) of a ball particle
 * with a wall particle that has lost less than half its bonds. */
static double overlap_with_intact(struct ms__system *ball,
                                  struct ms__system *wall) {
  double worst = 0.0;
  for (size_t w = 0; w < wall->view.count; w++) {
    if (damage_of(wall, w) >= 0.5) continue;
    const double *xw = ms__at(&wall->x, w);
    double rw = *ms__at(&wall->r, w);
    for (size_t b = 0; b < ball->view.count; b++) {
      const double *xb = ms__at(&ball->x, b);
      double rb = *ms__at(&ball->r, b), d = 0.0;
      for (int a = 0; a < 3; a++) d += (xb[a] - xw[a]) * (xb[a] - xw[a]);
      worst = fmax(worst, (rb + rw - sqrt(d)) / fmin(rb, rw));
    }
  }
  return worst;
}

/* 0.06 s: the ball (r 0.05, 10 m/s, 20x heavier particles) goes through
 * the wall (0.4 x 0.4 x 0.08) and leaves a crater. */
START_TEST(brittle_wall_breaks_where_hit) {
  ms_sim *S = st_open_file("paper/fig05_brittle_wall.cfg", 1, 6);
  struct ms__system *wall = st_system(S, "wall");
  struct ms__system *ball = st_system(S, "ball");
  size_t nw = wall->view.count, nb = ball->view.count;
  double *w0 = malloc(3 * nw * sizeof *w0);
  for (size_t i = 0; i < nw; i++)
    memcpy(w0 + 3 * i, ms__at(&wall->x, i), 3 * sizeof *w0);
  double worst = 0.0;
  uint64_t metas = 0;
  while (S->frame < S->frames_total) {
    double t_end = (double)(S->frame + 1) / S->scene.fps;
    while (t_end - S->stepper.time > 1e-9 / S->scene.fps) {
      st_step(S);
      metas += S->stepper.metas.count;
      ck_assert_msg(finite_system(wall) && finite_system(ball),
                    "NaN at t = %g", S->stepper.time);
      worst = fmax(worst, overlap_with_intact(ball, wall));
    }
    S->frame++;
  }
  /* impact region: wall particles within the ball's radius of its path */
  double dsum = 0.0, all = 0.0;
  size_t k = 0;
  for (size_t i = 0; i < nw; i++) {
    all += damage_of(wall, i);
    if (hypot(w0[3 * i], w0[3 * i + 1] - 0.2) >= 0.05) continue;
    dsum += damage_of(wall, i);
    k++;
  }
  double zmax = -INFINITY;
  for (size_t b = 0; b < nb; b++) zmax = fmax(zmax, ms__at(&ball->x, b)[2]);
  fprintf(stderr, "# wall: impact damage %.3f over %zu particles, wall "
          "%.3f; deepest overlap with intact wall %.3f r; ball's rearmost "
          "particle at z = %.3f; %llu meta-particles\n", dsum / (double)k, k,
          all / (double)nw, worst, zmax, (unsigned long long)metas);
  ck_assert_uint_gt(k, 20);
  ck_assert_msg(dsum / (double)k > 0.5, "impact damage %.3f",
                dsum / (double)k);
  /* nothing of the ball went through intact wall: passing between intact
   * particles would take an overlap of about 0.6 of a radius */
  ck_assert_msg(worst < 0.5, "a ball particle overlapped intact wall by "
                "%.3f of a radius", worst);
  ck_assert_uint_gt(metas, 1000); /* the contact went through merging */
  ck_assert_msg(zmax < -0.04, "the ball did not get through (z %.3f)", zmax);
  ck_assert(all / (double)nw < 0.6); /* a crater, not dust */
  free(w0);
  st_close(S);
}
END_TEST

static void ball_on_cloth(const char *scene) {
  ms_sim *S = st_open_file(scene, 1, 0);
  struct ms__system *cloth = st_system(S, "cloth");
  struct ms__system *ball = st_system(S, "ball");
  size_t n = ball->view.count;
  int8_t *side = malloc(n);
  pdt_cloth_sides(cloth, 32, 32, ball, side);
  for (size_t p = 0; p < n; p++) ck_assert_int_eq(side[p], 1);
  double low = INFINITY;
  while (S->frame < S->frames_total) {
    ck_assert_msg(ms_sim_frame(S) == 0, "%s", ms_sim_error(S));
    ck_assert_msg(finite_system(cloth) && finite_system(ball),
                  "NaN at frame %lld", (long long)S->frame);
    pdt_cloth_sides(cloth, 32, 32, ball, side);
    for (size_t p = 0; p < n; p++)
      ck_assert_msg(side[p] == 1, "frame %lld: ball particle %zu is %s the "
                    "sheet", (long long)S->frame, p,
                    side[p] < 0 ? "below" : "beyond the edge of");
    for (size_t p = 0; p < n; p++) low = fmin(low, ms__at(&ball->x, p)[1]);
  }
  double sheet = INFINITY;
  for (size_t q = 0; q < cloth->view.count; q++)
    sheet = fmin(sheet, ms__at(&cloth->x, q)[1]);
  fprintf(stderr, "# %s: %zu ball particles stayed above; sheet sagged to "
          "%.3f, ball's lowest point %.3f\n", scene, n, sheet, low);
  ck_assert_uint_gt(S->run_counts.metas, 100); /* there was contact */
  ck_assert(sheet < 0.45);                     /* the sheet gave way */
  ck_assert(low < 0.5);                        /* ... under the ball */
  free(side);
  st_close(S);
}

START_TEST(ball_on_cloth_low) { ball_on_cloth("paper/fig03_ball_on_cloth_low.cfg"); }
END_TEST

START_TEST(ball_on_cloth_high) { ball_on_cloth("paper/fig03_ball_on_cloth_high.cfg"); }
END_TEST

Suite *suite_scenes(void) {
  Suite *s = suite_create("scenes");
  TCase *wall = tcase_create("wall"), *low = tcase_create("cloth_low");
  TCase *high = tcase_create("cloth_high");
  tcase_set_timeout(wall, 300);
  tcase_set_timeout(low, 300);
  tcase_set_timeout(high, 300);
  tcase_add_test(wall, brittle_wall_breaks_where_hit);
  tcase_add_test(low, ball_on_cloth_low);
  tcase_add_test(high, ball_on_cloth_high);
  suite_add_tcase(s, wall);
  suite_add_tcase(s, low);
  suite_add_tcase(s, high);
  return s;
}
