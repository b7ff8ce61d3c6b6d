/* file_open.h — input files opened without ever waiting. Opening a FIFO waits for a writer, and
 * reading a device or a socket may wait for ever: anything but a regular file is refused by its
 * kind before it can block (the scene loader, the checkpoint loader, a restart's VTK series). */
#ifndef VX_FILE_OPEN_H
#define VX_FILE_OPEN_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a file of mode m that is not a regular file is, for a message: "a FIFO", "a directory", ... */
const char *vx_file_kind(mode_t m);

/* path opened read-only in blocking mode when it is a regular file: the descriptor, else -1 with
 * *not_regular = vx_file_kind of what it is, or with *not_regular = NULL and errno (it cannot be
 * stat'ed or opened). The open itself is O_NONBLOCK and checked again with fstat, since the name may
 * change hands between the stat and the open. */
int vx_open_regular(const char *path, const char **not_regular);

#ifdef __cplusplus
}
#endif

#endif
