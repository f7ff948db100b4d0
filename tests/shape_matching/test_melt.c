/* Melting (doc/heat.md section 6): an ice block of shape_matching on a
 * hot plate (a scene heat source) melts into a pool of flip water.  The
 * books close (heat of both systems + latent heat taken - heat the plate
 * put in), every particle keeps its mass bit for bit, momentum is kept
 * across every hand-over, the melted count never falls and ends with the
 * whole block, its latent heat N m L; a checkpoint taken mid-melt resumes
 * bit-identically; bad settings get one line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../scenes/simtest.h"
#include "../../core/step/step.h"
#include "suites.h"

/* 216 ice particles (spacing 0.01 m, 917 kg/m^3: m = 9.17e-4 kg, m L =
 * 306.278 J) at 263.15 K; the plate's box holds the block's lower 4
 * layers and relaxes them toward 400 K at 2 / s. */
#define ICE_SCENE(coupling, spacing)                                        \
    "scene = { duration = 2.0; fps = 20.0; seed = 1;\n"                      \
    "  gravity = [0.0, -9.81, 0.0];\n"                                       \
    "  domain = { min = [0.0, 0.0, 0.0]; max = [0.3, 0.3, 0.1]; };\n"        \
    "  heat_sources = ( { min = [0.15, 0.0, 0.0]; max = [0.25, 0.035, 0.1];\n" \
    "    temperature = 400.0; rate = 2.0; } ); };\n"                         \
    "coupling = { method = \"merge-split\"; alpha = 0.0; beta = 0.0;\n"      \
    "  n_min = 0; n_max = 0; conductance = 1.0; " coupling " };\n"           \
    "systems = (\n"                                                          \
    " { name = \"water\"; solver = \"flip\"; spacing = 0.005;\n"             \
    "   shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"                  \
    "             max = [0.1, 0.05, 0.1]; }; temperature = 293.15; },\n"     \
    " { name = \"ice\"; solver = \"shape_matching\"; mode = \"rigid\";\n"    \
    "   shape = { type = \"box\"; min = [0.17, 0.0, 0.02];\n"                \
    "             max = [0.23, 0.06, 0.08]; };\n"                            \
    "   spacing = " spacing "; density = 917.0; temperature = 263.15;\n"     \
    "   specific_heat = 2100.0; conductivity = 2.2;\n"                       \
    "   melting_point = 273.15; latent_heat = 334000.0;\n"                   \
    "   melt_into = \"water\"; } );\n"
static const char ice[] = ICE_SCENE("", "0.01");

#define LATENT 334000.0

/* The latent heat the ice's particles hold now, and how many are full. */
static double stored(const struct ms__system *y, size_t *partial) {
  const struct ms_field *f = NULL;
  for (uint32_t k = 0; k < y->view.field_count; k++)
    if (!strcmp(y->view.fields[k].name, "latent_heat"))
      f = &y->view.fields[k];
  ck_assert_msg(f != NULL, "no latent_heat field");
  double q = 0.0;
  *partial = 0;
  for (size_t i = 0; i < y->view.count; i++) {
    double l = *(const double *)((const char *)f->data + i * f->stride);
    q += l;
    *partial += l > 0.0;
  }
  return q;
}

