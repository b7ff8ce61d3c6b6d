/* engine.c — the distributed FMM (engine.h): the global level, the halo, the dense far field of the
 * coarse levels summed over the ranks, then the rank's own evaluation as a part of the global one. */
#include "engine.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm_internal.h"
#include "halo.h"
#include "octree.h"

static double now_ms(void) { return 1e3 * MPI_Wtime(); }

/* Every rank learns whether all are ok; a rank that is ok and hears otherwise says so in err. */
static int all_ok(const vx_comm *c, int ok, char *err, size_t errlen) {
  if (vx_comm_agree(c, ok)) return 1;
  if (ok) snprintf(err, errlen, "another rank failed in the distributed evaluation");
  return 0;
}

/* The n points at pos (the context's precision) as 3n doubles (malloc'ed; NULL: out of memory). */
static double *as_double(const void *pos, int n, int is_float) {
  double *d = malloc(3 * (size_t)(n > 0 ? n : 1) * sizeof *d);
  if (!d) return NULL;
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < 3 * (long long)n; i++) d[i] = is_float ? ((const float *)pos)[i] : ((const double *)pos)[i];
  return d;
}

/* A rank's keys: its points' level-10 keys, the least and the greatest. */
typedef struct {
  uint32_t *k;
  int n;
  uint32_t lo, hi;
} key_set;

/* The keys of n points (doubles) into s (malloc'ed); 1 when every one lies in [lo, hi), 0 when one does
 * not, -1 out of memory. */
static int keys_in_range(const vx_part_cube *cube, const double *pos, int n, uint32_t lo, uint32_t hi, key_set *s) {
  s->k = malloc((size_t)(n > 0 ? n : 1) * sizeof *s->k), s->n = n;
  if (!s->k) return -1;
  uint32_t mn = UINT32_MAX, mx = 0;
  int out = 0;
#pragma omp parallel for schedule(static) reduction(min : mn) reduction(max : mx) reduction(| : out)
  for (int i = 0; i < n; i++) {
    vx_part_keys(cube, pos + 3 * (size_t)i, 1, s->k + i);
    const uint32_t k = s->k[i];
    mn = k < mn ? k : mn, mx = k > mx ? k : mx;
    out |= k < lo || k >= hi;
  }
  s->lo = mn, s->hi = mx;
  return !out;
}

/* A rank's distinct cells of one level: how many, the first and the last (-1: none). */
typedef struct {
  long long n, first, last;
} cell_span;

/* The deepest level whose distinct cells are counted on a bitmap (8^8 bits: 2 MiB); deeper, sorted. */
#define CELL_BITMAP_LMAX 8

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static int distinct_cells(const key_set *s, int l, cell_span *c) {
  const int sh = VX_PART_KEY_BITS - 3 * l;
  c->n = 0, c->first = c->last = -1;
  if (s->n == 0) return 0;
  c->first = s->lo >> sh, c->last = s->hi >> sh;
  if (l <= CELL_BITMAP_LMAX) {
    uint8_t *bit = calloc(((size_t)1 << (3 * l)) / 8 + 1, 1);
    if (!bit) return -1;
    for (int i = 0; i < s->n; i++) {
      const uint32_t q = s->k[i] >> sh;
      c->n += !(bit[q >> 3] >> (q & 7) & 1);
      bit[q >> 3] |= (uint8_t)(1u << (q & 7));
    }
    free(bit);
    return 0;
  }
  uint32_t *v = malloc((size_t)s->n * sizeof *v);
  if (!v) return -1;
  for (int i = 0; i < s->n; i++) v[i] = s->k[i] >> sh;
  qsort(v, (size_t)s->n, sizeof *v, cmp_u32);
  for (int i = 0; i < s->n; i++) c->n += i == 0 || v[i] != v[i - 1];
  free(v);
  return 0;
}

/* The non-empty level-l cells of every rank's keys: the ranks' distinct cells, less each cell a rank
 * shares with the last rank before it that holds any (the key ranges ascend with the rank, so only
 * there can two ranks hold one cell). */
