/* bench_dist.c — vortexfmm-bench --mpi (bench.h): the distributed FMM (dist/engine.h) timed under mpirun.
 * Each rank makes its share of the points (the point set of --seed plus its rank, --n over the ranks or
 * --n each with --per-rank), one rank a GPU of its node with the CUDA backend, which holds the points on
 * the device as a simulation does (the engine's device path); the points move to the owners of their keys; then one warm-up and --repeat timed evaluations, each timed by its slowest rank
 * after a barrier. With --check K > 0, rank 0 gathers every point and its velocity and evaluates the whole
 * set once itself: the rms deviation of the distributed velocities from that evaluation's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "engine.h"

/* The phases a line reports (ms, the slowest rank's): the whole call, then vx_dist_stats' four and the halo's four. */
enum { DP_TOTAL, DP_LEVEL, DP_HALO, DP_COARSE, DP_LOCAL, DP_HLIST, DP_HPACK, DP_HSEND, DP_HPLACE, DP_COUNT };

typedef struct {
  vx_comm c;
  int node_rank;     /* the rank among those of its node: its GPU */
  int n;             /* this rank's points after the migration */
  double *rec;       /* 6 doubles a point: position, strength */
  void *pos, *str, *vel, *grad;
  void *d_pos, *d_str, *d_vel, *d_grad; /* the CUDA backend's copies on the device: the engine's device path */
  size_t rs;
  long long total;
  vx_part_cube cube;
  uint32_t *split;
  char err[512];
} dist_run;

/* A failure every rank has agreed on: rank 0 says the lowest failing rank's reason, once. */
static int fail(dist_run *D, const char *what) {
  char why[512];
  int first, count;
  if (vx_comm_first_error(&D->c, D->err, &first, &count, why, sizeof why)) {
    fprintf(stderr, PROG ": rank %d: %s: %s\n", D->c.rank, what, D->err[0] ? D->err : "MPI failed");
    return 1;
  }
  if (D->c.rank != 0) return 1;
  if (first < 0) fprintf(stderr, PROG ": %s failed\n", what);
  else if (count > 1) fprintf(stderr, PROG ": rank %d (and %d more of %d): %s: %s\n", first, count - 1, D->c.size, what, why);
  else fprintf(stderr, PROG ": rank %d of %d: %s: %s\n", first, D->c.size, what, why);
  return 1;
}

