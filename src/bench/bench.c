/* bench.c — vortexfmm-bench: headless benchmark of the fmm engine (fmm/fmm.h).
 * Generates a point set (src/common/pointsets.h) whose points are both the sources and the targets,
 * evaluates the velocity (and gradient) by the FMM once to warm up and then --repeat times,
 * and reports the median of each phase time; optionally the error against direct summation at
 * sampled targets (--check), the direct-summation time (--vs-direct), an order sweep and the cost
 * of the live accuracy readout (--readout, vortex/accuracy.h).
 * Run: build/vortexfmm-bench --help */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench.h"
#include "clock.h"

/* Progress lines on stderr from this many points on. */
#define PROGRESS_MIN_N (1 << 17)
/* A cuda run checks against the cuda direct sum (in double) once the reference costs more than
 * this many pair interactions: the CPU would take minutes. Below it the CPU reference is an
 * independent implementation, which is the better check. */
#define REF_GPU_MIN_PAIRS 1e10
/* Stream key of the --check target sampling, apart from the point-set streams of the same seed. */
#define SAMPLE_STREAM 0xa4093822299f31d0ull
/* Stream key of --moved's displacement directions. */
#define MOVED_STREAM 0x5be0cd19137e2179ull

static double now_ms(void) { return vx_clock_ms(); }

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Engine time of a call when it reports one, else the wall clock around it. */
static double call_ms(const fmm_stats *st, double wall) { return st->t_total > 0.0 ? st->t_total : wall; }

/* Everything one benchmark run holds: the options, the points (double, and float copies), the
 * outputs, the reference sample, the engines, the per-repeat statistics. */
typedef struct {
  bench_opts o;
  fmm_params prm;
  int is_float, progress;
  size_t n, es;                 /* points, bytes of one real */
  char err[512], device[256];
  double *pos, *str, *tpos, *ref_vel, *ref_grad;
  void *fpos, *fstr, *vel, *grad;
  const void *rpos, *rstr;      /* the run's arrays: pos/str or their float copies */
  int *idx;                     /* the reference sample's point indices (NULL: every point) */
  fmm_ctx *ctx, *ref_own;       /* ref_own: a reference engine of its own, when ctx cannot serve */
  FILE *dump;
  fmm_stats *st;
  double *tv;
  run_info ri;
  fmm_io io;
} bench_run;

static void bench_free(bench_run *B) {
  if (B->dump) fclose(B->dump);
  fmm_destroy(B->ref_own);
  fmm_destroy(B->ctx);
  free(B->pos), free(B->str), free(B->fpos), free(B->fstr), free(B->vel), free(B->grad);
  free(B->idx), free(B->tpos), free(B->ref_vel), free(B->ref_grad), free(B->st), free(B->tv);
}

/* The point set, generated in double; the run's arrays are float copies with --precision float. */
static int bench_points(bench_run *B) {
  const bench_opts *o = &B->o;
  const size_t n = B->n;
  if (B->progress) fprintf(stderr, "generating %d %s points...\n", o->n, vx_dist_name(o->dist));
  if (!(B->pos = xcalloc(3 * n, sizeof(double), "positions")) || !(B->str = xcalloc(3 * n, sizeof(double), "strengths")))
    return -1;
  vx_pointset(o->dist, o->n, o->seed, B->pos, B->str);
  B->rpos = B->pos, B->rstr = B->str;
  if (B->is_float) {
    if (!(B->fpos = xcalloc(3 * n, sizeof(float), "positions")) || !(B->fstr = xcalloc(3 * n, sizeof(float), "strengths")))
      return -1;
    for (size_t i = 0; i < 3 * n; i++) ((float *)B->fpos)[i] = (float)B->pos[i], ((float *)B->fstr)[i] = (float)B->str[i];
    B->rpos = B->fpos, B->rstr = B->fstr;
  }
  if (!(B->vel = xcalloc(3 * n, B->es, "velocities")) || (o->gradient && !(B->grad = xcalloc(9 * n, B->es, "gradients"))))
    return -1;
  return 0;
}

