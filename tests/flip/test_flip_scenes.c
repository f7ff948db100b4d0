/* Scenes with the flip plugin: still water, the dam break, coupling. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "../scenes/simtest.h"
#include "flip.h"
#include "flip_fixture.h"
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
      1);
  struct ms__system *w = st_system(S, "w");
  ck_assert_uint_eq(w->view.count, 8 * 12 * 6 * 4);
  double top0 = max_y(w);
  ck_assert(top0 > H - h / 4 && top0 <= H);
  while (S->frame < S->frames_total) ck_assert_int_eq(ms_sim_frame(S), 0);
  ck_assert(fabs(ms_sim_time(S) - 1.0) < 1e-12);
  double vmax = st_max_speed(S), top = max_y(w);
  fprintf(stderr, "# still water after 1 s: max speed %.3g m/s (limit %.3g), "
          "surface moved %.3g m (limit %g)\n", vmax, 1e-3 * sqrt(9.81 * H),
          top - top0, h);
  ck_assert_msg(vmax < 1e-3 * sqrt(9.81 * H), "max speed %g m/s", vmax);
  ck_assert_msg(fabs(top - top0) < h, "surface moved %g m", top - top0);
  st_close(S);
}
END_TEST

/* Defined with the tests that use it most, below. */
static double water_energy(const struct ms__system *w, double *kinetic);

/* Water 0.12 m deep at rest, cells of 0.04 m, 0.3 s after the start:
 * with `level` 0, the bottom layer's mean pressure (the particles below
 * the first cell centres, 0.02 m, where the sampled pressure is that of
 * those centres); with `level` 1, the level the pressure shows, the mean
 * of y + p / (rho g) over the particles between the first and the last
 * cell centres (0.02 and 0.10 m), where the sampled pressure is linear in
 * the height.  `jitter`: the shape's keys ("jitter = 0.0;" for a
 * lattice, its top particles at 0.11 m; "" for the plugin's default
 * jitter of a quarter spacing). */
static double still_pool(const char *surface, const char *jitter,
                         int level) {
  char text[1024];
  snprintf(text, sizeof text,
           "scene = { duration = 0.3; fps = 10.0; seed = 3;\n"
           "  domain = { min = [0.0, 0.0, 0.0]; max = [0.4, 0.32, 0.16]; }; };\n"
           "systems = ( { name = \"w\"; solver = \"flip\"; spacing = 0.02;\n"
           "  free_surface = \"%s\";\n"
           "  shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
           "            max = [0.4, 0.12, 0.16]; %s }; } );\n",
           surface, jitter);
  ms_sim *S = st_open_text(text, 1);
  struct ms__system *w = st_system(S, "w");
  while (S->frame < S->frames_total) ck_assert_int_eq(ms_sim_frame(S), 0);
  const struct ms_field *P = ms_view_field(&w->view, "pressure", MS_TYPE_F64, 1);
  ck_assert_ptr_nonnull(P);
  double sum = 0.0;
  size_t cnt = 0;
  for (size_t i = 0; i < w->view.count; i++) {
    double y = ms__at(&w->x, i)[1];
    double p = *(const double *)((const char *)P->data + i * P->stride);
    if (level ? y < 0.02 || y >= 0.10 : y >= 0.02) continue;
    sum += level ? y + p / (1000.0 * 9.81) : p;
    cnt++;
  }
  ck_assert_uint_gt(cnt, 0);
  st_close(S);
  return sum / (double)cnt;
}

START_TEST(ghost_fluid_puts_the_surface_at_the_water) {
  const double want = 1000.0 * 9.81 * (0.12 - 0.02);
  double cell = still_pool("cell", "jitter = 0.0;", 0),
         ghost = still_pool("ghost", "jitter = 0.0;", 0);
  fprintf(stderr, "# bottom pressure %.2f Pa (cell surface), %.2f Pa (ghost "
          "fluid), rho g (H - 0.02) = %.2f Pa\n", cell, ghost, want);
  ck_assert_double_le(fabs(ghost - want), 0.01 * want);
  /* the cell surface adds rho g h / 2 = 196.2 Pa */
  ck_assert_double_le(fabs(cell - want - 196.2), 0.01 * want);
}
END_TEST

/* The ghost fluid takes a jittered surface layer at its particles' mean:
 * the outermost particle alone stood about the jitter above the layer,
 * and the pressure showed the water 3.1 mm higher than it is (a floating
 * box then sat high: doc/buoyancy.md, section 4). */
START_TEST(ghost_fluid_surface_of_a_jittered_pool) {
  double level = still_pool("ghost", "", 1);
  fprintf(stderr, "# jittered pool 0.12 m deep: its pressure's level %.5f m\n",
          level);
  ck_assert_double_le(fabs(level - 0.12), 5e-4);
}
END_TEST

