/* bench.c — vortexfmm-bench: headless benchmark of the fmm engine (fmm/fmm.h).
 * Generates a point set (src/pointsets.h) whose points are both the sources and the targets,
 * evaluates the velocity (and gradient) by the FMM once to warm up and then --repeat times,
 * and reports the median of each phase time; optionally the error against direct summation at
 * sampled targets (--check), the direct-summation time (--vs-direct), an order sweep and the cost
 * of the live accuracy readout (--readout, vortex/accuracy.h).
 * Run: build/vortexfmm-bench --help */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "accuracy.h"
#include "cli.h"
#include "clock.h"
#include "fmm.h"
#include "octree.h" /* VX_LMAX */
#include "pointsets.h"

#define PROG "vortexfmm-bench"
#define MAX_N (1 << 27)
#define MAX_ORDERS 64
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

typedef struct {
  vx_backend backend;
  int n;
  vx_dist dist;
  int orders[MAX_ORDERS], n_orders, order_set;
  int leaf, levels;
  int min_leaves;          /* fmm_params.min_leaves: 0 the backend's parallel width, < 0 none */
  vx_precision precision;
  vx_kernel kernel;
  double sigma, reg_tol;
  int reg_correct;         /* fmm_params.reg_correct: FMM_REG_AUTO (the default), --reg-correct, --reg-cap */
  int gradient;
  long long check;
  int repeat;
  uint64_t seed;
  int json, vs_direct, quiet;
  int readout;             /* --readout: the accuracy readout's cost after the timed repeats */
  const char *dump;
  int level_rule;          /* fmm_params.level_rule: FMM_LEVEL_RULE_AUTO, _LEAF or _COST */
  int calibrate;           /* --calibrate: fit the cost model's unit costs and print a cost file */
  const char *cost_file;   /* --cost-file: unit costs read before the run */
  const char *refit;       /* --refit: a calibration's runs fitted again */
  double moved;            /* --moved F: the repeats at the points moved F leaf widths, on the tree of where
                              they were (fmm_io.tree = FMM_TREE_REUSE); 0: no move */
  double keep_move;        /* --keep-move: fmm_params.keep_move (-1: the engine's default) */
} bench_opts;

/* ---------------------------------------------------------------- command line */

static void usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, PROG ": ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(2);
}

static void print_usage(const fmm_params *d) {
  printf("usage: " PROG " [flags]\n"
         "Times the fmm engine on N generated points that are both the sources and the targets:\n"
         "one warm-up evaluation, then --repeat timed ones; each phase time is the median.\n"
         "\n"
         "  --backend cpu|cuda|auto     engine backend (default auto: cuda when a device is usable)\n"
         "  --n N                       number of points, 1..%d (default 65536)\n"
         "  --dist uniform|sphere|rings point set (default uniform)\n"
         "  --order P                   expansion order, 0..%d (default %d)\n"
         "  --leaf Q                    mean sources per leaf the level choice aims at (default %d: %d cpu, %d cuda)\n"
         "  --levels L                  finest octree level, 2..%d; 0 = automatic (default 0)\n"
         "  --min-leaves K              the automatic level goes one deeper while fewer leaves than K (default 0:\n"
         "                              the backend's floor, the CPU's threads, none on the GPU; -1: none)\n"
         "  --level-rule auto|leaf|cost automatic level: the backend's (default: cost on cuda where a table\n"
         "                              is in force, leaf elsewhere), mean leaf occupancy --leaf, or the cost\n"
         "                              model's least predicted time (docs/MATH.md section 11)\n"
         "  --cost-file FILE            the cost model's unit costs (as --calibrate prints them) instead of\n"
         "                              the compiled-in table\n"
         "  --calibrate                 time whole evaluations of uniform and rings points at a few sizes and\n"
         "                              levels (--backend, --precision, --order, --repeat, --seed apply) and\n"
         "                              print the unit costs fitted to them as a cost file, with the direct\n"
         "                              sum's per pair (8192 uniform points, with and without gradients)\n"
         "  --refit FILE                the runs a --calibrate cost file lists (n, dist, level, gradient,\n"
         "                              measured total) fitted again, their work counted here on the same\n"
         "                              points (--precision, --order, --seed as that calibration's)\n"
         "  --precision double|float    arithmetic precision (default double)\n"
         "  --kernel singular|poly|rm|wl|gauss   smoothing kernel (default singular)\n"
         "  --sigma S                   core radius > 0, required by every kernel but singular\n"
         "  --reg-tol T                 regularization tolerance in [0, 1): the kernel's relative deviation\n"
         "                              from the singular one allowed beyond the cut-off r_cut; 0 = the\n"
         "                              kernel's default for the precision (default 0)\n"
         "  --reg-correct               the leaf-size level, the kernel corrected within r_cut (default: leaves\n"
         "                              at least min(r_cut, 2 sigma) wide, corrected within r_cut; MATH.md 10)\n"
         "  --reg-cap                   leaves at least r_cut wide, no corrections (the default until 2026-11-24)\n"
         "  --no-gradient               velocity only (no 9-component gradient)\n"
         "  --check K                   errors against direct summation (double) at K targets sampled\n"
         "                              with the seed; K >= N: all targets; 0: no check (default)\n"
         "  --repeat R                  timed evaluations after the warm-up (default 3)\n"
         "  --seed S                    seed of the point set and the sampling (default 1)\n"
         "  --vs-direct                 also time direct summation of all N targets on the same\n"
         "                              backend (--repeat times) and report the speed-up\n"
         "  --sweep-orders LIST         e.g. 4,8,12,16: one result per order in one process\n"
         "  --readout                   the live accuracy readout's cost (vortex/accuracy.h: 512 sampled targets\n"
         "                              against direct summation, off the main stream): --repeat captures of the\n"
         "                              last evaluation, and evaluations timed with the readout in flight\n"
         "  --json                      one JSON object per result line instead of the table\n"
         "  --dump FILE                 CSV of every target after the last repeat (of the last order):\n"
         "                              x,y,z,ax,ay,az,ux,uy,uz,g00..g22 (g = nan with --no-gradient)\n"
         "  --moved F                   the warm-up builds and keeps the tree (fmm_io.tree); every point then\n"
         "                              moves F of its leaf width in a random direction, and the repeats and\n"
         "                              --check run there with FMM_TREE_REUSE: the kept tree's cost and error\n"
         "  --keep-move K               fmm_params.keep_move, the farthest move (leaf widths) a kept tree serves\n"
         "                              (default: the backend's, fmm_keep_move; 0: never, so --moved's repeats\n"
         "                              build their own tree)\n"
         "  --quiet                     no progress lines or engine notices on stderr\n"
         "  --help                      this text\n"
         "\n"
         "Flags take their value as the next argument or after '=' (--n=1000).\n"
         "Exit status: 0 success, 1 run failure, 2 bad command line.\n",
         MAX_N, VX_PMAX, d->order, d->leaf_size, VX_LEAF_CPU, VX_LEAF_GPU, VX_LMAX);
}

/* 0 when s is a whole decimal integer in lo..hi. */

static long long parse_int(const char *flag, const char *s, long long lo, long long hi) {
  long long v = 0;
  if (vx_cli_int(s, lo, hi, &v) != 0) usage_error("%s: expected an integer in %lld..%lld, got '%s'", flag, lo, hi, s);
  return v;
}

static const char *take_value(const char *flag, const char *inline_val, int argc, char **argv, int *i) {
  if (inline_val) return inline_val;
  if (*i + 1 >= argc) usage_error("%s needs a value (see --help)", flag);
  return argv[++*i];
}

