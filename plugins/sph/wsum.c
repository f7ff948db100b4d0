/* The density pass's hot loop: s_i = sum_j raw W(|x_i - x_j|^2) over
 * i's neighbour list (sph_w_raw; density.c scales and finishes it).
 *
 * The sum runs in four fixed lanes: lane l adds, in list order, the pairs
 * at list positions l, l + 4, l + 8, ... of i's list, and
 * s_i = (s_0 + s_1) + (s_2 + s_3).  Each pair goes through the operations
 * of sph_w_raw, each correctly rounded, so every instruction set below
 * gives the same sums bitwise: AVX (four pairs per instruction, chosen at
 * run time where the processor has it), SSE2 (two) or plain C.  A run's
 * results thus depend neither on the thread count nor on the machine's
 * vector width.
 *
 * The AVX path loads each neighbour's whole 32-byte slot (SPH_XS) and
 * transposes four slots into x, y and z vectors: four loads and seven
 * shuffles per four pairs instead of twelve scalar loads. */
#include "sph.h"

#if defined(__x86_64__) && defined(__SSE2__)
#include <immintrin.h>
#define WSUM_SSE2 1
#if defined(__GNUC__) || defined(__clang__)
#define WSUM_AVX 1
#define AVX __attribute__((target("avx")))
#endif
#endif

/* One pair in plain C: the lane arithmetic of the vector paths. */
static inline double pair_c(const struct sph_kernel *k, int kind,
                            const double *xi, const double *xj) {
  double dx = xi[0] - xj[0], dy = xi[1] - xj[1], dz = xi[2] - xj[2];
  return sph_w_raw(k, kind, dx * dx + dy * dy + dz * dz);
}

/* The pairs after the last whole group of four, into lanes 0, 1, 2;
 * then the fixed combination of the lanes. */
static inline double finish(const struct sph_kernel *k, int kind,
                            const double *x, const double *xi,
                            const uint32_t *idx, uint32_t q, uint32_t q1,
                            double *s) {
  for (int l = 0; q < q1; q++, l++)
    s[l] += pair_c(k, kind, xi, x + SPH_XS * (size_t)idx[q]);
  return (s[0] + s[1]) + (s[2] + s[3]);
}

static inline __attribute__((always_inline)) double
sum_c(const struct sph_kernel *k, int kind, const double *x,
      const uint32_t *idx, uint32_t q, uint32_t q1, const double *xi) {
  double s[4] = {0.0, 0.0, 0.0, 0.0};
  for (; q + 4 <= q1; q += 4)
    for (int l = 0; l < 4; l++)
      s[l] += pair_c(k, kind, xi, x + SPH_XS * (size_t)idx[q + l]);
  return finish(k, kind, x, xi, idx, q, q1, s);
}

#ifdef WSUM_SSE2
/* sph_w_raw on two squared distances. */
static inline __attribute__((always_inline)) __m128d
raw2(const struct sph_kernel *k, int kind, __m128d r2) {
  if (kind == SPH_POLY6) {
    __m128d d = _mm_sub_pd(_mm_set1_pd(k->R2), r2);
    return _mm_mul_pd(_mm_mul_pd(d, d), d);
  }
  __m128d r = _mm_sqrt_pd(r2);
  if (kind == SPH_SPIKY) {
    __m128d d = _mm_sub_pd(_mm_set1_pd(k->R), r);
    return _mm_mul_pd(_mm_mul_pd(d, d), d);
  }
  __m128d q = _mm_mul_pd(r, _mm_set1_pd(k->inv_h));
  __m128d a = _mm_sub_pd(_mm_set1_pd(2.0), q);
  __m128d u = _mm_sub_pd(_mm_set1_pd(1.0), q); /* sph_pos(u): */
  __m128d t = _mm_mul_pd(_mm_set1_pd(0.5),
                         _mm_add_pd(u, _mm_andnot_pd(_mm_set1_pd(-0.0), u)));
  __m128d a3 = _mm_mul_pd(_mm_mul_pd(a, a), a);
  __m128d t3 = _mm_mul_pd(_mm_mul_pd(t, t), t);
  return _mm_sub_pd(a3, _mm_mul_pd(_mm_set1_pd(4.0), t3));
}

