/* JSON run report. */
#include "run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file (--report), and the frames kept in memory for ms_sim_report
 * (ms_sim_options.keep_report); either may be absent. */
struct ms__report {
  FILE *f;
  char *path;
  int nframes;
  FILE *mem;
  char *membuf;
  size_t memlen;
};

const char *const ms__phase_names[MS__PH_COUNT] = {
    "detection", "merging", "stage1", "stage2", "sync", "splitting",
    "metrics", "other"};

static void num(FILE *f, double v) {
  if (isfinite(v))
    fprintf(f, "%.17g", v);
  else
    fputs("null", f);
}

/* Strings we write are names we validated (no quotes or controls) or
 * messages; escape anyway. */
static void str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

void ms__system_totals(const struct ms_sim *S, uint32_t s, double *p,
                       double *ke) {
  const struct ms__system *y = &S->sys[s];
  double px = 0, py = 0, pz = 0, e = 0;
  for (size_t i = 0; i < y->view.count; i++) {
    const double *v = ms__at(&y->v, i);
    double m = *ms__at(&y->m, i);
    px += m * v[0], py += m * v[1], pz += m * v[2];
    e += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  }
  p[0] = px, p[1] = py, p[2] = pz;
  *ke = e;
}

static void header(FILE *f, const struct ms_sim *S) {
  const struct ms__scene *sc = &S->scene;
  fprintf(f, "{\n\"format\": \"mergesplit-report\", \"format_version\": 1,\n");
  fprintf(f, "\"mergesplit_version\": ");
  str(f, ms_version());
  fprintf(f, ",\n\"scene\": ");
  str(f, sc->path);
  fprintf(f, ",\n\"overrides\": [");
  for (size_t i = 0; i < sc->noverrides; i++) {
    fprintf(f, "%s", i ? ", " : "");
    str(f, sc->overrides[i] + 6); /* KEY=VALUE, without "--set " */
  }
  fprintf(f, "],\n\"threads\": %d, \"blas_threads\": %d, \"seed\": %llu, "
          "\"fps\": ", S->threads, S->blas_threads,
          (unsigned long long)sc->seed);
  num(f, sc->fps);
  fprintf(f, ",\n\"coupling\": {\"method\": \"%s\", \"alpha\": ",
          ms__method_name(sc->method));
  num(f, sc->alpha);
  fprintf(f, ", \"beta\": ");
  num(f, sc->beta);
  fprintf(f, ", \"n_min\": %u, \"n_max\": %u, \"two_stage\": %s, \"cfl\": ",
          sc->n_min, sc->n_max, sc->two_stage ? "true" : "false");
  num(f, sc->cfl);
  fprintf(f, "},\n\"systems\": [");
  for (uint32_t s = 0; s < S->nsys; s++) {
    fprintf(f, "%s{\"name\": ", s ? ", " : "");
    str(f, S->sys[s].desc->name);
    fprintf(f, ", \"solver\": ");
    str(f, S->sys[s].plugin->desc.id);
    fprintf(f, ", \"particles\": %zu}", S->sys[s].view.count);
  }
  fprintf(f, "],\n\"frames\": [\n");
}

int ms__report_open(struct ms__report **out, const char *path, int keep,
                    const struct ms_sim *S, struct ms__err *err) {
  struct ms__report *r = calloc(1, sizeof *r);
  *out = NULL;
  if (!r || (path && !(r->path = strdup(path))) ||
      (keep && !(r->mem = open_memstream(&r->membuf, &r->memlen)))) {
    free(r ? r->path : NULL);
    free(r);
    return ms__errf(err, MS_ENOMEM, "out of memory");
  }
  if (path && !(r->f = fopen(path, "w"))) {
    int e = errno;
    if (r->mem) fclose(r->mem);
    free(r->membuf);
    free(r->path);
    free(r);
    return ms__errf(err, MS_EIO, "%s: cannot write the report: %s", path,
                    strerror(e));
  }
  /* the header as the run opened (a hand-over changes the counts later):
   * the document in memory is the file's */
  if (r->f) header(r->f, S);
  if (r->mem) header(r->mem, S);
  *out = r;
  return MS_OK;
}