static void parse_orders(const char *s, bench_opts *o) {
  const char *p = s;
  o->n_orders = 0;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char item[32];
    if (len == 0 || len >= sizeof item)
      usage_error("--sweep-orders: expected a comma-separated list of orders 0..%d, got '%s'", VX_PMAX, s);
    memcpy(item, p, len);
    item[len] = '\0';
    if (o->n_orders == MAX_ORDERS) usage_error("--sweep-orders: at most %d orders", MAX_ORDERS);
    o->orders[o->n_orders++] = (int)parse_int("--sweep-orders", item, 0, VX_PMAX);
    if (!comma) break;
    p = comma + 1;
  }
}


/* A flag without a value (--json, --quiet, ...): 1 when flag is one (set), else 0. */
static int parse_switch(const char *flag, const char *val, bench_opts *o) {
  if (!strcmp(flag, "--reg-correct") || !strcmp(flag, "--reg-cap")) {
    if (val) usage_error("%s takes no value", flag);
    o->reg_correct = !strcmp(flag, "--reg-cap") ? FMM_REG_CAP : FMM_REG_CORRECT;
    return 1;
  }
  int *dst = !strcmp(flag, "--calibrate")     ? &o->calibrate
             : !strcmp(flag, "--json")        ? &o->json
             : !strcmp(flag, "--vs-direct")   ? &o->vs_direct
             : !strcmp(flag, "--readout")     ? &o->readout
             : !strcmp(flag, "--quiet")       ? &o->quiet
                                              : NULL;
  if (!dst && strcmp(flag, "--no-gradient")) return 0;
  if (val) usage_error("%s takes no value", flag);
  if (dst) *dst = 1;
  else o->gradient = 0;
  return 1;
}

static void bench_defaults(const fmm_params *d, bench_opts *o) {
  memset(o, 0, sizeof *o);
  o->backend = VX_BACKEND_AUTO;
  o->n = 65536;
  o->dist = VX_DIST_UNIFORM;
  o->orders[0] = d->order;
  o->leaf = d->leaf_size;
  o->levels = 0;
  o->precision = VX_DOUBLE;
  o->kernel = VX_KERNEL_SINGULAR;
  o->gradient = 1;
  o->reg_correct = d->reg_correct;
  o->repeat = 3;
  o->seed = 1;
  o->keep_move = -1.0;
}

static void parse_args(int argc, char **argv, const fmm_params *d, bench_opts *o) {
  bench_defaults(d, o);
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      print_usage(d);
      exit(0);
    }

  int sweep = 0, sigma_set = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strncmp(a, "--", 2) != 0) usage_error("unexpected argument '%s' (see --help)", a);
    char flag[32];
    const char *eq = strchr(a, '='), *val = eq ? eq + 1 : NULL;
    size_t len = eq ? (size_t)(eq - a) : strlen(a);
    if (len >= sizeof flag) usage_error("unknown flag '%s' (see --help)", a);
    memcpy(flag, a, len);
    flag[len] = '\0';
    if (parse_switch(flag, val, o)) continue;
    if (!strcmp(flag, "--backend")) {
      const char *v = take_value(flag, val, argc, argv, &i);
      if (vx_backend_from_name(v, &o->backend) != 0) usage_error("--backend: expected cpu, cuda or auto, got '%s'", v);
    } else if (!strcmp(flag, "--n")) {
      o->n = (int)parse_int(flag, take_value(flag, val, argc, argv, &i), 1, MAX_N);
    } else if (!strcmp(flag, "--dist")) {
      const char *v = take_value(flag, val, argc, argv, &i);
      if (vx_dist_from_name(v, &o->dist) != 0) usage_error("--dist: expected uniform, sphere or rings, got '%s'", v);
    } else if (!strcmp(flag, "--order")) {
      o->orders[0] = (int)parse_int(flag, take_value(flag, val, argc, argv, &i), 0, VX_PMAX);
      o->order_set = 1;
    } else if (!strcmp(flag, "--leaf")) {
      o->leaf = (int)parse_int(flag, take_value(flag, val, argc, argv, &i), 1, 1 << 20);
    } else if (!strcmp(flag, "--min-leaves")) {
      o->min_leaves = (int)parse_int(flag, take_value(flag, val, argc, argv, &i), -1, 1 << 20);
    } else if (!strcmp(flag, "--levels")) {
      const char *v = take_value(flag, val, argc, argv, &i);
      long long l = 0;
      if (vx_cli_int(v, 0, VX_LMAX, &l) != 0 || l == 1)
        usage_error("--levels: expected 0 (automatic) or an integer in 2..%d, got '%s'", VX_LMAX, v);
      o->levels = (int)l;
    } else if (!strcmp(flag, "--precision")) {
      const char *v = take_value(flag, val, argc, argv, &i);
      if (!strcmp(v, "double")) o->precision = VX_DOUBLE;
      else if (!strcmp(v, "float")) o->precision = VX_FLOAT;
      else usage_error("--precision: expected double or float, got '%s'", v);
    } else if (!strcmp(flag, "--kernel")) {
      const char *v = take_value(flag, val, argc, argv, &i);
      if (vx_kernel_from_name(v, &o->kernel) != 0)
        usage_error("--kernel: expected singular, poly, rm, wl or gauss, got '%s'", v);
    } else if (!strcmp(flag, "--sigma")) {
      const char *v = take_value(flag, val, argc, argv, &i);
      if (vx_cli_real(v, &o->sigma) || o->sigma < 0.0)
        usage_error("--sigma: expected a finite number >= 0, got '%s'", v);
      sigma_set = 1;
    } else if (!strcmp(flag, "--moved") || !strcmp(flag, "--keep-move")) {
      const char *v = take_value(flag, val, argc, argv, &i);
      double *dst = !strcmp(flag, "--moved") ? &o->moved : &o->keep_move;
      if (vx_cli_real(v, dst) || *dst < 0.0 || *dst > 100.0)
        usage_error("%s: expected a number of leaf widths in [0, 100], got '%s'", flag, v);
    } else if (!strcmp(flag, "--reg-tol")) {
      const char *v = take_value(flag, val, argc, argv, &i);
      if (vx_cli_real(v, &o->reg_tol) || !(o->reg_tol >= 0.0 && o->reg_tol < 1.0))
        usage_error("--reg-tol: expected a number in [0, 1), got '%s'", v);
    } else if (!strcmp(flag, "--check")) {
      o->check = parse_int(flag, take_value(flag, val, argc, argv, &i), 0, MAX_N);
    } else if (!strcmp(flag, "--repeat")) {
      o->repeat = (int)parse_int(flag, take_value(flag, val, argc, argv, &i), 1, 10000);
    } else if (!strcmp(flag, "--seed")) {
      const char *v = take_value(flag, val, argc, argv, &i);
      char *end;
      errno = 0;
      unsigned long long s = strtoull(v, &end, 10);
      if (*v < '0' || *v > '9' || *end != '\0' || errno == ERANGE)
        usage_error("--seed: expected an integer in 0..18446744073709551615, got '%s'", v);
      o->seed = (uint64_t)s;
    } else if (!strcmp(flag, "--level-rule")) {
      const char *v = take_value(flag, val, argc, argv, &i);
      if (!strcmp(v, "auto")) o->level_rule = FMM_LEVEL_RULE_AUTO;
      else if (!strcmp(v, "leaf")) o->level_rule = FMM_LEVEL_RULE_LEAF;
      else if (!strcmp(v, "cost")) o->level_rule = FMM_LEVEL_RULE_COST;
      else usage_error("--level-rule: expected auto, leaf or cost, got '%s'", v);
    } else if (!strcmp(flag, "--refit")) {
      o->refit = take_value(flag, val, argc, argv, &i);
      if (o->refit[0] == '\0') usage_error("--refit: expected a file name");
    } else if (!strcmp(flag, "--cost-file")) {
      o->cost_file = take_value(flag, val, argc, argv, &i);
      if (o->cost_file[0] == '\0') usage_error("--cost-file: expected a file name");
    } else if (!strcmp(flag, "--dump")) {
      o->dump = take_value(flag, val, argc, argv, &i);
      if (o->dump[0] == '\0') usage_error("--dump: expected a file name");
    } else if (!strcmp(flag, "--sweep-orders")) {
      parse_orders(take_value(flag, val, argc, argv, &i), o);
      sweep = 1;
    } else {
      usage_error("unknown flag '%s' (see --help)", a);
    }
  }

  if (sweep && o->order_set) usage_error("--order and --sweep-orders cannot be combined");
  if (!sweep) o->n_orders = 1;
  if (o->kernel != VX_KERNEL_SINGULAR && !(o->sigma > 0.0))
    usage_error("--kernel %s needs --sigma S > 0%s", vx_kernel_name(o->kernel), sigma_set ? "" : " (not given)");
}

