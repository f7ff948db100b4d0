/* Copying a view's field into a file's buffer: the inner loop of every
 * frame writer, so the common element sizes get a constant-size copy. */
#include "io.h"

#include <string.h>

#define ROWS(E)                                                          \
  do {                                                                   \
    for (size_t k = 0; k < m; k++)                                       \
      ms__memcpy(dst + k * dst_stride, src + k * fd->stride, (E));           \
  } while (0)

void ms__copy_field(char *dst, const struct ms_field *fd, size_t i0,
                    size_t m, size_t dst_stride) {
  size_t es = ms__field_bytes(fd);
  const char *src = (const char *)fd->data + i0 * fd->stride;
  if (!dst_stride) dst_stride = es;
  if (fd->stride == es && dst_stride == es) {
    ms__memcpy(dst, src, es * m);
    return;
  }
  switch (es) {
  case 4: ROWS(4); break;
  case 8: ROWS(8); break;
  case 12: ROWS(12); break;
  case 24: ROWS(24); break;
  default: ROWS(es); break;
  }
}
