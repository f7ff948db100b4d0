/* The plugin call each thread is in, for a report when a plugin crashes
 * or calls exit() (base.h, ms_plugin_call_now). */
#include "base.h"

#include <stdatomic.h>

#include <mergesplit/core.h>

static _Thread_local struct {
  const char *file, *system, *function;
} calling;

/* Over all threads: how many are inside a plugin call, and the call
 * entered last (for a plugin that never returns, whichever thread it
 * holds). */
static atomic_int inside;
static const char *_Atomic any_file, *_Atomic any_system,
    *_Atomic any_function;

void ms__call_enter(const char *file, const char *system,
                    const char *function) {
  calling.system = system;
  calling.function = function;
  calling.file = file; /* last: a signal sees all three or none */
  any_system = system;
  any_function = function;
  any_file = file;
  atomic_fetch_add(&inside, 1);
}

int ms__call_leave(int rc) {
  calling.file = NULL;
  atomic_fetch_sub(&inside, 1);
  return rc;
}

const char *ms_plugin_call_any(const char **system, const char **function) {
  if (atomic_load(&inside) <= 0) return NULL;
  if (system) *system = any_system;
  if (function) *function = any_function;
  return any_file;
}

const char *ms_plugin_call_now(const char **system, const char **function) {
  if (system) *system = calling.system;
  if (function) *function = calling.function;
  return calling.file;
}
