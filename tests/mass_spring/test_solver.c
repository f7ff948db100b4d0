/* The shared implicit machinery and the plugin's bookkeeping: symbolic
 * analysis kept while the node pattern is unchanged, PCG against CHOLMOD,
 * the contact filter, output fields, save/load. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <suitesparse/cholmod.h>

#include "../../plugins/common/cholmod_serial.h"
#include "../../plugins/mass_spring/mass_spring.h"
#include "mstest.h"
#include "suites.h"

/* A 10 x 10 cloth model built directly (no host). */
static void cloth_model(struct mss_model *M, int solver, double tol) {
  static const double c[3] = {0.0, 1.0, 0.0}, eu[3] = {1.0, 0.0, 0.0},
                      ev[3] = {0.0, 0.0, 1.0};
  memset(M, 0, sizeof *M);
  ck_assert_int_eq(mss_model_alloc(M, 100), 0);
  ck_assert_int_eq(mss_cloth_build(M, c, eu, ev, 10, 10, 400.0, 100.0, 4.0,
                                   0.1), 0);
  for (size_t i = 0; i < M->n; i++) M->m[i] = 0.01, M->r[i] = 0.05;
  mss_cloth_pin_corner(M, 0, 0);
  mss_cloth_pin_corner(M, 1, 0);
  M->gravity[1] = -9.81;
  for (int a = 0; a < 3; a++) M->lo[a] = -INFINITY, M->hi[a] = INFINITY;
  M->opt.linear_solver = solver;
  M->opt.pcg_tolerance = tol;
  M->opt.pcg_max_iterations = 10000;
  M->opt.threads = 2;
  ck_assert_int_eq(mss_model_finish(M), 0);
}

/* One meta-particle holding particles a and b (velocity: their mean). */
struct one_meta {
  uint32_t off[2], mem[2];
  double mass, own, pos[3], vel[3], rv[3], rd[3];
  uint8_t con;
  struct ms_metas m;
  struct ms_meta_result r;
};

static void make_meta(struct one_meta *q, const struct mss_model *M,
                      uint32_t a, uint32_t b) {
  q->off[0] = 0, q->off[1] = 2, q->mem[0] = a, q->mem[1] = b;
  q->own = M->m[a] + M->m[b], q->mass = q->own + 0.05;
  for (int k = 0; k < 3; k++) {
    q->pos[k] = 0.5 * (M->x[3 * a + k] + M->x[3 * b + k]);
    q->vel[k] = 0.5 * (M->v[3 * a + k] + M->v[3 * b + k]);
  }
  q->m = (struct ms_metas){sizeof q->m, 1, q->off, q->mem, &q->mass, &q->own,
                           q->pos, q->vel, NULL};
  q->r = (struct ms_meta_result){sizeof q->r, 1, q->rv, q->rd, &q->con};
}

static uint64_t analyses(const struct mss_work *W) {
  return msi_solver_stats(W->solver)->analyses;
}

START_TEST(analysis_reused_while_pattern_unchanged) {
  struct mss_model M;
  struct mss_work W;
  struct one_meta q;
  cloth_model(&M, MSI_CHOLMOD, 0.0);
  mss_work_init(&W);
  for (int s = 0; s < 5; s++)
    ck_assert_int_eq(mss_step(&M, &W, 1e-3, NULL, NULL, NULL), 0);
  ck_assert_uint_eq(analyses(&W), 1);
  ck_assert_uint_eq(msi_solver_stats(W.solver)->factorizations, 5);
  /* a meta-particle changes the pattern: analysed once, then reused */
  make_meta(&q, &M, 44, 45);
  ck_assert_int_eq(mss_step(&M, &W, 1e-3, NULL, &q.m, &q.r), 0);
  ck_assert_uint_eq(analyses(&W), 2);
  make_meta(&q, &M, 44, 45);
  ck_assert_int_eq(mss_step(&M, &W, 1e-3, NULL, &q.m, &q.r), 0);
  ck_assert_uint_eq(analyses(&W), 2);
  /* same sizes (node and block counts), another pattern: analysed */
  make_meta(&q, &M, 54, 55);
  ck_assert_int_eq(mss_step(&M, &W, 1e-3, NULL, &q.m, &q.r), 0);
  ck_assert_uint_eq(analyses(&W), 3);
  /* back to no meta-particle: a change again */
  ck_assert_int_eq(mss_step(&M, &W, 1e-3, NULL, NULL, NULL), 0);
  ck_assert_uint_eq(analyses(&W), 4);
  ck_assert_int_eq(mss_step(&M, &W, 1e-3, NULL, NULL, NULL), 0);
  ck_assert_uint_eq(analyses(&W), 4);
  mss_work_free(&W);
  mss_model_free(&M);
}
END_TEST

