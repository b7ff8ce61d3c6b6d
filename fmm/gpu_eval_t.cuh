/* gpu_eval_t.cuh — the first steps of one FMM evaluation on the GPU, templated on precision
 * (included by fmm_gpu.cu once per precision, after the kernels): the state the steps share
 * (gpu_eval), the inputs on the device, the octree (kept or new) with its target chunks, and the
 * points gathered into tree order. gpu_pipeline_t.cuh runs the passes that follow. */

/* The translation tables of order p on the device, as the far-field kernels read them. */
static VXF(dtab) VXF(make_dtab)(const fmm_gpu *G, int p) {
  VXF(dtab) T;
  T.p = p;
  T.roty = (const vx_real *)G->tab.roty.ptr;
  T.m2m = (const vx_real *)G->tab.m2m.ptr;
  T.l2l = (const vx_real *)G->tab.l2l.ptr;
  T.m2l = (const vx_real *)G->tab.m2l.ptr;
  T.geo_theta = (const int *)G->tab.geo_theta.ptr;
  T.m2l_deg = (const int *)G->tab.m2l_deg.ptr;
  T.geo_len = (const vx_real *)G->tab.geo_len.ptr;
  T.geo_cs = (const vx_real *)G->tab.geo_cs.ptr;
  T.geo_ipow = (const vx_real *)G->tab.geo_ipow.ptr;
  T.roty_stride = G->tab.roty_stride;
  return T;
}

/* Opt every kernel order p runs with dynamic shared memory in to its share of the plan
 * (fmm_smem_plan_make fitted it to the device's limit), each call checked. */
static int VXF(smem_optin)(const fmm_smem_plan *pl, int p, char *err, size_t errlen) {
  const void *p2m_spec = NULL, *m2l_spec = NULL;
#define VX_SPEC_PTRS(P) (p2m_spec = (const void *)VXF(k_p2m_spec)<P>, m2l_spec = (const void *)VXF(k_m2l_spec)<P>)
  switch (m2l_spec_order(p)) {
    VX_SPEC_CASES(VX_SPEC_PTRS)
  default: break;
  }
#undef VX_SPEC_PTRS
  const struct {
    const void *kernel;
    size_t bytes;
  } k[] = {{(const void *)VXF(k_p2m), pl->p2m}, {(const void *)VXF(k_m2m), pl->m2m},      {p2m_spec, pl->p2m},
           {(const void *)VXF(k_l2l), pl->l2l}, {(const void *)VXF(k_m2l), pl->m2l},      {m2l_spec, pl->m2l},
           {(const void *)VXF(k_l2p_deriv), pl->l2p_deriv},
           {(const void *)VXF(k_l2p), pl->l2p > pl->l2p_fused ? pl->l2p : pl->l2p_fused}};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; ++i)
    if (k[i].kernel && k[i].bytes > FMM_SMEM_DEFAULT)
      VX_CUR(cudaFuncSetAttribute(k[i].kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)k[i].bytes));
  return 0;
}

/* What the steps of one gpu_evaluate share: the call, the tree, the sorted arrays, the launch shapes. */
typedef struct {
  fmm_ctx *ctx;
  fmm_gpu *G;
  const fmm_params *P;
  int p, nc, ns, nt, want_grad, n_grad;
  size_t rs;
  cudaStream_t sf, sn;            /* far field (and everything else), near field */
  cudaEvent_t *ev;
  fmm_stats s;
  const vx_real *spos, *sstr, *tpos; /* the inputs in device memory */
  vx_real *vel, *grad;            /* the outputs in device memory */
  fmm_smem_plan pl;
  oct_tree_gpu *t;
  int L;
  double h;                       /* leaf width */
  int nleaf, CH, chunk_bound;     /* target leaves, targets per chunk (block size), chunk count bound */
  int m2l_spec;                   /* the order of the specialised M2L kernel to run (k_m2l_spec), 0: k_m2l */
  int *nchunk;                    /* the chunk count, on the device (k_chunk_count's scanned total) */
  int *cleaf;                     /* each chunk's leaf (k_chunk_fill) */
  int2 *crange;                   /* each chunk's targets (k_chunk_fill) */
  fmm_corr cr;
  vx_real *sx, *sy, *sz, *sax, *say, *saz, *tx, *ty, *tz; /* sources and targets in tree order, SoA */
  /* a part of a larger evaluation (fmm_part, gpu_part_t.cuh): M2L of levels 2..part_lc from its dense
   * cells, each level's lists at these offsets of fmm_gpu.part_start and part_il */
  int part_lc;
  size_t part_start_off[VX_LMAX + 1], part_il_off[VX_LMAX + 1];
  long long part_n_il[VX_LMAX + 1];
} VXF(gpu_eval);

