/* mergesplit — inline helpers for plugin authors, beside the contract.
 *
 * plugin.h says what a plugin MUST do; this header gives ready-made pieces
 * that do it (the pattern of LV2's lv2_util.h).  Everything here is
 * static inline and header-only: a plugin that includes it links against
 * nothing new, and a plugin that does not is no less conforming.
 *
 * Symmetric 3x3 tensors (inertia, ABI 1.1) are stored as 6 doubles in the
 * order xx, yy, zz, xy, xz, yz.  Particle arrays are 3 doubles per
 * particle (x, y, z) unless a helper says otherwise.
 *
 * A plugin built against the ABI 1.0 <mergesplit/plugin.h> may include
 * this header too: the helpers for 1.1 members are then left out.
 */
#ifndef MERGESPLIT_PLUGIN_UTIL_H
#define MERGESPLIT_PLUGIN_UTIL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <mergesplit/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the descriptor ----------------------------------------------------- */

/* The nine methods every solver has, under the names plugins/README.md
 * gives them: static functions create, destroy, view, begin_step,
 * integrate, rewind_step (stdio owns rewind), end_step, save and load.
 * The optional ones (max_dt, filter_pairs, energy, ...) follow by name:
 *
 *   static const struct ms_plugin fluid = {
 *       MS_PLUGIN_HEADER_INIT, MS_PLUGIN_METHODS, .id = "fluid", ...,
 *       .max_dt = max_dt};
 *   MS_PLUGIN_EXPORT_ONE(fluid)
 */
#define MS_PLUGIN_METHODS                                                  \
  .create = create, .destroy = destroy, .view = view,                      \
  .begin_step = begin_step, .integrate = integrate, .rewind = rewind_step, \
  .end_step = end_step, .save = save, .load = load

/* The entry point of a file that holds one solver: index 0 is `desc`. */
#define MS_PLUGIN_EXPORT_ONE(desc)                                          \
  MS_PLUGIN_EXPORT const struct ms_plugin *mergesplit_plugin(uint32_t index) { \
    return index == 0 ? &(desc) : NULL;                                    \
  }

/* ---- configuration ------------------------------------------------------ */

/* host->cfg_double, then refuse a value that is not > 0 with cfg_error
 * naming the key: "must be > 0 (got X)".  def = NAN makes the key
 * optional: absent, *out is NAN (a scene cannot write NaN). */
static inline int ms_cfg_positive(const struct ms_host *h, ms_ctx *c,
                                  const ms_config *sec, const char *key,
                                  double def, double *out) {
  int rc = h->cfg_double(c, sec, key, def, out);
  if (rc || *out > 0.0 || isnan(*out)) return rc;
  return h->cfg_error(c, sec, key, "must be > 0 (got %g)", *out);
}

/* The same for >= 0: "must be >= 0 (got X)" (def = NAN: optional). */
static inline int ms_cfg_non_negative(const struct ms_host *h, ms_ctx *c,
                                      const ms_config *sec, const char *key,
                                      double def, double *out) {
  int rc = h->cfg_double(c, sec, key, def, out);
  if (rc || *out >= 0.0 || isnan(*out)) return rc;
  return h->cfg_error(c, sec, key, "must be >= 0 (got %g)", *out);
}

/* The same for a fraction in [0, 1] (restitution, friction):
 * "must be in [0, 1] (got X)". */
static inline int ms_cfg_unit(const struct ms_host *h, ms_ctx *c,
                              const ms_config *sec, const char *key,
                              double def, double *out) {
  int rc = h->cfg_double(c, sec, key, def, out);
  if (rc || (*out >= 0.0 && *out <= 1.0)) return rc;
  return h->cfg_error(c, sec, key, "must be in [0, 1] (got %g)", *out);
}

/* ---- the meta-particle clause of integrate() ---------------------------- */

/* meta_of[i] = k for every member i of meta-particle k, -1 for the other
 * of the n particles. */
static inline void ms_meta_mark(const struct ms_metas *m, size_t n,
                                int32_t *meta_of) {
  for (size_t i = 0; i < n; i++) meta_of[i] = -1;
  for (uint32_t k = 0; k < m->count; k++)
    for (uint32_t q = m->member_offset[k]; q < m->member_offset[k + 1]; q++)
      meta_of[m->member[q]] = (int32_t)k;
}

/* out = the sum of f over meta-particle k's members (f: 3 per particle, a
 * force evaluated at the members' real positions; NULL: zero).  A meta-
 * particle takes the forces on its members summed, with its whole mass
 * metas->mass[k] (plugin.h, META-PARTICLES). */
