/* Writing and reading checkpoints (layout in run.h). */
#include "run.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../io/io.h"
#include "../base/base.h"

static const char magic[8] = {'M', 'S', 'C', 'K', 'P', 'T', '\r', '\n'};

struct header {
  char magic[8];
  uint32_t version;
  uint16_t abi_major, abi_minor;
  uint64_t scene_hash, length, body_hash;
  uint32_t nsys, threads;
  uint64_t reserved, header_hash;
};
_Static_assert(sizeof(struct header) == 64, "checkpoint header size");

/* A byte stream over the open file that hashes what passes through. */
struct io {
  FILE *f;
  struct ms__hash h;
  uint64_t bytes;
  int io_errno; /* set when the file itself failed */
};

static int io_write(void *opaque, const void *data, size_t n) {
  struct io *io = opaque;
  if (n && fwrite(data, 1, n, io->f) != n) {
    io->io_errno = errno ? errno : EIO;
    return MS_EIO;
  }
  ms__hash_update(&io->h, data, n);
  io->bytes += n;
  return MS_OK;
}

static int io_read(void *opaque, void *data, size_t n) {
  struct io *io = opaque;
  if (n && fread(data, 1, n, io->f) != n) return MS_ESTATE;
  io->bytes += n;
  return MS_OK;
}

static int hash_file(struct ms__hash *h, const char *path,
                     struct ms__err *err) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return ms__errf(err, MS_EIO, "%s: cannot read the scene file: %s", path,
                    strerror(errno));
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) ms__hash_update(h, buf, n);
  int bad = ferror(f);
  fclose(f);
  if (bad) return ms__errf(err, MS_EIO, "%s: cannot read the scene file", path);
  return MS_OK;
}

/* The scene file's bytes (or the text of a scene given as text), then its
 * overrides (none: the file's hash alone, as before overrides existed). */
static int scene_hash(const struct ms__scene *sc, uint64_t *out,
                      struct ms__err *err) {
  struct ms__hash h;
  ms__hash_init(&h);
  if (sc->text) ms__hash_update(&h, sc->text, strlen(sc->text));
  else {
    int rc = hash_file(&h, sc->path, err);
    if (rc) return rc;
  }
  for (size_t i = 0; i < sc->noverrides; i++)
    ms__hash_update(&h, sc->overrides[i], strlen(sc->overrides[i]) + 1);
  *out = ms__hash_final(&h);
  return MS_OK;
}

int ms__checkpoint_supported(const struct ms_sim *S, const char *why,
                             struct ms__err *err) {
  for (uint32_t i = 0; i < S->nsys; i++) {
    const struct ms__system *y = &S->sys[i];
    if (!y->plugin->desc.save || !y->plugin->desc.load)
      return ms__errf(err, MS_ENOTSUP, "%s: system '%s' cannot be "
                      "checkpointed: its solver '%s' (%s) has no save() and "
                      "load()", why, y->desc->name, y->plugin->desc.id,
                      y->plugin->path);
  }
  return MS_OK;
}

/* ---- body ------------------------------------------------------------ */

#define PUT(io, v) io_write(io, &(v), sizeof(v))
#define GET(io, v) io_read(io, &(v), sizeof(v))

static int put_str(struct io *io, const char *s) {
  uint32_t n = (uint32_t)strlen(s);
  int rc = PUT(io, n);
  return rc ? rc : io_write(io, s, n);
}

/* Reads a string into buf (len bytes); MS_ESTATE if it does not fit. */
static int get_str(struct io *io, char *buf, size_t len) {
  uint32_t n;
  int rc = GET(io, n);
  if (rc) return rc;
  if (n >= len) return MS_ESTATE;
  buf[n] = '\0';
  return io_read(io, buf, n);
}

