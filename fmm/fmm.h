/* fmm.h — public API of the fmm module: Biot–Savart velocity and velocity gradient of vortex
 * particles by a real-arithmetic fast multipole method (or by direct summation), on the CPU
 * (OpenMP) or the GPU (CUDA), chosen at run time.
 *
 *   u(x)     = -1/(4π) Σ_j q(|x-y_j|/σ) (x-y_j) × α_j / |x-y_j|^3          (velocity)
 *   ∇u(x)    : grad[3*i + j] = ∂u_i/∂x_j                                     (gradient)
 *
 * The far field is three Laplace FMMs (one per component of α) fused into one pass, singular at
 * whatever depth the tree takes; the near field (adjacent leaf boxes) uses the regularized kernel
 * q, and every other pair closer than the kernel's cut-off r_c gets the difference between the
 * regularized and the singular kernel added (docs/MATH.md §10). docs/MATH.md has the derivations.
 * The module knows nothing of vortex dynamics or rendering.
 *
 * What fmm/ exports on purpose besides this header — the shared pieces other modules' math and
 * CUDA code build on; every other header here is internal:
 *   hd.h          host/device and extern "C" macros (included by this header)
 *   real_t.h      the precision templating of *_t.h math headers (re-included per instantiation)
 *   cuda_check.h  the CUDA call checks (.cu files)
 *   pair.h        the regularized pair kernels: a direct sum with the engine's own kernel
 *   octree.h      Morton codes, cells and VX_LMAX of the occupancy histogram (the renderer's bins) */
#ifndef VX_FMM_H
#define VX_FMM_H

#include <stddef.h>
#include "hd.h"

VX_EXTERN_C_BEGIN

typedef enum { VX_BACKEND_CPU = 0, VX_BACKEND_CUDA = 1, VX_BACKEND_AUTO = 2 } vx_backend;
typedef enum { VX_DOUBLE = 0, VX_FLOAT = 1 } vx_precision;
/* Smoothing kernels (docs/MATH.md §6). q(ρ) multiplies the singular Biot–Savart kernel. */
typedef enum {
  VX_KERNEL_SINGULAR = 0, /* q = 1 (pairs at r = 0 contribute nothing) */
  VX_KERNEL_POLY = 1,     /* the design paper's eq. 29 with c = 1: q = ρ² for ρ < 1, else 1 */
  VX_KERNEL_RM = 2,       /* Rosenhead–Moore, low-order algebraic: q = ρ³/(ρ²+1)^{3/2} */
  VX_KERNEL_WL = 3,       /* Winckelmans–Leonard, high-order algebraic: q = ρ³(ρ²+5/2)/(ρ²+1)^{5/2} */
  VX_KERNEL_GAUSS = 4     /* Gaussian: q = erf(ρ/√2) - √(2/π) ρ e^{-ρ²/2} */
} vx_kernel;

/* The leaf sizes the automatic level aims at by default. A translation costs about as much as a
 * thousand pairs on either backend, so fuller leaves than the classic 64: on the GPU, with 256, the
 * level is within 8 % of the fastest forced level at every N = 2^14..2^24, uniform and rings
 * (H100, float, p = 8), where 64 is up to 4.3x slower. On the CPU, whose pair loops vectorize, 256
 * is within 2 % of the fastest at 2^16..2^20 and 1.2-1.4x at 2^12-2^14 rings, where 64 is up to
 * 3.5x slower (docs/BENCHMARKS.md); for the Gaussian in double, whose pair costs 2-4
 * times float's with glibc's vector erf (pair.h) and 5-10 times without, the leaves hold 64: with
 * the vector erf, 2.5x faster than 256 at 4096 ring points and 3.5x at 65 536 uniform ones
 * (docs/BENCHMARKS.md). */
#define VX_LEAF_CPU 256
#define VX_LEAF_CPU_GAUSS_D 64
#define VX_LEAF_GPU 256