/* The jitter (a quarter spacing) puts half a pool's bottom layer closer
 * to the floor than a radius; the first step lifted those particles out,
 * and the pool at rest gained 0.041 J of potential energy in its first
 * frame.  Seeds start where that step would put them: every particle a
 * radius or more inside every wall, some exactly at it, and the first
 * frame's energy (kinetic + potential) no higher than the start's. */
START_TEST(jittered_seeds_start_clear_of_the_walls) {
  const char *text =
      "scene = { duration = 0.1; fps = 10.0; seed = 3;\n"
      "  domain = { min = [0.0, 0.0, 0.0]; max = [0.4, 0.32, 0.16]; }; };\n"
      "systems = ( { name = \"w\"; solver = \"flip\"; spacing = 0.02;\n"
      "  shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
      "            max = [0.4, 0.12, 0.16]; }; } );\n";
  static const double hi[3] = {0.4, 0.32, 0.16};
  ms_sim *S = st_open_text(text, 1);
  struct ms__system *w = st_system(S, "w");
  size_t at_floor = 0;
  for (size_t i = 0; i < w->view.count; i++) {
    const double *x = ms__at(&w->x, i), r = *ms__at(&w->r, i);
    for (int a = 0; a < 3; a++) {
      ck_assert_double_ge(x[a], r);
      ck_assert_double_le(x[a], hi[a] - r);
    }
    at_floor += x[1] == r;
  }
  double ke, e0 = water_energy(w, &ke);
  ck_assert_int_eq(ms_sim_frame(S), 0);
  double e1 = water_energy(w, &ke);
  fprintf(stderr, "# jittered pool: %zu of %zu particles start a radius "
          "above the floor; first frame's energy change %.3g J\n", at_floor,
          w->view.count, e1 - e0);
  ck_assert_uint_gt(at_floor, w->view.count / 20);
  ck_assert_double_le(e1, e0);
  st_close(S);
}
END_TEST

/* A rigid cube of 0.08 m (64 particles) held under 0.12 m of still water
 * (the water fills the tank around it), released: its centre's height
 * after 0.5 s.  `keys` go to the water's section. */
static double submerged_cube(double density, const char *keys) {
  char text[4096];
  snprintf(text, sizeof text,
           "scene = { duration = 0.5; fps = 10.0;\n"
           "  domain = { min = [0.0, 0.0, 0.0]; max = [0.4, 0.4, 0.16]; }; };\n"
           "coupling = { alpha = 0.0; beta = 0.0; };\n"
           "systems = ( { name = \"w\"; solver = \"flip\"; spacing = 0.02;\n"
           "  free_surface = \"ghost\"; %s\n"
           "  shape = (\n"
           "   { type = \"box\"; min = [0.0, 0.0, 0.0]; max = [0.4, 0.1, 0.16]; jitter = 0.0; },\n"
           "   { type = \"box\"; min = [0.0, 0.18, 0.0]; max = [0.4, 0.3, 0.16]; jitter = 0.0; },\n"
           "   { type = \"box\"; min = [0.0, 0.1, 0.0]; max = [0.16, 0.18, 0.16]; jitter = 0.0; },\n"
           "   { type = \"box\"; min = [0.24, 0.1, 0.0]; max = [0.4, 0.18, 0.16]; jitter = 0.0; },\n"
           "   { type = \"box\"; min = [0.16, 0.1, 0.0]; max = [0.24, 0.18, 0.04]; jitter = 0.0; },\n"
           "   { type = \"box\"; min = [0.16, 0.1, 0.12]; max = [0.24, 0.18, 0.16]; jitter = 0.0; } ); },\n"
           "  { name = \"cube\"; solver = \"rigid\"; spacing = 0.02; density = %g;\n"
           "    shape = { type = \"box\"; min = [0.16, 0.1, 0.04];\n"
           "              max = [0.24, 0.18, 0.12]; }; } );\n",
           keys, density);
  ms_sim *S = st_open_text(text, 1);
  struct ms__system *c = st_system(S, "cube");
  ck_assert_uint_eq(c->view.count, 64);
  while (S->frame < S->frames_total) ck_assert_int_eq(ms_sim_frame(S), 0);
  double y = 0.0;
  for (size_t i = 0; i < c->view.count; i++) y += ms__at(&c->x, i)[1] / 64.0;
  st_close(S);
  return y;
}

/* buoyancy = true: the water's pressure on the cube's surface carries a
 * cube of the water's density where it is (it starts at 0.14 m), lifts a
 * lighter one and lets a heavier one sink; without it the water answers
 * only at the contacts and the neutral cube sinks. */
