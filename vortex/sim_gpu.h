/* sim_gpu.h — the CUDA half of the simulation (sim_gpu.cu, energy_gpu.cu, tracer_draw_gpu.cu), called
 * by the sim*.c files: device memory, the stage kernel, the blow-up reduction, the kernel energy and a
 * launched ring's tracers. Not a public header. In a build without CUDA, sim.c supplies versions that report the backend unavailable. */
#ifndef VX_SIM_GPU_H
#define VX_SIM_GPU_H

#include <stddef.h>
#include <stdint.h>
#include "fmm.h"
#include "scene.h"
#include "stage.h"

VX_EXTERN_C_BEGIN

/* Wait for the device's queued work (one call per step, not per kernel). */
int vx_gpu_sync(char *err, size_t errlen);
/* One Runge–Kutta stage over the n_tot targets of a (stage.h), on the default stream. */
int vx_gpu_stage(vx_precision prec, const vx_stage_args *a, char *err, size_t errlen);
/* Relax the strengths of the n_elem elements by f towards the vorticity of grad (stage_t.h, vx_relax). */
int vx_gpu_relax(vx_precision prec, void *alpha, const void *grad, int n_elem, double f, char *err, size_t errlen);
/* The n tracers inside their step: pos = pos0 + f·(pos − pos0) + gh·acc (stage_t.h, vx_settle_target). */
int vx_gpu_settle(vx_precision prec, void *pos, const void *pos0, const void *acc, int n, double f, double gh, char *err,
                  size_t errlen);
/* max |α|² and max |∇u|² (Frobenius; grad may be NULL) over the elements and a non-finite flag over
 * positions and strengths, reduced on the device into d_scratch (24 bytes, from vx_device_alloc);
 * only those 24 bytes come back. */
int vx_gpu_health(vx_precision prec, const void *pos, const void *alpha, const void *grad, int n_elem, int n_tot,
                  void *d_scratch, double *max_a2, double *max_g2, int *bad, char *err, size_t errlen);
/* The kernel energy E_σ (diag.h) of the n elements at pos, alpha under kernel k of radius sigma,
 * summed on the device in double (energy_gpu.cu); NaN for a kernel without a stream function. The
 * device scratch *d_scratch (capacity *cap bytes) grows as needed and is the caller's to free. */
int vx_gpu_energy_kernel(vx_precision prec, const void *pos, const void *alpha, int n, vx_kernel k, double sigma, double *e,
                         void **d_scratch, size_t *cap, char *err, size_t errlen);
/* Device-to-device copy of bytes (a ring appended: the old blocks moved into grown buffers). */
int vx_gpu_copy(void *d_dst, const void *d_src, size_t bytes, char *err, size_t errlen);
/* d_dst row i = d_src row d_idx[i], i < n, three reals a row (compact.h's vx_gather_row). */
int vx_gpu_gather(vx_precision prec, void *d_dst, const void *d_src, const int *d_idx, int n, char *err, size_t errlen);
/* Source q's q->count tracers drawn from stream st into device rows d_out (3·count reals of prec),
 * in spatial order: vx_ring_tracers_draw's tracers, drawn on the device (tracer_draw_gpu.cu). The
 * device scratch *d_scratch (capacity *cap bytes) grows as needed and is the caller's to free. */
int vx_gpu_ring_tracers(vx_precision prec, const vx_tracer_source *q, uint64_t st, void *d_out, void **d_scratch, size_t *cap,
                        char *err, size_t errlen);

VX_EXTERN_C_END
#endif
