/* Word-wise multiplicative checksum (see base.h). */
#include "base.h"

#include <string.h>

#define K 0x9E3779B97F4A7C15ull

static inline uint64_t step(uint64_t h, uint64_t w) {
  h ^= w;
  h = (h << 29) | (h >> 35);
  return h * K;
}

static inline uint64_t load_le(const unsigned char *p) {
  uint64_t w = 0;
  for (int i = 7; i >= 0; i--) w = (w << 8) | p[i];
  return w;
}

void ms__hash_init(struct ms__hash *s) {
  s->h = 0x6D65726765737031ull; /* "mergesp1" */
  s->tail = 0;
  s->len = 0;
  s->ntail = 0;
}

void ms__hash_update(struct ms__hash *s, const void *data, size_t n) {
  const unsigned char *p = data;
  s->len += n;
  while (n && s->ntail) { /* finish a word begun by the previous call */
    s->tail |= (uint64_t)*p++ << (8 * s->ntail);
    n--;
    if (++s->ntail == 8) {
      s->h = step(s->h, s->tail);
      s->tail = 0;
      s->ntail = 0;
    }
  }
  uint64_t h = s->h;
  for (; n >= 8; p += 8, n -= 8) h = step(h, load_le(p));
  s->h = h;
  for (; n; n--) s->tail |= (uint64_t)*p++ << (8 * s->ntail++);
}

uint64_t ms__hash_final(const struct ms__hash *s) {
  uint64_t h = s->h;
  if (s->ntail) h = step(h, s->tail | (uint64_t)1 << (8 * s->ntail));
  h = step(h, s->len);
  h ^= h >> 31; /* splitmix64's finaliser */
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 27;
  h *= 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}

uint64_t ms__hash64(const void *data, size_t n) {
  struct ms__hash s;
  ms__hash_init(&s);
  ms__hash_update(&s, data, n);
  return ms__hash_final(&s);
}
