/* Node incidence of the pair terms and the upper block pattern. */
#include <stdlib.h>
#include <string.h>

#include "implicit.h"
#include "grow.h"

void msi_topo_init(struct msi_topo *T) { memset(T, 0, sizeof *T); }

void msi_topo_free(struct msi_topo *T) {
  free(T->inc_off), free(T->inc), free(T->other), free(T->slot);
  free(T->bcol), free(T->brow), free(T->pnode);
  memset(T, 0, sizeof *T);
}

/* In-place ascending sort: insertion sort for short lists (the usual
 * case), heapsort otherwise; no allocation. */
static void sift(uint32_t *a, size_t i, size_t n) {
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) return;
    if (c + 1 < n && a[c + 1] > a[c]) c++;
    if (a[i] >= a[c]) return;
    uint32_t t = a[i];
    a[i] = a[c], a[c] = t, i = c;
  }
}

static void sort_u32(uint32_t *a, size_t n) {
  if (n <= 24) {
    for (size_t i = 1; i < n; i++) {
      uint32_t v = a[i];
      size_t j = i;
      while (j > 0 && a[j - 1] > v) a[j] = a[j - 1], j--;
      a[j] = v;
    }
    return;
  }
  for (size_t i = n / 2; i-- > 0;) sift(a, i, n);
  for (size_t e = n - 1; e > 0; e--) {
    uint32_t t = a[0];
    a[0] = a[e], a[e] = t;
    sift(a, 0, e);
  }
}

static int reserve(struct msi_topo *T, size_t np, size_t nn, size_t ninc) {
  if (np > T->cap_np) {
    if (msi_grow((void **)&T->pnode, np, sizeof(int32_t))) return MS_ENOMEM;
    T->cap_np = np;
  }
  if (nn + 1 > T->cap_nn) {
    size_t c = nn + nn / 4 + 16;
    if (msi_grow((void **)&T->inc_off, c + 1, sizeof(uint32_t)) ||
        msi_grow((void **)&T->bcol, c + 1, sizeof(uint32_t)))
      return MS_ENOMEM;
    T->cap_nn = c;
  }
  if (ninc > T->cap_inc) {
    size_t c = ninc + ninc / 4 + 16;
    if (msi_grow((void **)&T->inc, c, sizeof(uint32_t)) ||
        msi_grow((void **)&T->other, c, sizeof(int32_t)) ||
        msi_grow((void **)&T->slot, c, sizeof(int32_t)) ||
        msi_grow((void **)&T->brow, c, sizeof(uint32_t)))
      return MS_ENOMEM;
    T->cap_inc = c;
  }
  return MS_OK;
}

static int build_incidence(struct msi_topo *T, const struct msi_nodes *N,
                           const struct msi_terms *tm) {
  const int32_t *node = N->node;
  size_t nn = N->nn, ninc = 0;
  for (size_t t = 0; t < tm->count; t++) {
    int32_t a = node[tm->pair[2 * t]], b = node[tm->pair[2 * t + 1]];
    if (a != b) ninc += (a >= 0) + (b >= 0);
  }
  if (ninc >= UINT32_MAX || tm->count >= (size_t)1 << 31) return MS_ERANGE;
  if (reserve(T, N->np, nn, ninc)) return MS_ENOMEM;
  uint32_t *off = T->inc_off;
  memset(off, 0, (nn + 1) * sizeof *off);
  for (size_t t = 0; t < tm->count; t++) {
    int32_t a = node[tm->pair[2 * t]], b = node[tm->pair[2 * t + 1]];
    if (a == b) continue;
    if (a >= 0) off[a + 1]++;
    if (b >= 0) off[b + 1]++;
  }
  for (size_t J = 0; J < nn; J++) off[J + 1] += off[J];
  /* fill in term order, using bcol as the cursor */
  memcpy(T->bcol, off, (nn + 1) * sizeof *off);
  for (size_t t = 0; t < tm->count; t++) {
    int32_t a = node[tm->pair[2 * t]], b = node[tm->pair[2 * t + 1]];
    if (a == b) continue;
    if (a >= 0) {
      uint32_t e = T->bcol[a]++;
      T->inc[e] = (uint32_t)(2 * t);
      T->other[e] = b;
    }
    if (b >= 0) {
      uint32_t e = T->bcol[b]++;
      T->inc[e] = (uint32_t)(2 * t + 1);
      T->other[e] = a;
    }
  }
  return MS_OK;
}