/* The counters, field by field: the file does not depend on padding. */
static int counts_io(struct io *io, struct ms__counts *c, int w) {
  int (*f)(void *, void *, size_t) =
      w ? (int (*)(void *, void *, size_t))io_write : io_read;
  uint64_t *u[] = {&c->steps, &c->stage2_steps, &c->pairs, &c->approaching,
                   &c->marked, &c->metas, &c->members, &c->meta_max,
                   &c->members_sq,
                   &c->ledger.merges, &c->ledger.splits, &c->ledger.ortho,
                   &c->pen.crossings, &c->pen.through, &c->pen.inside, &c->pen.passed,
                   &c->pen.max_pen, &c->ledger.contacts, &c->handed,
                   &c->passes, &c->unconverged, &c->heat_pairs};
  double *d[] = {&c->ledger.stored, &c->ledger.restored, &c->pen.max_speed,
                 &c->ledger.contact, &c->ledger.pdefect[0],
                 &c->ledger.pdefect[1], &c->ledger.pdefect[2],
                 &c->ledger.pexch, &c->heat_moved, &c->heat_injected};
  int rc = MS_OK;
  for (size_t i = 0; !rc && i < sizeof u / sizeof *u; i++)
    rc = f(io, u[i], sizeof *u[i]);
  for (size_t i = 0; !rc && i < sizeof d / sizeof *d; i++)
    rc = f(io, d[i], sizeof *d[i]);
  return rc;
}

/* The sides the penetration metrics track (step.h) and the layout they
 * were tracked in, so a resumed run reports what an uninterrupted one
 * would.  Read after the systems: their views give the current layout. */
static int metrics_io(struct io *io, struct ms_sim *S, int w) {
  struct ms__metrics *m = &S->metrics;
  uint64_t n = m->n, k = m->nsheets, ks = m->nsolids;
  int rc = w ? PUT(io, n) : GET(io, n);
  if (!rc) rc = w ? PUT(io, k) : GET(io, k);
  if (!rc) rc = w ? PUT(io, ks) : GET(io, ks);
  if (rc || n == 0) return rc;
  if (!w) {
    if (n != S->stepper.ntotal) return MS_ESTATE;
    if ((rc = ms__metrics_prepare(&S->stepper))) return rc;
    if (k != m->nsheets || ks != m->nsolids) return MS_ESTATE;
  }
  size_t bytes = (size_t)(n * (k ? k : 1)) * sizeof *m->side;
  size_t per_sys = S->nsys * sizeof(size_t);
  int (*f)(void *, void *, size_t) =
      w ? (int (*)(void *, void *, size_t))io_write : io_read;
  if ((rc = f(io, m->counts, per_sys)) || (rc = f(io, m->offsets, per_sys)) ||
      (rc = f(io, m->side, bytes)))
    return rc;
  if (ks && (rc = f(io, m->pass, (size_t)(n * ks) * sizeof *m->pass)))
    return rc;
  if (!w) ms__metrics_count_passed(m);
  return MS_OK;
}

static int sim_io(struct io *io, struct ms_sim *S, int w) {
  int (*f)(void *, void *, size_t) =
      w ? (int (*)(void *, void *, size_t))io_write : io_read;
  uint32_t nph = MS__PH_COUNT;
  int rc;
  if ((rc = f(io, &S->stepper.time, sizeof S->stepper.time)) ||
      (rc = f(io, &S->stepper.step, sizeof S->stepper.step)) ||
      (rc = f(io, &S->frame, sizeof S->frame)) ||
      (rc = counts_io(io, &S->stepper.frame_counts, w)) ||
      (rc = counts_io(io, &S->run_counts, w)) ||
      (rc = f(io, &nph, sizeof nph)))
    return rc;
  if (nph != MS__PH_COUNT) return MS_ESTATE;
  return f(io, S->stepper.phase, sizeof S->stepper.phase);
}

