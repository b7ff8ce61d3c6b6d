/* octree.h — uniform octree over sources and targets, built without sorting (design paper §2.1,
 * Algorithm 1): Morton codes, an occupancy histogram filled with atomic increments that give each
 * particle its box and local rank (the pseudo-sort), exclusive scans for box offsets, compaction
 * of empty boxes, scatter into box order, then neighbour and M2L interaction lists read off the
 * occupancy maps (no sort, no set intersection).
 *
 * Levels: the root (level 0) is the bounding cube of sources ∪ targets; level l has 8^l cells,
 * keyed by their Morton code. Only non-empty boxes are stored, in ascending key order, so the
 * children of a box are a contiguous range one level down. Sources and targets have separate
 * boxes (a cell can be a source box, a target box, both or neither). */
#ifndef VX_OCTREE_H
#define VX_OCTREE_H

#include <stddef.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hd.h"

VX_EXTERN_C_BEGIN


typedef struct {
  int levels;          /* 0: choose the finest level from leaf_size; else use this level (2..VX_LMAX) */
  int leaf_size;       /* the level choice stops at the first level whose mean points (oct_choose_targets) per
                          non-empty leaf of that set is <= leaf_size */
  int min_leaves;      /* the automatic level goes one level deeper than leaf_size asks while the
                          choosing set's non-empty leaves are fewer than this (the backend's
                          parallel width, oct_level_accept); 0: no floor */
  int full_deeper;     /* > 0: a level whose every box is occupied, with at least full_deeper_boxes boxes, goes one
                          level deeper than leaf_size asks while the deeper level's leaves keep at least
                          full_deeper points each (where the deeper full level's M2L is cheap enough: the GPU's
                          dense product on the tensor cores, fmm_octree_params); 0: off */
  long long full_deeper_boxes;
  int max_level;       /* cap on the finest level (e.g. from the kernel's core size); 0: VX_LMAX */
  size_t hist_budget;  /* bytes allowed for the dense occupancy maps of all levels; 0: 256 MiB */
  double min_leaf_width; /* finest boxes at least this wide (regularized kernels need it); 0: none */
  /* Optional, automatic levels only, oct_build_cpu only (host positions): chooses the finest
   * level among [lo_level, hi_level] (oct_level_candidates) from the points in the root cube
   * (lo, side), e.g. the cost model (fmm/cost.h); returns 0 to keep the leaf-size rule.
   * NULL: the leaf-size rule. */
  int (*choose_level)(const void *arg, const void *src_pos, int ns, const void *tgt_pos, int nt, int pos_float,
                      const double lo[3], double side, int lo_level, int hi_level);
  /* The same for oct_build_gpu (device positions; stream: its cudaStream_t): returns the level, 0
   * to keep the leaf-size rule, or -1 to fail the build with the reason in err. NULL: the
   * leaf-size rule. */
  int (*choose_level_dev)(const void *arg, const void *d_src_pos, int ns, const void *d_tgt_pos, int nt, int pos_float,
                          const double lo[3], double side, int lo_level, int hi_level, void *stream, char *err,
                          size_t errlen);
  const void *choose_arg; /* the argument of either callback */
  /* > 0: the root cube is cube_lo + [0, cube_side]^3 instead of the points' own
   * (oct_root_cube): a part of a larger set of points built in that set's cube (the distributed
   * engine, fmm_part); every point must lie inside it. 0: the points' own cube. */
  double cube_side;
  double cube_lo[3];
} oct_params;

typedef struct {
  int L;               /* finest level, >= 2 */
  int capped;          /* 1 when max_level or hist_budget stopped the level below the leaf-size choice */
  double lo[3];        /* corner of the bounding cube */
  double side;         /* its side (slightly enlarged so every point is strictly inside) */
  int ns, nt;          /* numbers of sources and targets */

  /* Per level l = 0..L (arrays of length L+1; entries above L unused). */
  int nsrc[VX_LMAX + 1], ntgt[VX_LMAX + 1];     /* non-empty boxes at level l */
  uint32_t *src_key[VX_LMAX + 1];               /* Morton keys of those boxes, ascending */
  uint32_t *tgt_key[VX_LMAX + 1];
  int *src_map[VX_LMAX + 1];                    /* 8^l entries: box index of a key, -1 if empty */
  int *tgt_map[VX_LMAX + 1];
  int *src_parent[VX_LMAX + 1];                 /* box index at level l-1 (l >= 1) */
  int *tgt_parent[VX_LMAX + 1];
  int *src_child[VX_LMAX + 1];                  /* nsrc[l]+1 offsets into level l+1 boxes (l < L) */
  int *tgt_child[VX_LMAX + 1];

  /* Finest level: particles in box order. */
  int *src_start;      /* nsrc[L]+1 offsets: sources of leaf b are src_order[src_start[b] .. src_start[b+1]) */
  int *tgt_start;      /* ntgt[L]+1 */
  int *src_order;      /* ns: original index of the k-th source in box order */
  int *tgt_order;      /* nt */

  /* Near field: for each target leaf, the non-empty source leaves among its 27 adjacent cells
   * (itself included). */
  int *nbr_start;      /* ntgt[L]+1 */
  int *nbr;
  /* Far field, per level l >= 2: for each target box, the non-empty source boxes that are children
   * of its parent's neighbours (parent included) but not adjacent to it: at most 189. */
  int *il_start[VX_LMAX + 1];                   /* ntgt[l]+1 */
  int *il[VX_LMAX + 1];
} oct_tree;