static inline void ms_meta_sum(const struct ms_metas *m, uint32_t k,
                               const double *f, double out[3]) {
  out[0] = out[1] = out[2] = 0.0;
  for (uint32_t q = m->member_offset[k]; f && q < m->member_offset[k + 1];
       q++)
    for (int a = 0; a < 3; a++) out[a] += f[3 * (size_t)m->member[q] + a];
}

/* End meta-particle k's step as the contract says: every member takes
 * velocity V and moves by d from where it began the step (x holds the
 * start positions on entry), and the result reports V and d. */
static inline void ms_meta_finish(const struct ms_metas *m, uint32_t k,
                                  const double V[3], const double d[3],
                                  double *x, double *v,
                                  struct ms_meta_result *res) {
  for (uint32_t q = m->member_offset[k]; q < m->member_offset[k + 1]; q++) {
    size_t i = m->member[q];
    for (int a = 0; a < 3; a++) {
      x[3 * i + a] += d[a];
      v[3 * i + a] = V[a];
    }
  }
  for (int a = 0; a < 3; a++) {
    res->velocity[3 * k + a] = V[a];
    res->displacement[3 * k + a] = d[a];
  }
}

/* ---- domain walls ------------------------------------------------------- */

/* Clamp the displacement d of a rigid set of particles (the cnt indices
 * idx into x and r; x their positions before the move) so that none leaves
 * the box [lo + r, hi - r]; an infinite bound never acts.  Returns the
 * walls that acted: bit 2a for the low wall of axis a, 2a + 1 for the
 * high one (0: none; report the meta-particle MS_CONSTRAINED then). */
static inline unsigned ms_wall_clamp(const double lo[3], const double hi[3],
                                     const double *x, const double *r,
                                     const uint32_t *idx, uint32_t cnt,
                                     double d[3]) {
  unsigned hit = 0;
  for (int a = 0; a < 3; a++) {
    double need_lo = -INFINITY, need_hi = INFINITY;
    for (uint32_t q = 0; q < cnt; q++) {
      size_t i = idx[q];
      need_lo = fmax(need_lo, lo[a] + r[i] - x[3 * i + a]);
      need_hi = fmin(need_hi, hi[a] - r[i] - x[3 * i + a]);
    }
    if (d[a] < need_lo) {
      d[a] = need_lo;
      hit |= 1u << (2 * a);
    } else if (d[a] > need_hi) {
      d[a] = need_hi;
      hit |= 1u << (2 * a + 1);
    }
  }
  return hit;
}

/* The usual answer of a velocity to the walls ms_wall_clamp() reports, one
 * axis after the other: moving into a wall, the normal component reverses
 * scaled by `restitution`; the tangential ones lose `friction` of
 * themselves. */
static inline void ms_wall_bounce(unsigned hit, double restitution,
                                  double friction, double v[3]) {
  for (int a = 0; a < 3; a++) {
    int into_lo = (hit >> (2 * a)) & 1u, into_hi = (hit >> (2 * a + 1)) & 1u;
    if (!into_lo && !into_hi) continue;
    if (into_lo ? v[a] < 0.0 : v[a] > 0.0) v[a] = -restitution * v[a];
    for (int b = 0; b < 3; b++)
      if (b != a) v[b] *= 1.0 - friction;
  }
}

#if MS_ABI_MINOR >= 1
/* ---- symmetric 3x3 tensors ---------------------------------------------- */

/* out = m * identity */
static inline void ms_sym3_scalar(double *out, double m) {
  out[0] = out[1] = out[2] = m;
  out[3] = out[4] = out[5] = 0.0;
}

static inline int ms_sym3_is_zero(const double *s) {
  return s[0] == 0.0 && s[1] == 0.0 && s[2] == 0.0 && s[3] == 0.0 &&
         s[4] == 0.0 && s[5] == 0.0;
}

/* out += f * a */
static inline void ms_sym3_add(double *out, const double *a, double f) {
  for (int i = 0; i < 6; i++) out[i] += f * a[i];
}

/* out += w * d d^T (a direction's contribution, e.g. one spring's) */
static inline void ms_sym3_add_outer(double *out, const double *d, double w) {
  out[0] += w * d[0] * d[0];
  out[1] += w * d[1] * d[1];
  out[2] += w * d[2] * d[2];
  out[3] += w * d[0] * d[1];
  out[4] += w * d[0] * d[2];
  out[5] += w * d[1] * d[2];
}

/* out = s v (out may not alias v) */
static inline void ms_sym3_mul(double *out, const double *s, const double *v) {
  out[0] = s[0] * v[0] + s[3] * v[1] + s[4] * v[2];
  out[1] = s[3] * v[0] + s[1] * v[1] + s[5] * v[2];
  out[2] = s[4] * v[0] + s[5] * v[1] + s[2] * v[2];
}

