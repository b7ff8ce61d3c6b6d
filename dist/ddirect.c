/* ddirect.c — direct summation over the ranks (ddirect.h). */
#include "ddirect.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int all_ok(const vx_comm *c, int ok, char *err, size_t errlen) {
  if (vx_comm_agree(c, ok)) return 1;
  if (ok) snprintf(err, errlen, "another rank failed in the direct summation");
  return 0;
}

void vx_ddirect_free(vx_ddirect *w) {
  free(w->h);
  if (w->d) vx_device_free(w->d);
  memset(w, 0, sizeof *w);
}

/* Every rank's `bytes` of v (this rank's) into out, rank 0's first, cnt/dsp the byte counts and offsets. */
static int gather(const vx_comm *c, const void *v, int bytes, void *out, int *cnt, int *dsp, char *err, size_t errlen) {
  return vx_comm_check(MPI_Allgatherv(v, bytes, MPI_BYTE, out, cnt, dsp, MPI_BYTE, c->comm), "MPI_Allgatherv (sources)", err,
                       errlen);
}

int vx_ddirect_evaluate(const vx_comm *c, vx_ddirect *w, fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err,
                        size_t errlen) {
  const size_t rs = fmm_get_params(ctx)->precision == VX_FLOAT ? sizeof(float) : sizeof(double);
  const long long mine = 3 * rs * (size_t)(io->n_src > 0 ? io->n_src : 0);
  int *cnt = malloc(sizeof(int) * 2 * (size_t)c->size), *dsp = cnt ? cnt + c->size : NULL;
  long long n = io->n_src, total = 0;
  int ok = cnt != NULL && mine <= INT_MAX;
  if (!ok) snprintf(err, errlen, "%d sources are too many for the direct sum over the ranks", io->n_src);
  if (!all_ok(c, ok, err, errlen) ||
      vx_comm_check(MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_LONG_LONG, MPI_SUM, c->comm), "MPI_Allreduce (sources)", err, errlen) ||
      vx_comm_check(MPI_Allgather(&(int){(int)mine}, 1, MPI_INT, cnt, 1, MPI_INT, c->comm), "MPI_Allgather (sources)", err, errlen)) {
    free(cnt);
    return -1;
  }
  for (int r = 0; r < c->size; r++) dsp[r] = (int)total, total += cnt[r];
  /* the host buffer: this rank's sources (from the device), then every rank's positions and strengths */
  const size_t need = (size_t)mine * 2 + (size_t)total * 2 + 1;
  ok = total <= INT_MAX && n <= INT_MAX && vx_host_reserve(&w->h, &w->h_cap, need) == 0;
  if (!ok) snprintf(err, errlen, "rank %d: out of memory for %lld sources of every rank", c->rank, n);
  char *own = w->h, *pos = own + 2 * mine, *str = pos + total;
  if (ok && io->on_device)
    ok = vx_device_download(own, io->src_pos, (size_t)mine, err, errlen) == 0 &&
         vx_device_download(own + mine, io->src_str, (size_t)mine, err, errlen) == 0;
  else if (ok && mine)
    memcpy(own, io->src_pos, (size_t)mine), memcpy(own + mine, io->src_str, (size_t)mine);
  if (!all_ok(c, ok, err, errlen) || gather(c, own, (int)mine, pos, cnt, dsp, err, errlen) ||
      gather(c, own + mine, (int)mine, str, cnt, dsp, err, errlen)) {
    free(cnt);
    return -1;
  }
  free(cnt);
  fmm_io all = *io;
  all.n_src = (int)n, all.src_pos = pos, all.src_str = str;
  if (io->on_device) { /* the gathered sources (positions, then strengths) to the device, beside the targets */
    const size_t b = (size_t)total * 2;
    if (b + 1 > w->d_cap) {
      if (w->d) vx_device_free(w->d);
      w->d = NULL, w->d_cap = 0;
      ok = vx_device_alloc(&w->d, b + 1, err, errlen) == 0;
      if (ok) w->d_cap = b + 1;
    }
    ok = ok && vx_device_upload(w->d, pos, b, err, errlen) == 0;
    all.src_pos = w->d, all.src_str = (char *)w->d + total;
  }
  ok = ok && fmm_direct(ctx, &all, st, err, errlen) == 0;
  return all_ok(c, ok, err, errlen) ? 0 : -1;
}