START_TEST(buoyancy_carries_a_submerged_body) {
  double neutral = submerged_cube(1000.0, "buoyancy = true;");
  double light = submerged_cube(500.0, "buoyancy = true;");
  double heavy = submerged_cube(2000.0, "buoyancy = true;");
  double without = submerged_cube(1000.0, "");
  fprintf(stderr, "# submerged cube from 0.14 m, after 0.5 s: density 1000 "
          "at %.4f m, 500 at %.4f m, 2000 at %.4f m; 1000 without buoyancy "
          "at %.4f m\n", neutral, light, heavy, without);
  ck_assert_double_le(fabs(neutral - 0.14), 0.005);
  ck_assert_double_gt(light, 0.14 + 0.02);
  ck_assert_double_lt(heavy, 0.14 - 0.02);
  ck_assert_double_lt(without, 0.14 - 0.02);
}
END_TEST

/* The dam break: every particle stays in the domain, and the number of
 * occupied cells stays within 5 % of the start over 2 s. */
START_TEST(dam_break_keeps_volume) {
  ms_sim *S = st_open_file("flip_dam_break.cfg", 1, 0);
  struct ms__system *w = st_system(S, "water");
  const double *lo = S->scene.domain_min, *hi = S->scene.domain_max;
  const double h = 0.025;
  const int n[3] = {40, 32, 4};
  size_t c0 = occupied(w, lo, h, n), lo_c = c0, hi_c = c0;
  ck_assert_uint_eq(c0, (40 * 12 + 16 * 12) * 4);
  ck_assert_uint_eq(8 * c0, w->view.count);
  double far_top = 0.0; /* highest water at the far wall */
  while (ms_sim_time(S) < 2.0 - 1e-9) {
    st_step(S);
    size_t c = occupied(w, lo, h, n);
    lo_c = c < lo_c ? c : lo_c;
    hi_c = c > hi_c ? c : hi_c;
    ck_assert_msg(all_inside(w, lo, hi), "a particle left at t = %g",
                  ms_sim_time(S));
    for (size_t i = 0; i < w->view.count; i++) {
      const double *x = ms__at(&w->x, i);
      if (x[0] > hi[0] - 0.1) far_top = fmax(far_top, x[1]);
    }
  }
  fprintf(stderr, "# dam break: %zu cells at start, %zu..%zu, %llu steps, "
          "bore up to %.3f m at the far wall\n", c0, lo_c, hi_c,
          (unsigned long long)S->stepper.step, far_top);
  ck_assert_msg(lo_c >= 0.95 * c0 && hi_c <= 1.05 * c0,
                "occupied cells %zu..%zu of %zu", lo_c, hi_c, c0);
  /* the bore reached the far wall and climbed it above the level the
   * water settles at (0.3 + 0.3 x 0.4 = 0.42 m) */
  ck_assert_msg(far_top > 0.45, "far wall reached %g m only", far_top);
  st_close(S);
}
END_TEST

/* The dam break's largest energy rise between two frames over its 2 s,
 * relative to its energy, with `energy_limit` set as given. */
static double dam_break_rise(const char *limit, double *end) {
  char path[4096], text[8192];
  snprintf(path, sizeof path, "%s/flip_dam_break.cfg", getenv("MS_CONFIGS"));
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  size_t len = fread(text, 1, sizeof text - 256, f);
  fclose(f);
  text[len] = 0;
  char *at = strstr(text, "flip_ratio = 0.97;");
  ck_assert_ptr_nonnull(at);
  char tail[8192];
  snprintf(tail, sizeof tail, "energy_limit = %s; %s", limit, at);
  strcpy(at, tail);
  return st_energy_rise(st_open_text(text, 2), end);
}

/* FLIP's carried part makes energy in a closed tank (1.4e-4 of it between
 * two frames of the dam break at ratio 0.97); the energy limit takes a
 * step's blend back toward PIC just far enough that the step ends with
 * the energy it started with, so no frame gains any. */
START_TEST(dam_break_makes_no_energy) {
  double end_on, end_off;
  double on = dam_break_rise("true", &end_on);
  double off = dam_break_rise("false", &end_off);
  fprintf(stderr, "# dam break energy: largest rise between frames %.3g "
          "with the limit (%.5f of the start left at 2 s), %.3g without "
          "(%.5f)\n", on, end_on, off, end_off);
  ck_assert_msg(on <= 1e-6, "energy rose by %g with the limit", on);
  ck_assert_msg(off >= 1e-5, "without the limit it rose by %g only", off);
  /* it takes back what FLIP made, not the flow: the energy left differs
   * by less than 5 % of what the run dissipates (measured: 0.7 %) */
  ck_assert_msg(fabs(end_on - end_off) <= 0.05 * (1.0 - end_off),
                "limit dissipated %g", end_off - end_on);
}
END_TEST

/* The dam break (1.5 times finer: 72576 particles, so the particle loops
 * run on two threads) on 1 and 2 threads: bitwise the same after 40
 * steps. */
