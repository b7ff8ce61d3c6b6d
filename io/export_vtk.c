/* export_vtk.c — VTK XML PolyData snapshots (.vtp) and their ParaView collection (.pvd) of a
 * vortex-particle state (export_vtk.h), and a restart's continuation of the collection it finds.
 * Host code; the files follow "VTK File Formats" (Kitware, XML formats: PolyData, appended raw data
 * with UInt64 headers). */
#define _POSIX_C_SOURCE 200809L /* mkdir, fdopen, O_CLOEXEC */

#include "export_vtk.h"
#include "file_open.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"

/* ------------------------------------------------------------------ one .vtp */

enum { ARR_POS, ARR_CONN, ARR_OFFS, ARR_ALPHA, ARR_VEL, ARR_VORT, ARR_TYPE, ARR_RING, ARR_N };

/* Bytes of each appended block's data (its UInt64 size header not included). */
static void block_sizes(const vx_vtk_frame *fr, uint64_t sz[ARR_N]) {
  uint64_t n = (uint64_t)fr->n_elem + (uint64_t)fr->n_tracer;
  sz[ARR_POS] = sz[ARR_ALPHA] = sz[ARR_VEL] = 24 * n;
  sz[ARR_CONN] = sz[ARR_OFFS] = 8 * n;
  sz[ARR_VORT] = 8 * n;
  sz[ARR_TYPE] = sz[ARR_RING] = 4 * n;
}

static void data_array(FILE *f, const char *type, const char *name, int comps, uint64_t offset) {
  fprintf(f, "        <DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"appended\" offset=\"%llu\"/>\n",
          type, name, comps, (unsigned long long)offset);
}

static void xml_header(FILE *f, const vx_vtk_frame *fr, const uint64_t sz[ARR_N]) {
  uint64_t off[ARR_N], o = 0;
  for (int i = 0; i < ARR_N; ++i) { off[i] = o; o += 8 + sz[i]; }
  long long n = (long long)fr->n_elem + fr->n_tracer;
  fprintf(f, "<?xml version=\"1.0\"?>\n<!-- vortexfmm particle snapshot: elements then tracers (vortex/export_vtk.h) -->\n");
  fprintf(f, "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <PolyData>\n");
  fprintf(f, "    <FieldData>\n");
  fprintf(f, "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">%.17g</DataArray>\n", fr->t);
  fprintf(f, "      <DataArray type=\"Int64\" Name=\"step\" NumberOfTuples=\"1\" format=\"ascii\">%lld</DataArray>\n", fr->step);
  fprintf(f, "      <DataArray type=\"Float64\" Name=\"particle_volume\" NumberOfTuples=\"1\" format=\"ascii\">%.17g</DataArray>\n",
          fr->volume);
  fprintf(f, "    </FieldData>\n");
  fprintf(f, "    <Piece NumberOfPoints=\"%lld\" NumberOfVerts=\"%lld\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n", n, n);
  fprintf(f, "      <Points>\n");
  data_array(f, "Float64", "Points", 3, off[ARR_POS]);
  fprintf(f, "      </Points>\n      <Verts>\n");
  data_array(f, "Int64", "connectivity", 1, off[ARR_CONN]);
  data_array(f, "Int64", "offsets", 1, off[ARR_OFFS]);
  fprintf(f, "      </Verts>\n      <PointData Vectors=\"velocity\" Scalars=\"vorticity_magnitude\">\n");
  data_array(f, "Float64", "alpha", 3, off[ARR_ALPHA]);
  data_array(f, "Float64", "velocity", 3, off[ARR_VEL]);
  data_array(f, "Float64", "vorticity_magnitude", 1, off[ARR_VORT]);
  data_array(f, "Int32", "type", 1, off[ARR_TYPE]);
  data_array(f, "Int32", "ring", 1, off[ARR_RING]);
  fprintf(f, "      </PointData>\n    </Piece>\n  </PolyData>\n  <AppendedData encoding=\"raw\">\n   _");
}

/* The value of array `which` at point i, as raw bytes into out (returns the byte count). The
 * files are little-endian: the host is assumed to be (x86-64, AArch64). */
static size_t point_value(const vx_vtk_frame *fr, int which, long long i, unsigned char *out) {
  long long ne = fr->n_elem;
  int elem = i < ne;
  double d[3] = {0, 0, 0};
  int64_t l;
  int32_t k;
  switch (which) {
    case ARR_POS: memcpy(d, fr->pos + 3 * i, sizeof d); break;
    case ARR_CONN: l = i; memcpy(out, &l, 8); return 8;
    case ARR_OFFS: l = i + 1; memcpy(out, &l, 8); return 8;
    case ARR_ALPHA: if (elem) memcpy(d, fr->alpha + 3 * i, sizeof d); break;
    case ARR_VEL: if (fr->vel) memcpy(d, fr->vel + 3 * i, sizeof d); break;
    case ARR_VORT: {
      const double *a = fr->alpha + 3 * i;
      double m = elem ? sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) / fr->volume : 0.0;
      memcpy(out, &m, 8);
      return 8;
    }
    case ARR_TYPE: k = elem ? 0 : 1; memcpy(out, &k, 4); return 4;
    default: k = elem ? (fr->ring ? fr->ring[i] : 0) : -1; memcpy(out, &k, 4); return 4;
  }
  memcpy(out, d, sizeof d);
  return sizeof d;
}

