/* checkpoint.c — the checkpoint file (checkpoint.h): the state encoded little-endian into one
 * host buffer, checksummed and written atomically; read back whole (a regular file only, opened
 * without blocking), its checksum checked, then every field by its meaning (each count, index,
 * interval, parameter and number in the range a run can have), each check with its own one-line
 * refusal. The particles come from the backend through sim.h's host getters. */
#define _POSIX_C_SOURCE 200809L /* strnlen, O_CLOEXEC */
#include "checkpoint.h"
#include "file_open.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "conserve.h"

#define CK_MAX_PARTICLES (1LL << 30) /* vx_sim's own limit */

uint64_t vx_ckpt_fnv1a(const void *data, size_t n) {
  const unsigned char *p = (const unsigned char *)data;
  uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a 64 offset basis and prime (Fowler, Noll, Vo) */
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

/* ------------------------------------------------------------------ little-endian encoding */

typedef struct {
  unsigned char *p;
  size_t n, cap;
} ck_out;

static void put_le(ck_out *o, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) o->p[o->n++] = (unsigned char)(v >> (8 * i));
}
static void put_u32(ck_out *o, uint32_t v) { put_le(o, v, 4); }
static void put_i32(ck_out *o, int v) { put_le(o, (uint32_t)v, 4); }
static void put_i64(ck_out *o, long long v) { put_le(o, (uint64_t)v, 8); }
static void put_f64(ck_out *o, double v) {
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  put_le(o, u, 8);
}

typedef struct {
  const unsigned char *p;
  size_t n, at;
  int short_read; /* a read went past the end */
} ck_in;

static uint64_t get_le(ck_in *r, int bytes) {
  if (r->at + (size_t)bytes > r->n) { r->short_read = 1; r->at = r->n; return 0; }
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= (uint64_t)r->p[r->at++] << (8 * i);
  return v;
}
static uint32_t get_u32(ck_in *r) { return (uint32_t)get_le(r, 4); }
static int get_i32(ck_in *r) { return (int)(int32_t)get_u32(r); }
static long long get_i64(ck_in *r) { return (long long)get_le(r, 8); }
static double get_f64(ck_in *r) {
  uint64_t u = get_le(r, 8);
  double v;
  memcpy(&v, &u, sizeof v);
  return v;
}

/* ------------------------------------------------------------------ the records */

/* Bytes of the payload before the particle arrays (meta, parameters, state, counts). */
#define CK_FIXED_BYTES_V1 (64 + 3 * 8 + (5 * 4 + 2 * 8 + 3 * 4 + 8 + 8 + 2 * 4 + 4 * 8) + (8 + 8 + 4 + 8 + 4 + 2 * 8) + \
                           (8 + 3 * 4 + 3 * 8) + 2 * 4)
/* version 2 adds vx_sim_params.conserve (i32); version 1 files load with it off. Version 3 adds
 * remesh_origin (3 f64); older files load with the origin at 0, the lattice they were run on.
 * Version 4 adds tracer_every (i32) to the parameters and the tracer step under way to the state
 * (3 i32, f64; its y0 and acc after the rings while one is under way); older files load with 1 and
 * none, the scheme they were run with. Version 5 adds remesh_coarsen (f64); older files load with it 0,
 * the fixed lattice they were run on. Version 6 adds dye_release (f64) to the parameters and the dye
 * release's state to the state (CK_DYE_BYTES); older files load with it off and no sources, as they ran.
 * Version 7 adds spread (f64); older files load with it 0, without core spreading, as they ran. */
#define CK_DYE_SLOTS 16                             /* sources a file holds: a scene's rings */
#define CK_DYE_SOURCE_BYTES (3 * 4 + 9 * 8)         /* first, count, perturb_mode; centre, axis, radius, amp, spread */
#define CK_DYE_BYTES (8 + 8 + 4 + CK_DYE_SLOTS * CK_DYE_SOURCE_BYTES) /* seed, released, n_rings, the slots */
#define CK_FIXED_BYTES(version)                                                                                  \
  ((size_t)(CK_FIXED_BYTES_V1 + ((version) >= 2 ? 4 : 0) + ((version) >= 3 ? 24 : 0) + ((version) >= 4 ? 4 + 20 : 0) + \
            ((version) >= 5 ? 8 : 0) + ((version) >= 6 ? 8 + CK_DYE_BYTES : 0) + ((version) >= 7 ? 8 : 0)))
_Static_assert(VX_SCENE_MAX_RINGS <= CK_DYE_SLOTS, "a scene's rings must fit the checkpoint's dye sources");