START_TEST(same_result_any_thread_count) {
  fx_same_on_threads(
      "scene = { duration = 2.0; fps = 30.0;\n"
      "  domain = { min = [0.0, 0.0, 0.0]; max = [1.0, 0.8, 0.1]; }; };\n"
      "systems = ( { name = \"water\"; solver = \"flip\";\n"
      "  shape = ( { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
      "              max = [1.0, 0.3, 0.1]; },\n"
      "            { type = \"box\"; min = [0.0, 0.3, 0.0];\n"
      "              max = [0.4, 0.6, 0.1]; } );\n"
      "  spacing = 0.008333333333333333; } );\n",
      "water", 40);
}
END_TEST

/* Sum of the named statistic the system reported since the last frame. */
static double stat_of(const struct ms__system *y, const char *name) {
  for (size_t k = 0; k < y->ctx.nstats; k++)
    if (!strcmp(y->ctx.stats[k].name, name)) return y->ctx.stats[k].value;
  return NAN;
}

/* The force the water's pressure puts on a box of side n spacings (0.02
 * m), its corner at [c, 0.16 - draft, c], held with `draft` of it under
 * still water 0.16 m deep, the water built around it (so the surface stays
 * at 0.16 m): pushed impulse over the first step divided by its length
 * [N].  With `pocket`, the box (as points) lacks its central 2 x 2 x 2
 * particles and the water fills that hole instead. */
static double held_box_force(int n, double c, double draft, int pocket) {
  char text[32768], body[24576], hole[1024], water_hole[1100] = "";
  const double lo = 0.16 - draft, side = 0.02 * n, c1 = c + side;
  size_t nb = 0, nh = 0;
  int count = 0, m0 = n / 2 - 1;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++) {
        int in = pocket && i >= m0 && i <= m0 + 1 && j >= m0 &&
                 j <= m0 + 1 && k >= m0 && k <= m0 + 1;
        char *b = in ? hole : body;
        size_t *len = in ? &nh : &nb, cap = in ? sizeof hole : sizeof body;
        *len += (size_t)snprintf(b + *len, cap - *len, "%s[%.4f, %.4f, %.4f]",
                                 *len ? ", " : "", c + 0.01 + 0.02 * i,
                                 lo + 0.01 + 0.02 * j, c + 0.01 + 0.02 * k);
        count += !in;
      }
  if (pocket)
    snprintf(water_hole, sizeof water_hole,
             ",\n   { type = \"points\"; points = ( %s ); }", hole);
  snprintf(text, sizeof text,
           "scene = { duration = 0.1; fps = 10.0;\n"
           "  domain = { min = [0.0, 0.0, 0.0]; max = [0.4, 0.48, 0.4]; }; };\n"
           "coupling = { alpha = 0.0; beta = 0.0; };\n"
           "systems = ( { name = \"w\"; solver = \"flip\"; spacing = 0.02;\n"
           "  buoyancy = true; free_surface = \"ghost\";\n"
           "  shape = (\n"
           "   { type = \"box\"; min = [0.0, 0.0, 0.0]; max = [0.4, %g, 0.4]; jitter = 0.0; },\n"
           "   { type = \"box\"; min = [0.0, %g, 0.0]; max = [%g, 0.16, 0.4]; jitter = 0.0; },\n"
           "   { type = \"box\"; min = [%g, %g, 0.0]; max = [0.4, 0.16, 0.4]; jitter = 0.0; },\n"
           "   { type = \"box\"; min = [%g, %g, 0.0]; max = [%g, 0.16, %g]; jitter = 0.0; },\n"
           "   { type = \"box\"; min = [%g, %g, %g]; max = [%g, 0.16, 0.4]; jitter = 0.0; }%s ); },\n"
           "  { name = \"box\"; solver = \"rigid\"; spacing = 0.02; density = 500.0;\n"
           "    motion = \"fixed\"; radius = 0.01;\n"
           "    shape = { type = \"points\"; points = ( %s ); }; } );\n",
           lo, lo, c, c1, lo, c, lo, c1, c, c, lo, c1, c1, water_hole, body);
  ms_sim *S = st_open_text(text, 1);
  struct ms__system *w = st_system(S, "w");
  ck_assert_uint_eq(st_system(S, "box")->view.count, (size_t)count);
  st_step(S);
  double F = stat_of(w, "pushed_impulse_y") / ms_sim_time(S);
  st_close(S);
  return F;
}

/* Archimedes: a box held at any draft, its bottom on a cell face or inside
 * a cell, takes rho g A draft from the water's pressure, to the pressure
 * solve's tolerance (doc/buoyancy.md, section 3). */
START_TEST(buoyancy_is_archimedes_at_any_draft) {
  for (int k = 1; k <= 5; k++) {
    double draft = 0.02 * k, want = 1000.0 * 9.81 * 0.0144 * draft;
    double F = held_box_force(6, 0.14, draft, 0);
    fprintf(stderr, "# held box, draft %.2f m: %.6f N from the pressure, "
            "Archimedes %.6f N (relative difference %.1e)\n", draft, F, want,
            fabs(F - want) / want);
    ck_assert_double_le(fabs(F - want), 1e-6 * want);
  }
}
END_TEST

