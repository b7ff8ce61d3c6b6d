/* bench_report.c — vortexfmm-bench's output (bench.h): one result line per order, as a table row
 * (with a header saying what was run) or as a JSON object, and --dump's CSV of every point. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "accuracy.h" /* VX_ACC_SAMPLE */
#include "bench.h"

/* Minimal JSON object writer: one object per line. */
typedef struct {
  int first;
} json_line;

static void json_key(json_line *j, const char *k) {
  printf("%s\"%s\":", j->first ? "{" : ",", k);
  j->first = 0;
}
static void json_num(json_line *j, const char *k, double v) {
  json_key(j, k);
  if (isfinite(v)) printf("%.6g", v);
  else printf("null"); /* JSON has no nan/inf */
}
static void json_int(json_line *j, const char *k, long long v) {
  json_key(j, k);
  printf("%lld", v);
}
static void json_str(json_line *j, const char *k, const char *s) {
  json_key(j, k);
  putchar('"');
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if (*c == '"' || *c == '\\') printf("\\%c", *c);
    else if (*c < 0x20) printf("\\u%04x", *c);
    else putchar(*c);
  }
  putchar('"');
}

void print_json(const run_info *ri, int order, const run_result *r) {
  const bench_opts *o = ri->o;
  json_line j = {1};
  json_int(&j, "n", o->n);
  json_str(&j, "dist", vx_dist_name(o->dist));
  json_str(&j, "backend", ri->backend);
  json_str(&j, "device", ri->device);
  json_int(&j, "order", order);
  json_int(&j, "leaf", o->leaf);
  json_int(&j, "min_leaves", o->min_leaves);
  json_int(&j, "levels", r->levels);
  json_str(&j, "level_rule", o->levels ? "forced" : r->rule == FMM_LEVEL_RULE_COST ? "cost" : "leaf");
  json_str(&j, "reg", o->reg_correct == FMM_REG_CAP ? "cap" : o->reg_correct == FMM_REG_CORRECT ? "correct" : "auto");
  json_str(&j, "precision", o->precision == VX_FLOAT ? "float" : "double");
  json_str(&j, "kernel", vx_kernel_name(o->kernel));
  json_num(&j, "sigma", ri->sigma);
  json_key(&j, "gradient");
  printf(o->gradient ? "true" : "false");
  for (int p = 0; p < N_PHASES; p++) json_num(&j, phase_names[p], r->t[p]);
  if (o->moved > 0.0) {
    json_num(&j, "moved", o->moved);
    json_num(&j, "keep_move", o->keep_move);
    json_int(&j, "tree_kept", r->tree_kept);
    json_num(&j, "tree_moved", r->tree_moved);
  }
  json_num(&j, "r_cut", r->r_cut);
  json_num(&j, "reg_err", r->reg_err);
  if (ri->t_direct >= 0.0) {
    json_num(&j, "t_direct", ri->t_direct);
    json_str(&j, "direct_backend", ri->direct_backend);
  }
  if (o->vs_direct) json_num(&j, "speedup_vs_direct", ri->t_direct / r->t[7]);
  if (r->have_err) {
    json_num(&j, "err_vel", r->err_vel);
    json_num(&j, "err_grad", r->err_grad); /* null with --no-gradient */
    json_num(&j, "err_vel_p99", r->err_p99);
    json_num(&j, "err_vel_max", r->err_max);
    json_int(&j, "n_check", ri->n_check);
    json_str(&j, "ref_backend", ri->ref_backend);
  }
  if (r->have_pred) { /* the cost model's prediction at the level run (docs/MATH.md section 11) */
    static const char *const pk[FMM_COST_PHASES] = {"pred_tree", "pred_p2m", "pred_m2m", "pred_m2l",
                                                    "pred_l2l",  "pred_l2p", "pred_p2p", "pred_other"};
    for (int p = 0; p < FMM_COST_PHASES; p++) json_num(&j, pk[p], r->pred[p]);
    json_num(&j, "pred_total", r->pred_total);
  }
  if (r->have_ro) {
    json_num(&j, "readout_capture_ms", r->ro_capture);
    json_num(&j, "readout_snapshot_ms", r->ro_snapshot);
    json_num(&j, "readout_direct_ms", r->ro_direct);
    json_num(&j, "t_total_with_readout", r->ro_eval);
    json_num(&j, "readout_err_u_l2", r->ro_u_l2);
    json_num(&j, "readout_err_gu_l2", r->ro_g_l2);
  }
  json_str(&j, "m2l_kernel", r->m2l_kernel);
  if (!strcmp(ri->backend, "cuda")) {
    json_key(&j, "t_m2l_levels");
    for (int l = 2; l <= r->levels; ++l) printf("%s%.4g", l == 2 ? "[" : ",", r->t_m2l_level[l]);
    printf("]");
    json_key(&j, "m2l_fill");
    for (int l = 2; l <= r->levels; ++l) printf("%s%.3g", l == 2 ? "[" : ",", r->m2l_fill[l]);
    printf("]");
  }
  json_str(&j, "p2p_kernel", r->p2p_kernel);
  json_int(&j, "n_m2l", r->n_m2l);
  json_int(&j, "n_p2p", r->n_p2p);
  json_int(&j, "n_corr", r->n_corr);
  json_int(&j, "repeat", o->repeat);
  json_key(&j, "seed");
  printf("%llu}\n", (unsigned long long)o->seed);
  fflush(stdout);
}