/* ---------------------------------------------------------------- helpers */

static double now_ms(void) { return vx_clock_ms(); }

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Median of v[0..k); reorders v. */
static double median(double *v, int k) {
  qsort(v, (size_t)k, sizeof *v, cmp_double);
  return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/* Element i of an array in the run's precision. */
static double elem(const void *a, size_t i, int is_float) {
  return is_float ? (double)((const float *)a)[i] : ((const double *)a)[i];
}

static void *xcalloc(size_t count, size_t size, const char *what) {
  void *p = calloc(count ? count : 1, size);
  if (!p) fprintf(stderr, PROG ": out of memory allocating %s (%zu bytes)\n", what, count * size);
  return p;
}

/* Engine time of a call when it reports one, else the wall clock around it. */
static double call_ms(const fmm_stats *st, double wall) { return st->t_total > 0.0 ? st->t_total : wall; }

/* Minimal JSON object writer: one object per line. */
typedef struct {
  int first;
} json_line;

static void json_key(json_line *j, const char *k) {
  printf("%s\"%s\":", j->first ? "{" : ",", k);
  j->first = 0;
}
static void json_num(json_line *j, const char *k, double v) {
  json_key(j, k);
  if (isfinite(v)) printf("%.6g", v);
  else printf("null"); /* JSON has no nan/inf */
}
static void json_int(json_line *j, const char *k, long long v) {
  json_key(j, k);
  printf("%lld", v);
}
static void json_str(json_line *j, const char *k, const char *s) {
  json_key(j, k);
  putchar('"');
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if (*c == '"' || *c == '\\') printf("\\%c", *c);
    else if (*c < 0x20) printf("\\u%04x", *c);
    else putchar(*c);
  }
  putchar('"');
}

/* ---------------------------------------------------------------- results */

typedef struct {
  double t[10]; /* tree, p2m, m2m, m2l, l2l, l2p, p2p, total, copy, corr: medians (ms) */
  int levels, level_capped;
  long long n_m2l, n_p2p, n_corr;
  double r_cut, reg_err; /* regularization cut-off and the error committed (fmm_stats) */
  char m2l_kernel[24];   /* which M2L kernel ran: "specP" (order-specialised, CUDA), "specP+denseK" or
                            "specP+tcK" (K levels by the dense kernel, SIMT or tensor cores), "generic", or "cpu" */
  char p2p_kernel[16];   /* which near-field kernel ran: "fastT" (T targets a thread, CUDA), "base", or "cpu" */
  double t_m2l_level[VX_LMAX + 1]; /* CUDA: each level's M2L ms, medians over the repeats (0 on the CPU) */
  double m2l_fill[VX_LMAX + 1];    /* CUDA: the dense M2L's slot fill at each level (fmm_stats) */
  int have_err;
  double err_vel, err_grad, err_p99, err_max;
  int have_pred;
  double pred[FMM_COST_PHASES], pred_total; /* the cost model's ms per phase at the level run */
  int rule;             /* the level rule in force (fmm_level_rule) */
  int have_ro;  /* --readout, medians (ms): capture on the host, snapshot on the main stream, direct sum off it,
                 * an evaluation's t_total with the direct sum in flight; and the readout's figure */
  double ro_capture, ro_snapshot, ro_direct, ro_eval, ro_u_l2, ro_g_l2;
  int tree_kept;       /* --moved: the repeats that kept the tree */
  double tree_moved;   /* --moved: the farthest move the engine measured, leaf widths */
} run_result;

#define N_PHASES 10
static const char *const phase_names[N_PHASES] = {"t_tree", "t_p2m", "t_m2m", "t_m2l", "t_l2l",
                                                  "t_l2p",  "t_p2p", "t_total", "t_copy", "t_corr"};

static void phase_times(const fmm_stats *s, double t[N_PHASES]) {
  t[0] = s->t_tree, t[1] = s->t_p2m, t[2] = s->t_m2m, t[3] = s->t_m2l;
  t[4] = s->t_l2l, t[5] = s->t_l2p, t[6] = s->t_p2p, t[7] = s->t_total, t[8] = s->t_copy, t[9] = s->t_corr;
}

/* Errors of the FMM result (run precision) at the sampled targets against the double reference.
 * 0, or -1 (with a message) when out of memory. */
static int compute_errors(run_result *r, const void *vel, const void *grad, int is_float, const int *idx, int k,
                          const double *ref_vel, const double *ref_grad) {
  double num = 0.0, den = 0.0, gnum = 0.0, gden = 0.0;
  double *e = xcalloc((size_t)k, sizeof(double), "per-target errors");
  if (!e) return -1;
  for (int t = 0; t < k; t++) {
    size_t it = idx ? (size_t)idx[t] : (size_t)t;
    double d2 = 0.0, r2 = 0.0;
    for (int c = 0; c < 3; c++) {
      double u = elem(vel, 3 * it + c, is_float), ur = ref_vel[3 * (size_t)t + c];
      d2 += (u - ur) * (u - ur);
      r2 += ur * ur;
    }
    num += d2, den += r2;
    e[t] = sqrt(d2);
    if (grad && ref_grad)
      for (int c = 0; c < 9; c++) {
        double g = elem(grad, 9 * it + c, is_float), gr = ref_grad[9 * (size_t)t + c];
        gnum += (g - gr) * (g - gr);
        gden += gr * gr;
      }
  }
  r->have_err = 1;
  r->err_vel = den > 0.0 ? sqrt(num / den) : (num == 0.0 ? 0.0 : INFINITY);
  r->err_grad = (grad && ref_grad) ? (gden > 0.0 ? sqrt(gnum / gden) : (gnum == 0.0 ? 0.0 : INFINITY)) : NAN;
  /* Per-target error relative to the rms reference speed; 99th percentile by nearest rank. */
  double rms = sqrt(den / k);
  for (int t = 0; t < k; t++) e[t] = rms > 0.0 ? e[t] / rms : (e[t] == 0.0 ? 0.0 : INFINITY);
  qsort(e, (size_t)k, sizeof *e, cmp_double);
  int rank = (int)ceil(0.99 * k) - 1;
  r->err_p99 = e[rank < 0 ? 0 : rank];
  r->err_max = e[k - 1];
  free(e);
  return 0;
}

/* Facts shared by every result line. */
typedef struct {
  const bench_opts *o;
  const char *backend, *device;
  double sigma;
  int n_check;
  const char *ref_backend;
  double t_direct; /* < 0: not measured */
  const char *direct_backend;
} run_info;

