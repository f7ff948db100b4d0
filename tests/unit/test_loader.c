/* The plugin loader refuses each kind of broken plugin with one line naming
 * the file and the versions, and keeps scanning. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mergesplit/core.h>
#include <mergesplit/plugin.h>

#include "suites.h"

#include "../../core/scene/scene.h"

static ms_registry *reg;
static char garbage[4096];

static void open_fixtures(void) {
  const char *fx = getenv("MS_FIXTURES");
  ck_assert_msg(fx != NULL, "MS_FIXTURES not set");
  /* a file with the right suffix that is not a shared object at all */
  snprintf(garbage, sizeof garbage, "%s/zz_garbage.so", fx);
  FILE *f = fopen(garbage, "w");
  ck_assert_ptr_nonnull(f);
  fputs("this is not an ELF file\n", f);
  fclose(f);
  const char *paths[] = {fx, NULL};
  unsetenv("MERGESPLIT_PLUGIN_PATH"); /* only the fixtures */
  ck_assert_int_eq(ms_registry_open(paths, &reg), 0);
}

static void close_fixtures(void) {
  ms_registry_close(reg);
  reg = NULL;
  unlink(garbage);
}

static const char *refusal(const char *file) {
  for (size_t i = 0; i < ms_registry_refusal_count(reg); i++) {
    const char *r = ms_registry_refusal(reg, i);
    const char *slash = strrchr(r, '/');
    if (slash && !strncmp(slash + 1, file, strlen(file))) return r;
  }
  return NULL;
}

static const struct {
  const char *file, *reason;
} refused[] = {
    /* %1$d: the core's minor (MS_ABI_MINOR), %2$d the one past it */
    {"bad_major.so", "bad_major.so: plugin ABI 2.0, this core implements ABI 1.%1$d (major versions differ)"},
    {"bad_minor.so", "bad_minor.so: plugin needs ABI 1.%2$d, newer than this core's ABI 1.%1$d"},
    {"bad_size.so", "bad_size.so: descriptor struct_size 64 is smaller than ABI 1.0's 144 bytes"},
    {"no_entry.so", "no_entry.so: no entry symbol 'mergesplit_plugin' (not a mergesplit plugin)"},
    {"null_fn.so", "null_fn.so: solver 'fixture_null_fn': required function 'integrate' is NULL"},
    {"bad_id.so", "bad_id.so: solver id 'Bad-ID' is not [a-z0-9_]+"},
    {"empty.so", "empty.so: exports no solver (entry returned NULL for index 0)"},
    {"no_release.so", "no_release.so: solver 'fixture_no_release': descriptor field 'release' is NULL"},
    {"zz_garbage.so", "zz_garbage.so: "},
};

START_TEST(broken_plugin_refused) {
  const char *r = refusal(refused[_i].file);
  char want[256];
  ck_assert_msg(r != NULL, "%s was not refused", refused[_i].file);
  if (strchr(refused[_i].reason, '%'))
    snprintf(want, sizeof want, refused[_i].reason, MS_ABI_MINOR,
             MS_ABI_MINOR + 1);
  else
    snprintf(want, sizeof want, "%s", refused[_i].reason);
  ck_assert_msg(strstr(r, want) != NULL, "refusal '%s' lacks '%s'", r, want);
  ck_assert(!strchr(r, '\n'));
  /* none of its solvers made it into the registry */
  for (size_t i = 0; i < ms_registry_count(reg); i++) {
    struct ms_plugin_info p;
    ms_registry_get(reg, i, &p);
    ck_assert_msg(!strstr(p.path, refused[_i].file), "%s accepted", p.path);
  }
}
END_TEST

START_TEST(good_plugins_accepted_scan_goes_on) {
  /* bad files sort both before and after the good ones */
  ck_assert_ptr_nonnull(ms__registry_find(reg, "fixture_good"));
  ck_assert_ptr_nonnull(ms__registry_find(reg, "fixture_nan"));
  ck_assert_ptr_nonnull(ms__registry_find(reg, "fixture_badview"));
  /* the 27 loadable builds of fixture_plugin.c (all but the eight the
   * loader refuses), the hand-over fixture, the two rigid clusters of
   * rigid_cluster.so and the 1.0 build of dust */
  ck_assert_uint_eq(ms_registry_count(reg), 31);
  ck_assert_ptr_nonnull(ms__registry_find(reg, "fixture_lazy"));
  ck_assert_uint_eq(ms_registry_refusal_count(reg),
                    sizeof refused / sizeof *refused);
}
END_TEST

