/* scene_read.c — reading scene files (vortex/scene.h, assets/README.md): the parser of the text
 * format (`key = value` lines, `[ring]` sections, `#` comments) into a vx_scene, the file loader
 * (regular files only, refused by kind without a blocking open: a FIFO would wait for a writer), and
 * the search for a scene by name ($VX_ASSETS_DIR, the compiled-in assets directory, the assets beside
 * the program). Every problem is one line naming the file, the line and the key. The model itself and
 * the particles generated from it are vortex/scene.c's; writing a scene is scene_write.c's. */
#define _POSIX_C_SOURCE 200809L /* access, fdopen, O_CLOEXEC */

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conserve.h"
#include "file_open.h"
#include "numerics.h"
#include "scene.h"

typedef struct {
  const char *file;
  int line;
  char *err;
  size_t errlen;
} pctx;

static int bad(pctx *c, const char *key, const char *val, const char *want) {
  snprintf(c->err, c->errlen, "scene %s line %d: bad value for '%s': '%s' (%s)", c->file, c->line, key, val, want);
  return -1;
}

static int get_double(pctx *c, const char *key, const char *val, double lo, int lo_open, double *out, const char *want) {
  char *end;
  errno = 0;
  double v = strtod(val, &end);
  if (end == val || *end || errno || !isfinite(v) || (lo_open ? !(v > lo) : !(v >= lo))) return bad(c, key, val, want);
  *out = v;
  return 0;
}
static int get_range(pctx *c, const char *key, const char *val, double lo, double hi, double *out) {
  char want[96];
  snprintf(want, sizeof want, "expected a number in [%g, %g]", lo, hi);
  double v;
  if (get_double(c, key, val, lo, 0, &v, want)) return -1;
  if (v > hi) return bad(c, key, val, want);
  *out = v;
  return 0;
}
/* Any finite number (the phase: only its sine and cosine are used). */
static int get_real(pctx *c, const char *key, const char *val, double *out) {
  char *end;
  errno = 0;
  double v = strtod(val, &end);
  if (end == val || *end || errno || !isfinite(v)) return bad(c, key, val, "expected a number");
  *out = v;
  return 0;
}
static int get_int(pctx *c, const char *key, const char *val, long lo, long hi, int *out) {
  char *end;
  errno = 0;
  long v = strtol(val, &end, 10);
  if (end == val || *end || errno || v < lo || v > hi) {
    char want[96];
    snprintf(want, sizeof want, "expected an integer in %ld..%ld", lo, hi);
    return bad(c, key, val, want);
  }
  *out = (int)v;
  return 0;
}
/* Three numbers 'x y z', each within [-lim, lim]. */
static int get_vec3(pctx *c, const char *key, const char *val, double lim, double out[3]) {
  char *p = (char *)val, *end, want[96];
  snprintf(want, sizeof want, "expected three numbers 'x y z', each in [%g, %g]", -lim, lim);
  for (int i = 0; i < 3; ++i) {
    errno = 0;
    out[i] = strtod(p, &end);
    if (end == p || errno || !(fabs(out[i]) <= lim)) return bad(c, key, val, want);
    p = end;
    while (*p == ' ' || *p == '\t' || *p == ',') ++p;
  }
  if (*p) return bad(c, key, val, want);
  return 0;
}

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t' || *s == '\r') ++s;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n')) s[--n] = 0;
  return s;
}

static const char *global_keys[] = {"name", "kernel", "sigma", "sigma_factor", "dt", "integrator", "stretching",
                                    "order", "leaf_size", "solver", "backend", "precision", "steps", "diag_every",
                                    "seed", "relax", "relax_every", "remesh_every", "remesh_h", "remesh_drop", "remesh_coarsen",
                                    "viscosity", "lcfl", "conserve", "description", "camera_position", "camera_target",
                                    "camera_follow", "remesh_origin", "tracer_every", "resolution", "reynolds", "dye_release",
                                    NULL};
