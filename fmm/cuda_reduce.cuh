/* cuda_reduce.cuh — what the CUDA reductions share (the renderer's bounding box, totals and
 * centroid; the vorticity grid's box and maximum): order-preserving keys of doubles, and the block
 * step, v reduced over a block of THREADS threads by op with the result in thread 0 (CUB's warp
 * shuffles, then shared memory; its storage is reused by the next call, hence the barrier).
 * CUDA translation units only. */
#ifndef VX_CUDA_REDUCE_CUH
#define VX_CUDA_REDUCE_CUH
#include <cub/block/block_reduce.cuh>
#include <string.h>

/* Doubles as unsigned keys whose integer order is the numeric order (atomicMin / atomicMax of a
 * bounding box), and back. */
__host__ __device__ static inline unsigned long long vx_order_key(double v) {
  unsigned long long b;
  memcpy(&b, &v, sizeof b);
  return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}
__host__ __device__ static inline double vx_key_value(unsigned long long k) {
  unsigned long long b = (k >> 63) ? (k & 0x7fffffffffffffffull) : ~k;
  double v;
  memcpy(&v, &b, sizeof v);
  return v;
}

struct vx_min_op { template <typename V> __device__ V operator()(V a, V b) const { return b < a ? b : a; } };
struct vx_max_op { template <typename V> __device__ V operator()(V a, V b) const { return b > a ? b : a; } };
struct vx_add_op { template <typename V> __device__ V operator()(V a, V b) const { return a + b; } };

template <int THREADS, typename V, typename Op>
__device__ static V vx_block_reduce(V v, Op op) {
  typedef cub::BlockReduce<V, THREADS> block_reduce;
  __shared__ typename block_reduce::TempStorage tmp;
  const V r = block_reduce(tmp).Reduce(v, op);
  __syncthreads();
  return r;
}
#endif
