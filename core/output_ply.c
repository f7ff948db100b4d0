/* Binary PLY writer: one vertex element per particle, x y z first, then
 * every other field component by component (velocity -> velocity_x,
 * velocity_y, velocity_z; more than 3 components -> name_0, name_1, ...).
 * PLY has no 64-bit integer type: Int64 fields are written as double. */
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/status.h>

#include "afile.h"

#define ROWS 65536 /* rows packed per write */
#define BLOCK 2048 /* rows packed by one thread at a time */

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
    else if (fd->components == 1)
      fprintf(f, "property %s %s\n", ty, fd->name);
    else if (fd->components <= 3)
      fprintf(f, "property %s %s_%s\n", ty, fd->name, xyz[c]);
    else
      fprintf(f, "property %s %s_%u\n", ty, fd->name, c);
  }
}

/* Copy field fd of rows [i0, i0 + m) into the row buffer at column col. */
static void pack(const struct ms_field *fd, size_t i0, size_t m, char *rows,
                 size_t rowsz, size_t col) {
  size_t es = ms__type_size(fd->type) * fd->components;
  const char *src = (const char *)fd->data + i0 * fd->stride;
  if (fd->type == MS_TYPE_I64) {
    for (size_t k = 0; k < m; k++)
      for (uint32_t c = 0; c < fd->components; c++) {
        int64_t w;
        memcpy(&w, src + k * fd->stride + 8 * c, 8);
        double d = (double)w;
        memcpy(rows + k * rowsz + col + 8 * c, &d, 8);
      }
    return;
  }
  for (size_t k = 0; k < m; k++)
    memcpy(rows + k * rowsz + col, src + k * fd->stride, es);
}

static int write_rows(FILE *f, const struct ms_field *const *order,
                      uint32_t nf, size_t n, size_t rowsz) {
  char *rows = malloc(ROWS * rowsz);
  if (!rows) return -1;
  int bad = 0;
  for (size_t i = 0; !bad && i < n; i += ROWS) {
    size_t m = n - i < ROWS ? n - i : ROWS;
    /* Interleaving the rows is most of the cost: both threads share it. */
#pragma omp parallel for schedule(static) if (m >= 4 * BLOCK)
    for (size_t b = 0; b < m; b += BLOCK) {
      size_t mb = m - b < BLOCK ? m - b : BLOCK, col = 0;
      for (uint32_t k = 0; k < nf; k++) {
        pack(order[k], i + b, mb, rows + b * rowsz, rowsz, col);
        col += out_size(order[k]->type) * order[k]->components;
      }
    }
    bad = fwrite(rows, rowsz, m, f) != m;
  }
  free(rows);
  return bad ? -1 : 0;
}

int ms__ply_write(const char *path, const struct ms_view *v,
                  const char *comment, struct ms__err *err) {
  const struct ms_field **order = malloc((v->field_count + 1) * sizeof *order);
  if (!order) return ms__errf(err, MS_ENOMEM, "out of memory");
  uint32_t nf = 0;
  size_t rowsz = 0;
  for (uint32_t i = 0; i < v->field_count; i++) /* position first */
    if (!strcmp(v->fields[i].name, "position") &&
        v->fields[i].components == 3 && ply_type(v->fields[i].type))
      order[nf++] = &v->fields[i];
  if (nf != 1) {
    free(order);
    return ms__errf(err, MS_EINVAL, "%s: no 3-component position field",
                    path);
  }
  for (uint32_t i = 0; i < v->field_count; i++)
    if (&v->fields[i] != order[0] && ply_type(v->fields[i].type))
      order[nf++] = &v->fields[i];
  for (uint32_t k = 0; k < nf; k++)
    rowsz += out_size(order[k]->type) * order[k]->components;
  struct ms__afile a;
  int rc = ms__afile_open(&a, path, err);
  if (rc) {
    free(order);
    return rc;
  }
  fprintf(a.f, "ply\nformat binary_%s_endian 1.0\n",
          ms__little_endian() ? "little" : "big");
  if (comment) fprintf(a.f, "comment %s\n", comment);
  fprintf(a.f, "element vertex %zu\n", v->count);
  for (uint32_t k = 0; k < nf; k++) prop_names(a.f, order[k], k == 0);
  fputs("end_header\n", a.f);
  int bad = write_rows(a.f, order, nf, v->count, rowsz);
  free(order);
  if (bad) {
    int e = errno;
    ms__afile_abort(&a);
    return ms__errf(err, MS_EIO, "%s: cannot write: %s", path, strerror(e));
  }
  return ms__afile_commit(&a, MS__AFILE_DROP_OLD, err);
}