/* Step 1: after the caller's work on the default stream (e.g. a stage kernel that wrote the
 * positions), the inputs on the device: the caller's arrays, or host arrays staged through device
 * buffers (t_copy). */
static int VXF(eval_inputs)(VXF(gpu_eval) *E, const fmm_io *io, char *err, size_t errlen) {
  fmm_gpu *G = E->G;
  const size_t rs = E->rs, ns = (size_t)E->ns, nt = (size_t)E->nt;
  VX_CUR(cudaEventRecord(E->ev[EV_CALLER], cudaStreamLegacy));
  VX_CUR(cudaStreamWaitEvent(E->sf, E->ev[EV_CALLER], 0));
  VX_CUR(cudaEventRecord(E->ev[EV_COPY0], E->sf));
  if (io->on_device) {
    E->spos = (const vx_real *)io->src_pos, E->sstr = (const vx_real *)io->src_str, E->tpos = (const vx_real *)io->tgt_pos;
    E->vel = (vx_real *)io->vel, E->grad = (vx_real *)io->grad;
    return 0;
  }
  if (gpu_reserve(&G->in_spos, 3 * rs * ns, "source positions", err, errlen) ||
      gpu_reserve(&G->in_sstr, 3 * rs * ns, "source strengths", err, errlen) ||
      gpu_reserve(&G->in_tpos, 3 * rs * nt, "target positions", err, errlen) ||
      gpu_reserve(&G->out_vel, 3 * rs * nt, "velocities", err, errlen) ||
      (E->want_grad && gpu_reserve(&G->out_grad, 9 * rs * nt, "gradients", err, errlen)))
    return -1;
  VX_CUR(cudaMemcpyAsync(G->in_spos.ptr, io->src_pos, 3 * rs * ns, cudaMemcpyHostToDevice, E->sf));
  VX_CUR(cudaMemcpyAsync(G->in_sstr.ptr, io->src_str, 3 * rs * ns, cudaMemcpyHostToDevice, E->sf));
  VX_CUR(cudaMemcpyAsync(G->in_tpos.ptr, io->tgt_pos, 3 * rs * nt, cudaMemcpyHostToDevice, E->sf));
  E->spos = (const vx_real *)G->in_spos.ptr, E->sstr = (const vx_real *)G->in_sstr.ptr, E->tpos = (const vx_real *)G->in_tpos.ptr;
  E->vel = (vx_real *)G->out_vel.ptr, E->grad = E->want_grad ? (vx_real *)G->out_grad.ptr : NULL;
  return 0;
}

/* The largest squared distance of n points at pos from where they were (built), as the bits of a
 * double into *out (non-negative doubles order as their bits; a NaN's lie above infinity's). */
__global__ void VXF(k_moved)(const vx_real *pos, const vx_real *built, int n, unsigned long long *out) {
  unsigned long long m = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    double d2 = 0.0;
    for (int c = 0; c < 3; ++c) {
      const double d = (double)pos[vx_off3(i, c)] - (double)built[vx_off3(i, c)];
      d2 += d * d;
    }
    const unsigned long long b = (unsigned long long)__double_as_longlong(d2);
    m = b > m ? b : m;
  }
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned long long v = __shfl_down_sync(0xffffffffu, m, o);
    m = v > m ? v : m;
  }
  if ((threadIdx.x & 31) == 0 && m) atomicMax(out, m);
}

/* The kept tree for this call (fmm_keep_*): how far the points moved, measured on the device and read
 * back (the call's one host round trip when the tree serves); *kept, and *moved when it does. */