static int global_cells(const vx_comm *c, const key_set *s, int l, cell_span *all, long long *out, char *err,
                        size_t errlen) {
  cell_span mine;
  const int ok = distinct_cells(s, l, &mine) == 0;
  if (!ok) snprintf(err, errlen, "out of memory counting the cells of level %d", l);
  if (!all_ok(c, ok, err, errlen)) return -1;
  if (vx_comm_check(MPI_Allgather(&mine, 3, MPI_LONG_LONG, all, 3, MPI_LONG_LONG, c->comm), "MPI_Allgather (cells)",
                    err, errlen))
    return -1;
  long long total = 0, last = -1;
  for (int r = 0; r < c->size; r++) {
    if (all[r].n == 0) continue;
    total += all[r].n - (all[r].first == last);
    last = all[r].last;
  }
  *out = total;
  return 0;
}

/* The finest level of the global tree: the rule of oct_build_cpu (a forced level, or the leaf-size
 * rule's trials) on the choosing set's counts over every rank (s: this rank's keys of that set). */
static int global_level(const vx_comm *c, const fmm_ctx *ctx, double side, const key_set *s, long long cn, int *L,
                        char *err, size_t errlen) {
  oct_params op = fmm_octree_params(ctx), q;
  op.choose_level = NULL;
  if (oct_resolve_params(1, 1, 1, 1, &op, &q, err, errlen)) return -1;
  const int lcap = oct_level_cap(q.max_level, q.hist_budget, side, q.min_leaf_width);
  int capped, l = oct_level_first(&q, cn, lcap, side, &capped);
  cell_span *all = malloc((size_t)c->size * sizeof *all);
  if (!all) {
    snprintf(err, errlen, "out of memory choosing the global level");
    return -1;
  }
  int rc = 0;
  while (oct_level_trials(&q, capped)) {
    long long occupied;
    if ((rc = global_cells(c, s, l, all, &occupied, err, errlen))) break;
    if (oct_level_accept(&q, l, lcap, cn, occupied, &capped)) break;
    l++;
  }
  free(all);
  *L = l;
  return rc;
}

/* This rank's sources followed by the halo's: positions and strengths, 3(ns + nh) reals each. */
typedef struct {
  void *pos, *str;
  int n;
} src_set;

/* The halo of the n own sources (positions also as doubles, dpos) at level lh, and the local set. */
static int gather_halo(const vx_comm *c, const vx_part_cube *cube, const uint32_t *split, int lh, const fmm_io *io,
                       const double *dpos, size_t rs, src_set *s, char *err, size_t errlen) {
  const int ns = io->n_src;
  char *rec = malloc(6 * rs * (size_t)(ns > 0 ? ns : 1));
  void *got = NULL;
  int nh = 0, ok = rec != NULL;
  if (!ok) snprintf(err, errlen, "out of memory for the halo's records (%d sources)", ns);
  if (ok) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < ns; i++) {
      memcpy(rec + 6 * rs * i, (const char *)io->src_pos + 3 * rs * i, 3 * rs);
      memcpy(rec + 6 * rs * i + 3 * rs, (const char *)io->src_str + 3 * rs * i, 3 * rs);
    }
  }
  if (!all_ok(c, ok, err, errlen)) return free(rec), -1;
  /* level 2 and reach 3 send every source everywhere (the corrections reach beyond level-2 boxes) */
  const int level = lh >= 2 ? lh : 2, reach = lh >= 2 ? 1 : 3;
  int rc = vx_halo_exchange(c, split, cube, level, reach, dpos, ns, rec, 6 * rs, &got, &nh, err, errlen);
  free(rec);
  if (rc) return -1;
  s->n = ns + nh;
  s->pos = malloc(3 * rs * (size_t)(s->n > 0 ? s->n : 1));
  s->str = malloc(3 * rs * (size_t)(s->n > 0 ? s->n : 1));
  ok = s->pos && s->str;
  if (ok) {
    memcpy(s->pos, io->src_pos, 3 * rs * (size_t)ns);
    memcpy(s->str, io->src_str, 3 * rs * (size_t)ns);
    for (int i = 0; i < nh; i++) {
      memcpy((char *)s->pos + 3 * rs * ((size_t)ns + i), (char *)got + 6 * rs * i, 3 * rs);
      memcpy((char *)s->str + 3 * rs * ((size_t)ns + i), (char *)got + 6 * rs * i + 3 * rs, 3 * rs);
    }
  } else {
    snprintf(err, errlen, "out of memory for the local sources (%d own, %d from the halo)", ns, nh);
  }
  free(got);
  return all_ok(c, ok, err, errlen) ? 0 : -1;
}

