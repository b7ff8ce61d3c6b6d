/* passage.c — leapfrog passages (passage.h). */
#include "passage.h"

#include <math.h>
#include <string.h>

void vx_passages_reset(vx_passages *p) {
  memset(p, 0, sizeof *p);
  p->t_last = NAN;
}

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

int vx_passage_pair(const vx_diag *d, int i, int j, double *lead) {
  const double *ni = d->ring_n[i], *nj = d->ring_n[j];
  if (!(dot3(ni, nj) > VX_PASSAGE_AXIS_COS)) return 0;
  double n[3] = {ni[0] + nj[0], ni[1] + nj[1], ni[2] + nj[2]}, len = sqrt(dot3(n, n));
  double dc[3] = {d->ring_c[j][0] - d->ring_c[i][0], d->ring_c[j][1] - d->ring_c[i][1], d->ring_c[j][2] - d->ring_c[i][2]};
  if (!(len > 0.0)) return 0;
  double along = dot3(dc, n) / len, across2 = dot3(dc, dc) - along * along;
  double r = fmax(d->ring_R[i], d->ring_R[j]);
  if (!(across2 <= VX_PASSAGE_OFF_AXIS * VX_PASSAGE_OFF_AXIS * r * r)) return 0;
  *lead = along / r;
  return 1;
}

int vx_passages_update(vx_passages *p, const vx_diag *d) {
  int n = d->n_rings < VX_SCENE_MAX_RINGS ? d->n_rings : VX_SCENE_MAX_RINGS, counted = 0;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      double lead;
      if (!vx_passage_pair(d, i, j, &lead)) {
        p->ahead[i][j] = 0;
        continue;
      }
      int s = lead > VX_PASSAGE_LEAD ? 1 : lead < -VX_PASSAGE_LEAD ? -1 : 0;
      if (s == 0) continue; /* within the band: the order it had */
      if (p->ahead[i][j] != 0 && s != p->ahead[i][j]) ++counted;
      p->ahead[i][j] = (signed char)s;
    }
  if (counted) {
    p->count += counted;
    p->t_last = d->t;
  }
  return counted;
}

void vx_dye_near_count(const vx_diag *d, int n, const double *pos, const float *label, long long *near, long long *seen) {
  *near = *seen = 0;
  for (int q = 0; q < n; ++q) {
    int r = (int)label[q];
    if (r < 0 || r >= d->n_rings || r >= VX_SCENE_MAX_RINGS || !(d->ring_R[r] > 0.0)) continue;
    const double *c = d->ring_c[r], *nr = d->ring_n[r];
    double x[3] = {pos[3 * q] - c[0], pos[3 * q + 1] - c[1], pos[3 * q + 2] - c[2]};
    double z = dot3(x, nr), rho = sqrt(fmax(0.0, dot3(x, x) - z * z)), dr = rho - d->ring_R[r];
    ++*seen;
    *near += dr * dr + z * z < VX_DYE_NEAR * VX_DYE_NEAR * d->ring_R[r] * d->ring_R[r];
  }
}
