/* cost.c — the FMM's cost model (docs/MATH.md §11): the work of each FMM phase at a candidate
 * finest level, from dense occupancy histograms of the points, and its predicted time from
 * per-phase unit costs held per backend and precision.
 *
 * Where the unit costs come from: a compiled-in table (below: this project's CPU calibration, so
 * that level_rule = 1 works out of the box) that a cost file can replace at start-up
 * (fmm_cost_load; `vortexfmm-bench --calibrate` writes one, `--cost-file` reads it). A file rather
 * than only a C table because a calibration belongs to a device and its thread count, not to the
 * source: another machine is calibrated by running the bench once, with no rebuild. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "fmm_internal.h"

/* ---------------------------------------------------------------- unit-cost tables */

/* [backend][precision]; order 0 marks "not calibrated" (FMM_LEVEL_RULE_COST then keeps the leaf-size
 * rule). CPU: the project's 2-core machine (2 OpenMP threads, otherwise idle), with the vectorized
 * pair loops and the M2L's source-degree cut, by `vortexfmm-bench --calibrate --precision float
 * --repeat 5` and `vortexfmm-bench --calibrate --precision double --repeat 3`. Its per-call cost and
 * direct-sum units (fmm_cost_direct_pays) from the scenes' Gaussian on rings, `vortexfmm-bench --dist
 * rings --kernel gauss --sigma 0.03 --vs-direct --repeat 7` at n = 128 … 1024 (and --no-gradient):
 * an FMM evaluation of 512 points takes 1.2 ms (float) or 1.6 ms (double) at p = 8, a direct pair
 * 3.8 ns (float) or 5.3 ns (double) with the gradient, 3.1 or 3.7 ns without; with call = 1 ms the
 * model sums up to about 530 (float) or 440 (double) elements alone directly, where the direct sum
 * is the faster up to about 550 at p = 8 and 1000 at p = 12. Fields in fmm_cost_units order:
 * order, tree_pt, tree_cell, p2m, m2m, m2l, l2l, l2p_grad, l2p_vel, p2p_grad, p2p_vel, p2p_nbr, other,
 * level, call, direct_grad, direct_vel. */
static fmm_cost_units cost_tab[2][2] = {
    /* cpu: double, float */
    {{8, 42.35, 0, 172.8, 780, 679.5, 1110, 371.9, 218.1, 0.9448, 0.7111, 52.25, 6.036, 0, 1e6, 5.33, 3.66},
     {8, 40.8, 0, 121.1, 690.1, 652.7, 923, 300.9, 158.2, 0.4513, 0.2129, 54.92, 0.1936, 0, 1e6, 3.76, 3.07}},
    /* cuda: float from an H100's calibration, `vortexfmm-bench --backend cuda --precision float
     * --calibrate --repeat 5`, its runs fitted to whole evaluations (totals and level differences) by
     * `vortexfmm-bench --refit cost_cuda.txt --precision float`; the far field's translations come
     * out nearly free next to the per-level and per-cell costs, as the near field runs beside them.
     * Its direct-sum units (fmm_cost_direct_pays) from the same device's direct sums of the scenes'
     * kernel, `vortexfmm-bench --backend cuda --precision float --kernel gauss --sigma 0.03 --dist
     * rings --vs-direct --n 8192` (and 16384, each with and without --no-gradient): 0.0045 ns a pair
     * with the gradient, 0.0032 without. `--calibrate`'s default singular kernel gives about half
     * that, so a singular sum takes the direct sum a little later than it could. Double: none (the
     * leaf-size rule, and no direct sum in place of the FMM). */
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {8, 0.1892, 1.751, 0, 22.49, 0, 0, 0.7857, 0, 0.001474, 0.0008645, 6.742, 0, 4.78e+04, 3.574e+05, 0.0045, 0.0032}},
};

static int tab_index(vx_backend b, vx_precision prec, int *bi, int *pi) {
  if ((b != VX_BACKEND_CPU && b != VX_BACKEND_CUDA) || (prec != VX_DOUBLE && prec != VX_FLOAT)) return -1;
  *bi = b == VX_BACKEND_CUDA, *pi = prec == VX_FLOAT;
  return 0;
}

