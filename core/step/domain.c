/* One run spread over processes by domain decomposition (step.h,
 * doc/distributed.md section 5). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/status.h>

#include "../base/base.h"
#include "../coupling/coupling.h"
#include "step.h"

#define TRY(expr)        \
  do {                   \
    int rc_ = (expr);    \
    if (rc_) return rc_; \
  } while (0)

/* What crosses ranks, record by record (plain old data, memcpy'd). */
struct ghost { /* 72 bytes: the model's B_ghost */
  uint32_t gid, sys;
  double x[3], v[3], m, r;
};
struct member { /* a particle of a component that touches a ghost */
  struct ghost p;
  int32_t owner;
  uint32_t pad;
};
struct result {
  uint32_t gid, pad;
  double x[3], v[3];
};

struct buf {
  char *p;
  size_t n, cap;
};

struct ws {
  struct buf *out;      /* size: what goes to each rank */
  size_t *scount, *rcount;
  uint32_t *uf;         /* union-find parents */
  int32_t *dest;        /* per local root: the rank that takes it */
  uint8_t *flag;        /* per node */
  uint64_t *pairs;      /* (gid << 32 | gid) or local pairs */
  uint32_t *far;        /* members gathered here, by id */
  struct member *mem;   /* the members received, sorted by id */
  size_t cap_uf, cap_pairs, cap_far, cap_mem;
};

static int put(struct buf *b, const void *src, size_t n) {
  if (!n) return MS_OK;
  if (b->n + n > b->cap) {
    size_t c = 2 * (b->n + n) + 4096;
    if (ms__grow((void **)&b->p, c, 1)) return MS_ENOMEM;
    b->cap = c;
  }
  memcpy(b->p + b->n, src, n);
  b->n += n;
  return MS_OK;
}

static int oom(struct ms__stepper *S) {
  return ms__errf(S->err, MS_ENOMEM, "domain decomposition: out of memory");
}

/* Send every rank its buffer; *recv: what came, rank by rank.  Bytes to
 * and from other ranks are counted under kind. */
static int exchange(struct ms__domain *D, struct ms__stepper *S, int kind,
                    char **recv) {
  struct ws *W = D->ws;
  void *send[D->T.size > 0 ? D->T.size : 1];
  for (int q = 0; q < D->T.size; q++)
    send[q] = W->out[q].p, W->scount[q] = W->out[q].n;
  void *in = NULL;
  int rc = D->T.alltoall(D->T.opaque, send, W->scount, &in, W->rcount);
  for (int q = 0; q < D->T.size; q++) W->out[q].n = 0;
  if (rc)
    return ms__errf(S->err, rc, "domain decomposition: exchange failed");
  for (int q = 0; q < D->T.size; q++) {
    if (q == D->T.rank) continue;
    D->sent.bytes[kind] += W->scount[q];
    D->recvd.bytes[kind] += W->rcount[q];
  }
  *recv = in;
  return MS_OK;
}

/* The system holding particle gid, and its index there. */
static struct ms__system *locate(struct ms__stepper *S, uint32_t gid,
                                 size_t *i) {
  uint32_t s = 0;
  while (gid >= S->sys[s].offset + S->sys[s].view.count) s++;
  *i = gid - S->sys[s].offset;
  return &S->sys[s];
}

static void read_ghost(struct ms__stepper *S, uint32_t gid, struct ghost *g) {
  size_t i;
  struct ms__system *y = locate(S, gid, &i);
  g->gid = gid;
  g->sys = (uint32_t)(y - S->sys);
  ms__copy3(g->x, ms__at(&y->x, i));
  ms__copy3(g->v, ms__at(&y->v, i));
  g->m = *ms__at(&y->m, i);
  g->r = *ms__at(&y->r, i);
}

static void write_ghost(struct ms__stepper *S, const struct ghost *g) {
  size_t i;
  struct ms__system *y = locate(S, g->gid, &i);
  ms__copy3(ms__at(&y->x, i), g->x);
  ms__copy3(ms__at(&y->v, i), g->v);
  *ms__at(&y->m, i) = g->m;
  *ms__at(&y->r, i) = g->r;
}

