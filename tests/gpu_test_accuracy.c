/* gpu_test_accuracy.c — the CUDA half of the live accuracy readout (vortex/accuracy_gpu.cu) against
 * its CPU twin (accuracy.c), label gpu. Random elements, tracers, engine velocities and gradients
 * (double and float, with and without gradients, each kernel), captured once from host arrays and
 * once from device arrays by two readouts of the same seed: the same sample, the same snapshot of
 * the engine's values (exactly: both convert the same numbers to double), the direct-sum reference
 * within |gpu - cpu| <= atol + rtol·|cpu| (summation order and fused multiply-adds differ), and
 * the figure to the same relative tolerance. Then the readout of a merger simulation on the
 * cuda backend at p = 8 and p = 2: the larger error at p = 2 for u and grad u, as on the CPU
 * (tests/test_vortex_accuracy.c). Exits 77 (skipped) when no CUDA device is usable.
 * Run: ctest -L gpu -R accuracy --output-on-failure */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy.h"
#include "sim.h"
#include "test_check.h"
#include "test_vortex.h"

static uint64_t rng = 4242;
static double urand(void) { return vx_test_lcg11(&rng); } /* in [-1, 1) */

/* n random reals in the precision (positions in [0, 1], the rest in [-1, 1]) on the host and the device. */
static int fill(vx_precision prec, size_t n, int positive, void **h, void **d) {
  size_t rs = prec == VX_FLOAT ? sizeof(float) : sizeof(double);
  char err[256];
  *h = malloc(n * rs);
  if (!*h) return -1;
  for (size_t i = 0; i < n; ++i) {
    double v = positive ? 0.5 + 0.5 * urand() : urand();
    if (prec == VX_FLOAT) ((float *)*h)[i] = (float)v; else ((double *)*h)[i] = v;
  }
  if (vx_device_alloc(d, n * rs, err, sizeof err) || vx_device_upload(*d, *h, n * rs, err, sizeof err)) {
    printf("device: %s\n", err);
    return -1;
  }
  return 0;
}

static void twin_case(vx_precision prec, vx_kernel kernel, int with_grad) {
  const int ne = 3001, nt = 5003, n = ne + nt;
  void *h[4], *d[4];
  if (fill(prec, 3 * (size_t)n, 1, &h[0], &d[0]) || fill(prec, 3 * (size_t)ne, 0, &h[1], &d[1]) ||
      fill(prec, 3 * (size_t)n, 0, &h[2], &d[2]) || fill(prec, 9 * (size_t)ne, 0, &h[3], &d[3])) {
    FAIL("setup");
    exit(EXIT_FAILURE);
  }
  vx_sim_eval e = {ne, n, 0, prec, kernel, 0.02, h[0], h[1], h[2], with_grad ? h[3] : NULL, 5, 0.01};
  vx_sim_eval ed = e;
  ed.on_device = 1, ed.pos = d[0], ed.alpha = d[1], ed.vel = d[2], ed.grad = with_grad ? d[3] : NULL;
  char err[256];
  vx_accuracy *ac = vx_acc_create(VX_ACC_SAMPLE, 99, err, sizeof err), *ag = vx_acc_create(VX_ACC_SAMPLE, 99, err, sizeof err);
  vx_acc_result rc, rg;
  if (!ac || !ag || vx_acc_capture(ac, &e, err, sizeof err) || vx_acc_capture(ag, &ed, err, sizeof err) ||
      vx_acc_poll(ac, 1, &rc, err, sizeof err) != 1 || vx_acc_poll(ag, 1, &rg, err, sizeof err) != 1) {
    FAIL("capture: %s", err);
  } else {
    int k1, kg1, k2, kg2;
    const int *i1, *i2;
    const double *e1, *r1, *e2, *r2;
    vx_acc_last_arrays(ac, &k1, &kg1, &i1, &e1, &r1);
    vx_acc_last_arrays(ag, &k2, &kg2, &i2, &e2, &r2);
    double worst = 0.0;
    int same = k1 == k2 && kg1 == kg2 && !memcmp(i1, i2, sizeof(int) * (size_t)k1) && !memcmp(e1, e2, sizeof(double) * 12 * (size_t)k1);
    /* atol: 1e-10 of the largest |u| or |grad u| component of the sample (sums of ~3000 terms of
     * either sign, in double: not measured on a GPU yet; the CPU's own chunked vs fmm_direct order
     * differs by 2.9e-15 relatively, test_vortex_accuracy) */
    double mx[2] = {0.0, 0.0};
    for (int q = 0; q < 12 * k1; ++q) mx[q % 12 >= 3] = fmax(mx[q % 12 >= 3], fabs(r1[q]));
    for (int q = 0; same && q < 12 * k1; ++q) {
      double x = fabs(r2[q] - r1[q]) / (1e-10 * mx[q % 12 >= 3] + 1e-10 * fabs(r1[q]));
      if (x > worst) worst = x;
    }
    double fig = fabs(rg.u_l2 - rc.u_l2) / rc.u_l2 + (with_grad ? fabs(rg.g_l2 - rc.g_l2) / rc.g_l2 : 0.0);
    printf("%s %s grad %s: sample %s, reference worst |gpu-cpu|/(atol + 1e-10|cpu|) = %.3f, figure rel. diff %.2e; "
           "snapshot %.3f ms, direct %.3f ms (gpu) vs %.3f ms (cpu worker)\n",
           prec == VX_FLOAT ? "float" : "double", vx_kernel_name(kernel), with_grad ? "on" : "off", same ? "same" : "DIFFERENT",
           worst, fig, rg.ms_capture_gpu, rg.ms_direct, rc.ms_direct);
    if (!same) FAIL("the GPU capture's sample or engine values differ from the CPU's");
    if (worst > 1.0) FAIL("reference: worst ratio %.3f > 1", worst);
    if (fig > 1e-8) FAIL("figure differs by %.2e", fig);
    if (with_grad != (rg.n_g > 0)) FAIL("gradient samples %d with grad %s", rg.n_g, with_grad ? "on" : "off");
  }
  vx_acc_destroy(ac);
  vx_acc_destroy(ag);
  for (int k = 0; k < 4; ++k) { free(h[k]); vx_device_free(d[k]); }
}