/* Counts the changes of the tables in force (fmm_cost_set, fmm_cost_load): a kept choice made under
 * other units is not kept (fmm_cost_gpu's memo). */
static unsigned cost_generation;

unsigned fmm_cost_generation(void) { return cost_generation; }

const fmm_cost_units *fmm_cost_table(vx_backend b, vx_precision prec) {
  int bi, pi;
  if (tab_index(b, prec, &bi, &pi) || cost_tab[bi][pi].order <= 0) return NULL;
  return &cost_tab[bi][pi];
}

int fmm_cost_get(vx_backend b, vx_precision prec, fmm_cost_units *u) {
  const fmm_cost_units *t = fmm_cost_table(b, prec);
  if (!t) return -1;
  *u = *t;
  return 0;
}

void fmm_cost_set(vx_backend b, vx_precision prec, const fmm_cost_units *u) {
  int bi, pi;
  if (!tab_index(b, prec, &bi, &pi)) cost_tab[bi][pi] = *u, cost_generation++;
}

/* The file's keys, in fmm_cost_units order after `order`; the first N_REQUIRED_KEYS must be there
 * (level, call and the direct sum's came later: files written before them still load, with 0). */
static const char *const unit_keys[] = {"tree_pt",  "tree_cell", "p2m",     "m2m",     "m2l",   "l2l",  "l2p_grad",
                                        "l2p_vel",  "p2p_grad",  "p2p_vel", "p2p_nbr", "other", "level", "call",
                                        "direct_grad", "direct_vel"};
#define N_UNIT_KEYS (sizeof unit_keys / sizeof unit_keys[0])
#define N_REQUIRED_KEYS 12

double *fmm_cost_unit(fmm_cost_units *u, int k) {
  double *f[N_UNIT_KEYS] = {&u->tree_pt,  &u->tree_cell, &u->p2m,     &u->m2m,     &u->m2l,   &u->l2l,   &u->l2p_grad,
                            &u->l2p_vel,  &u->p2p_grad,  &u->p2p_vel, &u->p2p_nbr, &u->other, &u->level, &u->call,
                            &u->direct_grad, &u->direct_vel};
  return k >= 0 && (size_t)k < N_UNIT_KEYS ? f[k] : NULL;
}

int fmm_cost_format(char *buf, size_t len, vx_backend b, vx_precision prec, const fmm_cost_units *u) {
  fmm_cost_units c = *u;
  int n = snprintf(buf, len, "%s %s order=%d", vx_backend_name(b), prec == VX_FLOAT ? "float" : "double", u->order);
  for (size_t k = 0; k < N_UNIT_KEYS && n >= 0; k++) {
    size_t used = (size_t)n < len ? (size_t)n : len;
    n += snprintf(buf + used, len - used, " %s=%.4g", unit_keys[k], *fmm_cost_unit(&c, (int)k));
  }
  return n;
}

/* One non-comment line into *b, *prec, *u; 0 or -1 with the reason in why. */
static int parse_line(char *line, vx_backend *b, vx_precision *prec, fmm_cost_units *u, const char **why) {
  memset(u, 0, sizeof *u);
  char *save = NULL, *tok = strtok_r(line, " \t\r\n", &save);
  if (!tok || vx_backend_from_name(tok, b) || *b == VX_BACKEND_AUTO) return *why = "expected a backend (cpu or cuda)", -1;
  tok = strtok_r(NULL, " \t\r\n", &save);
  if (!tok || (strcmp(tok, "double") && strcmp(tok, "float"))) return *why = "expected a precision (double or float)", -1;
  *prec = strcmp(tok, "float") ? VX_DOUBLE : VX_FLOAT;
  unsigned seen = 0;
  while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
    char *eq = strchr(tok, '=');
    if (!eq) return *why = "expected key=value", -1;
    *eq = '\0';
    char *end;
    errno = 0;
    double v = strtod(eq + 1, &end);
    if (*end || eq[1] == '\0' || errno == ERANGE || !(v >= 0.0) || !isfinite(v)) return *why = "bad number", -1;
    if (!strcmp(tok, "order")) {
      if (v < 1 || v > VX_PMAX || v != floor(v)) return *why = "order out of range", -1;
      u->order = (int)v, seen |= 1u;
      continue;
    }
    size_t k = 0;
    while (k < N_UNIT_KEYS && strcmp(tok, unit_keys[k])) k++;
    if (k == N_UNIT_KEYS) return *why = "unknown key", -1;
    *fmm_cost_unit(u, (int)k) = v, seen |= 2u << k;
  }
  const unsigned required = (2u << N_REQUIRED_KEYS) - 1u;
  if ((seen & required) != required) return *why = "missing keys (order and every unit but level, call and direct_* are required)", -1;
  return 0;
}

