/* bench_calibrate.c — vortexfmm-bench --calibrate and --refit (bench.h): whole evaluations timed at
 * a few sizes and levels, the cost model's unit costs (fmm/cost.c, docs/MATH.md section 11) fitted
 * to them by non-negative least squares, and printed as a cost file that --cost-file reads. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench.h"

/* Non-negative least squares (Lawson and Hanson's active set): x >= 0 minimising |A x - b|, A n×k
 * row-major (k <= CAL_MAX_UNITS). The sub-problems by the normal equations, columns scaled to unit
 * norm; a column of zeros gets 0. */
#define CAL_MAX_UNITS 16
static int cal_solve(int n, int k, const double *A, const double *b, const int *P, int m, double *z) {
  double M[CAL_MAX_UNITS][CAL_MAX_UNITS + 1];
  for (int a = 0; a < m; a++) {
    for (int c = 0; c < m; c++) {
      double s = 0;
      for (int i = 0; i < n; i++) s += A[i * k + P[a]] * A[i * k + P[c]];
      M[a][c] = s;
    }
    double r = 0;
    for (int i = 0; i < n; i++) r += A[i * k + P[a]] * b[i];
    M[a][m] = r;
  }
  for (int a = 0; a < m; a++) { /* Gauss–Jordan, partial pivoting */
    int piv = a;
    for (int r = a + 1; r < m; r++)
      if (fabs(M[r][a]) > fabs(M[piv][a])) piv = r;
    for (int q = 0; q <= m; q++) {
      const double t = M[a][q];
      M[a][q] = M[piv][q], M[piv][q] = t;
    }
    if (M[a][a] == 0) return -1;
    for (int r = 0; r < m; r++) {
      if (r == a) continue;
      const double f = M[r][a] / M[a][a];
      for (int q = a; q <= m; q++) M[r][q] -= f * M[a][q];
    }
  }
  for (int a = 0; a < m; a++) z[a] = M[a][m] / M[a][a];
  return 0;
}

static void cal_nnls(int n, int k, double *A, const double *b, double *x) {
  double scale[CAL_MAX_UNITS], w[CAL_MAX_UNITS], z[CAL_MAX_UNITS];
  int inP[CAL_MAX_UNITS] = {0}, P[CAL_MAX_UNITS], m = 0;
  for (int j = 0; j < k; j++) {
    double s = 0;
    for (int i = 0; i < n; i++) s += A[i * k + j] * A[i * k + j];
    scale[j] = s > 0 ? 1.0 / sqrt(s) : 0;
    for (int i = 0; i < n; i++) A[i * k + j] *= scale[j];
    x[j] = 0;
  }
  for (int outer = 0; outer < 4 * k; outer++) {
    int jmax = -1;
    for (int j = 0; j < k; j++) { /* the gradient A^T (b - A x) outside the passive set */
      double g = 0;
      for (int i = 0; i < n; i++) {
        double r = b[i];
        for (int q = 0; q < k; q++) r -= A[i * k + q] * x[q];
        g += A[i * k + j] * r;
      }
      w[j] = g;
      if (!inP[j] && scale[j] > 0 && g > 1e-12 && (jmax < 0 || g > w[jmax])) jmax = j;
    }
    if (jmax < 0) break;
    inP[jmax] = 1, P[m++] = jmax;
    for (int inner = 0; inner < 4 * k; inner++) {
      if (cal_solve(n, k, A, b, P, m, z)) { inP[P[--m]] = 0; break; } /* singular: drop the newcomer */
      double alpha = 2;
      for (int a = 0; a < m; a++)
        if (z[a] <= 0) alpha = fmin(alpha, x[P[a]] / (x[P[a]] - z[a]));
      if (alpha >= 1) {
        for (int a = 0; a < m; a++) x[P[a]] = z[a];
        break;
      }
      int m2 = 0;
      for (int a = 0; a < m; a++) {
        x[P[a]] += alpha * (z[a] - x[P[a]]);
        if (x[P[a]] > 1e-15) P[m2++] = P[a];
        else x[P[a]] = 0, inP[P[a]] = 0;
      }
      m = m2;
    }
  }
  for (int j = 0; j < k; j++) x[j] *= scale[j];
}