static int stats_io(struct io *io, struct ms_ctx *c, int w) {
  uint32_t n = (uint32_t)c->nstats;
  int rc = w ? PUT(io, n) : GET(io, n);
  if (rc) return rc;
  if (!w && n > c->cap_stats) {
    if (n > 4096) return MS_ESTATE;
    void *p = realloc(c->stats, n * sizeof *c->stats);
    if (!p) return MS_ENOMEM;
    c->stats = p;
    c->cap_stats = n;
  }
  c->nstats = n;
  for (uint32_t k = 0; !rc && k < n; k++) {
    struct ms__stat *s = &c->stats[k];
    rc = w ? io_write(io, s->name, sizeof s->name)
           : io_read(io, s->name, sizeof s->name);
    if (!rc) rc = w ? PUT(io, s->value) : GET(io, s->value);
    s->name[sizeof s->name - 1] = '\0';
  }
  return rc;
}

static int plugin_fail(const struct ms_sim *S, uint32_t i, int rc,
                       const char *what, struct ms__err *err) {
  const struct ms__system *y = &S->sys[i];
  return ms__errf(err, rc, "system '%s' (solver '%s'): %s: %s", y->desc->name,
                  y->plugin->desc.id, what,
                  y->ctx.err.msg[0] ? y->ctx.err.msg : ms_strerror(rc));
}

static int write_system(struct io *io, struct ms_sim *S, uint32_t i,
                        struct ms__err *err) {
  struct ms__system *y = &S->sys[i];
  int rc;
  if ((rc = put_str(io, y->desc->name)) ||
      (rc = put_str(io, y->plugin->desc.id)) ||
      (rc = put_str(io, y->plugin->desc.version ? y->plugin->desc.version
                                                : "")) ||
      (rc = io_write(io, y->ctx.rng.s, sizeof y->ctx.rng.s)) ||
      (rc = stats_io(io, &y->ctx, 1)))
    return rc;
  struct ms_stream st = {io, io_write, io_read};
  uint64_t before = io->bytes;
  ms__err_clear(&y->ctx.err);
  if ((rc = ms__system_refresh(y, err))) return rc;
  if ((rc = MS__CALL(y, save, y->inst, &st)))
    return io->io_errno ? rc : plugin_fail(S, i, rc, "save() failed", err);
  uint64_t len = io->bytes - before;
  return PUT(io, len);
}

/* ---- writing --------------------------------------------------------- */

static int write_body(struct io *io, struct ms_sim *S, struct ms__err *err) {
  struct ms_stream st = {io, io_write, io_read};
  int rc = sim_io(io, S, 1);
  for (uint32_t i = 0; !rc && i < S->nsys; i++)
    rc = write_system(io, S, i, err);
  if (!rc) rc = metrics_io(io, S, 1);
  if (rc) return rc;
  uint32_t none = 0;
  return S->out ? ms__output_save(S->out, &st) : PUT(io, none);
}

int ms__checkpoint_write(struct ms_sim *S, const char *path,
                         struct ms__err *err) {
  struct header h;
  int rc = ms__checkpoint_supported(S, "cannot write a checkpoint", err);
  if (rc) return rc;
  ms__memset(&h, 0, sizeof h);
  ms__memcpy(h.magic, magic, sizeof magic);
  h.version = MS__CKPT_VERSION;
  h.abi_major = MS_ABI_MAJOR;
  h.abi_minor = MS_ABI_MINOR;
  h.nsys = S->nsys;
  h.threads = (uint32_t)S->threads;
  if ((rc = scene_hash(&S->scene, &h.scene_hash, err))) return rc;
  struct ms__afile a;
  if ((rc = ms__afile_open(&a, path, err))) return rc;
  struct io io = {a.f, {0}, 0, 0};
  ms__hash_init(&io.h);
  err->status = MS_OK;
  if (fwrite(&h, sizeof h, 1, a.f) != 1) io.io_errno = errno ? errno : EIO;
  if (!io.io_errno) rc = write_body(&io, S, err);
  if (!rc && !io.io_errno) {
    h.length = sizeof h + io.bytes;
    h.body_hash = ms__hash_final(&io.h);
    h.header_hash = ms__hash64(&h, offsetof(struct header, header_hash));
    if (fseek(a.f, 0, SEEK_SET) || fwrite(&h, sizeof h, 1, a.f) != 1)
      io.io_errno = errno ? errno : EIO;
  }
  if (rc || io.io_errno) {
    ms__afile_abort(&a);
    if (io.io_errno)
      return ms__errf(err, MS_EIO, "%s: cannot write the checkpoint: %s",
                      path, strerror(io.io_errno));
    return err->status ? err->status
                       : ms__errf(err, rc, "%s: %s", path, ms_strerror(rc));
  }
  return ms__afile_commit(&a, MS__AFILE_SYNC, err);
}