static void appended_data(FILE *f, const vx_vtk_frame *fr, const uint64_t sz[ARR_N]) {
  long long n = (long long)fr->n_elem + fr->n_tracer;
  unsigned char buf[24];
  for (int a = 0; a < ARR_N; ++a) {
    fwrite(&sz[a], 8, 1, f);
    for (long long i = 0; i < n; ++i) fwrite(buf, 1, point_value(fr, a, i, buf), f);
  }
  fprintf(f, "\n  </AppendedData>\n</VTKFile>\n");
}

int vx_vtk_write_vtp(const char *path, const vx_vtk_frame *fr, char *err, size_t errlen) {
  if (!(fr->volume > 0.0)) { snprintf(err, errlen, "cannot write %s: particle volume %g is not > 0", path, fr->volume); return -1; }
  vx_afile a;
  if (vx_afile_open(&a, path, err, errlen)) return -1;
  uint64_t sz[ARR_N];
  block_sizes(fr, sz);
  xml_header(a.f, fr, sz);
  appended_data(a.f, fr, sz);
  return vx_afile_commit(&a, err, errlen);
}

/* V = h³: h the remeshing lattice spacing when remeshing has happened, else σ. */
static double particle_volume(vx_sim *s) {
  const vx_remesh_stats *r = vx_sim_remesh_stats(s);
  double h = r->count > 0 && r->h > 0 ? r->h : vx_sim_params_get(s)->sigma;
  return h * h * h;
}

/* ------------------------------------------------------------------ the series */

typedef struct {
  double t;
  char file[96];
} vtk_entry;

struct vx_vtk_series {
  char dir[1024], stem[64], pvd[1200];
  vtk_entry *e;
  int n, cap;
};

/* mkdir -p: every missing component of dir. */
static int make_dirs(const char *dir, char *err, size_t errlen) {
  char p[1024];
  size_t n = strlen(dir);
  if (n == 0 || n >= sizeof p) { snprintf(err, errlen, "bad VTK directory '%s'", dir); return -1; }
  memcpy(p, dir, n + 1);
  for (size_t i = 1; i <= n; ++i) {
    if (p[i] != '/' && p[i] != 0) continue;
    char c = p[i];
    p[i] = 0;
    struct stat st;
    int e = 0;
    if (stat(p, &st) == 0) e = S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    else if (mkdir(p, 0777) != 0 && errno != EEXIST) e = errno;
    if (e) {
      snprintf(err, errlen, "cannot create the VTK directory %s: %s (at %s)", dir, strerror(e), p);
      return -1;
    }
    p[i] = c;
  }
  return 0;
}

/* A series of no snapshots yet: DIR made, STEM sanitised, the .pvd's path. NULL with err. */
static vx_vtk_series *series_new(const char *dir, const char *stem, char *err, size_t errlen) {
  if (make_dirs(dir, err, errlen)) return NULL;
  vx_vtk_series *v = calloc(1, sizeof *v);
  if (!v) { snprintf(err, errlen, "out of memory"); return NULL; }
  snprintf(v->dir, sizeof v->dir, "%s", dir);
  snprintf(v->stem, sizeof v->stem, "%s", *stem ? stem : "scene");
  for (char *c = v->stem; *c; ++c) /* a scene name may hold spaces or slashes: not in a file name */
    if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_' && *c != '.') *c = '_';
  snprintf(v->pvd, sizeof v->pvd, "%s/%s.pvd", dir, v->stem);
  return v;
}

