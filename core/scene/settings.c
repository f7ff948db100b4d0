/* libconfig with read-tracking and file:line errors. */
#include "scene.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <mergesplit/status.h>

static char mark_token; /* a setting's hook points here once it was read */

/* What libconfig 1.5 would read wrongly or slowly, found by a scan that
 * follows its lexer (names, strings, comments and floats skipped):
 *  - integers it would wrap: an unsuffixed one is read with atoi
 *    (4294967297 becomes 1), hex with strtoul cast to int, and an
 *    L-suffixed one saturates;
 *  - inputs its parser takes quadratic time on: every setting added to a
 *    group is compared with the group's members, and a long token is
 *    copied as it grows (40,000 keys took 36 s, a 4 MB string 23 s). */
#define MS__MAX_SETTINGS 10000 /* names in one file: the parse stays < 1 s */
#define MS__MAX_TOKEN 65536    /* bytes of one name or string */
struct lex {
  int block;       /* inside a block comment, carried from line to line */
  long names;      /* names so far */
  const char *bad; /* the offending token, its length, and why */
  size_t len;
  const char *why;
};

static int lex_fail(struct lex *L, const char *t, const char *p,
                    const char *why) {
  L->bad = t, L->len = (size_t)(p - t), L->why = why;
  return -1;
}

#define WRAPS_32 "integer does not fit in 32 bits, and libconfig would " \
  "read another number (write it with an L suffix for 64 bits, or as a float)"
#define WRAPS_64 "integer does not fit in 64 bits, and libconfig would " \
  "read another number (write it as a float)"

/* An integer token t..p: NULL if it fits what libconfig makes of it, else
 * why not. */
static const char *int_misfit(const char *t, size_t len, int hex) {
  char tok[64], *end;
  if (len >= sizeof tok) return "number is longer than 63 characters";
  ms__memcpy(tok, t, len);
  tok[len] = '\0';
  int wide = tok[len - 1] == 'L';
  if (!hex && strpbrk(tok, ".eE")) return NULL; /* a float */
  errno = 0;
  if (hex) {
    unsigned long long v = strtoull(tok, &end, 16);
    if (errno || (!wide && v > 0xFFFFFFFFull)) return wide ? WRAPS_64
                                                           : WRAPS_32;
  } else {
    long long v = strtoll(tok, &end, 10);
    if (errno || (!wide && (v < INT32_MIN || v > INT32_MAX)))
      return wide ? WRAPS_64 : WRAPS_32;
  }
  return NULL;
}

static int lex_line(struct lex *L, const char *p) {
  while (*p) {
    const char *t = p;
    if (L->block) {
      const char *e = strstr(p, "*/");
      if (!e) return 0;
      L->block = 0, p = e + 2;
    } else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
      return 0;
    } else if (p[0] == '/' && p[1] == '*') {
      L->block = 1, p += 2;
    } else if (*p == '"') {
      for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && p[1]) p++;
      if (*p) p++;
      if ((size_t)(p - t) > MS__MAX_TOKEN)
        return lex_fail(L, t, p, "string is longer than 64 KiB");
    } else if (isalpha((unsigned char)*p) || *p == '*') {
      while (isalnum((unsigned char)*p) || (*p && strchr("-_*", *p))) p++;
      if ((size_t)(p - t) > MS__MAX_TOKEN)
        return lex_fail(L, t, p, "name is longer than 64 KiB");
      if (++L->names > MS__MAX_SETTINGS)
        return lex_fail(L, t, p, "name is one too many: a scene file holds "
                        "at most 10000");
    } else if (isdigit((unsigned char)*p) ||
               ((*p == '-' || *p == '+') && isdigit((unsigned char)p[1]))) {
      if (*p == '-' || *p == '+') p++;
      int hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
      p += hex ? 2 : 1;
      while (isalnum((unsigned char)*p) || *p == '.' ||
             ((*p == '-' || *p == '+') && !hex && strchr("eE", p[-1])))
        p++;
      const char *why = int_misfit(t, (size_t)(p - t), hex);
      if (why) return lex_fail(L, t, p, why);
    } else {
      p++;
    }
  }
  return 0;
}

