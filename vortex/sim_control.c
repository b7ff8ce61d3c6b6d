/* sim_control.c — a simulation's long-run control (docs/MATH.md §9): Pedrizzetti's relaxation of the
 * strengths towards the field's vorticity, remeshing onto the lattice (remesh.h: the M4' pipeline on
 * either backend, with the viscous diffusion it carries), the lattice's coarsening as the field
 * spreads (coarsen.h), and the correction that restores the invariants after a relaxation or a drop
 * threshold (conserve.h). */
#include "sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coarsen.h"
#include "sim_gpu.h"

/* ------------------------------------------------------------------ relaxation and the correction */

int sim_reprojects(const vx_sim *s) {
  return vx_relax_reprojects(s->prm.remesh_every, s->prm.kernel) && s->rstats.h > 0.0;
}

/* The moments of the elements (conserve.h): the linear invariants and the correction's weights, summed
 * over the processes when the flow is spread over them. */
static int element_moments(vx_sim *s, double *m, char *err, size_t errlen) {
  if (s->on_device && sim_buf_reserve(s, &s->cons, &s->c_cons, VX_CONSERVE_SCRATCH, err, errlen)) return -1;
  return vx_moments(s->prm.precision, s->on_device, s->pos, s->alpha, s->n_elem, s->cons, m, err, errlen) ||
                 vx_sim_reduce(s, m, VX_MOMENTS_N, VX_REDUCE_SUM, err, errlen)
             ? -1
             : 0;
}

/* The impulse the correction restores: I of the moments m0; in the full mode less ½ c×W of m0, c the
 * |α|-weighted centroid: taking W to zero at c moves I by exactly that (the λ term of conserve.h),
 * so the origin-dependent part that the drift of W had put into I leaves with it. */
static void restored_impulse(int mode, const double *m0, double *i_target) {
  double c[3] = {0.0, 0.0, 0.0};
  for (int k = 0; k < 3; ++k) {
    i_target[k] = m0[3 + k];
    if (mode == VX_CONSERVE_FULL && m0[6] > 0.0) c[k] = m0[7 + k] / m0[6];
  }
  i_target[0] -= 0.5 * (c[1] * m0[2] - c[2] * m0[1]);
  i_target[1] -= 0.5 * (c[2] * m0[0] - c[0] * m0[2]);
  i_target[2] -= 0.5 * (c[0] * m0[1] - c[1] * m0[0]);
}

/* Bring the elements' I back to that of m0 (the moments before a relaxation or a drop), and in the
 * full mode W to zero, its value for any vorticity of compact support (∫ω dV = ∮ x (ω·n) dS = 0 since
 * ∇·ω = 0; the classical stretching lets Σα drift, and a W ≠ 0 makes I depend on the origin: rings
 * that travel 12 units then show a transverse "impulse" z×W/2, docs/MATH.md §9); adds the
 * relative impulse put back to *sum_di. */
static int restore_invariants(vx_sim *s, const double *m0, double *sum_di, char *err, size_t errlen) {
  const double w_zero[3] = {0.0, 0.0, 0.0};
  double i_target[3];
  restored_impulse(s->prm.conserve, m0, i_target);
  double di = 0.0, m[VX_MOMENTS_N];
  if (s->prm.conserve == VX_CONSERVE_OFF) return 0;
  if (element_moments(s, m, err, errlen) ||
      vx_conserve_moments(s->prm.precision, s->on_device, s->pos, s->alpha, s->n_elem, m, w_zero, i_target,
                          (vx_conserve_mode)s->prm.conserve, &di, err, errlen))
    return -1;
  *sum_di += di;
  return 0;
}

/* One ring's block of elements and its moments before a relaxation (the ring mode). */
typedef struct {
  int first, count;
  double m[VX_MOMENTS_N];
} ring_block;

/* Each block's moments into m (VX_MOMENTS_N a block); spread over processes, each ring's over every
 * process's blocks of it (a ring's elements lie on several): summed by ring id, given to each block. */
