/* gpu_pipeline_t.cuh — one FMM evaluation on the GPU, step by step, templated on precision
 * (included by fmm_gpu.cu once per precision, last): after gpu_eval_t.cuh's inputs, tree and
 * gather, the near field (P2P and the corrections) on its own stream, concurrent with the far
 * field (P2M, M2M, then level by level L2L and M2L), then L2P adding both in the caller's order,
 * and the phase times from the events. */

/* k_p2p_fast's arguments for this evaluation. */
static VXF(p2p_args) VXF(p2p_args_of)(const VXF(gpu_eval) *E, vx_real *vn, vx_real *gn) {
  const oct_tree_gpu *t = E->t;
  VXF(p2p_args) A;
  A.kernel = (int)E->P->kernel, A.want_grad = E->want_grad, A.n_grad = E->n_grad, A.ch = E->CH;
  A.sigma = (vx_real)E->P->sigma;
  A.chunk_leaf = E->cleaf, A.nchunk = E->nchunk, A.chunk_range = E->crange, A.order = t->tgt_order;
  A.sstart = t->src_start, A.nbr_start = t->nbr_start, A.nbr = t->nbr;
  A.tx = E->tx, A.ty = E->ty, A.tz = E->tz;
  A.sx = E->sx, A.sy = E->sy, A.sz = E->sz, A.sax = E->sax, A.say = E->say, A.saz = E->saz;
  A.vn = vn, A.gn = gn;
  return A;
}

/* k_p2p_fast<K, VX_P2P_T> for the pair kernel A.kernel: nb blocks of nthr threads on stream s. */
static void VXF(launch_p2p_fast)(const VXF(p2p_args) &A, int nb, int nthr, cudaStream_t s) {
  switch (A.kernel) {
  case 1: VXF(k_p2p_fast)<1, VX_P2P_T><<<nb, nthr, 0, s>>>(A); break;
  case 2: VXF(k_p2p_fast)<2, VX_P2P_T><<<nb, nthr, 0, s>>>(A); break;
  case 3: VXF(k_p2p_fast)<3, VX_P2P_T><<<nb, nthr, 0, s>>>(A); break;
  case 4: VXF(k_p2p_fast)<4, VX_P2P_T><<<nb, nthr, 0, s>>>(A); break;
  default: VXF(k_p2p_fast)<0, VX_P2P_T><<<nb, nthr, 0, s>>>(A); break;
  }
}

/* P2P into vn/gn: k_p2p_fast with max(1, CH / 32T) warps a chunk. */
static int VXF(launch_p2p)(VXF(gpu_eval) *E, vx_real *vn, vx_real *gn, char *err, size_t errlen) {
  const int T = VX_P2P_T, nb = E->chunk_bound;
  const VXF(p2p_args) A = VXF(p2p_args_of)(E, vn, gn);
  const int nthr = E->CH > 32 * T ? E->CH / T : 32;
  VXF(launch_p2p_fast)(A, nb, nthr, E->sn);
  VX_CUR_LAUNCH(p2p_fast);
  return 0;
}

/* Step 4: the near field (P2P, then the regularization corrections) on its own stream, concurrent
 * with the far field (G->serial, VX_FMM_SERIAL=1: after it, on the same stream, so that each phase
 * can be timed alone). */
static int VXF(eval_near)(VXF(gpu_eval) *E, char *err, size_t errlen) {
  const oct_tree_gpu *t = E->t;
  const fmm_params *P = E->P;
  const fmm_corr *cr = &E->cr;
  if (E->G->serial) E->sn = E->sf;
  VX_CUR(cudaStreamWaitEvent(E->sn, E->ev[EV_GATHER], 0));
  VX_CUR(cudaEventRecord(E->ev[EV_NEAR0], E->sn));
  vx_real *vn = (vx_real *)E->G->vnear.ptr, *gn = (vx_real *)E->G->gnear.ptr;
  if (VXF(launch_p2p)(E, vn, gn, err, errlen)) return -1;
  VX_CUR(cudaEventRecord(E->ev[EV_CORR], E->sn));
  if (cr->on) {
    VXF(k_corr)<<<E->chunk_bound, E->CH, 0, E->sn>>>((int)P->kernel, (vx_real)P->sigma, (vx_real)cr->rc2, (vx_real)cr->rc2v,
                                                     cr->reach2, cr->reach2v, E->L, cr->Lc, E->want_grad, E->n_grad,
                                                     E->nchunk, E->cleaf, E->crange, t->tgt_order, t->tgt_key[E->L],
                                                     t->nsrc[E->L],
                                                     t->src_key[E->L], t->src_start, E->tx, E->ty, E->tz, E->sx, E->sy, E->sz,
                                                     E->sax, E->say, E->saz, vn, gn);
    VX_CUR_LAUNCH(corr);
  }
  VX_CUR(cudaEventRecord(E->ev[EV_NEAR1], E->sn));
  return 0;
}

