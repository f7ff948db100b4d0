/* The conformance kit's coupled-contact check (conformance.h): the system
 * under test hit by a slab of reference grains, through the whole step. */
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <mergesplit/plugin_util.h>

#include "conformance.h"
#include "../scene/scene.h"
#include "../step/step.h"

void ms__kit_quiet(void *o, int level, const char *line) {
  (void)o, (void)level, (void)line;
}

/* Set group.key to a float (replacing what was there). */
static void set_float(config_setting_t *g, const char *key, double x) {
  if (config_setting_get_member(g, key)) config_setting_remove(g, key);
  config_setting_set_float(config_setting_add(g, key, CONFIG_TYPE_FLOAT), x);
}

static void set_vec(config_setting_t *g, const char *key,
                    const double *x) {
  if (config_setting_get_member(g, key)) config_setting_remove(g, key);
  config_setting_t *a = config_setting_add(g, key, CONFIG_TYPE_ARRAY);
  for (int i = 0; i < 3; i++) config_setting_set_float_elem(a, -1, x[i]);
}

/* The kit's scene turned into the coupled-contact scene: the momentum
 * rule, only the system under test and (with_slab) a slab of the
 * reference grains beside it, moving into it at `speed`; written to
 * `path`.  The slab's grains have the radius and mean mass of the
 * system's particles. */
static int coupled_scene(struct ms__kit *K, int with_slab, double speed,
                         double duration, char *path) {
  const struct ms__system *y = K->y;
  config_t *cfg = &K->S->scene.cfg;
  config_setting_t *root = config_root_setting(cfg);
  config_setting_t *sc = config_setting_get_member(root, "scene");
  set_float(sc, "duration", duration);
  set_float(sc, "fps", 1.0 / duration);
  if (config_setting_get_member(root, "output"))
    config_setting_remove(root, "output");
  if (config_setting_get_member(root, "coupling"))
    config_setting_remove(root, "coupling");
  config_setting_t *cp =
      config_setting_add(root, "coupling", CONFIG_TYPE_GROUP);
  config_setting_set_string(config_setting_add(cp, "sync", CONFIG_TYPE_STRING),
                            "momentum");
  config_setting_t *sys = config_setting_get_member(root, "systems");
  for (int i = config_setting_length(sys) - 1; i >= 0; i--)
    if (config_setting_get_elem(sys, (unsigned)i) != y->desc->section)
      config_setting_remove_elem(sys, (unsigned)i);
  if (with_slab) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3], r = 0.0, m = 0.0;
    for (int a = 0; a < 3; a++) hi[a] = -INFINITY;
    for (size_t i = 0; i < y->view.count; i++) {
      for (int a = 0; a < 3; a++) {
        lo[a] = fmin(lo[a], ms__at(&y->x, i)[a]);
        hi[a] = fmax(hi[a], ms__at(&y->x, i)[a]);
      }
      r = fmax(r, *ms__at(&y->r, i));
      m += *ms__at(&y->m, i) / (double)y->view.count;
    }
    /* two layers, their near face one radius sum away */
    double s = 2.0 * r, smin[3], smax[3], vel[3] = {-speed, 0.0, 0.0};
    for (int a = 0; a < 3; a++) smin[a] = lo[a] - r, smax[a] = hi[a] + r;
    smin[0] = hi[0] + 1.5 * r, smax[0] = smin[0] + 2.0 * s;
    config_setting_t *g = config_setting_add(sys, NULL, CONFIG_TYPE_GROUP);
    config_setting_set_string(config_setting_add(g, "name", CONFIG_TYPE_STRING),
                              "conformance_slab");
    config_setting_set_string(
        config_setting_add(g, "solver", CONFIG_TYPE_STRING), "particles");
    config_setting_t *sh = config_setting_add(g, "shape", CONFIG_TYPE_GROUP);
    config_setting_set_string(
        config_setting_add(sh, "type", CONFIG_TYPE_STRING), "box");
    set_vec(sh, "min", smin);
    set_vec(sh, "max", smax);
    set_float(g, "spacing", s);
    set_float(g, "radius", r);
    set_float(g, "mass", m);
    set_vec(g, "velocity", vel);
  }
  int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) return MS_EIO;
  config_write(cfg, f);
  fclose(f);
  return MS_OK;
}

/* Total momentum, mass and sum of |m v| of every system of S. */
static void momentum_of(ms_sim *S, double P[3], double *mass,
                        double *scale) {
  P[0] = P[1] = P[2] = *mass = *scale = 0.0;
  for (uint32_t s = 0; s < S->nsys; s++)
    for (size_t i = 0; i < S->sys[s].view.count; i++) {
      double m = *ms__at(&S->sys[s].m, i);
      *mass += m;
      for (int a = 0; a < 3; a++) {
        double p = m * ms__at(&S->sys[s].v, i)[a];
        P[a] += p, *scale += fabs(p);
      }
    }
}

struct coupled {
  double drift;         /* |P1 - P0 - M g t| / sum |m v| at the start */
  uint64_t metas, pen;  /* meta-particles formed, particles penetrating */
  uint64_t constrained; /* meta-particles the system's walls or pins held */
};

/* Run the coupled-contact scene, with or without the slab (u0: a velocity
 * added first to the system under test, as the core's write W2 would). */
