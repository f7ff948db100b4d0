/* Fracture (Wicke et al. sect. 4.2) through the host: a hanging rod
 * breaks under its own weight when its springs may stretch less than
 * they must, and holds when they may stretch more; the pieces of a
 * crack collide and do not rejoin once its points are lost, and do
 * rejoin when the crack's memory outlasts the gap. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../scenes/simtest.h"
#include "../../core/step/step.h"
#include "suites.h"

/* The view field `name` of system y (fails the test if absent). */
static const struct ms_field *field(const struct ms__system *y,
                                    const char *name) {
  for (uint32_t k = 0; k < y->view.field_count; k++)
    if (!strcmp(y->view.fields[k].name, name)) return &y->view.fields[k];
  ck_abort_msg("no field %s", name);
  return NULL;
}

static uint32_t piece_of(const struct ms__system *y, size_t i) {
  const struct ms_field *f = field(y, "piece");
  ck_assert_int_eq(f->type, MS_TYPE_U32);
  uint32_t p;
  memcpy(&p, (const char *)f->data + i * f->stride, sizeof p);
  return p;
}

/* How many pieces the solid particles form (each named by its least
 * index: the roots are the particles named by themselves). */
static size_t pieces(const struct ms__system *y) {
  size_t c = 0;
  for (size_t i = 0; i < y->view.count; i++) c += piece_of(y, i) == i;
  return c;
}

/* A 3 x 12 x 3 rod (spacing 1 cm) hanging from its top two rows (held),
 * under gravity, for `duration` seconds; `extra` adds keys to its
 * section. */
#define ROD(duration, extra)                                                \
  "scene = { duration = " duration "; fps = 20.0; seed = 3;\n"              \
  "  gravity = [0.0, -9.81, 0.0];\n"                                        \
  "  domain = { min = [-0.1, 0.0, -0.1]; max = [0.1, 0.3, 0.1]; }; };\n"    \
  "systems = ( { name = \"vm\"; solver = \"virtual_material\";\n"           \
  "  shape = { type = \"box\"; min = [-0.015, 0.1, -0.015];\n"              \
  "            max = [0.015, 0.22, 0.015]; }; spacing = 0.01;\n"            \
  "  stiffness = 20000.0;\n"                                                \
  "  hold = { min = [-1.0, 0.2, -1.0]; max = [1.0, 1.0, 1.0]; };\n"        \
  extra " } );\n"

struct run {
  size_t pieces;  /* at the end */
  double stretch; /* largest (|x_j - x_i| / D - 1) of the root's pairs */
  double *x, *x0; /* positions at the end and at the start (3 per
                     particle, malloc'ed) */
  size_t n;
  uint32_t *piece; /* each particle's piece at the end */
};

/* Run a rod to its end.  The root's pairs: the lowest held particles
 * (y = 0.205) and those right under them. */
static struct run rod(const char *text) {
  ms_sim *S = st_open_text(text, 1);
  struct ms__system *y = st_system(S, "vm");
  struct run r = {0, 0.0, NULL, NULL, y->view.count, NULL};
  ck_assert_uint_eq(r.n, 108);
  r.x0 = malloc(3 * r.n * sizeof *r.x0);
  size_t up[9], down[9], k = 0;
  for (size_t i = 0; i < r.n; i++)
    memcpy(r.x0 + 3 * i, ms__at(&y->x, i), 3 * sizeof *r.x0);
  for (size_t i = 0; i < r.n; i++)
    for (size_t j = 0; j < r.n; j++)
      if (fabs(r.x0[3 * i + 1] - 0.205) < 1e-9 &&
          fabs(r.x0[3 * j + 1] - 0.195) < 1e-9 &&
          r.x0[3 * i] == r.x0[3 * j] && r.x0[3 * i + 2] == r.x0[3 * j + 2])
        up[k] = i, down[k++] = j;
  ck_assert_uint_eq(k, 9);
  while (S->stepper.time < S->scene.duration - 1e-9) {
    st_step(S);
    y = st_system(S, "vm");
    for (size_t q = 0; q < 9; q++) {
      const double *a = ms__at(&y->x, up[q]), *b = ms__at(&y->x, down[q]);
      double d = sqrt((a[0] - b[0]) * (a[0] - b[0]) +
                      (a[1] - b[1]) * (a[1] - b[1]) +
                      (a[2] - b[2]) * (a[2] - b[2]));
      r.stretch = fmax(r.stretch, d / 0.01 - 1.0);
    }
  }
  r.pieces = pieces(y);
  r.x = malloc(3 * r.n * sizeof *r.x);
  r.piece = malloc(r.n * sizeof *r.piece);
  for (size_t i = 0; i < r.n; i++) {
    memcpy(r.x + 3 * i, ms__at(&y->x, i), 3 * sizeof *r.x);
    r.piece[i] = piece_of(y, i);
  }
  st_close(S);
  return r;
}