/* The dense multipoles and counts of levels 2..pt->Lc of every rank's sources: each rank's own, summed. */
static int coarse_far_field(const vx_comm *c, fmm_ctx *ctx, const fmm_io *io, fmm_part *pt, char *err, size_t errlen) {
  const fmm_params *P = fmm_get_params(ctx);
  const size_t nr = fmm_part_reals(P->order, pt->Lc), ncell = fmm_part_cells(pt->Lc);
  const int is_float = P->precision == VX_FLOAT;
  void *mp = malloc(nr * (is_float ? sizeof(float) : sizeof(double)));
  int *cnt = malloc(ncell * sizeof *cnt);
  pt->mpole = mp, pt->count = cnt;
  int ok = mp && cnt;
  if (!ok) snprintf(err, errlen, "out of memory for the dense far field (%zu reals)", nr);
  fmm_io own = {.n_src = io->n_src, .src_pos = io->src_pos, .src_str = io->src_str};
  if (ok && fmm_part_multipoles(ctx, &own, pt, mp, cnt, err, errlen)) ok = 0;
  if (!all_ok(c, ok, err, errlen)) return -1;
  if (vx_comm_check(MPI_Allreduce(MPI_IN_PLACE, mp, (int)nr, is_float ? MPI_FLOAT : MPI_DOUBLE, MPI_SUM, c->comm),
                    "MPI_Allreduce (multipoles)", err, errlen) ||
      vx_comm_check(MPI_Allreduce(MPI_IN_PLACE, cnt, (int)ncell, MPI_INT, MPI_SUM, c->comm), "MPI_Allreduce (counts)",
                    err, errlen))
    return -1;
  return 0;
}

/* The checks every rank makes of its own arguments before the collective steps. */
static int check_args(int Lc_max, const fmm_io *io, char *err, size_t errlen) {
  if (io->on_device) return snprintf(err, errlen, "the distributed evaluation takes host arrays"), -1;
  if (io->part || io->tree != FMM_TREE_BUILD)
    return snprintf(err, errlen, "the distributed evaluation builds its own tree (no part, no kept tree)"), -1;
  if (Lc_max < 0 || Lc_max == 1 || Lc_max > VX_LMAX)
    return snprintf(err, errlen, "dense far-field level %d out of range (0, or 2..%d)", Lc_max, VX_LMAX), -1;
  if (io->n_src < 0 || io->n_tgt < 0 || (io->n_src && (!io->src_pos || !io->src_str)) ||
      (io->n_tgt && (!io->tgt_pos || !io->vel)))
    return snprintf(err, errlen, "missing or negative input of the distributed evaluation"), -1;
  return 0;
}

