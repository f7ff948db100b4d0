/* Temporary file + rename. */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mergesplit/status.h>

#define AFILE_BUFSZ (1u << 20)

static void release(struct ms__afile *a) {
  free(a->path);
  free(a->tmp);
  free(a->buf);
  memset(a, 0, sizeof *a);
}

char *ms__afile_tmp_name(const char *path) {
  size_t n = strlen(path) + 32;
  char *tmp = malloc(n);
  /* The pid keeps concurrent writers of one directory apart. */
  if (tmp) snprintf(tmp, n, "%s.tmp%ld", path, (long)getpid());
  return tmp;
}

int ms__afile_place(const char *tmp, const char *path, int drop_old) {
  if (drop_old && unlink(path) && errno != ENOENT) return -1;
  return rename(tmp, path);
}

int ms__afile_open(struct ms__afile *a, const char *path,
                   struct ms__err *err) {
  memset(a, 0, sizeof *a);
  a->path = strdup(path);
  a->tmp = ms__afile_tmp_name(path);
  a->buf = malloc(AFILE_BUFSZ);
  if (!a->path || !a->tmp || !a->buf) {
    release(a);
    return ms__errf(err, MS_ENOMEM, "out of memory");
  }
  a->f = fopen(a->tmp, "wb");
  if (!a->f) {
    int e = errno;
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