/* The stress criterion decides: a rod whose springs may extend twice as
 * far as its root's ever do (the criterion never met) runs bit for bit
 * as the rod without fracture; one whose springs may extend half as far
 * breaks at the root, and what hung from it falls. */
START_TEST(a_hanging_rod_breaks_where_its_strain_says) {
  struct run whole = rod(ROD("0.15", ""));
  ck_assert_uint_eq(whole.pieces, 1);
  char text[2048], key[64];
  snprintf(key, sizeof key, "fracture_strain = %.17g;", 2.0 * whole.stretch);
  snprintf(text, sizeof text, ROD("0.15", "%s"), key);
  struct run strong = rod(text);
  snprintf(key, sizeof key, "fracture_strain = %.17g;", 0.5 * whole.stretch);
  snprintf(text, sizeof text, ROD("0.15", "%s"), key);
  struct run weak = rod(text);
  uint32_t top = UINT32_MAX;
  size_t held = 0, hung = 0;
  double fall = INFINITY;
  for (size_t i = 0; i < weak.n; i++)
    if (weak.x0[3 * i + 1] > 0.2 && top == UINT32_MAX) top = weak.piece[i];
  for (size_t i = 0; i < weak.n; i++) {
    if (weak.x0[3 * i + 1] > 0.2) held += weak.piece[i] == top;
    else if (weak.piece[i] == top) hung++;
    else fall = fmin(fall, weak.x0[3 * i + 1] - weak.x[3 * i + 1]);
  }
  fprintf(stderr, "# hanging rod: the root's springs extend %.4f at most; "
          "at eps_c twice that 1 piece, bit for bit the unbreakable rod; at "
          "half %zu pieces, %zu particles still hang from the clamp's 18, "
          "the rest fell %.3f m at least in 0.15 s\n", whole.stretch,
          weak.pieces, hung, fall);
  ck_assert_uint_eq(strong.pieces, 1);
  ck_assert(!memcmp(strong.x, whole.x, 3 * whole.n * sizeof *whole.x));
  ck_assert_uint_ge(weak.pieces, 2);
  ck_assert_uint_eq(held, 18); /* the clamp's piece holds the clamp */
  ck_assert_uint_le(hung, 9);  /* broken at the root, one row below at most */
  /* the rest fell freely for most of the 0.15 s: g t^2 / 2 = 0.110 m */
  ck_assert_msg(fall > 0.07, "fell only %g m", fall);
  struct run *all[3] = {&whole, &strong, &weak};
  for (int k = 0; k < 3; k++)
    free(all[k]->x), free(all[k]->x0), free(all[k]->piece);
}
END_TEST

/* Two 5 x 3 x 3 halves of one bar (one lattice object) thrown apart at
 * 0.5 m/s each in zero gravity; walls with restitution 1 send them back
 * into each other.  `extra`: keys of both. */
#define HALVES(extra)                                                       \
  "scene = { duration = 0.8; fps = 20.0; seed = 3;\n"                       \
  "  gravity = [0.0, 0.0, 0.0];\n"                                          \
  "  domain = { min = [-0.12, -0.1, -0.1]; max = [0.12, 0.1, 0.1]; }; };\n" \
  "systems = ( { name = \"vm\"; solver = \"virtual_material\";\n"           \
  "  wall_restitution = 1.0; wall_friction = 0.0; spacing = 0.01;\n"       \
  "  stiffness = 20000.0; " extra "\n"                                      \
  "  bodies = ( { object = \"bar\"; shape = { type = \"box\"; min = [-0.05, -0.015, -0.015];\n" \
  "      max = [0.0, 0.015, 0.015]; }; velocity = [-0.5, 0.0, 0.0]; },\n" \
  "    { object = \"bar\"; shape = { type = \"box\"; min = [0.0, -0.015, -0.015];\n"          \
  "      max = [0.05, 0.015, 0.015]; }; velocity = [0.5, 0.0, 0.0]; } ); } );\n"

/* Nearest distance between the two halves (particles below n / 2 and
 * the rest). */
static double gap(const struct ms__system *y) {
  size_t n = y->view.count;
  double g = INFINITY;
  for (size_t i = 0; i < n / 2; i++)
    for (size_t j = n / 2; j < n; j++) {
      const double *a = ms__at(&y->x, i), *b = ms__at(&y->x, j);
      g = fmin(g, sqrt((a[0] - b[0]) * (a[0] - b[0]) +
                       (a[1] - b[1]) * (a[1] - b[1]) +
                       (a[2] - b[2]) * (a[2] - b[2])));
    }
  return g;
}

/* Whether the pieces are the two halves, each whole. */
static int halves(const struct ms__system *y) {
  size_t n = y->view.count;
  for (size_t i = 0; i < n; i++)
    if (piece_of(y, i) != (i < n / 2 ? 0 : n / 2)) return 0;
  return pieces(y) == 2;
}

