/* One error slot: a status and the one line that explains it. */
#ifndef MS_CORE_ERROR_H
#define MS_CORE_ERROR_H

#include <stdarg.h>
#include <stddef.h>

struct ms__err {
  int status;
  char msg[1024];
};

/* Record status and message; returns status. */
int ms__errf(struct ms__err *e, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int ms__verrf(struct ms__err *e, int status, const char *fmt, va_list ap);
/* Prefix the recorded message with "PREFIX: ". */
void ms__err_prefix(struct ms__err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ms__err_clear(struct ms__err *e);

/* snprintf that always terminates and never overflows. */
void ms__strlcpy(char *dst, const char *src, size_t len);

#endif
