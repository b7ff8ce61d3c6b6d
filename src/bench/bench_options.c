/* bench_options.c — vortexfmm-bench's command line (bench.h): --help, each flag's value checked
 * against its range, and the options that cannot be combined. A bad command line exits with
 * status 2 and a one-line message. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"

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
         "  --reg-cap                   leaves at least r_cut wide, no corrections\n"
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
         "  --mpi                       under mpirun: the distributed engine (dist/engine.h) over the ranks, one\n"
         "                              GPU of its node a rank with cuda; --n points in all, made by the ranks\n"
         "                              (each the point set of --seed plus its rank) and moved to the owners of\n"
         "                              their keys; the slowest rank's times; --check K > 0: rank 0 evaluates\n"
         "                              every point once itself, the rms deviation of the distributed velocities\n"
         "  --per-rank                  with --mpi: --n points a rank (weak scaling)\n"
         "  --quiet                     no progress lines or engine notices on stderr\n"
         "  --help                      this text\n"
         "\n"
         "Flags take their value as the next argument or after '=' (--n=1000).\n"
         "Exit status: 0 success, 1 run failure, 2 bad command line.\n",
         MAX_N, VX_PMAX, d->order, d->leaf_size, VX_LEAF_CPU, VX_LEAF_GPU, VX_LMAX);
}

/* s as a whole decimal integer in lo..hi; anything else is a usage error naming flag. */
static long long parse_int(const char *flag, const char *s, long long lo, long long hi) {
  long long v = 0;
  if (vx_cli_int(s, lo, hi, &v) != 0) usage_error("%s: expected an integer in %lld..%lld, got '%s'", flag, lo, hi, s);
  return v;
}

/* A flag's value: after its '=' (inline_val), else the next argument (*i moves past it). */
static const char *take_value(const char *flag, const char *inline_val, int argc, char **argv, int *i) {
  if (inline_val) return inline_val;
  if (*i + 1 >= argc) usage_error("%s needs a value (see --help)", flag);
  return argv[++*i];
}

/* --sweep-orders' comma-separated orders into o->orders. */
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
             : !strcmp(flag, "--mpi")         ? &o->mpi
             : !strcmp(flag, "--per-rank")    ? &o->per_rank
                                              : NULL;
  if (!dst && strcmp(flag, "--no-gradient")) return 0;
  if (val) usage_error("%s takes no value", flag);
  if (dst) *dst = 1;
  else o->gradient = 0;
  return 1;
}

/* The options before the command line: the engine's defaults d where it has them. */
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


/* Whether flag is one that takes a value (parse_number's and parse_choice's). */
static int takes_value(const char *flag) {
  static const char *const valued[] = {"--backend",  "--n",         "--dist",      "--order",     "--leaf",
                                       "--min-leaves", "--levels",  "--precision", "--kernel",    "--sigma",
                                       "--moved",    "--keep-move", "--reg-tol",   "--check",     "--repeat",
                                       "--seed",     "--level-rule", "--refit",    "--cost-file", "--dump",
                                       "--sweep-orders"};
  for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
    if (!strcmp(flag, valued[k])) return 1;
  return 0;
}

/* A flag with a number for its value: v into o (*sigma_set: --sigma was given). 1 when flag is
 * one, else 0. */
static int parse_number(const char *flag, const char *v, bench_opts *o, int *sigma_set) {
  if (!strcmp(flag, "--n")) {
    o->n = (int)parse_int(flag, v, 1, MAX_N);
  } else if (!strcmp(flag, "--order")) {
    o->orders[0] = (int)parse_int(flag, v, 0, VX_PMAX);
    o->order_set = 1;
  } else if (!strcmp(flag, "--leaf")) {
    o->leaf = (int)parse_int(flag, v, 1, 1 << 20);
  } else if (!strcmp(flag, "--min-leaves")) {
    o->min_leaves = (int)parse_int(flag, v, -1, 1 << 20);
  } else if (!strcmp(flag, "--levels")) {
    long long l = 0;
    if (vx_cli_int(v, 0, VX_LMAX, &l) != 0 || l == 1)
      usage_error("--levels: expected 0 (automatic) or an integer in 2..%d, got '%s'", VX_LMAX, v);
    o->levels = (int)l;
  } else if (!strcmp(flag, "--sigma")) {
    if (vx_cli_real(v, &o->sigma) || o->sigma < 0.0)
      usage_error("--sigma: expected a finite number >= 0, got '%s'", v);
    *sigma_set = 1;
  } else if (!strcmp(flag, "--moved") || !strcmp(flag, "--keep-move")) {
    double *dst = !strcmp(flag, "--moved") ? &o->moved : &o->keep_move;
    if (vx_cli_real(v, dst) || *dst < 0.0 || *dst > 100.0)
      usage_error("%s: expected a number of leaf widths in [0, 100], got '%s'", flag, v);
  } else if (!strcmp(flag, "--reg-tol")) {
    if (vx_cli_real(v, &o->reg_tol) || !(o->reg_tol >= 0.0 && o->reg_tol < 1.0))
      usage_error("--reg-tol: expected a number in [0, 1), got '%s'", v);
  } else if (!strcmp(flag, "--check")) {
    o->check = parse_int(flag, v, 0, MAX_N);
  } else if (!strcmp(flag, "--repeat")) {
    o->repeat = (int)parse_int(flag, v, 1, 10000);
  } else if (!strcmp(flag, "--seed")) {
    char *end;
    errno = 0;
    unsigned long long s = strtoull(v, &end, 10);
    if (*v < '0' || *v > '9' || *end != '\0' || errno == ERANGE)
      usage_error("--seed: expected an integer in 0..18446744073709551615, got '%s'", v);
    o->seed = (uint64_t)s;
  } else {
    return 0;
  }
  return 1;
}

