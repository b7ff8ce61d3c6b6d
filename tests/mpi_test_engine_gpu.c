/* mpi_test_engine_gpu.c — the distributed FMM's device path (dist/engine.h with device arrays,
 * dist/dist_gpu.h) under mpirun with 1, 2 and 3 ranks, a GPU of the node a rank (skipped, 77, without
 * one): the keys computed on the device equal their host twin's (vx_part_keys_of), and so do their span,
 * each level's distinct cells, the halo's copies grouped by rank (vx_halo_dests, vx_part_pack) and its
 * records gathered there; and each rank's velocities and gradients from device arrays equal one
 * GPU evaluation of every rank's points, in double to 1e-12 and in float to 1e-6 (rms deviation over rms
 * magnitude), the Gaussian kernel with its corrections and the singular one. Order 6: at p = 8 in float
 * the tensor-core M2L (TF32) runs where a level is full enough, which a rank's smaller levels and the
 * whole's need not share. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dist_gpu.h"
#include "engine.h"
#include "halo.h"
#include "test_check.h"
#include "mpi_test.h"

#ifndef VX_HAVE_CUDA
int main(void) {
  printf("SKIP: vortexfmm was built without CUDA\n");
  return 77;
}
#else

/* This rank's records in one precision: positions and strengths, and the device copies. */
typedef struct {
  int n, f;
  size_t rs;
  void *pos, *str, *vel, *grad;     /* host */
  void *dpos, *dstr, *dvel, *dgrad; /* device */
} dev_set;

static int dev_set_make(const rec *o, int n, int f, dev_set *s, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  s->n = n, s->f = f, s->rs = f ? sizeof(float) : sizeof(double);
  const size_t b3 = 3 * s->rs * (size_t)(n + 1);
  s->pos = malloc(b3), s->str = malloc(b3), s->vel = malloc(b3), s->grad = malloc(3 * b3);
  if (!s->pos || !s->str || !s->vel || !s->grad) return snprintf(err, errlen, "out of memory"), -1;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      if (f) ((float *)s->pos)[3 * i + k] = (float)o[i].x[k], ((float *)s->str)[3 * i + k] = (float)o[i].a[k];
      else ((double *)s->pos)[3 * i + k] = o[i].x[k], ((double *)s->str)[3 * i + k] = o[i].a[k];
    }
  if (vx_device_alloc(&s->dpos, b3, err, errlen) || vx_device_alloc(&s->dstr, b3, err, errlen) ||
      vx_device_alloc(&s->dvel, b3, err, errlen) || vx_device_alloc(&s->dgrad, 3 * b3, err, errlen) ||
      vx_device_upload(s->dpos, s->pos, 3 * s->rs * n, err, errlen) || vx_device_upload(s->dstr, s->str, 3 * s->rs * n, err, errlen))
    return -1;
  return 0;
}

static void dev_set_free(dev_set *s) {
  free(s->pos), free(s->str), free(s->vel), free(s->grad);
  vx_device_free(s->dpos), vx_device_free(s->dstr), vx_device_free(s->dvel), vx_device_free(s->dgrad);
}

static double val(const void *a, size_t i, int f) { return f ? ((const float *)a)[i] : ((const double *)a)[i]; }

/* The halo's copies grouped by rank on the device (vx_dist_dev_halo) against the host's (vx_halo_dests,
 * the sources with destinations, vx_part_pack) at level 4, reach 1. */
