/* file_open.c — input files opened without ever waiting (file_open.h). */
#define _POSIX_C_SOURCE 200809L

#include "file_open.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

const char *vx_file_kind(mode_t m) {
  return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : S_ISCHR(m) ? "a character device"
       : S_ISBLK(m) ? "a block device" : S_ISREG(m) ? "a regular file" : "of an unknown kind";
}

/* fd closed, errno kept. */
static int fail(int fd) {
  const int e = errno;
  close(fd);
  errno = e;
  return -1;
}

int vx_open_regular(const char *path, const char **not_regular) {
  struct stat sb;
  *not_regular = NULL;
  if (stat(path, &sb)) return -1;
  if (!S_ISREG(sb.st_mode)) {
    *not_regular = vx_file_kind(sb.st_mode);
    return -1;
  }
  const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return -1;
  if (fstat(fd, &sb)) return fail(fd);
  if (!S_ISREG(sb.st_mode)) {
    *not_regular = vx_file_kind(sb.st_mode);
    close(fd);
    return -1;
  }
  const int fl = fcntl(fd, F_GETFL);
  if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) return fail(fd);
  return fd;
}
