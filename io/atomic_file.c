/* io/atomic_file.c — temporary file, fsync, rename (io/atomic_file.h). POSIX. */
#define _POSIX_C_SOURCE 200809L
#include "atomic_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>

#include "path_text.h"

/* PATH as a message shows it: its middle cut when long, so the reason after it stays whole. */
#define SHOWN(path, buf) vx_path_short((path), VX_PATH_SHOWN, (buf), sizeof(buf))

static void afile_free(vx_afile *a) {
  free(a->path);
  free(a->tmp);
  a->path = a->tmp = NULL;
  a->f = NULL;
}

/* PATH itself, opened for writing in place (it exists and is a device or a FIFO). O_NONBLOCK: a FIFO
 * with no reader fails at once (ENXIO) instead of waiting for one; writes then block as usual. */
static int open_in_place(vx_afile *a, const char *path, char *err, size_t errlen) {
  char sp[VX_PATH_SHOWN + 8];
  a->path = strdup(path);
  int fd = a->path ? open(path, O_WRONLY | O_NONBLOCK) : -1;
  if (!a->path) errno = ENOMEM;
  if (fd >= 0) {
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) close(fd), fd = -1;
  }
  if (fd < 0 || !(a->f = fdopen(fd, "wb"))) {
    if (errno == ENXIO) snprintf(err, errlen, "cannot write %s: a FIFO or socket with no reader", SHOWN(path, sp));
    else snprintf(err, errlen, "cannot write %s: %s", SHOWN(path, sp), strerror(errno));
    if (fd >= 0) close(fd);
    afile_free(a);
    return -1;
  }
  return 0;
}

int vx_afile_open(vx_afile *a, const char *path, char *err, size_t errlen) {
  static unsigned counter;
  char sp[VX_PATH_SHOWN + 8];
  memset(a, 0, sizeof *a);
  if (!path || !*path) { snprintf(err, errlen, "empty output file name"); return -1; }
  struct stat sb;
  if (stat(path, &sb) == 0) {
    if (S_ISDIR(sb.st_mode)) { snprintf(err, errlen, "cannot write %s: %s", SHOWN(path, sp), strerror(EISDIR)); return -1; }
    if (!S_ISREG(sb.st_mode)) return open_in_place(a, path, err, errlen);
  }
  size_t n = strlen(path) + 48;
  a->path = strdup(path);
  a->tmp = malloc(n);
  if (!a->path || !a->tmp) { afile_free(a); snprintf(err, errlen, "%s: out of memory", SHOWN(path, sp)); return -1; }
  snprintf(a->tmp, n, "%s.tmp-%ld-%u", path, (long)getpid(), counter++);
  int fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0 || !(a->f = fdopen(fd, "wb"))) {
    snprintf(err, errlen, "cannot write %s: %s", SHOWN(path, sp), strerror(errno));
    if (fd >= 0) close(fd), unlink(a->tmp);
    afile_free(a);
    return -1;
  }
  return 0;
}

int vx_afile_failed(vx_afile *a) {
  if (!a->f || !ferror(a->f)) return 0;
  if (!a->errnum) a->errnum = errno ? errno : EIO;
  return 1;
}

int vx_afile_commit(vx_afile *a, char *err, size_t errlen) {
  char sp[VX_PATH_SHOWN + 8];
  if (!a->f) { snprintf(err, errlen, "%s: file already closed", a->path ? SHOWN(a->path, sp) : "(none)"); return -1; }
  const char *what = NULL;
  int e = 0;
  if (vx_afile_failed(a)) what = "write failed", e = a->errnum;
  else if (fflush(a->f)) what = "write failed", e = errno;
  else if (a->tmp && fsync(fileno(a->f))) what = "fsync failed", e = errno; /* a device may not fsync */
  if (fclose(a->f) && !what) what = "close failed", e = errno;
  a->f = NULL;
  if (!what && a->tmp && rename(a->tmp, a->path)) what = "rename failed", e = errno;
  if (what) {
    snprintf(err, errlen, "cannot write %s: %s (%s)", SHOWN(a->path, sp), what, strerror(e));
    if (a->tmp) unlink(a->tmp);
    afile_free(a);
    return -1;
  }
  afile_free(a);
  return 0;
}

void vx_afile_abort(vx_afile *a) {
  if (a->f) fclose(a->f);
  if (a->tmp) unlink(a->tmp);
  afile_free(a);
}

int vx_afile_write_all(const char *path, const void *data, size_t n, char *err, size_t errlen) {
  vx_afile a;
  char sp[VX_PATH_SHOWN + 8];
  if (vx_afile_open(&a, path, err, errlen)) return -1;
  if (n && fwrite(data, 1, n, a.f) != n) {
    snprintf(err, errlen, "cannot write %s: write failed (%s)", SHOWN(path, sp), strerror(errno ? errno : EIO));
    vx_afile_abort(&a);
    return -1;
  }
  return vx_afile_commit(&a, err, errlen);
}
