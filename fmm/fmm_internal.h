/* fmm_internal.h — the engine context shared by fmm.c, the CPU engine and the GPU engine.
 * Not a public header: programs use fmm.h. */
#ifndef VX_FMM_INTERNAL_H
#define VX_FMM_INTERNAL_H

#include "fmm.h"
#include "octree.h"
#include "tables.h"

VX_EXTERN_C_BEGIN

typedef struct {
  size_t cap;   /* bytes */
  void *ptr;
} vx_buf;

/* The tree kept by an FMM_TREE_BUILD_KEEP evaluation (docs/MATH.md §14): the calls it may serve. */
typedef struct {
  int valid;               /* a kept tree exists and nothing has changed it since */
  int ns, nt, n_grad, grad; /* its evaluation's counts, gradient targets and gradient switch */
  double w;                /* its leaf width */
} fmm_keep;

/* The orders the CUDA engine's P2M and M2L kernels are specialised for (k_p2m_spec, k_m2l_spec: the
 * loops unrolled to the order), and the dense tensor-core M2L (k_m2l_tc, float) is built for; other
 * orders run the generic k_p2m and k_m2l. */
#define FMM_SPEC_ORDER_MIN 2
#define FMM_SPEC_ORDER_MAX 12
static inline int fmm_spec_order(int p) { return p >= FMM_SPEC_ORDER_MIN && p <= FMM_SPEC_ORDER_MAX; }

/* Test hooks of the CUDA engine: choices it makes from the data, forced so that a test reaches every
 * form of a kernel the engine runs in some regime (0: the engine's own choice; only tests set them). */
typedef struct {
  int p2m_wl;     /* k_p2m_spec's warps a leaf: 1, 2, 4 or 8 (else p2m_warps_per_leaf's) */
  int l2p_fused;  /* 1: k_l2p forms the derivative expansions where its shared memory fits; -1: never */
  int m2l_tc_all; /* 1: the tensor-core M2L at every level >= 3 it can run at (float, p = 2 to 12) */
} fmm_gpu_hooks;

struct fmm_ctx {
  fmm_params prm;
  fmm_tables tab;          /* for prm.order */
  oct_tree tree;           /* CPU backend: the last tree built */
  /* CPU backend work buffers, grown on demand and reused across evaluations */
  vx_buf src_sorted, tgt_sorted, vel_sorted, grad_sorted;
  vx_buf mpole[VX_LMAX + 1], local[VX_LMAX + 1];
  vx_buf occupancy;        /* dense target histogram for fmm_occupancy (CPU backend) */
  int evaluated;           /* a tree exists (fmm_occupancy is valid) */
  void *gpu;               /* GPU backend state (fmm_gpu.cu), NULL on the CPU backend */
  struct fmm_cost_gpu *cost_gpu; /* the cost model's device buffers (cost_gpu.cu), with the GPU state */
  double reg_err;          /* the last evaluation's fmm_stats.reg_err */
  int par_width;           /* units of work the backend runs at once: the GPU's SMs, the CPU's threads */
  fmm_keep keep;           /* the kept tree (fmm_io.tree), the same on both backends */
  vx_buf built_src, built_tgt; /* CPU backend: where the kept tree's points were (input order) */
  int built_same;               /* its sources were its targets (one array): built_tgt unused */
  int leaf_floor;          /* the leaf floor's default (fmm_params.min_leaves = 0, oct_params.min_leaves):
                              the CPU's threads; 0 (none) on the GPU, whose P2P and L2P split a leaf into
                              chunks of targets, so that few leaves still fill its SMs (docs/MATH.md §11) */
  fmm_gpu_hooks gpu_hooks; /* tests only (fmm_create zeroes them) */
};

/* Regularization of one evaluation (docs/MATH.md §10): the far field is singular; pairs in adjacent
 * leaves use the regularized kernel; every other pair closer than r_cut gets the difference of
 * the regularized and the singular kernel added (pair_bs_regdiff), the source leaves found among
 * the descendants of the 27 boxes around the target leaf's ancestor at level Lc. */
typedef struct {
  int on;          /* 1: leaves narrower than r_cut, so corrections are needed */
  int Lc;          /* the deepest level whose boxes are at least r_cut wide (0 when none is) */
  double r_cut;    /* cut-off actually used (clamped to 2 x the root side: beyond, every pair is in) */
  double reach2;   /* (r_cut / leaf width)^2: oct_leaf_reach's bound */
  double reach2v;  /* the same from the velocity-only targets' cut-off: where no target of a leaf (CPU)
                      or chunk (GPU) needs the gradient, the source leaves within it suffice */
  double rc2;      /* r_cut^2: for targets that need the gradient */
  double rc2v;     /* the same for velocity-only targets (q alone within tolerance: shorter) */
  double slack;    /* how far a point may lie outside its leaf's box: the kept tree's move (0 after a build) */
} fmm_corr;

/* The tolerance in force for passive targets or the others (reg_tol, or vx_kernel_default_tol),
 * and the others' cut-off. */
double fmm_reg_tol(const fmm_params *p, int passive);
double fmm_reg_cutoff(const fmm_params *p);
/* 1 when the automatic level keeps leaves at least r_cut wide:
 * unless reg_correct asks for the corrections, and always for Rosenhead–Moore, where the capped
 * tree is the faster (docs/MATH.md §10). */