/* The readout of one merger step on the cuda backend at order p. */
static int sim_case(int order, vx_acc_result *r) {
  char err[256];
  vx_scene sc;
  if (vx_scene_load(VX_ASSETS_DIR "/merger.scene", &sc, err, sizeof err)) { FAIL("scene: %s", err); return -1; }
  for (int k = 0; k < sc.n_rings; ++k) sc.rings[k].n_around = 64;
  vx_sim_params p = vx_sim_params_from_scene(&sc);
  vx_test_one_tree(&p);
  p.backend = VX_BACKEND_CUDA, p.precision = VX_DOUBLE, p.order = order, p.tracers = 4096;
  p.remesh_every = 0, p.viscosity = 0.0;
  vx_sim *s = vx_sim_create(&p, &sc, err, sizeof err);
  vx_accuracy *a = vx_acc_create(VX_ACC_SAMPLE, 7, err, sizeof err);
  int rc = -1;
  if (!s || !a) FAIL("setup: %s", err);
  else if (vx_acc_request(a, s) || vx_sim_step(s, err, sizeof err) || vx_acc_poll(a, 1, r, err, sizeof err) != 1)
    FAIL("step or readout: %s", err);
  else {
    printf("cuda merger p = %d: err_u_l2 %.3e p99 %.3e, err_gu_l2 %.3e p99 %.3e; snapshot %.4f ms, direct %.3f ms\n", order,
           r->u_l2, r->u_p99, r->g_l2, r->g_p99, r->ms_capture_gpu, r->ms_direct);
    rc = 0;
  }
  vx_acc_destroy(a);
  vx_sim_destroy(s);
  return rc;
}

int main(void) {
  char name[256];
  VX_TEST_NEED_CUDA(name);
  printf("device: %s\n", name);
  twin_case(VX_DOUBLE, VX_KERNEL_GAUSS, 1);
  twin_case(VX_FLOAT, VX_KERNEL_GAUSS, 1);
  twin_case(VX_DOUBLE, VX_KERNEL_SINGULAR, 0);
  twin_case(VX_FLOAT, VX_KERNEL_WL, 1);
  vx_acc_result hi, lo;
  /* the same run on the CPU with these one-tree parameters (the floor of 132 leaves puts the elements' own tree of
   * 1024 at level 3), the elements on their own tree and the tracers in calls of their own: p = 8
   * 4.233e-5 / 4.840e-4, p = 2 2.228e-2 / 4.932e-2 (ratios 526 and 102); measured here the same to four digits
   * (H200). Bands: p = 8 within 2x of those, the ratios above half. */
  if (sim_case(8, &hi) == 0 && sim_case(2, &lo) == 0) {
    if (!(lo.u_l2 > 250.0 * hi.u_l2 && lo.g_l2 > 50.0 * hi.g_l2))
      FAIL("p = 2 (%.3g, %.3g) not 250x / 50x p = 8 (%.3g, %.3g)", lo.u_l2, lo.g_l2, hi.u_l2, hi.g_l2);
    if (!(hi.u_l2 < 8.5e-5 && hi.g_l2 < 9.7e-4)) FAIL("p = 8 errors %.3g, %.3g above the CPU's band", hi.u_l2, hi.g_l2);
  }
  if (failures) {
    printf("%d check(s) failed\n", failures);
    return EXIT_FAILURE;
  }
  printf("accuracy readout GPU twin checks passed\n");
  return EXIT_SUCCESS;
}
