/* libFuzzer target: the checkpoint reader (the core's run state, metrics
 * and output series, and every shipped solver's load()) on arbitrary
 * bytes.  Built and run by `make fuzz-checkpoint` (tests/fuzz/local.mk),
 * seeded with checkpoints written by real runs of the scenes below.
 *
 * An input is one byte choosing the scene, then a checkpoint file.  The
 * checksums would refuse almost every mutation before the body is parsed,
 * so the harness writes the header's scene hash, length, body checksum and
 * header checksum for the bytes it was given: what is fuzzed is the
 * parsing behind them (the checksums themselves are tested in
 * tests/output).  Each input resumes a freshly opened simulation. */
#include <dirent.h>
#include <dlfcn.h>
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mergesplit/core.h>

#include "base/base.h"

/* Each shipped solver at least once, with meta-particles in the saved
 * state (the scenes and scales of tests/output/resume_solvers.test). */
static const struct {
  const char *path; /* under MS_FUZZ_CONFIGS */
  double scale;
  int frames; /* the seed's checkpoint is taken after this many */
} scenes[] = {
    {"paper/fig03_ball_on_cloth_high.cfg", 0.1, 20},
    {"zero_g/grains_cloth_ball.cfg", 0.25, 6},
    {"zero_g/blob_into_block.cfg", 0.25, 8},
    {"paper/fig09_flip_cloth.cfg", 0.2, 16},
    {"rigid/box_on_cloth.cfg", 0.2, 20},
    {"gao2018/soft_into_sph.cfg", 0.2, 12},
    {"wicke2007/fracture.cfg", 0.2, 12},
    {"soft_trampoline.cfg", 0.2, 12},
};
#define NSCENES (sizeof scenes / sizeof *scenes)

/* The header's layout (core/run/run.h). */
enum {
  H_SCENE_HASH = 16,
  H_LENGTH = 24,
  H_BODY_HASH = 32,
  H_HEADER_HASH = 56,
  H_SIZE = 64
};

static char dir[64], ckpt[96];
static char scene_path[NSCENES][512];
static uint64_t scene_hash[NSCENES];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *what, const char *path) {
  fprintf(stderr, "fuzz_checkpoint: %s: %s\n", what, path);
  exit(2);
}

static uint64_t file_hash(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) die("cannot read", path);
  struct ms__hash h;
  char buf[65536];
  size_t n;
  ms__hash_init(&h);
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) ms__hash_update(&h, buf, n);
  fclose(f);
  return ms__hash_final(&h);
}

static const char *const plugins[] = {MS_FUZZ_PLUGINS, NULL};

static void quiet(void *opaque, int level, const char *line) {
  (void)opaque, (void)level, (void)line;
}

static struct ms_sim_options options(size_t k) {
  struct ms_sim_options o = {0};
  o.struct_size = sizeof o;
  o.threads = 1;
  o.plugin_paths = plugins;
  o.log = quiet;
  o.scale = scenes[k].scale;
  return o;
}

/* The coverage counters of an instrumented object must stay mapped for
 * as long as the fuzzer runs, so the harness holds each plugin open: the
 * registry's dlclose() at the end of an input does not unload it. */
static void pin_plugins(void) {
  DIR *d = opendir(MS_FUZZ_PLUGINS);
  if (!d) die("cannot list the plugins", MS_FUZZ_PLUGINS);
  struct dirent *e;
  int n = 0;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 3, ".so")) continue;
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", MS_FUZZ_PLUGINS, e->d_name);
    if (!dlopen(p, RTLD_NOW | RTLD_LOCAL)) die(dlerror(), p);
    n++;
  }
  closedir(d);
  if (!n) die("no plugins", MS_FUZZ_PLUGINS);
}

/* MS_FUZZ_WRITE_SEEDS=DIR: run every scene and write DIR/seed-K, its
 * selector byte and the checkpoint its run ends with; then exit. */
static void write_seeds(const char *out) {
  for (size_t k = 0; k < NSCENES; k++) {
    char run[128], from[160], to[1024], err[1024] = "";
    snprintf(run, sizeof run, "%s/run-%zu", dir, k);
    snprintf(from, sizeof from, "%s/checkpoint.msck", run);
    snprintf(to, sizeof to, "%s/seed-%zu", out, k);
    struct ms_sim_options o = options(k);
    o.frames = scenes[k].frames;
    o.output_dir = run;
    o.checkpoint_every = 1;
    ms_sim *S;
    int rc = ms_sim_open(scene_path[k], &o, &S, err, sizeof err);
    if (!rc && (rc = ms_sim_run(S))) snprintf(err, sizeof err, "%s",
                                              ms_sim_error(S));
    if (!rc) ms_sim_close(S);
    if (rc) die(err, scene_path[k]);
    FILE *f = fopen(from, "rb"), *g = fopen(to, "wb");
    if (!f || !g) die("cannot copy the checkpoint", from);
    int c = (int)k;
    do fputc(c, g);
    while ((c = fgetc(f)) != EOF);
    if (fclose(g)) die("cannot write", to);
    fclose(f);
  }
  exit(0);
}

static int remove_one(const char *p, const struct stat *st, int type,
                      struct FTW *f) {
  (void)st, (void)type, (void)f;
  return remove(p);
}

/* The private directory goes when the fuzzer exits (a report, too, ends
 * with exit()). */
static void remove_dir(void) { nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS); }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/ms-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) die("cannot create a directory", dir);
  atexit(remove_dir);
  snprintf(ckpt, sizeof ckpt, "%s/checkpoint.msck", dir);
  for (size_t i = 0; i < NSCENES; i++) {
    snprintf(scene_path[i], sizeof scene_path[i], "%s/%s", MS_FUZZ_CONFIGS,
             scenes[i].path);
    scene_hash[i] = file_hash(scene_path[i]);
  }
  /* only the instrumented plugins of MS_FUZZ_PLUGINS */
  unsetenv("MERGESPLIT_PLUGIN_PATH");
  pin_plugins();
  const char *seeds = getenv("MS_FUZZ_WRITE_SEEDS");
  if (seeds && *seeds) write_seeds(seeds);
  return 0;
}

static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, sizeof v); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  size_t k = data[0] % NSCENES;
  data++, size--;
  uint8_t *b = malloc(size ? size : 1);
  if (!b) abort();
  memcpy(b, data, size);
  if (size >= H_SIZE) {
    put64(b + H_SCENE_HASH, scene_hash[k]);
    put64(b + H_LENGTH, size);
    put64(b + H_BODY_HASH, ms__hash64(b + H_SIZE, size - H_SIZE));
    put64(b + H_HEADER_HASH, ms__hash64(b, H_HEADER_HASH));
  }
  FILE *f = fopen(ckpt, "wb");
  if (!f || fwrite(b, 1, size, f) != size || fclose(f)) abort();
  free(b);
  struct ms_sim_options o = options(k);
  o.no_output = 1;
  o.resume_path = ckpt;
  ms_sim *S;
  char err[1024] = "";
  int rc = ms_sim_open(scene_path[k], &o, &S, err, sizeof err);
  /* the reader's promise: a status and a one-line reason, or a run */
  if (rc && (!err[0] || strchr(err, '\n'))) abort();
  if (!rc) ms_sim_close(S);
  return 0;
}