/* Morton key of integer cell (ix, iy, iz), each < 2^10: bit i of x goes to bit 3i, y to 3i+1,
 * z to 3i+2. */
VX_HD static inline uint32_t oct_spread3(uint32_t v) {
  v &= 0x3ffu;
  v = (v | (v << 16)) & 0x030000ffu;
  v = (v | (v << 8)) & 0x0300f00fu;
  v = (v | (v << 4)) & 0x030c30c3u;
  v = (v | (v << 2)) & 0x09249249u;
  return v;
}
VX_HD static inline uint32_t oct_compact3(uint32_t v) {
  v &= 0x09249249u;
  v = (v | (v >> 2)) & 0x030c30c3u;
  v = (v | (v >> 4)) & 0x0300f00fu;
  v = (v | (v >> 8)) & 0x030000ffu;
  v = (v | (v >> 16)) & 0x3ffu;
  return v;
}
VX_HD static inline uint32_t oct_morton3(uint32_t ix, uint32_t iy, uint32_t iz) {
  return oct_spread3(ix) | (oct_spread3(iy) << 1) | (oct_spread3(iz) << 2);
}
VX_HD static inline void oct_demorton3(uint32_t key, int *ix, int *iy, int *iz) {
  *ix = (int)oct_compact3(key);
  *iy = (int)oct_compact3(key >> 1);
  *iz = (int)oct_compact3(key >> 2);
}
/* Cell index along one axis at level l of coordinate x, computed in double so that the CPU and
 * the GPU (and float and double inputs) put a point in the same cell. */
VX_HD static inline uint32_t oct_cell(double x, double lo, double inv_side, int l) {
  double s = (x - lo) * inv_side * (double)(1u << l);
  int c = (int)s;
  int top = (int)(1u << l) - 1;
  return (uint32_t)(c < 0 ? 0 : (c > top ? top : c));
}

/* ---- Leaves within a reach of each other (the regularization corrections, docs/MATH.md §10).
 * Used by the CPU engine's loop and the GPU's k_corr alike. */

