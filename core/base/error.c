/* Error slots: status + one line of text. */
#include "base.h"

#include <stdio.h>
#include <string.h>

int ms__verrf(struct ms__err *e, int status, const char *fmt, va_list ap) {
  e->status = status;
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  /* One line: fold any newline a plugin sent. */
  for (char *p = e->msg; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
  return status;
}

int ms__errf(struct ms__err *e, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ms__verrf(e, status, fmt, ap);
  va_end(ap);
  return status;
}

void ms__err_prefix(struct ms__err *e, const char *fmt, ...) {
  char pre[512], old[sizeof e->msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(pre, sizeof pre, fmt, ap);
  va_end(ap);
  memcpy(old, e->msg, sizeof old);
  snprintf(e->msg, sizeof e->msg, "%s: %s", pre, old);
}

void ms__err_clear(struct ms__err *e) {
  e->status = 0;
  e->msg[0] = '\0';
}

void ms__strlcpy(char *dst, const char *src, size_t len) {
  if (len == 0) return;
  size_t n = strlen(src);
  if (n >= len) n = len - 1;
  memcpy(dst, src, n);
  dst[n] = '\0';
}
