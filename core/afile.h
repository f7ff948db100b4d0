/* Atomic files: written under a temporary name next to the final one and
 * renamed into place only when complete, so a complete name never holds a
 * half-written file, whatever happens to the process. */
#ifndef MS_CORE_AFILE_H
#define MS_CORE_AFILE_H

#include <stdio.h>

#include "error.h"

struct ms__afile {
  FILE *f;
  char *path, *tmp;
  char *buf; /* stdio buffer: large, so big frames cost few syscalls */
};

/* Create the temporary file for `path` (its directory must exist). */
int ms__afile_open(struct ms__afile *a, const char *path,
                   struct ms__err *err);
/* Flags of ms__afile_commit. */
enum {
  /* fsync file and directory: crash-safe against power loss too */
  MS__AFILE_SYNC = 1,
  /* Unlink a file already under the final name before the rename.  A
   * rename that replaces a file makes ext4 (auto_da_alloc) write the new
   * file's data back at once: 40-60 ms for a 100 MB frame.  Frames left by
   * an earlier run are stale anyway, and a crash in between leaves the name
   * absent, never half-written. */
  MS__AFILE_DROP_OLD = 2
};
/* Flush and rename into place, as `flags` say.  On failure the temporary
 * is removed.  Always releases `a`. */
int ms__afile_commit(struct ms__afile *a, unsigned flags,
                     struct ms__err *err);
/* Give up: remove the temporary file, release `a`. */
void ms__afile_abort(struct ms__afile *a);

/* The pieces, for writers of their own (file_writer.c): the temporary
 * name next to path (malloc'd, NULL when out of memory), and its rename
 * into place (0, or -1 with errno set), dropping an existing file first
 * when drop_old (see MS__AFILE_DROP_OLD). */
char *ms__afile_tmp_name(const char *path);
int ms__afile_place(const char *tmp, const char *path, int drop_old);

/* mkdir -p; 0 or -1 with errno set. */
int ms__make_dirs(const char *dir);

#endif
