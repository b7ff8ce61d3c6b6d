/* engine.c — the distributed FMM (engine.h): the global level, the halo, the dense far field of the
 * coarse levels summed over the ranks, then the rank's own evaluation as a part of the global one. */
#include "engine.h"

#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist_gpu.h"
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

/* The context's buffers, grown on demand and kept between evaluations. */
struct vx_dist_engine {
  vx_comm c;
  fmm_ctx *ctx;
  uint32_t *sk, *tk;          /* the sources' and the targets' keys */
  int *sel, *cstart;          /* the sources with halo destinations, and their offsets into those */
  void *rec;                  /* their records, to send */
  void *lpos, *lstr;          /* host arrays: the rank's sources and its halo */
  void *mp;                   /* the dense levels' multipoles */
  int *cnt;                   /* and source counts */
  uint8_t *bits;              /* a level's cells, one bit each */
  uint32_t *ranges;           /* every rank's targets' least and greatest key (halo.h) */
  int peer;                   /* -1 not yet known; 1: every rank on this node, so device halos move by peer copies */
  size_t ranges_cap, sk_cap, tk_cap, sel_cap, cstart_cap, rec_cap, lpos_cap, lstr_cap, mp_cap, cnt_cap, bits_cap;
  vx_dist_dev dev;            /* device arrays (dist_gpu.h) */
};

vx_dist_engine *vx_dist_create(const vx_comm *c, fmm_ctx *ctx, char *err, size_t errlen) {
  vx_dist_engine *d = calloc(1, sizeof *d);
  if (!d) snprintf(err, errlen, "out of memory for the distributed engine");
  else d->c = *c, d->ctx = ctx, d->peer = -1;
  return d;
}

void vx_dist_destroy(vx_dist_engine *d) {
  if (!d) return;
  free(d->sk), free(d->tk), free(d->sel), free(d->cstart), free(d->rec), free(d->lpos), free(d->lstr), free(d->mp);
  free(d->cnt), free(d->bits), free(d->ranges);
#ifdef VX_HAVE_CUDA
  vx_dist_dev_free(&d->dev);
#endif
  free(d);
}

/* Grow one of d's host buffers; 0, or -1 with err naming it. */
static int reserve(void **p, size_t *cap, size_t bytes, const char *what, char *err, size_t errlen) {
  if (vx_host_reserve(p, cap, bytes) == 0) return 0;
  snprintf(err, errlen, "out of memory for %s (%.1f MiB)", what, bytes / 1048576.0);
  return -1;
}

/* The n keys of host points into *keys. */
static int point_keys(vx_dist_engine *d, const vx_part_cube *cube, const void *pos, int n, uint32_t **keys, size_t *cap,
                      char *err, size_t errlen) {
  const int fl = fmm_get_params(d->ctx)->precision == VX_FLOAT;
  if (reserve((void **)keys, cap, sizeof(uint32_t) * (size_t)(n + 1), "the points' keys", err, errlen)) return -1;
  vx_part_keys_of(cube, pos, fl, n, *keys);
  return 0;
}

/* A rank's keys of one set, the least and the greatest (UINT32_MAX and 0 when there are none). */
typedef struct {
  const uint32_t *k;  /* host keys (NULL: on the device only) */
  const uint32_t *dk; /* device keys (NULL: host only) */
  int n;
  uint32_t lo, hi;
} key_set;

/* s's keys on the host (downloaded into d's buffer when they are on the device only). */
static int host_keys(vx_dist_engine *d, key_set *s, char *err, size_t errlen) {
  if (s->k) return 0;
  if (reserve((void **)&d->sk, &d->sk_cap, sizeof(uint32_t) * (size_t)(s->n + 1), "the points' keys", err, errlen) ||
      vx_device_download(d->sk, s->dk, sizeof(uint32_t) * (size_t)s->n, err, errlen))
    return -1;
  s->k = d->sk;
  return 0;
}