/* A whole particle: its id, then every field of its system's view. */
static int put_whole(struct buf *b, struct ms__stepper *S, uint32_t gid) {
  size_t i;
  const struct ms__system *y = locate(S, gid, &i);
  TRY(put(b, &gid, sizeof gid));
  for (uint32_t f = 0; f < y->view.field_count; f++) {
    const struct ms_field *fd = &y->view.fields[f];
    TRY(put(b, (const char *)fd->data + i * fd->stride,
            ms__field_bytes(fd)));
  }
  return MS_OK;
}

/* Reads what put_whole wrote at p; the bytes read. */
static size_t take_whole(struct ms__stepper *S, const char *p, uint32_t *id) {
  uint32_t gid;
  memcpy(&gid, p, sizeof gid);
  size_t i, n = sizeof gid;
  const struct ms__system *y = locate(S, gid, &i);
  for (uint32_t f = 0; f < y->view.field_count; f++) {
    const struct ms_field *fd = &y->view.fields[f];
    size_t len = ms__field_bytes(fd);
    memcpy((char *)fd->data + i * fd->stride, p + n, len);
    n += len;
  }
  *id = gid;
  return n;
}

static const double *position(struct ms__stepper *S, uint32_t gid) {
  size_t i;
  struct ms__system *y = locate(S, gid, &i);
  return ms__at(&y->x, i);
}

static int owner_of(const struct ms__domain *D, double c) {
  int lo = 0, hi = D->T.size - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (c >= D->cut[mid]) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

static double to_slab(const struct ms__domain *D, int q, double c) {
  return c < D->cut[q] ? D->cut[q] - c
         : c >= D->cut[q + 1] ? c - D->cut[q + 1] : 0.0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* ---- opening ------------------------------------------------------------*/

/* The scenes the proof covers: one line naming what is not covered. */
static int check_scene(const struct ms__stepper *S) {
  const struct ms__scene *sc = S->scene;
  const char *why = NULL;
  if (sc->method != MS__METHOD_MERGE_SPLIT)
    why = "coupling.method must be \"merge-split\"";
  else if (sc->two_stage)
    why = "coupling.two_stage must be false (stage 2 needs a second "
          "exchange of ghosts, not built)";
  else if (sc->n_max && !sc->group_per_group)
    why = "coupling.group_draws must be \"per_group\" (the default's draws "
          "depend on every group of the scene)";
  else if (sc->iterations > 1)
    why = "coupling.iterations must be 1 (their convergence test is over "
          "the whole scene)";
  else if (sc->conductance > 0.0)
    why = "coupling.conductance must be 0 (heat is not exchanged across "
          "ranks)";
  else if (sc->nheat_src)
    why = "scene.heat_sources must be empty (a rank would heat the copies "
          "it does not own)";
  if (why)
    return ms__errf(S->err, MS_EINVAL, "%s: %s for a run over ranks",
                    sc->path, why);
  for (uint32_t s = 0; s < S->nsys; s++)
    if (strcmp(S->sys[s].plugin->desc.id, "particles"))
      return ms__errf(S->err, MS_EINVAL, "%s: system '%s' (solver '%s'): a "
                      "run over ranks takes only solvers whose particles do "
                      "not act on each other (particles)", sc->path,
                      S->sys[s].desc->name, S->sys[s].plugin->desc.id);
  return MS_OK;
}

/* Slabs along the longest side of the particles' box, each holding an
 * equal share of them now; the halo is the largest contact distance. */
static int cut_slabs(struct ms__domain *D, struct ms__stepper *S) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3], rmax = 0.0;
  for (int a = 0; a < 3; a++) hi[a] = -INFINITY;
  for (uint32_t g = 0; g < D->nall; g++) {
    const double *x = position(S, g);
    for (int a = 0; a < 3; a++) lo[a] = fmin(lo[a], x[a]), hi[a] = fmax(hi[a], x[a]);
    size_t i;
    struct ms__system *y = locate(S, g, &i);
    rmax = fmax(rmax, *ms__at(&y->r, i));
  }
  D->axis = 0;
  for (int a = 1; a < 3; a++)
    if (hi[a] - lo[a] > hi[D->axis] - lo[D->axis]) D->axis = a;
  double *c = malloc((D->nall + 1) * sizeof *c);
  if (!c) return oom(S);
  c[0] = 0.0; /* an empty scene: every cut at 0 */
  for (uint32_t g = 0; g < D->nall; g++) c[g] = position(S, g)[D->axis];
  ms__qsort(c, D->nall, sizeof *c, cmp_double);
  D->cut[0] = -INFINITY;
  D->cut[D->T.size] = INFINITY;
  for (int q = 1; q < D->T.size; q++)
    D->cut[q] = D->nall ? c[(size_t)q * D->nall / (size_t)D->T.size] : 0.0;
  free(c);
  D->halo = 2.0 * rmax;
  return MS_OK;
}

