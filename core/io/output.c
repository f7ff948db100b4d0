/* Frame output: the files of one frame, the .pvd series, and the core's
 * own point fields ("system", "meta") appended to every view. */
#include "io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mergesplit/status.h>

#include "../base/base.h"

struct series {
  char *name;
  double *t;
  int64_t *frame;
  size_t n, cap;
};

struct ms__output {
  char *dir;
  unsigned formats;
  int zlib; /* MS__OUT_ZLIB */
  double domain[6];
  int has_domain;
  uint32_t nsys;
  struct series *s;
  int32_t *sysid;          /* the value of each system's "system" field */
  struct ms_field *fields; /* workspace: a view's fields + the core's */
  uint32_t cap_fields;
  struct ms__file_writer *fw; /* a buffer per file of a frame, kept */
  int lock;                   /* the directory's lock (ms__lock_dir) */
};

/* The file writer's slots of a frame: per system, one per format (the
 * table's row) and the .pvd series; then scene.pvd. */
static uint32_t nwriters(void) {
  uint32_t n = 0;
  while (ms__writers[n]) n++;
  return n;
}

static uint32_t system_slots(void) { return nwriters() + 1; }

/* The format that keeps the .pvd series, or NULL. */
static const struct ms__writer *series_writer(unsigned formats) {
  for (uint32_t k = 0; ms__writers[k]; k++)
    if ((formats & (1u << k)) && ms__writers[k]->series) return ms__writers[k];
  return NULL;
}

unsigned ms__format_bit(const char *name) {
  for (uint32_t k = 0; ms__writers[k]; k++)
    if (!strcmp(ms__writers[k]->name, name)) return 1u << k;
  return 0;
}

const char *ms__format_names(char *buf, size_t len) {
  size_t at = 0;
  buf[0] = 0;
  for (uint32_t k = 0; ms__writers[k] && at < len; k++)
    at += (size_t)snprintf(buf + at, len - at, "%s\"%s\"", k ? ", " : "",
                           ms__writers[k]->name);
  return buf;
}

static const int32_t no_meta = -1;

const char *ms__output_dir(const struct ms__output *o) { return o->dir; }

/* A .pvd collection of the series s[0..ns) into the writer's slot. */
static int add_pvd(struct ms__output *o, uint32_t slot, const char *path,
                   const char *ext, const struct series *s, uint32_t ns,
                   struct ms__err *err) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return ms__errf(err, MS_ENOMEM, "out of memory");
  fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" "
             "version=\"0.1\" byte_order=\"%s\">\n<Collection>\n",
          ms__little_endian() ? "LittleEndian" : "BigEndian");
  for (uint32_t p = 0; p < ns; p++)
    for (size_t i = 0; i < s[p].n; i++)
      /* name: ParaView's PVD reader names the part's block by it */
      fprintf(f, "<DataSet timestep=\"%.17g\" group=\"\" part=\"%u\" "
                 "name=\"%s\" file=\"%s_%06lld.%s\"/>\n",
              s[p].t[i], ns > 1 ? p : 0, s[p].name, s[p].name,
              (long long)s[p].frame[i], ext);
  fprintf(f, "</Collection>\n</VTKFile>\n");
  int rc = fclose(f) ? ms__errf(err, MS_ENOMEM, "out of memory") : MS_OK;
  char *buf = rc ? NULL : ms__fw_buffer(o->fw, slot, len, err);
  if (buf) {
    ms__memcpy(buf, text, len);
    rc = ms__fw_add(o->fw, slot, len, path, err);
  } else if (!rc) {
    rc = err->status;
  }
  free(text);
  return rc;
}

int ms__output_open(struct ms__output **out, const char *dir,
                    unsigned formats, unsigned io, uint32_t nsys,
                    const char *const *names, struct ms__err *err) {
  struct ms__output *o = calloc(1, sizeof *o);
  *out = NULL;
  if (o) o->lock = -1;
  if (o && ms__fw_open(&o->fw, io, err)) {
    ms__output_close(o);
    return err->status;
  }
  if (!o || !(o->dir = strdup(dir)) ||
      !(o->s = calloc(nsys, sizeof *o->s)) ||
      !(o->sysid = calloc(nsys, sizeof *o->sysid))) {
    ms__output_close(o);
    return ms__errf(err, MS_ENOMEM, "out of memory");
  }
  o->nsys = nsys;
  o->formats = formats;
  o->zlib = (io & MS__OUT_ZLIB) != 0;
  for (uint32_t i = 0; i < nsys; i++) {
    o->sysid[i] = (int32_t)i;
    if (!(o->s[i].name = strdup(names[i]))) {
      ms__output_close(o);
      return ms__errf(err, MS_ENOMEM, "out of memory");
    }
  }
  if (ms__make_dirs(dir)) {
    int e = errno;
    ms__output_close(o);
    return ms__errf(err, MS_EIO, "%s: cannot create the output directory: %s",
                    dir, strerror(e));
  }
  if (ms__lock_dir(dir, &o->lock, err)) {
    ms__output_close(o);
    return err->status;
  }
  *out = o;
  return MS_OK;
}

