/* hd.h — host/device portability macros shared by every math header.
 * Headers that include this compile as C11 (CPU backend) and as CUDA C++ (GPU backend), so one
 * inline function serves both (STYLE.md: "one home for each piece of math"). */
#ifndef VX_HD_H
#define VX_HD_H

#ifdef __CUDACC__
#define VX_HD __host__ __device__
#else
#define VX_HD
#endif

/* For math that an order-specialised kernel unrolls: inlined always on the device, so that the
 * order passed in becomes a constant in the callee's loops; plain inline on the host. */
#ifdef __CUDACC__
#define VX_HD_INLINE __host__ __device__ __forceinline__
#else
#define VX_HD_INLINE inline
#endif

/* Unroll the next loop in device code (its bound a constant once inlined into an order-specialised
 * kernel); nothing on the host. */
#ifdef __CUDA_ARCH__
#define VX_UNROLL _Pragma("unroll")
#else
#define VX_UNROLL
#endif

/* 1/√x in float on the device, the hardware's approximation alone (rsqrt.approx.ftz: MUFU.RSQ,
 * at most 2 units in the last place): what rsqrtf computes for every normal x, without the four
 * instructions rsqrtf spends rescaling a subnormal x first. A subnormal x here would be a pair
 * closer than 1e-19, where the kernels' 1/r³ overflows float long before (r < 1e-13); the pair
 * loops, issue-bound on the H100, run 14 % fewer instructions a pair (docs/BENCHMARKS.md). */
#ifdef __CUDA_ARCH__
static __device__ __forceinline__ float vx_rsqrt_ftz(float x) {
  float r;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
/* 1/x likewise (MUFU.RCP, as __fdividef(1, x) for every normal x) and 2^x (MUFU.EX2, as __expf's for
 * every x >= -126, a result that is normal), without the rescaling of subnormal arguments and
 * results: for the Gaussian's 1/(1 + 0.33x), x >= 0, and its e^{-ρ²/2}, ρ² < 48 (pair_t.h). */
static __device__ __forceinline__ float vx_rcp_ftz(float x) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
static __device__ __forceinline__ float vx_ex2_ftz(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
#endif

#ifdef __cplusplus
#define VX_EXTERN_C_BEGIN extern "C" {
#define VX_EXTERN_C_END }
#else
#define VX_EXTERN_C_BEGIN
#define VX_EXTERN_C_END
#endif

/* Largest expansion order (highest degree n) any backend accepts; fixes stack/shared array sizes. */
#define VX_PMAX 32
/* Deepest octree level: 10 bits per axis, 30-bit Morton keys (the histogram budget usually binds first). */
#define VX_LMAX 10
/* Number of real coefficients of an expansion of order p: degrees 0..p, (p+1)^2 of them. */
#define VX_NCOEF(p) (((p) + 1) * ((p) + 1))
/* Index of coefficient (n, m), |m| <= n, in a degree-major array. */
#define VX_IDX(n, m) ((n) * (n) + (n) + (m))
#define VX_PI 3.14159265358979323846
/* 1/(4*pi): the Biot–Savart prefactor. */
#define VX_INV4PI 0.079577471545947667884

#endif
