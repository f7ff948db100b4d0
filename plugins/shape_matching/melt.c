/* Melting (doc/heat.md section 6): the latent store a particle above its
 * body's melting point fills, the particles whose store is full handed to
 * the fluid system `melt_into` names, and the solid rebuilt without them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shape_matching.h"

double sm_melt_store(struct state *s) {
  double moved = 0.0;
  for (uint32_t b = 0; b < s->nbody; b++) {
    const struct sm_body *B = &s->body[b];
    if (!isfinite(B->melt_T)) continue;
    for (size_t i = B->first; i < B->first + B->count; i++) {
      if (!(s->T[i] > B->melt_T)) continue;
      double C = s->m[i] * s->c[i], mL = s->m[i] * B->latent;
      double room = mL - s->lam[i], a = C * (s->T[i] - B->melt_T);
      if (!(room > 0.0)) continue;
      if (a >= room || s->lam[i] + a >= B->share * mL) {
        /* it melts: the store full, exactly, the rest of m L (if any)
         * paid from the particle's own heat, so the books stay closed
         * and the melted mass follows the latent heat taken */
        a = room;
        s->lam[i] = mL;
      } else {
        s->lam[i] += a;
      }
      s->T[i] -= a / C;
      moved += a;
    }
  }
  return moved;
}

int sm_melt_list(struct state *s, struct ms_handover *out) {
  size_t k = 0;
  for (size_t i = 0; i < s->n; i++) {
    const struct sm_body *B = &s->body[s->body_of[i]];
    double mL = s->m[i] * B->latent;
    /* a full store melts whatever its temperature now (melt_share < 1
     * leaves it below the melting point); without latent heat, the
     * melting point alone */
    if (!isfinite(B->melt_T) || !(s->lam[i] >= mL) ||
        !(mL > 0.0 || s->T[i] >= B->melt_T))
      continue;
    if (k == s->cap_give) {
      size_t c = 2 * k + 16;
      uint32_t *g = realloc(s->give, c * sizeof *g);
      if (g) s->give = g;
      const char **t = g ? realloc(s->give_to, c * sizeof *t) : NULL;
      if (!t) return MS_ENOMEM;
      s->give_to = t, s->cap_give = c;
    }
    s->give[k] = (uint32_t)i;
    s->give_to[k++] = s->melt_into;
  }
  out->count = (uint32_t)k;
  out->index = s->give;
  out->to = s->give_to;
  return MS_OK;
}

/* Keep the entries of cluster c whose particle survives (map: old index
 * -> new, SM_NONE when gone), in place at offset `off`. */
static void keep_entries(struct state *s, struct sm_cluster *C,
                         const uint32_t *map, uint32_t off) {
  uint32_t n = 0;
  for (uint32_t e = C->off; e < C->off + C->cnt; e++) {
    uint32_t p = map[s->ep[e]];
    if (p == SM_NONE) continue;
    s->ep[off + n] = p;
    memcpy(s->eqs + 3 * (size_t)(off + n), s->eqs + 3 * (size_t)e,
           3 * sizeof(double));
    n++;
  }
  C->off = off, C->cnt = n;
}

/* From the offsets as sampled (eqs), not from the last centring: the
 * result depends on which particles remain, not on the order they left
 * in, so a resumed run rebuilds it bit for bit. */
void sm_reweigh(struct state *s, struct sm_cluster *C) {
  double cm[3] = {0, 0, 0}, ws = 0.0;
  for (uint32_t e = C->off; e < C->off + C->cnt; e++) {
    uint32_t i = s->ep[e];
    s->ew[e] = s->m[i] / s->nclus[i];
    ws += s->ew[e];
    for (int a = 0; a < 3; a++) cm[a] += s->ew[e] * s->eqs[3 * e + a];
  }
  for (uint32_t e = C->off; e < C->off + C->cnt; e++)
    for (int a = 0; a < 3; a++)
      s->eq0[3 * e + a] = s->eqs[3 * e + a] - cm[a] / ws;
}

/* Drop clusters of fewer than 4 members, or degenerate for their mode,
 * until none is; then every particle's cluster count. */
