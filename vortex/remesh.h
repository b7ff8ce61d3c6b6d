/* remesh.h — remeshing the vortex elements onto a regular lattice of spacing h, with viscous
 * diffusion folded into the interpolation (docs/MATH.md §9). The per-element math is written once
 * here (host+device inline) and called by the CPU pipeline (remesh.c) and the CUDA one
 * (remesh_gpu.cu); gpu_test_vortex compares them on random input.
 *
 * The pipeline, the same on both backends and deterministic on each:
 *   1. every element p emits 64 records (stencil s = 0..63): the key of lattice node
 *      base(p) + (s%4, s/4%4, s/16) - 1 and the record's index 64p + s;
 *   2. the records are sorted by (key, index) (CUB's stable radix sort on the GPU, qsort on the CPU);
 *   3. each run of equal keys is one node: its strength is Σ W(x_p/h - node)·α_p summed in record
 *      order, its ring the ring of the largest single contribution;
 *   4. nodes with |α| < drop·max|α| (or < drop_abs) are dropped; the rest become the new elements.
 * W is the tensor product of Monaghan's M4' (third order: conserves Σα, the linear and the angular
 * impulse) or, with ν > 0, of Wee & Ghoniem's modification of it (J. Comput. Phys. 213, 2006, eq. 19)
 * whose second moment grows by 2c², c² = νΔt/h²: the interpolation also diffuses by Δt. */
#ifndef VX_REMESH_H
#define VX_REMESH_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "mem.h"
#include "hd.h"

VX_EXTERN_C_BEGIN

/* Lattice indices are stored with this offset in 21 bits per axis: |x - o|/h < 2^20 - 2. */
#define VX_LATTICE_OFF (1LL << 20)
#define VX_LATTICE_MAX_INDEX ((double)(VX_LATTICE_OFF - 4))
/* Largest diffusion number c² = νΔt/h² one remeshing applies (Wee & Ghoniem: the kernel stays
 * stable and its lattice stencil positive for c² ≤ 1/6); a longer interval remeshes sooner. */
#define VX_REMESH_C2_MAX (1.0 / 6.0)

/* M4' (Monaghan 1985) minus c²·D: the remeshing kernel with diffusion number c² (0: plain M4'). */
VX_HD static inline double vx_m4p(double x, double c2) {
  double a = fabs(x);
  if (a < 1.0) return 1.0 - 2.5 * a * a + 1.5 * a * a * a - c2 * (2.0 - 9.0 * a * a + 6.0 * a * a * a);
  if (a < 2.0) {
    double b = 2.0 - a;
    return 0.5 * b * b * (1.0 - a) - c2 * b * b * (1.0 - 2.0 * a);
  }
  return 0.0;
}

VX_HD static inline uint64_t vx_lattice_key(long long i, long long j, long long k) {
  return ((uint64_t)(i + VX_LATTICE_OFF) << 42) | ((uint64_t)(j + VX_LATTICE_OFF) << 21) | (uint64_t)(k + VX_LATTICE_OFF);
}
VX_HD static inline void vx_lattice_ijk(uint64_t key, long long ijk[3]) {
  const uint64_t m = (1ULL << 21) - 1;
  ijk[0] = (long long)((key >> 42) & m) - VX_LATTICE_OFF;
  ijk[1] = (long long)((key >> 21) & m) - VX_LATTICE_OFF;
  ijk[2] = (long long)(key & m) - VX_LATTICE_OFF;
}

/* The lattice: nodes at o + h·(i, j, k), and the diffusion number of this remeshing. */
typedef struct {
  double o[3], h, inv_h, c2;
} vx_lattice;

/* Coordinate c of node index i; fma, correctly rounded on both backends, so that the CPU and the
 * GPU place the nodes at the same doubles (a compiler may contract i·h + o on one and not the other). */
VX_HD static inline double vx_lattice_coord(const vx_lattice *L, int c, long long i) { return fma((double)i, L->h, L->o[c]); }

/* A value of a backend array in either precision, as double. */
VX_HD static inline double vx_load(const void *a, int is_float, size_t i) {
  return is_float ? (double)((const float *)a)[i] : ((const double *)a)[i];
}
VX_HD static inline void vx_store(void *a, int is_float, size_t i, double v) {
  if (is_float) ((float *)a)[i] = (float)v;
  else ((double *)a)[i] = v;
}

/* Element p's coordinate c in lattice units, (x - o)/h. */
VX_HD static inline double vx_lattice_u(const void *pos, int is_float, int p, int c, const vx_lattice *L) {
  return (vx_load(pos, is_float, 3 * (size_t)p + c) - L->o[c]) * L->inv_h;
}

/* Whether element p lies inside the lattice's index range (and is finite). */
VX_HD static inline int vx_remesh_in_range(const void *pos, int is_float, int p, const vx_lattice *L) {
  for (int c = 0; c < 3; ++c)
    if (!(fabs(vx_lattice_u(pos, is_float, p, c, L)) < VX_LATTICE_MAX_INDEX)) return 0;
  return 1;
}

