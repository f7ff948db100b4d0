/* The conformance kit: shipped plugins pass it, and each deliberately
 * broken fixture fails exactly the check named for its defect. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mergesplit/core.h>

#include "simtest.h"
#include "suites.h"

struct tally {
  int failed;
  char failures[512];
};

static void collect(void *o, const char *check, int passed, const char *detail) {
  struct tally *t = o;
  if (passed) return;
  t->failed++;
  snprintf(t->failures + strlen(t->failures),
           sizeof t->failures - strlen(t->failures), "%s%s (%s)",
           t->failures[0] ? "; " : "", check, detail);
}

/* The kit on plugin `id`, on its built-in scene or (scene != NULL) on a
 * scene text whose first system is the one under test. */
static int run_kit_on(const char *id, const char *scene, struct tally *t) {
  const char *paths[] = {getenv("MS_FIXTURES"), NULL}; /* + the plugins */
  char path[] = "/tmp/ms-conformance-test-XXXXXX";
  if (scene) {
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    ck_assert(f && fputs(scene, f) >= 0 && fclose(f) == 0);
  }
  struct ms_conformance_options o = {.struct_size = sizeof o,
                                     .plugin_paths = paths,
                                     .scene_path = scene ? path : NULL};
  char err[1024];
  memset(t, 0, sizeof *t);
  int n = ms_conformance_run(id, &o, collect, t, err, sizeof err);
  if (scene) unlink(path);
  ck_assert_msg(n >= 0, "%s: the kit could not start: %s", id, err);
  return n;
}

static int run_kit(const char *id, struct tally *t) {
  return run_kit_on(id, NULL, t);
}

/* Every shipped solver, on the kit's built-in scene: the registry's
 * solvers from the plugin directory the tests run with
 * (MERGESPLIT_PLUGIN_PATH, the tree's plugins), none listed by hand. */
#define MAX_SHIPPED 32
static char shipped[MAX_SHIPPED][64];
static int nshipped;

static void find_shipped(void) {
  const char *dir = getenv("MERGESPLIT_PLUGIN_PATH");
  ms_registry *reg;
  nshipped = 0;
  if (!dir || ms_registry_open(NULL, &reg)) return;
  for (size_t i = 0; i < ms_registry_count(reg) && nshipped < MAX_SHIPPED;
       i++) {
    struct ms_plugin_info info;
    if (ms_registry_get(reg, i, &info) ||
        strncmp(info.path, dir, strlen(dir)) != 0)
      continue;
    snprintf(shipped[nshipped++], sizeof shipped[0], "%s", info.id);
  }
  ms_registry_close(reg);
}

START_TEST(shipped_plugin_conforms) {
  struct tally t;
  ck_assert_msg(_i < nshipped, "no shipped plugin in MERGESPLIT_PLUGIN_PATH");
  fprintf(stderr, "# conformance of shipped solver '%s'\n", shipped[_i]);
  ck_assert_msg(run_kit(shipped[_i], &t) == 0, "%s failed: %s", shipped[_i],
                t.failures);
}
END_TEST

/* Shipped plugins on scenes of their own that reach other code paths. */
static const struct {
  const char *id, *why, *scene;
} scened[] = {
    {"flip", "a blob floating in a closed tank (not the fitted one)",
     "scene = { duration = 1.0; fps = 100.0; seed = 3;\n"
     "  gravity = [0.0, -9.81, 0.0];\n"
     "  domain = { min = [0.0, 0.0, 0.0]; max = [0.4, 0.4, 0.4]; }; };\n"
     "coupling = { method = \"none\"; };\n"
     "systems = ( { name = \"under_test\"; solver = \"flip\";\n"
     "  shape = { type = \"box\"; min = [0.15, 0.15, 0.15];\n"
     "            max = [0.25, 0.25, 0.25]; };\n"
     "  spacing = 0.025; density = 1000.0; } );\n"},
    /* (pins are left out: meta_momentum wants every particle free) */
    {"peridynamics", "a spinning damped sphere solved by CHOLMOD",
     "scene = { duration = 1.0; fps = 100.0; };\n"
     "systems = ( { name = \"ball\"; solver = \"peridynamics\";\n"
     "  shape = { type = \"sphere\"; center = [0.0, 0.0, 0.0];\n"
     "            radius = 0.04; };\n"
     "  spacing = 0.01; horizon = 0.025; damping = 1e-4;\n"
     "  youngs_modulus = 5e5; fracture_energy = 1.0;\n"
     "  linear_solver = \"cholmod\"; angular_velocity = [0.0, 3.0, 0.0];\n"
     "} );\n"},
};