#define CAL_MAX_RUNS 160
#define CAL_MAX_ROWS (3 * CAL_MAX_RUNS) /* the totals and the differences within groups of at most three */

/* --calibrate's runs: per run the work counts, the measured phase medians and total (ms), the
 * level and the point set. */
typedef struct {
  fmm_cost_units work[CAL_MAX_RUNS];
  double meas[CAL_MAX_RUNS][FMM_COST_PHASES], total[CAL_MAX_RUNS];
  int lev[CAL_MAX_RUNS], n;
  vx_dist dist[CAL_MAX_RUNS];
  vx_backend backend;           /* the backend the runs resolved to */
} cal_runs;

/* One calibration point set of n points: double, and the run's arrays (float copies or the same). */
typedef struct {
  double *pos, *str;
  void *rpos, *rstr, *vel, *grad;
  int is_float;
} cal_points;

static void cal_points_free(cal_points *c) {
  if (c->is_float) free(c->rpos), free(c->rstr);
  free(c->pos), free(c->str), free(c->vel), free(c->grad);
  int f = c->is_float;
  memset(c, 0, sizeof *c);
  c->is_float = f;
}

static int cal_points_make(const bench_opts *o, vx_dist d, int n, cal_points *c) {
  cal_points_free(c);
  const size_t m = 3 * (size_t)n, es = c->is_float ? sizeof(float) : sizeof(double);
  if (!(c->pos = xcalloc(m, sizeof(double), "positions")) || !(c->str = xcalloc(m, sizeof(double), "strengths"))) return -1;
  vx_pointset(d, n, o->seed, c->pos, c->str);
  c->rpos = c->pos, c->rstr = c->str;
  if (c->is_float) {
    c->rpos = c->rstr = NULL;
    if (!(c->rpos = xcalloc(m, sizeof(float), "positions")) || !(c->rstr = xcalloc(m, sizeof(float), "strengths"))) return -1;
    for (size_t i = 0; i < m; i++) ((float *)c->rpos)[i] = (float)c->pos[i], ((float *)c->rstr)[i] = (float)c->str[i];
  }
  if (!(c->vel = xcalloc(m, es, "velocities")) || !(c->grad = xcalloc(3 * m, es, "gradients"))) return -1;
  return 0;
}

/* One calibration run: n points at level L (0: the leaf-size rule's, into *L), gradient g; with R,
 * its phase and total medians and work counts into R. */
static int cal_run(const bench_opts *o, const fmm_params *base, const cal_points *c, int n, int *L, int g, fmm_stats *st,
                   double *tv, cal_runs *R) {
  char err[512];
  fmm_params p = *base;
  p.levels = *L, p.level_rule = FMM_LEVEL_RULE_LEAF, p.gradient = g, p.verbose = 0; /* base->backend: resolved by calibrate */
  fmm_ctx *ctx = fmm_create(&p, err, sizeof err);
  int rc = ctx ? 0 : -1;
  fmm_io io = {.n_src = n, .src_pos = c->rpos, .src_str = c->rstr, .n_tgt = n, .tgt_pos = c->rpos, .vel = c->vel,
               .grad = g ? c->grad : NULL, .on_device = 0};
  if (ctx && !o->quiet && R) fprintf(stderr, "calibrate: n=%d level %d gradient %s...\n", n, *L, g ? "on" : "off");
  const int reps = R ? o->repeat : 1;
  for (int r = -1; r < reps && rc == 0; r++) {
    fmm_stats w;
    rc = fmm_evaluate(ctx, &io, r < 0 ? &w : &st[r], err, sizeof err);
  }
  if (rc == 0 && !R) *L = st[0].levels;
  if (rc == 0 && R) {
    double *m = R->meas[R->n];
    for (int k = 0; k < N_PHASES; k++) {
      for (int r = 0; r < reps; r++) {
        double t[N_PHASES];
        phase_times(&st[r], t);
        tv[r] = t[k];
      }
      const double med = median(tv, reps);
      if (k < 7) m[k] = med;
      if (k == 7) R->total[R->n] = med;
    }
    m[7] = R->total[R->n] - (m[0] + m[1] + m[2] + m[3] + m[4] + m[5] + m[6]);
    if (m[7] < 0) m[7] = 0; /* the GPU's near field runs beside its far field */
    rc = fmm_cost_work(ctx, &io, *L, &R->work[R->n], err, sizeof err);
  }
  if (rc) fprintf(stderr, PROG ": %s\n", err);
  else if (R) R->lev[R->n++] = *L, R->backend = fmm_get_params(ctx)->backend;
  fmm_destroy(ctx);
  return rc ? -1 : 0;
}

