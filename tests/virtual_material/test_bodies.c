/* Virtual-material bodies through the host: a free spinning body keeps
 * its momentum and angular momentum while its vibration dies away; a
 * cube bounces on the floor and keeps its shape; a checkpoint resumes
 * bit for bit and the thread count changes nothing; bad settings get one
 * line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../scenes/simtest.h"
#include "../../core/step/step.h"
#include "../../plugins/common/polar.h"
#include "../../plugins/virtual_material/virtual_material.h"
#include <mergesplit/plugin_util.h>
#include "suites.h"

#define ZERO_G                                                              \
  "scene = { duration = 1.0; fps = 20.0; gravity = [0.0, 0.0, 0.0];\n"      \
  "  domain = { min = [-1.0, -1.0, -1.0]; max = [1.0, 1.0, 1.0]; }; };\n"

/* A 6 x 4 x 3 block (spacing 1 cm) spinning about an axis off its
 * principal ones, free. */
static const char spin[] =
    ZERO_G "systems = ( { name = \"vm\"; solver = \"virtual_material\";\n"
           "  shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
           "            max = [0.06, 0.04, 0.03]; }; spacing = 0.01;\n"
           "  stiffness = 2000.0; velocity = [0.1, 0.0, -0.2];\n"
           "  angular_velocity = [2.0, 6.0, 3.0]; } );\n";

/* Total momentum and angular momentum (about the origin) of system y, and
 * the kinetic energy of its motion that is not the body's rigid one. */
static void momenta(const struct ms__system *y, double *P, double *L,
                    double *vib) {
  double M = 0.0, c[3] = {0, 0, 0}, ke = 0.0, I[6] = {0}, Lc[3] = {0, 0, 0};
  P[0] = P[1] = P[2] = L[0] = L[1] = L[2] = 0.0;
  for (size_t i = 0; i < y->view.count; i++) {
    double m = *ms__at(&y->m, i);
    const double *x = ms__at(&y->x, i), *v = ms__at(&y->v, i);
    M += m;
    for (int a = 0; a < 3; a++) P[a] += m * v[a], c[a] += m * x[a];
    L[0] += m * (x[1] * v[2] - x[2] * v[1]);
    L[1] += m * (x[2] * v[0] - x[0] * v[2]);
    L[2] += m * (x[0] * v[1] - x[1] * v[0]);
    ke += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  }
  for (int a = 0; a < 3; a++) c[a] /= M;
  for (size_t i = 0; i < y->view.count; i++) {
    double m = *ms__at(&y->m, i);
    const double *x = ms__at(&y->x, i), *v = ms__at(&y->v, i);
    double d[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
    double u[3] = {v[0] - P[0] / M, v[1] - P[1] / M, v[2] - P[2] / M};
    double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    double e[6] = {dd, dd, dd, 0, 0, 0};
    ms_sym3_add(I, e, m);
    ms_sym3_add_outer(I, d, -m);
    Lc[0] += m * (d[1] * u[2] - d[2] * u[1]);
    Lc[1] += m * (d[2] * u[0] - d[0] * u[2]);
    Lc[2] += m * (d[0] * u[1] - d[1] * u[0]);
  }
  double w[3];
  memcpy(w, Lc, sizeof w);
  ck_assert(ms_sym3_solve(w, I, w));
  double rigid = 0.5 * (P[0] * P[0] + P[1] * P[1] + P[2] * P[2]) / M +
                 0.5 * (w[0] * Lc[0] + w[1] * Lc[1] + w[2] * Lc[2]);
  *vib = ke - rigid;
}

/* Run a free spinning body: its momentum's and angular momentum's
 * largest relative drift, its vibration energy at most in the first 0.2 s
 * and at the end; the steps. */
static size_t spin_run(const char *text, double *dp, double *dl,
                       double *vib_max, double *vib_end) {
  ms_sim *S = st_open_text(text, 1);
  struct ms__system *y = st_system(S, "vm");
  double P0[3], L0[3], vib, P[3], L[3];
  *dp = *dl = *vib_max = 0.0;
  momenta(y, P0, L0, &vib);
  double p0 = sqrt(P0[0] * P0[0] + P0[1] * P0[1] + P0[2] * P0[2]);
  double l0 = sqrt(L0[0] * L0[0] + L0[1] * L0[1] + L0[2] * L0[2]);
  size_t steps = 0;
  while (S->stepper.time < S->scene.duration - 1e-9) {
    st_step(S);
    steps++;
    momenta(st_system(S, "vm"), P, L, &vib);
    for (int a = 0; a < 3; a++) {
      *dp = fmax(*dp, fabs(P[a] - P0[a]) / p0);
      *dl = fmax(*dl, fabs(L[a] - L0[a]) / l0);
    }
    if (S->stepper.time < 0.2) *vib_max = fmax(*vib_max, vib);
  }
  *vib_end = vib;
  st_close(S);
  return steps;
}

/* Rigid motion is undamped, on either lattice: the spinning block keeps
 * its momentum and angular momentum while its vibration dies away. */
START_TEST(a_free_spinning_body_keeps_its_momenta_while_it_stops_ringing) {
  static const char packed[] =
      ZERO_G "systems = ( { name = \"vm\"; solver = \"virtual_material\";\n"
             "  lattice = \"ccp\";\n"
             "  shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
             "            max = [0.06, 0.04, 0.03]; }; spacing = 0.01;\n"
             "  stiffness = 2000.0; velocity = [0.1, 0.0, -0.2];\n"
             "  angular_velocity = [2.0, 6.0, 3.0]; } );\n";
  const char *texts[2] = {spin, packed};
  for (int k = 0; k < 2; k++) {
    double dp, dl, vib_max, vib;
    size_t steps = spin_run(texts[k], &dp, &dl, &vib_max, &vib);
    fprintf(stderr, "# spinning (%s): %zu steps over 1 s; momentum kept to "
            "%.2g, angular momentum to %.2g; vibration %.3g J at most in the "
            "first 0.2 s, %.3g J at 1 s\n", k ? "ccp" : "cubic", steps, dp,
            dl, vib_max, vib);
    ck_assert_msg(dp < 1e-12, "momentum drift %g", dp);
    ck_assert_msg(dl < 1e-6, "angular momentum drift %g", dl);
    ck_assert(vib_max > 0.0);
    ck_assert_msg(vib < 0.1 * vib_max, "vibration %g of %g left", vib,
                  vib_max);
  }
}
END_TEST

/* Largest RMS distance of system y's particles from x0 (their first
 * positions) moved rigidly as best fits them (Kabsch through the polar
 * decomposition of the cross-covariance). */
static double rms_from_rigid(const struct ms__system *y, const double *x0) {
  size_t n = y->view.count;
  double c[3] = {0, 0, 0}, c0[3] = {0, 0, 0}, H[9] = {0}, R[9];
  double q[4] = {1, 0, 0, 0};
  for (size_t i = 0; i < n; i++)
    for (int a = 0; a < 3; a++)
      c[a] += ms__at(&y->x, i)[a] / n, c0[a] += x0[3 * i + a] / n;
  for (size_t i = 0; i < n; i++)
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++)
        H[3 * a + b] += (ms__at(&y->x, i)[a] - c[a]) * (x0[3 * i + b] - c0[b]);
  msc_polar(H, R, q);
  double s = 0.0;
  for (size_t i = 0; i < n; i++)
    for (int a = 0; a < 3; a++) {
      double g = c[a];
      for (int b = 0; b < 3; b++) g += R[3 * a + b] * (x0[3 * i + b] - c0[b]);
      double e = ms__at(&y->x, i)[a] - g;
      s += e * e;
    }
  return sqrt(s / n);
}

