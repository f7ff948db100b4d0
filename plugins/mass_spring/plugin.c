/* mass_spring — cloth and soft bodies: particles joined by springs with
 * dashpots, integrated implicitly (backward Euler, CHOLMOD) or with a
 * chosen explicit or trapezoidal scheme.  Colliding particles (of this
 * system or others) are merged by the core; inside integrate() each
 * meta-particle is one node of the system (plugins/common/implicit.h).
 *
 * Scene keys (system section), SI units:
 *   cloth = { corner = [x, y, z]; edge_u = [...]; edge_v = [...];
 *             resolution = [nu, nv]; }
 *                      a sheet of nu x nv particles: particle (a, b) at
 *                      corner + a/(nu-1) edge_u + b/(nv-1) edge_v; or
 *   shape = { ... }    a soft body: the particles of the shape (box, sphere,
 *   spacing            torus, cylinder, ...) on a lattice of this spacing,
 *   spring_radius      a spring to every neighbour closer than this
 *                      (default 1.5 spacing)
 *   stiffness          spring constant [N/m], > 0 (default 1000);
 *                      cloth: structural springs
 *   shear_stiffness    cloth diagonals (default stiffness)
 *   bend_stiffness     cloth springs over two particles (default
 *                      stiffness / 10)
 *   damping            dashpot of every spring [N s/m] (default 0)
 *   mass_damping       drag on every particle's velocity [1/s] (default 0)
 *   density            cloth [kg/m^2] (default 0.5), soft body [kg/m^3]
 *                      (default 1000); or
 *   mass               per particle [kg]
 *   radius             collision radius [m] (default half the spacing)
 *   velocity           initial velocity [m/s]
 *   pins = ( { corner = "u0v0"; }, { edge = "v1"; },
 *            { min = [...]; max = [...]; } )
 *                      fixed particles; a box must hold at least one
 *   integrator         backward_euler (default), trapezoidal,
 *                      forward_euler, symplectic_euler, midpoint, rk4
 *   linear_solver      auto (default: CHOLMOD, PCG on new node patterns
 *                      when it is cheaper), cholmod or pcg;
 *                      pcg_tolerance (1e-8), pcg_max_iterations (2000)
 *   wall_restitution, wall_friction   at the domain walls, [0, 1] (0, 0)
 *   strain_limit       no spring beyond (1 + limit) rest, no particle
 *                      beyond (1 + limit) its nearest pin's rest distance
 *                      (default 0: off; 0.1 is Provot's); strain_limit_passes
 *                      (200) Gauss-Seidel passes at most per step
 *   stiffening         beyond strain stiffening_strain (0.05) a spring's
 *                      stiffness is this many times k, inside the
 *                      implicit solve (default 1: off; implicit only)
 * Output fields besides the required ones: stretch (largest strain
 * (l - L) / L of the particle's springs) and pinned (1 for pinned). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin.h>
#include <mergesplit/plugin_util.h>

#include "../common/heat.h"
#include "mass_spring.h"

struct state {
  const struct ms_host *host;
  ms_ctx *ctx;
  struct mss_model M;
  struct mss_work W;
  double *x0, *v0; /* start of the step, for rewind */
  double *T, *c;   /* heat: temperature, specific heat (insulated: no
                      conduction along the springs yet) */
  struct msi_stats reported;
  struct ms_field fields[10];
  uint32_t *tri; /* cloth: two triangles per grid cell, for the output */
  size_t ntri;
};

#define S(inst) ((struct state *)(void *)(inst))

static void destroy(ms_instance *inst) {
  struct state *s = S(inst);
  if (!s) return;
  mss_model_free(&s->M);
  mss_work_free(&s->W);
  free(s->x0), free(s->v0);
  free(s->T), free(s->c);
  free(s->tri);
  free(s);
}

/* A cloth's cells as triangles counter-clockwise seen from the side its
 * normal points to (edge_u x edge_v). */