/* The runs [i, end) of one point set and gradient setting (calibrate times them one after another):
 * the index past them. */
static int cal_group_end(const cal_runs *R, int i) {
  int j = i;
  while (j < R->n && R->dist[j] == R->dist[i] && R->work[j].p2m == R->work[i].p2m &&
         (R->work[j].l2p_grad > 0) == (R->work[i].l2p_grad > 0))
    j++;
  return j;
}

/* The relative residuals of the units u over the runs into res; their rms over the runs in use. */
static double cal_residuals(const cal_runs *R, const fmm_cost_units *u, const int *use, double *res) {
  double e2 = 0;
  int n = 0;
  for (int i = 0; i < R->n; i++) {
    double t[FMM_COST_PHASES];
    res[i] = fmm_cost_phases(u, &R->work[i], u->order, t) / R->total[i] - 1;
    if (use[i]) e2 += res[i] * res[i], n++;
  }
  return sqrt(e2 / (n > 0 ? n : 1));
}

/* One row of the fit: the units' work of run i (minus run j's when j >= 0) over d, and its time. */
static void cal_row(const cal_runs *R, const int *cols, int k, int i, int j, double d, double *a, double *b) {
  fmm_cost_units wi = R->work[i], wj;
  if (j >= 0) wj = R->work[j];
  for (int c = 0; c < k; c++) a[c] = (*fmm_cost_unit(&wi, cols[c]) - (j >= 0 ? *fmm_cost_unit(&wj, cols[c]) : 0)) / (1e6 * d);
  *b = (R->total[i] - (j >= 0 ? R->total[j] : 0)) / d;
}

/* One non-negative least-squares fit over the runs in use: each run's total (relative residuals: each
 * run weighs alike, small and large), and each difference between two levels of one point set and
 * gradient setting, relative to the larger total (the choice goes by those differences; without
 * them the units of nearly equal fits choose differently where levels cost nearly alike). Every unit
 * but `other`, whose work (sources + targets) is tree_pt's. */
static fmm_cost_units cal_nnls_fit(const cal_runs *R, int order, const int *use) {
  fmm_cost_units u;
  memset(&u, 0, sizeof u);
  u.order = order;
  int cols[CAL_MAX_UNITS], k = 0, n = 0;
  for (int j = 0; fmm_cost_unit(&u, j); j++) /* the direct sum's units: timed on their own (cal_direct) */
    if (fmm_cost_unit(&u, j) != &u.other && fmm_cost_unit(&u, j) != &u.direct_grad && fmm_cost_unit(&u, j) != &u.direct_vel)
      cols[k++] = j;
  static double A[CAL_MAX_ROWS * CAL_MAX_UNITS], b[CAL_MAX_ROWS];
  double x[CAL_MAX_UNITS];
  for (int i = 0; i < R->n; i++) {
    if (!use[i]) continue;
    cal_row(R, cols, k, i, -1, R->total[i], &A[n * k], &b[n]), n++;
    for (int j = i + 1; j < cal_group_end(R, i); j++)
      if (use[j] && n < CAL_MAX_ROWS) cal_row(R, cols, k, i, j, fmax(R->total[i], R->total[j]), &A[n * k], &b[n]), n++;
  }
  cal_nnls(n, k, A, b, x);
  for (int c = 0; c < k; c++) *fmm_cost_unit(&u, cols[c]) = x[c];
  return u;
}

/* The unit costs in ns per unit of work, fitted to whole evaluations (the GPU runs its near field
 * beside the far field, so its phases do not add up to the evaluation, docs/MATH.md §11); once again
 * without the runs more than three times the rms off (a disturbed measurement), at most a tenth. */