static int block_moments(vx_sim *s, const ring_block *b, int nb, double *m, char *err, size_t errlen) {
  for (int k = 0; k < nb; ++k) {
    size_t off = 3 * s->rs * (size_t)b[k].first;
    if (vx_moments(s->prm.precision, s->on_device, (const char *)s->pos + off, (const char *)s->alpha + off, b[k].count, s->cons,
                   m + VX_MOMENTS_N * (size_t)k, err, errlen))
      return -1;
  }
  if (!s->coll_on) return 0;
  const int R = s->n_rings > 0 ? s->n_rings : 1;
  double *sum = calloc((size_t)R * VX_MOMENTS_N, sizeof *sum);
  int rc = sum ? 0 : -1;
  if (!sum) snprintf(err, errlen, "out of host memory for %d rings' moments", R);
  for (int k = 0; !rc && k < nb; ++k) {
    const int r = s->ring[b[k].first];
    for (int q = 0; q < VX_MOMENTS_N && r >= 0 && r < R; ++q) sum[VX_MOMENTS_N * r + q] += m[VX_MOMENTS_N * k + q];
  }
  if (!rc) rc = vx_sim_reduce(s, sum, R * VX_MOMENTS_N, VX_REDUCE_SUM, err, errlen);
  for (int k = 0; !rc && k < nb; ++k) {
    const int r = s->ring[b[k].first];
    if (r >= 0 && r < R) memcpy(m + VX_MOMENTS_N * (size_t)k, sum + VX_MOMENTS_N * (size_t)r, sizeof(double) * VX_MOMENTS_N);
  }
  free(sum);
  return rc;
}

/* The rings' blocks (the runs of one ring id among the elements; without remeshing, one a ring) and
 * their moments, in a new array of *nb (NULL with *nb = 0: no elements). 0, or -1 with err. */
static int ring_moments(vx_sim *s, ring_block **out, int *nb, char *err, size_t errlen) {
  *out = NULL, *nb = 0;
  int n = 0;
  for (int i = 0; i < s->n_elem; ++i) n += i == 0 || s->ring[i] != s->ring[i - 1];
  ring_block *b = (ring_block *)calloc((size_t)n + 1, sizeof *b);
  double *m = malloc(((size_t)n + 1) * VX_MOMENTS_N * sizeof *m);
  if (!b || !m) { free(b), free(m); snprintf(err, errlen, "out of host memory for %d ring blocks", n); return -1; }
  for (int i = 0, k = -1; i < s->n_elem; ++i) {
    if (i == 0 || s->ring[i] != s->ring[i - 1]) b[++k].first = i, b[k].count = 0;
    b[k].count++;
  }
  int rc = s->on_device && sim_buf_reserve(s, &s->cons, &s->c_cons, VX_CONSERVE_SCRATCH, err, errlen) ? -1 : 0;
  if (!rc) rc = block_moments(s, b, n, m, err, errlen);
  for (int k = 0; !rc && k < n; ++k) memcpy(b[k].m, m + VX_MOMENTS_N * (size_t)k, sizeof b[k].m);
  free(m);
  if (rc) { free(b); return -1; }
  *out = b, *nb = n;
  return 0;
}

/* The ring mode's correction: each ring back to its own impulse along its own direction (the axial
 * mode on the ring's blocks); adds the relative impulse put back to *sum_di, once a ring. Frees b. */
static int restore_rings(vx_sim *s, ring_block *b, int nb, double *sum_di, char *err, size_t errlen) {
  double *m = malloc(((size_t)nb + 1) * VX_MOMENTS_N * sizeof *m);
  int rc = m ? block_moments(s, b, nb, m, err, errlen) : -1;
  if (!m) snprintf(err, errlen, "out of host memory for %d ring blocks", nb);
  for (int k = 0; k < nb && !rc; ++k) {
    size_t off = 3 * s->rs * (size_t)b[k].first;
    double di = 0.0;
    rc = vx_conserve_moments(s->prm.precision, s->on_device, (const char *)s->pos + off, (char *)s->alpha + off, b[k].count,
                             m + VX_MOMENTS_N * (size_t)k, b[k].m, b[k].m + 3, VX_CONSERVE_AXIAL, &di, err, errlen);
    int first = 1; /* a ring's first block here */
    for (int q = 0; q < k && first; ++q) first = s->ring[b[q].first] != s->ring[b[k].first];
    if (first) *sum_di += di;
  }
  free(m);
  free(b);
  return rc;
}

/* The reprojection of a flow spread over processes: each element's neighbours may be another's, so
 * the sum runs on the host over every process's elements (gathered), for this process's. */
