/* diag.c — diagnostics of a vortex-particle state (diag.h): the invariants, the rings' centroids and
 * radii, the kinetic energy. Host code. Their CSV form is io/diag_csv.c's. */
#include "diag.h"
#include "energy_t.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void cross(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

double vx_energy(int n, const double *pos, const double *alpha, const double *vel) {
  double E = 0.0;
  for (int p = 0; p < n; ++p) {
    const double *x = pos + 3 * (size_t)p, *u = vel + 3 * (size_t)p;
    double xa[3];
    cross(x, alpha + 3 * (size_t)p, xa);
    E += u[0] * xa[0] + u[1] * xa[1] + u[2] * xa[2];
  }
  return E;
}

double vx_energy_kernel(int n, const double *pos, const double *alpha, vx_kernel k, double sigma) {
  if (!vx_energy_kernel_ok(k) || !(sigma > 0.0) || n <= 0) return NAN;
  double *row = malloc(sizeof(double) * (size_t)n), inv = 1.0 / sigma;
  if (!row) return NAN;
#pragma omp parallel for schedule(dynamic, 16)
  for (int p = 0; p < n; ++p) {
    const double *x = pos + 3 * (size_t)p, *a = alpha + 3 * (size_t)p;
    double e = vx_energy_self(k, a);
    for (int q = p + 1; q < n; ++q) e += vx_energy_pair(k, inv, x, a, pos + 3 * (size_t)q, alpha + 3 * (size_t)q);
    row[p] = e;
  }
  double E = 0.0;
  for (int p = 0; p < n; ++p) E += row[p];
  free(row);
  return E / (4.0 * VX_PI * sigma);
}

/* The sums of the first pass, in one array so that a spread flow reduces them at once: the count, Σ|α|,
 * I, A, W, and for each ring r < VX_SCENE_MAX_RINGS its Σ|α|, Σ|α|x and impulse. */
enum { DS_N, DS_ABS, DS_I, DS_A = DS_I + 3, DS_W = DS_A + 3, DS_RING = DS_W + 3, DS_PER_RING = 7 };
#define DS_COUNT (DS_RING + DS_PER_RING * VX_SCENE_MAX_RINGS)

/* Diagnostics of this process's host arrays, summed over the processes of s when it is spread (s NULL:
 * these arrays are the flow). 0, or -1 with err. */
