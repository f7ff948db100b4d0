/* What a run leaves on disk: frame files, previews, checkpoints, and the
 * stop on an interrupt (see run.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "../io/io.h"
#include "../preview/preview.h"
#include "../scene/scene.h"
#include "../base/base.h"

static const char **system_names(struct ms_sim *S) {
  const char **names = malloc((S->nsys ? S->nsys : 1) * sizeof *names);
  for (uint32_t s = 0; names && s < S->nsys; s++)
    names[s] = S->sys[s].desc->name;
  return names;
}

/* The output's series: the systems, then their surfaces (NAME_surface). */
static int open_series(struct ms_sim *S, const char *dir) {
  uint32_t ns = S->scene.nsurface, n = S->nsys + ns;
  char **names = calloc(n, sizeof *names);
  int rc = names ? MS_OK : MS_ENOMEM;
  for (uint32_t i = 0; !rc && i < n; i++) {
    const char *sys = S->sys[i < S->nsys ? i : S->scene.surface_sys[i - S->nsys]]
                          .desc->name;
    size_t len = strlen(sys) + 9;
    if (!(names[i] = malloc(len))) rc = MS_ENOMEM;
    else snprintf(names[i], len, i < S->nsys ? "%s" : "%s_surface", sys);
  }
  if (!rc && ns && !(S->surf = calloc(ns, sizeof *S->surf))) rc = MS_ENOMEM;
  if (rc) rc = ms__errf(&S->err, MS_ENOMEM, "out of memory");
  else
    rc = ms__output_open(&S->out, dir, S->scene.out_formats,
                         MS__FW_BACKGROUND | MS__FW_DIRECT |
                             (S->scene.out_zlib ? MS__OUT_ZLIB : 0u),
                         n, (const char *const *)names, &S->err);
  for (uint32_t i = 0; names && i < n; i++) free(names[i]);
  free(names);
  return rc;
}

static int open_files(struct ms_sim *S) {
  const char *dir = S->opt.output_dir ? S->opt.output_dir : S->scene.out_dir;
  int rc = open_series(S, dir);
  if (rc) return rc;
  int box = 1; /* a scene without walls has an infinite domain: none */
  for (int a = 0; a < 3; a++)
    box &= isfinite(S->scene.domain_min[a]) &&
           isfinite(S->scene.domain_max[a]) &&
           S->scene.domain_min[a] < S->scene.domain_max[a];
  if (box) ms__output_domain(S->out, S->scene.domain_min, S->scene.domain_max);
  size_t n = strlen(dir) + 32;
  if (!(S->checkpoint_path = malloc(n)) || !(S->out_dir = strdup(dir)))
    return ms__errf(&S->err, MS_ENOMEM, "out of memory");
  snprintf(S->checkpoint_path, n, "%s/checkpoint.msck", dir);
  if (!S->scene.preview) return MS_OK;
  char *pdir = malloc(n);
  if (!pdir) return ms__errf(&S->err, MS_ENOMEM, "out of memory");
  snprintf(pdir, n, "%s/preview", dir);
  rc = ms__preview_open(&S->preview, &S->scene, pdir, &S->err);
  free(pdir);
  return rc;
}

int ms__outputs_open(struct ms_sim *S) {
  int rc = MS_OK;
  if (!S->opt.no_output && (rc = open_files(S))) return rc;
  if (S->checkpoint_path && S->scene.checkpoint_every > 0) {
    char where[700] = "--checkpoint-every"; /* not in the scene */
    config_setting_t *k = config_lookup(&S->scene.cfg,
                                        "output.checkpoint_every");
    if (k) ms__cfg_where(k, NULL, where, sizeof where);
    if ((rc = ms__checkpoint_supported(S, where, &S->err))) return rc;
  }
  if (!S->opt.resume_path) return MS_OK;
  if ((rc = ms__checkpoint_read(S, S->opt.resume_path, &S->err))) return rc;
  ms__log(S, MS_SINK_INFO, "resuming from %s at frame %lld, t = %.6g s, "
          "step %llu", S->opt.resume_path, (long long)S->frame, S->stepper.time,
          (unsigned long long)S->stepper.step);
  return MS_OK;
}

/* Meta-particle of every particle in the last step (-1: none).  The
 * meta-particle set and the global -> (system, local) map of the last
 * step are still intact after ms__step returns. */
