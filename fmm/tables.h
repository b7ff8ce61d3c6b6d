/* tables.h — precomputed translation data for one expansion order p: y-rotation matrices for
 * every polar angle that occurs between box centres, the azimuth of every integer offset, and the
 * coaxial M2M / L2L / M2L coefficients (docs/MATH.md §4–5). Built once per order, in double and
 * converted to float. Host code; the GPU backend copies the arrays to the device. */
#ifndef VX_TABLES_H
#define VX_TABLES_H
#include <stddef.h>
#include "hd.h"

VX_EXTERN_C_BEGIN

/* Integer box offsets v in [-3,3]^3 (M2L: source centre - target centre, in box widths; M2M/L2L:
 * the octant direction (±1,±1,±1) of child centre - parent centre). */
#define VX_GEO_N 343
VX_HD static inline int vx_geo_index(int dx, int dy, int dz) { return ((dx + 3) * 7 + (dy + 3)) * 7 + (dz + 3); }

typedef struct {
  int p;
  int n_theta;              /* distinct polar angles */
  int roty_stride;          /* entries of one y-rotation table: vx_roty_off(p+1) */
  double *roty;             /* n_theta tables D_y(-θ) */
  float *roty_f;
  int geo_theta[VX_GEO_N];  /* polar-angle table of each offset */
  double geo_cphi[VX_GEO_N], geo_sphi[VX_GEO_N], geo_len[VX_GEO_N]; /* cos φ, sin φ, |v| */
  int m2l_deg[VX_GEO_N];    /* the multipole degrees an M2L along offset g reads: 0..m2l_deg[g] (≤ p;
                               fmm_m2l_degree, docs/MATH.md §13); p where |v|∞ < 2 */
  float geo_cphi_f[VX_GEO_N], geo_sphi_f[VX_GEO_N], geo_len_f[VX_GEO_N];
  int coax_n;               /* (p+1)^3 entries in each coaxial table */
  double *m2m, *l2l, *m2l;  /* [|m|][a][b], see translate_t.h */
  float *m2m_f, *l2l_f, *m2l_f;
} fmm_tables;

/* The M2L source-degree cut (docs/MATH.md §13, fewer multipole degrees at the farther offsets): an
 * M2L along an offset of length d (box widths) reads the multipole's degrees 0..fmm_m2l_degree(p, d,
 * tau) only: the smallest n_s ≤ p for which (a/(d−a))^(n_s+1) ≤ tau·(a/(2−a))^(p+1) — the dropped
 * degrees' geometric bound for sources within a box widths of the source centre, against tau times
 * that of order p at the nearest offsets (d = 2). With a = 0.6 and tau = 0.1 the errors against
 * direct summation stay within 1.5 % of the uncut engine's at p = 8..20 (double, uniform and rings)
 * while the M2L reads 71 % of the coefficients at p = 8, 63 % at p = 12 (MATH.md §13).
 * tau = 0: p everywhere. */
#define VX_M2L_CUT_RADIUS 0.6
#define VX_M2L_CUT_TAU 0.1
int fmm_m2l_degree(int p, double d, double tau);

/* The tables of order p, with the M2L cut at VX_M2L_CUT_TAU. 0, or -1 with err (bad order, out of
 * memory). */
int fmm_tables_build(fmm_tables *t, int p, char *err, size_t errlen);
/* The same with the cut's tau given (tau = 0: every degree at every offset); the engine uses
 * fmm_tables_build, tests compare the cut with the full order through this one. */
int fmm_tables_build_tau(fmm_tables *t, int p, double tau, char *err, size_t errlen);
void fmm_tables_free(fmm_tables *t);

/* The M2L operator of box offset g (|v|∞ = 2 or 3; source centre - target centre in box widths) as a
 * dense nc × nc matrix, nc = VX_NCOEF(T->p): D[r·nc + k] = coefficient r of the local expansion that
 * rcr_translate (kind 2, the CPU engine's M2L) makes of the unit multipole e_k, in double. Linear, and
 * the same for each of the three fused Laplace FMMs, so out[3r+c] += Σ_k D[r·nc+k]·in[3k+c] is that
 * translation (m2l_dense_apply, translate_t.h): the GPU's dense M2L (k_m2l_dense) multiplies by it.
 * Out of host memory: -1. */
int fmm_m2l_dense(const fmm_tables *T, int g, double *D);

/* The real y-rotation D_y(β) of degrees 0..p (p <= VX_PMAX) by exact quadrature (used by the tables and tests):
 * out gets vx_roty_off(p+1) entries in the block layout of translate_t.h. */
void fmm_roty_matrix(double beta, int p, double *out);

VX_EXTERN_C_END
#endif