int fmm_cost_load(const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "r");
  if (!f) return snprintf(err, errlen, "cannot open cost file %s: %s", path, strerror(errno)), -1;
  char line[1024];
  int lineno = 0, n = 0;
  fmm_cost_units got[4];
  int which[4] = {0, 0, 0, 0};
  while (fgets(line, sizeof line, f)) {
    lineno++;
    char *s = line + strspn(line, " \t");
    if (*s == '#' || *s == '\n' || *s == '\0') continue;
    vx_backend b;
    vx_precision prec;
    fmm_cost_units u;
    const char *why = "";
    if (parse_line(s, &b, &prec, &u, &why)) {
      fclose(f);
      return snprintf(err, errlen, "%s:%d: %s", path, lineno, why), -1;
    }
    int bi = 0, pi = 0;
    if (tab_index(b, prec, &bi, &pi)) continue; /* parse_line accepts only cpu/cuda, double/float */
    got[2 * bi + pi] = u, which[2 * bi + pi] = 1, n++;
  }
  fclose(f);
  if (n == 0) return snprintf(err, errlen, "%s: no cost table in the file", path), -1;
  /* all lines parsed: only now put them in force */
  for (int i = 0; i < 4; i++)
    if (which[i]) cost_tab[i / 2][i % 2] = got[i], cost_generation++;
  return 0;
}

/* ---------------------------------------------------------------- histogram statistics */

/* out = the sum of `in` over the 3×3×3 cells around each cell of an n³ grid (x fastest), separably;
 * tmp: n³ ints. */
static void box27(const int *in, int *out, int *tmp, int n) {
  const size_t n2 = (size_t)n * n, n3 = n2 * n;
#pragma omp parallel for schedule(static)
  for (size_t r = 0; r < n2; r++) { /* along x */
    const int *a = in + r * n;
    int *o = tmp + r * n;
    for (int x = 0; x < n; x++) o[x] = a[x] + (x > 0 ? a[x - 1] : 0) + (x + 1 < n ? a[x + 1] : 0);
  }
#pragma omp parallel for schedule(static)
  for (size_t c = 0; c < n3; c++) { /* along y */
    const int y = (int)((c / n) % n);
    out[c] = tmp[c] + (y > 0 ? tmp[c - n] : 0) + (y + 1 < n ? tmp[c + n] : 0);
  }
#pragma omp parallel for schedule(static)
  for (size_t c = 0; c < n3; c++) { /* along z */
    const int z = (int)(c / n2);
    tmp[c] = out[c] + (z > 0 ? out[c - n2] : 0) + (z + 1 < n ? out[c + n2] : 0);
  }
  memcpy(out, tmp, n3 * sizeof(int));
}

static void fill_hist(const void *pos, int n, int pos_float, const double lo[3], double inv_side, int l, int *h) {
  for (int i = 0; i < n; i++) h[fmm_cost_cell_of(pos, pos_float, (size_t)i, lo, inv_side, l)]++;
}

/* c (an (m/2)³ grid) = per parent cell, the sum of f(child) over its 8 children of the m³ grid a. */
static void coarsen(const int *a, int m, int *c, int count_nonempty) {
  const int h = m / 2;
#pragma omp parallel for schedule(static)
  for (int z = 0; z < h; z++)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < h; x++) c[((size_t)z * h + y) * h + x] = fmm_cost_children(a, m, x, y, z, count_nonempty);
}