static int coupled_run(struct ms__kit *K, int with_slab, double u0,
                       struct coupled *c, char *why, size_t whylen) {
  char path[] = "/tmp/ms-conformance-coupled-XXXXXX";
  double speed = 0.5, dur = 6.0 * (*ms__at(&K->y->r, 0)) / speed;
  if (coupled_scene(K, with_slab, speed, dur, path))
    return snprintf(why, whylen, "cannot write the coupled scene"), MS_EIO;
  struct ms_sim_options o = {.struct_size = sizeof o,
                             .threads = 1,
                             .no_output = 1,
                             .log = ms__kit_quiet,
                             .plugin_paths = K->S->opt.plugin_paths};
  ms_sim *S;
  char err[1024];
  int rc = ms_sim_open(path, &o, &S, err, sizeof err);
  unlink(path);
  if (rc) return snprintf(why, whylen, "%s", err), rc;
  /* alone: set it moving as the slab would (u0 along x) and squeezing
   * itself (u0 towards its centre), which its own forces must answer
   * without changing its momentum unless something outside it acts */
  const struct ms__system *y = &S->sys[0];
  double ctr[3] = {0.0, 0.0, 0.0}, R = 0.0;
  for (size_t i = 0; u0 != 0.0 && i < y->view.count; i++)
    for (int a = 0; a < 3; a++) ctr[a] += ms__at(&y->x, i)[a] / y->view.count;
  for (size_t i = 0; u0 != 0.0 && i < y->view.count; i++) {
    double d2 = 0.0;
    for (int a = 0; a < 3; a++)
      d2 += (ms__at(&y->x, i)[a] - ctr[a]) * (ms__at(&y->x, i)[a] - ctr[a]);
    R = fmax(R, sqrt(d2));
  }
  for (size_t i = 0; u0 != 0.0 && i < y->view.count; i++) {
    double *v = ms__at(&y->v, i);
    const double *x = ms__at(&y->x, i);
    v[0] += u0;
    for (int a = 0; R > 0.0 && a < 3; a++)
      v[a] += fabs(u0) * (ctr[a] - x[a]) / R;
  }
  double P0[3], P1[3], M, sc, t0 = S->stepper.time;
  momentum_of(S, P0, &M, &sc); /* sc: the momentum moved, at the start */
  ms__memset(c, 0, sizeof *c);
  while (!rc && S->stepper.time < dur) {
    rc = ms__step(&S->stepper, dur);
    const struct ms__metaset *ms = &S->stepper.metas;
    for (uint32_t k = 0; !rc && k < ms->merged; k++)
      for (uint32_t e = ms->eoff[k]; e < ms->eoff[k + 1]; e++)
        if (ms->esys[e] == 0 && ms->econ[e]) {
          c->constrained++;
          break;
        }
  }
  if (!rc) rc = ms__observe(&S->stepper);
  if (rc) {
    snprintf(why, whylen, "%s", ms_sim_error(S));
    ms_sim_close(S);
    return rc;
  }
  momentum_of(S, P1, &M, &sc);
  double d2 = 0.0;
  for (int a = 0; a < 3; a++) {
    double d = P1[a] - P0[a] - M * S->scene.gravity[a] * (S->stepper.time - t0);
    d2 += d * d;
  }
  double sc1;
  momentum_of(S, P1, &M, &sc1); /* the larger of the start's and end's */
  c->drift = sqrt(d2) / fmax(fmax(sc, sc1), 1e-300);
  c->metas = S->stepper.frame_counts.metas;
  c->pen = ms__penetrations(&S->stepper.frame_counts.pen);
  ms_sim_close(S);
  return MS_OK;
}

/* The plugin's particles hit by a slab of the reference grains (the
 * shipped `particles` solver): they must meet (meta-particles form),
 * nothing ends through a sheet or inside a solid, and the total momentum
 * changes by gravity alone, to 1e-9 of the momentum moved -- unless the
 * system exchanges momentum with something outside it (walls, pins, a
 * free surface's pressure: seen when it is set moving and squeezed alone,
 * or holds a contact), which the line then says. */
int ms__kit_check_coupled(struct ms__kit *K, struct ms__verdict *v) {
  struct coupled alone, both;
  char why[600];
  if (coupled_run(K, 0, -0.2, &alone, why, sizeof why)) /* as pushed */
    return ms__kit_fail(v, "the system alone: %s", why);
  if (coupled_run(K, 1, 0.0, &both, why, sizeof why))
    return ms__kit_fail(v, "against the reference grains: %s", why);
  if (!both.metas)
    return ms__kit_fail(v, "the reference grains never met the particles");
  if (both.pen)
    return ms__kit_fail(
        v, "%llu particles ended through a sheet or inside a solid, or "
           "passed through one",
        (unsigned long long)both.pen);
  if (alone.drift > 1e-9 || both.constrained)
    return ms__kit_pass(
        v,
        "%llu meta-particles, no penetration; momentum not "
        "checked: something outside the system acts on it (walls, "
        "pins, a free surface: alone, set moving and squeezed, it "
        "changes its momentum by %.2g; %llu contacts held)",
        (unsigned long long)both.metas, alone.drift,
        (unsigned long long)both.constrained);
  if (both.drift > 1e-9)
    return ms__kit_fail(v,
                        "momentum drifted by %.3g of the momentum moved in the "
                        "contact (alone: %.1g)",
                        both.drift, alone.drift);
  return ms__kit_pass(v,
                      "%llu meta-particles, no penetration, momentum kept to "
                      "%.1g",
                      (unsigned long long)both.metas, both.drift);
}
