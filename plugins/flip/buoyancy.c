/* The water's pressure on other systems' particles (plugin ABI 1.5,
 * push(); doc/buoyancy.md).
 *
 * A body the water surrounds is pressed on over its whole surface: the
 * force is the integral of -p n over it, which meta-particles at its
 * surface cannot give.  With `buoyancy = true` the cells the others'
 * particles alone occupy are walls in the projection (at rest), so the
 * water's pressure is that of water beside a body, hydrostatic where it
 * stands still.  After the solve the pressure is carried from the water's
 * cells into the cells around them with the hydrostatic step between two
 * cells (p_n + rho g.(x_c - x_n), rho the water's reference density:
 * exact for still water, negative above its surface), and each of the
 * others' particles, a cube of side 2r, takes on each axis the pressure
 * at its two faces: f_a = (2r)^2 (p(x - r e_a) - p(x + r e_a)), p
 * trilinear over the cells and never below 0.  Summed over a body built
 * of such cubes on a lattice of spacing 2r the inner faces cancel and
 * what is left is the integral of p over its outer faces: Archimedes'
 * force for still water, to the pressure solve's tolerance, whatever the
 * draft (a body whose particles' radius is not half its spacing takes
 * (2r / spacing)^3 of it).  Gravity is the body's own.  Tried first and
 * measured worse (doc/buoyancy.md): the body's cells as water at rest
 * and the force -V grad p from the projection's change of the faces; the
 * others' particles as a phase of their own density (Carlson et al.
 * 2004). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "flip.h"

/* How many cells deep the pressure is carried out of the water: a body's
 * surface lies within one cell of the water's cells, and a force uses the
 * cells within one cell of that surface; deeper inside a body the faces
 * cancel whatever the value. */
#define FLIP_PRESSURE_REACH 3

void flip_foreign_free(struct flip_foreign *f) {
  free(f->x), free(f->r), free(f->force);
  free(f->sys), free(f->idx);
  free(f->p), free(f->known), free(f->queue);
  memset(f, 0, sizeof *f);
}

int flip_foreign_init(struct flip_foreign *f, const struct flip_grid *g) {
  f->p = malloc(g->ncell * sizeof *f->p);
  f->known = malloc(g->ncell);
  f->queue = malloc(g->ncell * sizeof *f->queue);
  return f->p && f->known && f->queue ? 0 : -1;
}

static int reserve(struct flip_foreign *f, size_t n) {
  if (n <= f->cap) return 0;
  size_t c = n + n / 4 + 64;
  double *x = realloc(f->x, 3 * c * sizeof *x);
  if (x) f->x = x;
  double *F = realloc(f->force, 3 * c * sizeof *F);
  if (F) f->force = F;
  double *r = realloc(f->r, c * sizeof *r);
  if (r) f->r = r;
  uint32_t *s = realloc(f->sys, c * sizeof *s);
  if (s) f->sys = s;
  uint32_t *i = realloc(f->idx, c * sizeof *i);
  if (i) f->idx = i;
  if (!x || !F || !r || !s || !i) return -1;
  f->cap = c;
  return 0;
}

static int inside(const struct flip_grid *g, const double *x) {
  for (int a = 0; a < 3; a++)
    if (!(x[a] >= g->lo[a] && x[a] <= g->lo[a] + g->n[a] * g->h)) return 0;
  return 1;
}

int flip_foreign_gather(struct flip_foreign *f, const struct flip_grid *g,
                        const struct ms_host *host, ms_ctx *ctx) {
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
      size_t k = f->n++;
      memcpy(f->x + 3 * k, x, 3 * sizeof *x);
      f->r[k] = *(const double *)((const char *)R->data + i * R->stride);
      f->sys[k] = y;
      f->idx[k] = (uint32_t)i;
    }
  }
  return MS_OK;
}

void flip_wall_others(struct flip_grid *g, const struct flip_foreign *f) {
  for (size_t k = 0; k < f->n; k++) {
    int c[3];
    if (!flip_cell_inside(g, f->x + 3 * k, c)) continue;
    size_t i = flip_cell(g, c[0], c[1], c[2]);
    if (g->cell[i] == FLIP_AIR) g->cell[i] = FLIP_SOLID;
  }
}

/* Grid coordinates of cell c. */
static void cell_coords(const struct flip_grid *g, size_t c, int ijk[3]) {
  const size_t nx = (size_t)g->n[0], nxy = nx * (size_t)g->n[1];
  ijk[0] = (int)(c % nx), ijk[1] = (int)(c / nx % (size_t)g->n[1]);
  ijk[2] = (int)(c / nxy);
}

/* The water's cells whose pressure the solve fixed: those joined to the
 * free surface through water (known = 1).  A cell walled in on all sides
 * is no unknown (its p is 0), and a pocket with no air (water trapped in
 * a body) has its p only up to a constant: neither tells the pressure of
 * the water around a body.  A tank with no air at all: every water cell. */