int fmm_cost_stats_build(const void *src_pos, int ns, const void *tgt_pos, int nt, int pos_float, const double lo[3],
                         double side, int top, fmm_cost_stats *s) {
  memset(s, 0, sizeof *s);
  if (top < 2) top = 2;
  if (top > FMM_COST_LMAX) top = FMM_COST_LMAX;
  s->top = top, s->ns = ns, s->nt = nt;
  const int same = src_pos == tgt_pos && ns == nt;
  const size_t n3 = (size_t)1 << (3 * top);
  /* S, T: counts at level l; B, tmp: box sums; I: indicator of non-empty source cells;
   * CS, CT: non-empty source / target children per level l-1 cell */
  int *S = calloc(n3, sizeof(int)), *T = same ? S : calloc(n3, sizeof(int)), *B = malloc(n3 * sizeof(int)),
      *tmp = malloc(n3 * sizeof(int)), *I = malloc(n3 * sizeof(int)), *CS = malloc(n3 / 8 * sizeof(int)),
      *CT = malloc(n3 / 8 * sizeof(int));
  int rc = -1;
  if (!S || !T || !B || !tmp || !I || !CS || !CT) goto done;
  const double inv_side = 1.0 / side;
  fill_hist(src_pos, ns, pos_float, lo, inv_side, top, S);
  if (!same) fill_hist(tgt_pos, nt, pos_float, lo, inv_side, top, T);
  for (int l = top; l >= 2; l--) {
    const int m = 1 << l;
    const size_t c3 = (size_t)m * m * m;
    long long nsb = 0, ntb = 0, pairs = 0, nbr = 0;
    box27(S, B, tmp, m); /* B: sources in the 27 cells around each cell */
#pragma omp parallel for schedule(static) reduction(+ : nsb, ntb, pairs)
    for (size_t c = 0; c < c3; c++) {
      nsb += S[c] > 0, ntb += T[c] > 0;
      pairs += (long long)T[c] * B[c];
      I[c] = S[c] > 0;
    }
    box27(I, B, tmp, m); /* B: non-empty source cells among the 27 */
#pragma omp parallel for schedule(static) reduction(+ : nbr)
    for (size_t c = 0; c < c3; c++) nbr += T[c] > 0 ? B[c] : 0;
    s->nsrc[l] = nsb, s->ntgt[l] = ntb, s->p2p[l] = pairs, s->nbr[l] = nbr;
    /* M2L at level l: per target box, the non-empty source children of its parent's 27 neighbours
     * minus its own non-empty neighbours (oct_tree.il): Σ over parents P of (non-empty target
     * children of P) × box27(non-empty source children)(P), minus nbr. */
    const int h = m / 2;
    const size_t h3 = (size_t)h * h * h;
    coarsen(S, m, CS, 1);
    coarsen(T, m, CT, 1);
    box27(CS, B, tmp, h);
    long long far = 0;
#pragma omp parallel for schedule(static) reduction(+ : far)
    for (size_t c = 0; c < h3; c++) far += (long long)CT[c] * B[c];
    s->m2l[l] = far - nbr;
    /* counts one level up, in place (the coarse grid is the first h3 entries) */
    coarsen(S, m, tmp, 0);
    memcpy(S, tmp, h3 * sizeof(int));
    if (!same) {
      coarsen(T, m, tmp, 0);
      memcpy(T, tmp, h3 * sizeof(int));
    }
  }
  rc = 0;
done:
  free(S);
  if (!same) free(T);
  free(B), free(tmp), free(I), free(CS), free(CT);
  return rc;
}

/* ---------------------------------------------------------------- prediction */