static int diag_arrays(vx_sim *s, int n, const double *pos, const double *alpha, const int *ring, int n_rings,
                       const double *vel, vx_diag *d, char *err, size_t errlen) {
  memset(d, 0, sizeof *d);
  if (n_rings > VX_SCENE_MAX_RINGS) n_rings = VX_SCENE_MAX_RINGS;
  d->n_rings = n_rings;
  double acc[DS_COUNT] = {0}, top[2] = {0.0, 0.0}; /* top: max|α|², and the energy summed (a sum) */
  acc[DS_N] = n;
  for (int p = 0; p < n; ++p) {
    const double *x = pos + 3 * (size_t)p, *a = alpha + 3 * (size_t)p;
    double xa[3], xxa[3];
    cross(x, a, xa);
    cross(x, xa, xxa);
    double am = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    if (am * am > top[0]) top[0] = am * am;
    acc[DS_ABS] += am;
    for (int i = 0; i < 3; ++i) {
      acc[DS_I + i] += 0.5 * xa[i];
      acc[DS_A + i] += xxa[i] / 3.0;
      acc[DS_W + i] += a[i];
    }
    int r = ring ? ring[p] : 0;
    if (r >= 0 && r < n_rings) {
      double *q = acc + DS_RING + DS_PER_RING * r;
      q[0] += am;
      for (int i = 0; i < 3; ++i) q[1 + i] += am * x[i], q[4 + i] += 0.5 * xa[i];
    }
  }
  double e = vel ? vx_energy(n, pos, alpha, vel) : 0.0;
  if (s && (vx_sim_reduce(s, acc, DS_COUNT, VX_REDUCE_SUM, err, errlen) || vx_sim_reduce(s, top, 1, VX_REDUCE_MAX, err, errlen) ||
            (vel && vx_sim_reduce(s, &e, 1, VX_REDUCE_SUM, err, errlen))))
    return -1;
  d->n_elem = (int)acc[DS_N];
  d->sum_abs_alpha = acc[DS_ABS];
  for (int i = 0; i < 3; ++i) d->I[i] = acc[DS_I + i], d->A[i] = acc[DS_A + i], d->W[i] = acc[DS_W + i];
  d->max_alpha = sqrt(top[0]);
  d->energy = vel ? e : NAN;
  d->energy_sigma = NAN;
  d->dye_near = NAN;
  for (int r = 0; r < n_rings; ++r) {
    const double *q = acc + DS_RING + DS_PER_RING * r;
    double in = sqrt(q[4] * q[4] + q[5] * q[5] + q[6] * q[6]);
    for (int i = 0; i < 3; ++i) {
      d->ring_c[r][i] = q[0] > 0 ? q[1 + i] / q[0] : NAN;
      d->ring_n[r][i] = in > 0 ? q[4 + i] / in : NAN;
    }
  }
  double rsum[VX_SCENE_MAX_RINGS] = {0};
  for (int p = 0; p < n; ++p) {
    int r = ring ? ring[p] : 0;
    if (r < 0 || r >= n_rings) continue;
    const double *x = pos + 3 * (size_t)p, *a = alpha + 3 * (size_t)p, *c = d->ring_c[r], *nn = d->ring_n[r];
    double am = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    double v[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
    double h = v[0] * nn[0] + v[1] * nn[1] + v[2] * nn[2];
    double q[3] = {v[0] - h * nn[0], v[1] - h * nn[1], v[2] - h * nn[2]};
    rsum[r] += am * sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
  }
  if (s && n_rings > 0 && vx_sim_reduce(s, rsum, n_rings, VX_REDUCE_SUM, err, errlen)) return -1;
  for (int r = 0; r < n_rings; ++r) {
    const double w = acc[DS_RING + DS_PER_RING * r];
    d->ring_R[r] = w > 0 ? rsum[r] / w : NAN;
  }
  return 0;
}

void vx_diag_from_arrays(int n, const double *pos, const double *alpha, const int *ring, int n_rings, const double *vel,
                         vx_diag *d) {
  char err[8];
  diag_arrays(NULL, n, pos, alpha, ring, n_rings, vel, d, err, sizeof err);
}

int vx_diag_compute(vx_sim *s, int energy_max_n, vx_diag *d, char *err, size_t errlen) {
  int n = vx_sim_n_elements(s);
  double total = n; /* every process's, when spread: each decides the same */
  if (vx_sim_reduce(s, &total, 1, VX_REDUCE_SUM, err, errlen)) return -1;
  int want_e = total <= energy_max_n;
  double *buf = malloc(sizeof(double) * (size_t)n * (want_e ? 9 : 6) + 1);
  if (!buf) { snprintf(err, errlen, "out of memory for diagnostics"); return -1; }
  double *pos = buf, *alpha = buf + 3 * (size_t)n, *vel = want_e ? buf + 6 * (size_t)n : NULL;
  int rc = vx_sim_get_elements(s, pos, alpha, err, errlen);
  if (!rc && vel) rc = vx_sim_element_velocity(s, vel, err, errlen);
  if (!rc) {
    vx_step_stats st = *vx_sim_last_stats(s);
    vx_health h;
    int hr = vx_sim_health(s, &h, err, errlen);
    if (hr < 0 || diag_arrays(s, n, pos, alpha, vx_sim_rings(s), vx_sim_n_rings(s), vel, d, err, errlen)) {
      free(buf);
      return -1;
    }
    d->step = vx_sim_steps_done(s);
    d->t = vx_sim_time(s);
    d->stats = st;
    d->max_gradu = h.max_gradu;
    const vx_sim_params *p = vx_sim_params_get(s);
    d->sigma = p->sigma;
    if (want_e && vx_sim_kernel_energy(s, &d->energy_sigma, err, errlen)) {
      free(buf);
      return -1;
    }
    d->lattice_h = p->remesh_every > 0 ? (p->remesh_h > 0.0 ? p->remesh_h : p->sigma) : 0.0;
  }
  free(buf);
  return rc;
}

void vx_diag_pad_rings(vx_diag *d, int n) {
  if (n > VX_SCENE_MAX_RINGS) n = VX_SCENE_MAX_RINGS;
  for (int r = d->n_rings; r < n; ++r) {
    d->ring_R[r] = NAN;
    for (int i = 0; i < 3; ++i) d->ring_c[r][i] = d->ring_n[r][i] = NAN;
  }
  if (n > d->n_rings) d->n_rings = n;
}
