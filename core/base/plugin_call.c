/* The plugin call each thread is in, for a report when a plugin crashes
 * or calls exit() (base.h, ms_plugin_call_now). */
#include "base.h"

#include <mergesplit/core.h>

static _Thread_local struct {
  const char *file, *system, *function;
} calling;

void ms__call_enter(const char *file, const char *system,
                    const char *function) {
  calling.system = system;
  calling.function = function;
  calling.file = file; /* last: a signal sees all three or none */
}

int ms__call_leave(int rc) {
  calling.file = NULL;
  return rc;
}

const char *ms_plugin_call_now(const char **system, const char **function) {
  if (system) *system = calling.system;
  if (function) *function = calling.function;
  return calling.file;
}