static int VXF(eval_keep)(VXF(gpu_eval) *E, const fmm_io *io, int *kept, double *moved, char *err, size_t errlen) {
  fmm_gpu *G = E->G;
  *kept = 0, *moved = 0.0;
  if (!fmm_keep_may(E->ctx, io, E->want_grad, E->n_grad)) return 0;
  if (gpu_reserve(&G->moved, sizeof(unsigned long long), "the tree's displacement", err, errlen)) return -1;
  unsigned long long *d = (unsigned long long *)G->moved.ptr;
  VX_CUR(cudaMemsetAsync(d, 0, sizeof *d, E->sf));
  const int sets[2] = {E->ns, E->nt}, same = G->built_same && E->spos == E->tpos; /* one array: measured once */
  const vx_real *pos[2] = {E->spos, E->tpos},
                *built[2] = {(const vx_real *)G->built_s.ptr, (const vx_real *)(G->built_same ? G->built_s.ptr : G->built_t.ptr)};
  for (int k = 0; k < 2 - same; ++k) {
    const int nb = vx_ceil_div(sets[k], 256);
    VXF(k_moved)<<<nb < 1024 ? nb : 1024, 256, 0, E->sf>>>(pos[k], built[k], sets[k], d);
    VX_CUR_LAUNCH(moved);
  }
  VX_CUR(cudaMemcpyAsync(G->h_moved, d, sizeof *d, cudaMemcpyDeviceToHost, E->sf));
  VX_CUR(cudaStreamSynchronize(E->sf));
  const unsigned long long inf_bits = 0x7ff0000000000000ull, b = *G->h_moved;
  double d2;
  memcpy(&d2, &b, sizeof d2);
  const double m = b >= inf_bits ? INFINITY : sqrt(d2);
  if (fmm_keep_take(E->ctx, m, &E->s)) *kept = 1, *moved = m;
  return 0;
}

/* A new octree and the target chunks for P2P and L2P (k_chunk_count), kept with where its points are
 * when io asks: no host round trip beyond the octree's; the grids are sized by the bound
 * nt / CH + leaves, and blocks past the scanned total return at once. */
static int VXF(eval_build)(VXF(gpu_eval) *E, const fmm_io *io, char *err, size_t errlen) {
  fmm_gpu *G = E->G;
  oct_params op = fmm_octree_params(E->ctx);
  if (io->part) fmm_part_octree(io->part, io->part->L, &op);
  oct_tree_gpu *t = E->t;
  E->ctx->keep.valid = 0;
  if (oct_build_gpu(t, E->spos, E->ns, E->tpos, E->nt, sizeof(vx_real) == sizeof(float), &op, E->sf, err, errlen)) return -1;
  if (io->part && t->L != io->part->L) {
    snprintf(err, errlen, "a part's tree took level %d, not the larger set's %d (the level cap)", t->L, io->part->L);
    return -1;
  }
  const int L = t->L, nleaf = t->ntgt[L], CH = chunk_targets(E->nt, nleaf), bound = chunk_bound(E->nt, nleaf, CH);
  if (gpu_reserve(&G->chunk_off, sizeof(int) * (2 * (size_t)nleaf + 1), "target chunk offsets", err, errlen) ||
      gpu_reserve(&G->chunk_leaf, sizeof(int) * (size_t)bound, "target chunks", err, errlen) ||
      gpu_reserve(&G->chunk_range, sizeof(int2) * (size_t)bound, "target chunk ranges", err, errlen))
    return -1;
  int *coff = (int *)G->chunk_off.ptr;
  const int ng = E->want_grad ? E->n_grad : E->nt; /* without gradients one kind of target */
  VXF(k_chunk_count)<<<vx_ceil_div(nleaf + 1, 256), 256, 0, E->sf>>>(nleaf, t->tgt_start, t->tgt_order, ng, CH, coff);
  VX_CUR_LAUNCH(chunk_count);
  VX_CUR(oct_exclusive_scan_gpu(t, coff, 2 * nleaf + 1, E->sf));
  VXF(k_chunk_fill)<<<vx_ceil_div(nleaf, 256), 256, 0, E->sf>>>(nleaf, coff, t->tgt_start, t->tgt_order, ng, CH,
                                                                (int *)G->chunk_leaf.ptr, (int2 *)G->chunk_range.ptr);
  VX_CUR_LAUNCH(chunk_fill);
  if (fmm_keep_wanted(E->ctx, io)) {
    const size_t bs = 3 * E->rs * (size_t)E->ns, bt = 3 * E->rs * (size_t)E->nt;
    G->built_same = E->spos == E->tpos && E->ns == E->nt; /* one array: kept once */
    if (gpu_reserve(&G->built_s, bs, "the kept tree's sources", err, errlen) ||
        (!G->built_same && gpu_reserve(&G->built_t, bt, "the kept tree's targets", err, errlen)))
      return -1;
    VX_CUR(cudaMemcpyAsync(G->built_s.ptr, E->spos, bs, cudaMemcpyDeviceToDevice, E->sf));
    if (!G->built_same) VX_CUR(cudaMemcpyAsync(G->built_t.ptr, E->tpos, bt, cudaMemcpyDeviceToDevice, E->sf));
  }
  fmm_keep_after_build(E->ctx, io, E->want_grad, E->n_grad, ldexp(t->side, -L));
  return 0;
}

