/* test_vortex_checkpoint.c — checkpoint and restart (vortex/checkpoint.h, vortexfmm --checkpoint-every /
 * --restart), CPU, a few seconds:
 *   (a) N steps straight through, and N/2 steps + checkpoint file + restart + N/2 steps, give
 *       bit-identical particle arrays, rings and diagnostics after every step, in double and float,
 *       on a ring that remeshes (every 3 steps, viscous: the element count changes), relaxes (every
 *       2 steps), splits steps into substeps (lcfl) and releases its dye continuously (dye_release),
 *       checkpointed between two remeshings;
 *   (b) a truncated file, a flipped payload byte, a wrong magic, a wrong version, trailing bytes,
 *       absurd counts (with a valid checksum) and a missing file are each refused by name; so are,
 *       behind a valid checksum, fields no run can have (diag_every 0, 2^31-1 rings, a negative
 *       ring index, a negative step, a NaN position, a dye source's negative radius), and a FIFO, in
 *       the library and in the program (exit 2), without blocking (an alarm() watchdog); files of the
 *       previous format versions load;
 *   (c) an unwritable checkpoint path is an error, in the library and in the program;
 *   (d) the program: --checkpoint-every then --restart reproduce the diagnostics rows of an
 *       uninterrupted run (all columns but the wall-clock ones), in double and float; a restart
 *       refuses a different --precision and --scene; a blow-up names the last good checkpoint.
 * Run: build/tests/test_vortex_checkpoint */
#define _POSIX_C_SOURCE 200809L /* popen, mkfifo */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint.h"
#include "diag.h"
#include "scene.h"
#include "sim.h"
#include "test_check.h"
#include "test_run.h"
#include "test_vortex.h"

#define N_STEPS 10

static char ck_path[1024];

/* One ring that remeshes, relaxes and substeps (the scene of the header). */
/* (a) again with the tracers' own step over 4 element steps, without substeps (each would end the
 * tracer step: their count changes) and at a third of the step (4·dt·max|∇u| within
 * VX_SIM_TRACER_LCFL: a span of 4), so that the checkpoint falls one element step into one */
static int tracer_every = 1;

static vx_sim *make_sim(vx_precision prec, char *err, size_t errlen) {
  vx_scene sc;
  vx_test_one_ring(&sc, "ckpt_ring", 32, 20);
  vx_sim_params p = vx_sim_params_from_scene(&sc);
  p.backend = VX_BACKEND_CPU;
  p.precision = prec;
  p.kernel = VX_KERNEL_GAUSS;
  p.sigma = 0.05;
  p.dt = tracer_every > 1 ? 0.01 : 0.03;
  p.integrator = VX_RK2;
  p.order = 6;
  p.leaf_size = 16;
  p.relax = 0.3;
  p.relax_every = 2;
  p.remesh_every = 3;
  p.remesh_drop = 1e-3;
  p.remesh_coarsen = 9.5; /* kept by the file; no field of these rings is 19 spacings wide */
  p.viscosity = 1e-3;
  p.lcfl = tracer_every > 1 ? 0.0 : 0.5;
  p.tracer_every = tracer_every;
  p.dye_release = 0.2; /* about 3 of the 20 tracers a step: each released at least once in N_STEPS */
  p.spread = 1.5;       /* kept by the file; remeshing on, so the cores do not spread */
  return vx_sim_create(&p, &sc, err, errlen);
}

/* What must match bit for bit after a step: the diagnostics (wall-clock times zeroed) and the step's counts. */
typedef struct {
  vx_diag d;
  int substeps, evaluations;
  double max_alpha, lcfl;
} row;

static int step_row(vx_sim *s, row *r, char *err, size_t errlen) {
  vx_health h;
  int rc = vx_sim_step(s, err, errlen);
  if (rc == 0) rc = vx_sim_health(s, &h, err, errlen);
  if (rc == 0) rc = vx_diag_compute(s, 1 << 20, &r->d, err, errlen);
  if (rc) return rc;
  r->substeps = vx_sim_last_stats(s)->substeps;
  r->evaluations = vx_sim_last_stats(s)->evaluations;
  memset(&r->d.stats, 0, sizeof r->d.stats);
  r->max_alpha = h.max_alpha;
  r->lcfl = h.lcfl;
  return 0;
}

