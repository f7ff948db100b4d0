/* The paper's experiments (configs/paper/), at a small scale: what the
 * paper claims, measured.  Merging-and-splitting keeps every scene free of
 * penetrations and finite; the baselines fail the way Sec. 6.1 says they
 * do.  (Fig. 11's size-limit claims are measured by the benchmark script,
 * tests/bench/paper_table.py: the effect needs the whole run.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simtest.h"

Suite *suite_paper(void);

struct outcome {
  int rc;
  char err[512];
  struct ms_metrics m;
};

static void quiet(void *o, int level, const char *line) {
  (void)o, (void)level, (void)line;
}

/* Run configs/paper/FILE with `method` (NULL: the scene's) at `scale`
 * for `frames` frames (0: the whole scene). */
static void run(const char *file, const char *method, double stiffness,
                double scale, int64_t frames, struct outcome *out) {
  char path[4096];
  snprintf(path, sizeof path, "%s/paper/%s", getenv("MS_CONFIGS"), file);
  struct ms_sim_options o = {.struct_size = sizeof o, .no_output = 1,
                             .verbosity = MS_SINK_ERROR, .log = quiet,
                             .threads = 2, .frames = frames,
                             .method = method, .stiffness_scale = stiffness,
                             .scale = scale};
  ms_sim *S;
  memset(out, 0, sizeof *out);
  out->m.struct_size = sizeof out->m;
  out->rc = ms_sim_open(path, &o, &S, out->err, sizeof out->err);
  ck_assert_msg(out->rc == 0, "%s: %s", file, out->err);
  out->rc = ms_sim_run(S);
  if (out->rc) snprintf(out->err, sizeof out->err, "%s", ms_sim_error(S));
  ck_assert_int_eq(ms_sim_metrics(S, &out->m), 0);
  ms_sim_close(S);
  fprintf(stderr, "# %-32s %-15s %5llu steps, penetrations %llu (max %llu, "
          "through %llu, inside %llu), max speed %.3g m/s, metas %.2f "
          "(max %llu)%s%s\n", file, method ? method : "merge-split",
          (unsigned long long)out->m.steps,
          (unsigned long long)out->m.penetrations,
          (unsigned long long)out->m.max_penetrations,
          (unsigned long long)out->m.through_sheet,
          (unsigned long long)out->m.inside_solid, out->m.max_speed,
          out->m.meta_size_mean, (unsigned long long)out->m.meta_size_max,
          out->rc ? ", failed: " : "", out->rc ? out->err : "");
}

/* Every scene, at half its particles and over the frames of its impact
 * (the benchmark script runs them whole, at scale 1 and up). */
static const struct {
  const char *file;
  double scale;
  int64_t frames;
} scenes[] = {
    {"fig03_ball_on_cloth_low.cfg", 0.5, 15},
    {"fig03_ball_on_cloth_high.cfg", 0.5, 20},
    {"fig04_column_on_cloth.cfg", 0.5, 12},
    {"fig05_brittle_wall.cfg", 0.5, 10},
    {"fig07_mass_ratio_1.cfg", 0.5, 15},
    {"fig07_mass_ratio_10.cfg", 0.5, 15},
    {"fig07_mass_ratio_100.cfg", 0.5, 15},
    {"fig08_cloth_tori.cfg", 0.5, 12},
    {"fig08_dam_break_wall.cfg", 0.5, 15},
    {"fig08_bowl_into_water.cfg", 0.5, 12},
    {"fig09_flip_cloth.cfg", 0.5, 15},
    {"fig09_flip_wall.cfg", 0.5, 20},
    {"fig10a_alpha0_beta0.cfg", 0.5, 12},
    {"fig10b_alpha1_beta0.cfg", 0.5, 12},
    {"fig10c_alpha1_beta1.cfg", 0.5, 12},
    {"fig11_nmin_nmax_unlimited.cfg", 0.5, 15},
    {"fig11_nmin_nmax_32_64.cfg", 0.5, 15},
    {"fig11_nmin_nmax_16_32.cfg", 0.5, 15},
    {"fig11_nmin_nmax_8_16.cfg", 0.5, 15},
    {"fig11_nmin_nmax_8_64.cfg", 0.5, 15},
};
#define NSCENES ((int)(sizeof scenes / sizeof *scenes))