/* A flag with a name, a file or a list for its value: v into o (*sweep: --sweep-orders was given).
 * 1 when flag is one, else 0. */
static int parse_choice(const char *flag, const char *v, bench_opts *o, int *sweep) {
  if (!strcmp(flag, "--backend")) {
    if (vx_backend_from_name(v, &o->backend) != 0) usage_error("--backend: expected cpu, cuda or auto, got '%s'", v);
  } else if (!strcmp(flag, "--dist")) {
    if (vx_dist_from_name(v, &o->dist) != 0) usage_error("--dist: expected uniform, sphere or rings, got '%s'", v);
  } else if (!strcmp(flag, "--precision")) {
    if (!strcmp(v, "double")) o->precision = VX_DOUBLE;
    else if (!strcmp(v, "float")) o->precision = VX_FLOAT;
    else usage_error("--precision: expected double or float, got '%s'", v);
  } else if (!strcmp(flag, "--kernel")) {
    if (vx_kernel_from_name(v, &o->kernel) != 0)
      usage_error("--kernel: expected singular, poly, rm, wl or gauss, got '%s'", v);
  } else if (!strcmp(flag, "--level-rule")) {
    if (!strcmp(v, "auto")) o->level_rule = FMM_LEVEL_RULE_AUTO;
    else if (!strcmp(v, "leaf")) o->level_rule = FMM_LEVEL_RULE_LEAF;
    else if (!strcmp(v, "cost")) o->level_rule = FMM_LEVEL_RULE_COST;
    else usage_error("--level-rule: expected auto, leaf or cost, got '%s'", v);
  } else if (!strcmp(flag, "--refit") || !strcmp(flag, "--cost-file") || !strcmp(flag, "--dump")) {
    const char **dst = !strcmp(flag, "--refit") ? &o->refit : !strcmp(flag, "--cost-file") ? &o->cost_file : &o->dump;
    *dst = v;
    if (v[0] == '\0') usage_error("%s: expected a file name", flag);
  } else if (!strcmp(flag, "--sweep-orders")) {
    parse_orders(v, o);
    *sweep = 1;
  } else {
    return 0;
  }
  return 1;
}

void bench_parse_args(int argc, char **argv, const fmm_params *d, bench_opts *o) {
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
    if (!takes_value(flag)) usage_error("unknown flag '%s' (see --help)", a);
    const char *v = take_value(flag, val, argc, argv, &i);
    if (!parse_number(flag, v, o, &sigma_set) && !parse_choice(flag, v, o, &sweep))
      usage_error("unknown flag '%s' (see --help)", a);
  }

  if (sweep && o->order_set) usage_error("--order and --sweep-orders cannot be combined");
  if (!sweep) o->n_orders = 1;
  if (o->kernel != VX_KERNEL_SINGULAR && !(o->sigma > 0.0))
    usage_error("--kernel %s needs --sigma S > 0%s", vx_kernel_name(o->kernel), sigma_set ? "" : " (not given)");
  if (o->per_rank && !o->mpi) usage_error("--per-rank needs --mpi");
#ifndef VX_HAVE_MPI
  if (o->mpi) usage_error("--mpi: this build has no MPI (configure with an MPI installed: scripts/setup)");
#endif
  if (o->mpi && (sweep || o->calibrate || o->refit || o->dump || o->moved > 0.0 || o->readout || o->vs_direct ||
                 o->json || o->cost_file))
    usage_error("--mpi times the distributed engine alone: --sweep-orders, --calibrate, --refit, --dump, --moved, "
                "--readout, --vs-direct, --json and --cost-file do not apply");
  if (o->mpi && o->check > 0 && !o->per_rank && o->n > MAX_N / 2)
    usage_error("--mpi --check: at most %d points (rank 0 evaluates them all)", MAX_N / 2);
}
