/* mass_spring — reading a system from its scene section. */
#ifndef MS_PLUGINS_MASS_SPRING_CONFIG_H
#define MS_PLUGINS_MASS_SPRING_CONFIG_H

#include <mergesplit/plugin.h>

#include "mass_spring.h"

struct mss_reader {
  const struct ms_host *host;
  ms_ctx *ctx;
  const ms_config *sec;
};

/* Read every key of the section, build the particles, springs and pins
 * into M (zeroed by the caller).  Bad values are refused through
 * host->cfg_error (file:line and key); M is then released by the caller
 * with mss_model_free. */
int mss_config_read(struct mss_reader *R, struct mss_model *M);

#endif
