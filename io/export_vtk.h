/* export_vtk.h — ParaView exports of a vortex-particle state: one VTK XML PolyData file (.vtp)
 * per snapshot, and a ParaView collection file (.pvd) that lists every snapshot with its
 * simulated time (open the .pvd in ParaView to get the time series).
 *
 * A .vtp holds the elements then the tracers as points, one Vertex cell per point, and the point
 * arrays (Float64 unless said otherwise; appended raw binary, little-endian, UInt64 block sizes):
 *   alpha                 strength α (3); 0 for tracers
 *   velocity              u at the point (3), from ONE extra engine call at the current state
 *                         (elements and tracers as targets, elements as sources, no gradient),
 *                         like the diagnostics' energy
 *   vorticity_magnitude   |α| / V: an estimate of |ω|, V = h³ the particle volume, h the remeshing
 *                         lattice spacing when remeshing is on, else σ (the field data
 *                         particle_volume says which V); 0 for tracers. Not the smoothed field ω(x).
 *   type                  Int32: 0 vortex element, 1 tracer
 *   ring                  Int32: ring index of an element (its scene [ring] section, from 0); -1 for tracers
 * and the field data TimeValue (simulated time), step and particle_volume.
 * Every file is written atomically (io/atomic_file.h); the .pvd is rewritten after each snapshot,
 * so it is always a valid collection of the snapshots written so far. A new series starts an empty
 * collection (an earlier .pvd is replaced); a restart's series continues the one there
 * (vx_vtk_series_resume).
 *
 *   vx_vtk_series *v = vx_vtk_series_create("out", "leapfrog", err, sizeof err);
 *   vx_vtk_series_add(v, sim, err, sizeof err);   // out/leapfrog_000000.vtp, out/leapfrog.pvd
 *   vx_vtk_series_destroy(v); */
#ifndef VX_EXPORT_VTK_H
#define VX_EXPORT_VTK_H

#include <stddef.h>
#include "sim.h"

VX_EXTERN_C_BEGIN

/* One snapshot in host arrays (double). */
typedef struct {
  int n_elem, n_tracer;
  const double *pos;      /* 3*(n_elem + n_tracer): elements first, then tracers */
  const double *alpha;    /* 3*n_elem */
  const double *vel;      /* 3*(n_elem + n_tracer); NULL: written as zeros */
  const int *ring;        /* n_elem; NULL: every element in ring 0 */
  double volume;          /* V of vorticity_magnitude = |α| / V (> 0) */
  double t;               /* simulated time */
  long long step;
} vx_vtk_frame;

/* Write one .vtp file atomically. 0, or -1 with a one-line err naming the file. */
int vx_vtk_write_vtp(const char *path, const vx_vtk_frame *fr, char *err, size_t errlen);

typedef struct vx_vtk_series vx_vtk_series;
/* Snapshots DIR/STEM_%06d.vtp (the step number) and the collection DIR/STEM.pvd. Creates DIR
 * (and its missing parents) and checks that a file can be written there. Characters of STEM other
 * than letters, digits, '-', '_' and '.' become '_'. NULL with err on failure. */
vx_vtk_series *vx_vtk_series_create(const char *dir, const char *stem, char *err, size_t errlen);
/* The series of a run restarted at simulated time t, continuing DIR/STEM.pvd: the snapshots it lists
 * before t whose .vtp files are there are kept in their order, and the restart's follow them. No
 * DIR/STEM.pvd: a new series. The .pvd is read only when it is a regular file (a FIFO is never
 * opened) laid out as this module writes it. 0 with *out; -1 with err when DIR or a file cannot be
 * made there (as vx_vtk_series_create); -2 with err when the .pvd cannot be read or is not such a
 * collection (nothing is dropped from it: the caller refuses the run). */
int vx_vtk_series_resume(const char *dir, const char *stem, double t, vx_vtk_series **out, char *err, size_t errlen);
/* Snapshot of the simulation's current state (copies it to the host; one engine call for the
 * velocities), then the .pvd rewritten. 0, or -1 with err. */
int vx_vtk_series_add(vx_vtk_series *v, vx_sim *s, char *err, size_t errlen);
void vx_vtk_series_destroy(vx_vtk_series *v);

VX_EXTERN_C_END
#endif
