/* fuzz_checkpoint.c — libFuzzer target: bytes as a checkpoint (vx_ckpt_load_mem, its meta asked for,
 * as the program's --restart does). Each input is loaded as given (the header checks) and, when it
 * has a full header, again with its header made to match (current version, payload size, FNV-1a
 * checksum), so that the payload's checks are reached. A load must fail with a one-line message or
 * give a state a run can continue (diag_every >= 1, a step >= 0, a finite time, ring indices in range).
 *
 * The mutator is structure-aware (LLVMFuzzerCustomMutator): half the time it sets one field of a
 * checkpoint of any version — a fixed field of its version's layout (io/checkpoint.h), a count, one
 * element's position, strength or ring — to a boundary value (0, ±1, the type's extremes, NaN, ±Inf,
 * a neighbour of the value) and recomputes the checksum, so that mutations reach the validation by
 * meaning; the other half it leaves to libFuzzer's byte mutations. An input that is no checkpoint is
 * now and then replaced by a valid current-version one that the target makes at start-up (a small
 * ring with tracers, saved by vx_ckpt_save). Seeds: the .ckpt files of tests/bad_inputs. Built and run by
 * scripts/fuzz.sh. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "scene.h"
#include "sim.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* ------------------------------------------------------------------ the layout */

enum { F_NAME, F_I32, F_I64, F_F64 };
typedef struct {
  int kind, since; /* the field's type, the first format version that has it */
} field;

/* One source of the dye release's state (io/checkpoint.c, put_dye): first, count, perturb_mode; centre,
 * axis, radius, perturb_amp, spread. A file holds 16 of them. */
#define DYE_SOURCE {F_I32, 6}, {F_I32, 6}, {F_I32, 6}, {F_F64, 6}, {F_F64, 6}, {F_F64, 6}, {F_F64, 6}, {F_F64, 6}, \
                   {F_F64, 6}, {F_F64, 6}, {F_F64, 6}, {F_F64, 6}
#define DYE_SOURCES_4 DYE_SOURCE, DYE_SOURCE, DYE_SOURCE, DYE_SOURCE

/* The payload's fixed fields in file order (io/checkpoint.c: put_meta, put_params, put_state, then
 * the two counts). */
static const field k_fields[] = {
    {F_NAME, 1}, {F_I64, 1}, {F_I64, 1}, {F_I64, 1},                               /* scene, seed, steps, diag_every */
    {F_I32, 1}, {F_I32, 1}, {F_I32, 1}, {F_I32, 1}, {F_I32, 1},                    /* backend precision order leaf kernel */
    {F_F64, 1}, {F_F64, 1}, {F_I32, 1}, {F_I32, 1}, {F_I32, 1},                    /* sigma dt integrator stretching direct */
    {F_I64, 1}, {F_F64, 1}, {F_I32, 1}, {F_I32, 1},                                /* tracers relax relax_every remesh_every */
    {F_F64, 1}, {F_F64, 1}, {F_F64, 1}, {F_F64, 1},                                /* remesh_h drop viscosity lcfl */
    {F_I32, 2}, {F_F64, 3}, {F_F64, 3}, {F_F64, 3}, {F_I32, 4}, {F_F64, 5},       /* conserve origin tracer_every coarsen */
    {F_F64, 6},                                                                    /* dye_release */
    {F_F64, 1}, {F_I64, 1}, {F_I32, 1}, {F_F64, 1}, {F_I32, 1}, {F_F64, 1}, {F_F64, 1}, /* t steps rings since.. amax0 gradu */
    {F_I64, 1}, {F_I32, 1}, {F_I32, 1}, {F_I32, 1}, {F_F64, 1}, {F_F64, 1}, {F_F64, 1}, /* remesh stats */
    {F_I32, 4}, {F_I32, 4}, {F_I32, 4}, {F_F64, 4},                                /* tracer step: m, steps, stage, h */
    {F_I64, 6}, {F_I64, 6}, {F_I32, 6},                                            /* dye: seed, released, sources */
    DYE_SOURCES_4, DYE_SOURCES_4, DYE_SOURCES_4, DYE_SOURCES_4,
    {F_I32, 1}, {F_I32, 1},                                                        /* n_elem, n_tracer */
};
#define N_FIELDS (sizeof k_fields / sizeof k_fields[0])

static size_t field_bytes(int kind) { return kind == F_NAME ? 64 : kind == F_I32 ? 4 : 8; }