/* The scene and every file it @includes must be regular files: libconfig
 * would wait forever on a FIFO and read a directory as empty.  Names are
 * relative to `dir`, as libconfig takes them; `from`/`line`: where path
 * was named (NULL for the scene itself).  Integers that would wrap are
 * refused here too, with their file and line. */
static int scan_lines(FILE *f, const char *path, const char *dir, int depth,
                      struct ms__err *err);

static int regular_files(const char *path, const char *dir, const char *from,
                         int line, int depth, struct ms__err *err) {
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (from)
      return ms__errf(err, MS_ECONFIG, "%s:%d: @include \"%s\": not a "
                      "regular file", from, line, path);
    return ms__errf(err, MS_ECONFIG, "%s: not a regular file", path);
  }
  FILE *f = depth < 10 ? fopen(path, "r") : NULL;
  if (!f && from && depth < 10) /* libconfig would not name the file */
    return ms__errf(err, MS_ECONFIG, "%s:%d: @include: cannot open %s: "
                    "%s", from, line, path, strerror(errno));
  if (!f) return MS_OK; /* libconfig says what is wrong with it */
  int rc = scan_lines(f, path, dir, depth, err);
  fclose(f);
  return rc;
}

/* The lines of one scene text (file `path`, or a text so named). */
static int scan_lines(FILE *f, const char *path, const char *dir, int depth,
                      struct ms__err *err) {
  char *buf = NULL, name[4096], full[8192];
  size_t bufsize = 0;
  int rc = MS_OK, at = 0;
  struct lex L = {0};
  ssize_t got;
  while (!rc && (got = getline(&buf, &bufsize, f)) >= 0) {
    at++;
    const char *p = buf;
    if (memchr(buf, '\0', (size_t)got)) {
      /* libconfig reads past it; names and strings would be cut there */
      rc = ms__errf(err, MS_ECONFIG, "%s:%d: a NUL byte (a scene file is "
                    "text)", path, at);
      break;
    }
    int in_comment = L.block; /* an @include there is no @include */
    if (lex_line(&L, buf)) {
      rc = ms__errf(err, MS_ECONFIG, "%s:%d: %.*s%s: this %s", path, at,
                    (int)(L.len < 40 ? L.len : 40), L.bad,
                    L.len > 40 ? "..." : "", L.why);
      break;
    }
    if (in_comment) continue;
    while (*p == ' ' || *p == '\t') p++;
    if (strncmp(p, "@include", 8) || !isspace((unsigned char)p[8])) continue;
    p += 8;
    while (*p == ' ' || *p == '\t') p++;
    const char *q = *p == '"' ? strchr(p + 1, '"') : NULL;
    if (!q || (size_t)(q - p - 1) >= sizeof name) continue;
    ms__memcpy(name, p + 1, (size_t)(q - p - 1));
    name[q - p - 1] = '\0';
    if (name[0] == '/' || !dir) snprintf(full, sizeof full, "%s", name);
    else snprintf(full, sizeof full, "%s/%s", dir, name);
    rc = regular_files(full, dir, path, at, depth + 1, err);
  }
  free(buf);
  return rc;
}

/* libconfig's error, "FILE:LINE: WHY" (FILE: the @included file, or
 * `path`); cfg is destroyed. */
static int load_failed(config_t *cfg, const char *path, struct ms__err *err) {
  int rc = ms__errf(err, MS_ECONFIG, "%s:%d: %s",
                    config_error_file(cfg) ? config_error_file(cfg) : path,
                    config_error_line(cfg), config_error_text(cfg));
  config_destroy(cfg); /* on failure too: libconfig keeps what it read */
  return rc;
}

