/* Allocation helpers for the core's growable work arrays. */
#ifndef MS_CORE_XALLOC_H
#define MS_CORE_XALLOC_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Resize *p to hold n elements of size sz (contents kept).  Returns 0 on
 * success, -1 on overflow or failure (then *p is unchanged). */
static inline int ms__grow(void **p, size_t n, size_t sz) {
  if (n != 0 && sz > SIZE_MAX / n) return -1;
  void *q = realloc(*p, (n * sz) != 0 ? n * sz : 1);
  if (!q) return -1;
  *p = q;
  return 0;
}

#endif
