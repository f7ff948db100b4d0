/* A fluid's surface for the output (io.h, doc/surfaces.md): the level set
 * c = 1/2 of the colour field c(x) = sum_i V_i W(|x - x_i|, h), sampled
 * on a grid and cut by marching tetrahedra.  Every cube of the grid is
 * split into the same six tetrahedra around its main diagonal, so
 * neighbouring cubes cut their shared faces alike; a vertex is named by
 * the grid edge it lies on, so triangles that meet share it: the mesh is
 * closed wherever the grid reaches past the particles, and each triangle
 * is oriented from the tetrahedron's corners, not from its (possibly
 * degenerate) own shape.  Serial: the result does not depend on the
 * thread count. */
#include "io.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/status.h>

#define ISO 0.5
#define MAX_NODES ((size_t)1 << 28) /* 2 GiB of field: a typo, not a fluid */

static const struct ms_field *field(const struct ms_view *v, const char *name,
                                    uint32_t comps) {
  return ms__view_field(v, name, MS_TYPE_F64, comps);
}

static const double *at(const struct ms_field *f, size_t i) {
  return (const double *)(const void *)((const char *)f->data + i * f->stride);
}

struct grid {
  double lo[3], cell;
  size_t n[3]; /* nodes per axis */
  double *c;   /* the colour field at the nodes */
};

/* A particle the grid can hold: finite, of positive size. */
static int finite_particle(const double *x, double d) {
  return isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]) && d > 0 &&
         isfinite(d);
}

static size_t node(const struct grid *g, size_t i, size_t j, size_t k) {
  return (k * g->n[1] + j) * g->n[0] + i;
}

/* Poly6, normalised over the ball of radius h: the field is 1 inside a
 * fluid of uniform particles, 1/2 half a spacing past its last layer. */
static void splat(struct grid *g, const struct ms_field *x,
                  const struct ms_field *r, size_t np, double h) {
  double norm = 315.0 / (64.0 * M_PI * pow(h, 9)), h2 = h * h;
  for (size_t p = 0; p < np; p++) {
    const double *xp = at(x, p);
    double d = 2.0 * *at(r, p), V = d * d * d;
    if (!finite_particle(xp, d)) continue;
    size_t a[3], b[3];
    for (int q = 0; q < 3; q++) {
      double u0 = ceil((xp[q] - h - g->lo[q]) / g->cell);
      double u1 = floor((xp[q] + h - g->lo[q]) / g->cell);
      a[q] = u0 < 0 ? 0 : (size_t)u0;
      b[q] = u1 > (double)(g->n[q] - 1) ? g->n[q] - 1 : (size_t)u1;
    }
    for (size_t k = a[2]; k <= b[2]; k++)
      for (size_t j = a[1]; j <= b[1]; j++)
        for (size_t i = a[0]; i <= b[0]; i++) {
          double dx = g->lo[0] + i * g->cell - xp[0];
          double dy = g->lo[1] + j * g->cell - xp[1];
          double dz = g->lo[2] + k * g->cell - xp[2];
          double s = h2 - (dx * dx + dy * dy + dz * dz);
          if (s > 0) g->c[node(g, i, j, k)] += V * norm * s * s * s;
        }
  }
}

/* ---- vertices, named by grid edge ---------------------------------------
 * An edge of the six tetrahedra joins a node to node + o, o one of the
 * seven nonzero corners of the unit cube: key = 8 node + o. */
static int hash_grow(struct ms__surface_mesh *m) {
  size_t cap = m->cap_hash ? 2 * m->cap_hash : 4096;
  uint64_t *keys = malloc(cap * sizeof *keys);
  uint32_t *vals = malloc(cap * sizeof *vals);
  if (!keys || !vals) {
    free(keys);
    free(vals);
    return MS_ENOMEM;
  }
  memset(keys, 0xff, cap * sizeof *keys);
  for (size_t s = 0; s < m->cap_hash; s++) {
    if (m->keys[s] == UINT64_MAX) continue;
    size_t h = (size_t)(m->keys[s] * 0x9E3779B97F4A7C15ull) & (cap - 1);
    while (keys[h] != UINT64_MAX) h = (h + 1) & (cap - 1);
    keys[h] = m->keys[s], vals[h] = m->vals[s];
  }
  free(m->keys);
  free(m->vals);
  m->keys = keys, m->vals = vals, m->cap_hash = cap;
  return MS_OK;
}

static int push_vertex(struct ms__surface_mesh *m, const double p[3]) {
  if (m->nv == m->cap_v) {
    size_t c = m->cap_v ? 2 * m->cap_v : 1024;
    if (ms__grow((void **)&m->x, 3 * c, sizeof *m->x)) return MS_ENOMEM;
    m->cap_v = c;
  }
  ms__memcpy(m->x + 3 * m->nv++, p, 3 * sizeof *p);
  return MS_OK;
}

