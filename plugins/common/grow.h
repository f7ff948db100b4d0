/* Growing arrays (internal to the shared plugin helpers). */
#ifndef MS_PLUGINS_COMMON_GROW_H
#define MS_PLUGINS_COMMON_GROW_H

#include <stdint.h>
#include <stdlib.h>

/* Resize *p to n elements of `size` bytes; contents kept.  0 or -1. */
static inline int msi_grow(void **p, size_t n, size_t size) {
  if (n == 0) n = 1;
  if (n > SIZE_MAX / size) return -1;
  void *q = realloc(*p, n * size);
  if (!q) return -1;
  *p = q;
  return 0;
}

/* Deterministic parallel sums: fixed-size chunks, summed in order, so the
 * result does not depend on the thread count. */
#define MSI_CHUNK 4096

/* Loops shorter than this run on one thread: forking would cost more. */
#define MSI_PAR_MIN 2048

#endif
