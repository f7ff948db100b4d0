/* The systems' side of a coupled step (step.h). */
#include "step.h"

#include <math.h>
#include <string.h>

#include <mergesplit/plugin_util.h>

#include "../coupling/coupling.h"

#define TRY(expr)        \
  do {                   \
    int rc_ = (expr);    \
    if (rc_) return rc_; \
  } while (0)

/* The ms_metas a system receives (valid while S->sys[s].sm is unchanged). */
static struct ms_metas metas_of(const struct ms__sysmetas *sm) {
  return (struct ms_metas){
      .struct_size = sizeof(struct ms_metas), .count = sm->count,
      .member_offset = sm->member_offset, .member = sm->member,
      .mass = sm->mass, .own_mass = sm->own_mass, .position = sm->pos,
      .velocity = sm->vel, .inertia = sm->inertia};
}

/* How system y's integrate() takes a meta-particle's inertia. */
static int inertia_use(const struct ms__system *y) {
  uint32_t f = y->plugin->desc.flags;
  return (f & MS_PLUGIN_META_OWN_MASS)    ? MS__INERTIA_OWN
         : (f & MS_PLUGIN_INERTIA_TENSOR) ? MS__INERTIA_TENSOR
                                          : MS__INERTIA_SCALAR;
}

/* Collective response (ABI 1.1, doc/sync.md): every system that can states
 * the inertia the rest of it adds to its meta-particles; each system then
 * integrates with the others' added.  The paper's rule knows none. */
int ms__collective_inertia(struct ms__stepper *S, const struct ms_step *st) {
  struct ms__metaset *M = &S->metas;
  if (S->scene->sync == MS__SYNC_PAPER) return MS_OK;
  for (uint32_t s = 0; s < S->nsys; s++)
    if (inertia_use(&S->sys[s]) == MS__INERTIA_OWN)
      ms__sysmetas_own_mass(&S->sys[s].sm, M);
  for (uint32_t s = 0; s < S->nsys; s++) {
    struct ms__system *y = &S->sys[s];
    struct ms__sysmetas *sm = &y->sm;
    if (!y->plugin->desc.meta_inertia || !sm->count) continue;
    struct ms_metas in = metas_of(sm);
    ms__memset(sm->coll, 0, 6 * (size_t)sm->count * sizeof *sm->coll);
    int rc = MS__CALL(y, meta_inertia, y->inst, st, &in, sm->coll);
    if (rc)
      return ms__system_fail(y, S->err, rc, "meta_inertia() failed");
    for (uint32_t c = 0; c < sm->count; c++) {
      const double *C = sm->coll + 6 * c;
      if (!ms_sym3_is_psd(C))
        return ms__errf(S->err, MS_ENUMERIC,
                        "system '%s' (solver '%s', %s): meta_inertia() "
                        "stated inertia (%g, %g, %g, %g, %g, %g) kg for "
                        "meta-particle %u at t = %g s (step %llu): not "
                        "finite or not positive semidefinite",
                        y->desc->name, y->plugin->desc.id, y->plugin->path,
                        C[0], C[1], C[2], C[3], C[4], C[5], c, S->time,
                        (unsigned long long)S->step);
    }
    ms__sysmetas_state_inertia(sm, M);
  }
  ms__metaset_inertia(M);
  for (uint32_t s = 0; s < S->nsys; s++)
    ms__sysmetas_inertia(&S->sys[s].sm, M, inertia_use(&S->sys[s]));
  return MS_OK;
}

/* System s integrates its piece of the step (its metas as sm holds them),
 * with the stage's pushed forces unless it pushes itself. */
static int integrate_one(struct ms__stepper *S, struct ms_step *st,
                         uint32_t s) {
  struct ms__system *y = &S->sys[s];
  struct ms__sysmetas *sm = &y->sm;
  const double *F = S->fpushed && !y->plugin->desc.push ? S->fpushed : S->fext;
  st->external_force = F ? F + 3 * y->offset : NULL;
  struct ms_metas in = metas_of(sm);
  struct ms_meta_result out = {.struct_size = sizeof out, .count = sm->count,
                               .velocity = sm->rvel, .displacement = sm->rdisp,
                               .constrained = sm->rcon};
  ms__memset(sm->rcon, 0, sm->count);
  double t0 = ms__now();
  int rc = MS__CALL(y, integrate, y->inst, st, &in, &out);
  y->time_stage[st->stage >= 2] += ms__now() - t0;
  if (rc) return ms__system_fail(y, S->err, rc, "integrate() failed");
  ms__sysmetas_collect(sm, &S->metas);
  return MS_OK;
}

