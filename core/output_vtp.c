/* VTK XML PolyData (.vtp) writer: appended raw binary, UInt64 headers,
 * every field as point data, one vertex cell per particle so ParaView draws
 * the points in any representation. */
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/status.h>

#include "afile.h"

#define CHUNK 65536 /* particles packed per write */

static const char *vtk_type(uint32_t t) {
  switch (t) {
  case MS_TYPE_F64: return "Float64";
  case MS_TYPE_F32: return "Float32";
  case MS_TYPE_I32: return "Int32";
  case MS_TYPE_U8: return "UInt8";
  case MS_TYPE_U32: return "UInt32";
  case MS_TYPE_I64: return "Int64";
  }
  return NULL;
}

/* Appended block: 8-byte length, then the values.  Contiguous arrays go to
 * stdio in one call; strided ones are packed a chunk at a time. */
static int write_block(FILE *f, const struct ms_field *fd, size_t n,
                       char *buf) {
  size_t es = ms__type_size(fd->type) * fd->components;
  uint64_t bytes = (uint64_t)es * n;
  if (fwrite(&bytes, sizeof bytes, 1, f) != 1) return -1;
  if (fd->stride == es) return fwrite(fd->data, es, n, f) == n ? 0 : -1;
  for (size_t i = 0; i < n; i += CHUNK) {
    size_t m = n - i < CHUNK ? n - i : CHUNK;
    const char *src = (const char *)fd->data + i * fd->stride;
    for (size_t k = 0; k < m; k++)
      memcpy(buf + k * es, src + k * fd->stride, es);
    if (fwrite(buf, es, m, f) != m) return -1;
  }
  return 0;
}

/* Vertex cells: connectivity i, offsets i + 1 (Int32 while it fits). */
static int write_cells(FILE *f, size_t n, int first, int wide, char *buf) {
  uint64_t bytes = (uint64_t)n * (wide ? 8 : 4);
  if (fwrite(&bytes, sizeof bytes, 1, f) != 1) return -1;
  for (size_t i = 0; i < n; i += CHUNK) {
    size_t m = n - i < CHUNK ? n - i : CHUNK;
    for (size_t k = 0; k < m; k++) {
      if (wide) ((int64_t *)buf)[k] = (int64_t)(i + k + (size_t)first);
      else ((int32_t *)buf)[k] = (int32_t)(i + k + (size_t)first);
    }
    if (fwrite(buf, wide ? 8 : 4, m, f) != m) return -1;
  }
  return 0;
}

static int skip(const struct ms_field *fd, const struct ms_field *pos) {
  return fd == pos || !vtk_type(fd->type);
}

static void write_header(FILE *f, const struct ms_view *v,
                         const struct ms_field *pos, double t, int wide) {
  size_t n = v->count;
  uint64_t off = 0;
  fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" "
             "version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n"
             "<PolyData>\n<FieldData>\n<DataArray type=\"Float64\" "
             "Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">"
             "%.17g</DataArray>\n</FieldData>\n"
             "<Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\" "
             "NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n"
             "<PointData>\n",
          ms__little_endian() ? "LittleEndian" : "BigEndian", t, n, n);
  for (uint32_t i = 0; i < v->field_count; i++) {
    const struct ms_field *fd = &v->fields[i];
    if (skip(fd, pos)) continue;
    fprintf(f, "<DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%u\" "
               "format=\"appended\" offset=\"%llu\"/>\n",
            vtk_type(fd->type), fd->name, fd->components,
            (unsigned long long)off);
    off += 8 + (uint64_t)ms__type_size(fd->type) * fd->components * n;
  }
  fprintf(f, "</PointData>\n<Points>\n<DataArray type=\"%s\" "
             "Name=\"position\" NumberOfComponents=\"3\" format=\"appended\" "
             "offset=\"%llu\"/>\n</Points>\n",
          vtk_type(pos->type), (unsigned long long)off);
  off += 8 + 3 * (uint64_t)ms__type_size(pos->type) * n;
  const char *it = wide ? "Int64" : "Int32";
  fprintf(f, "<Verts>\n<DataArray type=\"%s\" Name=\"connectivity\" "
             "format=\"appended\" offset=\"%llu\"/>\n",
          it, (unsigned long long)off);
  off += 8 + (uint64_t)(wide ? 8 : 4) * n;
  fprintf(f, "<DataArray type=\"%s\" Name=\"offsets\" format=\"appended\" "
             "offset=\"%llu\"/>\n</Verts>\n</Piece>\n</PolyData>\n"
             "<AppendedData encoding=\"raw\">\n_",
          it, (unsigned long long)off);
}

int ms__vtp_write(const char *path, const struct ms_view *v, double t,
                  struct ms__err *err) {
  const struct ms_field *pos = NULL;
  size_t n = v->count;
  for (uint32_t i = 0; i < v->field_count; i++)
    if (!strcmp(v->fields[i].name, "position")) pos = &v->fields[i];
  if (!pos || pos->components != 3 ||
      (pos->type != MS_TYPE_F64 && pos->type != MS_TYPE_F32))
    return ms__errf(err, MS_EINVAL, "%s: no 3-component position field",
                    path);
  char *buf = malloc((size_t)CHUNK * 16 * 8);
  if (!buf) return ms__errf(err, MS_ENOMEM, "out of memory");
  struct ms__afile a;
  int rc = ms__afile_open(&a, path, err);
  if (rc) {
    free(buf);
    return rc;
  }
  int wide = n >= (size_t)INT32_MAX;
  write_header(a.f, v, pos, t, wide);
  int bad = 0;
  for (uint32_t i = 0; !bad && i < v->field_count; i++)
    if (!skip(&v->fields[i], pos))
      bad = write_block(a.f, &v->fields[i], n, buf);
  if (!bad) bad = write_block(a.f, pos, n, buf);
  if (!bad) bad = write_cells(a.f, n, 0, wide, buf);
  if (!bad) bad = write_cells(a.f, n, 1, wide, buf);
  free(buf);
  if (!bad) bad = fputs("\n</AppendedData>\n</VTKFile>\n", a.f) < 0;
  if (bad) {
    int e = errno;
    ms__afile_abort(&a);
    return ms__errf(err, MS_EIO, "%s: cannot write: %s", path, strerror(e));
  }
  return ms__afile_commit(&a, 0, err);
}
