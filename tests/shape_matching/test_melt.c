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

/* The latent heat the ice's particles hold now; how many stores are
 * partly filled, and how many full (m L: melted, handed over at the next
 * step). */
static double stored(const struct ms__system *y, double mL, size_t *partial,
                     size_t *full) {
  const struct ms_field *f = NULL;
  for (uint32_t k = 0; k < y->view.field_count; k++)
    if (!strcmp(y->view.fields[k].name, "latent_heat"))
      f = &y->view.fields[k];
  ck_assert_msg(f != NULL, "no latent_heat field");
  double q = 0.0;
  *partial = *full = 0;
  for (size_t i = 0; i < y->view.count; i++) {
    double l = *(const double *)((const char *)f->data + i * f->stride);
    q += l;
    *partial += l > 0.0 && l < mL;
    *full += l == mL;
  }
  return q;
}

/* What a melting run kept, step by step (melt_run). */
struct melt_figures {
  size_t N, melted, half_at;
  double ratio_mid;   /* melted m L / latent taken at half melted */
  double worst_books; /* heat + latent - injected, relative */
  double worst_p;     /* momentum change across a hand-over, relative */
  double worst_gap;   /* |latent taken / (N m L) - melted / N| */
};

/* Run S to its end a step at a time with the checks every step must pass:
 * momentum across each hand-over, the melted count never falling and
 * every melted particle in the water, the latent heat taken between the
 * melted particles' m L and that plus melt_share (0.5) m L per partial
 * store, no penetration; at the end every particle's mass bit for bit. */
static void melt_run(ms_sim *S, struct melt_figures *f) {
  struct ms__system *ic = st_system(S, "ice"), *w = st_system(S, "water");
  const size_t N = ic->view.count, nw = w->view.count;
  const double mL = *ms__at(&ic->m, 0) * LATENT;
  size_t nm0, nm, partial, full;
  double *m0 = st_masses(S, &nm0), ke;
  double books0 = ms__heat_of(ic) + ms__heat_of(w);
  memset(f, 0, sizeof *f);
  f->N = N, f->ratio_mid = NAN;
  while (S->frame < S->frames_total) {
    double p[3], q[3];
    st_totals(S, p, &ke);
    ck_assert_int_eq(ms__handover(&S->stepper), 0);
    st_totals(S, q, &ke);
    for (int a = 0; a < 3; a++)
      f->worst_p = fmax(f->worst_p, fabs(q[a] - p[a]) / (fabs(p[a]) + 1e-3));
    st_step(S);
    ic = st_system(S, "ice"), w = st_system(S, "water");
    size_t melted = N - ic->view.count;
    ck_assert_uint_ge(melted, f->melted); /* never freezes back */
    ck_assert_uint_eq(w->view.count, nw + melted);
    f->melted = melted;
    double lat = stored(ic, mL, &partial, &full) + (double)melted * mL;
    double books = ms__heat_of(ic) + ms__heat_of(w) + lat -
                   S->stepper.frame_counts.heat_injected;
    f->worst_books = fmax(f->worst_books, fabs(books - books0) / books0);
    /* a full store has melted; it moves at the next step's start */
    f->worst_gap = fmax(f->worst_gap,
                        fabs(lat / mL - (double)(melted + full)) / (double)N);
    /* a store that reaches melt_share (0.5) of m L melts */
    ck_assert(lat >= (double)melted * mL * (1.0 - 1e-12));
    ck_assert(lat <= ((double)(melted + full) + 0.5 * (double)partial) *
                         mL * (1.0 + 1e-12));
    if (!f->half_at && 2 * melted >= N) {
      f->half_at = S->stepper.step;
      f->ratio_mid = (double)melted * mL / lat;
    }
    ck_assert_uint_eq(S->stepper.frame_counts.pen.max_pen, 0);
  }
  double *mm = st_masses(S, &nm);
  ck_assert_uint_eq(nm, nm0);
  ck_assert_int_eq(memcmp(mm, m0, nm * sizeof *mm), 0);
  free(m0), free(mm);
}