/* The final state on the host: positions of [elements, tracers], strengths, rings. */
typedef struct {
  int ne, nt;
  double *pos, *alpha;
  int *ring;
} snapshot;

static int take(vx_sim *s, snapshot *q, char *err, size_t errlen) {
  q->ne = vx_sim_n_elements(s), q->nt = vx_sim_n_tracers(s);
  q->pos = malloc(sizeof(double) * 3 * (size_t)(q->ne + q->nt) + 1);
  q->alpha = malloc(sizeof(double) * 3 * (size_t)q->ne + 1);
  q->ring = malloc(sizeof(int) * (size_t)q->ne + 1);
  if (!q->pos || !q->alpha || !q->ring) { snprintf(err, errlen, "out of memory"); return -1; }
  memcpy(q->ring, vx_sim_rings(s), sizeof(int) * (size_t)q->ne);
  return vx_sim_get_elements(s, q->pos, q->alpha, err, errlen) || vx_sim_get_tracers(s, q->pos + 3 * (size_t)q->ne, err, errlen);
}

static void drop(snapshot *q) { free(q->pos), free(q->alpha), free(q->ring); }

/* (a) straight through vs. checkpoint + restart. */
static void bitwise_restart(vx_precision prec) {
  char err[512];
  row ra[N_STEPS], rb[N_STEPS];
  snapshot qa = {0}, qb = {0};
  memset(ra, 0, sizeof ra), memset(rb, 0, sizeof rb);
  vx_sim *a = make_sim(prec, err, sizeof err);
  if (!a) { FAIL("create: %s", err); return; }
  for (int k = 0; k < N_STEPS; ++k)
    if (step_row(a, &ra[k], err, sizeof err)) { FAIL("straight run, step %d: %s", k + 1, err); break; }
  if (take(a, &qa, err, sizeof err)) FAIL("straight run: %s", err);
  long long remeshings = vx_sim_remesh_stats(a)->count;
  vx_sim_destroy(a);

  vx_sim *b = make_sim(prec, err, sizeof err);
  if (!b) { FAIL("create: %s", err); drop(&qa); return; }
  for (int k = 0; k < N_STEPS / 2; ++k)
    if (step_row(b, &rb[k], err, sizeof err)) { FAIL("first half, step %d: %s", k + 1, err); break; }
  vx_ckpt_meta m = {"ckpt_ring", 7, N_STEPS, 1};
  vx_sim_state st;
  if (vx_sim_export_state(b, &st, err, sizeof err)) FAIL("state: %s", err);
  if (tracer_every > 1 && st.tr_steps == 0) FAIL("tracer_every %d: no tracer step under way at the checkpoint", tracer_every);
  if (vx_ckpt_save(b, &m, ck_path, err, sizeof err)) FAIL("save: %s", err);
  vx_sim_destroy(b);
  vx_ckpt_meta m2;
  memset(&m2, 0, sizeof m2);
  b = vx_ckpt_load(ck_path, &m2, err, sizeof err);
  if (!b) { FAIL("load: %s", err); drop(&qa); return; }
  if (strcmp(m2.scene, "ckpt_ring") || m2.seed != 7 || m2.steps != N_STEPS || m2.diag_every != 1)
    FAIL("meta came back as '%s' seed %llu steps %lld every %lld", m2.scene, (unsigned long long)m2.seed, m2.steps, m2.diag_every);
  if (vx_sim_steps_done(b) != N_STEPS / 2) FAIL("restart at step %lld, expected %d", vx_sim_steps_done(b), N_STEPS / 2);
  for (int k = N_STEPS / 2; k < N_STEPS; ++k)
    if (step_row(b, &rb[k], err, sizeof err)) { FAIL("second half, step %d: %s", k + 1, err); break; }
  if (take(b, &qb, err, sizeof err)) FAIL("restarted run: %s", err);
  vx_sim_destroy(b);

  int rows_bad = 0, subs = 0;
  for (int k = 0; k < N_STEPS; ++k) {
    subs = ra[k].substeps > subs ? ra[k].substeps : subs;
    if (memcmp(&ra[k], &rb[k], sizeof ra[k])) {
      ++rows_bad;
      FAIL("%s: step %d differs (max|alpha| %.17g vs %.17g, %d vs %d elements, %d vs %d substeps)", vx_precision_name(prec), k + 1,
           ra[k].max_alpha, rb[k].max_alpha, ra[k].d.n_elem, rb[k].d.n_elem, ra[k].substeps, rb[k].substeps);
    }
  }
  int same = qa.ne == qb.ne && qa.nt == qb.nt &&
             !memcmp(qa.pos, qb.pos, sizeof(double) * 3 * (size_t)(qa.ne + qa.nt)) &&
             !memcmp(qa.alpha, qb.alpha, sizeof(double) * 3 * (size_t)qa.ne) && !memcmp(qa.ring, qb.ring, sizeof(int) * (size_t)qa.ne);
  if (!same) FAIL("%s: final particle arrays differ (%d/%d vs %d/%d elements/tracers)", vx_precision_name(prec), qa.ne, qa.nt, qb.ne, qb.nt);
  if (tracer_every > 1)
    printf("(a) tracer_every %d, checkpointed %d element step(s) into a tracer step: %s\n", tracer_every, st.tr_steps,
           same && !rows_bad ? "the same to the bit" : "DIFFERENT");
  printf("(a) %s: %d steps straight vs %d + restart + %d: %s; %d elements at the end, %lld remeshings, up to %d substeps\n",
         vx_precision_name(prec), N_STEPS, N_STEPS / 2, N_STEPS / 2, same && !rows_bad ? "bit-identical" : "DIFFERENT", qa.ne,
         remeshings, subs);
  if (remeshings < 3 || (tracer_every == 1 && subs < 2) || ra[N_STEPS - 1].d.n_elem == ra[0].d.n_elem)
    FAIL("the scene does not exercise remeshing (%lld), substeps (%d) and a changing element count", remeshings, subs);
  drop(&qa), drop(&qb);
}

