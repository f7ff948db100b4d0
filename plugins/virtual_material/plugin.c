/* virtual_material — the plugin: the descriptor and its entry points
 * (create, view, the step, energy, save/load).  Model:
 * virtual_material.h; keys: config.c; a neighbourhood's math: lattice.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "../common/give_back.h"
#include "../common/polar.h"
#include "virtual_material.h"

#define S(inst) ((struct state *)(void *)(inst))

static void destroy(ms_instance *inst) {
  struct state *s = S(inst);
  if (!s) return;
  free(s->x), free(s->v), free(s->m), free(s->r), free(s->T), free(s->c);
  free(s->x0), free(s->v0), free(s->A0), free(s->A), free(s->f);
  free(s->dv), free(s->body_of), free(s->held), free(s->in_hold), free(s->meta), free(s->body);
  free(s->solid), free(s->rho), free(s->p), free(s->dvx), free(s->object_of);
  free(s->off), free(s->idx), free(s->slot), free(s->work), free(s->own);
  free(s->dock), free(s->dock0), free(s->piece), free(s->piece0);
  free(s->who), free(s->who0);
  free(s->x_ahead), free(s->m_ahead), free(s->solid_ahead), free(s->A_ahead);
  free(s->acc);
  free(s);
}

static int create(const struct ms_host *host, ms_ctx *ctx,
                  const ms_config *sec, ms_instance **out) {
  struct state *s = calloc(1, sizeof *s);
  if (!s) return MS_ENOMEM;
  s->host = host, s->ctx = ctx;
  const struct ms_scene_info *info = host->scene(ctx);
  memcpy(s->gravity, info->gravity, sizeof s->gravity);
  memcpy(s->lo, info->domain_min, sizeof s->lo);
  memcpy(s->hi, info->domain_max, sizeof s->hi);
  s->seed = info->seed;
  int rc = vm_configure(s, sec);
  if (rc) {
    destroy((ms_instance *)(void *)s);
    return rc == MS_ENOMEM ? host->set_error(ctx, rc, "out of memory") : rc;
  }
  const size_t v3 = 3 * sizeof(double), v1 = sizeof(double);
  s->fields[0] = (struct ms_field){"position", MS_TYPE_F64, 3, v3, s->x};
  s->fields[1] = (struct ms_field){"velocity", MS_TYPE_F64, 3, v3, s->v};
  s->fields[2] = (struct ms_field){"mass", MS_TYPE_F64, 1, v1, s->m};
  s->fields[3] = (struct ms_field){"radius", MS_TYPE_F64, 1, v1, s->r};
  s->fields[4] = (struct ms_field){"temperature", MS_TYPE_F64, 1, v1, s->T};
  s->fields[5] = (struct ms_field){"specific_heat", MS_TYPE_F64, 1, v1,
                                   s->c};
  s->fields[6] = (struct ms_field){"solid", MS_TYPE_U8, 1, 1, s->solid};
  s->fields[7] = (struct ms_field){"piece", MS_TYPE_U32, 1, sizeof(uint32_t),
                                   s->piece};
  *out = (ms_instance *)(void *)s;
  return MS_OK;
}

static int view(ms_instance *inst, struct ms_view *out) {
  struct state *s = S(inst);
  out->count = s->n;
  out->field_count = 8;
  out->fields = s->fields;
  return MS_OK;
}

/* The neighbourhoods: for every particle the others of its lattice
 * object within its support (one spacing per object: the rows are
 * symmetric), each row sorted, with a slot per entry. */
static int rows(struct state *s) {
  double h = 0.0;
  for (uint32_t b = 0; b < s->nbody; b++)
    h = fmax(h, s->support * s->body[b].D);
  struct ms_neighbors nb = {0};
  int rc = s->host->neighbors(s->ctx, s->x, 3 * sizeof(double), s->n, h, &nb);
  if (rc) return rc;
  size_t total = nb.offset[s->n];
  if (total > s->cap_idx) {
    uint32_t *idx = realloc(s->idx, total * sizeof *idx);
    struct vm_slot *sl = idx ? realloc(s->slot, total * sizeof *sl) : NULL;
    if (idx) s->idx = idx;
    if (sl) s->slot = sl, s->cap_idx = total;
    if (!sl) rc = MS_ENOMEM;
  }
  size_t k = 0;
  for (size_t i = 0; !rc && i < s->n; i++) {
    const struct vm_body *B = &s->body[s->body_of[i]];
    double hi = s->support * B->D;
    s->off[i] = (uint32_t)k;
    for (uint32_t q = nb.offset[i]; q < nb.offset[i + 1]; q++) {
      uint32_t j = nb.index[q];
      const double *a = s->x + 3 * i, *b = s->x + 3 * (size_t)j;
      double d2 = (a[0] - b[0]) * (a[0] - b[0]) +
                  (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]);
      if (s->object_of[j] == s->object_of[i] && d2 < hi * hi)
        s->idx[k++] = j;
    }
    /* sorted: the gather finds i in j's row by bisection */
    for (size_t p = s->off[i] + 1; p < k; p++)
      for (size_t q = p; q > s->off[i] && s->idx[q - 1] > s->idx[q]; q--) {
        uint32_t t = s->idx[q];
        s->idx[q] = s->idx[q - 1], s->idx[q - 1] = t;
      }
  }
  s->off[s->n] = (uint32_t)k;
  s->host->neighbors_release(s->ctx, &nb);
  return rc;
}