/* A 4 x 4 x 4 cube (spacing 1 cm) dropped spinning from 0.1 m onto the
 * floor (restitution 0.5), thrown down at `speed` [m/s]. */
#define DROP(speed) DROP_WITH(speed, "")
#define DROP_WITH(speed, extra)                                              \
  "scene = { duration = 1.5; fps = 20.0; gravity = [0.0, -9.81, 0.0];\n"     \
  "  domain = { min = [-0.2, 0.0, -0.2]; max = [0.2, 0.4, 0.2]; }; };\n"     \
  "systems = ( { name = \"vm\"; solver = \"virtual_material\";\n"          \
  "  shape = { type = \"box\"; min = [-0.02, 0.1, -0.02];\n"               \
  "            max = [0.02, 0.14, 0.02]; }; spacing = 0.01;\n"              \
  "  stiffness = 5000.0; wall_restitution = 0.5;\n"                        \
  "  velocity = [0.0, -" speed ", 0.0];\n"                                 \
  "  angular_velocity = [0.0, 0.0, 2.0]; " extra " } );\n"

/* RMS distance from the rest shape moved rigidly, worst and at the end,
 * of the cube of `text` run to its end; *low (may be NULL): the lowest
 * particle centre reached. */
static void shape_kept(const char *text, double *worst, double *end,
                       double *low) {
  ms_sim *S = st_open_text(text, 1);
  struct ms__system *y = st_system(S, "vm");
  size_t n = y->view.count;
  double *x0 = malloc(3 * n * sizeof *x0), lowest = INFINITY;
  for (size_t i = 0; i < n; i++)
    memcpy(x0 + 3 * i, ms__at(&y->x, i), 3 * sizeof *x0);
  *worst = 0.0;
  while (S->stepper.time < S->scene.duration - 1e-9) {
    st_step(S);
    y = st_system(S, "vm");
    *worst = fmax(*worst, rms_from_rigid(y, x0));
    for (size_t i = 0; i < n; i++) lowest = fmin(lowest, ms__at(&y->x, i)[1]);
  }
  *end = rms_from_rigid(y, x0);
  if (low) *low = lowest;
  free(x0);
  st_close(S);
}

/* A cube dropped spinning from 0.1 m (restitution 0.5) bounces and
 * settles in its own shape. */
START_TEST(a_cube_bounces_and_keeps_its_shape) {
  double worst, end, low;
  shape_kept(DROP("0.0"), &worst, &end, &low);
  fprintf(stderr, "# bounce: lowest centre %.4f m; RMS from the rigidly "
          "moved rest shape %.3g m at worst, %.3g m (%.2f %% of the "
          "spacing) at 1.5 s\n", low, worst, end, 100.0 * end / 0.01);
  ck_assert(low < 0.006); /* it reached the floor */
  ck_assert_msg(end < 0.02 * 0.01, "shape lost: %g m", end);
}
END_TEST

/* Inherent plasticity (Wicke et al. sect. 4.1): the material keeps no
 * rest state, so a deformation that takes neighbours off their lattice
 * points is not undone.  The cube thrown onto the floor at 4 m/s is
 * squeezed and springs back to its shape; at 6 m/s its layers slide
 * past their lattice points and it stays flattened (the threshold,
 * between 4.7 and 5.0 m/s here, is measured, not predicted). */
START_TEST(a_hard_landing_dents_for_good) {
  double soft_worst, soft_end, hard_worst, hard_end;
  shape_kept(DROP("4.0"), &soft_worst, &soft_end, NULL);
  shape_kept(DROP("6.0"), &hard_worst, &hard_end, NULL);
  fprintf(stderr, "# landing at 4 / 6 m/s: RMS from the rest shape %.3g / "
          "%.3g m at worst, %.3g / %.3g m (%.1f / %.0f %% of the spacing) "
          "at 1.5 s\n", soft_worst, hard_worst, soft_end, hard_end,
          100 * soft_end / 0.01, 100 * hard_end / 0.01);
  ck_assert_msg(soft_worst > 0.1 * 0.01, "4 m/s did not squeeze it");
  ck_assert_msg(soft_end < 0.02 * 0.01, "4 m/s: not back (%g m)", soft_end);
  ck_assert_msg(hard_end > 0.5 * 0.01, "6 m/s: back (%g m)", hard_end);
}
END_TEST

/* The modulus the parameters imply (README: under a small uniform
 * strain a neighbourhood stores (k c / 4) tr(e^2), so E = k c / (2 D^3),
 * c = sum over the lattice points l within the support of w(|l|) l_x^2,
 * Poisson's ratio 0), c the plugin's own lattice moment (a strained hood
 * storing (k c / 4) tr(e^2) is checked in the lattice suite). */
static double modulus(double k, double D, double support) {
  return k * vm_lattice_moment(D, support * D, 0) / (2.0 * vm_volume(D, 0));
}

/* Euler-Bernoulli: a 20 x 3 x 3 bar (spacing 1 cm, 0.2 x 0.03 x 0.03 m)
 * whose first two columns are held sags under gravity.  The load comes
 * at once, so the tip swings about its static deflection: the middle of
 * its swing (the first maximum over two: it starts at 0) and its mean
 * over the last 0.3 s (about two periods) are both held to within 15 %
 * of q L^4 / (8 E I), L = 0.18 m from the clamp's face, I = a^4 / 12. */