static int check_halo_twin(const vx_comm *c, const owned_set *s, const dev_set *D, vx_dist_dev *w, const uint32_t *kd,
                           const uint32_t *dkeys) {
  char err[256] = "";
  const int R = c->size, L = 4, sh = VX_PART_KEY_BITS - 3 * L, n = s->n;
  uint32_t mn = UINT32_MAX, mx = 0;
  for (int i = 0; i < n; i++) mn = kd[i] < mn ? kd[i] : mn, mx = kd[i] > mx ? kd[i] : mx;
  int *off, *cnt, *pool, n_pool, *start, *dest;
  uint32_t *ranges = malloc(sizeof(uint32_t) * 2 * R);
  CHECK(ranges, "out of memory");
  vx_part_ranges(s->split, R, ranges);
  CHECK(vx_halo_cells(c, ranges, L, 1, mn >> sh, mx >> sh, &off, &cnt, &pool, &n_pool) == 0, "out of memory");
  CHECK(vx_halo_dests(c, ranges, L, 1, kd, n, &start, &dest) == 0, "out of memory");
  int *sel = malloc(sizeof(int) * (n + 1)), *cs = malloc(sizeof(int) * (n + 1)), m = 0;
  int *hc = malloc(sizeof(int) * 4 * R), *hd = hc + R, *dc = hc + 2 * R, *dd = hc + 3 * R;
  int *idx = malloc(sizeof(int) * (size_t)(start[n] + 1));
  CHECK(sel && cs && hc && idx, "out of memory");
  for (int i = 0; i < n; i++)
    if (start[i + 1] > start[i]) cs[m] = start[i], sel[m++] = i;
  cs[m] = start[n];
  char *packed = NULL;
  CHECK(vx_part_pack(R, -1, cs, dest, m, sel, sizeof(int), &packed, hc, hd) == 0, "out of memory");
  CHECK(vx_dist_dev_halo(w, dkeys, n, L, mn >> sh, mx >> sh, off, cnt, pool, n_pool, R, D->dpos, D->dstr, D->rs, dc, dd,
                         idx, err, sizeof err) == 0,
        "halo: %s", err);
  for (int r = 0; r < R; r++)
    CHECK(dc[r] * (int)sizeof(int) == hc[r] && dd[r] * (int)sizeof(int) == hd[r], "rank %d's copies: %d at %d, host %d at %d",
          r, dc[r], dd[r], hc[r] / (int)sizeof(int), hd[r] / (int)sizeof(int));
  CHECK(!memcmp(idx, packed, sizeof(int) * (size_t)start[n]), "the copies' order differs from the host's");
  printf("rank %d: %d halo copies grouped as the host groups them\n", c->rank, start[n]);
  free(off), free(cnt), free(pool), free(start), free(dest), free(sel), free(cs), free(hc), free(idx), free(packed);
  free(ranges);
  return 0;
}

/* The device kernels against their host twins on this rank's points. */
/* The points' bounds on the device (vx_dist_dev_bounds) against the host's (vx_part_bounds): as they are,
 * then with non-finite coordinates at two points (the first of them is named). */
static int check_bounds_twin(const owned_set *s, const dev_set *D, vx_dist_dev *w) {
  char err[256] = "";
  const size_t b = 3 * D->rs * (size_t)s->n;
  char *p = malloc(b + 1);
  void *dp = NULL;
  CHECK(p && vx_device_alloc(&dp, b + 1, err, sizeof err) == 0, "bounds: %s", p ? err : "out of memory");
  memcpy(p, D->pos, b);
  for (int pass = 0; pass < 2; pass++) {
    if (pass && s->n > 3) { /* a NaN at 2n/3, an infinity at n/3 */
      const double bad[2] = {NAN, -INFINITY};
      for (int k = 0; k < 2; k++) {
        const size_t j = 3 * (size_t)(s->n * (2 - k) / 3) + (size_t)k;
        if (D->f) ((float *)p)[j] = (float)bad[k];
        else ((double *)p)[j] = bad[k];
      }
    }
    CHECK(vx_device_upload(dp, p, b, err, sizeof err) == 0, "bounds: %s", err);
    double dmn[3], dmx[3], hmn[3], hmx[3];
    int dbad = 0, hbad = 0;
    CHECK(vx_dist_dev_bounds(w, dp, D->f, s->n, dmn, dmx, &dbad, err, sizeof err) == 0, "bounds: %s", err);
    vx_part_bounds(p, D->f, s->n, hmn, hmx, &hbad);
    CHECK(!memcmp(dmn, hmn, sizeof hmn) && !memcmp(dmx, hmx, sizeof hmx) && dbad == hbad,
          "pass %d: device bounds [%g %g %g]..[%g %g %g] bad %d, host [%g %g %g]..[%g %g %g] bad %d", pass, dmn[0], dmn[1],
          dmn[2], dmx[0], dmx[1], dmx[2], dbad, hmn[0], hmn[1], hmn[2], hmx[0], hmx[1], hmx[2], hbad);
    CHECK(pass == (hbad >= 0) || s->n <= 3, "pass %d: the first bad point %d", pass, hbad);
  }
  vx_device_free(dp);
  free(p);
  return 0;
}

