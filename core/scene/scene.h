/* The scene: what a scene file declares (core settings, shapes, the
 * settings' parse helpers) and the plugins that provide its solvers. */
#ifndef MS_CORE_SCENE_H
#define MS_CORE_SCENE_H

#include <libconfig.h>
#include <stddef.h>
#include <stdint.h>

#include <mergesplit/core.h>
#include <mergesplit/plugin.h>

#include "../base/base.h"

/* ---- settings.c ----------------------------------------------------------*/
/* Reading the scene file: libconfig plus two things it lacks — every
 * setting read is marked, so keys nobody read can be refused as unknown
 * (typo protection), and every complaint names file:line and the key's
 * path. */
/* Parse `path`; on failure the error reads "FILE:LINE: MESSAGE" and cfg
 * is already destroyed. */
int ms__cfg_load(config_t *cfg, const char *path, struct ms__err *err);
/* The same for a scene held in memory: `name` (kept by the caller while
 * cfg lives) names it in errors, @include is relative to dir (NULL: "."). */
int ms__cfg_load_text(config_t *cfg, const char *name, const char *text,
                      const char *dir, struct ms__err *err);

/* "FILE:LINE: PATH[.KEY]" for a setting (key may be NULL). */
void ms__cfg_where(const config_setting_t *s, const char *key, char *buf,
                   size_t len);
