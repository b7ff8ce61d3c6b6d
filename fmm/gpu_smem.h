/* gpu_smem.h — the dynamic shared memory each CUDA kernel of the FMM needs for an order,
 * precision and gradient setting, fitted to a device's per-block limit. Host arithmetic only (no
 * CUDA): the GPU engine plans each evaluation with it, and tests/test_fmm_smem.c checks it without
 * a device. C11 and C++. */
#ifndef VX_GPU_SMEM_H
#define VX_GPU_SMEM_H

#include <stddef.h>
#include "hd.h"

VX_EXTERN_C_BEGIN

/* The translation kernels' preferred warps per block (M2M and M2L split a box's children or its
 * interaction list over them; fewer fit for large orders). */
#define FMM_SMEM_WARPS_P2M 8
#define FMM_SMEM_WARPS_M2M 8
#define FMM_SMEM_WARPS_L2L 4
#define FMM_SMEM_WARPS_M2L 8
/* Bytes a block may use without opting in (cudaFuncAttributeMaxDynamicSharedMemorySize). */
#define FMM_SMEM_DEFAULT (48 * 1024)

typedef struct {
  int w_p2m, w_m2m, w_l2l, w_m2l;      /* warps per block */
  size_t p2m, m2m, l2l, m2l;           /* bytes per block */
  size_t dper;                         /* reals of L2P derivative expansions per leaf */
  size_t l2p_deriv;                    /* bytes of k_l2p_deriv (0 at p = 0: not launched) */
  int l2p_stage;                       /* k_l2p_deriv also stages the local expansion */
  size_t l2p;                          /* bytes of k_l2p */
  size_t l2p_fused;                    /* bytes of k_l2p forming the derivative expansions itself (0: do not fit) */
} fmm_smem_plan;

/* The plan for order p (0..VX_PMAX), reals of real_size bytes (4 or 8), with the second
 * derivatives for gradients or not, within `limit` bytes per block (the device's
 * cudaDevAttrMaxSharedMemoryPerBlockOptin): each translation kernel as many warps as fit, up to
 * its preferred count. 0, or -1 with one line in err naming the order, the precision, the kernel,
 * the bytes it needs, the limit and the largest order that fits. */
int fmm_smem_plan_make(int p, size_t real_size, int gradient, size_t limit, fmm_smem_plan *plan, char *err,
                       size_t errlen);
/* The largest order 0..VX_PMAX whose plan fits in limit; -1 when none does. */
int fmm_smem_max_order(size_t real_size, int gradient, size_t limit);

VX_EXTERN_C_END
#endif