START_TEST(a_clamped_bar_sags_as_euler_bernoulli_says) {
  static const char text[] =
      "scene = { duration = 0.6; fps = 20.0; gravity = [0.0, -9.81, 0.0];\n"
      "  domain = { min = [0.0, -0.5, -0.1]; max = [0.5, 0.5, 0.1]; }; };\n"
      "systems = ( { name = \"vm\"; solver = \"virtual_material\";\n"
      "  shape = { type = \"box\"; min = [0.005, 0.0, 0.0];\n"
      "            max = [0.205, 0.03, 0.03]; }; spacing = 0.01;\n"
      "  density = 1000.0; stiffness = 100000.0;\n"
      "  hold = { min = [0.0, -1.0, -1.0]; max = [0.025, 1.0, 1.0]; }; } );\n";
  ms_sim *S = st_open_text(text, 1);
  struct ms__system *y = st_system(S, "vm");
  size_t n = y->view.count, tip[9], nt = 0;
  ck_assert_uint_eq(n, 180);
  for (size_t i = 0; i < n; i++)
    if (ms__at(&y->x, i)[0] > 0.199) tip[nt++] = i;
  ck_assert_uint_eq(nt, 9);
  double y0 = 0.015, top = 0.0, sum = 0.0;
  size_t count = 0;
  while (S->stepper.time < S->scene.duration - 1e-9) {
    st_step(S);
    y = st_system(S, "vm");
    double d = 0.0;
    for (size_t q = 0; q < nt; q++) d += (y0 - ms__at(&y->x, tip[q])[1]) / nt;
    top = fmax(top, d);
    if (S->stepper.time > 0.3) sum += d, count++;
  }
  st_close(S);
  double E = modulus(100000.0, 0.01, 1.5), a = 0.03, L = 0.18;
  double q = 1000.0 * 9.81 * a * a, I = a * a * a * a / 12.0;
  double want = q * L * L * L * L / (8.0 * E * I), mean = sum / count;
  fprintf(stderr, "# clamped bar: E = %.4g Pa from k; tip deflection %.4g m "
          "(middle of the swing) / %.4g m (mean of the last 0.3 s), "
          "Euler-Bernoulli %.4g m: ratios %.3f / %.3f\n", E, 0.5 * top, mean,
          want, 0.5 * top / want, mean / want);
  ck_assert_msg(fabs(0.5 * top / want - 1.0) < 0.15, "swing %g m", top);
  ck_assert_msg(fabs(mean / want - 1.0) < 0.15, "mean %g m", mean);
}
END_TEST

/* A 5 x 5 x 5 block (spacing 1 cm) on the floor, its top layer held
 * and pressed down at `speed` [m/s] for 0.2 s, then let go (hold with
 * velocity and until: a press). */
#define PRESS(speed)                                                        \
  "scene = { duration = 1.5; fps = 20.0; gravity = [0.0, -9.81, 0.0];\n"     \
  "  domain = { min = [-0.2, 0.0, -0.2]; max = [0.2, 0.4, 0.2]; }; };\n"     \
  "systems = ( { name = \"vm\"; solver = \"virtual_material\";\n"          \
  "  shape = { type = \"box\"; min = [-0.025, 0.0, -0.025];\n"             \
  "            max = [0.025, 0.05, 0.025]; }; spacing = 0.01;\n"           \
  "  stiffness = 5000.0; damping = 1.0;\n"                                 \
  "  hold = { min = [-1.0, 0.04, -1.0]; max = [1.0, 1.0, 1.0];\n"          \
  "           velocity = [0.0, -" speed ", 0.0]; until = 0.2; }; } );\n"

/* Inherent plasticity by a press: squeezed to half its height (the top
 * layer 2 cm down of the 4 between the layers) the block springs back to
 * its shape; squeezed by nine tenths (3.6 cm) it keeps a set.  The limit
 * is measured, not predicted: 80 % still returns (6 % of the spacing at
 * 1.5 s, ringing), 85 % keeps 93 %.  (The lattice's Poisson ratio is 0:
 * a uniform squeeze is affine, each neighbour stays on its point, and
 * only a squeeze that buckles the layers moves them off.) */
START_TEST(a_pressed_block_returns_below_the_limit_and_keeps_a_set_beyond) {
  double soft_worst, soft_end, hard_worst, hard_end;
  shape_kept(PRESS("0.1"), &soft_worst, &soft_end, NULL);  /* 2 cm */
  shape_kept(PRESS("0.18"), &hard_worst, &hard_end, NULL); /* 3.6 cm */
  fprintf(stderr, "# press to 50 / 90 %%: RMS from the rest shape %.3g / "
          "%.3g m at worst, %.3g / %.3g m (%.1f / %.0f %% of the spacing) "
          "at 1.5 s\n", soft_worst, hard_worst, soft_end, hard_end,
          100 * soft_end / 0.01, 100 * hard_end / 0.01);
  ck_assert_msg(soft_worst > 0.5 * 0.01, "50 %%: not squeezed");
  ck_assert_msg(soft_end < 0.02 * 0.01, "50 %%: not back (%g m)", soft_end);
  ck_assert_msg(hard_end > 0.2 * 0.01, "90 %%: back (%g m)", hard_end);
}
END_TEST

/* Heat conduction inside the material: a 20 x 3 x 3 bar at rest in zero
 * gravity (spacing 1 cm, L = 0.2 m), conductivity 4000 W/(m K), rho c =
 * 1e6 J/(m^3 K): alpha = 0.004 m^2/s.  Its temperature starts as 300 +
 * 10 cos(pi x / L) (insulated ends: the lattice's lowest cosine mode),
 * which decays at the discrete rate alpha 2 (1 - cos(pi D / L)) / D^2
 * (0.9 % below the continuum's alpha (pi / L)^2) to within 2 %, and the
 * heat sum stays to rounding.  (The conductance is normalised on a full
 * neighbourhood; the edge neighbours carry 3 % of it along x, and on
 * this thin bar every particle is on the surface, missing a quarter to
 * a half of them: about 1 % slower.) */