static void keys_span(key_set *s) {
  uint32_t mn = UINT32_MAX, mx = 0;
  const uint32_t *k = s->k;
#pragma omp parallel for schedule(static) reduction(min : mn) reduction(max : mx)
  for (int i = 0; i < s->n; i++) mn = k[i] < mn ? k[i] : mn, mx = k[i] > mx ? k[i] : mx;
  s->lo = mn, s->hi = mx;
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

static int distinct_cells(vx_dist_engine *d, key_set *s, int l, cell_span *c, char *err, size_t errlen) {
  const int sh = VX_PART_KEY_BITS - 3 * l;
  c->n = 0, c->first = c->last = -1;
  if (s->n == 0) return 0;
  c->first = s->lo >> sh, c->last = s->hi >> sh;
#ifdef VX_HAVE_CUDA
  if (!s->k && l <= CELL_BITMAP_LMAX) return vx_dist_dev_cells(&d->dev, s->dk, s->n, l, &c->n, err, errlen);
#endif
  if (host_keys(d, s, err, errlen)) return -1;
  if (l <= CELL_BITMAP_LMAX) { /* a bitmap a thread, then their union */
    const size_t nb = ((size_t)1 << (3 * l)) / 8 + 1;
    const int nth = omp_get_max_threads();
    if (vx_host_reserve((void **)&d->bits, &d->bits_cap, nb * nth)) return -1;
    uint8_t *bits = d->bits;
    memset(bits, 0, nb * nth);
#pragma omp parallel num_threads(nth)
    {
      uint8_t *bit = bits + nb * omp_get_thread_num();
#pragma omp for schedule(static)
      for (int i = 0; i < s->n; i++) {
        const uint32_t q = s->k[i] >> sh;
        bit[q >> 3] |= (uint8_t)(1u << (q & 7));
      }
    }
    long long n = 0;
#pragma omp parallel for schedule(static) reduction(+ : n)
    for (size_t b = 0; b < nb; b++) {
      unsigned v = 0;
      for (int t = 0; t < nth; t++) v |= bits[nb * t + b];
      n += __builtin_popcount(v);
    }
    c->n = n;
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

/* This rank's level-l cells among the bytes [b0, b0 + nb) of the level's bitmap (cell q: byte q/8, bit
 * q%8) into bits; on the device the bitmap distinct_cells just made there. */
static int own_cell_bytes(vx_dist_engine *d, key_set *s, int l, size_t b0, size_t nb, uint8_t *bits, char *err,
                          size_t errlen) {
#ifdef VX_HAVE_CUDA
  if (!s->k) return vx_dist_dev_cell_bytes(&d->dev, b0, nb, bits, err, errlen);
#endif
  (void)d, (void)err, (void)errlen;
  const int sh = VX_PART_KEY_BITS - 3 * l;
  memset(bits, 0, nb);
  for (int i = 0; i < s->n; i++) {
    const size_t q = s->k[i] >> sh;
    if (q >> 3 >= b0 && q >> 3 < b0 + nb) bits[(q >> 3) - b0] |= (uint8_t)(1u << (q & 7));
  }
  return 0;
}

/* Collective, distinct_cells(l) just made on every rank (l <= CELL_BITMAP_LMAX; all: every rank's span):
 * the non-empty level-l cells of every rank's keys, exactly, when spans overlap. Outside the pairwise
 * overlaps of the spans a cell is one rank's, which counted it; over the bytes of the bitmap that cover
 * them the ranks' cells are united by one all-reduce of those bytes alone, and each rank's own count there
 * taken out: Σ n_r − Σ own_r + |∪ own_r|. */
static int union_cells(vx_dist_engine *d, key_set *s, int l, const cell_span *all, long long *out, char *err,
                       size_t errlen) {
  const vx_comm *c = &d->c;
  long long total = 0, lo = LLONG_MAX, hi = -1;
  for (int r = 0; r < c->size; r++) {
    if (all[r].n == 0) continue;
    total += all[r].n;
    for (int q = r + 1; q < c->size; q++) {
      if (all[q].n == 0) continue;
      const long long a = all[r].first > all[q].first ? all[r].first : all[q].first;
      const long long b = all[r].last < all[q].last ? all[r].last : all[q].last;
      if (a <= b) lo = a < lo ? a : lo, hi = b > hi ? b : hi;
    }
  }
  *out = total;
  if (hi < lo) return 0; /* spans out of order but apart */
  const size_t b0 = (size_t)lo >> 3, nb = ((size_t)hi >> 3) - b0 + 1;
  const int ok = vx_host_reserve((void **)&d->bits, &d->bits_cap, nb) == 0 &&
                 own_cell_bytes(d, s, l, b0, nb, d->bits, err, errlen) == 0;
  if (!ok && !err[0]) snprintf(err, errlen, "out of memory counting the cells of level %d", l);
  if (!all_ok(c, ok, err, errlen)) return -1;
  uint8_t *bits = d->bits;
  long long own = 0, uni = 0;
  for (size_t b = 0; b < nb; b++) own += __builtin_popcount(bits[b]);
  if (vx_comm_check(MPI_Allreduce(MPI_IN_PLACE, bits, (int)nb, MPI_BYTE, MPI_BOR, c->comm), "MPI_Allreduce (cells)", err,
                    errlen) ||
      vx_comm_check(MPI_Allreduce(MPI_IN_PLACE, &own, 1, MPI_LONG_LONG, MPI_SUM, c->comm), "MPI_Allreduce (own cells)",
                    err, errlen))
    return -1;
  for (size_t b = 0; b < nb; b++) uni += __builtin_popcount(bits[b]);
  *out = total - own + uni;
  return 0;
}

/* The non-empty level-l cells of every rank's keys: the ranks' distinct cells, less each cell a rank
 * shares with the last rank before it that holds any — when the ranks' spans ascend with the rank (a
 * partition's), only there can two ranks hold one cell. Spans that overlap (points that moved since the
 * partition) are counted by their union (union_cells; beyond its levels, an upper bound: the level may
 * then differ from one rank's choice). */
static int global_cells(vx_dist_engine *d, key_set *s, int l, cell_span *all, long long *out, char *err, size_t errlen) {
  const vx_comm *c = &d->c;
  cell_span mine;
  err[0] = '\0';
  const int ok = distinct_cells(d, s, l, &mine, err, errlen) == 0;
  if (!ok && !err[0]) snprintf(err, errlen, "out of memory counting the cells of level %d", l);
  if (!all_ok(c, ok, err, errlen)) return -1;
  if (vx_comm_check(MPI_Allgather(&mine, 3, MPI_LONG_LONG, all, 3, MPI_LONG_LONG, c->comm), "MPI_Allgather (cells)",
                    err, errlen))
    return -1;
  long long total = 0, last = -1;
  int ascend = 1;
  for (int r = 0; r < c->size; r++) {
    if (all[r].n == 0) continue;
    ascend &= all[r].first >= last;
    total += all[r].n - (all[r].first == last);
    last = all[r].last;
  }
  if (!ascend && l <= CELL_BITMAP_LMAX) return union_cells(d, s, l, all, out, err, errlen);
  *out = total;
  return 0;
}

int vx_dist_occupied(vx_dist_engine *d, const uint32_t *keys, const uint32_t *d_keys, int n, int l, long long *out, char *err,
                     size_t errlen) {
  key_set s = {keys, d_keys, n, UINT32_MAX, 0};
  cell_span *all = malloc(sizeof *all * (size_t)d->c.size);
  int ok = all != NULL && (keys || host_keys(d, &s, err, errlen) == 0);
  if (!all) snprintf(err, errlen, "out of memory");
  if (ok && n > 0) keys_span(&s);
  s.k = keys; /* device keys are counted on the device */
  const int rc = all_ok(&d->c, ok, err, errlen) ? global_cells(d, &s, l, all, out, err, errlen) : -1;
  free(all);
  return rc;
}

/* The finest level of the global tree: the rule of oct_build_cpu (a forced level, or the leaf-size
 * rule's trials) on the choosing set's counts over every rank (s: this rank's keys of that set). */
static int global_level(vx_dist_engine *d, double side, key_set *s, long long cn, int *L, char *err, size_t errlen) {
  oct_params op = fmm_octree_params(d->ctx), q;
  op.choose_level = NULL;
  if (oct_resolve_params(1, 1, 1, 1, &op, &q, err, errlen)) return -1;
  const int lcap = oct_level_cap(q.max_level, q.hist_budget, side, q.min_leaf_width);
  int capped, l = oct_level_first(&q, cn, lcap, side, &capped);
  cell_span *all = malloc((size_t)d->c.size * sizeof *all);
  if (!all) {
    snprintf(err, errlen, "out of memory choosing the global level");
    return -1;
  }
  int rc = 0;
  while (oct_level_trials(&q, capped)) {
    long long occupied;
    if ((rc = global_cells(d, s, l, all, &occupied, err, errlen))) break;
    if (oct_level_accept(&q, l, lcap, cn, occupied, &capped)) break;
    l++;
  }
  free(all);
  *L = l;
  return rc;
}

/* The records of the m sources sel (position, strength: 6 reals of rs bytes) into rec; the host twin of
 * k_dist_gather. */
static void pack_records(const fmm_io *io, size_t rs, const int *sel, int m, char *rec) {
#pragma omp parallel for schedule(static)
  for (int j = 0; j < m; j++) {
    memcpy(rec + 6 * rs * j, (const char *)io->src_pos + 3 * rs * sel[j], 3 * rs);
    memcpy(rec + 6 * rs * j + 3 * rs, (const char *)io->src_str + 3 * rs * sel[j], 3 * rs);
  }
}

/* The host arrays of the ns own sources and then the nh halo records; the host twin of vx_dist_dev_sources. */
static int host_sources(vx_dist_engine *d, const fmm_io *io, const char *rec, int nh, size_t rs, char *err, size_t errlen) {
  const int ns = io->n_src;
  const size_t n = (size_t)ns + nh + 1;
  if (reserve(&d->lpos, &d->lpos_cap, 3 * rs * n, "the local sources", err, errlen) ||
      reserve(&d->lstr, &d->lstr_cap, 3 * rs * n, "the local sources", err, errlen))
    return -1;
  char *p = d->lpos, *a = d->lstr;
  const size_t chunk = (size_t)1 << 16; /* points a copy */
#pragma omp parallel for schedule(static)
  for (long long b = 0; b < (ns + (long long)chunk - 1) / (long long)chunk; b++) {
    const size_t i0 = (size_t)b * chunk, m = i0 + chunk < (size_t)ns ? chunk : (size_t)ns - i0;
    memcpy(p + 3 * rs * i0, (const char *)io->src_pos + 3 * rs * i0, 3 * rs * m);
    memcpy(a + 3 * rs * i0, (const char *)io->src_str + 3 * rs * i0, 3 * rs * m);
  }
#pragma omp parallel for schedule(static)
  for (int j = 0; j < nh; j++) {
    memcpy(p + 3 * rs * ((size_t)ns + j), rec + 6 * rs * j, 3 * rs);
    memcpy(a + 3 * rs * ((size_t)ns + j), rec + 6 * rs * j + 3 * rs, 3 * rs);
  }
  return 0;
}

#ifdef VX_HAVE_CUDA
/* 1 when every rank runs on this node (MPI_COMM_TYPE_SHARED): its GPUs reach each other's memory. */
static int all_on_node(const vx_comm *c, char *err, size_t errlen) {
  MPI_Comm node;
  int n = 0;
  if (vx_comm_check(MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &node),
                    "MPI_Comm_split_type", err, errlen))
    return -1;
  MPI_Comm_size(node, &n);
  MPI_Comm_free(&node);
  return vx_comm_agree(c, n == c->size);
}

/* The device halo by peer copies (dist_gpu.h): each cell of the rank's key range with its destinations
 * (vx_halo_cells), the sources' copies grouped by rank and gathered on the device, then each rank's copies
 * put straight into the receiving buffers of the others, which hold them by sending rank (the host
 * exchange's order). *nh: the records received. */
static int halo_peer(vx_dist_engine *d, const key_set *sk, int level, int reach, const fmm_io *io,
                     size_t rs, int *nh, char *err, size_t errlen) {
  const vx_comm *c = &d->c;
  const int R = c->size, sh = VX_PART_KEY_BITS - 3 * level;
  const size_t rb = 6 * rs;
  int *n = malloc(sizeof(int) * 6 * (size_t)R), *sc = n, *sd = n + R, *rc = n + 2 * R, *rd = n + 3 * R, *land = n + 4 * R;
  unsigned char *hs = malloc((size_t)VX_DIST_IPC_HANDLE * (R + 1)), *mine = hs + (size_t)VX_DIST_IPC_HANDLE * R;
  int *off = NULL, *cnt = NULL, *pool = NULL, n_pool = 0, rv = -1;
  const uint32_t c0 = sk->n > 0 ? sk->lo >> sh : 1, c1 = sk->n > 0 ? sk->hi >> sh : 0;
  int ok = n && hs && vx_halo_cells(c, d->ranges, level, reach, c0, c1, &off, &cnt, &pool, &n_pool) == 0;
  if (!ok) snprintf(err, errlen, "out of memory listing the halo");
  ok = ok && vx_dist_dev_halo(&d->dev, sk->dk, sk->n, level, c0, c1, off, cnt, pool, n_pool, R, io->src_pos, io->src_str,
                              rs, sc, sd, NULL, err, errlen) == 0;
  long long total = 0;
  if (!all_ok(c, ok, err, errlen) ||
      vx_comm_check(MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, c->comm), "MPI_Alltoall (halo counts)", err, errlen))
    goto done;
  for (int r = 0; r < R; r++) rd[r] = (int)total, total += rc[r];
  ok = total <= INT_MAX && vx_dist_dev_recv(&d->dev, rb * (size_t)(total + 1), mine, err, errlen) == 0;
  if (!all_ok(c, ok, err, errlen) ||
      vx_comm_check(MPI_Allgather(mine, VX_DIST_IPC_HANDLE, MPI_BYTE, hs, VX_DIST_IPC_HANDLE, MPI_BYTE, c->comm),
                    "MPI_Allgather (halo buffers)", err, errlen) ||
      vx_comm_check(MPI_Alltoall(rd, 1, MPI_INT, land, 1, MPI_INT, c->comm), "MPI_Alltoall (halo places)", err, errlen))
    goto done;
  for (int q = 0; ok && q < R; q++)
    if (q != c->rank && sc[q] > 0)
      ok = vx_dist_dev_put(&d->dev, q, R, hs + (size_t)VX_DIST_IPC_HANDLE * q, rb * land[q], rb * sd[q], rb * sc[q], err,
                           errlen) == 0;
  ok = ok && vx_dist_dev_wait(err, errlen) == 0;
  if (!all_ok(c, ok, err, errlen)) goto done; /* every copy has landed once all have agreed */
  *nh = (int)total;
  rv = 0;
done:
  free(n), free(hs), free(off), free(cnt), free(pool);
  return rv;
}
#endif

/* The halo at level lh (vx_halo_dests: every source whose level-lh box is adjacent to one of another
 * rank's range goes there), exchanged, then this rank's sources followed by the halo's in *pos, *str
 * (host arrays, or device arrays with io's). */
static int gather_halo(vx_dist_engine *d, key_set *sk, int lh, const fmm_io *io, size_t rs,
                       const void **pos, const void **str, int *n_local, vx_dist_stats *ds, char *err, size_t errlen) {
  const double t0 = now_ms();
  const vx_comm *c = &d->c;
  const int ns = io->n_src;
  /* level 2 and reach 3 send every source everywhere (the corrections reach beyond level-2 boxes) */
  const int level = lh >= 2 ? lh : 2, reach = lh >= 2 ? 1 : 3;
  int *start = NULL, *dest = NULL, m = 0, nh = 0, rc = -1, ok = 1;
  void *got = NULL;
#ifdef VX_HAVE_CUDA
  if (io->on_device && d->peer < 0) d->peer = all_on_node(c, err, errlen);
  if (io->on_device && d->peer == 1) { /* the records never leave the devices */
    if (halo_peer(d, sk, level, reach, io, rs, &nh, err, errlen)) goto out;
    const double t1 = now_ms();
    void *p = NULL, *a = NULL;
    ok = vx_dist_dev_place(&d->dev, io->src_pos, io->src_str, ns, nh, rs, &p, &a, err, errlen) == 0;
    *pos = p, *str = a, *n_local = ns + nh;
    rc = all_ok(c, ok, err, errlen) ? 0 : -1;
    ds->t_halo_send = t1 - t0, ds->t_halo_place = now_ms() - t1;
    goto out;
  }
#endif
  ok = host_keys(d, sk, err, errlen) == 0;
  if (ok && vx_halo_dests(c, d->ranges, level, reach, sk->k, ns, &start, &dest)) {
    ok = 0;
    snprintf(err, errlen, "out of memory listing the halo of %d sources", ns);
  }
  ok = ok && !reserve((void **)&d->sel, &d->sel_cap, sizeof(int) * (size_t)(ns + 1), "the halo", err, errlen) &&
       !reserve((void **)&d->cstart, &d->cstart_cap, sizeof(int) * (size_t)(ns + 1), "the halo", err, errlen);
  if (ok) { /* the sources with destinations, in order: a count a block, their offsets, then the lists */
    enum { BLK = 1 << 16 };
    const int nblk = (ns + BLK - 1) / BLK;
    int *off = malloc(sizeof(int) * (size_t)(nblk + 1));
    ok = off != NULL;
    if (!ok) snprintf(err, errlen, "out of memory listing the halo");
    if (ok) {
#pragma omp parallel for schedule(static)
      for (int b = 0; b < nblk; b++) {
        int k = 0;
        for (int i = b * BLK; i < ns && i < (b + 1) * BLK; i++) k += start[i + 1] > start[i];
        off[b + 1] = k;
      }
      off[0] = 0;
      for (int b = 0; b < nblk; b++) off[b + 1] += off[b];
#pragma omp parallel for schedule(static)
      for (int b = 0; b < nblk; b++) {
        int j = off[b];
        for (int i = b * BLK; i < ns && i < (b + 1) * BLK; i++)
          if (start[i + 1] > start[i]) d->cstart[j] = start[i], d->sel[j++] = i;
      }
      m = off[nblk];
      free(off);
    }
    d->cstart[m] = ns > 0 ? start[ns] : 0;
    ok = !reserve(&d->rec, &d->rec_cap, 6 * rs * (size_t)(m + 1), "the halo's records", err, errlen);
  }
  const double t1 = now_ms();
#ifdef VX_HAVE_CUDA
  if (ok && io->on_device)
    ok = vx_dist_dev_gather(&d->dev, io->src_pos, io->src_str, rs, d->sel, m, d->rec, err, errlen) == 0;
#endif
  if (ok && !io->on_device) pack_records(io, rs, d->sel, m, d->rec);
  const double t2 = now_ms();
  if (all_ok(c, ok, err, errlen) && vx_part_exchange(c, d->cstart, dest, m, d->rec, 6 * rs, &got, &nh, err, errlen) == 0) {
    const double t3 = now_ms();
    if (!io->on_device) {
      ok = host_sources(d, io, got, nh, rs, err, errlen) == 0;
      *pos = d->lpos, *str = d->lstr;
    } else {
#ifdef VX_HAVE_CUDA
      void *p = NULL, *a = NULL;
      ok = vx_dist_dev_sources(&d->dev, io->src_pos, io->src_str, ns, got, nh, rs, &p, &a, err, errlen) == 0;
      *pos = p, *str = a;
#endif
    }
    *n_local = ns + nh;
    rc = all_ok(c, ok, err, errlen) ? 0 : -1;
    ds->t_halo_list = t1 - t0, ds->t_halo_pack = t2 - t1, ds->t_halo_send = t3 - t2, ds->t_halo_place = now_ms() - t3;
  }
#ifdef VX_HAVE_CUDA
out:
#endif
  free(start), free(dest), free(got);
  return rc;
}

/* The dense multipoles and counts of levels 2..pt->Lc of every rank's sources: each rank's own, summed. */
static int coarse_far_field(vx_dist_engine *d, const fmm_io *io, fmm_part *pt, char *err, size_t errlen) {
  const vx_comm *c = &d->c;
  const fmm_params *P = fmm_get_params(d->ctx);
  const size_t nr = fmm_part_reals(P->order, pt->Lc), ncell = fmm_part_cells(pt->Lc);
  const int is_float = P->precision == VX_FLOAT;
  int ok = !reserve(&d->mp, &d->mp_cap, nr * (is_float ? sizeof(float) : sizeof(double)), "the dense far field", err,
                    errlen) &&
           !reserve((void **)&d->cnt, &d->cnt_cap, ncell * sizeof(int), "the dense far field", err, errlen);
  pt->mpole = d->mp, pt->count = d->cnt;
  fmm_io own = {.n_src = io->n_src, .src_pos = io->src_pos, .src_str = io->src_str, .on_device = io->on_device};
  if (ok && fmm_part_multipoles(d->ctx, &own, pt, d->mp, d->cnt, err, errlen)) ok = 0;
  if (!all_ok(c, ok, err, errlen)) return -1;
  if (vx_comm_check(MPI_Allreduce(MPI_IN_PLACE, d->mp, (int)nr, is_float ? MPI_FLOAT : MPI_DOUBLE, MPI_SUM, c->comm),
                    "MPI_Allreduce (multipoles)", err, errlen) ||
      vx_comm_check(MPI_Allreduce(MPI_IN_PLACE, d->cnt, (int)ncell, MPI_INT, MPI_SUM, c->comm), "MPI_Allreduce (counts)",
                    err, errlen))
    return -1;
  return 0;
}

/* The checks every rank makes of its own arguments before the collective steps. */
static int check_args(const vx_dist_engine *d, int Lc_max, const fmm_io *io, char *err, size_t errlen) {
  if (io->on_device && fmm_get_params(d->ctx)->backend != VX_BACKEND_CUDA)
    return snprintf(err, errlen, "device arrays need the CUDA backend"), -1;
  if (io->part || io->tree != FMM_TREE_BUILD)
    return snprintf(err, errlen, "the distributed evaluation builds its own tree (no part, no kept tree)"), -1;
  if (Lc_max < 0 || Lc_max == 1 || Lc_max > VX_LMAX)
    return snprintf(err, errlen, "dense far-field level %d out of range (0, or 2..%d)", Lc_max, VX_LMAX), -1;
  if (io->n_src < 0 || io->n_tgt < 0 || (io->n_src && (!io->src_pos || !io->src_str)) ||
      (io->n_tgt && (!io->tgt_pos || !io->vel)))
    return snprintf(err, errlen, "missing or negative input of the distributed evaluation"), -1;
  return 0;
}

/* This rank's keys of its sources and targets (the targets' are the sources' when they are the same
 * points) and their spans. */
static int own_keys(vx_dist_engine *d, const vx_part_cube *cube, const fmm_io *io, key_set *s, key_set *t, char *err,
                    size_t errlen) {
  const int same = io->tgt_pos == io->src_pos && io->n_tgt <= io->n_src;
  *s = (key_set){NULL, NULL, io->n_src, 0, 0}, *t = (key_set){NULL, NULL, io->n_tgt, 0, 0};
  if (io->on_device) {
#ifdef VX_HAVE_CUDA
    const int fl = fmm_get_params(d->ctx)->precision == VX_FLOAT;
    uint32_t span[2];
    if (vx_dist_dev_key_span(&d->dev, cube, io->src_pos, fl, io->n_src, 0, &s->dk, span, err, errlen)) return -1;
    s->lo = span[0], s->hi = span[1];
    if (same) {
      t->dk = s->dk, t->lo = s->lo, t->hi = s->hi;
    } else {
      if (vx_dist_dev_key_span(&d->dev, cube, io->tgt_pos, fl, io->n_tgt, 1, &t->dk, span, err, errlen)) return -1;
      t->lo = span[0], t->hi = span[1];
    }
#endif
    return 0;
  }
  if (point_keys(d, cube, io->src_pos, io->n_src, &d->sk, &d->sk_cap, err, errlen) ||
      (!same && point_keys(d, cube, io->tgt_pos, io->n_tgt, &d->tk, &d->tk_cap, err, errlen)))
    return -1;
  s->k = d->sk, t->k = same ? d->sk : d->tk;
  keys_span(s);
  if (!same) keys_span(t);
  else t->lo = s->lo, t->hi = s->hi;
  return 0;
}

/* Every rank's targets' key span into d->ranges (halo.h's ranges): the halo serves each rank's targets
 * wherever they are, so points that moved off the partition since it was made need no migration first. */
static int target_ranges(vx_dist_engine *d, const key_set *t, char *err, size_t errlen) {
  const vx_comm *c = &d->c;
  uint32_t mine[2] = {t->lo, t->hi};
  const int ok = !reserve((void **)&d->ranges, &d->ranges_cap, sizeof(uint32_t) * 2 * (size_t)c->size,
                          "the ranks' key ranges", err, errlen);
  if (!all_ok(c, ok, err, errlen)) return -1;
  return vx_comm_check(MPI_Allgather(mine, 2, MPI_UINT32_T, d->ranges, 2, MPI_UINT32_T, c->comm), "MPI_Allgather (key ranges)",
                       err, errlen);
}

int vx_dist_evaluate(vx_dist_engine *d, const vx_part_cube *cube, int Lc_max, const fmm_io *io,
                     fmm_stats *st, vx_dist_stats *ds, char *err, size_t errlen) {
  const vx_comm *c = &d->c;
  const fmm_params *P = fmm_get_params(d->ctx);
  const int nt = io->n_tgt;
  const size_t rs = P->precision == VX_FLOAT ? sizeof(float) : sizeof(double);
  vx_dist_stats dst;
  memset(&dst, 0, sizeof dst);
  fmm_part pt = {{cube->lo[0], cube->lo[1], cube->lo[2]}, cube->side, 0, 0, NULL, NULL};
  key_set sk, tk;
  const double t0 = now_ms();
  int rc = -1, ok = check_args(d, Lc_max, io, err, errlen) == 0 && own_keys(d, cube, io, &sk, &tk, err, errlen) == 0;
  if (!all_ok(c, ok, err, errlen)) goto done;
  if (c->size == 1) { /* the whole evaluation: nothing to exchange */
    fmm_stats one;
    if (fmm_evaluate(d->ctx, io, &one, err, errlen)) goto done;
    dst.L = one.levels, dst.t_local = now_ms() - t0;
    if (st) *st = one;
    rc = 0;
    goto done;
  }
  /* global counts, passivity (fmm_io_passive) and level */
  const int want_grad = P->gradient && io->grad, n_grad = io->n_grad > 0 && io->n_grad < nt ? io->n_grad : nt;
  long long loc_n[3] = {io->n_src, nt, fmm_io_passive(io, want_grad, n_grad)}, glob[3];
  if (vx_comm_check(MPI_Allreduce(loc_n, glob, 3, MPI_LONG_LONG, MPI_SUM, c->comm), "MPI_Allreduce (counts)", err,
                    errlen))
    goto done;
  if (glob[0] == 0 || glob[1] == 0) { /* no sources anywhere: nothing to sum */
    fmm_io none = *io;
    none.n_src = 0;
    rc = nt > 0 ? fmm_evaluate(d->ctx, &none, st, err, errlen) : 0;
    goto done;
  }
  const int choose_tgt = oct_choose_targets(glob[0], glob[1]);
  if (global_level(d, cube->side, choose_tgt ? &tk : &sk, glob[choose_tgt], &pt.L, err, errlen)) goto done;
  pt.Lc = Lc_max ? Lc_max : vx_dist_lc(c->size);
  if (pt.Lc > pt.L) pt.Lc = pt.L;
  fmm_stats tmp;
  const fmm_corr cr = fmm_reg_prepare(d->ctx, cube->side, pt.L, glob[2] > 0, 0.0, &tmp);
  const int lh = cr.on && cr.Lc < pt.Lc ? cr.Lc : pt.Lc;
  if (target_ranges(d, &tk, err, errlen)) goto done;
  const double t1 = now_ms();
  const void *lpos = NULL, *lstr = NULL;
  int nloc = 0;
  if (gather_halo(d, &sk, lh, io, rs, &lpos, &lstr, &nloc, &dst, err, errlen)) goto done;
  const double t2 = now_ms();
  if (coarse_far_field(d, io, &pt, err, errlen)) goto done;
  const double t3 = now_ms();
  fmm_io lio = *io;
  lio.n_src = nloc, lio.src_pos = lpos, lio.src_str = lstr;
  lio.passive = glob[2] > 0;
  lio.part = &pt;
  ok = fmm_evaluate(d->ctx, &lio, st, err, errlen) == 0;
  if (!all_ok(c, ok, err, errlen)) goto done;
  dst.L = pt.L, dst.Lc = pt.Lc, dst.Lh = lh, dst.n_halo = nloc - io->n_src;
  dst.t_level = t1 - t0, dst.t_halo = t2 - t1, dst.t_coarse = t3 - t2, dst.t_local = now_ms() - t3;
  rc = 0;
done:
  if (ds) *ds = dst;
  return rc;
}
