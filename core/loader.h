/* Finding and loading solver plugins (shared objects). */
#ifndef MS_CORE_LOADER_H
#define MS_CORE_LOADER_H

#include <stddef.h>

#include <mergesplit/core.h>
#include <mergesplit/plugin.h>

/* One accepted solver. */
struct ms__plugin {
  struct ms_plugin desc; /* copy, zero past the plugin's struct_size */
  char *path;
  char *shadowed;        /* path of an earlier plugin with the same id */
  void *handle;          /* the file's dlopen handle (shared per file) */
};

struct ms_registry {
  struct ms__plugin *p;
  size_t n, cap;
  char **refused; /* "PATH: REASON" */
  size_t nrefused, cap_refused;
  void **handles; /* dlopen handles kept open */
  size_t nhandles, cap_handles;
};

/* Validate a descriptor exactly as the loader does; on refusal write the
 * reason and return MS_EABI or MS_EPLUGIN. */
int ms__plugin_validate(const struct ms_plugin *d, char *why, size_t len);
const struct ms__plugin *ms__registry_find(const ms_registry *reg,
                                           const char *id);
/* The directory list searched, in order (for messages). */
size_t ms__plugin_dirs(const char *const *extra, char ***out);
void ms__plugin_dirs_free(char **dirs, size_t n);

#endif
