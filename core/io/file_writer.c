/* Background, direct-I/O, atomic file writes (see io.h). */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mergesplit/status.h>

#include "../base/base.h"

#define DIRECT_MIN (1u << 20) /* smaller files: not worth the alignment */
#define CHUNK ((size_t)1 << 30) /* bytes per write call (a multiple of ALIGN) */

struct entry {
  uint32_t slot;
  size_t size;
  char *path;
};

struct slot {
  char *buf;
  size_t cap;
};

struct ms__file_writer {
  unsigned flags;
  struct slot *slots;
  uint32_t nslots;
  struct entry *batch, *flight; /* being added to; being written */
  size_t nbatch, nflight, cap_batch, cap_flight;
  pthread_t thread;
  int started, busy, quit;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  struct ms__err err; /* the flight's first failure */
  double seconds;
};

static size_t round_up(size_t n) {
  return (n + MS__FW_ALIGN - 1) / MS__FW_ALIGN * MS__FW_ALIGN;
}

/* write() until n bytes are out; on EINVAL from a direct write, go on
 * without direct I/O (the file system or the device refuses it). */
static int write_all(int fd, const char *p, size_t n, int *direct) {
  size_t off = 0;
  while (off < n) {
    size_t m = n - off < CHUNK ? n - off : CHUNK;
    ssize_t got = write(fd, p + off, m);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && errno == EINVAL && *direct) {
      int fl = fcntl(fd, F_GETFL);
      if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_DIRECT) < 0) return -1;
      *direct = 0;
      continue;
    }
    if (got <= 0) {
      if (got == 0) errno = EIO;
      return -1;
    }
    off += (size_t)got;
  }
  return 0;
}

static int open_tmp(const char *path, int *direct, char **tmp) {
  int fd = *direct ? ms__afile_create_tmp(path, O_DIRECT, tmp) : -1;
  if (fd < 0 && *direct) *direct = 0; /* EINVAL: no direct I/O here */
  return fd >= 0 ? fd : ms__afile_create_tmp(path, 0, tmp);
}

int ms__fw_write_file(const char *path, const char *buf, size_t size,
                      int direct, struct ms__err *err) {
  char *tmp = NULL;
  direct = direct && size >= DIRECT_MIN &&
           (uintptr_t)buf % MS__FW_ALIGN == 0;
  int fd = open_tmp(path, &direct, &tmp);
  if (fd < 0)
    return ms__errf(err, MS_EIO, "%s: cannot create: %s", path,
                    strerror(errno));
  /* Direct I/O writes whole blocks: the padding is cut off after. */
  size_t len = direct ? round_up(size) : size;
  if (direct) ms__memset((char *)buf + size, 0, len - size);
  int bad = write_all(fd, buf, len, &direct);
  if (!bad && len != size) bad = ftruncate(fd, (off_t)size);
  int e = errno;
  if (close(fd) && !bad) bad = 1, e = errno;
  /* A big file written through the page cache: see MS__AFILE_DROP_OLD. */
  if (!bad && ms__afile_place(tmp, path, !direct && size >= DIRECT_MIN))
    bad = 1, e = errno;
  if (bad) remove(tmp);
  free(tmp);
  if (bad) return ms__errf(err, MS_EIO, "%s: cannot write: %s", path,
                           strerror(e));
  return MS_OK;
}

/* The flight's files, in order, until one fails. */
static void write_flight(struct ms__file_writer *w) {
  double t0 = ms__now();
  struct ms__err e = {0};
  for (size_t k = 0; k < w->nflight; k++) {
    const struct entry *f = &w->flight[k];
    if (ms__fw_write_file(f->path, w->slots[f->slot].buf, f->size,
                          (w->flags & MS__FW_DIRECT) != 0, &e))
      break;
  }
  pthread_mutex_lock(&w->mu);
  if (e.status && !w->err.status) w->err = e;
  w->seconds += ms__now() - t0;
  pthread_mutex_unlock(&w->mu);
}