void print_table_header(const run_info *ri) {
  const bench_opts *o = ri->o;
  printf("# " PROG ": n=%d dist=%s backend=%s device=\"%s\" precision=%s kernel=%s sigma=%g leaf=%d "
         "gradient=%s repeat=%d seed=%llu\n",
         o->n, vx_dist_name(o->dist), ri->backend, ri->device, o->precision == VX_FLOAT ? "float" : "double",
         vx_kernel_name(o->kernel), ri->sigma, o->leaf, o->gradient ? "on" : "off", o->repeat,
         (unsigned long long)o->seed);
  if (ri->n_check > 0)
    printf("# check: %d targets against direct summation in double on %s; errors relative to the rms "
           "reference speed\n",
           ri->n_check, ri->ref_backend);
  if (ri->t_direct >= 0.0) printf("# direct summation of all targets on %s: %.3f ms\n", ri->direct_backend, ri->t_direct);
  vx_backend be = VX_BACKEND_CPU;
  fmm_cost_units cu;
  vx_backend_from_name(ri->backend, &be);
  fmm_params rp = fmm_params_default(); /* the rule in force, as the engine resolves it */
  rp.backend = be, rp.precision = o->precision, rp.level_rule = o->level_rule;
  const int table = fmm_cost_get(be, o->precision, &cu) == 0, by_cost = table && fmm_level_rule(&rp) == FMM_LEVEL_RULE_COST;
  if (o->level_rule == FMM_LEVEL_RULE_COST && o->levels == 0 && !table)
    printf("# times in ms (medians); --level-rule cost asked, but %s %s has no cost table: the leaf-size rule chose\n",
           ri->backend, o->precision == VX_FLOAT ? "float" : "double");
  else
    printf("# times in ms (medians)%s\n", o->levels ? "" : by_cost ? "; level chosen by the cost model" : "; level by the leaf-size rule");
  printf("# 'model' rows: the cost model's predicted ms per phase at the level run (other = gather/scatter,\n"
         "# in total only)\n");
  if (o->kernel != VX_KERNEL_SINGULAR)
    printf("# p2p includes corr: the regularization corrections of pairs closer than r_cut that are not adjacent;\n"
           "# reg_err: the kernel's largest relative deviation from the singular one left to the far field\n");
  printf("%5s %3s %9s %9s %9s %9s %9s %9s %9s %9s %10s %12s %12s %9s %9s", "order", "lev", "tree", "p2m", "m2m", "m2l", "l2l",
         "l2p", "p2p", "corr", "total", "n_m2l", "n_p2p", "r_cut", "reg_err");
  if (ri->n_check > 0) printf(" %9s %9s %9s %9s", "err_vel", "err_grad", "err_p99", "err_max");
  if (o->vs_direct) printf(" %8s", "speedup");
  printf("\n");
}

void print_table_row(const run_info *ri, int order, const run_result *r) {
  printf("%5d %3d", order, r->levels);
  for (int p = 0; p < 7; p++) printf(" %9.3f", r->t[p]);
  printf(" %9.3f %10.3f %12lld %12lld %9.3g %9.2e", r->t[9], r->t[7], r->n_m2l, r->n_p2p, r->r_cut, r->reg_err);
  if (r->have_err) printf(" %9.2e %9.2e %9.2e %9.2e", r->err_vel, r->err_grad, r->err_p99, r->err_max);
  if (ri->o->vs_direct) printf(" %8.2f", ri->t_direct / r->t[7]);
  printf("  m2l=%s p2p=%s%s\n", r->m2l_kernel, r->p2p_kernel, r->level_capped ? "  (level capped)" : "");
  if (r->have_pred) { /* the cost model's prediction beside it: its error per phase is visible */
    printf("%5s %3d", "model", r->levels);
    for (int p = 0; p < 7; p++) printf(" %9.3f", r->pred[p]);
    printf(" %9s %10.3f  (other: %.3f)\n", "-", r->pred_total, r->pred[7]);
  }
  if (r->have_ro)
    printf("# readout (%d samples): capture %.3f ms on the host, snapshot %.4f ms on the main stream, direct sum %.3f ms "
           "off it; total %.3f ms with the readout in flight (%.3f without); its figure: u L2 %.2e, grad u L2 %.2e\n",
           VX_ACC_SAMPLE, r->ro_capture, r->ro_snapshot, r->ro_direct, r->ro_eval, r->t[7], r->ro_u_l2, r->ro_g_l2);
  fflush(stdout);
}

int write_dump(FILE *f, int n, const void *pos, const void *str, const void *vel, const void *grad, int is_float) {
  fprintf(f, "x,y,z,ax,ay,az,ux,uy,uz,g00,g01,g02,g10,g11,g12,g20,g21,g22\n");
  for (size_t i = 0; i < (size_t)n; i++) {
    for (int c = 0; c < 3; c++) fprintf(f, "%.17g,", elem(pos, 3 * i + c, is_float));
    for (int c = 0; c < 3; c++) fprintf(f, "%.17g,", elem(str, 3 * i + c, is_float));
    for (int c = 0; c < 3; c++) fprintf(f, "%.17g,", elem(vel, 3 * i + c, is_float));
    for (int c = 0; c < 9; c++) {
      const char *sep = c < 8 ? "," : "\n";
      int w = grad ? fprintf(f, "%.17g%s", elem(grad, 9 * i + c, is_float), sep) : fprintf(f, "nan%s", sep);
      if (w < 0) return -1;
    }
  }
  return ferror(f) ? -1 : 0;
}
