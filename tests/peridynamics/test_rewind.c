/* Rewind and checkpoints: bonds broken in a discarded stage-1 integration
 * come back bitwise; the bond state survives save -> load. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "pdtest.h"
#include "../../core/run/run.h"

struct blob {
  unsigned char *p;
  size_t n, cap, pos;
};

static int blob_write(void *o, const void *data, size_t size) {
  struct blob *b = o;
  if (b->n + size > b->cap) {
    b->cap = 2 * (b->n + size) + 256;
    b->p = realloc(b->p, b->cap);
    if (!b->p) return MS_ENOMEM;
  }
  memcpy(b->p + b->n, data, size);
  b->n += size;
  return MS_OK;
}

static int blob_read(void *o, void *data, size_t size) {
  struct blob *b = o;
  if (b->pos + size > b->n) return MS_ESTATE;
  memcpy(data, b->p + b->pos, size);
  b->pos += size;
  return MS_OK;
}

static void save(struct ms__system *y, ms_instance *inst, struct blob *b) {
  struct ms_stream s = {b, blob_write, blob_read};
  b->n = b->pos = 0;
  ck_assert_int_eq(y->plugin->desc.save(inst, &s), 0);
}

/* A 6 x 4 x 4 block whose last two layers are yanked at 5 m/s: the bonds
 * into them break within one step. */
static const char *yank_scene =
    "scene = { duration = 1.0; fps = 100.0; gravity = [0.0, -9.81, 0.0]; };\n"
    "systems = ( { name = \"block\"; solver = \"peridynamics\";\n"
    "  shape = { type = \"box\"; min = [0.0, 0.0, 0.0];\n"
    "            max = [0.06, 0.04, 0.04]; };\n"
    "  spacing = 0.01; youngs_modulus = 1e6; fracture_energy = 1.0;\n"
    "  pins = ( { min = [0.04, -1.0, -1.0]; max = [1.0, 1.0, 1.0];\n"
    "             velocity = [5.0, 0.0, 0.0]; } ); } );\n";

/* damage and bond count fields, packed */
static void fields(struct ms__system *y, double *d, uint32_t *c) {
  const struct ms_field *df = pdt_field(y, "damage");
  const struct ms_field *bf = pdt_field(y, "bonds");
  ck_assert_ptr_nonnull(df);
  ck_assert_ptr_nonnull(bf);
  ck_assert_uint_eq(df->type, MS_TYPE_F64);
  ck_assert_uint_eq(bf->type, MS_TYPE_U32);
  for (size_t i = 0; i < y->view.count; i++) {
    memcpy(d + i, (char *)df->data + i * df->stride, sizeof *d);
    memcpy(c + i, (char *)bf->data + i * bf->stride, sizeof *c);
  }
}

