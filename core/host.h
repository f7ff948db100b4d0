/* The host services plugins call (host.c): struct ms_host, the context
 * of each plugin instance, the run's log. */
#ifndef MS_CORE_HOST_H
#define MS_CORE_HOST_H

#include <mergesplit/host.h>

#include "system.h"

struct ms_sim;

extern const struct ms_host ms__host;
void ms__ctx_init(struct ms_sim *S, uint32_t index);
void ms__ctx_free(struct ms_ctx *ctx);
void ms__log(struct ms_sim *S, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Create every system of the run's scene (its plugin instance and view);
 * destroy them. */
int ms__systems_create(struct ms_sim *S);
void ms__systems_destroy(struct ms_sim *S);

#endif