/* The engine's parameters from the options. */
static fmm_params bench_params(const bench_opts *o) {
  fmm_params prm = fmm_params_default();
  prm.backend = o->backend;
  prm.precision = o->precision;
  prm.order = o->orders[0];
  prm.leaf_size = o->leaf;
  prm.min_leaves = o->min_leaves;
  prm.levels = o->levels;
  prm.kernel = o->kernel;
  prm.sigma = o->sigma;
  prm.reg_tol = o->reg_tol;
  prm.reg_correct = o->reg_correct;
  prm.gradient = o->gradient;
  prm.level_rule = o->level_rule;
  if (o->keep_move >= 0.0) prm.keep_move = o->keep_move > 0.0 ? o->keep_move : -1.0; /* 0: never */
  prm.verbose = !o->quiet;
  return prm;
}

/* The engine, the backend AUTO resolved to and the device's name, and the run's description. */
static int bench_engine(bench_run *B) {
  if (!(B->ctx = fmm_create(&B->prm, B->err, sizeof B->err))) {
    fprintf(stderr, PROG ": %s\n", B->err);
    return -1;
  }
  vx_backend be = fmm_get_params(B->ctx)->backend;
  if (be == VX_BACKEND_AUTO) be = vx_cuda_available(NULL, 0) ? VX_BACKEND_CUDA : VX_BACKEND_CPU;
  if (be == VX_BACKEND_CUDA) {
    if (!vx_cuda_available(B->device, sizeof B->device) || B->device[0] == '\0') snprintf(B->device, sizeof B->device, "cuda");
  } else {
#ifdef _OPENMP
    snprintf(B->device, sizeof B->device, "cpu (%d threads, %s)", omp_get_max_threads(), fmm_simd_name(fmm_cpu_simd()));
#else
    snprintf(B->device, sizeof B->device, "cpu (1 thread)");
#endif
  }
  run_info ri = {&B->o, vx_backend_name(be), B->device, B->prm.sigma, 0, "", -1.0, ""};
  fmm_io io = {.n_src = B->o.n, .src_pos = B->rpos, .src_str = B->rstr, .n_tgt = B->o.n, .tgt_pos = B->rpos,
               .vel = B->vel, .grad = B->grad, .on_device = 0};
  B->ri = ri, B->io = io;
  B->o.leaf = fmm_leaf_size(fmm_get_params(B->ctx)); /* 0 resolved: the rows say what ran */
  return 0;
}

/* The reference sample: k targets drawn without replacement (partial Fisher–Yates), in memory order. */
static int bench_sample(bench_run *B, int k) {
  const int N = B->o.n;
  if (!(B->idx = xcalloc(B->n, sizeof(int), "sample indices")) || !(B->tpos = xcalloc(3 * (size_t)k, sizeof(double), "sample")))
    return -1;
  for (int i = 0; i < N; i++) B->idx[i] = i;
  uint64_t s = B->o.seed ^ SAMPLE_STREAM;
  for (int i = 0; i < k; i++) {
    int j = i + (int)(vx_rng_uniform(&s) * (double)(N - i));
    if (j >= N) j = N - 1;
    int tmp = B->idx[i];
    B->idx[i] = B->idx[j], B->idx[j] = tmp;
  }
  qsort(B->idx, (size_t)k, sizeof(int), cmp_int); /* memory order: kinder to the caches */
  for (int t = 0; t < k; t++)
    for (int c = 0; c < 3; c++) B->tpos[3 * (size_t)t + c] = B->pos[3 * (size_t)B->idx[t] + c];
  return 0;
}

