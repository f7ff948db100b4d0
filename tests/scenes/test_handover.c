/* Particle hand-over (plugin ABI 1.1) on tests/data/handover.cfg: 1000
 * particles of "solid" are handed to "liquid" while the two blocks collide
 * through merging-and-splitting. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simtest.h"

Suite *suite_handover(void);

static void quiet(void *o, int level, const char *line) {
  (void)o, (void)level, (void)line;
}

/* tests/data/handover.cfg, resumed from `resume` when non-NULL. */
static ms_sim *open_handover(const char *resume) {
  char path[4096], err[1024];
  snprintf(path, sizeof path, "%s/handover.cfg", getenv("MS_DATA"));
  const char *dirs[] = {getenv("MS_FIXTURES"), NULL};
  struct ms_sim_options o = {.struct_size = sizeof o, .threads = 2,
                             .no_output = 1, .plugin_paths = dirs,
                             .resume_path = resume,
                             .verbosity = MS_SINK_ERROR, .log = quiet};
  ms_sim *S = NULL;
  ck_assert_msg(ms_sim_open(path, &o, &S, err, sizeof err) == 0, "%s", err);
  return S;
}

/* One particle, wherever it is, found by its tag. */
struct rec {
  int64_t tag;
  double m, temp, x[3], v[3];
};

static int by_tag(const void *a, const void *b) {
  int64_t s = ((const struct rec *)a)->tag, t = ((const struct rec *)b)->tag;
  return (s > t) - (s < t);
}

static const struct ms_field *field(const struct ms__system *y,
                                    const char *name) {
  for (uint32_t f = 0; f < y->view.field_count; f++)
    if (!strcmp(y->view.fields[f].name, name)) return &y->view.fields[f];
  ck_abort_msg("system '%s' has no field '%s'", y->desc->name, name);
  return NULL;
}

/* Every particle of every system, sorted by tag; *n of them. */
static struct rec *records(ms_sim *S, size_t *n) {
  size_t total = 0, k = 0;
  for (uint32_t s = 0; s < S->nsys; s++) total += S->sys[s].view.count;
  struct rec *r = calloc(total ? total : 1, sizeof *r);
  for (uint32_t s = 0; s < S->nsys; s++) {
    const struct ms__system *y = &S->sys[s];
    const struct ms_field *t = field(y, "temperature"), *g = field(y, "tag");
    for (size_t i = 0; i < y->view.count; i++, k++) {
      r[k].m = *ms__at(&y->m, i);
      memcpy(r[k].x, ms__at(&y->x, i), sizeof r[k].x);
      memcpy(r[k].v, ms__at(&y->v, i), sizeof r[k].v);
      memcpy(&r[k].temp, (const char *)t->data + i * t->stride, 8);
      memcpy(&r[k].tag, (const char *)g->data + i * g->stride, 8);
    }
  }
  qsort(r, total, sizeof *r, by_tag);
  *n = total;
  return r;
}

/* Momentum summed in tag order, and the sum of |p_i|. */
static void momentum(const struct rec *r, size_t n, double P[3],
                     double *scale) {
  P[0] = P[1] = P[2] = *scale = 0.0;
  for (size_t i = 0; i < n; i++)
    for (int a = 0; a < 3; a++) {
      P[a] += r[i].m * r[i].v[a];
      *scale += fabs(r[i].m * r[i].v[a]);
    }
}

/* Every particle of "solid" ends in "liquid": the count moves frame by
 * frame, each particle keeps its mass and temperature bit for bit (so the
 * total mass, summed in one order, is bitwise the same), and the total
 * momentum of the colliding blocks stays put to 1e-12. */
START_TEST(handed_particles_keep_mass_and_momentum) {
  ms_sim *S = open_handover(NULL);
  size_t n0, n;
  struct rec *r0 = records(S, &n0);
  ck_assert_uint_eq(n0, 2000);
  double P0[3], P[3], scale, worst = 0.0, mass0 = 0.0, mass = 0.0;
  momentum(r0, n0, P0, &scale);
  for (size_t i = 0; i < n0; i++) mass0 += r0[i].m;
  uint64_t handed_mid = 0;
  while (ms_sim_frames_done(S) < ms_sim_frames_total(S)) {
    ck_assert_int_eq(ms_sim_frame(S), 0);
    struct rec *r = records(S, &n);
    ck_assert_uint_eq(n, n0);
    momentum(r, n, P, &scale);
    for (int a = 0; a < 3; a++) worst = fmax(worst, fabs(P[a] - P0[a]));
    free(r);
    struct ms_metrics m = {.struct_size = sizeof m};
    ms_sim_metrics(S, &m);
    if (ms_sim_frames_done(S) == 2) handed_mid = m.handed_over;
  }
  struct ms_metrics m = {.struct_size = sizeof m};
  ck_assert_int_eq(ms_sim_metrics(S, &m), 0);
  struct rec *r = records(S, &n);
  for (size_t i = 0; i < n; i++) {
    ck_assert_int_eq(r[i].tag, (int64_t)i); /* nobody lost or doubled */
    ck_assert_msg(memcmp(&r[i].m, &r0[i].m, 8) == 0, "tag %zu: mass", i);
    ck_assert_msg(memcmp(&r[i].temp, &r0[i].temp, 8) == 0, "tag %zu: "
                  "temperature %g, was %g", i, r[i].temp, r0[i].temp);
    mass += r[i].m;
  }
  fprintf(stderr, "# hand-over: %llu particles handed (%llu by frame 2), %llu "
          "meta-particles; momentum drift %.2g of %.3g; mass %.17g -> "
          "%.17g\n", (unsigned long long)m.handed_over,
          (unsigned long long)handed_mid, (unsigned long long)m.metas, worst,
          scale, mass0, mass);
  ck_assert_uint_eq(st_system(S, "solid")->view.count, 0);
  ck_assert_uint_eq(st_system(S, "liquid")->view.count, 2000);
  ck_assert_uint_eq(m.handed_over, 1000);
  ck_assert(handed_mid > 0 && handed_mid < 1000); /* a gradual hand-over */
  ck_assert_uint_gt(m.metas, 100);                /* and the blocks met */
  ck_assert_msg(memcmp(&mass, &mass0, sizeof mass) == 0, "total mass");
  ck_assert_msg(worst <= 1e-12 * scale, "momentum drift %.3g of %.3g", worst,
                scale);
  free(r), free(r0);
  st_close(S);
}
END_TEST

