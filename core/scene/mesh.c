/* Triangle meshes for shapes: read with assimp, transformed, welded and
 * measured (scene.h).  The filling and the surface sampling are in
 * mesh_sample.c. */
#include "scene.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include <mergesplit/status.h>

#include "../base/base.h"

static int fail(char *why, size_t len, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *why, size_t len, int rc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, len, fmt, ap);
  va_end(ap);
  return rc;
}

/* Copy the triangles out of assimp's scene (vertices transformed). */
static int gather(const struct aiScene *sc, const double xf[12],
                  struct ms__mesh *m, char *why, size_t len) {
  size_t nt = 0;
  for (unsigned i = 0; i < sc->mNumMeshes; i++)
    for (unsigned f = 0; f < sc->mMeshes[i]->mNumFaces; f++)
      nt += sc->mMeshes[i]->mFaces[f].mNumIndices == 3;
  if (nt == 0) return fail(why, len, MS_ECONFIG, "holds no triangles");
  if (nt > UINT32_MAX / 3)
    return fail(why, len, MS_ECONFIG, "holds too many triangles (%zu)", nt);
  if (ms__grow((void **)&m->v, 3 * nt, 3 * sizeof(double)))
    return fail(why, len, MS_ENOMEM, "out of memory");
  for (unsigned i = 0; i < sc->mNumMeshes; i++) {
    const struct aiMesh *me = sc->mMeshes[i];
    for (unsigned f = 0; f < me->mNumFaces; f++) {
      const struct aiFace *fa = &me->mFaces[f];
      if (fa->mNumIndices != 3) continue; /* points and lines */
      for (int c = 0; c < 3; c++) {
        const struct aiVector3D *p = &me->mVertices[fa->mIndices[c]];
        double q[3] = {p->x, p->y, p->z}, *o = m->v + 3 * m->nv++;
        if (!isfinite(q[0]) || !isfinite(q[1]) || !isfinite(q[2]))
          return fail(why, len, MS_ECONFIG, "a vertex is not finite");
        for (int a = 0; a < 3; a++)
          o[a] = xf[3 * a] * q[0] + xf[3 * a + 1] * q[1] +
                 xf[3 * a + 2] * q[2] + xf[9 + a];
      }
    }
  }
  m->nt = nt;
  return MS_OK;
}

static int by_position(const void *a, const void *b, void *v) {
  const double *p = (const double *)v + 3 * *(const uint32_t *)a;
  const double *q = (const double *)v + 3 * *(const uint32_t *)b;
  for (int k = 0; k < 3; k++)
    if (p[k] != q[k]) return p[k] < q[k] ? -1 : 1;
  return (*(const uint32_t *)a > *(const uint32_t *)b) -
         (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* One vertex per position: the file's vertices may repeat (STL holds three
 * per triangle).  Sorting makes the result independent of the file's
 * vertex order, so the same surface read from OBJ, STL or PLY is the same
 * mesh. */
static int weld(struct ms__mesh *m) {
  size_t n = m->nv;
  uint32_t *ord = malloc(n * sizeof *ord), *id = malloc(n * sizeof *id);
  double *v = malloc(n * 3 * sizeof *v);
  if (!ord || !id || !v) {
    free(ord), free(id), free(v);
    return MS_ENOMEM;
  }
  for (size_t i = 0; i < n; i++) ord[i] = (uint32_t)i;
  qsort_r(ord, n, sizeof *ord, by_position, m->v);
  size_t u = 0;
  for (size_t i = 0; i < n; i++) {
    const double *p = m->v + 3 * ord[i];
    if (i == 0 || memcmp(p, v + 3 * (u - 1), 3 * sizeof *p)) ms__copy3(v + 3 * u++, p);
    id[ord[i]] = (uint32_t)(u - 1);
  }
  free(ord);
  free(m->v);
  m->v = v;
  m->nv = u;
  m->t = id; /* corner c of triangle t is vertex id[3 t + c] */
  return MS_OK;
}

static int by_edge(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Area, signed volume (divergence theorem), bounds, and the boundary: the
 * edges only one triangle has.  A hole of area a has a rim of about
 * 2 sqrt(pi a), so (rim length)^2 / (4 pi area) estimates the fraction of
 * the surface missing. */
static int measure(struct ms__mesh *m) {
  uint64_t *e = malloc(3 * m->nt * sizeof *e);
  if (!e) return MS_ENOMEM;
  for (int a = 0; a < 3; a++) m->lo[a] = INFINITY, m->hi[a] = -INFINITY;
  for (size_t i = 0; i < m->nv; i++)
    for (int a = 0; a < 3; a++) {
      m->lo[a] = fmin(m->lo[a], m->v[3 * i + a]);
      m->hi[a] = fmax(m->hi[a], m->v[3 * i + a]);
    }
  m->area = m->volume = 0.0;
  for (size_t t = 0; t < m->nt; t++) {
    const uint32_t *c = m->t + 3 * t;
    const double *A = m->v + 3 * c[0], *B = m->v + 3 * c[1],
                 *C = m->v + 3 * c[2];
    double u[3], w[3], n[3];
    ms__sub(u, B, A), ms__sub(w, C, A), ms__cross(n, u, w);
    m->area += 0.5 * sqrt(ms__norm2(n));
    double bc[3];
    ms__cross(bc, B, C);
    m->volume += ms__dot(A, bc) / 6.0;
    for (int k = 0; k < 3; k++) {
      uint64_t p = c[k], q = c[(k + 1) % 3];
      e[3 * t + k] = p < q ? p << 32 | q : q << 32 | p;
    }
  }
  qsort(e, 3 * m->nt, sizeof *e, by_edge);
  double rim = 0.0;
  for (size_t i = 0, j; i < 3 * m->nt; i = j) {
    for (j = i + 1; j < 3 * m->nt && e[j] == e[i]; j++) continue;
    if (j - i != 1) continue;
    double d[3];
    ms__sub(d, m->v + 3 * (e[i] >> 32), m->v + 3 * (e[i] & 0xffffffffu));
    rim += sqrt(ms__norm2(d));
  }
  free(e);
  const double pi = 3.14159265358979323846;
  m->open = m->area > 0.0 ? rim * rim / (4.0 * pi * m->area) : 1.0;
  return MS_OK;
}

int ms__mesh_read(const char *path, const double xf[12], struct ms__mesh *m,
                  char *why, size_t len) {
  struct stat st;
  ms__memset(m, 0, sizeof *m);
  if (stat(path, &st) != 0)
    return fail(why, len, MS_ECONFIG, "cannot open the mesh: %s",
                strerror(errno));
  if (!S_ISREG(st.st_mode))
    return fail(why, len, MS_ECONFIG, "not a regular file");
  /* the node hierarchy's transforms applied, every polygon in triangles */
  const struct aiScene *sc = aiImportFile(
      path, aiProcess_Triangulate | aiProcess_PreTransformVertices);
  if (!sc)
    return fail(why, len, MS_ECONFIG, "not a mesh assimp can read (%s)",
                aiGetErrorString());
  int rc = gather(sc, xf, m, why, len);
  aiReleaseImport(sc);
  if (!rc && (rc = weld(m)) == MS_OK) rc = measure(m);
  if (rc == MS_ENOMEM) fail(why, len, rc, "out of memory");
  if (rc) ms__mesh_free(m);
  return rc;
}

void ms__mesh_free(struct ms__mesh *m) {
  free(m->v);
  free(m->t);
  ms__memset(m, 0, sizeof *m);
}