static uint32_t find_u32(const uint32_t *a, uint32_t n, uint32_t v) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Upper block pattern: per node, the distinct smaller nodes it couples to.
 * brow doubles as scratch laid out like inc, then is compacted. */
static int build_pattern(struct msi_topo *T, size_t nn, int threads) {
  const uint32_t *off = T->inc_off;
  uint32_t *cnt = T->bcol; /* counts in bcol[J + 1] */
  cnt[0] = 0;
#pragma omp parallel for schedule(dynamic, 256) num_threads(threads) \
    if (nn > MSI_PAR_MIN)
  for (size_t J = 0; J < nn; J++) {
    uint32_t *seg = T->brow + off[J], m = 0;
    for (uint32_t e = off[J]; e < off[J + 1]; e++)
      if (T->other[e] >= 0 && (size_t)T->other[e] < J)
        seg[m++] = (uint32_t)T->other[e];
    sort_u32(seg, m);
    uint32_t u = 0;
    for (uint32_t q = 0; q < m; q++)
      if (u == 0 || seg[q] != seg[u - 1]) seg[u++] = seg[q];
    cnt[J + 1] = u;
  }
  /* compact in place: segment J starts at off[J] >= bcol[J] */
  for (size_t J = 0; J < nn; J++) {
    uint32_t u = cnt[J + 1];
    cnt[J + 1] = cnt[J] + u;
    if (u) /* brow is NULL while there are no blocks */
      memmove(T->brow + cnt[J], T->brow + off[J], u * sizeof *T->brow);
  }
  T->nblocks = T->bcol[nn];
#pragma omp parallel for schedule(dynamic, 256) num_threads(threads) \
    if (nn > MSI_PAR_MIN)
  for (size_t J = 0; J < nn; J++) {
    const uint32_t *col = T->brow + T->bcol[J];
    uint32_t nb = T->bcol[J + 1] - T->bcol[J];
    for (uint32_t e = off[J]; e < off[J + 1]; e++)
      T->slot[e] = T->other[e] >= 0 && (size_t)T->other[e] < J
                       ? (int32_t)find_u32(col, nb, (uint32_t)T->other[e])
                       : -1;
  }
  return MS_OK;
}

int msi_topo_update(struct msi_topo *T, const struct msi_nodes *N,
                    const struct msi_terms *terms, int want_pattern,
                    int threads) {
  T->changed = 0;
  if (T->valid && (T->with_pattern || !want_pattern) &&
      T->serial == terms->serial &&
      T->nterms == terms->count && T->np == N->np && T->nn == N->nn &&
      !memcmp(T->pnode, N->node, N->np * sizeof *N->node))
    return MS_OK;
  T->changed = 1;
  int rc = build_incidence(T, N, terms);
  if (!rc && want_pattern) rc = build_pattern(T, N->nn, threads);
  T->generation++;
  if (rc) {
    T->valid = 0;
    return rc;
  }
  if (N->np) /* NULL with no particles */
    memcpy(T->pnode, N->node, N->np * sizeof *N->node);
  T->np = N->np;
  T->nn = N->nn;
  T->nterms = terms->count;
  T->serial = terms->serial;
  T->with_pattern = want_pattern;
  T->valid = 1;
  return MS_OK;
}

void msi_gather_forces(const struct msi_topo *T, const double *f, double *F,
                       int threads) {
#pragma omp parallel for schedule(static) num_threads(threads) \
    if (T->nn > MSI_PAR_MIN)
  for (size_t J = 0; J < T->nn; J++) {
    double s[3] = {0.0, 0.0, 0.0};
    for (uint32_t e = T->inc_off[J]; e < T->inc_off[J + 1]; e++) {
      const double *ft = f + 3 * (size_t)(T->inc[e] >> 1);
      double sg = (T->inc[e] & 1) ? -1.0 : 1.0;
      s[0] += sg * ft[0], s[1] += sg * ft[1], s[2] += sg * ft[2];
    }
    F[3 * J] += s[0], F[3 * J + 1] += s[1], F[3 * J + 2] += s[2];
  }
}

void msi_eval_forces(const struct msi_law *law, size_t nterms,
                     const double *x, const double *v, double *f,
                     int threads) {
  size_t nch = (nterms + 1023) / 1024;
#pragma omp parallel for schedule(static) num_threads(threads) \
    if (nterms > 2 * MSI_PAR_MIN)
  for (size_t c = 0; c < nch; c++) {
    size_t t0 = c * 1024, t1 = t0 + 1024 < nterms ? t0 + 1024 : nterms;
    law->eval(law->ctx, t0, t1, x, v, f, NULL, NULL);
  }
}