int ms__cfg_load_text(config_t *cfg, const char *name, const char *text,
                      const char *dir, struct ms__err *err) {
  config_init(cfg);
  config_set_include_dir(cfg, dir ? dir : ".");
  size_t n = strlen(text);
  FILE *f = n ? fmemopen((void *)(uintptr_t)text, n, "r") : NULL;
  if (n && !f) {
    config_destroy(cfg);
    return ms__errf(err, MS_ENOMEM, "out of memory");
  }
  int rc = f ? scan_lines(f, name, config_get_include_dir(cfg), 0, err) : 0;
  if (f) fclose(f);
  if (rc) {
    config_destroy(cfg);
    return rc;
  }
  if (config_read_string(cfg, text) != CONFIG_TRUE)
    return load_failed(cfg, name, err);
  /* the file ms__cfg_at names for settings of the text */
  config_setting_set_hook(config_root_setting(cfg), (void *)(uintptr_t)name);
  return MS_OK;
}

int ms__cfg_load(config_t *cfg, const char *path, struct ms__err *err) {
  config_init(cfg);
  /* @include "x" names x relative to the scene file, wherever we run */
  char dir[4096];
  const char *slash = strrchr(path, '/');
  size_t n = slash ? (size_t)(slash - path) : 0;
  if (slash && n < sizeof dir) {
    ms__memcpy(dir, path, n ? n : 1);
    dir[n ? n : 1] = '\0';
    config_set_include_dir(cfg, dir);
  } else if (!slash)
    config_set_include_dir(cfg, ".");
  int rc = regular_files(path, config_get_include_dir(cfg), NULL, 0, 0, err);
  if (!rc) {
    if (config_read_file(cfg, path) == CONFIG_TRUE) return MS_OK;
    if (config_error_type(cfg) != CONFIG_ERR_FILE_IO)
      return load_failed(cfg, path, err);
    rc = ms__errf(err, MS_ECONFIG, "%s: cannot read the scene file: %s",
                  path, strerror(errno));
  }
  config_destroy(cfg); /* on failure too: libconfig keeps what it read */
  return rc;
}

static size_t path_of(const config_setting_t *s, char *buf, size_t len) {
  if (!s || config_setting_is_root(s)) {
    if (len) buf[0] = '\0';
    return 0;
  }
  size_t n = path_of(config_setting_parent(s), buf, len);
  const char *sep = n ? "." : "";
  int w;
  if (config_setting_name(s))
    w = snprintf(buf + n, n < len ? len - n : 0, "%s%s", sep,
                 config_setting_name(s));
  else
    w = snprintf(buf + n, n < len ? len - n : 0, "%s[%d]", sep,
                 config_setting_index(s));
  n += (size_t)(w > 0 ? w : 0);
  return n < len ? n : len - 1;
}

void ms__cfg_at(const config_setting_t *s, char *buf, size_t len) {
  /* a scene given as text names itself in its root's hook; the files it
   * @includes are in filenames, but its own settings are not from them */
  const char *text = s->config && s->config->root
                         ? config_setting_get_hook(s->config->root)
                         : NULL;
  const char *file = s->file ? s->file
                     : text  ? text
                     : (s->config && s->config->num_filenames)
                         ? s->config->filenames[0]
                         : "scene";
  if (s->file && s->line == 0) snprintf(buf, len, "%s", file); /* --set */
  else snprintf(buf, len, "%s:%u", file, s->line);
}

void ms__cfg_where(const config_setting_t *s, const char *key, char *buf,
                   size_t len) {
  char path[512], at_[520];
  const config_setting_t *at = s;
  config_setting_t *child = key ? config_setting_get_member(s, key) : NULL;
  if (child) at = child, key = NULL;
  path_of(at, path, sizeof path);
  ms__cfg_at(at, at_, sizeof at_);
  if (key)
    snprintf(buf, len, "%s: %s%s%s", at_, path, path[0] ? "." : "", key);
  else
    snprintf(buf, len, "%s: %s", at_, path[0] ? path : "(top level)");
}

int ms__cfg_fail(struct ms__err *err, const config_setting_t *s,
                 const char *key, const char *fmt, ...) {
  char where[640], msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  ms__cfg_where(s, key, where, sizeof where);
  return ms__errf(err, MS_ECONFIG, "%s: %s", where, msg);
}

