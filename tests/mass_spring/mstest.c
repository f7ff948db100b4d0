/* Helpers of the mass_spring tests. */
#include "mstest.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ms_sim *mt_open(int threads, const char *fmt, ...) {
  char text[8192];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  ck_assert_int_lt(n, (int)sizeof text);
  return st_open_text(text, threads);
}

double *mt_x(struct ms__system *y, size_t i) { return ms__at(&y->x, i); }
double *mt_v(struct ms__system *y, size_t i) { return ms__at(&y->v, i); }
double mt_m(struct ms__system *y, size_t i) { return *ms__at(&y->m, i); }

const struct ms_field *mt_field(struct ms__system *y, const char *name) {
  for (uint32_t f = 0; f < y->view.field_count; f++)
    if (!strcmp(y->view.fields[f].name, name)) return &y->view.fields[f];
  ck_abort_msg("no field '%s'", name);
  return NULL;
}

void mt_totals(struct ms__system *y, double p[3], double *ke) {
  p[0] = p[1] = p[2] = *ke = 0.0;
  for (size_t i = 0; i < y->view.count; i++) {
    const double *v = mt_v(y, i);
    double m = mt_m(y, i);
    for (int a = 0; a < 3; a++) p[a] += m * v[a];
    *ke += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  }
}

double mt_random(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*s >> 11) / 4503599627370496.0 - 1.0;
}

void mt_run_to(ms_sim *S, double t) {
  while (ms_sim_time(S) < t - 1e-12 && S->frame < S->frames_total)
    ck_assert_msg(ms_sim_frame(S) == 0, "%s", ms_sim_error(S));
}

static void sub(double *d, const double *a, const double *b) {
  for (int k = 0; k < 3; k++) d[k] = a[k] - b[k];
}

void mt_sides(struct ms__system *c, uint32_t nu, uint32_t nv,
              struct ms__system *o, int8_t *side) {
  for (size_t p = 0; p < o->view.count; p++) {
    const double *xp = mt_x(o, p);
    size_t best = 0;
    double bd = INFINITY;
    for (size_t q = 0; q < c->view.count; q++) {
      double d[3];
      sub(d, xp, mt_x(c, q));
      double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      if (dd < bd) bd = dd, best = q;
    }
    uint32_t a = (uint32_t)(best % nu), b = (uint32_t)(best / nu);
    if (a == 0 || b == 0 || a + 1 == nu || b + 1 == nv) {
      side[p] = 0;
      continue;
    }
    double du[3], dv[3], d[3];
    sub(du, mt_x(c, best + 1), mt_x(c, best - 1));
    sub(dv, mt_x(c, best + nu), mt_x(c, best - nu));
    double n[3] = {du[1] * dv[2] - du[2] * dv[1], du[2] * dv[0] - du[0] * dv[2],
                   du[0] * dv[1] - du[1] * dv[0]};
    sub(d, xp, mt_x(c, best));
    double s = n[0] * d[0] + n[1] * d[1] + n[2] * d[2];
    side[p] = s > 0.0 ? 1 : -1;
  }
}