static void prune_clusters(struct state *s) {
  for (int changed = 1; changed;) {
    changed = 0;
    memset(s->nclus, 0, s->n * sizeof *s->nclus);
    for (uint32_t c = 0; c < s->nclusters; c++)
      for (uint32_t e = s->clus[c].off; e < s->clus[c].off + s->clus[c].cnt;
           e++)
        s->nclus[s->ep[e]]++;
    uint32_t kept = 0, off = 0;
    for (uint32_t c = 0; c < s->nclusters; c++) {
      struct sm_cluster *C = &s->clus[c];
      int ok = C->cnt >= 4;
      if (ok) {
        sm_reweigh(s, C);
        sm_replastic_at(s, C, s->aqq9 + 81 * (size_t)c, &ok);
      }
      if (!ok) {
        changed = 1;
        continue;
      }
      /* move cluster c to slot `kept`, its entries to `off` */
      if (C->off != off) {
        memmove(s->ep + off, s->ep + C->off, C->cnt * sizeof *s->ep);
        memmove(s->ew + off, s->ew + C->off, C->cnt * sizeof *s->ew);
        memmove(s->eq0 + 3 * (size_t)off, s->eq0 + 3 * (size_t)C->off,
                3 * C->cnt * sizeof *s->eq0);
        memmove(s->eqs + 3 * (size_t)off, s->eqs + 3 * (size_t)C->off,
                3 * C->cnt * sizeof *s->eqs);
        memmove(s->eq + 3 * (size_t)off, s->eq + 3 * (size_t)C->off,
                3 * C->cnt * sizeof *s->eq);
        C->off = off;
      }
      if (kept != c) {
        s->clus[kept] = *C;
        memcpy(s->aqq9 + 81 * (size_t)kept, s->aqq9 + 81 * (size_t)c,
               81 * sizeof *s->aqq9);
      }
      off += s->clus[kept].cnt;
      kept++;
    }
    s->nclusters = kept;
    s->nentries = off;
  }
}

/* Bodies' particle and cluster ranges and masses from what remains. */
static void rebody(struct state *s) {
  size_t first = 0;
  uint32_t cf = 0;
  for (uint32_t b = 0; b < s->nbody; b++) {
    struct sm_body *B = &s->body[b];
    B->first = first, B->count = 0, B->mass = 0.0;
    while (first + B->count < s->n && s->body_of[first + B->count] == b)
      B->mass += s->m[first + B->count], B->count++;
    first += B->count;
    B->cfirst = cf, B->ccount = 0;
    while (cf + B->ccount < s->nclusters && s->clus[cf + B->ccount].body == b)
      B->ccount++;
    cf += B->ccount;
  }
}

int sm_melt_release(struct state *s, const struct ms_handover *given,
                    uint32_t *pieces) {
  if (pieces) *pieces = 0;
  if (!given->count) return MS_OK;
  uint32_t *map = malloc(s->n * sizeof *map);
  uint8_t *lost = calloc(s->nbody, 1);
  if (!map || !lost) return free(map), free(lost), MS_ENOMEM;
  size_t n = 0, g = 0;
  for (size_t i = 0; i < s->n; i++) {
    if (g < given->count && given->index[g] == i) {
      s->melted_latent += s->lam[i];
      lost[s->body_of[i]] = 1;
      map[i] = SM_NONE, g++;
      continue;
    }
    map[i] = (uint32_t)n;
    if (n != i) {
      memcpy(s->x + 3 * n, s->x + 3 * i, 3 * sizeof(double));
      memcpy(s->v + 3 * n, s->v + 3 * i, 3 * sizeof(double));
      memcpy(s->x0 + 3 * n, s->x0 + 3 * i, 3 * sizeof(double));
      memcpy(s->v0 + 3 * n, s->v0 + 3 * i, 3 * sizeof(double));
      memcpy(s->xr + 3 * n, s->xr + 3 * i, 3 * sizeof(double));
      s->m[n] = s->m[i], s->r[n] = s->r[i], s->T[n] = s->T[i];
      s->c[n] = s->c[i], s->lam[n] = s->lam[i];
      s->body_of[n] = s->body_of[i], s->touch[n] = s->touch[i];
      s->orig[n] = s->orig[i];
    }
    n++;
  }
  /* conduction pairs between particles that stay */
  size_t q = 0;
  for (size_t k = 0; k < s->nhp; k++) {
    uint32_t i = map[s->hp[2 * k]], j = map[s->hp[2 * k + 1]];
    if (i == SM_NONE || j == SM_NONE) continue;
    s->hp[2 * q] = i, s->hp[2 * q + 1] = j, s->hG[q++] = s->hG[k];
  }
  s->nhp = q;
  uint32_t off = 0;
  for (uint32_t c = 0; c < s->nclusters; c++) {
    keep_entries(s, &s->clus[c], map, off);
    off += s->clus[c].cnt;
  }
  s->n = n;
  free(map);
  rebody(s);
  int rc = sm_split_pieces(s, lost, pieces);
  free(lost);
  if (rc) return rc;
  prune_clusters(s);
  rebody(s);
  return MS_OK;
}
