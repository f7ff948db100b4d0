/* Frame output.  Per frame and system: a VTK XML PolyData file (.vtp,
 * appended raw binary) and/or a binary PLY file, every field of the view
 * plus the core's "system" (system index) and "meta" (meta-particle of the
 * last step, -1 if none); a .pvd series per system and scene.pvd for the
 * whole scene.  Every file is written atomically (afile.h). */
#ifndef MS_CORE_OUTPUT_H
#define MS_CORE_OUTPUT_H

#include <stdint.h>

#include <mergesplit/plugin.h>
#include <mergesplit/view.h>

#include "error.h"

enum ms__format { MS__FMT_VTP = 1u << 0, MS__FMT_PLY = 1u << 1 };

struct ms__output;

int ms__output_open(struct ms__output **out, const char *dir,
                    unsigned formats, uint32_t nsys,
                    const char *const *names, struct ms__err *err);
/* Write frame `frame` (time t) of every system from its view.  meta: NULL,
 * or per system NULL or view.count meta-particle ids. */
int ms__output_frame(struct ms__output *o, int64_t frame, double t,
                     const struct ms_view *views,
                     const int32_t *const *meta, struct ms__err *err);
const char *ms__output_dir(const struct ms__output *o);
/* The series written so far (checkpoints carry them). */
int ms__output_save(const struct ms__output *o, const struct ms_stream *s);
int ms__output_load(struct ms__output *o, const struct ms_stream *s,
                    struct ms__err *err);
void ms__output_close(struct ms__output *o);

/* Buffers the VTP writer keeps from frame to frame (strided fields packed,
 * the vertex cells' indices); zero-initialise. */
struct ms__vtp_scratch {
  char *pack, *cells;
  size_t cap, cells_cap, cells_n;
  int cells_wide;
};
void ms__vtp_scratch_free(struct ms__vtp_scratch *s);

/* The writers: one view (fields as given; "position" required).  scratch:
 * NULL, or buffers reused across calls (borrowed). */
int ms__vtp_write(const char *path, const struct ms_view *v, double t,
                  struct ms__vtp_scratch *scratch, struct ms__err *err);
int ms__ply_write(const char *path, const struct ms_view *v,
                  const char *comment, struct ms__err *err);

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