static uint64_t get_le(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= (uint64_t)p[i] << (8 * i);
  return v;
}
static void put_le(uint8_t *p, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

/* A checkpoint's format version (1..VX_CKPT_VERSION) when b holds its header and fixed part, else 0;
 * at[] the payload offsets of the fields of that version (-1: not in it), *arrays where they end. */
static uint32_t layout(const uint8_t *b, size_t n, long at[N_FIELDS], size_t *arrays) {
  if (n < VX_CKPT_HEADER_BYTES || memcmp(b, VX_CKPT_MAGIC, 8)) return 0;
  uint32_t v = (uint32_t)get_le(b + 8, 4);
  if (v < 1 || v > VX_CKPT_VERSION) return 0;
  size_t o = 0;
  for (size_t i = 0; i < N_FIELDS; ++i) {
    at[i] = k_fields[i].since <= (int)v ? (long)o : -1;
    if (at[i] >= 0) o += field_bytes(k_fields[i].kind);
  }
  *arrays = o;
  return n - VX_CKPT_HEADER_BYTES >= o ? v : 0;
}

/* The header made to match the n-byte file's payload (version kept when keep_version). */
static void fix_header(uint8_t *b, size_t n, int keep_version) {
  memcpy(b, VX_CKPT_MAGIC, 8);
  if (!keep_version) put_le(b + 8, VX_CKPT_VERSION, 4);
  put_le(b + 12, 0, 4);
  uint64_t pl = n - VX_CKPT_HEADER_BYTES;
  put_le(b + 16, pl, 8);
  put_le(b + 24, vx_ckpt_fnv1a(b + VX_CKPT_HEADER_BYTES, (size_t)pl), 8);
}

/* ------------------------------------------------------------------ a valid checkpoint */

static uint8_t *g_valid;
static size_t g_valid_n;

/* A small ring with tracers taken two steps, saved to a temporary file and read back. */
static void make_valid(void) {
  vx_scene sc;
  vx_scene_init(&sc);
  snprintf(sc.name, sizeof sc.name, "fuzz");
  sc.n_rings = 1;
  vx_ring_init(&sc.rings[0]);
  sc.rings[0].n_around = 8;
  sc.rings[0].tracers = 4;
  vx_sim_params p = vx_sim_params_from_scene(&sc);
  p.backend = VX_BACKEND_CPU;
  p.order = 4;
  p.tracer_every = 2;
  p.dye_release = 0.1;
  char err[512], path[] = "/tmp/fuzz_checkpoint_XXXXXX";
  vx_sim *s = vx_sim_create(&p, &sc, err, sizeof err);
  int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  vx_ckpt_meta m = {"fuzz", 1, 10, 1};
  if (s && fd >= 0 && !vx_sim_step(s, err, sizeof err) && !vx_ckpt_save(s, &m, path, err, sizeof err)) {
    FILE *f = fopen(path, "rb");
    g_valid = malloc(1 << 16);
    if (f && g_valid) g_valid_n = fread(g_valid, 1, 1 << 16, f);
    if (f) fclose(f);
  }
  if (fd >= 0) remove(path);
  if (s) vx_sim_destroy(s);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  make_valid();
  return 0;
}

/* ------------------------------------------------------------------ the target */

/* A load fails with one line, or gives what a run can continue from. */
static void load(const uint8_t *b, size_t n) {
  char err[512];
  vx_ckpt_meta m;
  err[0] = 0;
  vx_sim *s = vx_ckpt_load_mem(b, n, "fuzz", &m, err, sizeof err);
  if (!s) {
    if (!err[0] || strchr(err, '\n')) abort();
    return;
  }
  int ok = m.diag_every >= 1 && m.steps >= 0 && vx_sim_steps_done(s) >= 0 && isfinite(vx_sim_time(s)) && vx_sim_time(s) >= 0.0;
  const int *ring = vx_sim_rings(s);
  for (int i = 0; i < vx_sim_n_elements(s); ++i) ok &= ring[i] >= 0 && ring[i] < vx_sim_n_rings(s);
  vx_sim_destroy(s);
  if (!ok) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
  load(data, n);
  if (n < VX_CKPT_HEADER_BYTES) return 0;
  uint8_t *b = malloc(n);
  if (!b) return 0;
  memcpy(b, data, n);
  fix_header(b, n, 0);
  load(b, n);
  free(b);
  return 0;
}

/* ------------------------------------------------------------------ the structure-aware mutator */

static uint64_t next(uint64_t *r) { /* xorshift64* */
  *r ^= *r >> 12, *r ^= *r << 25, *r ^= *r >> 27;
  return *r * 0x2545F4914F6CDD1DULL;
}

static uint64_t int_value(uint64_t v, int bytes, uint64_t *r) {
  uint64_t s = bytes == 4 ? (uint64_t)(int64_t)(int32_t)v : v; /* wrapping neighbours: no signed overflow */
  const uint64_t pick[] = {0, 1, (uint64_t)-1, 2, 3, 4, 256, 257, INT_MAX, (uint64_t)(int64_t)INT_MIN, 1u << 30, (1u << 30) + 1,
                           LLONG_MAX, (uint64_t)LLONG_MIN, s + 1, s - 1, 0 - s, s * 2};
  size_t k = next(r) % (sizeof pick / sizeof pick[0] + 1);
  return k < sizeof pick / sizeof pick[0] ? pick[k] : next(r);
}

static uint64_t real_value(uint64_t v, uint64_t *r) {
  double d;
  memcpy(&d, &v, sizeof d);
  const double pick[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 1e300, -1e300, -1.0, 1.0, DBL_MIN, DBL_MAX, 1e-300, 1e-9, 1e3,
                         1e6, d * 2.0, -d, d * 0.5, nextafter(d, INFINITY), d * (1.0 + 1e-3)};
  size_t k = next(r) % (sizeof pick / sizeof pick[0] + 1);
  if (k == sizeof pick / sizeof pick[0]) return next(r);
  uint64_t u;
  memcpy(&u, &pick[k], sizeof u);
  return u;
}

/* One field of the checkpoint b (version v, fixed fields at at[], arrays from arrays) set to a
 * boundary value; the checksum recomputed. */
static void mutate_field(uint8_t *b, size_t n, const long at[N_FIELDS], size_t arrays, uint64_t *r) {
  uint8_t *pl = b + VX_CKPT_HEADER_BYTES;
  size_t pn = n - VX_CKPT_HEADER_BYTES;
  int ne = (int)get_le(pl + at[N_FIELDS - 2], 4), nt = (int)get_le(pl + at[N_FIELDS - 1], 4);
  size_t np = ne >= 0 && nt >= 0 ? 3 * ((size_t)ne + (size_t)nt) : 0, pick = next(r) % (N_FIELDS + 3);
  size_t off = 0;
  int kind = F_I32;
  if (pick < N_FIELDS) {
    if (at[pick] < 0) return;
    off = (size_t)at[pick], kind = k_fields[pick].kind;
  } else if (ne > 0) { /* an element's position coordinate, strength component or ring */
    size_t e = next(r) % (size_t)ne, c = next(r) % 3;
    off = pick == N_FIELDS ? arrays + 8 * (3 * e + c) : pick == N_FIELDS + 1 ? arrays + 8 * (np + 3 * e + c)
                                                                              : arrays + 8 * (np + 3 * (size_t)ne) + 4 * e;
    kind = pick == N_FIELDS + 2 ? F_I32 : F_F64;
  } else {
    return;
  }
  if (off + field_bytes(kind) > pn) return;
  uint8_t *p = pl + off;
  if (kind == F_NAME) p[next(r) % 64] = (uint8_t)(next(r) % 2 ? 0x1b : 'A' + next(r) % 26);
  else if (kind == F_F64) put_le(p, real_value(get_le(p, 8), r), 8);
  else put_le(p, int_value(get_le(p, (int)field_bytes(kind)), (int)field_bytes(kind), r), (int)field_bytes(kind));
  fix_header(b, n, 1);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  uint64_t r = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)seed << 1 | 1);
  long at[N_FIELDS];
  size_t arrays = 0;
  uint32_t v = layout(data, size, at, &arrays);
  if (!v && g_valid_n && g_valid_n <= max_size && next(&r) % 8 == 0) {
    memcpy(data, g_valid, g_valid_n);
    return g_valid_n;
  }
  if (!v || next(&r) % 2) return LLVMFuzzerMutate(data, size, max_size);
  int k = 1 + (int)(next(&r) % 3); /* one to three fields */
  for (int i = 0; i < k; ++i) mutate_field(data, size, at, arrays, &r);
  return size;
}