/* This rank's points made, partitioned by key and moved to their owners, in the run's precision. */
static int dist_points(const bench_opts *o, int on_gpu, dist_run *D) {
  const int R = D->c.size, r = D->c.rank;
  const int n0 = o->per_rank ? o->n : o->n / R + (r < o->n % R);
  double *pos = malloc(3 * sizeof(double) * (n0 + 1)), *str = malloc(3 * sizeof(double) * (n0 + 1));
  double *rec = malloc(6 * sizeof(double) * (n0 + 1));
  uint32_t *keys = malloc(sizeof(uint32_t) * (n0 + 1));
  D->split = malloc(sizeof(uint32_t) * (R + 1));
  void *out = NULL;
  int ok = pos && str && rec && keys && D->split, rc = -1;
  if (!ok) snprintf(D->err, sizeof D->err, "out of memory for %d points", n0);
  if (!vx_comm_agree(&D->c, ok)) goto done;
  vx_pointset(o->dist, n0, o->seed + 1000003ull * (uint64_t)r, pos, str);
  for (int i = 0; i < n0; i++) memcpy(rec + 6 * i, pos + 3 * i, 3 * sizeof(double)), memcpy(rec + 6 * i + 3, str + 3 * i, 3 * sizeof(double));
  if (vx_part_cube_all(&D->c, pos, n0, &D->cube, D->err, sizeof D->err)) goto done;
  vx_part_keys(&D->cube, pos, n0, keys);
  if (vx_part_splitters(&D->c, keys, NULL, n0, D->split, D->err, sizeof D->err) ||
      vx_part_migrate(&D->c, D->split, keys, n0, rec, 6 * sizeof(double), &out, &D->n, D->err, sizeof D->err))
    goto done;
  D->rec = out;
  const int fl = o->precision == VX_FLOAT;
  const size_t m = (size_t)D->n + 1;
  D->rs = fl ? sizeof(float) : sizeof(double);
  D->pos = malloc(3 * D->rs * m), D->str = malloc(3 * D->rs * m), D->vel = malloc(3 * D->rs * m);
  D->grad = o->gradient ? malloc(9 * D->rs * m) : NULL;
  ok = D->pos && D->str && D->vel && (!o->gradient || D->grad);
  if (!ok) snprintf(D->err, sizeof D->err, "out of memory for %d points", D->n);
  if (!vx_comm_agree(&D->c, ok)) goto done;
  for (size_t i = 0; i < (size_t)D->n; i++)
    for (int k = 0; k < 3; k++) {
      const double x = D->rec[6 * i + k], a = D->rec[6 * i + 3 + k];
      if (fl) ((float *)D->pos)[3 * i + k] = (float)x, ((float *)D->str)[3 * i + k] = (float)a;
      else ((double *)D->pos)[3 * i + k] = x, ((double *)D->str)[3 * i + k] = a;
    }
  long long mine = D->n;
  MPI_Allreduce(&mine, &D->total, 1, MPI_LONG_LONG, MPI_SUM, D->c.comm);
  if (on_gpu) { /* the points on the device, where a simulation keeps them */
    const size_t b3 = 3 * D->rs * m;
    ok = !vx_device_alloc(&D->d_pos, b3, D->err, sizeof D->err) && !vx_device_alloc(&D->d_str, b3, D->err, sizeof D->err) &&
         !vx_device_alloc(&D->d_vel, b3, D->err, sizeof D->err) &&
         (!o->gradient || !vx_device_alloc(&D->d_grad, 3 * b3, D->err, sizeof D->err)) &&
         !vx_device_upload(D->d_pos, D->pos, 3 * D->rs * D->n, D->err, sizeof D->err) &&
         !vx_device_upload(D->d_str, D->str, 3 * D->rs * D->n, D->err, sizeof D->err);
    if (!vx_comm_agree(&D->c, ok)) goto done;
  }
  rc = 0;
done:
  free(pos), free(str), free(rec), free(keys);
  return rc;
}

/* --check: rank 0 evaluates every point itself and compares the velocities the ranks computed. */
static int dist_check(const bench_opts *o, dist_run *D, fmm_ctx *ctx, double *dev) {
  const int R = D->c.size, fl = o->precision == VX_FLOAT;
  MPI_Datatype t = fl ? MPI_FLOAT : MPI_DOUBLE;
  int *cnt = malloc(sizeof(int) * R), *dsp = malloc(sizeof(int) * R), n3 = 3 * D->n, ok = cnt && dsp;
  void *ap = NULL, *as = NULL, *av = NULL, *uv = NULL, *ug = NULL;
  if (ok && D->c.rank == 0) {
    const size_t m = 3 * D->rs * (size_t)(D->total + 1);
    ap = malloc(m), as = malloc(m), av = malloc(m), uv = malloc(m), ug = o->gradient ? malloc(3 * m) : NULL;
    ok = ap && as && av && uv && (!o->gradient || ug);
  }
  if (!ok) snprintf(D->err, sizeof D->err, "out of memory for the check's %lld points", D->total);
  int rc = -1;
  if (!vx_comm_agree(&D->c, ok)) goto done;
  MPI_Gather(&n3, 1, MPI_INT, cnt, 1, MPI_INT, 0, D->c.comm);
  if (D->c.rank == 0)
    for (int r = 0, s = 0; r < R; s += cnt[r++]) dsp[r] = s;
  MPI_Gatherv(D->pos, n3, t, ap, cnt, dsp, t, 0, D->c.comm);
  MPI_Gatherv(D->str, n3, t, as, cnt, dsp, t, 0, D->c.comm);
  MPI_Gatherv(D->vel, n3, t, av, cnt, dsp, t, 0, D->c.comm);
  ok = 1;
  if (D->c.rank == 0) {
    fmm_io io = {.n_src = (int)D->total, .src_pos = ap, .src_str = as, .n_tgt = (int)D->total, .tgt_pos = ap,
                 .vel = uv, .grad = ug};
    ok = fmm_evaluate(ctx, &io, NULL, D->err, sizeof D->err) == 0;
    double num = 0, den = 0;
    for (size_t i = 0; ok && i < 3 * (size_t)D->total; i++) {
      const double a = elem(av, i, fl), b = elem(uv, i, fl);
      num += (a - b) * (a - b), den += b * b;
    }
    *dev = den > 0 ? sqrt(num / den) : sqrt(num);
  }
  rc = vx_comm_agree(&D->c, ok) ? 0 : -1;
done:
  free(cnt), free(dsp), free(ap), free(as), free(av), free(uv), free(ug);
  return rc;
}

