/* A particle view's field by name: the one lookup the core makes. */
#include "base.h"

#include <mergesplit/view.h>

const struct ms_field *ms__view_field(const struct ms_view *v,
                                      const char *name, uint32_t type,
                                      uint32_t comps) {
  for (uint32_t i = 0; name && i < v->field_count; i++) {
    const struct ms_field *f = &v->fields[i];
    /* a view not yet checked may name a field NULL */
    if (f->name && !strcmp(f->name, name) && (!type || f->type == type) &&
        (!comps || f->components == comps))
      return f;
  }
  return NULL;
}

size_t ms__type_size(uint32_t t) {
  switch (t) {
  case MS_TYPE_F64:
  case MS_TYPE_I64: return 8;
  case MS_TYPE_F32:
  case MS_TYPE_I32:
  case MS_TYPE_U32: return 4;
  case MS_TYPE_U8: return 1;
  }
  return 0;
}

size_t ms__field_bytes(const struct ms_field *fd) {
  return ms__type_size(fd->type) * fd->components;
}
