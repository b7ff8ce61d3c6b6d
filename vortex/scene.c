/* scene.c — the scene model (scene.h): the names of its enumerations, the defaults of a scene and of
 * a ring, and the generation of a scene's vortex elements and passive tracers (host arrays, double
 * precision). Reading and writing scene files is io/'s (scene_read.c, scene_write.c, scene_list.c). */
#include "scene.h"
#include "tracer_draw_t.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ names */

static const char *integ_names[] = {"euler", "rk2", "rk4"};
const char *vx_integrator_name(vx_integrator i) { return (i >= VX_EULER && i <= VX_RK4) ? integ_names[i] : "?"; }
int vx_integrator_from_name(const char *name, vx_integrator *out) {
  if (!name) return -1;
  if (!strcmp(name, "euler")) *out = VX_EULER;
  else if (!strcmp(name, "rk2") || !strcmp(name, "heun")) *out = VX_RK2;
  else if (!strcmp(name, "rk4")) *out = VX_RK4;
  else return -1;
  return 0;
}
static const char *stretch_names[] = {"classical", "transpose", "none"};
const char *vx_stretching_name(vx_stretching s) {
  return (s >= VX_STRETCH_CLASSICAL && s <= VX_STRETCH_NONE) ? stretch_names[s] : "?";
}
int vx_stretching_from_name(const char *name, vx_stretching *out) {
  for (int i = 0; i < 3; ++i)
    if (name && !strcmp(name, stretch_names[i])) { *out = (vx_stretching)i; return 0; }
  return -1;
}
int vx_precision_from_name(const char *name, vx_precision *out) {
  if (!name) return -1;
  if (!strcmp(name, "double")) *out = VX_DOUBLE;
  else if (!strcmp(name, "float")) *out = VX_FLOAT;
  else return -1;
  return 0;
}
const char *vx_precision_name(vx_precision p) { return p == VX_DOUBLE ? "double" : p == VX_FLOAT ? "float" : "?"; }

/* ------------------------------------------------------------------ defaults */

void vx_ring_init(vx_ring *r) {
  memset(r, 0, sizeof *r);
  r->circulation = 1.0;
  r->radius = 0.3;
  r->core = 0.03;
  r->profile = VX_CORE_GAUSS;
  r->core_extent = 0.0; /* auto: 2 (gauss) or 1 (uniform) */
  r->n_around = 256;
  r->layers = 0;
  r->layer_points = 6;
  r->centre[0] = r->centre[1] = r->centre[2] = 0.5;
  r->axis[2] = 1.0;
  r->tracers = 0;
  r->tracer_spread = -1.0; /* the core radius */
}

void vx_scene_init(vx_scene *s) {
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "unnamed");
  s->kernel = VX_KERNEL_GAUSS;
  s->sigma = 0.0;
  s->sigma_factor = 2.0;
  s->dt = 1e-3;
  s->integrator = VX_RK4;
  s->stretching = VX_STRETCH_CLASSICAL;
  s->order = 8;
  s->leaf_size = 0; /* the backend's */
  s->direct = 0;
  s->backend = VX_BACKEND_AUTO;
  s->precision = VX_DOUBLE;
  s->steps = 1000;
  s->diag_every = 10;
  s->seed = 1;
  s->relax_every = 1;
  s->remesh_drop = 1e-3;
  s->lcfl = 0.5;
  s->tracer_every = 1;
  s->camera.follow = -1;
  s->resolution = VX_RES_NORMAL;
}

void vx_scene_mean_centre(const vx_scene *s, double o[3]) {
  for (int c = 0; c < 3; ++c) {
    double m = 0.0;
    for (int r = 0; r < s->n_rings; ++r) m += s->rings[r].centre[c];
    o[c] = s->n_rings > 0 ? m / s->n_rings : 0.0;
  }
}

void vx_scene_remesh_origin(const vx_scene *s, double o[3]) {
  if (s->has_remesh_origin)
    for (int c = 0; c < 3; ++c) o[c] = s->remesh_origin[c];
  else
    vx_scene_mean_centre(s, o);
}

/* ------------------------------------------------------------------ generation */

double vx_ring_tracer_spread(const vx_ring *r) { return r->tracer_spread >= 0.0 ? r->tracer_spread : r->core; }

double vx_ring_extent(const vx_ring *r) {
  return r->core_extent > 0.0 ? r->core_extent : (r->profile == VX_CORE_UNIFORM ? 1.0 : 2.0);
}

long long vx_ring_elements(const vx_ring *r) {
  long long cross = 1 + (long long)r->layer_points * r->layers * (r->layers + 1) / 2;
  return (long long)r->n_around * cross;
}

