/* test_backend.c — backend choice without a usable GPU (the CI machine: a CUDA build or a
 * CPU-only build, no device): `cuda` fails with a one-line reason naming CUDA, `auto` falls back
 * to the CPU and still computes, and device-memory helpers fail cleanly. On a machine with a GPU
 * the test checks the opposite (auto picks cuda). Bad parameters get one-line errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm.h"

static int failures = 0;
static void check(int ok, const char *what, const char *detail) {
  printf("%-60s %s%s%s\n", what, ok ? "ok" : "FAIL", detail && *detail ? ": " : "", detail ? detail : "");
  if (!ok) failures++;
}

int main(void) {
  char name[256], err[256] = "";
  int have_gpu = vx_cuda_available(name, sizeof name);
  printf("CUDA device: %s (%s)\n", have_gpu ? "yes" : "no", name);
  fmm_params prm = fmm_params_default();

  prm.backend = VX_BACKEND_CUDA;
  fmm_ctx *c = fmm_create(&prm, err, sizeof err);
  if (have_gpu) check(c != NULL, "cuda backend with a device: created", err);
  else
    check(c == NULL && strstr(err, "CUDA") && !strchr(err, '\n'), "cuda backend without a device: one-line error naming CUDA", err);
  fmm_destroy(c);

  prm.backend = VX_BACKEND_AUTO;
  err[0] = 0;
  c = fmm_create(&prm, err, sizeof err);
  check(c != NULL, "auto backend: created", err);
  if (c) {
    vx_backend b = fmm_get_params(c)->backend;
    check(b == (have_gpu ? VX_BACKEND_CUDA : VX_BACKEND_CPU), "auto backend resolves to cuda iff a device exists", vx_backend_name(b));
    double pos[6] = {0.1, 0.2, 0.3, 0.6, 0.5, 0.4}, str[6] = {0, 0, 1, 1, 0, 0}, u[6], g[18];
    fmm_io io = {.n_src = 2, .src_pos = pos, .src_str = str, .n_tgt = 2, .tgt_pos = pos, .vel = u, .grad = g};
    int rc = fmm_evaluate(c, &io, NULL, err, sizeof err);
    check(rc == 0 && u[1] * u[1] + u[2] * u[2] > 0.0, "auto backend evaluates (non-zero velocity)", err);
    fmm_destroy(c);
  }

  if (!have_gpu) {
    void *d = NULL;
    err[0] = 0;
    int rc = vx_device_alloc(&d, 1024, err, sizeof err);
    check(rc != 0 && d == NULL && err[0], "device allocation without a device fails with a message", err);
  }

  /* nonsensical parameters: one line each */
  struct { const char *what; fmm_params p; } bad[5];
  for (int i = 0; i < 5; ++i) bad[i].p = fmm_params_default();
  bad[0].what = "order 33"; bad[0].p.order = 33;
  bad[1].what = "leaf size -1"; bad[1].p.leaf_size = -1; /* 0 is valid: the backend's */
  bad[2].what = "levels 1"; bad[2].p.levels = 1;
  bad[3].what = "gauss kernel without sigma"; bad[3].p.kernel = VX_KERNEL_GAUSS;
  bad[4].what = "reg_tol 2"; bad[4].p.reg_tol = 2.0;
  for (int i = 0; i < 5; ++i) {
    err[0] = 0;
    c = fmm_create(&bad[i].p, err, sizeof err);
    char what[128];
    snprintf(what, sizeof what, "rejects %s with a one-line error", bad[i].what);
    check(c == NULL && err[0] && !strchr(err, '\n'), what, err);
    fmm_destroy(c);
  }
  if (failures) { printf("%d failure(s)\n", failures); return EXIT_FAILURE; }
  return EXIT_SUCCESS;
}