static void print_json(const run_info *ri, int order, const run_result *r) {
  const bench_opts *o = ri->o;
  json_line j = {1};
  json_int(&j, "n", o->n);
  json_str(&j, "dist", vx_dist_name(o->dist));
  json_str(&j, "backend", ri->backend);
  json_str(&j, "device", ri->device);
  json_int(&j, "order", order);
  json_int(&j, "leaf", o->leaf);
  json_int(&j, "min_leaves", o->min_leaves);
  json_int(&j, "levels", r->levels);
  json_str(&j, "level_rule", o->levels ? "forced" : r->rule == FMM_LEVEL_RULE_COST ? "cost" : "leaf");
  json_str(&j, "reg", o->reg_correct == FMM_REG_CAP ? "cap" : o->reg_correct == FMM_REG_CORRECT ? "correct" : "auto");
  json_str(&j, "precision", o->precision == VX_FLOAT ? "float" : "double");
  json_str(&j, "kernel", vx_kernel_name(o->kernel));
  json_num(&j, "sigma", ri->sigma);
  json_key(&j, "gradient");
  printf(o->gradient ? "true" : "false");
  for (int p = 0; p < N_PHASES; p++) json_num(&j, phase_names[p], r->t[p]);
  if (o->moved > 0.0) {
    json_num(&j, "moved", o->moved);
    json_num(&j, "keep_move", o->keep_move);
    json_int(&j, "tree_kept", r->tree_kept);
    json_num(&j, "tree_moved", r->tree_moved);
  }
  json_num(&j, "r_cut", r->r_cut);
  json_num(&j, "reg_err", r->reg_err);
  if (ri->t_direct >= 0.0) {
    json_num(&j, "t_direct", ri->t_direct);
    json_str(&j, "direct_backend", ri->direct_backend);
  }
  if (o->vs_direct) json_num(&j, "speedup_vs_direct", ri->t_direct / r->t[7]);
  if (r->have_err) {
    json_num(&j, "err_vel", r->err_vel);
    json_num(&j, "err_grad", r->err_grad); /* null with --no-gradient */
    json_num(&j, "err_vel_p99", r->err_p99);
    json_num(&j, "err_vel_max", r->err_max);
    json_int(&j, "n_check", ri->n_check);
    json_str(&j, "ref_backend", ri->ref_backend);
  }
  if (r->have_pred) { /* the cost model's prediction at the level run (docs/MATH.md section 11) */
    static const char *const pk[FMM_COST_PHASES] = {"pred_tree", "pred_p2m", "pred_m2m", "pred_m2l",
                                                    "pred_l2l",  "pred_l2p", "pred_p2p", "pred_other"};
    for (int p = 0; p < FMM_COST_PHASES; p++) json_num(&j, pk[p], r->pred[p]);
    json_num(&j, "pred_total", r->pred_total);
  }
  if (r->have_ro) {
    json_num(&j, "readout_capture_ms", r->ro_capture);
    json_num(&j, "readout_snapshot_ms", r->ro_snapshot);
    json_num(&j, "readout_direct_ms", r->ro_direct);
    json_num(&j, "t_total_with_readout", r->ro_eval);
    json_num(&j, "readout_err_u_l2", r->ro_u_l2);
    json_num(&j, "readout_err_gu_l2", r->ro_g_l2);
  }
  json_str(&j, "m2l_kernel", r->m2l_kernel);
  if (!strcmp(ri->backend, "cuda")) {
    json_key(&j, "t_m2l_levels");
    for (int l = 2; l <= r->levels; ++l) printf("%s%.4g", l == 2 ? "[" : ",", r->t_m2l_level[l]);
    printf("]");
    json_key(&j, "m2l_fill");
    for (int l = 2; l <= r->levels; ++l) printf("%s%.3g", l == 2 ? "[" : ",", r->m2l_fill[l]);
    printf("]");
  }
  json_str(&j, "p2p_kernel", r->p2p_kernel);
  json_int(&j, "n_m2l", r->n_m2l);
  json_int(&j, "n_p2p", r->n_p2p);
  json_int(&j, "n_corr", r->n_corr);
  json_int(&j, "repeat", o->repeat);
  json_key(&j, "seed");
  printf("%llu}\n", (unsigned long long)o->seed);
  fflush(stdout);
}

static void print_table_header(const run_info *ri) {
  const bench_opts *o = ri->o;
  printf("# " PROG ": n=%d dist=%s backend=%s device=\"%s\" precision=%s kernel=%s sigma=%g leaf=%d "
         "gradient=%s repeat=%d seed=%llu\n",
         o->n, vx_dist_name(o->dist), ri->backend, ri->device, o->precision == VX_FLOAT ? "float" : "double",
         vx_kernel_name(o->kernel), ri->sigma, o->leaf, o->gradient ? "on" : "off", o->repeat,
         (unsigned long long)o->seed);
  if (ri->n_check > 0)
    printf("# check: %d targets against direct summation in double on %s; errors relative to the rms "
           "reference speed\n",
           ri->n_check, ri->ref_backend);
  if (ri->t_direct >= 0.0) printf("# direct summation of all targets on %s: %.3f ms\n", ri->direct_backend, ri->t_direct);
  vx_backend be = VX_BACKEND_CPU;
  fmm_cost_units cu;
  vx_backend_from_name(ri->backend, &be);
  fmm_params rp = fmm_params_default(); /* the rule in force, as the engine resolves it */
  rp.backend = be, rp.precision = o->precision, rp.level_rule = o->level_rule;
  const int table = fmm_cost_get(be, o->precision, &cu) == 0, by_cost = table && fmm_level_rule(&rp) == FMM_LEVEL_RULE_COST;
  if (o->level_rule == FMM_LEVEL_RULE_COST && o->levels == 0 && !table)
    printf("# times in ms (medians); --level-rule cost asked, but %s %s has no cost table: the leaf-size rule chose\n",
           ri->backend, o->precision == VX_FLOAT ? "float" : "double");
  else
    printf("# times in ms (medians)%s\n", o->levels ? "" : by_cost ? "; level chosen by the cost model" : "; level by the leaf-size rule");
  printf("# 'model' rows: the cost model's predicted ms per phase at the level run (other = gather/scatter,\n"
         "# in total only)\n");
  if (o->kernel != VX_KERNEL_SINGULAR)
    printf("# p2p includes corr: the regularization corrections of pairs closer than r_cut that are not adjacent;\n"
           "# reg_err: the kernel's largest relative deviation from the singular one left to the far field\n");
  printf("%5s %3s %9s %9s %9s %9s %9s %9s %9s %9s %10s %12s %12s %9s %9s", "order", "lev", "tree", "p2m", "m2m", "m2l", "l2l",
         "l2p", "p2p", "corr", "total", "n_m2l", "n_p2p", "r_cut", "reg_err");
  if (ri->n_check > 0) printf(" %9s %9s %9s %9s", "err_vel", "err_grad", "err_p99", "err_max");
  if (o->vs_direct) printf(" %8s", "speedup");
  printf("\n");
}