START_TEST(heat_conducts_through_the_lattice_as_diffusion_says) {
  static const char text[] =
      ZERO_G "systems = ( { name = \"vm\"; solver = \"virtual_material\";\n"
             "  shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
             "            max = [0.2, 0.03, 0.03]; }; spacing = 0.01;\n"
             "  conductivity = 4000.0; specific_heat = 1000.0; } );\n";
  ms_sim *S = st_open_text(text, 1);
  struct ms__system *y = st_system(S, "vm");
  size_t n = y->view.count;
  ck_assert_uint_eq(n, 180);
  const struct ms_field *T = NULL;
  for (uint32_t k = 0; k < y->view.field_count; k++)
    if (!strcmp(y->view.fields[k].name, "temperature")) T = &y->view.fields[k];
  ck_assert_ptr_nonnull(T);
  const double L = 0.2, D = 0.01, kx = M_PI / L;
  double *t = (double *)T->data, *u = malloc(n * sizeof *u), Q0 = 0.0;
  for (size_t i = 0; i < n; i++) {
    u[i] = cos(kx * ms__at(&y->x, i)[0]);
    t[i] = 300.0 + 10.0 * u[i];
    Q0 += *ms__at(&y->m, i) * 1000.0 * t[i];
  }
  double a0 = 0.0, uu = 0.0;
  for (size_t i = 0; i < n; i++) a0 += (t[i] - 300.0) * u[i], uu += u[i] * u[i];
  a0 /= uu;
  while (S->stepper.time < 0.5 - 1e-9) st_step(S);
  y = st_system(S, "vm");
  t = (double *)T->data;
  double a = 0.0, Q = 0.0;
  for (size_t i = 0; i < n; i++) {
    a += (t[i] - 300.0) * u[i] / uu;
    Q += *ms__at(&y->m, i) * 1000.0 * t[i];
  }
  double alpha = 4000.0 / (1000.0 * 1000.0);
  double want = alpha * 2.0 * (1.0 - cos(kx * D)) / (D * D);
  double got = -log(a / a0) / S->stepper.time;
  fprintf(stderr, "# conduction: the cosine mode decays at %.4f / s, the "
          "lattice's diffusion says %.4f / s (%.2f %%); heat sum kept to "
          "%.1e\n", got, want, 100.0 * (got / want - 1.0), fabs(Q / Q0 - 1.0));
  ck_assert_msg(fabs(got / want - 1.0) < 0.02, "rate %g, want %g", got, want);
  ck_assert_msg(fabs(Q / Q0 - 1.0) < 1e-13, "heat sum off by %g",
                Q / Q0 - 1.0);
  free(u);
  st_close(S);
}
END_TEST

/* The stretches of the two halves of the rod below (upper, lower), each
 * the middle of its swing; `soft` the lower half's stiffness. */
static void rod_halves(const char *soft, double *up, double *down) {
  char text[2048];
  snprintf(text, sizeof text,
      "scene = { duration = 0.5; fps = 20.0; gravity = [0.0, -9.81, 0.0];\n"
      "  domain = { min = [-0.1, 0.0, -0.1]; max = [0.1, 0.4, 0.1]; }; };\n"
      "systems = ( { name = \"vm\"; solver = \"virtual_material\";\n"
      "  spacing = 0.01; bodies = (\n"
      "  { object = \"rod\"; stiffness = 4000.0; shape = { type = \"box\";\n"
      "    min = [-0.015, 0.2, -0.015]; max = [0.015, 0.3, 0.015]; };\n"
      "    hold = { min = [-1.0, 0.28, -1.0]; max = [1.0, 1.0, 1.0]; }; },\n"
      "  { object = \"rod\"; stiffness = %s; shape = { type = \"box\";\n"
      "    min = [-0.015, 0.1, -0.015]; max = [0.015, 0.2, 0.015]; }; } ); } );\n",
      soft);
  ms_sim *S = st_open_text(text, 1);
  struct ms__system *y = st_system(S, "vm");
  size_t n = y->view.count;
  ck_assert_uint_eq(n, 180);
  /* rows: the lowest held (y 0.285), the soft half's top (0.195), the
   * bottom (0.105) */
  const double rows[3] = {0.285, 0.195, 0.105};
  double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  double *y0 = malloc(n * sizeof *y0);
  for (size_t i = 0; i < n; i++) y0[i] = ms__at(&y->x, i)[1];
  while (S->stepper.time < S->scene.duration - 1e-9) {
    st_step(S);
    y = st_system(S, "vm");
    double at[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++)
      for (int r = 0; r < 3; r++)
        if (fabs(y0[i] - rows[r]) < 1e-9) at[r] += ms__at(&y->x, i)[1] / 9.0;
    double u = (at[0] - at[1]) - 0.09, d = (at[1] - at[2]) - 0.09;
    lo[0] = fmin(lo[0], u), hi[0] = fmax(hi[0], u);
    lo[1] = fmin(lo[1], d), hi[1] = fmax(hi[1], d);
  }
  st_close(S);
  free(y0);
  *up = 0.5 * (lo[0] + hi[0]), *down = 0.5 * (lo[1] + hi[1]);
}

/* Material by region: a 3 x 20 x 3 rod hanging from its top two rows,
 * one lattice object of two bodies.  Under its weight a half stretches
 * by the integral of rho g (y - y_bottom) / E over it: the upper,
 * carrying the whole rod, 3/8 rho g L^2 / E_1, the lower 1/8 rho g L^2 /
 * E_2.  One material: the lower stretches 1/3 as much as the upper; the
 * lower half four times softer: 4/3.  Each within 15 %. */
START_TEST(each_region_of_one_object_keeps_its_own_stiffness) {
  double up1, down1, up4, down4;
  rod_halves("4000.0", &up1, &down1);
  rod_halves("1000.0", &up4, &down4);
  fprintf(stderr, "# regions: one material, the lower half stretches "
          "%.3f of the upper (1/3 says the weight); four times softer, "
          "%.3f (4/3)\n", down1 / up1, down4 / up4);
  ck_assert_msg(fabs(down1 / up1 * 3.0 - 1.0) < 0.15, "one: %g", down1 / up1);
  ck_assert_msg(fabs(down4 / up4 * 0.75 - 1.0) < 0.15, "two: %g", down4 / up4);
}
END_TEST

/* A clamp (hold): a bar whose first columns are held, spinning free
 * otherwise, in zero gravity: the held particles stay where they were,
 * bit for bit, while the free end swings. */
