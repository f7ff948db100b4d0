/* Heat between systems (plugin ABI 1.3, doc/heat.md) on the fixture that
 * carries heat and has no conduction of its own: a touching pair follows
 * the closed form exactly, heat is kept, nothing flows inside a system or
 * without a conductance, and bad input gets one line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simtest.h"

#include "../../core/step/step.h"

Suite *suite_heat(void);

static double temp(const struct ms__system *y, size_t i) {
  return *ms__at(&y->T, i);
}

/* Sum of m c T over every heat-carrying system. */
static double heat(ms_sim *S) {
  double q = 0.0;
  for (uint32_t s = 0; s < S->nsys; s++) q += ms__heat_of(&S->sys[s]);
  return q;
}

/* Two single particles of two systems, 0.09 m apart (radii 0.05: in
 * contact), at rest in zero gravity: masses 1 kg (count 1), specific heats
 * 1000 and 3000 J/(kg K), at 273.15 and 373.15 K. */
#define B_HEAT "temperature = 373.15; specific_heat = 3000.0;"
#define PAIR_SCENE(conductance, name_b, keys_b)                             \
  "scene = { duration = 1.0; fps = 10.0; gravity = [0.0, 0.0, 0.0]; };\n"  \
  "coupling = { max_dt = 0.01; " conductance " };\n"                       \
  "systems = ( { name = \"a\"; solver = \"fixture_heat\"; count = 1;\n"    \
  "  position = [0.0, 0.0, 0.0]; temperature = 273.15;\n"                  \
  "  specific_heat = 1000.0; },\n"                                         \
  "  { name = \"b\"; solver = \"" name_b "\"; count = 1;\n"                \
  "  position = [0.09, 0.0, 0.0]; " keys_b " } );\n"

START_TEST(touching_pair_follows_the_closed_form) {
  ms_sim *S =
      st_open_fixture_text(PAIR_SCENE("conductance = 1500.0;", "fixture_heat", B_HEAT));
  struct ms__system *a = st_system(S, "a"), *b = st_system(S, "b");
  const double Ca = 1000.0, Cb = 3000.0, G = 1500.0, d0 = 100.0;
  const double rate = G * (1.0 / Ca + 1.0 / Cb);
  double q0 = heat(S), worst = 0.0, drift = 0.0;
  int steps = 0;
  while (S->stepper.time < 1.0 - 1e-12) {
    st_step(S);
    steps++;
    /* the exchange of a step lands before the next begin_step: after n
     * steps it has acted n times, over the time the clock shows */
    double d = temp(b, 0) - temp(a, 0);
    double want = d0 * exp(-rate * S->stepper.time);
    worst = fmax(worst, fabs(d - want) / d0);
    drift = fmax(drift, fabs(heat(S) - q0) / q0);
  }
  double mean = (Ca * 273.15 + Cb * 373.15) / (Ca + Cb);
  fprintf(stderr, "# pair: %d steps, T_a %.9f K, T_b %.9f K (mean %.9f), "
          "largest |dT - closed form| / dT0 %.3g, heat drift %.3g\n", steps,
          temp(a, 0), temp(b, 0), mean, worst, drift);
  ck_assert_int_eq(steps, 100);
  /* each step solves the pair alone exactly: only rounding separates the
   * course from d0 exp(-G (1/Ca + 1/Cb) t) */
  ck_assert_double_le(worst, 1e-12);
  ck_assert_double_le(drift, 1e-14);
  /* the hotter cooled, the colder warmed, toward the C-weighted mean */
  ck_assert_double_lt(temp(a, 0), mean);
  ck_assert_double_gt(temp(b, 0), mean);
  ck_assert_double_gt(temp(a, 0), 273.15 + 40.0);
  st_close(S);
}
END_TEST

/* coupling.heat_reach: two particles 0.12 m apart (a gap of 0.02 m
 * between their surfaces) exchange nothing with reach 0 or 0.015 m, and
 * follow the closed form of a touching pair exactly with reach 0.03 m. */