fmm_cost_units fmm_cost_work_at(const fmm_cost_stats *s, int L, long long nt_grad) {
  fmm_cost_units w;
  memset(&w, 0, sizeof w);
  if (L > s->top) L = s->top;
  const double fg = s->nt > 0 ? (double)nt_grad / (double)s->nt : 0.0;
  w.tree_pt = (double)(s->ns + s->nt);
  for (int l = 0; l <= L; l++) w.tree_cell += ldexp(1.0, 3 * l);
  w.p2m = (double)s->ns;
  for (int l = 3; l <= L; l++) w.m2m += (double)s->nsrc[l], w.l2l += (double)s->ntgt[l];
  for (int l = 2; l <= L; l++) w.m2l += (double)s->m2l[l];
  w.l2p_grad = (double)nt_grad, w.l2p_vel = (double)(s->nt - nt_grad);
  w.p2p_grad = fg * (double)s->p2p[L], w.p2p_vel = (1.0 - fg) * (double)s->p2p[L];
  w.p2p_nbr = (double)s->nbr[L];
  w.other = (double)(s->ns + s->nt);
  w.level = (double)(L - 1);
  w.call = 1.0;
  return w;
}

double fmm_cost_phases(const fmm_cost_units *u, const fmm_cost_units *w, int p, double t_ms[FMM_COST_PHASES]) {
  const double r = (double)(p + 1) / (double)(u->order + 1), r2 = r * r, r3 = r2 * r;
  t_ms[0] = u->tree_pt * w->tree_pt + u->tree_cell * w->tree_cell;
  t_ms[1] = r2 * u->p2m * w->p2m;
  t_ms[2] = r3 * u->m2m * w->m2m;
  t_ms[3] = r3 * u->m2l * w->m2l;
  t_ms[4] = r3 * u->l2l * w->l2l;
  t_ms[5] = r2 * (u->l2p_grad * w->l2p_grad + u->l2p_vel * w->l2p_vel);
  t_ms[6] = u->p2p_grad * w->p2p_grad + u->p2p_vel * w->p2p_vel + u->p2p_nbr * w->p2p_nbr;
  t_ms[7] = u->other * w->other + u->level * w->level + u->call * w->call;
  double sum = 0.0;
  for (int k = 0; k < FMM_COST_PHASES; k++) sum += (t_ms[k] *= 1e-6); /* ns -> ms */
  return sum;
}