static int record_metas(struct ms_sim *S) {
  for (uint32_t s = 0; s < S->nsys; s++) {
    struct ms__system *y = &S->sys[s];
    size_t n = y->view.count;
    if (n > y->cap_meta_id) {
      if (ms__grow((void **)&y->meta_id, n, sizeof *y->meta_id))
        return ms__errf(&S->err, MS_ENOMEM, "out of memory");
      y->cap_meta_id = n;
    }
    for (size_t i = 0; i < n; i++) y->meta_id[i] = -1;
  }
  const struct ms__domain *D = S->stepper.dom;
  if (D && D->meta_id) { /* a run over ranks: every rank's, numbered */
    for (uint32_t s = 0; s < S->nsys; s++)
      for (size_t i = 0; i < S->sys[s].view.count; i++)
        S->sys[s].meta_id[i] = D->meta_id[S->sys[s].offset + i];
    return MS_OK;
  }
  const struct ms__metaset *M = &S->stepper.metas;
  for (uint32_t k = 0; k < M->merged; k++)
    for (uint32_t q = M->offset[k]; q < M->offset[k + 1]; q++) {
      struct ms__system *y = &S->sys[M->sys[q]];
      uint32_t local = S->stepper.P.local[M->member[q]];
      if (local < y->view.count) y->meta_id[local] = (int32_t)k;
    }
  return MS_OK;
}

/* The triangles a system's plugin joins its particles with (ABI 1.7),
 * checked against its view. */
static int system_tris(struct ms_sim *S, uint32_t s, struct ms__tris *t) {
  struct ms__system *y = &S->sys[s];
  t->idx = NULL, t->n = 0;
  if (!y->plugin->desc.surface) return MS_OK;
  struct ms_surface out = {.struct_size = sizeof out};
  int rc = MS__CALL(y, surface, y->inst, &out);
  if (rc) return ms__system_fail(y, &S->err, rc, "surface() failed");
  if (out.count > UINT32_MAX || (out.count && !out.triangles))
    return ms__errf(&S->err, MS_EPLUGIN, "system '%s' (solver '%s', %s): "
                    "surface() gave %zu triangles and no indices, or more "
                    "than 2^32",
                    y->desc->name, y->plugin->desc.id, y->plugin->path,
                    out.count);
  for (size_t k = 0; k < 3 * out.count; k++)
    if (out.triangles[k] >= y->view.count)
      return ms__errf(&S->err, MS_EPLUGIN, "system '%s' (solver '%s', %s): "
                      "surface() triangle %zu names particle %u of %zu",
                      y->desc->name, y->plugin->desc.id, y->plugin->path,
                      k / 3, out.triangles[k], y->view.count);
  t->idx = out.triangles, t->n = out.count;
  return MS_OK;
}

/* Surface k of output.surface as a view of its own (series nsys + k). */
static int fluid_surface(struct ms_sim *S, uint32_t k, struct ms_view *v,
                         struct ms_field f[2], struct ms__tris *t) {
  const struct ms__system *y = &S->sys[S->scene.surface_sys[k]];
  struct ms__surface_mesh *m = &S->surf[k];
  int rc = ms__surface_build(m, &y->view, y->desc->name,
                             S->scene.surface_cell, S->scene.surface_kernel,
                             &S->err);
  if (rc) return rc;
  f[0] = (struct ms_field){"position", MS_TYPE_F64, 3, 3 * sizeof(double),
                           m->x};
  f[1] = (struct ms_field){"normal", MS_TYPE_F64, 3, 3 * sizeof(double),
                           m->normal};
  *v = (struct ms_view){sizeof *v, 2, m->nv, f};
  t->idx = m->tri, t->n = m->nt;
  return MS_OK;
}

int ms__outputs_frame(struct ms_sim *S) {
  if (!S->out || !(S->frame % S->scene.out_every == 0 ||
                   S->frame == S->frames_total))
    return MS_OK;
  int rc = record_metas(S);
  if (rc) return rc;
  uint32_t n = S->nsys + S->scene.nsurface;
  struct ms_view *views = malloc(n * sizeof *views);
  const int32_t **meta = calloc(n, sizeof *meta);
  struct ms__tris *tri = calloc(n, sizeof *tri);
  struct ms_field *sf = calloc(2 * (S->scene.nsurface + 1), sizeof *sf);
  const char **names = system_names(S);
  if (!views || !meta || !tri || !sf || !names)
    rc = ms__errf(&S->err, MS_ENOMEM, "out of memory");
  for (uint32_t s = 0; !rc && s < S->nsys; s++) {
    views[s] = S->sys[s].view;
    meta[s] = S->sys[s].meta_id;
    rc = system_tris(S, s, &tri[s]);
  }
  for (uint32_t k = 0; !rc && k < S->scene.nsurface; k++)
    rc = fluid_surface(S, k, &views[S->nsys + k], sf + 2 * k,
                       &tri[S->nsys + k]);
  if (!rc) {
    double t0 = ms__now();
    rc = ms__output_frame(S->out, S->frame, S->stepper.time, views, meta, tri,
                          &S->err);
    double dt = ms__now() - t0;
    S->out_seconds += dt;
    if (!S->out_frames) S->out_first_seconds = dt;
    S->out_frames += !rc;
  }
  if (!rc && S->preview)
    rc = ms__preview_frame(S->preview, S->frame, S->stepper.time, views, names,
                           S->nsys, &S->err);
  free(views);
  free(meta);
  free(tri);
  free(sf);
  free(names);
  return rc;
}

