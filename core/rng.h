/* Deterministic random numbers: splitmix64 for seeding and hashing,
 * xoshiro256** for streams.  Same seed -> same numbers on every machine. */
#ifndef MS_CORE_RNG_H
#define MS_CORE_RNG_H

#include <stdint.h>

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

#endif
