/* conserve.h — the conservative correction of the long-run control (docs/MATH.md §9): relaxation
 * and remeshing's drop threshold are numerical devices that must not change the flow's linear
 * invariants, the total vorticity W = Σα and the linear impulse I = ½ Σ x×α; each leaves a small
 * change that accumulates over thousands of applications. After one of them the strengths get the
 * smallest correction, weighted by |α| (so it lands where the vorticity is), that restores W and I
 * exactly: minimise Σ|δα_k|²/|α_k| subject to Σδα_k = ΔW and ½Σ x_k×δα_k = ΔI gives
 *
 *   δα_k = |α_k| (λ + μ × (x_k − c)),   c = Σ|α|x / Σ|α|,   λ = ΔW / Σ|α|,
 *   μ = 2 J⁻¹ (ΔI − ½ c×ΔW),   J = Σ|α_k| (|r_k|² 1 − r_k r_kᵀ),  r_k = x_k − c
 *
 * (the Lagrange conditions; J is the |α|-weighted inertia tensor about c). That is the full mode;
 * vortex/sim_control.c asks it for W = 0 (true of any compact vorticity; the classical stretching lets Σα
 * drift) and for I less ½ c×W of before, so the origin-dependent part of I leaves with W.
 * The axial mode restores only the impulse along I0's direction n, the one a ring system
 * loses steadily (the weak fringe a drop threshold removes turns with the rings): λ = 0 and
 * μ = 2 (ΔI·n) n / (nᵀJn), so δα = |α| μ n×r is a circulation about the axis through c, solenoidal
 * wherever α is; the full mode's λ and transverse μ add strength across the vortex lines, which the
 * next relaxation partly turns back (docs/MATH.md §9). The ring mode is the axial mode on each ring's
 * own block of elements, after each relaxation only: relaxation turns a curved filament's strengths
 * towards the smoothed field, whose direction departs from the centreline where the curvature varies
 * over σ (a wavy ring moves its impulse by 1–3 % in a few steps); restoring each ring's impulse along
 * its own direction takes that out and leaves alone the impulse the rings exchange, which the flow
 * does (sim_control.c; it needs the rings' elements in blocks: no remeshing). The per-element math is
 * conserve_t.h (CPU loops in conserve.c, CUDA kernels in conserve_gpu.cu); moments are summed in
 * double in a fixed order on both backends, so a run stays reproducible. Host code, C11 and C++. */
#ifndef VX_CONSERVE_H
#define VX_CONSERVE_H

#include <math.h>
#include <stddef.h>
#include "fmm.h"

VX_EXTERN_C_BEGIN

/* Moments of a set of elements, as VX_MOMENTS_N doubles: [0..2] W = Σα, [3..5] I = ½Σx×α,
 * [6] Σ|α|, [7..9] Σ|α|x, [10..15] Σ|α| x_i x_j in the order xx, yy, zz, xy, xz, yz. */
#define VX_MOMENTS_N 16
/* Device scratch the GPU moments need (fixed block count: a fixed summation order). */
#define VX_CONSERVE_BLOCKS 120
#define VX_CONSERVE_SCRATCH ((size_t)VX_CONSERVE_BLOCKS * VX_MOMENTS_N * sizeof(double))

/* The moments of n elements (backend memory on cuda: d_scratch of VX_CONSERVE_SCRATCH bytes).
 * 0, or -1 with err. */
int vx_moments(vx_precision prec, int on_device, const void *pos, const void *alpha, int n, void *d_scratch,
               double *m, char *err, size_t errlen);
/* Which invariants the correction restores (vx_sim_params.conserve). */
typedef enum { VX_CONSERVE_OFF = 0, VX_CONSERVE_AXIAL = 1, VX_CONSERVE_FULL = 2, VX_CONSERVE_RING = 3 } vx_conserve_mode;
/* "off", "axial", "full", "ring"; and back (0, or -1 for an unknown name). */
const char *vx_conserve_name(int mode);
int vx_conserve_from_name(const char *name, int *mode);

/* The correction's coefficients coef = λ[3], μ[3], c[3] that bring the moments m to the invariants
 * W0 (3), I0 (3) (full) or to I0's component along I0 (axial; the ring mode is the axial mode on
 * each ring's block, which the caller gives as the elements). 0; 1 when no correction is possible
 * (no strength; in the axial mode an impulse below 1e-6 of ½Σ|α|·L, L the rms distance from c — the
 * head-on rings' I0 = 0 has no direction; J singular: the elements on a line), coef then zero. */
int vx_conserve_solve(const double *m, const double *W0, const double *I0, vx_conserve_mode mode, double *coef);
/* Add the correction to the strengths of n elements. 0, or -1 with err. */
int vx_conserve_apply(vx_precision prec, int on_device, const void *pos, void *alpha, int n, const double *coef,
                      char *err, size_t errlen);
/* The whole correction: moments, solve, apply (nothing in the off mode). Writes |ΔI| (before correcting)
 * over max(|I0|, ½ Σ|α| L) to *rel_di when given (L as above; a ring's ½ Σ|α| R is its |I|). 0, or -1 with err. */
int vx_conserve(vx_precision prec, int on_device, const void *pos, void *alpha, int n, void *d_scratch,
                const double *W0, const double *I0, vx_conserve_mode mode, double *rel_di, char *err, size_t errlen);

/* The same with the moments m given (vx_moments of every process's elements, summed, when one flow is
 * spread over processes: the correction of each process's elements then restores the whole flow's). */
int vx_conserve_moments(vx_precision prec, int on_device, const void *pos, void *alpha, int n, const double *m,
                        const double *W0, const double *I0, vx_conserve_mode mode, double *rel_di, char *err, size_t errlen);

/* The CUDA halves (conserve_gpu.cu; a CPU-only build reports them unavailable). */
int vx_moments_gpu(vx_precision prec, const void *pos, const void *alpha, int n, void *d_scratch, double *m, char *err,
                   size_t errlen);
int vx_conserve_apply_gpu(vx_precision prec, const void *pos, void *alpha, int n, const double *coef, char *err,
                          size_t errlen);

#define VX_DOUBLE_INST
#include "real_t.h"
#include "conserve_t.h"
#undef VX_DOUBLE_INST
#define VX_FLOAT_INST
#include "real_t.h"
#include "conserve_t.h"
#undef VX_FLOAT_INST

VX_EXTERN_C_END
#endif
