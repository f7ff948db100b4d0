/* A reader for the VTK XML files mergesplit writes. */
#include "io.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include <mergesplit/status.h>
#include <mergesplit/view.h>

#include "../base/base.h"

static int slurp(const char *path, char **buf, size_t *size,
                 struct ms__err *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return ms__errf(err, MS_EIO, "%s: cannot open: %s", path,
                          strerror(errno));
  char *b = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n + 65536 + 1 > cap) {
      cap = 2 * cap + 65536 + 1;
      if (ms__grow((void **)&b, cap, 1)) {
        free(b);
        fclose(f);
        return ms__errf(err, MS_ENOMEM, "%s: out of memory", path);
      }
    }
    size_t got = fread(b + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(b);
    return ms__errf(err, MS_EIO, "%s: cannot read", path);
  }
  b[n] = '\0';
  *buf = b;
  *size = n;
  return MS_OK;
}

/* Attribute `key` of the tag starting at `tag` (up to the next '>') into
 * out; returns 0 when absent. */
static int attr(const char *tag, const char *key, char *out, size_t len) {
  const char *end = strchr(tag, '>');
  size_t kl = strlen(key);
  for (const char *p = tag; p && (!end || p < end); p++) {
    p = strstr(p, key);
    if (!p || (end && p >= end)) return 0;
    if ((p[-1] == ' ' || p[-1] == '\n' || p[-1] == '\t') && p[kl] == '=' &&
        p[kl + 1] == '"') {
      const char *v = p + kl + 2, *q = strchr(v, '"');
      if (!q || (size_t)(q - v) >= len) return 0;
      ms__memcpy(out, v, (size_t)(q - v));
      out[q - v] = '\0';
      return 1;
    }
  }
  return 0;
}

static int64_t frame_of(const char *file, char **name) {
  const char *us = strrchr(file, '_'), *dot = strrchr(file, '.');
  const char *base = strrchr(file, '/');
  base = base ? base + 1 : file;
  if (!us || !dot || dot < us || us < base) return -1;
  char *end;
  long long f = strtoll(us + 1, &end, 10);
  if (end != dot || f < 0) return -1;
  *name = strndup(base, (size_t)(us - base));
  return *name ? f : -1;
}

int ms__pvd_read(const char *path, struct ms__pvd *out, struct ms__err *err) {
  char *buf;
  size_t size, cap = 0;
  ms__memset(out, 0, sizeof *out);
  int rc = slurp(path, &buf, &size, err);
  if (rc) return rc;
  if (!strstr(buf, "type=\"Collection\"")) {
    free(buf);
    return ms__errf(err, MS_EINVAL, "%s: not a ParaView collection (.pvd)",
                    path);
  }
  for (const char *p = buf; (p = strstr(p, "<DataSet")); p++) {
    char t[64], part[32], file[1024];
    if (!attr(p, "timestep", t, sizeof t) ||
        !attr(p, "file", file, sizeof file)) {
      rc = ms__errf(err, MS_EINVAL, "%s: a DataSet without timestep or file",
                    path);
      break;
    }
    if (!attr(p, "part", part, sizeof part)) strcpy(part, "0");
    if (out->n == cap) {
      cap = cap ? 2 * cap : 64;
      if (ms__grow((void **)&out->e, cap, sizeof *out->e)) {
        rc = ms__errf(err, MS_ENOMEM, "out of memory");
        break;
      }
    }
    struct ms__pvd_entry *e = &out->e[out->n];
    ms__memset(e, 0, sizeof *e);
    e->t = strtod(t, NULL);
    e->part = (uint32_t)strtoul(part, NULL, 10);
    e->frame = frame_of(file, &e->name);
    e->file = strdup(file);
    out->n++;
    if (e->frame < 0 || !e->file) {
      rc = ms__errf(err, MS_EINVAL, "%s: '%s' is not named NAME_NNNNNN.vtp",
                    path, file);
      break;
    }
    if (e->part > 65534) { /* parts index arrays of systems */
      rc = ms__errf(err, MS_EINVAL, "%s: part %u: a scene has 65535 systems "
                    "at most", path, e->part);
      break;
    }
  }
  free(buf);
  if (rc) ms__pvd_free(out);
  return rc;
}

void ms__pvd_free(struct ms__pvd *p) {
  for (size_t i = 0; i < p->n; i++) free(p->e[i].file), free(p->e[i].name);
  free(p->e);
  ms__memset(p, 0, sizeof *p);
}

static uint32_t type_of(const char *s) {
  static const struct { const char *n; uint32_t t; } map[] = {
      {"Float64", MS_TYPE_F64}, {"Float32", MS_TYPE_F32},
      {"Int32", MS_TYPE_I32},   {"UInt8", MS_TYPE_U8},
      {"UInt32", MS_TYPE_U32},  {"Int64", MS_TYPE_I64}};
  for (size_t i = 0; i < sizeof map / sizeof *map; i++)
    if (!strcmp(s, map[i].n)) return map[i].t;
  return 0;
}