/* One timed evaluation: the slowest rank's phase times (ms) into t. */
static int dist_once(const bench_opts *o, dist_run *D, vx_dist_engine *dd, double t[DP_COUNT], vx_dist_stats *ds) {
  const int dev = D->d_pos != NULL;
  fmm_io io = {.n_src = D->n, .src_pos = dev ? D->d_pos : D->pos, .src_str = dev ? D->d_str : D->str, .n_tgt = D->n,
               .tgt_pos = dev ? D->d_pos : D->pos, .vel = dev ? D->d_vel : D->vel,
               .grad = o->gradient ? (dev ? D->d_grad : D->grad) : NULL, .on_device = dev};
  MPI_Barrier(D->c.comm);
  const double t0 = MPI_Wtime();
  if (vx_dist_evaluate(dd, &D->cube, 0, &io, NULL, ds, D->err, sizeof D->err)) return -1;
  double mine[DP_COUNT] = {1e3 * (MPI_Wtime() - t0), ds->t_level, ds->t_halo, ds->t_coarse, ds->t_local,
                           ds->t_halo_list, ds->t_halo_pack, ds->t_halo_send, ds->t_halo_place};
  MPI_Allreduce(mine, t, DP_COUNT, MPI_DOUBLE, MPI_MAX, D->c.comm);
  return 0;
}

