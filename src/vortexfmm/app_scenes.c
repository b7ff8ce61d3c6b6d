/* app_scenes.c — the scene picker's list (app.h: app_scenes_list): the built-in scenes of the assets
 * directory, those of --scene-dir and the per-user ones; a --scene NAME or FILE found among them,
 * and the view a scene opens on. */
#define _XOPEN_SOURCE 700 /* readlink, realpath */
#include "app.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The assets directory compiled in (CMake sets the source tree's). The environment variable
 * VX_ASSETS_DIR, read in app_scenes_list, names another one tried before it (a relocated install,
 * or a test's own scenes): the picker lists the first of them that holds scenes. */
#ifndef VX_ASSETS_DIR
#define VX_ASSETS_DIR "assets"
#endif

static void exe_dir(char *out, size_t len) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  out[0] = 0;
  if (n <= 0) return;
  buf[n] = 0;
  char *slash = strrchr(buf, '/');
  if (slash) *slash = 0;
  snprintf(out, len, "%s", buf);
}

/* The picker's list: the *.scene files of the first assets directory that has any (the
 * directories vx_scene_find tries), then those of --scene-dir, then those of the per-user
 * directory (vx_scene_user_dir; none there is no error). 0, or 2 with err when --scene-dir cannot
 * be read. */
int app_scenes_list(app *a, char *err, size_t errlen) {
  char ed[PATH_MAX], dirs[3][PATH_MAX + 16], e2[512];
  const int cap = APP_MAX_SCENES - 1; /* a place kept for a --scene given by path */
  exe_dir(ed, sizeof ed);
  const char *env = getenv("VX_ASSETS_DIR"); /* another assets directory, tried first (see above) */
  snprintf(dirs[0], sizeof dirs[0], "%s", env ? env : "");
  snprintf(dirs[1], sizeof dirs[1], "%s", VX_ASSETS_DIR);
  snprintf(dirs[2], sizeof dirs[2], "%s/../assets", ed);
  a->n_scenes = 0;
  for (int d = 0; d < 3 && a->n_scenes == 0; ++d)
    if (dirs[d][0]) vx_scene_list_dir(dirs[d], APP_SCENES_BUILTIN, a->scenes, &a->n_scenes, cap, e2, sizeof e2);
  const char *sd = a->opt.scene_dir;
  if (sd && vx_scene_list_dir(sd, APP_SCENES_DIR, a->scenes, &a->n_scenes, cap, e2, sizeof e2)) {
    snprintf(err, errlen, "--scene-dir: %s", e2);
    return 2;
  }
  char ud[PATH_MAX];
  if (!vx_scene_user_dir(ud, sizeof ud) && access(ud, F_OK) == 0 &&
      vx_scene_list_dir(ud, APP_SCENES_USER, a->scenes, &a->n_scenes, cap, e2, sizeof e2))
    app_message(a, "%s", e2);
  return 0;
}

/* A --scene NAME that vx_scene_find does not know, looked up among the listed --scene-dir and
 * per-user scenes. 0 with the path in out, or -1. */
static int find_listed(const app *a, const char *name, char *out, size_t outlen) {
  for (int i = 0; i < a->n_scenes; ++i)
    if (a->scenes[i].origin != APP_SCENES_BUILTIN && !strcmp(a->scenes[i].name, name)) {
      snprintf(out, outlen, "%s", a->scenes[i].path);
      return 0;
    }
  return -1;
}

int app_scene_find(const app *a, const char *name, char *path, size_t pathlen, char *err, size_t errlen) {
  char ed[PATH_MAX];
  exe_dir(ed, sizeof ed);
  if (vx_scene_find(name, VX_ASSETS_DIR, ed[0] ? ed : NULL, path, pathlen, err, errlen) &&
      find_listed(a, name, path, pathlen))
    return -1;
  return 0;
}

/* Index of the scene at path in the list, adding it (sc's name and description) when it is not
 * there; -1 when full. */
int app_scene_index(app *a, const char *path, const vx_scene *sc) {
  char rp[PATH_MAX], rq[PATH_MAX];
  const char *p = realpath(path, rp) ? rp : path;
  for (int i = 0; i < a->n_scenes; ++i) {
    const char *q = realpath(a->scenes[i].path, rq) ? rq : a->scenes[i].path;
    if (!strcmp(p, q)) return i;
  }
  if (a->n_scenes >= APP_MAX_SCENES) return -1;
  vx_scene_entry *en = &a->scenes[a->n_scenes];
  memset(en, 0, sizeof *en);
  snprintf(en->path, sizeof en->path, "%.511s", path);
  snprintf(en->name, sizeof en->name, "%.63s", sc->name);
  snprintf(en->description, sizeof en->description, "%s", sc->description);
  en->origin = APP_SCENES_ARG;
  return a->n_scenes++;
}

/* The view the scene opens on (and C returns to): its camera keys, rd_camera_init_axis's home view
 * about the rings' direction of travel (vx_scene_travel) around the elements' bounding sphere for what they leave out. */
void app_scene_camera(app *a) {
  const vx_scene_camera *k = &a->scene.camera;
  const double *target = k->has_target ? k->target : a->centre;
  vx_travel tr;
  vx_scene_travel(&a->scene, &tr);
  rd_camera_init_axis(&a->cam, target, a->radius, tr.dir);
  /* an eye on the elements' centroid (no camera_target) has no direction: the home view stays */
  if (k->has_position) rd_camera_look_at(&a->cam, k->position, target);
}