START_TEST(ice_melts_into_water_keeping_the_books) {
  ms_sim *S = st_open_text(ice, 1);
  struct ms__system *ic = st_system(S, "ice"), *w = st_system(S, "water");
  const size_t N = ic->view.count, nw = w->view.count;
  ck_assert_uint_eq(N, 216);
  const double m = *ms__at(&ic->m, 0), mL = m * LATENT;
  size_t nm0, nm, partial;
  double *m0 = st_masses(S, &nm0), p0[3], ke, worst_p = 0.0, worst_books = 0.0;
  double books0 = ms__heat_of(ic) + ms__heat_of(w);
  size_t melted_before = 0, half_at = 0;
  double ratio_mid = NAN;
  st_totals(S, p0, &ke);
  while (S->frame < S->frames_total) {
    double p[3], q[3];
    st_totals(S, p, &ke);
    ck_assert_int_eq(ms__handover(&S->stepper), 0);
    st_totals(S, q, &ke);
    for (int a = 0; a < 3; a++)
      worst_p = fmax(worst_p, fabs(q[a] - p[a]) / (fabs(p[a]) + 1e-3));
    st_step(S);
    ic = st_system(S, "ice"), w = st_system(S, "water");
    size_t melted = N - ic->view.count;
    ck_assert_uint_ge(melted, melted_before); /* never freezes back */
    ck_assert_uint_eq(w->view.count, nw + melted);
    melted_before = melted;
    double lat = stored(ic, &partial) + (double)melted * mL;
    double books = ms__heat_of(ic) + ms__heat_of(w) + lat -
                   S->stepper.frame_counts.heat_injected;
    worst_books = fmax(worst_books, fabs(books - books0) / books0);
    /* the latent heat taken: the melted particles' m L, plus partial
     * stores of the particles still solid (none above m L) */
    ck_assert(lat >= (double)melted * mL * (1.0 - 1e-12));
    ck_assert(lat <= (double)(melted + partial) * mL * (1.0 + 1e-12));
    if (!half_at && 2 * melted >= N) {
      half_at = S->stepper.step;
      ratio_mid = (double)melted * mL / lat;
    }
    ck_assert_uint_eq(S->stepper.frame_counts.pen.max_pen, 0);
  }
  ic = st_system(S, "ice"), w = st_system(S, "water");
  double *mm = st_masses(S, &nm);
  fprintf(stderr, "# melting: %zu of %zu ice particles melted; at half "
          "melted (step %zu) melted m L / latent taken %.4f; books (heat + "
          "latent - injected) kept to %.2g; momentum across hand-overs "
          "%.2g; %.1f J injected\n", N - ic->view.count, N, half_at,
          ratio_mid, worst_books, worst_p,
          S->stepper.frame_counts.heat_injected);
  ck_assert_uint_eq(ic->view.count, 0);
  ck_assert_uint_eq(nm, nm0);
  ck_assert_int_eq(memcmp(mm, m0, nm * sizeof *mm), 0);
  ck_assert_msg(worst_books < 1e-12, "books drift %g", worst_books);
  ck_assert_msg(worst_p < 1e-13, "momentum across a hand-over %g", worst_p);
  free(m0), free(mm);
  st_close(S);
}
END_TEST

/* Positions, velocities and temperatures of every particle, in order. */
static double *state(ms_sim *S, size_t *n) {
  size_t k = 0;
  for (uint32_t s = 0; s < S->nsys; s++) k += S->sys[s].view.count;
  double *r = malloc((7 * k + 1) * sizeof *r);
  k = 0;
  for (uint32_t s = 0; s < S->nsys; s++) {
    const struct ms__system *y = &S->sys[s];
    for (size_t i = 0; i < y->view.count; i++, k += 7) {
      memcpy(r + k, ms__at(&y->x, i), 3 * sizeof *r);
      memcpy(r + k + 3, ms__at(&y->v, i), 3 * sizeof *r);
      r[k + 6] = *ms__at(&y->T, i);
    }
  }
  *n = k;
  return r;
}

/* A checkpoint written mid-melt (some particles handed over, clusters
 * rebuilt) resumes to the very bits of the uninterrupted run. */
START_TEST(melt_resumes_bit_identically) {
  ms_sim *B = st_open_text(ice, 1);
  for (int f = 0; f < 16; f++) ck_assert_int_eq(ms_sim_frame(B), 0);
  size_t left = st_system(B, "ice")->view.count;
  ck_assert(left > 0 && left < 216); /* frame 16 is mid-melt */
  st_close(B);
  ms_sim *A, *C;
  st_resume_pair(ice, 16, &A, &C);
  size_t na, nc;
  double *a = state(A, &na), *c = state(C, &nc);
  fprintf(stderr, "# melt resumed from a checkpoint with %zu of 216 ice "
          "particles left: %zu values compared\n", left, na);
  ck_assert_uint_eq(na, nc);
  ck_assert_msg(memcmp(a, c, na * sizeof *a) == 0,
                "the resumed run differs from the uninterrupted one");
  free(a), free(c);
  st_close(A), st_close(C);
}
END_TEST