/* Fraction of the circulation inside radius ρ for the core profile. */
static double core_cdf(const vx_ring *r, double rho) {
  double x = rho / r->core;
  if (r->profile == VX_CORE_UNIFORM) return x >= 1.0 ? 1.0 : x * x;
  return 1.0 - exp(-x * x);
}
/* Vorticity profile shape ω(ρ) (unnormalised). */
static double core_shape(const vx_ring *r, double rho) {
  double x = rho / r->core;
  if (r->profile == VX_CORE_UNIFORM) return x <= 1.0 ? 1.0 : 0.0;
  return exp(-x * x);
}
/* Circulation-weighted mean radius over the annulus [r0, r1] (Simpson's rule): where the
 * annulus's element sits, so the cross-section's second moment is kept. */
static double annulus_radius(const vx_ring *r, double r0, double r1) {
  const int m = 400;
  double h = (r1 - r0) / m, num = 0.0, den = 0.0;
  for (int i = 0; i <= m; ++i) {
    double x = r0 + i * h, w = (i == 0 || i == m) ? 1.0 : (i & 1) ? 4.0 : 2.0;
    double f = core_shape(r, x) * x * w;
    num += f * x;
    den += f;
  }
  return den > 0.0 ? num / den : 0.5 * (r0 + r1);
}

void vx_ring_frame(const double n[3], double e1[3], double e2[3]) {
  double ref[3] = {0, 0, 0};
  int k = fabs(n[0]) <= fabs(n[1]) ? (fabs(n[0]) <= fabs(n[2]) ? 0 : 2) : (fabs(n[1]) <= fabs(n[2]) ? 1 : 2);
  ref[k] = 1.0;
  double d = ref[0] * n[0] + ref[1] * n[1] + ref[2] * n[2];
  for (int i = 0; i < 3; ++i) e1[i] = ref[i] - d * n[i];
  double l = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
  for (int i = 0; i < 3; ++i) e1[i] /= l;
  e2[0] = n[1] * e1[2] - n[2] * e1[1];
  e2[1] = n[2] * e1[0] - n[0] * e1[2];
  e2[2] = n[0] * e1[1] - n[1] * e1[0];
}

double vx_scene_sigma(const vx_scene *s, double spacing) { return s->sigma > 0.0 ? s->sigma : s->sigma_factor * spacing; }

void vx_particles_free(vx_particles *p) {
  free(p->pos);
  free(p->alpha);
  free(p->ring);
  memset(p, 0, sizeof *p);
}

/* Tracer counts per ring for a total of nt: in proportion to the rings' own counts (equally when
 * those are all 0), the remainder one by one from the first ring. */
static void tracer_split(const vx_scene *s, long long nt, long long per[VX_SCENE_MAX_RINGS]) {
  long long nt_scene = 0, assigned = 0;
  for (int i = 0; i < s->n_rings; ++i) nt_scene += s->rings[i].tracers;
  for (int i = 0; i < s->n_rings; ++i) {
    if (nt_scene > 0) per[i] = (long long)((double)nt * s->rings[i].tracers / (double)nt_scene);
    else per[i] = nt / s->n_rings;
    assigned += per[i];
  }
  for (int i = 0; assigned < nt; i = (i + 1) % s->n_rings, ++assigned) per[i]++;
}

void vx_scene_set_tracers(vx_scene *s, long long n) {
  long long per[VX_SCENE_MAX_RINGS];
  if (s->n_rings <= 0) return;
  tracer_split(s, n, per);
  for (int i = 0; i < s->n_rings; ++i) s->rings[i].tracers = (int)per[i];
}

int vx_dye_release_check(double T, double dt, int tracer_every, vx_integrator it, char *err, size_t errlen) {
  if (T == 0.0) return 0;
  if (!(T >= VX_SCENE_DT_MIN && T <= VX_SCENE_LIFE_MAX)) {
    snprintf(err, errlen, "dye_release %g must be 0 (off) or a lifetime in [%g, %g]", T, VX_SCENE_DT_MIN, VX_SCENE_LIFE_MAX);
    return -1;
  }
  const int m = it == VX_EULER || tracer_every < 1 ? 1 : tracer_every;
  if (T < m * dt) { /* a step's block, ⌈N·H/T⌉ tracers, would hold some twice */
    snprintf(err, errlen, "dye_release %g is shorter than one tracer step (%d x dt %g): each tracer must live at least a step", T,
             m, dt);
    return -1;
  }
  return 0;
}

