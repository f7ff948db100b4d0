/* xoshiro256** (Blackman & Vigna), seeded through splitmix64. */
#include "base.h"

static inline uint64_t rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

void ms__rng_seed(struct ms__rng *r, uint64_t a, uint64_t b, uint64_t c) {
  uint64_t st = a;
  uint64_t h = ms__splitmix64(&st);
  st = h ^ b;
  h = ms__splitmix64(&st);
  st = h ^ c;
  for (int i = 0; i < 4; i++) r->s[i] = ms__splitmix64(&st);
}

uint64_t ms__rng_u64(struct ms__rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

double ms__rng_uniform(struct ms__rng *r) {
  return (double)(ms__rng_u64(r) >> 11) * 0x1.0p-53;
}

uint64_t ms__rng_range(struct ms__rng *r, uint64_t lo, uint64_t hi) {
  uint64_t span = hi - lo + 1;
  if (span == 0) return ms__rng_u64(r); /* full 64-bit range */
  /* Lemire's multiply-shift with rejection: unbiased. */
  unsigned __int128 p = (unsigned __int128)ms__rng_u64(r) * span;
  uint64_t low = (uint64_t)p;
  if (low < span) {
    uint64_t thresh = -span % span;
    while (low < thresh) {
      p = (unsigned __int128)ms__rng_u64(r) * span;
      low = (uint64_t)p;
    }
  }
  return lo + (uint64_t)(p >> 64);
}
