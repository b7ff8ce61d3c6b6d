/* path_text.h — a path made to fit a message: long paths lose their middle, not their end, so the
 * reason that follows a path in a fixed-size error buffer is never cut off. */
#ifndef VX_PATH_TEXT_H
#define VX_PATH_TEXT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The longest path a message shows whole (bytes); longer ones keep their head and tail. */
#define VX_PATH_SHOWN 160

/* path into out (len bytes, at least 16): itself when it fits in max bytes (and in out), else its
 * head and tail around "…", cut between UTF-8 characters. Returns out. */
const char *vx_path_short(const char *path, size_t max, char *out, size_t len);

#ifdef __cplusplus
}
#endif
#endif
