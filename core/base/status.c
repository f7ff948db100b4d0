/* Status code names and messages, generated from MS_STATUS_MAP. */
#include <mergesplit/core.h>

const char *ms_strerror(int status) {
  switch (status) {
#define MS__STRERROR_CASE(name, value, msg) \
  case MS_##name:                          \
    return msg;
    MS_STATUS_MAP(MS__STRERROR_CASE)
#undef MS__STRERROR_CASE
  }
  return "unknown status code";
}

const char *ms_status_name(int status) {
  switch (status) {
#define MS__NAME_CASE(name, value, msg) \
  case MS_##name:                      \
    return "MS_" #name;
    MS_STATUS_MAP(MS__NAME_CASE)
#undef MS__NAME_CASE
  }
  return "MS_UNKNOWN";
}