/* The node pattern of metas {44, 45} and {54, 55} has equal sizes: the
 * comparison must be of the pattern itself. */
START_TEST(pattern_compared_not_sizes) {
  struct mss_model M;
  struct mss_work W;
  struct one_meta q;
  cloth_model(&M, MSI_CHOLMOD, 0.0);
  mss_work_init(&W);
  make_meta(&q, &M, 44, 45);
  ck_assert_int_eq(mss_step(&M, &W, 1e-3, NULL, &q.m, &q.r), 0);
  const cholmod_sparse *A = msi_solver_matrix(W.solver);
  size_t nn = W.nodes.nn, nz = A->nzmax, cols = A->ncol;
  ck_assert_uint_eq(analyses(&W), 1);
  make_meta(&q, &M, 54, 55);
  ck_assert_int_eq(mss_step(&M, &W, 1e-3, NULL, &q.m, &q.r), 0);
  A = msi_solver_matrix(W.solver);
  ck_assert_uint_eq(W.nodes.nn, nn);
  ck_assert_uint_eq(A->nzmax, nz);
  ck_assert_uint_eq(A->ncol, cols);
  ck_assert_uint_eq(analyses(&W), 2);
  mss_work_free(&W);
  mss_model_free(&M);
}
END_TEST

START_TEST(pcg_matches_cholmod) {
  struct mss_model A, B;
  struct mss_work WA, WB;
  struct one_meta qa, qb;
  cloth_model(&A, MSI_CHOLMOD, 0.0);
  cloth_model(&B, MSI_PCG, 1e-12);
  mss_work_init(&WA), mss_work_init(&WB);
  for (int s = 0; s < 40; s++) {
    if (s % 3 == 0) {
      make_meta(&qa, &A, 33, 43), make_meta(&qb, &B, 33, 43);
      ck_assert_int_eq(mss_step(&A, &WA, 2e-3, NULL, &qa.m, &qa.r), 0);
      ck_assert_int_eq(mss_step(&B, &WB, 2e-3, NULL, &qb.m, &qb.r), 0);
    } else {
      ck_assert_int_eq(mss_step(&A, &WA, 2e-3, NULL, NULL, NULL), 0);
      ck_assert_int_eq(mss_step(&B, &WB, 2e-3, NULL, NULL, NULL), 0);
    }
  }
  double worst = 0.0, moved = 0.0;
  for (size_t i = 0; i < 3 * A.n; i++) {
    worst = fmax(worst, fabs(A.x[i] - B.x[i]));
    worst = fmax(worst, 1e-2 * fabs(A.v[i] - B.v[i]));
  }
  for (size_t i = 0; i < A.n; i++) moved = fmax(moved, 1.0 - A.x[3 * i + 1]);
  ck_assert_msg(worst < 1e-9, "PCG and CHOLMOD differ by %.3g", worst);
  ck_assert(moved > 0.01);
  ck_assert_uint_gt(msi_solver_stats(WB.solver)->pcg_iterations, 40);
  mss_work_free(&WA), mss_work_free(&WB);
  mss_model_free(&A), mss_model_free(&B);
}
END_TEST

START_TEST(filter_drops_spring_pairs) {
  struct mss_model M;
  cloth_model(&M, MSI_CHOLMOD, 0.0);
  /* structural, shear, bending neighbours of 44; then unconnected pairs */
  uint32_t pairs[] = {44, 45, 34, 44, 44, 55, 43, 54, 44, 46, 24, 44,
                      44, 47, 44, 66, 0, 99, 12, 34};
  uint8_t keep[10], want[10] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
  memset(keep, 1, sizeof keep);
  mss_filter_pairs(&M, pairs, 10, keep, 2);
  for (int k = 0; k < 10; k++)
    ck_assert_msg(keep[k] == want[k], "pair %u-%u", pairs[2 * k],
                  pairs[2 * k + 1]);
  mss_model_free(&M);
}
END_TEST

/* save -> load into a fresh instance reproduces the state bitwise, and
 * both continue identically. */
