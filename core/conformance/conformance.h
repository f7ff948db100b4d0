/* The conformance kit: a plugin checked against the contract of plugin.h,
 * alone and coupled. */
#ifndef MS_CORE_CONFORMANCE_H
#define MS_CORE_CONFORMANCE_H

#include <mergesplit/plugin.h>

#include "../run/run.h"

/* ---- conformance.c -------------------------------------------------------*/
/* The conformance kit's parts (conformance.c, conformance_checks.c,
 * conformance_coupled.c).  Private to the core. */
/* The system under test, in the simulation the kit opened. */
struct ms__kit {
  ms_sim *S;
  struct ms__system *y;
  double dt;
};

/* A check's outcome and its one-line detail. */
struct ms__verdict {
  int passed;
  char detail[480];
};

/* A plugin's saved state, in memory. */
struct ms__blob {
  unsigned char *p;
  size_t n, cap, pos;
};

/* One meta-particle built by hand, and its result. */
struct ms__kit_metas {
  uint32_t off[2], *member;
  double mass, own, pos[3], vel[3], rv[3], rd[3], inertia[6];
  uint8_t con;
  struct ms_metas in;
  struct ms_meta_result out;
};

/* Helpers (conformance.c). */
int ms__kit_fail(struct ms__verdict *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int ms__kit_pass(struct ms__verdict *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int ms__kit_blob_write(void *o, const void *data, size_t size);
int ms__kit_blob_read(void *o, void *data, size_t size);
int ms__kit_save_state(struct ms__kit *K, ms_instance *inst,
                       struct ms__blob *b);
int ms__kit_view_xv(ms_instance *inst, const struct ms_plugin *d,
                    struct ms_view *v, const struct ms_field **x,
                    const struct ms_field **u);
double *ms__kit_snap_view(ms_instance *inst, const struct ms_plugin *d,
                          size_t *n);
int ms__kit_pinned(const struct ms__system *y, size_t i);
uint32_t ms__kit_free_count(const struct ms__system *y);
void ms__kit_make_meta(struct ms__kit *K, struct ms__kit_metas *M, uint32_t k,
                       double foreign);
int ms__kit_step_with(struct ms__kit *K, ms_instance *inst,
                      struct ms__kit_metas *M, const double *fext,
                      int do_begin);

/* A log sink that drops every line. */
void ms__kit_quiet(void *o, int level, const char *line);

/* The checks: each fills the verdict and returns whether it passed. */
int ms__kit_check_descriptor(struct ms__kit *K, struct ms__verdict *v);
int ms__kit_check_max_dt(struct ms__kit *K, struct ms__verdict *v);
int ms__kit_check_create_destroy(struct ms__kit *K, struct ms__verdict *v);
int ms__kit_check_rewind(struct ms__kit *K, struct ms__verdict *v);
int ms__kit_check_save_load(struct ms__kit *K, struct ms__verdict *v);
int ms__kit_check_meta_rigid(struct ms__kit *K, struct ms__verdict *v);
int ms__kit_check_meta_momentum(struct ms__kit *K, struct ms__verdict *v);
int ms__kit_check_write_w1(struct ms__kit *K, struct ms__verdict *v);
int ms__kit_check_write_w2(struct ms__kit *K, struct ms__verdict *v);
int ms__kit_check_write_w3(struct ms__kit *K, struct ms__verdict *v);
int ms__kit_check_bad_config(struct ms__kit *K, struct ms__verdict *v);
int ms__kit_check_silent(struct ms__kit *K, struct ms__verdict *v);
int ms__kit_check_coupled(struct ms__kit *K, struct ms__verdict *v);

#endif
