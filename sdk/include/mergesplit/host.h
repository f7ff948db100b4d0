/* mergesplit — services the host (the core) offers to plugins.
 *
 * The core hands each plugin instance, at create(), a pointer to one
 * struct ms_host and one ms_ctx.  The plugin keeps both and passes the ctx
 * back on every call; it links against nothing of the core.
 *
 * Versioning: struct ms_host is append-only.  Functions present in ABI 1.0
 * are always there; a function added in a later minor version MUST be
 * guarded with MS_HOST_HAS(host, member) before use.
 *
 * Threading: unless a function says otherwise it may only be called from the
 * thread that is executing the plugin call, not from worker threads the
 * plugin starts (log() and report() are the exceptions: thread-safe).
 *
 * Configuration: a plugin reads its section of the scene only through the
 * cfg_* functions.  The host remembers every key a plugin asked for, present
 * or not; once create() returns, any key of the section nobody asked for is
 * refused as unknown (typo protection).  A plugin SHOULD therefore read every
 * key it understands even when it then ignores it.
 */
#ifndef MERGESPLIT_HOST_H
#define MERGESPLIT_HOST_H

#include <stddef.h>
#include <stdint.h>

#include <mergesplit/view.h>

#if defined(__GNUC__)
#define MS_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define MS_PRINTF(fmt, args)
#endif

/* The host's context for one plugin instance.  Opaque. */
typedef struct ms_ctx ms_ctx;
/* One setting of the scene file (a group, a list, an array or a scalar).
 * Opaque; valid until the instance is destroyed. */
typedef struct ms_config ms_config;

enum ms_log_level {
  MS_LOG_ERROR = 0,
  MS_LOG_WARN = 1,
  MS_LOG_INFO = 2,
  MS_LOG_DEBUG = 3
};

/* Scene-wide facts.  Owned by the host, valid for the instance's lifetime. */
struct ms_scene_info {
  uint32_t struct_size;
  uint32_t system_index; /* this instance's index in the scene's system list */
  uint32_t system_count;
  uint32_t reserved0;
  const char *system_name; /* the scene's name for this system */
  double gravity[3];       /* [m/s^2]; the plugin applies it itself */
  double domain_min[3];    /* axis-aligned domain walls [m] */
  double domain_max[3];
  uint64_t seed;           /* the scene's seed */
  /* The scene's resolution knob (scene.scale, default 1): a plugin SHOULD
   * multiply its particle count by about this much (finer spacing, finer
   * cloth grid, radii scaled with the spacing), keeping the physical
   * sizes.  Read it only if struct_size covers it. */
  double scale;
};

/* Points sampled by sample_shape(); xyz holds 3*count doubles and is
 * released with host->free(). */
struct ms_points {
  double *xyz;
  size_t count;
};

/* Fixed-radius neighbour lists in compressed rows.  Zero-initialise before
 * the first neighbors() call; the same struct may be passed again and its
 * storage is reused.  Release with neighbors_release(). */
struct ms_neighbors {
  size_t count;           /* number of points */
  const uint32_t *offset; /* count + 1 entries */
  const uint32_t *index;  /* neighbours of i: index[offset[i] .. offset[i+1]) */
  void *priv;             /* host-private storage */
};

struct ms_host {
  /* Header: never changes. */
  uint32_t struct_size; /* sizeof(struct ms_host) of the host */
  uint16_t abi_major;
  uint16_t abi_minor;

  /* ---- ABI 1.0 ---------------------------------------------------- */

  /* Log a line attributed to this system.  Thread-safe.  A plugin never
   * prints on its own. */
  void (*log)(ms_ctx *ctx, int level, const char *fmt, ...) MS_PRINTF(3, 4);

  /* Record why the current call fails; the host copies the text and shows
   * it with the system and plugin names.  Returns `status` so a plugin can
   * write `return host->set_error(ctx, MS_EINVAL, "...")`. */
  int (*set_error)(ms_ctx *ctx, int status, const char *fmt, ...)
      MS_PRINTF(3, 4);

  /* Message for a status code; never NULL. */
  const char *(*strerror)(int status);

  /* Scene-wide facts for this instance. */
  const struct ms_scene_info *(*scene)(ms_ctx *ctx);