static const char *ring_keys[] = {"circulation", "radius", "core", "profile", "core_extent", "n_around", "layers",
                                  "layer_points", "centre", "axis", "phase", "perturb_amp", "perturb_mode", "tracers",
                                  "tracer_spread", NULL};

static int key_index(const char **keys, const char *k) {
  for (int i = 0; keys[i]; ++i)
    if (!strcmp(keys[i], k)) return i;
  return -1;
}

/* description, camera_position, camera_target, camera_follow: what the picker and the view use. */
static int set_presentation(pctx *c, vx_scene *s, const char *k, const char *v) {
  vx_scene_camera *cam = &s->camera;
  if (!strcmp(k, "description")) {
    if (strlen(v) > VX_SCENE_DESC_MAX) {
      snprintf(c->err, c->errlen, "scene %s line %d: bad value for '%s': %zu characters (expected at most %d)", c->file,
               c->line, k, strlen(v), VX_SCENE_DESC_MAX);
      return -1;
    }
    snprintf(s->description, sizeof s->description, "%s", v);
    return 0;
  }
  if (!strcmp(k, "camera_follow")) {
    if (!strcmp(v, "on")) cam->follow = 1;
    else if (!strcmp(v, "off")) cam->follow = 0;
    else return bad(c, k, v, "expected on or off");
    return 0;
  }
  int pos = !strcmp(k, "camera_position");
  if (!pos && strcmp(k, "camera_target")) return -2;
  if (get_vec3(c, k, v, VX_SCENE_LEN_MAX, pos ? cam->position : cam->target)) return -1;
  *(pos ? &cam->has_position : &cam->has_target) = 1;
  /* an eye on its target has no direction to look in */
  if (cam->has_position && cam->has_target) {
    double d2 = 0.0;
    for (int i = 0; i < 3; ++i) d2 += (cam->position[i] - cam->target[i]) * (cam->position[i] - cam->target[i]);
    if (!(sqrt(d2) >= VX_SCENE_LEN_MIN)) return bad(c, k, v, "camera_position must differ from camera_target");
  }
  return 0;
}

