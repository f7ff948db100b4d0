/* Binary PLY writer: one vertex element per particle, x y z first, then
 * every other field component by component (velocity -> velocity_x,
 * velocity_y, velocity_z; more than 3 components -> name_0, name_1, ...),
 * but for the names every PLY reader knows: "normal" -> nx, ny, nz.  A
 * system's triangles follow as the face element (vertex_indices).
 * PLY has no 64-bit integer type: Int64 fields are written as double.
 * Laid out, then filled by every thread, as the VTP writer. */
#include "io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/status.h>

static const char *ply_type(uint32_t t) {
  switch (t) {
  case MS_TYPE_F64: return "double";
  case MS_TYPE_F32: return "float";
  case MS_TYPE_I32: return "int";
  case MS_TYPE_U8: return "uchar";
  case MS_TYPE_U32: return "uint";
  case MS_TYPE_I64: return "double";
  }
  return NULL;
}

static size_t out_size(uint32_t t) {
  return t == MS_TYPE_I64 ? 8 : ms__type_size(t);
}

static void prop_names(FILE *f, const struct ms_field *fd, int is_pos) {
  static const char *const xyz[3] = {"x", "y", "z"};
  const char *ty = ply_type(fd->type);
  for (uint32_t c = 0; c < fd->components; c++) {
    if (is_pos)
      fprintf(f, "property %s %s\n", ty, xyz[c]);
    else if (fd->components == 3 && !strcmp(fd->name, "normal"))
      fprintf(f, "property %s n%s\n", ty, xyz[c]);
    else if (fd->components == 1)
      fprintf(f, "property %s %s\n", ty, fd->name);
    else if (fd->components <= 3)
      fprintf(f, "property %s %s_%s\n", ty, fd->name, xyz[c]);
    else
      fprintf(f, "property %s %s_%u\n", ty, fd->name, c);
  }
}

/* Rows [i0, i0 + m) of field fd into the rows at column col. */
static void put(const struct ms_field *fd, size_t i0, size_t m, char *rows,
                size_t rowsz, size_t col) {
  if (fd->type != MS_TYPE_I64) {
    ms__copy_field(rows + col, fd, i0, m, rowsz);
    return;
  }
  const char *src = (const char *)fd->data + i0 * fd->stride;
  for (size_t k = 0; k < m; k++)
    for (uint32_t c = 0; c < fd->components; c++) {
      int64_t w;
      ms__memcpy(&w, src + k * fd->stride + 8 * c, 8);
      double d = (double)w;
      ms__memcpy(rows + k * rowsz + col + 8 * c, &d, 8);
    }
}

static int wanted(const struct ms_field *fd, const struct ms_field *pos) {
  return fd != pos && ply_type(fd->type);
}

/* A face: the count (uchar 3), then three int32 corners. */
#define FACE_BYTES 13

int ms__ply_layout(struct ms__layout *L, const struct ms_view *v,
                   const struct ms__tris *tri, const char *comment,
                   const char *path, struct ms__err *err) {
  ms__memset(L, 0, sizeof *L);
  if (tri) L->tri = *tri;
  if (v->count > (size_t)INT32_MAX && L->tri.n)
    return ms__errf(err, MS_EINVAL, "%s: %zu points: too many for PLY faces",
                    path, v->count);
  for (uint32_t i = 0; i < v->field_count && !L->pos; i++)
    if (!strcmp(v->fields[i].name, "position") &&
        v->fields[i].components == 3 && ply_type(v->fields[i].type))
      L->pos = &v->fields[i];
  if (!L->pos)
    return ms__errf(err, MS_EINVAL, "%s: no 3-component position field",
                    path);
  FILE *f = open_memstream(&L->header, &L->header_len);
  if (!f) return ms__errf(err, MS_ENOMEM, "out of memory");
  fprintf(f, "ply\nformat binary_%s_endian 1.0\n",
          ms__little_endian() ? "little" : "big");
  if (comment) fprintf(f, "comment %s\n", comment);
  fprintf(f, "element vertex %zu\n", v->count);
  prop_names(f, L->pos, 1);
  L->row = out_size(L->pos->type) * 3;
  for (uint32_t i = 0; i < v->field_count; i++)
    if (wanted(&v->fields[i], L->pos)) {
      prop_names(f, &v->fields[i], 0);
      L->row += out_size(v->fields[i].type) * v->fields[i].components;
    }
  if (L->tri.n)
    fprintf(f, "element face %zu\nproperty list uchar int vertex_indices\n",
            L->tri.n);
  fputs("end_header\n", f);
  if (fclose(f)) return ms__errf(err, MS_ENOMEM, "out of memory");
  L->size = L->header_len + L->row * v->count + FACE_BYTES * L->tri.n;
  return MS_OK;
}

void ms__ply_fill(const struct ms__layout *L, const struct ms_view *v,
                  char *buf) {
  ms__memcpy(buf, L->header, L->header_len);
  char *rows = buf + L->header_len;
  size_t n = v->count, parts = (n + MS__PAR_ROWS - 1) / MS__PAR_ROWS;
  /* Interleaving the rows is all the cost: every thread takes a share of
   * rows and packs each field into them, the rows staying in cache. */
#pragma omp parallel for schedule(static) if (n >= MS__PAR_MIN_FILL)
  for (size_t c = 0; c < parts; c++) {
    size_t i0 = c * MS__PAR_ROWS, m = n - i0 < MS__PAR_ROWS ? n - i0
                                                             : MS__PAR_ROWS;
    char *r = rows + i0 * L->row;
    put(L->pos, i0, m, r, L->row, 0);
    size_t col = out_size(L->pos->type) * 3;
    for (uint32_t i = 0; i < v->field_count; i++) {
      const struct ms_field *fd = &v->fields[i];
      if (!wanted(fd, L->pos)) continue;
      put(fd, i0, m, r, L->row, col);
      col += out_size(fd->type) * fd->components;
    }
  }
  unsigned char *face = (unsigned char *)rows + L->row * n;
  for (size_t k = 0; k < L->tri.n; k++, face += FACE_BYTES) {
    int32_t c[3] = {(int32_t)L->tri.idx[3 * k], (int32_t)L->tri.idx[3 * k + 1],
                    (int32_t)L->tri.idx[3 * k + 2]};
    face[0] = 3;
    ms__memcpy(face + 1, c, sizeof c);
  }
}

int ms__ply_write(const char *path, const struct ms_view *v,
                  const char *comment, struct ms__err *err) {
  struct ms__layout L;
  int rc = ms__ply_layout(&L, v, NULL, comment, path, err);
  if (!rc) rc = ms__write_one(path, &L, v, ms__ply_fill, err);
  ms__layout_free(&L);
  return rc;
}

/* The header's comment names the system, the frame and its time. */
static int ply_layout(struct ms__layout *L, const struct ms_view *v,
                      const struct ms__frame_id *id, const char *path,
                      struct ms__err *err) {
  char comment[512];
  snprintf(comment, sizeof comment,
           "mergesplit system %s (index %u) frame %lld time %.17g",
           id->system, id->index, (long long)id->frame, id->t);
  return ms__ply_layout(L, v, id->tri, comment, path, err);
}

const struct ms__writer ms__writer_ply = {"ply", "ply", 0, ply_layout,
                                          ms__ply_fill};
