/* bench.h — the private header of vortexfmm-bench (src/bench/): the options, one result line's
 * figures, the facts every line shares, and the calls between the program's files:
 *   bench.c            main, and the run: point sets, engine calls, timings, the --check reference
 *   bench_options.c    the command line and --help
 *   bench_check.c      errors against direct summation (--check), the accuracy readout's cost
 *   bench_report.c     the result lines (table or JSON) and --dump's CSV
 *   bench_calibrate.c  --calibrate and --refit: the cost model's unit costs fitted to timed runs
 *   bench_dist.c       --mpi: the distributed engine under mpirun (built with MPI)
 *   bench_util.c       medians, allocation, the phase times of an fmm_stats */
#ifndef VX_BENCH_H
#define VX_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fmm.h"
#include "octree.h" /* VX_LMAX */
#include "pointsets.h"

#define PROG "vortexfmm-bench"
#define MAX_N (1 << 27)
#define MAX_ORDERS 64

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
  int mpi, per_rank;       /* --mpi: the distributed engine under mpirun (bench_dist.c); --per-rank: --n a rank */
} bench_opts;

/* The options from the command line (d: the engine's defaults, which --help prints); a bad command
 * line exits with status 2, --help with 0. */
void bench_parse_args(int argc, char **argv, const fmm_params *d, bench_opts *o);

/* ---- one result line ---- */

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
extern const char *const phase_names[N_PHASES]; /* "t_tree", ... in run_result.t's order */

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

/* ---- bench_util.c ---- */

int cmp_double(const void *a, const void *b);
/* Median of v[0..k); reorders v. */
double median(double *v, int k);
/* Element i of an array in the run's precision. */
double elem(const void *a, size_t i, int is_float);
/* calloc that says what it could not allocate on stderr (NULL then). */
void *xcalloc(size_t count, size_t size, const char *what);
/* The phase times of s in run_result.t's order. */
void phase_times(const fmm_stats *s, double t[N_PHASES]);

/* ---- bench_check.c ---- */

/* Errors of the FMM result (run precision) at the sampled targets idx (NULL: 0..k-1) against the
 * double reference. 0, or -1 (with a message) when out of memory. */
int compute_errors(run_result *r, const void *vel, const void *grad, int is_float, const int *idx, int k,
                   const double *ref_vel, const double *ref_grad);
/* --readout: the live accuracy readout's cost on io's last evaluation (medians into r; tv holds
 * --repeat doubles). 0, or 1 (said on stderr). */
int readout_cost(const bench_opts *o, fmm_ctx *ctx, const fmm_io *io, run_result *r, double *tv);

/* ---- bench_report.c ---- */

void print_json(const run_info *ri, int order, const run_result *r);
void print_table_header(const run_info *ri);
void print_table_row(const run_info *ri, int order, const run_result *r);
/* --dump's CSV of every point: position, strength, velocity, gradient. 0, or -1 on a write error. */
int write_dump(FILE *f, int n, const void *pos, const void *str, const void *vel, const void *grad, int is_float);

/* ---- bench_dist.c (a build with MPI) ---- */

/* --mpi: the distributed engine under mpirun (MPI_Init to MPI_Finalize). 0 or 1. */
int bench_dist(const bench_opts *o, const fmm_params *prm);

/* ---- bench_calibrate.c ---- */

/* --calibrate: the cost model's unit costs fitted to timed evaluations, printed as a cost file. 0 or 1. */
int bench_calibrate(const bench_opts *o, const fmm_params *base);
/* --refit FILE: the runs of a --calibrate cost file fitted again, printed as --calibrate prints them. 0 or 1. */
int bench_refit(const bench_opts *o, const fmm_params *base);

#endif
