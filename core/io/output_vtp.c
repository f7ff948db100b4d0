/* VTK XML PolyData (.vtp) writer: appended raw binary, UInt64 headers,
 * every field as point data, one vertex cell per particle so ParaView draws
 * the points in any representation.  The file is laid out first (header
 * text, size), then filled into one buffer by every thread: the buffer
 * then leaves in one direct write (io.h). */
#include "io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

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

/* blk: the appended blocks' sizes in the order below (the fields but the
 * position, the position, connectivity, offsets); NULL: raw, 8 + data. */
static void write_header(FILE *f, const struct ms_view *v,
                         const struct ms_field *pos, double t, int wide,
                         const size_t *blk) {
  size_t n = v->count, k = 0;
  uint64_t off = 0;
  fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" "
             "version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\"%s>\n"
             "<PolyData>\n<FieldData>\n<DataArray type=\"Float64\" "
             "Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">"
             "%.17g</DataArray>\n</FieldData>\n"
             "<Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\" "
             "NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n"
             "<PointData>\n",
          ms__little_endian() ? "LittleEndian" : "BigEndian",
          blk ? " compressor=\"vtkZLibDataCompressor\"" : "", t, n, n);
  for (uint32_t i = 0; i < v->field_count; i++) {
    const struct ms_field *fd = &v->fields[i];
    if (skip(fd, pos)) continue;
    fprintf(f, "<DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%u\" "
               "format=\"appended\" offset=\"%llu\"/>\n",
            vtk_type(fd->type), fd->name, fd->components,
            (unsigned long long)off);
    off += blk ? blk[k++]
               : 8 + (uint64_t)ms__type_size(fd->type) * fd->components * n;
  }
  fprintf(f, "</PointData>\n<Points>\n<DataArray type=\"%s\" "
             "Name=\"position\" NumberOfComponents=\"3\" format=\"appended\" "
             "offset=\"%llu\"/>\n</Points>\n",
          vtk_type(pos->type), (unsigned long long)off);
  off += blk ? blk[k++] : 8 + 3 * (uint64_t)ms__type_size(pos->type) * n;
  const char *it = wide ? "Int64" : "Int32";
  fprintf(f, "<Verts>\n<DataArray type=\"%s\" Name=\"connectivity\" "
             "format=\"appended\" offset=\"%llu\"/>\n",
          it, (unsigned long long)off);
  off += blk ? blk[k++] : 8 + (uint64_t)(wide ? 8 : 4) * n;
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
  write_header(m, v, L->pos, t, L->wide, NULL);
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
  if (L->zblk) { /* compressed: the layout made the blocks */
    for (size_t k = 0; k < L->nz; k++) {
      ms__memcpy(p, L->zblk[k], L->zlen[k]);
      p += L->zlen[k];
    }
    ms__memcpy(p, vtp_tail, sizeof vtp_tail - 1);
    return;
  }
  for (uint32_t i = 0; i < v->field_count; i++)
    if (!skip(&v->fields[i], L->pos)) p = block(p, &v->fields[i], n);
  p = block(p, L->pos, n);
  p = indices(p, n, 0, L->wide); /* connectivity */
  p = indices(p, n, 1, L->wide); /* offsets */
  ms__memcpy(p, vtp_tail, sizeof vtp_tail - 1);
}

void ms__layout_free(struct ms__layout *L) {
  for (size_t k = 0; k < L->nz; k++) free(L->zblk[k]);
  free(L->zblk);
  free(L->zlen);
  free(L->header);
  ms__memset(L, 0, sizeof *L);
}

/* ---- compressed ------------------------------------------------------------
 * VTK's layout of a compressed appended array: UInt64 words nblocks, the
 * block size, the last block's size (0: a whole block), each block's
 * compressed size; then the blocks, each deflated on its own -- so the
 * blocks compress in parallel, and the file does not depend on the thread
 * count. */
#define ZBLOCK ((size_t)1 << 16)