/* A descriptor of ABI 1.0's size loads in the 1.1 core and nothing past
 * its struct_size is read (its 1.1 members are NULL); one that needs 1.1
 * loads with them.  dust_v10.so is the example plugin compiled against
 * the frozen 1.0 headers (tests/fixtures/abi-1.0): a 1.0 binary. */
START_TEST(descriptor_sizes_of_both_minors) {
  const struct ms__plugin *dust = ms__registry_find(reg, "dust");
  ck_assert_ptr_nonnull(dust);
  ck_assert_uint_eq(dust->desc.struct_size, MS_PLUGIN_V1_SIZE);
  ck_assert_uint_eq(dust->desc.abi_minor, 0);
  ck_assert_ptr_null(dust->desc.energy);
  const struct ms__plugin *v10 = ms__registry_find(reg, "fixture_rigid_v10");
  const struct ms__plugin *v11 = ms__registry_find(reg, "fixture_rigid");
  ck_assert_ptr_nonnull(v10);
  ck_assert_ptr_nonnull(v11);
  ck_assert_uint_eq(v10->desc.struct_size, MS_PLUGIN_V1_SIZE);
  ck_assert_uint_eq(v10->desc.abi_minor, 0);
  ck_assert_ptr_null(v10->desc.meta_inertia);
  ck_assert_ptr_null(v10->desc.meta_response);
  ck_assert_uint_eq(v11->desc.abi_minor, 1);
  ck_assert_ptr_nonnull(v11->desc.meta_inertia);
  ck_assert_ptr_nonnull(v11->desc.meta_response);
}
END_TEST

/* The same directory by another name (a symbolic link) overrides every
 * solver of the first; the same name twice is scanned once. */
START_TEST(later_directory_overrides) {
  const char *fx = getenv("MS_FIXTURES");
  char tmp[] = "/tmp/ms-loader-XXXXXX", link[64];
  ck_assert_ptr_nonnull(mkdtemp(tmp));
  snprintf(link, sizeof link, "%s/fx", tmp);
  ck_assert_int_eq(symlink(fx, link), 0);
  const char *paths[] = {fx, link, NULL}, *twice[] = {fx, fx, NULL};
  const char *once[] = {fx, NULL};
  ms_registry *r1, *r2, *r3;
  ck_assert_int_eq(ms_registry_open(paths, &r2), 0);
  const struct ms__plugin *p = ms__registry_find(r2, "fixture_good");
  ck_assert_ptr_nonnull(p);
  ck_assert_ptr_nonnull(p->shadowed);
  ck_assert_ptr_nonnull(strstr(p->path, link));
  ck_assert_int_eq(ms_registry_open(once, &r1), 0);
  ck_assert_int_eq(ms_registry_open(twice, &r3), 0);
  /* every id once: as many as the directory named once gives */
  ck_assert_uint_eq(ms_registry_count(r2), ms_registry_count(r1));
  ck_assert_uint_eq(ms_registry_count(r3), ms_registry_count(r1));
  ck_assert_uint_eq(ms_registry_refusal_count(r3),
                    ms_registry_refusal_count(r1));
  ck_assert_ptr_null(ms__registry_find(r3, "fixture_good")->shadowed);
  /* the directories scanned: the installed one, then each named once */
  ck_assert_str_eq(ms_registry_dir(r3, 1), fx);
  ck_assert_ptr_null(ms_registry_dir(r3, 2));
  ck_assert_str_eq(ms_registry_dir(r2, 1), fx);
  ck_assert_str_eq(ms_registry_dir(r2, 2), link);
  ck_assert_ptr_null(ms_registry_dir(r2, 3));
  char why[2048], want[1024];
  snprintf(want, sizeof want, ", %s, %s; install plugins there", fx, link);
  ck_assert_ptr_nonnull(strstr(ms_registry_none_found(r2, why, sizeof why),
                               want));
  ck_assert_ptr_nonnull(strstr(ms_registry_none_found(r2, why, 24),
                               "no plugins found in"));
  ms_registry_close(r1);
  ms_registry_close(r2);
  ms_registry_close(r3);
  unlink(link);
  rmdir(tmp);
}
END_TEST

Suite *suite_loader(void) {
  Suite *s = suite_create("loader");
  TCase *tc = tcase_create("fixtures");
  tcase_add_unchecked_fixture(tc, open_fixtures, close_fixtures);
  tcase_add_loop_test(tc, broken_plugin_refused, 0,
                      (int)(sizeof refused / sizeof *refused));
  tcase_add_test(tc, good_plugins_accepted_scan_goes_on);
  tcase_add_test(tc, later_directory_overrides);
  tcase_add_test(tc, descriptor_sizes_of_both_minors);
  suite_add_tcase(s, tc);
  return s;
}