static void *thread_main(void *arg) {
  struct ms__file_writer *w = arg;
  pthread_mutex_lock(&w->mu);
  for (;;) {
    while (!w->busy && !w->quit) pthread_cond_wait(&w->cv, &w->mu);
    if (!w->busy) break;
    pthread_mutex_unlock(&w->mu);
    write_flight(w);
    pthread_mutex_lock(&w->mu);
    w->busy = 0;
    pthread_cond_broadcast(&w->cv);
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

int ms__fw_open(struct ms__file_writer **out, unsigned flags,
                struct ms__err *err) {
  struct ms__file_writer *w = calloc(1, sizeof *w);
  *out = NULL;
  if (!w) return ms__errf(err, MS_ENOMEM, "out of memory");
  w->flags = flags;
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, NULL);
  *out = w;
  return MS_OK;
}

static void clear_flight(struct ms__file_writer *w) {
  for (size_t k = 0; k < w->nflight; k++) free(w->flight[k].path);
  w->nflight = 0;
}

int ms__fw_wait(struct ms__file_writer *w, struct ms__err *err) {
  pthread_mutex_lock(&w->mu);
  while (w->busy) pthread_cond_wait(&w->cv, &w->mu);
  struct ms__err e = w->err;
  ms__err_clear(&w->err);
  pthread_mutex_unlock(&w->mu);
  clear_flight(w);
  if (e.status) {
    *err = e;
    return e.status;
  }
  return MS_OK;
}

char *ms__fw_buffer(struct ms__file_writer *w, uint32_t slot, size_t size,
                    struct ms__err *err) {
  if (ms__fw_wait(w, err)) return NULL;
  if (slot >= w->nslots) {
    if (ms__grow((void **)&w->slots, (size_t)slot + 1, sizeof *w->slots)) {
      ms__errf(err, MS_ENOMEM, "out of memory");
      return NULL;
    }
    ms__memset(w->slots + w->nslots, 0,
           (slot + 1 - w->nslots) * sizeof *w->slots);
    w->nslots = slot + 1;
  }
  struct slot *s = &w->slots[slot];
  size_t need = round_up(size ? size : 1);
  if (need > s->cap) { /* contents need not survive: no copy */
    void *p = NULL;
    free(s->buf);
    s->buf = NULL, s->cap = 0;
    if (posix_memalign(&p, MS__FW_ALIGN, need)) {
      ms__errf(err, MS_ENOMEM, "out of memory (%zu bytes for a frame file)",
               need);
      return NULL;
    }
    s->buf = p, s->cap = need;
  }
  return s->buf;
}

int ms__fw_add(struct ms__file_writer *w, uint32_t slot, size_t size,
               const char *path, struct ms__err *err) {
  if (slot >= w->nslots || round_up(size ? size : 1) > w->slots[slot].cap)
    return ms__errf(err, MS_EINVAL, "%s: no buffer of %zu bytes", path, size);
  if (w->nbatch == w->cap_batch) {
    size_t c = w->cap_batch ? 2 * w->cap_batch : 8;
    if (ms__grow((void **)&w->batch, c, sizeof *w->batch))
      return ms__errf(err, MS_ENOMEM, "out of memory");
    w->cap_batch = c;
  }
  char *p = strdup(path);
  if (!p) return ms__errf(err, MS_ENOMEM, "out of memory");
  w->batch[w->nbatch++] = (struct entry){slot, size, p};
  return MS_OK;
}

void ms__fw_drop(struct ms__file_writer *w) {
  for (size_t k = 0; k < w->nbatch; k++) free(w->batch[k].path);
  w->nbatch = 0;
}

int ms__fw_commit(struct ms__file_writer *w, struct ms__err *err) {
  int rc = ms__fw_wait(w, err);
  if (rc) return rc;
  struct entry *t = w->flight; /* the batch takes off; its array is kept */
  size_t c = w->cap_flight;
  w->flight = w->batch, w->nflight = w->nbatch, w->cap_flight = w->cap_batch;
  w->batch = t, w->nbatch = 0, w->cap_batch = c;
  if (!(w->flags & MS__FW_BACKGROUND)) {
    write_flight(w);
    return ms__fw_wait(w, err);
  }
  if (!w->started) {
    if (pthread_create(&w->thread, NULL, thread_main, w)) {
      write_flight(w); /* no thread: write here */
      return ms__fw_wait(w, err);
    }
    w->started = 1;
  }
  pthread_mutex_lock(&w->mu);
  w->busy = 1;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
  return MS_OK;
}

double ms__fw_seconds(struct ms__file_writer *w) {
  pthread_mutex_lock(&w->mu);
  double s = w->seconds;
  pthread_mutex_unlock(&w->mu);
  return s;
}

void ms__fw_close(struct ms__file_writer *w) {
  if (!w) return;
  struct ms__err ignored;
  ms__fw_wait(w, &ignored);
  if (w->started) {
    pthread_mutex_lock(&w->mu);
    w->quit = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
  }
  ms__fw_drop(w);
  for (uint32_t k = 0; k < w->nslots; k++) free(w->slots[k].buf);
  free(w->slots);
  free(w->batch);
  free(w->flight);
  pthread_mutex_destroy(&w->mu);
  pthread_cond_destroy(&w->cv);
  free(w);
}
