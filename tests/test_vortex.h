/* test_vortex.h — tests only: inputs the vortex tests build in code. The leapfrog pair of rings
 * (test_vortex_conservation, _leapfrog, _longrun, _order), one default ring (test_vortex_checkpoint,
 * _conserve), and the tests' own random stream (the GPU twins' inputs, test_vortex_conserve and
 * _remesh). One home for each, so that a test's scene reads as what it changes from these. */
#ifndef VX_TEST_VORTEX_H
#define VX_TEST_VORTEX_H

#include <stdint.h>
#include <stdio.h>

#include "scene.h"
#include "sim.h"
#include "test_twins.h"

/* Two coaxial rings of radius 0.3 about the box's vertical centre line, at z = 0.425 (ring 0, the
 * rear) and 0.575 (ring 1): the leapfrog geometry; n_around elements each, the other ring fields
 * as vx_ring_init leaves them. */
static inline void vx_test_two_rings(vx_scene *sc, int n_around) {
  vx_scene_init(sc);
  sc->n_rings = 2;
  for (int r = 0; r < 2; ++r) {
    vx_ring_init(&sc->rings[r]);
    sc->rings[r].n_around = n_around;
    sc->rings[r].radius = 0.3;
    sc->rings[r].centre[2] = r ? 0.575 : 0.425;
  }
}

/* One ring as vx_ring_init leaves it but for n_around and tracers, in a scene named name. */
static inline void vx_test_one_ring(vx_scene *sc, const char *name, int n_around, int tracers) {
  vx_scene_init(sc);
  snprintf(sc->name, sizeof sc->name, "%s", name);
  sc->n_rings = 1;
  vx_ring_init(&sc->rings[0]);
  sc->rings[0].n_around = n_around;
  sc->rings[0].tracers = tracers;
}

/* The shipped merger scene cut to 2 x 64 stations (1024 elements) with `tracers` tracers, CPU,
 * double, order p, no remeshing or viscosity, the rest the scene's: *sc and *p to create it from.
 * 0, or -1 and err. */
static inline int vx_test_small_leapfrog_setup(vx_scene *sc, vx_sim_params *p, int order, int direct, int tracers,
                                               char *err, size_t errlen) {
  if (vx_scene_load(VX_ASSETS_DIR "/merger.scene", sc, err, errlen)) return -1;
  for (int r = 0; r < sc->n_rings; ++r) { /* 64 stations of 1 + 7 elements: the layout the thresholds were measured on */
    sc->rings[r].n_around = 64;
    sc->rings[r].layers = 1;
    sc->rings[r].layer_points = 7;
  }
  *p = vx_sim_params_from_scene(sc);
  p->backend = VX_BACKEND_CPU;
  p->precision = VX_DOUBLE;
  p->order = order;
  p->tracers = tracers;
  p->remesh_every = 0;
  p->viscosity = 0.0;
  p->direct = direct;
  return 0;
}

/* That run with 4096 tracers in every call (the scene's particles as generated): the evaluation-level
 * tests' small run (test_vortex_accuracy, test_vortex_passive). NULL and err on failure. */
static inline vx_sim *vx_test_small_leapfrog(int order, int direct, char *err, size_t errlen) {
  vx_scene sc;
  vx_sim_params p;
  if (vx_test_small_leapfrog_setup(&sc, &p, order, direct, 4096, err, errlen)) return NULL;
  p.tracer_every = 1; /* every call holds the tracers: the tests of one evaluation read them all */
  return vx_sim_create(&p, &sc, err, errlen);
}

/* The tests' random stream: a 64-bit LCG (Knuth's MMIX constants) on *state, uniform in [0, 1).
 * Not vx_rng_uniform (splitmix64): the thresholds of the tests that use it were measured on these
 * numbers. */
static inline double vx_test_lcg01(uint64_t *state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*state >> 11) * 0x1.0p-53;
}

/* GPU/CPU twins compare one tree (test_twins.h): a simulation's parameters. */
static inline void vx_test_one_tree(vx_sim_params *p) {
  p->level_rule = FMM_LEVEL_RULE_LEAF;
  p->leaf_size = VX_LEAF_CPU;
  p->min_leaves = VX_TEST_MIN_LEAVES;
  p->keep_move = VX_TEST_KEEP_MOVE;
}

/* The same stream, uniform in [-1, 1). */
static inline double vx_test_lcg11(uint64_t *state) { return vx_test_lcg01(state) * 2.0 - 1.0; }

#endif
