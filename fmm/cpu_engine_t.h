/* cpu_engine_t.h — the CPU (OpenMP) FMM and direct sum, templated on precision: included by
 * cpu_engine.c once per precision. Every per-element step calls the shared inline math
 * (sph_t.h, translate_t.h, pair_t.h), the very functions the CUDA kernels call.
 *
 * Pipeline (design paper §1.3 and §2): tree → P2M at the leaves → M2M up to level 2 → for each
 * level 2..L: L2L from the parent, M2L over the interaction list → L2P (velocity = curl of the
 * three potentials, gradient from their Hessians) + P2P with the regularized kernel + the
 * regularization corrections of the pairs closer than r_cut that the far field summed as singular.
 * The near field's loops are in cpu_pairs_t.h, included below. */

typedef struct {
  vx_real *x, *y, *z, *ax, *ay, *az; /* SoA, in box order */
} VXF(cpu_soa);

/* Gather xyz-interleaved input (double or float, per precision) into box-ordered SoA. */
static void VXF(cpu_gather)(const void *pos, const void *str, const int *order, int n, VXF(cpu_soa) *out) {
  const vx_real *p = (const vx_real *)pos, *s = (const vx_real *)str;
#pragma omp parallel for schedule(static)
  for (int k = 0; k < n; ++k) {
    int i = order[k];
    out->x[k] = p[vx_off3(i, 0)]; out->y[k] = p[vx_off3(i, 1)]; out->z[k] = p[vx_off3(i, 2)];
    if (s) { out->ax[k] = s[vx_off3(i, 0)]; out->ay[k] = s[vx_off3(i, 1)]; out->az[k] = s[vx_off3(i, 2)]; }
  }
}

static void VXF(cpu_p2m)(const oct_tree *t, const VXF(cpu_soa) *src, int p, vx_real *M) {
  int L = t->L, nc = VX_NCOEF(p);
  double h = oct_box_side(t, L);
  vx_real ih = (vx_real)(1.0 / h);
#pragma omp parallel
  {
    vx_real R[VX_NCOEF(VX_PMAX)];
#pragma omp for schedule(dynamic, 16)
    for (int b = 0; b < t->nsrc[L]; ++b) {
      double c[3];
      oct_box_centre(t, L, t->src_key[L][b], c);
      vx_real *m = M + vx_off_exp(b, nc);
      for (int i = 0; i < 3 * nc; ++i) m[i] = VX_R(0.0);
      for (int k = t->src_start[b]; k < t->src_start[b + 1]; ++k) {
        /* M_n^m = Σ α ℛ_n^m((y - c)/h)  (docs/MATH.md §2) */
        VXF(sph_regular)((src->x[k] - (vx_real)c[0]) * ih, (src->y[k] - (vx_real)c[1]) * ih,
                         (src->z[k] - (vx_real)c[2]) * ih, p, R);
        for (int i = 0; i < nc; ++i) {
          m[3 * i] += src->ax[k] * R[i]; m[3 * i + 1] += src->ay[k] * R[i]; m[3 * i + 2] += src->az[k] * R[i];
        }
      }
    }
  }
}

/* Octant direction (±1,±1,±1) of a child relative to its parent, from the key's low bits. */
static inline int VXF(cpu_octant_geo)(uint32_t key) {
  return vx_geo_index((key & 1) ? 1 : -1, (key & 2) ? 1 : -1, (key & 4) ? 1 : -1);
}

static void VXF(cpu_m2m)(const oct_tree *t, const fmm_tables *T, int p, int l, const vx_real *Mc, vx_real *Mp) {
  int nc = VX_NCOEF(p);
#pragma omp parallel
  {
    vx_real w1[3 * VX_NCOEF(VX_PMAX)], w2[3 * VX_NCOEF(VX_PMAX)];
#pragma omp for schedule(dynamic, 8)
    for (int b = 0; b < t->nsrc[l]; ++b) {
      vx_real *out = Mp + vx_off_exp(b, nc);
      for (int i = 0; i < 3 * nc; ++i) out[i] = VX_R(0.0);
      for (int c = t->src_child[l][b]; c < t->src_child[l][b + 1]; ++c) {
        int g = VXF(cpu_octant_geo)(t->src_key[l + 1][c]);
        VXF(rcr_translate)(Mc + vx_off_exp(c, nc), out, p, p, (vx_real)T->geo_cphi[g], (vx_real)T->geo_sphi[g],
                           VXF(tab_roty)(T) + (size_t)T->geo_theta[g] * T->roty_stride, VXF(tab_m2m)(T), NULL, 0, w1, w2);
      }
    }
  }
}