static void put_meta(ck_out *o, const vx_ckpt_meta *m) {
  memset(o->p + o->n, 0, 64);
  memcpy(o->p + o->n, m->scene, strnlen(m->scene, 63));
  o->n += 64;
  put_le(o, m->seed, 8);
  put_i64(o, m->steps);
  put_i64(o, m->diag_every);
}
static void get_meta(ck_in *r, vx_ckpt_meta *m) {
  memset(m, 0, sizeof *m);
  if (r->at + 64 > r->n) { r->short_read = 1; return; }
  memcpy(m->scene, r->p + r->at, 63);
  r->at += 64;
  m->seed = get_le(r, 8);
  m->steps = get_i64(r);
  m->diag_every = get_i64(r);
}

/* Every vx_sim_params field but verbose: the first version's in declaration order, then each later
 * version's at the end. */
static void put_params(ck_out *o, const vx_sim_params *p) {
  put_i32(o, (int)p->backend), put_i32(o, (int)p->precision), put_i32(o, p->order), put_i32(o, p->leaf_size);
  put_i32(o, (int)p->kernel);
  put_f64(o, p->sigma), put_f64(o, p->dt);
  put_i32(o, (int)p->integrator), put_i32(o, (int)p->stretching), put_i32(o, p->direct);
  put_i64(o, p->tracers);
  put_f64(o, p->relax);
  put_i32(o, p->relax_every), put_i32(o, p->remesh_every);
  put_f64(o, p->remesh_h), put_f64(o, p->remesh_drop), put_f64(o, p->viscosity), put_f64(o, p->lcfl);
  put_i32(o, p->conserve);
  for (int c = 0; c < 3; ++c) put_f64(o, p->remesh_origin[c]);
  put_i32(o, p->tracer_every);
  put_f64(o, p->remesh_coarsen);
  put_f64(o, p->dye_release);
  put_f64(o, p->spread);
}
static void get_params(ck_in *r, vx_sim_params *p, uint32_t version) {
  memset(p, 0, sizeof *p);
  p->backend = (vx_backend)get_i32(r), p->precision = (vx_precision)get_i32(r), p->order = get_i32(r);
  p->leaf_size = get_i32(r);
  p->kernel = (vx_kernel)get_i32(r);
  p->sigma = get_f64(r), p->dt = get_f64(r);
  p->integrator = (vx_integrator)get_i32(r), p->stretching = (vx_stretching)get_i32(r), p->direct = get_i32(r);
  p->tracers = get_i64(r);
  p->relax = get_f64(r);
  p->relax_every = get_i32(r), p->remesh_every = get_i32(r);
  p->remesh_h = get_f64(r), p->remesh_drop = get_f64(r), p->viscosity = get_f64(r), p->lcfl = get_f64(r);
  if (version >= 2) p->conserve = get_i32(r);
  if (version >= 3)
    for (int c = 0; c < 3; ++c) p->remesh_origin[c] = get_f64(r);
  p->tracer_every = version >= 4 ? get_i32(r) : 1;
  if (version >= 5) p->remesh_coarsen = get_f64(r);
  if (version >= 6) p->dye_release = get_f64(r);
  if (version >= 7) p->spread = get_f64(r);
}

/* The dye release's state: its seed, count and sources, in CK_DYE_SLOTS slots (the unused ones 0). */
static void put_dye(ck_out *o, const vx_dye_state *d) {
  put_le(o, d->seed, 8), put_i64(o, d->released), put_i32(o, d->n_rings);
  for (int i = 0; i < CK_DYE_SLOTS; ++i) {
    vx_tracer_source q;
    if (i < d->n_rings) q = d->ring[i];
    else memset(&q, 0, sizeof q);
    put_i32(o, q.first), put_i32(o, q.count), put_i32(o, q.perturb_mode);
    for (int c = 0; c < 3; ++c) put_f64(o, q.centre[c]);
    for (int c = 0; c < 3; ++c) put_f64(o, q.axis[c]);
    put_f64(o, q.radius), put_f64(o, q.perturb_amp), put_f64(o, q.spread);
  }
}
static void get_dye(ck_in *r, vx_dye_state *d) {
  memset(d, 0, sizeof *d);
  d->seed = get_le(r, 8), d->released = get_i64(r), d->n_rings = get_i32(r);
  for (int i = 0; i < CK_DYE_SLOTS; ++i) {
    vx_tracer_source q;
    q.first = get_i32(r), q.count = get_i32(r), q.perturb_mode = get_i32(r);
    for (int c = 0; c < 3; ++c) q.centre[c] = get_f64(r);
    for (int c = 0; c < 3; ++c) q.axis[c] = get_f64(r);
    q.radius = get_f64(r), q.perturb_amp = get_f64(r), q.spread = get_f64(r);
    if (i < VX_SCENE_MAX_RINGS) d->ring[i] = q;
  }
}