int ms__domain_open(struct ms__domain *D, struct ms__stepper *S,
                    const struct ms__transport *T) {
  memset(D, 0, sizeof *D);
  D->T = *T;
  TRY(check_scene(S));
  for (uint32_t s = 0; s < S->nsys; s++) {
    S->sys[s].offset = D->nall;
    D->nall += S->sys[s].view.count;
  }
  struct ws *W = D->ws = calloc(1, sizeof *W);
  if (!W || !(D->cut = calloc((size_t)T->size + 1, sizeof *D->cut)) ||
      !(W->out = calloc((size_t)T->size, sizeof *W->out)) ||
      !(W->scount = calloc((size_t)T->size, sizeof *W->scount)) ||
      !(W->rcount = calloc((size_t)T->size, sizeof *W->rcount)) ||
      !(D->role = calloc(D->nall + 1, 1)) ||
      !(D->edge = calloc(D->nall + 1, 1)) ||
      !(D->from = calloc(D->nall + 1, sizeof *D->from)) ||
      !(D->own = malloc((D->nall + 1) * sizeof *D->own)) ||
      !(D->gid = malloc((D->nall + 1) * sizeof *D->gid)))
    return oom(S);
  D->cap_own = D->cap = D->nall + 1;
  TRY(cut_slabs(D, S));
  for (uint32_t g = 0; g < D->nall; g++)
    if (owner_of(D, position(S, g)[D->axis]) == T->rank) {
      D->own[D->nown++] = g;
      D->role[g] = 1;
    }
  return MS_OK;
}

void ms__domain_free(struct ms__domain *D) {
  struct ws *W = D->ws;
  if (W) {
    for (int q = 0; W->out && q < D->T.size; q++) free(W->out[q].p);
    free(W->out), free(W->scount), free(W->rcount), free(W->uf), free(W->dest);
    free(W->flag), free(W->pairs), free(W->far), free(W->mem);
    free(W);
  }
  free(D->cut), free(D->gid), free(D->own), free(D->role), free(D->edge);
  free(D->from), free(D->meta_id);
  memset(D, 0, sizeof *D);
}

/* ---- the step's start: migrants, ghosts, the piece ----------------------*/

static int migrate(struct ms__domain *D, struct ms__stepper *S) {
  struct ws *W = D->ws;
  TRY(ms__systems_refresh(S)); /* whole particles leave */
  size_t keep = 0;
  for (size_t k = 0; k < D->nown; k++) {
    uint32_t g = D->own[k];
    int q = owner_of(D, position(S, g)[D->axis]);
    if (q == D->T.rank) {
      D->own[keep++] = g;
      continue;
    }
    if (put_whole(&W->out[q], S, g)) return oom(S);
    D->role[g] = 0;
    D->sent.records[MS__DOM_MIGRANT]++;
  }
  D->nown = keep;
  char *in;
  TRY(exchange(D, S, MS__DOM_MIGRANT, &in));
  size_t total = 0;
  for (int q = 0; q < D->T.size; q++) total += W->rcount[q];
  for (size_t p = 0; p < total;) {
    uint32_t g;
    p += take_whole(S, in + p, &g);
    D->own[D->nown++] = g;
    D->role[g] = 1;
    D->recvd.records[MS__DOM_MIGRANT]++;
  }
  free(in);
  ms__qsort(D->own, D->nown, sizeof *D->own, ms__cmp_u32);
  return MS_OK;
}