/* The reference at --check targets: direct summation in double, on the GPU when the pairs are many. */
static int bench_reference(bench_run *B) {
  const bench_opts *o = &B->o;
  int k = o->check >= o->n ? o->n : (int)o->check;
  B->ri.n_check = k;
  if (k < o->n && bench_sample(B, k)) return -1;
  int ref_cuda = !strcmp(B->ri.backend, "cuda") && (double)k * (double)o->n > REF_GPU_MIN_PAIRS;
  B->ri.ref_backend = ref_cuda ? "cuda" : "cpu";
  fmm_ctx *rctx = B->ctx; /* borrowed: the main context already sums in double on the GPU */
  if (!ref_cuda || B->is_float) {
    fmm_params rp = B->prm;
    rp.backend = ref_cuda ? VX_BACKEND_CUDA : VX_BACKEND_CPU;
    rp.precision = VX_DOUBLE;
    rp.verbose = 0; /* the main context has already said whatever it had to say */
    if (!(rctx = B->ref_own = fmm_create(&rp, B->err, sizeof B->err))) {
      fprintf(stderr, PROG ": reference context: %s\n", B->err);
      return -1;
    }
  }
  if (!(B->ref_vel = xcalloc(3 * (size_t)k, sizeof(double), "reference")) ||
      (o->gradient && !(B->ref_grad = xcalloc(9 * (size_t)k, sizeof(double), "reference"))))
    return -1;
  fmm_io rio = {.n_src = o->n, .src_pos = B->pos, .src_str = B->str, .n_tgt = k, .tgt_pos = B->tpos ? B->tpos : B->pos,
                .vel = B->ref_vel, .grad = B->ref_grad, .on_device = 0};
  fmm_stats rst;
  memset(&rst, 0, sizeof rst);
  if (B->progress) fprintf(stderr, "reference: direct summation at %d targets on %s...\n", k, B->ri.ref_backend);
  double t0 = now_ms();
  if (fmm_direct(rctx, &rio, &rst, B->err, sizeof B->err) != 0) {
    fprintf(stderr, PROG ": reference direct summation: %s\n", B->err);
    return -1;
  }
  double t_ref = call_ms(&rst, now_ms() - t0);
  if (k == o->n) B->ri.t_direct = t_ref, B->ri.direct_backend = B->ri.ref_backend;
  return 0;
}

/* Direct summation of all targets on the run's backend and precision: the speed-up's baseline. */
static int bench_vs_direct(bench_run *B) {
  const bench_opts *o = &B->o;
  void *dvel = xcalloc(3 * B->n, B->es, "direct velocities"), *dgrad = o->gradient ? xcalloc(9 * B->n, B->es, "direct gradients") : NULL;
  int rc = !dvel || (o->gradient && !dgrad) ? -1 : 0;
  fmm_io dio = {.n_src = o->n, .src_pos = B->rpos, .src_str = B->rstr, .n_tgt = o->n, .tgt_pos = B->rpos, .vel = dvel,
                .grad = dgrad, .on_device = 0};
  for (int r = 0; r < o->repeat && rc == 0; r++) {
    if (B->progress) fprintf(stderr, "direct summation repeat %d/%d...\n", r + 1, o->repeat);
    memset(&B->st[r], 0, sizeof B->st[r]);
    double t0 = now_ms();
    if (fmm_direct(B->ctx, &dio, &B->st[r], B->err, sizeof B->err) != 0) {
      fprintf(stderr, PROG ": direct summation: %s\n", B->err);
      rc = -1;
    } else {
      B->tv[r] = call_ms(&B->st[r], now_ms() - t0);
    }
  }
  if (rc == 0) B->ri.t_direct = median(B->tv, o->repeat), B->ri.direct_backend = B->ri.backend;
  free(dvel), free(dgrad);
  return rc;
}

