/* filament.h — the tracers' sources where the elements are vortex filaments (docs/MATH.md §15, "The
 * tracers see the filaments through every m-th station"). A filament ring is a closed run of
 * elements, one a station, in order along its centreline; the Gaussian blobs of radius σ make a
 * velocity field that varies on the scale σ, so where the stations lie much closer than σ the
 * tracers' field is summed as well from every m-th station, carrying the strengths of the m stations
 * around it (a trapezoid rule on a coarser spacing). The elements' own calls keep every element.
 *
 * The per-element math is written once below, for double (_d) and float (_f), and run by the host
 * loops (filament.c) and the CUDA kernels (filament_gpu.cu) alike; tests/test_filament.c checks the
 * merged field against the full one, tests/gpu_test_filament.c the kernels against the loops.
 * Compiles as C11 and as CUDA C++. */
#ifndef VX_FILAMENT_H
#define VX_FILAMENT_H

#include <math.h>
#include <stddef.h>
#include "hd.h"

VX_EXTERN_C_BEGIN

/* Merged stations at most this many σ apart: the tracers' velocity within 5.1e-6 of max|u| of the
 * full sum on a wavy ring of 16 384 stations at σ = 43 station spacings (m = 16, 0.37 σ apart;
 * tests/test_filament.c, docs/MATH.md §15). */
#define VX_FIL_GAP_SIGMA 0.5
/* A run is a filament when every strength lies within this of its chord's direction, as
 * 1 − cos(angle) (about 25°): a thick ring's elements go around its cross-section, not along it. */
#define VX_FIL_MISALIGN_MAX 0.1
/* Runs shorter than this, or that would keep fewer merged stations, are left as they are. */
#define VX_FIL_MIN_STATIONS 16
/* The runs one call merges at most (a kernel's argument); more and nothing is merged. */
#define VX_FIL_MAX_BLOCKS 64

/* A run of elements [first, first + count): every m-th of them (m a power of two dividing count;
 * 1: every element, as it is) becomes merged source out, out + 1, ... */
typedef struct {
  int first, count, m, out;
} vx_fil_block;

typedef struct {
  int n;                               /* runs */
  vx_fil_block b[VX_FIL_MAX_BLOCKS];
} vx_fil_blocks;

/* Per element i (0 .. count-1) of run b, in double or float. gap: the distance to the next station
 * (the run closes on itself); misalign: 1 − cos of the angle between α_i and the chord from the
 * previous station to the next (2 when either is zero). merge: merged source j of b, the position of
 * station j·m and the strengths of stations j·m − m/2 .. j·m + m/2, the two ends by half. */
#define VX_FIL_FNS(SUF, R)                                                                                           \
  VX_HD static inline void vx_fil_element_##SUF(const R *pos, const R *alpha, vx_fil_block b, int i, double *gap,   \
                                                double *misalign) {                                               \
    const size_t c = (size_t)(b.first + i), nx = (size_t)(b.first + (i + 1) % b.count),                             \
                 pv = (size_t)(b.first + (i + b.count - 1) % b.count);                                            \
    double d[3], ch[3], a[3], g2 = 0.0, c2 = 0.0, a2 = 0.0, ac = 0.0;                                                \
    for (int k = 0; k < 3; ++k) {                                                                                   \
      d[k] = (double)pos[3 * nx + k] - (double)pos[3 * c + k];                                                      \
      ch[k] = (double)pos[3 * nx + k] - (double)pos[3 * pv + k];                                                    \
      a[k] = (double)alpha[3 * c + k];                                                                              \
      g2 += d[k] * d[k], c2 += ch[k] * ch[k], a2 += a[k] * a[k], ac += a[k] * ch[k];                                \
    }                                                                                                               \
    *gap = sqrt(g2);                                                                                                \
    *misalign = a2 > 0.0 && c2 > 0.0 ? fmax(0.0, 1.0 - ac / sqrt(a2 * c2)) : 2.0;                                   \
  }                                                                                                                 \
  VX_HD static inline void vx_fil_merge_##SUF(const R *pos, const R *alpha, vx_fil_block b, int j, R *out_pos,      \
                                              R *out_alpha) {                                                     \
    const int m = b.m, h = m / 2, c = j * m;                                                                        \
    const size_t o = (size_t)(b.out + j);                                                                           \
    double s[3] = {0.0, 0.0, 0.0};                                                                                  \
    for (int q = -h; q <= h; ++q) {                                                                                 \
      const size_t e = (size_t)(b.first + (c + q + b.count) % b.count);                                             \
      const double w = m > 1 && (q == -h || q == h) ? 0.5 : 1.0;                                                    \
      for (int k = 0; k < 3; ++k) s[k] += w * (double)alpha[3 * e + k];                                             \
    }                                                                                                               \
    for (int k = 0; k < 3; ++k) {                                                                                   \
      out_pos[3 * o + k] = pos[3 * (size_t)(b.first + c) + k];                                                      \
      out_alpha[3 * o + k] = (R)s[k];                                                                               \
    }                                                                                                               \
  }
VX_FIL_FNS(d, double)
VX_FIL_FNS(f, float)
#undef VX_FIL_FNS

/* The runs of one ring id among the n elements (ring: the host's ids), each with m = 1 and out =
 * first; 0, or -1 when there are more than VX_FIL_MAX_BLOCKS. */
int vx_fil_runs(const int *ring, int n, vx_fil_blocks *bl);
/* Each run's m from its largest gap and misalignment (vx_fil_stats_*) at smoothing radius sigma:
 * the largest power of two dividing count whose merged stations lie at most VX_FIL_GAP_SIGMA·σ
 * apart, keeping at least VX_FIL_MIN_STATIONS of them; 1 for a run that is not a filament. Sets
 * out; returns the merged sources in all, and *merged = 1 when any run has m > 1. */
int vx_fil_plan(vx_fil_blocks *bl, const double *gap, const double *misalign, double sigma, int *merged);

/* Each run's largest gap and misalignment into gap[k], misalign[k] (k < bl->n): host arrays
 * (_cpu) or device arrays with the result on the host (_gpu; d_scratch holds 2·VX_FIL_MAX_BLOCKS
 * unsigned ints). is_float: the arrays' precision. 0, or -1 with err. */
void vx_fil_stats_cpu(int is_float, const void *pos, const void *alpha, const vx_fil_blocks *bl, double *gap,
                      double *misalign);
int vx_fil_stats_gpu(int is_float, const void *pos, const void *alpha, const vx_fil_blocks *bl, void *d_scratch,
                     double *gap, double *misalign, char *err, size_t errlen);
/* The merged sources of every run into out_pos / out_alpha (3 reals each; vx_fil_plan's count). */
void vx_fil_merge_cpu(int is_float, const void *pos, const void *alpha, const vx_fil_blocks *bl, void *out_pos,
                      void *out_alpha);
int vx_fil_merge_gpu(int is_float, const void *pos, const void *alpha, const vx_fil_blocks *bl, void *out_pos,
                     void *out_alpha, char *err, size_t errlen);

VX_EXTERN_C_END
#endif
