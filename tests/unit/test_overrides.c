/* Overrides (ms_sim_options.overrides, mergesplit run --set): a run with
 * KEY=VALUE is the run of the file edited to hold VALUE, bit for bit; a
 * bad override is refused with one line naming it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mergesplit/core.h>

#include "suites.h"

/* Two balls of grains thrown at each other; %s are the edits. */
static const char *scene_fmt =
    "scene = { %s seed = 1;\n"
    "          gravity = [0.0, %s, 0.0];\n"
    "          domain = { min = [-1.0, -1.0, -1.0]; max = [1.0, 1.0, 1.0]; "
    "}; };\n"
    "coupling = { %s };\n"
    "systems = (\n"
    "  { name = \"left\"; solver = \"particles\";\n"
    "    shape = { type = \"sphere\"; center = [-0.1, 0.0, 0.0]; radius = %s; "
    "};\n"
    "    spacing = 0.02; radius = 0.01; velocity = [1.0, 0.0, 0.0]; },\n"
    "  { name = \"right\"; solver = \"particles\";\n"
    "    shape = { type = \"sphere\"; center = [0.1, 0.0, 0.0]; radius = 0.05; "
    "};\n"
    "    spacing = 0.02; radius = 0.01; velocity = [%s, 0.0, 0.0]; }\n"
    ");\n";

static void write_scene(char *path, const char *scn, const char *g,
                        const char *cpl, const char *r, const char *v) {
  strcpy(path, "/tmp/ms-overrides-XXXXXX");
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE *f = fdopen(fd, "w");
  fprintf(f, scene_fmt, scn, g, cpl, r, v);
  ck_assert_int_eq(fclose(f), 0);
}

struct outcome {
  int rc;
  char err[2048];
  int64_t frames;
  size_t particles;
  struct ms_metrics m;
};

static void run(const char *path, const char *const *set, struct outcome *o) {
  struct ms_sim_options opt = {.struct_size = sizeof opt, .no_output = 1,
                               .threads = 1, .verbosity = MS_SINK_ERROR,
                               .overrides = set};
  ms_sim *sim = NULL;
  memset(o, 0, sizeof *o);
  o->rc = ms_sim_open(path, &opt, &sim, o->err, sizeof o->err);
  if (o->rc) return;
  o->frames = ms_sim_frames_total(sim);
  o->particles = ms_sim_particles(sim);
  ck_assert_int_eq(ms_sim_run(sim), MS_OK);
  o->m.struct_size = sizeof o->m;
  ms_sim_metrics(sim, &o->m);
  ms_sim_close(sim);
}

/* Same frames, particles, and bitwise the same energy and speeds. */
static void same(const struct outcome *a, const struct outcome *b,
                 const char *what) {
  ck_assert_msg(a->rc == 0 && b->rc == 0, "%s: %s / %s", what, a->err,
                b->err);
  ck_assert_int_eq(a->frames, b->frames);
  ck_assert_uint_eq(a->particles, b->particles);
  ck_assert_msg(!memcmp(&a->m.energy_end, &b->m.energy_end, sizeof(double)) &&
                !memcmp(&a->m.max_speed, &b->m.max_speed, sizeof(double)) &&
                a->m.metas == b->m.metas && a->m.steps == b->m.steps,
                "%s: energy %.17g vs %.17g, max speed %.17g vs %.17g, "
                "meta-particles %llu vs %llu", what, a->m.energy_end,
                b->m.energy_end, a->m.max_speed, b->m.max_speed,
                (unsigned long long)a->m.metas,
                (unsigned long long)b->m.metas);
}

/* The file's defaults, and what each case's file holds instead. */
#define SCN "duration = 0.1; fps = 20.0;"
#define CPL "alpha = 1.0;"
static const struct {
  const char *what;
  const char *set[4];
  /* the edited file: scene keys, gravity y, coupling keys, left radius,
   * right velocity x */
  const char *scn, *g, *cpl, *r, *v;
} equal_cases[] = {
    {"a float", {"coupling.alpha=0.25"}, SCN, "0.0", "alpha = 0.25;", "0.05",
     "-1.0"},
    {"a key the file lacks", {"coupling.cfl=0.25"}, SCN, "0.0",
     CPL " cfl = 0.25;", "0.05", "-1.0"},
    {"an integer for a float", {"scene.fps=10"},
     "duration = 0.1; fps = 10.0;", "0.0", CPL, "0.05", "-1.0"},
    {"a list element by name", {"systems.right.velocity=[-2.0, 0.0, 0.0]"},
     SCN, "0.0", CPL, "0.05", "-2.0"},
    {"an element of an array", {"scene.gravity.[1]=-3"}, SCN, "-3.0", CPL,
     "0.05", "-1.0"},
    {"an array mixing integers and floats",
     {"scene.gravity=[0,-3,0.0]"}, SCN, "-3.0", CPL, "0.05", "-1.0"},
    {"systems[1] without the dot", {"systems[1].velocity.[0]=-0.5"}, SCN,
     "0.0", CPL, "0.05", "-0.5"},
    {"the later of two wins",
     {"systems.[0].shape.radius=0.2", "systems.[0].shape.radius=0.07"}, SCN,
     "0.0", CPL, "0.07", "-1.0"},
    {"a bare word is a string", {"coupling.sync=paper"}, SCN, "0.0",
     CPL " sync = \"paper\";", "0.05", "-1.0"},
};