static void print_table_row(const run_info *ri, int order, const run_result *r) {
  printf("%5d %3d", order, r->levels);
  for (int p = 0; p < 7; p++) printf(" %9.3f", r->t[p]);
  printf(" %9.3f %10.3f %12lld %12lld %9.3g %9.2e", r->t[9], r->t[7], r->n_m2l, r->n_p2p, r->r_cut, r->reg_err);
  if (r->have_err) printf(" %9.2e %9.2e %9.2e %9.2e", r->err_vel, r->err_grad, r->err_p99, r->err_max);
  if (ri->o->vs_direct) printf(" %8.2f", ri->t_direct / r->t[7]);
  printf("  m2l=%s p2p=%s%s\n", r->m2l_kernel, r->p2p_kernel, r->level_capped ? "  (level capped)" : "");
  if (r->have_pred) { /* the cost model's prediction beside it: its error per phase is visible */
    printf("%5s %3d", "model", r->levels);
    for (int p = 0; p < 7; p++) printf(" %9.3f", r->pred[p]);
    printf(" %9s %10.3f  (other: %.3f)\n", "-", r->pred_total, r->pred[7]);
  }
  if (r->have_ro)
    printf("# readout (%d samples): capture %.3f ms on the host, snapshot %.4f ms on the main stream, direct sum %.3f ms "
           "off it; total %.3f ms with the readout in flight (%.3f without); its figure: u L2 %.2e, grad u L2 %.2e\n",
           VX_ACC_SAMPLE, r->ro_capture, r->ro_snapshot, r->ro_direct, r->ro_eval, r->t[7], r->ro_u_l2, r->ro_g_l2);
  fflush(stdout);
}

static int write_dump(FILE *f, int n, const void *pos, const void *str, const void *vel, const void *grad, int is_float) {
  fprintf(f, "x,y,z,ax,ay,az,ux,uy,uz,g00,g01,g02,g10,g11,g12,g20,g21,g22\n");
  for (size_t i = 0; i < (size_t)n; i++) {
    for (int c = 0; c < 3; c++) fprintf(f, "%.17g,", elem(pos, 3 * i + c, is_float));
    for (int c = 0; c < 3; c++) fprintf(f, "%.17g,", elem(str, 3 * i + c, is_float));
    for (int c = 0; c < 3; c++) fprintf(f, "%.17g,", elem(vel, 3 * i + c, is_float));
    for (int c = 0; c < 9; c++) {
      const char *sep = c < 8 ? "," : "\n";
      int w = grad ? fprintf(f, "%.17g%s", elem(grad, 9 * i + c, is_float), sep) : fprintf(f, "nan%s", sep);
      if (w < 0) return -1;
    }
  }
  return ferror(f) ? -1 : 0;
}

/* ---------------------------------------------------------------- accuracy readout */

/* --readout: the live accuracy readout (vortex/accuracy.h) on io's last evaluation, as the
 * simulation would run it (every point an element: sources = targets): on cuda the arrays go to
 * the device first (untimed), as the simulation keeps them. --repeat captures each waited for, then
 * --repeat evaluations each timed with a capture's direct sum in flight. Medians into r. 0, or 1. */
static int readout_cost(const bench_opts *o, fmm_ctx *ctx, const fmm_io *io, run_result *r, double *tv) {
  const int n = io->n_src, cuda = fmm_get_params(ctx)->backend == VX_BACKEND_CUDA, R = o->repeat;
  const size_t es = o->precision == VX_FLOAT ? sizeof(float) : sizeof(double);
  const void *host[4] = {io->src_pos, io->src_str, io->vel, io->grad};
  const size_t len[4] = {3 * es * (size_t)n, 3 * es * (size_t)n, 3 * es * (size_t)n, 9 * es * (size_t)n};
  void *dev[4] = {NULL, NULL, NULL, NULL};
  char err[512];
  int rc = 1;
  double *m = xcalloc(4 * (size_t)R, sizeof(double), "readout timings");
  vx_accuracy *a = vx_acc_create(VX_ACC_SAMPLE, o->seed, err, sizeof err);
  if (!m || !a) goto out;
  vx_sim_eval e = {n, n, cuda, o->precision, o->kernel, fmm_get_params(ctx)->sigma, host[0], host[1], host[2], host[3], 0, 0.0};
  for (int k = 0; cuda && k < 4; k++)
    if (host[k] && (vx_device_alloc(&dev[k], len[k], err, sizeof err) || vx_device_upload(dev[k], host[k], len[k], err, sizeof err)))
      goto out;
  if (cuda) e.pos = dev[0], e.alpha = dev[1], e.vel = dev[2], e.grad = dev[3];
  vx_acc_result res;
  for (int i = 0; i < R; i++) {
    if (vx_acc_capture(a, &e, err, sizeof err) != 0 || vx_acc_poll(a, 1, &res, err, sizeof err) != 1) goto out;
    m[i] = res.ms_capture, m[R + i] = res.ms_capture_gpu, m[2 * R + i] = res.ms_direct;
  }
  r->ro_u_l2 = res.u_l2, r->ro_g_l2 = res.g_l2;
  for (int i = 0; i < R; i++) {
    fmm_stats st;
    if (vx_acc_capture(a, &e, err, sizeof err) != 0 || fmm_evaluate(ctx, io, &st, err, sizeof err) != 0 ||
        vx_acc_poll(a, 1, &res, err, sizeof err) != 1)
      goto out;
    m[3 * R + i] = st.t_total;
  }
  double *col[4] = {&r->ro_capture, &r->ro_snapshot, &r->ro_direct, &r->ro_eval};
  for (int c = 0; c < 4; c++) {
    memcpy(tv, m + (size_t)c * R, sizeof(double) * (size_t)R);
    *col[c] = median(tv, R);
  }
  r->have_ro = 1;
  rc = 0;
out:
  if (rc) fprintf(stderr, PROG ": readout: %s\n", m && a ? err : "out of memory");
  vx_acc_destroy(a);
  for (int k = 0; k < 4; k++) vx_device_free(dev[k]);
  free(m);
  return rc;
}

/* ---------------------------------------------------------------- calibration */

/* Non-negative least squares (Lawson and Hanson's active set): x >= 0 minimising |A x - b|, A n×k
 * row-major (k <= CAL_MAX_UNITS). The sub-problems by the normal equations, columns scaled to unit
 * norm; a column of zeros gets 0. */
#define CAL_MAX_UNITS 16
static int cal_solve(int n, int k, const double *A, const double *b, const int *P, int m, double *z) {
  double M[CAL_MAX_UNITS][CAL_MAX_UNITS + 1];
  for (int a = 0; a < m; a++) {
    for (int c = 0; c < m; c++) {
      double s = 0;
      for (int i = 0; i < n; i++) s += A[i * k + P[a]] * A[i * k + P[c]];
      M[a][c] = s;
    }
    double r = 0;
    for (int i = 0; i < n; i++) r += A[i * k + P[a]] * b[i];
    M[a][m] = r;
  }
  for (int a = 0; a < m; a++) { /* Gauss–Jordan, partial pivoting */
    int piv = a;
    for (int r = a + 1; r < m; r++)
      if (fabs(M[r][a]) > fabs(M[piv][a])) piv = r;
    for (int q = 0; q <= m; q++) {
      const double t = M[a][q];
      M[a][q] = M[piv][q], M[piv][q] = t;
    }
    if (M[a][a] == 0) return -1;
    for (int r = 0; r < m; r++) {
      if (r == a) continue;
      const double f = M[r][a] / M[a][a];
      for (int q = a; q <= m; q++) M[r][q] -= f * M[a][q];
    }
  }
  for (int a = 0; a < m; a++) z[a] = M[a][m] / M[a][a];
  return 0;
}