static int set_global(pctx *c, vx_scene *s, const char *k, const char *v) {
  if (!strcmp(k, "name")) { snprintf(s->name, sizeof s->name, "%s", v); return 0; }
  int rc = set_presentation(c, s, k, v);
  if (rc != -2) return rc;
  if (!strcmp(k, "kernel"))
    return vx_kernel_from_name(v, &s->kernel) ? bad(c, k, v, "expected singular, poly, rm, wl or gauss") : 0;
  if (!strcmp(k, "sigma")) {
    char want[96];
    snprintf(want, sizeof want, "expected 0 (use sigma_factor) or a number in [%g, %g]", VX_SCENE_LEN_MIN, VX_SCENE_LEN_MAX);
    if (get_double(c, k, v, 0.0, 0, &s->sigma, want)) return -1;
    return s->sigma != 0.0 && !(s->sigma >= VX_SCENE_LEN_MIN && s->sigma <= VX_SCENE_LEN_MAX) ? bad(c, k, v, want) : 0;
  }
  if (!strcmp(k, "sigma_factor")) return get_range(c, k, v, VX_SCENE_FACTOR_MIN, VX_SCENE_FACTOR_MAX, &s->sigma_factor);
  if (!strcmp(k, "dt")) return get_range(c, k, v, VX_SCENE_DT_MIN, VX_SCENE_DT_MAX, &s->dt);
  if (!strcmp(k, "integrator"))
    return vx_integrator_from_name(v, &s->integrator) ? bad(c, k, v, "expected euler, rk2 or rk4") : 0;
  if (!strcmp(k, "stretching"))
    return vx_stretching_from_name(v, &s->stretching) ? bad(c, k, v, "expected classical, transpose or none") : 0;
  if (!strcmp(k, "order")) return get_int(c, k, v, 0, VX_PMAX, &s->order);
  if (!strcmp(k, "leaf_size")) return get_int(c, k, v, 0, VX_SCENE_LEAF_MAX, &s->leaf_size); /* 0: the backend's */
  if (!strcmp(k, "solver")) {
    if (!strcmp(v, "fmm")) s->direct = 0;
    else if (!strcmp(v, "direct")) s->direct = 1;
    else return bad(c, k, v, "expected fmm or direct");
    return 0;
  }
  if (!strcmp(k, "backend"))
    return vx_backend_from_name(v, &s->backend) ? bad(c, k, v, "expected cpu, cuda or auto") : 0;
  if (!strcmp(k, "precision"))
    return vx_precision_from_name(v, &s->precision) ? bad(c, k, v, "expected double or float") : 0;
  if (!strcmp(k, "steps")) return get_int(c, k, v, 0, 2000000000L, &s->steps);
  if (!strcmp(k, "diag_every")) return get_int(c, k, v, 1, 2000000000L, &s->diag_every);
  if (!strcmp(k, "relax")) return get_range(c, k, v, 0.0, 1.0, &s->relax);
  if (!strcmp(k, "relax_every")) return get_int(c, k, v, 1, VX_SCENE_EVERY_MAX, &s->relax_every);
  if (!strcmp(k, "remesh_every")) return get_int(c, k, v, 0, VX_SCENE_EVERY_MAX, &s->remesh_every);
  if (!strcmp(k, "remesh_h")) return get_range(c, k, v, 0.0, 1e3, &s->remesh_h);
  if (!strcmp(k, "remesh_origin")) {
    if (get_vec3(c, k, v, VX_SCENE_LEN_MAX, s->remesh_origin)) return -1;
    s->has_remesh_origin = 1;
    return 0;
  }
  if (!strcmp(k, "remesh_drop")) return get_range(c, k, v, 0.0, 0.1, &s->remesh_drop);
  if (!strcmp(k, "remesh_coarsen")) return get_range(c, k, v, 0.0, 10.0, &s->remesh_coarsen);
  if (!strcmp(k, "viscosity")) return get_range(c, k, v, 0.0, 1e3, &s->viscosity);
  if (!strcmp(k, "lcfl")) return get_range(c, k, v, 0.0, 10.0, &s->lcfl);
  if (!strcmp(k, "tracer_every")) {
    int m;
    if (get_int(c, k, v, 1, 4, &m)) return -1;
    if (!vx_tracer_every_ok(m)) return bad(c, k, v, "expected 1, 2 or 4");
    s->tracer_every = m;
    return 0;
  }
  if (!strcmp(k, "dye_release")) {
    char want[96];
    snprintf(want, sizeof want, "expected 0 (off) or a lifetime in [%g, %g]", VX_SCENE_DT_MIN, VX_SCENE_LIFE_MAX);
    if (get_double(c, k, v, 0.0, 0, &s->dye_release, want)) return -1;
    const double T = s->dye_release;
    return T != 0.0 && !(T >= VX_SCENE_DT_MIN && T <= VX_SCENE_LIFE_MAX) ? bad(c, k, v, want) : 0;
  }
  if (!strcmp(k, "resolution"))
    return vx_resolution_from_name(v, &s->resolution) ? bad(c, k, v, "expected coarse, normal or fine") : 0;
  if (!strcmp(k, "reynolds")) return get_range(c, k, v, 1e-3, 1e12, &s->reynolds);
  if (!strcmp(k, "conserve"))
    return vx_conserve_from_name(v, &s->conserve) ? bad(c, k, v, "expected off, axial, full or ring") : 0;
  if (!strcmp(k, "seed")) {
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (end == v || *end || errno || v[0] == '-') return bad(c, k, v, "expected a non-negative integer");
    s->seed = (uint64_t)x;
    return 0;
  }
  return -2; /* not a global key */
}