static fmm_cost_units cal_fit(const cal_runs *R, int order) {
  static int use[CAL_MAX_RUNS];
  static double res[CAL_MAX_RUNS];
  for (int i = 0; i < R->n; i++) use[i] = R->total[i] > 0;
  fmm_cost_units u = cal_nnls_fit(R, order, use);
  const double rms = cal_residuals(R, &u, use, res);
  int drop = 0;
  for (int i = 0; i < R->n; i++) drop += fabs(res[i]) > 3 * rms;
  if (drop == 0 || 10 * drop > R->n) return u;
  for (int i = 0; i < R->n; i++) use[i] = use[i] && !(fabs(res[i]) > 3 * rms);
  return cal_nnls_fit(R, order, use);
}

/* The units' choices on the calibration runs themselves, printed: per point set and gradient setting,
 * the measured total at the level of least predicted total against the least measured one. */
static void cal_print_choices(const cal_runs *R, const fmm_cost_units *u) {
  int sets = 0, hits = 0;
  double worst = 1;
  for (int i = 0; i < R->n; i = cal_group_end(R, i)) {
    double tb = HUGE_VAL, tp = HUGE_VAL, tm = 0;
    for (int j = i; j < cal_group_end(R, i); j++) {
      double t[FMM_COST_PHASES];
      const double p = fmm_cost_phases(u, &R->work[j], u->order, t);
      tb = fmin(tb, R->total[j]);
      if (p < tp) tp = p, tm = R->total[j];
    }
    sets++, hits += tm <= tb, worst = fmax(worst, tm / tb);
  }
  printf("# choices on these runs: the least measured level in %d of %d sets, the worst %.3f x its time\n", hits, sets,
         worst);
}

/* The device the calibration ran on, in words. */
static void cal_device(vx_backend b, char *dev, size_t len) {
  if (b == VX_BACKEND_CUDA) {
    char name[256] = "";
    vx_cuda_available(name, sizeof name);
    snprintf(dev, len, "cuda, %s, evaluations as they run (near field beside the far field)", name[0] ? name : "device");
    return;
  }
#ifdef _OPENMP
  snprintf(dev, len, "cpu, %d threads", omp_get_max_threads());
#else
  snprintf(dev, len, "cpu, 1 thread");
#endif
}

/* The cost file on stdout: a header, each run's measured and refitted total as comments, the units
 * as a cost-file line, and the same units as fmm/cost.c's table initializer (a comment, to paste). */
static void cal_print(const bench_opts *o, const fmm_params *base, const cal_runs *R, const fmm_cost_units *u) {
  char line[1024], dev[320];
  cal_device(R->backend, dev, sizeof dev);
  printf("# vortexfmm cost units (ns of wall time per unit of work; docs/MATH.md section 11)\n");
  printf("# written by " PROG " --calibrate: %s, uniform and rings, order %d, repeat %d (medians), leaf %d, seed %llu, "
         "kernel %s sigma %g (the direct sum's units are this kernel's)\n",
         dev, base->order, o->repeat, fmm_leaf_size(base), (unsigned long long)o->seed, vx_kernel_name(base->kernel),
         base->sigma);
  printf("# run: n dist level gradient | measured total ms | model total ms with these units\n");
  double e2 = 0, emax = 0;
  for (int i = 0; i < R->n; i++) {
    double pm[FMM_COST_PHASES];
    const double tp = fmm_cost_phases(u, &R->work[i], base->order, pm), e = tp / R->total[i] - 1;
    e2 += e * e, emax = fmax(emax, fabs(e));
    printf("# %8.0f %-7s %d %s | %10.3f | %10.3f\n", R->work[i].p2m, vx_dist_name(R->dist[i]), R->lev[i],
           R->work[i].l2p_grad > 0 ? "on " : "off", R->total[i], tp);
  }
  printf("# model against measured: rms %.1f %%, largest %.1f %% of the measured total (%d runs)\n",
         100 * sqrt(e2 / (R->n > 0 ? R->n : 1)), 100 * emax, R->n);
  cal_print_choices(R, u);
  printf("# fmm/cost.c cost_tab[%d][%d] (%s %s): {%d", R->backend == VX_BACKEND_CUDA, o->precision == VX_FLOAT,
         vx_backend_name(R->backend), o->precision == VX_FLOAT ? "float" : "double", u->order);
  fmm_cost_units c = *u;
  for (int j = 0; fmm_cost_unit(&c, j); j++) printf(", %.4g", *fmm_cost_unit(&c, j));
  printf("}\n");
  fmm_cost_format(line, sizeof line, R->backend, o->precision, u);
  printf("%s\n", line);
  fflush(stdout);
}