START_TEST(pair_within_reach_follows_the_closed_form) {
  const double reach[3] = {0.0, 0.015, 0.03};
  for (int c = 0; c < 3; c++) {
    char text[1024];
    snprintf(text, sizeof text,
             "scene = { duration = 1.0; fps = 10.0;\n"
             "  gravity = [0.0, 0.0, 0.0]; };\n"
             "coupling = { max_dt = 0.01; conductance = 1500.0;\n"
             "  heat_reach = %g; };\n"
             "systems = ( { name = \"a\"; solver = \"fixture_heat\";\n"
             "  count = 1; position = [0.0, 0.0, 0.0];\n"
             "  temperature = 273.15; specific_heat = 1000.0; },\n"
             "  { name = \"b\"; solver = \"fixture_heat\"; count = 1;\n"
             "  position = [0.12, 0.0, 0.0]; " B_HEAT " } );\n",
             reach[c]);
    ms_sim *S = st_open_fixture_text(text);
    struct ms__system *a = st_system(S, "a"), *b = st_system(S, "b");
    const double rate = 1500.0 * (1.0 / 1000.0 + 1.0 / 3000.0);
    double worst = 0.0;
    while (S->stepper.time < 1.0 - 1e-12) {
      st_step(S);
      double d = temp(b, 0) - temp(a, 0);
      double want = c < 2 ? 100.0 : 100.0 * exp(-rate * S->stepper.time);
      worst = fmax(worst, fabs(d - want) / 100.0);
    }
    fprintf(stderr, "# heat_reach %g m across a 0.02 m gap: |dT - closed "
            "form| / dT0 <= %.3g (T_a %.6f K)\n", reach[c], worst,
            temp(a, 0));
    ck_assert_double_le(worst, 1e-12);
    st_close(S);
  }
}
END_TEST

/* A conductance far beyond what an explicit step could take: the pair
 * meets at the C-weighted mean in one step and stays there. */
START_TEST(stiff_contact_meets_at_the_mean) {
  ms_sim *S = st_open_fixture_text(PAIR_SCENE("conductance = 1e12;", "fixture_heat",
                                 B_HEAT));
  struct ms__system *a = st_system(S, "a"), *b = st_system(S, "b");
  double mean = (1000.0 * 273.15 + 3000.0 * 373.15) / 4000.0;
  for (int k = 0; k < 5; k++) {
    st_step(S);
    ck_assert_double_eq_tol(temp(a, 0), mean, 1e-9);
    ck_assert_double_eq_tol(temp(b, 0), mean, 1e-9);
  }
  st_close(S);
}
END_TEST

/* No conductance: no heat moves; a system that does not carry heat (the
 * plain good fixture) takes none. */
START_TEST(no_flow_without_conductance_or_a_partner) {
  const char *texts[2] = {PAIR_SCENE("", "fixture_heat", B_HEAT),
                          PAIR_SCENE("conductance = 2.0;", "fixture_good", "")};
  for (int t = 0; t < 2; t++) {
    ms_sim *S = st_open_fixture_text(texts[t]);
    struct ms__system *a = st_system(S, "a");
    double ta = temp(a, 0);
    for (int k = 0; k < 20; k++) st_step(S);
    ck_assert_msg(temp(a, 0) == ta, "scene %d: T_a moved to %.17g", t,
                  temp(a, 0));
    st_close(S);
  }
}
END_TEST

/* One particle (C = 1 kg x 1000 J/(kg K)) inside a heat source box:
 * it relaxes toward the source's temperature as the closed form says, and
 * the heat the report counts as injected is the heat it gained. */
#define SOURCE_SCENE(rate)                                                  \
  "scene = { duration = 1.0; fps = 10.0; gravity = [0.0, 0.0, 0.0];\n"     \
  "  heat_sources = ( { min = [-0.5, -0.5, -0.5]; max = [0.5, 0.5, 0.5];\n" \
  "    temperature = 400.0; " rate " } ); };\n"                            \
  "coupling = { max_dt = 0.01; };\n"                                        \
  "systems = ( { name = \"a\"; solver = \"fixture_heat\"; count = 1;\n"     \
  "  temperature = 300.0; specific_heat = 1000.0; },\n"                    \
  "  { name = \"far\"; solver = \"fixture_heat\"; count = 1;\n"            \
  "  position = [2.0, 0.0, 0.0]; temperature = 300.0; } );\n"