/* Forces on other systems (plugin.h, ABI 1.5): every system with push()
 * adds its forces on each system without; the baselines' forces first. */
static int collect_pushed(struct ms__stepper *S, const struct ms_step *st) {
  size_t n3 = 3 * S->ntotal;
  if (S->ntotal + 1 > S->cap_fpush) {
    size_t c = S->ntotal + S->ntotal / 4 + 64;
    if (ms__grow((void **)&S->fpush_store, c, 3 * sizeof(double)))
      return ms__errf(S->err, MS_ENOMEM, "out of memory");
    S->cap_fpush = c;
  }
  double *F = S->fpush_store;
  if (S->fext) ms__memcpy(F, S->fext, n3 * sizeof *F);
  else ms__memset(F, 0, n3 * sizeof *F);
  for (uint32_t p = 0; p < S->nsys; p++) {
    struct ms__system *y = &S->sys[p];
    if (!y->plugin->desc.push) continue;
    for (uint32_t r = 0; r < S->nsys; r++) {
      struct ms__system *x = &S->sys[r];
      if (x->plugin->desc.push) continue;
      int rc = MS__CALL(y, push, y->inst, st, r, F + 3 * x->offset,
                                    x->view.count);
      if (rc) return ms__system_fail(y, S->err, rc, "push() failed");
      for (size_t i = 3 * x->offset; i < 3 * (x->offset + x->view.count); i++)
        if (!isfinite(F[i]))
          return ms__errf(S->err, MS_ENUMERIC,
                          "system '%s' (solver '%s', %s): push() gave "
                          "particle %zu of system '%s' a force that is not "
                          "finite at t = %g s (step %llu)",
                          y->desc->name, y->plugin->desc.id, y->plugin->path,
                          i / 3 - x->offset, x->desc->name, S->time,
                          (unsigned long long)S->step);
    }
  }
  S->fpushed = F;
  return MS_OK;
}

int ms__integrate_all(struct ms__stepper *S, struct ms_step *st,
                      const uint8_t *kept) {
  int pushers = 0;
  for (uint32_t s = 0; s < S->nsys; s++)
    if (S->sys[s].plugin->desc.push) {
      pushers = 1;
      if (!(kept && kept[s])) TRY(integrate_one(S, st, s));
    }
  if (pushers) TRY(collect_pushed(S, st));
  for (uint32_t s = 0; s < S->nsys; s++)
    if (!S->sys[s].plugin->desc.push && !(kept && kept[s]))
      TRY(integrate_one(S, st, s));
  return MS_OK;
}

/* Collective response, second half (plugin.h): the systems that stated
 * inertia answer for the meta-particles they lead and make the part of
 * them they counted follow the others.  Before splitting. */
static int respond(struct ms__stepper *S, const struct ms_step *st) {
  if (!S->metas.collective) return MS_OK;
  for (uint32_t s = 0; s < S->nsys; s++) {
    struct ms__system *y = &S->sys[s];
    struct ms__sysmetas *sm = &y->sm;
    if (!sm->stated) continue;
    ms__sysmetas_response(sm, &S->metas);
    struct ms_metas in = metas_of(sm);
    struct ms_meta_response r = {.struct_size = sizeof r, .count = sm->count,
                                 .lead = sm->lead, .impulse = sm->imp,
                                 .velocity = sm->vsync,
                                 .displacement = sm->dsync};
    int rc = MS__CALL(y, meta_response, y->inst, st, &in, &r);
    if (rc)
      return ms__system_fail(y, S->err, rc, "meta_response() failed");
    for (uint32_t c = 0; c < sm->count; c++) {
      const double *v = sm->vsync + 3 * c, *d = sm->dsync + 3 * c;
      if (sm->lead[c] && !(isfinite(v[0] + v[1] + v[2] + d[0] + d[1] + d[2])))
        return ms__errf(S->err, MS_ENUMERIC,
                        "system '%s' (solver '%s', %s): meta_response() "
                        "gave meta-particle %u velocity (%g, %g, %g), "
                        "displacement (%g, %g, %g) at t = %g s (step %llu)",
                        y->desc->name, y->plugin->desc.id, y->plugin->path,
                        c, v[0], v[1], v[2], d[0], d[1], d[2], S->time,
                        (unsigned long long)S->step);
    }
    ms__sysmetas_led(sm, &S->metas);
  }
  return MS_OK;
}

