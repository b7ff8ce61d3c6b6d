/* octree_cpu.c — the CPU (OpenMP) build of the FMM octree declared in octree.h, following the
 * design paper §2.1 and its Algorithm 1: particles are binned into the cells of the finest level
 * by an occupancy histogram filled with atomic increments (the increment also gives each particle
 * its rank inside its box: the "pseudo-sort"), exclusive scans give box offsets and compact
 * indices of the non-empty boxes, particles are scattered into box order, coarser levels are read
 * off the sorted key lists, and neighbour / M2L interaction lists are found by looking cells up in
 * the dense occupancy maps — no global sort, no search, no set intersection.
 *
 * The result is deterministic (independent of the thread count and of the order in which the
 * atomics were served), so the GPU build can reproduce it exactly. tests/test_octree.c checks it. */
#include "octree.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Leaves at most this long are put in index order by insertion sort; longer ones (clusters, or a
 * level capped by the budget) by qsort, so a crowded leaf cannot cost O(n^2). */
#define OCT_INSERTION_MAX 48
/* Scans split their array into at most this many chunks (a fixed split, so the result does not
 * depend on the thread count). */
#define OCT_SCAN_CHUNKS 1024


/* Checked allocation: NULL with "out of memory (N bytes for what)" in err. At least one element
 * is allocated so that empty sets still get valid (dereferenceable offset) arrays. */
static void *oct_alloc(size_t n, size_t elem, const char *what, int lvl, char *err, size_t errlen) {
  if (n == 0) n = 1;
  void *p = NULL;
  if (n <= SIZE_MAX / elem) p = malloc(n * elem);
  if (!p) {
    if (lvl >= 0)
      oct_set_err(err, errlen, "out of memory (%zu bytes for %s[%d])", n * elem, what, lvl);
    else
      oct_set_err(err, errlen, "out of memory (%zu bytes for %s)", n * elem, what);
  }
  return p;
}

static inline double pos_at(const void *p, int pos_float, size_t j) {
  return pos_float ? (double)((const float *)p)[j] : ((const double *)p)[j];
}

static inline size_t cells_at(int l) { return (size_t)1 << (3 * l); }

static int chunks_for(size_t n) {
  size_t c = n / 16384 + 1;
  return c > OCT_SCAN_CHUNKS ? OCT_SCAN_CHUNKS : (int)c;
}

/* In-place exclusive scan of a[0..n). Returns the total; when it exceeds INT_MAX, a[] is left
 * unchanged and the caller reports the overflow. Two passes over fixed chunks (chunk sums, then
 * each chunk rescanned from its offset), parallel over chunks. */
static long long scan_excl(int *a, int n) {
  if (n <= 0) return 0;
  int nc = chunks_for((size_t)n);
  long long off[OCT_SCAN_CHUNKS + 1];
#pragma omp parallel for schedule(static)
  for (int c = 0; c < nc; c++) {
    int b = (int)((long long)n * c / nc), e = (int)((long long)n * (c + 1) / nc);
    long long s = 0;
    for (int i = b; i < e; i++) s += a[i];
    off[c + 1] = s;
  }
  off[0] = 0;
  for (int c = 0; c < nc; c++) off[c + 1] += off[c];
  if (off[nc] > INT_MAX) return off[nc];
#pragma omp parallel for schedule(static)
  for (int c = 0; c < nc; c++) {
    int b = (int)((long long)n * c / nc), e = (int)((long long)n * (c + 1) / nc);
    int s = (int)off[c];
    for (int i = b; i < e; i++) {
      int v = a[i];
      a[i] = s;
      s += v;
    }
  }
  return off[nc];
}

/* Bounding box of one point set (parallel min/max reduction). Returns the index of the first
 * point with a NaN or infinite coordinate, or -1. */
