/* gpu_direct_t.cuh — the direct sum on the GPU (fmm_direct: every source on every target, the
 * reference the FMM is checked against and the method for small sets), templated on precision
 * (included by fmm_gpu.cu once per precision): the tiled kernel, the spans' reduction and the host
 * side, gpu_direct. */

/* Sum over a shared-memory tile of cnt sources (rows x, y, z, αx, αy, αz, each `stride` apart),
 * with the kernel K and the gradient flag G fixed at compile time so that pair_bs's kernel switch
 * and gradient test fold away inside the hot loop. */
template <int K, int G>
__device__ static __forceinline__ void VXF(tile_sum)(vx_real sigma, vx_real x, vx_real y, vx_real z, const vx_real *sh,
                                                     int stride, int cnt, vx_real *u, vx_real *gr) {
#pragma unroll 4
  for (int j = 0; j < cnt; ++j)
    VXF(pair_bs)(K, sigma, x - sh[j], y - sh[stride + j], z - sh[2 * stride + j], sh[3 * stride + j], sh[4 * stride + j],
                 sh[5 * stride + j], u, G ? gr : NULL);
}
__device__ static __forceinline__ void VXF(tile_dispatch)(int kernel, int g, vx_real sigma, vx_real x, vx_real y, vx_real z,
                                                          const vx_real *sh, int stride, int cnt, vx_real *u, vx_real *gr) {
  switch (2 * kernel + (g ? 1 : 0)) {
  case 0: VXF(tile_sum)<0, 0>(sigma, x, y, z, sh, stride, cnt, u, gr); break;
  case 1: VXF(tile_sum)<0, 1>(sigma, x, y, z, sh, stride, cnt, u, gr); break;
  case 2: VXF(tile_sum)<1, 0>(sigma, x, y, z, sh, stride, cnt, u, gr); break;
  case 3: VXF(tile_sum)<1, 1>(sigma, x, y, z, sh, stride, cnt, u, gr); break;
  case 4: VXF(tile_sum)<2, 0>(sigma, x, y, z, sh, stride, cnt, u, gr); break;
  case 5: VXF(tile_sum)<2, 1>(sigma, x, y, z, sh, stride, cnt, u, gr); break;
  case 6: VXF(tile_sum)<3, 0>(sigma, x, y, z, sh, stride, cnt, u, gr); break;
  case 7: VXF(tile_sum)<3, 1>(sigma, x, y, z, sh, stride, cnt, u, gr); break;
  case 8: VXF(tile_sum)<4, 0>(sigma, x, y, z, sh, stride, cnt, u, gr); break;
  default: VXF(tile_sum)<4, 1>(sigma, x, y, z, sh, stride, cnt, u, gr); break;
  }
}

/* Direct summation: the all-pairs tiled kernel (the method users would otherwise use). A block per
 * VX_DIRECT_THREADS targets and a span of the sources (blockIdx.y), staged through shared memory in
 * tiles. With one span (part NULL) the block writes the sums; with several (few targets, too few
 * blocks to fill the device: direct_span) each block writes its partial sums, plane k (u then ∇u)
 * of span s at part[(12 s + k) nt + i], and k_direct_sum adds the spans in their order, the same
 * every run. */
#define VX_DIRECT_THREADS 128
#define VX_DIRECT_PLANES 12
__global__ void VXF(k_direct)(int kernel, vx_real sigma, int want_grad, int n_grad, int ns, int nt, int span,
                              const vx_real *sp, const vx_real *sa, const vx_real *tp, vx_real *vel, vx_real *grad,
                              vx_real *part) {
  __shared__ vx_real tile[6][VX_DIRECT_THREADS];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int active = i < nt;
  int gk = active && want_grad && i < n_grad;
  vx_real x = active ? tp[vx_off3(i, 0)] : VX_R(0.0), y = active ? tp[vx_off3(i, 1)] : VX_R(0.0),
          z = active ? tp[vx_off3(i, 2)] : VX_R(0.0);
  vx_real u[3] = {0, 0, 0}, gr[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  const int j_end = min(ns, (int)(blockIdx.y + 1) * span);
  for (int j0 = blockIdx.y * span; j0 < j_end; j0 += blockDim.x) {
    int j = j0 + threadIdx.x, cnt = min((int)blockDim.x, j_end - j0);
    __syncthreads();
    if (threadIdx.x < cnt)
      for (int c = 0; c < 3; ++c) { tile[c][threadIdx.x] = sp[vx_off3(j, c)]; tile[3 + c][threadIdx.x] = sa[vx_off3(j, c)]; }
    __syncthreads();
    if (active) VXF(tile_dispatch)(kernel, gk, sigma, x, y, z, &tile[0][0], VX_DIRECT_THREADS, cnt, u, gr);
  }
  if (!active) return;
  if (part) {
    vx_real *q = part + (size_t)VX_DIRECT_PLANES * blockIdx.y * nt + i;
    for (int k = 0; k < 3; ++k) q[(size_t)k * nt] = u[k];
    if (gk) for (int k = 0; k < 9; ++k) q[(size_t)(3 + k) * nt] = gr[k];
    return;
  }
  const vx_real c = (vx_real)VX_INV4PI;
  for (int k = 0; k < 3; ++k) vel[vx_off3(i, k)] = u[k] * c;
  if (gk) for (int k = 0; k < 9; ++k) grad[vx_off9(i, k)] = gr[k] * c;
}

/* The spans' partial sums of k_direct added in span order, a thread per target. */
__global__ void VXF(k_direct_sum)(int want_grad, int n_grad, int nt, int nspan, const vx_real *part, vx_real *vel,
                                  vx_real *grad) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nt) return;
  const int np = want_grad && i < n_grad ? VX_DIRECT_PLANES : 3;
  const vx_real c = (vx_real)VX_INV4PI;
  for (int k = 0; k < np; ++k) {
    vx_real s = 0;
    for (int q = 0; q < nspan; ++q) s += part[((size_t)VX_DIRECT_PLANES * q + k) * nt + i];
    if (k < 3) vel[vx_off3(i, k)] = s * c;
    else grad[vx_off9(i, k - 3)] = s * c;
  }
}