static struct vm_hood hood(const struct state *s, size_t i) {
  const struct vm_body *B = &s->body[s->body_of[i]];
  return (struct vm_hood){(uint32_t)i,          s->off[i + 1] - s->off[i],
                          s->idx + s->off[i], B->D,
                          s->support * B->D,  B->k,
                          s->solid,           NULL,
                          s->ccp};
}

/* Particle i's docking in a step of dt (step: 1) or an energy (0); NULL
 * when its body does not fracture.  Its draws: a stream of the scene's
 * seed, the step and the particle, apart from melting's; none in the
 * first step (the body starts whole: every neighbour docks). */
static const struct vm_dock *docking(const struct state *s, size_t i,
                                     double dt, int step,
                                     struct vm_dock *out) {
  const struct vm_body *B = &s->body[s->body_of[i]];
  if (!s->dock || !vm_fractures(B)) return NULL;
  int w = 2 * s->dock_K + 1;
  *out = (struct vm_dock){s->dock + i * (size_t)(w * w * w),
                          s->who + i * (size_t)(w * w * w), s->dock_K,
                          s->steps ? B->dock_rate * dt : INFINITY,
                          dt / B->dock_tau, B->dock_strain,
                          (s->seed ^ 0x632BE59BD9B4E019ull) +
                              (s->steps * 0x9E3779B97F4A7C15ull + i) *
                                  0xBF58476D1CE4E5B9ull,
                          step};
  return out;
}

/* The pieces: the solid particles the lattice held together in the step
 * (a docked neighbour in either one's hood), each named by its least
 * index (union by the lesser root); how many there are. */
static uint32_t find_pieces(struct state *s) {
  uint32_t *p = s->piece, count = 0;
  for (size_t i = 0; i < s->n; i++) p[i] = s->solid[i] ? (uint32_t)i : UINT32_MAX;
  for (size_t i = 0; i < s->n; i++)
    for (uint32_t q = s->off[i]; s->solid[i] && q < s->off[i + 1]; q++) {
      if (s->slot[q].used != 1) continue; /* docked only */
      uint32_t a = (uint32_t)i, b = s->idx[q];
      while (p[a] != a) a = p[a] = p[p[a]];
      while (p[b] != b) b = p[b] = p[p[b]];
      if (a < b) p[b] = a;
      else p[a] = b;
    }
  for (size_t i = 0; i < s->n; i++) {
    if (!s->solid[i]) continue;
    p[i] = p[p[i]]; /* a root's index is below every member's */
    count += p[i] == i;
  }
  return count;
}

/* out_j = own_j + what every hood holding j put in j's slot there (rows
 * are symmetric: i is in j's row when j is in i's), in j's row order. */
static void gather(const struct state *s, const double *own, double *out) {
#pragma omp parallel for schedule(static) num_threads(s->host->thread_count(s->ctx))
  for (size_t j = 0; j < s->n; j++) {
    double g[3] = {own[3 * j], own[3 * j + 1], own[3 * j + 2]};
    for (uint32_t q = s->off[j]; q < s->off[j + 1]; q++) {
      uint32_t i = s->idx[q], lo = s->off[i], hi = s->off[i + 1];
      while (lo < hi) { /* j in i's row */
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->idx[mid] < j) lo = mid + 1;
        else hi = mid;
      }
      if (lo < s->off[i + 1] && s->idx[lo] == j)
        for (int a = 0; a < 3; a++) g[a] += s->slot[lo].f[a];
    }
    memcpy(out + 3 * j, g, sizeof g);
  }
}

/* Whether the fluid acts at all: a body with a pressure, or a fluid
 * particle (XSPH); a lattice solid alone skips the densities. */