/* ------------------------------------------------------------------ (b), (c) refusals */

static unsigned char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  long sz = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
  unsigned char *b = sz >= 0 && !fseek(f, 0, SEEK_SET) ? malloc((size_t)sz + 1) : NULL;
  *n = b ? fread(b, 1, (size_t)sz, f) : 0;
  fclose(f);
  if (b && *n != (size_t)sz) { free(b); return NULL; }
  return b;
}

static void spit(const char *path, const unsigned char *b, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) { FAIL("cannot write %s", path); return; }
  int bad = fwrite(b, 1, n, f) != n;
  bad |= fclose(f) != 0;
  if (bad) FAIL("cannot write %s", path);
}

/* Loading the bytes must fail with a message naming the file and containing want. */
static void expect_refused(const char *what, const unsigned char *b, size_t n, const char *want) {
  char bad[1100], err[512];
  snprintf(bad, sizeof bad, "%s.bad", ck_path);
  if (b) spit(bad, b, n);
  else remove(bad);
  vx_ckpt_meta m;
  vx_sim *s = vx_ckpt_load(bad, &m, err, sizeof err);
  if (s) { FAIL("%s: loaded", what); vx_sim_destroy(s); }
  else if (!strstr(err, want) || !strstr(err, bad) || strchr(err, '\n')) FAIL("%s: message '%s' (wanted '%s' and the file name)", what, err, want);
  else printf("(b) %s refused: %s\n", what, err);
  remove(bad);
}

static void put32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static void put64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

/* b (n bytes, a current-version file) with bytes at off set to v, its checksum made to match,
 * must be refused with want. */
static void refuse_field(const char *what, const unsigned char *b, size_t n, size_t off, int bytes, uint64_t v, const char *want) {
  unsigned char *c = malloc(n);
  if (!c) { FAIL("out of memory"); return; }
  memcpy(c, b, n);
  if (bytes == 4) put32(c + off, (uint32_t)v);
  else put64(c + off, v);
  put64(c + 24, vx_ckpt_fnv1a(c + VX_CKPT_HEADER_BYTES, n - VX_CKPT_HEADER_BYTES));
  expect_refused(what, c, n, want);
  free(c);
}

