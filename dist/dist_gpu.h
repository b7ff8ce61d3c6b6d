/* dist_gpu.h — the distributed engine's device side (engine.c, dist_gpu.cu): with the CUDA backend's
 * device arrays, the points' keys computed where the points are, the halo's records gathered there, and
 * the rank's sources followed by its halo assembled there, so that only keys and the halo cross to the
 * host. Each has a host twin in engine.c and partition.c (the same arithmetic: gpu_test_dist). */
#ifndef VX_DIST_GPU_H
#define VX_DIST_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "partition.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device work buffers, grown on demand (zeroed: none yet), and the other ranks' receiving buffers this
 * rank has opened (CUDA IPC). */
typedef struct {
  void *keys, *idx, *rec, *pos, *str, *recv;
  size_t keys_cap, idx_cap, rec_cap, pos_cap, str_cap, recv_cap;
  int n_peer;
  void **peer_ptr;       /* rank q's receiving buffer, opened (NULL: none) */
  unsigned char *peer_h; /* its handle, VX_DIST_IPC_HANDLE bytes a rank */
} vx_dist_dev;

/* Bytes of a receiving buffer's handle (cudaIpcMemHandle_t). */
#define VX_DIST_IPC_HANDLE 64

/* The level-10 keys (vx_part_keys_of) of n device points into the host array keys. 0, or -1 with err. */
int vx_dist_dev_keys(vx_dist_dev *w, const vx_part_cube *cube, const void *d_pos, int pos_float, int n, uint32_t *keys,
                     char *err, size_t errlen);
/* The records of the m device points idx (host indices): each the position then the strength, 3 reals of
 * rs bytes each, into the host array rec (6 rs m bytes). 0, or -1 with err. */
int vx_dist_dev_gather(vx_dist_dev *w, const void *d_pos, const void *d_str, size_t rs, const int *idx, int m, void *rec,
                       char *err, size_t errlen);
/* The device arrays *pos and *str (w's, 3 (ns + nh) reals each) holding the ns device sources, then the nh
 * halo records rec (host, as vx_dist_dev_gather makes them). 0, or -1 with err. */
int vx_dist_dev_sources(vx_dist_dev *w, const void *d_pos, const void *d_str, int ns, const void *rec, int nh, size_t rs,
                        void **pos, void **str, char *err, size_t errlen);
/* The halo by peer copies between the ranks of one node (NVLink; Debian's Open MPI is not CUDA-aware):
 * vx_dist_dev_pack gathers the records of the m device points idx (host indices, grouped by destination)
 * into w's send buffer; vx_dist_dev_recv grows w's receiving buffer to `bytes` and gives its handle;
 * vx_dist_dev_put copies `bytes` from the send buffer at src_off into rank `peer`'s receiving buffer (its
 * handle, opened once and kept while it stays the same) at dst_off; vx_dist_dev_wait waits for the copies;
 * vx_dist_dev_place puts the ns device sources and then the nh records of w's receiving buffer into w's
 * local arrays. Each 0, or -1 with err. */
int vx_dist_dev_pack(vx_dist_dev *w, const void *d_pos, const void *d_str, size_t rs, const int *idx, int m, char *err,
                     size_t errlen);
int vx_dist_dev_recv(vx_dist_dev *w, size_t bytes, void *handle, char *err, size_t errlen);
int vx_dist_dev_put(vx_dist_dev *w, int peer, int n_rank, const void *handle, size_t dst_off, size_t src_off, size_t bytes,
                    char *err, size_t errlen);
int vx_dist_dev_wait(char *err, size_t errlen);
int vx_dist_dev_place(vx_dist_dev *w, const void *d_pos, const void *d_str, int ns, int nh, size_t rs, void **pos,
                      void **str, char *err, size_t errlen);
void vx_dist_dev_free(vx_dist_dev *w);

#ifdef __cplusplus
}
#endif
#endif
