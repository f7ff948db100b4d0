/* Input and output files: atomic files, the frame writer thread, the
 * frame formats (a table of writers, writers.c) and the VTP reader. */
#ifndef MS_CORE_IO_H
#define MS_CORE_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <mergesplit/plugin.h>
#include <mergesplit/view.h>

#include "../base/base.h"

/* ---- afile.c -------------------------------------------------------------*/
/* Atomic files: written under a temporary name next to the final one and
 * renamed into place only when complete, so a complete name never holds a
 * half-written file, whatever happens to the process. */
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

/* The pieces, for writers of their own (file_writer.c): create a
 * temporary file next to path under an unpredictable name, with
 * O_CREAT | O_EXCL | O_NOFOLLOW and the extra open(2) flags (a file
 * descriptor open for writing, *tmp its malloc'd name; or -1 with errno
 * set and *tmp NULL); and its rename into place (0, or -1 with errno
 * set), dropping an existing file first when drop_old (see
 * MS__AFILE_DROP_OLD). */
int ms__afile_create_tmp(const char *path, int flags, char **tmp);
int ms__afile_place(const char *tmp, const char *path, int drop_old);

/* One run per output directory: an exclusive flock(2) on
 * DIR/.mergesplit.lock, held until *fd is closed (or the process ends,
 * however it ends; the empty file stays).
 * MS_EIO with one line when another run holds it. */
#define MS__LOCK_NAME ".mergesplit.lock"
int ms__lock_dir(const char *dir, int *fd, struct ms__err *err);

/* mkdir -p; 0 or -1 with errno set. */
int ms__make_dirs(const char *dir);

/* ---- file_writer.c -------------------------------------------------------*/
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
struct ms__file_writer;

enum {
  MS__FW_BACKGROUND = 1, /* write on a thread of the writer's own */
  MS__FW_DIRECT = 2,     /* direct I/O for big files, where allowed */
  MS__OUT_ZLIB = 4       /* ms__output_open: .vtp arrays zlib-compressed */
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

/* Triangles joining a view's particles (plugin ABI 1.7 surface(), or a
 * fluid surface's mesh): 3 * n indices into the view. */
struct ms__tris {
  const uint32_t *idx;
  size_t n;
};

/* ---- output.c ------------------------------------------------------------*/
/* Frame output.  Per frame and system one file in each format the scene
 * names (the table of writers below: a VTK XML PolyData file, .vtp, and a
 * binary PLY file), every field of the view plus the core's "system"
 * (system index) and "meta" (meta-particle of the last step, -1 if none);
 * for the format that keeps a series, a .pvd collection per system and
 * scene.pvd for the whole scene.  Every file is written atomically, by a
 * file_writer. */
struct ms__output;

/* formats: a mask of the table's rows (ms__format_bit); io: MS__FW_*
 * flags of the file writer (file_writer.h). */
int ms__output_open(struct ms__output **out, const char *dir,
                    unsigned formats, unsigned io, uint32_t nsys,
                    const char *const *names, struct ms__err *err);
/* Frame `frame` (time t) of every system from its view.  meta: NULL, or
 * per system NULL or view.count meta-particle ids; tri: NULL, or per
 * system its triangles (n = 0: none).  Series past the scene's systems
 * (fluid surfaces) are views like the systems'.  The views are read
 * before this returns; the files may still be on their way to disk (with
 * MS__FW_BACKGROUND) until the next frame or ms__output_flush, which
 * return any failure to write them. */
int ms__output_frame(struct ms__output *o, int64_t frame, double t,
                     const struct ms_view *views,
                     const int32_t *const *meta,
                     const struct ms__tris *tri, struct ms__err *err);
/* The scene's domain (min, max), written into every .vtp as field data
 * (previews draw its floor). */
void ms__output_domain(struct ms__output *o, const double lo[3],
                       const double hi[3]);
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
  struct ms__tris tri;        /* the view's triangles (n = 0: none) */
  /* VTP compressed: the appended blocks, made by the layout (owned) */
  unsigned char **zblk;
  size_t *zlen, nz;
};
void ms__layout_free(struct ms__layout *L);

/* Which file a writer lays out: system `system` (index in the scene) at
 * frame `frame`, time t. */
