/* test_io_atomic.c — io/atomic_file: a committed file appears whole; an aborted or failed one
 * leaves nothing (and no earlier file damaged); errors name the file. */
#define _POSIX_C_SOURCE 200809L
#include "atomic_file.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_run.h"

static int fails;
#define CHECK(c, ...) do { if (!(c)) { printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); ++fails; } } while (0)


static int files_in(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
  if (d) closedir(d);
  return n;
}

int main(void) {
  char dir[] = "/tmp/vx_atomic_XXXXXX", path[256], buf[256], err[256];
  if (!mkdtemp(dir)) { printf("cannot make a temporary directory\n"); return 1; }
  snprintf(path, sizeof path, "%s/out.txt", dir);

  CHECK(vx_afile_write_all(path, "first\n", 6, err, sizeof err) == 0, "write_all: %s", err);
  CHECK((int)vx_test_read_file(path, buf, sizeof buf) == 6 && !strcmp(buf, "first\n"), "content '%s'", buf);

  vx_afile a;
  CHECK(vx_afile_open(&a, path, err, sizeof err) == 0, "open: %s", err);
  fputs("half-written", a.f);
  CHECK((int)vx_test_read_file(path, buf, sizeof buf) == 6 && !strcmp(buf, "first\n"), "final name changed before commit");
  CHECK(files_in(dir) == 2, "temporary file not beside the target (%d files)", files_in(dir));
  vx_afile_abort(&a);
  CHECK(files_in(dir) == 1 && (int)vx_test_read_file(path, buf, sizeof buf) == 6, "abort left %d files or changed the target",
        files_in(dir));
  vx_afile_abort(&a); /* twice: harmless */

  CHECK(vx_afile_open(&a, path, err, sizeof err) == 0, "open: %s", err);
  fputs("second\n", a.f);
  CHECK(vx_afile_commit(&a, err, sizeof err) == 0, "commit: %s", err);
  CHECK((int)vx_test_read_file(path, buf, sizeof buf) == 7 && !strcmp(buf, "second\n"), "content after commit '%s'", buf);
  CHECK(vx_afile_commit(&a, err, sizeof err) != 0, "a second commit succeeded");

  char bad[300];
  snprintf(bad, sizeof bad, "%s/no/such/dir/x.csv", dir);
  CHECK(vx_afile_open(&a, bad, err, sizeof err) != 0 && strstr(err, bad) && strstr(err, "No such file"),
        "missing directory: '%s'", err);
  CHECK(vx_afile_open(&a, "", err, sizeof err) != 0, "empty name accepted");

  /* A directory as the target is refused at open, leaving nothing; a commit whose rename fails
   * (the target became a directory after the open) removes the temporary file. */
  char sub[300], subf[320];
  snprintf(sub, sizeof sub, "%s/sub", dir);
  snprintf(subf, sizeof subf, "%s/sub/x", dir);
  mkdir(sub, 0755);
  CHECK(vx_afile_write_all(subf, "x", 1, err, sizeof err) == 0, "write sub/x: %s", err);
  CHECK(vx_afile_write_all(sub, "y", 1, err, sizeof err) != 0 && strstr(err, "Is a directory"), "directory target: '%s'", err);
  CHECK(files_in(dir) == 2, "a refused directory target left a temporary file (%d files)", files_in(dir));
  char late[300];
  snprintf(late, sizeof late, "%s/late", dir);
  CHECK(vx_afile_open(&a, late, err, sizeof err) == 0, "open late: %s", err);
  mkdir(late, 0755);
  fputs("z", a.f);
  CHECK(vx_afile_commit(&a, err, sizeof err) != 0 && strstr(err, "rename failed"), "rename over dir: '%s'", err);
  CHECK(files_in(dir) == 3, "failed commit left a temporary file (%d files)", files_in(dir));
  rmdir(late);

  /* A device is written in place (a rename would replace it by a regular file): /dev/null takes
   * anything; /dev/full, through a link, fails with ENOSPC at commit and the link stays a link. */
  CHECK(vx_afile_write_all("/dev/null", "n", 1, err, sizeof err) == 0, "/dev/null: %s", err);
  struct stat sb;
  CHECK(stat("/dev/null", &sb) == 0 && S_ISCHR(sb.st_mode), "/dev/null is no longer a device");
  char full[300];
  snprintf(full, sizeof full, "%s/full", dir);
  if (symlink("/dev/full", full) == 0) {
    CHECK(vx_afile_open(&a, full, err, sizeof err) == 0, "open %s: %s", full, err);
    if (a.f) fputs("row\n", a.f);
    CHECK(vx_afile_commit(&a, err, sizeof err) != 0 && strstr(err, "No space left"), "/dev/full: '%s'", err);
    CHECK(lstat(full, &sb) == 0 && S_ISLNK(sb.st_mode), "the link to /dev/full was replaced");
    unlink(full);
  }

  unlink(subf), rmdir(sub), unlink(path), rmdir(dir);
  if (fails) { printf("%d failures\n", fails); return 1; }
  printf("atomic files: all checks passed\n");
  return 0;
}