static int set_ring(pctx *c, vx_ring *r, const char *k, const char *v) {
  if (!strcmp(k, "circulation")) return get_range(c, k, v, -VX_SCENE_CIRC_MAX, VX_SCENE_CIRC_MAX, &r->circulation);
  if (!strcmp(k, "radius")) return get_range(c, k, v, VX_SCENE_LEN_MIN, VX_SCENE_LEN_MAX, &r->radius);
  if (!strcmp(k, "core")) return get_range(c, k, v, VX_SCENE_LEN_MIN, VX_SCENE_LEN_MAX, &r->core);
  if (!strcmp(k, "profile")) {
    if (!strcmp(v, "gauss")) r->profile = VX_CORE_GAUSS;
    else if (!strcmp(v, "uniform")) r->profile = VX_CORE_UNIFORM;
    else return bad(c, k, v, "expected gauss or uniform");
    return 0;
  }
  if (!strcmp(k, "core_extent")) return get_range(c, k, v, VX_SCENE_EXTENT_MIN, VX_SCENE_EXTENT_MAX, &r->core_extent);
  if (!strcmp(k, "n_around")) return get_int(c, k, v, 3, 1 << 24, &r->n_around);
  if (!strcmp(k, "layers")) return get_int(c, k, v, 0, 64, &r->layers);
  if (!strcmp(k, "layer_points")) return get_int(c, k, v, 1, 1024, &r->layer_points);
  if (!strcmp(k, "centre")) return get_vec3(c, k, v, VX_SCENE_LEN_MAX, r->centre);
  if (!strcmp(k, "axis")) {
    if (get_vec3(c, k, v, VX_SCENE_AXIS_MAX, r->axis)) return -1;
    /* the norm scaled by the largest component, so that a tiny axis (1e-200 0 0) does not
     * underflow to the zero vector */
    double m = fmax(fabs(r->axis[0]), fmax(fabs(r->axis[1]), fabs(r->axis[2])));
    if (!(m > 0.0)) return bad(c, k, v, "the axis must not be the zero vector");
    double q[3] = {r->axis[0] / m, r->axis[1] / m, r->axis[2] / m};
    double n = m * sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    /* a unit axis to rounding (one written by vx_scene_write) is kept as is: dividing by its
     * norm, 1 ± ulp, would move its last bits and a written scene would not read back equal */
    if (fabs(n - 1.0) > 4.0 * DBL_EPSILON)
      for (int i = 0; i < 3; ++i) r->axis[i] /= n;
    return 0;
  }
  if (!strcmp(k, "phase")) return get_real(c, k, v, &r->phase);
  if (!strcmp(k, "perturb_amp")) return get_double(c, k, v, 0.0, 0, &r->perturb_amp, "expected a number in [0, 0.5]");
  if (!strcmp(k, "perturb_mode")) return get_int(c, k, v, 0, 1 << 20, &r->perturb_mode);
  if (!strcmp(k, "tracers")) return get_int(c, k, v, 0, VX_SCENE_TRACERS_MAX, &r->tracers);
  if (!strcmp(k, "tracer_spread")) return get_range(c, k, v, 0.0, VX_SCENE_LEN_MAX, &r->tracer_spread);
  return -2;
}

/* A message quotes the file's bytes: control characters (a terminal escape, a carriage return)
 * become '?' so that it stays one printable line. */
static void scrub(char *msg) {
  for (unsigned char *q = (unsigned char *)msg; *q; ++q)
    if (*q < 0x20 || *q == 0x7f) *q = '?';
}

/* After the last line: each ring's derived defaults (core_extent) and the checks between its keys. */
static int check_rings(vx_scene *s, const char *name, char *err, size_t errlen) {
  for (int i = 0; i < s->n_rings; ++i) {
    const vx_ring *r = &s->rings[i];
    if (r->perturb_amp > 0.5) {
      snprintf(err, errlen, "scene %s: ring %d: perturb_amp %g must be <= 0.5", name, i + 1, r->perturb_amp);
      return -1;
    }
    if (r->core_extent == 0.0) s->rings[i].core_extent = vx_ring_extent(r);
    if (r->layers > 0 && r->core * r->core_extent >= r->radius) {
      snprintf(err, errlen, "scene %s: ring %d: core*core_extent = %g must be smaller than the radius %g", name, i + 1,
               r->core * r->core_extent, r->radius);
      return -1;
    }
    if (vx_ring_elements(r) > (1LL << 30)) {
      snprintf(err, errlen, "scene %s: ring %d: %lld elements is too many", name, i + 1, vx_ring_elements(r));
      return -1;
    }
  }
  return 0;
}