static int cloth_triangles(struct state *s) {
  uint32_t nu = s->M.nu, nv = s->M.nv;
  if (!nu || nu < 2 || nv < 2) return MS_OK;
  s->ntri = 2 * (size_t)(nu - 1) * (nv - 1);
  if (!(s->tri = malloc(3 * s->ntri * sizeof *s->tri))) return MS_ENOMEM;
  uint32_t *t = s->tri;
  for (uint32_t b = 0; b + 1 < nv; b++)
    for (uint32_t a = 0; a + 1 < nu; a++, t += 6) {
      uint32_t i = b * nu + a;
      t[0] = i, t[1] = i + 1, t[2] = i + nu + 1;
      t[3] = i, t[4] = i + nu + 1, t[5] = i + nu;
    }
  return MS_OK;
}

static int surface(ms_instance *inst, struct ms_surface *out) {
  struct state *s = S(inst);
  out->count = s->ntri;
  out->triangles = s->tri;
  return MS_OK;
}

static void set_fields(struct state *s) {
  const size_t v3 = 3 * sizeof(double), v1 = sizeof(double);
  struct mss_model *M = &s->M;
  s->fields[0] = (struct ms_field){"position", MS_TYPE_F64, 3, v3, M->x};
  s->fields[1] = (struct ms_field){"velocity", MS_TYPE_F64, 3, v3, M->v};
  s->fields[2] = (struct ms_field){"mass", MS_TYPE_F64, 1, v1, M->m};
  s->fields[3] = (struct ms_field){"radius", MS_TYPE_F64, 1, v1, M->r};
  s->fields[4] = (struct ms_field){"stretch", MS_TYPE_F64, 1, v1, M->stretch};
  s->fields[5] = (struct ms_field){"pinned", MS_TYPE_U8, 1, 1, M->pinned};
  s->fields[6] = (struct ms_field){"temperature", MS_TYPE_F64, 1, v1, s->T};
  s->fields[7] = (struct ms_field){"specific_heat", MS_TYPE_F64, 1, v1,
                                   s->c};
  /* A cloth shows its surface normal: the core then treats it as a sheet
   * (penetration metrics). */
  s->fields[8] = (struct ms_field){"normal", MS_TYPE_F64, 3, v3, M->normal};
  /* and its border, where a particle may go around it */
  s->fields[9] = (struct ms_field){"edge", MS_TYPE_U8, 1, 1, M->edge};
}

static int create(const struct ms_host *host, ms_ctx *ctx,
                  const ms_config *sec, ms_instance **out) {
  struct state *s = calloc(1, sizeof *s);
  if (!s) return MS_ENOMEM;
  s->host = host;
  s->ctx = ctx;
  mss_work_init(&s->W);
  struct mss_reader R = {host, ctx, sec};
  int rc = mss_config_read(&R, &s->M);
  if (!rc)
    rc = msc_heat_setup(host, ctx, sec, s->M.n, MSC_DEFAULT_TEMPERATURE,
                        MSC_DEFAULT_SPECIFIC_HEAT, &s->T, &s->c);
  if (!rc) {
    size_t k = s->M.n ? s->M.n : 1;
    s->x0 = malloc(3 * k * sizeof(double));
    s->v0 = malloc(3 * k * sizeof(double));
    if (!s->x0 || !s->v0) rc = MS_ENOMEM;
    else memcpy(s->x0, s->M.x, 3 * s->M.n * sizeof(double));
  }
  if (rc) {
    if (rc == MS_ENOMEM) host->set_error(ctx, rc, "out of memory");
    destroy((ms_instance *)(void *)s);
    return rc;
  }
  mss_cloth_normals(&s->M);
  set_fields(s);
  if (cloth_triangles(s)) {
    destroy((ms_instance *)(void *)s);
    return MS_ENOMEM;
  }
  *out = (ms_instance *)(void *)s;
  return MS_OK;
}

static int view(ms_instance *inst, struct ms_view *out) {
  struct state *s = S(inst);
  out->count = s->M.n;
  out->field_count = s->M.nu ? 10 : 8;
  out->fields = s->fields;
  return MS_OK;
}

