/* Reading the scene file: libconfig plus two things it lacks — every
 * setting read is marked, so keys nobody read can be refused as unknown
 * (typo protection), and every complaint names file:line and the key's
 * path. */
#ifndef MS_CORE_SETTINGS_H
#define MS_CORE_SETTINGS_H

#include <libconfig.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Parse `path`; on failure the error reads "FILE:LINE: MESSAGE". */
int ms__cfg_load(config_t *cfg, const char *path, struct ms__err *err);

/* "FILE:LINE: PATH[.KEY]" for a setting (key may be NULL). */
void ms__cfg_where(const config_setting_t *s, const char *key, char *buf,
                   size_t len);
/* Record "FILE:LINE: PATH.KEY: MESSAGE"; returns MS_ECONFIG. */
int ms__cfg_fail(struct ms__err *err, const config_setting_t *s,
                 const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Mark a setting as read. */
void ms__cfg_mark(config_setting_t *s);
/* First setting below `s` that nobody read (recursing into read groups and
 * read list elements) -> "FILE:LINE: unknown key 'K' in PATH"; MS_ECONFIG. */
int ms__cfg_check_unknown(const config_setting_t *s, struct ms__err *err);

/* Typed getters.  key == NULL reads `g` itself.  Absent: *out = def, MS_OK.
 * Wrong type: MS_ETYPE with the error recorded. */
config_setting_t *ms__cfg_get(const config_setting_t *g, const char *key);
int ms__cfg_double(const config_setting_t *g, const char *key, double def,
                   double *out, struct ms__err *err);
int ms__cfg_int(const config_setting_t *g, const char *key, int64_t def,
                int64_t *out, struct ms__err *err);
int ms__cfg_bool(const config_setting_t *g, const char *key, int def,
                 int *out, struct ms__err *err);
int ms__cfg_string(const config_setting_t *g, const char *key,
                   const char *def, const char **out, struct ms__err *err);
/* def NULL: absent -> MS_ENOENT. */
int ms__cfg_vec3(const config_setting_t *g, const char *key,
                 const double *def, double *out, struct ms__err *err);

#endif