static void VXF(cpu_l2l)(const oct_tree *t, const fmm_tables *T, int p, int l, const vx_real *Lp, vx_real *Lc) {
  int nc = VX_NCOEF(p);
#pragma omp parallel
  {
    vx_real w1[3 * VX_NCOEF(VX_PMAX)], w2[3 * VX_NCOEF(VX_PMAX)];
#pragma omp for schedule(static)
    for (int b = 0; b < t->ntgt[l]; ++b) {
      int g = VXF(cpu_octant_geo)(t->tgt_key[l][b]);
      VXF(rcr_translate)(Lp + vx_off_exp(t->tgt_parent[l][b], nc), Lc + vx_off_exp(b, nc), p, p, (vx_real)T->geo_cphi[g],
                         (vx_real)T->geo_sphi[g], VXF(tab_roty)(T) + (size_t)T->geo_theta[g] * T->roty_stride,
                         VXF(tab_l2l)(T), NULL, 1, w1, w2);
    }
  }
}

static long long VXF(cpu_m2l)(const oct_tree *t, const fmm_tables *T, int p, int l, const vx_real *M, vx_real *L) {
  int nc = VX_NCOEF(p);
  long long count = 0;
#pragma omp parallel reduction(+ : count)
  {
    vx_real w1[3 * VX_NCOEF(VX_PMAX)], w2[3 * VX_NCOEF(VX_PMAX)], ipow[2 * VX_PMAX + 2];
#pragma omp for schedule(dynamic, 4)
    for (int b = 0; b < t->ntgt[l]; ++b) {
      int tx, ty, tz;
      oct_demorton3(t->tgt_key[l][b], &tx, &ty, &tz);
      vx_real *out = L + vx_off_exp(b, nc);
      for (int k = t->il_start[l][b]; k < t->il_start[l][b + 1]; ++k) {
        int s = t->il[l][k], sx, sy, sz;
        oct_demorton3(t->src_key[l][s], &sx, &sy, &sz);
        int g = vx_geo_index(sx - tx, sy - ty, sz - tz);
        vx_real ir = (vx_real)(1.0 / T->geo_len[g]);
        ipow[0] = VX_R(1.0);
        for (int i = 1; i <= 2 * p + 1; ++i) ipow[i] = ipow[i - 1] * ir;
        VXF(rcr_translate)(M + vx_off_exp(s, nc), out, p, T->m2l_deg[g], (vx_real)T->geo_cphi[g],
                           (vx_real)T->geo_sphi[g],
                           VXF(tab_roty)(T) + (size_t)T->geo_theta[g] * T->roty_stride, VXF(tab_m2l)(T), ipow, 2, w1, w2);
        count++;
      }
    }
  }
  return count;
}

/* M2L at level l from a larger set's dense multipoles Md and source counts cnt of that level (fmm_part):
 * each target box's interaction list read off the cells (oct_dense_list, cpu_m2l's order). */
