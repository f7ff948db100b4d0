/* Checkpoints: the whole state of a run in one file, so `run --resume`
 * continues bit-identically (same thread count).
 *
 * Layout (little-endian on the machines we build for; native order):
 *   header, 64 bytes: magic "MSCKPT\r\n", format version (u32), plugin ABI
 *     major/minor (u16 each), hash of the scene file's bytes, total file
 *     length, hash of the body, number of systems, thread count, 8 reserved
 *     bytes, hash of the preceding 56 header bytes;
 *   body: time, step, frame, the frame's and the run's counters, phase
 *     timings; per system its name, solver id and version, host RNG
 *     state, the frame's plugin statistics, the plugin's save() stream and
 *     that stream's length; the penetration metrics' state (particles,
 *     sheets, per system the count and offset it was tracked at, the
 *     sides); the output series.
 * Written to a temporary file, fsync'ed and renamed into place. */
#ifndef MS_CORE_CHECKPOINT_H
#define MS_CORE_CHECKPOINT_H

#include "error.h"

struct ms_sim;

#define MS__CKPT_VERSION 7u

/* MS_OK when every system's plugin provides save() and load(); otherwise
 * MS_ENOTSUP with a line naming the first that does not. */
int ms__checkpoint_supported(const struct ms_sim *S, const char *why,
                             struct ms__err *err);
int ms__checkpoint_write(struct ms_sim *S, const char *path,
                         struct ms__err *err);
/* Restore a run opened from the same scene (systems freshly created). */
int ms__checkpoint_read(struct ms_sim *S, const char *path,
                        struct ms__err *err);

#endif
