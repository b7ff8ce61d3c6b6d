/* dist_gpu.cu — the distributed engine's device side (dist_gpu.h). */
#include "dist_gpu.h"

#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "octree.h"
#include "octree_gpu.h"

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

/* The least and greatest key (atomicMin, atomicMax): span[0..1]. */
__global__ void k_dist_span(const uint32_t *keys, int n, unsigned *span) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint32_t k = keys[i];
  atomicMin(span, k), atomicMax(span + 1, k);
}

/* A bit a level-l cell (shift sh = 30 - 3l). */
__global__ void k_dist_cell_bits(const uint32_t *keys, int n, int sh, unsigned *bits) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint32_t q = keys[i] >> sh;
  atomicOr(bits + (q >> 5), 1u << (q & 31));
}

__global__ void k_dist_popcount(const unsigned *bits, size_t nw, unsigned long long *count) {
  unsigned long long c = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nw; i += (size_t)gridDim.x * blockDim.x)
    c += __popc(bits[i]);
  for (int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(0xffffffffu, c, o);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(count, c);
}

/* flag[i] = 1 when point i's level-L cell lists rank r among its destinations (table: off then cnt, a cell
 * of c0..c1 each). */
__global__ void k_dist_flag(const uint32_t *keys, int n, int sh, uint32_t c0, uint32_t c1, const int *off, const int *cnt,
                            const int *pool, int r, int *flag) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint32_t q = keys[i] >> sh;
  int f = 0;
  if (q >= c0 && q <= c1)
    for (int j = 0; j < cnt[q - c0]; j++) f |= pool[off[q - c0] + j] == r;
  flag[i] = f;
}

/* The flagged points' indices at their scanned places. */
__global__ void k_dist_compact(const int *flag, const int *at, int n, int *idx) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && flag[i]) idx[at[i]] = i;
}

static int grow(void **p, size_t *cap, size_t bytes, const char *what, char *err, size_t errlen) {
  const cudaError_t e = vx_dev_reserve(p, cap, bytes > 0 ? bytes : 1);
  if (e == cudaSuccess) return 0;
  cudaGetLastError();
  snprintf(err, errlen, "GPU: %.1f MiB for %s: %s", bytes / 1048576.0, what, cudaGetErrorString(e));
  return -1;
}

static unsigned blocks(long long n) { return (unsigned)((n + 255) / 256 > 0 ? (n + 255) / 256 : 1); }

extern "C" int vx_dist_dev_bounds(vx_dist_dev *w, const void *d_pos, int pos_float, int n, double mn[3], double mx[3],
                                  int *bad, char *err, size_t errlen) {
  if (grow(&w->bnd, &w->bnd_cap, oct_bounds_scratch_gpu(), "the points' bounds", err, errlen)) return -1;
  return oct_bounds_gpu(d_pos, n, pos_float, w->bnd, mn, mx, bad, err, errlen);
}

extern "C" int vx_dist_dev_key_span(vx_dist_dev *w, const vx_part_cube *cube, const void *d_pos, int pos_float, int n,
                                    int targets, const uint32_t **d_keys, uint32_t span[2], char *err, size_t errlen) {
  void **buf = targets ? &w->tkeys : &w->keys;
  size_t *cap = targets ? &w->tkeys_cap : &w->keys_cap;
  if (grow(buf, cap, sizeof(uint32_t) * (n > 0 ? n : 1), "the points' keys", err, errlen) ||
      grow(&w->small, &w->small_cap, 64, "the keys' span", err, errlen))
    return -1;
  *d_keys = (const uint32_t *)*buf;
  unsigned h[2] = {0xffffffffu, 0u};
  VX_CUR(cudaMemcpy(w->small, h, sizeof h, cudaMemcpyHostToDevice));
  if (n > 0) {
    k_dist_keys<<<blocks(n), 256>>>(d_pos, pos_float, n, cube->lo[0], cube->lo[1], cube->lo[2], 1.0 / cube->side,
                                    (uint32_t *)*buf);
    VX_CUR(cudaGetLastError());
    k_dist_span<<<blocks(n), 256>>>((const uint32_t *)*buf, n, (unsigned *)w->small);
    VX_CUR(cudaGetLastError());
  }
  VX_CUR(cudaMemcpy(h, w->small, sizeof h, cudaMemcpyDeviceToHost));
  span[0] = h[0], span[1] = h[1];
  return 0;
}

extern "C" int vx_dist_dev_cell_bytes(vx_dist_dev *w, size_t b0, size_t nb, void *bits, char *err, size_t errlen) {
  if (b0 + nb > w->bits_cap) {
    snprintf(err, errlen, "cell bytes %zu..%zu beyond the level's bitmap (%zu bytes)", b0, b0 + nb, w->bits_cap);
    return -1;
  }
  VX_CUR(cudaMemcpy(bits, (const char *)w->bits + b0, nb, cudaMemcpyDeviceToHost));
  return 0;
}