  /* -- configuration ------------------------------------------------ */
  /* Getters look up `key` in `group`; key == NULL reads `group` itself
   * (an element obtained with cfg_index).  An absent key yields `def` and
   * MS_OK.  A present key of the wrong type is an error: the host records
   * "file:line: path: ..." and returns MS_ETYPE.  Integers are accepted
   * where a double is asked for. */
  int (*cfg_double)(ms_ctx *ctx, const ms_config *group, const char *key,
                    double def, double *out);
  int (*cfg_int)(ms_ctx *ctx, const ms_config *group, const char *key,
                 int64_t def, int64_t *out);
  int (*cfg_bool)(ms_ctx *ctx, const ms_config *group, const char *key,
                  int def, int *out);
  /* *out stays valid for the instance's lifetime. */
  int (*cfg_string)(ms_ctx *ctx, const ms_config *group, const char *key,
                    const char *def, const char **out);
  /* An array of exactly 3 numbers.  def may be NULL (then absent yields
   * MS_ENOENT and out is untouched). */
  int (*cfg_vec3)(ms_ctx *ctx, const ms_config *group, const char *key,
                  const double *def, double out[3]);
  /* A nested group, list or array.  Absent: *out = NULL and MS_ENOENT. */
  int (*cfg_child)(ms_ctx *ctx, const ms_config *group, const char *key,
                   const ms_config **out);
  /* Number of elements of a group, list or array (0 for a scalar). */
  uint32_t (*cfg_length)(ms_ctx *ctx, const ms_config *setting);
  /* Element i of a list or array. */
  int (*cfg_index)(ms_ctx *ctx, const ms_config *setting, uint32_t i,
                   const ms_config **out);
  /* Refuse a value: records "file:line: path.key: <message>" (key may be
   * NULL to name the group) and returns MS_ECONFIG. */
  int (*cfg_error)(ms_ctx *ctx, const ms_config *group, const char *key,
                   const char *fmt, ...) MS_PRINTF(4, 5);

  /* -- geometry ----------------------------------------------------- */
  /* Sample the shape described by `shape` (keys: type = "box" | "sphere" |
   * "cylinder" | "torus" | "shell" | "points" | "mesh" | "frame" (ABI 1.6,
   * see shape_field() below) and the type's own
   * keys, see mergesplit.cfg(5)) on a cubic lattice of the given spacing
   * (a mesh with surface = true: on its triangles, no two points closer
   * than 0.8 spacings).  Points come in a deterministic order; free
   * out->xyz with free().  A host older than "mesh" refuses it with
   * MS_ECONFIG and a message naming the key. */
  int (*sample_shape)(ms_ctx *ctx, const ms_config *shape, double spacing,
                      struct ms_points *out);
  /* Release memory the host allocated for the plugin. */
  void (*free)(void *ptr);

  /* -- randomness --------------------------------------------------- */
  /* This instance's own stream, seeded from the scene seed and the system
   * index; part of the host's checkpoints.  Not thread-safe. */
  uint64_t (*rng_u64)(ms_ctx *ctx);
  double (*rng_uniform)(ms_ctx *ctx); /* in [0, 1) */

  /* -- other systems ------------------------------------------------ */
  /* Positions (3 per particle) and radii of system `index` as they were
   * at the start of the current step; stable for the whole step, whatever
   * order the systems are integrated in.  Valid inside begin_step,
   * integrate, rewind and end_step. */
  int (*system_particles)(ms_ctx *ctx, uint32_t index, const double **xyz,
                          const double **radius, size_t *count);
  /* The live view of system `index` (read-only for the caller). */
  int (*system_view)(ms_ctx *ctx, uint32_t index, struct ms_view *out);

  /* -- neighbour search --------------------------------------------- */
  /* For `count` points (xyz with `stride` bytes between points), list for
   * every point all other points closer than `radius` (strict).  The order
   * inside a list is deterministic (the same for any thread count) but
   * otherwise unspecified.  Uses the host's threads. */
  int (*neighbors)(ms_ctx *ctx, const double *xyz, size_t stride,
                   size_t count, double radius, struct ms_neighbors *nb);
  void (*neighbors_release)(ms_ctx *ctx, struct ms_neighbors *nb);

  /* -- run facts and statistics ------------------------------------- */
  /* Number of threads the run uses (the plugin's OpenMP regions SHOULD use
   * at most this many). */
  int (*thread_count)(ms_ctx *ctx);
  /* Add `value` to the named per-frame statistic of this system (e.g.
   * "pcg_iterations", "bonds_broken"); it appears in the run report.
   * Thread-safe. */
  void (*report)(ms_ctx *ctx, const char *name, double value);

