/* app_paths.h — the files a run reads and writes, checked against each other before anything is
 * written (app_paths.c): no output may be an input (the --scene file as found, the --restart
 * file), another output, or a file a --png-dir / --vtk-dir series writes; an output file may not be
 * a directory, a FIFO, a socket or a device other than /dev/null, /dev/full and the program's own
 * standard output or error. Paths are compared by identity: the device and inode of a file that
 * exists, else the absolute path through the real path of its directory. */
#ifndef VX_APP_PATHS_H
#define VX_APP_PATHS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a path is to the run. */
typedef enum {
  APP_PATH_INPUT,    /* a file read (--scene, --restart) */
  APP_PATH_FILE,     /* a file written (--diag, --checkpoint, --record, --screenshot) */
  APP_PATH_PNG_DIR,  /* a directory of frame_NNNNN.png (--png-dir) */
  APP_PATH_VTK_DIR,  /* a directory of SERIES_NNNNNN.vtp and SERIES.pvd (--vtk-dir) */
  APP_PATH_DIR       /* a directory written into under names not known up front (the window's --png-dir) */
} app_path_kind;

#define APP_PATHS_MAX 12
typedef struct {
  struct {
    app_path_kind kind;
    const char *opt, *path; /* the option that gave it ("--diag"), the path as given */
    const char *series;     /* APP_PATH_VTK_DIR: the series' name (the scene's) */
  } p[APP_PATHS_MAX];
  int n;
} app_paths;

/* A path of the run (NULL: not given; ignored). series: see above, else NULL. */
void app_paths_add(app_paths *ps, app_path_kind kind, const char *opt, const char *path, const char *series);

/* The rules above, and every path not empty. 0, or 2 with one line said on stderr naming the
 * option(s), the path and what to do. */
int app_paths_check(const app_paths *ps);

/* The scene NAME or FILE as --scene finds it (vx_scene_find: a path, or NAME.scene in the assets
 * directories compiled in or beside the program). 0 with the file in path, or -1 with err. */
int app_find_scene(const char *name, char *path, size_t pathlen, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