struct ms__frame_id {
  const char *system;
  uint32_t index;
  int64_t frame;
  double t;
  int zlib; /* VTP: compress the arrays (output.compress = "zlib") */
  const struct ms__tris *tri; /* NULL: the particles alone */
  const double *domain;       /* NULL, or the scene's box: min[3], max[3] */
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

/* The writers' layouts with their own arguments (tests, tools).  VTP:
 * id->t, id->tri (polygons), id->domain (field data), id->zlib (every
 * array compressed by zlib in VTK's block layout,
 * compressor="vtkZLibDataCompressor"); fill with ms__vtp_fill. */
int ms__vtp_layout(struct ms__layout *L, const struct ms_view *v,
                   const struct ms__frame_id *id, const char *path,
                   struct ms__err *err);
void ms__vtp_fill(const struct ms__layout *L, const struct ms_view *v,
                  char *buf);
int ms__ply_layout(struct ms__layout *L, const struct ms_view *v,
                   const struct ms__tris *tri, const char *comment,
                   const char *path, struct ms__err *err);
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

static inline int ms__little_endian(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}

/* ---- surface.c -----------------------------------------------------------*/
/* A fluid's surface (output.surface; doc/surfaces.md): the level set 1/2
 * of the colour field sum_i V_i W(|x - x_i|, h), V_i = (2 r_i)^3, W the
 * poly6 kernel of radius h = kernel x the mean spacing 2 r, on a grid of
 * cell x that spacing, by marching tetrahedra.  The mesh is closed and
 * its triangles run counter-clockwise seen from outside. */
struct ms__surface_mesh {
  size_t nv, nt;
  double *x;      /* 3 per vertex */
  double *normal; /* 3 per vertex: unit, outward */
  uint32_t *tri;  /* 3 per triangle */
  /* kept between frames */
  size_t cap_v, cap_t, cap_field, cap_hash;
  double *field;
  uint64_t *keys;
  uint32_t *vals;
};

/* The surface of view v's particles (system names it in messages); m
 * starts zeroed and is reused frame after frame. */
int ms__surface_build(struct ms__surface_mesh *m, const struct ms_view *v,
                      const char *system, double cell, double kernel,
                      struct ms__err *err);
/* The volume it encloses (divergence theorem). */
double ms__surface_volume(const struct ms__surface_mesh *m);
void ms__surface_free(struct ms__surface_mesh *m);

/* ---- vtp_read.c ----------------------------------------------------------*/
/* Reading back what output_vtp.c and output.c wrote (for `mergesplit
 * render`): .pvd collections and appended-raw .vtp files.  Compressed or
 * inline-encoded files from other writers are refused with a clear line. */
struct ms__pvd_entry {
  double t;
  uint32_t part;
  int64_t frame; /* from the file name NAME_NNNNNN.vtp */
  char *file;    /* as written in the .pvd (relative to it) */
  char *name;    /* NAME */
};

struct ms__pvd {
  size_t n;
  struct ms__pvd_entry *e;
};

int ms__pvd_read(const char *path, struct ms__pvd *out, struct ms__err *err);
void ms__pvd_free(struct ms__pvd *p);

struct ms__vtp_array {
  char name[64];
  uint32_t type; /* enum ms_type */
  uint32_t comps;
  const char *data; /* the values, packed */
  char *own;        /* a compressed file's: the values inflated (owned) */
};

struct ms__vtp {
  char *buf;
  double domain[6];         /* field data domain_min, domain_max */
  int has_domain;
  int zlib;                 /* compressor="vtkZLibDataCompressor" */
  size_t size, n;           /* file size, points */
  size_t npolys;            /* polygons (a surface's triangles) */
  struct ms__vtp_array *a;  /* arrays; a[0] is the points */
  uint32_t na;
};

int ms__vtp_read(const char *path, struct ms__vtp *v, struct ms__err *err);
const struct ms__vtp_array *ms__vtp_find(const struct ms__vtp *v,
                                         const char *name);
/* Component c of point i as a double; c < 0: the vector's magnitude. */
double ms__vtp_value(const struct ms__vtp_array *a, size_t i, int c);
void ms__vtp_free(struct ms__vtp *v);

#endif