void ms__cfg_mark(config_setting_t *s) {
  if (s) config_setting_set_hook(s, &mark_token);
}

static int is_marked(const config_setting_t *s) {
  return config_setting_get_hook(s) == &mark_token;
}

int ms__cfg_check_unknown(const config_setting_t *s, struct ms__err *err) {
  int n = config_setting_length(s);
  int is_group = config_setting_is_group(s);
  if (!is_group && !config_setting_is_list(s)) return MS_OK;
  for (int i = 0; i < n; i++) {
    config_setting_t *c = config_setting_get_elem(s, (unsigned)i);
    if (is_group && !is_marked(c)) {
      char where[640], path[512];
      path_of(s, path, sizeof path);
      ms__cfg_at(c, where, sizeof where);
      return ms__errf(err, MS_ECONFIG, "%s: unknown key '%s' in %s", where,
                      config_setting_name(c), path[0] ? path : "the scene");
    }
    if (!is_marked(c)) continue; /* unread list element: nothing to check */
    int rc = ms__cfg_check_unknown(c, err);
    if (rc) return rc;
  }
  return MS_OK;
}

config_setting_t *ms__cfg_get(const config_setting_t *g, const char *key) {
  config_setting_t *s;
  if (!g) return NULL;
  s = key ? config_setting_get_member(g, key) : (config_setting_t *)g;
  ms__cfg_mark(s);
  return s;
}

static const char *type_name(const config_setting_t *s) {
  switch (config_setting_type(s)) {
  case CONFIG_TYPE_GROUP: return "a group";
  case CONFIG_TYPE_INT:
  case CONFIG_TYPE_INT64: return "an integer";
  case CONFIG_TYPE_FLOAT: return "a number";
  case CONFIG_TYPE_STRING: return "a string";
  case CONFIG_TYPE_BOOL: return "a boolean";
  case CONFIG_TYPE_ARRAY: return "an array";
  case CONFIG_TYPE_LIST: return "a list";
  }
  return "unknown";
}

static int wrong_type(struct ms__err *err, const config_setting_t *s,
                      const char *want) {
  ms__cfg_fail(err, s, NULL, "must be %s, not %s", want, type_name(s));
  return err->status = MS_ETYPE;
}

int ms__cfg_double(const config_setting_t *g, const char *key, double def,
                   double *out, struct ms__err *err) {
  config_setting_t *s = ms__cfg_get(g, key);
  if (!s) return *out = def, MS_OK;
  if (!config_setting_is_number(s)) return wrong_type(err, s, "a number");
  double v = config_setting_type(s) == CONFIG_TYPE_FLOAT
                 ? config_setting_get_float(s)
                 : (double)config_setting_get_int64(s);
  if (!isfinite(v))
    return ms__cfg_fail(err, s, NULL, "must be a finite number");
  *out = v;
  return MS_OK;
}

int ms__cfg_int(const config_setting_t *g, const char *key, int64_t def,
                int64_t *out, struct ms__err *err) {
  config_setting_t *s = ms__cfg_get(g, key);
  if (!s) return *out = def, MS_OK;
  if (config_setting_type(s) != CONFIG_TYPE_INT &&
      config_setting_type(s) != CONFIG_TYPE_INT64)
    return wrong_type(err, s, "an integer");
  *out = config_setting_get_int64(s);
  return MS_OK;
}

int ms__cfg_bool(const config_setting_t *g, const char *key, int def,
                 int *out, struct ms__err *err) {
  config_setting_t *s = ms__cfg_get(g, key);
  if (!s) return *out = def, MS_OK;
  if (config_setting_type(s) != CONFIG_TYPE_BOOL)
    return wrong_type(err, s, "true or false");
  *out = config_setting_get_bool(s);
  return MS_OK;
}