/* Water closed in by a body (a pocket with no air: its pressure is fixed
 * only up to a constant) does not set the pressure the body's faces take.
 * A box of 8 spacings on the cells' lattice (its outer cells hold no
 * water, so the pocket is walled in), held with 0.12 m of it under the
 * water, with a 2 x 2 x 2 hole full of water: Archimedes' force on what
 * its particles fill, rho g (A draft - V_hole). */
START_TEST(buoyancy_ignores_water_closed_in) {
  const double want = 1000.0 * 9.81 * (0.0256 * 0.12 - 8 * 8e-6);
  double F = held_box_force(8, 0.12, 0.12, 1);
  fprintf(stderr, "# held box with a pocket of water: %.6f N from the "
          "pressure, Archimedes %.6f N (relative difference %.1e)\n", F,
          want, fabs(F - want) / want);
  ck_assert_double_le(fabs(F - want), 1e-6 * want);
}
END_TEST

/* Cells holding another system's particles count as fluid (paper Sec. 6.2):
 * five grains in five empty cells add exactly five unknowns. */
START_TEST(other_systems_fill_cells) {
  for (int couple = 0; couple < 2; couple++) {
    char text[2048];
    snprintf(text, sizeof text,
             "scene = { duration = 0.1; fps = 10.0;\n"
             "  domain = { min = [0.0, 0.0, 0.0];\n"
             "             max = [0.4, 0.6, 0.4]; }; };\n"
             "systems = ( { name = \"w\"; solver = \"flip\"; spacing = 0.025;\n"
             "  couple_cells = %s;\n"
             "  shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
             "            max = [0.4, 0.2, 0.4]; }; },\n"
             " { name = \"g\"; solver = \"particles\"; radius = 0.01;\n"
             "  shape = { type = \"points\"; points = ( [0.12, 0.42, 0.12],\n"
             "    [0.17, 0.42, 0.12], [0.32, 0.52, 0.22], [0.02, 0.37, 0.37],\n"
             "    [0.22, 0.57, 0.02], [0.23, 0.58, 0.03] ); }; } );\n",
             couple ? "true" : "false");
    ms_sim *S = st_open_text(text, 1);
    struct ms__system *w = st_system(S, "w");
    ck_assert_uint_eq(w->ctx.nstats, 0);
    st_step(S);
    ck_assert_uint_eq(S->stepper.frame_counts.stage2_steps, 0);
    double cells = stat_of(w, "fluid_cells");
    /* 8 x 4 x 8 cells of water; the last two grains share a cell */
    ck_assert_msg(cells == 256.0 + (couple ? 5.0 : 0.0), "%g cells", cells);
    st_close(S);
  }
}
END_TEST

/* A heavy ball (a `particles` system of one particle) dropped into a pool
 * is slowed by the water through merging-and-splitting: compared with the
 * same scene without coupling (free fall) it is higher and slower after
 * 0.16 s. */
START_TEST(ball_slowed_by_water) {
  double y[2], v[2], pw[2];
  for (int couple = 0; couple < 2; couple++) {
    char text[2048];
    snprintf(text, sizeof text,
             "scene = { duration = 0.16; fps = 100.0;\n"
             "  domain = { min = [0.0, 0.0, 0.0];\n"
             "             max = [0.4, 0.6, 0.4]; }; };\n"
             "coupling = { method = \"%s\"; };\n"
             "systems = ( { name = \"w\"; solver = \"flip\"; spacing = 0.025;\n"
             "  shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
             "            max = [0.4, 0.2, 0.4]; }; },\n"
             " { name = \"ball\"; solver = \"particles\"; radius = 0.05;\n"
             "  mass = 1.0; velocity = [0.0, -1.0, 0.0];\n"
             "  shape = { type = \"points\"; points = ( [0.2, 0.4, 0.2] ); };\n"
             "  } );\n",
             couple ? "merge-split" : "none");
    ms_sim *S = st_open_text(text, 1);
    struct ms__system *w = st_system(S, "w"), *b = st_system(S, "ball");
    while (S->frame < S->frames_total) ck_assert_int_eq(ms_sim_frame(S), 0);
    ck_assert(isfinite(st_max_speed(S)));
    ck_assert(all_inside(w, S->scene.domain_min, S->scene.domain_max));
    y[couple] = ms__at(&b->x, 0)[1];
    v[couple] = ms__at(&b->v, 0)[1];
    pw[couple] = 0.0;
    for (size_t i = 0; i < w->view.count; i++)
      pw[couple] += *ms__at(&w->m, i) * ms__at(&w->v, i)[1];
    if (couple) ck_assert_uint_gt(S->run_counts.metas, 0);
    st_close(S);
  }
  /* free fall: y = 0.4 - 0.16 - 9.81 0.16^2 / 2 = 0.1144, v = -2.57 */
  fprintf(stderr, "# ball: free fall y %.4f v %.4f; in water y %.4f v %.4f; "
          "water momentum %.4f, alone %.4f\n", y[0], v[0], y[1], v[1], pw[1],
          pw[0]);
  ck_assert(fabs(y[0] - 0.1144) < 5e-3 && fabs(v[0] + 2.5696) < 1e-6);
  ck_assert_msg(y[1] > y[0] + 0.01, "ball at %g, free fall %g", y[1], y[0]);
  ck_assert_msg(v[1] > 0.8 * v[0], "ball at %g m/s, free fall %g", v[1],
                v[0]);
  ck_assert(fabs(pw[0]) < 1e-3); /* the water alone stays at rest */
}
END_TEST