START_TEST(held_particles_stay_put) {
  static const char text[] =
      ZERO_G "systems = ( { name = \"vm\"; solver = \"virtual_material\";\n"
             "  shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
             "            max = [0.1, 0.03, 0.03]; }; spacing = 0.01;\n"
             "  stiffness = 2000.0; angular_velocity = [0.0, 0.0, 3.0];\n"
             "  hold = { min = [-1.0, -1.0, -1.0]; max = [0.02, 1.0, 1.0]; };\n"
             "} );\n";
  ms_sim *S = st_open_text(text, 1);
  struct ms__system *y = st_system(S, "vm");
  size_t n = y->view.count, held = 0;
  double *x0 = malloc(3 * n * sizeof *x0), moved = 0.0;
  for (size_t i = 0; i < n; i++) {
    memcpy(x0 + 3 * i, ms__at(&y->x, i), 3 * sizeof *x0);
    held += x0[3 * i] < 0.02;
  }
  for (int k = 0; k < 200; k++) st_step(S);
  y = st_system(S, "vm");
  for (size_t i = 0; i < n; i++) {
    const double *x = ms__at(&y->x, i);
    if (x0[3 * i] < 0.02)
      ck_assert_msg(!memcmp(x, x0 + 3 * i, 3 * sizeof *x), "held particle "
                    "%zu moved", i);
    else
      moved = fmax(moved, fabs(x[1] - x0[3 * i + 1]));
  }
  ck_assert_uint_eq(held, 18); /* two columns of 3 x 3 */
  ck_assert_msg(moved > 1e-3, "the free end did not swing (%g m)", moved);
  free(x0);
  st_close(S);
}
END_TEST

/* The particles that are solid now (the view's "solid" field). */
static size_t solids(const struct ms__system *y) {
  const struct ms_field *f = NULL;
  for (uint32_t k = 0; k < y->view.field_count; k++)
    if (!strcmp(y->view.fields[k].name, "solid")) f = &y->view.fields[k];
  ck_assert_ptr_nonnull(f);
  size_t c = 0;
  for (size_t i = 0; i < y->view.count; i++)
    c += ((const uint8_t *)f->data)[i * f->stride] != 0;
  return c;
}

/* A 5 x 5 x 5 block on the floor, a scene heat source holding all of it
 * at 400 K: above its melting point by 100 K at 0.02 / (s K). */
#define HEATED(extra)                                                        \
  "scene = { duration = 1.5; fps = 20.0; seed = 5;\n"                         \
  "  gravity = [0.0, -9.81, 0.0];\n"                                          \
  "  domain = { min = [-0.15, 0.0, -0.15]; max = [0.15, 0.2, 0.15]; };\n"     \
  "  heat_sources = ( { min = [-0.15, 0.0, -0.15];\n"                         \
  "    max = [0.15, 0.2, 0.15]; temperature = 400.0; } ); };\n"               \
  "systems = ( { name = \"vm\"; solver = \"virtual_material\";\n"             \
  "  shape = { type = \"box\"; min = [-0.025, 0.0, -0.025];\n"                \
  "  max = [0.025, 0.05, 0.025]; }; spacing = 0.01; stiffness = 3000.0;\n"    \
  "  speed_of_sound = 10.0; temperature = 250.0;\n"                           \
  "  melting_point = 300.0; melting_rate = 0.02; " extra " } );\n"
static const char heated[] = HEATED("");

/* Positions and velocities of every particle, in order. */
static double *state(ms_sim *S, size_t *n) {
  const struct ms__system *y = st_system(S, "vm");
  double *r = malloc(6 * y->view.count * sizeof *r);
  for (size_t i = 0; i < y->view.count; i++) {
    memcpy(r + 6 * i, ms__at(&y->x, i), 3 * sizeof *r);
    memcpy(r + 6 * i + 3, ms__at(&y->v, i), 3 * sizeof *r);
  }
  *n = 6 * y->view.count;
  return r;
}

/* `text` resumed after `frames` frames, and run on 2 threads: the bits
 * of the run in one go on 1. */
static void resumes_and_threads_alike(const char *text, int frames) {
  ms_sim *A, *C;
  st_resume_pair(text, frames, &A, &C);
  size_t na, nc;
  double *a = state(A, &na), *c = state(C, &nc);
  ck_assert_uint_eq(na, nc);
  ck_assert_msg(!memcmp(a, c, na * sizeof *a), "the resumed run differs");
  st_close(A), st_close(C);
  ms_sim *T = st_open_text(text, 2);
  while (T->stepper.time < T->scene.duration - 1e-9) st_step(T);
  double *t = state(T, &nc);
  ck_assert_msg(!memcmp(a, t, na * sizeof *a), "2 threads differ from 1");
  free(a), free(c), free(t);
  st_close(T);
}

START_TEST(resume_and_threads_change_nothing) {
  ms_sim *A, *C;
  size_t na, nc;
  double *a, *c;
  resumes_and_threads_alike(DROP("0.0"), 10);
  /* mid-melt: the phases and the draws' step count come back too */
  st_resume_pair(heated, 6, &A, &C);
  a = state(A, &na), c = state(C, &nc);
  ck_assert_msg(!memcmp(a, c, na * sizeof *a), "the resumed melt differs");
  size_t sa = solids(st_system(A, "vm")), sc = solids(st_system(C, "vm"));
  ck_assert_uint_eq(sa, sc);
  free(a), free(c);
  st_close(A), st_close(C);
}
END_TEST

/* energy_limit = true: a step on the system alone ends with no more
 * energy than it began with.  Without it Wicke's fracture scene (its
 * first 6 frames) gains 1.2e-3 of its energy between two frames, the
 * dropped cube 2.6e-8, and the melting block twice its scale; with it
 * nothing, nothing, and a third of that (0.68: a melt that moves
 * little has too little motion to give the surplus back from, so part
 * of it stays).  The limit's end pass is kept for the next
 * step when nothing fractures; a melt resumed mid-way (its pass
 * recomputed) and a run on 2 threads are the same bit for bit. */
START_TEST(the_energy_limit_holds_a_step_and_changes_nothing_else) {
  const char *on[] = {"systems.block.energy_limit=true", NULL};
  double frac = st_energy_rise(st_open_file("wicke2007/fracture.cfg", 1, 6),
                               NULL);
  double frac_on = st_energy_rise(
      st_open_file_with("wicke2007/fracture.cfg", 1, 6, on), NULL);
  double drop = st_energy_rise(st_open_text(DROP("1.0"), 1), NULL);
  double drop_on = st_energy_rise(
      st_open_text(DROP_WITH("1.0", "energy_limit = true;"), 1),
      NULL);
  double melt = st_energy_rise(st_open_text(heated, 1), NULL);
  double melt_on = st_energy_rise(
      st_open_text(HEATED("energy_limit = true;"), 1), NULL);
  fprintf(stderr, "# energy limit: largest rise between frames, off / on: "
          "fracture %.2g / %.2g, dropped cube %.2g / %.2g, melting block "
          "%.2g / %.2g\n", frac, frac_on, drop, drop_on, melt, melt_on);
  ck_assert(frac > 1e-4 && frac_on < 1e-12);
  ck_assert(drop > 1e-9 && drop_on < 1e-12);
  ck_assert(melt > 1.0 && melt_on < 0.5 * melt);
  resumes_and_threads_alike(HEATED("energy_limit = true;"), 6);
}
END_TEST