/* The warm-up and the repeats at one order. */
static int bench_repeats(bench_run *B, int oi) {
  const bench_opts *o = &B->o;
  const int order = o->orders[oi];
  if (oi > 0) {
    fmm_params p = *fmm_get_params(B->ctx);
    p.order = order;
    if (fmm_set_params(B->ctx, &p, B->err, sizeof B->err) != 0) {
      fprintf(stderr, PROG ": order %d: %s\n", order, B->err);
      return -1;
    }
  }
  if (B->progress) fprintf(stderr, "warm-up (order %d)...\n", order);
  fmm_stats warm;
  memset(&warm, 0, sizeof warm);
  for (int r = -1; r < o->repeat; r++) {
    if (r >= 0 && B->progress) fprintf(stderr, "evaluating repeat %d/%d...\n", r + 1, o->repeat);
    fmm_stats *s = r < 0 ? &warm : &B->st[r];
    memset(s, 0, sizeof *s);
    if (fmm_evaluate(B->ctx, &B->io, s, B->err, sizeof B->err) != 0) {
      fprintf(stderr, PROG ": %s\n", B->err);
      return -1;
    }
  }
  return 0;
}

/* One order: the repeats, each phase's median, the model's prediction, the errors, the readout, a row. */
static int bench_order(bench_run *B, int oi) {
  const bench_opts *o = &B->o;
  if (bench_repeats(B, oi)) return -1;
  run_result res;
  memset(&res, 0, sizeof res);
  for (int p = 0; p < N_PHASES; p++) { /* each phase's median on its own */
    for (int r = 0; r < o->repeat; r++) {
      double t[N_PHASES];
      phase_times(&B->st[r], t);
      B->tv[r] = t[p];
    }
    res.t[p] = median(B->tv, o->repeat);
  }
  const fmm_stats *last = &B->st[o->repeat - 1];
  res.levels = last->levels, res.level_capped = last->level_capped;
  res.rule = fmm_level_rule(fmm_get_params(B->ctx));
  res.n_m2l = last->n_m2l, res.n_p2p = last->n_p2p, res.n_corr = last->n_corr;
  res.r_cut = last->r_cut, res.reg_err = last->reg_err;
  for (int r = 0; r < o->repeat; ++r) res.tree_kept += B->st[r].tree_kept;
  res.tree_moved = last->tree_moved;
  for (int l = 0; l <= VX_LMAX; ++l) {
    for (int r = 0; r < o->repeat; ++r) B->tv[r] = B->st[r].t_m2l_level[l];
    res.t_m2l_level[l] = median(B->tv, o->repeat);
    res.m2l_fill[l] = last->m2l_fill[l];
  }
  if (strcmp(B->ri.backend, "cuda")) snprintf(res.m2l_kernel, sizeof res.m2l_kernel, "cpu");
  else if (last->m2l_dense_levels)
    snprintf(res.m2l_kernel, sizeof res.m2l_kernel, "spec%d+%s%d", last->m2l_kernel, last->m2l_dense_tc ? "tc" : "dense",
             last->m2l_dense_levels);
  else if (last->m2l_kernel) snprintf(res.m2l_kernel, sizeof res.m2l_kernel, "spec%d", last->m2l_kernel);
  else snprintf(res.m2l_kernel, sizeof res.m2l_kernel, "generic");
  if (strcmp(B->ri.backend, "cuda")) snprintf(res.p2p_kernel, sizeof res.p2p_kernel, "cpu");
  else if (last->p2p_kernel) snprintf(res.p2p_kernel, sizeof res.p2p_kernel, "fast%d", last->p2p_kernel);
  else snprintf(res.p2p_kernel, sizeof res.p2p_kernel, "base");
  char perr[256];
  res.pred_total = fmm_cost_predict(B->ctx, &B->io, res.levels, res.pred, perr, sizeof perr);
  res.have_pred = res.pred_total >= 0.0;
  if (!res.have_pred && !o->quiet && oi == 0) fprintf(stderr, PROG ": no prediction: %s\n", perr);
  if (B->ri.n_check > 0 &&
      compute_errors(&res, B->vel, B->grad, B->is_float, B->idx, B->ri.n_check, B->ref_vel, B->ref_grad) != 0)
    return -1;
  if (o->readout && readout_cost(o, B->ctx, &B->io, &res, B->tv) != 0) return -1;
  if (o->json) print_json(&B->ri, o->orders[oi], &res);
  else print_table_row(&B->ri, o->orders[oi], &res);
  return 0;
}