/* scene.scale refines the particles by scale^(1/3) and the cells by the
 * whole number nearest to it: 8x the particles at scale 8 (both twice
 * finer), still 8 per cell; at scale 2 the particles are 2^(1/3) finer
 * (16 -> 20 per edge: the lattice fits 0.4 / (0.025 / 2^(1/3)) = 20.2)
 * and the cells stay; `cell_size` alone changes the particles per cell. */
START_TEST(scale_and_cell_size) {
  static const char *const scale[] = {"1.0", "8.0", "1.0", "2.0"};
  static const char *const extra[] = {"", "", "cell_size = 0.1;", ""};
  const size_t want[] = {4096, 32768, 4096, 8000};
  const double cells[] = {512.0, 4096.0, 64.0, 512.0};
  for (int c = 0; c < 4; c++) {
    char text[1024];
    snprintf(text, sizeof text,
             "scene = { duration = 0.1; scale = %s;\n"
             "  domain = { min = [0.0, 0.0, 0.0];\n"
             "             max = [0.4, 0.4, 0.4]; }; };\n"
             "systems = ( { name = \"w\"; solver = \"flip\"; spacing = 0.025;\n"
             "  shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
             "            max = [0.4, 0.4, 0.4]; }; %s } );\n", scale[c],
             extra[c]);
    ms_sim *S = st_open_text(text, 1);
    struct ms__system *w = st_system(S, "w");
    ck_assert_uint_eq(w->view.count, want[c]);
    st_step(S);
    /* a full closed tank: every cell is fluid */
    double n = stat_of(w, "fluid_cells");
    ck_assert_msg(n == cells[c], "case %d: %g cells", c, n);
    st_close(S);
  }
}
END_TEST

/* Water poured onto a box obstacle: the particles seeded inside it are
 * dropped, and no particle ever enters it (its cells are solid, its faces
 * closed, particles pushed out). */
START_TEST(obstacle_keeps_water_out) {
  ms_sim *S = st_open_text(
      "scene = { duration = 0.6; fps = 10.0;\n"
      "  domain = { min = [0.0, 0.0, 0.0]; max = [0.6, 0.6, 0.2]; }; };\n"
      "systems = ( { name = \"w\"; solver = \"flip\"; spacing = 0.025;\n"
      "  obstacles = ( { min = [0.2, 0.0, 0.0]; max = [0.4, 0.3, 0.2]; } );\n"
      "  shape = { type = \"box\"; min = [0.0, 0.2, 0.0];\n"
      "            max = [0.6, 0.4, 0.2]; jitter = 0.0; }; } );\n",
      1);
  struct ms__system *w = st_system(S, "w");
  /* 24 x 8 x 8 lattice points, of which 8 x 4 x 8 lie in the obstacle */
  ck_assert_uint_eq(w->view.count, 24 * 8 * 8 - 8 * 4 * 8);
  size_t inside = 0;
  double low = 1.0;
  while (ms_sim_time(S) < 0.6 - 1e-9) {
    st_step(S);
    for (size_t i = 0; i < w->view.count; i++) {
      const double *x = ms__at(&w->x, i);
      inside += x[0] > 0.2 && x[0] < 0.4 && x[1] < 0.3;
      low = fmin(low, x[1]);
    }
  }
  ck_assert(isfinite(st_max_speed(S)));
  ck_assert_msg(inside == 0, "%zu particle positions inside the obstacle",
                inside);
  ck_assert(low < 0.05); /* the water beside the obstacle reached the floor */
  st_close(S);
}
END_TEST

/* Without a domain the tank is fitted around the water, 4 cells of 0.1 m
 * beyond it: [-0.4, 0.6] on every axis here.  The water falls to its
 * floor and stays inside. */
