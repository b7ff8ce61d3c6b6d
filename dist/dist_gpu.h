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
  void *keys, *idx, *rec, *pos, *str, *recv, *tkeys, *bits, *flag, *tmp, *table, *small, *bnd;
  size_t keys_cap, idx_cap, rec_cap, pos_cap, str_cap, recv_cap, tkeys_cap, bits_cap, flag_cap, tmp_cap, table_cap,
      small_cap, bnd_cap;
  int n_peer;
  void **peer_ptr;       /* rank q's receiving buffer, opened (NULL: none) */
  unsigned char *peer_h; /* its handle, VX_DIST_IPC_HANDLE bytes a rank */
} vx_dist_dev;

/* Bytes of a receiving buffer's handle (cudaIpcMemHandle_t). */
#define VX_DIST_IPC_HANDLE 64

/* The records of the m device points idx (host indices): each the position then the strength, 3 reals of
 * rs bytes each, into the host array rec (6 rs m bytes). 0, or -1 with err. */
int vx_dist_dev_gather(vx_dist_dev *w, const void *d_pos, const void *d_str, size_t rs, const int *idx, int m, void *rec,
                       char *err, size_t errlen);
/* The device arrays *pos and *str (w's, 3 (ns + nh) reals each) holding the ns device sources, then the nh
 * halo records rec (host, as vx_dist_dev_gather makes them). 0, or -1 with err. */
int vx_dist_dev_sources(vx_dist_dev *w, const void *d_pos, const void *d_str, int ns, const void *rec, int nh, size_t rs,
                        void **pos, void **str, char *err, size_t errlen);
/* The bounds of n device points (vx_part_bounds' device twin, by the octree build's reduction): only mn, mx
 * and *bad cross to the host. 0, or -1 with err. */
int vx_dist_dev_bounds(vx_dist_dev *w, const void *d_pos, int pos_float, int n, double mn[3], double mx[3], int *bad,
                       char *err, size_t errlen);
/* The level-10 keys (vx_part_keys_of) of n device points into a device array of w's (*d_keys: the sources' buffer, or with
 * targets set the targets'), their least and greatest into span (UINT32_MAX and 0 when n = 0): only those cross to
 * the host. 0, or -1 with err. */
int vx_dist_dev_key_span(vx_dist_dev *w, const vx_part_cube *cube, const void *d_pos, int pos_float, int n, int targets,
                         const uint32_t **d_keys, uint32_t span[2], char *err, size_t errlen);
/* The distinct level-l cells (l <= 8) of n device keys into *count (engine.c's distinct_cells on the host). */
int vx_dist_dev_cells(vx_dist_dev *w, const uint32_t *d_keys, int n, int l, long long *count, char *err, size_t errlen);
/* Bytes [b0, b0 + nb) of the level bitmap the last vx_dist_dev_cells made (cell q: byte q/8, bit q%8), into
 * the host array bits (engine.c's union of overlapping spans). 0, or -1 with err. */
int vx_dist_dev_cell_bytes(vx_dist_dev *w, size_t b0, size_t nb, void *bits, char *err, size_t errlen);
/* The halo's copies grouped by rank from n device keys: the level-L cells c0..c1 (those of the rank's key
 * range) have destinations pool[off[c - c0] .. off[c - c0] + cnt[c - c0]); for each of the R ranks the
 * points whose cell lists it, in order, are gathered into w's send buffer by rank (the records of
 * vx_dist_dev_gather); count and displ (R each) in records. idx (host, NULL: none) receives the points'
 * indices as grouped, for the host twin's test (vx_halo_dests, vx_part_pack). 0, or -1 with err. */
int vx_dist_dev_halo(vx_dist_dev *w, const uint32_t *d_keys, int n, int L, uint32_t c0, uint32_t c1, const int *off,
                     const int *cnt, const int *pool, int n_pool, int R, const void *d_pos, const void *d_str, size_t rs,
                     int *count, int *displ, int *idx, char *err, size_t errlen);

/* The halo by peer copies between the ranks of one node (NVLink; Debian's Open MPI is not CUDA-aware),
 * after vx_dist_dev_halo has filled w's send buffer: vx_dist_dev_recv grows w's receiving buffer to `bytes` and gives its handle;
 * vx_dist_dev_put copies `bytes` from the send buffer at src_off into rank `peer`'s receiving buffer (its
 * handle, opened once and kept while it stays the same) at dst_off; vx_dist_dev_wait waits for the copies;
 * vx_dist_dev_place puts the ns device sources and then the nh records of w's receiving buffer into w's
 * local arrays. Each 0, or -1 with err. */
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
