/* Particles from a triangle mesh (scene.h): the lattice points inside it,
 * by the generalized winding number, or points spread over its surface. */
#include "scene.h"

#include <mergesplit/status.h>

#include "../base/base.h"

static const double FOUR_PI = 12.566370614359172954;

/* ---- winding number --------------------------------------------------------
 * w(p) = (1/4 pi) sum of the solid angles the triangles subtend at p: 1
 * inside a closed surface, 0 outside, and near 1/2 across a small hole
 * (Jacobson et al. 2013), so "inside" is w > 1/2.  Triangles are grouped
 * by a coarse grid; a group far from p (more than FAR times its radius)
 * counts as one dipole, its area vector at its centroid (Barill et al.
 * 2018, first order), which moves w by far less than 1/2. */
#define FAR 3.0

struct winding {
  const struct ms__mesh *m;
  size_t ncell;
  uint32_t *start, *tri; /* the triangles of cell c: tri[start[c]..start[c+1]) */
  double *cen, *area, *rad; /* per cell: centroid, area vector, radius */
  double sign;              /* -1 if the faces point inwards */
};

static void corners(const struct ms__mesh *m, size_t t, const double **A,
                    const double **B, const double **C) {
  *A = m->v + 3 * m->t[3 * t];
  *B = m->v + 3 * m->t[3 * t + 1];
  *C = m->v + 3 * m->t[3 * t + 2];
}

static size_t cell_of(const struct ms__mesh *m, size_t g, size_t t) {
  const double *A, *B, *C;
  corners(m, t, &A, &B, &C);
  size_t c = 0;
  for (int a = 2; a >= 0; a--) {
    double ext = m->hi[a] - m->lo[a];
    double f = ext > 0.0 ? ((A[a] + B[a] + C[a]) / 3.0 - m->lo[a]) / ext : 0.0;
    size_t i = (size_t)fmax(0.0, fmin((double)g - 1.0, floor(f * (double)g)));
    c = c * g + i;
  }
  return c;
}

static void winding_free(struct winding *w) {
  free(w->start), free(w->tri), free(w->cen), free(w->area), free(w->rad);
}

static int winding_build(struct winding *w, const struct ms__mesh *m) {
  size_t g = (size_t)fmin(32.0, fmax(1.0, cbrt((double)m->nt / 8.0)));
  ms__memset(w, 0, sizeof *w);
  w->m = m;
  w->ncell = g * g * g;
  w->sign = m->volume < 0.0 ? -1.0 : 1.0;
  w->start = calloc(w->ncell + 1, sizeof *w->start);
  w->tri = malloc(m->nt * sizeof *w->tri);
  w->cen = calloc(3 * w->ncell, sizeof *w->cen);
  w->area = calloc(3 * w->ncell, sizeof *w->area);
  w->rad = calloc(w->ncell, sizeof *w->rad);
  if (!w->start || !w->tri || !w->cen || !w->area || !w->rad) {
    winding_free(w);
    return MS_ENOMEM;
  }
  for (size_t t = 0; t < m->nt; t++) w->start[cell_of(m, g, t) + 1]++;
  for (size_t c = 0; c < w->ncell; c++) w->start[c + 1] += w->start[c];
  /* each cell's triangles in the file's order: a cursor per cell */
  uint32_t *at = malloc(w->ncell * sizeof *at);
  if (!at) {
    winding_free(w);
    return MS_ENOMEM;
  }
  ms__memcpy(at, w->start, w->ncell * sizeof *at);
  for (size_t t = 0; t < m->nt; t++) w->tri[at[cell_of(m, g, t)]++] = (uint32_t)t;
  free(at);
  for (size_t c = 0; c < w->ncell; c++) {
    double sum = 0.0, *cen = w->cen + 3 * c, *an = w->area + 3 * c;
    for (uint32_t k = w->start[c]; k < w->start[c + 1]; k++) {
      const double *A, *B, *C;
      double u[3], v[3], n[3];
      corners(m, w->tri[k], &A, &B, &C);
      ms__sub(u, B, A), ms__sub(v, C, A), ms__cross(n, u, v);
      double a = 0.5 * sqrt(ms__norm2(n));
      for (int x = 0; x < 3; x++) {
        an[x] += 0.5 * n[x];
        cen[x] += a * (A[x] + B[x] + C[x]) / 3.0;
      }
      sum += a;
    }
    if (sum > 0.0)
      for (int x = 0; x < 3; x++) cen[x] /= sum;
    else if (w->start[c + 1] > w->start[c]) /* degenerate only: any corner */
      ms__copy3(cen, m->v + 3 * m->t[3 * w->tri[w->start[c]]]);
    for (uint32_t k = w->start[c]; k < w->start[c + 1]; k++)
      for (int j = 0; j < 3; j++) {
        double d[3];
        ms__sub(d, m->v + 3 * m->t[3 * w->tri[k] + j], cen);
        w->rad[c] = fmax(w->rad[c], sqrt(ms__norm2(d)));
      }
  }
  return MS_OK;
}