extern "C" int vx_dist_dev_cells(vx_dist_dev *w, const uint32_t *d_keys, int n, int l, long long *count, char *err,
                                 size_t errlen) {
  const size_t nw = (((size_t)1 << (3 * l)) + 31) / 32;
  if (grow(&w->bits, &w->bits_cap, sizeof(unsigned) * nw, "a level's cells", err, errlen) ||
      grow(&w->small, &w->small_cap, 64, "a level's cells", err, errlen))
    return -1;
  VX_CUR(cudaMemset(w->bits, 0, sizeof(unsigned) * nw));
  VX_CUR(cudaMemset(w->small, 0, sizeof(unsigned long long)));
  if (n > 0) {
    k_dist_cell_bits<<<blocks(n), 256>>>(d_keys, n, VX_PART_KEY_BITS - 3 * l, (unsigned *)w->bits);
    VX_CUR(cudaGetLastError());
    const unsigned nb = blocks((long long)nw) < 1024 ? blocks((long long)nw) : 1024;
    k_dist_popcount<<<nb, 256>>>((const unsigned *)w->bits, nw, (unsigned long long *)w->small);
    VX_CUR(cudaGetLastError());
  }
  unsigned long long c = 0;
  VX_CUR(cudaMemcpy(&c, w->small, sizeof c, cudaMemcpyDeviceToHost));
  *count = (long long)c;
  return 0;
}

extern "C" int vx_dist_dev_halo(vx_dist_dev *w, const uint32_t *d_keys, int n, int L, uint32_t c0, uint32_t c1,
                                const int *off, const int *cnt, const int *pool, int n_pool, int R, const void *d_pos,
                                const void *d_str, size_t rs, int *count, int *displ, int *idx, char *err,
                                size_t errlen) {
  const size_t nc = (size_t)(c1 - c0 + 1), tab = 2 * nc + (size_t)n_pool;
  size_t tmp_bytes = 0;
  VX_CUR(cub::DeviceScan::ExclusiveSum(NULL, tmp_bytes, (const int *)NULL, (int *)NULL, n > 0 ? n : 1));
  if (grow(&w->table, &w->table_cap, sizeof(int) * tab, "the halo's cells", err, errlen) ||
      grow(&w->flag, &w->flag_cap, 2 * sizeof(int) * (size_t)(n > 0 ? n : 1), "the halo's flags", err, errlen) ||
      grow(&w->tmp, &w->tmp_cap, tmp_bytes, "the halo's scan", err, errlen))
    return -1;
  int *t = (int *)w->table, *flag = (int *)w->flag, *at = flag + (n > 0 ? n : 1);
  VX_CUR(cudaMemcpy(t, off, sizeof(int) * nc, cudaMemcpyHostToDevice));
  VX_CUR(cudaMemcpy(t + nc, cnt, sizeof(int) * nc, cudaMemcpyHostToDevice));
  if (n_pool > 0) VX_CUR(cudaMemcpy(t + 2 * nc, pool, sizeof(int) * n_pool, cudaMemcpyHostToDevice));
  /* each rank's points: flags and their scan, once for the counts, then again for the places */
  long long total = 0;
  for (int pass = 0; pass < 2 && n > 0; pass++) {
    if (pass == 1 && total > 0 && grow(&w->idx, &w->idx_cap, sizeof(int) * (size_t)total, "the halo's indices", err, errlen))
      return -1;
    for (int r = 0; r < R; r++) {
      if (pass == 1 && count[r] == 0) continue;
      k_dist_flag<<<blocks(n), 256>>>(d_keys, n, VX_PART_KEY_BITS - 3 * L, c0, c1, t, t + nc, t + 2 * nc, r, flag);
      VX_CUR(cudaGetLastError());
      VX_CUR(cub::DeviceScan::ExclusiveSum(w->tmp, tmp_bytes, flag, at, n));
      if (pass == 1) {
        k_dist_compact<<<blocks(n), 256>>>(flag, at, n, (int *)w->idx + displ[r]);
        VX_CUR(cudaGetLastError());
        continue;
      }
      int last[2];
      VX_CUR(cudaMemcpy(&last[0], at + n - 1, sizeof(int), cudaMemcpyDeviceToHost));
      VX_CUR(cudaMemcpy(&last[1], flag + n - 1, sizeof(int), cudaMemcpyDeviceToHost));
      displ[r] = (int)total, count[r] = last[0] + last[1], total += count[r];
    }
  }
  if (n == 0)
    for (int r = 0; r < R; r++) displ[r] = count[r] = 0;
  if (total > 0) {
    if (idx) VX_CUR(cudaMemcpy(idx, w->idx, sizeof(int) * total, cudaMemcpyDeviceToHost));
    if (grow(&w->rec, &w->rec_cap, 6 * rs * total, "the halo's records", err, errlen)) return -1;
    k_dist_gather<<<blocks(total), 256>>>((const char *)d_pos, (const char *)d_str, rs, (const int *)w->idx, (int)total,
                                          (char *)w->rec);
    VX_CUR(cudaGetLastError());
    VX_CUR(cudaDeviceSynchronize());
  }
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
  void *all[] = {w->keys, w->idx, w->rec, w->pos, w->str, w->recv, w->tkeys, w->bits, w->flag, w->tmp, w->table, w->small, w->bnd};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (all[i]) cudaFree(all[i]);
  memset(w, 0, sizeof *w);
}
