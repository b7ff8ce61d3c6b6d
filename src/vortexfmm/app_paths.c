/* app_paths.c — a run's files checked against each other before anything is written (app_paths.h):
 * outputs never overwrite an input or each other, and an output file is one a write cannot hang on.
 * Each path is identified once (stat, real path); then the single-path rules, then every pair. */
#define _XOPEN_SOURCE 700 /* realpath, readlink */

#include "app_paths.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scene.h"

#define PROG "vortexfmm"
/* The assets directory compiled in (CMake sets the source tree's), where --scene NAME is looked up. */
#ifndef VX_ASSETS_DIR
#define VX_ASSETS_DIR "assets"
#endif

/* A path as the checks see it: the file's identity when it exists, and its absolute name (its
 * directory's real path, then its last component) either way. */
typedef struct {
  int exists;
  struct stat st;
  char abs[2 * PATH_MAX];
  size_t dirlen; /* abs[0..dirlen) is the directory, abs + dirlen + 1 the name */
} ident;

void app_paths_add(app_paths *ps, app_path_kind kind, const char *opt, const char *path, const char *series) {
  if (!path || ps->n >= APP_PATHS_MAX) return;
  ps->p[ps->n].kind = kind;
  ps->p[ps->n].opt = opt;
  ps->p[ps->n].path = path;
  ps->p[ps->n].series = series;
  ps->n++;
}

int app_find_scene(const char *name, char *path, size_t pathlen, char *err, size_t errlen) {
  char exe_dir[PATH_MAX] = "";
  ssize_t nl = readlink("/proc/self/exe", exe_dir, sizeof exe_dir - 1);
  if (nl > 0) {
    exe_dir[nl] = 0;
    char *slash = strrchr(exe_dir, '/');
    if (slash) *slash = 0;
  }
  return vx_scene_find(name, VX_ASSETS_DIR, nl > 0 ? exe_dir : NULL, path, pathlen, err, errlen) ? -1 : 0;
}

/* The absolute name of a path that does not exist (or cannot be resolved): the real path of its
 * directory, else that directory as given (from the working directory when relative), and its name. */
static void absolute_name(const char *path, char *out, size_t len) {
  char dir[PATH_MAX], rp[PATH_MAX], cwd[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", path);
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') dir[--n] = 0; /* "out/" names out */
  char *slash = strrchr(dir, '/');
  const char *name = slash ? slash + 1 : dir;
  const char *d = !slash ? "." : slash == dir ? "/" : (*slash = 0, dir);
  if (realpath(d, rp)) snprintf(out, len, "%s/%s", strcmp(rp, "/") ? rp : "", name);
  else if (d[0] == '/') snprintf(out, len, "%s/%s", d, name);
  else snprintf(out, len, "%s/%s/%s", getcwd(cwd, sizeof cwd) ? cwd : ".", d, name);
}

static void identify(const char *path, ident *id) {
  char rp[PATH_MAX];
  memset(id, 0, sizeof *id);
  id->exists = stat(path, &id->st) == 0;
  if (id->exists && realpath(path, rp)) snprintf(id->abs, sizeof id->abs, "%s", rp);
  else absolute_name(path, id->abs, sizeof id->abs);
  const char *slash = strrchr(id->abs, '/');
  id->dirlen = slash ? (size_t)(slash - id->abs) : 0;
}

static int same_file(const ident *a, const ident *b) {
  if (a->exists && b->exists && a->st.st_dev == b->st.st_dev && a->st.st_ino == b->st.st_ino) return 1;
  return !strcmp(a->abs, b->abs);
}

/* Whether st is the file a name stands for (/dev/null), or the one an open descriptor is (fd >= 0). */
static int is_that(const struct stat *st, const char *name, int fd) {
  struct stat o;
  if (fd >= 0 ? fstat(fd, &o) : stat(name, &o)) return 0;
  if (S_ISCHR(st->st_mode) && S_ISCHR(o.st_mode)) return st->st_rdev == o.st_rdev;
  return st->st_dev == o.st_dev && st->st_ino == o.st_ino;
}

/* An output file that exists and is no regular file: what it is when a write to it could hang or
 * cannot be a file at all, else NULL. /dev/null, /dev/full (a full disk, reported as a write error)
 * and the program's own standard output and error (/dev/stdout, /dev/stderr) are written in place. */
static const char *not_a_file(const struct stat *st) {
  if (S_ISREG(st->st_mode)) return NULL;
  if (S_ISDIR(st->st_mode)) return "a directory: give a file name";
  if (is_that(st, "/dev/null", -1) || is_that(st, "/dev/full", -1) || is_that(st, NULL, 1) || is_that(st, NULL, 2))
    return NULL;
  if (S_ISFIFO(st->st_mode)) return "a FIFO: give a regular file (or /dev/null, /dev/stdout)";
  if (S_ISSOCK(st->st_mode)) return "a socket: give a regular file (or /dev/null, /dev/stdout)";
  return "a device: give a regular file (or /dev/null, /dev/stdout)";
}

/* The file name a --vtk-dir series' files start with: the series' name as io/export_vtk.c makes a
 * file name of it. */
static void vtk_stem(const char *series, char *out, size_t len) {
  snprintf(out, len, "%s", series && *series ? series : "scene");
  for (char *c = out; *c; ++c)
    if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_' && *c != '.') *c = '_';
}

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), t = strlen(tail);
  return n >= t && !strcmp(s + n - t, tail);
}

