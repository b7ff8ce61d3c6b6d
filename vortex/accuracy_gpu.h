/* accuracy_gpu.h — the CUDA half of the live accuracy readout (accuracy_gpu.cu), called by
 * accuracy.c: the snapshot kernel on the default stream, the direct sum on a second, non-blocking
 * stream, the results copied into pinned host memory. Not a public header. In a build without
 * CUDA, accuracy.c supplies versions that report the backend unavailable. */
#ifndef VX_ACCURACY_GPU_H
#define VX_ACCURACY_GPU_H

#include <stddef.h>
#include "hd.h"
#include "sim.h"

VX_EXTERN_C_BEGIN

typedef struct vx_acc_gpu vx_acc_gpu;

/* Snapshot e (device arrays) at the samples idx[0..k) (gradients for the first k_g) on the default
 * stream, then queue the direct sum and the copies back on the side stream; returns without
 * waiting. *g is created on first use. 0, or -1 with err. */
int vx_acc_gpu_start(vx_acc_gpu **g, const vx_sim_eval *e, const int *idx, int k, int k_g, char *err, size_t errlen);
/* 1 when the queued work is done, with the host copies of eng and ref (12 per sample, valid until
 * the next start) and the two times (ms: snapshot on the default stream, direct sum on the side
 * stream); 0 when not yet; -1 with err. wait: block until done. */
int vx_acc_gpu_finish(vx_acc_gpu *g, int wait, const double **eng, const double **ref, double *ms_snap, double *ms_direct,
                      char *err, size_t errlen);
/* Waits for the side stream, then frees (NULL: no-op). */
void vx_acc_gpu_free(vx_acc_gpu *g);

VX_EXTERN_C_END
#endif
