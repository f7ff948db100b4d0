/* A streaming 64-bit checksum for checkpoints and scene files.
 *
 * Input is consumed in 8-byte little-endian words; each step
 * h = rotl(h ^ w, 29) * K is a bijection of h, so a change confined to one
 * word (any single-bit flip, any one-byte change) always changes the
 * result.  The length and a final avalanche are mixed in at the end. */
#ifndef MS_CORE_HASH_H
#define MS_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

struct ms__hash {
  uint64_t h, tail, len;
  unsigned ntail;
};

void ms__hash_init(struct ms__hash *s);
void ms__hash_update(struct ms__hash *s, const void *data, size_t n);
uint64_t ms__hash_final(const struct ms__hash *s);
/* One-shot. */
uint64_t ms__hash64(const void *data, size_t n);

#endif
