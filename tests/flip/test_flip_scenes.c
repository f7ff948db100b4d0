/* Scenes with the flip plugin: still water, the dam break, coupling. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../scenes/simtest.h"
#include "suites.h"

/* Cells (of size h, grid at lo with n cells) holding a particle of y. */
static size_t occupied(const struct ms__system *y, const double lo[3],
                       double h, const int n[3]) {
  size_t nc = (size_t)n[0] * n[1] * n[2], cnt = 0;
  unsigned char *mark = calloc(nc, 1);
  for (size_t i = 0; i < y->view.count; i++) {
    const double *x = ms__at(&y->x, i);
    int c[3];
    for (int a = 0; a < 3; a++) {
      c[a] = (int)floor((x[a] - lo[a]) / h);
      c[a] = c[a] < 0 ? 0 : c[a] >= n[a] ? n[a] - 1 : c[a];
    }
    size_t k = (size_t)c[0] + (size_t)n[0] * (c[1] + (size_t)n[1] * c[2]);
    cnt += !mark[k];
    mark[k] = 1;
  }
  free(mark);
  return cnt;
}

/* Every particle of y inside [lo, hi] and finite. */
static int all_inside(const struct ms__system *y, const double lo[3],
                      const double hi[3]) {
  for (size_t i = 0; i < y->view.count; i++) {
    const double *x = ms__at(&y->x, i);
    for (int a = 0; a < 3; a++)
      if (!(x[a] >= lo[a] && x[a] <= hi[a])) return 0;
  }
  return 1;
}

static double max_y(const struct ms__system *y) {
  double m = -INFINITY;
  for (size_t i = 0; i < y->view.count; i++)
    m = fmax(m, ms__at(&y->x, i)[1]);
  return m;
}

/* Water 0.3 m deep at rest in a tank: after 1 s it is still at rest. */
START_TEST(still_water) {
  const double H = 0.3, h = 0.05;
  ms_sim *S = st_open_text(
      "scene = { duration = 1.0; fps = 10.0;\n"
      "  domain = { min = [0.0, 0.0, 0.0]; max = [0.6, 0.5, 0.2]; }; };\n"
      "systems = ( { name = \"w\"; solver = \"flip\"; spacing = 0.025;\n"
      "  shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
      "            max = [0.6, 0.3, 0.2]; }; } );\n",
      0);
  struct ms__system *w = st_system(S, "w");
  ck_assert_uint_eq(w->view.count, 8 * 12 * 6 * 4);
  double top0 = max_y(w);
  ck_assert(top0 > H - h / 4 && top0 <= H);
  while (S->frame < S->frames_total) ck_assert_int_eq(ms_sim_frame(S), 0);
  ck_assert(fabs(ms_sim_time(S) - 1.0) < 1e-12);
  double vmax = st_max_speed(S), top = max_y(w);
  ck_assert_msg(vmax < 1e-3 * sqrt(9.81 * H), "max speed %g m/s", vmax);
  ck_assert_msg(fabs(top - top0) < h, "surface moved %g m", top - top0);
  st_close(S);
}
END_TEST

/* The dam break: every particle stays in the domain, and the number of
 * occupied cells stays within 5 % of the start over 2 s. */
START_TEST(dam_break_keeps_volume) {
  ms_sim *S = st_open_file(getenv("FLIP_DAM") ? getenv("FLIP_DAM") : "flip_dam_break.cfg", 0, 0);
  struct ms__system *w = st_system(S, "water");
  const double *lo = S->scene.domain_min, *hi = S->scene.domain_max;
  int n[3];
  for (int a = 0; a < 3; a++) n[a] = (int)floor((hi[a] - lo[a]) / 0.05 + 0.5);
  size_t c0 = occupied(w, lo, 0.05, n), lo_c = c0, hi_c = c0;
  ck_assert_uint_eq(c0 * 8, w->view.count);
  double xmax = 0.0;
  while (ms_sim_time(S) < 2.0 - 1e-9) {
    st_step(S);
    size_t c = occupied(w, lo, 0.05, n);
    lo_c = c < lo_c ? c : lo_c;
    hi_c = c > hi_c ? c : hi_c;
    ck_assert_msg(all_inside(w, lo, hi), "a particle left at t = %g",
                  ms_sim_time(S));
    for (size_t i = 0; i < w->view.count; i++)
      xmax = fmax(xmax, ms__at(&w->x, i)[0]);
    if (getenv("FLIP_DEBUG") && S->step % 20 == 0)
      fprintf(stderr, "# t %.3f cells %zu\n", ms_sim_time(S), c);
    if (getenv("FLIP_DUMP") && S->step % 100 == 0) {
      char nm[64];
      snprintf(nm, sizeof nm, "/tmp/flipdump_%04llu.bin", (unsigned long long)S->step);
      FILE *f = fopen(nm, "wb");
      for (size_t i = 0; i < w->view.count; i++) fwrite(ms__at(&w->x, i), 8, 3, f);
      fclose(f);
    }
  }
  fprintf(stderr, "# dam break: %zu cells at start, %zu..%zu, %llu steps\n",
          c0, lo_c, hi_c, (unsigned long long)S->step);
  ck_assert_msg(lo_c >= 0.95 * c0 && hi_c <= 1.05 * c0,
                "occupied cells %zu..%zu of %zu", lo_c, hi_c, c0);
  ck_assert(xmax > hi[0] - 0.1); /* the front did reach the far wall */
  st_close(S);
}
END_TEST

Suite *suite_flip_scenes(void) {
  Suite *s = suite_create("flip_scenes");
  TCase *t = tcase_create("scenes");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, still_water);
  tcase_add_test(t, dam_break_keeps_volume);
  suite_add_tcase(s, t);
  return s;
}