START_TEST(override_equals_edited_file) {
  char base[64], edited[64];
  struct outcome a, b, plain;
  write_scene(base, SCN, "0.0", CPL, "0.05", "-1.0");
  write_scene(edited, equal_cases[_i].scn, equal_cases[_i].g,
              equal_cases[_i].cpl, equal_cases[_i].r, equal_cases[_i].v);
  run(base, equal_cases[_i].set, &a);
  run(edited, NULL, &b);
  run(base, NULL, &plain);
  same(&a, &b, equal_cases[_i].what);
  /* and the override did change the run */
  ck_assert_msg(memcmp(&a.m.energy_end, &plain.m.energy_end, sizeof(double)) ||
                a.frames != plain.frames || a.particles != plain.particles,
                "%s: the override changed nothing", equal_cases[_i].what);
  unlink(base);
  unlink(edited);
}
END_TEST

static const struct {
  const char *set, *expect;
  int status;
} bad_cases[] = {
    {"coupling.alpha=1.5", "--set coupling.alpha=1.5: coupling.alpha: must be in [0, 1] (got 1.5)", MS_ECONFIG},
    {"coupling.alpha=abc", "--set coupling.alpha=abc: coupling.alpha: must be a number, not a string", MS_ETYPE},
    {"coupling.alhpa=1", "--set coupling.alhpa=1: unknown key 'alhpa' in coupling", MS_ECONFIG},
    {"systems.[0].denisty=2", "--set systems.[0].denisty=2: unknown key 'denisty' in systems.[0] (system 'left', solver 'particles')", MS_ECONFIG},
    {"systems.left.mass=-2", "--set systems.left.mass=-2: systems.[0].mass: must be > 0 (got -2) (system 'left'", MS_ECONFIG},
    {"systems.[2].mass=1", "--set systems.[2].mass=1: no element [2] (the list has 2)", MS_ECONFIG},
    {"systems.middle.mass=1", "--set systems.middle.mass=1: 'middle' is not in a group (nor the name of an element of the list)", MS_ECONFIG},
    {"systems.[x].mass=1", "--set systems.[x].mass=1: '[x]' is not an index [N]", MS_ECONFIG},
    {"scene.[0]=1", "--set scene.[0]=1: [0] is not a list", MS_ECONFIG},
    {"systems.[0]=1", "--set systems.[0]=1: element [0] of a list is replaced only by a value of its type", MS_ECONFIG},
    {"scenery=1", "--set scenery=1: unknown top-level key 'scenery'", MS_ECONFIG},
    {"scene.fps=4294967297", "--set scene.fps=4294967297: 4294967297: this integer does not fit in 32 bits", MS_ECONFIG},
    {"scene.fps=\"30", "--set scene.fps=\"30: '\"30' is not a value", MS_ECONFIG},
    {"=1", "--set =1: expected KEY=VALUE", MS_ECONFIG},
    {"coupling.alpha=0.5; beta = 1", "--set coupling.alpha=0.5; beta = 1: '0.5; beta = 1' is not a value", MS_ECONFIG},
    {"systems.[4294967296].mass=1", "--set systems.[4294967296].mass=1: '[4294967296]' is not an index [N]", MS_ECONFIG},
    {"coupling.alpha=@include \"x.cfg\"", "--set coupling.alpha=@include \"x.cfg\": an override cannot @include", MS_ECONFIG},
    {"scene.gravity=[0,-1", "--set scene.gravity=[0,-1: '[0,-1' is not a value", MS_ECONFIG},
    {"scene.1bad=1", "--set scene.1bad=1: '1bad' is not a valid key name", MS_ECONFIG},
};

START_TEST(bad_override_refused) {
  char base[64];
  struct outcome o;
  write_scene(base, SCN, "0.0", CPL, "0.05", "-1.0");
  const char *set[] = {bad_cases[_i].set, NULL};
  run(base, set, &o);
  unlink(base);
  ck_assert_msg(o.rc == bad_cases[_i].status, "%s: status %s, expected %s (%s)",
                bad_cases[_i].set, ms_status_name(o.rc),
                ms_status_name(bad_cases[_i].status), o.err);
  ck_assert_msg(strstr(o.err, bad_cases[_i].expect) != NULL,
                "%s: message\n  '%s'\nlacks\n  '%s'", bad_cases[_i].set,
                o.err, bad_cases[_i].expect);
  ck_assert_msg(!strchr(o.err, '\n'), "not one line: %s", o.err);
}
END_TEST

Suite *suite_overrides(void) {
  Suite *s = suite_create("overrides");
  TCase *tc = tcase_create("overrides");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, override_equals_edited_file, 0,
                      (int)(sizeof equal_cases / sizeof *equal_cases));
  tcase_add_loop_test(tc, bad_override_refused, 0,
                      (int)(sizeof bad_cases / sizeof *bad_cases));
  suite_add_tcase(s, tc);
  return s;
}