/* The vertex on edge (node ga at pa, value fa) - (node + o at pb, fb). */
static int64_t vertex(struct ms__surface_mesh *m, size_t ga, unsigned o,
                      const double pa[3], double fa, const double pb[3],
                      double fb) {
  if (2 * (m->nv + 1) > m->cap_hash && hash_grow(m)) return -1;
  uint64_t key = 8 * (uint64_t)ga + o;
  size_t h = (size_t)(key * 0x9E3779B97F4A7C15ull) & (m->cap_hash - 1);
  while (m->keys[h] != UINT64_MAX) {
    if (m->keys[h] == key) return m->vals[h];
    h = (h + 1) & (m->cap_hash - 1);
  }
  double t = (ISO - fa) / (fb - fa), p[3];
  for (int q = 0; q < 3; q++) p[q] = pa[q] + t * (pb[q] - pa[q]);
  if (m->nv >= UINT32_MAX || push_vertex(m, p)) return -1;
  m->keys[h] = key, m->vals[h] = (uint32_t)(m->nv - 1);
  return (int64_t)(m->nv - 1);
}

static int push_tri(struct ms__surface_mesh *m, int64_t a, int64_t b,
                    int64_t c, int flip) {
  if (a < 0 || b < 0 || c < 0) return MS_ENOMEM;
  if (m->nt == m->cap_t) {
    size_t cap = m->cap_t ? 2 * m->cap_t : 2048;
    if (ms__grow((void **)&m->tri, 3 * cap, sizeof *m->tri)) return MS_ENOMEM;
    m->cap_t = cap;
  }
  uint32_t *t = m->tri + 3 * m->nt++;
  t[0] = (uint32_t)a, t[1] = (uint32_t)(flip ? c : b);
  t[2] = (uint32_t)(flip ? b : c);
  return MS_OK;
}

/* ---- one tetrahedron ----------------------------------------------------*/
struct corner {
  unsigned bits; /* which corner of the cube */
  size_t g;      /* its node */
  double p[3], f;
};

/* The vertex on the edge between corners u and w of a tetrahedron (one
 * corner's bits contain the other's: the six tetrahedra's edges all run
 * "up" the cube). */
static int64_t edge(struct ms__surface_mesh *m, const struct corner *u,
                    const struct corner *w) {
  if (u->bits > w->bits) {
    const struct corner *s = u;
    u = w, w = s;
  }
  return vertex(m, u->g, w->bits ^ u->bits, u->p, u->f, w->p, w->f);
}

/* Triangles of tetrahedron T (positively oriented: det > 0). */
static int tet(struct ms__surface_mesh *m, const struct corner *T[4]) {
  int in[4], nin = 0;
  for (int q = 0; q < 4; q++) nin += in[q] = T[q]->f > ISO;
  if (nin == 0 || nin == 4) return MS_OK;
  /* Order the corners (a, b, c, d): the lone one first (cases 1, 3), or
   * the two inside first (case 2); each group in T's order.  The cut is
   * then outward for an even permutation of T (doc/surfaces.md). */
  int ord[4], k = 0, want = nin == 3 ? 0 : 1;
  if (nin == 2) {
    for (int q = 0; q < 4; q++) if (in[q]) ord[k++] = q;
    for (int q = 0; q < 4; q++) if (!in[q]) ord[k++] = q;
  } else {
    for (int q = 0; q < 4; q++) if (in[q] == want) ord[k++] = q;
    for (int q = 0; q < 4; q++) if (in[q] != want) ord[k++] = q;
  }
  int odd = 0;
  for (int i = 0; i < 4; i++)
    for (int j = i + 1; j < 4; j++) odd ^= ord[i] > ord[j];
  const struct corner *a = T[ord[0]], *b = T[ord[1]], *c = T[ord[2]],
                      *d = T[ord[3]];
  if (nin != 2)
    return push_tri(m, edge(m, a, b), edge(m, a, c), edge(m, a, d),
                    odd ^ (nin == 3));
  int64_t ac = edge(m, a, c), ad = edge(m, a, d), bd = edge(m, b, d),
          bc = edge(m, b, c);
  int rc = push_tri(m, ac, ad, bd, odd);
  return rc ? rc : push_tri(m, ac, bd, bc, odd);
}

/* The six tetrahedra of a cube: corners 0, e_a, e_a + e_b, 7 for each
 * order (a, b, c) of the axes; odd orders listed with two corners swapped
 * so that all six are positively oriented. */
static const unsigned kuhn[6][4] = {
    {0, 1, 3, 7}, {0, 2, 6, 7}, {0, 4, 5, 7},  /* even: x y z, y z x, z x y */
    {0, 3, 2, 7}, {0, 6, 4, 7}, {0, 5, 1, 7}}; /* odd, swapped */

static int cube(struct ms__surface_mesh *m, const struct grid *g, size_t i,
                size_t j, size_t k) {
  struct corner c[8];
  int nin = 0;
  for (unsigned b = 0; b < 8; b++) {
    size_t ii = i + (b & 1), jj = j + (b >> 1 & 1), kk = k + (b >> 2 & 1);
    c[b].bits = b;
    c[b].g = node(g, ii, jj, kk);
    c[b].f = g->c[c[b].g];
    c[b].p[0] = g->lo[0] + ii * g->cell;
    c[b].p[1] = g->lo[1] + jj * g->cell;
    c[b].p[2] = g->lo[2] + kk * g->cell;
    nin += c[b].f > ISO;
  }
  if (nin == 0 || nin == 8) return MS_OK;
  for (int t = 0; t < 6; t++) {
    const struct corner *T[4] = {&c[kuhn[t][0]], &c[kuhn[t][1]],
                                 &c[kuhn[t][2]], &c[kuhn[t][3]]};
    int rc = tet(m, T);
    if (rc) return rc;
  }
  return MS_OK;
}

