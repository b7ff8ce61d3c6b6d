/* launch.c — a vortex ring launched into a running simulation (launch.h): its placement, its
 * one-ring scene in the running scene's discretisation, its elements (vx_particles_generate) and
 * their hand-over to vx_sim_add_ring with its tracers' source, which draws the tracers where the
 * simulation keeps them (on the device on cuda). Host code. */
#include "launch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numerics.h"

/* The ring whose discretisation a launched one copies. */
static vx_ring template_ring(const vx_scene *sc) {
  vx_ring r;
  if (sc && sc->n_rings > 0) return sc->rings[0];
  vx_ring_init(&r);
  return r;
}

void vx_launch_defaults(const vx_scene *sc, const vx_sim *s, vx_launch *L) {
  vx_ring t = template_ring(sc);
  memset(L, 0, sizeof *L);
  L->radius = t.radius;
  L->circulation = t.circulation;
  L->core = t.core;
  memcpy(L->centre, t.centre, sizeof L->centre);
  memcpy(L->axis, t.axis, sizeof L->axis);
  int nr = s ? vx_sim_n_rings(s) : 0;
  L->tracers = s && nr > 0 ? vx_sim_n_tracers(s) / nr : t.tracers;
}

void vx_launch_aim(vx_launch *L, const double eye[3], const double fwd[3]) {
  double n = sqrt(fwd[0] * fwd[0] + fwd[1] * fwd[1] + fwd[2] * fwd[2]);
  if (!(n > 0.0)) n = 1.0;
  for (int i = 0; i < 3; ++i) {
    L->axis[i] = fwd[i] / n;
    L->centre[i] = eye[i] + VX_LAUNCH_AHEAD * L->radius * L->axis[i];
  }
}

/* The least distance of each of the nc candidate centres c0 - k·step·axis (k = 0..nc-1) to n elements x:
 * from an element, the ring's circle of radius R about that centre is sqrt((ρ - R)² + z²) away. The
 * candidates lie on one axis, so an element's ρ is the same for all of them and only z moves (by
 * k·step): one square root an element, squared distances compared. */
static void least_distances(const double *x, int n, const double c0[3], const double axis[3], double step, double R, int nc,
                            double *dmin) {
  for (int k = 0; k < nc; ++k) dmin[k] = INFINITY;
  for (int p = 0; p < n; ++p) {
    double r[3], z = 0.0, rr = 0.0;
    for (int i = 0; i < 3; ++i) r[i] = x[3 * (size_t)p + i] - c0[i], z += r[i] * axis[i];
    for (int i = 0; i < 3; ++i) rr += r[i] * r[i];
    const double w = sqrt(fmax(0.0, rr - z * z)) - R, w2 = w * w;
    for (int k = 0; k < nc; ++k) {
      const double zk = z + k * step, d2 = w2 + zk * zk;
      if (d2 < dmin[k]) dmin[k] = d2;
    }
  }
  for (int k = 0; k < nc; ++k) dmin[k] = sqrt(dmin[k]);
}

int vx_launch_clear(vx_launch *L, vx_sim *s, double *ahead, char *err, size_t errlen) {
  enum { MAX_C = 64 };
  const double an = sqrt(L->axis[0] * L->axis[0] + L->axis[1] * L->axis[1] + L->axis[2] * L->axis[2]);
  const double axis[3] = {L->axis[0] / an, L->axis[1] / an, L->axis[2] / an}, step = 0.5 * L->radius;
  int nc = (int)floor((VX_LAUNCH_AHEAD - VX_LAUNCH_NEAREST) / 0.5 + 0.5) + 1;
  nc = nc < 1 ? 1 : (nc > MAX_C ? MAX_C : nc);
  const int ne = vx_sim_n_elements(s);
  double *x = ne > 0 ? malloc(sizeof(double) * 3 * (size_t)ne) : NULL, dmin[MAX_C];
  if (ne > 0 && !x) { snprintf(err, errlen, "out of host memory"); return -1; }
  if (ne > 0 && vx_sim_get_elements(s, x, NULL, err, errlen)) { free(x); return -1; } /* the positions alone */
  least_distances(x, ne, L->centre, axis, step, L->radius, nc, dmin);
  free(x);
  for (int k = 0; k < nc; ++k) dmin[k] = -dmin[k]; /* spread over processes: the least over every process's */
  if (vx_sim_reduce(s, dmin, nc, VX_REDUCE_MAX, err, errlen)) return -1;
  for (int k = 0; k < nc; ++k)
    if (-dmin[k] >= VX_LAUNCH_CLEAR * L->radius) {
      for (int i = 0; i < 3; ++i) L->centre[i] -= k * step * axis[i];
      *ahead = VX_LAUNCH_AHEAD - 0.5 * k;
      return 0;
    }
  return 1;
}