static int begin_step(ms_instance *inst, const struct ms_step *st) {
  struct state *s = S(inst);
  memcpy(s->x0, s->M.x, 3 * s->M.n * sizeof(double));
  memcpy(s->v0, s->M.v, 3 * s->M.n * sizeof(double));
  msi_solver_mark(s->W.solver);
  return MS_OK;
}

static int rewind_step(ms_instance *inst) {
  struct state *s = S(inst);
  memcpy(s->M.x, s->x0, 3 * s->M.n * sizeof(double));
  memcpy(s->M.v, s->v0, 3 * s->M.n * sizeof(double));
  msi_solver_rewind(s->W.solver);
  return MS_OK;
}

static int integrate(ms_instance *inst, const struct ms_step *st,
                     const struct ms_metas *metas,
                     struct ms_meta_result *res) {
  struct state *s = S(inst);
  s->M.opt.threads = s->host->thread_count(s->ctx);
  int rc = mss_step(&s->M, &s->W, st->dt, st->external_force, metas, res);
  if (rc)
    return s->host->set_error(s->ctx, rc, "t = %g s, dt = %g s: %s",
                              st->time, st->dt, s->W.error);
  return MS_OK;
}

/* Solver figures of the step, for the run report. */
static void report(struct state *s) {
  if (!s->W.solver) return;
  const struct msi_stats *t = msi_solver_stats(s->W.solver);
  struct msi_stats *r = &s->reported;
  const struct ms_host *h = s->host;
  h->report(s->ctx, "assembly_s", t->t_eval + t->t_assembly -
                                      r->t_eval - r->t_assembly);
  h->report(s->ctx, "analysis_s", t->t_analysis - r->t_analysis);
  h->report(s->ctx, "factor_s", t->t_factor - r->t_factor);
  h->report(s->ctx, "solve_s", t->t_solve - r->t_solve);
  h->report(s->ctx, "analyses", (double)(t->analyses - r->analyses));
  h->report(s->ctx, "factor_gflop", 1e-9 * (t->flops_done - r->flops_done));
  h->report(s->ctx, "factor_reuses",
            (double)(t->factor_reuses - r->factor_reuses));
  if (s->M.opt.linear_solver != MSI_CHOLMOD) {
    h->report(s->ctx, "pcg_solves", (double)(t->pcg_solves - r->pcg_solves));
    h->report(s->ctx, "pcg_iterations",
              (double)(t->pcg_iterations - r->pcg_iterations));
  }
  *r = *t;
}

/* Pins are ours: whatever the core wrote to a pinned particle after the
 * split (a velocity from the energy given back, a displacement averaged
 * with another system's constraint), it stays where the step began, at
 * rest. */
static void hold_pins(struct state *s) {
  const struct mss_model *M = &s->M;
  for (size_t i = 0; i < M->n; i++) {
    if (!M->pinned[i]) continue;
    memcpy(M->x + 3 * i, s->x0 + 3 * i, 3 * sizeof(double));
    memset(M->v + 3 * i, 0, 3 * sizeof(double));
  }
}

static int end_step(ms_instance *inst, const struct ms_step *st) {
  struct state *s = S(inst);
  hold_pins(s);
  if (s->M.strain_limit > 0.0) {
    s->W.limited += mss_limit_strain_after_split(&s->M, &s->W);
    s->host->report(s->ctx, "strain_limited", (double)s->W.limited);
  }
  mss_update_stretch(&s->M, s->host->thread_count(s->ctx));
  mss_cloth_normals(&s->M);
  report(s);
  return MS_OK;
}

/* Kinetic, gravitational, and the springs' elastic energy. */
static int energy(ms_instance *inst, struct ms_energy *out) {
  const struct mss_model *M = &S(inst)->M;
  const struct mss_springs *sp = &M->springs;
  double e = 0.0;
  ms_energy_of_particles(M->n, M->x, M->v, M->m, M->gravity, out);
  for (size_t t = 0; t < sp->count; t++)
    e += mss_spring_energy(sp, t, M->x);
  out->internal = e;
  return MS_OK;
}