/* The dye release's state, the last of the state (io/checkpoint.c, CK_DYE_BYTES): seed, count,
 * sources, then 16 slots of 3 i32 and 9 f64 (first, count, perturb_mode; centre, axis, radius,
 * perturb_amp, spread). */
#define DYE_BYTES (8 + 8 + 4 + 16 * (3 * 4 + 9 * 8))

/* Fields of a sound layout and checksum that no run can have, each refused by meaning. at: the
 * file offset of the counts (the state's 112 bytes and the dye's before them, the arrays after them). */
static void meaning_refusals(const unsigned char *b, size_t n, size_t at, int ne) {
  const size_t dye = at - DYE_BYTES, state = dye - 112, meta = VX_CKPT_HEADER_BYTES;
  uint64_t nan_bits = 0x7ff8000000000000ULL;
  refuse_field("diag_every 0", b, n, meta + 80, 8, 0, "diag_every 0 (expected an integer in 1..2147483647)");
  refuse_field("2^31-1 rings", b, n, state + 16, 4, 0x7fffffffu, "rings 2147483647 (expected an integer in 0..256)");
  refuse_field("a ring index out of range", b, n, n - 4 * (size_t)ne, 4, 1, "element 0's ring 1 (expected 0..0");
  refuse_field("a negative ring index", b, n, n - 4 * (size_t)ne + 4, 4, (uint32_t)-1, "element 1's ring -1 (expected 0..0");
  refuse_field("a negative step", b, n, state + 8, 8, (uint64_t)-1, "step -1 (expected an integer >= 0)");
  refuse_field("a NaN position", b, n, at + 8 + 8 * 4, 8, nan_bits, "element 1's position y nan (expected a finite number)");
  const double minus_one = -1.0;
  uint64_t minus_one_bits;
  memcpy(&minus_one_bits, &minus_one, sizeof minus_one_bits);
  refuse_field("a dye source's negative radius", b, n, dye + 20 + 12 + 6 * 8, 8, minus_one_bits,
               "dye source 0's radius -1 (expected a number in [1e-06, 1000])");
  refuse_field("a dye source's rows not from 0", b, n, dye + 20, 4, 3, "dye source 0's first tracer 3 (expected an integer in 0..0)");
}

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "test_vortex_checkpoint: FAIL: a FIFO as the checkpoint blocked (20 s)\n";
  if (write(2, msg, sizeof msg - 1) < 0) _exit(1);
  _exit(1);
}

static int run(const char *args);
static int expect(const char *args, int code, const char *text);

/* A FIFO (no writer) as the checkpoint: refused at once by name, by the library and (program: the
 * vortexfmm beside the tests is built) by --restart, exit 2. */
static void fifo_refused(int program) {
  char path[1100], err[512];
  snprintf(path, sizeof path, "%s/test_vortex_checkpoint.fifo", VX_BINARY_DIR);
  remove(path);
  if (mkfifo(path, 0600)) { FAIL("mkfifo %s failed", path); return; }
  signal(SIGALRM, on_alarm);
  alarm(20);
  vx_sim *s = vx_ckpt_load(path, NULL, err, sizeof err);
  if (s) { FAIL("a FIFO loaded"); vx_sim_destroy(s); }
  else if (!strstr(err, "not a regular file (a FIFO)") || !strstr(err, path)) FAIL("a FIFO: message '%s'", err);
  else printf("(b) a FIFO refused: %s\n", err);
  if (program && !expect("--headless --quiet --restart test_vortex_checkpoint.fifo", 2, "not a regular file (a FIFO)"))
    printf("(b) program: --restart FIFO refused (exit 2)\n");
  alarm(0);
  remove(path);
}

/* Older files load, each without the fields later versions added: version 7 spread (the last
 * parameter), version 6 dye_release (the one before it) and the dye release's state (the last of the
 * state), version 5 remesh_coarsen (the
 * parameter before it), version 4 tracer_every (the one before that) and the tracer step's counters
 * (before the dye's), version 3 the lattice origin (after conserve). They load with what such runs
 * had: the dye seeded once, a fixed lattice, tracer_every 1, the origin at 0. */