static long long VXF(cpu_m2l_dense)(const oct_tree *t, const fmm_tables *T, int p, int l, const vx_real *Md,
                                    const int *cnt, vx_real *L) {
  const int nc = VX_NCOEF(p);
  long long count = 0;
#pragma omp parallel reduction(+ : count)
  {
    vx_real w1[3 * VX_NCOEF(VX_PMAX)], w2[3 * VX_NCOEF(VX_PMAX)], ipow[2 * VX_PMAX + 2];
    uint32_t list[189];
#pragma omp for schedule(dynamic, 4)
    for (int b = 0; b < t->ntgt[l]; ++b) {
      int tx, ty, tz;
      const uint32_t tk = t->tgt_key[l][b];
      oct_demorton3(tk, &tx, &ty, &tz);
      const int n = oct_dense_list(l, tk, cnt, list);
      vx_real *out = L + vx_off_exp(b, nc);
      for (int i = 0; i < n; ++i) {
        int sx, sy, sz;
        oct_demorton3(list[i], &sx, &sy, &sz);
        int g = vx_geo_index(sx - tx, sy - ty, sz - tz);
        vx_real ir = (vx_real)(1.0 / T->geo_len[g]);
        ipow[0] = VX_R(1.0);
        for (int e = 1; e <= 2 * p + 1; ++e) ipow[e] = ipow[e - 1] * ir;
        VXF(rcr_translate)(Md + vx_off_exp((int)list[i], nc), out, p, T->m2l_deg[g], (vx_real)T->geo_cphi[g],
                           (vx_real)T->geo_sphi[g], VXF(tab_roty)(T) + (size_t)T->geo_theta[g] * T->roty_stride,
                           VXF(tab_m2l)(T), ipow, 2, w1, w2);
      }
      count += n;
    }
  }
  return count;
}

/* What the per-leaf steps of the finest level share. vel/grad are in box order. */
typedef struct {
  const oct_tree *t;
  const VXF(cpu_soa) *src, *tgt;
  int kernel;
  vx_real sigma;
  int want_grad, n_grad;
  vx_real *vel, *grad;
  fmm_simd simd; /* the pair loops' instruction set (fmm_cpu_simd) */
} VXF(cpu_leafjob);

/* L2P for the targets of leaf b: velocity = curl of the three potentials, gradient from their
 * Hessians (docs/MATH.md §3), un-prefixed, written into vel/grad. D1, D2, R: per-thread scratch. */