/* fmm_params.reg_correct */
enum { FMM_REG_CAP = 0, FMM_REG_CORRECT = 1, FMM_REG_AUTO = 2 };
/* FMM_REG_AUTO's narrowest leaf, in core radii. The corrections make the kernel exact at any depth,
 * but below the core the singular far field they cancel costs accuracy (docs/MATH.md §10), and
 * deeper levels stop paying: the default `leapfrog` (Gaussian σ = 0.03, r_c = 6σ) steps in 10.2 ms
 * at level 4 (leaves ≈ 2σ) against 15.0 capped at level 2 and 25.8 at level 5 (H100, float; on the
 * CPU 1.6x on 2 cores, 4.9x on 16), its diagnostics within float-vs-double's of the capped run over
 * t <= 1 (docs/BENCHMARKS.md). */
#define VX_REG_LEAF_SIGMA 2.0

typedef struct {
  vx_backend backend;
  vx_precision precision;
  int order;              /* p: highest degree kept in the expansions, 0..VX_PMAX */
  int leaf_size;          /* mean sources per non-empty leaf the level choice aims at; 0 (the default):
                             the backend's, VX_LEAF_GPU, VX_LEAF_CPU or VX_LEAF_CPU_GAUSS_D (fmm_leaf_size) */
  int levels;             /* 0: choose from leaf_size; otherwise the finest level, 2..VX_LMAX */
  int min_leaves;         /* the automatic level goes one level deeper while the leaves are fewer than
                             this (octree.h, oct_level_accept): 0 (the default) the backend's floor (the
                             CPU's threads; none on the GPU), < 0 no floor */
  vx_kernel kernel;
  double sigma;           /* core radius; ignored by VX_KERNEL_SINGULAR */
  int gradient;           /* non-zero: also compute the 9-component velocity gradient */
  double reg_tol;         /* largest tolerated relative deviation of the regularized kernel (velocity,
                             and gradient when computed) from the singular one beyond the cut-off r_c,
                             where the engine stops correcting the singular far field; 0 (default):
                             vx_kernel_default_tol(precision, order, passive), passive targets
                             (fmm_io.n_grad) at their own; a value set here applies to all
                             (docs/MATH.md §10) */
  int reg_correct;        /* how the automatic level meets a regularized kernel (docs/MATH.md §10):
                             FMM_REG_AUTO (the default): leaves at least min(r_c, VX_REG_LEAF_SIGMA·σ) wide,
                             corrected within r_c; FMM_REG_CAP: leaves at least r_c wide (no correction
                             but below a forced `levels`); FMM_REG_CORRECT: the leaf-size level, corrected
                             within r_c. Rosenhead–Moore keeps the cap always. */
  size_t hist_budget;     /* bytes allowed for the occupancy histograms (default 256 MiB) */
  int level_rule;         /* automatic finest level (levels = 0): FMM_LEVEL_RULE_AUTO (0, the default), the
                             backend's (fmm_level_rule); FMM_LEVEL_RULE_LEAF the leaf-size rule; FMM_LEVEL_RULE_COST
                             the cost model's (docs/MATH.md §11): the level of least predicted time
                             among the leaf-size rule's first trial -1 .. +3 under the same caps, on either
                             backend (the GPU's statistics computed on the device); where the backend and
                             precision have no cost table the leaf-size rule stays */
  double keep_move;       /* fmm_io.tree = FMM_TREE_REUSE keeps the kept tree while every point lies within
                             this many leaf widths of where it was when that tree was built (docs/MATH.md
                             §14); 0 (the default): the backend's (fmm_keep_move); < 0: never */
  int allow_direct;       /* non-zero, with the automatic level (levels = 0): fmm_evaluate sums directly
                             where the cost model predicts the direct sum faster than any FMM evaluation
                             (fmm_cost_direct_pays; the small sets of elements alone); 0 (the
                             default): always the FMM */
  int verbose;            /* non-zero: notices (level caps, fall-backs) on stderr */
} fmm_params;