/* The direct sum of io's sources on its targets (fmm_direct), on the far field's stream. */
int VXF(gpu_direct)(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen) {
  fmm_gpu *G = (fmm_gpu *)ctx->gpu;
  const fmm_params *P = &ctx->prm;
  const int ns = io->n_src, nt = io->n_tgt, want_grad = P->gradient && io->grad;
  const int n_grad = (io->n_grad > 0 && io->n_grad < nt) ? io->n_grad : nt;
  const size_t rs = sizeof(vx_real);
  cudaStream_t sf = G->s_far;
  VX_CUR(cudaEventRecord(G->ev[EV_CALLER], cudaStreamLegacy));
  VX_CUR(cudaStreamWaitEvent(sf, G->ev[EV_CALLER], 0));
  fmm_stats s;
  memset(&s, 0, sizeof s);
  if (nt == 0) { if (st) *st = s; return 0; }
  const vx_real *spos, *sstr, *tpos;
  vx_real *vel, *grad;
  VX_CUR(cudaEventRecord(G->ev[EV_COPY0], sf));
  if (io->on_device) {
    spos = (const vx_real *)io->src_pos; sstr = (const vx_real *)io->src_str; tpos = (const vx_real *)io->tgt_pos;
    vel = (vx_real *)io->vel; grad = (vx_real *)io->grad;
  } else {
    if (gpu_reserve(&G->in_spos, 3 * rs * (size_t)ns, "source positions", err, errlen) ||
        gpu_reserve(&G->in_sstr, 3 * rs * (size_t)ns, "source strengths", err, errlen) ||
        gpu_reserve(&G->in_tpos, 3 * rs * (size_t)nt, "target positions", err, errlen) ||
        gpu_reserve(&G->out_vel, 3 * rs * (size_t)nt, "velocities", err, errlen) ||
        (want_grad && gpu_reserve(&G->out_grad, 9 * rs * (size_t)nt, "gradients", err, errlen)))
      return -1;
    if (ns) VX_CUR(cudaMemcpyAsync(G->in_spos.ptr, io->src_pos, 3 * rs * (size_t)ns, cudaMemcpyHostToDevice, sf));
    if (ns) VX_CUR(cudaMemcpyAsync(G->in_sstr.ptr, io->src_str, 3 * rs * (size_t)ns, cudaMemcpyHostToDevice, sf));
    VX_CUR(cudaMemcpyAsync(G->in_tpos.ptr, io->tgt_pos, 3 * rs * (size_t)nt, cudaMemcpyHostToDevice, sf));
    spos = (const vx_real *)G->in_spos.ptr; sstr = (const vx_real *)G->in_sstr.ptr; tpos = (const vx_real *)G->in_tpos.ptr;
    vel = (vx_real *)G->out_vel.ptr; grad = want_grad ? (vx_real *)G->out_grad.ptr : NULL;
  }
  const int tb = vx_ceil_div(nt, VX_DIRECT_THREADS), span = direct_span(ns, tb, G->n_sm, VX_DIRECT_THREADS);
  const int nspan = ns > 0 ? vx_ceil_div(ns, span) : 1;
  vx_real *part = NULL;
  if (nspan > 1) {
    if (gpu_reserve(&G->direct_part, rs * VX_DIRECT_PLANES * (size_t)nspan * nt, "the direct sum's partial sums", err,
                    errlen))
      return -1;
    part = (vx_real *)G->direct_part.ptr;
  }
  VX_CUR(cudaEventRecord(G->ev[EV_START], sf));
  VXF(k_direct)<<<dim3(tb, nspan), VX_DIRECT_THREADS, 0, sf>>>((int)P->kernel, (vx_real)P->sigma, want_grad, n_grad, ns,
                                                                 nt, span, spos, sstr, tpos, vel, grad, part);
  VX_CUR_LAUNCH(direct);
  if (part) {
    VXF(k_direct_sum)<<<tb, VX_DIRECT_THREADS, 0, sf>>>(want_grad, n_grad, nt, nspan, part, vel, grad);
    VX_CUR_LAUNCH(direct_sum);
  }
  VX_CUR(cudaEventRecord(G->ev[EV_END], sf));
  if (!io->on_device) {
    VX_CUR(cudaMemcpyAsync(io->vel, vel, 3 * rs * (size_t)nt, cudaMemcpyDeviceToHost, sf));
    if (want_grad) VX_CUR(cudaMemcpyAsync(io->grad, grad, 9 * rs * (size_t)n_grad, cudaMemcpyDeviceToHost, sf));
  }
  VX_CUR(cudaEventRecord(G->ev[EV_COPY1], sf));
  VX_CUR(cudaEventSynchronize(G->ev[EV_COPY1]));
  {
    float ms, c0, c1;
    VX_CUR(cudaEventElapsedTime(&ms, G->ev[EV_START], G->ev[EV_END]));
    VX_CUR(cudaEventElapsedTime(&c0, G->ev[EV_COPY0], G->ev[EV_START]));
    VX_CUR(cudaEventElapsedTime(&c1, G->ev[EV_END], G->ev[EV_COPY1]));
    s.t_total = ms; s.t_p2p = ms; s.t_copy = c0 + c1;
    s.n_p2p = (long long)ns * nt;
  }
  if (st) *st = s;
  return 0;
}