/* ---- reading --------------------------------------------------------- */

/* "checkpoint PATH: REASON" */
static int refuse(struct ms__err *err, const char *path, int status,
                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int refuse(struct ms__err *err, const char *path, int status,
                  const char *fmt, ...) {
  char msg[700];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return ms__errf(err, status, "checkpoint %s: %s", path, msg);
}

/* Header and checksums; leaves the file positioned at the body. */
static int verify(FILE *f, const char *path, const struct ms_sim *S,
                  struct header *h, struct ms__err *err) {
  struct stat st;
  if (fstat(fileno(f), &st))
    return refuse(err, path, MS_EIO, "cannot read: %s", strerror(errno));
  uint64_t size = (uint64_t)st.st_size;
  if (fread(h, sizeof *h, 1, f) != 1)
    return refuse(err, path, MS_ESTATE, "truncated: %llu bytes, shorter "
                  "than the %zu-byte header", (unsigned long long)size,
                  sizeof *h);
  if (memcmp(h->magic, magic, sizeof magic))
    return refuse(err, path, MS_ESTATE, "not a mergesplit checkpoint (bad "
                  "magic number)");
  if (h->header_hash != ms__hash64(h, offsetof(struct header, header_hash)))
    return refuse(err, path, MS_ESTATE, "damaged: the header's checksum "
                  "does not match");
  if (h->version != MS__CKPT_VERSION)
    return refuse(err, path, MS_ESTATE, "format version %u; this mergesplit "
                  "reads version %u", h->version, MS__CKPT_VERSION);
  if (size < h->length)
    return refuse(err, path, MS_ESTATE, "truncated: %llu of %llu bytes",
                  (unsigned long long)size, (unsigned long long)h->length);
  if (size > h->length)
    return refuse(err, path, MS_ESTATE, "damaged: %llu bytes, the header "
                  "says %llu", (unsigned long long)size,
                  (unsigned long long)h->length);
  struct ms__hash hs;
  char buf[1 << 16];
  size_t n;
  ms__hash_init(&hs);
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) ms__hash_update(&hs, buf, n);
  if (ferror(f))
    return refuse(err, path, MS_EIO, "cannot read: %s", strerror(errno));
  if (ms__hash_final(&hs) != h->body_hash)
    return refuse(err, path, MS_ESTATE, "damaged: the checksum of its "
                  "contents does not match");
  if (h->abi_major != MS_ABI_MAJOR)
    return refuse(err, path, MS_ESTATE, "written with plugin ABI %u.%u; "
                  "this mergesplit implements %d.%d", h->abi_major,
                  h->abi_minor, MS_ABI_MAJOR, MS_ABI_MINOR);
  uint64_t sh;
  int rc = scene_hash(&S->scene, &sh, err);
  if (rc) return rc;
  if (sh != h->scene_hash)
    return refuse(err, path, MS_ESTATE, "written for another scene: %s "
                  "%sdiffers from the scene it was made from",
                  S->scene.path, S->scene.noverrides ? "with its --set "
                  "overrides " : "");
  if (h->nsys != S->nsys)
    return refuse(err, path, MS_ESTATE, "holds %u systems, the scene %u",
                  h->nsys, S->nsys);
  if (fseek(f, sizeof *h, SEEK_SET))
    return refuse(err, path, MS_EIO, "cannot read: %s", strerror(errno));
  return MS_OK;
}