static int reproject_spread(vx_sim *s, const vx_reproject_geom *G, char *err, size_t errlen) {
  size_t n3 = 3 * (size_t)s->n_elem;
  double *x = malloc(sizeof(double) * (6 * n3 + 1)), *p = NULL, *a = NULL; /* pos, α, ∇u (3 n3), δ */
  if (!x) { snprintf(err, errlen, "out of host memory for the reprojection"); return -1; }
  double *al = x + n3, *g = x + 2 * n3, *d = g + 3 * n3;
  vx_reproject_ws w = {0};
  int np = 0, na = 0;
  int rc = sim_fetch_doubles(s, s->pos, n3, x, err, errlen) || sim_fetch_doubles(s, s->alpha, n3, al, err, errlen) ||
                   sim_fetch_doubles(s, s->grad, 3 * n3, g, err, errlen) ||
                   s->coll.allgather(s->coll.user, x, (int)n3, &p, &np, err, errlen) ||
                   s->coll.allgather(s->coll.user, al, (int)n3, &a, &na, err, errlen) ||
                   vx_reproject_delta_cpu(VX_DOUBLE, p, a, np / 3, x, al, g, s->n_elem, G, &w, d, err, errlen)
               ? -1
               : 0;
  for (size_t i = 0; !rc && i < n3; ++i) al[i] -= d[i];
  if (!rc) rc = sim_store_doubles(s, s->alpha, al, n3, err, errlen);
  vx_reproject_ws_free(&w, 0);
  free(x), free(p), free(a);
  return rc ? -1 : 0;
}

/* The relaxation with the gradient just evaluated: on a lattice with the Gaussian kernel, the
 * reprojection onto the divergence-free part (reproject.h), elsewhere Pedrizzetti's (stage_t.h,
 * vx_relax); then the conservative correction of what it changed in W and I, or in each ring's I
 * (prm.conserve). */
int sim_relax_strengths(vx_sim *s, char *err, size_t errlen) {
  double m0[VX_MOMENTS_N];
  ring_block *rb = NULL;
  int nb = 0, rings = s->prm.conserve == VX_CONSERVE_RING, keep = s->prm.conserve != VX_CONSERVE_OFF && !rings;
  if (keep && element_moments(s, m0, err, errlen)) return -1;
  if (rings && ring_moments(s, &rb, &nb, err, errlen)) return -1;
  if (sim_reprojects(s)) {
    vx_reproject_geom G = vx_reproject_geom_make(s->prm.sigma, s->prm.relax, s->rstats.h);
    if (s->coll_on ? reproject_spread(s, &G, err, errlen)
                   : vx_reproject(s->prm.precision, s->on_device, s->pos, s->alpha, s->grad, s->n_elem, &G, &s->rpw, NULL,
                                  err, errlen)) {
      free(rb);
      return -1;
    }
  } else if (s->on_device) {
    if (vx_gpu_relax(s->prm.precision, s->alpha, s->grad, s->n_elem, s->prm.relax, err, errlen)) { free(rb); return -1; }
  } else if (s->prm.precision == VX_FLOAT) {
    float *a = (float *)s->alpha, f = (float)s->prm.relax;
    const float *g = (const float *)s->grad;
#pragma omp parallel for schedule(static)
    for (int t = 0; t < s->n_elem; ++t) vx_relax_f(f, g + 9 * (size_t)t, a + 3 * (size_t)t);
  } else {
    double *a = (double *)s->alpha;
    const double *g = (const double *)s->grad;
#pragma omp parallel for schedule(static)
    for (int t = 0; t < s->n_elem; ++t) vx_relax_d(s->prm.relax, g + 9 * (size_t)t, a + 3 * (size_t)t);
  }
  s->cstats.relaxations++;
  if (rings) return restore_rings(s, rb, nb, &s->cstats.di_relax, err, errlen);
  return keep ? restore_invariants(s, m0, &s->cstats.di_relax, err, errlen) : 0;
}

/* ------------------------------------------------------------------ core spreading */

/* With remeshing off a viscous flow's cores widen: σ² grows by spread·ν·dt a step (a Gaussian core's
 * a² grows by 4ν a unit time, and a filament's blob moves its ring as a core of a = √e·σ, hence the
 * filaments' spread 4/e). The engines take the new σ; the energy watch keeps its reference, since the
 * energy a spreading core sheds is the flow's own loss. */
int sim_spread_cores(vx_sim *s, double dt, char *err, size_t errlen) {
  const vx_sim_params *p = &s->prm;
  if (!(p->viscosity > 0.0) || p->remesh_every > 0 || !(p->spread > 0.0) || !(p->sigma > 0.0)) return 0;
  vx_sim_params np = *p;
  np.sigma = sqrt(p->sigma * p->sigma + p->spread * p->viscosity * dt);
  if (sim_engine_update(s, &np, err, errlen)) return -1;
  s->prm.sigma = np.sigma;
  return 0;
}

