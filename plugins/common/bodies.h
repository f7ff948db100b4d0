/* Bodies sampled from a shape: the scene keys every solid plugin of the
 * tree reads the same way (rigid, shape_matching), in one home.
 *
 * A body's group holds
 *   shape             group, required (box, sphere, cylinder, torus,
 *                     shell, points)
 *   spacing           lattice spacing [m]; required unless the shape is
 *                     points and a radius is given
 *   radius            collision radius [m]; default spacing / 2
 *   density           [kg/m^3] of the lattice, default 1000; or
 *   mass              the body's mass [kg] (not both)
 *   velocity          [m/s], default [0, 0, 0]
 *   angular_velocity  [rad/s], default [0, 0, 0]
 *   motion            "dynamic" (default) | "fixed" | "scripted"
 *   temperature       [K], default 293.15 (heat: plugin.h, HEAT)
 *   specific_heat     [J/(kg K)], > 0, default 1000
 * and scene.scale = s refines every lattice: spacing and radius divided by
 * s^(1/3), the body's mass unchanged (a points shape is left as it is). */
#ifndef MS_PLUGINS_COMMON_BODIES_H
#define MS_PLUGINS_COMMON_BODIES_H

#include <stddef.h>
#include <stdint.h>

#include <mergesplit/plugin.h>

#include "heat.h"

enum msc_motion { MSC_DYNAMIC = 0, MSC_FIXED = 1, MSC_SCRIPTED = 2 };


struct msc_body {
  const ms_config *group, *shape;
  double spacing, radius, density, mass; /* NAN: not given */
  double temperature, specific_heat;     /* NAN: not given */
  double vel[3], omega[3];
  int motion; /* enum msc_motion */
  int points; /* the shape is a points list */
};

/* The system's bodies: the groups of its list `bodies` (*list, *count),
 * or, without one, the section itself as the one body (*list NULL,
 * *count 1).  An empty list is refused. */
int msc_body_list(const struct ms_host *h, ms_ctx *c, const ms_config *sec,
                  const ms_config **list, uint32_t *count);
/* Body defaults before any key is read: every value "not given". */
#define MSC_BODY_UNSET                                                   \
  {.spacing = NAN, .radius = NAN, .density = NAN, .mass = NAN,          \
   .temperature = NAN, .specific_heat = NAN}
/* The defaults of a `bodies` list's members: spacing, radius, density,
 * temperature and specific heat read from the system section (NAN where
 * absent). */
int msc_body_defaults(const struct ms_host *h, ms_ctx *c,
                      const ms_config *sec, struct msc_body *d);
/* Read body group g, defaults from d, the scene's scale applied; one
 * cfg_error line for a bad or missing key. */
int msc_body_read(const struct ms_host *h, ms_ctx *c, const ms_config *g,
                  const struct msc_body *d, struct msc_body *k);
/* Sample body k into pts (free with h->free) and its whole mass into
 * *mass; a shape of fewer than `least` particles is refused ("... needs
 * at least `least`", `what` naming the solver's body). */
int msc_body_sample(const struct ms_host *h, ms_ctx *c,
                    const struct msc_body *k, size_t least, const char *what,
                    struct ms_points *pts, double *mass);
/* Every body of a system read and sampled: the loop the solid plugins
 * share.  keys holds `count` elements of key_size bytes, each beginning
 * with a struct msc_body; read(ud, g, def, key) reads body group g into
 * key from the defaults def (g is the section itself when list is NULL);
 * each body is then sampled (msc_body_sample with `least` and `what`).
 * Release with msc_bodies_free, also after a failure. */
struct msc_bodies {
  uint32_t count;
  void *keys;            /* count x key_size */
  struct ms_points *pts; /* each body's particles */
  double *mass;          /* each body's mass [kg] */
  size_t total;          /* the particles of all */
};
typedef int (*msc_body_reader)(void *ud, const ms_config *g, const void *def,
                               void *key);
int msc_bodies_sample(const struct ms_host *h, ms_ctx *c,
                      const ms_config *sec, const ms_config *list,
                      uint32_t count, size_t key_size, const void *def,
                      msc_body_reader read, void *ud, size_t least,
                      const char *what, struct msc_bodies *out);
void msc_bodies_free(const struct ms_host *h, struct msc_bodies *b);
/* Lumped heat: the particles [first, first + count) take their C-weighted
 * mean temperature (C = m c), which keeps the sum of m c T to rounding: a
 * body that conducts much faster than its contacts (small Biot number). */
void msc_body_lump_heat(size_t first, size_t count, const double *m,
                        const double *c, double *T);
/* The value of key `key` of group g among three names (def when absent);
 * an unknown value is refused naming the three. */
int msc_pick3(const struct ms_host *h, ms_ctx *c, const ms_config *g,
              const char *key, const char *const *names, int def, int *out);

#endif