static int fluid_acts(const struct state *s) {
  for (uint32_t b = 0; b < s->nbody; b++)
    if (s->body[b].c > 0.0) return 1;
  for (size_t i = 0; i < s->n; i++)
    if (!s->solid[i]) return 1;
  return 0;
}

/* Hood i puts nothing anywhere (its slots and its centre's share). */
static void no_share(struct state *s, size_t i) {
  for (uint32_t q = s->off[i]; q < s->off[i + 1]; q++)
    memset(s->slot[q].f, 0, sizeof s->slot[q].f);
  memset(s->own + 3 * i, 0, 3 * sizeof(double));
}

/* Every hood's forces into s->f (gathered); the lattice energy returned.
 * keep: a step of dt — fracture draws and updates its rates — or not (an
 * energy); the hoods' new transforms go to An (s->A in a step; NULL:
 * nowhere). */
static double lattice_forces(struct state *s, int keep, double dt,
                             double *An) {
#pragma omp parallel for schedule(static) num_threads(s->host->thread_count(s->ctx))
  for (size_t i = 0; i < s->n; i++) {
    struct vm_hood H = hood(s, i);
    struct vm_dock dk;
    H.dock = docking(s, i, dt, keep, &dk);
    double A[9];
    if (!s->solid[i]) { /* a fluid particle is no hood's centre */
      no_share(s, i);
      s->work[i] = 0.0;
      continue;
    }
    memcpy(A, s->A + 9 * i, sizeof A);
    s->work[i] = vm_hood_forces(&H, s->x, s->m, A, s->slot + s->off[i],
                                s->own + 3 * i);
    if (An) memcpy(An + 9 * i, A, sizeof A);
  }
  gather(s, s->own, s->f);
  double e = 0.0;
  for (size_t i = 0; i < s->n; i++) e += s->work[i];
  return e;
}

/* Velocity changes of the damping into s->dv (gathered). */
static void damping(struct state *s, double dt) {
#pragma omp parallel for schedule(static) num_threads(s->host->thread_count(s->ctx))
  for (size_t i = 0; i < s->n; i++) {
    struct vm_hood H = hood(s, i);
    const struct vm_body *B = &s->body[s->body_of[i]];
    if (!s->solid[i]) {
      no_share(s, i);
      continue;
    }
    double share = fmin(1.0, B->eta * dt / s->m[i]) / (H.count + 1.0);
    vm_hood_damping(&H, s->x, s->v, s->m, share, s->slot + s->off[i],
                    s->own + 3 * i);
  }
  gather(s, s->own, s->dv);
}