/* The solid angle of triangle ABC at p (Van Oosterom and Strackee 1983). */
static double solid_angle(const double *p, const double *A, const double *B,
                          const double *C) {
  double a[3], b[3], c[3], bc[3];
  ms__sub(a, A, p), ms__sub(b, B, p), ms__sub(c, C, p);
  double la = sqrt(ms__norm2(a)), lb = sqrt(ms__norm2(b)),
         lc = sqrt(ms__norm2(c));
  ms__cross(bc, b, c);
  double det = ms__dot(a, bc);
  double den = la * lb * lc + ms__dot(a, b) * lc + ms__dot(b, c) * la +
               ms__dot(c, a) * lb;
  return 2.0 * atan2(det, den);
}

static double winding_at(const struct winding *w, const double *p) {
  double sum = 0.0;
  for (size_t c = 0; c < w->ncell; c++) {
    if (w->start[c + 1] == w->start[c]) continue;
    double d[3];
    ms__sub(d, w->cen + 3 * c, p);
    double d2 = ms__norm2(d), far = FAR * w->rad[c];
    if (d2 > far * far && d2 > 0.0) {
      sum += ms__dot(w->area + 3 * c, d) / (d2 * sqrt(d2));
      continue;
    }
    for (uint32_t k = w->start[c]; k < w->start[c + 1]; k++) {
      const double *A, *B, *C;
      corners(w->m, w->tri[k], &A, &B, &C);
      sum += solid_angle(p, A, B, C);
    }
  }
  return w->sign * sum / FOUR_PI;
}

double ms__mesh_winding(const struct ms__mesh *m, const double *p) {
  struct winding w;
  if (winding_build(&w, m)) return NAN;
  double r = winding_at(&w, p);
  winding_free(&w);
  return r;
}

static int push(double **xyz, size_t *n, size_t *cap, const double *p) {
  if (*n == *cap) {
    size_t c = *cap ? 2 * *cap : 1024;
    if (ms__grow((void **)xyz, c, 3 * sizeof(double))) return MS_ENOMEM;
    *cap = c;
  }
  ms__copy3(*xyz + 3 * (*n)++, p);
  return MS_OK;
}

int ms__mesh_fill(const struct ms__mesh *m, double h, size_t max,
                  double **xyz, size_t *n) {
  struct winding w;
  long K[3];
  double c[3];
  for (int a = 0; a < 3; a++) {
    c[a] = 0.5 * (m->lo[a] + m->hi[a]);
    double k = ceil(0.5 * (m->hi[a] - m->lo[a]) / h);
    if (!(k < 1e6)) return MS_ERANGE;
    K[a] = (long)k;
  }
  if (winding_build(&w, m)) return MS_ENOMEM;
  size_t cap = 0;
  int rc = MS_OK;
  for (long i = -K[0]; i <= K[0] && !rc; i++)
    for (long j = -K[1]; j <= K[1] && !rc; j++)
      for (long k = -K[2]; k <= K[2] && !rc; k++) {
        double p[3] = {c[0] + (double)i * h, c[1] + (double)j * h,
                       c[2] + (double)k * h};
        if (!(winding_at(&w, p) > 0.5)) continue;
        rc = *n == max ? MS_ERANGE : push(xyz, n, &cap, p);
      }
  winding_free(&w);
  return rc;
}

/* ---- surface ---------------------------------------------------------------
 * Candidates on every triangle (a barycentric grid finer than a quarter of
 * the spacing), taken in the file's order; one is kept when no kept point
 * lies within GAP * h.  So no two points are closer than GAP * h, and every
 * candidate -- so every point of the surface, to a quarter spacing -- is
 * within GAP * h of one: maximal, like a lattice's cover. */
#define GAP 0.8

struct cells { /* the kept points, hashed by cell of side GAP h */
  size_t cap, used;
  int64_t *key;  /* 3 per slot */
  uint32_t *head; /* first point of the slot's cell, UINT32_MAX: empty */
  uint32_t *next; /* next point of the same cell */
};

static uint64_t hash3(const int64_t *k) {
  uint64_t s = (uint64_t)k[0] * 0x9E3779B97F4A7C15ull ^
               (uint64_t)k[1] * 0xC2B2AE3D27D4EB4Full ^
               (uint64_t)k[2] * 0x165667B19E3779F9ull;
  return ms__splitmix64(&s);
}

