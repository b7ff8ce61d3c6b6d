/* iso_t.h — the per-cell and per-tetrahedron math of the isosurface (iso.h), written once and called
 * by the CPU twin (iso_cpu.c, OpenMP) and by the thin CUDA kernels (iso_gpu.cu, compiled without
 * fused multiply-adds so that both round alike and give the same bits).
 *
 * Marching tetrahedra (Doi & Koide, IEICE Trans. E74(1), 1991): each cell of the n³ grid is split
 * into the six tetrahedra that share its main diagonal, corner 0 → corner 7 (corner m of a cell:
 * bit 0 +x, bit 1 +y, bit 2 +z). Tetrahedron t follows the axes in the t-th order of
 * (xyz, xzy, yxz, yzx, zxy, zyx): corners 0, e_a, e_a + e_b, 7. The same split in every cell
 * makes neighbouring cells' faces meet (the Kuhn triangulation), so the surface is closed. A
 * corner is inside where f > level; a tetrahedron with one or three corners inside gives one
 * triangle, with two a quadrilateral cut into two. Vertices lie on the edges between an inside and
 * an outside corner, linearly interpolated, always from the edge's lower corner, so that the cells
 * sharing an edge compute the same vertex. Triangles are wound counter-clockwise seen from the
 * outside (f < level), and the vertex normals are −∇f normalised (∇f by central differences at
 * the nodes, one-sided at the grid's faces, interpolated along the edge): both point out of the
 * region f > level. Compiles as C11 and CUDA C++; no tables (nothing to put in device memory). */
#ifndef RD_ISO_T_H
#define RD_ISO_T_H

#include <math.h>
#include <stddef.h>
#include "hd.h"

VX_EXTERN_C_BEGIN

/* floats a vertex: position xyz (world units), unit normal xyz */
#define RD_ISO_FLOATS 6

/* One extraction: the grid's n nodes a side, the cube's corner and spacing in float, the level. */
typedef struct {
  float lo[3], dx, level;
  int n;
} rd_iso_geom;

/* The geometry of a call, made on the host by both backends so that both get the same floats. */
static inline rd_iso_geom rd_iso_geom_make(const double lo[3], double side, int n, float level) {
  rd_iso_geom g;
  for (int a = 0; a < 3; ++a) g.lo[a] = (float)lo[a];
  g.dx = (float)(side / (double)(n - 1));
  g.level = level;
  g.n = n;
  return g;
}

/* Node index of (i, j, k): x fastest, then y, then z. */
VX_HD static inline size_t rd_iso_node(int n, int i, int j, int k) {
  return ((size_t)k * (size_t)n + (size_t)j) * (size_t)n + (size_t)i;
}

/* The eight corner values of cell (i, j, k). */
VX_HD static inline void rd_iso_corners(const float *f, int n, int i, int j, int k, float v[8]) {
  const size_t b = rd_iso_node(n, i, j, k), sy = (size_t)n, sz = (size_t)n * (size_t)n;
  v[0] = f[b], v[1] = f[b + 1], v[2] = f[b + sy], v[3] = f[b + sy + 1];
  v[4] = f[b + sz], v[5] = f[b + sz + 1], v[6] = f[b + sz + sy], v[7] = f[b + sz + sy + 1];
}

/* The corners of tetrahedron t (0..5) of a cell: 0, e_a, e_a + e_b, 7. */
VX_HD static inline void rd_iso_tet(int t, int c[4]) {
  const int a = t >> 1, b = (t & 1) ? (a == 2 ? 1 : 2) : (a == 0 ? 1 : 0);
  c[0] = 0, c[1] = 1 << a, c[2] = c[1] | (1 << b), c[3] = 7;
}

/* Which of the tetrahedron's corners are inside (bit q: corner c[q] has f > level). */
VX_HD static inline int rd_iso_mask(const float v[8], const int c[4], float level) {
  return (v[c[0]] > level) | (v[c[1]] > level) << 1 | (v[c[2]] > level) << 2 | (v[c[3]] > level) << 3;
}

