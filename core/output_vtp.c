/* VTK XML PolyData (.vtp) and ParaView collection (.pvd) writers. */
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mergesplit/status.h>

#include "xalloc.h"

struct series {
  char *name;
  double *t;
  int64_t *frame;
  size_t n, cap;
};

struct ms__output {
  char *dir;
  uint32_t nsys;
  struct series *s;
};

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

static size_t type_size(uint32_t t) {
  return t == MS_TYPE_F64 || t == MS_TYPE_I64 ? 8 : t == MS_TYPE_U8 ? 1 : 4;
}

static int little_endian(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}

/* mkdir -p */
static int make_dirs(const char *dir) {
  char buf[4096];
  size_t n = strlen(dir);
  if (n >= sizeof buf) return -1;
  memcpy(buf, dir, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (buf[i] != '/' && buf[i] != '\0') continue;
    char c = buf[i];
    buf[i] = '\0';
    if (mkdir(buf, 0777) && errno != EEXIST) return -1;
    buf[i] = c;
  }
  return 0;
}

static FILE *open_tmp(const char *path, char *tmp, size_t len) {
  snprintf(tmp, len, "%s.tmp%ld", path, (long)getpid());
  return fopen(tmp, "wb");
}

static int commit(FILE *f, const char *tmp, const char *path,
                  struct ms__err *err) {
  int bad = ferror(f);
  if (fclose(f) || bad || rename(tmp, path)) {
    int e = errno;
    remove(tmp);
    return ms__errf(err, MS_EIO, "%s: cannot write: %s", path, strerror(e));
  }
  return MS_OK;
}

/* Appended block: 8-byte length then the packed values of one field. */
static int write_block(FILE *f, const struct ms_field *fd, size_t n,
                       char *buf, size_t bufsz) {
  size_t es = type_size(fd->type) * fd->components;
  uint64_t bytes = (uint64_t)es * n;
  fwrite(&bytes, sizeof bytes, 1, f);
  size_t per = bufsz / es;
  for (size_t i = 0; i < n; i += per) {
    size_t m = n - i < per ? n - i : per;
    for (size_t k = 0; k < m; k++)
      memcpy(buf + k * es, (const char *)fd->data + (i + k) * fd->stride, es);
    if (fwrite(buf, es, m, f) != m) return -1;
  }
  return 0;
}

int ms__vtp_write(const char *path, const struct ms_view *v,
                  struct ms__err *err) {
  char tmp[4200];
  const struct ms_field *pos = NULL;
  size_t n = v->count;
  for (uint32_t i = 0; i < v->field_count; i++)
    if (!strcmp(v->fields[i].name, "position")) pos = &v->fields[i];
  if (!pos) return ms__errf(err, MS_EINVAL, "%s: no position field", path);
  FILE *f = open_tmp(path, tmp, sizeof tmp);
  if (!f)
    return ms__errf(err, MS_EIO, "%s: cannot create: %s", path,
                    strerror(errno));
  uint64_t off = 0;
  fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" "
             "version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n"
             "<PolyData>\n<Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\" "
             "NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n"
             "<PointData>\n",
          little_endian() ? "LittleEndian" : "BigEndian", n, n);
  for (uint32_t i = 0; i < v->field_count; i++) {
    const struct ms_field *fd = &v->fields[i];
    if (fd == pos || !vtk_type(fd->type)) continue;
    fprintf(f, "<DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%u\" "
               "format=\"appended\" offset=\"%llu\"/>\n",
            vtk_type(fd->type), fd->name, fd->components,
            (unsigned long long)off);
    off += 8 + (uint64_t)type_size(fd->type) * fd->components * n;
  }
  fprintf(f, "</PointData>\n<Points>\n<DataArray type=\"Float64\" "
             "Name=\"position\" NumberOfComponents=\"3\" format=\"appended\" "
             "offset=\"%llu\"/>\n</Points>\n",
          (unsigned long long)off);
  off += 8 + 24 * (uint64_t)n;
  fprintf(f, "<Verts>\n<DataArray type=\"Int64\" Name=\"connectivity\" "
             "format=\"appended\" offset=\"%llu\"/>\n",
          (unsigned long long)off);
  off += 8 + 8 * (uint64_t)n;
  fprintf(f, "<DataArray type=\"Int64\" Name=\"offsets\" format=\"appended\" "
             "offset=\"%llu\"/>\n</Verts>\n</Piece>\n</PolyData>\n"
             "<AppendedData encoding=\"raw\">\n_",
          (unsigned long long)off);
  size_t bufsz = 1 << 20;
  char *buf = malloc(bufsz);
  int bad = !buf;
  for (uint32_t i = 0; !bad && i < v->field_count; i++) {
    const struct ms_field *fd = &v->fields[i];
    if (fd == pos || !vtk_type(fd->type)) continue;
    bad = write_block(f, fd, n, buf, bufsz);
  }
  if (!bad) bad = write_block(f, pos, n, buf, bufsz);
  if (!bad) { /* vertex cells: point i alone, offsets i + 1 */
    struct ms_field seq = {"", MS_TYPE_I64, 1, sizeof(int64_t), NULL};
    int64_t *ids = malloc((n ? n : 1) * sizeof *ids);
    bad = !ids;
    for (size_t i = 0; !bad && i < n; i++) ids[i] = (int64_t)i;
    seq.data = ids;
    if (!bad) bad = write_block(f, &seq, n, buf, bufsz);
    for (size_t i = 0; !bad && i < n; i++) ids[i] = (int64_t)i + 1;
    if (!bad) bad = write_block(f, &seq, n, buf, bufsz);
    free(ids);
  }
  free(buf);
  fprintf(f, "\n</AppendedData>\n</VTKFile>\n");
  if (bad) {
    fclose(f);
    remove(tmp);
    return ms__errf(err, MS_EIO, "%s: cannot write", path);
  }
  return commit(f, tmp, path, err);
}