/* fmm_params.keep_move's default on the GPU in float, in leaf widths: points moved this far in random
 * directions leave the far field's error as a fresh tree's (within 1 % at 2^20 on the H100, where float
 * rounding and the TF32 M2L dominate it); in double, where the truncation does, a move of 0.04–0.06
 * raises it 1.3–1.5x, so double keeps none by default, and neither does the CPU, whose tree is ~4 % of
 * its evaluation (the GPU's a fifth of leapfrog_big's step; docs/MATH.md §14, docs/BENCHMARKS.md). */
#define FMM_KEEP_MOVE_FLOAT 0.1

/* fmm_params.level_rule. */
#define FMM_LEVEL_RULE_AUTO 0
#define FMM_LEVEL_RULE_LEAF 1
#define FMM_LEVEL_RULE_COST 2
/* The level rule in force: p->level_rule, or for FMM_LEVEL_RULE_AUTO the backend's: the cost model on
 * the CUDA backend where a table for its precision is in force (compiled in: float, calibrated on an
 * H100, fmm/cost.c), the leaf-size rule elsewhere (on the CPU the two pick the same levels, and the
 * leaf floor serves its threads). */
int fmm_level_rule(const fmm_params *p);

/* The leaf size in force: p->leaf_size, or the backend's default when it is 0. */
int fmm_leaf_size(const fmm_params *p);
/* The keep_move in force (leaf widths; 0: never): p->keep_move, or the backend's default when it is 0. */
double fmm_keep_move(const fmm_params *p);
/* Defaults: cpu, double, p = 8, the backend's leaf size (fmm_leaf_size: 256, or 64 where the CPU's
 * pair loops do not vectorize), automatic levels, singular kernel, gradient on, FMM_REG_AUTO. */
fmm_params fmm_params_default(void);

/* Wall-clock milliseconds per phase of the last evaluation, and tree facts. */
typedef struct {
  double t_tree, t_p2m, t_m2m, t_m2l, t_l2l, t_l2p, t_p2p, t_total;
  double t_copy;          /* host<->device staging when the arrays were on the host (not in t_total) */
  int levels;             /* finest level used */
  int level_capped;       /* 1 when the memory budget or the cut-off r_c (reg_correct 0) lowered the level */
  int n_src_leaves, n_tgt_leaves;
  long long n_m2l;        /* M2L translations performed */
  long long n_p2p;        /* near-field pair interactions (counted by the CPU backend; 0 on the GPU) */
  /* Regularization (docs/MATH.md §10). t_p2p includes t_corr. */
  double r_cut;           /* cut-off r_c: pairs closer than it are regularized exactly (0: singular kernel;
                             with gradients, the gradient targets' one; velocity-only targets use a
                             shorter one, where q alone is within their tolerance) */
  double reg_err;         /* regularization error committed: the kernel's largest relative deviation from
                             the singular one over the pairs left to the singular far field (at most the
                             tolerance of the targets concerned: passive ones' where any) */
  double t_corr;          /* ms of the regularization corrections (pairs closer than r_c, not adjacent) */
  long long n_corr;       /* candidate correction pairs examined, the sources beyond r_cut of each target
                             leaf's box left out (CPU backend; 0 on the GPU) */
  int m2l_kernel;         /* CUDA backend: the order of the order-specialised M2L kernel that ran (2 to 12),
                             0: the generic one (and on the CPU) */
  int m2l_dense_levels;   /* CUDA backend: the levels whose M2L ran as the dense product on the tensor cores
                             instead (float, where the level is large and full enough) */
  double t_m2l_level[VX_LMAX + 1]; /* CUDA backend: ms of each level's M2L (t_m2l is their sum; 0 on the CPU) */
  double m2l_fill[VX_LMAX + 1];    /* CUDA backend: the share of a dense M2L's slots (8 octants x 189 offsets of
                                      each tile of parents' children) that level l's translations fill */
  int m2l_dense_tc;       /* CUDA backend: those levels ran k_m2l_tc, the dense product on the TF32 tensor cores
                             (float, compute capability 8.0+) */
  int p2p_kernel;         /* CUDA backend: the targets per thread of the near-field kernel that ran (k_p2p_fast:
                             1), 0 on the CPU */
  int tree_kept;          /* 1: the evaluation used the kept tree (fmm_io.tree = FMM_TREE_REUSE); summed over
                             a step's calls in vx_step_stats.engine */
  double tree_moved;      /* FMM_TREE_REUSE: the farthest any point had moved from where it was at the kept
                             tree's build, in that tree's leaf widths (infinite for a non-finite point);
                             0 otherwise */
} fmm_stats;

