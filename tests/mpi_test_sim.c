/* mpi_test_sim.c — one simulation over 1, 2 and 3 ranks (dist/dsim.h), stepped 40 times with the
 * particles migrating every 25 steps, against the same run in one process on every rank (double, the CPU
 * backend, the scenes' derived numerics): the diagnostics — impulse, total vorticity, energy, max|α|,
 * Σ|α|, the element count, the rings' centres and radii — equal to 1e-10 relative after 10, 20, 30 and
 * 40 steps, with the elements spread over the ranks. The flows: the default leapfrog's thin rings
 * (relaxation every step with each ring's impulse restored, the ring mode of the correction summed over
 * every rank's share of the ring; substeps under the strain), on the FMM and by direct summation over
 * the ranks; two thick viscous rings remeshed every 5 steps (the lattice crossing the ranks: each rank's
 * part of a remeshing merged at the nodes' owners, the drop threshold over every rank, the full
 * correction), and two wider ones whose lattice coarsens (the field's scale over every rank's nodes); the
 * thick rings with 600 tracers in their own RK4 steps, migrating between and within them (each within
 * 1e-10 R of its one-process twin; the gathered flow, and the one process's flow spread within the
 * tracers' step, continuing as one process's); and 400 tracers under the continuous dye release, each
 * seeded again by its place in the whole flow (every tracer within 1e-10 R of its place's in one process). */
#include "mpi_sim_check.h"

static int run(const vx_comm *c) {
  sim_backend = VX_BACKEND_CPU;
  return sim_checks(c);
}

int main(int argc, char **argv) {
  return mpi_test_main(argc, argv, "mpi_test_sim", run, "one simulation over the ranks equals one process's");
}