/* configs/wicke2007/dice.cfg (Fig. 5), its first 0.5 s: the dice meet
 * in the air and fall; no particle inside another body's, none lost. */
START_TEST(the_dice_scene_runs_clean) {
  ms_sim *S = st_open_file("wicke2007/dice.cfg", 2, 15);
  uint64_t worst = 0;
  uint64_t metas = 0;
  while (S->frame < S->frames_total) {
    st_step(S);
    worst = worst > S->stepper.frame_counts.pen.max_pen
                ? worst : S->stepper.frame_counts.pen.max_pen;
    metas += S->stepper.frame_counts.metas;
    ck_assert_msg(isfinite(st_max_speed(S)), "a particle is not finite");
  }
  fprintf(stderr, "# dice to 0.5 s: %llu meta-particles summed over the steps, %llu "
          "penetrations at most\n", (unsigned long long)metas,
          (unsigned long long)worst);
  ck_assert(metas > 0); /* they met */
  ck_assert_uint_eq(worst, 0);
  st_close(S);
}
END_TEST

/* A fluid block (phase "fluid": the particle fluid alone) let go in a
 * tank collapses and spreads; in zero gravity a fluid blob thrown
 * spinning keeps its momentum (pressure and XSPH act in pairs). */
START_TEST(a_fluid_block_flows) {
  static const char tank[] =
      "scene = { duration = 1.0; fps = 20.0; gravity = [0.0, -9.81, 0.0];\n"
      "  domain = { min = [0.0, 0.0, 0.0]; max = [0.3, 0.2, 0.06]; }; };\n"
      "systems = ( { name = \"vm\"; solver = \"virtual_material\";\n"
      "  phase = \"fluid\"; shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
      "  max = [0.06, 0.06, 0.06]; }; spacing = 0.01; } );\n";
  ms_sim *S = st_open_text(tank, 1);
  struct ms__system *y = st_system(S, "vm");
  size_t n = y->view.count;
  while (S->stepper.time < S->scene.duration - 1e-9) st_step(S);
  y = st_system(S, "vm");
  double top = 0.0, far = 0.0;
  for (size_t i = 0; i < n; i++) {
    top = fmax(top, ms__at(&y->x, i)[1]);
    far = fmax(far, ms__at(&y->x, i)[0]);
    ck_assert(isfinite(ms__at(&y->v, i)[0]));
  }
  st_close(S);
  ms_sim *Z = st_open_text(
      ZERO_G "systems = ( { name = \"vm\"; solver = \"virtual_material\";\n"
             "  phase = \"fluid\"; shape = { type = \"sphere\";\n"
             "  center = [0.0, 0.0, 0.0]; radius = 0.04; }; spacing = 0.01;\n"
             "  velocity = [0.3, 0.0, 0.1]; angular_velocity = [0.0, 4.0, 0.0];"
             " } );\n", 1);
  double P0[3], L0[3], P[3], L[3], vib;
  momenta(st_system(Z, "vm"), P0, L0, &vib);
  double p0 = sqrt(P0[0] * P0[0] + P0[1] * P0[1] + P0[2] * P0[2]), worst = 0;
  for (int k = 0; k < 300; k++) {
    st_step(Z);
    momenta(st_system(Z, "vm"), P, L, &vib);
    for (int a = 0; a < 3; a++) worst = fmax(worst, fabs(P[a] - P0[a]) / p0);
  }
  fprintf(stderr, "# fluid: a 6 x 6 x 6 block let go reaches x = %.3f m, "
          "its top at %.3f m (0.055 m at rest) after 1 s; a spinning blob "
          "keeps its momentum to %.2g over 300 steps\n", far, top, worst);
  ck_assert_msg(far > 0.12, "it did not spread (%g m)", far);
  ck_assert_msg(top < 0.04, "it did not collapse (%g m)", top);
  ck_assert_msg(worst < 1e-12, "momentum drift %g", worst);
  st_close(Z);
}
END_TEST


/* Melting (Wicke et al. Eq. 15): a block on a plate that a scene heat
 * source holds at 400 K melts at the rate its temperature gives; the
 * solid count only falls, and the melted particles flow out over the
 * floor (no lattice holds them). */
START_TEST(a_heated_block_melts_and_flows) {
  ms_sim *S = st_open_text(heated, 1);
  struct ms__system *y = st_system(S, "vm");
  size_t n = y->view.count, before = solids(y), half = 0;
  ck_assert_uint_eq(before, n);
  while (S->stepper.time < S->scene.duration - 1e-9) {
    st_step(S);
    size_t now = solids(st_system(S, "vm"));
    ck_assert_uint_le(now, before); /* never freezes back */
    before = now;
    if (!half && 2 * now <= n) half = S->stepper.step;
  }
  y = st_system(S, "vm");
  double far = 0.0;
  for (size_t i = 0; i < n; i++)
    far = fmax(far, fabs(ms__at(&y->x, i)[0]));
  /* rate 100 K x 0.02 / (s K) = 2 / s: half melted by ln 2 / 2 = 0.35 s */
  fprintf(stderr, "# melting: %zu of %zu solid at 1.5 s, half melted at "
          "step %zu (t = %.3f s; the rate says 0.347 s); the melt reaches "
          "|x| = %.3f m\n", before, n, half,
          half ? (double)half * S->stepper.time / S->stepper.step : 0.0, far);
  double t_half = (double)half * S->stepper.time / S->stepper.step;
  ck_assert_uint_lt(before, n / 10);
  ck_assert_msg(half && fabs(t_half / 0.3466 - 1.0) < 0.15, "half melted "
                "at %g s, the rate says 0.347 s", t_half);
  ck_assert_msg(far > 0.05, "the melt did not flow (%g m)", far);
  st_close(S);
}
END_TEST

/* Freezing (Wicke et al. Eq. 16): a cold rod held in place, a fluid blob
 * resting on it and another far away, one lattice object ("ice"), all
 * below the fluid's freezing point.  The blob on the rod freezes onto it
 * from the contact outward, a particle only with more than n_0 = 2 solid
 * neighbours; the far blob, with none, stays fluid. */
/* A cold held rod (200 K) and two fluid blobs of its object at 250 K,
 * one on it (from x = x0 to x1) and one far off; `extra`: keys of both
 * blobs. */