/* Pairs with the slots at a and b (lanes l, l + 1). */
static inline __attribute__((always_inline)) __m128d
pair2(const struct sph_kernel *k, int kind, const double *a,
      const double *b, __m128d xi, __m128d yi, __m128d zi) {
  __m128d pa = _mm_loadu_pd(a), pb = _mm_loadu_pd(b);
  __m128d X = _mm_unpacklo_pd(pa, pb), Y = _mm_unpackhi_pd(pa, pb);
  __m128d Z = _mm_unpacklo_pd(_mm_load_sd(a + 2), _mm_load_sd(b + 2));
  __m128d dx = _mm_sub_pd(xi, X), dy = _mm_sub_pd(yi, Y),
          dz = _mm_sub_pd(zi, Z);
  __m128d r2 = _mm_add_pd(_mm_add_pd(_mm_mul_pd(dx, dx), _mm_mul_pd(dy, dy)),
                          _mm_mul_pd(dz, dz));
  return raw2(k, kind, r2);
}

static inline __attribute__((always_inline)) double
sum_sse2(const struct sph_kernel *k, int kind, const double *x,
         const uint32_t *idx, uint32_t q, uint32_t q1, const double *xi) {
  const __m128d X = _mm_set1_pd(xi[0]), Y = _mm_set1_pd(xi[1]),
                Z = _mm_set1_pd(xi[2]);
  __m128d s01 = _mm_setzero_pd(), s23 = _mm_setzero_pd();
  for (; q + 4 <= q1; q += 4) {
    const uint32_t *j = idx + q;
    s01 = _mm_add_pd(s01, pair2(k, kind, x + SPH_XS * (size_t)j[0],
                                x + SPH_XS * (size_t)j[1], X, Y, Z));
    s23 = _mm_add_pd(s23, pair2(k, kind, x + SPH_XS * (size_t)j[2],
                                x + SPH_XS * (size_t)j[3], X, Y, Z));
  }
  double s[4];
  _mm_storeu_pd(s, s01);
  _mm_storeu_pd(s + 2, s23);
  return finish(k, kind, x, xi, idx, q, q1, s);
}
#endif

#ifdef WSUM_AVX
static inline AVX __attribute__((always_inline)) __m256d
raw4(const struct sph_kernel *k, int kind, __m256d r2) {
  if (kind == SPH_POLY6) {
    __m256d d = _mm256_sub_pd(_mm256_set1_pd(k->R2), r2);
    return _mm256_mul_pd(_mm256_mul_pd(d, d), d);
  }
  __m256d r = _mm256_sqrt_pd(r2);
  if (kind == SPH_SPIKY) {
    __m256d d = _mm256_sub_pd(_mm256_set1_pd(k->R), r);
    return _mm256_mul_pd(_mm256_mul_pd(d, d), d);
  }
  __m256d q = _mm256_mul_pd(r, _mm256_set1_pd(k->inv_h));
  __m256d a = _mm256_sub_pd(_mm256_set1_pd(2.0), q);
  __m256d u = _mm256_sub_pd(_mm256_set1_pd(1.0), q);
  __m256d t = _mm256_mul_pd(
      _mm256_set1_pd(0.5),
      _mm256_add_pd(u, _mm256_andnot_pd(_mm256_set1_pd(-0.0), u)));
  __m256d a3 = _mm256_mul_pd(_mm256_mul_pd(a, a), a);
  __m256d t3 = _mm256_mul_pd(_mm256_mul_pd(t, t), t);
  return _mm256_sub_pd(a3, _mm256_mul_pd(_mm256_set1_pd(4.0), t3));
}

/* Pairs with the slots of j[0 .. 3], transposed. */
static inline AVX __attribute__((always_inline)) __m256d
pair4(const struct sph_kernel *k, int kind, const double *x,
      const uint32_t *j, __m256d X, __m256d Y, __m256d Z) {
  __m256d A = _mm256_loadu_pd(x + SPH_XS * (size_t)j[0]),
          B = _mm256_loadu_pd(x + SPH_XS * (size_t)j[1]),
          C = _mm256_loadu_pd(x + SPH_XS * (size_t)j[2]),
          D = _mm256_loadu_pd(x + SPH_XS * (size_t)j[3]);
  /* (xa xb za zb), (ya yb . .), (xc xd zc zd), (yc yd . .) */
  __m256d ab0 = _mm256_unpacklo_pd(A, B), ab1 = _mm256_unpackhi_pd(A, B);
  __m256d cd0 = _mm256_unpacklo_pd(C, D), cd1 = _mm256_unpackhi_pd(C, D);
  __m256d dx = _mm256_sub_pd(X, _mm256_permute2f128_pd(ab0, cd0, 0x20));
  __m256d dy = _mm256_sub_pd(Y, _mm256_permute2f128_pd(ab1, cd1, 0x20));
  __m256d dz = _mm256_sub_pd(Z, _mm256_permute2f128_pd(ab0, cd0, 0x31));
  __m256d r2 = _mm256_add_pd(
      _mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)),
      _mm256_mul_pd(dz, dz));
  return raw4(k, kind, r2);
}