int ms__cfg_string(const config_setting_t *g, const char *key,
                   const char *def, const char **out, struct ms__err *err) {
  config_setting_t *s = ms__cfg_get(g, key);
  if (!s) return *out = def, MS_OK;
  if (config_setting_type(s) != CONFIG_TYPE_STRING)
    return wrong_type(err, s, "a string");
  *out = config_setting_get_string(s);
  return MS_OK;
}

int ms__cfg_vec3(const config_setting_t *g, const char *key,
                 const double *def, double *out, struct ms__err *err) {
  config_setting_t *s = ms__cfg_get(g, key);
  if (!s) {
    if (!def) return MS_ENOENT;
    out[0] = def[0], out[1] = def[1], out[2] = def[2];
    return MS_OK;
  }
  int ok = (config_setting_is_array(s) || config_setting_is_list(s)) &&
           config_setting_length(s) == 3;
  for (unsigned i = 0; ok && i < 3; i++)
    ok = config_setting_is_number(config_setting_get_elem(s, i));
  if (!ok) {
    ms__cfg_fail(err, s, NULL, "must be an array of 3 numbers");
    return err->status = MS_ETYPE;
  }
  for (unsigned i = 0; i < 3; i++) {
    config_setting_t *e = config_setting_get_elem(s, i);
    out[i] = config_setting_type(e) == CONFIG_TYPE_FLOAT
                 ? config_setting_get_float(e)
                 : (double)config_setting_get_int64(e);
    if (!isfinite(out[i]))
      return ms__cfg_fail(err, s, NULL, "must hold finite numbers");
  }
  return MS_OK;
}

/* ---- overrides: KEY=VALUE on the command line or from the API ---------- */

/* Settings an override made name the override as their file, line 0, so
 * every complaint about them reads "--set KEY=VALUE: ...". */
static void mark_origin(config_setting_t *s, const char *origin) {
  s->file = origin;
  s->line = 0;
  if (!config_setting_is_aggregate(s)) return;
  for (int i = 0; i < config_setting_length(s); i++)
    mark_origin(config_setting_get_elem(s, (unsigned)i), origin);
}

/* Copy the value of src (a parsed override) into dst, of the same type. */
static int copy_value(config_setting_t *dst, const config_setting_t *src) {
  switch (config_setting_type(src)) {
  case CONFIG_TYPE_INT: return !config_setting_set_int(dst,
                                  config_setting_get_int(src));
  case CONFIG_TYPE_INT64: return !config_setting_set_int64(dst,
                                    config_setting_get_int64(src));
  case CONFIG_TYPE_FLOAT: return !config_setting_set_float(dst,
                                    config_setting_get_float(src));
  case CONFIG_TYPE_BOOL: return !config_setting_set_bool(dst,
                                   config_setting_get_bool(src));
  case CONFIG_TYPE_STRING: return !config_setting_set_string(dst,
                                     config_setting_get_string(src));
  }
  for (int i = 0; i < config_setting_length(src); i++) {
    const config_setting_t *e = config_setting_get_elem(src, (unsigned)i);
    config_setting_t *d = config_setting_add(
        dst, config_setting_is_group(src) ? config_setting_name(e) : NULL,
        config_setting_type(e));
    if (!d || copy_value(d, e)) return -1;
  }
  return 0;
}

/* The element of list `l` named `name` (a group with name = "NAME"). */
static config_setting_t *named_elem(const config_setting_t *l,
                                    const char *name) {
  for (int i = 0; i < config_setting_length(l); i++) {
    config_setting_t *e = config_setting_get_elem(l, (unsigned)i);
    const char *n;
    if (config_setting_is_group(e) &&
        config_setting_lookup_string(e, "name", &n) && !strcmp(n, name))
      return e;
  }
  return NULL;
}

/* "v = VALUE;" into buf, with every integer written as a float when
 * `floats` (an array mixing 0 and -1.62 is an array of floats). */