static void ledger(FILE *f, const struct ms__ledger *L) {
  fprintf(f, "{\"stored\": ");
  num(f, L->stored);
  fprintf(f, ", \"restored\": ");
  num(f, L->restored);
  fprintf(f, ", \"dissipated\": ");
  num(f, L->stored - L->restored);
  fprintf(f, ", \"merges\": %llu, \"splits\": %llu, \"orthogonal\": %llu, "
             "\"contact_impulses\": %llu, \"contact_energy\": ",
          (unsigned long long)L->merges, (unsigned long long)L->splits,
          (unsigned long long)L->ortho, (unsigned long long)L->contacts);
  num(f, L->contact);
  fprintf(f, ", \"momentum_defect\": [");
  for (int a = 0; a < 3; a++) {
    if (a) fputs(", ", f);
    num(f, L->pdefect[a]);
  }
  fprintf(f, "], \"coupling_impulse\": ");
  num(f, L->pexch);
  fputc('}', f);
}

/* {"kinetic", "potential", "internal", "total", "complete"}: a system's
 * internal energy is null when its plugin does not report it; over all
 * systems, "internal" sums what was reported and "complete" says whether
 * every system did. */
static void energy(FILE *f, const struct ms__energy *e, int total) {
  fprintf(f, "{\"kinetic\": ");
  num(f, e->kinetic);
  fprintf(f, ", \"potential\": ");
  num(f, e->potential);
  fprintf(f, ", \"internal\": ");
  if (e->internal_known || total)
    num(f, e->internal);
  else
    fputs("null", f);
  fprintf(f, ", \"total\": ");
  num(f, e->kinetic + e->potential + e->internal);
  if (total)
    fprintf(f, ", \"complete\": %s", e->internal_known ? "true" : "false");
  fputc('}', f);
}

static void counts(FILE *f, const struct ms__counts *c) {
  fprintf(f, "\"steps\": %llu, \"stage2_steps\": %llu, \"pairs\": %llu, "
             "\"approaching\": %llu, \"marked\": %llu, \"metas\": %llu, "
             "\"meta_size_mean\": ",
          (unsigned long long)c->steps, (unsigned long long)c->stage2_steps,
          (unsigned long long)c->pairs, (unsigned long long)c->approaching,
          (unsigned long long)c->marked, (unsigned long long)c->metas);
  num(f, c->metas ? (double)c->members / (double)c->metas : 0.0);
  fprintf(f, ", \"meta_size_weighted\": ");
  num(f, c->members ? (double)c->members_sq / (double)c->members : 0.0);
  fprintf(f, ", \"meta_size_max\": %llu, \"handed_over\": %llu, "
             "\"coupling_passes\": %llu, \"unconverged_steps\": %llu, "
             "\"ledger\": ",
          (unsigned long long)c->meta_max, (unsigned long long)c->handed,
          (unsigned long long)c->passes, (unsigned long long)c->unconverged);
  ledger(f, &c->ledger);
  fprintf(f, ", \"heat_pairs\": %llu, \"heat_moved\": ",
          (unsigned long long)c->heat_pairs);
  num(f, c->heat_moved);
  fprintf(f, ", \"heat_injected\": ");
  num(f, c->heat_injected);
  fprintf(f, ", \"penetration\": {\"through_sheet\": %llu, "
             "\"through_solid\": %llu, \"inside_solid\": %llu, "
             "\"max\": %llu, \"crossings\": %llu}, \"max_speed\": ",
          (unsigned long long)c->pen.through, (unsigned long long)c->pen.passed,
          (unsigned long long)c->pen.inside,
          (unsigned long long)c->pen.max_pen,
          (unsigned long long)c->pen.crossings);
  num(f, c->pen.max_speed);
}

static void frame(FILE *f, int first, const struct ms_sim *S) {
  fprintf(f, "%s{\"frame\": %lld, \"time\": ", first ? "" : ",\n",
          (long long)S->frame);
  num(f, S->stepper.time);
  fprintf(f, ", ");
  counts(f, &S->stepper.frame_counts);
  fprintf(f, ",\n \"systems\": [");
  double heat = 0.0;
  int heated = 0;
  for (uint32_t s = 0; s < S->nsys; s++) {
    const struct ms__system *y = &S->sys[s];
    double p[3], ke;
    ms__system_totals(S, s, p, &ke);
    fprintf(f, "%s{\"name\": ", s ? ", " : "");
    str(f, y->desc->name);
    fprintf(f, ", \"particles\": %zu, \"momentum\": [", y->view.count);
    num(f, p[0]);
    fputs(", ", f);
    num(f, p[1]);
    fputs(", ", f);
    num(f, p[2]);
    fprintf(f, "], \"kinetic_energy\": ");
    num(f, ke);
    fprintf(f, ", \"energy\": ");
    energy(f, &y->energy, 0);
    if (y->heat) {
      fprintf(f, ", \"heat\": ");
      num(f, ms__heat_of(y));
      heat += ms__heat_of(y);
      heated = 1;
    }
    fprintf(f, ", \"stats\": {");
    for (size_t k = 0; k < y->ctx.nstats; k++) {
      fprintf(f, "%s", k ? ", " : "");
      str(f, y->ctx.stats[k].name);
      fputs(": ", f);
      num(f, y->ctx.stats[k].value);
    }
    fprintf(f, "}}");
  }
  struct ms__energy t;
  ms__energy_total(S, &t);
  fprintf(f, "],\n \"energy\": ");
  energy(f, &t, 1);
  if (heated) {
    fprintf(f, ", \"heat\": ");
    num(f, heat);
  }
  fprintf(f, "}");
}