/* One evaluation's arrays: xyz-interleaved, in the context's precision (double or float).
 * With on_device set (CUDA backend only) every pointer is a device pointer and nothing is copied
 * to or from the host. */
/* fmm_io.tree: what an evaluation does with the octree (docs/MATH.md §14). */
enum {
  FMM_TREE_BUILD = 0,     /* build one for these points (the default) */
  FMM_TREE_BUILD_KEEP,    /* build one and keep it, with where its points are, for FMM_TREE_REUSE calls */
  FMM_TREE_REUSE          /* the kept tree's points, moved (the same counts and gradient targets, in the
                             same order): keep that tree while every point lies within keep_move leaf
                             widths of where it was at the build, else build and keep a new one */
};

/* An evaluation that is one part of a larger one (the distributed engine, dist/engine.h): its tree is
 * built in the larger set's root cube at the larger set's finest level, and where Lc >= 2 the M2L of
 * levels 2..Lc reads the larger set's multipoles (dense: 8^l cells a level in Morton order, a cell's
 * expansion 3·(p+1)² reals as the engine keeps it, levels 2..Lc one after the other, in the context's
 * precision) and source counts (which cells hold sources) instead of the evaluation's own
 * sources. The deeper levels, the near field and the corrections use the sources given, which must
 * hold every source of the larger set that the targets' lists reach there. Either backend. */
typedef struct {
  double lo[3], side;     /* the root cube: every point of the evaluation lies inside */
  int L;                  /* the finest level, 2..VX_LMAX */
  int Lc;                 /* 0: none; 2..L: levels 2..Lc of the far field from mpole and count */
  const void *mpole;      /* fmm_part_reals(order, Lc) reals */
  const int *count;       /* fmm_part_cells(Lc) source counts (0: an empty cell) */
} fmm_part;

/* Cells and reals of a fmm_part's dense levels 2..Lc at expansion order p (0 when Lc < 2). */
size_t fmm_part_cells(int Lc);
size_t fmm_part_reals(int p, int Lc);

typedef struct {
  int n_src;
  const void *src_pos;    /* 3*n_src */
  const void *src_str;    /* 3*n_src: vector strengths α_j */
  int n_tgt;
  const void *tgt_pos;    /* 3*n_tgt */
  void *vel;              /* out, 3*n_tgt */
  void *grad;             /* out, 9*n_tgt, grad[9t + 3i + j] = ∂u_i/∂x_j; NULL: not computed */
  int on_device;
  int n_grad;             /* gradient only for targets [0, n_grad) (e.g. vortex elements before
                             passive tracers, which need velocity only); 0: for all targets.
                             Rows at and beyond n_grad are left untouched. Where the evaluation
                             computes gradients, those targets are passive: their velocity is held
                             to the passive tolerance (vx_kernel_default_tol, reg_tol = 0). */
  int tree;               /* FMM_TREE_BUILD (0), FMM_TREE_BUILD_KEEP or FMM_TREE_REUSE */
  int passive;            /* 1: the velocity-only targets are passive even where the evaluation computes
                             no gradient (tracers in a call of their own); fmm_io_passive */
  const fmm_part *part;   /* non-NULL: this evaluation is a part of a larger one (fmm_part; tree
                             FMM_TREE_BUILD) */
} fmm_io;