/* Step 2: the shared-memory plan, the octree (kept or new) and its target chunks. */
static int VXF(eval_tree)(VXF(gpu_eval) *E, const fmm_io *io, char *err, size_t errlen) {
  fmm_gpu *G = E->G;
  if (smem_plan(E->ctx, E->p, E->want_grad, &E->pl, err, errlen) || VXF(smem_optin)(&E->pl, E->p, err, errlen)) return -1;
  oct_tree_gpu *t = E->t = &G->tree;
  int kept;
  double moved;
  if (VXF(eval_keep)(E, io, &kept, &moved, err, errlen) || (!kept && VXF(eval_build)(E, io, err, errlen))) return -1;
  E->L = t->L;
  E->h = ldexp(t->side, -E->L);
  E->nleaf = t->ntgt[E->L];
  E->CH = chunk_targets(E->nt, E->nleaf);
  E->chunk_bound = chunk_bound(E->nt, E->nleaf, E->CH);
  /* the chunk count: the scanned counts' last entry, [2 nleaf] (k_chunk_count) */
  E->nchunk = (int *)G->chunk_off.ptr + 2 * E->nleaf;
  E->cleaf = (int *)G->chunk_leaf.ptr, E->crange = (int2 *)G->chunk_range.ptr;
  VX_CUR(cudaEventRecord(E->ev[EV_TREE], E->sf));
  E->s.levels = E->L, E->s.level_capped = t->capped, E->s.n_src_leaves = t->nsrc[E->L], E->s.n_tgt_leaves = E->nleaf;
  E->cr = fmm_reg_prepare(E->ctx, t->side, E->L, fmm_io_passive(io, E->want_grad, E->n_grad), moved, &E->s);
  return 0;
}

/* Step 3: the per-call buffers, and sources and targets gathered into tree order. */
static int VXF(eval_gather)(VXF(gpu_eval) *E, char *err, size_t errlen) {
  fmm_gpu *G = E->G;
  const oct_tree_gpu *t = E->t;
  const size_t rs = E->rs, ns = (size_t)E->ns, nt = (size_t)E->nt;
  if (gpu_reserve(&G->src_soa, 6 * rs * ns, "sorted sources", err, errlen) ||
      gpu_reserve(&G->tgt_soa, 3 * rs * nt, "sorted targets", err, errlen) ||
      gpu_reserve(&G->vnear, 3 * rs * nt, "near-field velocities", err, errlen) ||
      (E->want_grad && gpu_reserve(&G->gnear, 9 * rs * nt, "near-field gradients", err, errlen)))
    return -1;
  for (int l = 2; l <= E->L; ++l)
    if (gpu_reserve(&G->mpole[l], 3 * rs * E->nc * (size_t)t->nsrc[l], "multipole expansions", err, errlen) ||
        gpu_reserve(&G->local[l], 3 * rs * E->nc * (size_t)t->ntgt[l], "local expansions", err, errlen))
      return -1;
  vx_real *S = (vx_real *)G->src_soa.ptr, *Tg = (vx_real *)G->tgt_soa.ptr;
  E->sx = S, E->sy = S + ns, E->sz = S + 2 * ns, E->sax = S + 3 * ns, E->say = S + 4 * ns, E->saz = S + 5 * ns;
  E->tx = Tg, E->ty = Tg + nt, E->tz = Tg + 2 * nt;
  VXF(k_gather)<<<vx_ceil_div(E->ns, 256), 256, 0, E->sf>>>(E->spos, E->sstr, t->src_order, E->ns, E->sx, E->sy, E->sz,
                                                             E->sax, E->say, E->saz);
  VX_CUR_LAUNCH(gather);
  VXF(k_gather)<<<vx_ceil_div(E->nt, 256), 256, 0, E->sf>>>(E->tpos, NULL, t->tgt_order, E->nt, E->tx, E->ty, E->tz, NULL,
                                                             NULL, NULL);
  VX_CUR_LAUNCH(gather);
  VX_CUR(cudaEventRecord(E->ev[EV_GATHER], E->sf));
  return 0;
}