  /* ---- ABI 1.2 (MS_HOST_HAS(host, meta_spin)) ---- */
  /* Valid during end_step(): this system's share of the angular momentum
   * [kg m^2/s] that merging and splitting took from the members of each
   * meta-particle of the step about its centre (plugin.h, MEMBERS' SPIN),
   * 3 per meta-particle, in the order of the metas of the system's last
   * integrate(); *count = 0 when it had none.  The array is the host's. */
  int (*meta_spin)(ms_ctx *ctx, const double **spin, uint32_t *count);

  /* ---- ABI 1.4 (MS_HOST_HAS(host, declare_receiver)) ---- */
  /* Only during create(): this system may hand particles over
   * (plugin.h, PARTICLE HAND-OVER) to the system the scene calls `name`,
   * which the setting `key` of `group` named (for the error line).  The
   * host copies `name`.  Once every system of the scene is created, the
   * core checks each declared name: a system of the scene, not this one,
   * whose plugin has accept(); otherwise opening the scene fails with one
   * line "file:line: key: ..." naming both systems.  Declaring is a
   * promise about the scene, not a restriction: a hand-over to a name
   * never declared is still checked when it happens.  Returns MS_OK,
   * MS_EINVAL (NULL name, or called outside create()) or MS_ENOMEM. */
  int (*declare_receiver)(ms_ctx *ctx, const ms_config *group,
                          const char *key, const char *name);

  /* ---- ABI 1.6 (MS_HOST_HAS(host, shape_field)) ---- */
  /* STARTING FROM A PREVIOUS OUTPUT.  A shape of type "frame" names a
   * frame file a run wrote (`file = "out/water_000040.vtp"`); sample_shape()
   * gives its particles' positions, bit for bit and in the file's order,
   * and this call the other per-particle values the file holds.  After
   * sample_shape() returned `count` points for `shape`, fill out[count *
   * comps] with the point field `name` (comps 1 for a scalar, 3 for a
   * vector), in the same order.
   *   Returns MS_OK; MS_ENOENT (no error recorded) when the shape carries
   *   no such field -- every other shape type, or a frame file without it
   *   -- and the plugin then uses its own value; MS_ECONFIG with one line
   *   naming the file when its field has other components or the file no
   *   longer holds `count` particles.
   * A plugin whose particles move each on its own (grains, fluids) SHOULD
   * ask for "velocity" (so a restart continues the motion, not only the
   * places) and for the other fields it keeps per particle
   * ("temperature", "mass", "radius"); a body solver MAY take a frame as
   * the points of a body (positions only).  No plugin may jitter, rescale
   * (scene.scale) or filter a frame's points.  A plugin that does not ask
   * (or is older than 1.6) sees a frame shape as a point set, at the
   * velocity its own keys give. */
  int (*shape_field)(ms_ctx *ctx, const ms_config *shape, const char *name,
                     size_t count, uint32_t comps, double *out);
};

/* Nonzero when struct ms_scene_info `info` holds `member`. */
#define MS_SCENE_HAS(info, member) \
  ((info)->struct_size >= offsetof(struct ms_scene_info, member) + \
                              sizeof((info)->member))

/* Nonzero when the host provides `member` (added after ABI 1.0). */
#define MS_HOST_HAS(host, member)                          \
  ((host)->struct_size >= offsetof(struct ms_host, member) + \
                              sizeof((host)->member) &&    \
   (host)->member != NULL)

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && \
    UINTPTR_MAX == UINT64_MAX
/* Frozen v1 layout (LP64). */
_Static_assert(offsetof(struct ms_host, log) == 8, "ms_host v1 layout");
_Static_assert(offsetof(struct ms_host, cfg_double) == 40, "ms_host v1 layout");
_Static_assert(offsetof(struct ms_host, sample_shape) == 112,
               "ms_host v1 layout");
_Static_assert(offsetof(struct ms_host, report) == 184, "ms_host v1 layout");
_Static_assert(offsetof(struct ms_host, meta_spin) == 192,
               "ms_host v1.2 layout");
_Static_assert(offsetof(struct ms_host, declare_receiver) == 200,
               "ms_host v1.4 layout");
_Static_assert(offsetof(struct ms_host, shape_field) == 208,
               "ms_host v1.6 layout");
_Static_assert(sizeof(struct ms_host) == 216, "ms_host v1.6 size");
_Static_assert(offsetof(struct ms_scene_info, gravity) == 24,
               "ms_scene_info v1 layout");
_Static_assert(sizeof(struct ms_scene_info) == 112, "ms_scene_info v1 size");
#endif

#endif /* MERGESPLIT_HOST_H */
