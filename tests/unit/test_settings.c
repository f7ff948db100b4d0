/* Scene validation: every bad value is refused with file:line and the key. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mergesplit/core.h>

#include "suites.h"

static const struct {
  const char *file, *expect;
  int status;
} cases[] = {
    {"bad_alpha.cfg", "bad_alpha.cfg:4: coupling.alpha: must be in [0, 1] (got 1.5)", MS_ECONFIG},
    {"bad_beta.cfg", "bad_beta.cfg:1: coupling.beta: must be in [0, 1] (got -0.1)", MS_ECONFIG},
    {"bad_unmerged.cfg", "bad_unmerged.cfg:2: coupling.unmerged_pairs: must be \"impulse\" or \"ignore\" (got \"bounce\")", MS_ECONFIG},
    {"bad_sync.cfg", "bad_sync.cfg:2: coupling.sync: unknown synchronisation 'average' (expected \"momentum\" or \"paper\")", MS_ECONFIG},
    {"bad_group_draws.cfg", "bad_group_draws.cfg:2: coupling.group_draws: must be \"sequence\" or \"per_group\" (got \"random\")", MS_ECONFIG},
    {"bad_iterations.cfg", "bad_iterations.cfg:2: coupling.iterations: must be in [1, 1000] (got 0)", MS_ECONFIG},
    {"bad_relaxation.cfg", "bad_relaxation.cfg:1: coupling.relaxation: must be in (0, 1] (got 1.5)", MS_ECONFIG},
    {"bad_contact_restitution.cfg", "bad_contact_restitution.cfg:2: coupling.contact_restitution: must be in [0, 1] (got 1.5)", MS_ECONFIG},
    {"bad_nmin.cfg", "bad_nmin.cfg:2: coupling.n_min: must not exceed n_max (32 > 16)", MS_ECONFIG},
    {"bad_cfl.cfg", "bad_cfl.cfg:1: coupling.cfl: must be in (0, 1] (got 2)", MS_ECONFIG},
    {"bad_frames.cfg", "bad_frames.cfg:3: scene.duration: 1e+18 s at 30 frames per second is 3e+19 frames, more than 1e+09", MS_ECONFIG},
    {"bad_duration.cfg", "bad_duration.cfg:2: scene.duration: must be > 0 (got -1)", MS_ECONFIG},
    {"bad_domain.cfg", "bad_domain.cfg:2: scene.domain.max: must exceed min on every axis", MS_ECONFIG},
    {"bad_type.cfg", "bad_type.cfg:2: scene.fps: must be a number, not a string", MS_ETYPE},
    {"bad_core_key.cfg", "bad_core_key.cfg:2: unknown key 'alpah' in coupling", MS_ECONFIG},
    {"bad_top_key.cfg", "bad_top_key.cfg:1: unknown top-level key 'scenery'", MS_ECONFIG},
    {"bad_plugin_key.cfg", "bad_plugin_key.cfg:7: unknown key 'denisty' in systems.[0] (system 'g', solver 'particles')", MS_ECONFIG},
    {"bad_shape_key.cfg", "bad_shape_key.cfg:6: unknown key 'radius' in systems.[0].shape", MS_ECONFIG},
    {"bad_mass.cfg", "bad_mass.cfg:7: systems.[0].mass: must be > 0 (got -2) (system 'g', solver 'particles'", MS_ECONFIG},
    {"bad_spacing.cfg", "bad_spacing.cfg:6: systems.[0].spacing: must be > 0 (got 0)", MS_ECONFIG},
    {"bad_solver.cfg", "bad_solver.cfg:4: systems.[0].solver: no plugin provides solver 'no_such_solver'", MS_ENOENT},
    {"bad_no_solver.cfg", "bad_no_solver.cfg:2: systems.[0].solver: is required", MS_ECONFIG},
    {"bad_dup_name.cfg", "bad_dup_name.cfg:3: systems.[1].name: 'g' is used by another system", MS_ECONFIG},
    {"bad_syntax.cfg", "bad_syntax.cfg:3: syntax error", MS_ECONFIG},
    {"bad_shape_type.cfg", "bad_shape_type.cfg:5: systems.[0].shape.type: unknown shape 'cube'", MS_ECONFIG},
    {"missing.cfg", "missing.cfg: cannot read the scene file", MS_ECONFIG},
    /* an escape sequence shown as text, a newline folded: one line */
    {"bad_control_bytes.cfg", "bad_control_bytes.cfg:4: systems.[0].solver: no plugin provides solver 'red\\x1b[31m solver'", MS_ENOENT},
    /* integers libconfig would wrap or saturate */
    {"bad_int_wrap.cfg", "bad_int_wrap.cfg:3: 4294967297: this integer does not fit in 32 bits", MS_ECONFIG},
    {"bad_int64.cfg", "bad_int64.cfg:2: 99999999999999999999L: this integer does not fit in 64 bits", MS_ECONFIG},
    {"bad_hex.cfg", "bad_hex.cfg:3: 0x100000000: this integer does not fit in 32 bits", MS_ECONFIG},
    {"bad_nul.cfg", "bad_nul.cfg:4: a NUL byte (a scene file is text)", MS_ECONFIG},
    /* geometry refused at check, counts before allocation */
    {"bad_radius.cfg", "bad_radius.cfg:10: systems.[0].radius: particle 0's radius 1e+308 is larger than the domain (system 'g', solver 'particles')", MS_ECONFIG},
    {"bad_particles.cfg", "bad_particles.cfg:7: systems.[0].shape: would hold about 1e+09 particles, more than the 50000000 left of the run's limit", MS_ECONFIG},
};