/* Record "FILE:LINE: PATH.KEY: MESSAGE"; returns MS_ECONFIG. */
int ms__cfg_fail(struct ms__err *err, const config_setting_t *s,
                 const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* "FILE:LINE" of a setting, or "--set KEY=VALUE" for one an override
 * made. */
void ms__cfg_at(const config_setting_t *s, char *buf, size_t len);

/* Override one key: spec "KEY=VALUE", KEY a path of group members and
 * list elements ("coupling.alpha", "systems.[1].stiffness", also
 * "systems[1]" and "systems.NAME" for the element whose name is NAME),
 * VALUE in the file's syntax (a bare word that is none is a string).  A
 * missing member is created (and groups on the way); a number given for
 * a number keeps the file's integer or float type.  `origin` ("--set
 * KEY=VALUE", owned by the caller, kept as long as cfg) is what errors
 * about the key name, here and when the key is read. */
int ms__cfg_override(config_t *cfg, const char *spec, const char *origin,
                     struct ms__err *err);

/* Mark a setting as read. */
void ms__cfg_mark(config_setting_t *s);
/* First setting below `s` that nobody read (recursing into read groups and
 * read list elements) -> "FILE:LINE: unknown key 'K' in PATH"; MS_ECONFIG. */
int ms__cfg_check_unknown(const config_setting_t *s, struct ms__err *err);

/* Typed getters.  key == NULL reads `g` itself.  Absent: *out = def, MS_OK.
 * Wrong type: MS_ETYPE with the error recorded. */
config_setting_t *ms__cfg_get(const config_setting_t *g, const char *key);
int ms__cfg_double(const config_setting_t *g, const char *key, double def,
                   double *out, struct ms__err *err);
int ms__cfg_int(const config_setting_t *g, const char *key, int64_t def,
                int64_t *out, struct ms__err *err);
int ms__cfg_bool(const config_setting_t *g, const char *key, int def,
                 int *out, struct ms__err *err);
int ms__cfg_string(const config_setting_t *g, const char *key,
                   const char *def, const char **out, struct ms__err *err);
/* def NULL: absent -> MS_ENOENT. */
int ms__cfg_vec3(const config_setting_t *g, const char *key,
                 const double *def, double *out, struct ms__err *err);

/* ---- shapes.c ------------------------------------------------------------*/
/* Sampling particles in shapes given by a scene group:
 *   box      min, max           lattice centred in the box
 *   sphere   center, radius
 *   cylinder center, radius, height, axis (default [0,1,0])
 *   torus    center, major_radius, minor_radius, axis
 *   shell    center, radius, thickness, axis, hemisphere (default true):
 *            a bowl opening towards +axis
 *   points   points = ( [x,y,z], ... )
 *   mesh     file, scale, rotate, translate, surface (mesh.c)
 *   frame    file: a frame a run wrote (.vtp), its positions as stored
 * Common key: jitter (fraction of the spacing, default 0).
 * More than `max` points are refused (file:line) before they are
 * allocated: boxes and point lists are counted, the other shapes are
 * estimated from their volume and stopped at max. */
int ms__shape_sample(const config_setting_t *shape, double spacing,
                     size_t max, struct ms__rng *rng, double **xyz, size_t *n,
                     struct ms__err *err);

/* A frame shape's per-particle field `name` (comps per particle) into out,
 * for the `count` points it sampled.  MS_ENOENT, no error recorded, when
 * the shape is not a frame or its file lacks the field. */
int ms__shape_field(const config_setting_t *shape, const char *name,
                    size_t count, uint32_t comps, double *out,
                    struct ms__err *err);

/* ---- mesh.c, mesh_sample.c -----------------------------------------------*/
/* A triangle mesh read from a file (OBJ, STL, PLY, and what else assimp
 * reads), every vertex mapped by xf (row-major 3x3, then a translation),
 * vertices welded by position (so the file's format and vertex order do
 * not matter). */
struct ms__mesh {
  size_t nv, nt;
  double *v;   /* 3 nv coordinates */
  uint32_t *t; /* 3 nt vertex indices */
  double lo[3], hi[3]; /* bounds */
  double area;   /* [m^2] */
  double volume; /* signed [m^3]: > 0 when the faces point outwards */
  double open;   /* (rim length)^2 / (4 pi area): about the fraction of the
                    surface missing; 0 for a closed mesh */
};
/* On failure `why` holds the reason (without the file's name). */
int ms__mesh_read(const char *path, const double xf[12], struct ms__mesh *m,
                  char *why, size_t len);
void ms__mesh_free(struct ms__mesh *m);
/* The generalized winding number at p: 1 inside, 0 outside. */
double ms__mesh_winding(const struct ms__mesh *m, const double *p);
/* Append to *xyz the lattice points of spacing h (centred on the mesh's
 * bounds) where the winding number exceeds 1/2.  MS_ERANGE past max. */
int ms__mesh_fill(const struct ms__mesh *m, double h, size_t max,
                  double **xyz, size_t *n);
/* Append points on the surface: no two closer than 0.8 h, every point of
 * the surface within about 0.8 h of one.  MS_ERANGE past max. */
int ms__mesh_surface(const struct ms__mesh *m, double h, size_t max,
                     double **xyz, size_t *n);

/* ---- loader.c ------------------------------------------------------------*/
/* Finding and loading solver plugins (shared objects). */
/* One accepted solver. */
struct ms__plugin {
  struct ms_plugin desc; /* copy, zero past the plugin's struct_size */
  char *path;
  char *shadowed;        /* path of an earlier plugin with the same id */
  void *handle;          /* the file's dlopen handle (shared per file) */
};

struct ms_registry {
  struct ms__plugin *p;
  size_t n, cap;
  char **refused; /* "PATH: REASON" */
  size_t nrefused, cap_refused;
  void **handles; /* dlopen handles kept open */
  size_t nhandles, cap_handles;
  char **dirs; /* scanned, in order, each once */
  size_t ndirs;
};

/* Validate a descriptor exactly as the loader does; on refusal write the
 * reason and return MS_EABI or MS_EPLUGIN. */
int ms__plugin_validate(const struct ms_plugin *d, char *why, size_t len);
const struct ms__plugin *ms__registry_find(const ms_registry *reg,
                                           const char *id);
/* "no plugin provides solver 'ID' ..." into buf: with the directories
 * searched when none was found at all.  Returns buf. */
char *ms__registry_missing(const ms_registry *reg, const char *id, char *buf,
                           size_t len);
/* ---- scene.c -------------------------------------------------------------*/
/* The scene file's core settings (scene, coupling, output, systems).  The
 * keys of each system other than name/solver/self_collision belong to the
 * system's plugin, which reads them through the host. */
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

/* A box where heat-carrying particles relax toward a temperature
 * (scene.heat_sources; step/heat.c). */
struct ms__heat_source {
  double lo[3], hi[3];
  double temperature; /* [K] */
  double rate;        /* [1/s]; INFINITY: held at the temperature */
};

/* A scene's frames at most (duration x fps). */
#define MS__MAX_FRAMES 1e9

struct ms__scene {
  char *path;       /* the file, or the name of a scene given as text */
  char *text;       /* NULL, or the scene's text (ms_sim_open_string) */
  char **overrides; /* "--set KEY=VALUE", in the order applied */
  size_t noverrides;
  config_t cfg;
  int loaded;
  /* scene */
  double duration, fps, scale;
  int64_t frames;
  uint64_t seed;
  double gravity[3], domain_min[3], domain_max[3];
  struct ms__heat_source *heat_src; /* scene.heat_sources */
  uint32_t nheat_src;
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
  int group_per_group;   /* group_draws = "per_group" (group.c) */
  double contact_restitution;
  double conductance;       /* [W/K] per touching pair of heat systems */
  double heat_reach;        /* [m]: heat pairs are the pairs whose surfaces
                               are closer than this (0: touching only) */
  /* output */
  const char *out_dir;
  int64_t out_every;
  unsigned out_formats;     /* a mask of the writers' table (output.h) */
  int out_zlib;             /* output.compress = "zlib": compressed .vtp */
  /* output.surface: systems whose surface is reconstructed per frame
   * (their indices; nsurface of them), its grid cell and kernel radius in
   * particle spacings (surface.c) */
  uint32_t *surface_sys, nsurface;
  double surface_cell, surface_kernel;
  int out_plots;            /* output.plots: charts of the report at the end */
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

/* Read the scene file at `path` -- or, when text is non-NULL, the scene
 * `text` so named, @include relative to dir -- then apply `overrides`
 * (NULL or a NULL-terminated list of "KEY=VALUE", see ms__cfg_override). */
int ms__scene_load(struct ms__scene *sc, const char *path, const char *text,
                   const char *dir, const char *const *overrides,
                   struct ms__err *err);
void ms__scene_free(struct ms__scene *sc);

#endif
