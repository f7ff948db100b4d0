/* The water's pressure on other systems' particles (plugin ABI 1.5,
 * push(); doc/buoyancy.md).
 *
 * A body the water surrounds is pressed on over its whole volume: the
 * force is the integral of -grad p over it, which meta-particles at its
 * surface cannot give.  With `buoyancy = true` the cells the others'
 * particles occupy take part in the solve at rest (their faces carry no
 * velocity of the water's; gravity is added before they are marked), so
 * the water's pressure continues through them, except above the water
 * line (flip_dry_others).  The projection's change of a face velocity is
 * -dt grad p / rho_w; sampled at a particle of volume V = (2r)^3, times
 * rho_w V / dt, it is the force -V grad p on it (gravity is the body's
 * own).  The body takes the sum as a rigid body or a shape-matched one
 * would.  Tried first and measured worse (doc/buoyancy.md): the others'
 * particles in the transfer as a phase of their own density (the
 * rigid-fluid method of Carlson et al. 2004), which held a floating box
 * up by its own column. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "flip.h"

/* A cell the others alone occupy takes part in the solve (at rest, so the
 * water's pressure continues through it) only where the water stands at
 * its height: within FLIP_WET_REACH cells across gravity, in the same
 * layer along it, some cell holds water.  The part of a floating body
 * above the water line is then air to the solve, p = 0, as it is; marked
 * fluid it held a pressure that decays up to the body's top and pushed
 * the body up (it floated with a quarter of its height in the water, not
 * half). */
#define FLIP_WET_REACH 8

void flip_dry_others(struct flip_grid *g, const struct flip_bins *b,
                     const double gravity[3]) {
  int up = 0;
  for (int a = 1; a < 3; a++)
    if (fabs(gravity[a]) > fabs(gravity[up])) up = a;
  if (gravity[up] == 0.0) return;
  const int p = (up + 1) % 3, q = (up + 2) % 3, R = FLIP_WET_REACH;
  for (size_t c = 0; c < g->ncell; c++) {
    if (g->cell[c] != FLIP_FLUID || b->start[c + 1] > b->start[c]) continue;
    int ijk[3] = {(int)(c % g->n[0]), (int)(c / g->n[0] % g->n[1]),
                  (int)(c / ((size_t)g->n[0] * g->n[1]))};
    int wet = 0;
    for (int dp = -R; dp <= R && !wet; dp++)
      for (int dq = -R; dq <= R && !wet; dq++) {
        int n[3] = {ijk[0], ijk[1], ijk[2]};
        n[p] += dp, n[q] += dq;
        if (n[p] < 0 || n[p] >= g->n[p] || n[q] < 0 || n[q] >= g->n[q])
          continue;
        size_t m = flip_cell(g, n[0], n[1], n[2]);
        wet = b->start[m + 1] > b->start[m];
      }
    if (!wet) g->cell[c] = FLIP_AIR;
  }
}

void flip_foreign_free(struct flip_foreign *f) {
  free(f->x), free(f->pv), free(f->force);
  free(f->sys), free(f->idx);
  memset(f, 0, sizeof *f);
}

static int reserve(struct flip_foreign *f, size_t n) {
  if (n <= f->cap) return 0;
  size_t c = n + n / 4 + 64;
  double *x = realloc(f->x, 3 * c * sizeof *x);
  if (x) f->x = x;
  double *F = realloc(f->force, 3 * c * sizeof *F);
  if (F) f->force = F;
  double *pv = realloc(f->pv, c * sizeof *pv);
  if (pv) f->pv = pv;
  uint32_t *s = realloc(f->sys, c * sizeof *s);
  if (s) f->sys = s;
  uint32_t *i = realloc(f->idx, c * sizeof *i);
  if (i) f->idx = i;
  if (!x || !F || !pv || !s || !i) return -1;
  f->cap = c;
  return 0;
}

static int inside(const struct flip_grid *g, const double *x) {
  for (int a = 0; a < 3; a++)
    if (!(x[a] >= g->lo[a] && x[a] <= g->lo[a] + g->n[a] * g->h)) return 0;
  return 1;
}

int flip_foreign_gather(struct flip_foreign *f, const struct flip_grid *g,
                        const struct ms_host *host, ms_ctx *ctx,
                        double rho0) {
  const struct ms_scene_info *info = host->scene(ctx);
  f->n = 0;
  for (uint32_t y = 0; y < info->system_count; y++) {
    struct ms_view w = {.struct_size = sizeof w};
    if (y == info->system_index) continue;
    int rc = host->system_view(ctx, y, &w);
    if (rc) return rc;
    const struct ms_field *X = ms_view_field(&w, "position", MS_TYPE_F64, 3),
                          *R = ms_view_field(&w, "radius", MS_TYPE_F64, 1);
    if (!X || !R) return MS_EINVAL;
    if (reserve(f, f->n + w.count)) return MS_ENOMEM;
    for (size_t i = 0; i < w.count; i++) {
      const double *x = (const double *)((const char *)X->data + i * X->stride);
      if (!inside(g, x)) continue;
      double r = *(const double *)((const char *)R->data + i * R->stride);
      size_t k = f->n++;
      memcpy(f->x + 3 * k, x, 3 * sizeof *x);
      f->pv[k] = rho0 * 8.0 * r * r * r; /* volume (2r)^3 times rho0 */
      f->sys[k] = y;
      f->idx[k] = (uint32_t)i;
    }
  }
  return MS_OK;
}

void flip_foreign_forces(struct flip_foreign *f, const struct flip_grid *g,
                         double *const dproj[3], double dt, double J[3]) {
  J[0] = J[1] = J[2] = 0.0;
  for (size_t k = 0; k < f->n; k++) {
    struct flip_stencil s[3];
    flip_stencils(g, f->x + 3 * k, s);
    for (int a = 0; a < 3; a++) {
      double j = f->pv[k] * flip_stencil_eval(s + a, dproj[a]);
      f->force[3 * k + a] = j / dt;
      J[a] += j;
    }
  }
}

void flip_foreign_push(const struct flip_foreign *f, uint32_t system,
                       double *force, size_t count) {
  for (size_t k = 0; k < f->n; k++)
    if (f->sys[k] == system && f->idx[k] < count)
      for (int a = 0; a < 3; a++)
        force[3 * (size_t)f->idx[k] + a] += f->force[3 * k + a];
}
