/* bench_fmm3d.c — FMM3D's Laplace FMM as a Biot–Savart solver beside vortexfmm's CPU engine, on
 * the points and strengths of a `vortexfmm-bench --dump` file. Built and run by
 * scripts/bench_fmm3d.sh against a user's FMM3D build (not a dependency of vortexfmm).
 *
 * The velocity of vortex elements α_j at y_j is u = ∇×Ψ with Ψ = (1/4π) Σ α_j/|x − y_j|, so with
 * FMM3D's potential φ_c = Σ q_j/(4π|x − y_j|) of the three charge sets q = α_c (one call, nd = 3)
 * the velocity is u_i = ε_ijk ∂_j φ_k and its gradient ∂_l u_i = ε_ijk ∂_l ∂_j φ_k, from
 * the potentials' gradients and Hessians. Both codes' velocities and gradients are compared with
 * the direct sum in double (the engine's pair kernel, fmm/pair.h) at K targets (every N/K-th point, self term left out), the error
 * measures of vortexfmm-bench: err_vel the relative 2-norm error of u, err_grad that of ∇u
 * (Frobenius). Usage: bench_fmm3d DUMP.csv EPS REPEAT K; prints one line:
 *   n eps fmm3d_ms fmm3d_err_vel fmm3d_err_grad vx_err_vel vx_err_grad
 * FMM3D's time is the median of REPEAT calls after one warm-up (OMP_NUM_THREADS threads); EPS = 0
 * skips FMM3D (its columns then 0) and measures the dump's errors alone. */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pair.h"

void lfmm3d_s_c_h_vec_(int64_t *nd, double *eps, int64_t *nsource, double *source, double *charge, double *pot,
                       double *grad, double *hess, int64_t *ier);

#define FOUR_PI (4.0 * 3.14159265358979323846)

typedef struct {
  int n;
  double *x, *a, *u, *g; /* 3n, 3n, 3n, 9n: the dump's points, strengths, velocities, gradients */
} dump;

static int read_dump(const char *path, dump *d) {
  FILE *f = fopen(path, "r");
  if (!f) { fprintf(stderr, "bench_fmm3d: cannot open %s\n", path); return -1; }
  char line[4096];
  int cap = 1 << 16;
  d->n = 0;
  d->x = malloc(sizeof(double) * 3 * cap), d->a = malloc(sizeof(double) * 3 * cap);
  d->u = malloc(sizeof(double) * 3 * cap), d->g = malloc(sizeof(double) * 9 * cap);
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == 'x') continue;
    if (d->n == cap) {
      cap *= 2;
      d->x = realloc(d->x, sizeof(double) * 3 * cap), d->a = realloc(d->a, sizeof(double) * 3 * cap);
      d->u = realloc(d->u, sizeof(double) * 3 * cap), d->g = realloc(d->g, sizeof(double) * 9 * cap);
    }
    if (!d->x || !d->a || !d->u || !d->g) { fprintf(stderr, "bench_fmm3d: out of memory reading %s\n", path); return -1; }
    double v[18];
    char *p = line;
    for (int k = 0; k < 18; ++k) {
      v[k] = strtod(p, &p);
      if (*p == ',') ++p;
    }
    memcpy(d->x + 3 * d->n, v, 3 * sizeof(double));
    memcpy(d->a + 3 * d->n, v + 3, 3 * sizeof(double));
    memcpy(d->u + 3 * d->n, v + 6, 3 * sizeof(double));
    memcpy(d->g + 9 * d->n, v + 9, 9 * sizeof(double));
    d->n++;
  }
  fclose(f);
  if (d->n == 0) { fprintf(stderr, "bench_fmm3d: no points in %s\n", path); return -1; }
  return 0;
}

/* The direct sum at target t: u[3], g[9] with g[3i + l] = ∂u_i/∂x_l, by the engine's own singular
 * pair kernel (fmm/pair.h, kernel 0; it leaves out 1/4π). */