static void value_text(char *buf, const char *value, int floats) {
  char *o = buf + sprintf(buf, "v = ");
  for (const char *p = value; *p;) {
    int start = (p == value || strchr("[(,{ \t:=", p[-1])) &&
                (isdigit((unsigned char)*p) ||
                 ((*p == '-' || *p == '+') && isdigit((unsigned char)p[1])));
    if (!floats || !start) {
      *o++ = *p++;
      continue;
    }
    const char *q = p + 1;
    while (isalnum((unsigned char)*q) || *q == '.' ||
           ((*q == '-' || *q == '+') && strchr("eE", q[-1])))
      q++;
    int integer = !memchr(p, '.', (size_t)(q - p)) &&
                  !memchr(p, 'e', (size_t)(q - p)) &&
                  !memchr(p, 'E', (size_t)(q - p)) &&
                  !memchr(p, 'x', (size_t)(q - p)) && q[-1] != 'L';
    while (p < q) *o++ = *p++;
    if (integer) *o++ = '.', *o++ = '0';
  }
  strcpy(o, ";");
}

/* Parse VALUE as libconfig does -- one value, an array mixing integers
 * and floats taken as floats; a bare word that is not a value (paper,
 * cholmod, out/run) is taken as a string. */
static int parse_value(config_t *tmp, const char *value, const char *origin,
                       struct ms__err *err) {
  struct lex L = {0};
  if (lex_line(&L, value))
    return ms__errf(err, MS_ECONFIG, "%s: %.*s: this %s", origin,
                    (int)(L.len < 40 ? L.len : 40), L.bad, L.why);
  if (strstr(value, "@include"))
    return ms__errf(err, MS_ECONFIG, "%s: an override cannot @include",
                    origin);
  size_t n = 3 * strlen(value) + 8; /* every digit may grow by ".0" */
  char *text = malloc(n);
  if (!text) return ms__errf(err, MS_ENOMEM, "out of memory");
  int ok = 0;
  for (int floats = 0; !ok && floats < 2; floats++) {
    if (floats && value[0] != '[') break;
    value_text(text, value, floats);
    config_init(tmp);
    ok = config_read_string(tmp, text) == CONFIG_TRUE &&
         config_setting_length(config_root_setting(tmp)) == 1 &&
         config_setting_get_member(config_root_setting(tmp), "v");
    if (!ok) config_destroy(tmp);
  }
  if (!ok && !strpbrk(value, "\"\\\n;=[](){}")) {
    config_init(tmp);
    config_destroy(tmp);
    config_init(tmp);
    config_setting_t *v = config_setting_add(config_root_setting(tmp), "v",
                                             CONFIG_TYPE_STRING);
    ok = v && config_setting_set_string(v, value);
    if (!ok) config_destroy(tmp);
  }
  free(text);
  if (!ok) {
    return ms__errf(err, MS_ECONFIG, "%s: '%s' is not a value (a number, "
                    "\"string\", true/false, [array], (list) or {group})",
                    origin, value);
  }
  return MS_OK;
}

/* Step from `at` to its child `part`: "[N]" an element of a list, "NAME"
 * a member of a group or the element of a list named NAME.  A missing
 * group member is created of `type` (0: not created, NULL returned). */
static config_setting_t *step_into(config_setting_t *at, const char *part,
                                   int type, const char *origin,
                                   struct ms__err *err) {
  config_setting_t *c = NULL;
  char *end;
  if (part[0] == '[') {
    long i = strtol(part + 1, &end, 10);
    if (end == part + 1 || strcmp(end, "]") || i < 0 || i > INT_MAX)
      ms__errf(err, MS_ECONFIG, "%s: '%s' is not an index [N]", origin, part);
    else if (!config_setting_is_aggregate(at) ||
             config_setting_is_group(at))
      ms__errf(err, MS_ECONFIG, "%s: %s is not a list", origin, part);
    else if (!(c = config_setting_get_elem(at, (unsigned)i)))
      ms__errf(err, MS_ECONFIG, "%s: no element %s (the list has %d)",
               origin, part, config_setting_length(at));
    return c;
  }
  if (config_setting_is_list(at) && (c = named_elem(at, part))) return c;
  if (!config_setting_is_group(at)) {
    ms__errf(err, MS_ECONFIG, "%s: '%s' is not in a group%s", origin, part,
             config_setting_is_list(at) ? " (nor the name of an element of "
                                          "the list)" : "");
    return NULL;
  }
  if ((c = config_setting_get_member(at, part))) return c;
  if (!type) return NULL;
  if (!(c = config_setting_add(at, part, type)))
    ms__errf(err, MS_ECONFIG, "%s: '%s' is not a valid key name", origin,
             part);
  else
    mark_origin(c, origin);
  return c;
}