/* One size of the calibration: each point set at the leaf-size rule's level and one either side
 * (within what the model's histograms reach), with and without gradients. 0 or -1. */
static int cal_size(const bench_opts *o, const fmm_params *base, cal_points *c, int n, fmm_stats *st, double *tv,
                    cal_runs *R) {
  static const vx_dist dists[2] = {VX_DIST_UNIFORM, VX_DIST_RINGS};
  for (int d = 0; d < 2; d++) {
    if (cal_points_make(o, dists[d], n, c)) return -1;
    int Lr = 0;
    if (cal_run(o, base, c, n, &Lr, 1, st, tv, NULL)) return -1;
    for (int g = 1; g >= 0; g--)
      for (int L = Lr - 1 < 2 ? 2 : Lr - 1; L <= Lr + 1 && L <= FMM_COST_LMAX && R->n < CAL_MAX_RUNS; L++) {
        R->dist[R->n] = dists[d];
        if (cal_run(o, base, c, n, &L, g, st, tv, R)) return -1;
      }
  }
  return 0;
}

/* The direct sum's units (ns a pair): fmm_direct over CAL_DIRECT_N uniform points, with and without
 * the gradient, median of --repeat after a warm-up. 0 or -1. */
#define CAL_DIRECT_N 8192
static int cal_direct(const bench_opts *o, const fmm_params *base, cal_points *c, double *tv, fmm_cost_units *u) {
  const int n = CAL_DIRECT_N;
  if (cal_points_make(o, VX_DIST_UNIFORM, n, c)) return -1;
  for (int g = 1; g >= 0; g--) {
    char err[512];
    fmm_params p = *base;
    p.gradient = g, p.verbose = 0;
    fmm_ctx *ctx = fmm_create(&p, err, sizeof err);
    int rc = ctx ? 0 : -1;
    fmm_io io = {.n_src = n, .src_pos = c->rpos, .src_str = c->rstr, .n_tgt = n, .tgt_pos = c->rpos, .vel = c->vel,
                 .grad = g ? c->grad : NULL};
    if (ctx && !o->quiet) fprintf(stderr, "calibrate: the direct sum, n=%d gradient %s...\n", n, g ? "on" : "off");
    for (int r = -1; r < o->repeat && rc == 0; r++) {
      fmm_stats w;
      rc = fmm_direct(ctx, &io, &w, err, sizeof err);
      if (r >= 0) tv[r] = w.t_total;
    }
    fmm_destroy(ctx);
    if (rc) return fprintf(stderr, PROG ": %s\n", err), -1;
    *(g ? &u->direct_grad : &u->direct_vel) = median(tv, o->repeat) * 1e6 / ((double)n * n);
  }
  return 0;
}

/* --calibrate: whole evaluations timed (median of --repeat after a warm-up) on uniform and rings
 * point sets of a few sizes, at the levels around the leaf-size one, with and without gradients;
 * unit costs fitted to the totals against the cost model's work counts (fmm_cost_work), the direct
 * sum's timed on their own (cal_direct); printed as a
 * cost file on stdout, with each run's measured and refitted total as comments. 0 or 1. */
int bench_calibrate(const bench_opts *o, const fmm_params *base) {
  /* the CPU's sizes take minutes; the GPU's small ones are where latency, not work, decides */
  static const int cpu_sizes[] = {1 << 14, 1 << 16, 0},
                   gpu_sizes[] = {1 << 14, 1 << 15, 1 << 16, 1 << 17, 1 << 18, 1 << 20, 1 << 22, 0};
  const vx_backend be = o->backend != VX_BACKEND_AUTO ? o->backend : vx_cuda_available(NULL, 0) ? VX_BACKEND_CUDA : VX_BACKEND_CPU;
  const int *sizes = be == VX_BACKEND_CUDA ? gpu_sizes : cpu_sizes;
  fmm_params resolved = *base; /* the backend's leaf size sets the levels timed */
  resolved.backend = be;
  base = &resolved;
  static cal_runs R; /* large: off the stack */
  cal_points c;
  memset(&R, 0, sizeof R);
  memset(&c, 0, sizeof c);
  c.is_float = o->precision == VX_FLOAT;
  int rc = 1;
  fmm_stats *st = xcalloc((size_t)o->repeat, sizeof(fmm_stats), "stats");
  double *tv = xcalloc((size_t)o->repeat, sizeof(double), "times");
  for (size_t si = 0; st && tv && sizes[si] > 0; si++)
    if (cal_size(o, base, &c, sizes[si], st, tv, &R)) goto out;
  if (st && tv) {
    fmm_cost_units u = cal_fit(&R, base->order);
    if (cal_direct(o, base, &c, tv, &u)) goto out;
    cal_print(o, base, &R, &u);
    rc = 0;
  }
out:
  cal_points_free(&c);
  free(st), free(tv);
  return rc;
}

