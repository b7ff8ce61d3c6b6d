/* gpu_m2l_t.cuh — which M2L kernel runs at each level, and its launch, templated on precision
 * (included by fmm_gpu.cu once per precision, after gpu_eval_t.cuh): the dense product on the
 * tensor cores (k_m2l_tc, m2l_tc_gpu.cuh: float, full levels) where it pays, else the kernel
 * specialised for the order (k_m2l_spec: p = 2 to 12, fmm_spec_order), else the generic k_m2l
 * (gpu_far_t.cuh). */

#ifdef VX_FLOAT_INST
/* k_m2l_tc<P> for level l >= 3 into Ll, its operators built and uploaded at the first call for this
 * order (gpu_tables.dense_tc). */
template <int P>
static int launch_m2l_tc(gpu_eval_f *E, int l, int parts, float *Ll, char *err, size_t errlen) {
  typedef tc_cfg<P> C;
  gpu_tables *D = &E->G->tab;
  if (!D->dense_tc_ok) {
    float *host = NULL;
    tc_build<P>(&E->ctx->tab, &host);
    if (dense_upload(&D->dense_tc, host, sizeof(float) * C::TAB, "tensor-core M2L operators", P, err, errlen)) return -1;
    VX_CUR(cudaFuncSetAttribute(k_m2l_tc<P>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)C::SMEM));
    D->dense_tc_ok = 1;
  }
  const oct_tree_gpu *t = E->t;
  const size_t n = (size_t)t->ntgt[l] * 3 * C::NC;
  float *Pt = NULL;
  if (parts > 1) {
    if (gpu_reserve(&E->G->m2l_part, sizeof(float) * parts * n, "split M2L sums", err, errlen)) return -1;
    Pt = (float *)E->G->m2l_part.ptr;
  }
  const dim3 grid((unsigned)vx_ceil_div(t->ntgt[l - 1], C::TJ), 8, (unsigned)parts);
  k_m2l_tc<P><<<grid, 256, C::SMEM, E->sf>>>((const float *)D->dense_tc.ptr, (const int *)D->m2l_deg.ptr, l,
                                             t->ntgt[l - 1], t->tgt_child[l - 1], t->tgt_key[l], t->src_map[l],
                                             (const float *)E->G->mpole[l].ptr, Ll, Pt);
  VX_CUR_LAUNCH(m2l_tc);
  if (parts > 1) {
    const size_t nb = (n + 255) / 256;
    k_m2l_parts_sum<<<(unsigned)(nb < 4096 ? nb : 4096), 256, 0, E->sf>>>(Pt, parts, n, Ll);
    VX_CUR_LAUNCH(m2l_parts_sum);
  }
  E->s.m2l_dense_levels++;
  E->s.m2l_dense_tc = 1;
  return 0;
}
#endif

/* Whether this evaluation's dense M2L runs k_m2l_tc (m2l_tc_on). */
static int VXF(m2l_uses_tc)(const VXF(gpu_eval) *E) { return m2l_tc_on(E->G, sizeof(vx_real) == sizeof(float)); }

/* The tile of parents that m2l_fill is measured against where k_m2l_tc does not run (double, or a
 * device without TF32 tensor cores): 64 parents in float, 32 in double. */
#define VX_M2L_FILL_TJ (sizeof(vx_real) == 4 ? 64 : 32)

/* Whether level l's M2L runs k_m2l_tc, and into how many parts its stages split (m2l_tc_parts; 0:
 * it does not run): a device with TF32 tensor cores (float only), an order it is built for
 * (E->m2l_spec: 2 to 12) whose shared memory fits the device's opt-in (p = 12, ~100 KB, not on
 * sm_86/89), l >= 3 (the targets are found through their parents), and a level with blocks enough
 * to fill the device VX_M2L_DENSE_WAVES times over (three quarters of that after its split) whose
 * translations fill at least VX_M2L_TC_FILL of the launched tiles' 189 slots a target
 * (E->s.m2l_fill, recorded here at every level >= 3). The test hook m2l_tc_all (fmm_internal.h)
 * takes every level it can run at, for any of its orders. */
static int VXF(m2l_dense_pays)(VXF(gpu_eval) *E, int l) {
  const oct_tree_gpu *t = E->t;
  if (l < 3 || t->ntgt[l - 1] <= 0) return 0;
  const int tc = VXF(m2l_uses_tc)(E), tj = tc ? tc_cfg<8>::TJ : (int)VX_M2L_FILL_TJ;
  const int tiles = vx_ceil_div(t->ntgt[l - 1], tj), parts = tc ? m2l_tc_parts(8 * tiles, E->G->n_sm) : 1;
  E->s.m2l_fill[l] = t->n_il[l] / (8.0 * 189.0 * tj * tiles);
  if (!tc || !E->m2l_spec || m2l_tc_smem(E->m2l_spec) > E->G->smem_optin) return 0;
  if (E->ctx->gpu_hooks.m2l_tc_all) return parts;
  /* a level that fills the device, or, split, three quarters of it */
  const double blocks = 8.0 * tiles * parts, slots = VX_M2L_DENSE_WAVES * E->G->n_sm;
  return (parts > 1 ? 4.0 * blocks >= 3.0 * slots : blocks >= slots) && E->s.m2l_fill[l] >= VX_M2L_TC_FILL ? parts : 0;
}

/* k_m2l_spec (or k_m2l) over the interaction lists il_start/il of level l's target boxes, whose entries
 * index the source keys skey and the multipoles Ml, into Ll. */
static int VXF(launch_m2l_lists)(VXF(gpu_eval) *E, const VXF(dtab) *T, int l, const uint32_t *skey, const int *il_start,
                                 const int *il, const vx_real *Ml, vx_real *Ll, char *err, size_t errlen) {
  const oct_tree_gpu *t = E->t;
  const int nb = t->ntgt[l], nt = 32 * E->pl.w_m2l;
  const size_t sm = E->pl.m2l;
#define VX_M2L_SPEC(P) VXF(k_m2l_spec)<P><<<nb, nt, sm, E->sf>>>(*T, t->tgt_key[l], skey, il_start, il, Ml, Ll)
  switch (E->m2l_spec) {
    VX_SPEC_CASES(VX_M2L_SPEC)
  default: VXF(k_m2l)<<<nb, nt, sm, E->sf>>>(*T, t->tgt_key[l], skey, il_start, il, Ml, Ll); break;
  }
#undef VX_M2L_SPEC
  VX_CUR_LAUNCH(m2l);
  return 0;
}

/* The M2L of level l into Ll: k_m2l_tc where m2l_dense_pays; else the kernel specialised for the
 * order when there is one (E->m2l_spec), else k_m2l; those two on the same grid, block and shared
 * memory. */
static int VXF(launch_m2l)(VXF(gpu_eval) *E, const VXF(dtab) *T, int l, vx_real *Ll, char *err, size_t errlen) {
  const oct_tree_gpu *t = E->t;
  const int dense = VXF(m2l_dense_pays)(E, l); /* k_m2l_tc: the parts its stages are split into */
#ifdef VX_FLOAT_INST
#define VX_TC_LAUNCH(P) return launch_m2l_tc<P>(E, l, dense, Ll, err, errlen)
  if (dense) switch (E->m2l_spec) {
      VX_SPEC_CASES(VX_TC_LAUNCH)
    default: break;
    }
#undef VX_TC_LAUNCH
#else
  (void)dense;
#endif
  return VXF(launch_m2l_lists)(E, T, l, t->src_key[l], t->il_start[l], t->il[l], (const vx_real *)E->G->mpole[l].ptr, Ll,
                               err, errlen);
}