START_TEST(shipped_plugin_conforms_on_its_scene) {
  struct tally t;
  ck_assert_msg(run_kit_on(scened[_i].id, scened[_i].scene, &t) == 0,
                "%s on %s failed: %s", scened[_i].id, scened[_i].why,
                t.failures);
}
END_TEST

START_TEST(good_fixture_conforms) {
  struct tally t;
  ck_assert_msg(run_kit("fixture_good", &t) == 0, "failed: %s", t.failures);
  /* and the same carrying heat (ABI 1.3: write_w3 checks it) */
  ck_assert_msg(run_kit("fixture_heat", &t) == 0, "heat: failed: %s",
                t.failures);
}
END_TEST

/* Each defect fails its check; a few also fail the coupled-contact check,
 * which runs the plugin coupled as a scene does (`also`), and nothing
 * else fails. */
static const struct {
  const char *fixture, *check, *also;
} broken[] = {
    {"fixture_nolicense", "descriptor", NULL},
    {"fixture_zerodt", "max_dt", "coupled_contact"}, /* cannot step */
    {"fixture_leak", "create_destroy", NULL},
    {"fixture_norewind", "rewind", "coupled_contact"}, /* stage 2 rewinds */
    {"fixture_badsave", "save_load", NULL},
    {"fixture_loose", "meta_rigid", NULL},
    {"fixture_ownmass", "meta_momentum", NULL},
    {"fixture_lax", "bad_config", NULL},
    {"fixture_chatty", "silent", NULL},
    {"fixture_now1", "write_w1", "coupled_contact"}, /* momentum drifts */
    {"fixture_now2", "write_w2", NULL},
    {"fixture_heatreset", "write_w3", NULL},
};

/* Whether the tally's failure list names `check` as a whole entry. */
static int failed(const struct tally *t, const char *check) {
  size_t n = strlen(check);
  for (const char *p = t->failures; (p = strstr(p, check)); p += n)
    if ((p == t->failures || p[-2] == ';') && p[n] == ' ') return 1;
  return 0;
}

START_TEST(broken_fixture_fails_its_check) {
  struct tally t;
  int n = run_kit(broken[_i].fixture, &t);
  int want = 1 + (broken[_i].also != NULL);
  ck_assert_msg(n == want && failed(&t, broken[_i].check) &&
                    (!broken[_i].also || failed(&t, broken[_i].also)),
                "%s: expected '%s'%s%s to fail, got: %s", broken[_i].fixture,
                broken[_i].check, broken[_i].also ? " and " : "",
                broken[_i].also ? broken[_i].also : "", t.failures);
}
END_TEST

Suite *suite_conformance(void) {
  Suite *s = suite_create("conformance");
  TCase *tc = tcase_create("kit");
  tcase_set_timeout(tc, 120);
  find_shipped(); /* none found: one run that fails saying so */
  tcase_add_loop_test(tc, shipped_plugin_conforms, 0,
                      nshipped ? nshipped : 1);
  tcase_add_loop_test(tc, shipped_plugin_conforms_on_its_scene, 0,
                      (int)(sizeof scened / sizeof *scened));
  tcase_add_test(tc, good_fixture_conforms);
  tcase_add_loop_test(tc, broken_fixture_fails_its_check, 0,
                      (int)(sizeof broken / sizeof *broken));
  suite_add_tcase(s, tc);
  return s;
}
