/* io/atomic_file.h — files that appear whole under their final name or not at all.
 *
 * Everything vortexfmm writes for a user (diagnostics, screenshots, checkpoints, scene files,
 * exports) goes through this: the bytes go to a temporary file beside the target
 * (PATH.tmp-PID-N), and commit() checks for write errors, flushes, fsyncs and renames it over PATH.
 * A failed write (full disk, removed directory) or an abort() removes the temporary file and leaves
 * any earlier PATH untouched. Errors are one line naming the file and the reason.
 * A PATH that exists and is not a regular file (a device such as /dev/null or /dev/full, a FIFO, a
 * terminal) is written in place: there is nothing to replace atomically, and a rename would put a
 * regular file where the device was. Its write errors are reported all the same; it is opened
 * without waiting, so a FIFO with no reader fails at open instead of hanging. A PATH that is a
 * directory is refused at open. Paths in messages are shortened in the middle when long
 * (base/path_text.h), so the reason at the end is never cut.
 *
 *   vx_afile a;
 *   if (vx_afile_open(&a, "out.csv", err, sizeof err)) return fail(err);
 *   fprintf(a.f, "...");
 *   if (vx_afile_commit(&a, err, sizeof err)) return fail(err);
 */
#ifndef VX_ATOMIC_FILE_H
#define VX_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vx_afile {
  FILE *f;         /* write to this (binary mode); NULL when closed */
  char *path;      /* final name */
  char *tmp;       /* temporary name beside it; NULL when PATH is written in place (a device, a FIFO) */
  int errnum;      /* errno of the first failed write vx_afile_failed saw; 0: none */
} vx_afile;

/* Opens a temporary file in PATH's directory (PATH itself when it is a device or a FIFO); on
 * failure *a is closed and err says why. */
int vx_afile_open(vx_afile *a, const char *path, char *err, size_t errlen);

/* Flushes, fsyncs, closes and renames the temporary file over the final name. On any failure the
 * temporary file is removed and err names the problem (e.g. "No space left on device"). */
int vx_afile_commit(vx_afile *a, char *err, size_t errlen);

/* Whether a write has failed so far (a full disk): a long run can stop at once rather than at its
 * end; commit then says why. */
int vx_afile_failed(vx_afile *a);

/* Closes and removes the temporary file (nothing appears under the final name). Safe to call on a
 * closed or zeroed vx_afile. */
void vx_afile_abort(vx_afile *a);

/* Writes n bytes to PATH atomically (open, write, commit). */
int vx_afile_write_all(const char *path, const void *data, size_t n, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