static int parse_text(const char *text, const char *name, vx_scene *s, char *err, size_t errlen) {
  vx_scene_init(s);
  pctx c = {name, 0, err, errlen};
  unsigned long long global_seen = 0, ring_seen = 0; /* a bit a key */
  int in_ring = 0;
  const char *p = text;
  if (!strncmp(p, "\xEF\xBB\xBF", 3)) p += 3; /* a UTF-8 byte-order mark (some Windows editors write one) */
  char line[1024];
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    ++c.line;
    if (n >= sizeof line) {
      snprintf(err, errlen, "scene %s line %d: line longer than %zu characters", name, c.line, sizeof line - 1);
      return -1;
    }
    memcpy(line, p, n);
    line[n] = 0;
    p += n + (nl ? 1 : 0);
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char *t = trim(line);
    if (!*t) continue;
    if (*t == '[') {
      if (!strcmp(t, "[ring]")) {
        if (s->n_rings == VX_SCENE_MAX_RINGS) {
          snprintf(err, errlen, "scene %s line %d: more than %d [ring] sections", name, c.line, VX_SCENE_MAX_RINGS);
          return -1;
        }
        vx_ring_init(&s->rings[s->n_rings++]);
        in_ring = 1;
        ring_seen = 0;
        continue;
      }
      snprintf(err, errlen, "scene %s line %d: unknown section '%s' (only [ring] exists)", name, c.line, t);
      return -1;
    }
    char *eq = strchr(t, '=');
    if (!eq) {
      snprintf(err, errlen, "scene %s line %d: expected 'key = value', got '%s'", name, c.line, t);
      return -1;
    }
    *eq = 0;
    char *k = trim(t), *v = trim(eq + 1);
    if (!strcmp(k, "center")) k = "centre";
    if (!*k) { snprintf(err, errlen, "scene %s line %d: missing key before '='", name, c.line); return -1; }
    if (!*v) { snprintf(err, errlen, "scene %s line %d: missing value for '%s'", name, c.line, k); return -1; }
    int gi = key_index(global_keys, k), ri = key_index(ring_keys, k);
    if (in_ring ? ri < 0 : gi < 0) {
      if (!in_ring && ri >= 0)
        snprintf(err, errlen, "scene %s line %d: key '%s' belongs in a [ring] section", name, c.line, k);
      else if (in_ring && gi >= 0)
        snprintf(err, errlen, "scene %s line %d: global key '%s' must come before the first [ring] section", name, c.line, k);
      else
        snprintf(err, errlen, "scene %s line %d: unknown key '%s'", name, c.line, k);
      return -1;
    }
    unsigned long long *seen = in_ring ? &ring_seen : &global_seen;
    unsigned long long bit = 1ull << (in_ring ? ri : gi);
    if (*seen & bit) {
      snprintf(err, errlen, "scene %s line %d: duplicate key '%s'", name, c.line, k);
      return -1;
    }
    *seen |= bit;
    int rc = in_ring ? set_ring(&c, &s->rings[s->n_rings - 1], k, v) : set_global(&c, s, k, v);
    if (rc) return -1;
    if (in_ring) s->rings[s->n_rings - 1].given |= vx_numerics_key_bit(k);
    else s->given |= vx_numerics_key_bit(k);
  }
  if (s->n_rings == 0) {
    snprintf(err, errlen, "scene %s: no [ring] section (a scene needs at least one ring)", name);
    return -1;
  }
  if (check_rings(s, name, err, errlen)) return -1;
  char why[256];
  if (vx_numerics_derive(s, why, sizeof why)) {
    snprintf(err, errlen, "scene %s: %s", name, why);
    return -1;
  }
  if (vx_dye_release_check(s->dye_release, s->dt, s->tracer_every, s->integrator, why, sizeof why)) {
    snprintf(err, errlen, "scene %s: %s", name, why); /* against the derived dt */
    return -1;
  }
  return check_rings(s, name, err, errlen); /* the derived layers against the radius */
}