static void surface_joined(const struct flip_grid *g, uint8_t *known,
                           uint32_t *queue) {
  const size_t st[3] = {1, (size_t)g->n[0], (size_t)g->n[0] * g->n[1]};
  size_t n = 0;
  memset(known, 0, g->ncell);
  for (int pass = 0; pass < 2 && !n; pass++)
    for (size_t c = 0; c < g->ncell; c++) {
      if (g->cell[c] != FLIP_FLUID) continue;
      int ijk[3], air = pass;
      cell_coords(g, c, ijk);
      for (int a = 0; a < 3 && !air; a++)
        air = (ijk[a] > 0 && g->cell[c - st[a]] == FLIP_AIR) ||
              (ijk[a] + 1 < g->n[a] && g->cell[c + st[a]] == FLIP_AIR);
      if (air) known[c] = 1, queue[n++] = (uint32_t)c;
    }
  for (size_t q = 0; q < n; q++) {
    size_t c = queue[q];
    int ijk[3];
    cell_coords(g, c, ijk);
    for (int a = 0; a < 3; a++)
      for (int side = -1; side <= 1; side += 2) {
        if (ijk[a] + side < 0 || ijk[a] + side >= g->n[a]) continue;
        size_t m = side < 0 ? c - st[a] : c + st[a];
        if (g->cell[m] != FLIP_FLUID || known[m]) continue;
        known[m] = 1, queue[n++] = (uint32_t)m;
      }
  }
}

/* p [Pa] in the water's cells joined to its surface, carried
 * FLIP_PRESSURE_REACH cells out into the cells around them: each new
 * cell the mean over its neighbours known before this layer of
 * p_n + rho g.(x_c - x_n), the hydrostatic step between the two (in
 * every direction; only the step along gravity is not 0); cells beyond
 * keep 0. */
static void extend(const struct flip_grid *g, double *p, uint8_t *known,
                   uint32_t *queue, double rho, const double gr[3]) {
  const size_t st[3] = {1, (size_t)g->n[0], (size_t)g->n[0] * g->n[1]};
  surface_joined(g, known, queue);
  for (size_t c = 0; c < g->ncell; c++)
    if (!known[c]) p[c] = 0.0;
  for (int layer = 2; layer <= FLIP_PRESSURE_REACH + 1; layer++)
    for (size_t c = 0; c < g->ncell; c++) {
      if (known[c]) continue;
      int ijk[3];
      cell_coords(g, c, ijk);
      double sum = 0.0;
      int cnt = 0;
      for (int a = 0; a < 3; a++)
        for (int side = -1; side <= 1; side += 2) {
          if (ijk[a] + side < 0 || ijk[a] + side >= g->n[a]) continue;
          size_t n = side < 0 ? c - st[a] : c + st[a];
          if (!known[n] || known[n] == layer) continue; /* new this layer */
          sum += p[n] - rho * gr[a] * side * g->h;
          cnt++;
        }
      if (cnt) p[c] = sum / cnt, known[c] = (uint8_t)layer;
    }
}

/* The pressure at x, trilinear over the cell centres; the water does not
 * pull. */
static double pressure_at(const struct flip_grid *g, const double *p,
                          const double *x) {
  struct flip_stencil s;
  flip_stencil_at(g, 3, x, &s);
  double q = flip_stencil_eval(&s, p);
  return q > 0.0 ? q : 0.0;
}

void flip_foreign_forces(struct flip_foreign *f, const struct flip_grid *g,
                         const double *phi, double scale, double rho,
                         const double gr[3], double dt, int threads,
                         double J[3]) {
  double *p = f->p;
  for (size_t c = 0; c < g->ncell; c++) p[c] = scale * phi[c];
  extend(g, p, f->known, f->queue, rho, gr);
  const size_t n = f->n;
#pragma omp parallel for schedule(static) num_threads(flip_team(threads, n))
  for (size_t k = 0; k < n; k++) {
    const double r = f->r[k], A = 4.0 * r * r;
    for (int a = 0; a < 3; a++) {
      double lo[3], hi[3];
      memcpy(lo, f->x + 3 * k, sizeof lo);
      memcpy(hi, f->x + 3 * k, sizeof hi);
      lo[a] -= r, hi[a] += r;
      f->force[3 * k + a] = A * (pressure_at(g, p, lo) - pressure_at(g, p, hi));
    }
  }
  J[0] = J[1] = J[2] = 0.0;
  for (size_t k = 0; k < n; k++)
    for (int a = 0; a < 3; a++) J[a] += f->force[3 * k + a] * dt;
}

void flip_foreign_push(const struct flip_foreign *f, uint32_t system,
                       double *force, size_t count) {
  for (size_t k = 0; k < f->n; k++)
    if (f->sys[k] == system && f->idx[k] < count)
      for (int a = 0; a < 3; a++)
        force[3 * (size_t)f->idx[k] + a] += f->force[3 * k + a];
}