static int read_system(struct io *io, struct ms_sim *S, uint32_t i,
                       const char *path, struct ms__err *err) {
  struct ms__system *y = &S->sys[i];
  char name[256], id[256], ver[256];
  int rc;
  if ((rc = get_str(io, name, sizeof name)) ||
      (rc = get_str(io, id, sizeof id)) || (rc = get_str(io, ver, sizeof ver)))
    return refuse(err, path, rc, "damaged system record %u", i);
  const char *myver = y->plugin->desc.version ? y->plugin->desc.version : "";
  if (strcmp(name, y->desc->name) || strcmp(id, y->plugin->desc.id))
    return refuse(err, path, MS_ESTATE, "system %u is '%s' (solver '%s'), "
                  "the scene's is '%s' (solver '%s')", i, name, id,
                  y->desc->name, y->plugin->desc.id);
  if (strcmp(ver, myver))
    return refuse(err, path, MS_ESTATE, "system '%s' was saved by solver "
                  "'%s' version %s; this run loads version %s (%s)", name, id,
                  ver, myver, y->plugin->path);
  if ((rc = io_read(io, y->ctx.rng.s, sizeof y->ctx.rng.s)) ||
      (rc = stats_io(io, &y->ctx, 0)))
    return refuse(err, path, rc, "damaged system record '%s'", name);
  struct ms_stream st = {io, io_write, io_read};
  uint64_t before = io->bytes, len;
  ms__err_clear(&y->ctx.err);
  if ((rc = MS__CALL(y, load, y->inst, &st))) {
    plugin_fail(S, i, rc, "load() failed", err);
    ms__err_prefix(err, "checkpoint %s", path);
    return rc;
  }
  uint64_t used = io->bytes - before;
  if ((rc = GET(io, len)) || len != used)
    return refuse(err, path, MS_ESTATE, "system '%s': solver '%s' read %llu "
                  "bytes of its saved state, which holds %llu", name, id,
                  (unsigned long long)used, (unsigned long long)len);
  if ((rc = ms__system_view(&S->sys[i], &S->err))) {
    *err = S->err;
    return rc;
  }
  return MS_OK;
}

static int read_body(struct io *io, struct ms_sim *S, const char *path,
                     struct ms__err *err) {
  int rc = sim_io(io, S, 0);
  if (rc) return refuse(err, path, rc, "damaged run state");
  for (uint32_t i = 0; i < S->nsys; i++)
    if ((rc = read_system(io, S, i, path, err))) return rc;
  size_t total = 0;
  for (uint32_t i = 0; i < S->nsys; i++) {
    S->sys[i].offset = total;
    total += S->sys[i].view.count;
  }
  S->stepper.ntotal = total;
  if ((rc = metrics_io(io, S, 0)))
    return refuse(err, path, rc, "damaged metrics state");
  struct ms_stream st = {io, io_write, io_read};
  struct ms__err e2 = {0};
  if ((rc = ms__output_load(S->out, &st, &e2)))
    return refuse(err, path, rc, "output series: %s",
                  e2.msg[0] ? e2.msg : ms_strerror(rc));
  char extra;
  if (fread(&extra, 1, 1, io->f) == 1)
    return refuse(err, path, MS_ESTATE, "damaged: data after the end");
  return MS_OK;
}

int ms__checkpoint_read(struct ms_sim *S, const char *path,
                        struct ms__err *err) {
  struct header h;
  int rc = ms__checkpoint_supported(S, "cannot resume", err);
  if (rc) return rc;
  FILE *f = fopen(path, "rb");
  if (!f)
    return refuse(err, path, MS_EIO, "cannot open: %s", strerror(errno));
  rc = verify(f, path, S, &h, err);
  struct io io = {f, {0}, 0, 0};
  if (!rc) rc = read_body(&io, S, path, err);
  fclose(f);
  if (!rc && h.threads != (uint32_t)S->threads)
    ms__log(S, MS_SINK_WARN, "checkpoint %s was written by a run with %u "
            "threads, this one uses %d: the result may differ bitwise from "
            "an uninterrupted run", path, h.threads, S->threads);
  return rc;
}