int ms__outputs_flush(struct ms_sim *S) {
  if (!S->out) return MS_OK;
  double t0 = ms__now();
  int rc = ms__output_flush(S->out, &S->err);
  S->out_seconds += ms__now() - t0;
  S->out_write_seconds = ms__output_seconds(S->out);
  return rc;
}

int ms__outputs_checkpoint(struct ms_sim *S) {
  int64_t every = S->scene.checkpoint_every;
  if (!S->checkpoint_path || every <= 0 || S->frame == 0 ||
      S->frame % every != 0)
    return MS_OK;
  /* A checkpoint never runs ahead of the frames it follows. */
  int rc = ms__outputs_flush(S);
  if (!rc) rc = ms__checkpoint_write(S, S->checkpoint_path, &S->err);
  if (!rc)
    ms__log(S, MS_SINK_DEBUG, "checkpoint %s at frame %lld",
            S->checkpoint_path, (long long)S->frame);
  return rc;
}

int ms__interrupted(const struct ms_sim *S) {
  return S->opt.interrupt && *S->opt.interrupt;
}

int ms__interrupt(struct ms_sim *S) {
  struct ms__err e = {0};
  char at[200];
  snprintf(at, sizeof at, "interrupted at t = %.6g s (frame %lld of %lld, "
           "step %llu)", S->stepper.time, (long long)S->frame,
           (long long)S->frames_total, (unsigned long long)S->stepper.step);
  if (!S->checkpoint_path)
    return ms__errf(&S->err, MS_EINTR, "%s; no checkpoint (no output)", at);
  if (ms__output_flush(S->out, &e))
    return ms__errf(&S->err, MS_EINTR, "%s; no checkpoint written: %s", at,
                    e.msg);
  if (ms__checkpoint_write(S, S->checkpoint_path, &e))
    return ms__errf(&S->err, MS_EINTR, "%s; no checkpoint written: %s", at,
                    e.msg);
  return ms__errf(&S->err, MS_EINTR, "%s; checkpoint written to %s", at,
                  S->checkpoint_path);
}

void ms__progress(struct ms_sim *S, int frame_done) {
  if (!S->opt.progress) return;
  struct ms_progress p = {sizeof p,
                          frame_done,
                          S->frame,
                          S->frames_total,
                          S->stepper.time,
                          (double)S->frames_total / S->scene.fps,
                          S->stepper.step,
                          ms_sim_particles(S),
                          S->stepper.metas.merged};
  S->opt.progress(S->opt.progress_opaque, &p);
}

void ms__outputs_close(struct ms_sim *S) {
  ms__output_close(S->out);
  S->out = NULL;
  for (uint32_t k = 0; S->surf && k < S->scene.nsurface; k++)
    ms__surface_free(&S->surf[k]);
  free(S->surf);
  S->surf = NULL;
  ms__preview_close(S->preview);
  S->preview = NULL;
  free(S->checkpoint_path);
  S->checkpoint_path = NULL;
  free(S->out_dir);
  S->out_dir = NULL;
  for (uint32_t s = 0; S->sys && s < S->nsys; s++) {
    free(S->sys[s].meta_id);
    S->sys[s].meta_id = NULL;
  }
}

const char *ms_sim_checkpoint_path(const ms_sim *S) {
  return S->checkpoint_path;
}

const char *ms_sim_output_dir(const ms_sim *S) { return S->out_dir; }

int ms_sim_checkpoint(ms_sim *S, const char *path) {
  if (S->err.status) return S->err.status;
  int rc = ms__outputs_flush(S);
  return rc ? rc : ms__checkpoint_write(S, path, &S->err);
}
