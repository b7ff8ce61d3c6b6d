/* accuracy_gpu.cu — the CUDA half of the live accuracy readout (accuracy_gpu.h): the snapshot
 * kernel on the default stream (sources and the sampled targets and engine values into double side
 * buffers, so the next stage may overwrite the state), then on a second, non-blocking stream the
 * chunked direct sum, the in-order sum of the chunks and the copies back into pinned host memory.
 * Each kernel is a thin loop around accuracy_math.h, whose CPU twin is accuracy.c's loops;
 * gpu_test_accuracy compares the two. Every CUDA call and launch is checked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy.h"
#include "accuracy_gpu.h"
#include "accuracy_math.h"
#include "cuda_check.h"

#define ACC_THREADS 128

struct vx_acc_gpu {
  cudaStream_t side;        /* non-blocking: the legacy default stream does not wait for it */
  cudaEvent_t ev_s0, ev_s1, ev_d0, ev_d1;
  void *d_src, *d_idx, *d_tgt, *d_eng, *d_part, *d_ref;
  size_t c_src, c_idx, c_tgt, c_eng, c_part, c_ref;
  int *h_idx;               /* pinned */
  double *h_eng, *h_ref;    /* pinned, 12 per sample */
  int cap_k;                /* samples the pinned buffers hold */
};

__global__ void vx_acc_snap_kernel(vx_sim_eval e, const int *idx, int k, int k_g, double *src, double *tgt, double *eng) {
  int is_float = e.precision == VX_FLOAT;
  int n = e.n_elem > k ? e.n_elem : k;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    if (i < e.n_elem) vx_acc_snap_src(e.pos, e.alpha, is_float, i, src);
    if (i < k) vx_acc_snap_tgt(e.pos, e.vel, e.grad, is_float, i, idx[i], k_g, tgt, eng);
  }
}

/* blockIdx.y: the chunk of sources; one thread per sample. */
__global__ void vx_acc_direct_kernel(int kernel, double sigma, int n_src, int nch, const double *src, int k, int k_g,
                                     const double *tgt, double *part) {
  int t = blockIdx.x * blockDim.x + threadIdx.x, c = blockIdx.y;
  if (t >= k) return;
  int j0, j1;
  vx_acc_chunk_range(n_src, nch, c, &j0, &j1);
  vx_acc_partial(kernel, sigma, src, j0, j1, tgt + 3 * (size_t)t, t < k_g, part + ((size_t)c * k + t) * 12);
}

__global__ void vx_acc_reduce_kernel(const double *part, int k, int nch, double *ref) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 12 * k) ref[i] = vx_acc_reduce(part, k, nch, i / 12, i % 12);
}

static int grid_for(long long n) {
  long long b = (n + ACC_THREADS - 1) / ACC_THREADS;
  return b < 1 ? 1 : b > 4096 ? 4096 : (int)b;
}

/* Streams, events and pinned buffers on first use; device buffers grown to this capture. */
static int gpu_prepare(vx_acc_gpu **gp, int n_elem, int k, char *err, size_t errlen) {
  if (!*gp) {
    vx_acc_gpu *g = (vx_acc_gpu *)calloc(1, sizeof *g);
    if (!g) { snprintf(err, errlen, "out of host memory"); return -1; }
    *gp = g;
    VX_CUR(cudaStreamCreateWithFlags(&g->side, cudaStreamNonBlocking));
    VX_CUR(cudaEventCreate(&g->ev_s0));
    VX_CUR(cudaEventCreate(&g->ev_s1));
    VX_CUR(cudaEventCreate(&g->ev_d0));
    VX_CUR(cudaEventCreate(&g->ev_d1));
  }
  vx_acc_gpu *g = *gp;
  if (g->cap_k < k) {
    if (g->h_idx) VX_CUR(cudaFreeHost(g->h_idx));
    if (g->h_eng) VX_CUR(cudaFreeHost(g->h_eng));
    if (g->h_ref) VX_CUR(cudaFreeHost(g->h_ref));
    g->h_idx = NULL, g->h_eng = g->h_ref = NULL, g->cap_k = 0;
    VX_CUR(cudaMallocHost((void **)&g->h_idx, sizeof(int) * (size_t)k));
    VX_CUR(cudaMallocHost((void **)&g->h_eng, sizeof(double) * 12 * (size_t)k));
    VX_CUR(cudaMallocHost((void **)&g->h_ref, sizeof(double) * 12 * (size_t)k));
    g->cap_k = k;
  }
  size_t nch = (size_t)vx_acc_chunks(n_elem);
  VX_CUR(vx_dev_reserve(&g->d_src, &g->c_src, sizeof(double) * 6 * (size_t)n_elem));
  VX_CUR(vx_dev_reserve(&g->d_idx, &g->c_idx, sizeof(int) * (size_t)k));
  VX_CUR(vx_dev_reserve(&g->d_tgt, &g->c_tgt, sizeof(double) * 3 * (size_t)k));
  VX_CUR(vx_dev_reserve(&g->d_eng, &g->c_eng, sizeof(double) * 12 * (size_t)k));
  VX_CUR(vx_dev_reserve(&g->d_part, &g->c_part, sizeof(double) * 12 * (size_t)k * nch));
  VX_CUR(vx_dev_reserve(&g->d_ref, &g->c_ref, sizeof(double) * 12 * (size_t)k));
  return 0;
}

