/* particles — the scene keys of a system (system section):
 *   shape            group, required (box, sphere, ..., points)
 *   spacing          lattice spacing [m]; required unless shape is points
 *   radius           collision radius [m]; default spacing / 2
 *   density          [kg/m^3], default 1000; particle mass = density *
 *                    spacing^3 (or (2 radius)^3 for points)
 *   mass             per-particle mass [kg]; instead of density
 *   velocity         initial velocity [m/s], default [0, 0, 0]
 *   drag             linear drag rate [1/s], default 0
 *   wall_restitution normal restitution at the domain walls, [0, 1], 0.5
 *   wall_friction    fraction of tangential speed lost at a wall hit, 0
 *   temperature      [K], default 293.15 (heat with other systems through
 *                    the core; grains of one system do not conduct among
 *                    themselves)
 *   specific_heat    [J/(kg K)], > 0, default 1000
 * scene.scale = s refines the lattice: spacing and radius / s^(1/3), an
 * explicit per-particle mass / s (same volume, same total mass). */
#include <math.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "../common/heat.h"
#include "particles.h"

int particles_read_params(struct state *s, const ms_config *sec,
                          struct params *p) {
  const struct ms_host *h = s->host;
  ms_ctx *c = s->ctx;
  static const double zero[3] = {0.0, 0.0, 0.0};
  int rc;
  if ((rc = h->cfg_child(c, sec, "shape", &p->shape)) == MS_ENOENT)
    return h->cfg_error(c, sec, "shape", "is required (a group: type = "
                        "\"box\" | \"sphere\" | \"points\" | ...)");
  if (rc) return rc;
  if ((rc = ms_cfg_positive(h, c, sec, "spacing", NAN, &p->spacing)) ||
      (rc = ms_cfg_positive(h, c, sec, "radius", NAN, &p->radius)) ||
      (rc = ms_cfg_positive(h, c, sec, "density", NAN, &p->density)) ||
      (rc = ms_cfg_positive(h, c, sec, "mass", NAN, &p->mass)) ||
      (rc = h->cfg_vec3(c, sec, "velocity", zero, p->vel)) ||
      (rc = ms_cfg_non_negative(h, c, sec, "drag", 0.0, &s->drag)) ||
      (rc = ms_cfg_unit(h, c, sec, "wall_restitution", 0.5,
                        &s->restitution)) ||
      (rc = ms_cfg_unit(h, c, sec, "wall_friction", 0.0, &s->friction)) ||
      (rc = msc_heat_keys(h, c, sec, MSC_DEFAULT_TEMPERATURE,
                          MSC_DEFAULT_SPECIFIC_HEAT, &p->temperature,
                          &p->specific_heat)))
    return rc;
  if (isnan(p->radius) && isnan(p->spacing))
    return h->cfg_error(c, sec, "radius", "is required when no spacing is "
                        "given");
  if (isnan(p->radius)) p->radius = 0.5 * p->spacing;
  if (!isnan(p->mass) && !isnan(p->density))
    return h->cfg_error(c, sec, "mass", "give either mass or density, not "
                        "both");
  /* scene.scale: about `scale` times as many particles in the same
   * volume and mass (explicit points are taken as they are) */
  const struct ms_scene_info *info = h->scene(c);
  double scale = MS_SCENE_HAS(info, scale) ? info->scale : 1.0;
  if (scale != 1.0 && !ms_shape_is_given(h, c, p->shape)) {
    double f = cbrt(scale);
    if (!isnan(p->spacing)) p->spacing /= f;
    p->radius /= f;
    if (!isnan(p->mass)) p->mass /= scale;
  }
  if (isnan(p->mass)) {
    double d = isnan(p->density) ? 1000.0 : p->density;
    double h3 = isnan(p->spacing) ? 2.0 * p->radius : p->spacing;
    p->mass = d * h3 * h3 * h3;
  }
  return MS_OK;
}
