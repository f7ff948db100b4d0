/* The scene file's core settings (scene, coupling, output, systems).  The
 * keys of each system other than name/solver/self_collision belong to the
 * system's plugin, which reads them through the host. */
#ifndef MS_CORE_SCENE_H
#define MS_CORE_SCENE_H

#include <libconfig.h>
#include <stdint.h>

#include "error.h"

enum ms__method {
  MS__METHOD_MERGE_SPLIT = 0,
  MS__METHOD_NONE = 1,
  MS__METHOD_PENALTY = 2,
  MS__METHOD_SPH_FORCE = 3,
  MS__METHOD_IMPULSE = 4
};

/* The scene's name of a method ("merge-split", "penalty", ...). */
const char *ms__method_name(int method);

/* How the systems' results for one meta-particle are combined
 * (coupling.sync). */
enum ms__sync_rule {
  MS__SYNC_MOMENTUM = 0, /* impulses summed: momentum conserved */
  MS__SYNC_PAPER = 1     /* mass-weighted mean, paper Eq. 17 */
};
/* The rule a scene or the caller names ("momentum", "paper"), or -1. */
int ms__sync_rule(const char *name);

struct ms__sysdesc {
  const char *name;
  const char *solver;
  int self_collision; /* -1: the plugin's default */
  config_setting_t *section;
};

struct ms__scene {
  char *path;
  config_t cfg;
  int loaded;
  /* scene */
  double duration, fps, scale;
  int64_t frames;
  uint64_t seed;
  double gravity[3], domain_min[3], domain_max[3];
  /* coupling */
  int method;
  int sync; /* enum ms__sync_rule */
  uint32_t iterations;      /* passes per step at most (iterate.h) */
  double tolerance, relaxation; /* |r| <= tolerance |dV|; first omega */
  double alpha, beta, cfl, max_dt, min_dt, skin;
  double stiffness, damping, restitution; /* baselines */
  uint32_t n_min, n_max; /* both 0: no limit */
  int limits_follow_scale; /* n_min, n_max x scale^(2/3) (sim.c) */
  uint32_t stages;
  int two_stage;
  int unmerged_impulses; /* unmerged_pairs = "impulse" (contacts.h) */
  double contact_restitution;
  /* output */
  const char *out_dir;
  int64_t out_every;
  unsigned out_formats;     /* a mask of the writers' table (output.h) */
  int64_t checkpoint_every; /* frames; 0: no periodic checkpoints */
  int preview;              /* write PNG previews of output frames */
  int preview_size[2];
  const char *preview_color; /* "system", "speed" or a field name */
  double preview_range[2];   /* colour range; NaN: per frame */
  double preview_camera[7];  /* see render.h; n == 0: default */
  int preview_camera_n;
  /* systems */
  uint32_t nsys;
  struct ms__sysdesc *sys;
};

int ms__scene_load(struct ms__scene *sc, const char *path,
                   struct ms__err *err);
void ms__scene_free(struct ms__scene *sc);

#endif