/* Can the .pvd be written there? (a read-only directory, or one of another user) 0, or -1 with err. */
static int probe_pvd(const vx_vtk_series *v, char *err, size_t errlen) {
  vx_afile probe;
  if (vx_afile_open(&probe, v->pvd, err, errlen)) return -1;
  vx_afile_abort(&probe);
  return 0;
}

vx_vtk_series *vx_vtk_series_create(const char *dir, const char *stem, char *err, size_t errlen) {
  vx_vtk_series *v = series_new(dir, stem, err, errlen);
  if (v && probe_pvd(v, err, errlen)) { free(v); return NULL; }
  return v;
}

static int write_pvd(const vx_vtk_series *v, char *err, size_t errlen) {
  vx_afile a;
  if (vx_afile_open(&a, v->pvd, err, errlen)) return -1;
  fprintf(a.f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n  <Collection>\n");
  for (int i = 0; i < v->n; ++i)
    fprintf(a.f, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"%s\"/>\n", v->e[i].t, v->e[i].file);
  fprintf(a.f, "  </Collection>\n</VTKFile>\n");
  return vx_afile_commit(&a, err, errlen);
}

static int add_entry(vx_vtk_series *v, double t, const char *file, char *err, size_t errlen) {
  if (v->n == v->cap) {
    int cap = v->cap ? 2 * v->cap : 64;
    vtk_entry *e = realloc(v->e, sizeof *e * (size_t)cap);
    if (!e) { snprintf(err, errlen, "out of memory for the VTK collection"); return -1; }
    v->e = e, v->cap = cap;
  }
  v->e[v->n].t = t;
  snprintf(v->e[v->n].file, sizeof v->e[v->n].file, "%s", file);
  v->n++;
  return 0;
}

/* ------------------------------------------------------------------ a restart's series */

/* The existing .pvd opened for reading, never waiting (file_open.h). NULL with *absent = 1 when
 * there is none; NULL with err when it cannot be read. */
static FILE *open_pvd(const char *path, int *absent, char *err, size_t errlen) {
  const char *kind;
  const int fd = vx_open_regular(path, &kind);
  *absent = 0;
  if (fd < 0) {
    *absent = !kind && errno == ENOENT;
    if (kind) snprintf(err, errlen, "cannot continue the series of %s: not a regular file (%s)", path, kind);
    else snprintf(err, errlen, "cannot continue the series of %s: %s", path, strerror(errno));
    return NULL;
  }
  FILE *f = fdopen(fd, "r");
  if (!f) { snprintf(err, errlen, "cannot continue the series of %s: %s", path, strerror(errno)); close(fd); }
  return f;
}

/* The value of the attribute name="..." of a line into out (len bytes). 0, or -1. */
static int attribute(const char *line, const char *name, char *out, size_t len) {
  char key[32];
  snprintf(key, sizeof key, " %s=\"", name);
  const char *p = strstr(line, key);
  if (!p) return -1;
  p += strlen(key);
  const char *q = strchr(p, '"');
  if (!q || (size_t)(q - p) >= len) return -1;
  memcpy(out, p, (size_t)(q - p));
  out[q - p] = 0;
  return 0;
}

/* One <DataSet timestep="T" ... file="F"/> line as write_pvd writes it: kept when T < t and DIR/F
 * is a file. 0, -1 (out of memory, with err), or 1: not such a line. */
static int dataset_line(vx_vtk_series *v, const char *line, double t, char *err, size_t errlen) {
  char ts[64], file[sizeof v->e[0].file], *end, path[1400];
  size_t n = strlen(line);
  if (strncmp(line, "<DataSet ", 9) || n < 2 || strcmp(line + n - 2, "/>") || attribute(line, "timestep", ts, sizeof ts) ||
      attribute(line, "file", file, sizeof file) || !file[0] || strchr(file, '/'))
    return 1;
  errno = 0;
  double ti = strtod(ts, &end);
  if (end == ts || *end || errno || !isfinite(ti)) return 1;
  snprintf(path, sizeof path, "%s/%s", v->dir, file);
  struct stat sb;
  if (!(ti < t) || stat(path, &sb) || !S_ISREG(sb.st_mode)) return 0;
  return add_entry(v, ti, file, err, errlen);
}

static char *trim_line(char *s) {
  while (*s == ' ' || *s == '\t') ++s;
  size_t n = strlen(s);
  while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = 0;
  return s;
}

/* The entries of the collection f (write_pvd's layout, line by line) before time t into v. 0; -1
 * out of memory; or -2 with err naming the first line that is not of that layout. */
static int read_collection(vx_vtk_series *v, FILE *f, double t, char *err, size_t errlen) {
  static const char *const frame[] = {"<?xml", "<VTKFile type=\"Collection\"", "<Collection>", "</Collection>",
                                      "</VTKFile>"};
  char buf[1024];
  int part = 0, line = 0; /* part: the frame lines matched so far; DataSet lines come after the third */
  while (fgets(buf, sizeof buf, f)) {
    ++line;
    int whole = strchr(buf, '\n') || feof(f);
    char *l = trim_line(buf);
    if (!*l && whole) continue;
    int rc = 1;
    if (whole && part < 5 && !strncmp(l, frame[part], strlen(frame[part]))) rc = 0, ++part;
    else if (whole && part == 3) rc = dataset_line(v, l, t, err, errlen);
    if (rc < 0) return -1;
    if (rc > 0) {
      for (unsigned char *c = (unsigned char *)l; *c; ++c) /* the message stays one printable line */
        if (*c < 0x20 || *c == 0x7f) *c = '?';
      snprintf(err, errlen, "cannot continue the series of %s: line %d is not of a collection vortexfmm writes ('%.60s'); "
               "move the file away to start a new series", v->pvd, line, l);
      return -2;
    }
  }
  if (ferror(f)) { snprintf(err, errlen, "cannot continue the series of %s: read error", v->pvd); return -2; }
  if (part < 5) {
    snprintf(err, errlen, "cannot continue the series of %s: it ends at line %d, before its collection does; move the "
             "file away to start a new series", v->pvd, line);
    return -2;
  }
  return 0;
}

int vx_vtk_series_resume(const char *dir, const char *stem, double t, vx_vtk_series **out, char *err, size_t errlen) {
  *out = NULL;
  vx_vtk_series *v = series_new(dir, stem, err, errlen);
  if (!v) return -1;
  int absent, rc = 0;
  FILE *f = open_pvd(v->pvd, &absent, err, errlen);
  if (f) {
    rc = read_collection(v, f, t, err, errlen);
    fclose(f);
  } else if (!absent) rc = -2;
  if (!rc && probe_pvd(v, err, errlen)) rc = -1;
  if (rc) {
    vx_vtk_series_destroy(v);
    return rc;
  }
  *out = v;
  return 0;
}

int vx_vtk_series_add(vx_vtk_series *v, vx_sim *s, char *err, size_t errlen) {
  int ne = vx_sim_n_elements(s), nt = vx_sim_n_tracers(s);
  size_t n = (size_t)ne + (size_t)nt;
  double *buf = malloc(sizeof(double) * (6 * n + 3 * (size_t)ne) + 1);
  if (!buf) { snprintf(err, errlen, "out of memory for a VTK snapshot of %zu points", n); return -1; }
  double *pos = buf, *vel = buf + 3 * n, *alpha = buf + 6 * n;
  vx_vtk_frame fr = {ne, nt, pos, alpha, vel, vx_sim_rings(s), particle_volume(s), vx_sim_time(s), vx_sim_steps_done(s)};
  char file[96], path[1400];
  snprintf(file, sizeof file, "%s_%06lld.vtp", v->stem, fr.step);
  snprintf(path, sizeof path, "%s/%s", v->dir, file);
  int rc = vx_sim_get_elements(s, pos, alpha, err, errlen);
  if (!rc) rc = vx_sim_get_tracers(s, pos + 3 * (size_t)ne, err, errlen);
  if (!rc) rc = vx_sim_point_velocity(s, vel, err, errlen);
  if (!rc) rc = vx_vtk_write_vtp(path, &fr, err, errlen);
  free(buf);
  if (!rc) rc = add_entry(v, fr.t, file, err, errlen);
  return rc ? -1 : write_pvd(v, err, errlen);
}

void vx_vtk_series_destroy(vx_vtk_series *v) {
  if (!v) return;
  free(v->e);
  free(v);
}
