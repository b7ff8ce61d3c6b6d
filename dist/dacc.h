/* dacc.h — the live accuracy readout (vortex/accuracy.h) of a simulation spread over the ranks: one
 * engine call's values at k samples drawn from every rank's elements, against direct summation over every
 * rank's sources, the figure accuracy.h defines. The sample is stratified along the elements in rank
 * order (each rank's share in its key range: spread through space along the curve), sample j the global
 * element ⌊(j + u)·N/k⌋ of N, u in [0, 1) moving by the golden ratio each capture. Each rank sums its own
 * sources at all k samples (vx_acc_direct_cpu); the partial sums add at rank 0, which takes the figure.
 * Synchronous and on the host: k times the rank's elements pair terms a capture. */
#ifndef VX_DACC_H
#define VX_DACC_H

#include "accuracy.h"
#include "comm.h"
#include "sim.h"

typedef struct {
  vx_comm c;
  int n_sample;         /* samples a capture (at most the elements) */
  double u;             /* the sample's offset, moved each capture */
  int ready;            /* a capture's figure is in res (at rank 0; every rank learns that one was made) */
  vx_acc_result res;
} vx_dacc;

/* A readout of n_sample targets over c (the caller keeps c alive), its offset from seed. */
void vx_dacc_init(vx_dacc *a, const vx_comm *c, int n_sample, uint64_t seed);
/* Arm s so that its next step's first engine call is measured (collectively, inside that call). */
void vx_dacc_request(vx_dacc *a, vx_sim *s);
/* The measure of e (a vx_sim_eval of every rank's share). Collective. 0, or -1 with err on every rank. */
int vx_dacc_measure(vx_dacc *a, const vx_sim_eval *e, char *err, size_t errlen);

#endif