struct mem {
  unsigned char *buf;
  size_t len, cap, pos;
};

static int mem_write(void *o, const void *d, size_t n) {
  struct mem *m = o;
  if (m->len + n > m->cap) {
    m->cap = 2 * (m->len + n);
    m->buf = realloc(m->buf, m->cap);
  }
  memcpy(m->buf + m->len, d, n);
  m->len += n;
  return 0;
}

static int mem_read(void *o, void *d, size_t n) {
  struct mem *m = o;
  if (m->pos + n > m->len) return MS_ESTATE;
  memcpy(d, m->buf + m->pos, n);
  m->pos += n;
  return 0;
}

static const char *swing =
    "scene = { duration = 1.0; fps = 20.0; };\n"
    "systems = ( { name = \"c\"; solver = \"mass_spring\";\n"
    "  cloth = { corner = [-0.3, 1.0, -0.3]; edge_u = [0.6, 0.0, 0.0];\n"
    "            edge_v = [0.0, 0.0, 0.6]; resolution = [12, 12]; };\n"
    "  stiffness = 300.0; pins = ( { edge = \"v0\"; } ); } );\n";

START_TEST(save_load_round_trip) {
  ms_sim *A = st_open_text(swing, 1), *B = st_open_text(swing, 1);
  struct ms__system *a = st_system(A, "c"), *b = st_system(B, "c");
  for (int f = 0; f < 4; f++) ck_assert_int_eq(ms_sim_frame(A), 0);
  struct mem m = {0};
  struct ms_stream out = {&m, mem_write, mem_read};
  ck_assert_int_eq(a->plugin->desc.save(a->inst, &out), 0);
  ck_assert_int_eq(b->plugin->desc.load(b->inst, &out), 0);
  ck_assert_int_eq(ms__system_view(&B->sys[0], &B->err), 0);
  for (size_t i = 0; i < a->view.count; i++)
    ck_assert(!memcmp(mt_x(a, i), mt_x(b, i), 3 * sizeof(double)) &&
              !memcmp(mt_v(a, i), mt_v(b, i), 3 * sizeof(double)));
  B->stepper.time = A->stepper.time, B->frame = A->frame,
  B->stepper.step = A->stepper.step;
  for (int f = 0; f < 4; f++) {
    ck_assert_int_eq(ms_sim_frame(A), 0);
    ck_assert_int_eq(ms_sim_frame(B), 0);
  }
  for (size_t i = 0; i < a->view.count; i++)
    ck_assert(!memcmp(mt_x(a, i), mt_x(b, i), 3 * sizeof(double)));
  /* a truncated or foreign stream is refused */
  struct mem bad = {.buf = m.buf, .len = 20};
  struct ms_stream in = {&bad, mem_write, mem_read};
  ck_assert_int_eq(b->plugin->desc.load(b->inst, &in), MS_ESTATE);
  free(m.buf);
  st_close(A), st_close(B);
}
END_TEST

/* The implicit solver's carried-over state (first guess, AUTO's policy,
 * particle order, factor pattern and permutation): a model resumed from
 * msi_solver_save continues bit for bit like the uninterrupted one, under
 * AUTO with patterns changing as meta-particles come and go; one resumed
 * without that state does not (the test would pass vacuously otherwise).
 * With a loose tolerance PCG takes each new pattern; with one PCG cannot
 * reach in its budget, CHOLMOD does (AUTO's skip count, the kept order). */
static const double resume_tol[2] = {1e-8, 1e-15};

static void metas_of_step(struct one_meta *q, const struct mss_model *M,
                          int s, const struct ms_metas **m,
                          struct ms_meta_result **r) {
  static const uint32_t at[4][2] = {{33, 43}, {44, 45}, {54, 55}, {0, 0}};
  int k = (s / 2) % 4;
  *m = NULL, *r = NULL;
  if (k == 3) return;
  make_meta(q, M, at[k][0], at[k][1]);
  *m = &q->m, *r = &q->r;
}

static void run_steps(struct mss_model *M, struct mss_work *W, int s0,
                      int s1) {
  struct one_meta q;
  const struct ms_metas *m;
  struct ms_meta_result *r;
  for (int s = s0; s < s1; s++) {
    metas_of_step(&q, M, s, &m, &r);
    ck_assert_int_eq(mss_step(M, W, 2e-3, NULL, m, r), 0);
  }
}