/* The bar breaks at its middle (eps_c 2 %); the halves fly to the walls
 * and back into each other 0.3 s later.  With the crack's memory at its
 * 0.01 s default its points are lost: the halves collide as two bodies
 * and come apart again.  With a memory of 10 s the crack heals on
 * contact: one piece, at the lattice's spacing. */
START_TEST(the_pieces_of_a_crack_do_not_rejoin) {
  const char *memory[2] = {"", "docking_memory = 10.0;"};
  double touch[2], end[2], gain[2];
  int split[2], apart[2];
  for (int k = 0; k < 2; k++) {
    char text[4096];
    snprintf(text, sizeof text, HALVES("fracture_strain = 0.02; %s"),
             memory[k]);
    ms_sim *S = st_open_text(text, 1);
    double widest = 0.0, p[3], ke0, ke;
    st_totals(S, p, &ke0);
    touch[k] = INFINITY, split[k] = 0, gain[k] = 0.0;
    while (S->stepper.time < S->scene.duration - 1e-9) {
      st_step(S);
      st_totals(S, p, &ke); /* no gravity, elastic walls: nothing to gain */
      gain[k] = fmax(gain[k], ke / ke0 - 1.0);
      const struct ms__system *y = st_system(S, "vm");
      double g = gap(y);
      if (S->stepper.time < 0.15) split[k] = halves(y);
      widest = fmax(widest, g);
      if (g < widest) touch[k] = fmin(touch[k], g); /* on the way back */
    }
    const struct ms__system *y = st_system(S, "vm");
    end[k] = gap(y);
    apart[k] = halves(y);
    ck_assert_uint_eq(pieces(y), 2 - k);
    st_close(S);
  }
  fprintf(stderr, "# crack: halves apart at 0.15 s %d / %d; back in touch "
          "at %.5f / %.5f m, at 0.8 s %.5f / %.5f m apart (memory 0.01 / "
          "10 s); kinetic energy above the start's by %.2g / %.2g at most\n",
          split[0], split[1], touch[0], touch[1], end[0], end[1], gain[0],
          gain[1]);
  ck_assert(split[0] && split[1]);
  ck_assert(gain[0] < 1e-12 && gain[1] < 1e-12);
  /* they met at contact (radius + radius = D), not through each other */
  for (int k = 0; k < 2; k++)
    ck_assert_msg(touch[k] > 0.0095 && touch[k] < 0.0102, "closest %g m",
                  touch[k]);
  ck_assert_msg(apart[0] && end[0] > touch[0] + 0.005, "short memory: "
                "rejoined (%g m apart)", end[0]);
  ck_assert_msg(fabs(end[1] - 0.01) < 1e-4, "long memory: %g m apart, not "
                "one lattice", end[1]);
}
END_TEST

/* Positions, velocities and pieces of every particle, in order. */
static double *state(ms_sim *S, size_t *n) {
  const struct ms__system *y = st_system(S, "vm");
  double *r = malloc(7 * y->view.count * sizeof *r);
  for (size_t i = 0; i < y->view.count; i++) {
    memcpy(r + 7 * i, ms__at(&y->x, i), 3 * sizeof *r);
    memcpy(r + 7 * i + 3, ms__at(&y->v, i), 3 * sizeof *r);
    r[7 * i + 6] = piece_of(y, i);
  }
  *n = 7 * y->view.count;
  return r;
}

/* A crack with docking drawn (lambda_0 dt about 3) and a memory still
 * fading at the checkpoint (0.2 s into 0.3 s): resumed, the run is the
 * same bit for bit, and on two threads too. */
START_TEST(a_resumed_crack_and_two_threads_change_nothing) {
  static const char text[] = HALVES("fracture_strain = 0.02; "
                                    "docking_rate = 1e5; "
                                    "docking_memory = 0.3;");
  ms_sim *A, *C;
  st_resume_pair(text, 4, &A, &C);
  size_t na, nc;
  double *a = state(A, &na), *c = state(C, &nc);
  ck_assert_uint_eq(na, nc);
  ck_assert_uint_eq(pieces(st_system(A, "vm")), 2);
  ck_assert_msg(!memcmp(a, c, na * sizeof *a), "the resumed run differs");
  st_close(A), st_close(C);
  ms_sim *T = st_open_text(text, 2);
  while (T->stepper.time < T->scene.duration - 1e-9) st_step(T);
  double *t = state(T, &nc);
  ck_assert_msg(!memcmp(a, t, na * sizeof *a), "2 threads differ from 1");
  free(a), free(c), free(t);
  st_close(T);
}
END_TEST

Suite *suite_fracture(void) {
  Suite *s = suite_create("fracture");
  TCase *t = tcase_create("fracture");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, a_hanging_rod_breaks_where_its_strain_says);
  tcase_add_test(t, the_pieces_of_a_crack_do_not_rejoin);
  tcase_add_test(t, a_resumed_crack_and_two_threads_change_nothing);
  suite_add_tcase(s, t);
  return s;
}