#define ROD_AND_BLOBS(extra, x0, x1)                                        \
  ZERO_G "systems = ( { name = \"vm\"; solver = \"virtual_material\";\n"    \
  "  spacing = 0.01; temperature = 250.0;\n"                               \
  "  bodies = (\n"                                                         \
  "  { object = \"ice\"; temperature = 200.0;\n"                           \
  "    shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"                 \
  "              max = [0.1, 0.02, 0.02]; };\n"                            \
  "    hold = { min = [-1.0, -1.0, -1.0]; max = [1.0, 0.02, 1.0]; }; },\n" \
  "  { object = \"ice\"; phase = \"fluid\"; freezing_point = 273.0;\n"     \
  "    freezing_neighbours = 2; " extra "\n"                              \
  "    shape = { type = \"box\"; min = [" x0 ", 0.02, 0.0];\n"             \
  "              max = [" x1 ", 0.06, 0.02]; }; },\n"                      \
  "  { object = \"ice\"; phase = \"fluid\"; freezing_point = 273.0;\n"     \
  "    freezing_neighbours = 2; " extra "\n"                              \
  "    shape = { type = \"box\"; min = [0.3, 0.3, 0.3];\n"                 \
  "              max = [0.34, 0.34, 0.32]; }; } ); } );\n"

/* The solid flags at the end of a run of `text`, and how many. */
static uint8_t *solid_at_end(const char *text, size_t *count) {
  ms_sim *S = st_open_text(text, 1);
  while (S->stepper.time < S->scene.duration - 1e-9) st_step(S);
  const struct ms__system *y = st_system(S, "vm");
  const struct ms_field *f = NULL;
  for (uint32_t k = 0; k < y->view.field_count; k++)
    if (!strcmp(y->view.fields[k].name, "solid")) f = &y->view.fields[k];
  uint8_t *r = malloc(y->view.count);
  for (size_t i = 0; i < y->view.count; i++)
    r[i] = ((const uint8_t *)f->data)[i * f->stride];
  *count = solids(y);
  st_close(S);
  return r;
}

/* Eq. 16's last factor, min(1, F_max / |sum_j F_ji|), on a blob set
 * half a spacing off the rod's lattice (sampled on it, a particle would
 * fit it exactly): with F_max far above any fit's force the run is the
 * run without it, solid for solid; far below (1e-6 N, a lattice force
 * being about k w D / 2 = 1 N) only a particle that fits the lattice
 * exactly freezes (measured: one, at 5e-18 N, of the 9 without F_max);
 * between (0.05 N), fewer than without and more than that. */
START_TEST(freezing_waits_for_a_fit) {
  size_t n0, n_big, n_tiny, n_mid;
#define OFF(extra) ROD_AND_BLOBS("freezing_rate = 1.0; " extra, "0.035", "0.075")
  uint8_t *a = solid_at_end(OFF(""), &n0);
  uint8_t *b = solid_at_end(OFF("freezing_force = 1e9;"), &n_big);
  uint8_t *c = solid_at_end(OFF("freezing_force = 1e-6;"), &n_tiny);
  uint8_t *d = solid_at_end(OFF("freezing_force = 0.05;"), &n_mid);
#undef OFF
  fprintf(stderr, "# freezing by fit: %zu frozen without F_max, %zu at "
          "1e9 N, %zu at 1e-6 N, %zu at 0.05 N\n", n0 - 40, n_big - 40,
          n_tiny - 40, n_mid - 40);
  ck_assert_uint_eq(n_big, n0);
  ck_assert(!memcmp(a, b, 104));
  ck_assert(4 * (n_tiny - 40) <= n0 - 40);
  ck_assert(n_tiny < n_mid && n_mid < n0);
  free(a), free(b), free(c), free(d);
}
END_TEST

/* Melting without walls: a 5 x 5 x 5 block thrown and spinning in zero
 * gravity, a heat source over the whole domain at 400 K (melting point
 * 300 K, 0.05 / (s K)): most of it melts within 0.5 s, and its momentum
 * stays to round-off through the lattice, the fluid and every melt. */
START_TEST(a_block_melting_in_flight_keeps_its_momentum) {
  static const char text[] =
      "scene = { duration = 0.5; fps = 20.0; seed = 9;\n"
      "  gravity = [0.0, 0.0, 0.0];\n"
      "  domain = { min = [-1.0, -1.0, -1.0]; max = [1.0, 1.0, 1.0]; };\n"
      "  heat_sources = ( { min = [-1.0, -1.0, -1.0]; max = [1.0, 1.0, 1.0];\n"
      "    temperature = 400.0; } ); };\n"
      "systems = ( { name = \"vm\"; solver = \"virtual_material\";\n"
      "  shape = { type = \"box\"; min = [-0.025, -0.025, -0.025];\n"
      "  max = [0.025, 0.025, 0.025]; }; spacing = 0.01; stiffness = 3000.0;\n"
      "  speed_of_sound = 10.0; temperature = 250.0; velocity = [0.3, -0.2, 0.1];\n"
      "  angular_velocity = [1.0, 4.0, -2.0];\n"
      "  melting_point = 300.0; melting_rate = 0.05; } );\n";
  ms_sim *S = st_open_text(text, 1);
  double P0[3], L0[3], vib, P[3], L[3], worst = 0.0;
  momenta(st_system(S, "vm"), P0, L0, &vib);
  double p0 = sqrt(P0[0] * P0[0] + P0[1] * P0[1] + P0[2] * P0[2]);
  while (S->stepper.time < S->scene.duration - 1e-9) {
    st_step(S);
    momenta(st_system(S, "vm"), P, L, &vib);
    for (int a = 0; a < 3; a++) worst = fmax(worst, fabs(P[a] - P0[a]) / p0);
  }
  size_t solid = solids(st_system(S, "vm"));
  fprintf(stderr, "# melting in flight: %zu of 125 still solid at 0.5 s; "
          "momentum kept to %.1e\n", solid, worst);
  ck_assert_msg(solid < 40, "only %zu melted", 125 - solid);
  ck_assert_msg(worst < 1e-13, "momentum off by %g", worst);
  st_close(S);
}
END_TEST