static uint32_t *slot(struct cells *H, const int64_t *k, int add) {
  for (size_t i = hash3(k) & (H->cap - 1);; i = (i + 1) & (H->cap - 1)) {
    int64_t *q = H->key + 3 * i;
    if (H->head[i] == UINT32_MAX) {
      if (!add) return NULL;
      q[0] = k[0], q[1] = k[1], q[2] = k[2];
      H->used++;
      return H->head + i;
    }
    if (q[0] == k[0] && q[1] == k[1] && q[2] == k[2]) return H->head + i;
  }
}

static int cells_grow(struct cells *H, size_t cap) {
  struct cells G = {.cap = cap, .next = H->next};
  G.key = malloc(3 * cap * sizeof *G.key);
  G.head = malloc(cap * sizeof *G.head);
  if (!G.key || !G.head) {
    free(G.key), free(G.head);
    return MS_ENOMEM;
  }
  ms__memset(G.head, 0xff, cap * sizeof *G.head);
  for (size_t i = 0; i < H->cap; i++)
    if (H->head[i] != UINT32_MAX) *slot(&G, H->key + 3 * i, 1) = H->head[i];
  free(H->key), free(H->head);
  *H = G;
  return MS_OK;
}

static int near_one(struct cells *H, const double *x, const double *p,
                    double r, const int64_t *k) {
  for (int64_t a = -1; a <= 1; a++)
    for (int64_t b = -1; b <= 1; b++)
      for (int64_t c = -1; c <= 1; c++) {
        int64_t q[3] = {k[0] + a, k[1] + b, k[2] + c};
        uint32_t *s = slot(H, q, 0);
        for (uint32_t i = s ? *s : UINT32_MAX; i != UINT32_MAX; i = H->next[i]) {
          double d[3];
          ms__sub(d, x + 3 * i, p);
          if (ms__norm2(d) < r * r) return 1;
        }
      }
  return 0;
}

static int keep(struct cells *H, double **xyz, size_t *n, size_t *cap,
                const double *p, const int64_t *k, size_t max) {
  if (*n == max) return MS_ERANGE;
  if (2 * (H->used + 1) > H->cap && cells_grow(H, 2 * H->cap)) return MS_ENOMEM;
  size_t had = *cap;
  if (push(xyz, n, cap, p)) return MS_ENOMEM;
  if (*cap != had && ms__grow((void **)&H->next, *cap, sizeof *H->next))
    return MS_ENOMEM;
  uint32_t *s = slot(H, k, 1);
  H->next[*n - 1] = *s;
  *s = (uint32_t)(*n - 1);
  return MS_OK;
}

static int spread(const struct ms__mesh *m, double h, size_t max,
                  struct cells *H, double **xyz, size_t *n) {
  size_t cap = 0;
  double r = GAP * h;
  for (size_t t = 0; t < m->nt; t++) {
    const double *A, *B, *C;
    double u[3], v[3], e[3];
    corners(m, t, &A, &B, &C);
    ms__sub(u, B, A), ms__sub(v, C, A), ms__sub(e, C, B);
    double L = sqrt(fmax(ms__norm2(u), fmax(ms__norm2(v), ms__norm2(e))));
    double s = ceil(4.0 * L / h);
    if (!(s < 1e5)) return MS_ERANGE;
    long S = s < 1.0 ? 1 : (long)s;
    for (long i = 0; i <= S; i++)
      for (long j = 0; i + j <= S; j++) {
        double p[3];
        for (int a = 0; a < 3; a++)
          p[a] = A[a] + u[a] * (double)i / (double)S + v[a] * (double)j / (double)S;
        int64_t k[3];
        for (int a = 0; a < 3; a++) k[a] = (int64_t)floor(p[a] / r);
        if (near_one(H, *xyz, p, r, k)) continue;
        int rc = keep(H, xyz, n, &cap, p, k, max);
        if (rc) return rc;
      }
  }
  return MS_OK;
}

int ms__mesh_surface(const struct ms__mesh *m, double h, size_t max,
                     double **xyz, size_t *n) {
  for (int a = 0; a < 3; a++)
    if (!(fabs(m->lo[a]) / h < 1e15 && fabs(m->hi[a]) / h < 1e15))
      return MS_ERANGE; /* cell indices would not fit */
  struct cells H = {0};
  int rc = cells_grow(&H, 1024);
  if (!rc) rc = spread(m, h, max, &H, xyz, n);
  free(H.key), free(H.head), free(H.next);
  return rc;
}
