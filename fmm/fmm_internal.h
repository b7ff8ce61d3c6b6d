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
  double reg_err;          /* |1 - q(w/σ)| at the finest leaf width of the last evaluation */
};

/* Grow b to at least bytes; 0 or -1 (out of memory). Contents are not kept. */
int vx_buf_reserve(vx_buf *b, size_t bytes);
void vx_buf_free(vx_buf *b);

/* CPU engine (cpu_engine.c), one per precision. */
int fmm_cpu_evaluate_d(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen);
int fmm_cpu_evaluate_f(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen);
int fmm_cpu_direct_d(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen);
int fmm_cpu_direct_f(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen);
void fmm_cpu_release(fmm_ctx *ctx);

/* GPU engine (fmm_gpu.cu); in a CPU-only build these report the backend unavailable. */
int fmm_gpu_available(char *name, size_t namelen);
int fmm_gpu_create(fmm_ctx *ctx, char *err, size_t errlen);
void fmm_gpu_destroy(fmm_ctx *ctx);
int fmm_gpu_set_order(fmm_ctx *ctx, char *err, size_t errlen); /* after ctx->tab changed */
int fmm_gpu_evaluate(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen);
int fmm_gpu_direct(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen);
int fmm_gpu_occupancy(fmm_ctx *ctx, int *levels, double lo[3], double *side, const int **bins);

/* Octree parameters for the context's settings (level cap from the kernel's core size). */
oct_params fmm_octree_params(const fmm_ctx *ctx);
/* |1 - q(ρ)| for the kernel, the far-field error of treating a regularized source as singular. */
double vx_kernel_deviation(vx_kernel k, double rho);

VX_EXTERN_C_END
#endif
