/* passage.h — leapfrog passages counted from the rings' centroids and axes (diag.h): a pair of
 * rings travelling the same way along one line passes when the one behind moves ahead of the other.
 * The window's status line shows the count; tests and the demo's legibility measure use it. */
#ifndef VX_PASSAGE_H
#define VX_PASSAGE_H

#include "diag.h"

VX_EXTERN_C_BEGIN

/* A pair counts when its axes lie within VX_PASSAGE_AXIS_COS of parallel and its centroids within
 * VX_PASSAGE_OFF_AXIS of the larger radius of the common axis: coaxial rings, not rings side by side. */
#define VX_PASSAGE_AXIS_COS 0.866
#define VX_PASSAGE_OFF_AXIS 0.5
/* A ring is ahead once its centroid leads by this much of the larger radius; within that band the
 * order stays what it was, so two rings merged into one body, whose centroids jitter about each
 * other, count nothing. */
#define VX_PASSAGE_LEAD 0.15

typedef struct {
  signed char ahead[VX_SCENE_MAX_RINGS][VX_SCENE_MAX_RINGS]; /* i < j: +1 j ahead of i, -1 behind, 0 not a pair */
  long long count;                                          /* passages so far */
  double t_last;                                            /* the time of the last one (NaN: none) */
} vx_passages;

void vx_passages_reset(vx_passages *p);
/* Whether rings i and j of d are a coaxial pair of one direction of travel; if so, *lead is how far
 * j's centroid leads i's along their common axis, over the larger radius. */
int vx_passage_pair(const vx_diag *d, int i, int j, double *lead);
/* The passages between the previous diagnostics and d (rings added since take part from d on);
 * returns how many this update counted. */
int vx_passages_update(vx_passages *p, const vx_diag *d);

/* The legibility of the dye: of the n tracers (host positions, 3n), those that lie within VX_DYE_NEAR of
 * their ring's radius of its centreline, the circle of d's centroid, axis and radius for the ring
 * label[q] says tracer q was seeded around (vx_tracer_rings; a label outside the rings: not counted):
 * *near of the *seen counted; their ratio is the diagnostics' dye_near (processes holding shares of the
 * tracers sum the counts first). */
#define VX_DYE_NEAR 0.5
void vx_dye_near_count(const vx_diag *d, int n, const double *pos, const float *label, long long *near, long long *seen);

VX_EXTERN_C_END
#endif