/* Step 5: the upward pass, P2M at the leaves and M2M to level 2. */
static int VXF(eval_upward)(VXF(gpu_eval) *E, const VXF(dtab) *T, char *err, size_t errlen) {
  fmm_gpu *G = E->G;
  const oct_tree_gpu *t = E->t;
  const fmm_smem_plan *pl = &E->pl;
  const int L = E->L;
  const int nl = t->nsrc[L], spec = fmm_spec_order(E->p); /* k_p2m_spec, else k_p2m */
  const int hook = E->ctx->gpu_hooks.p2m_wl;
  int wl = hook ? hook : p2m_warps_per_leaf(E->ns, nl, pl->w_p2m, E->p, G->n_sm);
  while (wl > 1 && pl->w_p2m % wl) wl /= 2; /* a divisor of the block's warps */
  const dim3 gp2m((unsigned)(spec ? vx_ceil_div(nl, pl->w_p2m / wl) : nl)), bp2m(32 * pl->w_p2m);
#define VX_P2M_ARGS t->src_key[L], t->src_start, E->sx, E->sy, E->sz, E->sax, E->say, E->saz, t->lo[0], t->lo[1], \
                    t->lo[2], E->h, (vx_real *)G->mpole[L].ptr
#define VX_P2M_SPEC(P) VXF(k_p2m_spec)<P><<<gp2m, bp2m, pl->p2m, E->sf>>>(nl, wl, VX_P2M_ARGS)
  switch (spec ? E->p : 0) {
    VX_SPEC_CASES(VX_P2M_SPEC)
  default: VXF(k_p2m)<<<gp2m, bp2m, pl->p2m, E->sf>>>(E->p, VX_P2M_ARGS); break;
  }
#undef VX_P2M_SPEC
#undef VX_P2M_ARGS
  VX_CUR_LAUNCH(p2m);
  VX_CUR(cudaEventRecord(E->ev[EV_P2M], E->sf));
  for (int l = L - 1; l >= 2; --l) {
    VXF(k_m2m)<<<t->nsrc[l], 32 * pl->w_m2m, pl->m2m, E->sf>>>(*T, t->src_child[l], t->src_key[l + 1],
                                                                (const vx_real *)G->mpole[l + 1].ptr, (vx_real *)G->mpole[l].ptr);
    VX_CUR_LAUNCH(m2m);
  }
  VX_CUR(cudaEventRecord(E->ev[EV_M2M], E->sf));
  return 0;
}

/* Step 6: the downward pass, level by level: L2L from the parent, then M2L from the interaction list. */
static int VXF(eval_downward)(VXF(gpu_eval) *E, const VXF(dtab) *T, char *err, size_t errlen) {
  fmm_gpu *G = E->G;
  const oct_tree_gpu *t = E->t;
  const fmm_smem_plan *pl = &E->pl;
  const int Wl = pl->w_l2l;
  for (int l = 2; l <= E->L; ++l) {
    vx_real *Ll = (vx_real *)G->local[l].ptr;
    VX_CUR(cudaEventRecord(E->ev[EV_LVL + 2 * l], E->sf));
    VX_CUR(cudaMemsetAsync(Ll, 0, 3 * E->rs * E->nc * (size_t)t->ntgt[l], E->sf));
    if (l > 2) {
      VXF(k_l2l)<<<vx_ceil_div(t->ntgt[l], Wl), 32 * Wl, pl->l2l, E->sf>>>(*T, t->ntgt[l], t->tgt_parent[l], t->tgt_key[l],
                                                                          (const vx_real *)G->local[l - 1].ptr, Ll);
      VX_CUR_LAUNCH(l2l);
    }
    VX_CUR(cudaEventRecord(E->ev[EV_LVL + 2 * l + 1], E->sf));
    if (l <= E->part_lc) {
      if (t->ntgt[l] > 0 && VXF(launch_m2l_part)(E, T, l, Ll, err, errlen)) return -1;
      continue;
    }
    if (t->ntgt[l] > 0 && VXF(launch_m2l)(E, T, l, Ll, err, errlen)) return -1;
    E->s.n_m2l += t->n_il[l];
  }
  VX_CUR(cudaEventRecord(E->ev[EV_DOWN], E->sf));
  return 0;
}

