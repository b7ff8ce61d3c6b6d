/* pair.h — regularized Biot–Savart pair kernels (near field and direct sum), double and float. */
#ifndef VX_PAIR_H
#define VX_PAIR_H
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "hd.h"
/* The host's vector erf and exp in double: glibc's libmvec (2.35 on) has simd clones of both for
 * every x86-64 instruction set (at most 4 ulp), which glibc declares only under -ffast-math;
 * declared here, the CPU's pair loops vectorize the Gaussian in double too (gauss_vectorizes). */
#if !defined(__CUDACC__) && !defined(__cplusplus) && defined(__x86_64__) && defined(__GLIBC__) && defined(_OPENMP)
#if __GLIBC_PREREQ(2, 35)
#define VX_HOST_VECTOR_ERF 1
#pragma omp declare simd notinbranch
double erf(double);
#pragma omp declare simd notinbranch
double exp(double);
#endif
#endif
#define VX_DOUBLE_INST
#include "real_t.h"
#include "pair_t.h"
#undef VX_DOUBLE_INST
#define VX_FLOAT_INST
#include "real_t.h"
#include "pair_t.h"
#undef VX_FLOAT_INST
#endif
