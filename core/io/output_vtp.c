/* VTK XML PolyData (.vtp) writer: appended raw binary, UInt64 headers,
 * every field as point data, one vertex cell per particle so ParaView draws
 * the points in any representation.  The file is laid out first (header
 * text, size), then filled into one buffer by every thread: the buffer
 * then leaves in one direct write (io.h). */
#include "io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/status.h>


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

static const char vtp_tail[] = "\n</AppendedData>\n</VTKFile>\n";

static const struct ms_field *position(const struct ms_view *v) {
  for (uint32_t i = 0; i < v->field_count; i++)
    if (!strcmp(v->fields[i].name, "position")) {
      const struct ms_field *p = &v->fields[i];
      return p->components == 3 &&
                     (p->type == MS_TYPE_F64 || p->type == MS_TYPE_F32)
                 ? p
                 : NULL;
    }
  return NULL;
}

int ms__vtp_layout(struct ms__layout *L, const struct ms_view *v, double t,
                   const char *path, struct ms__err *err) {
  ms__memset(L, 0, sizeof *L);
  if (!(L->pos = position(v)))
    return ms__errf(err, MS_EINVAL, "%s: no 3-component position field",
                    path);
  size_t n = v->count;
  L->wide = n >= (size_t)INT32_MAX;
  FILE *m = open_memstream(&L->header, &L->header_len);
  if (!m) return ms__errf(err, MS_ENOMEM, "out of memory");
  write_header(m, v, L->pos, t, L->wide);
  if (fclose(m)) return ms__errf(err, MS_ENOMEM, "out of memory");
  size_t size = L->header_len;
  for (uint32_t i = 0; i < v->field_count; i++) {
    const struct ms_field *fd = &v->fields[i];
    if (!skip(fd, L->pos))
      size += 8 + ms__type_size(fd->type) * fd->components * n;
  }
  size += 8 + 3 * ms__type_size(L->pos->type) * n;
  size += 2 * (8 + (L->wide ? 8 : 4) * n) + sizeof vtp_tail - 1;
  L->size = size;
  return MS_OK;
}

/* One array's block: its byte length, then its values. */
static char *block(char *p, const struct ms_field *fd, size_t n) {
  size_t es = ms__type_size(fd->type) * fd->components;
  uint64_t len = (uint64_t)es * n;
  ms__memcpy(p, &len, sizeof len);
  p += sizeof len;
  size_t parts = (n + MS__PAR_ROWS - 1) / MS__PAR_ROWS;
#pragma omp parallel for schedule(static) if (n >= MS__PAR_MIN_FILL)
  for (size_t c = 0; c < parts; c++) {
    size_t i0 = c * MS__PAR_ROWS, m = n - i0 < MS__PAR_ROWS ? n - i0
                                                             : MS__PAR_ROWS;
    ms__copy_field(p + i0 * es, fd, i0, m, 0);
  }
  return p + len;
}

/* first, first + 1, ..., first + n - 1 in the index type. */
static char *indices(char *p, size_t n, size_t first, int wide) {
  uint64_t len = (uint64_t)(wide ? 8 : 4) * n;
  ms__memcpy(p, &len, sizeof len);
  p += sizeof len;
  int64_t *w64 = (int64_t *)(void *)p;
  int32_t *w32 = (int32_t *)(void *)p;
  /* p may be unaligned for the type: memcpy keeps that defined */
#pragma omp parallel for schedule(static) if (n >= MS__PAR_MIN_FILL)
  for (size_t i = 0; i < n; i++) {
    if (wide) {
      int64_t x = (int64_t)(first + i);
      ms__memcpy(w64 + i, &x, 8);
    } else {
      int32_t x = (int32_t)(first + i);
      ms__memcpy(w32 + i, &x, 4);
    }
  }
  return p + len;
}

void ms__vtp_fill(const struct ms__layout *L, const struct ms_view *v,
                  char *buf) {
  size_t n = v->count;
  char *p = buf;
  ms__memcpy(p, L->header, L->header_len);
  p += L->header_len;
  for (uint32_t i = 0; i < v->field_count; i++)
    if (!skip(&v->fields[i], L->pos)) p = block(p, &v->fields[i], n);
  p = block(p, L->pos, n);
  p = indices(p, n, 0, L->wide); /* connectivity */
  p = indices(p, n, 1, L->wide); /* offsets */
  ms__memcpy(p, vtp_tail, sizeof vtp_tail - 1);
}

void ms__layout_free(struct ms__layout *L) {
  free(L->header);
  ms__memset(L, 0, sizeof *L);
}

/* Lay out, fill a buffer of its own, write. */
int ms__write_one(const char *path, const struct ms__layout *L,
                  const struct ms_view *v,
                  void (*fill)(const struct ms__layout *,
                               const struct ms_view *, char *),
                  struct ms__err *err) {
  void *buf = NULL;
  size_t cap = (L->size + MS__FW_ALIGN) / MS__FW_ALIGN * MS__FW_ALIGN;
  if (posix_memalign(&buf, MS__FW_ALIGN, cap))
    return ms__errf(err, MS_ENOMEM, "out of memory");
  fill(L, v, buf);
  int rc = ms__fw_write_file(path, buf, L->size, 1, err);
  free(buf);
  return rc;
}

int ms__vtp_write(const char *path, const struct ms_view *v, double t,
                  struct ms__err *err) {
  struct ms__layout L;
  int rc = ms__vtp_layout(&L, v, t, path, err);
  if (!rc) rc = ms__write_one(path, &L, v, ms__vtp_fill, err);
  ms__layout_free(&L);
  return rc;
}

static int vtp_layout(struct ms__layout *L, const struct ms_view *v,
                      const struct ms__frame_id *id, const char *path,
                      struct ms__err *err) {
  return ms__vtp_layout(L, v, id->t, path, err);
}

const struct ms__writer ms__writer_vtp = {"vtp", "vtp", 1, vtp_layout,
                                          ms__vtp_fill};
