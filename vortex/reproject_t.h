/* reproject_t.h — the per-element math of the reprojection (reproject.h), written once for both
 * precisions and both backends: included by reproject.h with VX_DOUBLE_INST or VX_FLOAT_INST and
 * real_t.h. The cells are those of remesh.h's lattice keys with origin 0 and spacing the cut. */

/* The cell of position x for cells of side cell (1/cell given), and its key. */
VX_HD static inline void VXF(vx_reproject_cell)(const vx_real *x, double inv_cell, long long *c) {
  for (int k = 0; k < 3; ++k) c[k] = (long long)floor((double)x[k] * inv_cell);
}
VX_HD static inline uint64_t VXF(vx_reproject_key)(const vx_real *x, double inv_cell) {
  long long c[3];
  VXF(vx_reproject_cell)(x, inv_cell, c);
  return vx_lattice_key(c[0], c[1], c[2]);
}

/* The change δ of target i's strength: f·v·(Σ_j ζ(x_i − y_j) α_j + ζ(0)/3 α_i − ∇×u_i), the sum
 * over the sources y_j (spos, salpha; their cell keys sorted ascending with their indices sidx, ns of
 * them) within the cut and not at x_i itself (the engine's pairs leave out r = 0 too); x_i, α_i from
 * tpos, talpha, g_i the 9 entries of ∇u at x_i (stage_t.h's vx_curl). The cells, VX_REPROJECT_CELLS
 * to the cut, are visited as columns along z (a column's keys are consecutive: remesh.h), those
 * whose cross-section lies within the cut of x_i, each over the cells its chord through the cut's
 * sphere crosses (the sphere widened by VX_REPROJECT_MARGIN, so that no rounding leaves out a source
 * within the cut): about 1.9 times the sphere's volume is searched. */
VX_HD static inline void VXF(vx_reproject_delta)(const vx_real *spos, const vx_real *salpha, const uint64_t *keys,
                                                 const uint32_t *sidx, int ns, const vx_real *tpos,
                                                 const vx_real *talpha, const vx_real *g, int i,
                                                 const vx_reproject_geom *G, vx_real *delta) {
  const vx_real *xi = tpos + 3 * (size_t)i;
  double s[3] = {0.0, 0.0, 0.0}, x[3] = {(double)xi[0], (double)xi[1], (double)xi[2]};
  long long c[3];
  VXF(vx_reproject_cell)(xi, G->inv_cell, c);
  const double w = 1.0 / G->inv_cell, reach = G->cut * (1.0 + VX_REPROJECT_MARGIN);
  vx_real cut2 = (vx_real)(G->cut * G->cut), a = (vx_real)(-0.5 / (G->sigma * G->sigma));
  for (int dx = -VX_REPROJECT_CELLS; dx <= VX_REPROJECT_CELLS; ++dx)
    for (int dy = -VX_REPROJECT_CELLS; dy <= VX_REPROJECT_CELLS; ++dy) {
      double ex = vx_reproject_gap(x[0], (double)(c[0] + dx) * w, (double)(c[0] + dx + 1) * w);
      double ey = vx_reproject_gap(x[1], (double)(c[1] + dy) * w, (double)(c[1] + dy + 1) * w);
      double rxy2 = ex * ex + ey * ey;
      if (rxy2 >= reach * reach) continue;
      double hz = sqrt(reach * reach - rxy2);
      long long z0 = (long long)floor((x[2] - hz) * G->inv_cell), z1 = (long long)floor((x[2] + hz) * G->inv_cell);
      int lo = vx_reproject_lower(keys, ns, vx_lattice_key(c[0] + dx, c[1] + dy, z0));
      int hi = vx_reproject_lower(keys, ns, vx_lattice_key(c[0] + dx, c[1] + dy, z1) + 1);
      for (int q = lo; q < hi; ++q) {
        const vx_real *y = spos + 3 * (size_t)sidx[q];
        vx_real rx = xi[0] - y[0], ry = xi[1] - y[1], rz = xi[2] - y[2], r2 = rx * rx + ry * ry + rz * rz;
        if (r2 >= cut2 || r2 == VX_R(0.0)) continue;
        vx_real z = VX_EXP(a * r2);
        const vx_real *aj = salpha + 3 * (size_t)sidx[q];
        for (int k = 0; k < 3; ++k) s[k] += (double)(z * aj[k]);
      }
    }
  vx_real wc[3];
  VXF(vx_curl)(g + 9 * (size_t)i, wc);
  const vx_real *ai = talpha + 3 * (size_t)i;
  for (int k = 0; k < 3; ++k) delta[3 * (size_t)i + k] = (vx_real)(G->f * G->vol * (G->zeta0 * (s[k] + ai[k] / 3.0) - (double)wc[k]));
}