static void cal_nnls(int n, int k, double *A, const double *b, double *x) {
  double scale[CAL_MAX_UNITS], w[CAL_MAX_UNITS], z[CAL_MAX_UNITS];
  int inP[CAL_MAX_UNITS] = {0}, P[CAL_MAX_UNITS], m = 0;
  for (int j = 0; j < k; j++) {
    double s = 0;
    for (int i = 0; i < n; i++) s += A[i * k + j] * A[i * k + j];
    scale[j] = s > 0 ? 1.0 / sqrt(s) : 0;
    for (int i = 0; i < n; i++) A[i * k + j] *= scale[j];
    x[j] = 0;
  }
  for (int outer = 0; outer < 4 * k; outer++) {
    int jmax = -1;
    for (int j = 0; j < k; j++) { /* the gradient A^T (b - A x) outside the passive set */
      double g = 0;
      for (int i = 0; i < n; i++) {
        double r = b[i];
        for (int q = 0; q < k; q++) r -= A[i * k + q] * x[q];
        g += A[i * k + j] * r;
      }
      w[j] = g;
      if (!inP[j] && scale[j] > 0 && g > 1e-12 && (jmax < 0 || g > w[jmax])) jmax = j;
    }
    if (jmax < 0) break;
    inP[jmax] = 1, P[m++] = jmax;
    for (int inner = 0; inner < 4 * k; inner++) {
      if (cal_solve(n, k, A, b, P, m, z)) { inP[P[--m]] = 0; break; } /* singular: drop the newcomer */
      double alpha = 2;
      for (int a = 0; a < m; a++)
        if (z[a] <= 0) alpha = fmin(alpha, x[P[a]] / (x[P[a]] - z[a]));
      if (alpha >= 1) {
        for (int a = 0; a < m; a++) x[P[a]] = z[a];
        break;
      }
      int m2 = 0;
      for (int a = 0; a < m; a++) {
        x[P[a]] += alpha * (z[a] - x[P[a]]);
        if (x[P[a]] > 1e-15) P[m2++] = P[a];
        else x[P[a]] = 0, inP[P[a]] = 0;
      }
      m = m2;
    }
  }
  for (int j = 0; j < k; j++) x[j] *= scale[j];
}

#define CAL_MAX_RUNS 160
#define CAL_MAX_ROWS (3 * CAL_MAX_RUNS) /* the totals and the differences within groups of at most three */

/* --calibrate's runs: per run the work counts, the measured phase medians and total (ms), the
 * level and the point set. */
typedef struct {
  fmm_cost_units work[CAL_MAX_RUNS];
  double meas[CAL_MAX_RUNS][FMM_COST_PHASES], total[CAL_MAX_RUNS];
  int lev[CAL_MAX_RUNS], n;
  vx_dist dist[CAL_MAX_RUNS];
  vx_backend backend;           /* the backend the runs resolved to */
} cal_runs;

/* One calibration point set of n points: double, and the run's arrays (float copies or the same). */
typedef struct {
  double *pos, *str;
  void *rpos, *rstr, *vel, *grad;
  int is_float;
} cal_points;

static void cal_points_free(cal_points *c) {
  if (c->is_float) free(c->rpos), free(c->rstr);
  free(c->pos), free(c->str), free(c->vel), free(c->grad);
  int f = c->is_float;
  memset(c, 0, sizeof *c);
  c->is_float = f;
}

static int cal_points_make(const bench_opts *o, vx_dist d, int n, cal_points *c) {
  cal_points_free(c);
  const size_t m = 3 * (size_t)n, es = c->is_float ? sizeof(float) : sizeof(double);
  if (!(c->pos = xcalloc(m, sizeof(double), "positions")) || !(c->str = xcalloc(m, sizeof(double), "strengths"))) return -1;
  vx_pointset(d, n, o->seed, c->pos, c->str);
  c->rpos = c->pos, c->rstr = c->str;
  if (c->is_float) {
    c->rpos = c->rstr = NULL;
    if (!(c->rpos = xcalloc(m, sizeof(float), "positions")) || !(c->rstr = xcalloc(m, sizeof(float), "strengths"))) return -1;
    for (size_t i = 0; i < m; i++) ((float *)c->rpos)[i] = (float)c->pos[i], ((float *)c->rstr)[i] = (float)c->str[i];
  }
  if (!(c->vel = xcalloc(m, es, "velocities")) || !(c->grad = xcalloc(3 * m, es, "gradients"))) return -1;
  return 0;
}

/* One calibration run: n points at level L (0: the leaf-size rule's, into *L), gradient g; with R,
 * its phase and total medians and work counts into R. */
static int cal_run(const bench_opts *o, const fmm_params *base, const cal_points *c, int n, int *L, int g, fmm_stats *st,
                   double *tv, cal_runs *R) {
  char err[512];
  fmm_params p = *base;
  p.levels = *L, p.level_rule = FMM_LEVEL_RULE_LEAF, p.gradient = g, p.verbose = 0; /* base->backend: resolved by calibrate */
  fmm_ctx *ctx = fmm_create(&p, err, sizeof err);
  int rc = ctx ? 0 : -1;
  fmm_io io = {.n_src = n, .src_pos = c->rpos, .src_str = c->rstr, .n_tgt = n, .tgt_pos = c->rpos, .vel = c->vel,
               .grad = g ? c->grad : NULL, .on_device = 0};
  if (ctx && !o->quiet && R) fprintf(stderr, "calibrate: n=%d level %d gradient %s...\n", n, *L, g ? "on" : "off");
  const int reps = R ? o->repeat : 1;
  for (int r = -1; r < reps && rc == 0; r++) {
    fmm_stats w;
    rc = fmm_evaluate(ctx, &io, r < 0 ? &w : &st[r], err, sizeof err);
  }
  if (rc == 0 && !R) *L = st[0].levels;
  if (rc == 0 && R) {
    double *m = R->meas[R->n];
    for (int k = 0; k < N_PHASES; k++) {
      for (int r = 0; r < reps; r++) {
        double t[N_PHASES];
        phase_times(&st[r], t);
        tv[r] = t[k];
      }
      const double med = median(tv, reps);
      if (k < 7) m[k] = med;
      if (k == 7) R->total[R->n] = med;
    }
    m[7] = R->total[R->n] - (m[0] + m[1] + m[2] + m[3] + m[4] + m[5] + m[6]);
    if (m[7] < 0) m[7] = 0; /* the GPU's near field runs beside its far field */
    rc = fmm_cost_work(ctx, &io, *L, &R->work[R->n], err, sizeof err);
  }
  if (rc) fprintf(stderr, PROG ": %s\n", err);
  else if (R) R->lev[R->n++] = *L, R->backend = fmm_get_params(ctx)->backend;
  fmm_destroy(ctx);
  return rc ? -1 : 0;
}

/* The runs [i, end) of one point set and gradient setting (calibrate times them one after another):
 * the index past them. */
static int cal_group_end(const cal_runs *R, int i) {
  int j = i;
  while (j < R->n && R->dist[j] == R->dist[i] && R->work[j].p2m == R->work[i].p2m &&
         (R->work[j].l2p_grad > 0) == (R->work[i].l2p_grad > 0))
    j++;
  return j;
}

/* The relative residuals of the units u over the runs into res; their rms over the runs in use. */
static double cal_residuals(const cal_runs *R, const fmm_cost_units *u, const int *use, double *res) {
  double e2 = 0;
  int n = 0;
  for (int i = 0; i < R->n; i++) {
    double t[FMM_COST_PHASES];
    res[i] = fmm_cost_phases(u, &R->work[i], u->order, t) / R->total[i] - 1;
    if (use[i]) e2 += res[i] * res[i], n++;
  }
  return sqrt(e2 / (n > 0 ? n : 1));
}

/* One row of the fit: the units' work of run i (minus run j's when j >= 0) over d, and its time. */
static void cal_row(const cal_runs *R, const int *cols, int k, int i, int j, double d, double *a, double *b) {
  fmm_cost_units wi = R->work[i], wj;
  if (j >= 0) wj = R->work[j];
  for (int c = 0; c < k; c++) a[c] = (*fmm_cost_unit(&wi, cols[c]) - (j >= 0 ? *fmm_cost_unit(&wj, cols[c]) : 0)) / (1e6 * d);
  *b = (R->total[i] - (j >= 0 ? R->total[j] : 0)) / d;
}