/* --dump: the last evaluation's points and outputs, as text. */
static int bench_dump(bench_run *B) {
  if (B->progress) fprintf(stderr, "writing %s...\n", B->o.dump);
  int bad = write_dump(B->dump, B->o.n, B->rpos, B->rstr, B->vel, B->grad, B->is_float);
  bad |= fclose(B->dump) != 0;
  B->dump = NULL;
  if (bad) {
    fprintf(stderr, PROG ": writing %s failed: %s\n", B->o.dump, strerror(errno));
    return -1;
  }
  return 0;
}

/* --moved: one evaluation builds and keeps the tree at the points; each then moves o->moved of that
 * tree's leaf width in a random direction (the run's arrays, float copies too), and the later calls
 * ask for the kept tree (FMM_TREE_REUSE). */
static int bench_moved(bench_run *B) {
  fmm_stats st;
  int levels, on_device;
  double lo[3], side;
  const int *bins;
  B->io.tree = FMM_TREE_BUILD_KEEP;
  if (B->progress) fprintf(stderr, "building the tree to keep...\n");
  if (fmm_evaluate(B->ctx, &B->io, &st, B->err, sizeof B->err) != 0 ||
      fmm_occupancy(B->ctx, &levels, lo, &side, &bins, &on_device) != 0) {
    fprintf(stderr, PROG ": --moved: the kept tree's evaluation: %s\n", B->err);
    return -1;
  }
  uint64_t s = B->o.seed ^ MOVED_STREAM;
  vx_points_move(B->pos, B->n, B->o.moved * ldexp(side, -levels), &s);
  if (B->is_float)
    for (size_t i = 0; i < 3 * B->n; i++) ((float *)B->fpos)[i] = (float)B->pos[i];
  B->io.tree = FMM_TREE_REUSE;
  return 0;
}

/* The whole run after the options: points, engine, reference, baseline, the orders, the dump. */
static int bench_main(bench_run *B) {
  const bench_opts *o = &B->o;
  if (o->dump && !(B->dump = fopen(o->dump, "w"))) {
    fprintf(stderr, PROG ": cannot open %s for writing: %s\n", o->dump, strerror(errno));
    return 1;
  }
  B->prm = bench_params(o);
#ifdef VX_HAVE_MPI
  if (o->mpi) return bench_dist(o, &B->prm);
#endif
  if (bench_points(B)) return 1;
  if (o->calibrate) return bench_calibrate(o, &B->prm);
  if (o->refit) return bench_refit(o, &B->prm);
  if (bench_engine(B) || (o->moved > 0.0 && bench_moved(B)) || (o->check > 0 && bench_reference(B))) return 1;
  if (!(B->st = xcalloc((size_t)o->repeat, sizeof(fmm_stats), "stats")) || !(B->tv = xcalloc((size_t)o->repeat, sizeof(double), "times")))
    return 1;
  if (o->vs_direct && bench_vs_direct(B)) return 1;
  if (!o->json) print_table_header(&B->ri);
  for (int oi = 0; oi < o->n_orders; oi++)
    if (bench_order(B, oi)) return 1;
  return B->dump && bench_dump(B) ? 1 : 0;
}

int main(int argc, char **argv) {
  fmm_params defaults = fmm_params_default();
  bench_run B;
  memset(&B, 0, sizeof B);
  bench_parse_args(argc, argv, &defaults, &B.o);
  if (B.o.cost_file) {
    char cerr[512];
    if (fmm_cost_load(B.o.cost_file, cerr, sizeof cerr) != 0) {
      fprintf(stderr, PROG ": %s\n", cerr);
      return 1;
    }
  }
  B.is_float = B.o.precision == VX_FLOAT;
  B.n = (size_t)B.o.n, B.es = B.is_float ? sizeof(float) : sizeof(double);
  B.progress = !B.o.quiet && !B.o.json && B.o.n >= PROGRESS_MIN_N;
  int rc = bench_main(&B);
  bench_free(&B);
  return rc;
}
