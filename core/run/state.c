/* The systems of a run and their particles, between steps (core.h:
 * ms_sim_system_*, ms_sim_view, ms_sim_field, ms_sim_add_force). */
#include <math.h>
#include <string.h>

#include "run.h"

uint32_t ms_sim_system_count(const ms_sim *S) { return S->nsys; }

const char *ms_sim_system_name(const ms_sim *S, uint32_t s) {
  return s < S->nsys ? S->sys[s].desc->name : NULL;
}

const char *ms_sim_system_solver(const ms_sim *S, uint32_t s) {
  return s < S->nsys ? S->sys[s].plugin->desc.id : NULL;
}

int ms_sim_system_index(const ms_sim *S, const char *name, uint32_t *s) {
  for (uint32_t i = 0; name && i < S->nsys; i++)
    if (!strcmp(S->sys[i].desc->name, name)) return *s = i, MS_OK;
  return MS_ENOENT;
}

/* A caller may read any field: derived ones are brought up to date
 * first (refresh(), ABI 1.8).  That fills a cache and leaves the run as
 * it was, so the run stays const to the caller; a failure fails the run,
 * as any plugin's does. */
static int refresh(const ms_sim *S, uint32_t s) {
  if (S->err.status) return MS_OK; /* a failed run shows what it has */
  return ms__system_refresh(&S->sys[s], (struct ms__err *)&S->err);
}

/* The view the core holds is the plugin's since its last end_step (or
 * creation, or load): what the next step starts from. */
int ms_sim_view(const ms_sim *S, uint32_t s, struct ms_view *out) {
  if (s >= S->nsys) return MS_ERANGE;
  int rc = refresh(S, s);
  if (rc) return rc;
  *out = S->sys[s].view;
  return MS_OK;
}

int ms_sim_field(const ms_sim *S, uint32_t s, const char *name,
                 struct ms_field *out, size_t *count) {
  if (s >= S->nsys) return MS_ERANGE;
  int rc = refresh(S, s);
  if (rc) return rc;
  const struct ms_view *v = &S->sys[s].view;
  const struct ms_field *f = ms__view_field(v, name, 0, 0);
  if (!f) return MS_ENOENT;
  *out = *f;
  if (count) *count = v->count;
  return MS_OK;
}

int ms_sim_add_force(ms_sim *S, uint32_t s, const double *force,
                     size_t count) {
  if (s >= S->nsys) return MS_ERANGE;
  if (S->err.status) return MS_ESTATE; /* the run has failed */
  struct ms__system *y = &S->sys[s];
  if (count != y->view.count || (count && !force)) return MS_EINVAL;
  for (size_t i = 0; i < 3 * count; i++)
    if (!isfinite(force[i])) return MS_EINVAL;
  return ms__system_add_force(y, force, count);
}
