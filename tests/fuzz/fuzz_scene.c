/* libFuzzer target: the scene loader (libconfig, the pre-scan, every check
 * of the core's sections and the systems list) on arbitrary bytes.  Built
 * and run by `make fuzz` (tests/fuzz/local.mk), seeded with the scenes of
 * configs/ and tests/data/.  Plugins are not loaded: their keys are
 * checked by their own create(), which the conformance suite covers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scene/scene.h"

/* One private directory: an @include in an input resolves there, where
 * there is nothing but the scene itself. */
static char dir[64], path[96];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/ms-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    exit(2);
  }
  snprintf(path, sizeof path, "%s/scene.cfg", dir);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f)) abort();
  struct ms__scene sc;
  struct ms__err err = {0};
  int rc = ms__scene_load(&sc, path, NULL, &err);
  /* the loader's promise: a status and a one-line reason, or a scene */
  if (rc && (!err.msg[0] || strchr(err.msg, '\n'))) abort();
  ms__scene_free(&sc);
  return 0;
}