static void put_state(ck_out *o, const vx_sim_state *s) {
  put_f64(o, s->t), put_i64(o, s->steps), put_i32(o, s->n_rings);
  put_f64(o, s->since_remesh), put_i32(o, s->steps_since_remesh);
  put_f64(o, s->amax0), put_f64(o, s->max_gradu);
  const vx_remesh_stats *R = &s->remesh;
  put_i64(o, R->count), put_i32(o, R->n_before), put_i32(o, R->n_nodes), put_i32(o, R->n_after);
  put_f64(o, R->c2), put_f64(o, R->h), put_f64(o, R->ms);
  put_i32(o, s->tr_m), put_i32(o, s->tr_steps), put_i32(o, s->tr_stage), put_f64(o, s->tr_h);
  put_dye(o, &s->dye);
}
static void get_state(ck_in *r, vx_sim_state *s, uint32_t version) {
  memset(s, 0, sizeof *s);
  s->t = get_f64(r), s->steps = get_i64(r), s->n_rings = get_i32(r);
  s->since_remesh = get_f64(r), s->steps_since_remesh = get_i32(r);
  s->amax0 = get_f64(r), s->max_gradu = get_f64(r);
  vx_remesh_stats *R = &s->remesh;
  R->count = get_i64(r), R->n_before = get_i32(r), R->n_nodes = get_i32(r), R->n_after = get_i32(r);
  R->c2 = get_f64(r), R->h = get_f64(r), R->ms = get_f64(r);
  if (version >= 4) s->tr_m = get_i32(r), s->tr_steps = get_i32(r), s->tr_stage = get_i32(r), s->tr_h = get_f64(r);
  if (version >= 6) get_dye(r, &s->dye);
}

/* Payload bytes of the particle arrays for these counts. */
/* The arrays after the fixed part: particles, rings, and a tracer step's y0 and acc while one is under way. */
static size_t particle_bytes(int ne, int nt, int tr_steps) {
  return 8 * (3 * ((size_t)ne + (size_t)nt) + 3 * (size_t)ne) + 4 * (size_t)ne + (tr_steps > 0 ? 8 * 6 * (size_t)nt : 0);
}

/* ------------------------------------------------------------------ save */

/* The particles on the host in double: positions of [elements, tracers], then strengths. */
static double *host_particles(vx_sim *s, char *err, size_t errlen) {
  size_t ne = (size_t)vx_sim_n_elements(s), nt = (size_t)vx_sim_n_tracers(s);
  double *h = malloc(sizeof(double) * (3 * (ne + nt) + 3 * ne) + 1);
  if (!h) { snprintf(err, errlen, "out of host memory for a checkpoint"); return NULL; }
  if (vx_sim_get_elements(s, h, h + 3 * (ne + nt), err, errlen) || (nt && vx_sim_get_tracers(s, h + 3 * ne, err, errlen))) {
    free(h);
    return NULL;
  }
  return h;
}

/* The whole file in one buffer (header filled in last). 0, or -1 with err. */
static int encode(vx_sim *s, const vx_ckpt_meta *meta, ck_out *o, char *err, size_t errlen) {
  vx_sim_state st;
  if (vx_sim_export_state(s, &st, err, errlen)) return -1;
  int ne = vx_sim_n_elements(s), nt = vx_sim_n_tracers(s);
  double *h = host_particles(s, err, errlen);
  if (!h) return -1;
  size_t nty = st.tr_steps > 0 ? 3 * (size_t)nt : 0; /* the tracer step's y0 and acc, after the rings */
  double *ty = malloc(sizeof(double) * 2 * nty + 1);
  if (!ty || vx_sim_tracer_step(s, ty, ty + nty, err, errlen)) {
    if (!ty) snprintf(err, errlen, "out of host memory for a checkpoint");
    free(h), free(ty);
    return -1;
  }
  o->cap = VX_CKPT_HEADER_BYTES + CK_FIXED_BYTES(VX_CKPT_VERSION) + particle_bytes(ne, nt, st.tr_steps);
  o->p = malloc(o->cap);
  o->n = VX_CKPT_HEADER_BYTES;
  if (!o->p) { free(h), free(ty); snprintf(err, errlen, "out of host memory for a checkpoint"); return -1; }
  vx_sim_params prm = *vx_sim_params_get(s);
  put_meta(o, meta);
  put_params(o, &prm);
  put_state(o, &st);
  put_i32(o, ne), put_i32(o, nt);
  size_t nf = 3 * ((size_t)ne + (size_t)nt) + 3 * (size_t)ne;
  for (size_t i = 0; i < nf; ++i) put_f64(o, h[i]);
  const int *ring = vx_sim_rings(s);
  for (int i = 0; i < ne; ++i) put_i32(o, ring[i]);
  for (size_t i = 0; i < 2 * nty; ++i) put_f64(o, ty[i]);
  free(h), free(ty);
  size_t payload = o->n - VX_CKPT_HEADER_BYTES;
  uint64_t sum = vx_ckpt_fnv1a(o->p + VX_CKPT_HEADER_BYTES, payload);
  o->n = 0;
  memcpy(o->p, VX_CKPT_MAGIC, 8);
  o->n = 8;
  put_u32(o, VX_CKPT_VERSION), put_u32(o, 0);
  put_le(o, payload, 8), put_le(o, sum, 8);
  o->n = VX_CKPT_HEADER_BYTES + payload;
  return 0;
}

