/* dist_gpu.cu — the distributed engine's device side (dist_gpu.h). */
#include "dist_gpu.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "octree.h"

/* The host twin is vx_part_keys_of (partition.c): the same cells from the same doubles. */
__global__ void k_dist_keys(const void *pos, int pos_float, int n, double lo0, double lo1, double lo2, double inv,
                            uint32_t *keys) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double lo[3] = {lo0, lo1, lo2};
  uint32_t c[3];
  for (int k = 0; k < 3; k++) {
    const double x = pos_float ? ((const float *)pos)[3 * (size_t)i + k] : ((const double *)pos)[3 * (size_t)i + k];
    c[k] = oct_cell(x, lo[k], inv, VX_PART_KEY_BITS / 3);
  }
  keys[i] = oct_morton3(c[0], c[1], c[2]);
}

/* Record j: point idx[j]'s position then strength (rs-byte reals). Its host twin: engine.c's pack_records. */
__global__ void k_dist_gather(const char *pos, const char *str, size_t rs, const int *idx, int m, char *rec) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  const size_t i = (size_t)idx[j];
  memcpy(rec + 6 * rs * j, pos + 3 * rs * i, 3 * rs);
  memcpy(rec + 6 * rs * j + 3 * rs, str + 3 * rs * i, 3 * rs);
}

/* Halo record j into sources ns + j. Its host twin: engine.c's unpack_records. */
__global__ void k_dist_scatter(const char *rec, size_t rs, int ns, int nh, char *pos, char *str) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= nh) return;
  memcpy(pos + 3 * rs * ((size_t)ns + j), rec + 6 * rs * j, 3 * rs);
  memcpy(str + 3 * rs * ((size_t)ns + j), rec + 6 * rs * j + 3 * rs, 3 * rs);
}

static int grow(void **p, size_t *cap, size_t bytes, const char *what, char *err, size_t errlen) {
  const cudaError_t e = vx_dev_reserve(p, cap, bytes > 0 ? bytes : 1);
  if (e == cudaSuccess) return 0;
  cudaGetLastError();
  snprintf(err, errlen, "GPU: %.1f MiB for %s: %s", bytes / 1048576.0, what, cudaGetErrorString(e));
  return -1;
}

static unsigned blocks(long long n) { return (unsigned)((n + 255) / 256 > 0 ? (n + 255) / 256 : 1); }

extern "C" int vx_dist_dev_keys(vx_dist_dev *w, const vx_part_cube *cube, const void *d_pos, int pos_float, int n,
                                uint32_t *keys, char *err, size_t errlen) {
  if (n <= 0) return 0;
  if (grow(&w->keys, &w->keys_cap, sizeof(uint32_t) * n, "the points' keys", err, errlen)) return -1;
  k_dist_keys<<<blocks(n), 256>>>(d_pos, pos_float, n, cube->lo[0], cube->lo[1], cube->lo[2], 1.0 / cube->side,
                                  (uint32_t *)w->keys);
  VX_CUR(cudaGetLastError());
  VX_CUR(cudaMemcpy(keys, w->keys, sizeof(uint32_t) * n, cudaMemcpyDeviceToHost));
  return 0;
}

extern "C" int vx_dist_dev_gather(vx_dist_dev *w, const void *d_pos, const void *d_str, size_t rs, const int *idx, int m,
                                  void *rec, char *err, size_t errlen) {
  if (m <= 0) return 0;
  if (grow(&w->idx, &w->idx_cap, sizeof(int) * m, "the halo's indices", err, errlen) ||
      grow(&w->rec, &w->rec_cap, 6 * rs * m, "the halo's records", err, errlen))
    return -1;
  VX_CUR(cudaMemcpy(w->idx, idx, sizeof(int) * m, cudaMemcpyHostToDevice));
  k_dist_gather<<<blocks(m), 256>>>((const char *)d_pos, (const char *)d_str, rs, (const int *)w->idx, m, (char *)w->rec);
  VX_CUR(cudaGetLastError());
  VX_CUR(cudaMemcpy(rec, w->rec, 6 * rs * m, cudaMemcpyDeviceToHost));
  return 0;
}

extern "C" int vx_dist_dev_sources(vx_dist_dev *w, const void *d_pos, const void *d_str, int ns, const void *rec, int nh,
                                   size_t rs, void **pos, void **str, char *err, size_t errlen) {
  const size_t n = (size_t)ns + nh;
  if (grow(&w->pos, &w->pos_cap, 3 * rs * n, "the local sources", err, errlen) ||
      grow(&w->str, &w->str_cap, 3 * rs * n, "the local sources", err, errlen) ||
      (nh > 0 && grow(&w->rec, &w->rec_cap, 6 * rs * nh, "the halo's records", err, errlen)))
    return -1;
  if (ns > 0) {
    VX_CUR(cudaMemcpy(w->pos, d_pos, 3 * rs * ns, cudaMemcpyDeviceToDevice));
    VX_CUR(cudaMemcpy(w->str, d_str, 3 * rs * ns, cudaMemcpyDeviceToDevice));
  }
  if (nh > 0) {
    VX_CUR(cudaMemcpy(w->rec, rec, 6 * rs * nh, cudaMemcpyHostToDevice));
    k_dist_scatter<<<blocks(nh), 256>>>((const char *)w->rec, rs, ns, nh, (char *)w->pos, (char *)w->str);
    VX_CUR(cudaGetLastError());
    VX_CUR(cudaDeviceSynchronize());
  }
  *pos = w->pos, *str = w->str;
  return 0;
}