static int set_bounds(const void *pos, int n, int pos_float, double mn[3], double mx[3]) {
  double mn0 = mn[0], mn1 = mn[1], mn2 = mn[2], mx0 = mx[0], mx1 = mx[1], mx2 = mx[2];
  int bad = INT_MAX;
#pragma omp parallel for schedule(static) reduction(min : mn0, mn1, mn2, bad) reduction(max : mx0, mx1, mx2)
  for (int i = 0; i < n; i++) {
    double x = pos_at(pos, pos_float, 3 * (size_t)i), y = pos_at(pos, pos_float, 3 * (size_t)i + 1),
           z = pos_at(pos, pos_float, 3 * (size_t)i + 2);
    if (!isfinite(x) || !isfinite(y) || !isfinite(z)) {
      if (i < bad) bad = i;
      continue;
    }
    mn0 = fmin(mn0, x), mn1 = fmin(mn1, y), mn2 = fmin(mn2, z);
    mx0 = fmax(mx0, x), mx1 = fmax(mx1, y), mx2 = fmax(mx2, z);
  }
  mn[0] = mn0, mn[1] = mn1, mn[2] = mn2, mx[0] = mx0, mx[1] = mx1, mx[2] = mx2;
  return bad == INT_MAX ? -1 : bad;
}

/* Algorithm 1 (PARALLEL-PSEUDO-SORT) for one point set at level L: the Morton key of each
 * particle's cell, and bin[key] incremented atomically; the value captured before the increment
 * is the particle's (arbitrary) local rank in its box. bin[] (8^L ints) must be zero on entry. */
static void pseudo_sort_hist(const void *pos, int n, int pos_float, const double lo[3], double inv_side,
                             int L, uint32_t *key, int *rank, int *bin) {
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++) {
    uint32_t ix = oct_cell(pos_at(pos, pos_float, 3 * (size_t)i), lo[0], inv_side, L);
    uint32_t iy = oct_cell(pos_at(pos, pos_float, 3 * (size_t)i + 1), lo[1], inv_side, L);
    uint32_t iz = oct_cell(pos_at(pos, pos_float, 3 * (size_t)i + 2), lo[2], inv_side, L);
    uint32_t k = oct_morton3(ix, iy, iz);
    int r;
#pragma omp atomic capture
    r = bin[k]++;
    key[i] = k;
    rank[i] = r;
  }
}

/* Number of non-empty cells of a histogram. */
static long long count_nonempty(const int *bin, size_t ncell) {
  long long c = 0;
#pragma omp parallel for schedule(static) reduction(+ : c)
  for (size_t k = 0; k < ncell; k++) c += bin[k] != 0;
  return c;
}

/* Which of the tree's two point sets a helper works on: pointers into oct_tree. */
typedef struct {
  int n;
  int *nbox;
  uint32_t **key;
  int **map, **parent, **child;
  int **start, **order;
  const char *name; /* "src" or "tgt", for error messages */
} oct_set;

