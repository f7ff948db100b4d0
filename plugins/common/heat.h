/* Heat for the plugins of the tree whose particles carry it without a
 * conduction of their own (plugin ABI 1.3, MS_PLUGIN_HEAT): the keys, the
 * arrays, in one place. */
#ifndef MS_PLUGINS_COMMON_HEAT_H
#define MS_PLUGINS_COMMON_HEAT_H

#include <math.h>
#include <stdlib.h>

#include <mergesplit/plugin.h>
#include <mergesplit/plugin_util.h>

/* The section's `temperature` [K] (default tdef) and `specific_heat`
 * [J/(kg K)], > 0 (default cdef): n-particle arrays *T and *c filled with
 * them (free with free()).  A bad value: one cfg_error line; no memory:
 * MS_ENOMEM. */
static inline int msc_heat_setup(const struct ms_host *h, ms_ctx *ctx,
                                 const ms_config *sec, size_t n, double tdef,
                                 double cdef, double **T, double **c) {
  double t, cp;
  int rc = h->cfg_double(ctx, sec, "temperature", tdef, &t);
  if (!rc && !isfinite(t))
    rc = h->cfg_error(ctx, sec, "temperature", "must be finite (got %g)", t);
  if (!rc) rc = ms_cfg_positive(h, ctx, sec, "specific_heat", cdef, &cp);
  if (rc) return rc;
  *T = malloc((n ? n : 1) * sizeof **T);
  *c = malloc((n ? n : 1) * sizeof **c);
  if (!*T || !*c) return MS_ENOMEM;
  for (size_t i = 0; i < n; i++) (*T)[i] = t, (*c)[i] = cp;
  return MS_OK;
}

#endif