static size_t cut_spans(const unsigned char *b, size_t n, int version, unsigned char *c) {
  const size_t at = VX_CKPT_HEADER_BYTES + 64 + 3 * 8 + 108; /* meta; parameters up to conserve */
  const size_t origin = 24, every = 4, coarsen = 8, dye_release = 8, spread = 8, state = 92, tr = 20;
  const size_t state_at = at + origin + every + coarsen + dye_release + spread;
  size_t span_at[7], span_len[7], k = 0, m = 0, from = 0;
  if (version <= 2) span_at[k] = at, span_len[k++] = origin;
  if (version <= 3) span_at[k] = at + origin, span_len[k++] = every;
  if (version <= 4) span_at[k] = at + origin + every, span_len[k++] = coarsen;
  if (version <= 5) span_at[k] = at + origin + every + coarsen, span_len[k++] = dye_release;
  if (version <= 6) span_at[k] = at + origin + every + coarsen + dye_release, span_len[k++] = spread;
  if (version <= 3) span_at[k] = state_at + state, span_len[k++] = tr;
  if (version <= 5) span_at[k] = state_at + state + tr, span_len[k++] = DYE_BYTES;
  for (size_t i = 0; i < k; ++i) {
    memcpy(c + m, b + from, span_at[i] - from);
    m += span_at[i] - from, from = span_at[i] + span_len[i];
  }
  memcpy(c + m, b + from, n - from);
  return m + n - from;
}

static void older_version(const unsigned char *b, size_t n, int version) {
  unsigned char *c = malloc(n);
  if (!c) { FAIL("out of memory"); return; }
  size_t nc = cut_spans(b, n, version, c);
  put32(c + 8, (uint32_t)version);
  put64(c + 16, nc - VX_CKPT_HEADER_BYTES);
  put64(c + 24, vx_ckpt_fnv1a(c + VX_CKPT_HEADER_BYTES, nc - VX_CKPT_HEADER_BYTES));
  char path[1100], err[512];
  snprintf(path, sizeof path, "%s.v%d", ck_path, version);
  spit(path, c, nc);
  /* s5: the file as written, in the current version */
  vx_sim *s = vx_ckpt_load(path, NULL, err, sizeof err), *s5 = s ? vx_ckpt_load(ck_path, NULL, err, sizeof err) : NULL;
  if (!s || !s5) FAIL("a version-%d file: %s", version, err);
  else {
    const vx_sim_params *p = vx_sim_params_get(s), *p5 = vx_sim_params_get(s5);
    const double *o = p->remesh_origin, *o5 = p5->remesh_origin;
    int zero = o[0] == 0.0 && o[1] == 0.0 && o[2] == 0.0, kept = o[0] == o5[0] && o[1] == o5[1] && o[2] == o5[2];
    int every = version >= 4 ? p5->tracer_every : 1;
    double coarsen = version >= 5 ? p5->remesh_coarsen : 0.0;
    if (o5[0] == 0.0 || (version == 2 ? !zero : !kept) || p->tracer_every != every || p->remesh_coarsen != coarsen ||
        !(p5->remesh_coarsen > 0.0))
      FAIL("a version-%d file: origin %g %g %g (the current file's %g), tracer_every %d (expected %d), remesh_coarsen %g "
           "(expected %g)", version, o[0], o[1], o[2], o5[0], p->tracer_every, every, p->remesh_coarsen, coarsen);
    else if (p->spread != 0.0 || p5->spread != 1.5)
      FAIL("a version-%d file: spread %g (expected 0; the current file's %g, expected 1.5)", version, p->spread, p5->spread);
    else if (version <= 5 &&
             (p->dye_release != 0.0 || vx_sim_dye(s)->n_rings != 0 || !(p5->dye_release > 0.0) || vx_sim_dye(s5)->n_rings != 1))
      FAIL("a version-%d file: dye_release %g with %d sources (expected 0 and none; the current file's %g and %d)", version,
           p->dye_release, vx_sim_dye(s)->n_rings, p5->dye_release, vx_sim_dye(s5)->n_rings);
    else printf("(b) a version-%d file loads, tracer_every %d, the lattice origin %g %g %g, remesh_coarsen %g, the dye seeded "
                "once (the current version keeps %g %g %g, %g and dye_release %g)\n", version, p->tracer_every, o[0], o[1], o[2],
                p->remesh_coarsen, o5[0], o5[1], o5[2], p5->remesh_coarsen, p5->dye_release);
  }
  if (s) vx_sim_destroy(s);
  if (s5) vx_sim_destroy(s5);
  remove(path);
  free(c);
}