static void resumed_copy(struct mss_model *B, struct mss_work *WB,
                         const struct mss_model *A, const struct mem *st) {
  cloth_model(B, MSI_AUTO, A->opt.pcg_tolerance);
  mss_work_init(WB);
  memcpy(B->x, A->x, 3 * A->n * sizeof *A->x);
  memcpy(B->v, A->v, 3 * A->n * sizeof *A->v);
  mss_update_stretch(B, 1);
  if (!st) return;
  struct mem in = *st;
  struct ms_stream s = {&in, mem_write, mem_read};
  ck_assert_int_eq(msi_solver_load(&WB->solver, &s, B->n), 0);
  ck_assert_uint_eq(in.pos, in.len);
}

START_TEST(solver_state_resumes_bitwise) {
  struct mss_model A, B, C;
  struct mss_work WA, WB, WC;
  cloth_model(&A, MSI_AUTO, resume_tol[_i]);
  mss_work_init(&WA);
  run_steps(&A, &WA, 0, 13);
  struct msi_stats s0 = *msi_solver_stats(WA.solver);
  struct mem st = {0};
  struct ms_stream out = {&st, mem_write, mem_read};
  ck_assert_int_eq(msi_solver_save(WA.solver, &out), 0);
  resumed_copy(&B, &WB, &A, &st);
  resumed_copy(&C, &WC, &A, NULL);
  run_steps(&A, &WA, 13, 40);
  run_steps(&B, &WB, 13, 40);
  run_steps(&C, &WC, 13, 40);
  const struct msi_stats *sa = msi_solver_stats(WA.solver);
  if (_i == 0) { /* PCG took the new patterns after the resume */
    ck_assert_uint_gt(sa->pcg_solves, s0.pcg_solves);
  } else { /* CHOLMOD did, after PCG fell short, in the kept order */
    ck_assert_uint_gt(sa->pcg_fallbacks, s0.pcg_fallbacks);
    ck_assert_uint_gt(sa->analyses, s0.analyses);
  }
  ck_assert(!memcmp(A.x, B.x, 3 * A.n * sizeof *A.x));
  ck_assert(!memcmp(A.v, B.v, 3 * A.n * sizeof *A.v));
  ck_assert(memcmp(A.x, C.x, 3 * A.n * sizeof *A.x));
  /* ... having taken the same decisions (statistics are not saved) */
  const struct msi_stats *sb = msi_solver_stats(WB.solver);
  ck_assert_uint_eq(sb->pcg_solves, sa->pcg_solves - s0.pcg_solves);
  ck_assert_uint_eq(sb->pcg_fallbacks, sa->pcg_fallbacks - s0.pcg_fallbacks);
  ck_assert_uint_eq(sb->factorizations,
                    sa->factorizations - s0.factorizations);
  /* another particle count, a truncated state: refused with a reason */
  struct msi_solver *D = NULL;
  struct mem in = st;
  struct ms_stream s = {&in, mem_write, mem_read};
  ck_assert_int_eq(msi_solver_load(&D, &s, A.n + 1), MS_ESTATE);
  ck_assert_ptr_nonnull(strstr(msi_solver_error(D), "another size"));
  in = st, in.len = st.len - 9;
  ck_assert_int_eq(msi_solver_load(&D, &s, A.n), MS_ESTATE);
  ck_assert_ptr_nonnull(strstr(msi_solver_error(D), "truncated"));
  msi_solver_destroy(D);
  free(st.buf);
  mss_work_free(&WA), mss_work_free(&WB), mss_work_free(&WC);
  mss_model_free(&A), mss_model_free(&B), mss_model_free(&C);
}
END_TEST

/* A rewind restores the carried-over state: saved bytes equal to those of
 * the start of the step, also when the step re-analysed a new pattern or
 * created the solver, and the step integrated again repeats the first. */
static void save_solver(const struct msi_solver *S, struct mem *m) {
  struct ms_stream out = {m, mem_write, mem_read};
  m->len = m->pos = 0;
  ck_assert_int_eq(msi_solver_save(S, &out), 0);
}

