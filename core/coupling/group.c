/* Grouping approaching pairs into meta-particles with seeded size limits. */
#include "coupling.h"

#include <stdlib.h>
#include <string.h>

#include <mergesplit/status.h>

#include "../base/base.h"

#define UNSET UINT32_MAX

void ms__groups_free(struct ms__groups *G) {
  free(G->offset);
  free(G->member);
  free(G->adj_off);
  free(G->adj);
  free(G->mark);
  ms__memset(G, 0, sizeof *G);
}

static void sort_row(uint32_t *r, uint32_t len) {
  if (len > 32) {
    qsort(r, len, sizeof *r, ms__cmp_u32);
    return;
  }
  for (uint32_t i = 1; i < len; i++) {
    uint32_t v = r[i], j = i;
    while (j > 0 && r[j - 1] > v) r[j] = r[j - 1], j--;
    r[j] = v;
  }
}

static int reserve(struct ms__groups *G, size_t n, size_t npairs) {
  if (n + 1 > G->cap_n) {
    if (ms__grow((void **)&G->adj_off, n + 1, sizeof(uint32_t)) ||
        ms__grow((void **)&G->mark, n + 1, sizeof(uint32_t)))
      return MS_ENOMEM;
    G->cap_n = n + 1;
  }
  if (2 * npairs > G->cap_adj) {
    if (ms__grow((void **)&G->adj, 2 * npairs, sizeof(uint32_t)))
      return MS_ENOMEM;
    G->cap_adj = 2 * npairs;
  }
  /* At most n members. */
  if (n > G->cap_member) {
    if (ms__grow((void **)&G->member, n, sizeof(uint32_t))) return MS_ENOMEM;
    G->cap_member = n;
  }
  /* At most n groups when single particles are added. */
  if (n + 2 > G->cap_groups) {
    if (ms__grow((void **)&G->offset, n + 2, sizeof(uint32_t)))
      return MS_ENOMEM;
    G->cap_groups = n + 2;
  }
  return MS_OK;
}

/* Compressed adjacency of the pair graph, each row sorted. */
static void build_adjacency(struct ms__groups *G, size_t n,
                            const uint32_t *pairs, size_t npairs) {
  uint32_t *off = G->adj_off, *cur = G->mark;
  ms__memset(off, 0, (n + 1) * sizeof *off);
  for (size_t k = 0; k < npairs; k++) {
    off[pairs[2 * k] + 1]++;
    off[pairs[2 * k + 1] + 1]++;
  }
  for (size_t i = 0; i < n; i++) off[i + 1] += off[i];
  ms__memcpy(cur, off, n * sizeof *cur);
  for (size_t k = 0; k < npairs; k++) {
    uint32_t a = pairs[2 * k], b = pairs[2 * k + 1];
    G->adj[cur[a]++] = b;
    G->adj[cur[b]++] = a;
  }
  for (size_t i = 0; i < n; i++) sort_row(G->adj + off[i], off[i + 1] - off[i]);
}

/* A group of one for every particle of a pair left outside any group. */
static void add_singles(struct ms__groups *G, const uint32_t *pairs,
                        size_t npairs) {
  uint32_t *mark = G->mark, size_total = G->offset[G->count];
  for (size_t k = 0; k < 2 * npairs; k++) {
    uint32_t p = pairs[k];
    if (mark[p] != UNSET) continue;
    mark[p] = G->count;
    G->member[size_total++] = p;
    G->offset[++G->count] = size_total;
  }
}

/* The size limit of the group particle p starts. */
static uint32_t draw_limit(const struct ms__groups *G, uint32_t p,
                           uint32_t n_min, uint32_t n_max,
                           struct ms__rng *rng) {
  if (!G->per_group) return (uint32_t)ms__rng_range(rng, n_min, n_max);
  struct ms__rng own;
  ms__rng_seed(&own, G->key[0], G->key[1],
               (G->key[2] << 32) | (G->id ? G->id[p] : p));
  return (uint32_t)ms__rng_range(&own, n_min, n_max);
}

int ms__group(struct ms__groups *G, size_t n, const uint32_t *pairs,
              size_t npairs, uint32_t n_min, uint32_t n_max, int singles,
              struct ms__rng *rng) {
  G->count = G->merged = 0;
  if (reserve(G, n, npairs)) return MS_ENOMEM;
  G->offset[0] = 0;
  if (npairs == 0) return MS_OK;
  build_adjacency(G, n, pairs, npairs);

  uint32_t *mark = G->mark, *mem = G->member, *off = G->adj_off;
  for (size_t i = 0; i < n; i++) mark[i] = UNSET;
  uint32_t size_total = 0;
  for (uint32_t p = 0; p < n; p++) {
    if (mark[p] != UNSET || off[p] == off[p + 1]) continue;
    uint32_t limit = n_max == 0 ? UINT32_MAX : draw_limit(G, p, n_min, n_max,
                                                         rng);
    uint32_t *q = mem + size_total, size = 1, head = 0;
    q[0] = p;
    mark[p] = G->count;
    while (head < size && size < limit) {
      uint32_t a = q[head++];
      for (uint32_t e = off[a]; e < off[a + 1] && size < limit; e++) {
        uint32_t b = G->adj[e];
        if (mark[b] != UNSET) continue;
        mark[b] = G->count;
        q[size++] = b;
      }
    }
    if (size < 2) { /* every partner is taken: no merge this step */
      mark[p] = UNSET;
      continue;
    }
    size_total += size;
    G->count++;
    G->offset[G->count] = size_total;
  }
  G->merged = G->count;
  if (singles) add_singles(G, pairs, npairs);
  return MS_OK;
}