/* One non-negative least-squares fit over the runs in use: each run's total (relative residuals: each
 * run weighs alike, small and large), and each difference between two levels of one point set and
 * gradient setting, relative to the larger total (the choice goes by those differences; without
 * them the units of nearly equal fits choose differently where levels cost nearly alike). Every unit
 * but `other`, whose work (sources + targets) is tree_pt's. */
static fmm_cost_units cal_nnls_fit(const cal_runs *R, int order, const int *use) {
  fmm_cost_units u;
  memset(&u, 0, sizeof u);
  u.order = order;
  int cols[CAL_MAX_UNITS], k = 0, n = 0;
  for (int j = 0; fmm_cost_unit(&u, j); j++) /* the direct sum's units: timed on their own (cal_direct) */
    if (fmm_cost_unit(&u, j) != &u.other && fmm_cost_unit(&u, j) != &u.direct_grad && fmm_cost_unit(&u, j) != &u.direct_vel)
      cols[k++] = j;
  static double A[CAL_MAX_ROWS * CAL_MAX_UNITS], b[CAL_MAX_ROWS];
  double x[CAL_MAX_UNITS];
  for (int i = 0; i < R->n; i++) {
    if (!use[i]) continue;
    cal_row(R, cols, k, i, -1, R->total[i], &A[n * k], &b[n]), n++;
    for (int j = i + 1; j < cal_group_end(R, i); j++)
      if (use[j] && n < CAL_MAX_ROWS) cal_row(R, cols, k, i, j, fmax(R->total[i], R->total[j]), &A[n * k], &b[n]), n++;
  }
  cal_nnls(n, k, A, b, x);
  for (int c = 0; c < k; c++) *fmm_cost_unit(&u, cols[c]) = x[c];
  return u;
}

/* The unit costs in ns per unit of work, fitted to whole evaluations (the GPU runs its near field
 * beside the far field, so its phases do not add up to the evaluation, docs/MATH.md §11); once again
 * without the runs more than three times the rms off (a disturbed measurement), at most a tenth. */
static fmm_cost_units cal_fit(const cal_runs *R, int order) {
  static int use[CAL_MAX_RUNS];
  static double res[CAL_MAX_RUNS];
  for (int i = 0; i < R->n; i++) use[i] = R->total[i] > 0;
  fmm_cost_units u = cal_nnls_fit(R, order, use);
  const double rms = cal_residuals(R, &u, use, res);
  int drop = 0;
  for (int i = 0; i < R->n; i++) drop += fabs(res[i]) > 3 * rms;
  if (drop == 0 || 10 * drop > R->n) return u;
  for (int i = 0; i < R->n; i++) use[i] = use[i] && !(fabs(res[i]) > 3 * rms);
  return cal_nnls_fit(R, order, use);
}

/* The units' choices on the calibration runs themselves, printed: per point set and gradient setting,
 * the measured total at the level of least predicted total against the least measured one. */
static void cal_print_choices(const cal_runs *R, const fmm_cost_units *u) {
  int sets = 0, hits = 0;
  double worst = 1;
  for (int i = 0; i < R->n; i = cal_group_end(R, i)) {
    double tb = HUGE_VAL, tp = HUGE_VAL, tm = 0;
    for (int j = i; j < cal_group_end(R, i); j++) {
      double t[FMM_COST_PHASES];
      const double p = fmm_cost_phases(u, &R->work[j], u->order, t);
      tb = fmin(tb, R->total[j]);
      if (p < tp) tp = p, tm = R->total[j];
    }
    sets++, hits += tm <= tb, worst = fmax(worst, tm / tb);
  }
  printf("# choices on these runs: the least measured level in %d of %d sets, the worst %.3f x its time\n", hits, sets,
         worst);
}

/* The device the calibration ran on, in words. */
static void cal_device(vx_backend b, char *dev, size_t len) {
  if (b == VX_BACKEND_CUDA) {
    char name[256] = "";
    vx_cuda_available(name, sizeof name);
    snprintf(dev, len, "cuda, %s, evaluations as they run (near field beside the far field)", name[0] ? name : "device");
    return;
  }
#ifdef _OPENMP
  snprintf(dev, len, "cpu, %d threads", omp_get_max_threads());
#else
  snprintf(dev, len, "cpu, 1 thread");
#endif
}

/* The cost file on stdout: a header, each run's measured and refitted total as comments, the units
 * as a cost-file line, and the same units as fmm/cost.c's table initializer (a comment, to paste). */
static void cal_print(const bench_opts *o, const fmm_params *base, const cal_runs *R, const fmm_cost_units *u) {
  char line[1024], dev[320];
  cal_device(R->backend, dev, sizeof dev);
  printf("# vortexfmm cost units (ns of wall time per unit of work; docs/MATH.md section 11)\n");
  printf("# written by " PROG " --calibrate: %s, uniform and rings, order %d, repeat %d (medians), leaf %d, seed %llu, "
         "kernel %s sigma %g (the direct sum's units are this kernel's)\n",
         dev, base->order, o->repeat, fmm_leaf_size(base), (unsigned long long)o->seed, vx_kernel_name(base->kernel),
         base->sigma);
  printf("# run: n dist level gradient | measured total ms | model total ms with these units\n");
  double e2 = 0, emax = 0;
  for (int i = 0; i < R->n; i++) {
    double pm[FMM_COST_PHASES];
    const double tp = fmm_cost_phases(u, &R->work[i], base->order, pm), e = tp / R->total[i] - 1;
    e2 += e * e, emax = fmax(emax, fabs(e));
    printf("# %8.0f %-7s %d %s | %10.3f | %10.3f\n", R->work[i].p2m, vx_dist_name(R->dist[i]), R->lev[i],
           R->work[i].l2p_grad > 0 ? "on " : "off", R->total[i], tp);
  }
  printf("# model against measured: rms %.1f %%, largest %.1f %% of the measured total (%d runs)\n",
         100 * sqrt(e2 / (R->n > 0 ? R->n : 1)), 100 * emax, R->n);
  cal_print_choices(R, u);
  printf("# fmm/cost.c cost_tab[%d][%d] (%s %s): {%d", R->backend == VX_BACKEND_CUDA, o->precision == VX_FLOAT,
         vx_backend_name(R->backend), o->precision == VX_FLOAT ? "float" : "double", u->order);
  fmm_cost_units c = *u;
  for (int j = 0; fmm_cost_unit(&c, j); j++) printf(", %.4g", *fmm_cost_unit(&c, j));
  printf("}\n");
  fmm_cost_format(line, sizeof line, R->backend, o->precision, u);
  printf("%s\n", line);
  fflush(stdout);
}

/* One size of the calibration: each point set at the leaf-size rule's level and one either side
 * (within what the model's histograms reach), with and without gradients. 0 or -1. */
static int cal_size(const bench_opts *o, const fmm_params *base, cal_points *c, int n, fmm_stats *st, double *tv,
                    cal_runs *R) {
  static const vx_dist dists[2] = {VX_DIST_UNIFORM, VX_DIST_RINGS};
  for (int d = 0; d < 2; d++) {
    if (cal_points_make(o, dists[d], n, c)) return -1;
    int Lr = 0;
    if (cal_run(o, base, c, n, &Lr, 1, st, tv, NULL)) return -1;
    for (int g = 1; g >= 0; g--)
      for (int L = Lr - 1 < 2 ? 2 : Lr - 1; L <= Lr + 1 && L <= FMM_COST_LMAX && R->n < CAL_MAX_RUNS; L++) {
        R->dist[R->n] = dists[d];
        if (cal_run(o, base, c, n, &L, g, st, tv, R)) return -1;
      }
  }
  return 0;
}