START_TEST(rewind_restores_solver_state) {
  struct mss_model M;
  struct mss_work W;
  struct one_meta q;
  struct mem s0 = {0}, s1 = {0};
  cloth_model(&M, _i ? MSI_CHOLMOD : MSI_AUTO, 1e-8);
  mss_work_init(&W);
  double *x0 = malloc(3 * M.n * sizeof *x0), *v0 = malloc(3 * M.n * sizeof *v0);
  double *x1 = malloc(3 * M.n * sizeof *x1);
  for (int s = 0; s < 4; s++) {
    /* step 0 creates the solver; steps 1 and 3 meet a new pattern */
    memcpy(x0, M.x, 3 * M.n * sizeof *x0), memcpy(v0, M.v, 3 * M.n * sizeof *v0);
    msi_solver_mark(W.solver);
    save_solver(W.solver, &s0);
    uint64_t an = W.solver ? analyses(&W) : 0;
    if (s % 2) make_meta(&q, &M, s == 1 ? 44 : 54, s == 1 ? 45 : 55);
    ck_assert_int_eq(mss_step(&M, &W, 2e-3, NULL, s % 2 ? &q.m : NULL,
                              s % 2 ? &q.r : NULL), 0);
    if (s % 2 && _i) ck_assert_uint_gt(analyses(&W), an);
    memcpy(x1, M.x, 3 * M.n * sizeof *x1);
    msi_solver_rewind(W.solver);
    memcpy(M.x, x0, 3 * M.n * sizeof *x0), memcpy(M.v, v0, 3 * M.n * sizeof *v0);
    save_solver(W.solver, &s1);
    ck_assert_uint_eq(s1.len, s0.len);
    ck_assert(!memcmp(s0.buf, s1.buf, s0.len));
    if (s % 2) make_meta(&q, &M, s == 1 ? 44 : 54, s == 1 ? 45 : 55);
    ck_assert_int_eq(mss_step(&M, &W, 2e-3, NULL, s % 2 ? &q.m : NULL,
                              s % 2 ? &q.r : NULL), 0);
    ck_assert(!memcmp(x1, M.x, 3 * M.n * sizeof *x1));
  }
  free(x0), free(v0), free(x1), free(s0.buf), free(s1.buf);
  mss_work_free(&W);
  mss_model_free(&M);
}
END_TEST

/* Integrated again after a rewind with the same matrix (the meta-particle
 * and the positions as before), the step solves with the factor it has,
 * though the rewind restored the step's first pattern: no analysis, no
 * factorisation, the same result bitwise.  A heavier meta-particle
 * changes only the diagonal, and is factorised again. */
START_TEST(factor_reused_for_the_same_matrix) {
  struct mss_model M;
  struct mss_work W;
  struct one_meta q;
  cloth_model(&M, MSI_CHOLMOD, 0.0);
  mss_work_init(&W);
  ck_assert_int_eq(mss_step(&M, &W, 2e-3, NULL, NULL, NULL), 0);
  size_t n3 = 3 * M.n;
  double *x0 = malloc(n3 * sizeof *x0), *v0 = malloc(n3 * sizeof *v0);
  double *x1 = malloc(n3 * sizeof *x1), *v1 = malloc(n3 * sizeof *v1);
  memcpy(x0, M.x, n3 * sizeof *x0), memcpy(v0, M.v, n3 * sizeof *v0);
  msi_solver_mark(W.solver);
  make_meta(&q, &M, 44, 45);
  ck_assert_int_eq(mss_step(&M, &W, 2e-3, NULL, &q.m, &q.r), 0);
  const struct msi_stats *t = msi_solver_stats(W.solver);
  uint64_t fz = t->factorizations, re = t->factor_reuses, an = analyses(&W);
  memcpy(x1, M.x, n3 * sizeof *x1), memcpy(v1, M.v, n3 * sizeof *v1);
  for (int pass = 0; pass < 2; pass++) {
    msi_solver_rewind(W.solver);
    memcpy(M.x, x0, n3 * sizeof *x0), memcpy(M.v, v0, n3 * sizeof *v0);
    make_meta(&q, &M, 44, 45);
    q.vel[1] += 0.25; /* another start velocity: the right-hand side only */
    ck_assert_int_eq(mss_step(&M, &W, 2e-3, NULL, &q.m, &q.r), 0);
    ck_assert_uint_eq(t->factorizations, fz);
    ck_assert_uint_eq(t->factor_reuses, re + 1 + (uint64_t)pass);
    ck_assert_uint_eq(analyses(&W), an); /* the rewind kept the factor */
  }
  /* the same start velocity again: stage 1's result, bitwise */
  msi_solver_rewind(W.solver);
  memcpy(M.x, x0, n3 * sizeof *x0), memcpy(M.v, v0, n3 * sizeof *v0);
  make_meta(&q, &M, 44, 45);
  ck_assert_int_eq(mss_step(&M, &W, 2e-3, NULL, &q.m, &q.r), 0);
  ck_assert(!memcmp(x1, M.x, n3 * sizeof *x1));
  ck_assert(!memcmp(v1, M.v, n3 * sizeof *v1));
  ck_assert_uint_eq(t->factorizations, fz);
  /* a heavier meta-particle: the diagonal differs, a new factor */
  msi_solver_rewind(W.solver);
  memcpy(M.x, x0, n3 * sizeof *x0), memcpy(M.v, v0, n3 * sizeof *v0);
  make_meta(&q, &M, 44, 45);
  q.mass *= 2.0;
  ck_assert_int_eq(mss_step(&M, &W, 2e-3, NULL, &q.m, &q.r), 0);
  ck_assert_uint_eq(t->factorizations, fz + 1);
  ck_assert_uint_eq(t->factor_reuses, re + 3);
  ck_assert_uint_eq(analyses(&W), an);
  free(x0), free(v0), free(x1), free(v1);
  mss_work_free(&W);
  mss_model_free(&M);
}
END_TEST