int fmm_reg_caps_level(const fmm_params *p);
/* The corrections for a tree of root side `side` and finest level L, passive: whether the
 * velocity-only targets are passive (the evaluation computes gradients for the others, fmm_io.n_grad);
 * stores r_cut and the committed error in s (and ctx->reg_err). */
fmm_corr fmm_reg_prepare(fmm_ctx *ctx, double side, int L, int passive, double moved, fmm_stats *s);

/* The kept tree (docs/MATH.md §14), one rule for both backends. fmm_keep_may: io asks for the kept
 * tree and its call matches the one that built it (counts, gradient targets); the backend then
 * measures how far the points moved (the largest distance from where they were at the build) and
 * fmm_keep_take says whether the tree serves, recording tree_kept and tree_moved in s. After a build,
 * fmm_keep_after_build keeps the tree when io asked (the backend keeps the positions) or forgets it. */
int fmm_keep_may(const fmm_ctx *ctx, const fmm_io *io, int want_grad, int n_grad);
int fmm_keep_wanted(const fmm_ctx *ctx, const fmm_io *io); /* a build keeps its tree and positions */
int fmm_keep_take(const fmm_ctx *ctx, double moved, fmm_stats *s);
void fmm_keep_after_build(fmm_ctx *ctx, const fmm_io *io, int want_grad, int n_grad, double w);

/* Grow b to at least bytes; 0 or -1 (out of memory). Contents are not kept. */
int vx_buf_reserve(vx_buf *b, size_t bytes);
void vx_buf_free(vx_buf *b);

/* CPU engine (cpu_engine.c), one per precision. */
int fmm_cpu_evaluate_d(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen);
int fmm_cpu_evaluate_f(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen);
int fmm_cpu_part_multipoles_d(fmm_ctx *ctx, const fmm_io *io, const fmm_part *part, void *mpole, int *count, char *err,
                              size_t errlen);
int fmm_cpu_part_multipoles_f(fmm_ctx *ctx, const fmm_io *io, const fmm_part *part, void *mpole, int *count, char *err,
                              size_t errlen);
int fmm_cpu_direct_d(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen);
int fmm_cpu_direct_f(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen);
void fmm_cpu_release(fmm_ctx *ctx);

/* GPU engine (fmm_gpu.cu); in a CPU-only build these report the backend unavailable. */
int fmm_gpu_available(char *name, size_t namelen);
int fmm_gpu_use_device(int k, char *err, size_t errlen); /* vx_cuda_use_device */
int fmm_gpu_create(fmm_ctx *ctx, char *err, size_t errlen);
void fmm_gpu_destroy(fmm_ctx *ctx);
/* 0 when the device can run prm's order and gradient setting (the kernels' shared memory, gpu_smem.h),
 * else -1 with the reason. */
int fmm_gpu_check_params(const fmm_ctx *ctx, const fmm_params *prm, char *err, size_t errlen);
/* Put the tables T (a new order) on the device; on failure the old ones stay in use. */
int fmm_gpu_set_tables(fmm_ctx *ctx, const fmm_tables *T, char *err, size_t errlen);
int fmm_gpu_evaluate(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen);
int fmm_gpu_direct(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen);
int fmm_gpu_part_multipoles(fmm_ctx *ctx, const fmm_io *io, const fmm_part *part, void *mpole, int *count, char *err,
                            size_t errlen);
int fmm_gpu_occupancy(fmm_ctx *ctx, int *levels, double lo[3], double *side, const int **bins);
/* k_m2l_tc alone, for its twin test: order p (6, 8 or 12) in float on the tensor cores, its stages
 * split into `parts` (1: whole), on a full level l (3..6: every box of 8^l present, box b = Morton
 * key b; parents likewise one level up) whose source multipoles M (3·VX_NCOEF(p) reals a box, in
 * double) are given; the local expansions it adds go into L (same layout, zeroed first). 0, -2 with
 * err when the device has no TF32 tensor cores, or -1 with err. */
int fmm_gpu_m2l_tc_full(int p, int parts, int l, const double *M, double *L, char *err, size_t errlen);
/* 1 when the automatic level may go one deeper for the dense M2L on the tensor cores (CUDA, float,
 * compute capability 8.0+, and p = 8: the order that rule was measured at); else 0 (and without CUDA). */
int fmm_gpu_dense_tc(const fmm_ctx *ctx);

/* A part's tree (fmm_part): the larger set's root cube at level L, no other level rule; both backends. */
void fmm_part_octree(const fmm_part *pt, int L, oct_params *op);
/* Octree parameters for the context's settings (level cap: memory budget; Rosenhead–Moore's cut-off). */
oct_params fmm_octree_params(const fmm_ctx *ctx);
/* |1 - q(ρ)| for the kernel, the far-field error of treating a regularized source as singular;
 * with gradient set, the larger of it and the gradient kernel's |h/h_singular - 1| = |q'ρ/3 + 1 - q|. */
double vx_kernel_deviation(vx_kernel k, double rho);
double vx_kernel_deviation_max(vx_kernel k, double rho, int gradient);

VX_EXTERN_C_END
#endif
