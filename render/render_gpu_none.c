/* render_gpu_none.c — the CUDA half of the renderer in a build without CUDA (render_gpu.h): no
 * device, so the renderer takes its host paths. Compiled instead of render_gpu.cu. */
#include <stdio.h>

#include "render_gpu.h"

static int none(char *err, size_t errlen) {
  snprintf(err, errlen, "this build has no CUDA support");
  return -1;
}

rd_gpu *rd_gpu_create(char *err, size_t errlen) {
  none(err, errlen);
  return NULL;
}
void rd_gpu_destroy(rd_gpu *g) { (void)g; }
int rd_gpu_register_buffer(rd_gpu *g, int slot, unsigned vbo, char *err, size_t errlen) {
  (void)g; (void)slot; (void)vbo;
  return none(err, errlen);
}
void rd_gpu_unregister_buffer(rd_gpu *g, int slot) { (void)g; (void)slot; }
int rd_gpu_register_texture(rd_gpu *g, unsigned tex, char *err, size_t errlen) {
  (void)g; (void)tex;
  return none(err, errlen);
}
void rd_gpu_unregister_texture(rd_gpu *g) { (void)g; }
int rd_gpu_map(rd_gpu *g, unsigned slots, int tex, char *err, size_t errlen) {
  (void)g; (void)slots; (void)tex;
  return none(err, errlen);
}
int rd_gpu_unmap(rd_gpu *g, char *err, size_t errlen) {
  (void)g;
  if (!err) return -1;
  return none(err, errlen);
}
void *rd_gpu_mapped_buffer(rd_gpu *g, int slot, size_t *bytes) {
  (void)g; (void)slot; (void)bytes;
  return NULL;
}
int rd_gpu_download(void *host, const void *d_src, size_t bytes, char *err, size_t errlen) {
  (void)host; (void)d_src; (void)bytes;
  return none(err, errlen);
}
int rd_gpu_device(void) { return -1; }
int rd_gpu_pack_points(rd_gpu *g, int slot, const void *d_pos, const void *d_alpha, const float *d_value, const int *d_draw,
                       rd_real real, int first, int n, int m, float *host, char *err, size_t errlen) {
  (void)g; (void)slot; (void)d_pos; (void)d_alpha; (void)d_value; (void)d_draw; (void)real; (void)first; (void)n; (void)m; (void)host;
  return none(err, errlen);
}
int rd_gpu_sums(rd_gpu *g, const void *d_pos, rd_real real, int n, double sum[3], char *err, size_t errlen) {
  (void)g; (void)d_pos; (void)real; (void)n; (void)sum;
  return none(err, errlen);
}
int rd_gpu_bounds(rd_gpu *g, const void *d_pos, rd_real real, int n, double mn[3], double mx[3], char *err, size_t errlen) {
  (void)g; (void)d_pos; (void)real; (void)n; (void)mn; (void)mx;
  return none(err, errlen);
}
int rd_gpu_hist_bin(rd_gpu *g, const void *d_pos, rd_real real, int n, int levels, const double lo[3], double side, char *err,
                    size_t errlen) {
  (void)g; (void)d_pos; (void)real; (void)n; (void)levels; (void)lo; (void)side;
  return none(err, errlen);
}
int rd_gpu_hist_build(rd_gpu *g, const void *d_pos, rd_real real, int n, int levels, double lo[3], double *side, char *err,
                      size_t errlen) {
  (void)g; (void)d_pos; (void)real; (void)n; (void)levels; (void)lo; (void)side;
  return none(err, errlen);
}
int rd_gpu_hist_copy(rd_gpu *g, const int *bins, int on_device, int levels, char *err, size_t errlen) {
  (void)g; (void)bins; (void)on_device; (void)levels;
  return none(err, errlen);
}
int rd_gpu_hist_download(rd_gpu *g, int *host, int levels, char *err, size_t errlen) {
  (void)g; (void)host; (void)levels;
  return none(err, errlen);
}
int rd_gpu_hist_total(rd_gpu *g, int levels, long long *total, char *err, size_t errlen) {
  (void)g; (void)levels; (void)total;
  return none(err, errlen);
}
int rd_gpu_opacity(rd_gpu *g, const rd_ray_params *p, int blur, float *host, char *err, size_t errlen) {
  (void)g; (void)p; (void)blur; (void)host;
  return none(err, errlen);
}
