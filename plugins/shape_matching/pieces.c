/* A melting body that comes apart (doc/heat.md section 6).  After a melt
 * the particles of each body that lost some are grouped by face
 * neighbours of the lattice they were sampled on (the neighbours a
 * conducting body conducts through); each group becomes a body of its
 * own, with its part of every cluster, and a body with nothing left goes.
 * Everything is a function of which particles are left -- bodies ordered
 * by their first particle at create, particles by their index at create,
 * clusters by body and then by their index at create -- so a resumed run,
 * which drops all the melted particles at once, rebuilds the bodies the
 * uninterrupted run reached step by step, bit for bit. */
#include <stdlib.h>
#include <string.h>

#include "shape_matching.h"

static uint32_t find(uint32_t *up, uint32_t i) {
  while (up[i] != i) i = up[i] = up[up[i]];
  return i;
}

/* The smaller index is the root: a piece's root is its first particle. */
static void join(uint32_t *up, uint32_t a, uint32_t b) {
  a = find(up, a), b = find(up, b);
  if (a < b)
    up[b] = a;
  else
    up[a] = b;
}

/* up[i]: the first particle of i's piece.  A body that lost nothing is
 * still one piece. */
static int label(struct state *s, const uint8_t *lost, uint32_t *up) {
  for (size_t i = 0; i < s->n; i++) up[i] = (uint32_t)i;
  for (uint32_t b = 0; b < s->nbody; b++) {
    const struct sm_body *B = &s->body[b];
    if (!lost[b]) {
      for (size_t i = B->first + 1; i < B->first + B->count; i++)
        up[i] = (uint32_t)B->first;
      continue;
    }
    if (!B->count) continue;
    struct ms_neighbors nb = {0};
    int rc = s->host->neighbors(s->ctx, s->xr + 3 * B->first,
                                3 * sizeof(double), B->count,
                                1.01 * B->spacing, &nb);
    if (rc) return rc;
    for (size_t i = 0; i < B->count; i++)
      for (uint32_t q = nb.offset[i]; q < nb.offset[i + 1]; q++)
        join(up, (uint32_t)(B->first + i), (uint32_t)(B->first + nb.index[q]));
    s->host->neighbors_release(s->ctx, &nb);
  }
  for (size_t i = 0; i < s->n; i++) up[i] = find(up, (uint32_t)i);
  return MS_OK;
}

struct key {
  uint32_t a, b, c; /* sort by a, then b; c rides along */
};

static int by_key(const void *p, const void *q) {
  const struct key *x = p, *y = q;
  if (x->a != y->a) return x->a < y->a ? -1 : 1;
  return (x->b > y->b) - (x->b < y->b);
}

/* Move element i of a (n elements of `size` bytes) to to[i]. */
static void permute(void *a, size_t size, const uint32_t *to, size_t n,
                    void *tmp) {
  for (size_t i = 0; i < n; i++)
    memcpy((char *)tmp + to[i] * size, (char *)a + i * size, size);
  memcpy(a, tmp, n * size);
}

/* The particles in their new order: by piece, then as they were. */
static void reorder(struct state *s, const uint32_t *piece, uint32_t np,
                    uint32_t *to, void *tmp) {
  size_t n = s->n;
  memset(to, 0, (np + 1) * sizeof *to);
  for (size_t i = 0; i < n; i++) to[piece[i] + 1]++;
  for (uint32_t k = 0; k < np; k++) to[k + 1] += to[k];
  uint32_t *at = to + np + 1; /* the new index of each particle */
  for (size_t i = 0; i < n; i++) at[i] = to[piece[i]]++;
  const size_t v3 = 3 * sizeof(double), v1 = sizeof(double);
  permute(s->x, v3, at, n, tmp), permute(s->v, v3, at, n, tmp);
  permute(s->x0, v3, at, n, tmp), permute(s->v0, v3, at, n, tmp);
  permute(s->xr, v3, at, n, tmp), permute(s->m, v1, at, n, tmp);
  permute(s->r, v1, at, n, tmp), permute(s->T, v1, at, n, tmp);
  permute(s->c, v1, at, n, tmp), permute(s->lam, v1, at, n, tmp);
  permute(s->orig, sizeof *s->orig, at, n, tmp);
  permute(s->touch, 1, at, n, tmp);
  for (size_t i = 0; i < n; i++) s->body_of[at[i]] = piece[i];
  for (size_t k = 0; k < 2 * s->nhp; k++) s->hp[k] = at[s->hp[k]];
}

/* Every cluster cut into its parts in each piece, ordered by piece and
 * then by the cluster's index at create; entries keep their order.  at:
 * the particles' new indices (reorder), piece: by the old index. */
