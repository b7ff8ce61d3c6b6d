/* test_twins.h — tests only: what the GPU/CPU twin tests set so that both backends build one tree:
 * the leaf-size rule (the GPU's default is the cost model), the CPU's leaf size, one floor on the
 * leaves (fmm_params.min_leaves; by default each backend takes its own parallel width, the GPU's SMs
 * or the CPU's threads, and may choose another level) and, for simulations, one kept-tree rule.
 * One home for the rule; test_vortex.h's vx_test_one_tree applies it to a simulation's parameters. */
#ifndef VX_TEST_TWINS_H
#define VX_TEST_TWINS_H

#include "fmm.h"

#define VX_TEST_MIN_LEAVES 132 /* the GPU's default on an H100 */
/* fmm_params.keep_move of both twins' simulations: the GPU's float default, so that the CPU runs the
 * kept-tree path too (its own default keeps none) */
#define VX_TEST_KEEP_MOVE FMM_KEEP_MOVE_FLOAT

static inline void vx_test_one_tree_fmm(fmm_params *p) {
  p->level_rule = FMM_LEVEL_RULE_LEAF;
  p->leaf_size = VX_LEAF_CPU;
  p->min_leaves = VX_TEST_MIN_LEAVES;
}

#endif