/* ------------------------------------------------------------------ remeshing */

/* Remeshing is due after this step: its interval is over, or the diffusion it owes would pass the
 * kernel's limit c² <= VX_REMESH_C2_MAX within the next step. */
int sim_remesh_due(const vx_sim *s) {
  if (s->prm.remesh_every <= 0 || (s->n_elem == 0 && !s->coll_on)) return 0; /* spread: every process remeshes */
  if (s->steps_since_remesh >= s->prm.remesh_every) return 1;
  double h = sim_lattice_h(&s->prm);
  return s->prm.viscosity > 0.0 && s->prm.viscosity * (s->since_remesh + s->prm.dt) / (h * h) > VX_REMESH_C2_MAX;
}


/* After a remeshing: the new rings on the host, the per-target arrays sized for the new count. */
static int adopt_remesh(vx_sim *s, char *err, size_t errlen) {
  s->n_elem = s->rj.n_out;
  s->n_tot = s->n_elem + s->n_tracer;
  s->field_ok = 0;
  if (s->on_device) {
    sim_swap_buf((void **)&s->d_ring, &s->c_d_ring, &s->rj.ring_out);
    int *r = realloc(s->ring, sizeof(int) * ((size_t)s->n_elem + 1));
    if (!r) { snprintf(err, errlen, "out of host memory for the rings"); return -1; }
    s->ring = r;
    if (s->n_elem && vx_device_download(s->ring, s->d_ring, sizeof(int) * (size_t)s->n_elem, err, errlen)) return -1;
  } else {
    vx_mem rb = {s->ring, 0};
    s->ring = (int *)s->rj.ring_out.p;
    s->rj.ring_out = rb;
    vx_mem_free(&s->rj.ring_out, 0);   /* host ring arrays are not reused: sizes vary */
  }
  size_t bp = 3 * s->rs * (size_t)s->n_tot;
  return sim_buf_reserve(s, &s->vel, &s->c_vel, bp, err, errlen) || sim_buf_reserve(s, &s->grad, &s->c_grad, 3 * bp, err, errlen) ||
                 sim_reserve_scratch(s, err, errlen)
             ? -1
             : 0;
}

/* The remeshed field's scale and radius (coarsen.h): the radius from the moments on the backend; the
 * scale (the nodes read back to the host) only when the radius allows a doubling, else 0. */
static int measure_lattice(vx_sim *s, double h, vx_lattice_field *f, char *err, size_t errlen) {
  double m[VX_MOMENTS_N];
  f->scale = 0.0;
  if (element_moments(s, m, err, errlen)) return -1;
  f->radius = vx_field_radius(m);
  if (!vx_coarsen_may(f->radius, h)) return 0;
  size_t n3 = 3 * (size_t)s->n_elem;
  double *x = malloc(sizeof(double) * 2 * (n3 ? n3 : 1)), *p = NULL, *a = NULL;
  if (!x) { snprintf(err, errlen, "out of host memory measuring the lattice field"); return -1; }
  int rc = sim_fetch_doubles(s, s->pos, n3, x, err, errlen) || sim_fetch_doubles(s, s->alpha, n3, x + n3, err, errlen) ? -1 : 0;
  int n = s->n_elem, np = 0, na = 0;
  if (s->coll_on) { /* the scale reads neighbouring nodes, which other processes hold: the whole field */
    rc = rc || s->coll.allgather(s->coll.user, x, (int)n3, &p, &np, err, errlen) ||
                 s->coll.allgather(s->coll.user, x + n3, (int)n3, &a, &na, err, errlen)
             ? -1
             : 0;
    n = np / 3;
  }
  if (!rc) rc = vx_lattice_scale(s->coll_on ? p : x, s->coll_on ? a : x + n3, n, h, s->prm.remesh_origin, &f->scale, err, errlen);
  free(x), free(p), free(a);
  return rc ? -1 : 0;
}

/* After a remeshing on spacing h: when the field is resolved on 2h (coarsen.h), h and σ double, the
 * blow-up rule's reference follows the strengths' density (α = ω·h³: ×8), the energy watch restarts
 * (σ changed the smoothed field's energy), and the field is remeshed onto the new lattice. */
