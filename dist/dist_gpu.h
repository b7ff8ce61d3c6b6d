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

/* Device work buffers, grown on demand (zeroed: none yet). */
typedef struct {
  void *keys, *idx, *rec, *pos, *str;
  size_t keys_cap, idx_cap, rec_cap, pos_cap, str_cap;
} vx_dist_dev;

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
void vx_dist_dev_free(vx_dist_dev *w);

#ifdef __cplusplus
}
#endif
#endif