static void VXF(cpu_l2p_leaf)(const VXF(cpu_leafjob) *J, int p, int b, const vx_real *Lleaf, vx_real *D1, vx_real *D2,
                              vx_real *R) {
  static const int hidx[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};
  const oct_tree *t = J->t;
  const VXF(cpu_soa) *tgt = J->tgt;
  const int L = t->L, nc = VX_NCOEF(p), nc1 = VX_NCOEF(p - 1), nc2 = VX_NCOEF(p - 2);
  const double h = oct_box_side(t, L);
  const vx_real ih = (vx_real)(1.0 / h), ih2 = ih * ih, ih3 = ih2 * ih;
  double c[3];
  oct_box_centre(t, L, t->tgt_key[L][b], c);
  const vx_real *Lb = Lleaf + vx_off_exp(b, nc);
  if (p >= 1) VXF(sph_deriv)(Lb, p, D1, D1 + 3 * nc, D1 + 6 * nc);
  int need2 = 0; /* second derivatives only when the leaf holds a gradient target */
  if (J->want_grad && p >= 2)
    for (int k = t->tgt_start[b]; k < t->tgt_start[b + 1] && !need2; ++k) need2 = t->tgt_order[k] < J->n_grad;
  if (need2) {
    VXF(sph_deriv)(D1, p - 1, D2 + 0 * 3 * nc, D2 + 1 * 3 * nc, D2 + 2 * 3 * nc);          /* xx xy xz */
    VXF(sph_deriv)(D1 + 3 * nc, p - 1, NULL, D2 + 3 * 3 * nc, D2 + 4 * 3 * nc);          /* yy yz */
    VXF(sph_deriv)(D1 + 6 * nc, p - 1, NULL, NULL, D2 + 5 * 3 * nc);                      /* zz */
  }
  for (int k = t->tgt_start[b]; k < t->tgt_start[b + 1]; ++k) {
    vx_real u[3] = {0, 0, 0}, gr[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    int gk = J->want_grad && t->tgt_order[k] < J->n_grad;
    if (p >= 1) {
      VXF(sph_regular)((tgt->x[k] - (vx_real)c[0]) * ih, (tgt->y[k] - (vx_real)c[1]) * ih,
                       (tgt->z[k] - (vx_real)c[2]) * ih, p - 1, R);
      vx_real dpsi[3][3], hpsi[3][3][3];
      for (int a = 0; a < 3; ++a) {
        vx_real s0 = 0, s1 = 0, s2 = 0;
        const vx_real *d = D1 + a * 3 * nc;
        for (int i = 0; i < nc1; ++i) { s0 += d[3 * i] * R[i]; s1 += d[3 * i + 1] * R[i]; s2 += d[3 * i + 2] * R[i]; }
        dpsi[0][a] = s0 * ih2; dpsi[1][a] = s1 * ih2; dpsi[2][a] = s2 * ih2;
      }
      if (gk) {
        vx_real hs[6][3];
        for (int q = 0; q < 6; ++q) {
          vx_real s0 = 0, s1 = 0, s2 = 0;
          if (p >= 2) {
            const vx_real *d = D2 + q * 3 * nc;
            for (int i = 0; i < nc2; ++i) { s0 += d[3 * i] * R[i]; s1 += d[3 * i + 1] * R[i]; s2 += d[3 * i + 2] * R[i]; }
          }
          hs[q][0] = s0 * ih3; hs[q][1] = s1 * ih3; hs[q][2] = s2 * ih3;
        }
        for (int cc = 0; cc < 3; ++cc)
          for (int a = 0; a < 3; ++a)
            for (int bb = 0; bb < 3; ++bb) hpsi[cc][a][bb] = hs[hidx[a][bb]][cc];
      }
      VXF(curl_from_derivs)(dpsi, hpsi, u, gk ? gr : NULL);
    }
    for (int i = 0; i < 3; ++i) J->vel[vx_off3(k, i)] = u[i];
    if (gk) for (int i = 0; i < 9; ++i) J->grad[vx_off9(k, i)] = gr[i];
  }
}

#include "cpu_pairs_t.h" /* the near field: pair loops, P2P and corrections of one leaf */

/* The finest level, leaf by leaf: L2P, near field, regularization corrections. Per-thread phase
 * times are scaled to wall-clock shares by the caller. */
static int VXF(cpu_leaves)(const VXF(cpu_leafjob) *J, int p, const vx_real *Lleaf, const fmm_corr *cr, fmm_stats *s) {
  const oct_tree *t = J->t;
  const int L = t->L, nc = VX_NCOEF(p);
  double tl = 0, tp = 0, tc = 0;
  long long pairs = 0, cpairs = 0;
  int fail = 0;
#pragma omp parallel reduction(+ : tl, tp, tc, pairs, cpairs) reduction(| : fail)
  {
    vx_real R[VX_NCOEF(VX_PMAX)];
    vx_real *D1 = (vx_real *)malloc(sizeof(vx_real) * 3 * 3 * nc);  /* [a] x 3nc1 */
    vx_real *D2 = (vx_real *)malloc(sizeof(vx_real) * 6 * 3 * nc);  /* [ab] x 3nc2 */
    int *list = cr->on ? (int *)malloc(sizeof(int) * ((size_t)t->nsrc[L] + 1)) : NULL;
    vx_buf buf = {0, NULL}; /* the leaf's sources, gathered (cpu_gather_leaves) */
    fail = !D1 || !D2 || (cr->on && !list);
#pragma omp for schedule(dynamic, 8)
    for (int b = 0; b < t->ntgt[L]; ++b) {
      if (fail) continue;
      double t0 = omp_get_wtime();
      VXF(cpu_l2p_leaf)(J, p, b, Lleaf, D1, D2, R);
      double t1 = omp_get_wtime();
      long long np = VXF(cpu_p2p_leaf)(J, b, &buf), ncp = 0;
      double t2 = omp_get_wtime();
      if (cr->on && np >= 0) {
        const int g = VXF(cpu_leaf_wants_grad)(J, b);
        ncp = VXF(cpu_corr_leaf)(J, b, list, cpu_corr_leaves(t, b, cr, g ? cr->reach2 : cr->reach2v, list), (vx_real)cr->rc2,
                                 (vx_real)cr->rc2v, cr->slack, g, &buf);
      }
      double t3 = omp_get_wtime();
      if (np < 0 || ncp < 0) { fail = 1; continue; }
      pairs += np; cpairs += ncp;
      tl += t1 - t0; tp += t2 - t1; tc += t3 - t2;
    }
    free(D1); free(D2); free(list); vx_buf_free(&buf);
  }
  /* per-thread sums → wall-clock share */
  int nth = omp_get_max_threads();
  s->t_l2p = 1e3 * tl / nth; s->t_p2p = 1e3 * (tp + tc) / nth; s->t_corr = 1e3 * tc / nth;
  s->n_p2p = pairs; s->n_corr = cpairs;
  return fail ? -1 : 0;
}

/* The farthest any of n points at pos lies from where it was (built); infinite for a non-finite one. */
static double VXF(cpu_moved)(const vx_real *pos, const vx_buf *built, int n) {
  const vx_real *b = (const vx_real *)built->ptr;
  double m = 0.0;
  int bad = 0;
#pragma omp parallel for schedule(static) reduction(max : m) reduction(| : bad)
  for (int i = 0; i < n; ++i) {
    double d2 = 0.0;
    for (int c = 0; c < 3; ++c) {
      const double d = (double)pos[vx_off3(i, c)] - (double)b[vx_off3(i, c)];
      d2 += d * d;
    }
    if (!isfinite(d2)) bad = 1;
    else if (d2 > m) m = d2;
  }
  return bad ? INFINITY : sqrt(m);
}

/* The octree of this call: the kept one when io asks and the points stayed near (fmm_keep_*), else a
 * new one (kept, with where its points are, when io asks). *moved: the distance measured, 0 after a build. */
static int VXF(cpu_tree)(fmm_ctx *ctx, const fmm_io *io, int want_grad, int n_grad, fmm_stats *s, double *moved,
                         char *err, size_t errlen) {
  const int ns = io->n_src, nt = io->n_tgt;
  *moved = 0.0;
  if (fmm_keep_may(ctx, io, want_grad, n_grad)) {
    const int same = ctx->built_same && io->src_pos == io->tgt_pos; /* one array: measured once */
    const double ms = VXF(cpu_moved)((const vx_real *)io->src_pos, &ctx->built_src, ns);
    const double m = same ? ms : fmax(ms, VXF(cpu_moved)((const vx_real *)io->tgt_pos,
                                                         ctx->built_same ? &ctx->built_src : &ctx->built_tgt, nt));
    if (fmm_keep_take(ctx, m, s)) {
      *moved = m;
      return 0;
    }
  }
  oct_params op = fmm_octree_params(ctx);
  if (io->part) fmm_part_octree(io->part, io->part->L, &op);
  oct_tree *t = &ctx->tree;
  oct_free_cpu(t);
  ctx->keep.valid = 0;
  if (oct_build_cpu(t, io->src_pos, ns, io->tgt_pos, nt, sizeof(vx_real) == sizeof(float), &op, err, errlen)) return -1;
  if (io->part && t->L != io->part->L) {
    snprintf(err, errlen, "a part's tree took level %d, not the larger set's %d (the level cap)", t->L, io->part->L);
    return -1;
  }
  if (fmm_keep_wanted(ctx, io)) {
    const size_t rs = sizeof(vx_real);
    ctx->built_same = io->src_pos == io->tgt_pos && ns == nt; /* one array: kept once */
    if (vx_buf_reserve(&ctx->built_src, 3 * rs * (size_t)ns) ||
        (!ctx->built_same && vx_buf_reserve(&ctx->built_tgt, 3 * rs * (size_t)nt))) {
      snprintf(err, errlen, "out of memory keeping the tree's positions (%d sources, %d targets)", ns, nt);
      return -1;
    }
    memcpy(ctx->built_src.ptr, io->src_pos, 3 * rs * (size_t)ns);
    if (!ctx->built_same) memcpy(ctx->built_tgt.ptr, io->tgt_pos, 3 * rs * (size_t)nt);
  }
  fmm_keep_after_build(ctx, io, want_grad, n_grad, ldexp(t->side, -t->L));
  return 0;
}

int VXF(fmm_cpu_evaluate)(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen) {
  const fmm_params *P = &ctx->prm;
  int p = P->order, nc = VX_NCOEF(p), ns = io->n_src, nt = io->n_tgt;
  int want_grad = P->gradient && io->grad;
  int n_grad = (io->n_grad > 0 && io->n_grad < nt) ? io->n_grad : nt;
  fmm_stats s;
  memset(&s, 0, sizeof s);
  double t0 = omp_get_wtime();
  if (nt == 0) { if (st) *st = s; return 0; }
  vx_real *vel = (vx_real *)io->vel, *grad = (vx_real *)io->grad;
  if (ns == 0 && !io->part) { /* a part's far field may come from the larger set's multipoles */
    memset(vel, 0, sizeof(vx_real) * 3 * (size_t)nt);
    if (want_grad) memset(grad, 0, sizeof(vx_real) * 9 * (size_t)n_grad);
    if (st) *st = s;
    return 0;
  }
  double moved;
  if (VXF(cpu_tree)(ctx, io, want_grad, n_grad, &s, &moved, err, errlen)) return -1;
  const oct_tree *t = &ctx->tree;
  int L = t->L;
  double t1 = omp_get_wtime();
  s.t_tree = 1e3 * (t1 - t0);
  s.levels = L; s.level_capped = t->capped;
  s.n_src_leaves = t->nsrc[L]; s.n_tgt_leaves = t->ntgt[L];
  fmm_corr cr = fmm_reg_prepare(ctx, t->side, L, fmm_io_passive(io, want_grad, n_grad), moved, &s);

  /* buffers: reused across evaluations, grown when N or the tree grows */
  size_t rs = sizeof(vx_real);
  if (vx_buf_reserve(&ctx->src_sorted, 6 * rs * (size_t)ns) || vx_buf_reserve(&ctx->tgt_sorted, 3 * rs * (size_t)nt) ||
      vx_buf_reserve(&ctx->vel_sorted, 3 * rs * (size_t)nt) ||
      (want_grad && vx_buf_reserve(&ctx->grad_sorted, 9 * rs * (size_t)nt)))
    goto oom;
  for (int l = 2; l <= L; ++l)
    if (vx_buf_reserve(&ctx->mpole[l], 3 * rs * nc * (size_t)t->nsrc[l]) ||
        vx_buf_reserve(&ctx->local[l], 3 * rs * nc * (size_t)t->ntgt[l]))
      goto oom;
  vx_real *sb = (vx_real *)ctx->src_sorted.ptr, *tb = (vx_real *)ctx->tgt_sorted.ptr;
  VXF(cpu_soa) src = {sb, sb + ns, sb + 2 * (size_t)ns, sb + 3 * (size_t)ns, sb + 4 * (size_t)ns, sb + 5 * (size_t)ns};
  VXF(cpu_soa) tgt = {tb, tb + nt, tb + 2 * (size_t)nt, NULL, NULL, NULL};
  VXF(cpu_gather)(io->src_pos, io->src_str, t->src_order, ns, &src);
  VXF(cpu_gather)(io->tgt_pos, NULL, t->tgt_order, nt, &tgt);

  double t2 = omp_get_wtime();
  VXF(cpu_p2m)(t, &src, p, (vx_real *)ctx->mpole[L].ptr);
  double t3 = omp_get_wtime();
  s.t_p2m = 1e3 * (t3 - t2);
  for (int l = L - 1; l >= 2; --l)
    VXF(cpu_m2m)(t, &ctx->tab, p, l, (vx_real *)ctx->mpole[l + 1].ptr, (vx_real *)ctx->mpole[l].ptr);
  double t4 = omp_get_wtime();
  s.t_m2m = 1e3 * (t4 - t3);
  for (int l = 2; l <= L; ++l) {
    double a = omp_get_wtime();
    vx_real *Ll = (vx_real *)ctx->local[l].ptr;
    if (l == 2) memset(Ll, 0, 3 * rs * nc * (size_t)t->ntgt[l]);
    else {
      memset(Ll, 0, 3 * rs * nc * (size_t)t->ntgt[l]);
      VXF(cpu_l2l)(t, &ctx->tab, p, l, (vx_real *)ctx->local[l - 1].ptr, Ll);
    }
    double b = omp_get_wtime();
    const fmm_part *pt = io->part;
    if (pt && l <= pt->Lc)
      s.n_m2l += VXF(cpu_m2l_dense)(t, &ctx->tab, p, l, (const vx_real *)pt->mpole + 3 * nc * fmm_part_cells(l - 1),
                                    pt->count + fmm_part_cells(l - 1), Ll);
    else
      s.n_m2l += VXF(cpu_m2l)(t, &ctx->tab, p, l, (vx_real *)ctx->mpole[l].ptr, Ll);
    double c = omp_get_wtime();
    s.t_l2l += 1e3 * (b - a); s.t_m2l += 1e3 * (c - b);
  }
  vx_real *vs = (vx_real *)ctx->vel_sorted.ptr, *gs = want_grad ? (vx_real *)ctx->grad_sorted.ptr : NULL;
  double t5 = omp_get_wtime();
  VXF(cpu_leafjob) job = {t, &src, &tgt, (int)P->kernel, (vx_real)P->sigma, want_grad, n_grad, vs, gs, fmm_cpu_simd()};
  if (VXF(cpu_leaves)(&job, p, (vx_real *)ctx->local[L].ptr, &cr, &s)) goto oom;
  /* scatter back to the caller's target order */
#pragma omp parallel for schedule(static)
  for (int k = 0; k < nt; ++k) {
    int i = t->tgt_order[k];
    for (int c = 0; c < 3; ++c) vel[vx_off3(i, c)] = vs[vx_off3(k, c)];
    if (want_grad && i < n_grad) for (int c = 0; c < 9; ++c) grad[vx_off9(i, c)] = gs[vx_off9(k, c)];
  }
  double t6 = omp_get_wtime();
  /* the L2P/P2P split is measured per thread; scale it to the wall time of that phase */
  double lp = s.t_l2p + s.t_p2p, wall = 1e3 * (t6 - t5);
  if (lp > 0) { s.t_l2p *= wall / lp; s.t_p2p *= wall / lp; s.t_corr *= wall / lp; }
  s.t_total = 1e3 * (t6 - t0);
  if (st) *st = s;
  return 0;
oom:
  snprintf(err, errlen, "out of memory for FMM work arrays (N=%d, level %d, order %d)", ns > nt ? ns : nt, L, p);
  return -1;
}

/* fmm_part_multipoles: a tree of io's sources alone at level Lc of the part's cube (the context's tree
 * and buffers untouched), P2M at its leaves and M2M up to level 2, each box's expansion and count put in
 * its dense cell. */
int VXF(fmm_cpu_part_multipoles)(fmm_ctx *ctx, const fmm_io *io, const fmm_part *pt, void *mpole, int *count,
                                 char *err, size_t errlen) {
  const int p = ctx->prm.order, nc = VX_NCOEF(p), ns = io->n_src, Lc = pt->Lc;
  vx_real *Md = (vx_real *)mpole;
  memset(Md, 0, sizeof(vx_real) * fmm_part_reals(p, Lc));
  memset(count, 0, sizeof(int) * fmm_part_cells(Lc));
  if (ns == 0) return 0;
  oct_params op = fmm_octree_params(ctx);
  fmm_part_octree(pt, Lc, &op);
  oct_tree t;
  vx_buf sb = {0, NULL}, M[VX_LMAX + 1];
  memset(M, 0, sizeof M);
  int rc = -1;
  if (oct_build_cpu(&t, io->src_pos, ns, io->src_pos, ns, sizeof(vx_real) == sizeof(float), &op, err, errlen)) return -1;
  if (vx_buf_reserve(&sb, 6 * sizeof(vx_real) * (size_t)ns)) goto oom;
  for (int l = 2; l <= Lc; ++l)
    if (vx_buf_reserve(&M[l], 3 * sizeof(vx_real) * nc * (size_t)t.nsrc[l])) goto oom;
  vx_real *b = (vx_real *)sb.ptr;
  VXF(cpu_soa) src = {b, b + ns, b + 2 * (size_t)ns, b + 3 * (size_t)ns, b + 4 * (size_t)ns, b + 5 * (size_t)ns};
  VXF(cpu_gather)(io->src_pos, io->src_str, t.src_order, ns, &src);
  VXF(cpu_p2m)(&t, &src, p, (vx_real *)M[Lc].ptr);
  for (int l = Lc - 1; l >= 2; --l) VXF(cpu_m2m)(&t, &ctx->tab, p, l, (vx_real *)M[l + 1].ptr, (vx_real *)M[l].ptr);
  for (int l = 2; l <= Lc; ++l) {
    const size_t off = fmm_part_cells(l - 1);
    for (int k = 0; k < t.nsrc[l]; ++k) {
      const uint32_t key = t.src_key[l][k];
      memcpy(Md + 3 * nc * (off + key), (const vx_real *)M[l].ptr + vx_off_exp(k, nc), 3 * nc * sizeof(vx_real));
      count[off + key] = cpu_box_sources(&t, l, k);
    }
  }
  rc = 0;
  goto done;
oom:
  snprintf(err, errlen, "out of memory for a part's multipoles (N=%d, level %d, order %d)", ns, Lc, p);
done:
  oct_free_cpu(&t);
  vx_buf_free(&sb);
  for (int l = 0; l <= VX_LMAX; ++l) vx_buf_free(&M[l]);
  return rc;
}

/* The direct sum over all pairs: the sources gathered once into SoA, then each target's pairs in the
 * near field's simd loop (cpu_target_pairs: the same kernel and terms as a leaf's P2P). */
int VXF(fmm_cpu_direct)(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen) {
  const fmm_params *P = &ctx->prm;
  int ns = io->n_src, nt = io->n_tgt, want_grad = P->gradient && io->grad, kernel = (int)P->kernel;
  int n_grad = (io->n_grad > 0 && io->n_grad < nt) ? io->n_grad : nt;
  const vx_real *sp = (const vx_real *)io->src_pos, *sa = (const vx_real *)io->src_str, *tp = (const vx_real *)io->tgt_pos;
  vx_real *vel = (vx_real *)io->vel, *grad = (vx_real *)io->grad, sigma = (vx_real)P->sigma;
  double t0 = omp_get_wtime();
  if (vx_buf_reserve(&ctx->src_sorted, 6 * sizeof(vx_real) * ((size_t)ns + 1))) {
    snprintf(err, errlen, "out of memory for the direct sum's sources (N=%d)", ns);
    return -1;
  }
  vx_real *sb = (vx_real *)ctx->src_sorted.ptr;
  VXF(cpu_soa) src = {sb, sb + ns, sb + 2 * (size_t)ns, sb + 3 * (size_t)ns, sb + 4 * (size_t)ns, sb + 5 * (size_t)ns};
#pragma omp parallel for schedule(static)
  for (int j = 0; j < ns; ++j) {
    src.x[j] = sp[vx_off3(j, 0)], src.y[j] = sp[vx_off3(j, 1)], src.z[j] = sp[vx_off3(j, 2)];
    src.ax[j] = sa[vx_off3(j, 0)], src.ay[j] = sa[vx_off3(j, 1)], src.az[j] = sa[vx_off3(j, 2)];
  }
  const fmm_simd simd = fmm_cpu_simd();
#pragma omp parallel for schedule(dynamic, 16)
  for (int i = 0; i < nt; ++i) {
    int gk = want_grad && i < n_grad;
    vx_real acc[15], u[3] = {0, 0, 0}, gr[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    VXF(cpu_target_pairs)(simd, kernel, gk, 0, tp[vx_off3(i, 0)], tp[vx_off3(i, 1)], tp[vx_off3(i, 2)], &src, ns, sigma,
                          VX_R(0.0), acc);
    VXF(cpu_add_pairs)(acc, gk, u, gr);
    for (int c = 0; c < 3; ++c) vel[vx_off3(i, c)] = u[c];
    if (gk) for (int c = 0; c < 9; ++c) grad[vx_off9(i, c)] = gr[c];
  }
  if (st) {
    memset(st, 0, sizeof *st);
    st->t_total = 1e3 * (omp_get_wtime() - t0);
    st->n_p2p = (long long)ns * nt;
  }
  return 0;
}
