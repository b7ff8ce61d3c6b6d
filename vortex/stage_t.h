/* stage_t.h — templated on precision (include through stage.h): the right-hand side of the
 * vortex-particle equations and the Runge–Kutta stage update for one target.
 *
 *   dx_p/dt = u(x_p)                                   elements and tracers
 *   dα_p/dt = (α_p·∇)u(x_p)       classical:  Σ_j ∂u_i/∂x_j α_j
 *           = (∇u(x_p))ᵀ α_p      transpose:  Σ_j ∂u_j/∂x_i α_j
 * (design paper eq. 2; Winckelmans & Leonard 1993, J. Comput. Phys. 109, for the two schemes). */

/* Stretching term s = dα/dt from the gradient g (g[3i+j] = ∂u_i/∂x_j) and the strength a. */
VX_HD static inline void VXF(vx_stretch)(int scheme, const vx_real *g, const vx_real *a, vx_real *s) {
  if (scheme == 0) {
    for (int i = 0; i < 3; ++i) s[i] = g[3 * i] * a[0] + g[3 * i + 1] * a[1] + g[3 * i + 2] * a[2];
  } else if (scheme == 1) {
    for (int i = 0; i < 3; ++i) s[i] = g[i] * a[0] + g[3 + i] * a[1] + g[6 + i] * a[2];
  } else {
    s[0] = s[1] = s[2] = VX_R(0.0);
  }
}

/* Vorticity ω = ∇×u from the gradient g (g[3i+j] = ∂u_i/∂x_j). */
VX_HD static inline void VXF(vx_curl)(const vx_real *g, vx_real *w) {
  w[0] = g[7] - g[5];
  w[1] = g[2] - g[6];
  w[2] = g[3] - g[1];
}

/* Pedrizzetti's relaxation of one strength towards the local vorticity ω = ∇×u, in the
 * magnitude form of Alvarez & Ning (FLOWVPM) with the sign kept: α ← (1−f)α + f·s|α|ω̂,
 * s = sign(α·ω). It turns α towards the vorticity field's line (the part of α across it is what
 * makes the particle field diverge) without changing |α| much; keeping the sign leaves the
 * opposite-signed strengths at a remeshed core's fringe opposite (FLOWVPM's form, s = 1, turns
 * them round and creates circulation); the original ω·vol form diffuses by fσ²/2 per application
 * (docs/MATH.md §9). Where ω vanishes α is left alone. */
VX_HD static inline void VXF(vx_relax)(vx_real f, const vx_real *g, vx_real *a) {
  vx_real w[3];
  VXF(vx_curl)(g, w);
  vx_real wn = VX_SQRT(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  vx_real an = VX_SQRT(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  if (!(wn > VX_R(0.0))) return;
  vx_real k = f * an / wn;
  if (a[0] * w[0] + a[1] * w[1] + a[2] * w[2] < VX_R(0.0)) k = -k;
  for (int c = 0; c < 3; ++c) a[c] = (VX_R(1.0) - f) * a[c] + k * w[c];
}

/* The low-storage RK update of one scalar (stage.h explains the scheme). */
VX_HD static inline void VXF(vx_rk_update)(const vx_stage_args *A, vx_real *y, vx_real *y0, vx_real *acc, vx_real k) {
  vx_real w = (vx_real)A->w, dt = (vx_real)A->dt;
  if (A->first && A->last) { *y += dt * w * k; return; }
  vx_real base = A->first ? *y : *y0;
  vx_real a = (A->first ? VX_R(0.0) : *acc) + w * k;
  if (A->first) *y0 = base;
  if (A->last) {
    *y = base + dt * a;
  } else {
    *acc = a;
    *y = base + (vx_real)A->c * dt * k;
  }
}

/* A tracer inside its step of several element steps (docs/MATH.md §15): y = y0 + f·(y − y0) + gH·acc,
 * which takes its next stage point to its position at the current time, and back with 1/f, −gH/f. */
VX_HD static inline void VXF(vx_settle_target)(vx_real *pos, const vx_real *pos0, const vx_real *acc, vx_real f, vx_real gh,
                                               int t) {
  for (int c = 0; c < 3; ++c) {
    size_t i = 3 * (size_t)t + c;
    pos[i] = pos0[i] + f * (pos[i] - pos0[i]) + gh * acc[i];
  }
}

/* One stage for target t: its position, and its strength when it is an element. */
VX_HD static inline void VXF(vx_stage_target)(const vx_stage_args *A, int t) {
  vx_real *pos = (vx_real *)A->pos, *pos0 = (vx_real *)A->pos0, *accp = (vx_real *)A->acc_pos;
  const vx_real *vel = (const vx_real *)A->vel;
  for (int c = 0; c < 3; ++c) {
    size_t i = 3 * (size_t)t + c;
    VXF(vx_rk_update)(A, pos + i, pos0 ? pos0 + i : 0, accp ? accp + i : 0, vel[i]);
  }
  if (t < A->n_elem) {
    vx_real *al = (vx_real *)A->alpha, *al0 = (vx_real *)A->alpha0, *acca = (vx_real *)A->acc_alpha;
    vx_real s[3];
    /* the strength at the evaluation point: read before it is overwritten below */
    VXF(vx_stretch)(A->stretching, (const vx_real *)A->grad + 9 * (size_t)t, al + 3 * (size_t)t, s);
    for (int c = 0; c < 3; ++c) {
      size_t i = 3 * (size_t)t + c;
      VXF(vx_rk_update)(A, al + i, al0 ? al0 + i : 0, acca ? acca + i : 0, s[c]);
    }
  }
}

/* Blow-up check of target t: returns |α_t|² (0 for tracers), sets *bad on a non-finite value and
 * raises *g2 to the squared Frobenius norm of the element's velocity gradient (when grad is given). */
VX_HD static inline double VXF(vx_health_target)(const vx_real *pos, const vx_real *alpha, const vx_real *grad, int n_elem,
                                                int t, int *bad, double *g2) {
  double a2 = 0.0;
  if (grad && t < n_elem) {
    double s = 0.0;
    for (int c = 0; c < 9; ++c) s += (double)grad[9 * (size_t)t + c] * (double)grad[9 * (size_t)t + c];
    if (s > *g2) *g2 = s;
  }
  for (int c = 0; c < 3; ++c) {
    if (vx_nonfinite((double)pos[3 * (size_t)t + c])) *bad = 1;
  }
  if (t < n_elem)
    for (int c = 0; c < 3; ++c) {
      double a = (double)alpha[3 * (size_t)t + c];
      if (vx_nonfinite(a)) *bad = 1;
      a2 += a * a;
    }
  return a2;
}