int vx_ckpt_save(vx_sim *s, const vx_ckpt_meta *meta, const char *path, char *err, size_t errlen) {
  ck_out o = {NULL, 0, 0};
  if (encode(s, meta, &o, err, errlen)) { free(o.p); return -1; }
  int rc = vx_afile_write_all(path, o.p, o.n, err, errlen);
  free(o.p);
  /* a restart's new engine keeps no level choice (fmm_forget_level_choice): neither does this run's,
   * so that the two go on alike */
  vx_sim_forget_level_choice(s);
  return rc;
}

/* ------------------------------------------------------------------ load */

/* The whole file into *buf (*n bytes). 0, or -1 with err. The file is opened without blocking and
 * refused unless regular, so that a FIFO with no writer, a device or a directory is named rather
 * than waited on or read without end; its size is checked against the largest checkpoint. */
static int read_whole(const char *path, unsigned char **buf, size_t *n, char *err, size_t errlen) {
  const char *kind;
  const int fd = vx_open_regular(path, &kind);
  if (fd < 0) {
    if (kind) snprintf(err, errlen, "checkpoint %s: not a regular file (%s)", path, kind);
    else snprintf(err, errlen, "checkpoint %s: cannot open (%s)", path, strerror(errno));
    return -1;
  }
  struct stat sb;
  if (fstat(fd, &sb)) {
    snprintf(err, errlen, "checkpoint %s: cannot open (%s)", path, strerror(errno));
    close(fd);
    return -1;
  }
  const uint64_t most = VX_CKPT_HEADER_BYTES + CK_FIXED_BYTES(VX_CKPT_VERSION) + particle_bytes(0, (int)CK_MAX_PARTICLES, 1);
  if ((uint64_t)sb.st_size > most) {
    snprintf(err, errlen, "checkpoint %s: %lld bytes, more than any checkpoint holds (%llu)", path, (long long)sb.st_size,
             (unsigned long long)most);
    close(fd);
    return -1;
  }
  size_t sz = (size_t)sb.st_size, got = 0;
  int e = 0;
  *buf = malloc(sz + 1);
  if (!*buf) { snprintf(err, errlen, "checkpoint %s: out of host memory for %zu bytes", path, sz); close(fd); return -1; }
  while (got < sz) {
    ssize_t k = read(fd, *buf + got, sz - got);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      e = k < 0 ? errno : 0;
      break;
    }
    got += (size_t)k;
  }
  close(fd);
  if (got != sz) {
    snprintf(err, errlen, "checkpoint %s: read failed (%s)", path, e ? strerror(e) : "the file shrank while it was read");
    free(*buf);
    *buf = NULL;
    return -1;
  }
  *n = sz;
  return 0;
}