static int check_twins(const vx_comm *c, const owned_set *s, const dev_set *D) {
  char err[256] = "";
  vx_dist_dev w;
  memset(&w, 0, sizeof w);
  uint32_t *kd = malloc(sizeof(uint32_t) * (s->n + 1)), *kh = malloc(sizeof(uint32_t) * (s->n + 1));
  int *idx = malloc(sizeof(int) * (s->n + 1)), m = 0;
  char *rec = malloc(6 * D->rs * (s->n + 1));
  CHECK(kd && kh && idx && rec, "out of memory");
  const uint32_t *dk;
  uint32_t span[2];
  CHECK(vx_dist_dev_key_span(&w, &s->cube, D->dpos, D->f, s->n, 0, &dk, span, err, sizeof err) == 0, "span: %s", err);
  CHECK(vx_device_download(kd, dk, sizeof(uint32_t) * s->n, err, sizeof err) == 0, "keys: %s", err);
  vx_part_keys_of(&s->cube, D->pos, D->f, s->n, kh);
  for (int i = 0; i < s->n; i++) CHECK(kd[i] == kh[i], "point %d: device key %u, host %u", i, kd[i], kh[i]);
  for (int i = s->n - 1; i >= 0; i -= 3) idx[m++] = i; /* every third point, backwards */
  CHECK(vx_dist_dev_gather(&w, D->dpos, D->dstr, D->rs, idx, m, rec, err, sizeof err) == 0, "gather: %s", err);
  for (int j = 0; j < m; j++)
    CHECK(!memcmp(rec + 6 * D->rs * j, (char *)D->pos + 3 * D->rs * idx[j], 3 * D->rs) &&
              !memcmp(rec + 6 * D->rs * j + 3 * D->rs, (char *)D->str + 3 * D->rs * idx[j], 3 * D->rs),
          "record %d is not point %d's", j, idx[j]);
  uint32_t mn = UINT32_MAX, mx = 0;
  for (int i = 0; i < s->n; i++) mn = kh[i] < mn ? kh[i] : mn, mx = kh[i] > mx ? kh[i] : mx;
  CHECK(span[0] == mn && span[1] == mx, "span [%u, %u], host [%u, %u]", span[0], span[1], mn, mx);
  for (int l = 2; l <= 6; l++) { /* distinct cells on the device against a host count */
    long long nd = 0, nh = 0;
    CHECK(vx_dist_dev_cells(&w, dk, s->n, l, &nd, err, sizeof err) == 0, "cells: %s", err);
    char *seen = calloc((size_t)1 << (3 * l), 1);
    CHECK(seen, "out of memory");
    for (int i = 0; i < s->n; i++) {
      const uint32_t q = kh[i] >> (VX_PART_KEY_BITS - 3 * l);
      nh += !seen[q], seen[q] = 1;
    }
    free(seen);
    CHECK(nd == nh, "level %d: %lld distinct cells on the device, %lld on the host", l, nd, nh);
  }
  if (check_halo_twin(c, s, D, &w, kh, dk)) return 1;
  if (check_bounds_twin(s, D, &w)) return 1;
  vx_dist_dev_free(&w);
  free(kd), free(kh), free(idx), free(rec);
  return 0;
}

typedef struct {
  const char *name;
  int f;
  vx_kernel kernel;
  int levels, Lc_max;
} case_t;

