/* test_vortex_passage.c — leapfrog passages (vortex/passage.h) on diagnostics made by hand:
 *  1. two coaxial rings that swap order along their axis count one passage each swap;
 *  2. centroids that jitter within the lead band (rings merged into one body) count none;
 *  3. rings side by side, or travelling opposite ways, are not a pair and count none;
 *  4. a third ring added later takes part from its first diagnostics on. */
#include <math.h>
#include <string.h>

#include "test_check.h"
#include "passage.h"

/* d holds n rings of radius R on the z axis (axis +z unless flipped), ring k's centroid at z[k] and
 * x[k] off the axis. */
static void rings(vx_diag *d, int n, const double *z, const double *x, double R, int flip_last) {
  memset(d, 0, sizeof *d);
  d->n_rings = n;
  for (int k = 0; k < n; ++k) {
    d->ring_c[k][0] = x ? x[k] : 0.0;
    d->ring_c[k][2] = z[k];
    d->ring_R[k] = R;
    d->ring_n[k][2] = flip_last && k == n - 1 ? -1.0 : 1.0;
  }
}

static int swaps(void) {
  vx_passages p;
  vx_passages_reset(&p);
  vx_diag d;
  /* ring 1 ahead by 0.5 R, then ring 0 ahead, then ring 1 again: two passages */
  const double zs[][2] = {{0.0, 0.15}, {0.1, 0.12}, {0.2, 0.1}, {0.3, 0.1}, {0.33, 0.45}};
  int want[] = {0, 0, 1, 1, 2};
  for (int s = 0; s < 5; ++s) {
    rings(&d, 2, zs[s], NULL, 0.3, 0);
    d.t = s;
    vx_passages_update(&p, &d);
    CHECK(p.count == want[s], "after state %d: %lld passages, expected %d", s, p.count, want[s]);
  }
  CHECK(p.t_last == 4.0, "the last passage at t = %g, expected 4", p.t_last);
  printf("(1) two swaps of two coaxial rings: %lld passages\n", p.count);
  return 0;
}

static int jitter(void) {
  vx_passages p;
  vx_passages_reset(&p);
  vx_diag d;
  double z[2] = {0.0, 0.2};
  rings(&d, 2, z, NULL, 0.3, 0);
  vx_passages_update(&p, &d);
  for (int s = 0; s < 50; ++s) { /* leads of ±0.03 R: inside the band */
    z[1] = (s & 1 ? 0.01 : -0.01);
    rings(&d, 2, z, NULL, 0.3, 0);
    vx_passages_update(&p, &d);
  }
  CHECK(p.count == 0, "centroids jittering within %g R counted %lld passages", VX_PASSAGE_LEAD, p.count);
  printf("(2) 50 jitters within the band: no passage\n");
  return 0;
}

static int not_pairs(void) {
  vx_passages p;
  vx_passages_reset(&p);
  vx_diag d;
  double x[2] = {0.0, 0.7}; /* side by side: 0.7 apart across the axis, R 0.3 */
  double z[2] = {0.0, 0.2};
  rings(&d, 2, z, x, 0.3, 0);
  vx_passages_update(&p, &d);
  z[1] = -0.2;
  rings(&d, 2, z, x, 0.3, 0);
  vx_passages_update(&p, &d);
  CHECK(p.count == 0, "rings side by side counted %lld passages", p.count);
  z[1] = 0.2;
  rings(&d, 2, z, NULL, 0.3, 1); /* head-on: opposite axes */
  vx_passages_update(&p, &d);
  z[1] = -0.2;
  rings(&d, 2, z, NULL, 0.3, 1);
  vx_passages_update(&p, &d);
  CHECK(p.count == 0, "rings travelling opposite ways counted %lld passages", p.count);
  printf("(3) side by side and head-on: no passage\n");
  return 0;
}

static int added(void) {
  vx_passages p;
  vx_passages_reset(&p);
  vx_diag d;
  double z[3] = {0.0, 0.2, -0.5};
  rings(&d, 2, z, NULL, 0.3, 0);
  vx_passages_update(&p, &d);
  rings(&d, 3, z, NULL, 0.3, 0); /* a ring launched behind both */
  vx_passages_update(&p, &d);
  z[2] = 0.5; /* it passes both */
  rings(&d, 3, z, NULL, 0.3, 0);
  vx_passages_update(&p, &d);
  CHECK(p.count == 2, "a launched ring passing two rings counted %lld passages, expected 2", p.count);
  printf("(4) a ring added later passes two: 2 passages\n");
  return 0;
}

int main(void) {
  swaps();
  jitter();
  not_pairs();
  added();
  return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