static int write_pvd(const char *path, struct series *s, uint32_t ns,
                     struct ms__err *err) {
  char tmp[4200];
  FILE *f = open_tmp(path, tmp, sizeof tmp);
  if (!f)
    return ms__errf(err, MS_EIO, "%s: cannot create: %s", path,
                    strerror(errno));
  fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" "
             "version=\"0.1\" byte_order=\"%s\">\n<Collection>\n",
          little_endian() ? "LittleEndian" : "BigEndian");
  for (uint32_t p = 0; p < ns; p++)
    for (size_t i = 0; i < s[p].n; i++)
      fprintf(f, "<DataSet timestep=\"%.17g\" group=\"\" part=\"%u\" "
                 "file=\"%s_%06lld.vtp\"/>\n",
              s[p].t[i], ns > 1 ? p : 0, s[p].name,
              (long long)s[p].frame[i]);
  fprintf(f, "</Collection>\n</VTKFile>\n");
  return commit(f, tmp, path, err);
}

int ms__output_open(struct ms__output **out, const char *dir, uint32_t nsys,
                    const char *const *names, struct ms__err *err) {
  struct ms__output *o = calloc(1, sizeof *o);
  *out = NULL;
  if (!o || !(o->dir = strdup(dir)) ||
      !(o->s = calloc(nsys, sizeof *o->s))) {
    ms__output_close(o);
    return ms__errf(err, MS_ENOMEM, "out of memory");
  }
  o->nsys = nsys;
  for (uint32_t i = 0; i < nsys; i++)
    if (!(o->s[i].name = strdup(names[i]))) {
      ms__output_close(o);
      return ms__errf(err, MS_ENOMEM, "out of memory");
    }
  if (make_dirs(dir)) {
    int e = errno;
    ms__output_close(o);
    return ms__errf(err, MS_EIO, "%s: cannot create the output directory: %s",
                    dir, strerror(e));
  }
  *out = o;
  return MS_OK;
}

int ms__output_frame(struct ms__output *o, int64_t frame, double t,
                     const struct ms_view *views, struct ms__err *err) {
  char path[4096];
  for (uint32_t i = 0; i < o->nsys; i++) {
    struct series *s = &o->s[i];
    snprintf(path, sizeof path, "%s/%s_%06lld.vtp", o->dir, s->name,
             (long long)frame);
    int rc = ms__vtp_write(path, &views[i], err);
    if (rc) return rc;
    if (s->n == s->cap) {
      size_t c = s->cap ? 2 * s->cap : 64;
      if (ms__grow((void **)&s->t, c, sizeof *s->t) ||
          ms__grow((void **)&s->frame, c, sizeof *s->frame))
        return ms__errf(err, MS_ENOMEM, "out of memory");
      s->cap = c;
    }
    s->t[s->n] = t;
    s->frame[s->n++] = frame;
    snprintf(path, sizeof path, "%s/%s.pvd", o->dir, s->name);
    if ((rc = write_pvd(path, s, 1, err))) return rc;
  }
  snprintf(path, sizeof path, "%s/scene.pvd", o->dir);
  return write_pvd(path, o->s, o->nsys, err);
}

void ms__output_close(struct ms__output *o) {
  if (!o) return;
  for (uint32_t i = 0; o->s && i < o->nsys; i++) {
    free(o->s[i].name);
    free(o->s[i].t);
    free(o->s[i].frame);
  }
  free(o->s);
  free(o->dir);
  free(o);
}