int vx_launch_aim_behind(vx_launch *L, vx_sim *s, const vx_scene *sc, char *err, size_t errlen) {
  vx_ring t = template_ring(sc);
  int ne = vx_sim_n_elements(s);
  double c[3] = {t.centre[0], t.centre[1], t.centre[2]}, w = 0.0, acc[3] = {0, 0, 0};
  double *buf = ne > 0 ? malloc(sizeof(double) * 6 * (size_t)ne) : NULL;
  if (ne > 0 && !buf) { snprintf(err, errlen, "out of host memory"); return -1; }
  if (ne > 0 && vx_sim_get_elements(s, buf, buf + 3 * (size_t)ne, err, errlen)) { free(buf); return -1; }
  for (int p = 0; p < ne; ++p) {
    const double *x = buf + 3 * (size_t)p, *a = buf + 3 * (size_t)(ne + p);
    double m = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    for (int i = 0; i < 3; ++i) acc[i] += m * x[i];
    w += m;
  }
  free(buf);
  double sums[4] = {acc[0], acc[1], acc[2], w}; /* spread over processes: every process's elements */
  if (vx_sim_reduce(s, sums, 4, VX_REDUCE_SUM, err, errlen)) return -1;
  for (int i = 0; i < 3; ++i) acc[i] = sums[i];
  w = sums[3];
  if (w > 0.0)
    for (int i = 0; i < 3; ++i) c[i] = acc[i] / w;
  memcpy(L->axis, t.axis, sizeof L->axis);
  for (int i = 0; i < 3; ++i) L->centre[i] = c[i] - (2.0 * L->radius + 4.0 * L->core) * t.axis[i];
  return 0;
}

/* The launch's values within a scene file's bounds (scene.h), a < R. */
static int check_launch(const vx_launch *L, char *err, size_t errlen) {
  double an = sqrt(L->axis[0] * L->axis[0] + L->axis[1] * L->axis[1] + L->axis[2] * L->axis[2]);
  if (!(L->radius >= VX_SCENE_LEN_MIN && L->radius <= VX_SCENE_LEN_MAX)) {
    snprintf(err, errlen, "launched ring: radius %g outside [%g, %g]", L->radius, VX_SCENE_LEN_MIN, VX_SCENE_LEN_MAX);
    return -1;
  }
  if (!(L->core >= VX_SCENE_LEN_MIN && L->core < L->radius)) {
    snprintf(err, errlen, "launched ring: core %g must be in [%g, radius %g)", L->core, VX_SCENE_LEN_MIN, L->radius);
    return -1;
  }
  if (!(fabs(L->circulation) <= VX_SCENE_CIRC_MAX) || L->circulation == 0.0) {
    snprintf(err, errlen, "launched ring: circulation %g must be non-zero, |circulation| <= %g", L->circulation, VX_SCENE_CIRC_MAX);
    return -1;
  }
  if (!(an > 0.0) || !isfinite(an)) { snprintf(err, errlen, "launched ring: no direction (axis of length %g)", an); return -1; }
  for (int i = 0; i < 3; ++i)
    if (!(fabs(L->centre[i]) <= VX_SCENE_LEN_MAX)) {
      snprintf(err, errlen, "launched ring: centre coordinate %g outside [-%g, %g]", L->centre[i], VX_SCENE_LEN_MAX, VX_SCENE_LEN_MAX);
      return -1;
    }
  if (L->tracers < 0 || L->tracers > (1LL << 30)) { snprintf(err, errlen, "launched ring: bad tracer count %lld", L->tracers); return -1; }
  return 0;
}

int vx_launch_scene(const vx_scene *sc, const vx_launch *L, int k, vx_scene *one, char *err, size_t errlen) {
  if (check_launch(L, err, errlen)) return -1;
  vx_ring t = template_ring(sc), r = t;
  if (sc) *one = *sc;
  else vx_scene_init(one);
  one->n_rings = 1;
  one->seed = (sc ? sc->seed : 1) + 0x9e3779b97f4a7c15ull * (uint64_t)(k + 1); /* each launch its own tracers */
  r.radius = L->radius, r.circulation = L->circulation, r.core = L->core;
  r.phase = 0.0, r.perturb_amp = 0.0, r.perturb_mode = 0;
  double an = sqrt(L->axis[0] * L->axis[0] + L->axis[1] * L->axis[1] + L->axis[2] * L->axis[2]);
  for (int i = 0; i < 3; ++i) r.centre[i] = L->centre[i], r.axis[i] = L->axis[i] / an;
  /* the template's spacing around the ring and across the core (scene.c: annulus width
   * a·extent/(layers + ½)), so the running σ (chosen for that spacing) suits the new ring too */
  double around = 2.0 * VX_PI * t.radius / t.n_around, n = ceil(2.0 * VX_PI * r.radius / around);
  r.n_around = n < 8.0 ? 8 : n > 65536.0 ? 65536 : (int)n;
  if (t.layers > 0) {
    double ext = vx_ring_extent(&t);
    double h = t.core * ext / (t.layers + 0.5), l = floor(r.core * ext / h); /* the template's core: its layers */
    r.layers = l < 1.0 ? 1 : l > 64.0 ? 64 : (int)l;
  }
  r.tracers = (int)L->tracers;
  r.tracer_spread = t.tracer_spread >= 0.0 ? t.tracer_spread * r.radius / t.radius : -1.0; /* < 0: the core, as the template's */
  one->rings[0] = r;
  return 0;
}

int vx_launch_ring(vx_sim *s, const vx_scene *sc, const vx_launch *L, char *err, size_t errlen) {
  int k;
  (void)vx_sim_added_rings(s, &k);
  vx_scene one;
  if (vx_launch_scene(sc, L, k, &one, err, errlen) || vx_numerics_launch_check(sc, &one.rings[0], err, errlen)) return -1;
  vx_particles P; /* its elements here; its tracers where the simulation keeps them (vx_sim_add_ring) */
  vx_tracer_source tq[VX_SCENE_MAX_RINGS];
  vx_tracer_sources(&one, -1, tq);
  if (vx_particles_generate(&one, 0, &P, err, errlen)) return -1;
  int rc = vx_sim_add_ring(s, P.n_elem, P.pos, P.alpha, tq, vx_ring_tracer_seed(one.seed, 0), err, errlen);
  vx_particles_free(&P);
  return rc;
}
