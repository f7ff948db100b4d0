/* VTK XML PolyData (.vtp) writer: appended raw binary, UInt64 headers,
 * every field as point data, one vertex cell per particle so ParaView draws
 * the points in any representation; a system with triangles (a sheet, a
 * fluid's surface) has them as polygons instead.  The file is laid out first (header
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

/* The appended blocks of a file, in order: every field but the position,
 * the position, then the cells: a vertex per point (connectivity 0..n-1,
 * offsets 1..n), or the triangles (their corners, offsets 3, 6, ...).
 * An index block holds count values first + step * i, or tri's corners. */
struct blk {
  const struct ms_field *fd; /* a field's block; NULL: indices */
  size_t count, first, step;
  const uint32_t *tri;
  const char *name, *open, *close; /* the array's name, the XML around it */
};

#define MAX_CORE_BLOCKS 3 /* position, 2 cell blocks */

static size_t blocks(const struct ms__layout *L, const struct ms_view *v,
                     struct blk *b) {
  size_t k = 0, n = v->count, nt = L->tri.n;
  for (uint32_t i = 0; i < v->field_count; i++)
    if (!skip(&v->fields[i], L->pos))
      b[k++] = (struct blk){&v->fields[i], n, 0, 0, NULL,
                            v->fields[i].name, NULL, NULL};
  b[k++] = (struct blk){L->pos, n, 0, 0, NULL, "position",
                        "</PointData>\n<Points>\n", "</Points>\n"};
  if (!nt) { /* points alone: a vertex cell each, drawn in any view */
    b[k++] = (struct blk){NULL, n, 0, 1, NULL, "connectivity", "<Verts>\n",
                          NULL};
    b[k++] = (struct blk){NULL, n, 1, 1, NULL, "offsets", NULL,
                          "</Verts>\n"};
  } else { /* a surface: its triangles */
    b[k++] = (struct blk){NULL, 3 * nt, 0, 0, L->tri.idx, "connectivity",
                          "<Polys>\n", NULL};
    b[k++] = (struct blk){NULL, nt, 3, 3, NULL, "offsets", NULL,
                          "</Polys>\n"};
  }
  return k;
}

static size_t blk_len(const struct blk *b, int wide) {
  return b->fd ? ms__field_bytes(b->fd) * b->count
               : (size_t)(wide ? 8 : 4) * b->count;
}

static void write_header(FILE *f, const struct ms_view *v,
                         const struct ms__layout *L,
                         const struct ms__frame_id *id, const struct blk *b,
                         size_t nb, const size_t *zlen) {
  uint64_t off = 0;
  size_t k = 0;
  fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" "
             "version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\"%s>\n"
             "<PolyData>\n<FieldData>\n<DataArray type=\"Float64\" "
             "Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">"
             "%.17g</DataArray>\n",
          ms__little_endian() ? "LittleEndian" : "BigEndian",
          zlen ? " compressor=\"vtkZLibDataCompressor\"" : "", id->t);
  for (int e = 0; id->domain && e < 2; e++) /* the scene's box */
    fprintf(f, "<DataArray type=\"Float64\" Name=\"domain_%s\" "
               "NumberOfComponents=\"3\" NumberOfTuples=\"1\" "
               "format=\"ascii\">%.17g %.17g %.17g</DataArray>\n",
            e ? "max" : "min", id->domain[3 * e], id->domain[3 * e + 1],
            id->domain[3 * e + 2]);
  fprintf(f, "</FieldData>\n<Piece NumberOfPoints=\"%zu\" "
             "NumberOfVerts=\"%zu\" NumberOfLines=\"0\" "
             "NumberOfStrips=\"0\" NumberOfPolys=\"%zu\">\n<PointData>\n",
          v->count, L->tri.n ? 0 : v->count, L->tri.n);
  const char *it = L->wide ? "Int64" : "Int32";
  for (; k < nb; k++) {
    const struct blk *x = &b[k];
    if (x->open) fputs(x->open, f);
    if (x->fd)
      fprintf(f, "<DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%u\" "
                 "format=\"appended\" offset=\"%llu\"/>\n",
              vtk_type(x->fd->type), x->name, x->fd->components,
              (unsigned long long)off);
    else
      fprintf(f, "<DataArray type=\"%s\" Name=\"%s\" format=\"appended\" "
                 "offset=\"%llu\"/>\n",
              it, x->name, (unsigned long long)off);
    if (x->close) fputs(x->close, f);
    off += zlen ? zlen[k] : 8 + (uint64_t)blk_len(x, L->wide);
  }
  fprintf(f, "</Piece>\n</PolyData>\n<AppendedData encoding=\"raw\">\n_");
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

/* What both layouts share: the position, the triangles, the index width. */
static int begin(struct ms__layout *L, const struct ms_view *v,
                 const struct ms__tris *tri, const char *path,
                 struct ms__err *err) {
  ms__memset(L, 0, sizeof *L);
  if (!(L->pos = position(v)))
    return ms__errf(err, MS_EINVAL, "%s: no 3-component position field",
                    path);
  if (tri) L->tri = *tri;
  L->wide = v->count >= (size_t)INT32_MAX ||
            L->tri.n >= (size_t)INT32_MAX / 3;
  return MS_OK;
}

static struct blk *block_list(const struct ms__layout *L,
                              const struct ms_view *v, size_t *nb) {
  struct blk *b = malloc((v->field_count + MAX_CORE_BLOCKS) * sizeof *b);
  if (b) *nb = blocks(L, v, b);
  return b;
}

