/* particles — free spherical particles (granular material): the plugin's
 * one internal header.
 *
 * Symplectic Euler under gravity, optional linear drag, inelastic domain
 * walls with restitution and friction.  Particles collide with each other
 * (and with other systems) only through the core's merging-and-splitting.
 * The scene keys are in README.md and config.c. */
#ifndef MS_PLUGINS_PARTICLES_H
#define MS_PLUGINS_PARTICLES_H

#include <mergesplit/plugin.h>

struct state {
  const struct ms_host *host;
  ms_ctx *ctx;
  size_t n;
  double *x, *v, *m, *r; /* x, v: 3 per particle */
  double *x0, *v0;       /* start of step, for rewind */
  double *T, *c;         /* temperature [K], specific heat [J/(kg K)] */
  int32_t *meta;         /* meta-particle of each particle during integrate */
  double gravity[3], lo[3], hi[3];
  double drag, restitution, friction;
  struct ms_field fields[6];
};

/* The keys that set the particles up (the rest go to struct state). */
struct params {
  double spacing, radius, density, mass, vel[3];
  double temperature, specific_heat;
  const ms_config *shape;
};

/* Read and check the section's keys (config.c); all are read so the host
 * can flag the rest as unknown. */
int particles_read_params(struct state *s, const ms_config *sec,
                          struct params *p);

#endif