static int send_ghosts(struct ms__domain *D, struct ms__stepper *S) {
  struct ws *W = D->ws;
  for (size_t k = 0; k < D->nown; k++) {
    uint32_t g = D->own[k];
    double c = position(S, g)[D->axis];
    D->edge[g] = 0;
    struct ghost rec;
    read_ghost(S, g, &rec);
    for (int q = 0; q < D->T.size; q++) {
      if (q == D->T.rank || !(to_slab(D, q, c) < D->halo)) continue;
      if (put(&W->out[q], &rec, sizeof rec)) return oom(S);
      D->edge[g] = 1;
      D->sent.records[MS__DOM_GHOST]++;
    }
  }
  char *in;
  TRY(exchange(D, S, MS__DOM_GHOST, &in));
  size_t p = 0, n = 0;
  memcpy(D->gid, D->own, D->nown * sizeof *D->gid);
  n = D->nown;
  for (int q = 0; q < D->T.size; q++)
    for (size_t e = p + W->rcount[q]; p < e; p += sizeof(struct ghost)) {
      struct ghost rec;
      memcpy(&rec, in + p, sizeof rec);
      write_ghost(S, &rec);
      D->role[rec.gid] = 2;
      D->from[rec.gid] = q;
      D->gid[n++] = rec.gid;
    }
  free(in);
  uint64_t ghosts = n - D->nown;
  D->recvd.records[MS__DOM_GHOST] += ghosts;
  if (ghosts > D->max_ghosts) D->max_ghosts = ghosts;
  if (!D->steps) D->first_ghosts = ghosts;
  D->n = n;
  ms__qsort(D->gid, n, sizeof *D->gid, ms__cmp_u32);
  return MS_OK;
}

int ms__domain_begin(struct ms__domain *D, struct ms__stepper *S) {
  size_t nall = 0;
  for (uint32_t s = 0; s < S->nsys; s++) nall += S->sys[s].view.count;
  if (nall != D->nall) /* the ids would name other particles */
    return ms__errf(S->err, MS_ESTATE, "the scene holds %zu particles, %zu "
                    "when it was cut into slabs: a run over ranks takes no "
                    "hand-over", nall, D->nall);
  for (size_t k = 0; k < D->n; k++) /* last step's ghosts and gathered */
    if (D->role[D->gid[k]] != 1) D->role[D->gid[k]] = 0;
  TRY(migrate(D, S));
  TRY(send_ghosts(D, S));
  D->steps++;
  return MS_OK;
}

void ms__domain_pairs(const struct ms__domain *D, struct ms__detect *det) {
  size_t m = 0;
  for (size_t k = 0; k < det->npairs; k++) {
    uint32_t i = det->pairs[2 * k], j = det->pairs[2 * k + 1];
    if (D->role[D->gid[i < j ? i : j]] != 1) continue;
    det->pairs[2 * m] = i, det->pairs[2 * m + 1] = j;
    m++;
  }
  det->npairs = m;
}

int ms__domain_reduce(struct ms__domain *D, struct ms__stepper *S,
                      double *vmax, double *rmin) {
  double v[2] = {*vmax, -*rmin};
  int rc = D->T.max(D->T.opaque, v, 2);
  if (rc) return ms__errf(S->err, rc, "domain decomposition: reduce failed");
  *vmax = v[0], *rmin = -v[1];
  return MS_OK;
}

/* ---- components that cross a face ---------------------------------------*/

static uint32_t find(uint32_t *uf, uint32_t a) {
  while (uf[a] != a) a = uf[a] = uf[uf[a]];
  return a;
}

static void unite(uint32_t *uf, uint32_t a, uint32_t b) {
  a = find(uf, a), b = find(uf, b);
  if (a != b) uf[a > b ? a : b] = a < b ? a : b;
}

static int reserve_ws(struct ms__domain *D, size_t nodes, size_t pairs) {
  struct ws *W = D->ws;
  if (nodes > W->cap_uf) {
    size_t c = nodes + nodes / 2 + 64;
    if (ms__grow((void **)&W->uf, c, sizeof *W->uf) ||
        ms__grow((void **)&W->dest, c, sizeof *W->dest) ||
        ms__grow((void **)&W->flag, c, 1))
      return MS_ENOMEM;
    W->cap_uf = c;
  }
  if (pairs > W->cap_pairs) {
    size_t c = pairs + pairs / 2 + 64;
    if (ms__grow((void **)&W->pairs, c, sizeof *W->pairs)) return MS_ENOMEM;
    W->cap_pairs = c;
  }
  return MS_OK;
}

/* A particle of the piece that another rank may pair too: a ghost here,
 * or owned here and a ghost there. */
static int boundary(const struct ms__domain *D, uint32_t g) {
  return D->role[g] != 1 || D->edge[g];
}

/* The components of the approaching pairs (W->uf, over the piece); bit 0
 * of W->flag[root]: open, it holds a boundary particle. */
