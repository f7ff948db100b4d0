/* mergesplit conformance PLUGIN_ID: run the conformance kit on a plugin and
 * print one line per check.  Exit 0 when every check passes, 1 otherwise. */
#include <stdio.h>

#include "cli.h"

static void print_check(void *opaque, const char *check, int passed,
                        const char *detail) {
  int *n = opaque;
  n[0]++;
  n[1] += !passed;
  printf("%s  %-15s %s\n", passed ? "PASS" : "FAIL", check, detail);
  fflush(stdout);
}

int cli_conformance(struct args *a) {
  struct ms_conformance_options o = {.struct_size = sizeof o,
                                     .plugin_paths = a->paths,
                                     .scene_path = a->conf_scene,
                                     .system_name = a->conf_system};
  char err[1200];
  int counts[2] = {0, 0};
  int rc = ms_conformance_run(a->scene, &o, print_check, counts, err,
                              sizeof err);
  if (rc < 0) {
    fprintf(stderr, "mergesplit: error: %s\n", err);
    return cli_exit_code(rc);
  }
  printf("%s: %d of %d checks passed\n", a->scene, counts[0] - counts[1],
         counts[0]);
  return counts[1] ? EXIT_SIM : 0;
}
