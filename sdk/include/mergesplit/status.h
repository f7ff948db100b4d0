/* mergesplit — status codes shared by the core and every plugin.
 *
 * Every call across the plugin ABI returns an int: MS_OK (0) or one of the
 * negative codes below.  The table is append-only: a code keeps its value
 * forever, new codes take the next free value.  Names and messages come from
 * one X-macro so they can never drift apart.
 */
#ifndef MERGESPLIT_STATUS_H
#define MERGESPLIT_STATUS_H

/* XX(NAME, value, message) */
#define MS_STATUS_MAP(XX)                                                    \
  XX(OK,       0,   "success")                                               \
  XX(ENOMEM,   -1,  "out of memory")                                         \
  XX(EINVAL,   -2,  "invalid argument")                                      \
  XX(ECONFIG,  -3,  "invalid configuration")                                 \
  XX(ENOENT,   -4,  "not found")                                             \
  XX(EIO,      -5,  "input/output error")                                    \
  XX(EABI,     -6,  "incompatible plugin ABI")                               \
  XX(ENOTSUP,  -7,  "operation not supported")                               \
  XX(ENUMERIC, -8,  "numerical failure (NaN, infinity or solver breakdown)") \
  XX(ESTATE,   -9,  "saved state is corrupt or does not match")              \
  XX(ETYPE,    -10, "value has the wrong type")                              \
  XX(ERANGE,   -11, "value out of range")                                    \
  XX(EINTR,    -12, "interrupted")                                           \
  XX(EPLUGIN,  -13, "plugin failure")

enum ms_status {
#define MS__STATUS_ENUM(name, value, msg) MS_##name = value,
  MS_STATUS_MAP(MS__STATUS_ENUM)
#undef MS__STATUS_ENUM
  MS__STATUS_LAST = -14 /* one past the most negative code; never returned */
};

#endif /* MERGESPLIT_STATUS_H */