int vx_tracer_sources(const vx_scene *s, long long n_tracers, vx_tracer_source src[VX_SCENE_MAX_RINGS]) {
  long long nt = 0, per[VX_SCENE_MAX_RINGS], first = 0;
  for (int i = 0; i < s->n_rings; ++i) nt += s->rings[i].tracers;
  if (s->n_rings <= 0) return 0;
  tracer_split(s, n_tracers >= 0 ? n_tracers : nt, per);
  for (int i = 0; i < s->n_rings; ++i) {
    const vx_ring *r = &s->rings[i];
    vx_tracer_source *q = &src[i];
    memset(q, 0, sizeof *q);
    memcpy(q->centre, r->centre, sizeof q->centre);
    memcpy(q->axis, r->axis, sizeof q->axis);
    q->radius = r->radius, q->perturb_amp = vx_ring_wave_amp(r), q->spread = vx_ring_tracer_spread(r);
    q->perturb_mode = r->perturb_mode;
    q->first = (int)first, q->count = (int)per[i];
    first += per[i];
  }
  return s->n_rings;
}

void vx_tracer_redraw(const vx_tracer_source *src, uint64_t seed, long long q, long long generation, double p[3]) {
  double e1[3], e2[3];
  vx_ring_frame(src->axis, e1, e2);
  uint64_t st = vx_rng_mix(vx_rng_mix(vx_rng_mix(seed + VX_RNG_GAMMA) ^ (uint64_t)q) ^ (uint64_t)generation);
  vx_tracer_draw(src, e1, e2, &st, p);
}

/* One tracer's place in tracers_in_space_order: its Morton key, then its seeding index. */
typedef struct {
  uint32_t key;
  uint32_t i;
} tracer_key;
/* k stably sorted by key: least significant byte first, four passes, t as scratch (the result back in k). */
static void sort_tracer_keys(tracer_key *k, tracer_key *t, size_t n) {
  for (int shift = 0; shift < 32; shift += 8) {
    size_t at[257] = {0};
    for (size_t q = 0; q < n; ++q) at[((k[q].key >> shift) & 255u) + 1]++;
    for (int b = 0; b < 256; ++b) at[b + 1] += at[b];
    for (size_t q = 0; q < n; ++q) t[at[(k[q].key >> shift) & 255u]++] = k[q];
    tracer_key *x = k;
    k = t, t = x;
  }
}

/* n tracer positions reordered by their cells' Morton keys (tracer_draw_t.h, vx_tracer_key), ties in
 * seeding order: the same set of positions, deterministically, in spatial order. Within one ring's
 * block: the ring colours read a tracer's ring from its index (tracer_colour.c). 0, or -1 out of memory. */
static int tracers_in_space_order(double *pos, size_t n, const double c[3], double half) {
  if (n < 2) return 0;
  tracer_key *k = malloc(2 * n * sizeof *k);
  double *copy = malloc(3 * n * sizeof *copy);
  if (!k || !copy) { free(k), free(copy); return -1; }
#pragma omp parallel for schedule(static)
  for (size_t q = 0; q < n; ++q) k[q].key = vx_tracer_key(pos + 3 * q, c, half), k[q].i = (uint32_t)q;
  sort_tracer_keys(k, k + n, n);
  memcpy(copy, pos, 3 * n * sizeof *copy);
#pragma omp parallel for schedule(static)
  for (size_t q = 0; q < n; ++q) memcpy(pos + 3 * q, copy + 3 * (size_t)k[q].i, 3 * sizeof *pos);
  free(k), free(copy);
  return 0;
}

/* The elements of ring ri (r) from row *e on (*e advanced past them); *spacing raised to the largest
 * spacing of its elements, around the ring and across the core. */