static void direct(const dump *d, int t, double *u, double *g) {
  memset(u, 0, 3 * sizeof(double));
  memset(g, 0, 9 * sizeof(double));
  const double *xt = d->x + 3 * (size_t)t;
  for (int j = 0; j < d->n; ++j) {
    if (j == t) continue;
    const double *y = d->x + 3 * (size_t)j, *a = d->a + 3 * (size_t)j;
    pair_bs_d(0, 0.0, xt[0] - y[0], xt[1] - y[1], xt[2] - y[2], a[0], a[1], a[2], u, g);
  }
  for (int i = 0; i < 3; ++i) u[i] /= FOUR_PI;
  for (int m = 0; m < 9; ++m) g[m] /= FOUR_PI;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc != 5) { fprintf(stderr, "usage: bench_fmm3d DUMP.csv EPS REPEAT K\n"); return 2; }
  dump d;
  if (read_dump(argv[1], &d)) return 1;
  double eps = atof(argv[2]);
  int repeat = atoi(argv[3]), K = atoi(argv[4]);
  if (repeat < 1 || K < 1 || !(eps >= 0.0)) { fprintf(stderr, "bench_fmm3d: bad EPS, REPEAT or K\n"); return 2; }
  int64_t nd = 3, ns = d.n, ier = 0;
  double *src = d.x, *q = malloc(sizeof(double) * 3 * ns), *pot = malloc(sizeof(double) * 3 * ns),
         *grad = malloc(sizeof(double) * 9 * ns), *hess = malloc(sizeof(double) * 18 * ns);
  for (int64_t j = 0; j < ns; ++j)
    for (int c = 0; c < 3; ++c) q[3 * j + c] = d.a[3 * j + c]; /* charge(nd, ns): nd fastest */
  double *ms = malloc(sizeof(double) * (size_t)repeat);
  if (!q || !pot || !grad || !hess || !ms) { fprintf(stderr, "bench_fmm3d: out of memory for %lld points\n", (long long)ns); return 1; }
  for (int r = -1; r < repeat && eps > 0.0; ++r) {
    double t0 = omp_get_wtime();
    lfmm3d_s_c_h_vec_(&nd, &eps, &ns, src, q, pot, grad, hess, &ier);
    if (ier) { fprintf(stderr, "bench_fmm3d: FMM3D returned ier = %lld\n", (long long)ier); return 1; }
    if (r >= 0) ms[r] = 1e3 * (omp_get_wtime() - t0);
  }
  qsort(ms, (size_t)repeat, sizeof(double), cmp_double);
  double med = eps == 0.0 ? 0.0 : repeat % 2 ? ms[repeat / 2] : 0.5 * (ms[repeat / 2 - 1] + ms[repeat / 2]);
  /* grad(nd, 3, ns): grad[(3 j + m) nd + k] = ∂_m φ_k; hess(nd, 6, ns) in xx yy zz xy xz yz */
  static const int hidx[3][3] = {{0, 3, 4}, {3, 1, 5}, {4, 5, 2}};
  double e2[4] = {0, 0, 0, 0}, n2[2] = {0, 0};
  int step = d.n / K > 0 ? d.n / K : 1;
#pragma omp parallel for reduction(+ : e2[:4], n2[:2]) schedule(dynamic, 4)
  for (int t = 0; t < d.n; t += step) {
    double u[3], g[9], uf[3], gf[9];
    direct(&d, t, u, g);
    for (int i = 0; i < 3; ++i) {
      int j = (i + 1) % 3, k = (i + 2) % 3; /* u_i = ∂_j φ_k − ∂_k φ_j */
      uf[i] = grad[(3 * (size_t)t + j) * 3 + k] - grad[(3 * (size_t)t + k) * 3 + j];
      for (int l = 0; l < 3; ++l)
        gf[3 * i + l] = hess[(6 * (size_t)t + hidx[l][j]) * 3 + k] - hess[(6 * (size_t)t + hidx[l][k]) * 3 + j];
    }
    for (int i = 0; i < 3; ++i) {
      n2[0] += u[i] * u[i];
      e2[0] += (uf[i] - u[i]) * (uf[i] - u[i]);
      e2[2] += (d.u[3 * (size_t)t + i] - u[i]) * (d.u[3 * (size_t)t + i] - u[i]);
    }
    for (int m = 0; m < 9; ++m) {
      n2[1] += g[m] * g[m];
      e2[1] += (gf[m] - g[m]) * (gf[m] - g[m]);
      e2[3] += (d.g[9 * (size_t)t + m] - g[m]) * (d.g[9 * (size_t)t + m] - g[m]);
    }
  }
  printf("%d %.0e %.3f %.3e %.3e %.3e %.3e\n", d.n, eps, med, sqrt(e2[0] / n2[0]), sqrt(e2[1] / n2[1]),
         sqrt(e2[2] / n2[0]), sqrt(e2[3] / n2[1]));
  return 0;
}
