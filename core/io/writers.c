/* The table of frame formats (io.h, struct ms__writer): one row per
 * format, in the order a frame's files are written; the first is the
 * default.  A format is its own file, defining ms__writer_NAME, and a row
 * X(NAME) here.  A mask of formats is an unsigned: 32 rows at most. */
#include "io.h"

#define MS__WRITERS(X) X(vtp) X(ply) X(obj)

#define DECLARE(name) extern const struct ms__writer ms__writer_##name;
#define ROW(name) &ms__writer_##name,
MS__WRITERS(DECLARE)
const struct ms__writer *const ms__writers[] = {MS__WRITERS(ROW) NULL};