static int layout_zlib(struct ms__layout *L, const struct ms_view *v,
                       const struct ms__frame_id *id, const char *path,
                       struct ms__err *err);

int ms__vtp_layout(struct ms__layout *L, const struct ms_view *v,
                   const struct ms__frame_id *id, const char *path,
                   struct ms__err *err) {
  if (id->zlib) return layout_zlib(L, v, id, path, err);
  int rc = begin(L, v, id->tri, path, err);
  if (rc) return rc;
  size_t nb = 0;
  struct blk *b = block_list(L, v, &nb);
  FILE *m = b ? open_memstream(&L->header, &L->header_len) : NULL;
  if (m) {
    write_header(m, v, L, id, b, nb, NULL);
    rc = fclose(m);
  }
  if (!m || rc) {
    free(b);
    return ms__errf(err, MS_ENOMEM, "out of memory");
  }
  L->size = L->header_len + sizeof vtp_tail - 1;
  for (size_t k = 0; k < nb; k++) L->size += 8 + blk_len(&b[k], L->wide);
  free(b);
  return MS_OK;
}

/* One field's block: its byte length, then its values. */
static char *field_block(char *p, const struct ms_field *fd, size_t n) {
  size_t es = ms__field_bytes(fd);
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

/* An index block: its byte length, then the indices in the index type. */
static char *index_block(char *p, const struct blk *b, int wide) {
  size_t n = b->count;
  uint64_t len = (uint64_t)(wide ? 8 : 4) * n;
  ms__memcpy(p, &len, sizeof len);
  p += sizeof len;
  int64_t *w64 = (int64_t *)(void *)p;
  int32_t *w32 = (int32_t *)(void *)p;
  /* p may be unaligned for the type: memcpy keeps that defined */
#pragma omp parallel for schedule(static) if (n >= MS__PAR_MIN_FILL)
  for (size_t i = 0; i < n; i++) {
    size_t x = b->tri ? b->tri[i] : b->first + b->step * i;
    if (wide) {
      int64_t y = (int64_t)x;
      ms__memcpy(w64 + i, &y, 8);
    } else {
      int32_t y = (int32_t)x;
      ms__memcpy(w32 + i, &y, 4);
    }
  }
  return p + len;
}

static char *put_block(char *p, const struct blk *b, int wide) {
  return b->fd ? field_block(p, b->fd, b->count) : index_block(p, b, wide);
}

void ms__vtp_fill(const struct ms__layout *L, const struct ms_view *v,
                  char *buf) {
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
  /* no allocation here: the blocks are listed on the stack in turn */
  struct blk b[MAX_CORE_BLOCKS];
  for (uint32_t i = 0; i < v->field_count; i++)
    if (!skip(&v->fields[i], L->pos)) p = field_block(p, &v->fields[i], v->count);
  struct ms_view none = *v;
  none.field_count = 0; /* only the core blocks: position and cells */
  size_t nb = blocks(L, &none, b);
  for (size_t k = 0; k < nb; k++) p = put_block(p, &b[k], L->wide);
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

/* Block b of the raw file's appended data, packed, compressed. */
static int zblock(struct ms__layout *L, const struct blk *b, size_t k) {
  size_t len = blk_len(b, L->wide);
  char *raw = malloc(len + 8);
  if (!raw) return MS_ENOMEM;
  put_block(raw, b, L->wide);
  int rc = zpack((unsigned char *)raw + 8, len, &L->zblk[k], &L->zlen[k]);
  free(raw);
  return rc;
}

static int layout_zlib(struct ms__layout *L, const struct ms_view *v,
                       const struct ms__frame_id *id, const char *path,
                       struct ms__err *err) {
  int rc = begin(L, v, id->tri, path, err);
  if (rc) return rc;
  size_t nb = 0;
  struct blk *b = block_list(L, v, &nb);
  L->zblk = calloc(nb ? nb : 1, sizeof *L->zblk);
  L->zlen = calloc(nb ? nb : 1, sizeof *L->zlen);
  if (!b || !L->zblk || !L->zlen) {
    free(b);
    return ms__errf(err, MS_ENOMEM, "out of memory");
  }
  L->nz = nb;
  for (size_t k = 0; !rc && k < nb; k++) rc = zblock(L, &b[k], k);
  FILE *m = rc ? NULL : open_memstream(&L->header, &L->header_len);
  if (m) {
    write_header(m, v, L, id, b, nb, L->zlen);
    if (fclose(m)) rc = MS_ENOMEM;
  } else if (!rc) {
    rc = MS_ENOMEM;
  }
  free(b);
  if (rc) return ms__errf(err, rc, "out of memory compressing %s", path);
  L->size = L->header_len + sizeof vtp_tail - 1;
  for (size_t k = 0; k < nb; k++) L->size += L->zlen[k];
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
  const struct ms__frame_id id = {"", 0, 0, t, 0, NULL, NULL};
  int rc = ms__vtp_layout(&L, v, &id, path, err);
  if (!rc) rc = ms__write_one(path, &L, v, ms__vtp_fill, err);
  ms__layout_free(&L);
  return rc;
}

const struct ms__writer ms__writer_vtp = {"vtp", "vtp", 1, ms__vtp_layout,
                                          ms__vtp_fill};