extern "C" int vx_acc_gpu_start(vx_acc_gpu **gp, const vx_sim_eval *e, const int *idx, int k, int k_g, char *err,
                                size_t errlen) {
  if (gpu_prepare(gp, e->n_elem, k, err, errlen)) return -1;
  vx_acc_gpu *g = *gp;
  cudaStream_t main_s = cudaStreamLegacy; /* the simulation's stream: the stages and the engine order after it */
  memcpy(g->h_idx, idx, sizeof(int) * (size_t)k);
  double *src = (double *)g->d_src, *tgt = (double *)g->d_tgt, *eng = (double *)g->d_eng;
  VX_CUR(cudaEventRecord(g->ev_s0, main_s));
  VX_CUR(cudaMemcpyAsync(g->d_idx, g->h_idx, sizeof(int) * (size_t)k, cudaMemcpyHostToDevice, main_s));
  int n = e->n_elem > k ? e->n_elem : k;
  vx_acc_snap_kernel<<<grid_for(n), ACC_THREADS, 0, main_s>>>(*e, (const int *)g->d_idx, k, k_g, src, tgt, eng);
  VX_CUR_LAUNCH(snap);
  VX_CUR(cudaEventRecord(g->ev_s1, main_s));
  /* the side stream: after the snapshot, concurrent with whatever the main stream does next */
  VX_CUR(cudaStreamWaitEvent(g->side, g->ev_s1, 0));
  VX_CUR(cudaEventRecord(g->ev_d0, g->side));
  int nch = vx_acc_chunks(e->n_elem);
  dim3 grid((unsigned)((k + ACC_THREADS - 1) / ACC_THREADS), (unsigned)nch);
  vx_acc_direct_kernel<<<grid, ACC_THREADS, 0, g->side>>>((int)e->kernel, e->sigma, e->n_elem, nch, src, k, k_g, tgt,
                                                          (double *)g->d_part);
  VX_CUR_LAUNCH(direct);
  vx_acc_reduce_kernel<<<grid_for(12LL * k), ACC_THREADS, 0, g->side>>>((const double *)g->d_part, k, nch,
                                                                        (double *)g->d_ref);
  VX_CUR_LAUNCH(reduce);
  VX_CUR(cudaMemcpyAsync(g->h_eng, eng, sizeof(double) * 12 * (size_t)k, cudaMemcpyDeviceToHost, g->side));
  VX_CUR(cudaMemcpyAsync(g->h_ref, g->d_ref, sizeof(double) * 12 * (size_t)k, cudaMemcpyDeviceToHost, g->side));
  VX_CUR(cudaEventRecord(g->ev_d1, g->side));
  return 0;
}

extern "C" int vx_acc_gpu_finish(vx_acc_gpu *g, int wait, const double **eng, const double **ref, double *ms_snap,
                                 double *ms_direct, char *err, size_t errlen) {
  if (wait) {
    VX_CUR(cudaEventSynchronize(g->ev_d1));
  } else {
    cudaError_t q = cudaEventQuery(g->ev_d1);
    if (q == cudaErrorNotReady) return 0;
    VX_CUR(q);
  }
  float a, b;
  VX_CUR(cudaEventElapsedTime(&a, g->ev_s0, g->ev_s1));
  VX_CUR(cudaEventElapsedTime(&b, g->ev_d0, g->ev_d1));
  *ms_snap = a;
  *ms_direct = b;
  *eng = g->h_eng;
  *ref = g->h_ref;
  return 1;
}

extern "C" void vx_acc_gpu_free(vx_acc_gpu *g) {
  if (!g) return;
  /* errors here have nowhere to go: the frees are best effort, after the side stream is idle */
  if (g->side) cudaStreamSynchronize(g->side);
  cudaFree(g->d_src), cudaFree(g->d_idx), cudaFree(g->d_tgt), cudaFree(g->d_eng), cudaFree(g->d_part), cudaFree(g->d_ref);
  if (g->h_idx) cudaFreeHost(g->h_idx);
  if (g->h_eng) cudaFreeHost(g->h_eng);
  if (g->h_ref) cudaFreeHost(g->h_ref);
  if (g->ev_s0) cudaEventDestroy(g->ev_s0);
  if (g->ev_s1) cudaEventDestroy(g->ev_s1);
  if (g->ev_d0) cudaEventDestroy(g->ev_d0);
  if (g->ev_d1) cudaEventDestroy(g->ev_d1);
  if (g->side) cudaStreamDestroy(g->side);
  free(g);
}
