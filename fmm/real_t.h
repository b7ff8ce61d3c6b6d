/* real_t.h — defines the working precision for one instantiation of a templated math header.
 * A templated header (`*_t.h`) is included once with VX_DOUBLE_INST and once with VX_FLOAT_INST
 * defined; this file maps vx_real, the name suffix VXF() and the math functions accordingly.
 * (C11 has no templates; re-inclusion gives one source for both precisions and both backends.) */
#undef vx_real
#undef VXF
#undef VX_SQRT
#undef VX_EXP
#undef VX_ERF
#undef VX_ABS
#undef VX_R
#undef VX_RSQRT
#undef VX_GAUSS_FAR2
#if defined(VX_DOUBLE_INST)
#define vx_real double
#define VXF(name) name##_d
#define VX_SQRT(x) sqrt(x)
#define VX_EXP(x) exp(x)
#define VX_ERF(x) erf(x)
#define VX_ABS(x) fabs(x)
#define VX_R(c) (c)
#define VX_GAUSS_FAR2 90.0 /* ρ² from which the Gaussian kernel equals the singular one to 1e-17 */
#ifdef __CUDA_ARCH__
#define VX_RSQRT(x) rsqrt(x)
#else
#define VX_RSQRT(x) (1.0 / sqrt(x))
#endif
#elif defined(VX_FLOAT_INST)
#define vx_real float
#define VXF(name) name##_f
#define VX_SQRT(x) sqrtf(x)
#define VX_EXP(x) expf(x)
#define VX_ERF(x) erff(x)
#define VX_ABS(x) fabsf(x)
#define VX_R(c) ((float)(c))
#define VX_GAUSS_FAR2 48.0f /* ... to 3e-9, below float's rounding */
#ifdef __CUDA_ARCH__
#define VX_RSQRT(x) vx_rsqrt_ftz(x) /* hd.h */
#else
#define VX_RSQRT(x) (1.0f / sqrtf(x))
#endif
#else
#error "real_t.h: define VX_DOUBLE_INST or VX_FLOAT_INST before including a templated header"
#endif