/* First index in the ascending keys[0..n) whose key is >= k. */
VX_HD static inline int oct_lower_bound(const uint32_t *keys, int n, uint32_t k) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    if (keys[mid] < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The level-L leaves [*a, *b) of the ascending keys skey[0..n) that lie in the q-th (0..26) of the
 * 27 level-Lc boxes around the level-Lc ancestor of the level-L cell tkey: a box's descendants
 * have the keys [k << 3(L-Lc), (k+1) << 3(L-Lc)). Empty when that box is outside the cube. Every
 * point within one level-Lc box width of the ancestor lies in these 27 boxes. */
VX_HD static inline void oct_reach_range(int L, int Lc, uint32_t tkey, int q, const uint32_t *skey, int n, int *a, int *b) {
  const int sh = 3 * (L - Lc), top = (1 << Lc) - 1;
  int x, y, z;
  oct_demorton3(tkey >> sh, &x, &y, &z);
  x += q % 3 - 1, y += (q / 3) % 3 - 1, z += q / 9 - 1;
  if (x < 0 || y < 0 || z < 0 || x > top || y > top || z > top) {
    *a = *b = 0;
    return;
  }
  const uint32_t k = oct_morton3((uint32_t)x, (uint32_t)y, (uint32_t)z);
  *a = oct_lower_bound(skey, n, k << sh);
  *b = *a + oct_lower_bound(skey + *a, n - *a, (k + 1u) << sh);
}

/* The M2L sources of the level-l target cell tkey read off dense cells (a part of a larger evaluation,
 * fmm_part): the children of its parent's 27 neighbours (the parent included) that hold sources
 * (cnt[key] != 0) and are not adjacent to it, in ascending key, as il_boxes lists a tree's (parents by
 * key, each one's children by octant). out holds 189; returns the count. */
static inline int oct_dense_list(int l, uint32_t tkey, const int *cnt, uint32_t *out) {
  const int top = (1 << (l - 1)) - 1;
  int tx, ty, tz, np = 0, n = 0;
  uint32_t par[27];
  oct_demorton3(tkey, &tx, &ty, &tz);
  for (int pz = (tz >> 1) - 1; pz <= (tz >> 1) + 1; pz++)
    for (int py = (ty >> 1) - 1; py <= (ty >> 1) + 1; py++)
      for (int px = (tx >> 1) - 1; px <= (tx >> 1) + 1; px++) {
        if (px < 0 || py < 0 || pz < 0 || px > top || py > top || pz > top) continue;
        const uint32_t k = oct_morton3((uint32_t)px, (uint32_t)py, (uint32_t)pz);
        int j = np++; /* insertion by key */
        while (j > 0 && par[j - 1] > k) par[j] = par[j - 1], j--;
        par[j] = k;
      }
  for (int i = 0; i < np; i++)
    for (uint32_t o = 0; o < 8; o++) {
      const uint32_t sk = par[i] << 3 | o;
      int sx, sy, sz;
      oct_demorton3(sk, &sx, &sy, &sz);
      if (cnt[sk] && (abs(sx - tx) > 1 || abs(sy - ty) > 1 || abs(sz - tz) > 1)) out[n++] = sk;
    }
  return n;
}

/* 1 when the level-L cells tkey and skey are not adjacent (the near field has not summed their
 * pairs) and come closer than sqrt(reach2) cell widths: per axis the gap between the cells is
 * max(|Δ| - 1, 0) widths. Integer arithmetic and one double comparison: the same on every device. */
VX_HD static inline int oct_leaf_reach(uint32_t tkey, uint32_t skey, double reach2) {
  int tx, ty, tz, sx, sy, sz;
  oct_demorton3(tkey, &tx, &ty, &tz);
  oct_demorton3(skey, &sx, &sy, &sz);
  int dx = sx > tx ? sx - tx : tx - sx, dy = sy > ty ? sy - ty : ty - sy, dz = sz > tz ? sz - tz : tz - sz;
  if (dx <= 1 && dy <= 1 && dz <= 1) return 0;
  int gx = dx > 0 ? dx - 1 : 0, gy = dy > 0 ? dy - 1 : 0, gz = dz > 0 ? dz - 1 : 0;
  return (double)(gx * gx + gy * gy + gz * gz) < reach2;
}

/* The root cube from the bounding box [mn, mx] of all points; the CPU and GPU builds both call
 * this so that they get the same cube and hence the same cell for every point.
 * side: largest extent enlarged by 1e-6 so that no point sits on the far faces; at least
 * 1e-8 * max|coordinate| (finer cells would resolve nothing; also covers coincident points) and at
 * least 1e-300 (all points at the origin). lo: the cube centred on the box along each axis.
 * Returns 0, or -1 when the extent is not representable. */
static inline int oct_root_cube(const double mn[3], const double mx[3], double lo[3], double *side) {
  double ext = 0.0, amax = 0.0;
  for (int k = 0; k < 3; k++) {
    ext = fmax(ext, mx[k] - mn[k]);
    amax = fmax(amax, fmax(fabs(mn[k]), fabs(mx[k])));
  }
  double s = ext * (1.0 + 1e-6);
  s = fmax(s, 1e-8 * amax);
  s = fmax(s, 1e-300);
  if (!isfinite(s) || !isfinite(1.0 / s)) return -1;
  for (int k = 0; k < 3; k++) lo[k] = mn[k] - 0.5 * (s - (mx[k] - mn[k]));
  *side = s;
  return 0;
}

/* The given root cube (oct_params.cube_side > 0) into lo and side, when the points' bounds [mn, mx]
 * (mn > mx: no points) lie inside it: 0, or -1 with the reason. Both builds call this. */
static inline int oct_given_cube(const oct_params *p, const double mn[3], const double mx[3], double lo[3], double *side,
                                 char *err, size_t errlen) {
  for (int k = 0; k < 3; k++)
    if (mn[k] <= mx[k] && (mn[k] < p->cube_lo[k] || mx[k] >= p->cube_lo[k] + p->cube_side)) {
      snprintf(err, errlen, "points reach outside the given root cube along axis %d ([%g, %g] against [%g, %g))", k,
               mn[k], mx[k], p->cube_lo[k], p->cube_lo[k] + p->cube_side);
      return -1;
    }
  for (int k = 0; k < 3; k++) lo[k] = p->cube_lo[k];
  *side = p->cube_side;
  return 0;
}

/* Bytes of the dense int32 occupancy maps of levels 0..L for sources and targets. */
static inline unsigned long long oct_map_bytes(int L) {
  unsigned long long cells = 0;
  for (int l = 0; l <= L; l++) cells += 1ull << (3 * l);
  return 2ull * sizeof(int) * cells;
}

/* The deepest level allowed: max_level (0: VX_LMAX), lowered while the maps exceed the budget
 * (bytes) and while the finest boxes would be narrower than min_leaf_width; never below 2. */
static inline int oct_level_cap(int max_level, unsigned long long budget, double side, double min_leaf_width) {
  int lcap = max_level ? max_level : VX_LMAX;
  while (lcap > 2 && oct_map_bytes(lcap) > budget) lcap--;
  while (lcap > 2 && ldexp(side, -lcap) < min_leaf_width) lcap--;
  return lcap;
}

/* ---- The finest level (one rule for oct_build_cpu and oct_build_gpu).
 * A forced level (p->levels) is used as given; otherwise the first trial is
 * max(2, floor(log8(cn / leaf_size))), the largest l with 8^l * leaf_size <= cn, and each trial's
 * histogram decides whether to go one level deeper (oct_level_accept). Either is capped at lcap
 * (oct_level_cap): an explicit level too, since max_level and min_leaf_width usually encode a
 * correctness limit (the near field must cover the smoothing kernel's core). */

/* The set whose histogram chooses the level: the targets when they outnumber the sources (tracers:
 * the near field's work follows the targets a leaf holds; the default `leapfrog`'s 281k targets
 * on 19k sources take level 4 on the GPU, 1.6x faster than the sources' level 3, docs/BENCHMARKS.md),
 * else the sources. */
static inline int oct_choose_targets(long long ns, long long nt) { return ns == 0 || nt > ns; }

/* The first level to try for cn points (the choosing set, oct_choose_targets). *capped = 1 when
 * lcap lowered it, or when even level-2 boxes are narrower than min_leaf_width (the tree cannot go
 * coarser: it keeps level 2 and the caller judges the error at the actual leaf width). */
static inline int oct_level_first(const oct_params *p, long long cn, int lcap, double side, int *capped) {
  int L;
  *capped = 0;
  if (p->levels) {
    L = p->levels;
  } else {
    L = 0;
    while (L < VX_LMAX && (1ll << (3 * (L + 1))) * (long long)p->leaf_size <= cn) L++;
    if (L < 2) L = 2;
  }
  if (L > lcap) L = lcap, *capped = 1;
  if (ldexp(side, -2) < p->min_leaf_width) *capped = 1;
  return L;
}

/* 1 when trial levels are examined after oct_level_first: the level is chosen automatically and
 * was not capped (a forced or capped level is final). */
static inline int oct_level_trials(const oct_params *p, int capped) { return !(p->levels || capped); }

/* A trial at level L whose histogram has `occupied` non-empty boxes for cn points: 1 when L is the
 * finest level, 0 when the next level must be tried. L is the finest when its mean occupancy
 * cn / occupied is at most leaf_size, unless its leaves are fewer than min_leaves while they still
 * hold more than leaf_size / 8 points each (one level deeper, then: too few leaves leave most of
 * the backend idle, and the deeper level's means stay near leaf_size / 8; the CPU's floor, its
 * threads — the GPU's chunks of targets fill its SMs from few leaves, docs/MATH.md §11), or while L is
 * full and its leaves would keep full_deeper points one level down (2^20 uniform points on the
 * H100 with the tensor-core M2L: level 5, 14.9 against 15.9 ms); or when L has reached lcap
 * (which sets *capped where the leaf size asked for more). */
static inline int oct_level_accept(const oct_params *p, int L, int lcap, long long cn, long long occupied, int *capped) {
  const long long ls = p->leaf_size;
  const int full_deeper = p->full_deeper > 0 && L < lcap && occupied == 1ll << (3 * L) &&
                          occupied >= p->full_deeper_boxes && cn >= 8ll * p->full_deeper * occupied;
  if (cn <= ls * occupied) return (occupied >= p->min_leaves || 8 * cn <= ls * occupied || L >= lcap) && !full_deeper;
  if (L >= lcap) {
    *capped = 1;
    return 1;
  }
  return 0;
}

/* The levels a choose_level callback picks from: one coarser than the leaf-size rule's first trial
 * to three deeper (the first trial assumes every box occupied; the trials go deeper where boxes are
 * empty: rings of 2^16 and 2^22 points with leaves of 256 end three levels below it, and a range of
 * two deeper kept the H100's cost rule from their best level, docs/BENCHMARKS.md), within
 * [2, min(lcap, top)] (top: the deepest level the callback can examine). */
static inline void oct_level_candidates(const oct_params *p, long long cn, int lcap, int top, int *lo, int *hi) {
  oct_params q = *p;
  int capped;
  q.levels = 0;
  const int L0 = oct_level_first(&q, cn, VX_LMAX, 1.0, &capped);
  const int cap = lcap < top ? lcap : top;
  *hi = L0 + 3 < cap ? L0 + 3 : cap;
  *lo = L0 - 1 > 2 ? L0 - 1 : 2;
  if (*lo > *hi) *lo = *hi;
  if (*hi < 2) *lo = *hi = 2;
}

/* A callback's choice Lc among the candidates [lo, hi] becomes the forced level of the build
 * (outside them, e.g. 0: the leaf-size rule stays). Both builds take it this way. */
static inline void oct_level_take(oct_params *p, int Lc, int lo, int hi) {
  if (Lc >= lo && Lc <= hi) p->levels = Lc;
}

/* printf-style one-line error into err (shared by the CPU and GPU builds). */
#ifdef __GNUC__
static inline void oct_set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#endif
static inline void oct_set_err(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || errlen == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* Default bytes for the dense occupancy maps (oct_params.hist_budget = 0). */
#define OCT_DEFAULT_HIST_BUDGET ((size_t)256 << 20)

/* Argument checks shared by the CPU and GPU builds (same rules, same messages): fills *p from prm
 * (defaults when NULL: leaf_size 64). Returns 0, or -1 with a one-line reason in err. */
static inline int oct_resolve_params(int ns, int nt, int have_src, int have_tgt, const oct_params *prm, oct_params *p,
                                     char *err, size_t errlen) {
  memset(p, 0, sizeof *p);
  p->leaf_size = 64;
  if (prm) *p = *prm;
  if (ns < 0 || nt < 0) return snprintf(err, errlen, "negative point count (ns = %d, nt = %d)", ns, nt), -1;
  if (ns == 0 && nt == 0) return snprintf(err, errlen, "no points (ns = nt = 0)"), -1;
  if ((ns > 0 && !have_src) || (nt > 0 && !have_tgt))
    return snprintf(err, errlen, "%s positions are NULL", ns > 0 && !have_src ? "source" : "target"), -1;
  if (p->levels != 0 && (p->levels < 2 || p->levels > VX_LMAX))
    return snprintf(err, errlen, "levels = %d out of range (0 for automatic, or 2..%d)", p->levels, VX_LMAX), -1;
  if (p->levels == 0 && p->leaf_size <= 0) return snprintf(err, errlen, "leaf_size = %d must be positive", p->leaf_size), -1;
  if (p->max_level != 0 && (p->max_level < 2 || p->max_level > VX_LMAX))
    return snprintf(err, errlen, "max_level = %d out of range (0 for %d, or 2..%d)", p->max_level, VX_LMAX, VX_LMAX), -1;
  if (!(p->cube_side >= 0.0) || !isfinite(p->cube_side) || !isfinite(p->cube_lo[0] + p->cube_lo[1] + p->cube_lo[2]))
    return snprintf(err, errlen, "the given root cube (side %g) must be finite", p->cube_side), -1;
  if (!(p->min_leaf_width >= 0.0) || !isfinite(p->min_leaf_width))
    return snprintf(err, errlen, "min_leaf_width = %g must be finite and >= 0", p->min_leaf_width), -1;
  if (!p->hist_budget) p->hist_budget = OCT_DEFAULT_HIST_BUDGET;
  return 0;
}

/* Build the tree. Positions are xyz-interleaved doubles (pos_float = 0) or floats (pos_float = 1).
 * Returns 0, or -1 with a one-line reason in err (e.g. no points, NaN coordinates, out of memory). */
int oct_build_cpu(oct_tree *t, const void *src_pos, int ns, const void *tgt_pos, int nt, int pos_float,
                  const oct_params *prm, char *err, size_t errlen);
void oct_free_cpu(oct_tree *t);

/* Centre of the box with key k at level l, and its side. */
void oct_box_centre(const oct_tree *t, int l, uint32_t key, double c[3]);
double oct_box_side(const oct_tree *t, int l);

VX_EXTERN_C_END
#endif