/* Magic, version, size and checksum. 0 with the payload's size in *payload, or -1 with err. */
static int check_header(const char *path, const unsigned char *b, size_t n, size_t *payload, uint32_t *ver, char *err,
                        size_t errlen) {
  if (n < VX_CKPT_HEADER_BYTES) {
    snprintf(err, errlen, "checkpoint %s: truncated (expected at least %d bytes, found %zu)", path, VX_CKPT_HEADER_BYTES, n);
    return -1;
  }
  if (memcmp(b, VX_CKPT_MAGIC, 8)) { snprintf(err, errlen, "checkpoint %s: not a vortexfmm checkpoint (bad magic)", path); return -1; }
  ck_in r = {b, n, 8, 0};
  uint32_t version = get_u32(&r);
  (void)get_u32(&r);
  uint64_t pl = get_le(&r, 8), sum = get_le(&r, 8);
  if (version < 1 || version > VX_CKPT_VERSION) {
    snprintf(err, errlen, "checkpoint %s: format version %u, this program reads versions 1 to %u", path, version,
             VX_CKPT_VERSION);
    return -1;
  }
  if (pl > (uint64_t)n || VX_CKPT_HEADER_BYTES + pl > (uint64_t)n) {
    snprintf(err, errlen, "checkpoint %s: truncated (expected %llu bytes, found %zu)", path,
             (unsigned long long)(VX_CKPT_HEADER_BYTES + pl), n);
    return -1;
  }
  if (VX_CKPT_HEADER_BYTES + pl < (uint64_t)n) {
    snprintf(err, errlen, "checkpoint %s: %zu bytes after the end of the checkpoint (expected %llu bytes)", path,
             n - (size_t)(VX_CKPT_HEADER_BYTES + pl), (unsigned long long)(VX_CKPT_HEADER_BYTES + pl));
    return -1;
  }
  uint64_t got = vx_ckpt_fnv1a(b + VX_CKPT_HEADER_BYTES, (size_t)pl);
  if (got != sum) {
    snprintf(err, errlen, "checkpoint %s: checksum mismatch (stored %016llx, computed %016llx): the file is corrupt", path,
             (unsigned long long)sum, (unsigned long long)got);
    return -1;
  }
  *payload = (size_t)pl;
  *ver = version;
  return 0;
}

