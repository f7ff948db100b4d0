/* The base of the core: errors, the random stream, 3-vectors, allocation,
 * the OpenMP threshold, the clock, the hash, a view's field by name.
 * Includes nothing of the core. */
#ifndef MS_CORE_BASE_H
#define MS_CORE_BASE_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- error.c -------------------------------------------------------------*/
/* One error slot: a status and the one line that explains it. */
struct ms__err {
  int status;
  char msg[1024];
};

/* Record status and message; returns status. */
int ms__errf(struct ms__err *e, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int ms__verrf(struct ms__err *e, int status, const char *fmt, va_list ap);
/* Prefix the recorded message with "PREFIX: ". */
void ms__err_prefix(struct ms__err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ms__err_clear(struct ms__err *e);

/* blas.c: give every OpenBLAS the process has loaded n threads (process
 * wide); how many copies were set.  The factorisations' last bits depend
 * on the count, so a run sets it from ms_sim_options.blas_threads. */
int ms__blas_set_threads(int n);

/* plugin_call.c: every call into a plugin goes through MS__CALL, so a
 * crash or an exit() inside it can be reported with the plugin's file,
 * the system and the entry point (ms_plugin_call_now). */
void ms__call_enter(const char *file, const char *system,
                    const char *function);
int ms__call_leave(int rc);
/* MS__CALL(y, fn, args...): y->plugin->desc.fn(args...), its status. */
#define MS__CALL(y, fn, ...)                                           \
  (ms__call_enter((y)->plugin->path, (y)->desc->name, #fn),            \
   ms__call_leave((y)->plugin->desc.fn(__VA_ARGS__)))

/* snprintf that always terminates and never overflows. */
void ms__strlcpy(char *dst, const char *src, size_t len);

/* ---- rng.c ---------------------------------------------------------------*/
/* Deterministic random numbers: splitmix64 for seeding and hashing,
 * xoshiro256** for streams.  Same seed -> same numbers on every machine. */
struct ms__rng {
  uint64_t s[4];
};

static inline uint64_t ms__splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Seed a stream from up to three words (e.g. scene seed, step, stage). */
void ms__rng_seed(struct ms__rng *r, uint64_t a, uint64_t b, uint64_t c);
uint64_t ms__rng_u64(struct ms__rng *r);
/* Uniform double in [0, 1). */
double ms__rng_uniform(struct ms__rng *r);
/* Uniform integer in [lo, hi] (lo <= hi). */
uint64_t ms__rng_range(struct ms__rng *r, uint64_t lo, uint64_t hi);

/* ---- vec3 (inline) -------------------------------------------------------*/
/* Small inline 3-vector helpers for the core.  Vectors are double[3]. */
static inline double ms__dot(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline double ms__norm2(const double *a) { return ms__dot(a, a); }

static inline void ms__sub(double *out, const double *a, const double *b) {
  out[0] = a[0] - b[0];
  out[1] = a[1] - b[1];
  out[2] = a[2] - b[2];
}

/* out = a x b (out may not alias a or b) */
static inline void ms__cross(double *out, const double *a, const double *b) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

/* memcpy, memmove and memset that take no bytes at a NULL pointer: C
 * forbids the NULL even then, and our buffers stay NULL until needed. */
static inline void *ms__memcpy(void *d, const void *s, size_t n) {
  return n ? memcpy(d, s, n) : d;
}
static inline void *ms__memmove(void *d, const void *s, size_t n) {
  return n ? memmove(d, s, n) : d;
}
static inline void *ms__memset(void *d, int c, size_t n) {
  return n ? memset(d, c, n) : d;
}
/* qsort, which must not see a NULL array even when it is empty. */
static inline void ms__qsort(void *base, size_t n, size_t size,
                             int (*cmp)(const void *, const void *)) {
  if (n > 1) qsort(base, n, size, cmp);
}
/* Ascending order of uint32_t, of uint64_t (qsort comparators). */
static inline int ms__cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}
static inline int ms__cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static inline void ms__copy3(double *out, const double *a) {
  out[0] = a[0];
  out[1] = a[1];
  out[2] = a[2];
}

/* out = a * sa + b * sb */
static inline void ms__lin2(double *out, const double *a, double sa,
                            const double *b, double sb) {
  out[0] = a[0] * sa + b[0] * sb;
  out[1] = a[1] * sa + b[1] * sb;
  out[2] = a[2] * sa + b[2] * sb;
}

/* ---- xalloc (inline) -----------------------------------------------------*/
/* Allocation helpers for the core's growable work arrays. */
/* Resize *p to hold n elements of size sz (contents kept).  Returns 0 on
 * success, -1 on overflow or failure (then *p is unchanged). */
static inline int ms__grow(void **p, size_t n, size_t sz) {
  if (n != 0 && sz > SIZE_MAX / n) return -1;
  void *q = realloc(*p, (n * sz) != 0 ? n * sz : 1);
  if (!q) return -1;
  *p = q;
  return 0;
}

/* ---- parallel (inline) ---------------------------------------------------*/
/* When the core's loops go parallel.  Below these sizes a loop runs on the
 * calling thread: waking a team costs more than the work, and far more on a
 * loaded machine (a thread that has to be scheduled in). */
#define MS__PAR_MIN 4096       /* per-particle loops */
#define MS__PAR_MIN_METAS 256  /* per-meta-particle loops */
#define MS__PAR_MIN_PAIRS 65536 /* loops testing one distance per pair */
#define MS__PAR_MIN_DRIVERS 512 /* detection: each scans some hundred */
#define MS__PAR_MIN_STREAM 32768 /* per-particle loops that only stream a
                                    few numbers (memory-bound) */

/* ---- timing (inline) -----------------------------------------------------*/
/* Per-phase wall-clock timing (the rows of the paper's Table I). */
enum ms__phase {
  MS__PH_DETECT,  /* collision detection */
  MS__PH_MERGE,   /* filter, classify, group, merge */
  MS__PH_STAGE1,  /* integration, stage 1 */
  MS__PH_STAGE2,  /* rewind + regroup + integration, stage 2 */
  MS__PH_SYNC,    /* velocity synchronisation */
  MS__PH_SPLIT,   /* splitting and write-back */
  MS__PH_METRICS, /* penetration and speed measurements (not the method) */
  MS__PH_OTHER,   /* gathering state, dt, the plugins' begin/end step */
  MS__PH_COUNT
};

static inline double ms__now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A step's clock: each lap's time goes to the phase it names. */
struct ms__clock {
  double *phase; /* MS__PH_COUNT accounts */
  double t;      /* the last lap's end */
};

static inline void ms__clock_start(struct ms__clock *c, double *phase) {
  c->phase = phase;
  c->t = ms__now();
}

static inline void ms__lap(struct ms__clock *c, enum ms__phase ph) {
  double t = ms__now();
  c->phase[ph] += t - c->t;
  c->t = t;
}

extern const char *const ms__phase_names[MS__PH_COUNT];

/* ---- hash.c --------------------------------------------------------------*/
/* A streaming 64-bit checksum for checkpoints and scene files.
 *
 * Input is consumed in 8-byte little-endian words; each step
 * h = rotl(h ^ w, 29) * K is a bijection of h, so a change confined to one
 * word (any single-bit flip, any one-byte change) always changes the
 * result.  The length and a final avalanche are mixed in at the end. */
struct ms__hash {
  uint64_t h, tail, len;
  unsigned ntail;
};

void ms__hash_init(struct ms__hash *s);
void ms__hash_update(struct ms__hash *s, const void *data, size_t n);
uint64_t ms__hash_final(const struct ms__hash *s);
/* One-shot. */
uint64_t ms__hash64(const void *data, size_t n);

/* ---- view_field.c ------------------------------------------------------*/
struct ms_view;
struct ms_field;
/* Field `name` of view v with that element type and component count (0:
 * any), or NULL; NULL for a NULL name. */
const struct ms_field *ms__view_field(const struct ms_view *v,
                                      const char *name, uint32_t type,
                                      uint32_t comps);
/* Bytes of one element of type t (enum ms_type); 0 for an unknown type. */
size_t ms__type_size(uint32_t t);
/* Bytes one particle holds in field fd: its components' elements. */
size_t ms__field_bytes(const struct ms_field *fd);

#endif