static int dist_run_all(const bench_opts *o, const fmm_params *prm, dist_run *D) {
  fmm_params P = *prm;
  P.level_rule = FMM_LEVEL_RULE_LEAF; /* the distributed engine's rule, for --check's whole evaluation too */
  P.verbose = 0;
  char dev[128] = "cpu";
  MPI_Comm node;
  MPI_Comm_split_type(D->c.comm, MPI_COMM_TYPE_SHARED, D->c.rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &D->node_rank);
  MPI_Comm_free(&node);
  int ok = 1;
  if (P.backend != VX_BACKEND_CPU) {
    const int k = vx_cuda_use_device(D->node_rank, D->err, sizeof D->err);
    ok = k >= 0 || P.backend == VX_BACKEND_AUTO;
    if (k >= 0) snprintf(dev, sizeof dev, "cuda:%d", k);
    else if (ok) P.backend = VX_BACKEND_CPU;
  }
  fmm_ctx *ctx = ok ? fmm_create(&P, D->err, sizeof D->err) : NULL;
  vx_dist_engine *dd = ctx ? vx_dist_create(&D->c, ctx, D->err, sizeof D->err) : NULL;
  if (!vx_comm_agree(&D->c, dd != NULL)) return vx_dist_destroy(dd), fmm_destroy(ctx), fail(D, "engine");
  if (dist_points(o, fmm_get_params(ctx)->backend == VX_BACKEND_CUDA, D)) return vx_dist_destroy(dd), fmm_destroy(ctx), fail(D, "points");
  double t[DP_COUNT], *rep = malloc(sizeof(double) * DP_COUNT * o->repeat), med[DP_COUNT], dev_chk = -1.0;
  vx_dist_stats ds;
  int rc = rep ? 0 : 1;
  if (!rc && (dist_once(o, D, dd, t, &ds) != 0)) rc = fail(D, "warm-up");
  for (int k = 0; !rc && k < o->repeat; k++) {
    if (dist_once(o, D, dd, t, &ds)) rc = fail(D, "evaluation");
    for (int q = 0; q < DP_COUNT; q++) rep[q * o->repeat + k] = t[q];
  }
  if (!rc && o->check > 0 && D->d_vel && vx_device_download(D->vel, D->d_vel, 3 * D->rs * D->n, D->err, sizeof D->err))
    rc = fail(D, "check");
  if (!rc && o->check > 0 && dist_check(o, D, ctx, &dev_chk)) rc = fail(D, "check");
  if (!rc) {
    for (int q = 0; q < DP_COUNT; q++) med[q] = median(rep + q * o->repeat, o->repeat);
    long long nh = ds.n_halo, halo = 0;
    int nmin = 0, nmax = 0;
    MPI_Reduce(&nh, &halo, 1, MPI_LONG_LONG, MPI_SUM, 0, D->c.comm);
    MPI_Reduce(&D->n, &nmin, 1, MPI_INT, MPI_MIN, 0, D->c.comm);
    MPI_Reduce(&D->n, &nmax, 1, MPI_INT, MPI_MAX, 0, D->c.comm);
    if (D->c.rank == 0) {
      printf("# vortexfmm-bench --mpi: %d ranks (%s on rank 0), %s, %s, p = %d, %s; medians of %d after a warm-up, "
             "each the slowest rank's (ms)\n",
             D->c.size, dev, vx_dist_name(o->dist), o->precision == VX_FLOAT ? "float" : "double", P.order,
             o->gradient ? "velocity + gradient" : "velocity", o->repeat);
      printf("%6s %10s %9s %9s %3s %3s %3s %10s %9s %8s %8s %8s %8s %8s %8s %8s %8s %10s\n", "ranks", "N", "n_min", "n_max",
             "L", "Lc", "Lh", "halo", "total", "level", "halo", "coarse", "local", "h.list", "h.pack", "h.send", "h.place",
             "check");
      printf("%6d %10lld %9d %9d %3d %3d %3d %10lld %9.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f ", D->c.size,
             D->total, nmin, nmax, ds.L, ds.Lc, ds.Lh, halo, med[DP_TOTAL], med[DP_LEVEL], med[DP_HALO], med[DP_COARSE],
             med[DP_LOCAL], med[DP_HLIST], med[DP_HPACK], med[DP_HSEND], med[DP_HPLACE]);
      if (dev_chk >= 0.0) printf("%10.2e\n", dev_chk);
      else printf("%10s\n", "-");
    }
  }
  free(rep);
  vx_dist_destroy(dd);
  fmm_destroy(ctx);
  return rc;
}

int bench_dist(const bench_opts *o, const fmm_params *prm) {
  if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
    fprintf(stderr, PROG ": --mpi: MPI_Init failed\n");
    return 1;
  }
  dist_run D;
  memset(&D, 0, sizeof D);
  int rc = 1;
  if (vx_comm_create(MPI_COMM_WORLD, &D.c, D.err, sizeof D.err)) fprintf(stderr, PROG ": %s\n", D.err);
  else rc = dist_run_all(o, prm, &D);
  free(D.rec), free(D.pos), free(D.str), free(D.vel), free(D.grad), free(D.split);
  vx_device_free(D.d_pos), vx_device_free(D.d_str), vx_device_free(D.d_vel), vx_device_free(D.d_grad);
  vx_comm_destroy(&D.c);
  MPI_Finalize();
  return rc;
}
