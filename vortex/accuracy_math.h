/* accuracy_math.h — the readout's per-element math (accuracy.h), written once as host+device inline
 * functions: the snapshot of the sources and the sampled targets into double, the partial direct
 * sum of one sample over one chunk of sources, and the in-order sum of the chunks. accuracy.c's
 * loops and accuracy_gpu.cu's kernels call the same functions (gpu_test_accuracy compares them).
 * Not a public header. */
#ifndef VX_ACCURACY_MATH_H
#define VX_ACCURACY_MATH_H

#include <stddef.h>
#include "hd.h"
#include "pair.h"

/* Element i of an array in the run's precision, in double. */
VX_HD static inline double vx_acc_load(const void *a, size_t i, int is_float) {
  return is_float ? (double)((const float *)a)[i] : ((const double *)a)[i];
}

/* Source j: position and strength into src[6j..6j+5]. */
VX_HD static inline void vx_acc_snap_src(const void *pos, const void *alpha, int is_float, int j, double *src) {
  for (int c = 0; c < 3; ++c) {
    src[6 * (size_t)j + c] = vx_acc_load(pos, 3 * (size_t)j + c, is_float);
    src[6 * (size_t)j + 3 + c] = vx_acc_load(alpha, 3 * (size_t)j + c, is_float);
  }
}

/* Sample t, particle p: its position into tgt[3t..], the engine's u (and ∇u when t < k_g and grad)
 * into eng[12t..]; the gradient slots are zero otherwise. */
VX_HD static inline void vx_acc_snap_tgt(const void *pos, const void *vel, const void *grad, int is_float, int t, int p,
                                         int k_g, double *tgt, double *eng) {
  for (int c = 0; c < 3; ++c) {
    tgt[3 * (size_t)t + c] = vx_acc_load(pos, 3 * (size_t)p + c, is_float);
    eng[12 * (size_t)t + c] = vx_acc_load(vel, 3 * (size_t)p + c, is_float);
  }
  for (int c = 0; c < 9; ++c) eng[12 * (size_t)t + 3 + c] = grad && t < k_g ? vx_acc_load(grad, 9 * (size_t)p + c, is_float) : 0.0;
}

/* Sample at x: the un-prefixed u and ∇u (want_g) induced by sources [j0, j1) into out[12], by the
 * engine's own pair kernel (fmm/pair_t.h) in double. */
VX_HD static inline void vx_acc_partial(int kernel, double sigma, const double *src, int j0, int j1, const double *x,
                                        int want_g, double *out) {
  double u[3] = {0, 0, 0}, g[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int j = j0; j < j1; ++j) {
    const double *s = src + 6 * (size_t)j;
    pair_bs_d(kernel, sigma, x[0] - s[0], x[1] - s[1], x[2] - s[2], s[3], s[4], s[5], u, want_g ? g : NULL);
  }
  for (int c = 0; c < 3; ++c) out[c] = u[c];
  for (int c = 0; c < 9; ++c) out[3 + c] = g[c];
}

/* Sources [j0, j1) of chunk c out of nch over n_src. */
VX_HD static inline void vx_acc_chunk_range(int n_src, int nch, int c, int *j0, int *j1) {
  long long per = ((long long)n_src + nch - 1) / nch;
  long long a = per * c, b = a + per;
  *j0 = (int)(a < n_src ? a : n_src);
  *j1 = (int)(b < n_src ? b : n_src);
}

/* Component q (0..11) of sample t: the chunks' partial sums in order, times 1/(4π). */
VX_HD static inline double vx_acc_reduce(const double *part, int k, int nch, int t, int q) {
  double s = 0.0;
  for (int c = 0; c < nch; ++c) s += part[((size_t)c * k + t) * 12 + q];
  return s * VX_INV4PI;
}

#endif
