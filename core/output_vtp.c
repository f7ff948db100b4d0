/* VTK XML PolyData (.vtp) writer: appended raw binary, UInt64 headers,
 * every field as point data, one vertex cell per particle so ParaView draws
 * the points in any representation.  The arrays leave in one writev,
 * dense fields straight from the plugin's memory: a 100 MB frame costs
 * little more than the kernel's copy. */
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <mergesplit/status.h>

#include "afile.h"
#include "xalloc.h"

#define PAR_MIN 65536 /* particles: below, packing stays on this thread */

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

/* Strided (or stride-0) field -> dense values at dst, in parallel for
 * big views. */
static void pack(char *dst, const struct ms_field *fd, size_t n) {
  const size_t es = ms__type_size(fd->type) * fd->components,
               stride = fd->stride;
  const char *src = fd->data;
#pragma omp parallel for schedule(static) if (n >= PAR_MIN)
  for (size_t i = 0; i < n; i++) memcpy(dst + i * es, src + i * stride, es);
}

/* 0, 1, ..., n in the index type: connectivity is its first n values,
 * offsets its last n.  Kept while the count stays. */
static int cells(struct ms__vtp_scratch *s, size_t n, int wide) {
  size_t w = wide ? 8 : 4;
  if (s->cells_n == n + 1 && s->cells_wide == wide) return 0;
  if ((n + 1) * w > s->cells_cap) {
    if (ms__grow((void **)&s->cells, (n + 1) * w, 1)) return -1;
    s->cells_cap = (n + 1) * w;
  }
#pragma omp parallel for schedule(static) if (n >= PAR_MIN)
  for (size_t i = 0; i <= n; i++) {
    if (wide) ((int64_t *)s->cells)[i] = (int64_t)i;
    else ((int32_t *)s->cells)[i] = (int32_t)i;
  }
  s->cells_n = n + 1, s->cells_wide = wide;
  return 0;
}

/* The appended blocks as one gather list: [length, values] per array in
 * the header's order, values straight from the view when dense, else
 * packed into scratch.  b: the nb arrays (fields but position, then
 * position); lens: nb + 1 lengths.  Returns the iovec count, -1 if out of
 * memory. */
static int gather(struct ms__vtp_scratch *s, const struct ms_field **b,
                  uint32_t nb, size_t n, int wide, struct iovec *iov,
                  uint64_t *lens) {
  size_t packed = 0, w = wide ? 8 : 4;
  for (uint32_t k = 0; k < nb; k++) {
    size_t es = ms__type_size(b[k]->type) * b[k]->components;
    if (b[k]->stride != es) packed += es * n;
  }
  if (packed > s->cap) {
    if (ms__grow((void **)&s->pack, packed, 1)) return -1;
    s->cap = packed;
  }
  if (cells(s, n, wide)) return -1;
  char *dst = s->pack;
  int q = 0;
  for (uint32_t k = 0; k < nb; k++) {
    size_t es = ms__type_size(b[k]->type) * b[k]->components;
    lens[k] = (uint64_t)es * n;
    iov[q++] = (struct iovec){&lens[k], sizeof lens[k]};
    if (b[k]->stride == es) {
      iov[q++] = (struct iovec){(void *)b[k]->data, es * n};
    } else {
      pack(dst, b[k], n);
      iov[q++] = (struct iovec){dst, es * n};
      dst += es * n;
    }
  }
  lens[nb] = (uint64_t)w * n;
  iov[q++] = (struct iovec){&lens[nb], sizeof lens[nb]};
  iov[q++] = (struct iovec){s->cells, w * n}; /* connectivity */
  iov[q++] = (struct iovec){&lens[nb], sizeof lens[nb]};
  iov[q++] = (struct iovec){s->cells + w, w * n}; /* offsets */
  return q;
}

/* writev until everything is out (it may write less than asked). */
static int write_all(int fd, struct iovec *iov, int cnt) {
  while (cnt > 0) {
    int m = cnt < IOV_MAX ? cnt : IOV_MAX;
    ssize_t got = writev(fd, iov, m);
    if (got < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    size_t left = (size_t)got;
    while (cnt > 0 && left >= iov->iov_len) left -= iov->iov_len, iov++, cnt--;
    if (cnt > 0) {
      iov->iov_base = (char *)iov->iov_base + left;
      iov->iov_len -= left;
    }
  }
  return 0;
}

void ms__vtp_scratch_free(struct ms__vtp_scratch *s) {
  free(s->pack);
  free(s->cells);
  memset(s, 0, sizeof *s);
}

static int write_body(struct ms__afile *a, const struct ms_view *v,
                      const struct ms_field *pos, int wide,
                      struct ms__vtp_scratch *s) {
  static const char tail[] = "\n</AppendedData>\n</VTKFile>\n";
  uint32_t nf = v->field_count + 1, nb = 0;
  const struct ms_field **b = malloc(nf * sizeof *b);
  uint64_t *lens = malloc((nf + 1) * sizeof *lens);
  struct iovec *iov = malloc((2 * nf + 5) * sizeof *iov);
  int bad = !b || !lens || !iov, q = 0;
  if (!bad) {
    for (uint32_t i = 0; i < v->field_count; i++)
      if (!skip(&v->fields[i], pos)) b[nb++] = &v->fields[i];
    b[nb++] = pos;
    q = gather(s, b, nb, v->count, wide, iov, lens);
    bad = q < 0;
  }
  if (!bad) {
    iov[q++] = (struct iovec){(void *)tail, sizeof tail - 1};
    /* The header went through stdio; the arrays skip its buffer. */
    bad = fflush(a->f) || write_all(fileno(a->f), iov, q);
  }
  free(b), free(lens), free(iov);
  return bad ? -1 : 0;
}

int ms__vtp_write(const char *path, const struct ms_view *v, double t,
                  struct ms__vtp_scratch *scratch, struct ms__err *err) {
  const struct ms_field *pos = NULL;
  for (uint32_t i = 0; i < v->field_count; i++)
    if (!strcmp(v->fields[i].name, "position")) pos = &v->fields[i];
  if (!pos || pos->components != 3 ||
      (pos->type != MS_TYPE_F64 && pos->type != MS_TYPE_F32))
    return ms__errf(err, MS_EINVAL, "%s: no 3-component position field",
                    path);
  struct ms__vtp_scratch own = {0};
  struct ms__vtp_scratch *s = scratch ? scratch : &own;
  struct ms__afile a;
  int rc = ms__afile_open(&a, path, err);
  if (rc) return rc;
  int wide = v->count >= (size_t)INT32_MAX;
  errno = 0;
  write_header(a.f, v, pos, t, wide);
  int bad = write_body(&a, v, pos, wide, s);
  int e = errno ? errno : ENOMEM;
  ms__vtp_scratch_free(&own);
  if (bad) {
    ms__afile_abort(&a);
    return ms__errf(err, MS_EIO, "%s: cannot write: %s", path, strerror(e));
  }
  return ms__afile_commit(&a, MS__AFILE_DROP_OLD, err);
}