static int local_components(struct ms__domain *D, struct ms__stepper *S) {
  struct ws *W = D->ws;
  size_t n = D->n, np = S->napp;
  if (reserve_ws(D, n, np)) return oom(S);
  for (size_t k = 0; k < n; k++) W->uf[k] = (uint32_t)k, W->flag[k] = 0;
  for (size_t e = 0; e < np; e++)
    unite(W->uf, S->appr[2 * e], S->appr[2 * e + 1]);
  for (size_t e = 0; e < 2 * np; e++)
    if (boundary(D, D->gid[S->appr[e]])) W->flag[find(W->uf, S->appr[e])] |= 1;
  return MS_OK;
}

/* Every rank learns each open component's smallest id, that id's owner
 * and its boundary ids: components of different ranks that share a
 * boundary particle are one, taken by the owner of its smallest id.
 * W->dest[root]: the rank that takes this rank's open component. */
struct link { /* per open component, then nb boundary ids */
  uint32_t root, min;
  int32_t owner;
  uint32_t nb;
};

static int send_links(struct ms__domain *D, struct ms__stepper *S) {
  struct ws *W = D->ws;
  struct buf *b = &W->out[D->T.rank];
  size_t n = D->n;
  for (size_t k = 0; k < n; k++) W->flag[k] &= 1; /* bit 1: listed */
  for (size_t e = 0; e < 2 * S->napp; e++) { /* the members, id order */
    uint32_t k = S->appr[e];
    if (W->flag[find(W->uf, k)] & 1) W->flag[k] |= 2;
  }
  /* (root << 32 | k) of every member, by component: the root is the
   * component's smallest index, so its smallest id */
  if (reserve_ws(D, n, n)) return oom(S);
  size_t m = 0;
  for (size_t k = 0; k < n; k++)
    if (W->flag[k] & 2)
      W->pairs[m++] = (uint64_t)find(W->uf, (uint32_t)k) << 32 | k;
  ms__qsort(W->pairs, m, sizeof *W->pairs, ms__cmp_u64);
  for (size_t e = 0; e < m;) {
    uint32_t r = (uint32_t)(W->pairs[e] >> 32), g = D->gid[r];
    struct link L = {r, g, D->role[g] == 1 ? D->T.rank : D->from[g], 0};
    size_t at = b->n;
    if (put(b, &L, sizeof L)) return oom(S);
    for (; e < m && W->pairs[e] >> 32 == r; e++) {
      uint32_t k = (uint32_t)W->pairs[e];
      if (!boundary(D, D->gid[k])) continue;
      if (put(b, &D->gid[k], sizeof(uint32_t))) return oom(S);
      L.nb++;
    }
    memcpy(b->p + at, &L, sizeof L);
    D->sent.records[MS__DOM_LINK] += (uint64_t)D->T.size - 1;
  }
  for (int q = 0; q < D->T.size; q++)
    if (q != D->T.rank && put(&W->out[q], b->p, b->n)) return oom(S);
  return MS_OK;
}

/* Joins the components every rank listed; W->dest of this rank's. */
static int read_links(struct ms__domain *D, struct ms__stepper *S,
                      const char *in) {
  struct ws *W = D->ws;
  size_t total = 0, nodes = 0, nids = 0;
  for (int q = 0; q < D->T.size; q++) total += W->rcount[q];
  for (size_t p = 0; p < total; nodes++) {
    struct link L;
    memcpy(&L, in + p, sizeof L);
    p += sizeof L + (size_t)L.nb * sizeof(uint32_t);
    nids += L.nb;
  }
  struct link *node = malloc((nodes + 1) * sizeof *node);
  uint32_t *uf = malloc((nodes + 1) * sizeof *uf);
  int rc = !node || !uf || reserve_ws(D, 0, nids) ? oom(S) : MS_OK;
  size_t k = 0, m = 0, mine0 = 0, mine1 = 0, p = 0;
  for (int q = 0; !rc && q < D->T.size; q++) {
    if (q == D->T.rank) mine0 = k;
    for (size_t e = p + W->rcount[q]; p < e; k++) {
      memcpy(&node[k], in + p, sizeof node[k]);
      uf[k] = (uint32_t)k;
      const char *ids = in + p + sizeof node[k];
      for (uint32_t i = 0; i < node[k].nb; i++) {
        uint32_t g;
        memcpy(&g, ids + i * sizeof g, sizeof g);
        W->pairs[m++] = (uint64_t)g << 32 | k;
      }
      p += sizeof node[k] + (size_t)node[k].nb * sizeof(uint32_t);
      if (q != D->T.rank) D->recvd.records[MS__DOM_LINK]++;
    }
    if (q == D->T.rank) mine1 = k;
  }
  if (!rc) {
    ms__qsort(W->pairs, m, sizeof *W->pairs, ms__cmp_u64);
    for (size_t e = 1; e < m; e++)
      if (W->pairs[e] >> 32 == W->pairs[e - 1] >> 32)
        unite(uf, (uint32_t)W->pairs[e], (uint32_t)W->pairs[e - 1]);
    for (size_t j = 0; j < nodes; j++) { /* the set's smallest id, at root */
      uint32_t r = find(uf, (uint32_t)j);
      if (node[j].min < node[r].min) node[r].min = node[j].min,
                                     node[r].owner = node[j].owner;
    }
    for (size_t j = mine0; j < mine1; j++)
      W->dest[node[j].root] = node[find(uf, (uint32_t)j)].owner;
  }
  free(node), free(uf);
  return rc;
}