/* Whether io's velocity-only targets are held to the passive tolerance: io->passive, or gradients
 * computed for the first n_grad < n_tgt targets only (the tracers riding along the elements). */
int fmm_io_passive(const fmm_io *io, int want_grad, int n_grad);

typedef struct fmm_ctx fmm_ctx;

/* Create an engine (fmm_destroy(NULL) is a no-op). Returns NULL and a one-line reason in err when the parameters are
 * nonsensical or the backend is unavailable; VX_BACKEND_AUTO falls back to the CPU with a notice. */
fmm_ctx *fmm_create(const fmm_params *params, char *err, size_t errlen);
void fmm_destroy(fmm_ctx *ctx);
const fmm_params *fmm_get_params(const fmm_ctx *ctx);
/* Change parameters between evaluations (order, kernel, sigma, leaf size...). Backend and
 * precision cannot change: create a new context for those. Returns 0, or -1 with err; on failure
 * the engine is left as it was (its parameters, tables and results). */
int fmm_set_params(fmm_ctx *ctx, const fmm_params *params, char *err, size_t errlen);

/* The next tree build chooses its level anew: the GPU keeps the cost model's choice for a few builds
 * (docs/MATH.md §11), so a checkpoint's writer calls this, and the run goes on as a restart from that
 * checkpoint does (whose new engine keeps nothing). */
void fmm_forget_level_choice(fmm_ctx *ctx);

/* Velocity (and gradient if params.gradient and io.grad) by the FMM. 0 on success, -1 with err.
 * On the CUDA backend the work is ordered after everything already queued on the default stream
 * and complete when the call returns. */
int fmm_evaluate(fmm_ctx *ctx, const fmm_io *io, fmm_stats *stats, char *err, size_t errlen);
/* The multipoles and source counts of io's sources (host arrays; io's targets unused) on the dense
 * levels 2..part->Lc of part's root cube, in fmm_part's layout, into mpole (fmm_part_reals reals) and
 * count (fmm_part_cells ints): summed over the parts of a larger set they are that set's (the
 * distributed engine's all-reduce). On the CUDA backend io's arrays may be on the device (on_device);
 * the results are host arrays. 0, or -1 with err. */
int fmm_part_multipoles(fmm_ctx *ctx, const fmm_io *io, const fmm_part *part, void *mpole, int *count, char *err,
                        size_t errlen);
/* The same quantities by direct summation over all pairs, same kernel: the reference. Host points
 * with a non-finite coordinate are an error, as in the FMM's octree. */
int fmm_direct(fmm_ctx *ctx, const fmm_io *io, fmm_stats *stats, char *err, size_t errlen);

/* The last evaluation's finest-level target occupancy histogram (the design paper's bin[]):
 * 8^levels counts in Morton order (oct_morton3 of the integer cell) over the cube lo + [0, side]^3.
 * On the CUDA backend *bins is a device pointer (on_device = 1). Valid until the next evaluation.
 * After an evaluation on a kept tree (fmm_io.tree) it is that tree's: the points where they were at
 * its build, at most keep_move leaf widths from where they are.
 * The renderer ray-casts it for per-pixel opacity (paper §3.2). 0, or -1 before any evaluation. */
int fmm_occupancy(fmm_ctx *ctx, int *levels, double lo[3], double *side, const int **bins, int *on_device);

/* ---- Cost model (docs/MATH.md §11): predicted time per phase from the occupancy
 * histograms and per-phase unit costs calibrated per backend and precision. */

/* Phases of a prediction: tree, p2m, m2m, m2l, l2l, l2p, p2p (fmm_stats' t_*) and other (gather
 * and scatter of the particles, the per-level and per-call costs: t_total minus the sum of the
 * others). On the GPU the near field runs beside the far field, so its units are fitted to whole
 * evaluations (docs/MATH.md §11) and the phases are the model's shares of the total. */
