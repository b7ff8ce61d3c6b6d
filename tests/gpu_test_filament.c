/* gpu_test_filament.c — the filaments' merge (vortex/filament.h) on the GPU against its host loops
 * (label gpu; exits 77 when no CUDA device is usable), in double and float, on random inputs: runs of
 * random counts (one of a single element, one of 40 000) of random positions and strengths, some
 * zero, with m a random power of two dividing each count:
 *   1. vx_fil_stats_gpu = vx_fil_stats_cpu: each run's largest gap and misalignment, exactly (both
 *      keep them as floats);
 *   2. vx_fil_merge_gpu = vx_fil_merge_cpu: every merged position exactly, every strength within
 *      1e-12 (double) or 1e-6 (float) of the largest.
 * Run on a GPU machine: ctest --test-dir build -L gpu -R filament --output-on-failure */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filament.h"
#include "fmm.h"
#include "pointsets.h"
#include "test_check.h"

#define CHECK_OK(call) do { if (call) { FAIL("%s: %s", #call, err); goto done; } } while (0)

static char err[512];

static void test_twins(int is_float) {
  const int counts[] = {40000, 1, 96, 1000, 17, 4096, 3, 768};
  const int nb = (int)(sizeof counts / sizeof counts[0]);
  vx_fil_blocks bl = {0};
  int n = 0, nm = 0;
  uint64_t seed = 3 + (uint64_t)is_float;
  for (int k = 0; k < nb; ++k) {
    int m = 1;
    while (counts[k] % (2 * m) == 0 && vx_rng_uniform(&seed) < 0.8) m *= 2;
    bl.b[k] = (vx_fil_block){n, counts[k], m, nm};
    n += counts[k], nm += counts[k] / m;
  }
  bl.n = nb;
  const size_t rs = is_float ? sizeof(float) : sizeof(double), in = 3 * rs * (size_t)n, out = 3 * rs * (size_t)nm;
  char *h = malloc(2 * in), *hc = malloc(2 * out), *hg = malloc(2 * out);
  void *d = NULL, *dout = NULL, *dscr = NULL;
  double gc[VX_FIL_MAX_BLOCKS], mc[VX_FIL_MAX_BLOCKS], gg[VX_FIL_MAX_BLOCKS], mg[VX_FIL_MAX_BLOCKS];
  if (!h || !hc || !hg) { FAIL("out of host memory"); goto done; }
  for (size_t i = 0; i < 6 * (size_t)n; ++i) {
    double v = vx_rng_uniform(&seed) < 0.01 && i >= 3 * (size_t)n ? 0.0 : 2.0 * vx_rng_uniform(&seed) - 1.0;
    if (is_float) ((float *)h)[i] = (float)v;
    else ((double *)h)[i] = v;
  }
  CHECK_OK(vx_device_alloc(&d, 2 * in, err, sizeof err));
  CHECK_OK(vx_device_alloc(&dout, 2 * out, err, sizeof err));
  CHECK_OK(vx_device_alloc(&dscr, 2 * sizeof(unsigned) * VX_FIL_MAX_BLOCKS, err, sizeof err));
  CHECK_OK(vx_device_upload(d, h, 2 * in, err, sizeof err));
  vx_fil_stats_cpu(is_float, h, h + in, &bl, gc, mc);
  CHECK_OK(vx_fil_stats_gpu(is_float, d, (char *)d + in, &bl, dscr, gg, mg, err, sizeof err));
  int bad = 0;
  for (int k = 0; k < nb; ++k) bad += gg[k] != gc[k] || mg[k] != mc[k];
  printf("  %s: %d runs, %d elements: stats %s (run 0: gap %.6g, misalignment %.6g)\n", is_float ? "float " : "double", nb, n,
         bad ? "DIFFER" : "equal", gc[0], mc[0]);
  EXPECT(!bad, "%s: the stats of %d runs differ", is_float ? "float" : "double", bad);
  vx_fil_merge_cpu(is_float, h, h + in, &bl, hc, hc + out);
  CHECK_OK(vx_fil_merge_gpu(is_float, d, (char *)d + in, &bl, dout, (char *)dout + out, err, sizeof err));
  CHECK_OK(vx_device_download(hg, dout, 2 * out, err, sizeof err));
  double ep = 0.0, ea = 0.0, amax = 0.0;
  for (size_t i = 0; i < 3 * (size_t)nm; ++i) {
    double pc = is_float ? ((float *)hc)[i] : ((double *)hc)[i], pg = is_float ? ((float *)hg)[i] : ((double *)hg)[i];
    double ac = is_float ? ((float *)(hc + out))[i] : ((double *)(hc + out))[i];
    double ag = is_float ? ((float *)(hg + out))[i] : ((double *)(hg + out))[i];
    ep = fmax(ep, fabs(pg - pc)), ea = fmax(ea, fabs(ag - ac)), amax = fmax(amax, fabs(ac));
  }
  const double tol = is_float ? 1e-6 : 1e-12;
  printf("  %s: %d merged sources: positions max |gpu - cpu| %.3g, strengths %.3g of max %.3g\n", is_float ? "float " : "double",
         nm, ep, ea / amax, amax);
  EXPECT(ep == 0.0, "merged positions differ by %.3g", ep);
  EXPECT(ea <= tol * amax, "merged strengths differ by %.3g of the largest (bound %.0e)", ea / amax, tol);
done:
  vx_device_free(d), vx_device_free(dout), vx_device_free(dscr);
  free(h), free(hc), free(hg);
}

int main(void) {
  char name[256];
  VX_TEST_NEED_CUDA(name);
  printf("the filaments' merge on %s:\n", name);
  test_twins(0);
  test_twins(1);
  return vx_test_end("the filaments' merge: GPU twins agree");
}