static void refusals(void) {
  char err[512];
  vx_sim *s = make_sim(VX_DOUBLE, err, sizeof err);
  if (!s) { FAIL("create: %s", err); return; }
  vx_ckpt_meta m = {"ckpt_ring", 1, 10, 1};
  int ne = vx_sim_n_elements(s), nt = vx_sim_n_tracers(s);
  if (vx_ckpt_save(s, &m, ck_path, err, sizeof err)) FAIL("save: %s", err);
  /* (c) an unwritable path: an error naming it, nothing left behind */
  const char *nowhere = "/nonexistent-dir-vortexfmm/run.ckpt";
  if (!vx_ckpt_save(s, &m, nowhere, err, sizeof err)) FAIL("saving to %s succeeded", nowhere);
  else if (!strstr(err, nowhere)) FAIL("unwritable path: message '%s' does not name it", err);
  else printf("(c) unwritable path: %s\n", err);
  vx_sim_destroy(s);

  size_t n = 0;
  unsigned char *b = slurp(ck_path, &n), *c = b ? malloc(n + 8) : NULL;
  if (!b || !c || n < 200) { FAIL("cannot read back %s", ck_path); free(b), free(c); return; }
  memcpy(c, b, n);
  expect_refused("a truncated file", c, n / 2, "truncated (expected");
  expect_refused("a 10-byte file", c, 10, "truncated (expected at least 32 bytes, found 10)");
  c[n / 2] ^= 0x10;
  expect_refused("a flipped byte", c, n, "checksum mismatch");
  memcpy(c, b, n);
  c[0] = 'X';
  expect_refused("a wrong magic", c, n, "bad magic");
  memcpy(c, b, n);
  put32(c + 8, 99);
  expect_refused("a wrong version", c, n, "format version 99, this program reads versions 1 to 7");
  memcpy(c, b, n);
  memset(c + n, 0, 8);
  expect_refused("trailing bytes", c, n + 8, "8 bytes after the end of the checkpoint");
  /* absurd counts behind a valid checksum: the counts sit just before the particle arrays */
  memcpy(c, b, n);
  size_t at = n - (8 * (3 * (size_t)(ne + nt) + 3 * (size_t)ne) + 4 * (size_t)ne) - 8;
  put32(c + at, 0x7fffffffu);
  put64(c + 24, vx_ckpt_fnv1a(c + VX_CKPT_HEADER_BYTES, n - VX_CKPT_HEADER_BYTES));
  expect_refused("absurd counts", c, n, "absurd particle counts (2147483647 elements");
  put32(c + at, (uint32_t)(ne + 1));
  put64(c + 24, vx_ckpt_fnv1a(c + VX_CKPT_HEADER_BYTES, n - VX_CKPT_HEADER_BYTES));
  expect_refused("counts that do not match the size", c, n, "does not match");
  meaning_refusals(b, n, at, ne);
  expect_refused("a missing file", NULL, 0, "cannot open");
  older_version(b, n, 6);
  older_version(b, n, 5);
  older_version(b, n, 4);
  older_version(b, n, 3);
  older_version(b, n, 2);
  free(b), free(c);
  remove(ck_path);
}

/* ------------------------------------------------------------------ (d) the program */

static char out[65536];

static int run(const char *args) { return vx_test_run_program("cd '" VX_BINARY_DIR "' &&", args, out, sizeof out); }

static int expect(const char *args, int code, const char *text) {
  int rc = run(args);
  if (rc != code || (text && !strstr(out, text))) {
    FAIL("'%s': exit %d (want %d), output:\n%s(wanted '%s')", args, rc, code, out, text ? text : "");
    return -1;
  }
  return 0;
}