#define FMM_COST_PHASES 8

/* Unit costs in ns of wall time (all threads of the device working), at expansion order `order`;
 * or, from fmm_cost_work, the units of work of one evaluation. */
typedef struct {
  int order;
  double tree_pt;    /* per particle (sources + targets): keys, histograms, scatter into box order */
  double tree_cell;  /* per cell of the dense occupancy maps of levels 0..L */
  double p2m;        /* per source */
  double m2m;        /* per translation (a source box at levels 3..L into its parent) */
  double m2l;        /* per M2L translation */
  double l2l;        /* per translation (a target box at levels 3..L from its parent) */
  double l2p_grad;   /* per target with the gradient */
  double l2p_vel;    /* per target, velocity only */
  double p2p_grad;   /* per near-field pair, gradient target */
  double p2p_vel;    /* per near-field pair, velocity-only target */
  double p2p_nbr;    /* per (target leaf, adjacent source leaf) entry of the neighbour lists */
  double other;      /* per particle (sources + targets): gather and scatter */
  double level;      /* per level 2..L: the launches and waits a level adds, whatever its size (cost files
                        without the key: 0) */
  double call;       /* per evaluation, whatever its level (cost files without the key: 0); it moves no
                        choice, and makes the predicted total comparable with the measured one */
  double direct_grad; /* per pair of the direct sum (fmm_direct), gradient target (cost files without the
                         key: 0, the direct sum never chosen: fmm_cost_direct_pays) */
  double direct_vel;  /* per pair of the direct sum, velocity-only target */
} fmm_cost_units;

/* The deepest level whose dense xyz histograms the model builds (2^21 cells, 8 MiB per array). */
#define FMM_COST_LMAX 7

/* The units of work of evaluating io with ctx's settings at finest level L (2..FMM_COST_LMAX), from the
 * occupancy histograms of io's points (host arrays). 0, or -1 with err. */
int fmm_cost_work(const fmm_ctx *ctx, const fmm_io *io, int L, fmm_cost_units *work, char *err, size_t errlen);
/* Predicted ms per phase (t_ms[FMM_COST_PHASES]) of that evaluation with the unit costs in force
 * for ctx's backend and precision; returns the total, or -1 with err (no calibration, no memory). */
double fmm_cost_predict(const fmm_ctx *ctx, const fmm_io *io, int L, double t_ms[FMM_COST_PHASES], char *err,
                        size_t errlen);
/* Whether the direct sum of ns sources at nt targets (nt_grad of them with the gradient) is predicted
 * faster than the least any FMM evaluation costs with the unit costs in force for ctx's backend and
 * precision (the per-call and one level's cost, the tree's and the gather's per point): the one home of
 * fmm_params.allow_direct's choice. 0 where the units have no direct-sum costs. */
int fmm_cost_direct_pays(const fmm_ctx *ctx, long long ns, long long nt, long long nt_grad);
/* Predicted ms per phase (t_ms[FMM_COST_PHASES]) of the work w with the unit costs u (ns) at order
 * p: expansions of order p have (p+1)^2 coefficients, so P2M and L2P scale as
 * ((p+1)/(u.order+1))^2 and the rotation–coaxial–rotation translations as ((p+1)/(u.order+1))^3
 * (docs/MATH.md §5, §11). Returns the sum. */
double fmm_cost_phases(const fmm_cost_units *u, const fmm_cost_units *w, int p, double t_ms[FMM_COST_PHASES]);
/* The unit costs in force (compiled-in calibration, or the last fmm_cost_set / fmm_cost_load):
 * 0, or -1 when the backend and precision have none. */