/* The last rem < 4 pairs go through the vector path too (no scalar
 * square roots, no loop over them): the missing lanes repeat the first
 * pair and are masked to +0, which leaves their sums unchanged (every
 * raw W is >= +0, so no sum is ever -0). */
static inline AVX __attribute__((always_inline)) double
sum_avx(const struct sph_kernel *k, int kind, const double *x,
        const uint32_t *idx, uint32_t q, uint32_t q1, const double *xi) {
  static const uint64_t keep[4][4] = {{0, 0, 0, 0},
                                      {~0ull, 0, 0, 0},
                                      {~0ull, ~0ull, 0, 0},
                                      {~0ull, ~0ull, ~0ull, 0}};
  const __m256d X = _mm256_set1_pd(xi[0]), Y = _mm256_set1_pd(xi[1]),
                Z = _mm256_set1_pd(xi[2]);
  __m256d s4 = _mm256_setzero_pd();
  for (; q + 4 <= q1; q += 4)
    s4 = _mm256_add_pd(s4, pair4(k, kind, x, idx + q, X, Y, Z));
  const uint32_t rem = q1 - q;
  if (rem) {
    const uint32_t j[4] = {idx[q], idx[q + (rem > 1)], idx[q + 2 * (rem > 2)],
                           idx[q]};
    __m256d m = _mm256_castsi256_pd(
        _mm256_loadu_si256((const __m256i *)(const void *)keep[rem]));
    s4 = _mm256_add_pd(s4, _mm256_and_pd(m, pair4(k, kind, x, j, X, Y, Z)));
  }
  double s[4];
  _mm256_storeu_pd(s, s4);
  return (s[0] + s[1]) + (s[2] + s[3]);
}
#endif

/* out[i] for i in [i0, i1) with the sum `SUM` and a literal kind. */
#define BLOCK(SUM, kind)                                                   \
  for (size_t i = i0; i < i1; i++)                                         \
    out[i] = SUM(k, kind, S->x, S->lidx, S->loff[i], S->lend[i],           \
                 S->x + SPH_XS * i)
#define KINDS(SUM)                                                         \
  switch (k->kind) {                                                       \
  case SPH_POLY6: BLOCK(SUM, SPH_POLY6); break;                            \
  case SPH_SPIKY: BLOCK(SUM, SPH_SPIKY); break;                            \
  default: BLOCK(SUM, SPH_CUBIC_SPLINE); break;                            \
  }

static void block_c(const struct sph_solver *S, size_t i0, size_t i1,
                    double *out) {
  const struct sph_kernel *k = &S->kw;
  KINDS(sum_c)
}

#ifdef WSUM_SSE2
static void block_sse2(const struct sph_solver *S, size_t i0, size_t i1,
                       double *out) {
  const struct sph_kernel *k = &S->kw;
  KINDS(sum_sse2)
}
#endif

#ifdef WSUM_AVX
static AVX void block_avx(const struct sph_solver *S, size_t i0, size_t i1,
                          double *out) {
  const struct sph_kernel *k = &S->kw;
  KINDS(sum_avx)
}
#endif

int sph_wsum_isa(int isa) {
  switch (isa) {
  case SPH_ISA_C: return 1;
#ifdef WSUM_SSE2
  case SPH_ISA_SSE2: return 1;
#endif
#ifdef WSUM_AVX
  case SPH_ISA_AVX:
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx") != 0;
#endif
  default: return 0;
  }
}

void sph_wsum(const struct sph_solver *S, size_t i0, size_t i1,
              double *out) {
  switch (S->isa) {
#ifdef WSUM_AVX
  case SPH_ISA_AVX: block_avx(S, i0, i1, out); break;
#endif
#ifdef WSUM_SSE2
  case SPH_ISA_SSE2: block_sse2(S, i0, i1, out); break;
#endif
  default: block_c(S, i0, i1, out); break;
  }
}