static void ring_elements(const vx_ring *r, int ri, vx_particles *out, size_t *e, double *spacing) {
  double e1[3], e2[3];
  vx_ring_frame(r->axis, e1, e2);
  const double *n = r->axis;
  /* cross-section: annulus l spans [(l-½)h, (l+½)h] (l = 0: the disc of radius h/2) */
  int L = r->layers;
  double ext = vx_ring_extent(r);
  double h = L > 0 ? r->core * ext / (L + 0.5) : 0.0;
  double lrad[65], lgam[65];
  for (int l = 0; l <= L; ++l) {
    double r0 = l == 0 ? 0.0 : (l - 0.5) * h, r1 = (l + 0.5) * h;
    int cnt = l == 0 ? 1 : r->layer_points * l;
    double c1 = (l == L) ? 1.0 : core_cdf(r, r1); /* the outermost annulus takes the tail */
    double r1q = (l == L && r->profile == VX_CORE_GAUSS) ? r1 + 6.0 * r->core : r1;
    lgam[l] = r->circulation * (c1 - core_cdf(r, r0)) / cnt;
    lrad[l] = L == 0 ? 0.0 : (l == 0 ? 0.0 : annulus_radius(r, r0, r1q));
  }
  if (L > 0 && h > *spacing) *spacing = h;
  double amp = vx_ring_wave_amp(r);
  double around = 2.0 * VX_PI * r->radius * (1.0 + amp) / r->n_around;
  if (around > *spacing) *spacing = around;
  for (int k = 0; k < r->n_around; ++k) {
    double phi = r->phase + 2.0 * VX_PI * k / r->n_around;
    double cp = cos(phi), sp = sin(phi);
    double er[3], et[3];
    for (int i = 0; i < 3; ++i) { er[i] = cp * e1[i] + sp * e2[i]; et[i] = -sp * e1[i] + cp * e2[i]; }
    double m = r->perturb_mode;
    double Rk = r->radius * (1.0 + amp * cos(m * phi));
    double dR = -r->radius * amp * m * sin(m * phi); /* dR/dφ */
    for (int l = 0; l <= L; ++l) {
      int cnt = l == 0 ? 1 : r->layer_points * l;
      for (int j = 0; j < cnt; ++j) {
        double th = 2.0 * VX_PI * (j + 0.5 * (l & 1)) / cnt;
        double rr = lrad[l] * cos(th), zz = lrad[l] * sin(th);
        /* Each (l, j) is a closed filament C(φ) + rr e_r + zz n of circulation lgam[l]; its element
         * carries lgam[l] dC/dφ Δφ, along that filament's own tangent dR e_r + (R + rr) e_t (on a wavy
         * centreline not the centreline's): the elements then join into closed filaments, whose
         * field is divergence-free. */
        double tl = sqrt(dR * dR + (Rk + rr) * (Rk + rr)), ds = 2.0 * VX_PI * tl / r->n_around;
        for (int i = 0; i < 3; ++i) {
          out->pos[3 * *e + i] = r->centre[i] + (Rk + rr) * er[i] + zz * n[i];
          out->alpha[3 * *e + i] = lgam[l] * ds * (dR * er[i] + (Rk + rr) * et[i]) / tl;
        }
        out->ring[*e] = ri;
        ++*e;
      }
    }
  }
}

uint64_t vx_ring_tracer_seed(uint64_t seed, int ri) { return seed * VX_RNG_GAMMA + 0x632be59bd9b4e019ull * (uint64_t)(ri + 1); }

int vx_ring_tracers_draw(const vx_tracer_source *q, uint64_t st, double *pos) {
  if (q->count <= 0) return 0; /* no parallel region: a GPU run's first one starts the thread pool (ms) */
  double e1[3], e2[3];
  vx_ring_frame(q->axis, e1, e2);
#pragma omp parallel for schedule(static)
  for (int k = 0; k < q->count; ++k) {
    uint64_t sk = vx_tracer_stream(st, k); /* each thread starts its tracers where the sequential loop would */
    vx_tracer_draw(q, e1, e2, &sk, pos + 3 * (size_t)k);
  }
  return tracers_in_space_order(pos, (size_t)q->count, q->centre, vx_tracer_half(q));
}

int vx_particles_generate(const vx_scene *s, long long n_tracers, vx_particles *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  long long ne = 0, nt_scene = 0;
  for (int i = 0; i < s->n_rings; ++i) {
    ne += vx_ring_elements(&s->rings[i]);
    nt_scene += s->rings[i].tracers;
  }
  long long nt = n_tracers >= 0 ? n_tracers : nt_scene;
  if (ne + nt > (1LL << 30)) {
    snprintf(err, errlen, "%lld elements + %lld tracers is over the supported 2^30", ne, nt);
    return -1;
  }
  vx_tracer_source src[VX_SCENE_MAX_RINGS];
  vx_tracer_sources(s, nt, src);

  out->n_elem = (int)ne;
  out->n_tracer = (int)nt;
  out->pos = malloc(sizeof(double) * 3 * (size_t)(ne + nt) + 1);
  out->alpha = malloc(sizeof(double) * 3 * (size_t)ne + 1);
  out->ring = malloc(sizeof(int) * (size_t)ne + 1);
  if (!out->pos || !out->alpha || !out->ring) {
    vx_particles_free(out);
    snprintf(err, errlen, "out of memory generating %lld elements and %lld tracers", ne, nt);
    return -1;
  }
  double spacing = 0.0;
  size_t e = 0;
  for (int ri = 0; ri < s->n_rings; ++ri) ring_elements(&s->rings[ri], ri, out, &e, &spacing);
  for (int ri = 0; ri < s->n_rings; ++ri)
    if (vx_ring_tracers_draw(&src[ri], vx_ring_tracer_seed(s->seed, ri),
                             out->pos + 3 * ((size_t)out->n_elem + (size_t)src[ri].first))) {
      vx_particles_free(out);
      snprintf(err, errlen, "out of memory ordering %d tracers", src[ri].count);
      return -1;
    }
  out->spacing = spacing;
  return 0;
}