static inline double ms_sym3_trace(const double *s) {
  return s[0] + s[1] + s[2];
}

static inline double ms_sym3_det(const double *s) {
  return s[0] * (s[1] * s[2] - s[5] * s[5]) -
         s[3] * (s[3] * s[2] - s[5] * s[4]) +
         s[4] * (s[3] * s[5] - s[1] * s[4]);
}

/* Solve s x = b for x (x may alias b).  Returns 0 when s is singular (or
 * not finite) and leaves x untouched. */
static inline int ms_sym3_solve(double *x, const double *s, const double *b) {
  /* cofactors of the symmetric matrix [[xx xy xz] [xy yy yz] [xz yz zz]] */
  double c00 = s[1] * s[2] - s[5] * s[5];
  double c01 = s[5] * s[4] - s[3] * s[2];
  double c02 = s[3] * s[5] - s[1] * s[4];
  double det = s[0] * c00 + s[3] * c01 + s[4] * c02;
  if (!(det != 0.0) || !isfinite(det)) return 0;
  double c11 = s[0] * s[2] - s[4] * s[4];
  double c12 = s[3] * s[4] - s[0] * s[5];
  double c22 = s[0] * s[1] - s[3] * s[3];
  double r0 = (c00 * b[0] + c01 * b[1] + c02 * b[2]) / det;
  double r1 = (c01 * b[0] + c11 * b[1] + c12 * b[2]) / det;
  double r2 = (c02 * b[0] + c12 * b[1] + c22 * b[2]) / det;
  x[0] = r0, x[1] = r1, x[2] = r2;
  return 1;
}

/* Nonzero when s is finite and symmetric positive semidefinite (every
 * principal minor >= 0, to round-off): what an inertia may be. */
static inline int ms_sym3_is_psd(const double *s) {
  for (int i = 0; i < 6; i++)
    if (!isfinite(s[i])) return 0;
  double t = fabs(s[0]) + fabs(s[1]) + fabs(s[2]), e = 1e-12;
  if (s[0] < -e * t || s[1] < -e * t || s[2] < -e * t) return 0;
  double t2 = e * t * t;
  if (s[0] * s[1] - s[3] * s[3] < -t2 || s[0] * s[2] - s[4] * s[4] < -t2 ||
      s[1] * s[2] - s[5] * s[5] < -t2)
    return 0;
  return ms_sym3_det(s) >= -t2 * t;
}

/* ---- collective response (ABI 1.1) -------------------------------------- */

/* The LEAD answer (plugin.h, COLLECTIVE RESPONSE) for a meta-particle
 * whose counted part belongs to it alone (a cluster's share, one ring of
 * neighbours: nothing ties it to the system's other meta-particles).  C is
 * the inertia the system stated for it, I its metas->inertia (with one
 * leader: its mass times the identity), G response->impulse.  The counted
 * part and the meta-particle take G together: velocity and displacement
 * (arriving as the system's own result) change by du = (I + C)^-1 G and
 * dt du, and K receives C du, the impulse the plugin adds to its counted
 * part (FOLLOW's K_s has the same meaning).  A rigid body leads all its
 * meta-particles at once instead. */
static inline void ms_meta_lead_lump(const double *C, const double *I,
                                     const double *G, double dt,
                                     double *velocity, double *displacement,
                                     double *K) {
  double Mc[6], du[3];
  for (int i = 0; i < 6; i++) Mc[i] = I[i] + C[i];
  if (!ms_sym3_solve(du, Mc, G)) du[0] = du[1] = du[2] = 0.0;
  for (int a = 0; a < 3; a++) {
    velocity[a] += du[a];
    displacement[a] += dt * du[a];
  }
  ms_sym3_mul(K, C, du);
}

/* ---- energy (ABI 1.1) ---------------------------------------------------- */

/* Kinetic and gravitational energy of n particles (x, v: 3 doubles each,
 * contiguous; m: one each) in gravity g, into e->kinetic and
 * e->potential (-sum m g . x, zero at the origin).  Summed in index
 * order: the same figure on any thread count. */
static inline void ms_energy_of_particles(size_t n, const double *x,
                                          const double *v, const double *m,
                                          const double *g,
                                          struct ms_energy *e) {
  double k = 0.0, p = 0.0;
  for (size_t i = 0; i < n; i++) {
    const double *xi = x + 3 * i, *vi = v + 3 * i;
    k += 0.5 * m[i] * (vi[0] * vi[0] + vi[1] * vi[1] + vi[2] * vi[2]);
    p -= m[i] * (g[0] * xi[0] + g[1] * xi[1] + g[2] * xi[2]);
  }
  e->kinetic = k;
  e->potential = p;
}