START_TEST(tank_fitted_without_domain) {
  ms_sim *S = st_open_text(
      "scene = { duration = 0.6; fps = 10.0; };\n"
      "systems = ( { name = \"w\"; solver = \"flip\"; spacing = 0.05;\n"
      "  shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
      "            max = [0.2, 0.2, 0.2]; }; } );\n",
      1);
  struct ms__system *w = st_system(S, "w");
  const double lo[3] = {-0.4, -0.4, -0.4}, hi[3] = {0.6, 0.6, 0.6};
  ck_assert_uint_eq(w->view.count, 64);
  double low = 1.0;
  while (ms_sim_time(S) < 0.6 - 1e-9) {
    st_step(S);
    ck_assert(all_inside(w, lo, hi));
    for (size_t i = 0; i < w->view.count; i++)
      low = fmin(low, ms__at(&w->x, i)[1]);
  }
  ck_assert_msg(low < -0.35, "lowest particle at %g", low);
  st_close(S);
}
END_TEST

/* Water particles below the cloth by more than a contact distance (the
 * cloth's height under a particle: bilinear over the quad of the cloth's
 * initial footprint the particle lies in). */
static size_t through_cloth(const struct ms__system *cl,
                            const struct ms__system *w, int nu, int nv,
                            const double corner[3], double eu, double ev,
                            double gap) {
  size_t n = 0;
  for (size_t i = 0; i < w->view.count; i++) {
    const double *x = ms__at(&w->x, i);
    double s = (x[0] - corner[0]) / eu * (nu - 1);
    double t = (x[2] - corner[2]) / ev * (nv - 1);
    if (!(s > 0.0 && s < nu - 1 && t > 0.0 && t < nv - 1)) continue;
    int a = (int)s, b = (int)t;
    double fs = s - a, ft = t - b;
    double y00 = ms__at(&cl->x, (size_t)b * nu + a)[1];
    double y10 = ms__at(&cl->x, (size_t)b * nu + a + 1)[1];
    double y01 = ms__at(&cl->x, (size_t)(b + 1) * nu + a)[1];
    double y11 = ms__at(&cl->x, (size_t)(b + 1) * nu + a + 1)[1];
    double y = (1 - fs) * (1 - ft) * y00 + fs * (1 - ft) * y10 +
               (1 - fs) * ft * y01 + fs * ft * y11;
    n += x[1] < y - gap;
  }
  return n;
}

static void no_log(void *opaque, int level, const char *line) {
  (void)opaque, (void)level, (void)line;
}

/* FLIP water poured onto a mass_spring cloth (configs/paper/fig09_flip_cloth.cfg,
 * paper Fig. 9): with merging-and-splitting no water particle passes
 * through the sheet over the scene's 1.5 s and nothing becomes NaN, with
 * either synchronisation; without coupling the same count finds the water
 * below the cloth. */
START_TEST(water_stays_on_cloth) {
  const double corner[3] = {-0.4, 0.5, -0.4};
  const double gap = 0.8 / 23 / 2 + 0.02; /* cloth + water radius */
  const char *const sync[3] = {"momentum", "paper", NULL};
  double sags[2] = {0.0, 0.0};
  for (int mode = 0; mode < 3; mode++) {
    const int couple = mode < 2;
    char path[4096], err[1024];
    snprintf(path, sizeof path, "%s/paper/fig09_flip_cloth.cfg", getenv("MS_CONFIGS"));
    struct ms_sim_options o = {.struct_size = sizeof o, .threads = 1,
                               .no_output = 1, .log = no_log,
                               .method = couple ? NULL : "none",
                               .sync = sync[mode]};
    ms_sim *S = NULL;
    ck_assert_msg(ms_sim_open(path, &o, &S, err, sizeof err) == 0, "%s", err);
    struct ms__system *cl = st_system(S, "cloth"), *w = st_system(S, "water");
    ck_assert_uint_eq(cl->view.count, 24 * 24);
    ck_assert_uint_eq(w->view.count, 512);
    size_t worst = 0;
    double sag = 0.5, end = couple ? 1.5 : 0.5;
    while (ms_sim_time(S) < end - 1e-9) {
      st_step(S);
      ck_assert_msg(isfinite(st_max_speed(S)), "NaN at t = %g",
                    ms_sim_time(S));
      size_t n = through_cloth(cl, w, 24, 24, corner, 0.8, 0.8, gap);
      worst = n > worst ? n : worst;
      for (size_t i = 0; i < cl->view.count; i++)
        sag = fmin(sag, ms__at(&cl->x, i)[1]);
    }
    fprintf(stderr, "# water on cloth (%s%s): at most %zu water particles "
            "through the cloth, cloth down to y = %.3f m\n",
            couple ? "merge-split, sync " : "uncoupled",
            couple ? sync[mode] : "", worst, sag);
    if (couple) {
      ck_assert_msg(worst == 0, "%zu water particles went through", worst);
      /* the water landed on the cloth and weighs on it: the cloth alone
       * (the scene without its water) comes to rest at 0.466 m and never
       * goes below 0.463 m. */
      ck_assert_msg(sag < 0.45, "cloth only down to %g m", sag);
      sags[mode] = sag;
    } else {
      ck_assert_uint_gt(worst, 400); /* the count does see water through */
    }
    st_close(S);
  }
  /* The paper's rule sags the cloth deeper under the same water, only
   * because Eq. 17 hands the meta-particles m_cloth / M of the cloth's
   * impulse while the cloth takes the whole reaction: the cloth must push
   * harder than the load (doc/sync.md). */
  ck_assert_msg(sags[1] < sags[0] - 0.01, "sync paper: %g m, momentum: %g m",
                sags[1], sags[0]);
}
END_TEST

