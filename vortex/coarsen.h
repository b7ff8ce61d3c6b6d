/* coarsen.h — the remeshing lattice that coarsens as a viscous field spreads (docs/MATH.md §9, "A
 * lattice that follows the field"). A decaying, diffusing flow (the collisions at Re = 200) widens
 * from its cores' scale to ten times that within a few time units; on a fixed lattice its support
 * takes ever more nodes, and a drop threshold that bounds them cuts away its weakening fringe and the
 * impulse that fringe carries (docs/VALIDATION.md, "What sets the scenes' controls"). Here the field's
 * own scale is measured on the lattice after a remeshing, and the spacing h (with σ, keeping σ/h)
 * doubles once the field is resolved on the doubled lattice too. The radius comes from the elements'
 * moments (conserve.h, on the backend); the scale is host code: after a remeshing the elements sit on
 * the nodes, and the measure reads them once (from the device on the cuda backend), only when the
 * radius allows a doubling. */
#ifndef VX_COARSEN_H
#define VX_COARSEN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the rule reads of a lattice field. */
typedef struct {
  double scale;   /* L = h·√(Σ|α|² / Σ|Δα|²), Δα across each pair of axis neighbours, a missing
                     neighbour counting as zero: a Gaussian core exp(-r²/a²) gives L ≈ a/√2 */
  double radius;  /* the |α|-weighted rms distance from the |α|-weighted centroid (vx_field_radius) */
} vx_lattice_field;

/* The |α|-weighted rms distance from the |α|-weighted centroid, from the moments m of vx_moments
 * (conserve.h): Σ|α|, Σ|α|x and Σ|α|x_i x_j. */
double vx_field_radius(const double *m);

/* Whether a lattice of spacing h may double at all: 2h at most a quarter of the field's radius. */
int vx_coarsen_may(double radius, double h);

/* The scale L of n elements at the nodes o + h·(i, j, k) (positions and strengths as host doubles,
 * 3n each) into *scale. Returns -1 with a reason when out of memory. */
int vx_lattice_scale(const double *pos, const double *alpha, int n, double h, const double o[3], double *scale, char *err,
                     size_t errlen);

/* Whether the lattice of spacing h should double: the field's scale is at least ratio·2h (it stays
 * resolved by ratio spacings of the new lattice) and 2h is at most a quarter of its radius (a field
 * fading away is not taken onto a lattice as wide as itself). ratio <= 0: never. */
int vx_coarsen_due(const vx_lattice_field *f, double h, double ratio);

#ifdef __cplusplus
}
#endif

#endif