static int zpack(const unsigned char *src, size_t len, unsigned char **out,
                 size_t *outlen) {
  size_t nb = (len + ZBLOCK - 1) / ZBLOCK, bound = compressBound(ZBLOCK);
  unsigned char *tmp = malloc(nb * bound + 1);
  uint64_t *head = malloc((3 + nb) * sizeof *head);
  int bad = !tmp || !head;
  if (!bad) {
    head[0] = nb, head[1] = ZBLOCK, head[2] = len % ZBLOCK;
#pragma omp parallel for schedule(dynamic) reduction(| : bad) if (nb > 4)
    for (size_t b = 0; b < nb; b++) {
      uLongf got = (uLongf)bound;
      size_t m = b + 1 < nb || !(len % ZBLOCK) ? ZBLOCK : len % ZBLOCK;
      bad |= compress2(tmp + b * bound, &got, src + b * ZBLOCK, (uLong)m,
                       Z_DEFAULT_COMPRESSION) != Z_OK;
      head[3 + b] = got;
    }
  }
  size_t total = (3 + nb) * 8;
  for (size_t b = 0; !bad && b < nb; b++) total += head[3 + b];
  unsigned char *o = bad ? NULL : malloc(total);
  if (o) {
    ms__memcpy(o, head, (3 + nb) * 8);
    size_t at = (3 + nb) * 8;
    for (size_t b = 0; b < nb; b++) {
      ms__memcpy(o + at, tmp + b * bound, head[3 + b]);
      at += head[3 + b];
    }
  }
  free(tmp);
  free(head);
  *out = o;
  *outlen = total;
  return o ? MS_OK : MS_ENOMEM;
}

/* Block k of the raw file's appended data, packed, compressed. */
static int zblock(struct ms__layout *L, const struct ms_view *v, size_t k,
                  const struct ms_field *fd, int index_first) {
  size_t n = v->count;
  size_t len = fd ? ms__type_size(fd->type) * fd->components * n
                  : (size_t)(L->wide ? 8 : 4) * n;
  char *raw = malloc(len + 8);
  if (!raw) return MS_ENOMEM;
  if (fd) block(raw, fd, n);
  else indices(raw, n, (size_t)index_first, L->wide);
  int rc = zpack((unsigned char *)raw + 8, len, &L->zblk[k], &L->zlen[k]);
  free(raw);
  return rc;
}

int ms__vtp_layout_zlib(struct ms__layout *L, const struct ms_view *v,
                        double t, const char *path, struct ms__err *err) {
  ms__memset(L, 0, sizeof *L);
  if (!(L->pos = position(v)))
    return ms__errf(err, MS_EINVAL, "%s: no 3-component position field",
                    path);
  L->wide = v->count >= (size_t)INT32_MAX;
  size_t nz = 3;
  for (uint32_t i = 0; i < v->field_count; i++)
    nz += !skip(&v->fields[i], L->pos);
  L->zblk = calloc(nz, sizeof *L->zblk);
  L->zlen = calloc(nz, sizeof *L->zlen);
  if (!L->zblk || !L->zlen) return ms__errf(err, MS_ENOMEM, "out of memory");
  L->nz = nz;
  int rc = MS_OK;
  size_t k = 0;
  for (uint32_t i = 0; !rc && i < v->field_count; i++)
    if (!skip(&v->fields[i], L->pos)) rc = zblock(L, v, k++, &v->fields[i], 0);
  if (!rc) rc = zblock(L, v, k++, L->pos, 0);
  if (!rc) rc = zblock(L, v, k++, NULL, 0); /* connectivity */
  if (!rc) rc = zblock(L, v, k++, NULL, 1); /* offsets */
  if (rc) return ms__errf(err, rc, "out of memory compressing %s", path);
  FILE *m = open_memstream(&L->header, &L->header_len);
  if (!m) return ms__errf(err, MS_ENOMEM, "out of memory");
  write_header(m, v, L->pos, t, L->wide, L->zlen);
  if (fclose(m)) return ms__errf(err, MS_ENOMEM, "out of memory");
  L->size = L->header_len + sizeof vtp_tail - 1;
  for (k = 0; k < nz; k++) L->size += L->zlen[k];
  return MS_OK;
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
  return id->zlib ? ms__vtp_layout_zlib(L, v, id->t, path, err)
                  : ms__vtp_layout(L, v, id->t, path, err);
}

const struct ms__writer ms__writer_vtp = {"vtp", "vtp", 1, vtp_layout,
                                          ms__vtp_fill};