/* Whether k_l2p forms each chunk's derivative expansions itself (k_l2p_deriv not launched): where the
 * leaves hold on average at most VX_L2P_FUSED_MAX targets (chunks of 32 or 64), so that few leaves'
 * expansions are formed more than once, and the block's larger shared memory fits. Where leaves
 * hold more (a scene's tracers gathered in the cores' leaves), their many chunks would each repeat
 * the leaf's work, and forming it once a leaf is faster (docs/BENCHMARKS.md). The test hook
 * l2p_fused (fmm_internal.h) forces either form. */
#define VX_L2P_FUSED_MAX 64
static int VXF(l2p_fused)(const VXF(gpu_eval) *E) {
  const int hook = E->ctx->gpu_hooks.l2p_fused;
  if (E->pl.l2p_fused == 0 || hook < 0) return 0;
  return hook > 0 || (E->nleaf > 0 && E->nt <= (long long)VX_L2P_FUSED_MAX * E->nleaf);
}

/* Step 7: L2P: derivative expansions per leaf, then, once the near field is done, a thread per
 * target adding far and near into the caller's order. */
static int VXF(eval_l2p_combine)(VXF(gpu_eval) *E, char *err, size_t errlen) {
  fmm_gpu *G = E->G;
  const oct_tree_gpu *t = E->t;
  const fmm_smem_plan *pl = &E->pl;
  const size_t dper = pl->dper;
  const int fused = VXF(l2p_fused)(E);
  if (!fused && dper && gpu_reserve(&G->dloc, E->rs * dper * (size_t)E->nleaf, "L2P derivative expansions", err, errlen))
    return -1;
  if (E->p >= 1 && !fused) {
    const int nthr = VXF(l2p_deriv_threads)(E->p);
    VXF(k_l2p_deriv)<<<E->nleaf, nthr, pl->l2p_deriv, E->sf>>>(E->p, E->want_grad, E->n_grad, t->tgt_order, t->tgt_start,
                                                              pl->l2p_stage, dper, (const vx_real *)G->local[E->L].ptr,
                                                              (vx_real *)G->dloc.ptr);
    VX_CUR_LAUNCH(l2p_deriv);
  }
  VX_CUR(cudaEventRecord(E->ev[EV_L2PD], E->sf));
  VX_CUR(cudaStreamWaitEvent(E->sf, E->ev[EV_NEAR1], 0));
  VX_CUR(cudaEventRecord(E->ev[EV_L2PW], E->sf));
  VXF(k_l2p)<<<E->chunk_bound, E->CH, fused ? pl->l2p_fused : pl->l2p, E->sf>>>(
      E->p, E->want_grad, E->n_grad, E->nchunk, E->cleaf, E->crange, t->tgt_order, t->tgt_key[E->L], E->tx, E->ty,
      E->tz, t->lo[0], t->lo[1], t->lo[2], E->h, dper, fused ? NULL : (const vx_real *)G->dloc.ptr,
      (const vx_real *)G->local[E->L].ptr, (const vx_real *)G->tab.raise.ptr, (const vx_real *)G->vnear.ptr,
      (const vx_real *)G->gnear.ptr, E->vel, E->grad);
  VX_CUR_LAUNCH(l2p);
  VX_CUR(cudaEventRecord(E->ev[EV_L2P], E->sf));
  VX_CUR(cudaEventRecord(E->ev[EV_END], E->sf));
  return 0;
}