START_TEST(merge_split_never_penetrates) {
  struct outcome r;
  run(scenes[_i].file, NULL, 0.0, scenes[_i].scale, scenes[_i].frames, &r);
  ck_assert_msg(r.rc == 0, "%s: %s", scenes[_i].file, r.err);
  ck_assert_msg(isfinite(r.m.max_speed), "%s: max speed %g", scenes[_i].file,
                r.m.max_speed);
  ck_assert_msg(r.m.max_penetrations == 0 && r.m.sheet_crossings == 0,
                "%s: %llu penetrations at worst, %llu sheet crossings",
                scenes[_i].file,
                (unsigned long long)r.m.max_penetrations,
                (unsigned long long)r.m.sheet_crossings);
}
END_TEST

/* Sec. 6.1, Figs. 3 and 4: weak penalty forces and impulses let particles
 * through; merging-and-splitting does not. */
static const struct {
  const char *file;
  int64_t frames; /* through the impact */
} contact_scenes[] = {{"fig03_ball_on_cloth_low.cfg", 15},
                      {"fig03_ball_on_cloth_high.cfg", 20},
                      {"fig04_column_on_cloth.cfg", 12}};

START_TEST(weak_forces_and_impulses_penetrate) {
  const char *f = contact_scenes[_i].file;
  int64_t n = contact_scenes[_i].frames;
  struct outcome weak, imp, ms;
  run(f, "penalty", 0.1, 1.0, n, &weak);
  run(f, "impulse", 0.0, 1.0, n, &imp);
  run(f, NULL, 0.0, 1.0, n, &ms);
  ck_assert_msg(ms.rc == 0 && ms.m.max_penetrations == 0, "%s: "
                "merge-split let %llu through", f,
                (unsigned long long)ms.m.max_penetrations);
  ck_assert_msg(weak.m.max_penetrations > 0, "%s: weak penalty kept every "
                "particle out", f);
  ck_assert_msg(imp.m.max_penetrations > 0, "%s: impulses kept every "
                "particle out", f);
}
END_TEST

/* Fig. 3: a penalty stiff enough for one impact is unstable for another:
 * the strong penalty blows up (NaN, or speeds above 10x the impact
 * speed) for at least one of the two drop heights. */
START_TEST(strong_penalty_is_unstable) {
  static const struct {
    const char *file;
    double drop; /* from the ball's lowest point to the sheet [m] */
    int64_t frames;
  } h[] = {{"fig03_ball_on_cloth_low.cfg", 0.2, 15},
           {"fig03_ball_on_cloth_high.cfg", 0.8, 20}};
  int unstable = 0;
  for (int k = 0; k < 2; k++) {
    struct outcome r;
    run(h[k].file, "penalty", 10.0, 1.0, h[k].frames, &r);
    double impact = sqrt(2.0 * 9.81 * h[k].drop);
    unstable += r.rc != 0 || !(r.m.max_speed <= 10.0 * impact);
  }
  ck_assert_msg(unstable >= 1, "strong penalty stayed stable at both "
                "heights");
}
END_TEST

Suite *suite_paper(void) {
  Suite *s = suite_create("paper");
  TCase *tc = tcase_create("merge_split");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, merge_split_never_penetrates, 0, NSCENES);
  suite_add_tcase(s, tc);
  tc = tcase_create("baselines");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, weak_forces_and_impulses_penetrate, 0,
                      (int)(sizeof contact_scenes / sizeof *contact_scenes));
  tcase_add_test(tc, strong_penalty_is_unstable);
  suite_add_tcase(s, tc);
  return s;
}