/* Triangles a tetrahedron gives: 0 with no corner or all inside, 2 with two, else 1. */
VX_HD static inline int rd_iso_mask_tris(int mask) {
  const int in = (mask & 1) + (mask >> 1 & 1) + (mask >> 2 & 1) + (mask >> 3 & 1);
  return in == 0 || in == 4 ? 0 : (in == 2 ? 2 : 1);
}

/* Triangles of cell (i, j, k): 0..12. */
VX_HD static inline int rd_iso_cell_count(const float *f, const rd_iso_geom *g, int i, int j, int k) {
  float v[8];
  rd_iso_corners(f, g->n, i, j, k, v);
  int c[4], s = 0;
  for (int t = 0; t < 6; ++t) {
    rd_iso_tet(t, c);
    s += rd_iso_mask_tris(rd_iso_mask(v, c, g->level));
  }
  return s;
}

/* Whether triangle e (three edges, each an inside and an outside corner) is wound with its normal
 * pointing to the outside. Decided on the triangle through the edges' midpoints (in doubled corner
 * coordinates, exact integers): it separates the inside corners from the outside ones as the true
 * triangle does, and no vertex moving along its edge can turn it over, so the winding found there
 * holds for every level. */
VX_HD static inline int rd_iso_wound_out(const int e[3][2]) {
  int m[3][3], d[3];
  for (int v = 0; v < 3; ++v)
    for (int a = 0; a < 3; ++a) m[v][a] = (e[v][0] >> a & 1) + (e[v][1] >> a & 1);
  for (int a = 0; a < 3; ++a) d[a] = (e[0][1] >> a & 1) - (e[0][0] >> a & 1); /* inside → outside */
  const int u[3] = {m[1][0] - m[0][0], m[1][1] - m[0][1], m[1][2] - m[0][2]};
  const int w[3] = {m[2][0] - m[0][0], m[2][1] - m[0][1], m[2][2] - m[0][2]};
  const int nx = u[1] * w[2] - u[2] * w[1], ny = u[2] * w[0] - u[0] * w[2], nz = u[0] * w[1] - u[1] * w[0];
  return nx * d[0] + ny * d[1] + nz * d[2] > 0;
}

/* The triangles of a tetrahedron with corners c and inside mask, as edges (inside corner, outside
 * corner), wound outward. Returns how many (0..2). One inside corner A: (AB, AC, AD); one outside
 * corner D: (AD, BD, CD); two inside A, B: the quadrilateral AC, AD, BD, BC cut along AC–BD. */
VX_HD static inline int rd_iso_tet_tris(const int c[4], int mask, int tri[2][3][2]) {
  int in[4], out[4], ni = 0, no = 0;
  for (int q = 0; q < 4; ++q) {
    if (mask >> q & 1) in[ni++] = c[q];
    else out[no++] = c[q];
  }
  if (ni == 0 || ni == 4) return 0;
  int q[4][2], nq = 3;
  for (int v = 0; v < 3; ++v) {
    q[v][0] = ni == 1 ? in[0] : (ni == 3 ? in[v] : 0);
    q[v][1] = ni == 1 ? out[v] : (ni == 3 ? out[0] : 0);
  }
  if (ni == 2) {
    nq = 4;
    q[0][0] = in[0], q[0][1] = out[0], q[1][0] = in[0], q[1][1] = out[1];
    q[2][0] = in[1], q[2][1] = out[1], q[3][0] = in[1], q[3][1] = out[0];
  }
  const int first[3][2] = {{q[0][0], q[0][1]}, {q[1][0], q[1][1]}, {q[2][0], q[2][1]}};
  const int flip = !rd_iso_wound_out(first);
  const int nt = nq == 4 ? 2 : 1;
  for (int t = 0; t < nt; ++t) {
    /* triangle t: q0, q(1+t), q(2+t), reversed (q0, q(2+t), q(1+t)) when the cycle winds inward */
    const int order[3] = {0, flip ? 2 + t : 1 + t, flip ? 1 + t : 2 + t};
    for (int v = 0; v < 3; ++v) tri[t][v][0] = q[order[v]][0], tri[t][v][1] = q[order[v]][1];
  }
  return nt;
}