/* Energy stored in a linear spring of stiffness k [N/m] and rest length L
 * between points a and b: k (|b - a| - L)^2 / 2. */
static inline double ms_spring_energy(const double *a, const double *b,
                                      double k, double L) {
  double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  double s = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - L;
  return 0.5 * k * s * s;
}

/* ---- particle hand-over (ABI 1.1) ------------------------------------- */

/* The field `name` of a view when it has the given type and component
 * count, else NULL: accept() takes the fields it knows this way and
 * ignores the rest. */
static inline const struct ms_field *ms_view_field(const struct ms_view *v,
                                                   const char *name,
                                                   uint32_t type,
                                                   uint32_t components) {
  for (uint32_t f = 0; f < v->field_count; f++)
    if (!strcmp(v->fields[f].name, name) && v->fields[f].type == type &&
        v->fields[f].components == components)
      return &v->fields[f];
  return NULL;
}

/* Copy `size` bytes of particle i of field f into dst (bit for bit, as
 * accept() MUST for mass, position and velocity). */
static inline void ms_field_copy(const struct ms_field *f, size_t i,
                                 void *dst, size_t size) {
  memcpy(dst, (const char *)f->data + i * f->stride, size);
}

/* For release(): remove the `count` particles listed in `index` (strictly
 * increasing, as hand_over() gave them) from an array of n elements of
 * `elem` bytes each, keeping the others in order.  Returns the new count;
 * call it once per array. */
static inline size_t ms_release_compact(void *base, size_t elem, size_t n,
                                        const uint32_t *index,
                                        uint32_t count) {
  char *a = (char *)base;
  size_t w = 0, q = 0;
  for (size_t i = 0; i < n; i++) {
    if (q < count && index[q] == i) {
      q++;
      continue;
    }
    if (w != i) memmove(a + w * elem, a + i * elem, elem);
    w++;
  }
  return w;
}

#endif /* MS_ABI_MINOR >= 1 */

/* ---- heat (ABI 1.3) ----------------------------------------------------
 * Two lumps of heat capacities Ca, Cb [J/K] at temperatures *Ta, *Tb
 * joined by a conductance G [W/K], alone over dt, solved exactly (the
 * rule the core applies between systems; doc/heat.md): the difference
 * decays by exp(-G (1/Ca + 1/Cb) dt), the heat moved leaves one and
 * enters the other, neither passes the pair's mean whatever dt.  Returns
 * the heat moved from a to b [J]. */
static inline double ms_heat_pair(double *Ta, double Ca, double *Tb,
                                  double Cb, double G, double dt) {
  double a = 1.0 / Ca + 1.0 / Cb;
  double Q = (*Ta - *Tb) * -expm1(-G * a * dt) / a;
  *Ta -= Q / Ca;
  *Tb += Q / Cb;
  return Q;
}

/* ---- shapes whose points are given -------------------------------------- */

/* Nonzero for a shape whose points are given rather than sampled on the
 * spacing's lattice: "points", and "frame" (ABI 1.6, a previous output).
 * scene.scale cannot refine them; a plugin MUST NOT jitter a frame. */
static inline int ms_shape_is_given(const struct ms_host *h, ms_ctx *c,
                                    const ms_config *shape) {
  const char *type = NULL;
  return h->cfg_string(c, shape, "type", NULL, &type) == MS_OK && type &&
         (!strcmp(type, "points") || !strcmp(type, "frame"));
}

#if MS_ABI_MINOR >= 6
/* host->shape_field() where the host has it (ABI 1.6), else MS_ENOENT:
 * the per-particle values a "frame" shape carries, for the `count` points
 * sample_shape() gave. */
static inline int ms_shape_field(const struct ms_host *h, ms_ctx *c,
                                 const ms_config *shape, const char *name,
                                 size_t count, uint32_t comps, double *out) {
  if (!MS_HOST_HAS(h, shape_field)) return MS_ENOENT;
  return h->shape_field(c, shape, name, count, comps, out);
}

/* Like ms_shape_field(), for a field whose absence is fine: MS_ENOENT
 * becomes MS_OK with out untouched. */
static inline int ms_shape_field_opt(const struct ms_host *h, ms_ctx *c,
                                     const ms_config *shape, const char *name,
                                     size_t count, uint32_t comps,
                                     double *out) {
  int rc = ms_shape_field(h, c, shape, name, count, comps, out);
  return rc == MS_ENOENT ? MS_OK : rc;
}
#endif /* MS_ABI_MINOR >= 6 */

#ifdef __cplusplus
}
#endif

#endif /* MERGESPLIT_PLUGIN_UTIL_H */