/* The direct sum's units (ns a pair): fmm_direct over CAL_DIRECT_N uniform points, with and without
 * the gradient, median of --repeat after a warm-up. 0 or -1. */
#define CAL_DIRECT_N 8192
static int cal_direct(const bench_opts *o, const fmm_params *base, cal_points *c, double *tv, fmm_cost_units *u) {
  const int n = CAL_DIRECT_N;
  if (cal_points_make(o, VX_DIST_UNIFORM, n, c)) return -1;
  for (int g = 1; g >= 0; g--) {
    char err[512];
    fmm_params p = *base;
    p.gradient = g, p.verbose = 0;
    fmm_ctx *ctx = fmm_create(&p, err, sizeof err);
    int rc = ctx ? 0 : -1;
    fmm_io io = {.n_src = n, .src_pos = c->rpos, .src_str = c->rstr, .n_tgt = n, .tgt_pos = c->rpos, .vel = c->vel,
                 .grad = g ? c->grad : NULL};
    if (ctx && !o->quiet) fprintf(stderr, "calibrate: the direct sum, n=%d gradient %s...\n", n, g ? "on" : "off");
    for (int r = -1; r < o->repeat && rc == 0; r++) {
      fmm_stats w;
      rc = fmm_direct(ctx, &io, &w, err, sizeof err);
      if (r >= 0) tv[r] = w.t_total;
    }
    fmm_destroy(ctx);
    if (rc) return fprintf(stderr, PROG ": %s\n", err), -1;
    *(g ? &u->direct_grad : &u->direct_vel) = median(tv, o->repeat) * 1e6 / ((double)n * n);
  }
  return 0;
}

/* --calibrate: whole evaluations timed (median of --repeat after a warm-up) on uniform and rings
 * point sets of a few sizes, at the levels around the leaf-size one, with and without gradients;
 * unit costs fitted to the totals against the cost model's work counts (fmm_cost_work), the direct
 * sum's timed on their own (cal_direct); printed as a
 * cost file on stdout, with each run's measured and refitted total as comments. 0 or 1. */
static int calibrate(const bench_opts *o, const fmm_params *base) {
  /* the CPU's sizes take minutes; the GPU's small ones are where latency, not work, decides */
  static const int cpu_sizes[] = {1 << 14, 1 << 16, 0},
                   gpu_sizes[] = {1 << 14, 1 << 15, 1 << 16, 1 << 17, 1 << 18, 1 << 20, 1 << 22, 0};
  const vx_backend be = o->backend != VX_BACKEND_AUTO ? o->backend : vx_cuda_available(NULL, 0) ? VX_BACKEND_CUDA : VX_BACKEND_CPU;
  const int *sizes = be == VX_BACKEND_CUDA ? gpu_sizes : cpu_sizes;
  fmm_params resolved = *base; /* the backend's leaf size sets the levels timed */
  resolved.backend = be;
  base = &resolved;
  static cal_runs R; /* large: off the stack */
  cal_points c;
  memset(&R, 0, sizeof R);
  memset(&c, 0, sizeof c);
  c.is_float = o->precision == VX_FLOAT;
  int rc = 1;
  fmm_stats *st = xcalloc((size_t)o->repeat, sizeof(fmm_stats), "stats");
  double *tv = xcalloc((size_t)o->repeat, sizeof(double), "times");
  for (size_t si = 0; st && tv && sizes[si] > 0; si++)
    if (cal_size(o, base, &c, sizes[si], st, tv, &R)) goto out;
  if (st && tv) {
    fmm_cost_units u = cal_fit(&R, base->order);
    if (cal_direct(o, base, &c, tv, &u)) goto out;
    cal_print(o, base, &R, &u);
    rc = 0;
  }
out:
  cal_points_free(&c);
  free(st), free(tv);
  return rc;
}

/* One run line of a cost file ("#    16384 uniform 2 on  |      0.557 | ..."): its point set and
 * measured total into R's next run, its work counted on the points c (made anew when the set
 * changes). 1 when the line is a run, 0 when not, -1 on an error (said). */
static int refit_line(const bench_opts *o, const fmm_params *base, const char *line, cal_points *c, cal_runs *R) {
  int n, L;
  char d[16], g[8];
  double t;
  vx_dist dist;
  if (sscanf(line, "# %d %15s %d %7s | %lf", &n, d, &L, g, &t) != 5 || vx_dist_from_name(d, &dist) != 0) return 0;
  if (R->n == CAL_MAX_RUNS) return fprintf(stderr, PROG ": --refit: more than %d runs\n", CAL_MAX_RUNS), -1;
  const int fresh = R->n == 0 || R->dist[R->n - 1] != dist || (int)R->work[R->n - 1].p2m != n;
  if (fresh && cal_points_make(o, dist, n, c)) return -1;
  char err[512];
  fmm_params p = *base;
  p.backend = VX_BACKEND_CPU, p.levels = L, p.gradient = !strcmp(g, "on"), p.verbose = 0; /* counts only */
  fmm_ctx *ctx = fmm_create(&p, err, sizeof err);
  fmm_io io = {.n_src = n, .src_pos = c->rpos, .src_str = c->rstr, .n_tgt = n, .tgt_pos = c->rpos, .vel = c->vel,
               .grad = p.gradient ? c->grad : NULL};
  const int rc = !ctx || fmm_cost_work(ctx, &io, L, &R->work[R->n], err, sizeof err);
  fmm_destroy(ctx);
  if (rc) return fprintf(stderr, PROG ": --refit: %s\n", err), -1;
  R->total[R->n] = t, R->lev[R->n] = L, R->dist[R->n] = dist, R->n++;
  return 1;
}

/* --refit FILE: the runs of a --calibrate cost file fitted again by this program's fit (the backend from
 * its header), printed as --calibrate prints them, with the direct sum's units of the table in force
 * (the compiled-in one, or --cost-file's). 0 or 1. */
static int refit(const bench_opts *o, const fmm_params *base) {
  FILE *f = fopen(o->refit, "r");
  if (!f) return fprintf(stderr, PROG ": --refit: cannot open %s: %s\n", o->refit, strerror(errno)), 1;
  static cal_runs R;
  cal_points c;
  memset(&R, 0, sizeof R);
  memset(&c, 0, sizeof c);
  c.is_float = o->precision == VX_FLOAT;
  R.backend = VX_BACKEND_CPU;
  char line[1024];
  int rc = 0;
  while (rc >= 0 && fgets(line, sizeof line, f)) {
    if (strstr(line, "--calibrate: cuda")) R.backend = VX_BACKEND_CUDA;
    rc = refit_line(o, base, line, &c, &R);
  }
  fclose(f);
  cal_points_free(&c);
  if (rc < 0) return 1;
  if (R.n == 0) return fprintf(stderr, PROG ": --refit: no calibration runs in %s\n", o->refit), 1;
  fmm_cost_units u = cal_fit(&R, base->order), in_force;
  if (fmm_cost_get(R.backend, o->precision, &in_force) == 0) /* the runs do not time the direct sum */
    u.direct_grad = in_force.direct_grad, u.direct_vel = in_force.direct_vel;
  cal_print(o, base, &R, &u);
  return 0;
}

/* ---------------------------------------------------------------- main */

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
  if (bench_points(B)) return 1;
  B->prm = bench_params(o);
  if (o->calibrate) return calibrate(o, &B->prm);
  if (o->refit) return refit(o, &B->prm);
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
  parse_args(argc, argv, &defaults, &B.o);
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