/* Each open component's pairs (as id pairs) and members go to the rank
 * that takes it. */
static int send_open(struct ms__domain *D, struct ms__stepper *S) {
  struct ws *W = D->ws;
  for (size_t e = 0; e < S->napp; e++) {
    uint32_t i = S->appr[2 * e], j = S->appr[2 * e + 1];
    uint32_t r = find(W->uf, i);
    if (!(W->flag[r] & 1)) continue;
    uint32_t gp[2] = {D->gid[i], D->gid[j]}, tag = 0;
    struct buf *b = &W->out[W->dest[r]];
    if (put(b, &tag, sizeof tag) || put(b, gp, sizeof gp)) return oom(S);
  }
  for (size_t k = 0; k < D->n; k++) {
    if (!(W->flag[k] & 2)) continue;
    uint32_t g = D->gid[k], tag = 1;
    struct member rec = {.owner = D->role[g] == 1 ? D->T.rank : D->from[g]};
    read_ghost(S, g, &rec.p);
    struct buf *b = &W->out[W->dest[find(W->uf, (uint32_t)k)]];
    if (put(b, &tag, sizeof tag) || put(b, &rec, sizeof rec)) return oom(S);
    if (W->dest[find(W->uf, (uint32_t)k)] != D->T.rank)
      D->sent.records[MS__DOM_COMPONENT]++;
  }
  return MS_OK;
}

static int cmp_member(const void *a, const void *b) {
  uint32_t x = ((const struct member *)a)->p.gid;
  uint32_t y = ((const struct member *)b)->p.gid;
  return (x > y) - (x < y);
}

