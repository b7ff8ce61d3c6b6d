/* scene_list.c — the scene files of a directory for a scene picker (scene.h): each parsed as text
 * for its one-line description, a broken one kept with its parse error (or "not a regular file
 * (a FIFO)": none is opened in a way that waits); and the per-user scene directory of the XDG
 * base-directory convention. No particles are generated here. */
#define _POSIX_C_SOURCE 200809L

#include "scene.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_LEN 63 /* vx_scene_entry.name */

static int cmp_names(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

/* The .scene file names of dir that fit an entry's name, sorted (owned: free each, then the array). */
static int scene_files(const char *dir, char ***names, int *count, char *err, size_t errlen) {
  DIR *d = opendir(dir);
  if (!d) { snprintf(err, errlen, "cannot read the scene directory %s: %s", dir, strerror(errno)); return -1; }
  int n = 0, cap = 0;
  char **v = NULL;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t l = strlen(e->d_name);
    if (l <= 6 || l - 6 > NAME_MAX_LEN || strcmp(e->d_name + l - 6, ".scene") || e->d_name[0] == '.') continue;
    if (n == cap) {
      char **nv = realloc(v, sizeof *v * (size_t)(cap = cap ? 2 * cap : 16));
      if (!nv) break;
      v = nv;
    }
    if (!(v[n] = strdup(e->d_name))) break;
    ++n;
  }
  closedir(d);
  if (n > 1) qsort(v, (size_t)n, sizeof *v, cmp_names); /* qsort wants a non-null array even for none */
  *names = v;
  *count = n;
  return 0;
}

/* An entry for dir/file: the description, or why it does not load. vx_scene_load refuses what is not
 * a regular file (a directory named x.scene, a FIFO, a socket) without opening it for reading, so
 * that no entry can stall the listing. */
static void fill_entry(vx_scene_entry *en, const char *dir, const char *file, int origin) {
  vx_scene sc;
  memset(en, 0, sizeof *en);
  snprintf(en->path, sizeof en->path, "%.440s/%.63s", dir, file);
  snprintf(en->name, sizeof en->name, "%.*s", (int)(strlen(file) - 6), file);
  en->origin = origin;
  char err[1024], lead[600];
  if (vx_scene_load(en->path, &sc, err, sizeof err)) {
    /* the entry names the file: "scene PATH line 3: ..." is shown as "line 3: ..." */
    snprintf(lead, sizeof lead, "scene %s", en->path);
    size_t l = strlen(lead);
    const char *why = strncmp(err, lead, l) ? err : err + l + strspn(err + l, ": ");
    snprintf(en->error, sizeof en->error, "%.255s", why);
  } else snprintf(en->description, sizeof en->description, "%s", sc.description);
}

int vx_scene_list_dir(const char *dir, int origin, vx_scene_entry *list, int *n, int cap, char *err, size_t errlen) {
  char **names = NULL;
  int count = 0;
  if (scene_files(dir, &names, &count, err, errlen)) return -1;
  for (int i = 0; i < count; ++i) {
    if (*n < cap) fill_entry(&list[(*n)++], dir, names[i], origin);
    free(names[i]);
  }
  free(names);
  return 0;
}

int vx_scene_user_dir(char *out, size_t len) {
  const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
  int w;
  /* the specification: a relative $XDG_DATA_HOME is invalid and to be ignored */
  if (xdg && xdg[0] == '/') w = snprintf(out, len, "%s/vortexfmm/scenes", xdg);
  else if (home && *home) w = snprintf(out, len, "%s/.local/share/vortexfmm/scenes", home);
  else return -1;
  return w > 0 && (size_t)w < len ? 0 : -1;
}