/* The CSV's data rows with step > from, without the wall-clock columns (ms_*), one per line. */
static void csv_rows(const char *path, long long from, char *dst, size_t cap) {
  FILE *f = fopen(path, "r");
  dst[0] = 0;
  if (!f) return;
  char line[8192];
  int skip[256] = {0}, header = 0;
  size_t used = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#') continue;
    line[strcspn(line, "\n")] = 0;
    char *save = NULL, *tok = strtok_r(line, ",", &save);
    if (!header) { /* the column names: mark the wall-clock ones */
      for (int c = 0; tok && c < 256; ++c, tok = strtok_r(NULL, ",", &save)) skip[c] = !strncmp(tok, "ms_", 3);
      header = 1;
      continue;
    }
    if (!tok || atoll(tok) <= from) continue;
    for (int c = 0; tok && c < 256; ++c, tok = strtok_r(NULL, ",", &save))
      if (!skip[c]) used += (size_t)snprintf(dst + used, used < cap ? cap - used : 0, "%s,", tok);
    used += (size_t)snprintf(dst + used, used < cap ? cap - used : 0, "\n");
  }
  fclose(f);
}

static void program(const char *prec) {
  static char full[65536], half[65536], rest[65536], want_first[65536];
  char scene[1100], args[4096];
  snprintf(scene, sizeof scene, "%s/test_vortex_checkpoint.scene", VX_BINARY_DIR);
  FILE *f = fopen(scene, "w");
  if (!f) { FAIL("cannot write %s", scene); return; }
  int bad = fprintf(f, "name = ckpt_cli\nkernel = gauss\nsigma = 0.05\ndt = 0.03\nbackend = cpu\nintegrator = rk2\norder = 6\n"
             "leaf_size = 16\nrelax = 0.3\nrelax_every = 2\nremesh_every = 3\nremesh_h = 0\nremesh_coarsen = 0\nconserve = off\n"
             "viscosity = 0.001\nlcfl = 0.5\ndye_release = 0.15\nsteps = 10\ndiag_every = 1\n[ring]\nn_around = 32\nlayers = 0\n"
             "tracers = 20\n") < 0;
  bad |= fclose(f) != 0;
  if (bad) { FAIL("cannot write %s", scene); return; }
  remove("ckpt_cli.ckpt");
  snprintf(args, sizeof args, "--headless --quiet --scene '%s' --precision %s --diag full.csv", scene, prec);
  if (expect(args, 0, NULL)) return;
  /* the first half with the default checkpoint name, <scene>.ckpt in the current directory */
  snprintf(args, sizeof args, "--headless --quiet --scene '%s' --precision %s --steps 5 --checkpoint-every 2 --diag half.csv", scene, prec);
  if (expect(args, 0, NULL)) return;
  snprintf(args, sizeof args, "--headless --restart ckpt_cli.ckpt --precision %s --steps 10 --diag rest.csv", prec);
  if (expect(args, 0, "done: 5 steps")) return;
  char p_full[1100], p_half[1100], p_rest[1100];
  snprintf(p_full, sizeof p_full, "%s/full.csv", VX_BINARY_DIR);
  snprintf(p_half, sizeof p_half, "%s/half.csv", VX_BINARY_DIR);
  snprintf(p_rest, sizeof p_rest, "%s/rest.csv", VX_BINARY_DIR);
  csv_rows(p_full, 5, full, sizeof full);
  csv_rows(p_rest, -1, rest, sizeof rest);
  csv_rows(p_full, -1, want_first, sizeof want_first);
  csv_rows(p_half, -1, half, sizeof half);
  int n_rows = 0;
  for (const char *p = rest; *p; ++p) n_rows += *p == '\n';
  if (!full[0] || strcmp(full, rest) || n_rows != 5)
    FAIL("%s: the restarted run's %d rows differ from the uninterrupted run's after step 5:\n%s---\n%s", prec, n_rows, full, rest);
  else if (strncmp(want_first, half, strlen(half)) || !half[0])
    FAIL("%s: the first half's rows differ from the uninterrupted run's", prec);
  else
    printf("(d) %s: --checkpoint-every 2 --steps 5, then --restart: the 5 diagnostics rows after step 5 are identical\n", prec);

  const char *other = strcmp(prec, "double") ? "double" : "float";
  snprintf(args, sizeof args, "--headless --restart ckpt_cli.ckpt --precision %s", other);
  char want[256];
  snprintf(want, sizeof want, "--precision %s differs from the checkpoint's %s", other, prec);
  if (!expect(args, 2, want)) printf("(d) %s: a restart with --precision %s refused\n", prec, other);
  snprintf(args, sizeof args, "--headless --restart ckpt_cli.ckpt --scene '%s'", scene);
  expect(args, 2, "drop --scene");
  /* (c) in the program: an unwritable checkpoint path stops the run before it starts */
  snprintf(args, sizeof args, "--headless --scene '%s' --checkpoint /nonexistent-dir-vortexfmm/x.ckpt --checkpoint-every 2", scene);
  if (!expect(args, 1, "cannot write /nonexistent-dir-vortexfmm/x.ckpt")) printf("(c) program: unwritable --checkpoint refused (exit 1)\n");
  remove(p_full), remove(p_half), remove(p_rest);
  char p_ck[1100];
  snprintf(p_ck, sizeof p_ck, "%s/ckpt_cli.ckpt", VX_BINARY_DIR);
  remove(p_ck);
  remove(scene);
}