int vx_dist_evaluate(const vx_comm *c, fmm_ctx *ctx, const vx_part_cube *cube, const uint32_t *split, int Lc_max,
                     const fmm_io *io, fmm_stats *st, vx_dist_stats *ds, char *err, size_t errlen) {
  const fmm_params *P = fmm_get_params(ctx);
  const int is_float = P->precision == VX_FLOAT, ns = io->n_src, nt = io->n_tgt;
  const size_t rs = is_float ? sizeof(float) : sizeof(double);
  vx_dist_stats d;
  memset(&d, 0, sizeof d);
  double *sp = NULL, *tp = NULL;
  key_set sk = {NULL, 0, 0, 0}, tk = {NULL, 0, 0, 0};
  src_set loc = {NULL, NULL, 0};
  fmm_part pt = {{cube->lo[0], cube->lo[1], cube->lo[2]}, cube->side, 0, 0, NULL, NULL};
  int rc = -1, ok = check_args(Lc_max, io, err, errlen) == 0;
  double t0 = now_ms();
  if (ok) {
    sp = as_double(io->src_pos, ns, is_float), tp = as_double(io->tgt_pos, nt, is_float);
    const uint32_t lo = split[c->rank], hi = split[c->rank + 1];
    const int a = sp && tp ? keys_in_range(cube, sp, ns, lo, hi, &sk) : -1,
              b = a >= 0 ? keys_in_range(cube, tp, nt, lo, hi, &tk) : -1;
    ok = a == 1 && b == 1;
    if (!ok)
      snprintf(err, errlen, a < 0 || b < 0 ? "out of memory for the points' keys"
                                           : "rank %d holds a point outside its key range (migrate the points first)",
               c->rank);
  }
  if (!all_ok(c, ok, err, errlen)) goto done;
  /* global counts, passivity (fmm_io_passive) and level */
  const int want_grad = P->gradient && io->grad, n_grad = io->n_grad > 0 && io->n_grad < nt ? io->n_grad : nt;
  long long loc_n[3] = {ns, nt, fmm_io_passive(io, want_grad, n_grad)}, glob[3];
  if (vx_comm_check(MPI_Allreduce(loc_n, glob, 3, MPI_LONG_LONG, MPI_SUM, c->comm), "MPI_Allreduce (counts)", err,
                    errlen))
    goto done;
  if (glob[0] == 0 || glob[1] == 0) { /* no sources anywhere: nothing to sum */
    memset(io->vel, 0, 3 * rs * (size_t)nt);
    if (want_grad) memset(io->grad, 0, 9 * rs * (size_t)n_grad);
    rc = 0;
    goto done;
  }
  const int choose_tgt = oct_choose_targets(glob[0], glob[1]);
  if (global_level(c, ctx, cube->side, choose_tgt ? &tk : &sk, glob[choose_tgt], &pt.L, err, errlen))
    goto done;
  pt.Lc = Lc_max ? Lc_max : VX_DIST_LC;
  if (pt.Lc > pt.L) pt.Lc = pt.L;
  fmm_stats tmp;
  const fmm_corr cr = fmm_reg_prepare(ctx, cube->side, pt.L, glob[2] > 0, 0.0, &tmp);
  const int lh = cr.on && cr.Lc < pt.Lc ? cr.Lc : pt.Lc;
  double t1 = now_ms();
  if (gather_halo(c, cube, split, lh, io, sp, rs, &loc, err, errlen)) goto done;
  double t2 = now_ms();
  if (coarse_far_field(c, ctx, io, &pt, err, errlen)) goto done;
  double t3 = now_ms();
  fmm_io lio = *io;
  lio.n_src = loc.n, lio.src_pos = loc.pos, lio.src_str = loc.str;
  lio.passive = glob[2] > 0;
  lio.part = &pt;
  ok = fmm_evaluate(ctx, &lio, st, err, errlen) == 0;
  if (!all_ok(c, ok, err, errlen)) goto done;
  d.L = pt.L, d.Lc = pt.Lc, d.Lh = lh, d.n_halo = loc.n - ns;
  d.t_level = t1 - t0, d.t_halo = t2 - t1, d.t_coarse = t3 - t2, d.t_local = now_ms() - t3;
  rc = 0;
done:
  free(sp), free(tp), free(sk.k), free(tk.k), free(loc.pos), free(loc.str);
  free((void *)pt.mpole), free((void *)pt.count);
  if (ds) *ds = d;
  return rc;
}