/* Store v into the existing scalar `at`; a number into a number keeps the
 * file's type (an integer given where the file has a float).  -1: not in
 * place (another kind of value). */
static int set_in_place(config_setting_t *at, const config_setting_t *v) {
  int ta = config_setting_type(at), tv = config_setting_type(v);
  if (config_setting_is_aggregate(at) || config_setting_is_aggregate(v))
    return -1;
  if (ta == CONFIG_TYPE_FLOAT && config_setting_is_number(v))
    return !config_setting_set_float(
        at, tv == CONFIG_TYPE_FLOAT ? config_setting_get_float(v)
                                    : (double)config_setting_get_int64(v));
  if (ta == CONFIG_TYPE_INT64 && tv == CONFIG_TYPE_INT)
    return !config_setting_set_int64(at, config_setting_get_int64(v));
  return ta == tv ? copy_value(at, v) : -1;
}

/* Set the key the path names (created if absent) to v. */
static int assign(config_setting_t *root, char *key,
                  const config_setting_t *v, const char *origin,
                  struct ms__err *err) {
  /* "systems[1]" reads as "systems.[1]" */
  for (char *p = key; *p; p++)
    if (*p == '[' && p > key && p[-1] != '.') {
      memmove(p + 1, p, strlen(p) + 1);
      *p++ = '.';
    }
  config_setting_t *at = root, *parent = root;
  char *save = NULL, *part = strtok_r(key, ".", &save), *last = NULL;
  if (!part) return ms__errf(err, MS_ECONFIG, "%s: expected KEY=VALUE", origin);
  while (part) {
    char *next = strtok_r(NULL, ".", &save);
    parent = at;
    at = step_into(at, part, next ? CONFIG_TYPE_GROUP : 0, origin, err);
    if (err->status) return err->status;
    last = part, part = next;
  }
  if (at) {
    int rc = set_in_place(at, v);
    if (rc == 0) return mark_origin(at, origin), MS_OK;
    if (rc > 0) return ms__errf(err, MS_ECONFIG, "%s: cannot store the "
                                "value", origin);
    if (!config_setting_is_group(parent))
      return ms__errf(err, MS_ECONFIG, "%s: element %s of a list is "
                      "replaced only by a value of its type, and a group or "
                      "list not whole: set the keys in it one by one",
                      origin, last);
    config_setting_remove(parent, last);
  }
  at = step_into(parent, last, config_setting_type(v), origin, err);
  if (!at) return err->status ? err->status : MS_ECONFIG;
  if (copy_value(at, v))
    return ms__errf(err, MS_ECONFIG, "%s: cannot store the value", origin);
  mark_origin(at, origin);
  return MS_OK;
}

int ms__cfg_override(config_t *cfg, const char *spec, const char *origin,
                     struct ms__err *err) {
  const char *eq = strchr(spec, '=');
  if (!eq || eq == spec)
    return ms__errf(err, MS_ECONFIG, "%s: expected KEY=VALUE", origin);
  char key[1024];
  size_t klen = (size_t)(eq - spec);
  if (klen >= sizeof key / 2)
    return ms__errf(err, MS_ECONFIG, "%s: the key is too long", origin);
  ms__memcpy(key, spec, klen);
  key[klen] = '\0';
  config_t tmp;
  int rc = parse_value(&tmp, eq + 1, origin, err);
  if (rc) return rc;
  rc = assign(config_root_setting(cfg), key,
              config_setting_get_member(config_root_setting(&tmp), "v"),
              origin, err);
  config_destroy(&tmp);
  return rc;
}
