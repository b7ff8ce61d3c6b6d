/* render_boxes.c — the non-empty cells of the occupancy histogram as wireframe boxes (the B
 * overlay): occupancy per cell at the level asked, coarsened until at most RD_BOXES_MAX remain,
 * uploaded as box instances (lower corner, side) drawn by render_draw.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "render_int.h"


/* The boxes (B: at most RD_BOXES_MAX, render.h) are found from the occupancy at no deeper than
 * this level (8^7 = 2M bytes of it). */
#define RD_BOXES_MAX_LEVEL 7

/* Occupancy of the level-lb cells of the level-L histogram (1: holds a particle), and how many are
 * occupied. A level-lb cell holds the fine cells whose Morton keys share its key as prefix:
 * key >> 3(L - lb). NULL when out of host memory. */
static unsigned char *occupied_cells(const int *bins, int L, int lb, size_t *n) {
  size_t cells = (size_t)1 << (3 * L), coarse = (size_t)1 << (3 * lb);
  int shift = 3 * (L - lb);
  unsigned char *occ = calloc(coarse, 1);
  if (!occ) return NULL;
  for (size_t c = 0; c < cells; ++c)
    if (bins[c] > 0) occ[c >> shift] = 1;
  *n = 0;
  for (size_t c = 0; c < coarse; ++c) *n += occ[c];
  return occ;
}

/* The level-l occupancy in occ becomes level l - 1's, in place (a parent's index is below its
 * children's); returns how many parents are occupied. */
static size_t coarsen_cells(unsigned char *occ, int l) {
  size_t parents = (size_t)1 << (3 * (l - 1)), n = 0;
  for (size_t c = 0; c < parents; ++c) {
    unsigned char any = 0;
    for (int k = 0; k < 8; ++k) any |= occ[8 * c + k];
    occ[c] = any;
    n += any;
  }
  return n;
}

/* The n occupied level-lb cells of occ as box instances (lower corner, side) in the box VBO. */
static int upload_boxes(rd_renderer *r, const unsigned char *occ, int lb, size_t n, char *err, size_t errlen) {
  float *inst = malloc(sizeof(float) * 4 * (n ? n : 1));
  if (!inst) { snprintf(err, errlen, "out of host memory for %zu boxes", n); return -1; }
  double hw = ldexp(r->hist_side, -lb);
  size_t k = 0, coarse = (size_t)1 << (3 * lb);
  for (size_t c = 0; c < coarse; ++c) {
    if (!occ[c]) continue;
    int ix, iy, iz;
    oct_demorton3((uint32_t)c, &ix, &iy, &iz);
    inst[4 * k] = (float)(r->hist_lo[0] + ix * hw);
    inst[4 * k + 1] = (float)(r->hist_lo[1] + iy * hw);
    inst[4 * k + 2] = (float)(r->hist_lo[2] + iz * hw);
    inst[4 * k + 3] = (float)hw;
    ++k;
  }
  glBindBuffer(GL_ARRAY_BUFFER, r->vbo_boxes);
  if (n > r->cap_boxes) {
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(float) * 4 * n), inst, GL_DYNAMIC_DRAW);
    r->cap_boxes = n;
  } else if (n) {
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(sizeof(float) * 4 * n), inst);
  }
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  free(inst);
  r->n_boxes = (int)n;
  return rd_gl_check("uploading the histogram cells", err, errlen);
}

/* The non-empty histogram cells drawn by B: those of level lb (the octree's leaves' level) when
 * they number at most RD_BOXES_MAX, else of the deepest coarser level whose do, so the wireframe
 * outlines the flow instead of filling the screen. Rebuilt when the histogram or lb changes; the
 * level drawn and the count go into the stats for the HUD. */
int rd_update_boxes(rd_renderer *r, int lb, char *err, size_t errlen) {
  int L = r->hist_levels;
  if (lb < 1 || lb > L) lb = L;
  if (r->boxes_version == r->hist_version && r->boxes_level == lb) return 0;
  r->n_boxes = 0;
  r->boxes_version = r->hist_version;
  r->boxes_level = lb;
  r->stats.boxes_level = 0;
  r->stats.n_boxes = 0;
  if (L > VX_LMAX || lb < 1) return 0;
  if (r->hist_on_device) {
    if (rd_grow((void **)&r->host_bins, &r->cap_host_bins, sizeof(int) * ((size_t)1 << (3 * L)), err, errlen) ||
        rd_gpu_hist_download(r->gpu, r->host_bins, L, err, errlen))
      return -1;
  }
  int l = lb < RD_BOXES_MAX_LEVEL ? lb : RD_BOXES_MAX_LEVEL;
  size_t n = 0;
  unsigned char *occ = occupied_cells(r->host_bins, L, l, &n);
  if (!occ) { snprintf(err, errlen, "out of host memory for the histogram cells"); return -1; }
  for (; n > RD_BOXES_MAX && l > 1; --l) n = coarsen_cells(occ, l);
  int rc = upload_boxes(r, occ, l, n, err, errlen);
  free(occ);
  r->stats.boxes_level = l;
  r->stats.n_boxes = (int)n;
  return rc;
}
