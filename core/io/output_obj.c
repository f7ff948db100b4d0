/* Wavefront OBJ writer, for renderers (Blender, ...): the points as `v`
 * lines, a "normal" field as `vn`, the triangles as `f` lines (1-based),
 * nothing else (OBJ has no per-point data).  A points-only file is a point
 * cloud.  Text costs what it costs: the layout prints the whole file, the
 * fill copies it. */
#include "io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/status.h>

static const struct ms_field *vec3(const struct ms_view *v, const char *name) {
  for (uint32_t i = 0; i < v->field_count; i++) {
    const struct ms_field *f = &v->fields[i];
    if (!strcmp(f->name, name) && f->components == 3 &&
        (f->type == MS_TYPE_F64 || f->type == MS_TYPE_F32))
      return f;
  }
  return NULL;
}

static void row(FILE *f, const char *tag, const struct ms_field *fd,
                size_t i) {
  double x[3];
  const char *p = (const char *)fd->data + i * fd->stride;
  for (int c = 0; c < 3; c++) {
    if (fd->type == MS_TYPE_F64) {
      ms__memcpy(&x[c], p + 8 * c, 8);
    } else {
      float y;
      ms__memcpy(&y, p + 4 * c, 4);
      x[c] = y;
    }
  }
  fprintf(f, "%s %.9g %.9g %.9g\n", tag, x[0], x[1], x[2]);
}

static int obj_layout(struct ms__layout *L, const struct ms_view *v,
                      const struct ms__frame_id *id, const char *path,
                      struct ms__err *err) {
  ms__memset(L, 0, sizeof *L);
  if (!(L->pos = vec3(v, "position")))
    return ms__errf(err, MS_EINVAL, "%s: no 3-component position field",
                    path);
  const struct ms_field *nrm = vec3(v, "normal");
  FILE *f = open_memstream(&L->header, &L->header_len);
  if (!f) return ms__errf(err, MS_ENOMEM, "out of memory");
  fprintf(f, "# mergesplit system %s (index %u) frame %lld time %.17g\n",
          id->system, id->index, (long long)id->frame, id->t);
  for (size_t i = 0; i < v->count; i++) row(f, "v", L->pos, i);
  for (size_t i = 0; nrm && i < v->count; i++) row(f, "vn", nrm, i);
  const struct ms__tris *t = id->tri;
  for (size_t k = 0; t && k < t->n; k++) {
    unsigned long long a = t->idx[3 * k] + 1ull, b = t->idx[3 * k + 1] + 1ull,
                       c = t->idx[3 * k + 2] + 1ull;
    if (nrm)
      fprintf(f, "f %llu//%llu %llu//%llu %llu//%llu\n", a, a, b, b, c, c);
    else
      fprintf(f, "f %llu %llu %llu\n", a, b, c);
  }
  if (fclose(f)) return ms__errf(err, MS_ENOMEM, "out of memory");
  L->size = L->header_len;
  return MS_OK;
}

static void obj_fill(const struct ms__layout *L, const struct ms_view *v,
                     char *buf) {
  (void)v;
  ms__memcpy(buf, L->header, L->header_len);
}

const struct ms__writer ms__writer_obj = {"obj", "obj", 0, obj_layout,
                                          obj_fill};