/* With coupling.heat_reach (its own pair search) and melting under way,
 * the ice on a 0.006 m lattice (1000 particles: the pair searches split
 * their drivers into blocks over the threads): bitwise the same on 1 and
 * 2 threads. */
START_TEST(melt_same_on_any_thread_count) {
  static const char text[] = ICE_SCENE("heat_reach = 0.005;", "0.006");
  double *s1 = NULL;
  size_t n1 = 0;
  for (int t = 1; t <= 2; t++) {
    ms_sim *S = st_open_text(text, t);
    for (int f = 0; f < 16; f++) ck_assert_int_eq(ms_sim_frame(S), 0);
    size_t left = st_system(S, "ice")->view.count, n;
    if (t == 1)
      fprintf(stderr, "# 1 and 2 threads: %zu of 1000 ice particles left "
              "at frame 16\n", left);
    ck_assert(left > 0 && left < 1000);
    double *s = state(S, &n);
    if (t == 1) {
      s1 = s, n1 = n;
    } else {
      ck_assert_uint_eq(n, n1);
      ck_assert_msg(!memcmp(s, s1, n * sizeof *s), "1 and 2 threads differ");
      free(s);
    }
    st_close(S);
  }
  free(s1);
}
END_TEST

/* Bad melting settings: one line naming the key. */
static void expect_error(const char *body, const char *want) {
  char text[2048], err[1024] = "";
  snprintf(text, sizeof text,
           "scene = { duration = 0.1; domain = { min = [0.0, 0.0, 0.0];\n"
           "  max = [0.3, 0.3, 0.1]; }; };\n"
           "systems = ( { name = \"ice\"; solver = \"shape_matching\";\n"
           "  shape = { type = \"box\"; min = [0.1, 0.0, 0.02];\n"
           "            max = [0.14, 0.04, 0.06]; }; spacing = 0.01;\n"
           "  %s } );\n", body);
  ck_assert_msg(st_try_text(text, err, sizeof err, NULL) != 0, "accepted: "
                "%s", body);
  ck_assert_msg(strstr(err, want) != NULL, "'%s' not in '%s'", want, err);
  ck_assert_msg(!strchr(err, '\n'), "more than one line: %s", err);
}

START_TEST(bad_melting_settings) {
  expect_error("melting_point = 273.15;", "melting_point: needs the "
               "system's melt_into");
  expect_error("melting_point = 273.15; melt_into = \"water\"; "
               "latent_heat = -1.0;", "latent_heat");
  expect_error("melting_point = -5.0; melt_into = \"water\";",
               "melting_point: must be a temperature > 0");
  expect_error("melting_point = 273.15; melt_into = \"ice\";",
               "melt_into: names this system itself");
  expect_error("melting_point = 273.15; melt_into = \"water\"; "
               "motion = \"fixed\";", "melting_point: needs a dynamic body");
  /* the target is checked when the scene opens (ABI 1.4), not when the
   * first particle melts */
  expect_error("melting_point = 273.15; melt_into = \"water\";",
               "melt_into: system 'ice' hands particles to 'water', which "
               "is not a system of the scene");
  expect_error("melting_point = 273.15; melt_into = \"grains\"; },\n"
               "{ name = \"grains\"; solver = \"particles\"; shape = {\n"
               "  type = \"box\"; min = [0.2, 0.0, 0.02];\n"
               "  max = [0.24, 0.04, 0.06]; }; spacing = 0.01;",
               "'grains' (solver 'particles' from ");
  expect_error("melting_point = 273.15; melt_into = \"grains\"; },\n"
               "{ name = \"grains\"; solver = \"particles\"; shape = {\n"
               "  type = \"box\"; min = [0.2, 0.0, 0.02];\n"
               "  max = [0.24, 0.04, 0.06]; }; spacing = 0.01;",
               "cannot take particles (its solver has no accept())");
}
END_TEST

Suite *suite_melt(void) {
  Suite *s = suite_create("melt");
  TCase *t = tcase_create("melt");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, ice_melts_into_water_keeping_the_books);
  tcase_add_test(t, melt_resumes_bit_identically);
  tcase_add_test(t, melt_same_on_any_thread_count);
  tcase_add_test(t, bad_melting_settings);
  suite_add_tcase(s, t);
  return s;
}