/* Step 8: the outputs back to host arrays when the caller gave those, then the phase times from the events. */
static int VXF(eval_finish)(VXF(gpu_eval) *E, const fmm_io *io, char *err, size_t errlen) {
  cudaEvent_t *ev = E->ev;
  fmm_stats *s = &E->s;
  float ms, c0, c1;
  if (!io->on_device) {
    VX_CUR(cudaMemcpyAsync(io->vel, E->vel, 3 * E->rs * (size_t)E->nt, cudaMemcpyDeviceToHost, E->sf));
    if (E->want_grad) VX_CUR(cudaMemcpyAsync(io->grad, E->grad, 9 * E->rs * (size_t)E->n_grad, cudaMemcpyDeviceToHost, E->sf));
  }
  VX_CUR(cudaEventRecord(ev[EV_COPY1], E->sf));
  VX_CUR(cudaEventSynchronize(ev[EV_COPY1]));
  VX_CUR(cudaEventElapsedTime(&ms, ev[EV_START], ev[EV_END])); s->t_total = ms;
  VX_CUR(cudaEventElapsedTime(&c0, ev[EV_COPY0], ev[EV_START]));
  VX_CUR(cudaEventElapsedTime(&c1, ev[EV_END], ev[EV_COPY1]));
  s->t_copy = c0 + c1;
  if (E->ns == 0) return 0;
  VX_CUR(cudaEventElapsedTime(&ms, ev[EV_START], ev[EV_TREE])); s->t_tree = ms;
  VX_CUR(cudaEventElapsedTime(&ms, ev[EV_GATHER], ev[EV_P2M])); s->t_p2m = ms;
  VX_CUR(cudaEventElapsedTime(&ms, ev[EV_P2M], ev[EV_M2M])); s->t_m2m = ms;
  for (int l = 2; l <= s->levels; ++l) {
    float a, b2;
    VX_CUR(cudaEventElapsedTime(&a, ev[EV_LVL + 2 * l], ev[EV_LVL + 2 * l + 1]));
    VX_CUR(cudaEventElapsedTime(&b2, ev[EV_LVL + 2 * l + 1], l < s->levels ? ev[EV_LVL + 2 * l + 2] : ev[EV_DOWN]));
    s->t_l2l += a; s->t_m2l += b2;
    s->t_m2l_level[l] = b2;
  }
  float wait;
  VX_CUR(cudaEventElapsedTime(&ms, ev[EV_DOWN], ev[EV_L2P]));
  VX_CUR(cudaEventElapsedTime(&wait, ev[EV_L2PD], ev[EV_L2PW]));
  s->t_l2p = ms - wait; /* not the wait for the near field, which k_l2p adds in */
  VX_CUR(cudaEventElapsedTime(&ms, ev[EV_NEAR0], ev[EV_NEAR1])); s->t_p2p = ms;
  VX_CUR(cudaEventElapsedTime(&ms, ev[EV_CORR], ev[EV_NEAR1])); s->t_corr = ms;
  return 0;
}

/* The state of one evaluation of io before its steps. */
static void VXF(eval_init)(VXF(gpu_eval) *E, fmm_ctx *ctx, const fmm_io *io) {
  memset(E, 0, sizeof *E);
  E->ctx = ctx, E->G = (fmm_gpu *)ctx->gpu, E->P = &ctx->prm;
  E->p = E->P->order, E->nc = VX_NCOEF(E->p), E->ns = io->n_src, E->nt = io->n_tgt;
  E->want_grad = E->P->gradient && io->grad;
  E->n_grad = (io->n_grad > 0 && io->n_grad < E->nt) ? io->n_grad : E->nt;
  E->rs = sizeof(vx_real);
  E->sf = E->G->s_far, E->sn = E->G->s_near, E->ev = E->G->ev;
  E->m2l_spec = m2l_spec_order(E->p);
  E->s.m2l_kernel = E->m2l_spec;
  E->s.p2p_kernel = VX_P2P_T;
}