START_TEST(output_fields) {
  ms_sim *S = st_open_text(swing, 1);
  struct ms__system *y = st_system(S, "c");
  const struct ms_field *pin = mt_field(y, "pinned");
  const struct ms_field *st = mt_field(y, "stretch");
  ck_assert_int_eq(pin->type, MS_TYPE_U8);
  ck_assert_int_eq(st->type, MS_TYPE_F64);
  size_t npin = 0;
  for (size_t i = 0; i < y->view.count; i++)
    npin += ((const uint8_t *)pin->data)[i];
  ck_assert_uint_eq(npin, 12); /* the edge v = 0 */
  for (size_t i = 0; i < y->view.count; i++)
    ck_assert(fabs(((const double *)st->data)[i]) < 1e-12);
  for (int f = 0; f < 6; f++) ck_assert_int_eq(ms_sim_frame(S), 0);
  st = mt_field(y, "stretch");
  double top = 0.0; /* the row under the pinned edge carries the cloth */
  for (size_t i = 0; i < y->view.count; i++)
    top = fmax(top, ((const double *)st->data)[i]);
  ck_assert(top > 1e-3 && top < 0.5);
  st_close(S);
}
END_TEST

/* CHOLMOD opens its teams with a fixed num_threads(4) clause; between
 * msi_cholmod_serial_begin and _end such a team has one thread, and after
 * it the caller's teams and level are as before. */
START_TEST(cholmod_teams_have_one_thread) {
#ifndef _OPENMP
  ck_abort_msg("the tests are built without OpenMP");
#else
  int before = omp_get_max_active_levels(), inside = -1, after = -1;
  int levels = msi_cholmod_serial_begin();
#pragma omp parallel num_threads(4)
  {
#pragma omp master
    inside = omp_get_num_threads();
  }
  msi_cholmod_serial_end(levels);
#pragma omp parallel num_threads(2)
  {
#pragma omp master
    after = omp_get_num_threads();
  }
  ck_assert_int_eq(levels, before);
  ck_assert_int_eq(inside, 1);
  ck_assert_int_eq(after, 2);
  ck_assert_int_eq(omp_get_max_active_levels(), before);
#endif
}
END_TEST

Suite *suite_solver(void) {
  Suite *s = suite_create("solver");
  TCase *tc = tcase_create("machinery");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, analysis_reused_while_pattern_unchanged);
  tcase_add_test(tc, pattern_compared_not_sizes);
  tcase_add_test(tc, pcg_matches_cholmod);
  tcase_add_test(tc, filter_drops_spring_pairs);
  tcase_add_test(tc, save_load_round_trip);
  tcase_add_loop_test(tc, solver_state_resumes_bitwise, 0, 2);
  tcase_add_loop_test(tc, rewind_restores_solver_state, 0, 2);
  tcase_add_test(tc, factor_reused_for_the_same_matrix);
  tcase_add_test(tc, output_fields);
  tcase_add_test(tc, cholmod_teams_have_one_thread);
  suite_add_tcase(s, tc);
  return s;
}