/* The view of system i with the core's fields: the plugin's fields (but
 * for any named like the core's), "system" (stride 0: one value for all)
 * and "meta". */
static int augment(struct ms__output *o, uint32_t i, const struct ms_view *v,
                   const int32_t *meta, struct ms_view *out) {
  uint32_t need = v->field_count + 2;
  if (need > o->cap_fields) {
    if (ms__grow((void **)&o->fields, need, sizeof *o->fields))
      return MS_ENOMEM;
    o->cap_fields = need;
  }
  uint32_t n = 0;
  for (uint32_t k = 0; k < v->field_count; k++)
    if (strcmp(v->fields[k].name, "system") &&
        strcmp(v->fields[k].name, "meta"))
      o->fields[n++] = v->fields[k];
  o->fields[n++] = (struct ms_field){"system", MS_TYPE_I32, 1, 0,
                                     &o->sysid[i]};
  o->fields[n++] = meta ? (struct ms_field){"meta", MS_TYPE_I32, 1,
                                            sizeof(int32_t), (void *)meta}
                        : (struct ms_field){"meta", MS_TYPE_I32, 1, 0,
                                            (void *)&no_meta};
  *out = *v;
  out->field_count = n;
  out->fields = o->fields;
  return MS_OK;
}

static int add_to_series(struct series *s, int64_t frame, double t) {
  if (s->n && s->frame[s->n - 1] >= frame) { /* rewritten after a resume */
    while (s->n && s->frame[s->n - 1] >= frame) s->n--;
  }
  if (s->n == s->cap) {
    size_t c = s->cap ? 2 * s->cap : 64;
    if (ms__grow((void **)&s->t, c, sizeof *s->t) ||
        ms__grow((void **)&s->frame, c, sizeof *s->frame))
      return MS_ENOMEM;
    s->cap = c;
  }
  s->t[s->n] = t;
  s->frame[s->n++] = frame;
  return MS_OK;
}

/* File `path` of view v in format w: lay it out, fill its slot's
 * buffer, add it to the batch. */
static int add_file(struct ms__output *o, uint32_t slot, const char *path,
                    const struct ms__writer *w, const struct ms_view *v,
                    const struct ms__frame_id *id, struct ms__err *err) {
  struct ms__layout L;
  int rc = w->layout(&L, v, id, path, err);
  char *buf = rc ? NULL : ms__fw_buffer(o->fw, slot, L.size, err);
  if (buf) {
    w->fill(&L, v, buf);
    rc = ms__fw_add(o->fw, slot, L.size, path, err);
  } else if (!rc) {
    rc = err->status;
  }
  ms__layout_free(&L);
  return rc;
}

static int add_system(struct ms__output *o, uint32_t i, int64_t frame,
                      double t, const struct ms_view *v,
                      const struct ms__tris *tri, struct ms__err *err) {
  char path[4096];
  struct series *s = &o->s[i];
  const struct ms__frame_id id = {s->name, i, frame, t, o->zlib,
                                  tri && tri->n ? tri : NULL,
                                  o->has_domain ? o->domain : NULL};
  uint32_t slot = system_slots() * i, k;
  int rc;
  for (k = 0; ms__writers[k]; k++) {
    const struct ms__writer *w = ms__writers[k];
    if (!(o->formats & (1u << k))) continue;
    snprintf(path, sizeof path, "%s/%s_%06lld.%s", o->dir, s->name,
             (long long)frame, w->ext);
    if ((rc = add_file(o, slot + k, path, w, v, &id, err))) return rc;
  }
  const struct ms__writer *w = series_writer(o->formats);
  if (!w) return MS_OK;
  if (add_to_series(s, frame, t))
    return ms__errf(err, MS_ENOMEM, "out of memory");
  snprintf(path, sizeof path, "%s/%s.pvd", o->dir, s->name);
  return add_pvd(o, slot + k, path, w->ext, s, 1, err);
}

