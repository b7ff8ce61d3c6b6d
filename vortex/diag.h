/* diag.h — diagnostics of a vortex-particle state: invariants (linear impulse, angular impulse,
 * total vorticity), per-ring centroid and radius, max |α|, kinetic energy, and step timings
 * (diag.c); written as CSV rows by io/diag_csv.c (`# key = value` comment lines describing the run,
 * one header line, one row per call, flushed so a crash keeps them).
 *
 *   linear impulse   I = ½ Σ x_p × α_p
 *   angular impulse  A = ⅓ Σ x_p × (x_p × α_p)
 *   total vorticity  W = Σ α_p
 *   energy           E = Σ u(x_p)·(x_p × α_p)   (the particle form of E = ∫ u·(x×ω) dV, Saffman,
 *                    Vortex Dynamics §3.2; u from one extra engine call at the current state)
 *   kernel energy    E_σ = ½ Σ_p Σ_q α_p·α_q G_σ(|x_p − x_q|), G_σ(r) = f(r/σ)/(4πσ) the smoothing
 *                    kernel's own stream function (Gaussian f = erf(ρ/√2)/ρ, Rosenhead–Moore
 *                    1/√(ρ²+1), Winckelmans–Leonard (ρ²+3/2)/(ρ²+1)^{3/2}): the energy of the smoothed
 *                    field ½∫ψ·ω dV, which the particles' dynamics keep far better than the particle
 *                    form's sampling (the default leapfrog: within 4e-4 where E swings by 4e-3 as the
 *                    radii change); a direct sum on the backend (vx_sim_kernel_energy, sim.h), of a flow held by
 *                    one process and of at most VX_SIM_KERNEL_ENERGY_N_HOST elements on the CPU,
 *                    VX_SIM_KERNEL_ENERGY_N_DEVICE on the GPU
 *   ring k: centroid c_k = Σ|α_p| x_p / Σ|α_p| over its elements; axis n_k = its own impulse
 *           direction; radius R_k = Σ|α_p| |(x_p-c_k) - ((x_p-c_k)·n_k) n_k| / Σ|α_p|. */
#ifndef VX_DIAG_H
#define VX_DIAG_H

#include <stdio.h>
#include "accuracy.h"
#include "scene.h"
#include "sim.h"

VX_EXTERN_C_BEGIN

typedef struct {
  long long step;
  double t;
  double I[3], A[3], W[3];
  double max_alpha;
  double energy;                          /* NaN when skipped */
  double energy_sigma;                    /* the kernel energy E_σ; NaN when skipped or for another kernel */
  int n_elem;                             /* elements (remeshing changes the count) */
  double sum_abs_alpha;                   /* Σ|α| */
  double max_gradu;                       /* max |∇u| over the elements (last evaluation; 0 before any) */
  int n_rings;
  double ring_c[VX_SCENE_MAX_RINGS][3];
  double ring_R[VX_SCENE_MAX_RINGS];
  double ring_n[VX_SCENE_MAX_RINGS][3];   /* unit axis (impulse direction) of each ring */
  vx_step_stats stats;
  int acc_cols;                           /* the accuracy readout's columns are written (vx_diag_csv_header) */
  vx_acc_result acc;                      /* its latest figure; acc.n_u == 0: none yet (NaN columns) */
  double ms_launch;                       /* a ring launched before this step: its wall time (the program fills it); else 0 */
  double sigma, lattice_h;                /* the smoothing radius and remeshing lattice in use (remesh_coarsen changes them) */
  long long passages;                     /* leapfrog passages so far (passage.h; the program fills it) */
  double dye_near;                        /* vx_dye_near_count's share of the scene's tracers (the program fills it; NaN: not measured) */
} vx_diag;

/* The kinetic energy E = Σ u(x_p)·(x_p × α_p) of n elements (host arrays, 3n each). */
double vx_energy(int n, const double *pos, const double *alpha, const double *vel);
/* The kernel energy E_σ of n elements (host arrays) under kernel k of radius sigma; NaN for the
 * singular and polynomial kernels. Rows summed in parallel, then in row order: the same at any
 * thread count. */
double vx_energy_kernel(int n, const double *pos, const double *alpha, vx_kernel k, double sigma);
/* Diagnostics of host arrays (n elements; vel may be NULL: no energy). Rings with an index
 * >= VX_SCENE_MAX_RINGS are counted in the invariants only. */
void vx_diag_from_arrays(int n, const double *pos, const double *alpha, const int *ring, int n_rings, const double *vel,
                         vx_diag *d);
/* Diagnostics of a simulation's current state: copies the elements to the host; the energy
 * costs one extra engine call and is computed only when n_elements <= energy_max_n (else NaN). */
int vx_diag_compute(vx_sim *s, int energy_max_n, vx_diag *d, char *err, size_t errlen);

/* The CSV (io/diag_csv.c). Its self-description, before the column header: `# key = value` lines (readers skip lines
 * starting with '#'): program version and git commit, scene name and path, every run parameter
 * (p: the resolved ones, vx_sim_params_get), element and tracer counts. */
void vx_diag_csv_preamble(FILE *f, const vx_scene *sc, const vx_sim_params *p, int n_elem, int n_tracers);
/* The column names; accuracy: also the readout's columns (acc_step, err_u_l2, err_u_p99, err_gu_l2,
 * err_gu_p99, ms_acc_capture, ms_acc_snapshot_gpu, ms_acc_direct: accuracy.h's vx_acc_result), which
 * rows then carry when d->acc_cols is set. */
void vx_diag_csv_header(FILE *f, int n_rings, int accuracy);
/* Give d ring columns up to n (at most VX_SCENE_MAX_RINGS), empty ones NaN: rows keep the header's
 * column count while rings are launched into the run (sim.h: vx_sim_add_ring). */
void vx_diag_pad_rings(vx_diag *d, int n);
void vx_diag_csv_row(FILE *f, const vx_diag *d);   /* flushes */

VX_EXTERN_C_END
#endif