static size_t index_of(const uint32_t *v, size_t n, uint32_t x) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (v[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* What came: the pairs (W->pairs from *np on, as id pairs) and the
 * members (W->mem, by id, one each) of the components this rank takes. */
static int read_open(struct ms__domain *D, struct ms__stepper *S,
                     const char *in, size_t *np, size_t *nm) {
  struct ws *W = D->ws;
  size_t m = 0, p = 0;
  for (int q = 0; q < D->T.size; q++)
    for (size_t e = p + W->rcount[q]; p < e;) {
      uint32_t tag;
      memcpy(&tag, in + p, sizeof tag);
      p += sizeof tag;
      if (tag == 0) {
        uint32_t gp[2];
        memcpy(gp, in + p, sizeof gp);
        p += sizeof gp;
        if (reserve_ws(D, 0, *np + 1)) return oom(S);
        W->pairs[(*np)++] = (uint64_t)gp[0] << 32 | gp[1];
        continue;
      }
      if (m + 1 > W->cap_mem) {
        size_t c = 2 * m + 64;
        if (ms__grow((void **)&W->mem, c, sizeof *W->mem)) return oom(S);
        W->cap_mem = c;
      }
      memcpy(&W->mem[m++], in + p, sizeof *W->mem);
      p += sizeof *W->mem;
      if (q != D->T.rank) D->recvd.records[MS__DOM_COMPONENT]++;
    }
  ms__qsort(W->mem, m, sizeof *W->mem, cmp_member);
  size_t u = 0; /* a ghost's state is its owner's: duplicates are equal */
  for (size_t k = 0; k < m; k++)
    if (!u || W->mem[u - 1].p.gid != W->mem[k].p.gid) W->mem[u++] = W->mem[k];
  *nm = u;
  return MS_OK;
}

/* The members of the components taken here that the piece lacks join it
 * (their state written into the systems), in id order. */
static int take_members(struct ms__domain *D, struct ms__stepper *S,
                        size_t nm) {
  struct ws *W = D->ws;
  if (nm > W->cap_far) {
    if (ms__grow((void **)&W->far, nm, sizeof *W->far)) return oom(S);
    W->cap_far = nm;
  }
  size_t nfar = 0;
  for (size_t k = 0; k < nm; k++) {
    const struct member *mk = &W->mem[k];
    if (D->role[mk->p.gid]) continue; /* owned or a ghost: the same state */
    write_ghost(S, &mk->p);
    D->role[mk->p.gid] = 3;
    D->from[mk->p.gid] = mk->owner;
    W->far[nfar++] = mk->p.gid;
  }
  for (size_t i = D->n, j = nfar, k = D->n + nfar; j > 0;)
    D->gid[--k] = i > 0 && D->gid[i - 1] > W->far[j - 1] ? D->gid[--i]
                                                          : W->far[--j];
  D->n += nfar;
  return MS_OK;
}

/* This rank's approaching pairs: those of its components that touch no
 * other rank, and those of the components it takes, in the whole scene's
 * order (by index pair) over the new piece. */
int ms__domain_components(struct ms__domain *D, struct ms__stepper *S) {
  struct ws *W = D->ws;
  TRY(local_components(D, S));
  TRY(send_links(D, S));
  char *in;
  TRY(exchange(D, S, MS__DOM_LINK, &in));
  int rc = read_links(D, S, in);
  free(in);
  if (rc) return rc;
  TRY(send_open(D, S));
  size_t nl = 0;
  for (size_t e = 0; e < S->napp; e++) { /* the closed ones stay */
    uint32_t i = S->appr[2 * e], j = S->appr[2 * e + 1];
    if (!(W->flag[find(W->uf, i)] & 1))
      W->pairs[nl++] = (uint64_t)D->gid[i] << 32 | D->gid[j];
  }
  TRY(exchange(D, S, MS__DOM_COMPONENT, &in));
  size_t np = nl, nm = 0;
  rc = read_open(D, S, in, &np, &nm);
  free(in);
  if (rc) return rc;
  TRY(take_members(D, S, nm));
  for (size_t e = 0; e < np; e++)
    W->pairs[e] = (uint64_t)index_of(D->gid, D->n,
                                     (uint32_t)(W->pairs[e] >> 32)) << 32 |
                  index_of(D->gid, D->n, (uint32_t)W->pairs[e]);
  ms__qsort(W->pairs, np, sizeof *W->pairs, ms__cmp_u64);
  if (np > S->cap_app) {
    if (ms__grow((void **)&S->appr, np, 2 * sizeof(uint32_t))) return oom(S);
    S->cap_app = np;
  }
  for (size_t e = 0; e < np; e++) {
    S->appr[2 * e] = (uint32_t)(W->pairs[e] >> 32);
    S->appr[2 * e + 1] = (uint32_t)W->pairs[e];
  }
  S->napp = np;
  double vmax, rmin;
  return ms__gather(S, &vmax, &rmin);
}

/* ---- the step's end, frames ---------------------------------------------*/

int ms__domain_end(struct ms__domain *D, struct ms__stepper *S) {
  struct ws *W = D->ws;
  const struct ms__metaset *M = &S->metas;
  for (uint32_t q = 0; q < M->offset[M->count]; q++) {
    uint32_t g = D->gid[M->member[q]];
    if (D->role[g] == 1) continue;
    struct result r = {.gid = g};
    size_t i;
    struct ms__system *y = locate(S, g, &i);
    ms__copy3(r.x, ms__at(&y->x, i));
    ms__copy3(r.v, ms__at(&y->v, i));
    if (put(&W->out[D->from[g]], &r, sizeof r)) return oom(S);
    D->sent.records[MS__DOM_RESULT]++;
  }
  char *in;
  TRY(exchange(D, S, MS__DOM_RESULT, &in));
  size_t total = 0;
  for (int q = 0; q < D->T.size; q++) total += W->rcount[q];
  for (size_t p = 0; p < total; p += sizeof(struct result)) {
    struct result r;
    memcpy(&r, in + p, sizeof r);
    size_t i;
    struct ms__system *y = locate(S, r.gid, &i);
    ms__copy3(ms__at(&y->x, i), r.x);
    ms__copy3(ms__at(&y->v, i), r.v);
    D->recvd.records[MS__DOM_RESULT]++;
  }
  free(in);
  return MS_OK;
}

/* The last step's meta-particles of this rank, to rank 0: for each, its
 * first member's id (the particle that started its group), its size and
 * its members' ids. */
static int put_metas(struct ms__domain *D, struct ms__stepper *S,
                     struct buf *b) {
  const struct ms__metaset *M = &S->metas;
  uint64_t n = M->merged;
  TRY(put(b, &n, sizeof n));
  for (uint32_t k = 0; k < M->merged; k++) {
    uint32_t size = M->offset[k + 1] - M->offset[k];
    TRY(put(b, &size, sizeof size));
    for (uint32_t q = M->offset[k]; q < M->offset[k + 1]; q++)
      TRY(put(b, &D->gid[M->member[q]], sizeof(uint32_t)));
  }
  return MS_OK;
}

/* Rank 0 numbers the meta-particles of every rank as one process would:
 * in the order their groups started, i.e. of their first members' ids. */
static int number_metas(struct ms__domain *D, struct ms__stepper *S,
                        const char *const *part, size_t nparts) {
  struct ws *W = D->ws;
  size_t nm = 0;
  for (size_t r = 0; r < nparts; r++) {
    uint64_t n;
    memcpy(&n, part[r], sizeof n);
    nm += n;
  }
  /* (first id << 32 | k): the first ids are distinct, so their order is
   * the meta-particles'; k finds the members again */
  const char **at = malloc((nm + 1) * sizeof *at);
  if (!at || reserve_ws(D, 0, nm)) return free(at), oom(S);
  nm = 0;
  for (size_t r = 0; r < nparts; r++) {
    const char *p = part[r];
    uint64_t n;
    memcpy(&n, p, sizeof n);
    p += sizeof n;
    for (uint64_t k = 0; k < n; k++) {
      uint32_t size, first;
      memcpy(&size, p, sizeof size);
      memcpy(&first, p + sizeof size, sizeof first);
      at[nm] = p;
      W->pairs[nm] = (uint64_t)first << 32 | nm;
      nm++;
      p += sizeof size + (size_t)size * sizeof(uint32_t);
    }
  }
  ms__qsort(W->pairs, nm, sizeof *W->pairs, ms__cmp_u64);
  for (size_t g = 0; g < D->nall; g++) D->meta_id[g] = -1;
  for (size_t k = 0; k < nm; k++) {
    const char *p = at[(uint32_t)W->pairs[k]];
    uint32_t size, id;
    memcpy(&size, p, sizeof size);
    for (uint32_t q = 0; q < size; q++) {
      memcpy(&id, p + sizeof size + q * sizeof id, sizeof id);
      D->meta_id[id] = (int32_t)k;
    }
  }
  free(at);
  return MS_OK;
}

int ms__domain_frame(struct ms__domain *D, struct ms__stepper *S) {
  struct ws *W = D->ws;
  TRY(ms__systems_refresh(S));
  struct buf *b = &W->out[0];
  uint64_t head = 0;
  TRY(put(b, &head, sizeof head) ? oom(S) : MS_OK);
  if (D->T.rank != 0)
    for (size_t k = 0; k < D->nown; k++) {
      if (put_whole(b, S, D->own[k])) return oom(S);
      D->sent.records[MS__DOM_FRAME]++;
    }
  head = b->n - sizeof head;
  memcpy(b->p, &head, sizeof head);
  if (put_metas(D, S, b)) return oom(S);
  char *in;
  TRY(exchange(D, S, MS__DOM_FRAME, &in));
  if (D->T.rank != 0) return free(in), MS_OK;
  if (!D->meta_id && !(D->meta_id = malloc((D->nall + 1) *
                                           sizeof *D->meta_id)))
    return free(in), oom(S);
  const char *part[D->T.size];
  size_t at = 0;
  for (int q = 0; q < D->T.size; q++) {
    const char *p = in + at;
    uint64_t len;
    memcpy(&len, p, sizeof len);
    p += sizeof len;
    for (const char *e = p + len; p < e;) {
      uint32_t g;
      p += take_whole(S, p, &g);
      D->recvd.records[MS__DOM_FRAME]++;
    }
    part[q] = p;
    at += W->rcount[q];
  }
  int rc = number_metas(D, S, part, (size_t)D->T.size);
  free(in);
  return rc;
}
