/* tracer_colour.h — the values that colour the tracers (render.h: rd_particles.value): the ring
 * each was seeded around, its speed |u|, the magnitude of the vorticity |ω| = |∇×u| there, or its
 * height along the scene's direction of travel. Speed and vorticity come from the simulation's
 * last engine evaluation at the tracers (vx_sim_tracer_field); the values are made where the state
 * lives — host loops on the cpu backend, CUDA kernels (tracer_colour_gpu.cu) on cuda — so that a
 * frame brings nothing back to the host. The per-tracer math is written once, below, for both.
 * Compiles as C11 and as CUDA C++. */
#ifndef VX_TRACER_COLOUR_H
#define VX_TRACER_COLOUR_H

#include <math.h>
#include <stddef.h>
#include "hd.h"
#include "scene.h"
#include "sim.h"

VX_EXTERN_C_BEGIN

typedef enum { VX_TQ_SPEED = 0, VX_TQ_VORTICITY = 1, VX_TQ_HEIGHT = 2 } vx_tracer_quantity;

/* Where the height is measured from and along (vx_scene_travel). */
typedef struct {
  double dir[3];      /* unit */
  double origin[3];
} vx_travel;

/* |u| */
VX_HD static inline float vx_tq_speed(double ux, double uy, double uz) { return (float)sqrt(ux * ux + uy * uy + uz * uz); }

/* |∇×u| from g[3i+j] = ∂u_i/∂x_j: ω = (∂u_z/∂y − ∂u_y/∂z, ∂u_x/∂z − ∂u_z/∂x, ∂u_y/∂x − ∂u_x/∂y). */
VX_HD static inline float vx_tq_vorticity(const double g[9]) {
  double wx = g[7] - g[5], wy = g[2] - g[6], wz = g[3] - g[1];
  return (float)sqrt(wx * wx + wy * wy + wz * wz);
}

/* (x − origin)·dir */
VX_HD static inline float vx_tq_height(double x, double y, double z, const vx_travel *t) {
  return (float)((x - t->origin[0]) * t->dir[0] + (y - t->origin[1]) * t->dir[1] + (z - t->origin[2]) * t->dir[2]);
}

/* One tracer's value from its row i of src (velocity: 3 reals, gradient: 9, position: 3), in
 * double (_d) or float (_f): the rule of the host loop and of the kernel alike. */
#define VX_TQ_ROW_FN(NAME, R)                                                                                \
  VX_HD static inline float NAME(vx_tracer_quantity q, const R *src, size_t i, const vx_travel *t) {         \
    if (q == VX_TQ_VORTICITY) {                                                                              \
      double g[9];                                                                                           \
      for (int k = 0; k < 9; ++k) g[k] = (double)src[9 * i + k];                                             \
      return vx_tq_vorticity(g);                                                                             \
    }                                                                                                        \
    double a = (double)src[3 * i], b = (double)src[3 * i + 1], c = (double)src[3 * i + 2];                   \
    return q == VX_TQ_SPEED ? vx_tq_speed(a, b, c) : vx_tq_height(a, b, c, t);                               \
  }
VX_TQ_ROW_FN(vx_tq_row_d, double)
VX_TQ_ROW_FN(vx_tq_row_f, float)

/* The ring each tracer was seeded around, as blocks of consecutive rows: rows [end[b−1], end[b])
 * (end[−1] = 0) carry label[b]. vx_particles_generate seeds the scene's tracers ring by ring in
 * blocks of the counts vx_scene_set_tracers shares out, and a launched ring's tracers are appended
 * (vx_sim_added_rings); a row past every block is labelled 0. A few hundred numbers, made on the
 * host; the labels are written from them where they are read. */
#define VX_LABEL_BLOCKS (VX_SCENE_MAX_RINGS + VX_SIM_MAX_RINGS + 1)
typedef struct {
  int n;
  int end[VX_LABEL_BLOCKS];
  float label[VX_LABEL_BLOCKS];
} vx_label_blocks;
/* The blocks of nt tracers: the scene's shares of nt less the launched rings' (ad, n_added), then
 * those, oldest first. */
void vx_label_blocks_make(const vx_scene *sc, const vx_sim_added *ad, int n_added, int nt, vx_label_blocks *b);
/* Row i's label: the first block that ends past i (a binary search), 0 past the last. */
VX_HD static inline float vx_block_label(const vx_label_blocks *b, int i) {
  int lo = 0, hi = b->n; /* the answer lies in [lo, hi]; hi = n: past every block */
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (b->end[mid] > i) hi = mid;
    else lo = mid + 1;
  }
  return lo < b->n ? b->label[lo] : 0.0f;
}
/* n labels from b into out: host (the twin) or device memory. */
void vx_ring_labels_cpu(const vx_label_blocks *b, int n, float *out);
int vx_ring_labels_gpu(const vx_label_blocks *b, int n, float *d_out, char *err, size_t errlen);
/* The labels of the scene's own tracers (no launched ring): n_tracer floats (host). */
void vx_tracer_rings(const vx_scene *sc, int n_tracer, float *label);

/* The scene's direction of travel: the rings' axes, each signed by its circulation (Γ > 0 moves a
 * ring along its axis), summed; the first ring's where they cancel (a head-on collision). origin:
 * the mean of the ring centres, so heights are about 0 at the start. */
void vx_scene_travel(const vx_scene *sc, vx_travel *t);

/* Values of q at the simulation's tracers into out (n_tracer floats in backend memory: device on
 * cuda). Vorticity needs stretching on (vx_sim_tracer_field). 0, or -1 with err. */
int vx_tracer_values(vx_sim *s, vx_tracer_quantity q, const vx_travel *t, float *out, char *err, size_t errlen);

/* The same from raw arrays (the twins; tests call both): src holds, per tracer, the velocity (3
 * reals, speed), the gradient (9, vorticity) or the position (3, height), in float (is_float) or
 * double. */
void vx_tracer_values_cpu(vx_tracer_quantity q, const void *src, int is_float, int n, const vx_travel *t, float *out);
int vx_tracer_values_gpu(vx_tracer_quantity q, const void *d_src, int is_float, int n, const vx_travel *t, float *d_out,
                         char *err, size_t errlen);

/* Smallest and largest of n values (host, or device with a reduction whose 8 bytes come back;
 * d_scratch: 2 floats of device memory). Non-finite values are skipped; [0, 0] when none is left. */
void vx_values_range_cpu(const float *v, int n, float range[2]);
int vx_values_range_gpu(const float *d_v, int n, float *d_scratch, float range[2], char *err, size_t errlen);

VX_EXTERN_C_END
#endif