START_TEST(source_relaxes_as_the_closed_form) {
  ms_sim *S = st_open_fixture_text(SOURCE_SCENE("rate = 2.0;"));
  struct ms__system *a = st_system(S, "a"), *far = st_system(S, "far");
  double worst = 0.0, books = 0.0;
  while (S->stepper.time < 1.0 - 1e-12) {
    st_step(S);
    double want = 400.0 - 100.0 * exp(-2.0 * S->stepper.time);
    worst = fmax(worst, fabs(temp(a, 0) - want) / 100.0);
    double gained = 1000.0 * (temp(a, 0) - 300.0);
    books = fmax(books, fabs(S->stepper.frame_counts.heat_injected - gained) /
                            1e5);
  }
  fprintf(stderr, "# source: T %.9f K at 1 s, |T - closed form| / 100 K "
          "%.3g, |injected - gained| / 1e5 J %.3g\n", temp(a, 0), worst,
          books);
  ck_assert_double_le(worst, 1e-12);
  ck_assert_double_le(books, 1e-12);
  ck_assert(temp(far, 0) == 300.0); /* outside the box: untouched */
  st_close(S);
  /* without a rate the source holds its temperature */
  S = st_open_fixture_text(SOURCE_SCENE(""));
  a = st_system(S, "a");
  st_step(S);
  ck_assert(temp(a, 0) == 400.0);
  st_close(S);
}
END_TEST

static void expect_error(const char *text, const char *what) {
  char err[1024];
  ms_sim *S;
  int rc = st_try_fixture_text(text, &S, err, sizeof err);
  if (rc == 0) {
    /* a view is checked when the systems exist; a frame reports the rest */
    rc = ms_sim_frame(S);
    if (rc) snprintf(err, sizeof err, "%s", ms_sim_error(S));
    ms_sim_close(S);
  }
  ck_assert_msg(rc != 0, "accepted: %s", text);
  ck_assert_msg(strstr(err, what) != NULL, "error '%s' lacks '%s'", err,
                what);
  ck_assert_msg(strchr(err, '\n') == NULL, "more than one line: %s", err);
}

START_TEST(bad_heat_input_gets_one_line) {
  expect_error(PAIR_SCENE("conductance = -1.0;", "fixture_heat", B_HEAT),
               "conductance");
  /* the flag without the fields: the view is refused, naming the field */
  expect_error(PAIR_SCENE("conductance = 1.0;", "fixture_heatless", ""),
               "'temperature'");
  /* a specific heat <= 0 or a NaN temperature: named with the system */
  expect_error(
      "scene = { duration = 0.1; fps = 10.0; gravity = [0.0, 0.0, 0.0]; };\n"
      "coupling = { max_dt = 0.01; conductance = 1.0; };\n"
      "systems = ( { name = \"a\"; solver = \"fixture_heat\"; count = 1; },\n"
      "  { name = \"cold\"; solver = \"fixture_heat\"; count = 1;\n"
      "    position = [0.09, 0.0, 0.0]; specific_heat = 0.0; } );\n",
      "system 'cold'");
  expect_error(SOURCE_SCENE("rate = 0.0;"), "rate");
  expect_error(PAIR_SCENE("conductance = 1.0; heat_reach = -0.01;",
                          "fixture_heat", B_HEAT), "heat_reach");
  expect_error(
      "scene = { heat_sources = ( { min = [0.0, 0.0, 0.0];\n"
      "  max = [1.0, 1.0, 1.0]; } ); };\n"
      "systems = ( { name = \"a\"; solver = \"fixture_heat\"; } );\n",
      "heat_sources.[0].temperature");
}
END_TEST

Suite *suite_heat(void) {
  Suite *s = suite_create("heat");
  TCase *t = tcase_create("heat");
  tcase_add_test(t, touching_pair_follows_the_closed_form);
  tcase_add_test(t, stiff_contact_meets_at_the_mean);
  tcase_add_test(t, pair_within_reach_follows_the_closed_form);
  tcase_add_test(t, source_relaxes_as_the_closed_form);
  tcase_add_test(t, no_flow_without_conductance_or_a_partner);
  tcase_add_test(t, bad_heat_input_gets_one_line);
  suite_add_tcase(s, t);
  return s;
}