static int check_case(const vx_comm *c, const owned_set *s, const case_t *k) {
  char err[256] = "";
  fmm_params P = fmm_params_default();
  P.backend = VX_BACKEND_CUDA, P.precision = k->f ? VX_FLOAT : VX_DOUBLE, P.order = 6;
  P.kernel = k->kernel, P.sigma = 0.01, P.levels = k->levels, P.level_rule = FMM_LEVEL_RULE_LEAF;
  fmm_ctx *ctx = fmm_create(&P, err, sizeof err), *ref = fmm_create(&P, err, sizeof err);
  CHECK(ctx && ref, "fmm_create: %s", err);
  dev_set D, G;
  CHECK(dev_set_make(s->o, s->n, k->f, &D, err, sizeof err) == 0, "%s", err);
  if (check_twins(c, s, &D)) return 1;
  vx_dist_engine *d = vx_dist_create(c, ctx, err, sizeof err);
  CHECK(d, "%s", err);
  fmm_io io = {.n_src = s->n, .src_pos = D.dpos, .src_str = D.dstr, .n_tgt = s->n, .tgt_pos = D.dpos, .vel = D.dvel,
               .grad = D.dgrad, .on_device = 1};
  vx_dist_stats ds;
  CHECK(vx_dist_evaluate(d, &s->cube, k->Lc_max, &io, NULL, &ds, err, sizeof err) == 0, "%s: %s", k->name, err);
  CHECK(vx_device_download(D.vel, D.dvel, 3 * D.rs * s->n, err, sizeof err) == 0 &&
            vx_device_download(D.grad, D.dgrad, 9 * D.rs * s->n, err, sizeof err) == 0,
        "%s", err);
  vx_dist_destroy(d);
  /* every record everywhere, in id order: the whole, evaluated on this rank's GPU */
  int *cnt = malloc(sizeof(int) * c->size), *dsp = malloc(sizeof(int) * c->size), nb = s->n * (int)sizeof *s->o, tot = 0;
  CHECK(cnt && dsp, "out of memory");
  MPI_Allgather(&nb, 1, MPI_INT, cnt, 1, MPI_INT, c->comm);
  for (int r = 0; r < c->size; r++) dsp[r] = tot, tot += cnt[r];
  rec *all = malloc((size_t)tot + 1), *byid = malloc((size_t)tot + 1);
  CHECK(all && byid, "out of memory");
  MPI_Allgatherv(s->o, nb, MPI_BYTE, all, cnt, dsp, MPI_BYTE, c->comm);
  const int N = tot / (int)sizeof *all;
  for (int i = 0; i < N; i++) byid[all[i].id] = all[i];
  CHECK(dev_set_make(byid, N, k->f, &G, err, sizeof err) == 0, "%s", err);
  fmm_io gio = {.n_src = N, .src_pos = G.dpos, .src_str = G.dstr, .n_tgt = N, .tgt_pos = G.dpos, .vel = G.dvel,
                .grad = G.dgrad, .on_device = 1};
  CHECK(fmm_evaluate(ref, &gio, NULL, err, sizeof err) == 0, "the whole: %s", err);
  CHECK(vx_device_download(G.vel, G.dvel, 3 * G.rs * N, err, sizeof err) == 0 &&
            vx_device_download(G.grad, G.dgrad, 9 * G.rs * N, err, sizeof err) == 0,
        "%s", err);
  double sum[4] = {0, 0, 0, 0}, gs[4];
  for (int i = 0; i < s->n; i++) {
    const size_t g = (size_t)s->o[i].id;
    for (int q = 0; q < 3; q++) {
      const double a = val(D.vel, 3 * (size_t)i + q, k->f), b = val(G.vel, 3 * g + q, k->f);
      sum[0] += (a - b) * (a - b), sum[1] += b * b;
    }
    for (int q = 0; q < 9; q++) {
      const double a = val(D.grad, 9 * (size_t)i + q, k->f), b = val(G.grad, 9 * g + q, k->f);
      sum[2] += (a - b) * (a - b), sum[3] += b * b;
    }
  }
  MPI_Allreduce(sum, gs, 4, MPI_DOUBLE, MPI_SUM, c->comm);
  const double ev = sqrt(gs[0] / gs[1]), eg = sqrt(gs[2] / gs[3]), tol = k->f ? 1e-6 : 1e-12;
  if (c->rank == 0)
    printf("%d ranks, %s: level %d, dense to %d, halo level %d: velocity %.2e, gradient %.2e (bound %.0e)\n", c->size,
           k->name, ds.L, ds.Lc, ds.Lh, ev, eg, tol);
  CHECK(ev <= tol && eg <= tol, "%s: velocity %.3g, gradient %.3g", k->name, ev, eg);
  dev_set_free(&D), dev_set_free(&G);
  free(cnt), free(dsp), free(all), free(byid);
  fmm_destroy(ctx), fmm_destroy(ref);
  return 0;
}