static int cut_clusters(struct state *s, const uint32_t *piece,
                        const uint32_t *at, uint32_t np) {
  uint32_t *seen = malloc((np ? np : 1) * sizeof *seen);
  struct key *part = NULL;
  size_t nparts = 0, cap = 0;
  int rc = seen ? MS_OK : MS_ENOMEM;
  for (uint32_t k = 0; k < np; k++) seen[k] = SM_NONE;
  for (uint32_t c = 0; !rc && c < s->nclusters; c++) {
    const struct sm_cluster *C = &s->clus[c];
    for (uint32_t e = C->off; !rc && e < C->off + C->cnt; e++) {
      uint32_t p = piece[s->ep[e]];
      if (seen[p] == c) continue;
      seen[p] = c;
      if (nparts == cap) {
        cap = 2 * cap + 16;
        struct key *t = realloc(part, cap * sizeof *t);
        if (!t) rc = MS_ENOMEM;
        else part = t;
      }
      if (!rc) part[nparts++] = (struct key){p, C->origin, c};
    }
  }
  size_t ne = s->nentries;
  uint32_t *ep = rc ? NULL : malloc((ne ? ne : 1) * sizeof *ep);
  double *eqs = ep ? malloc((ne ? 3 * ne : 1) * sizeof *eqs) : NULL;
  struct sm_cluster *cl = eqs ? malloc((nparts + 1) * sizeof *cl) : NULL;
  double *aqq9 = cl ? calloc(81 * (nparts + 1), sizeof *aqq9) : NULL;
  double *clus0 = aqq9 ? malloc(13 * (nparts + 1) * sizeof *clus0) : NULL;
  if (!rc && !clus0) rc = MS_ENOMEM;
  if (!rc) {
    if (nparts > 1) /* part is NULL when there is none */
      qsort(part, nparts, sizeof *part, by_key);
    uint32_t off = 0;
    for (size_t k = 0; k < nparts; k++) {
      const struct sm_cluster *C = &s->clus[part[k].c];
      cl[k] = *C;
      cl[k].off = off, cl[k].body = part[k].a;
      for (uint32_t e = C->off; e < C->off + C->cnt; e++) {
        if (piece[s->ep[e]] != part[k].a) continue;
        ep[off] = at[s->ep[e]];
        memcpy(eqs + 3 * (size_t)off, s->eqs + 3 * (size_t)e,
               3 * sizeof(double));
        off++;
      }
      cl[k].cnt = off - cl[k].off;
    }
    memcpy(s->ep, ep, ne * sizeof *ep);
    memcpy(s->eqs, eqs, 3 * ne * sizeof *eqs);
    free(s->clus), free(s->aqq9), free(s->clus0);
    s->clus = cl, s->aqq9 = aqq9, s->clus0 = clus0;
    s->nclusters = (uint32_t)nparts;
    cl = NULL, aqq9 = clus0 = NULL;
  }
  free(seen), free(part), free(ep), free(eqs), free(cl), free(aqq9);
  free(clus0);
  return rc;
}

/* The bodies: one per piece, each a copy of the body it came from (its
 * ranges and mass follow in rebody). */
static int new_bodies(struct state *s, const struct key *roots, uint32_t np) {
  struct sm_body *body = malloc((np ? np : 1) * sizeof *body);
  double *dL = calloc(3 * (size_t)(np ? np : 1), sizeof *dL);
  if (!body || !dL) return free(body), free(dL), MS_ENOMEM;
  for (uint32_t k = 0; k < np; k++) body[k] = s->body[roots[k].b];
  free(s->body), free(s->dL);
  s->body = body, s->dL = dL, s->nbody = np;
  return MS_OK;
}

int sm_split_pieces(struct state *s, const uint8_t *lost, uint32_t *added) {
  size_t n = s->n;
  uint32_t *up = malloc((n ? n : 1) * sizeof *up);
  if (!up) return MS_ENOMEM;
  int rc = label(s, lost, up);
  /* pieces: the roots, ordered by their particle's index at create */
  uint32_t np = 0, before = 0;
  for (size_t i = 0; i < n; i++) np += up[i] == i;
  int changed = 0;
  for (uint32_t b = 0; b < s->nbody; b++) {
    const struct sm_body *B = &s->body[b];
    uint32_t r = 0;
    for (size_t i = B->first; i < B->first + B->count; i++) r += up[i] == i;
    changed |= r != 1;
    before += B->count > 0;
  }
  if (rc || !changed) return free(up), rc;
  struct key *roots = malloc((np ? np : 1) * sizeof *roots);
  uint32_t *piece = malloc((n ? n : 1) * sizeof *piece);
  uint32_t *to = malloc((np + 1 + n) * sizeof *to);
  double *tmp = malloc((n ? 3 * n : 1) * sizeof *tmp);
  if (!roots || !piece || !to || !tmp) rc = MS_ENOMEM;
  if (!rc) {
    uint32_t k = 0;
    for (size_t i = 0; i < n; i++)
      if (up[i] == i)
        roots[k++] = (struct key){s->orig[i], s->body_of[i], (uint32_t)i};
    if (np > 1) qsort(roots, np, sizeof *roots, by_key);
    for (k = 0; k < np; k++) piece[roots[k].c] = k;
    for (size_t i = 0; i < n; i++) piece[i] = piece[up[i]];
    reorder(s, piece, np, to, tmp);
    rc = cut_clusters(s, piece, to + np + 1, np);
  }
  if (!rc) rc = new_bodies(s, roots, np);
  if (!rc && added) *added = np > before ? np - before : 0;
  free(up), free(roots), free(piece), free(to), free(tmp);
  return rc;
}