/* A checkpoint written between two frames of the hand-over (some particles
 * handed, some not) resumes to the very bits of an uninterrupted run. */
START_TEST(handover_resumes_bit_identically) {
  ms_sim *A = open_handover(NULL);
  ck_assert_int_eq(ms_sim_run(A), 0);
  size_t na, nc;
  struct rec *ra = records(A, &na);
  char ck[] = "/tmp/ms-handover-ckpt-XXXXXX";
  int fd = mkstemp(ck);
  ck_assert_int_ge(fd, 0);
  close(fd);
  ms_sim *B = open_handover(NULL);
  ck_assert_int_eq(ms_sim_frame(B), 0);
  ck_assert_int_eq(ms_sim_frame(B), 0);
  struct ms_metrics mb = {.struct_size = sizeof mb};
  ms_sim_metrics(B, &mb);
  ck_assert(mb.handed_over > 0 && mb.handed_over < 1000);
  ck_assert_int_eq(ms_sim_checkpoint(B, ck), 0);
  st_close(B);
  ms_sim *C = open_handover(ck);
  unlink(ck);
  ck_assert_int_eq(ms_sim_run(C), 0);
  struct rec *rc = records(C, &nc);
  ck_assert_uint_eq(na, nc);
  for (uint32_t s = 0; s < A->nsys; s++)
    ck_assert_uint_eq(A->sys[s].view.count, C->sys[s].view.count);
  ck_assert_msg(memcmp(ra, rc, na * sizeof *ra) == 0,
                "the resumed run differs from the uninterrupted one");
  struct ms_metrics ma = {.struct_size = sizeof ma},
                    mc = {.struct_size = sizeof mc};
  ms_sim_metrics(A, &ma), ms_sim_metrics(C, &mc);
  ck_assert_uint_eq(ma.handed_over, mc.handed_over);
  ck_assert_uint_eq(ma.steps, mc.steps);
  ck_assert_uint_eq(ma.metas, mc.metas);
  free(ra), free(rc);
  st_close(A), st_close(C);
}
END_TEST

/* ABI 1.4: a receiver declared at create() is checked when the scene
 * opens: one line at the key's file:line naming both systems.  Undeclared,
 * the same scene opens (the check then comes at the hand-over). */
static void declared(const char *to, int declare, const char *want) {
  char text[1536], err[1024];
  snprintf(text, sizeof text,
           "scene = { duration = 0.1; };\n"
           "systems = ( { name = \"ice\"; solver = \"fixture_handover\";\n"
           "  shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
           "            max = [0.02, 0.02, 0.02]; }; spacing = 0.01;\n"
           "  give_to = \"%s\"; declare = %s; },\n"
           "  { name = \"grains\"; solver = \"particles\";\n"
           "  shape = { type = \"box\"; min = [0.5, 0.0, 0.0];\n"
           "            max = [0.52, 0.02, 0.02]; }; spacing = 0.01; } );\n",
           to, declare ? "true" : "false");
  ms_sim *S = NULL;
  int rc = st_try_fixture_text(text, &S, err, sizeof err);
  if (!want) {
    ck_assert_msg(rc == 0, "undeclared '%s' refused: %s", to, err);
    st_close(S);
    return;
  }
  ck_assert_msg(rc != 0, "declared '%s' accepted", to);
  ck_assert_msg(strstr(err, ":5: ") && strstr(err, "give_to") &&
                strstr(err, want), "'%s' not at line 5, key give_to: %s",
                want, err);
  ck_assert_msg(!strchr(err, '\n'), "more than one line: %s", err);
}

START_TEST(declared_receivers_checked_when_the_scene_opens) {
  declared("nowhere", 1, "system 'ice' hands particles to 'nowhere', "
           "which is not a system of the scene");
  declared("ice", 1, "'ice', which is this system itself");
  declared("grains", 1, "'grains' (solver 'particles' from ");
  declared("grains", 1, "which cannot take particles (its solver has no "
           "accept())");
  declared("nowhere", 0, NULL);
}
END_TEST

Suite *suite_handover(void) {
  Suite *s = suite_create("handover");
  TCase *tc = tcase_create("fixture");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, handed_particles_keep_mass_and_momentum);
  tcase_add_test(tc, handover_resumes_bit_identically);
  tcase_add_test(tc, declared_receivers_checked_when_the_scene_opens);
  suite_add_tcase(s, tc);
  return s;
}
