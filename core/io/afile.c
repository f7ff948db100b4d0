/* Temporary file + rename. */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <mergesplit/status.h>

#define AFILE_BUFSZ (1u << 20)

static void release(struct ms__afile *a) {
  free(a->path);
  free(a->tmp);
  free(a->buf);
  ms__memset(a, 0, sizeof *a);
}

/* 64 unpredictable bits: the kernel's, or (no entropy yet) the clock's
 * and a counter's, still unique within the process. */
static uint64_t random_bits(void) {
  static _Atomic uint64_t counter;
  uint64_t r;
  if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r) return r;
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return ((uint64_t)t.tv_nsec << 20) ^ (uint64_t)t.tv_sec ^
         ((uint64_t)getpid() << 40) ^ ++counter * 0x9e3779b97f4a7c15u;
}

int ms__afile_create_tmp(const char *path, int flags, char **tmp) {
  size_t n = strlen(path) + 32;
  if (!(*tmp = malloc(n))) return errno = ENOMEM, -1;
  /* An unpredictable name created only if absent, never through a link:
   * nobody can have a run write where a symbolic link points. */
  for (int tries = 0; tries < 100; tries++) {
    snprintf(*tmp, n, "%s.tmp%016llx", path,
             (unsigned long long)random_bits());
    int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                            O_CLOEXEC | flags, 0666);
    if (fd >= 0 || errno != EEXIST) {
      if (fd < 0) free(*tmp), *tmp = NULL;
      return fd;
    }
  }
  free(*tmp), *tmp = NULL;
  return errno = EEXIST, -1;
}

int ms__lock_dir(const char *dir, int *fd_out, struct ms__err *err) {
  size_t n = strlen(dir) + 32;
  char *path = malloc(n);
  if (!path) return ms__errf(err, MS_ENOMEM, "out of memory");
  snprintf(path, n, "%s/%s", dir, MS__LOCK_NAME);
  int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
  int e = errno;
  if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB)) {
    e = errno;
    close(fd);
    fd = -1;
    if (e == EWOULDBLOCK) {
      ms__errf(err, MS_EIO, "%s: another run is writing into this "
               "directory (it holds %s); wait for it to end or choose "
               "another output directory", dir, path);
      free(path);
      return MS_EIO;
    }
  }
  if (fd < 0) {
    ms__errf(err, MS_EIO, "%s: cannot lock the output directory: %s", path,
             strerror(e));
    free(path);
    return MS_EIO;
  }
  free(path);
  *fd_out = fd;
  return MS_OK;
}

int ms__afile_place(const char *tmp, const char *path, int drop_old) {
  if (drop_old && unlink(path) && errno != ENOENT) return -1;
  return rename(tmp, path);
}

int ms__afile_open(struct ms__afile *a, const char *path,
                   struct ms__err *err) {
  ms__memset(a, 0, sizeof *a);
  a->path = strdup(path);
  a->buf = malloc(AFILE_BUFSZ);
  if (!a->path || !a->buf) {
    release(a);
    return ms__errf(err, MS_ENOMEM, "out of memory");
  }
  int fd = ms__afile_create_tmp(path, 0, &a->tmp);
  if (fd >= 0 && !(a->f = fdopen(fd, "wb"))) close(fd);
  if (!a->f) {
    int e = errno;
    if (a->tmp) remove(a->tmp);
    release(a);
    return ms__errf(err, MS_EIO, "%s: cannot create: %s", path, strerror(e));
  }
  setvbuf(a->f, a->buf, _IOFBF, AFILE_BUFSZ);
  return MS_OK;
}

static int sync_dir(const char *path) {
  char *d = strdup(path);
  if (!d) return -1;
  char *slash = strrchr(d, '/');
  if (slash == d) slash[1] = '\0';
  else if (slash) *slash = '\0';
  else strcpy(d, ".");
  int fd = open(d, O_RDONLY | O_DIRECTORY);
  free(d);
  if (fd < 0) return -1;
  int rc = fsync(fd);
  close(fd);
  return rc;
}

int ms__afile_commit(struct ms__afile *a, unsigned flags,
                     struct ms__err *err) {
  int sync = flags & MS__AFILE_SYNC;
  int bad = fflush(a->f) != 0 || ferror(a->f);
  int e = errno;
  if (!bad && sync && fsync(fileno(a->f))) bad = 1, e = errno;
  if (fclose(a->f) && !bad) bad = 1, e = errno;
  a->f = NULL;
  if (!bad && ms__afile_place(a->tmp, a->path, flags & MS__AFILE_DROP_OLD))
    bad = 1, e = errno;
  if (bad) {
    remove(a->tmp);
    ms__errf(err, MS_EIO, "%s: cannot write: %s", a->path,
             e ? strerror(e) : "write error");
    release(a);
    return MS_EIO;
  }
  if (sync) sync_dir(a->path); /* best effort: the file itself is safe */
  release(a);
  return MS_OK;
}

void ms__afile_abort(struct ms__afile *a) {
  if (a->f) fclose(a->f);
  if (a->tmp) remove(a->tmp);
  release(a);
}

int ms__make_dirs(const char *dir) {
  char *buf = strdup(dir);
  if (!buf) return -1;
  size_t n = strlen(buf);
  for (size_t i = 1; i <= n; i++) {
    if (buf[i] != '/' && buf[i] != '\0') continue;
    char c = buf[i];
    buf[i] = '\0';
    if (mkdir(buf, 0777) && errno != EEXIST) {
      free(buf);
      return -1;
    }
    buf[i] = c;
  }
  free(buf);
  struct stat st;
  if (stat(dir, &st)) return -1;
  if (!S_ISDIR(st.st_mode)) return errno = ENOTDIR, -1;
  return 0;
}