START_TEST(bad_scene_refused) {
  char path[4096], err[2048];
  const char *dir = getenv("MS_DATA");
  ck_assert_msg(dir != NULL, "MS_DATA not set");
  snprintf(path, sizeof path, "%s/%s", dir, cases[_i].file);
  struct ms_sim_options o = {.struct_size = sizeof o, .no_output = 1,
                             .verbosity = MS_SINK_ERROR};
  ms_sim *sim = NULL;
  int rc = ms_sim_open(path, &o, &sim, err, sizeof err);
  ck_assert_ptr_null(sim);
  ck_assert_msg(rc == cases[_i].status, "%s: status %s, expected %s (%s)",
                cases[_i].file, ms_status_name(rc),
                ms_status_name(cases[_i].status), err);
  ck_assert_msg(strstr(err, cases[_i].expect) != NULL,
                "%s: message\n  '%s'\nlacks\n  '%s'", cases[_i].file, err,
                cases[_i].expect);
  ck_assert_msg(!strchr(err, '\n'), "message is not one line: %s", err);
}
END_TEST

/* Inputs libconfig 1.5 parses in quadratic time (every key added to a
 * group is compared with its members; a long token is copied as it
 * grows): refused at the line that crosses the bound, before parsing. */
static void write_scene(const char *path, int keys, size_t string_len) {
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "scene = {\n");
  for (int k = 0; k < keys; k++) fprintf(f, "  k%d = 1;\n", k);
  if (string_len) {
    fprintf(f, "  s = \"");
    for (size_t i = 0; i < string_len; i++) fputc('a', f);
    fprintf(f, "\";\n");
  }
  fprintf(f, "};\n");
  ck_assert_int_eq(fclose(f), 0);
}

static int open_scene(const char *path, char *err, size_t len) {
  struct ms_sim_options o = {.struct_size = sizeof o, .no_output = 1,
                             .verbosity = MS_SINK_ERROR};
  ms_sim *sim = NULL;
  int rc = ms_sim_open(path, &o, &sim, err, len);
  ms_sim_close(sim);
  return rc;
}

START_TEST(quadratic_inputs_refused) {
  char path[] = "/tmp/ms-settings-XXXXXX", err[2048];
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  close(fd);
  /* 9999 keys + "scene" = 10000 names: parsed (then refused as unknown) */
  write_scene(path, 9999, 0);
  ck_assert_int_eq(open_scene(path, err, sizeof err), MS_ECONFIG);
  ck_assert_msg(strstr(err, "unknown key 'k0' in scene"), "%s", err);
  /* one more name: refused at its line, 10001 (line 1 holds "scene") */
  write_scene(path, 10000, 0);
  ck_assert_int_eq(open_scene(path, err, sizeof err), MS_ECONFIG);
  ck_assert_msg(strstr(err, ":10001: k9999: this name is one too many: a "
                            "scene file holds at most 10000"), "%s", err);
  /* a string of 64 KiB passes the scan; one byte more does not */
  write_scene(path, 0, 65534);
  ck_assert_int_eq(open_scene(path, err, sizeof err), MS_ECONFIG);
  ck_assert_msg(strstr(err, "unknown key 's' in scene"), "%s", err);
  write_scene(path, 0, 65535);
  ck_assert_int_eq(open_scene(path, err, sizeof err), MS_ECONFIG);
  ck_assert_msg(strstr(err, ":2: \"aaaa") &&
                strstr(err, "...: this string is longer than 64 KiB"), "%s",
                err);
  unlink(path);
}
END_TEST

Suite *suite_settings(void) {
  Suite *s = suite_create("settings");
  TCase *tc = tcase_create("bad_scenes");
  tcase_add_loop_test(tc, bad_scene_refused, 0,
                      (int)(sizeof cases / sizeof *cases));
  tcase_add_test(tc, quadratic_inputs_refused);
  suite_add_tcase(s, tc);
  return s;
}
