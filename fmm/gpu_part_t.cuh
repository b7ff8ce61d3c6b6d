/* gpu_part_t.cuh — an evaluation that is a part of a larger one (fmm_part) on the GPU, templated on
 * precision (included by fmm_gpu.cu once per precision, after gpu_m2l_t.cuh): the coarse levels'
 * interaction lists read off the larger set's dense cells for eval_downward, and the multipoles of a
 * part's sources on those cells (fmm_part_multipoles). */

/* The dense levels 2..Lc of io->part on the device for eval_downward: the cells' multipoles, their keys
 * (cell c has key c) and each target box's list (oct_dense_list, cpu_m2l_dense's). */
static int VXF(eval_part)(VXF(gpu_eval) *E, const fmm_part *pt, char *err, size_t errlen) {
  fmm_gpu *G = E->G;
  const oct_tree_gpu *t = E->t;
  const int Lc = pt->Lc;
  E->part_lc = Lc;
  if (Lc < 2) return 0;
  const size_t top = (size_t)1 << (3 * Lc);
  size_t nbox = 0;
  for (int l = 2; l <= Lc; ++l) nbox += (size_t)t->ntgt[l];
  /* every list holds at most 189 cells */
  uint32_t *key = (uint32_t *)malloc(sizeof(uint32_t) * (top > nbox ? top : nbox));
  int *start = (int *)malloc(sizeof(int) * (nbox + Lc)), *il = (int *)malloc(sizeof(int) * 189 * (nbox + 1));
  int rc = -1;
  if (!key || !start || !il) {
    snprintf(err, errlen, "out of host memory for a part's coarse lists (%zu boxes)", nbox);
    goto fail;
  }
  {
    size_t ns = 0, ni = 0;
    for (int l = 2; l <= Lc; ++l) {
      const int n = t->ntgt[l];
      const int *cnt = pt->count + fmm_part_cells(l - 1);
      if (n > 0) {
        VX_CU(cudaMemcpyAsync(key, t->tgt_key[l], sizeof(uint32_t) * n, cudaMemcpyDeviceToHost, E->sf));
        VX_CU(cudaStreamSynchronize(E->sf));
      }
      E->part_start_off[l] = ns, E->part_il_off[l] = ni;
      const size_t il0 = ni;
      for (int b = 0; b < n; ++b) {
        uint32_t list[189];
        start[ns++] = (int)(ni - il0);
        const int k = oct_dense_list(l, key[b], cnt, list);
        for (int i = 0; i < k; ++i) il[ni++] = (int)list[i];
      }
      start[ns++] = (int)(ni - il0);
      E->part_n_il[l] = (long long)(ni - il0);
    }
    for (size_t c = 0; c < top; ++c) key[c] = (uint32_t)c;
    const size_t mb = E->rs * fmm_part_reals(E->p, Lc);
    if (gpu_reserve(&G->part_mpole, mb, "a part's coarse multipoles", err, errlen) ||
        gpu_reserve(&G->part_key, sizeof(uint32_t) * top, "a part's coarse keys", err, errlen) ||
        gpu_reserve(&G->part_start, sizeof(int) * ns, "a part's coarse lists", err, errlen) ||
        gpu_reserve(&G->part_il, sizeof(int) * (ni > 0 ? ni : 1), "a part's coarse lists", err, errlen))
      goto fail;
    VX_CU(cudaMemcpyAsync(G->part_mpole.ptr, pt->mpole, mb, cudaMemcpyHostToDevice, E->sf));
    VX_CU(cudaMemcpyAsync(G->part_key.ptr, key, sizeof(uint32_t) * top, cudaMemcpyHostToDevice, E->sf));
    VX_CU(cudaMemcpyAsync(G->part_start.ptr, start, sizeof(int) * ns, cudaMemcpyHostToDevice, E->sf));
    if (ni > 0) VX_CU(cudaMemcpyAsync(G->part_il.ptr, il, sizeof(int) * ni, cudaMemcpyHostToDevice, E->sf));
    VX_CU(cudaStreamSynchronize(E->sf)); /* the host lists are freed below */
  }
  rc = 0;
fail:
  free(key), free(start), free(il);
  return rc;
}

/* Level l's M2L from the part's dense cells (eval_part) into Ll. */
static int VXF(launch_m2l_part)(VXF(gpu_eval) *E, const VXF(dtab) *T, int l, vx_real *Ll, char *err, size_t errlen) {
  fmm_gpu *G = E->G;
  const vx_real *M = (const vx_real *)G->part_mpole.ptr + 3 * (size_t)E->nc * fmm_part_cells(l - 1);
  E->s.n_m2l += E->part_n_il[l];
  return VXF(launch_m2l_lists)(E, T, l, (const uint32_t *)G->part_key.ptr, (const int *)G->part_start.ptr + E->part_start_off[l],
                               (const int *)G->part_il.ptr + E->part_il_off[l], M, Ll, err, errlen);
}