START_TEST(rewind_restores_broken_bonds) {
  ms_sim *S = st_open_text(yank_scene, 1);
  struct ms__system *y = st_system(S, "block");
  const struct ms_plugin *d = &y->plugin->desc;
  size_t n = y->view.count;
  struct pdt_bonds B;
  pdt_bonds_init(&B, y, 0.03);
  struct blob a = {0}, b = {0};
  double *d0 = malloc(n * sizeof *d0), *d1 = malloc(n * sizeof *d1);
  uint32_t *c0 = malloc(n * sizeof *c0), *c1 = malloc(n * sizeof *c1);
  uint8_t *intact0 = malloc(B.count), *intact1 = malloc(B.count);
  ck_assert_uint_eq(pdt_observe(&B, y), 0);
  memcpy(intact0, B.intact, B.count);
  fields(y, d0, c0);
  save(y, y->inst, &a);
  struct ms_step st = {sizeof st, 1, 0, 0.0, 5e-4, NULL};
  struct ms_metas none = {sizeof none, 0, (uint32_t[]){0}, NULL, NULL, NULL,
                          NULL, NULL, NULL};
  struct ms_meta_result out = {sizeof out, 0, NULL, NULL, NULL};
  ck_assert_int_eq(d->begin_step(y->inst, &st), 0);
  ck_assert_int_eq(d->integrate(y->inst, &st, &none, &out), 0);
  size_t broke = pdt_observe(&B, y);
  ck_assert_uint_gt(broke, 0);
  memcpy(intact1, B.intact, B.count);
  fields(y, d1, c1);
  ck_assert(memcmp(d0, d1, n * sizeof *d0) != 0);
  /* the stage is discarded */
  ck_assert_int_eq(d->rewind(y->inst), 0);
  ck_assert_uint_eq(pdt_observe(&B, y), 0);
  ck_assert(!memcmp(intact0, B.intact, B.count));
  fields(y, d1, c1);
  ck_assert(!memcmp(d0, d1, n * sizeof *d0));
  ck_assert(!memcmp(c0, c1, n * sizeof *c0));
  save(y, y->inst, &b);
  ck_assert_uint_eq(a.n, b.n);
  ck_assert(!memcmp(a.p, b.p, a.n)); /* the whole state, bonds included */
  /* stage 2 breaks the same bonds again */
  st.stage = 2;
  ck_assert_int_eq(d->integrate(y->inst, &st, &none, &out), 0);
  ck_assert_uint_eq(pdt_observe(&B, y), broke);
  ck_assert(!memcmp(intact1, B.intact, B.count));
  ck_assert_int_eq(d->end_step(y->inst, &st), 0);
  /* a checkpoint of the broken state loads into a fresh instance */
  save(y, y->inst, &a);
  ms_instance *fresh = NULL;
  ck_assert_int_eq(d->create(&ms__host, &y->ctx,
                             (const ms_config *)y->desc->section, &fresh),
                   0);
  struct ms_stream in = {&a, blob_write, blob_read};
  ck_assert_int_eq(d->load(fresh, &in), 0);
  save(y, fresh, &b);
  ck_assert_uint_eq(a.n, b.n);
  ck_assert(!memcmp(a.p, b.p, a.n));
  uint8_t keep[1];
  size_t again = 0;
  for (size_t k = 0; k < B.count; k++) {
    keep[0] = 1;
    ck_assert_int_eq(d->filter_pairs(fresh, B.pair + 2 * k, 1, keep), 0);
    again += keep[0];
  }
  ck_assert_uint_eq(again, broke);
  /* a truncated or foreign state is refused with a status */
  a.pos = 0, a.n /= 2;
  ck_assert_int_eq(d->load(fresh, &in), MS_ESTATE);
  d->destroy(fresh);
  free(a.p), free(b.p), free(d0), free(d1), free(c0), free(c1);
  free(intact0), free(intact1);
  pdt_bonds_free(&B);
  st_close(S);
}
END_TEST

/* Positions, velocities and bond state after 40 steps of tearing are the
 * same, bit for bit, with 1 and with 2 threads. */
START_TEST(same_result_for_any_thread_count) {
  double *x[2];
  uint8_t *intact[2];
  size_t n = 0, nb = 0, broke[2];
  for (int r = 0; r < 2; r++) {
    ms_sim *S = st_open_text(yank_scene, r + 1);
    struct ms__system *y = st_system(S, "block");
    struct pdt_bonds B;
    pdt_bonds_init(&B, y, 0.03);
    for (int k = 0; k < 40; k++) st_step(S);
    broke[r] = pdt_observe(&B, y);
    n = y->view.count, nb = B.count;
    x[r] = malloc(6 * n * sizeof *x[r]);
    intact[r] = malloc(nb);
    memcpy(intact[r], B.intact, nb);
    for (size_t i = 0; i < n; i++) {
      memcpy(x[r] + 6 * i, ms__at(&y->x, i), 3 * sizeof(double));
      memcpy(x[r] + 6 * i + 3, ms__at(&y->v, i), 3 * sizeof(double));
    }
    pdt_bonds_free(&B);
    st_close(S);
  }
  ck_assert_uint_gt(broke[0], 0);
  ck_assert_uint_eq(broke[0], broke[1]);
  ck_assert(!memcmp(intact[0], intact[1], nb));
  ck_assert(!memcmp(x[0], x[1], 6 * n * sizeof(double)));
  for (int r = 0; r < 2; r++) free(x[r]), free(intact[r]);
}
END_TEST

Suite *suite_rewind(void) {
  Suite *s = suite_create("rewind");
  TCase *tc = tcase_create("state");
  tcase_add_test(tc, rewind_restores_broken_bonds);
  tcase_add_test(tc, same_result_for_any_thread_count);
  suite_add_tcase(s, tc);
  return s;
}