static int coarsen_lattice(vx_sim *s, double h, char *err, size_t errlen) {
  vx_lattice_field f;
  if (measure_lattice(s, h, &f, err, errlen)) return -1;
  if (!vx_coarsen_due(&f, h, s->prm.remesh_coarsen)) return 0;
  s->rstats.scale = f.scale;
  vx_sim_params np = s->prm;
  np.sigma *= 2.0;
  if (np.remesh_h > 0.0) np.remesh_h *= 2.0;
  if (sim_engine_update(s, &np, err, errlen)) return -1;
  s->prm = np;
  s->amax0 *= 8.0;
  sim_energy_restart(s, 0.0);
  s->rstats.coarsenings++;
  return vx_sim_remesh(s, err, errlen);
}

int vx_sim_remesh(vx_sim *s, char *err, size_t errlen) {
  double t0 = sim_now_ms(), h = sim_lattice_h(&s->prm);
  if (!(h > 0.0)) { snprintf(err, errlen, "remeshing needs a lattice spacing (remesh_h or sigma)"); return -1; }
  if (s->n_elem == 0 && !s->coll_on) return 0;
  vx_remesh_job *j = &s->rj;
  j->n_elem = s->n_elem;
  j->n_tracer = s->n_tracer;
  j->is_float = s->prm.precision == VX_FLOAT;
  j->pos = s->pos;
  j->alpha = s->alpha;
  j->ring = s->on_device ? s->d_ring : s->ring;
  j->h = h;
  for (int c = 0; c < 3; ++c) j->origin[c] = s->prm.remesh_origin[c];
  j->c2 = s->prm.viscosity * s->since_remesh / (h * h);
  if (j->c2 > VX_REMESH_C2_MAX) j->c2 = VX_REMESH_C2_MAX;
  j->drop = s->prm.remesh_drop;
  /* after the first remeshing the threshold is absolute, drop·max|α| of the start: relative to the
   * current max|α|, a local spike would raise it and strip a ring's weaker nodes, and a decaying
   * (viscous) max would keep ever more of the diffusing fringe — unless the lattice coarsens as that
   * fringe spreads (coarsen.h), when it stays relative: an absolute cut would strip the decaying field
   * and its impulse (docs/VALIDATION.md, "What sets the scenes' controls") */
  j->drop_abs = s->rstats.count > 0 && !(s->prm.remesh_coarsen > 0.0) ? s->prm.remesh_drop * s->amax0 : 0.0;
  /* remeshing conserves W and I to round-off (docs/MATH.md §9) except for the dropped nodes */
  double m0[VX_MOMENTS_N];
  /* the ring mode corrects relaxations only (sim_relax_strengths) */
  int keep = (s->prm.conserve == VX_CONSERVE_AXIAL || s->prm.conserve == VX_CONSERVE_FULL) && j->drop > 0.0;
  if (keep && element_moments(s, m0, err, errlen)) return -1;
  int n_before = s->n_elem;
  if (s->coll_on) { /* spread over processes: the lattice crosses them (sim_coll.c) */
    double nb = n_before;
    if (vx_sim_reduce(s, &nb, 1, VX_REDUCE_SUM, err, errlen) || sim_coll_remesh(s, j, err, errlen)) return -1;
    n_before = (int)nb;
  } else {
    int rc = s->on_device ? vx_remesh_gpu(&s->rws, j, err, errlen) : vx_remesh_cpu(&s->rws, j, err, errlen);
    if (rc) return -1;
    sim_swap_buf(&s->pos, &s->c_pos, &j->pos_out);
    sim_swap_buf(&s->alpha, &s->c_alpha, &j->alpha_out);
    if (adopt_remesh(s, err, errlen)) return -1;
  }
  if (keep && restore_invariants(s, m0, &s->cstats.di_drop, err, errlen)) return -1;
  s->since_remesh = 0.0;
  s->steps_since_remesh = 0;
  s->have_grad = 0;
  s->state_id++;
  vx_remesh_stats *R = &s->rstats;
  R->count++;
  R->n_before = n_before;
  R->n_nodes = j->n_nodes;
  R->n_after = j->n_out;
  R->c2 = j->c2;
  R->h = h;
  if (s->prm.remesh_coarsen > 0.0 && coarsen_lattice(s, h, err, errlen)) return -1;
  R->ms = sim_now_ms() - t0; /* the field's measure and any coarsening's remeshing included */
  return 0;
}