/* The global level's count of non-empty cells from device keys (vx_dist_occupied: each rank's level bitmap on
 * the device, the bytes over the spans' overlaps united) against every rank's keys gathered, at levels 2..8:
 * the partition's keys, and the same with 1 in 16 replaced by a key anywhere (overlapping spans). */
static int check_occupied(const vx_comm *c, const owned_set *s) {
  char err[256] = "";
  fmm_params P = fmm_params_default();
  P.backend = VX_BACKEND_CUDA;
  fmm_ctx *ctx = fmm_create(&P, err, sizeof err);
  CHECK(ctx, "fmm_create: %s", err);
  vx_dist_engine *d = vx_dist_create(c, ctx, err, sizeof err);
  uint32_t *k = owned_keys(s);
  void *dk = NULL;
  CHECK(d && k && vx_device_alloc(&dk, sizeof(uint32_t) * ((size_t)s->n + 1), err, sizeof err) == 0, "%s",
        d && k ? err : "out of memory");
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; pass && i < s->n; i += 16) k[i] = (uint32_t)(unit((uint64_t)s->o[i].id, 7) * (double)(1u << VX_PART_KEY_BITS));
    CHECK(vx_device_upload(dk, k, sizeof(uint32_t) * (size_t)s->n, err, sizeof err) == 0, "%s", err);
    for (int l = 2; l <= 8; l++) {
      long long got = -1;
      CHECK(vx_dist_occupied(d, NULL, dk, s->n, l, &got, err, sizeof err) == 0, "%s", err);
      const long long want = occupied_ref(c, k, s->n, l);
      CHECK(got == want, "%s, level %d: %lld cells counted on the device, %lld occupied", pass ? "overlapping" : "the partition",
            l, got, want);
    }
  }
  if (c->rank == 0) printf("device keys: the occupied cells of levels 2..8 counted exactly, spans apart and overlapping\n");
  vx_device_free(dk);
  free(k);
  vx_dist_destroy(d);
  fmm_destroy(ctx);
  return 0;
}

static int run(const vx_comm *c) {
  char err[256] = "";
  CHECK(vx_cuda_use_device(mpi_test_node_rank(c), err, sizeof err) >= 0, "%s", err);
  owned_set s;
  CHECK(records_owned(c, &s, err, sizeof err) == 0, "partition: %s", err);
  static const case_t cases[] = {
      {"double, Gaussian, level 5, dense to 3", 0, VX_KERNEL_GAUSS, 5, 3},
      {"double, singular, level 5", 0, VX_KERNEL_SINGULAR, 5, 0},
      {"float, Gaussian, level 4", 1, VX_KERNEL_GAUSS, 4, 0},
      {"float, singular, level 5, dense to 2", 1, VX_KERNEL_SINGULAR, 5, 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (check_case(c, &s, &cases[i])) return 1;
  if (check_occupied(c, &s)) return 1;
  owned_free(&s);
  return 0;
}

int main(int argc, char **argv) {
  char name[256];
  if (!vx_cuda_available(name, sizeof name)) {
    printf("SKIP: no usable CUDA device (%s)\n", name);
    return 77;
  }
  return mpi_test_main(argc, argv, "mpi_test_engine_gpu", run,
                       "distributed FMM on the GPU: device arrays give one evaluation's results to round-off");
}
#endif
