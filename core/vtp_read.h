/* Reading back what output_vtp.c and output.c wrote (for `mergesplit
 * render`): .pvd collections and appended-raw .vtp files.  Compressed or
 * inline-encoded files from other writers are refused with a clear line. */
#ifndef MS_CORE_VTP_READ_H
#define MS_CORE_VTP_READ_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

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
};

struct ms__vtp {
  char *buf;
  size_t size, n;           /* file size, points */
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