static int max_dt(ms_instance *inst, double *dt) {
  struct state *s = S(inst);
  for (uint32_t b = 0; b < s->nbody; b++) {
    const struct vm_body *B = &s->body[b];
    if (!B->count) continue;
    /* a particle feels about twice the weights of its lattice neighbours */
    double W = 0.0, h = s->support, u = vm_unit(1.0, s->ccp);
    for (int i = -5; i <= 5; i++)
      for (int j = -5; j <= 5; j++)
        for (int k = -5; k <= 5; k++)
          if ((i || j || k) && vm_is_point(i, j, k, s->ccp))
            W += vm_weight(u * sqrt(i * i + j * j + k * k), h);
    double m = s->m[B->first];
    double d = 0.5 * sqrt(m / (2.0 * B->k * W));
    /* the fluid's sound crosses 0.4 of a neighbourhood a step */
    if (B->c > 0.0) d = fmin(d, 0.4 * s->support * B->D / B->c);
    if (d < *dt) *dt = d;
  }
  double vmax = 0.0, rmin = INFINITY;
  for (size_t i = 0; i < s->n; i++) {
    const double *v = s->v + 3 * i;
    vmax = fmax(vmax, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
    rmin = fmin(rmin, s->r[i]);
  }
  if (vmax > 0.0 && 0.4 * rmin / vmax < *dt) *dt = 0.4 * rmin / vmax;
  return MS_OK;
}

static int filter_pairs(ms_instance *inst, const uint32_t *pairs,
                        size_t count, uint8_t *keep) {
  struct state *s = S(inst);
  /* the lattice holds the pairs of a piece; pieces of one object that
   * it no longer holds together (a crack) collide like bodies */
  for (size_t k = 0; k < count; k++) {
    uint32_t i = pairs[2 * k], j = pairs[2 * k + 1];
    keep[k] = s->object_of[i] != s->object_of[j] ||
              (s->solid[i] && s->solid[j] && s->piece[i] != s->piece[j]);
  }
  return MS_OK;
}

/* A uniform number in [0, 1) for particle i at the current step, from
 * the scene's seed alone (splitmix64): the same on any thread count and
 * after a resume. */
static double draw(const struct state *s, size_t i) {
  uint64_t z = s->seed ^ (s->steps * 0x9E3779B97F4A7C15ull + i);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

/* Melting (Wicke et al. sect. 5, Eq. 15): at the end of a step (a
 * rewind must find the state the step began with), a solid particle
 * above its body's melting point leaves the lattice with probability
 * 1 - exp(-lambda_m0 (T - T_m) dt). */
static size_t melt(struct state *s, double dt) {
  size_t melted = 0;
  for (size_t i = 0; i < s->n; i++) {
    const struct vm_body *B = &s->body[s->body_of[i]];
    if (!s->solid[i] || !(s->T[i] > B->melt_T)) continue;
    double rate = B->melt_rate * (s->T[i] - B->melt_T);
    if (draw(s, i) < 1.0 - exp(-rate * dt))
      s->solid[i] = 0, s->piece[i] = UINT32_MAX, melted++;
  }
  return melted;
}

/* |sum_j F_ji|: the lattice force the solid neighbours j would put on
 * fluid particle i were it solid, each through its own last transform
 * (i's nearest point l of j's lattice, F = w(|l|) k_j (R_j l - r_ji)):
 * how well i fits the neighbouring lattice (Wicke et al., Eq. 16). */
static double fit_force(const struct state *s, size_t i) {
  double F[3] = {0, 0, 0};
  for (uint32_t q = s->off[i]; q < s->off[i + 1]; q++) {
    size_t j = s->idx[q];
    if (!s->solid[j]) continue;
    const struct vm_body *B = &s->body[s->body_of[j]];
    const double *A = s->A + 9 * j;
    double Ai[9], R[9], qw[4] = {1, 0, 0, 0}, r[3], l[3], y[3], ll = 0.0;
    if (!msc_inverse3(A, Ai, 0.0)) continue;
    msc_polar(A, R, qw);
    for (int a = 0; a < 3; a++) r[a] = s->x[3 * i + a] - s->x[3 * j + a];
    for (int a = 0; a < 3; a++)
      y[a] = Ai[3 * a] * r[0] + Ai[3 * a + 1] * r[1] + Ai[3 * a + 2] * r[2];
    vm_nearest(y, B->D, s->ccp, l);
    for (int a = 0; a < 3; a++) ll += l[a] * l[a];
    double wk = vm_weight(sqrt(ll), s->support * B->D) * B->k;
    for (int a = 0; a < 3; a++)
      F[a] += wk * (R[3 * a] * l[0] + R[3 * a + 1] * l[1] +
                    R[3 * a + 2] * l[2] - r[a]);
  }
  return sqrt(F[0] * F[0] + F[1] * F[1] + F[2] * F[2]);
}

/* Freezing (Eq. 16): a fluid particle below its body's freezing point
 * with n solid neighbours of its object freezes at the rate lambda_f0
 * (T_f - T)(n - n_0) min(1, v_max / |v - vbar|) min(1, F_max / |sum_j
 * F_ji|), vbar the solid neighbours' mean velocity; it joins the lattice
 * turned as its nearest solid neighbour's.  Decided on the solid set the
 * step ended with (rows of its last integrate), then applied, so the
 * order of the particles does not matter. */
static size_t freeze(struct state *s, double dt) {
  size_t frozen = 0;
  for (size_t i = 0; i < s->n; i++) {
    const struct vm_body *B = &s->body[s->body_of[i]];
    s->work[i] = -1.0;
    if (s->solid[i] || !(s->T[i] < B->freeze_T)) continue;
    double vbar[3] = {0, 0, 0}, best = INFINITY;
    uint32_t n = 0, near = 0;
    for (uint32_t q = s->off[i]; q < s->off[i + 1]; q++) {
      uint32_t j = s->idx[q];
      if (!s->solid[j]) continue;
      double d2 = 0.0;
      for (int a = 0; a < 3; a++) {
        double e = s->x[3 * (size_t)j + a] - s->x[3 * i + a];
        d2 += e * e, vbar[a] += s->v[3 * (size_t)j + a];
      }
      if (d2 < best) best = d2, near = j;
      n++;
    }
    if (!(n > B->freeze_n)) continue;
    double u = 0.0;
    for (int a = 0; a < 3; a++) {
      double e = s->v[3 * i + a] - vbar[a] / n;
      u += e * e;
    }
    u = sqrt(u);
    double rate = B->freeze_rate * (B->freeze_T - s->T[i]) *
                  (n - B->freeze_n) * (u > B->freeze_v ? B->freeze_v / u : 1.0);
    if (B->freeze_F < INFINITY) { /* Eq. 16's last factor */
      double F = fit_force(s, i);
      rate *= F > B->freeze_F ? B->freeze_F / F : 1.0;
    }
    /* a stream apart from melting's draws */
    if (draw(s, i + 0x5bd1e995u * (uint64_t)s->n) < 1.0 - exp(-rate * dt))
      s->work[i] = (double)near;
  }
  for (size_t i = 0; i < s->n; i++) {
    if (!(s->work[i] >= 0.0)) continue;
    size_t j = (size_t)s->work[i];
    s->solid[i] = 1, s->piece[i] = s->piece[j], frozen++;
    memcpy(s->A + 9 * i, s->A + 9 * j, 9 * sizeof(double));
  }
  return frozen;
}

static size_t dock_bytes(const struct state *s) {
  size_t w = 2 * (size_t)s->dock_K + 1;
  return s->n * w * w * w * sizeof *s->dock;
}

static size_t who_bytes(const struct state *s) {
  size_t w = 2 * (size_t)s->dock_K + 1;
  return s->n * w * w * w * sizeof *s->who;
}

static int begin_step(ms_instance *inst, const struct ms_step *st) {
  struct state *s = S(inst);
  /* a clamp holds until its time is up (from the step's time: nothing
   * to save) */
  for (size_t i = 0; i < s->n; i++)
    s->held[i] = s->in_hold[i] && st->time < s->body[s->body_of[i]].hold_until;
  memcpy(s->x0, s->x, 3 * s->n * sizeof(double));
  memcpy(s->v0, s->v, 3 * s->n * sizeof(double));
  memcpy(s->A0, s->A, 9 * s->n * sizeof(double));
  if (s->dock) {
    memcpy(s->dock0, s->dock, dock_bytes(s));
    memcpy(s->who0, s->who, who_bytes(s));
  }
  memcpy(s->piece0, s->piece, s->n * sizeof *s->piece);
  s->pieces0 = s->pieces;
  return MS_OK;
}

static int rewind_step(ms_instance *inst) {
  struct state *s = S(inst);
  memcpy(s->x, s->x0, 3 * s->n * sizeof(double));
  memcpy(s->v, s->v0, 3 * s->n * sizeof(double));
  memcpy(s->A, s->A0, 9 * s->n * sizeof(double));
  if (s->dock) {
    memcpy(s->dock, s->dock0, dock_bytes(s));
    memcpy(s->who, s->who0, who_bytes(s));
  }
  memcpy(s->piece, s->piece0, s->n * sizeof *s->piece);
  s->pieces = s->pieces0;
  return MS_OK;
}

/* Clamp a set of particles' shared displacement d to the domain and
 * bounce their velocity v off the walls touched; 1 when a wall acted. */
static int walls(const struct state *s, const uint32_t *idx, uint32_t cnt,
                 double *d, double *v) {
  unsigned hit = ms_wall_clamp(s->lo, s->hi, s->x, s->r, idx, cnt, d);
  ms_wall_bounce(hit, s->restitution, s->friction, v);
  return hit != 0;
}

/* Whether the pass the energy limit made at the end of the last step
 * (limit_energy) is this step's first: the positions, masses and phases
 * it saw are still those (a rewind, a load, a write through the view
 * change them).  Its rows, densities, forces and fit are then bitwise
 * what integrate would compute: no fracture (docking draws differ
 * between a step and an energy). */
static int ahead_holds(const struct state *s) {
  return s->ahead &&
         !memcmp(s->x_ahead, s->x, 3 * s->n * sizeof(double)) &&
         !memcmp(s->m_ahead, s->m, s->n * sizeof(double)) &&
         !memcmp(s->solid_ahead, s->solid, s->n);
}

/* Whether a held particle moves this step: its clamp then does work on
 * the body, and the energy limit stays out. */
static int clamp_moves(const struct state *s) {
  for (size_t i = 0; i < s->n; i++) {
    const double *u = s->body[s->body_of[i]].hold_v;
    if (s->held[i] && (u[0] != 0.0 || u[1] != 0.0 || u[2] != 0.0)) return 1;
  }
  return 0;
}

/* The energy at the step's start from what integrate computed at these
 * positions (the fit's energy, the densities): energy()'s sum, term for
 * term, without a second pass. */
/* u plus the fluid's compression energy, sum m e(rho), in index order. */
static double plus_fluid(const struct state *s, double u) {
  for (size_t i = 0; i < s->n; i++)
    u += s->m[i] * vm_fluid_energy(&s->body[s->body_of[i]], s->rho[i]);
  return u;
}

static double start_energy(const struct state *s, int fluid) {
  struct ms_energy e = {0};
  ms_energy_of_particles(s->n, s->x, s->v, s->m, s->gravity, &e);
  double u = fluid ? plus_fluid(s, s->elastic) : s->elastic;
  return e.kinetic + e.potential + u;
}

/* Symplectic Euler: the lattice's forces and gravity kick, the damping
 * takes its share of the kicked non-rigid velocity, then the drift.  A
 * meta-particle takes its members' forces and their damping's momentum
 * whole, so both stay conserving when a hood reaches into one. */
static int integrate(ms_instance *inst, const struct ms_step *st,
                     const struct ms_metas *metas,
                     struct ms_meta_result *res) {
  struct state *s = S(inst);
  const double dt = st->dt, *F = st->external_force, *g = s->gravity;
  ms_meta_mark(metas, s->n, s->meta);
  int fluid = fluid_acts(s);
  if (ahead_holds(s)) { /* rows, densities, forces made by the limit */
    memcpy(s->A, s->A_ahead, 9 * s->n * sizeof(double));
  } else {
    int rc = rows(s);
    if (rc)
      return s->host->set_error(s->ctx, rc, "neighbour search failed (%zu "
                                "particles)", s->n);
    if (fluid) vm_fluid_density(s);
    s->elastic = lattice_forces(s, 1, dt, s->A);
  }
  s->ahead = 0;
  s->pieces = find_pieces(s);
  if (fluid) vm_fluid_forces(s);
  s->alone = s->energy_limit && !metas->count && !F && !clamp_moves(s);
  if (s->alone) s->e_start = start_energy(s, fluid);
  for (size_t i = 0; i < s->n; i++) {
    if (s->meta[i] >= 0 || s->held[i]) continue;
    for (int a = 0; a < 3; a++)
      s->v[3 * i + a] += dt * (g[a] + (s->f[3 * i + a] +
                                       (F ? F[3 * i + a] : 0.0)) / s->m[i]);
  }
  damping(s, dt);
  /* XSPH moves a fluid particle with its neighbours' mean velocity in
   * part; its own velocity stays (Monaghan's XSPH: the smoothing is in
   * the advection, not in the momentum) */
  if (fluid)
    vm_fluid_xsph(s, s->dvx);
  else
    memset(s->dvx, 0, 3 * s->n * sizeof(double));
  for (size_t i = 0; i < s->n; i++) {
    if (s->held[i] && s->meta[i] < 0) { /* the clamp moves it (or not) */
      const double *u = s->body[s->body_of[i]].hold_v;
      for (int a = 0; a < 3; a++)
        s->v[3 * i + a] = u[a], s->x[3 * i + a] += dt * u[a];
    }
    if (s->meta[i] >= 0 || s->held[i]) continue;
    double *v = s->v + 3 * i, d[3];
    uint32_t one = (uint32_t)i;
    for (int a = 0; a < 3; a++)
      v[a] += s->dv[3 * i + a], d[a] = dt * (v[a] + s->dvx[3 * i + a]);
    walls(s, &one, 1, d, v);
    for (int a = 0; a < 3; a++) s->x[3 * i + a] += d[a];
  }
  for (uint32_t k = 0; k < metas->count; k++) {
    uint32_t q0 = metas->member_offset[k], q1 = metas->member_offset[k + 1];
    double f[3] = {0, 0, 0}, P[3] = {0, 0, 0}, V[3], d[3], M = metas->mass[k];
    const double *held = NULL; /* a held member's clamp velocity */
    for (uint32_t q = q0; q < q1; q++) {
      size_t j = metas->member[q];
      if (s->held[j] && !held) held = s->body[s->body_of[j]].hold_v;
      for (int a = 0; a < 3; a++) {
        f[a] += s->f[3 * j + a] + (F ? F[3 * j + a] : 0.0);
        P[a] += s->m[j] * s->dv[3 * j + a];
      }
    }
    for (int a = 0; a < 3; a++) {
      V[a] = metas->velocity[3 * k + a] + dt * (g[a] + f[a] / M) + P[a] / M;
      d[a] = dt * V[a];
    }
    /* a held member holds its meta-particle to its clamp, as a wall
     * would */
    if (held)
      for (int a = 0; a < 3; a++) V[a] = held[a], d[a] = dt * held[a];
    res->constrained[k] = (uint8_t)(
        (held ? 0 : walls(s, metas->member + q0, q1 - q0, d, V)) | !!held);
    ms_meta_finish(metas, k, V, d, s->x, s->v, res);
  }
  for (size_t i = 0; i < 3 * s->n; i++)
    if (!isfinite(s->x[i]) || !isfinite(s->v[i]))
      return s->host->set_error(s->ctx, MS_ESTATE, "particle %zu of body %u "
                                "is not finite after the step (stiffness "
                                "too high for the step?)", i / 3,
                                s->body_of[i / 3]);
  return MS_OK;
}

/* Kinetic, gravitational, the lattice's (sum k w |R l - r|^2 / 4 over the
 * hoods as the particles stand, their transforms left as they are; into
 * *lattice too, the hoods' new fits into An unless NULL) and the fluid's
 * compression (sum m e(rho)): a neighbour search, the densities and a
 * fit.  energy() and the energy limit's end pass. */
static int measure(struct state *s, double *An, struct ms_energy *out,
                   double *lattice) {
  ms_energy_of_particles(s->n, s->x, s->v, s->m, s->gravity, out);
  int rc = rows(s);
  if (rc)
    return s->host->set_error(s->ctx, rc, "neighbour search failed (%zu "
                              "particles)", s->n);
  *lattice = out->internal = lattice_forces(s, 0, 0.0, An);
  if (!fluid_acts(s)) return MS_OK;
  vm_fluid_density(s);
  out->internal = plus_fluid(s, out->internal);
  return MS_OK;
}

static int energy(ms_instance *inst, struct ms_energy *out) {
  double lattice;
  return measure(S(inst), NULL, out, &lattice);
}

/* Heat conduction among the neighbours of an object (the rows of the
 * step's integrate), each pair once (j > i) in a fixed order, exact over
 * the step (ms_heat_pair): the heat sum is kept to rounding, and no pair
 * overshoots whatever dt. */
static void conduct(struct state *s, double dt) {
  for (size_t i = 0; i < s->n; i++) {
    const struct vm_body *A = &s->body[s->body_of[i]];
    if (!(A->conductivity > 0.0)) continue;
    double h = s->support * A->D;
    for (uint32_t q = s->off[i]; q < s->off[i + 1]; q++) {
      size_t j = s->idx[q];
      const struct vm_body *B = &s->body[s->body_of[j]];
      if (j <= i || !(B->conductivity > 0.0)) continue;
      double r2 = 0.0;
      for (int a = 0; a < 3; a++) {
        double e = s->x[3 * j + a] - s->x[3 * i + a];
        r2 += e * e;
      }
      double lam = 2.0 * A->conductivity * B->conductivity /
                   (A->conductivity + B->conductivity);
      ms_heat_pair(&s->T[i], s->m[i] * s->c[i], &s->T[j], s->m[j] * s->c[j],
                   lam * A->conduct_G * vm_weight(sqrt(r2), h), dt);
    }
  }
}

/* The energy limit.  The model has no energy its forces derive from:
 * each step fits every neighbourhood's transform anew, and a neighbour
 * entering a hood pulls at once with its lattice point's weight, so a
 * step can end with more energy than it began with (6 mJ in one step of
 * melting_body.cfg; README.md, "Energy").  A step on the system alone
 * (no meta-particle, no external force, no clamp moving) gives the
 * surplus back from the free particles' motion about their body's mean
 * velocity (plugins/common/give_back.h): each body's momentum unchanged,
 * its angular momentum scaled with that motion.  The step's end energy
 * is computed as energy() does; without fracture the pass is kept for
 * the next step's integrate (ahead_holds), so the limit costs the sums,
 * not a second neighbour search and fit. */
static int limit_energy(struct state *s) {
  struct ms_energy e = {0};
  int rc = measure(s, s->dock ? NULL : s->A_ahead, &e, &s->elastic);
  if (rc) return rc;
  if (!s->dock) {
    memcpy(s->x_ahead, s->x, 3 * s->n * sizeof(double));
    memcpy(s->m_ahead, s->m, s->n * sizeof(double));
    memcpy(s->solid_ahead, s->solid, s->n);
    s->ahead = 1;
  }
  double surplus = e.kinetic + e.potential + e.internal - s->e_start;
  if (surplus > 0.0)
    s->host->report(s->ctx, "energy_limited",
                    msc_give_back(s->n, s->v, s->m, s->body_of, s->nbody,
                                  s->held, s->acc, surplus));
  return MS_OK;
}

static int end_step(ms_instance *inst, const struct ms_step *st) {
  struct state *s = S(inst);
  conduct(s, st->dt);
  size_t melted = melt(s, st->dt), frozen = freeze(s, st->dt);
  if (melted) s->host->report(s->ctx, "melted", (double)melted);
  if (frozen) s->host->report(s->ctx, "frozen", (double)frozen);
  if (s->alone) {
    int rc = limit_energy(s);
    if (rc) return rc;
  }
  /* new pieces beyond the most there ever were: the statistic sums to
   * the most pieces of the run (a crack that heals and opens again, or a
   * draw refused for a step, counts once) */
  if (s->pieces > s->pieces_most) {
    s->host->report(s->ctx, "pieces", (double)(s->pieces - s->pieces_most));
    s->pieces_most = s->pieces;
  }
  s->steps++;
  return MS_OK;
}

/* The state: positions, velocities, the hoods' transforms (the lattice's
 * memory of the last step), temperatures, which particles are solid, the
 * step count the draws come from, the pieces and fracture's rates. */
static int save(ms_instance *inst, const struct ms_stream *out) {
  struct state *s = S(inst);
  uint64_t n = s->n;
  int rc;
  if ((rc = out->write(out->opaque, &n, sizeof n)) ||
      (rc = out->write(out->opaque, s->x, 3 * s->n * sizeof(double))) ||
      (rc = out->write(out->opaque, s->v, 3 * s->n * sizeof(double))) ||
      (rc = out->write(out->opaque, s->A, 9 * s->n * sizeof(double))) ||
      (rc = out->write(out->opaque, s->T, s->n * sizeof(double))) ||
      (rc = out->write(out->opaque, s->solid, s->n)) ||
      (rc = out->write(out->opaque, &s->steps, sizeof s->steps)) ||
      (rc = out->write(out->opaque, s->piece, s->n * sizeof *s->piece)) ||
      (rc = out->write(out->opaque, &s->pieces, sizeof s->pieces)) ||
      (rc = out->write(out->opaque, &s->pieces_most, sizeof s->pieces)))
    return rc;
  if (s->dock && (rc = out->write(out->opaque, s->dock, dock_bytes(s))))
    return rc;
  return s->dock ? out->write(out->opaque, s->who, who_bytes(s)) : MS_OK;
}

static int load(ms_instance *inst, const struct ms_stream *in) {
  struct state *s = S(inst);
  uint64_t n;
  int rc = in->read(in->opaque, &n, sizeof n);
  if (rc) return rc;
  if (n != s->n)
    return s->host->set_error(s->ctx, MS_ESTATE, "saved state holds %llu "
                              "particles, the scene %zu",
                              (unsigned long long)n, s->n);
  s->ahead = 0;
  if ((rc = in->read(in->opaque, s->x, 3 * s->n * sizeof(double))) ||
      (rc = in->read(in->opaque, s->v, 3 * s->n * sizeof(double))) ||
      (rc = in->read(in->opaque, s->A, 9 * s->n * sizeof(double))) ||
      (rc = in->read(in->opaque, s->T, s->n * sizeof(double))) ||
      (rc = in->read(in->opaque, s->solid, s->n)) ||
      (rc = in->read(in->opaque, &s->steps, sizeof s->steps)) ||
      (rc = in->read(in->opaque, s->piece, s->n * sizeof *s->piece)) ||
      (rc = in->read(in->opaque, &s->pieces, sizeof s->pieces)) ||
      (rc = in->read(in->opaque, &s->pieces_most, sizeof s->pieces)))
    return rc;
  if (s->dock && (rc = in->read(in->opaque, s->dock, dock_bytes(s))))
    return rc;
  return s->dock ? in->read(in->opaque, s->who, who_bytes(s)) : MS_OK;
}

static const struct ms_plugin virtual_material = {
    MS_PLUGIN_HEADER_INIT,
    MS_PLUGIN_METHODS,
    .flags = MS_PLUGIN_SELF_COLLISION | MS_PLUGIN_HEAT,
    .id = "virtual_material",
    .name = "Virtual material (implicit connectivity)",
    .version = PACKAGE_VERSION,
    .license = "MIT",
    .description = "Wicke et al. 2007: lattice-induced elastic forces "
                   "without stored connectivity, rigid motion undamped",
    .max_dt = max_dt,
    .filter_pairs = filter_pairs,
    .energy = energy,
};

MS_PLUGIN_EXPORT_ONE(virtual_material)