int vx_scene_parse(const char *text, const char *name, vx_scene *s, char *err, size_t errlen) {
  int rc = parse_text(text, name, s, err, errlen);
  if (rc && errlen) scrub(err);
  return rc;
}

/* path opened for reading, never waiting (file_open.h). NULL with err. */
static FILE *open_regular(const char *path, char *err, size_t errlen) {
  const char *kind;
  const int fd = vx_open_regular(path, &kind);
  if (fd < 0) {
    if (kind) snprintf(err, errlen, "scene %s: not a regular file (%s)", path, kind);
    else snprintf(err, errlen, "scene %s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  FILE *f = fdopen(fd, "rb");
  if (!f) { snprintf(err, errlen, "scene %s: cannot open: %s", path, strerror(errno)); close(fd); }
  return f;
}

int vx_scene_load(const char *path, vx_scene *s, char *err, size_t errlen) {
  FILE *f = open_regular(path, err, errlen);
  if (!f) return -1;
  size_t cap = 1 << 14, n = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (!buf) { fclose(f); snprintf(err, errlen, "scene %s: out of memory", path); return -1; }
    n += fread(buf + n, 1, cap - 1 - n, f);
    if (n < cap - 1) break;
    if (cap > (64u << 20)) { free(buf); fclose(f); snprintf(err, errlen, "scene %s: file larger than 64 MiB", path); return -1; }
    char *nb = realloc(buf, cap * 2);
    if (!nb) free(buf);
    buf = nb;
    cap *= 2;
  }
  int rerr = ferror(f);
  fclose(f);
  if (rerr) { free(buf); snprintf(err, errlen, "scene %s: read error", path); return -1; }
  buf[n] = 0;
  if (memchr(buf, 0, n)) { free(buf); snprintf(err, errlen, "scene %s: not a text file (contains NUL bytes)", path); return -1; }
  int rc = vx_scene_parse(buf, path, s, err, errlen);
  free(buf);
  if (!rc) snprintf(s->path, sizeof s->path, "%s", path);
  return rc;
}

static int readable(const char *p) { return access(p, R_OK) == 0; }

int vx_scene_find(const char *name, const char *compiled_dir, const char *exe_dir, char *out, size_t outlen,
                  char *err, size_t errlen) {
  if (readable(name)) { snprintf(out, outlen, "%s", name); return 0; }
  /* a file that is there but may not be read (EACCES), or a path that cannot be followed: say so,
   * rather than "No such file" after the asset directories */
  int why = errno;
  struct stat sb;
  if (why != ENOENT && (strchr(name, '/') || stat(name, &sb) == 0)) {
    snprintf(err, errlen, "scene %s: cannot open: %s", name, strerror(why));
    return -1;
  }
  const char *dirs[3] = {getenv("VX_ASSETS_DIR"), compiled_dir, NULL};
  char exe_assets[1024] = "";
  if (exe_dir) {
    snprintf(exe_assets, sizeof exe_assets, "%s/../assets", exe_dir);
    dirs[2] = exe_assets;
  }
  char tried[1024] = "";
  size_t used = 0;
  int looks_like_path = strchr(name, '/') != NULL;
  for (int i = 0; i < 3 && !looks_like_path; ++i) {
    if (!dirs[i] || !*dirs[i]) continue;
    char cand[1024];
    size_t nl = strlen(name);
    int has_ext = nl > 6 && !strcmp(name + nl - 6, ".scene");
    snprintf(cand, sizeof cand, "%s/%s%s", dirs[i], name, has_ext ? "" : ".scene");
    if (readable(cand)) { snprintf(out, outlen, "%s", cand); return 0; }
    if (used < sizeof tried) used += (size_t)snprintf(tried + used, sizeof tried - used, "%s%s", used ? ", " : "", cand);
  }
  if (looks_like_path || !used)
    snprintf(err, errlen, "scene %s: cannot open: %s", name, strerror(ENOENT));
  else
    snprintf(err, errlen, "scene '%s' not found (no such file; tried %s)", name, tried);
  return -1;
}