static oct_set set_view(oct_tree *t, int tgt) {
  oct_set s;
  if (!tgt) {
    s.n = t->ns, s.nbox = t->nsrc, s.key = t->src_key, s.map = t->src_map, s.parent = t->src_parent;
    s.child = t->src_child, s.start = &t->src_start, s.order = &t->src_order, s.name = "src";
  } else {
    s.n = t->nt, s.nbox = t->ntgt, s.key = t->tgt_key, s.map = t->tgt_map, s.parent = t->tgt_parent;
    s.child = t->tgt_child, s.start = &t->tgt_start, s.order = &t->tgt_order, s.name = "tgt";
  }
  return s;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static void sort_small(int *v, int n) {
  for (int i = 1; i < n; i++) {
    int x = v[i], j = i - 1;
    while (j >= 0 && v[j] > x) v[j + 1] = v[j], j--;
    v[j + 1] = x;
  }
}

/* The leaves from the level-L histogram (in map[L], counts): an exclusive scan of the histogram
 * (box offsets) fused with the scan of its 0/1 occupancy (compact index of each non-empty box);
 * pass 1 sums both per chunk, pass 2 writes, per non-empty key, its offset and key into the compact
 * arrays and turns the histogram into the map (compact index, -1 for empty) in place. */
static int leaves_from_hist(oct_tree *t, oct_set s, char *err, size_t errlen) {
  const int L = t->L;
  const size_t ncell = cells_at(L);
  int *bin = s.map[L];
  char what[32];
  int nc = chunks_for(ncell);
  long long cnt_off[OCT_SCAN_CHUNKS + 1], box_off[OCT_SCAN_CHUNKS + 1];
#pragma omp parallel for schedule(static)
  for (int c = 0; c < nc; c++) {
    size_t b = ncell * (size_t)c / (size_t)nc, e = ncell * (size_t)(c + 1) / (size_t)nc;
    long long sc = 0, sb = 0;
    for (size_t k = b; k < e; k++) sc += bin[k], sb += bin[k] != 0;
    cnt_off[c + 1] = sc, box_off[c + 1] = sb;
  }
  cnt_off[0] = box_off[0] = 0;
  for (int c = 0; c < nc; c++) cnt_off[c + 1] += cnt_off[c], box_off[c + 1] += box_off[c];
  const int nb = (int)box_off[nc];
  s.nbox[L] = nb;
  snprintf(what, sizeof what, "%s_key", s.name);
  if (!(s.key[L] = oct_alloc((size_t)nb, sizeof(uint32_t), what, L, err, errlen))) return -1;
  snprintf(what, sizeof what, "%s_start", s.name);
  if (!(*s.start = oct_alloc((size_t)nb + 1, sizeof(int), what, -1, err, errlen))) return -1;
  uint32_t *keys = s.key[L];
  int *start = *s.start;
#pragma omp parallel for schedule(static)
  for (int c = 0; c < nc; c++) {
    size_t b = ncell * (size_t)c / (size_t)nc, e = ncell * (size_t)(c + 1) / (size_t)nc;
    int off = (int)cnt_off[c], box = (int)box_off[c];
    for (size_t k = b; k < e; k++) {
      int cnt = bin[k];
      if (cnt) {
        start[box] = off;
        keys[box] = (uint32_t)k;
        bin[k] = box++;
        off += cnt;
      } else {
        bin[k] = -1;
      }
    }
  }
  start[nb] = s.n;
  return 0;
}

/* The particles in box order: global rank = box offset + local rank; then, because the atomics
 * served the particles of a box in arbitrary order, each box ascending by original index, which
 * makes the tree deterministic and identical to the GPU's. */
static int order_particles(const oct_tree *t, oct_set s, const uint32_t *pkey, const int *prank, char *err, size_t errlen) {
  char what[32];
  const int nb = s.nbox[t->L];
  snprintf(what, sizeof what, "%s_order", s.name);
  if (!(*s.order = oct_alloc((size_t)s.n, sizeof(int), what, -1, err, errlen))) return -1;
  int *order = *s.order;
  const int *start = *s.start, *map = s.map[t->L];
#pragma omp parallel for schedule(static)
  for (int i = 0; i < s.n; i++) order[start[map[pkey[i]]] + prank[i]] = i;
#pragma omp parallel for schedule(dynamic, 256)
  for (int b = 0; b < nb; b++) {
    int m = start[b + 1] - start[b];
    if (m <= OCT_INSERTION_MAX)
      sort_small(order + start[b], m);
    else
      qsort(order + start[b], (size_t)m, sizeof(int), cmp_int);
  }
  return 0;
}

/* Level l from level l+1: the level-(l+1) keys are ascending, so boxes with the same parent
 * (key >> 3) are runs; a flag at each run start, scanned, numbers the parents. */
static int coarser_level(oct_set s, int l, char *err, size_t errlen) {
  char what[32];
  const int n1 = s.nbox[l + 1];
  const uint32_t *k1 = s.key[l + 1];
  snprintf(what, sizeof what, "%s_parent", s.name);
  int *par = s.parent[l + 1] = oct_alloc((size_t)n1, sizeof(int), what, l + 1, err, errlen);
  if (!par) return -1;
#pragma omp parallel for schedule(static)
  for (int b = 0; b < n1; b++) par[b] = b == 0 || (k1[b] >> 3) != (k1[b - 1] >> 3);
  const int n0 = (int)scan_excl(par, n1); /* n0 <= n1: no overflow */
  s.nbox[l] = n0;
  snprintf(what, sizeof what, "%s_key", s.name);
  if (!(s.key[l] = oct_alloc((size_t)n0, sizeof(uint32_t), what, l, err, errlen))) return -1;
  snprintf(what, sizeof what, "%s_child", s.name);
  if (!(s.child[l] = oct_alloc((size_t)n0 + 1, sizeof(int), what, l, err, errlen))) return -1;
  snprintf(what, sizeof what, "%s_map", s.name);
  if (!(s.map[l] = oct_alloc(cells_at(l), sizeof(int), what, l, err, errlen))) return -1;
  uint32_t *k0 = s.key[l];
  int *child = s.child[l], *map0 = s.map[l];
#pragma omp parallel for schedule(static)
  for (int b = 0; b < n1; b++) {
    int first = b == 0 || (k1[b] >> 3) != (k1[b - 1] >> 3);
    /* exclusive count of run starts before b, plus b's own flag, minus one: its parent */
    int p = par[b] + first - 1;
    par[b] = p;
    if (first) {
      k0[p] = k1[b] >> 3;
      child[p] = b;
    }
  }
  child[n0] = n1;
  const size_t nc0 = cells_at(l);
#pragma omp parallel for schedule(static)
  for (size_t k = 0; k < nc0; k++) map0[k] = -1;
#pragma omp parallel for schedule(static)
  for (int p = 0; p < n0; p++) map0[k0[p]] = p;
  return 0;
}

/* From the level-L histogram (in map[L], counts) and the per-particle keys and ranks: the leaves,
 * their particle ranges, the particles in box order, then every coarser level. */
static int build_set(oct_tree *t, oct_set s, const uint32_t *pkey, const int *prank, char *err, size_t errlen) {
  if (leaves_from_hist(t, s, err, errlen) || order_particles(t, s, pkey, prank, err, errlen)) return -1;
  for (int l = t->L - 1; l >= 0; l--)
    if (coarser_level(s, l, err, errlen)) return -1;
  return 0;
}

/* Source leaves adjacent to (or equal to) the target leaf with key k, ascending; returns the count. */
static int nbr_boxes(const oct_tree *t, uint32_t k, int out[27]) {
  const int L = t->L, top = (1 << L) - 1;
  const int *map = t->src_map[L];
  int x, y, z, n = 0;
  oct_demorton3(k, &x, &y, &z);
  for (int cz = z - 1; cz <= z + 1; cz++)
    for (int cy = y - 1; cy <= y + 1; cy++)
      for (int cx = x - 1; cx <= x + 1; cx++) {
        if (cx < 0 || cy < 0 || cz < 0 || cx > top || cy > top || cz > top) continue;
        int b = map[oct_morton3((uint32_t)cx, (uint32_t)cy, (uint32_t)cz)];
        if (b >= 0) out[n++] = b;
      }
  sort_small(out, n); /* Morton order is not (z, y, x) order */
  return n;
}

/* M2L sources of the level-l target box with key k: children of the source boxes among its
 * parent's 27 neighbours (parent cell included) that are not adjacent to it. Walking the parents
 * in ascending box index and each one's contiguous child range yields ascending indices with no
 * sort of the (up to 189) result. A child's cell is its parent's cell doubled plus the octant in
 * the key's low 3 bits, so no key is decoded. out may be NULL (count only). */
static int il_boxes(const oct_tree *t, int l, uint32_t k, int *out) {
  const int top = (1 << (l - 1)) - 1;
  const int *pmap = t->src_map[l - 1], *child = t->src_child[l - 1];
  const uint32_t *skey = t->src_key[l];
  int x, y, z, np = 0, n = 0;
  struct {
    int b, x, y, z;
  } par[27];
  oct_demorton3(k, &x, &y, &z);
  for (int pz = (z >> 1) - 1; pz <= (z >> 1) + 1; pz++)
    for (int py = (y >> 1) - 1; py <= (y >> 1) + 1; py++)
      for (int px = (x >> 1) - 1; px <= (x >> 1) + 1; px++) {
        if (px < 0 || py < 0 || pz < 0 || px > top || py > top || pz > top) continue;
        int b = pmap[oct_morton3((uint32_t)px, (uint32_t)py, (uint32_t)pz)];
        if (b < 0) continue;
        int j = np++; /* insertion by box index */
        while (j > 0 && par[j - 1].b > b) par[j] = par[j - 1], j--;
        par[j].b = b, par[j].x = 2 * px, par[j].y = 2 * py, par[j].z = 2 * pz;
      }
  for (int i = 0; i < np; i++)
    for (int c = child[par[i].b]; c < child[par[i].b + 1]; c++) {
      uint32_t o = skey[c] & 7u;
      int sx = par[i].x + (int)(o & 1u), sy = par[i].y + (int)((o >> 1) & 1u), sz = par[i].z + (int)(o >> 2);
      if (abs(sx - x) > 1 || abs(sy - y) > 1 || abs(sz - z) > 1) {
        if (out) out[n] = c;
        n++;
      }
    }
  return n;
}

/* Neighbour lists (level L) and interaction lists (levels 2..L): count, scan, fill. */
static int build_lists(oct_tree *t, char *err, size_t errlen) {
  const int L = t->L;
  int nt = t->ntgt[L];
  if (!(t->nbr_start = oct_alloc((size_t)nt + 1, sizeof(int), "nbr_start", -1, err, errlen))) return -1;
  int *nbs = t->nbr_start;
#pragma omp parallel for schedule(static)
  for (int b = 0; b < nt; b++) {
    int tmp[27];
    nbs[b] = nbr_boxes(t, t->tgt_key[L][b], tmp);
  }
  long long tot = scan_excl(nbs, nt);
  if (tot > INT_MAX) {
    oct_set_err(err, errlen, "neighbour lists too long (%lld entries) for int offsets", tot);
    return -1;
  }
  nbs[nt] = (int)tot;
  if (!(t->nbr = oct_alloc((size_t)tot, sizeof(int), "nbr", -1, err, errlen))) return -1;
#pragma omp parallel for schedule(static)
  for (int b = 0; b < nt; b++) {
    int tmp[27];
    int m = nbr_boxes(t, t->tgt_key[L][b], tmp);
    memcpy(t->nbr + nbs[b], tmp, (size_t)m * sizeof(int));
  }

  for (int l = 0; l <= L; l++) {
    nt = t->ntgt[l];
    if (!(t->il_start[l] = oct_alloc((size_t)nt + 1, sizeof(int), "il_start", l, err, errlen))) return -1;
    int *is = t->il_start[l];
    if (l < 2) { /* well-separated boxes only exist from level 2 on */
      memset(is, 0, ((size_t)nt + 1) * sizeof(int));
      continue;
    }
#pragma omp parallel for schedule(static)
    for (int b = 0; b < nt; b++) is[b] = il_boxes(t, l, t->tgt_key[l][b], NULL);
    tot = scan_excl(is, nt);
    if (tot > INT_MAX) {
      oct_set_err(err, errlen, "interaction lists of level %d too long (%lld entries) for int offsets", l, tot);
      return -1;
    }
    is[nt] = (int)tot;
    if (!(t->il[l] = oct_alloc((size_t)tot, sizeof(int), "il", l, err, errlen))) return -1;
    int *il = t->il[l];
#pragma omp parallel for schedule(static)
    for (int b = 0; b < nt; b++) il_boxes(t, l, t->tgt_key[l][b], il + is[b]);
  }
  return 0;
}

int oct_build_cpu(oct_tree *t, const void *src_pos, int ns, const void *tgt_pos, int nt, int pos_float,
                  const oct_params *prm, char *err, size_t errlen) {
  if (err && errlen) err[0] = '\0';
  if (!t) {
    oct_set_err(err, errlen, "oct_build_cpu: no tree");
    return -1;
  }
  memset(t, 0, sizeof *t);
  uint32_t *skey = NULL, *tkey = NULL;
  int *srank = NULL, *trank = NULL;

  /* ---- arguments ---- */
  oct_params p;
  if (oct_resolve_params(ns, nt, src_pos != NULL, tgt_pos != NULL, prm, &p, err, errlen)) return -1;
  t->ns = ns, t->nt = nt;

  /* ---- root cube ---- */
  double mn[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, mx[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  int bad = set_bounds(src_pos, ns, pos_float, mn, mx);
  if (bad >= 0) {
    oct_set_err(err, errlen, "source point %d has a non-finite coordinate", bad);
    goto fail;
  }
  bad = set_bounds(tgt_pos, nt, pos_float, mn, mx);
  if (bad >= 0) {
    oct_set_err(err, errlen, "target point %d has a non-finite coordinate", bad);
    goto fail;
  }
  if (p.cube_side > 0.0) {
    if (oct_given_cube(&p, mn, mx, t->lo, &t->side, err, errlen)) goto fail;
  } else if (oct_root_cube(mn, mx, t->lo, &t->side) != 0) {
    oct_set_err(err, errlen, "coordinates too large for a bounding cube (extent overflows)");
    goto fail;
  }
  const double inv_side = 1.0 / t->side;

  /* ---- finest level ----
   * The dense maps cost 8^l ints per level and set. When the leaf-size choice would need more
   * than hist_budget (or a level deeper than max_level, or leaves narrower than min_leaf_width),
   * the level is capped: leaves then hold more particles than leaf_size, so the near field does
   * more direct work — the FMM stays correct, only slower. t->capped tells the caller, who prints
   * a notice. */
  const size_t budget = p.hist_budget;
  if (oct_map_bytes(2) > budget) {
    oct_set_err(err, errlen, "hist_budget %zu bytes is below the %llu bytes of occupancy maps of the smallest tree (2 levels)",
            budget, oct_map_bytes(2));
    goto fail;
  }
  /* Leaves at least min_leaf_width wide (a regularized kernel must fit in the near field). When
   * even level-2 boxes are narrower, the tree cannot go coarser: it uses level 2 and reports
   * capped = 1, and the caller judges the error at the actual leaf width. */
  const int lcap = oct_level_cap(p.max_level, budget, t->side, p.min_leaf_width);

  if (!(skey = oct_alloc((size_t)ns, sizeof(uint32_t), "source keys", -1, err, errlen))) goto fail;
  if (!(srank = oct_alloc((size_t)ns, sizeof(int), "source ranks", -1, err, errlen))) goto fail;
  if (!(tkey = oct_alloc((size_t)nt, sizeof(uint32_t), "target keys", -1, err, errlen))) goto fail;
  if (!(trank = oct_alloc((size_t)nt, sizeof(int), "target ranks", -1, err, errlen))) goto fail;

  /* The level is chosen on the choosing set (oct_choose_targets); each trial level runs the
   * histogram of Algorithm 1, so the accepted trial's histogram is used as is. */
  const int choose_tgt = oct_choose_targets(ns, nt);
  const void *cpos = choose_tgt ? tgt_pos : src_pos;
  const int cn = choose_tgt ? nt : ns;
  uint32_t *ckey = choose_tgt ? tkey : skey;
  int *crank = choose_tgt ? trank : srank;
  int **cmap = choose_tgt ? t->tgt_map : t->src_map;
  if (!p.levels && p.choose_level) { /* another rule picks among the candidates: used as a forced level */
    int lo_level, hi_level;
    oct_level_candidates(&p, cn, lcap, VX_LMAX, &lo_level, &hi_level);
    const int Lc = p.choose_level(p.choose_arg, src_pos, ns, tgt_pos, nt, pos_float, t->lo, t->side, lo_level, hi_level);
    oct_level_take(&p, Lc, lo_level, hi_level);
  }
  int L = oct_level_first(&p, cn, lcap, t->side, &t->capped);
  for (;;) {
    int *bin = calloc(cells_at(L), sizeof(int));
    if (!bin) {
      oct_set_err(err, errlen, "out of memory (%zu bytes for %s_map[%d])", cells_at(L) * sizeof(int),
              choose_tgt ? "tgt" : "src", L);
      goto fail;
    }
    cmap[L] = bin;
    pseudo_sort_hist(cpos, cn, pos_float, t->lo, inv_side, L, ckey, crank, bin);
    if (!oct_level_trials(&p, t->capped)) break;
    if (oct_level_accept(&p, L, lcap, cn, count_nonempty(bin, cells_at(L)), &t->capped)) break;
    free(bin);
    cmap[L] = NULL;
    L++;
  }
  t->L = L;

  /* The other set's histogram at the chosen level. */
  {
    int **omap = choose_tgt ? t->src_map : t->tgt_map;
    int *bin = calloc(cells_at(L), sizeof(int));
    if (!bin) {
      oct_set_err(err, errlen, "out of memory (%zu bytes for %s_map[%d])", cells_at(L) * sizeof(int),
              choose_tgt ? "src" : "tgt", L);
      goto fail;
    }
    omap[L] = bin;
    if (choose_tgt)
      pseudo_sort_hist(src_pos, ns, pos_float, t->lo, inv_side, L, skey, srank, bin);
    else
      pseudo_sort_hist(tgt_pos, nt, pos_float, t->lo, inv_side, L, tkey, trank, bin);
  }

  if (build_set(t, set_view(t, 0), skey, srank, err, errlen) != 0) goto fail;
  if (build_set(t, set_view(t, 1), tkey, trank, err, errlen) != 0) goto fail;
  free(skey), free(srank), free(tkey), free(trank);
  skey = tkey = NULL, srank = trank = NULL;

  if (build_lists(t, err, errlen) != 0) goto fail;
  return 0;

fail:
  free(skey), free(srank), free(tkey), free(trank);
  oct_free_cpu(t);
  return -1;
}

void oct_free_cpu(oct_tree *t) {
  if (!t) return;
  for (int l = 0; l <= VX_LMAX; l++) {
    free(t->src_key[l]), free(t->tgt_key[l]);
    free(t->src_map[l]), free(t->tgt_map[l]);
    free(t->src_parent[l]), free(t->tgt_parent[l]);
    free(t->src_child[l]), free(t->tgt_child[l]);
    free(t->il_start[l]), free(t->il[l]);
  }
  free(t->src_start), free(t->tgt_start), free(t->src_order), free(t->tgt_order);
  free(t->nbr_start), free(t->nbr);
  memset(t, 0, sizeof *t);
}

void oct_box_centre(const oct_tree *t, int l, uint32_t key, double c[3]) {
  int ix, iy, iz;
  oct_demorton3(key, &ix, &iy, &iz);
  const double h = ldexp(t->side, -l);
  c[0] = t->lo[0] + ((double)ix + 0.5) * h;
  c[1] = t->lo[1] + ((double)iy + 0.5) * h;
  c[2] = t->lo[2] + ((double)iz + 0.5) * h;
}

double oct_box_side(const oct_tree *t, int l) { return ldexp(t->side, -l); }
