/* Whole files written atomically (temporary name, then rename) from
 * buffers the writer owns, on a background thread: a run goes on stepping
 * while the disk takes the last frame.
 *
 * Big files go out with direct I/O (O_DIRECT) from buffers aligned for it:
 * no page cache is filled, so the cost is the device's, not a copy into
 * fresh kernel memory (which on a virtual machine can cost ten times the
 * copy).  Where the file system refuses direct I/O the writer falls back to
 * plain writes, silently: the bytes on disk are the same.
 *
 * Use, per batch (a frame's files):
 *   buf = ms__fw_buffer(w, slot, size) ... fill buf ...
 *   ms__fw_add(w, slot, size, path)          (as many files as needed)
 *   ms__fw_commit(w)                         (starts the writes)
 * and ms__fw_wait before anything must be on disk.  A slot's buffer is the
 * writer's from ms__fw_add until the batch is done; ms__fw_buffer waits
 * for that.  Files of a batch are written in the order added; the first
 * failure stops the batch and is returned by the next call. */
#ifndef MS_CORE_FILE_WRITER_H
#define MS_CORE_FILE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct ms__file_writer;

enum {
  MS__FW_BACKGROUND = 1, /* write on a thread of the writer's own */
  MS__FW_DIRECT = 2      /* direct I/O for big files, where allowed */
};

int ms__fw_open(struct ms__file_writer **w, unsigned flags,
                struct ms__err *err);
/* Slot's buffer with room for size bytes (contents undefined), once the
 * batch in flight is done; NULL on failure (err says why: out of memory,
 * or the last batch's error). */
char *ms__fw_buffer(struct ms__file_writer *w, uint32_t slot, size_t size,
                    struct ms__err *err);
/* Add the first size bytes of slot's buffer to the batch as file path
 * (copied). */
int ms__fw_add(struct ms__file_writer *w, uint32_t slot, size_t size,
               const char *path, struct ms__err *err);
/* Forget the files added since the last commit. */
void ms__fw_drop(struct ms__file_writer *w);
/* Write the batch: now, or in the background. */
int ms__fw_commit(struct ms__file_writer *w, struct ms__err *err);
/* Wait until every file committed is in place; the first error since the
 * last wait. */
int ms__fw_wait(struct ms__file_writer *w, struct ms__err *err);
/* Seconds spent writing files so far, on whichever thread. */
double ms__fw_seconds(struct ms__file_writer *w);
/* Wait (errors dropped: call ms__fw_wait first to see them), free. */
void ms__fw_close(struct ms__file_writer *w);

/* One file from one buffer, atomically, on this thread; direct I/O when
 * `direct` and buf is aligned to MS__FW_ALIGN with room for size rounded up
 * to it. */
#define MS__FW_ALIGN 4096
int ms__fw_write_file(const char *path, const char *buf, size_t size,
                      int direct, struct ms__err *err);

#endif