/* A compressed array at base + o (VTK's block layout, output_vtp.c):
 * `want` bytes inflated into *out.  MS_EINVAL when the blocks do not add
 * up to want or lie outside the avail bytes. */
static int inflate_array(const char *base, size_t avail, uint64_t o,
                         uint64_t want, char **out) {
  uint64_t h[3];
  *out = NULL;
  if (o > avail || avail - o < 24) return MS_EINVAL;
  ms__memcpy(h, base + o, 24);
  uint64_t nb = h[0], bs = h[1], last = h[2] ? h[2] : h[1];
  if (nb > (avail - o - 24) / 8 || (nb && !bs) ||
      (nb ? (nb - 1) * bs + last : 0) != want || want > SIZE_MAX - 1)
    return MS_EINVAL;
  char *dst = malloc((size_t)want + 1);
  if (!dst) return MS_ENOMEM;
  uint64_t at = o + 24 + 8 * nb, done = 0;
  for (uint64_t b = 0; b < nb; b++) {
    uint64_t cs;
    ms__memcpy(&cs, base + o + 24 + 8 * b, 8);
    uLongf got = (uLongf)(b + 1 < nb ? bs : last);
    if (cs > avail - at ||
        uncompress((Bytef *)dst + done, &got, (const Bytef *)base + at,
                   (uLong)cs) != Z_OK ||
        got != (b + 1 < nb ? bs : last)) {
      free(dst);
      return MS_EINVAL;
    }
    at += cs, done += got;
  }
  *out = dst;
  return MS_OK;
}

/* One appended DataArray tag at p; data starts at base. */
static int add_array(struct ms__vtp *v, const char *p, const char *base,
                     int in_points, const char *path, struct ms__err *err) {
  char type[32], name[64] = "", comps[16] = "1", fmt[32], off[32];
  if (!attr(p, "type", type, sizeof type) ||
      !attr(p, "format", fmt, sizeof fmt))
    return ms__errf(err, MS_EINVAL, "%s: a DataArray without type or format",
                    path);
  if (strcmp(fmt, "appended")) return MS_OK; /* inline cells, field data */
  attr(p, "Name", name, sizeof name);
  attr(p, "NumberOfComponents", comps, sizeof comps);
  if (!attr(p, "offset", off, sizeof off))
    return ms__errf(err, MS_EINVAL, "%s: array '%s' has no offset", path, name);
  struct ms__vtp_array a = {{0}, type_of(type), (uint32_t)atoi(comps), NULL, NULL};
  snprintf(a.name, sizeof a.name, "%s", name);
  if (!a.type || a.comps < 1 || a.comps > 16) return MS_OK; /* not for us */
  uint64_t o = strtoull(off, NULL, 10), len;
  size_t avail = v->size - (size_t)(base - v->buf);
  uint64_t want = (uint64_t)v->n * a.comps * ms__type_size(a.type);
  if (v->zlib) {
    int rc = inflate_array(base, avail, o, want, &a.own);
    if (rc == MS_ENOMEM) return ms__errf(err, rc, "out of memory");
    if (rc) goto bad;
    a.data = a.own;
  } else {
    if (o + 8 > avail) goto bad;
    ms__memcpy(&len, base + o, 8);
    if (len != want || o + 8 + len > avail) goto bad;
    a.data = base + o + 8;
  }
  if (ms__grow((void **)&v->a, v->na + 2, sizeof *v->a)) {
    free(a.own);
    return ms__errf(err, MS_ENOMEM, "out of memory");
  }
  if (in_points) { /* the points go first */
    ms__memmove(v->a + 1, v->a, v->na * sizeof *v->a);
    v->a[0] = a;
  } else {
    v->a[v->na] = a;
  }
  v->na++;
  return MS_OK;
bad:
  return ms__errf(err, MS_EINVAL, "%s: array '%s' lies outside the file "
                  "(truncated?)", path, name);
}

/* Field data "domain_min" / "domain_max" (ascii, 3 numbers) into d. */
static int domain_corner(const char *xml, const char *name, double *d) {
  const char *p = strstr(xml, name);
  const char *gt = p ? strchr(p, '>') : NULL;
  if (!gt) return 0;
  char *end = (char *)gt + 1;
  for (int a = 0; a < 3; a++) {
    const char *s = end;
    d[a] = strtod(s, &end);
    if (end == s || !isfinite(d[a])) return 0;
  }
  return 1;
}