static void add_sync_ledger(struct ms__ledger *L, const struct ms__ledger *p) {
  L->stored += p->stored;
  L->pexch += p->pexch;
  for (int a = 0; a < 3; a++) L->pdefect[a] += p->pdefect[a];
}

/* Integrate again the systems holding a taking-part meta-particle, each
 * starting it at v + eext (coupling.h). */
static int integrate_again(struct ms__stepper *S, struct ms_step *st,
                           const uint8_t *touched) {
  const struct ms__metaset *M = &S->metas;
  for (uint32_t s = 0; s < S->nsys; s++) {
    struct ms__system *y = &S->sys[s];
    struct ms__sysmetas *sm = &y->sm;
    if (!touched[s]) continue;
    int rc = MS__CALL(y, rewind, y->inst);
    if (rc) return ms__system_fail(y, S->err, rc, "rewind() failed");
    for (uint32_t c = 0; c < sm->count; c++)
      for (int a = 0; a < 3; a++)
        sm->vel[3 * c + a] = M->vel[3 * sm->meta[c] + a] +
                             M->eext[3 * sm->entry[c] + a];
    TRY(integrate_one(S, st, s));
  }
  return MS_OK;
}

/* Whether every system's result agrees with the synchronised one (the
 * residual of coupling.h within coupling.tolerance); marks in S->touched
 * the systems to integrate again if not: those holding a taking-part
 * meta-particle, and those that answered meta_response() (rewind undoes
 * it). */
static int agreed(struct ms__stepper *S, const double *gd, double *ratio) {
  double scale;
  ms__memset(S->touched, 0, S->nsys);
  double r = ms__iqn_residual(&S->iqn, &S->metas, gd, S->touched, &scale);
  for (uint32_t s = 0; s < S->nsys; s++)
    S->touched[s] |= S->metas.collective && S->sys[s].sm.stated;
  *ratio = scale > 0.0 ? r / scale : 0.0;
  return r <= S->scene->tolerance * scale;
}

/* Synchronise (and let the leading systems answer); with
 * coupling.iterations > 1 and the momentum rule, integrate again until
 * every system's result agrees with the synchronised one.  A last pass
 * that did not converge and agrees less than an earlier one is done again
 * from that one's start (iterate.c).  Only the last pass counts in the
 * ledger: it is the one the split uses. */
int ms__synchronise(struct ms__stepper *S, struct ms_step *st) {
  const struct ms__scene *sc = S->scene;
  const double gd[3] = {sc->gravity[0] * st->dt, sc->gravity[1] * st->dt,
                        sc->gravity[2] * st->dt};
  uint32_t passes = sc->sync == MS__SYNC_MOMENTUM ? sc->iterations : 1;
  int redo = 0;
  if (passes > 1 &&
      ms__iqn_start(&S->iqn, &S->metas, passes - 1 < 32 ? passes - 1 : 32))
    return ms__errf(S->err, MS_ENOMEM, "out of memory");
  for (uint32_t p = 1;; p++) {
    struct ms__ledger L = {0};
    double ratio;
    ms__metaset_sync(&S->metas, sc->sync, st->dt, sc->gravity, &L);
    TRY(respond(S, st));
    if (passes > 1 && !redo && !agreed(S, gd, &ratio)) {
      if (ms__iqn_keep_best(&S->iqn, &S->metas, ratio))
        return ms__errf(S->err, MS_ENOMEM, "out of memory");
      if (p < passes) {
        S->frame_counts.passes++;
        ms__iqn_update(&S->iqn, &S->metas, sc->relaxation);
        TRY(integrate_again(S, st, S->touched));
        continue;
      }
      S->frame_counts.unconverged++;
      if ((redo = ms__iqn_restore_best(&S->iqn, &S->metas, ratio))) {
        S->frame_counts.passes++;
        TRY(integrate_again(S, st, S->touched));
        continue;
      }
    }
    add_sync_ledger(&S->frame_counts.ledger, &L);
    return MS_OK;
  }
}