int VXF(gpu_evaluate)(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen) {
  VXF(gpu_eval) E;
  VXF(eval_init)(&E, ctx, io);
  if (E.nt == 0) { if (st) *st = E.s; return 0; }
  if (VXF(eval_inputs)(&E, io, err, errlen)) return -1;
  VX_CUR(cudaEventRecord(E.ev[EV_START], E.sf));
  if (E.ns == 0 && !io->part) { /* no sources: zero velocities and gradients */
    VX_CUR(cudaMemsetAsync(E.vel, 0, 3 * E.rs * (size_t)E.nt, E.sf));
    if (E.want_grad) VX_CUR(cudaMemsetAsync(E.grad, 0, 9 * E.rs * (size_t)E.n_grad, E.sf));
    VX_CUR(cudaEventRecord(E.ev[EV_END], E.sf));
  } else {
    if (VXF(eval_tree)(&E, io, err, errlen) || (io->part && VXF(eval_part)(&E, io->part, err, errlen)) ||
        VXF(eval_gather)(&E, err, errlen) || VXF(eval_near)(&E, err, errlen))
      return -1;
    VXF(dtab) T = VXF(make_dtab)(E.G, E.p);
    if (VXF(eval_upward)(&E, &T, err, errlen) || VXF(eval_downward)(&E, &T, err, errlen) ||
        VXF(eval_l2p_combine)(&E, err, errlen))
      return -1;
  }
  if (VXF(eval_finish)(&E, io, err, errlen)) return -1;
  if (st) *st = E.s;
  return 0;
}


/* fmm_part_multipoles on the GPU: io's sources alone in a tree of level Lc in the part's cube (the
 * context's tree rebuilt, nothing kept), P2M and M2M, then each box's expansion and source count put in
 * its dense cell on the host. */
int VXF(gpu_part_multipoles)(fmm_ctx *ctx, const fmm_io *io, const fmm_part *pt, void *mpole, int *count, char *err,
                             size_t errlen) {
  const int Lc = pt->Lc;
  fmm_part sub = *pt;
  sub.L = Lc, sub.Lc = 0, sub.mpole = NULL, sub.count = NULL;
  fmm_io sio;
  memset(&sio, 0, sizeof sio);
  sio.n_src = sio.n_tgt = io->n_src, sio.src_pos = sio.tgt_pos = io->src_pos, sio.src_str = io->src_str;
  sio.on_device = io->on_device, sio.part = &sub;
  VXF(gpu_eval) E;
  VXF(eval_init)(&E, ctx, &sio);
  const int nc = E.nc;
  memset(mpole, 0, sizeof(vx_real) * fmm_part_reals(E.p, Lc));
  memset(count, 0, sizeof(int) * fmm_part_cells(Lc));
  if (sio.n_src == 0) return 0;
  if (VXF(eval_inputs)(&E, &sio, err, errlen) || VXF(eval_tree)(&E, &sio, err, errlen) || VXF(eval_gather)(&E, err, errlen))
    return -1;
  VXF(dtab) T = VXF(make_dtab)(E.G, E.p);
  if (VXF(eval_upward)(&E, &T, err, errlen)) return -1;
  const oct_tree_gpu *t = E.t;
  size_t most = (size_t)t->nsrc[Lc] + 1;
  uint32_t *key = (uint32_t *)malloc(sizeof(uint32_t) * most);
  vx_real *m = (vx_real *)malloc(sizeof(vx_real) * 3 * nc * most);
  int *start = (int *)malloc(sizeof(int) * most), rc = -1;
  if (!key || !m || !start) {
    snprintf(err, errlen, "out of host memory for a part's multipoles (%zu boxes)", most);
    goto fail;
  }
  VX_CU(cudaMemcpyAsync(start, t->src_start, sizeof(int) * most, cudaMemcpyDeviceToHost, E.sf));
  for (int l = Lc; l >= 2; --l) {
    const int n = t->nsrc[l];
    const size_t off = fmm_part_cells(l - 1);
    VX_CU(cudaMemcpyAsync(key, t->src_key[l], sizeof(uint32_t) * n, cudaMemcpyDeviceToHost, E.sf));
    VX_CU(cudaMemcpyAsync(m, E.G->mpole[l].ptr, sizeof(vx_real) * 3 * nc * n, cudaMemcpyDeviceToHost, E.sf));
    VX_CU(cudaStreamSynchronize(E.sf));
    for (int b = 0; b < n; ++b) {
      memcpy((vx_real *)mpole + 3 * nc * (off + key[b]), m + vx_off_exp(b, nc), sizeof(vx_real) * 3 * nc);
      if (l == Lc) count[off + key[b]] = start[b + 1] - start[b];
    }
    if (l < Lc) /* a box's sources are its children's */
      for (size_t c = 0; c < ((size_t)1 << (3 * l)); ++c)
        for (int o = 0; o < 8; ++o) count[off + c] += count[fmm_part_cells(l) + (c << 3) + o];
  }
  rc = 0;
fail:
  free(key), free(m), free(start);
  return rc;
}