static int max_dt(ms_instance *inst, double *dt) {
  struct state *s = S(inst);
  if (s->M.max_dt < *dt) *dt = s->M.max_dt;
  return MS_OK;
}

static int filter_pairs(ms_instance *inst, const uint32_t *pairs, size_t count,
                        uint8_t *keep) {
  struct state *s = S(inst);
  mss_filter_pairs(&s->M, pairs, count, keep,
                   s->host->thread_count(s->ctx));
  return MS_OK;
}

/* 2 appends the implicit solver's state; 1 (without it) still loads */
static const char magic[8] = "MSSPRNG2", magic1[8] = "MSSPRNG1";

static int save(ms_instance *inst, const struct ms_stream *out) {
  struct state *s = S(inst);
  uint64_t head[2] = {s->M.n, s->M.springs.count};
  size_t b = 3 * s->M.n * sizeof(double);
  int rc;
  if ((rc = out->write(out->opaque, magic, sizeof magic)) ||
      (rc = out->write(out->opaque, head, sizeof head)) ||
      (rc = out->write(out->opaque, s->M.x, b)) ||
      (rc = out->write(out->opaque, s->M.v, b)) ||
      (rc = out->write(out->opaque, s->T, s->M.n * sizeof(double))) ||
      (rc = msi_solver_save(s->W.solver, out)))
    return rc;
  return MS_OK;
}

static int load(ms_instance *inst, const struct ms_stream *in) {
  struct state *s = S(inst);
  char m[8];
  uint64_t head[2];
  size_t b = 3 * s->M.n * sizeof(double);
  int rc;
  if ((rc = in->read(in->opaque, m, sizeof m)) ||
      (rc = in->read(in->opaque, head, sizeof head)))
    return rc;
  int v1 = !memcmp(m, magic1, sizeof m);
  if (!v1 && memcmp(m, magic, sizeof m))
    return s->host->set_error(s->ctx, MS_ESTATE, "not a mass_spring state");
  if (head[0] != s->M.n || head[1] != s->M.springs.count)
    return s->host->set_error(s->ctx, MS_ESTATE, "saved state holds %llu "
                              "particles and %llu springs, the scene %zu and "
                              "%zu", (unsigned long long)head[0],
                              (unsigned long long)head[1], s->M.n,
                              s->M.springs.count);
  if ((rc = in->read(in->opaque, s->M.x, b)) ||
      (rc = in->read(in->opaque, s->M.v, b)) ||
      (rc = in->read(in->opaque, s->T, s->M.n * sizeof(double))))
    return rc;
  if (!v1 && (rc = msi_solver_load(&s->W.solver, in, s->M.n)))
    return s->host->set_error(s->ctx, rc, "%s", s->W.solver
                              ? msi_solver_error(s->W.solver)
                              : "out of memory");
  mss_update_stretch(&s->M, 1);
  mss_cloth_normals(&s->M);
  return MS_OK;
}

static const struct ms_plugin mass_spring = {
    MS_PLUGIN_HEADER_INIT,
    MS_PLUGIN_METHODS,
    /* carries heat (ABI 1.3; a 1.2 core ignores the flag) */
    .flags = MS_PLUGIN_SELF_COLLISION | MS_PLUGIN_HEAT,
    .id = "mass_spring",
    .name = "Mass-spring cloth and soft bodies",
    .version = PACKAGE_VERSION,
    .license = "MIT",
    .description = "springs with dashpots; backward Euler over CHOLMOD, or "
                   "trapezoidal, forward/symplectic Euler, midpoint, RK4",
    .max_dt = max_dt,
    .filter_pairs = filter_pairs,
    .energy = energy,
    .surface = surface, /* ABI 1.7: a core before it never calls it */
};

MS_PLUGIN_EXPORT_ONE(mass_spring)
