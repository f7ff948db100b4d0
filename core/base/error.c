/* Error slots: status + one line of text. */
#include "base.h"

#include <stdio.h>
#include <string.h>

int ms__verrf(struct ms__err *e, int status, const char *fmt, va_list ap) {
  char raw[sizeof e->msg];
  e->status = status;
  vsnprintf(raw, sizeof raw, fmt, ap);
  /* One line, and nothing a terminal acts on: newlines and tabs (a
   * plugin's, a scene's string) fold to spaces, other control bytes show
   * as \xNN, so a name from a scene cannot move the cursor or recolour
   * the terminal. */
  size_t o = 0;
  for (const unsigned char *p = (const unsigned char *)raw; *p; p++) {
    if (*p == '\n' || *p == '\r' || *p == '\t') {
      if (o + 1 >= sizeof e->msg) break;
      e->msg[o++] = ' ';
    } else if (*p < 0x20 || *p == 0x7f) {
      if (o + 4 >= sizeof e->msg) break;
      o += (size_t)snprintf(e->msg + o, 5, "\\x%02x", *p);
    } else {
      if (o + 1 >= sizeof e->msg) break;
      e->msg[o++] = (char)*p;
    }
  }
  e->msg[o] = '\0';
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
  ms__memcpy(old, e->msg, sizeof old);
  ms__errf(e, e->status, "%s: %s", pre, old); /* escaped like the rest */
}

void ms__err_clear(struct ms__err *e) {
  e->status = 0;
  e->msg[0] = '\0';
}

void ms__strlcpy(char *dst, const char *src, size_t len) {
  if (len == 0) return;
  size_t n = strlen(src);
  if (n >= len) n = len - 1;
  ms__memcpy(dst, src, n);
  dst[n] = '\0';
}