START_TEST(fluid_freezes_onto_a_cold_rod_and_only_there) {
  static const char text[] =
      ROD_AND_BLOBS("freezing_rate = 0.05;", "0.03", "0.07");
  ms_sim *S = st_open_text(text, 1);
  struct ms__system *y = st_system(S, "vm");
  size_t n = y->view.count, solid0 = solids(y), before = solid0;
  ck_assert_uint_eq(solid0, 40); /* the rod */
  const struct ms_field *f = NULL;
  for (uint32_t k = 0; k < y->view.field_count; k++)
    if (!strcmp(y->view.fields[k].name, "solid")) f = &y->view.fields[k];
  uint8_t *was = malloc(n);
  double *xp = malloc(3 * n * sizeof *xp);
  size_t far_frozen = 0, checked = 0;
  while (S->stepper.time < S->scene.duration - 1e-9) {
    y = st_system(S, "vm");
    for (size_t i = 0; i < n; i++) {
      was[i] = ((const uint8_t *)f->data)[i * f->stride];
      memcpy(xp + 3 * i, ms__at(&y->x, i), 3 * sizeof *xp);
    }
    st_step(S);
    y = st_system(S, "vm");
    size_t now = solids(y);
    ck_assert_uint_ge(now, before); /* nothing melts here */
    before = now;
    for (size_t i = 0; i < n; i++) {
      if (was[i] || !((const uint8_t *)f->data)[i * f->stride]) continue;
      /* it froze in this step: count the solid neighbours it had
       * (positions at the step's start, within the support 1.5 D) */
      size_t nb = 0;
      for (size_t j = 0; j < n; j++) {
        double d2 = 0.0;
        for (int a = 0; a < 3; a++)
          d2 += (xp[3 * j + a] - xp[3 * i + a]) * (xp[3 * j + a] - xp[3 * i + a]);
        nb += j != i && was[j] && d2 < 0.015 * 0.015;
      }
      ck_assert_msg(nb > 2, "particle %zu froze with %zu solid neighbours",
                    i, nb);
      far_frozen += xp[3 * i] > 0.2;
      checked++;
    }
  }
  fprintf(stderr, "# freezing: %zu of the blob's 32 fluid particles froze "
          "onto the rod in 1 s, each with more than 2 solid neighbours; "
          "%zu of the far blob's 32\n", before - solid0, far_frozen);
  ck_assert_uint_eq(checked, before - solid0);
  ck_assert_uint_eq(far_frozen, 0);
  ck_assert_msg(before - solid0 >= 8, "only %zu froze", before - solid0);
  free(was), free(xp);
  st_close(S);
}
END_TEST

static void expect_error(const char *body, const char *want) {
  char text[2048], err[1024] = "";
  snprintf(text, sizeof text,
           ZERO_G "systems = ( { name = \"vm\"; solver = "
                  "\"virtual_material\";\n  shape = { type = \"box\"; "
                  "min = [0.0, 0.0, 0.0];\n  max = [0.04, 0.04, 0.04]; }; "
                  "spacing = 0.01;\n  %s } );\n", body);
  ck_assert_msg(st_try_text(text, err, sizeof err, NULL) != 0, "accepted: %s",
                body);
  ck_assert_msg(strstr(err, want) != NULL, "'%s' not in '%s'", want, err);
  ck_assert_msg(!strchr(err, '\n'), "more than one line: %s", err);
  ck_assert_msg(strstr(err, ":6: ") != NULL, "no file:line in '%s'", err);
}

START_TEST(bad_settings_get_one_line) {
  expect_error("stiffness = 0.0;", "stiffness: must be > 0");
  expect_error("damping = -1.0;", "damping: must be >= 0");
  expect_error("support = 0.5;", "support: must be in [1.01, 3]");
  expect_error("motion = \"fixed\";", "motion: must be \"dynamic\"");
  expect_error("stiffnes = 10.0;", "unknown key 'stiffnes'");
  expect_error("phase = \"gas\";", "phase: unknown value \"gas\"");
  expect_error("xsph = 1.5;", "xsph");
  expect_error("melting_point = -3.0;", "melting_point: must be a "
               "temperature > 0");
  expect_error("speed_of_sound = -1.0;", "speed_of_sound: must be >= 0");
  expect_error("freezing_point = 0.0;", "freezing_point: must be a "
               "temperature > 0");
  expect_error("freezing_speed = 0.0;", "freezing_speed: must be > 0");
  expect_error("docking_rate = 0.0;", "docking_rate: must be > 0");
  expect_error("docking_memory = -1.0;", "docking_memory: must be > 0");
  expect_error("fracture_strain = 0.0;", "fracture_strain: must be > 0");
  expect_error("conductivity = -1.0;", "conductivity: must be >= 0");
  expect_error("lattice = \"hex\";", "lattice: unknown value \"hex\"");
  expect_error("freezing_force = 0.0;", "freezing_force: must be > 0");
  expect_error("hold = { min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.0]; "
               "until = 0.0; };", "until: must be > 0");
  /* one object, two spacings */
  char err[1024] = "";
  ck_assert(st_try_text(
      ZERO_G "systems = ( { name = \"vm\"; solver = \"virtual_material\";\n"
             "  bodies = ( { object = \"a\"; spacing = 0.01; shape = {\n"
             "    type = \"box\"; min = [0.0, 0.0, 0.0]; max = [0.04, 0.04, 0.04]; }; },\n"
             "  { object = \"a\"; spacing = 0.02; shape = {\n"
             "    type = \"box\"; min = [0.5, 0.0, 0.0]; max = [0.6, 0.1, 0.1]; }; }\n"
             "  ); } );\n", err, sizeof err, NULL) != 0);
  ck_assert_msg(strstr(err, ":6: ") && strstr(err, "object: \"a\" holds "
                "bodies of spacing 0.01 and 0.02"), "%s", err);
}
END_TEST

Suite *suite_bodies(void) {
  Suite *s = suite_create("bodies");
  TCase *t = tcase_create("bodies");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, a_free_spinning_body_keeps_its_momenta_while_it_stops_ringing);
  tcase_add_test(t, a_cube_bounces_and_keeps_its_shape);
  tcase_add_test(t, each_region_of_one_object_keeps_its_own_stiffness);
  tcase_add_test(t, heat_conducts_through_the_lattice_as_diffusion_says);
  tcase_add_test(t, a_clamped_bar_sags_as_euler_bernoulli_says);
  tcase_add_test(t, resume_and_threads_change_nothing);
  tcase_add_test(t, bad_settings_get_one_line);
  tcase_add_test(t, the_dice_scene_runs_clean);
  tcase_add_test(t, held_particles_stay_put);
  tcase_add_test(t, a_hard_landing_dents_for_good);
  tcase_add_test(t, a_pressed_block_returns_below_the_limit_and_keeps_a_set_beyond);
  tcase_add_test(t, a_fluid_block_flows);
  tcase_add_test(t, a_heated_block_melts_and_flows);
  tcase_add_test(t, fluid_freezes_onto_a_cold_rod_and_only_there);
  tcase_add_test(t, freezing_waits_for_a_fit);
  tcase_add_test(t, a_block_melting_in_flight_keeps_its_momentum);
  tcase_add_test(t, the_energy_limit_holds_a_step_and_changes_nothing_else);
  suite_add_tcase(s, t);
  return s;
}