static int parse(struct ms__vtp *v, const char *path, struct ms__err *err) {
  char bo[32] = "", ht[32] = "UInt32", np[32] = "";
  char *app = strstr(v->buf, "<AppendedData");
  const char *vf = strstr(v->buf, "<VTKFile");
  const char *piece = strstr(v->buf, "<Piece");
  if (!vf || !strstr(v->buf, "type=\"PolyData\"") || !piece)
    return ms__errf(err, MS_EINVAL, "%s: not a VTK PolyData file", path);
  attr(vf, "byte_order", bo, sizeof bo);
  attr(vf, "header_type", ht, sizeof ht);
  char comp[64] = "";
  if (strstr(vf, "compressor=") && strstr(vf, "compressor=") < piece) {
    attr(vf, "compressor", comp, sizeof comp);
    if (strcmp(comp, "vtkZLibDataCompressor"))
      return ms__errf(err, MS_ENOTSUP, "%s: compressor %s: only zlib is "
                      "supported", path, comp);
    v->zlib = 1;
  }
  if (strcmp(bo, ms__little_endian() ? "LittleEndian" : "BigEndian") ||
      strcmp(ht, "UInt64"))
    return ms__errf(err, MS_ENOTSUP, "%s: byte order %s, header type %s: "
                    "only files written by mergesplit on this kind of "
                    "machine are supported", path, bo, ht);
  if (!app || !strstr(app, "encoding=\"raw\"") || !strchr(app, '_'))
    return ms__errf(err, MS_ENOTSUP, "%s: no raw appended data", path);
  /* The arrays read below may all lie before a cut: the end tag says the
   * file is whole. */
  static const char end[] = "</VTKFile>";
  size_t e = v->size;
  while (e && (v->buf[e - 1] == '\n' || v->buf[e - 1] == ' ' ||
               v->buf[e - 1] == '\r'))
    e--;
  if (e < sizeof end - 1 || memcmp(v->buf + e - (sizeof end - 1), end,
                                   sizeof end - 1))
    return ms__errf(err, MS_EINVAL, "%s: cut short: no closing </VTKFile> "
                    "(truncated?)", path);
  attr(piece, "NumberOfPoints", np, sizeof np);
  v->n = (size_t)strtoull(np, NULL, 10);
  np[0] = '\0';
  attr(piece, "NumberOfPolys", np, sizeof np);
  v->npolys = (size_t)strtoull(np, NULL, 10);
  const char *base = strchr(app, '_') + 1;
  *app = '\0'; /* the XML ends here: search only the header below */
  v->has_domain = domain_corner(v->buf, "Name=\"domain_min\"", v->domain) &&
                  domain_corner(v->buf, "Name=\"domain_max\"", v->domain + 3);
  const char *pts = strstr(v->buf, "<Points>");
  const char *pts_end = pts ? strstr(pts, "</Points>") : NULL;
  /* the cells (vertices, polygons, ...) come after the points: not point
   * data, not for us */
  const char *cells = pts_end;
  for (const char *p = v->buf; (p = strstr(p, "<DataArray")); p++) {
    if (cells && p > cells) break;
    int rc = add_array(v, p, base, pts && p > pts && p < pts_end, path, err);
    if (rc) return rc;
  }
  if (!v->na || !pts || v->a[0].comps != 3 ||
      (v->a[0].type != MS_TYPE_F64 && v->a[0].type != MS_TYPE_F32))
    return ms__errf(err, MS_EINVAL, "%s: no 3-component points", path);
  return MS_OK;
}

int ms__vtp_read(const char *path, struct ms__vtp *v, struct ms__err *err) {
  ms__memset(v, 0, sizeof *v);
  int rc = slurp(path, &v->buf, &v->size, err);
  if (!rc) rc = parse(v, path, err);
  if (rc) ms__vtp_free(v);
  return rc;
}

const struct ms__vtp_array *ms__vtp_find(const struct ms__vtp *v,
                                         const char *name) {
  for (uint32_t i = 1; i < v->na; i++)
    if (!strcmp(v->a[i].name, name)) return &v->a[i];
  return NULL;
}

static double component(const struct ms__vtp_array *a, size_t k) {
  const char *p = a->data + k * ms__type_size(a->type);
  switch (a->type) {
  case MS_TYPE_F64: { double x; ms__memcpy(&x, p, 8); return x; }
  case MS_TYPE_F32: { float x; ms__memcpy(&x, p, 4); return x; }
  case MS_TYPE_I32: { int32_t x; ms__memcpy(&x, p, 4); return x; }
  case MS_TYPE_U32: { uint32_t x; ms__memcpy(&x, p, 4); return x; }
  case MS_TYPE_I64: { int64_t x; ms__memcpy(&x, p, 8); return (double)x; }
  case MS_TYPE_U8: return (double)*(const uint8_t *)p;
  }
  return NAN;
}

double ms__vtp_value(const struct ms__vtp_array *a, size_t i, int c) {
  if (c >= 0) return component(a, i * a->comps + (size_t)c);
  if (a->comps == 1) return component(a, i);
  double s = 0;
  for (uint32_t k = 0; k < a->comps; k++) {
    double x = component(a, i * a->comps + k);
    s += x * x;
  }
  return sqrt(s);
}

void ms__vtp_free(struct ms__vtp *v) {
  for (uint32_t i = 0; i < v->na; i++) free(v->a[i].own);
  free(v->buf);
  free(v->a);
  ms__memset(v, 0, sizeof *v);
}