int ms__output_frame(struct ms__output *o, int64_t frame, double t,
                     const struct ms_view *views,
                     const int32_t *const *meta,
                     const struct ms__tris *tri, struct ms__err *err) {
  /* The last frame's files first: their buffers are this frame's. */
  int rc = ms__fw_wait(o->fw, err);
  for (uint32_t i = 0; !rc && i < o->nsys; i++) {
    struct ms_view v;
    rc = augment(o, i, &views[i], meta ? meta[i] : NULL, &v)
             ? ms__errf(err, MS_ENOMEM, "out of memory")
             : add_system(o, i, frame, t, &v, tri ? &tri[i] : NULL, err);
  }
  const struct ms__writer *w = series_writer(o->formats);
  if (!rc && w) {
    char path[4096];
    snprintf(path, sizeof path, "%s/scene.pvd", o->dir);
    rc = add_pvd(o, system_slots() * o->nsys, path, w->ext, o->s, o->nsys,
                 err);
  }
  if (rc) { /* no file of a failed frame is written */
    ms__fw_drop(o->fw);
    return rc;
  }
  return ms__fw_commit(o->fw, err);
}

void ms__output_domain(struct ms__output *o, const double lo[3],
                       const double hi[3]) {
  ms__memcpy(o->domain, lo, 3 * sizeof *lo);
  ms__memcpy(o->domain + 3, hi, 3 * sizeof *hi);
  o->has_domain = 1;
}

int ms__output_flush(struct ms__output *o, struct ms__err *err) {
  return o ? ms__fw_wait(o->fw, err) : MS_OK;
}

double ms__output_seconds(struct ms__output *o) {
  return ms__fw_seconds(o->fw);
}

int ms__output_save(const struct ms__output *o, const struct ms_stream *st) {
  uint32_t n = o->nsys;
  int rc = st->write(st->opaque, &n, sizeof n);
  for (uint32_t i = 0; !rc && i < n; i++) {
    uint64_t len = o->s[i].n;
    rc = st->write(st->opaque, &len, sizeof len);
    if (!rc && len) rc = st->write(st->opaque, o->s[i].t, len * sizeof(double));
    if (!rc && len)
      rc = st->write(st->opaque, o->s[i].frame, len * sizeof(int64_t));
  }
  return rc;
}

/* o == NULL: read the series and drop them (a resume without output). */
int ms__output_load(struct ms__output *o, const struct ms_stream *st,
                    struct ms__err *err) {
  uint32_t n;
  int rc = st->read(st->opaque, &n, sizeof n);
  if (rc) return rc;
  if (o && n != o->nsys)
    return ms__errf(err, MS_ESTATE, "output series of %u systems, the scene "
                    "has %u", n, o->nsys);
  struct series scratch = {0};
  for (uint32_t i = 0; !rc && i < n; i++) {
    struct series *s = o ? &o->s[i] : &scratch;
    uint64_t len;
    if ((rc = st->read(st->opaque, &len, sizeof len))) break;
    if (len > ((uint64_t)1 << 32)) {
      rc = ms__errf(err, MS_ESTATE, "output series of %llu frames",
                    (unsigned long long)len);
      break;
    }
    if (len > s->cap) {
      if (ms__grow((void **)&s->t, len, sizeof *s->t) ||
          ms__grow((void **)&s->frame, len, sizeof *s->frame)) {
        rc = ms__errf(err, MS_ENOMEM, "out of memory");
        break;
      }
      s->cap = len;
    }
    s->n = len;
    if (len && !(rc = st->read(st->opaque, s->t, len * sizeof(double))))
      rc = st->read(st->opaque, s->frame, len * sizeof(int64_t));
  }
  free(scratch.t);
  free(scratch.frame);
  return rc;
}

void ms__output_close(struct ms__output *o) {
  if (!o) return;
  for (uint32_t i = 0; o->s && i < o->nsys; i++) {
    free(o->s[i].name);
    free(o->s[i].t);
    free(o->s[i].frame);
  }
  free(o->s);
  free(o->sysid);
  free(o->fields);
  free(o->dir);
  ms__fw_close(o->fw);
  if (o->lock >= 0) close(o->lock); /* after the last frame is written */
  free(o);
}
