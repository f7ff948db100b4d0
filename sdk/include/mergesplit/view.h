/* mergesplit — particle views.
 *
 * A plugin owns its particles.  It shows them to the core as a view: a count
 * and a list of named fields, each a strided array in the plugin's memory.
 *
 * Required fields (a view without them is refused):
 *   "position"  MS_TYPE_F64, 3 components   [m]
 *   "velocity"  MS_TYPE_F64, 3 components   [m/s]
 *   "mass"      MS_TYPE_F64, 1 component    [kg], > 0
 *   "radius"    MS_TYPE_F64, 1 component    [m], collision radius, > 0
 * Any other field (e.g. "density", "pressure", "damage", "stretch",
 * "pinned") is optional; every field of the view is written to output frames.
 * Three optional names feed the core's penetration metrics
 * (mergesplit.cfg(5)): "normal" (MS_TYPE_F64, 3: unit surface normal; the
 * system is a sheet), "edge" (MS_TYPE_U8, 1: 1 on a sheet's border) and
 * "damage" (MS_TYPE_F64, 1: 0 intact .. 1 broken).
 *
 * Two more feed the heat exchange of a plugin with MS_PLUGIN_HEAT
 * (plugin.h, HEAT): "temperature" and "specific_heat" (MS_TYPE_F64, 1).
 *
 * Ownership: the arrays belong to the plugin.  The core reads every field and
 * writes "position" and "velocity" (and "temperature" of a heat-carrying
 * system) only at the points the step protocol names (see plugin.h).  A view is borrowed: its pointers and count stay valid
 * from the moment the plugin returns it until the next call into the plugin
 * that is allowed to resize (end_step, load, destroy).
 */
#ifndef MERGESPLIT_VIEW_H
#define MERGESPLIT_VIEW_H

#include <stddef.h>
#include <stdint.h>

/* Element types.  Append-only. */
enum ms_type {
  MS_TYPE_F64 = 1, /* double */
  MS_TYPE_F32 = 2, /* float */
  MS_TYPE_I32 = 3, /* int32_t */
  MS_TYPE_U8 = 4,  /* uint8_t */
  MS_TYPE_U32 = 5, /* uint32_t */
  MS_TYPE_I64 = 6  /* int64_t */
};

/* One named per-particle array.  Element (particle i, component c) lives at
 * (char *)data + i * stride + c * sizeof(element).  Components of one
 * particle are contiguous; stride is in bytes and >= components * size. */
struct ms_field {
  const char *name;    /* static or owned by the plugin; ASCII [a-z0-9_] */
  uint32_t type;       /* enum ms_type */
  uint32_t components; /* 1..16 */
  size_t stride;       /* bytes between consecutive particles */
  void *data;          /* NULL only when count == 0 */
};

/* What the plugin fills in ms_plugin.view().  The core sets struct_size to
 * sizeof(struct ms_view) of its own headers before the call; a plugin MUST
 * NOT write past that size. */
struct ms_view {
  uint32_t struct_size;
  uint32_t field_count;
  size_t count;                  /* number of particles */
  const struct ms_field *fields; /* field_count entries, owned by the plugin */
};

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && \
    UINTPTR_MAX == UINT64_MAX
#include <stddef.h>
/* Frozen v1 layout (LP64). */
_Static_assert(sizeof(struct ms_field) == 32, "ms_field v1 layout");
_Static_assert(offsetof(struct ms_field, stride) == 16, "ms_field v1 layout");
_Static_assert(offsetof(struct ms_field, data) == 24, "ms_field v1 layout");
_Static_assert(offsetof(struct ms_view, count) == 8, "ms_view v1 layout");
_Static_assert(offsetof(struct ms_view, fields) == 16, "ms_view v1 layout");
#endif

#endif /* MERGESPLIT_VIEW_H */
