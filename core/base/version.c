/* The package version, from configure. */
#include "config.h"

#include <mergesplit/core.h>

const char *ms_version(void) { return PACKAGE_VERSION; }
