/* A toy frame format, the whole of it: a text line naming the file, then
 * the particles' positions as packed doubles.  tests/output/local.mk adds
 * its row to a copy of the table (core/writers.c); nothing else of the
 * core changes for it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/status.h>

#include "../../core/io/io.h"

static const struct ms_field *position(const struct ms_view *v) {
  for (uint32_t i = 0; i < v->field_count; i++)
    if (!strcmp(v->fields[i].name, "position") &&
        v->fields[i].type == MS_TYPE_F64 && v->fields[i].components == 3)
      return &v->fields[i];
  return NULL;
}

static int toy_layout(struct ms__layout *L, const struct ms_view *v,
                      const struct ms__frame_id *id, const char *path,
                      struct ms__err *err) {
  memset(L, 0, sizeof *L);
  if (!(L->pos = position(v)))
    return ms__errf(err, MS_EINVAL, "%s: no double position", path);
  FILE *f = open_memstream(&L->header, &L->header_len);
  if (!f) return ms__errf(err, MS_ENOMEM, "out of memory");
  fprintf(f, "toy %s %u %lld %.17g %zu\n", id->system, id->index,
          (long long)id->frame, id->t, v->count);
  if (fclose(f)) return ms__errf(err, MS_ENOMEM, "out of memory");
  L->size = L->header_len + 3 * sizeof(double) * v->count;
  return MS_OK;
}

static void toy_fill(const struct ms__layout *L, const struct ms_view *v,
                     char *buf) {
  memcpy(buf, L->header, L->header_len);
  ms__copy_field(buf + L->header_len, L->pos, 0, v->count, 0);
}

const struct ms__writer ms__writer_toy = {"toy", "toy", 0, toy_layout,
                                          toy_fill};