/* Unit vertex normals: the sums of the adjacent triangles' area vectors. */
static int normals(struct ms__surface_mesh *m) {
  if (ms__grow((void **)&m->normal, 3 * (m->nv ? m->nv : 1),
               sizeof *m->normal))
    return MS_ENOMEM;
  memset(m->normal, 0, 3 * m->nv * sizeof *m->normal);
  for (size_t t = 0; t < m->nt; t++) {
    const uint32_t *v = m->tri + 3 * t;
    const double *a = m->x + 3 * v[0], *b = m->x + 3 * v[1],
                 *c = m->x + 3 * v[2];
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2],
                   u[0] * w[1] - u[1] * w[0]};
    for (int q = 0; q < 3; q++)
      for (int s = 0; s < 3; s++) m->normal[3 * v[q] + s] += n[s];
  }
  for (size_t i = 0; i < m->nv; i++) {
    double *n = m->normal + 3 * i;
    double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (l > 0) n[0] /= l, n[1] /= l, n[2] /= l;
  }
  return MS_OK;
}

int ms__surface_build(struct ms__surface_mesh *m, const struct ms_view *v,
                      const char *system, double cell, double kernel,
                      struct ms__err *err) {
  m->nv = m->nt = 0;
  if (m->cap_hash) memset(m->keys, 0xff, m->cap_hash * sizeof *m->keys);
  const struct ms_field *x = field(v, "position", 3), *r = field(v, "radius", 1);
  if (!x || !r)
    return ms__errf(err, MS_EINVAL, "system '%s': no position or radius "
                    "field for its surface", system);
  if (!v->count) return MS_OK;
  struct grid g = {{0}, 0, {0}, NULL};
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY,
                  -INFINITY, -INFINITY}, d = 0;
  size_t used = 0; /* a non-finite particle has no place on the grid */
  for (size_t p = 0; p < v->count; p++) {
    if (!finite_particle(at(x, p), 2.0 * *at(r, p))) continue;
    for (int q = 0; q < 3; q++) {
      lo[q] = fmin(lo[q], at(x, p)[q]);
      hi[q] = fmax(hi[q], at(x, p)[q]);
    }
    d += 2.0 * *at(r, p);
    used++;
  }
  if (!used) return MS_OK;
  d /= (double)used; /* the mean spacing */
  double h = kernel * d;
  g.cell = cell * d;
  size_t nodes = 1;
  for (int q = 0; q < 3; q++) {
    g.lo[q] = lo[q] - h - g.cell;
    double span = (hi[q] + h + g.cell - g.lo[q]) / g.cell;
    if (!isfinite(span) || span > (double)MAX_NODES)
      return ms__errf(err, MS_EINVAL, "system '%s': its surface grid would "
                      "span %g cells along an axis: raise output.surface_cell",
                      system, span);
    g.n[q] = (size_t)ceil(span) + 1;
    nodes *= g.n[q];
    if (nodes > MAX_NODES)
      return ms__errf(err, MS_EINVAL, "system '%s': its surface grid would "
                      "have more than %zu nodes (particles %g m apart in a "
                      "%g m box): raise output.surface_cell", system,
                      MAX_NODES, d, hi[q] - lo[q]);
  }
  if (nodes > m->cap_field) {
    if (ms__grow((void **)&m->field, nodes, sizeof *m->field))
      return ms__errf(err, MS_ENOMEM, "out of memory");
    m->cap_field = nodes;
  }
  g.c = m->field;
  memset(g.c, 0, nodes * sizeof *g.c);
  splat(&g, x, r, v->count, h);
  int rc = MS_OK;
  for (size_t k = 0; !rc && k + 1 < g.n[2]; k++)
    for (size_t j = 0; !rc && j + 1 < g.n[1]; j++)
      for (size_t i = 0; !rc && i + 1 < g.n[0]; i++) rc = cube(m, &g, i, j, k);
  if (!rc) rc = normals(m);
  return rc ? ms__errf(err, MS_ENOMEM, "out of memory") : MS_OK;
}

double ms__surface_volume(const struct ms__surface_mesh *m) {
  double V = 0;
  for (size_t t = 0; t < m->nt; t++) {
    const double *a = m->x + 3 * m->tri[3 * t], *b = m->x + 3 * m->tri[3 * t + 1],
                 *c = m->x + 3 * m->tri[3 * t + 2];
    V += a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
         a[2] * (b[0] * c[1] - b[1] * c[0]);
  }
  return V / 6.0;
}

void ms__surface_free(struct ms__surface_mesh *m) {
  free(m->x);
  free(m->normal);
  free(m->tri);
  free(m->field);
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}