/* Water's mechanical energy, kinetic plus potential (y up, g = 9.81);
 * the kinetic part in *kinetic. */
static double water_energy(const struct ms__system *w, double *kinetic) {
  double ke = 0.0, pe = 0.0;
  for (size_t i = 0; i < w->view.count; i++) {
    const double *v = ms__at(&w->v, i), m = *ms__at(&w->m, i);
    ke += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    pe += m * 9.81 * ms__at(&w->x, i)[1];
  }
  *kinetic = ke;
  return ke + pe;
}

/* The plugin's side of held_neighbours_feed_no_runaway (test_flip_
 * transfer.c): water slides down a sheet whose every particle is pinned
 * and 64 times as heavy as a water particle, so each meta-particle the
 * water forms with it is held at rest.  Nothing feeds the water: its
 * kinetic plus potential energy never rises from one frame to the next
 * (by more than 0.5 % of the start, FLIP's noise), and after 1 s it has
 * come to rest (kinetic energy under 5 % of what it lost).  Members that
 * entered the grid with their share of the whole meta-particle's mass
 * gained 0.47 J within a frame and kept 0.7 J of motion. */
START_TEST(held_sheet_feeds_no_energy) {
  ms_sim *S = st_open_text(
      "scene = { duration = 1.0; fps = 20.0; gravity = [0.0, -9.81, 0.0];\n"
      "  domain = { min = [0.0, 0.0, 0.0]; max = [0.6, 0.6, 0.3]; }; };\n"
      "coupling = { method = \"merge-split\"; };\n"
      "systems = ( { name = \"w\"; solver = \"flip\"; spacing = 0.025;\n"
      "  shape = { type = \"box\"; min = [0.35, 0.3, 0.0];\n"
      "            max = [0.5, 0.4, 0.3]; }; },\n"
      " { name = \"sheet\"; solver = \"mass_spring\"; mass = 1.0;\n"
      "  cloth = { corner = [0.0, 0.02, 0.0]; edge_u = [0.6, 0.3, 0.0];\n"
      "            edge_v = [0.0, 0.0, 0.3]; resolution = [28, 14]; };\n"
      "  pins = ( { min = [-1.0, -1.0, -1.0]; max = [1.0, 1.0, 1.0]; } );\n"
      " } );\n",
      1);
  struct ms__system *w = st_system(S, "w");
  double ke;
  const double e0 = water_energy(w, &ke);
  double prev = e0, rise = 0.0;
  while (S->frame < S->frames_total) {
    ck_assert_int_eq(ms_sim_frame(S), 0);
    double e = water_energy(w, &ke);
    rise = fmax(rise, e - prev);
    prev = e;
  }
  ck_assert_uint_gt(S->run_counts.metas, 1000);
  fprintf(stderr, "# water on a held sheet: energy %.3f -> %.3f J, largest "
          "rise in a frame %.3f J, kinetic at 1 s %.3f J\n", e0, prev, rise,
          ke);
  ck_assert_msg(rise <= 5e-3 * e0, "energy rose by %g J in a frame", rise);
  ck_assert_msg(ke < 0.05 * (e0 - prev), "still %g J of motion", ke);
  st_close(S);
}
END_TEST

Suite *suite_flip_scenes(void) {
  Suite *s = suite_create("flip_scenes");
  TCase *t = tcase_create("scenes");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, still_water);
  tcase_add_test(t, dam_break_keeps_volume);
  tcase_add_test(t, dam_break_makes_no_energy);
  tcase_add_test(t, ghost_fluid_puts_the_surface_at_the_water);
  tcase_add_test(t, ghost_fluid_surface_of_a_jittered_pool);
  tcase_add_test(t, jittered_seeds_start_clear_of_the_walls);
  tcase_add_test(t, buoyancy_carries_a_submerged_body);
  tcase_add_test(t, buoyancy_is_archimedes_at_any_draft);
  tcase_add_test(t, buoyancy_ignores_water_closed_in);
  tcase_add_test(t, same_result_any_thread_count);
  tcase_add_test(t, other_systems_fill_cells);
  tcase_add_test(t, ball_slowed_by_water);
  tcase_add_test(t, scale_and_cell_size);
  tcase_add_test(t, obstacle_keeps_water_out);
  tcase_add_test(t, tank_fitted_without_domain);
  tcase_add_test(t, water_stays_on_cloth);
  tcase_add_test(t, held_sheet_feeds_no_energy);
  suite_add_tcase(s, t);
  return s;
}