/* Stencil node s (0..63) of element p: its lattice key, and the interpolation weight into *w. */
VX_HD static inline uint64_t vx_remesh_stencil(const void *pos, int is_float, int p, int s, const vx_lattice *L, double *w) {
  long long n[3];
  double wt = 1.0;
  for (int c = 0; c < 3; ++c) {
    double u = vx_lattice_u(pos, is_float, p, c, L);
    int o = c == 0 ? s & 3 : c == 1 ? (s >> 2) & 3 : s >> 4;
    n[c] = (long long)floor(u) - 1 + o;
    wt *= vx_m4p(u - (double)n[c], L->c2);
  }
  *w = wt;
  return vx_lattice_key(n[0], n[1], n[2]);
}

/* One node: the records idx[begin..end) (all of one key) summed in order; its ring, that of the largest
 * single contribution, whose |·|² goes to *top when given. Returns |α|². */
VX_HD static inline double vx_remesh_node(const uint32_t *idx, long long begin, long long end, const void *pos,
                                          const void *alpha, const int *ring, int is_float, const vx_lattice *L,
                                          double a[3], int *node_ring, double *top) {
  double best = -1.0;
  a[0] = a[1] = a[2] = 0.0;
  *node_ring = 0;
  for (long long r = begin; r < end; ++r) {
    int p = (int)(idx[r] >> 6), s = (int)(idx[r] & 63);
    double w;
    (void)vx_remesh_stencil(pos, is_float, p, s, L, &w);
    double c2w = 0.0;
    for (int c = 0; c < 3; ++c) {
      double v = w * vx_load(alpha, is_float, 3 * (size_t)p + c);
      a[c] += v;
      c2w += v * v;
    }
    if (c2w > best) { best = c2w; *node_ring = ring[p]; }
  }
  if (top) *top = best;
  return a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
}

/* What one remeshing does. Arrays are in backend memory (device on cuda) and in the run's
 * precision; ring is an int array. The outputs are buffers (mem.h) that the call grows. */

typedef struct {
  int n_elem, n_tracer, is_float;
  const void *pos;            /* 3*(n_elem + n_tracer): elements, then tracers */
  const void *alpha;          /* 3*n_elem */
  const int *ring;            /* n_elem */
  double h, c2, drop;         /* spacing, diffusion number νΔt/h², relative drop threshold */
  double origin[3];           /* the lattice's node (0, 0, 0) */
  double drop_abs;            /* > 0: drop nodes with |α| < drop_abs instead (drop is then unused) */
  int part;                   /* one process's part of a spread flow's remeshing (CPU): no drop, and each
                                 node's largest single contribution |·|² into top_out, for the merge */
  /* results */
  vx_mem pos_out;      /* 3*(n_out + n_tracer): new elements at the nodes, then the tracers */
  vx_mem alpha_out;    /* 3*n_out */
  vx_mem ring_out;     /* n_out */
  vx_mem top_out;      /* n_out doubles, with part */
  int n_nodes, n_out;         /* nodes reached, nodes kept */
  double max_alpha;           /* largest |α| over the nodes */
} vx_remesh_job;

typedef struct vx_remesh_ws vx_remesh_ws;   /* scratch of one backend, grown as needed */

/* The lattice a job remeshes onto. */
static inline vx_lattice vx_remesh_lattice(const vx_remesh_job *j) {
  vx_lattice L = {{j->origin[0], j->origin[1], j->origin[2]}, j->h, 1.0 / j->h, j->c2};
  return L;
}

/* Run one remeshing (the job's outputs are grown and filled). 0, or -1 with err: out of memory, or
 * an element outside the lattice's range (|x - o|/h ≥ 2^20 - 4, or not finite). */
int vx_remesh_cpu(vx_remesh_ws **ws, vx_remesh_job *j, char *err, size_t errlen);
int vx_remesh_gpu(vx_remesh_ws **ws, vx_remesh_job *j, char *err, size_t errlen);
void vx_remesh_ws_free_cpu(vx_remesh_ws *ws);

/* A node of a spread flow's remeshing as it travels between processes: its position, its part of the
 * strength, its ring and the largest single contribution |·|² behind that ring. */
typedef struct {
  double x[3], a[3], top;
  int64_t ring;
} vx_node_rec;
/* Merge the n records a process received for its nodes (every process's part of them): the records of
 * one lattice node (L's key of x) summed, each node's ring the one with the largest contribution, the
 * merged nodes in key order at r[0 .. return value). -1 out of memory (err). */
int vx_remesh_merge(const vx_lattice *L, vx_node_rec *r, int n, char *err, size_t errlen);
void vx_remesh_ws_free_gpu(vx_remesh_ws *ws);

VX_EXTERN_C_END
#endif