/* A blow-up leaves the last good checkpoint and names it. */
static void program_blowup(void) {
  char scene[1100], args[4096], p_ck[1100], err[512];
  snprintf(scene, sizeof scene, "%s/test_vortex_checkpoint_tiny.scene", VX_BINARY_DIR);
  snprintf(p_ck, sizeof p_ck, "%s/blowup.ckpt", VX_BINARY_DIR);
  FILE *f = fopen(scene, "w");
  if (!f) { FAIL("cannot write %s", scene); return; }
  int bad = fprintf(f, "kernel = gauss\nsigma = 0.05\ndt = 0.01\nsolver = direct\nbackend = cpu\nrelax = 0\nconserve = off\n"
                    "[ring]\nn_around = 32\nlayers = 0\ntracers = 10\n") < 0;
  bad |= fclose(f) != 0;
  if (bad) { FAIL("cannot write %s", scene); return; }
  remove(p_ck);
  snprintf(args, sizeof args, "--headless --scene '%s' --steps 50 --dt 5 --kernel singular --integrator euler --checkpoint blowup.ckpt "
                              "--checkpoint-every 1", scene);
  if (expect(args, 3, "simulation blew up") == 0) {
    const char *note = strstr(out, "the last good checkpoint is blowup.ckpt (step ");
    if (!note && !strstr(out, "no checkpoint was written before the blow-up")) FAIL("blow-up: no note on the checkpoint in:\n%s", out);
    else printf("(d) blow-up: %s", note ? note : "no checkpoint was written before the blow-up\n");
    vx_sim *s = note ? vx_ckpt_load(p_ck, NULL, err, sizeof err) : NULL;
    if (note && !s) FAIL("the last good checkpoint does not load: %s", err);
    if (s && vx_sim_steps_done(s) != atoll(note + strlen("the last good checkpoint is blowup.ckpt (step ")))
      FAIL("the last good checkpoint holds step %lld", vx_sim_steps_done(s));
    vx_sim_destroy(s);
  }
  remove(p_ck);
  remove(scene);
}

int main(void) {
  snprintf(ck_path, sizeof ck_path, "%s/test_vortex_checkpoint.ckpt", VX_BINARY_DIR);
  bitwise_restart(VX_DOUBLE);
  bitwise_restart(VX_FLOAT);
  tracer_every = 4;
  bitwise_restart(VX_DOUBLE);
  bitwise_restart(VX_FLOAT);
  tracer_every = 1;
  refusals();
  char exe[1100];
  snprintf(exe, sizeof exe, "%s/vortexfmm", VX_BINARY_DIR);
  FILE *e = fopen(exe, "r");
  if (!e) {
    FAIL("%s not built", exe);
    fifo_refused(0);
  } else {
    fclose(e);
    fifo_refused(1);
    program("double");
    program("float");
    program_blowup();
  }
  remove(ck_path);
  return vx_test_end("checkpoint and restart checks passed");
}