extern "C" int vx_dist_dev_pack(vx_dist_dev *w, const void *d_pos, const void *d_str, size_t rs, const int *idx, int m,
                                char *err, size_t errlen) {
  if (m <= 0) return 0;
  if (grow(&w->idx, &w->idx_cap, sizeof(int) * m, "the halo's indices", err, errlen) ||
      grow(&w->rec, &w->rec_cap, 6 * rs * m, "the halo's records", err, errlen))
    return -1;
  VX_CUR(cudaMemcpy(w->idx, idx, sizeof(int) * m, cudaMemcpyHostToDevice));
  k_dist_gather<<<blocks(m), 256>>>((const char *)d_pos, (const char *)d_str, rs, (const int *)w->idx, m, (char *)w->rec);
  VX_CUR(cudaGetLastError());
  VX_CUR(cudaDeviceSynchronize());
  return 0;
}

extern "C" int vx_dist_dev_recv(vx_dist_dev *w, size_t bytes, void *handle, char *err, size_t errlen) {
  if (grow(&w->recv, &w->recv_cap, bytes, "the halo's receiving buffer", err, errlen)) return -1;
  cudaIpcMemHandle_t h;
  VX_CUR(cudaIpcGetMemHandle(&h, w->recv));
  memcpy(handle, &h, VX_DIST_IPC_HANDLE);
  return 0;
}

extern "C" int vx_dist_dev_put(vx_dist_dev *w, int peer, int n_rank, const void *handle, size_t dst_off, size_t src_off,
                               size_t bytes, char *err, size_t errlen) {
  if (w->n_peer < n_rank) {
    void **p = (void **)realloc(w->peer_ptr, sizeof(void *) * n_rank);
    unsigned char *h = p ? (unsigned char *)realloc(w->peer_h, (size_t)VX_DIST_IPC_HANDLE * n_rank) : NULL;
    if (p) w->peer_ptr = p;
    if (!p || !h) {
      snprintf(err, errlen, "out of memory for the peers' buffers");
      return -1;
    }
    w->peer_h = h;
    for (int q = w->n_peer; q < n_rank; q++) w->peer_ptr[q] = NULL;
    w->n_peer = n_rank;
  }
  unsigned char *kept = w->peer_h + (size_t)VX_DIST_IPC_HANDLE * peer;
  if (w->peer_ptr[peer] && memcmp(kept, handle, VX_DIST_IPC_HANDLE)) { /* that rank's buffer grew */
    VX_CUR(cudaIpcCloseMemHandle(w->peer_ptr[peer]));
    w->peer_ptr[peer] = NULL;
  }
  if (!w->peer_ptr[peer]) {
    cudaIpcMemHandle_t h;
    memcpy(&h, handle, VX_DIST_IPC_HANDLE);
    VX_CUR(cudaIpcOpenMemHandle(&w->peer_ptr[peer], h, cudaIpcMemLazyEnablePeerAccess));
    memcpy(kept, handle, VX_DIST_IPC_HANDLE);
  }
  VX_CUR(cudaMemcpyAsync((char *)w->peer_ptr[peer] + dst_off, (const char *)w->rec + src_off, bytes, cudaMemcpyDeviceToDevice));
  return 0;
}

extern "C" int vx_dist_dev_wait(char *err, size_t errlen) {
  VX_CUR(cudaDeviceSynchronize());
  return 0;
}

extern "C" int vx_dist_dev_place(vx_dist_dev *w, const void *d_pos, const void *d_str, int ns, int nh, size_t rs, void **pos,
                                 void **str, char *err, size_t errlen) {
  const size_t n = (size_t)ns + nh;
  if (grow(&w->pos, &w->pos_cap, 3 * rs * n, "the local sources", err, errlen) ||
      grow(&w->str, &w->str_cap, 3 * rs * n, "the local sources", err, errlen))
    return -1;
  if (ns > 0) {
    VX_CUR(cudaMemcpy(w->pos, d_pos, 3 * rs * ns, cudaMemcpyDeviceToDevice));
    VX_CUR(cudaMemcpy(w->str, d_str, 3 * rs * ns, cudaMemcpyDeviceToDevice));
  }
  if (nh > 0) {
    k_dist_scatter<<<blocks(nh), 256>>>((const char *)w->recv, rs, ns, nh, (char *)w->pos, (char *)w->str);
    VX_CUR(cudaGetLastError());
    VX_CUR(cudaDeviceSynchronize());
  }
  *pos = w->pos, *str = w->str;
  return 0;
}

extern "C" void vx_dist_dev_free(vx_dist_dev *w) {
  for (int q = 0; q < w->n_peer; q++)
    if (w->peer_ptr[q]) cudaIpcCloseMemHandle(w->peer_ptr[q]);
  free(w->peer_ptr), free(w->peer_h);
  void *all[] = {w->keys, w->idx, w->rec, w->pos, w->str, w->recv};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (all[i]) cudaFree(all[i]);
  memset(w, 0, sizeof *w);
}