/* Whether the file f is one the series directory d (entry k of ps) writes: in it, under a name of
 * the series (frame_NNNNN.png; STEM_NNNNNN.vtp, STEM.pvd). */
static int in_series(const app_paths *ps, int k, const ident *d, const ident *f) {
  if (f->dirlen != strlen(d->abs) || strncmp(f->abs, d->abs, f->dirlen)) return 0;
  const char *name = f->abs + f->dirlen + 1;
  if (ps->p[k].kind == APP_PATH_PNG_DIR) return !strncmp(name, "frame_", 6) && ends_with(name, ".png");
  if (ps->p[k].kind != APP_PATH_VTK_DIR) return 0;
  char stem[80], pvd[96];
  vtk_stem(ps->p[k].series, stem, sizeof stem);
  snprintf(pvd, sizeof pvd, "%s.pvd", stem);
  return !strcmp(name, pvd) || (!strncmp(name, stem, strlen(stem)) && name[strlen(stem)] == '_' && ends_with(name, ".vtp"));
}

static int is_dir_kind(app_path_kind k) { return k == APP_PATH_PNG_DIR || k == APP_PATH_VTK_DIR || k == APP_PATH_DIR; }

/* The pair i, j (i < j): 0, or 2 with the clash said. The output is named first. */
static int check_pair(const app_paths *ps, const ident *id, int i, int j) {
  const app_path_kind ki = ps->p[i].kind, kj = ps->p[j].kind;
  if (ki == APP_PATH_INPUT && kj == APP_PATH_INPUT) return 0;
  const int o = ki == APP_PATH_INPUT ? j : i, other = o == i ? j : i; /* o: an output */
  if (is_dir_kind(ki) && is_dir_kind(kj)) return 0; /* two directories: their files' names differ */
  if (same_file(&id[i], &id[j])) {
    fprintf(stderr, PROG ": %s %s is the file given to %s: choose another path\n", ps->p[o].opt, ps->p[o].path,
            ps->p[other].opt);
    return 2;
  }
  const int d = is_dir_kind(ki) ? i : is_dir_kind(kj) ? j : -1, f = d == i ? j : i;
  if (d >= 0 && in_series(ps, d, &id[d], &id[f])) {
    fprintf(stderr, PROG ": %s %s is a file that %s %s writes: choose another path\n", ps->p[f].opt, ps->p[f].path,
            ps->p[d].opt, ps->p[d].path);
    return 2;
  }
  return 0;
}

int app_paths_check(const app_paths *ps) {
  ident id[APP_PATHS_MAX];
  for (int i = 0; i < ps->n; ++i)
    if (!ps->p[i].path[0]) {
      fprintf(stderr, PROG ": %s: empty path\n", ps->p[i].opt);
      return 2;
    }
  for (int i = 0; i < ps->n; ++i) {
    identify(ps->p[i].path, &id[i]);
    const char *why = ps->p[i].kind == APP_PATH_FILE && id[i].exists ? not_a_file(&id[i].st) : NULL;
    if (why) {
      fprintf(stderr, PROG ": %s %s is %s\n", ps->p[i].opt, ps->p[i].path, why);
      return 2;
    }
  }
  for (int i = 0; i < ps->n; ++i)
    for (int j = i + 1; j < ps->n; ++j)
      if (check_pair(ps, id, i, j)) return 2;
  return 0;
}
