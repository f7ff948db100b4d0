/* Frame output.  Per frame and system one file in each format the scene
 * names (the table of writers below: a VTK XML PolyData file, .vtp, and a
 * binary PLY file), every field of the view plus the core's "system"
 * (system index) and "meta" (meta-particle of the last step, -1 if none);
 * for the format that keeps a series, a .pvd collection per system and
 * scene.pvd for the whole scene.  Every file is written atomically, by a
 * file_writer. */
#ifndef MS_CORE_OUTPUT_H
#define MS_CORE_OUTPUT_H

#include <stdint.h>

#include <mergesplit/plugin.h>
#include <mergesplit/view.h>

#include "error.h"

struct ms__output;

/* formats: a mask of the table's rows (ms__format_bit); io: MS__FW_*
 * flags of the file writer (file_writer.h). */
int ms__output_open(struct ms__output **out, const char *dir,
                    unsigned formats, unsigned io, uint32_t nsys,
                    const char *const *names, struct ms__err *err);
/* Frame `frame` (time t) of every system from its view.  meta: NULL, or
 * per system NULL or view.count meta-particle ids.  The views are read
 * before this returns; the files may still be on their way to disk (with
 * MS__FW_BACKGROUND) until the next frame or ms__output_flush, which
 * return any failure to write them. */
int ms__output_frame(struct ms__output *o, int64_t frame, double t,
                     const struct ms_view *views,
                     const int32_t *const *meta, struct ms__err *err);
/* Every frame's files in place (o may be NULL). */
int ms__output_flush(struct ms__output *o, struct ms__err *err);
/* Seconds the files took to write, on whichever thread. */
double ms__output_seconds(struct ms__output *o);
const char *ms__output_dir(const struct ms__output *o);
/* The series written so far (checkpoints carry them). */
int ms__output_save(const struct ms__output *o, const struct ms_stream *s);
int ms__output_load(struct ms__output *o, const struct ms_stream *s,
                    struct ms__err *err);
void ms__output_close(struct ms__output *o);

/* A frame file laid out: its header text and its size in bytes.  The
 * writers fill a buffer of that size (ms__vtp_fill, ms__ply_fill) in
 * parallel; the frame output hands it to a file_writer. */
struct ms__layout {
  char *header; /* owned */
  size_t header_len, size;
  const struct ms_field *pos; /* the view's "position" */
  size_t row;                 /* PLY: bytes per vertex */
  int wide;                   /* VTP: 64-bit cell indices */
};
void ms__layout_free(struct ms__layout *L);

/* Which file a writer lays out: system `system` (index in the scene) at
 * frame `frame`, time t. */
struct ms__frame_id {
  const char *system;
  uint32_t index;
  int64_t frame;
  double t;
};

/* A frame format.  layout() sizes the file of one view and writes its
 * header text (path names the file in messages only); fill() writes the
 * whole file into a buffer of L->size bytes, splitting the rows among
 * threads itself.  A format is one file defining its row, ms__writer_NAME,
 * and one row of the table in writers.c. */
struct ms__writer {
  const char *name; /* what output.format calls it */
  const char *ext;  /* the files' extension: SYSTEM_FRAME.EXT */
  int series;       /* listed in the .pvd collections (one format at most) */
  int (*layout)(struct ms__layout *L, const struct ms_view *v,
                const struct ms__frame_id *id, const char *path,
                struct ms__err *err);
  void (*fill)(const struct ms__layout *L, const struct ms_view *v,
               char *buf);
};

/* The table (writers.c), NULL-terminated; row k is bit 1u << k of a mask
 * of formats, and row 0 is the default. */
extern const struct ms__writer *const ms__writers[];
/* The bit of the format named `name`; 0 if the table has none. */
unsigned ms__format_bit(const char *name);
/* The table's names for messages, "\"vtp\", \"ply\"", into buf. */
const char *ms__format_names(char *buf, size_t len);

/* The writers' layouts with their own arguments (tests, tools). */
int ms__vtp_layout(struct ms__layout *L, const struct ms_view *v, double t,
                   const char *path, struct ms__err *err);
void ms__vtp_fill(const struct ms__layout *L, const struct ms_view *v,
                  char *buf);
int ms__ply_layout(struct ms__layout *L, const struct ms_view *v,
                   const char *comment, const char *path,
                   struct ms__err *err);
void ms__ply_fill(const struct ms__layout *L, const struct ms_view *v,
                  char *buf);

/* One view to one file, on this thread (tests, tools). */
int ms__vtp_write(const char *path, const struct ms_view *v, double t,
                  struct ms__err *err);
int ms__ply_write(const char *path, const struct ms_view *v,
                  const char *comment, struct ms__err *err);
int ms__write_one(const char *path, const struct ms__layout *L,
                  const struct ms_view *v,
                  void (*fill)(const struct ms__layout *,
                               const struct ms_view *, char *),
                  struct ms__err *err);

/* Rows [i0, i0 + m) of field fd to dst, rows dst_stride bytes apart (0:
 * packed).  Serial: callers split the rows among threads. */
void ms__copy_field(char *dst, const struct ms_field *fd, size_t i0,
                    size_t m, size_t dst_stride);
#define MS__PAR_MIN_FILL 65536 /* particles: below, a file is filled by one thread */
#define MS__PAR_ROWS 16384 /* rows per share of the work */

static inline size_t ms__type_size(uint32_t t) {
  switch (t) {
  case MS_TYPE_F64:
  case MS_TYPE_I64: return 8;
  case MS_TYPE_F32:
  case MS_TYPE_I32:
  case MS_TYPE_U32: return 4;
  case MS_TYPE_U8: return 1;
  }
  return 0;
}

static inline int ms__little_endian(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}

#endif
