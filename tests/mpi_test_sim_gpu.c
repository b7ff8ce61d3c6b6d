/* mpi_test_sim_gpu.c — one simulation over 1, 2 and 3 ranks on the CUDA backend, a GPU of the node a rank
 * (skipped, 77, without one): the checks of mpi_sim_check.h (mpi_test_sim's, there on the CPU) with the
 * elements in device memory — the stages on the device, the distributed engine's device path, the
 * remeshing's part of each rank on the host from its device elements, the reductions of the device's
 * health, moments and diagnostics — against one GPU's run, to 1e-10 relative in double. */
#ifndef VX_HAVE_CUDA
#include <stdio.h>

int main(void) {
  printf("SKIP: vortexfmm was built without CUDA\n");
  return 77;
}
#else
#include "mpi_sim_check.h"

static int run(const vx_comm *c) {
  char err[256] = "";
  CHECK(vx_cuda_use_device(mpi_test_node_rank(c), err, sizeof err) >= 0, "%s", err);
  sim_backend = VX_BACKEND_CUDA;
  return sim_checks(c);
}

int main(int argc, char **argv) {
  char name[256];
  if (!vx_cuda_available(name, sizeof name)) {
    printf("SKIP: no usable CUDA device (%s)\n", name);
    return 77;
  }
  return mpi_test_main(argc, argv, "mpi_test_sim_gpu", run, "one simulation over the ranks on the GPU equals one GPU's");
}
#endif