/* One run line of a cost file ("#    16384 uniform 2 on  |      0.557 | ..."): its point set and
 * measured total into R's next run, its work counted on the points c (made anew when the set
 * changes). 1 when the line is a run, 0 when not, -1 on an error (said). */
static int refit_line(const bench_opts *o, const fmm_params *base, const char *line, cal_points *c, cal_runs *R) {
  int n, L;
  char d[16], g[8];
  double t;
  vx_dist dist;
  if (sscanf(line, "# %d %15s %d %7s | %lf", &n, d, &L, g, &t) != 5 || vx_dist_from_name(d, &dist) != 0) return 0;
  if (R->n == CAL_MAX_RUNS) return fprintf(stderr, PROG ": --refit: more than %d runs\n", CAL_MAX_RUNS), -1;
  const int fresh = R->n == 0 || R->dist[R->n - 1] != dist || (int)R->work[R->n - 1].p2m != n;
  if (fresh && cal_points_make(o, dist, n, c)) return -1;
  char err[512];
  fmm_params p = *base;
  p.backend = VX_BACKEND_CPU, p.levels = L, p.gradient = !strcmp(g, "on"), p.verbose = 0; /* counts only */
  fmm_ctx *ctx = fmm_create(&p, err, sizeof err);
  fmm_io io = {.n_src = n, .src_pos = c->rpos, .src_str = c->rstr, .n_tgt = n, .tgt_pos = c->rpos, .vel = c->vel,
               .grad = p.gradient ? c->grad : NULL};
  const int rc = !ctx || fmm_cost_work(ctx, &io, L, &R->work[R->n], err, sizeof err);
  fmm_destroy(ctx);
  if (rc) return fprintf(stderr, PROG ": --refit: %s\n", err), -1;
  R->total[R->n] = t, R->lev[R->n] = L, R->dist[R->n] = dist, R->n++;
  return 1;
}

/* --refit FILE: the runs of a --calibrate cost file fitted again by this program's fit (the backend from
 * its header), printed as --calibrate prints them, with the direct sum's units of the table in force
 * (the compiled-in one, or --cost-file's). 0 or 1. */
int bench_refit(const bench_opts *o, const fmm_params *base) {
  FILE *f = fopen(o->refit, "r");
  if (!f) return fprintf(stderr, PROG ": --refit: cannot open %s: %s\n", o->refit, strerror(errno)), 1;
  static cal_runs R;
  cal_points c;
  memset(&R, 0, sizeof R);
  memset(&c, 0, sizeof c);
  c.is_float = o->precision == VX_FLOAT;
  R.backend = VX_BACKEND_CPU;
  char line[1024];
  int rc = 0;
  while (rc >= 0 && fgets(line, sizeof line, f)) {
    if (strstr(line, "--calibrate: cuda")) R.backend = VX_BACKEND_CUDA;
    rc = refit_line(o, base, line, &c, &R);
  }
  fclose(f);
  cal_points_free(&c);
  if (rc < 0) return 1;
  if (R.n == 0) return fprintf(stderr, PROG ": --refit: no calibration runs in %s\n", o->refit), 1;
  fmm_cost_units u = cal_fit(&R, base->order), in_force;
  if (fmm_cost_get(R.backend, o->precision, &in_force) == 0) /* the runs do not time the direct sum */
    u.direct_grad = in_force.direct_grad, u.direct_vel = in_force.direct_vel;
  cal_print(o, base, &R, &u);
  return 0;
}
