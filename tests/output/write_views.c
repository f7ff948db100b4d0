/* Writes one synthetic view holding every element type, strided and
 * contiguous fields, through the core's VTP and PLY writers, so that
 * types.py can read them back with VTK and its own PLY parser.
 *
 *   write-views DIR N      -> DIR/types.vtp, DIR/types.ply, DIR/third.vtp
 * Values: particle i, component c: position (i, 2i, c ... see below).
 * third.vtp (the first N/3 particles) and then types.vtp go through one
 * buffer of a background file writer, as a run's frames do: the buffer
 * grown, the first file on its way while the second is filled. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/io/io.h"

struct rec { /* an interleaved record: fields with stride sizeof(rec) */
  float f32[3];
  uint8_t u8;
  int64_t i64;
};

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: write-views DIR N\n");
    return 2;
  }
  size_t n = (size_t)atol(argv[2]);
  double *pos = malloc(3 * n * sizeof *pos), *d5 = malloc(5 * n * sizeof *d5);
  int32_t *i32 = malloc(n * sizeof *i32);
  uint32_t *u32 = malloc(n * sizeof *u32);
  struct rec *r = malloc(n * sizeof *r);
  for (size_t i = 0; i < n; i++) {
    for (int c = 0; c < 3; c++) pos[3 * i + c] = 0.5 * (double)i + c;
    for (int c = 0; c < 5; c++) d5[5 * i + c] = (double)i * 0.25 - c;
    i32[i] = -(int32_t)i;
    u32[i] = 4000000000u - (uint32_t)i;
    for (int c = 0; c < 3; c++) r[i].f32[c] = (float)i / 8.0f + (float)c;
    r[i].u8 = (uint8_t)(i % 251);
    r[i].i64 = (int64_t)i * 1000000007LL - 5;
  }
  struct ms_field f[] = {
      {"position", MS_TYPE_F64, 3, 3 * sizeof(double), pos},
      {"f32", MS_TYPE_F32, 3, sizeof(struct rec), &r[0].f32},
      {"u8", MS_TYPE_U8, 1, sizeof(struct rec), &r[0].u8},
      {"i64", MS_TYPE_I64, 1, sizeof(struct rec), &r[0].i64},
      {"i32", MS_TYPE_I32, 1, sizeof(int32_t), i32},
      {"u32", MS_TYPE_U32, 1, sizeof(uint32_t), u32},
      {"d5", MS_TYPE_F64, 5, 5 * sizeof(double), d5}};
  struct ms_view v = {sizeof v, sizeof f / sizeof *f, n, f};
  struct ms_view third = {sizeof v, sizeof f / sizeof *f, n / 3, f};
  struct ms__err err = {0};
  char path[4096];
  struct ms__file_writer *w;
  int rc = ms__fw_open(&w, MS__FW_BACKGROUND | MS__FW_DIRECT, &err);
  const struct ms_view *order[2] = {&third, &v};
  const char *name[2] = {"third", "types"};
  for (int k = 0; !rc && k < 2; k++) {
    struct ms__layout L;
    snprintf(path, sizeof path, "%s/%s.vtp", argv[1], name[k]);
    const struct ms__frame_id id = {"", 0, 0, 1.25, 0, NULL, NULL};
    if ((rc = ms__vtp_layout(&L, order[k], &id, path, &err))) break;
    char *buf = ms__fw_buffer(w, 0, L.size, &err);
    if (buf) ms__vtp_fill(&L, order[k], buf);
    rc = buf ? ms__fw_add(w, 0, L.size, path, &err) : err.status;
    if (!rc) rc = ms__fw_commit(w, &err);
    ms__layout_free(&L);
  }
  if (!rc) rc = ms__fw_wait(w, &err);
  ms__fw_close(w);
  snprintf(path, sizeof path, "%s/types.ply", argv[1]);
  if (!rc) rc = ms__ply_write(path, &v, "synthetic", &err);
  if (rc) fprintf(stderr, "write-views: %s\n", err.msg);
  free(pos), free(d5), free(i32), free(u32), free(r);
  return rc ? 1 : 0;
}