/* The payload's structure: its fixed part whole, the counts possible, the size theirs. 0, or -1 with err. */
static int check_payload(const char *path, const ck_in *r, uint32_t version, int ne, int nt, int tr_steps, char *err,
                         size_t errlen) {
  if (r->short_read || r->at != CK_FIXED_BYTES(version)) {
    snprintf(err, errlen, "checkpoint %s: payload of %zu bytes is shorter than its fixed part (%d bytes)", path, r->n,
             (int)CK_FIXED_BYTES(version));
    return -1;
  }
  if (ne < 0 || nt < 0 || (long long)ne + nt > CK_MAX_PARTICLES) {
    snprintf(err, errlen, "checkpoint %s: absurd particle counts (%d elements, %d tracers)", path, ne, nt);
    return -1;
  }
  size_t want = CK_FIXED_BYTES(version) + particle_bytes(ne, nt, tr_steps);
  if (r->n != want) {
    snprintf(err, errlen, "checkpoint %s: payload of %zu bytes does not match %d elements and %d tracers (%zu bytes)", path,
             r->n, ne, nt, want);
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------------ validation by meaning */

/* The command line's bound on --viscosity (src/vortexfmm/main.c; the scene's key: up to 1e3): a
 * saved run had a value inside it. The other counts and intervals are vortex/scene.h's. */
#define CK_VISCOSITY_MAX 1e6
/* |t - steps·dt| over steps·dt: t sums dt/substeps once a substep, each sum rounded (relative error
 * at most steps·VX_SIM_MAX_SUBSTEPS·2^-53, 1.4e-5 at 2e9 steps) */
#define CK_TIME_RTOL 1e-3
#define CK_FINITE_MAX DBL_MAX /* bad_real's upper bound: any finite number */

/* "damaged checkpoint PATH: FIELD VALUE (expected WANT)" into err; -1. */
static int damaged(const char *path, const char *field, const char *value, const char *want, char *err, size_t errlen) {
  snprintf(err, errlen, "damaged checkpoint %s: %s %s (expected %s)", path, field, value, want);
  return -1;
}
static int bad_int(const char *path, const char *field, long long v, long long lo, long long hi, char *err, size_t errlen) {
  if (v >= lo && v <= hi) return 0;
  char value[32], want[96];
  snprintf(value, sizeof value, "%lld", v);
  if (hi == LLONG_MAX) snprintf(want, sizeof want, "an integer >= %lld", lo);
  else snprintf(want, sizeof want, "an integer in %lld..%lld", lo, hi);
  return damaged(path, field, value, want, err, errlen);
}
static int bad_real(const char *path, const char *field, double v, double lo, double hi, char *err, size_t errlen) {
  if (v >= lo && v <= hi) return 0; /* NaN fails both */
  char value[40], want[96];
  snprintf(value, sizeof value, "%.17g", v);
  if (hi == CK_FINITE_MAX) snprintf(want, sizeof want, "a finite number >= %g", lo);
  else snprintf(want, sizeof want, "a number in [%g, %g]", lo, hi);
  return damaged(path, field, value, want, err, errlen);
}

/* The run's name and defaults; only when the caller asks for them (vx_ckpt_load's meta). */
static int check_meta(const char *path, const vx_ckpt_meta *m, char *err, size_t errlen) {
  for (const char *c = m->scene; *c; ++c)
    if ((unsigned char)*c < 0x20 || *c == 0x7f) return damaged(path, "scene name", "with control characters", "printable text", err, errlen);
  return bad_int(path, "steps (of the run)", m->steps, 0, LLONG_MAX, err, errlen) ||
                 bad_int(path, "diag_every", m->diag_every, 1, INT_MAX, err, errlen)
             ? -1
             : 0;
}

/* Every parameter in the range a scene file or the command line gives it, then the rules between
 * them (vx_sim_params_check). */
static int check_params(const char *path, const vx_sim_params *p, char *err, size_t errlen) {
  if (bad_int(path, "backend", p->backend, VX_BACKEND_CPU, VX_BACKEND_CUDA, err, errlen) ||
      bad_int(path, "precision", p->precision, VX_DOUBLE, VX_FLOAT, err, errlen) ||
      bad_int(path, "order", p->order, 0, VX_PMAX, err, errlen) || bad_int(path, "leaf_size", p->leaf_size, 0, VX_SCENE_LEAF_MAX, err, errlen) ||
      bad_int(path, "kernel", p->kernel, VX_KERNEL_SINGULAR, VX_KERNEL_GAUSS, err, errlen) ||
      bad_real(path, "sigma", p->sigma, 0.0, CK_FINITE_MAX, err, errlen) ||
      bad_real(path, "dt", p->dt, VX_SCENE_DT_MIN, VX_SCENE_DT_MAX, err, errlen) ||
      bad_int(path, "integrator", p->integrator, VX_EULER, VX_RK4, err, errlen) ||
      bad_int(path, "stretching", p->stretching, VX_STRETCH_CLASSICAL, VX_STRETCH_NONE, err, errlen) ||
      bad_int(path, "direct", p->direct, 0, 1, err, errlen) || bad_int(path, "tracers", p->tracers, -1, VX_SCENE_TRACERS_MAX, err, errlen) ||
      bad_int(path, "relax_every", p->relax_every, p->relax > 0.0 ? 1 : 0, VX_SCENE_EVERY_MAX, err, errlen) ||
      bad_int(path, "remesh_every", p->remesh_every, 0, VX_SCENE_EVERY_MAX, err, errlen) ||
      bad_real(path, "viscosity", p->viscosity, 0.0, CK_VISCOSITY_MAX, err, errlen) ||
      bad_real(path, "spread", p->spread, 0.0, 10.0, err, errlen) ||
      bad_int(path, "conserve", p->conserve, VX_CONSERVE_OFF, VX_CONSERVE_RING, err, errlen))
    return -1;
  for (int c = 0; c < 3; ++c)
    if (bad_real(path, "remesh_origin", p->remesh_origin[c], -VX_SCENE_LEN_MAX, VX_SCENE_LEN_MAX, err, errlen)) return -1;
  if (p->tracer_every != 0 && !vx_tracer_every_ok(p->tracer_every)) {
    char v[16];
    snprintf(v, sizeof v, "%d", p->tracer_every);
    return damaged(path, "tracer_every", v, "1, 2 or 4", err, errlen);
  }
  char e2[400];
  if (vx_sim_params_check(p, e2, sizeof e2)) { snprintf(err, errlen, "damaged checkpoint %s: parameters: %s", path, e2); return -1; }
  return 0;
}

/* The dye release: its count, and sources as a scene's rings give them, each holding the rows after
 * the one before (the tracers' count is the simulation's to check). */
static int check_dye(const char *path, const vx_dye_state *d, char *err, size_t errlen) {
  if (bad_int(path, "dye sources", d->n_rings, 0, VX_SCENE_MAX_RINGS, err, errlen) ||
      bad_int(path, "dye releases", d->released, 0, LLONG_MAX, err, errlen))
    return -1;
  long long end = 0;
  for (int i = 0; i < d->n_rings; ++i) {
    const vx_tracer_source *q = &d->ring[i];
    double n2 = q->axis[0] * q->axis[0] + q->axis[1] * q->axis[1] + q->axis[2] * q->axis[2];
    char field[64];
#define CK_DYE_FIELD(name) (snprintf(field, sizeof field, "dye source %d's %s", i, name), field)
    if (bad_int(path, CK_DYE_FIELD("first tracer"), q->first, end, end, err, errlen) ||
        bad_int(path, CK_DYE_FIELD("tracers"), q->count, 0, VX_SCENE_TRACERS_MAX, err, errlen) ||
        bad_real(path, CK_DYE_FIELD("radius"), q->radius, VX_SCENE_LEN_MIN, VX_SCENE_LEN_MAX, err, errlen) ||
        bad_real(path, CK_DYE_FIELD("spread"), q->spread, 0.0, VX_SCENE_LEN_MAX, err, errlen) ||
        bad_real(path, CK_DYE_FIELD("perturb_amp"), q->perturb_amp, 0.0, 0.5, err, errlen) ||
        bad_int(path, CK_DYE_FIELD("perturb_mode"), q->perturb_mode, 0, 1 << 20, err, errlen) ||
        bad_real(path, CK_DYE_FIELD("axis length squared"), n2, 1.0 - 1e-9, 1.0 + 1e-9, err, errlen))
      return -1;
    for (int c = 0; c < 3; ++c)
      if (bad_real(path, CK_DYE_FIELD("centre"), q->centre[c], -VX_SCENE_LEN_MAX, VX_SCENE_LEN_MAX, err, errlen)) return -1;
#undef CK_DYE_FIELD
    end += q->count;
  }
  return 0;
}

/* The counters: non-negative, finite, the time that of the steps taken, the tracer step under way
 * one that tracer_every can have, the dye release one a scene gives. */
static int check_state(const char *path, const vx_sim_state *s, const vx_sim_params *p, char *err, size_t errlen) {
  const vx_remesh_stats *R = &s->remesh;
  if (bad_int(path, "step", s->steps, 0, LLONG_MAX, err, errlen) || bad_real(path, "time", s->t, 0.0, CK_FINITE_MAX, err, errlen) ||
      bad_int(path, "rings", s->n_rings, 0, VX_SIM_MAX_RINGS, err, errlen) ||
      bad_real(path, "time since remeshing", s->since_remesh, 0.0, CK_FINITE_MAX, err, errlen) ||
      bad_int(path, "steps since remeshing", s->steps_since_remesh, 0, s->steps, err, errlen) ||
      bad_real(path, "max|alpha| of the start", s->amax0, 0.0, CK_FINITE_MAX, err, errlen) ||
      bad_real(path, "max|grad u|", s->max_gradu, 0.0, CK_FINITE_MAX, err, errlen) ||
      bad_int(path, "remeshings", R->count, 0, LLONG_MAX, err, errlen) ||
      bad_int(path, "remeshing elements in", R->n_before, 0, INT_MAX, err, errlen) ||
      bad_int(path, "remeshing nodes", R->n_nodes, 0, INT_MAX, err, errlen) ||
      bad_int(path, "remeshing elements kept", R->n_after, 0, INT_MAX, err, errlen) ||
      bad_real(path, "remeshing c2", R->c2, 0.0, CK_FINITE_MAX, err, errlen) ||
      bad_real(path, "remeshing spacing", R->h, 0.0, CK_FINITE_MAX, err, errlen) ||
      bad_real(path, "remeshing time", R->ms, 0.0, CK_FINITE_MAX, err, errlen) ||
      bad_int(path, "tracer step's element steps", s->tr_steps, 0, 3, err, errlen))
    return -1;
  double want = (double)s->steps * p->dt;
  if (!(fabs(s->t - want) <= CK_TIME_RTOL * want)) {
    char v[40], w[128];
    snprintf(v, sizeof v, "%.17g", s->t);
    snprintf(w, sizeof w, "%.17g, %lld steps of dt %g", want, s->steps, p->dt);
    return damaged(path, "time", v, w, err, errlen);
  }
  if (check_dye(path, &s->dye, err, errlen)) return -1;
  if (s->tr_steps == 0) return 0;
  return bad_int(path, "tracer step's span", s->tr_m, 2, 4, err, errlen) ||
                 bad_int(path, "tracer step's element steps", s->tr_steps, 1, s->tr_m - 1, err, errlen) ||
                 bad_int(path, "tracer step's stages", s->tr_stage, 1, 3, err, errlen) ||
                 bad_real(path, "tracer step's size", s->tr_h, DBL_MIN, CK_FINITE_MAX, err, errlen)
             ? -1
             : 0;
}

/* The arrays: each element's ring one of the saved rings, every number finite. */
static int check_particles(const char *path, const double *h, size_t nf, const double *ty, size_t nty, const int *ring, int ne,
                           int nt, int n_rings, char *err, size_t errlen) {
  char field[64], want[64];
  for (int i = 0; i < ne; ++i)
    if (ring[i] < 0 || ring[i] >= n_rings) {
      char v[16];
      snprintf(field, sizeof field, "element %d's ring", i);
      snprintf(v, sizeof v, "%d", ring[i]);
      snprintf(want, sizeof want, "0..%d, the checkpoint having %d ring%s", n_rings - 1, n_rings, n_rings == 1 ? "" : "s");
      return damaged(path, field, v, n_rings ? want : "none, the checkpoint having no ring", err, errlen);
    }
  size_t np = 3 * ((size_t)ne + (size_t)nt);
  for (size_t i = 0; i < nf + 2 * nty; ++i) {
    double v = i < nf ? h[i] : ty[i - nf];
    if (isfinite(v)) continue;
    size_t k = i < np ? i : i < nf ? i - np : (i - nf) % nty;
    const char *what = i < np ? (k / 3 < (size_t)ne ? "element" : "tracer") : i < nf ? "element" : "tracer";
    const char *arr = i < np ? "position" : i < nf ? "strength" : i - nf < nty ? "step start" : "step slope";
    size_t who = i < np && k / 3 >= (size_t)ne ? k / 3 - (size_t)ne : k / 3;
    char value[40];
    snprintf(field, sizeof field, "%s %zu's %s %c", what, who, arr, "xyz"[k % 3]);
    snprintf(value, sizeof value, "%g", v);
    return damaged(path, field, value, "a finite number", err, errlen);
  }
  return 0;
}

/* The arrays read into h (positions, strengths, then the tracer step's y0 and acc: nty each) and
 * ring, checked, and the simulation built from them. */
static vx_sim *build(const char *path, ck_in *r, const vx_sim_params *prm, vx_sim_state *st, int ne, int nt, char *err,
                     size_t errlen) {
  size_t nty = st->tr_steps > 0 ? 3 * (size_t)nt : 0;
  size_t nf = 3 * ((size_t)ne + (size_t)nt) + 3 * (size_t)ne;
  double *h = malloc(sizeof(double) * (nf + 2 * nty) + 1);
  int *ring = malloc(sizeof(int) * ((size_t)ne + 1));
  vx_sim *s = NULL;
  if (!h || !ring) {
    snprintf(err, errlen, "checkpoint %s: out of host memory", path);
  } else {
    for (size_t i = 0; i < nf; ++i) h[i] = get_f64(r);
    for (int i = 0; i < ne; ++i) ring[i] = get_i32(r);
    for (size_t i = 0; i < 2 * nty; ++i) h[nf + i] = get_f64(r);
    if (nty) st->tr_y0 = h + nf, st->tr_acc = h + nf + nty;
    char e2[400];
    if (!check_particles(path, h, nf, h + nf, nty, ring, ne, nt, st->n_rings, err, errlen)) {
      s = vx_sim_create_from_state(prm, st, ne, nt, h, h + 3 * ((size_t)ne + (size_t)nt), ring, e2, sizeof e2);
      if (!s) snprintf(err, errlen, "checkpoint %s: %s", path, e2);
    }
  }
  free(h);
  free(ring);
  return s;
}

/* Build the simulation from a payload whose checksum matched: its structure, then the meaning of
 * every field (the meta's only when the caller asks for it). */
static vx_sim *decode(const char *path, const unsigned char *pl, size_t n, uint32_t version, vx_ckpt_meta *meta, char *err,
                      size_t errlen) {
  ck_in r = {pl, n, 0, 0};
  vx_ckpt_meta m;
  vx_sim_params prm;
  vx_sim_state st;
  get_meta(&r, &m);
  get_params(&r, &prm, version);
  get_state(&r, &st, version);
  int ne = get_i32(&r), nt = get_i32(&r);
  if (check_payload(path, &r, version, ne, nt, st.tr_steps, err, errlen) || (meta && check_meta(path, &m, err, errlen)) ||
      check_params(path, &prm, err, errlen) || check_state(path, &st, &prm, err, errlen))
    return NULL;
  vx_sim *s = build(path, &r, &prm, &st, ne, nt, err, errlen);
  if (s && meta) *meta = m;
  return s;
}

vx_sim *vx_ckpt_load_mem(const void *data, size_t n, const char *name, vx_ckpt_meta *meta, char *err, size_t errlen) {
  const unsigned char *b = data;
  size_t payload = 0;
  uint32_t version = 0;
  if (check_header(name, b, n, &payload, &version, err, errlen)) return NULL;
  return decode(name, b + VX_CKPT_HEADER_BYTES, payload, version, meta, err, errlen);
}

vx_sim *vx_ckpt_load(const char *path, vx_ckpt_meta *meta, char *err, size_t errlen) {
  unsigned char *b = NULL;
  size_t n = 0;
  if (read_whole(path, &b, &n, err, errlen)) return NULL;
  vx_sim *s = vx_ckpt_load_mem(b, n, path, meta, err, errlen);
  free(b);
  return s;
}