int fmm_cost_get(vx_backend b, vx_precision prec, fmm_cost_units *u);
void fmm_cost_set(vx_backend b, vx_precision prec, const fmm_cost_units *u);
/* The k-th unit of u in cost-file order (tree_pt = 0 ... call), NULL past the last. */
double *fmm_cost_unit(fmm_cost_units *u, int k);
/* One line of a cost file: "cpu float order=8 tree_pt=... other=..."; returns snprintf's count. */
int fmm_cost_format(char *buf, size_t len, vx_backend b, vx_precision prec, const fmm_cost_units *u);
/* Read a cost file (lines as fmm_cost_format writes them; '#' comments) and put its tables in force.
 * 0, or -1 with err naming the file and line. */
int fmm_cost_load(const char *path, char *err, size_t errlen);

/* Device memory for C programs that keep arrays on the GPU (fmm_io.on_device). In a CPU-only
 * build they fail with a message. 0 on success, -1 with err. */
int vx_device_alloc(void **d_ptr, size_t bytes, char *err, size_t errlen);
/* The grow-only rule for host memory (its device twin is cuda_check.h's vx_dev_reserve, which
 * vx_device_alloc uses): grow *p to at least bytes, contents not kept, 0 bytes allocating 1.
 * 0, or -1 (out of memory: *p NULL, *cap 0). */
int vx_host_reserve(void **p, size_t *cap, size_t bytes);
void vx_device_free(void *d_ptr);
int vx_device_upload(void *d_dst, const void *src, size_t bytes, char *err, size_t errlen);
int vx_device_download(void *dst, const void *d_src, size_t bytes, char *err, size_t errlen);

/* Helpers for programs. */
const char *vx_backend_name(vx_backend b);
const char *vx_kernel_name(vx_kernel k);
int vx_kernel_from_name(const char *name, vx_kernel *out);   /* 0 ok, -1 unknown */
int vx_backend_from_name(const char *name, vx_backend *out); /* cpu | cuda | auto */
/* 1 when a CUDA device is usable (0 in a CPU-only build); its name in name (may be NULL). */
int vx_cuda_available(char *name, size_t namelen);
/* Makes device k modulo the device count this thread's current one (one MPI rank per GPU of a node: k
 * its rank on the node), before fmm_create. The device's index, or -1 with err (no device, CPU build). */
int vx_cuda_use_device(int k, char *err, size_t errlen);

/* The vector instruction set of the CPU engine's pair loops: the best this machine runs among those
 * compiled in (x86-64 with GCC 12: AVX-512, AVX2, else the baseline), lowered by the environment
 * variable VX_CPU_SIMD=baseline|avx2|avx512 (unset: the best; CTest runs the FMM tests with each of
 * baseline and avx2; another value is reported on stderr and ignored). */
typedef enum { FMM_SIMD_BASELINE = 0, FMM_SIMD_AVX2 = 1, FMM_SIMD_AVX512 = 2 } fmm_simd;
fmm_simd fmm_cpu_simd(void);
const char *fmm_simd_name(fmm_simd s);
/* 1 when the CPU engine's pair loops vectorize for this kernel and precision (all but the Gaussian
 * in double where the host has no vector erf: pair.h). */
int fmm_cpu_pairs_vectorize(vx_kernel kernel, vx_precision precision);
/* Cut-off radius r_c: beyond it the kernel's velocity (and, with gradient set, its gradient)
 * deviates from the singular one by at most tol, relatively (docs/MATH.md §10). 0 for the singular
 * kernel, σ for poly (exact); +inf where no finite radius achieves it. */
double vx_kernel_cutoff(vx_kernel k, double sigma, double tol, int gradient);
/* The tolerance reg_tol = 0 stands for: 10^-(3 + p/4) (1e-5 at p = 8), which keeps the committed
 * error near a hundredth of the far field's at order p; for passive targets (passive = 1: the
 * velocity-only targets of an evaluation that computes the gradient for the others, fmm_io.n_grad —
 * the tracers, which feed nothing back into the flow), 10^-(1 + p/4), within a tenth of the far
 * field's velocity error; neither below the precision's unit rounding (docs/MATH.md §10). */
double vx_kernel_default_tol(vx_precision prec, int order, int passive);

VX_EXTERN_C_END
#endif
