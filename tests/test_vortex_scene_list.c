/* test_vortex_scene_list.c — the scene picker's listing (io/scene_list.c): the *.scene files of
 * a temporary directory come back sorted by name, each with the description of its file; a broken
 * file is an entry with the parser's error (from its line number on: the entry names the file),
 * not a failure; other files and hidden files do not stop it; a directory and a FIFO named x.scene
 * are entries "not a regular file (a FIFO)" (the FIFO never opened: an alarm turns a hang into a
 * failure); the capacity is respected; a missing directory is an error; the per-user directory
 * follows $XDG_DATA_HOME, else $HOME. CPU, fast. Run: ctest -R scene_list */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, mkfifo, setenv */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scene.h"
#include "test_check.h"

static int put(const char *dir, const char *file, const char *text) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen(path, "w");
  int bad = !f || fputs(text, f) == EOF;
  if (f) bad |= fclose(f) != 0;
  if (bad) FAIL("cannot write %s", path);
  return bad;
}

static void check_entry(const vx_scene_entry *e, const char *name, const char *desc, const char *error) {
  if (strcmp(e->name, name)) { FAIL("entry '%s', expected '%s'", e->name, name); return; }
  if (strcmp(e->description, desc)) FAIL("%s: description '%s', expected '%s'", name, e->description, desc);
  if (error ? strncmp(e->error, error, strlen(error)) : e->error[0] != 0)
    FAIL("%s: error '%s', expected %s%s", name, e->error, error ? "one starting " : "none", error ? error : "");
  else printf("  ok: %-8s %s%s\n", e->name, e->error[0] ? "unavailable: " : "", e->error[0] ? e->error : e->description);
}

static void check_user_dir(void) {
  char out[512];
  setenv("XDG_DATA_HOME", "/data/x", 1);
  setenv("HOME", "/home/u", 1);
  if (vx_scene_user_dir(out, sizeof out) || strcmp(out, "/data/x/vortexfmm/scenes")) FAIL("XDG_DATA_HOME: '%s'", out);
  setenv("XDG_DATA_HOME", "relative", 1); /* the specification: a relative path is ignored */
  if (vx_scene_user_dir(out, sizeof out) || strcmp(out, "/home/u/.local/share/vortexfmm/scenes")) FAIL("relative XDG: '%s'", out);
  unsetenv("XDG_DATA_HOME");
  if (vx_scene_user_dir(out, sizeof out) || strcmp(out, "/home/u/.local/share/vortexfmm/scenes")) FAIL("HOME: '%s'", out);
  else printf("  ok: user scene directory %s\n", out);
  unsetenv("HOME");
  if (vx_scene_user_dir(out, sizeof out) == 0) FAIL("no HOME nor XDG_DATA_HOME, yet a user directory '%s'", out);
}

static void hung(int sig) {
  (void)sig;
  static const char msg[] = "FAIL: the listing waited on a FIFO (the watchdog fired)\n";
  if (write(STDOUT_FILENO, msg, sizeof msg - 1) < 0) _exit(EXIT_FAILURE);
  _exit(EXIT_FAILURE);
}

int main(void) {
  signal(SIGALRM, hung);
  alarm(60);
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/test_scene_list_XXXXXX", VX_BINARY_DIR);
  if (!mkdtemp(dir)) { printf("FAIL: cannot create a directory in %s\n", VX_BINARY_DIR); return EXIT_FAILURE; }
  /* written in an order other than the sorted one */
  if (put(dir, "zeta.scene", "description = Last by name\n[ring]\n") ||
      put(dir, "broken.scene", "description = never shown\n[ring]\nradius = -1\n") ||
      put(dir, "alpha.scene", "name = first\ndescription = Two rings, side on: a test\ncamera_follow = on\n[ring]\n") ||
      put(dir, "plain.scene", "[ring]\n") || put(dir, "notes.txt", "not a scene\n") ||
      put(dir, ".hidden.scene", "[ring]\n"))
    return EXIT_FAILURE;
  char sub[1100];
  snprintf(sub, sizeof sub, "%s/folder.scene", dir);
  if (mkdir(sub, 0777)) { FAIL("cannot create %s", sub); return EXIT_FAILURE; }
  snprintf(sub, sizeof sub, "%s/pipe.scene", dir);
  if (mkfifo(sub, 0600)) { FAIL("cannot create the FIFO %s", sub); return EXIT_FAILURE; }

  vx_scene_entry list[8];
  int n = 1;                   /* appended after what the list holds */
  strcpy(list[0].name, "kept");
  char err[512];
  if (vx_scene_list_dir(dir, 7, list, &n, 8, err, sizeof err)) { FAIL("listing failed: %s", err); return EXIT_FAILURE; }
  printf("  %d entries after the one already there\n", n - 1);
  if (n != 7 || strcmp(list[0].name, "kept")) FAIL("%d entries (expected 1 + 6), first '%s'", n, list[0].name);
  else {
    check_entry(&list[1], "alpha", "Two rings, side on: a test", NULL);
    check_entry(&list[2], "broken", "", "line 3: bad value for 'radius': '-1'");
    check_entry(&list[3], "folder", "", "not a regular file (a directory)");
    check_entry(&list[4], "pipe", "", "not a regular file (a FIFO)");
    check_entry(&list[5], "plain", "", NULL);
    check_entry(&list[6], "zeta", "Last by name", NULL);
    if (list[3].origin != 7 || !strstr(list[1].path, "/alpha.scene")) FAIL("origin %d, path '%s'", list[3].origin, list[1].path);
  }
  /* the capacity: two places left, the first two by name */
  n = 0;
  if (vx_scene_list_dir(dir, 0, list, &n, 2, err, sizeof err) || n != 2 || strcmp(list[1].name, "broken"))
    FAIL("capacity 2: %d entries, second '%s'", n, n > 1 ? list[1].name : "");
  n = 0;
  if (vx_scene_list_dir("/nonexistent-scenes", 0, list, &n, 8, err, sizeof err) == 0 || n != 0 ||
      !strstr(err, "/nonexistent-scenes: No such file or directory"))
    FAIL("a missing directory: rc 0 or error '%s'", err);
  else printf("  ok: %s\n", err);
  check_user_dir();

  if (failures) { printf("%d check(s) failed (files kept in %s)\n", failures, dir); return EXIT_FAILURE; }
  char cmd[1100];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) printf("  (could not remove %s)\n", dir);
  printf("scene list checks passed\n");
  return EXIT_SUCCESS;
}
