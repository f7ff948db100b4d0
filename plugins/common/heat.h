/* Heat for the plugins of the tree (plugin ABI 1.3, MS_PLUGIN_HEAT): the
 * keys every solid reads alike, and the arrays of a plugin whose particles
 * carry heat without a conduction of their own, in one place. */
#ifndef MS_PLUGINS_COMMON_HEAT_H
#define MS_PLUGINS_COMMON_HEAT_H

#include <math.h>
#include <stdlib.h>

#include <mergesplit/plugin.h>
#include <mergesplit/plugin_util.h>

#define MSC_DEFAULT_TEMPERATURE 293.15   /* [K] */
#define MSC_DEFAULT_SPECIFIC_HEAT 1000.0 /* [J/(kg K)] */

/* Group g's `temperature` [K], finite (default tdef), and `specific_heat`
 * [J/(kg K)], > 0 (default cdef).  A bad value: one cfg_error line. */
static inline int msc_heat_keys(const struct ms_host *h, ms_ctx *ctx,
                                const ms_config *g, double tdef, double cdef,
                                double *t, double *cp) {
  int rc = h->cfg_double(ctx, g, "temperature", tdef, t);
  if (!rc && !isfinite(*t))
    rc = h->cfg_error(ctx, g, "temperature", "must be finite (got %g)", *t);
  if (!rc) rc = ms_cfg_positive(h, ctx, g, "specific_heat", cdef, cp);
  return rc;
}

/* The section's heat keys (msc_heat_keys): n-particle arrays *T and *c
 * filled with them (free with free()).  No memory: MS_ENOMEM. */
static inline int msc_heat_setup(const struct ms_host *h, ms_ctx *ctx,
                                 const ms_config *sec, size_t n, double tdef,
                                 double cdef, double **T, double **c) {
  double t, cp;
  int rc = msc_heat_keys(h, ctx, sec, tdef, cdef, &t, &cp);
  if (rc) return rc;
  *T = malloc((n ? n : 1) * sizeof **T);
  *c = malloc((n ? n : 1) * sizeof **c);
  if (!*T || !*c) return MS_ENOMEM;
  for (size_t i = 0; i < n; i++) (*T)[i] = t, (*c)[i] = cp;
  return MS_OK;
}

#endif