int ms__report_frame(struct ms__report *r, const struct ms_sim *S) {
  int bad = 0;
  if (r->f) {
    frame(r->f, !r->nframes, S);
    fflush(r->f);
    bad = ferror(r->f);
  }
  if (r->mem) {
    frame(r->mem, !r->nframes, S);
    if (fflush(r->mem) || ferror(r->mem)) return MS_ENOMEM;
  }
  r->nframes++;
  return bad ? MS_EIO : MS_OK;
}

/* The totals, the timing and the status; closes the document. */
static void tail(FILE *f, const struct ms_sim *S, const char *status,
                 const char *error) {
  const struct ms__counts *c = &S->run_counts;
  double total = 0.0;
  for (int p = 0; p < MS__PH_COUNT; p++) total += S->stepper.phase[p];
  fprintf(f, "\n],\n\"totals\": {\"frames\": %lld, \"time\": ",
          (long long)S->frame);
  num(f, S->stepper.time);
  fprintf(f, ", ");
  counts(f, c);
  const struct ms__energy_record *e = &S->energy;
  fprintf(f, ", \"energy\": {\"start\": ");
  num(f, e->start);
  fprintf(f, ", \"end\": ");
  num(f, e->now);
  fprintf(f, ", \"scale\": ");
  num(f, e->scale);
  fprintf(f, ", \"max_rise\": ");
  num(f, e->max_rise);
  fprintf(f, ", \"complete\": %s}", e->complete ? "true" : "false");
  fprintf(f, "},\n\"timing\": {\"steps\": %llu, \"phases\": [",
          (unsigned long long)c->steps);
  for (int p = 0; p < MS__PH_COUNT; p++) {
    fprintf(f, "%s{\"phase\": \"%s\", \"seconds\": ", p ? ", " : "",
            ms__phase_names[p]);
    num(f, S->stepper.phase[p]);
    fprintf(f, ", \"ms_per_step\": ");
    num(f, c->steps ? 1e3 * S->stepper.phase[p] / (double)c->steps : 0.0);
    fprintf(f, ", \"share\": ");
    num(f, total > 0 ? S->stepper.phase[p] / total : 0.0);
    fputc('}', f);
  }
  fprintf(f, "], \"total_seconds\": ");
  num(f, total);
  fprintf(f, ", \"frame_files\": {\"frames\": %llu, \"seconds\": ",
          (unsigned long long)S->out_frames);
  num(f, S->out_seconds);
  fprintf(f, ", \"write_seconds\": ");
  num(f, S->out_write_seconds);
  fputc('}', f);
  fprintf(f, "},\n\"status\": ");
  str(f, status);
  if (error) {
    fprintf(f, ", \"error\": ");
    str(f, error);
  }
  fprintf(f, "\n}\n");
}

int ms__report_close(struct ms__report *r, const struct ms_sim *S,
                     const char *error) {
  if (!r) return MS_OK;
  int bad = 0;
  if (r->f) {
    tail(r->f, S, error ? "error" : "ok", error);
    bad = ferror(r->f);
    bad |= fclose(r->f);
  }
  if (r->mem) fclose(r->mem);
  free(r->membuf);
  free(r->path);
  free(r);
  return bad ? MS_EIO : MS_OK;
}

int ms__report_text(const struct ms__report *r, const struct ms_sim *S,
                    const char *status, const char *error, char **out,
                    size_t *len) {
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  if (!f) return MS_ENOMEM;
  fflush(r->mem); /* membuf and memlen up to date */
  fwrite(r->membuf, 1, r->memlen, f);
  tail(f, S, status, error);
  int bad = ferror(f);
  bad |= fclose(f);
  if (bad) {
    free(buf);
    return MS_ENOMEM;
  }
  *out = buf;
  if (len) *len = n;
  return MS_OK;
}