START_TEST(ice_melts_into_water_keeping_the_books) {
  ms_sim *S = st_open_text(ice, 1);
  struct melt_figures f;
  melt_run(S, &f);
  fprintf(stderr, "# melting: %zu of %zu ice particles melted; at half "
          "melted (step %zu) melted m L / latent taken %.4f; books (heat + "
          "latent - injected) kept to %.2g; momentum across hand-overs "
          "%.2g; %.1f J injected\n", f.melted, f.N, f.half_at, f.ratio_mid,
          f.worst_books, f.worst_p, S->stepper.frame_counts.heat_injected);
  ck_assert_uint_eq(f.N, 216);
  ck_assert_uint_eq(f.melted, 216);
  ck_assert_msg(f.worst_books < 1e-12, "books drift %g", f.worst_books);
  ck_assert_msg(f.worst_p < 1e-13, "momentum across a hand-over %g",
                f.worst_p);
  st_close(S);
}
END_TEST

/* configs/gao2018/ice_melts.cfg (Gao's Fig. 6), its first 0.6 s, while
 * the hot water floods the block and the melted fraction runs furthest
 * from the latent budget: mass bitwise, momentum at every hand-over, the
 * melted fraction within 5 points of the budget, 0 penetrations. */
START_TEST(the_ice_scene_melts_as_its_latent_heat_says) {
  ms_sim *S = st_open_file("gao2018/ice_melts.cfg", 1, 12);
  struct melt_figures f;
  melt_run(S, &f);
  fprintf(stderr, "# ice_melts.cfg to 0.6 s: %zu of %zu melted; the "
          "melted fraction within %.2f points of the latent budget; books "
          "%.2g; momentum across hand-overs %.2g\n", f.melted, f.N,
          100.0 * f.worst_gap, f.worst_books, f.worst_p);
  ck_assert(f.melted > f.N / 4); /* the front has passed the surface */
  ck_assert_msg(f.worst_gap < 0.05, "melted fraction %.2f points off the "
                "latent budget", 100.0 * f.worst_gap);
  ck_assert_msg(f.worst_books < 1e-12, "books drift %g", f.worst_books);
  ck_assert_msg(f.worst_p < 1e-13, "momentum across a hand-over %g",
                f.worst_p);
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

/* Scene `text` resumed from a checkpoint of frame `frame` ends on the
 * very bits of the uninterrupted run; the values compared, and the ice
 * particles left, into *values and *left. */
static void resumes_identically(const char *text, int frame, size_t *values,
                                size_t *left) {
  ms_sim *A, *C;
  st_resume_pair(text, frame, &A, &C);
  size_t na, nc;
  double *a = state(A, &na), *c = state(C, &nc);
  ck_assert_uint_eq(na, nc);
  ck_assert_msg(memcmp(a, c, na * sizeof *a) == 0,
                "the resumed run differs from the uninterrupted one");
  *values = na, *left = st_system(A, "ice")->view.count;
  free(a), free(c);
  st_close(A), st_close(C);
}

/* A checkpoint written mid-melt (some particles handed over, clusters
 * rebuilt) resumes to the very bits of the uninterrupted run. */
START_TEST(melt_resumes_bit_identically) {
  ms_sim *B = st_open_text(ice, 1);
  for (int f = 0; f < 16; f++) ck_assert_int_eq(ms_sim_frame(B), 0);
  size_t left = st_system(B, "ice")->view.count;
  ck_assert(left > 0 && left < 216); /* frame 16 is mid-melt */
  st_close(B);
  size_t values, end;
  resumes_identically(ice, 16, &values, &end);
  fprintf(stderr, "# melt resumed from a checkpoint with %zu of 216 ice "
          "particles left: %zu values compared\n", left, values);
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

/* A rigid ice bar (9 x 2 x 2 particles) spinning at 2 rad/s about z in
 * zero gravity; a heat source holds the middle column (2 x 2) hot, with
 * no heat crossing to the water (conductance 0), so only that column
 * melts and the bar comes apart into two pieces of 16.  Each piece then
 * stays rigid and flies off on its own: its centre in a straight line
 * at the velocity it had, the two centres drawing apart. */
#define BAR_SCENE                                                           \
    "scene = { duration = 0.8; fps = 20.0; seed = 1;\n"                      \
    "  gravity = [0.0, 0.0, 0.0];\n"                                         \
    "  domain = { min = [0.0, 0.0, 0.0]; max = [0.3, 0.3, 0.1]; };\n"        \
    "  heat_sources = ( { min = [0.144, 0.0, 0.0]; max = [0.156, 0.3, 0.1];\n" \
    "    temperature = 2000.0; } ); };\n"                                    \
    "coupling = { method = \"merge-split\"; alpha = 0.0; beta = 0.0;\n"      \
    "  n_min = 0; n_max = 0; conductance = 0.0; };\n"                        \
    "systems = (\n"                                                          \
    " { name = \"water\"; solver = \"flip\"; spacing = 0.005;\n"             \
    "   shape = { type = \"box\"; min = [0.02, 0.02, 0.02];\n"               \
    "             max = [0.04, 0.04, 0.04]; }; temperature = 293.15; },\n"   \
    " { name = \"ice\"; solver = \"shape_matching\"; mode = \"rigid\";\n"    \
    "   shape = { type = \"box\"; min = [0.105, 0.14, 0.04];\n"              \
    "             max = [0.195, 0.16, 0.06]; };\n"                           \
    "   spacing = 0.01; density = 917.0; temperature = 263.15;\n"            \
    "   angular_velocity = [0.0, 0.0, 2.0];\n"                               \
    "   specific_heat = 2100.0; conductivity = 2.2;\n"                       \
    "   melting_point = 273.15; latent_heat = 334000.0;\n"                   \
    "   melt_into = \"water\"; } );\n"
static const char bar[] = BAR_SCENE;

/* The value of plugin statistic `name` of system y this frame so far. */
static double stat(const struct ms__system *y, const char *name) {
  for (size_t k = 0; k < y->ctx.nstats; k++)
    if (!strcmp(y->ctx.stats[k].name, name)) return y->ctx.stats[k].value;
  return 0.0;
}

/* The ice particles i with side * (x_i - c) . axis > 0: their centre and
 * their positions (3 each, in view order) into xs; returns how many. */
static size_t side_of(const struct ms__system *y, const double *c,
                      const double *axis, int side, double *centre,
                      double *xs) {
  size_t k = 0;
  centre[0] = centre[1] = centre[2] = 0.0;
  for (size_t i = 0; i < y->view.count; i++) {
    const double *x = ms__at(&y->x, i);
    double d = 0.0;
    for (int a = 0; a < 3; a++) d += (x[a] - c[a]) * axis[a];
    if (side * d <= 0.0) continue;
    memcpy(xs + 3 * k, x, 3 * sizeof *xs);
    for (int a = 0; a < 3; a++) centre[a] += x[a];
    k++;
  }
  for (int a = 0; a < 3 && k; a++) centre[a] /= (double)k;
  return k;
}

/* Largest change of a distance between two particles of xs and ys. */
static double drift(const double *x0, const double *x1, size_t n) {
  double worst = 0.0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      double d0 = 0.0, d1 = 0.0;
      for (int a = 0; a < 3; a++) {
        double e = x0[3 * i + a] - x0[3 * j + a], f = x1[3 * i + a] - x1[3 * j + a];
        d0 += e * e, d1 += f * f;
      }
      worst = fmax(worst, fabs(sqrt(d1) - sqrt(d0)));
    }
  return worst;
}

START_TEST(a_bar_melted_through_comes_apart_in_two_rigid_pieces) {
  ms_sim *S = st_open_text(bar, 1);
  struct ms__system *ic = st_system(S, "ice");
  ck_assert_uint_eq(ic->view.count, 36);
  while (ic->view.count > 32 && S->frame < S->frames_total) {
    st_step(S);
    ic = st_system(S, "ice");
  }
  ck_assert_uint_eq(ic->view.count, 32);
  double t0 = S->stepper.time, c[3] = {0, 0, 0}, axis[3], v[2][3];
  for (size_t i = 0; i < 32; i++)
    for (int a = 0; a < 3; a++) c[a] += ms__at(&ic->x, i)[a] / 32.0;
  /* the bar's axis: from its centre to its first particle, in the
   * plane of the spin */
  const double *x0 = ms__at(&ic->x, 0);
  double len = hypot(x0[0] - c[0], x0[1] - c[1]);
  axis[0] = (x0[0] - c[0]) / len, axis[1] = (x0[1] - c[1]) / len;
  axis[2] = 0.0;
  double ca[2][3], xa[2][48], cb[2][3], xb[2][48];
  for (int s = 0; s < 2; s++) {
    ck_assert_uint_eq(side_of(ic, c, axis, s ? 1 : -1, ca[s], xa[s]), 16);
    memset(v[s], 0, sizeof v[s]);
    for (size_t i = 0; i < ic->view.count; i++) {
      const double *x = ms__at(&ic->x, i), *u = ms__at(&ic->v, i);
      double d = 0.0;
      for (int a = 0; a < 3; a++) d += (x[a] - c[a]) * axis[a];
      if ((s ? 1 : -1) * d > 0.0)
        for (int a = 0; a < 3; a++) v[s][a] += u[a] / 16.0;
    }
  }
  while (S->frame < S->frames_total) {
    st_step(S);
    ic = st_system(S, "ice");
  }
  /* st_step writes no frames: the statistic holds the whole run */
  double pieces = stat(ic, "pieces");
  ck_assert_uint_eq(ic->view.count, 32);
  double t1 = S->stepper.time, worst_rigid = 0.0, worst_line = 0.0;
  for (int s = 0; s < 2; s++) {
    ck_assert_uint_eq(side_of(ic, c, axis, s ? 1 : -1, cb[s], xb[s]), 16);
    worst_rigid = fmax(worst_rigid, drift(xa[s], xb[s], 16));
    for (int a = 0; a < 3; a++)
      worst_line = fmax(worst_line, fabs(cb[s][a] - ca[s][a] -
                                         v[s][a] * (t1 - t0)));
  }
  double gap0 = sqrt(pow(ca[1][0] - ca[0][0], 2) + pow(ca[1][1] - ca[0][1], 2)),
         gap1 = sqrt(pow(cb[1][0] - cb[0][0], 2) + pow(cb[1][1] - cb[0][1], 2));
  fprintf(stderr, "# a bar melted through: %g pieces added at t = %.3f s; "
          "over %.3f s each piece rigid to %.2g m, its centre on its line "
          "to %.2g m; the centres %.5f -> %.5f m apart\n", pieces, t0,
          t1 - t0, worst_rigid, worst_line, gap0, gap1);
  ck_assert(pieces == 1.0);
  ck_assert_msg(worst_rigid < 1e-12, "a piece deforms: %g m", worst_rigid);
  ck_assert_msg(worst_line < 1e-9, "a piece leaves its line: %g m",
                worst_line);
  ck_assert_msg(gap1 > gap0 + 0.01, "the pieces stay together");
  st_close(S);
}
END_TEST

/* Resumed from a checkpoint written after the bar came apart: the
 * pieces, rebuilt from which particles are left, give the uninterrupted
 * run's bits. */
START_TEST(pieces_resume_bit_identically) {
  size_t values, left;
  resumes_identically(bar, 12, &values, &left);
  ck_assert_uint_eq(left, 32); /* two pieces of 16 */
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
  expect_error("melting_point = 273.15; melt_into = \"water\"; "
               "melt_share = 0.0;", "melt_share: must be in (0, 1]");
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
  tcase_add_test(t, the_ice_scene_melts_as_its_latent_heat_says);
  tcase_add_test(t, melt_resumes_bit_identically);
  tcase_add_test(t, melt_same_on_any_thread_count);
  tcase_add_test(t, bad_melting_settings);
  tcase_add_test(t, a_bar_melted_through_comes_apart_in_two_rigid_pieces);
  tcase_add_test(t, pieces_resume_bit_identically);
  suite_add_tcase(s, t);
  return s;
}