/* ∇f at node (i, j, k) in grid units: central differences, one-sided at the grid's faces. */
VX_HD static inline void rd_iso_grad(const float *f, int n, int i, int j, int k, float gr[3]) {
  const int p[3] = {i, j, k};
  const size_t at = rd_iso_node(n, i, j, k), s[3] = {1, (size_t)n, (size_t)n * (size_t)n};
  for (int a = 0; a < 3; ++a) {
    if (p[a] == 0) gr[a] = f[at + s[a]] - f[at];
    else if (p[a] == n - 1) gr[a] = f[at] - f[at - s[a]];
    else gr[a] = 0.5f * (f[at + s[a]] - f[at - s[a]]);
  }
}

/* The vertex on the edge between corners in and out of cell (i, j, k) (values v) into dst:
 * position and unit normal (RD_ISO_FLOATS floats). Interpolated from the edge's lower corner a to
 * its upper b (in the tetrahedra every edge runs from a corner to one with more bits set). A zero
 * gradient (a flat grid) leaves the normal along the edge, towards the outside corner. */
VX_HD static inline void rd_iso_vertex(const float *f, const rd_iso_geom *g, int i, int j, int k, const float v[8], int in,
                                       int out, float *dst) {
  const int a = in < out ? in : out, b = in < out ? out : in, base[3] = {i, j, k};
  const float t = (g->level - v[a]) / (v[b] - v[a]);
  float ga[3], gb[3], nr[3], len2 = 0.0f;
  rd_iso_grad(f, g->n, i + (a & 1), j + (a >> 1 & 1), k + (a >> 2 & 1), ga);
  rd_iso_grad(f, g->n, i + (b & 1), j + (b >> 1 & 1), k + (b >> 2 & 1), gb);
  for (int q = 0; q < 3; ++q) {
    const int ca = a >> q & 1, cb = b >> q & 1;
    dst[q] = g->lo[q] + ((float)(base[q] + ca) + t * (float)(cb - ca)) * g->dx;
    nr[q] = ga[q] + t * (gb[q] - ga[q]);
    len2 += nr[q] * nr[q];
  }
  if (len2 > 0.0f) {
    const float len = sqrtf(len2);
    for (int q = 0; q < 3; ++q) dst[3 + q] = -nr[q] / len;
  } else {
    float e2 = 0.0f;
    for (int q = 0; q < 3; ++q) nr[q] = (float)((out >> q & 1) - (in >> q & 1)), e2 += nr[q] * nr[q];
    for (int q = 0; q < 3; ++q) dst[3 + q] = nr[q] / sqrtf(e2);
  }
}

/* Cell (i, j, k)'s triangles, tetrahedra in order, written as triangles first, first + 1, ... of
 * out (3 RD_ISO_FLOATS floats each), those at cap or beyond left out. Returns how many it has. */
VX_HD static inline int rd_iso_cell_emit(const float *f, const rd_iso_geom *g, int i, int j, int k, float *out, long first,
                                         long cap) {
  float v[8];
  rd_iso_corners(f, g->n, i, j, k, v);
  int c[4], tri[2][3][2], s = 0;
  for (int t = 0; t < 6; ++t) {
    rd_iso_tet(t, c);
    const int nt = rd_iso_tet_tris(c, rd_iso_mask(v, c, g->level), tri);
    for (int u = 0; u < nt; ++u, ++s) {
      if (first + s >= cap) continue;
      float *dst = out + (size_t)(first + s) * 3 * RD_ISO_FLOATS;
      for (int w = 0; w < 3; ++w) rd_iso_vertex(f, g, i, j, k, v, tri[u][w][0], tri[u][w][1], dst + w * RD_ISO_FLOATS);
    }
  }
  return s;
}

VX_EXTERN_C_END
#endif