/* The root cube of io's points, as oct_build_cpu computes it. */
static int io_cube(const fmm_io *io, int pos_float, double lo[3], double *side) {
  double mn[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, mx[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (int set = 0; set < 2; set++) {
    const void *pos = set ? io->tgt_pos : io->src_pos;
    const int n = set ? io->n_tgt : io->n_src;
    for (size_t i = 0; i < 3 * (size_t)n; i++) {
      const double v = pos_float ? (double)((const float *)pos)[i] : ((const double *)pos)[i];
      if (!isfinite(v)) return -1;
      mn[i % 3] = fmin(mn[i % 3], v), mx[i % 3] = fmax(mx[i % 3], v);
    }
  }
  return oct_root_cube(mn, mx, lo, side);
}

static long long grad_targets(const fmm_params *P, int nt, int n_grad) {
  if (!P->gradient) return 0;
  return (n_grad > 0 && n_grad < nt) ? n_grad : nt;
}

int fmm_cost_work(const fmm_ctx *ctx, const fmm_io *io, int L, fmm_cost_units *work, char *err, size_t errlen) {
  if (io->on_device) return snprintf(err, errlen, "cost model: the points must be host arrays"), -1;
  if (L < 2 || L > FMM_COST_LMAX) return snprintf(err, errlen, "cost model: level %d outside 2..%d", L, FMM_COST_LMAX), -1;
  if (io->n_src <= 0 || io->n_tgt <= 0) return snprintf(err, errlen, "cost model: no sources or no targets"), -1;
  const int pf = ctx->prm.precision == VX_FLOAT;
  double lo[3], side;
  if (io_cube(io, pf, lo, &side)) return snprintf(err, errlen, "cost model: non-finite or too large coordinates"), -1;
  fmm_cost_stats s;
  if (fmm_cost_stats_build(io->src_pos, io->n_src, io->tgt_pos, io->n_tgt, pf, lo, side, L, &s))
    return snprintf(err, errlen, "cost model: out of memory for the level-%d histograms", L), -1;
  *work = fmm_cost_work_at(&s, L, grad_targets(&ctx->prm, io->n_tgt, io->n_grad));
  return 0;
}

double fmm_cost_predict(const fmm_ctx *ctx, const fmm_io *io, int L, double t_ms[FMM_COST_PHASES], char *err,
                        size_t errlen) {
  const fmm_cost_units *u = fmm_cost_table(ctx->prm.backend, ctx->prm.precision);
  if (!u)
    return snprintf(err, errlen, "cost model: no unit costs for %s %s", vx_backend_name(ctx->prm.backend),
                    ctx->prm.precision == VX_FLOAT ? "float" : "double"),
           -1.0;
  fmm_cost_units w;
  if (fmm_cost_work(ctx, io, L, &w, err, errlen)) return -1.0;
  return fmm_cost_phases(u, &w, ctx->prm.order, t_ms);
}

int fmm_cost_direct_pays(const fmm_ctx *ctx, long long ns, long long nt, long long nt_grad) {
  const fmm_cost_units *u = fmm_cost_table(ctx->prm.backend, ctx->prm.precision);
  if (!u || !(u->direct_grad > 0.0) || !(u->direct_vel > 0.0)) return 0;
  if (!ctx->prm.gradient) nt_grad = 0;
  const double direct = (double)ns * ((double)nt_grad * u->direct_grad + (double)(nt - nt_grad) * u->direct_vel);
  const double fmm_least = u->call + u->level + (u->tree_pt + u->other) * (double)(ns + nt);
  return direct < fmm_least;
}

int fmm_cost_pick_level(const fmm_cost_units *u, int p, const fmm_cost_stats *s, long long nt_grad, int lo_level,
                        int hi_level, double *t_ms) {
  if (lo_level < 2) lo_level = 2;
  if (hi_level > s->top) hi_level = s->top;
  int best = 0;
  double tbest = HUGE_VAL, t[FMM_COST_PHASES];
  for (int L = lo_level; L <= hi_level; L++) {
    const fmm_cost_units w = fmm_cost_work_at(s, L, nt_grad);
    const double tt = fmm_cost_phases(u, &w, p, t);
    if (tt < tbest) tbest = tt, best = L;
  }
  if (t_ms) *t_ms = best ? tbest : 0.0;
  return best;
}

int fmm_cost_best_level(const fmm_ctx *ctx, const fmm_cost_stats *s, int lo_level, int hi_level) {
  const fmm_cost_units *u = fmm_cost_table(ctx->prm.backend, ctx->prm.precision);
  if (!u) return 0;
  /* the octree's callback does not see fmm_io.n_grad: every target counts as a gradient target */
  const int L = fmm_cost_pick_level(u, ctx->prm.order, s, grad_targets(&ctx->prm, (int)s->nt, 0), lo_level, hi_level, NULL);
  /* the deepest level the statistics reach, where deeper candidates exist, may only be the edge of
   * what the model sees (2^24 rings: level 7 of the model against 8 of the leaf-size rule, 2.06x
   * slower, docs/BENCHMARKS.md): the leaf-size rule decides there */
  return hi_level > s->top && L == s->top ? 0 : L;
}

int fmm_cost_choose_level(const void *arg, const void *src_pos, int ns, const void *tgt_pos, int nt, int pos_float,
                          const double lo[3], double side, int lo_level, int hi_level) {
  const fmm_ctx *ctx = (const fmm_ctx *)arg;
  if (!fmm_cost_table(ctx->prm.backend, ctx->prm.precision) || ns <= 0 || nt <= 0) return 0;
  const int top = hi_level < FMM_COST_LMAX ? hi_level : FMM_COST_LMAX;
  if (lo_level > top) return 0;
  fmm_cost_stats s;
  if (fmm_cost_stats_build(src_pos, ns, tgt_pos, nt, pos_float, lo, side, top, &s)) return 0;
  return fmm_cost_best_level(ctx, &s, lo_level, hi_level);
}
