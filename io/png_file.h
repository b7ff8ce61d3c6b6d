/* io/png_file.h — PNG files through libpng: written atomically (io/atomic_file.h) with a chosen
 * zlib level, from RGB or RGBA pixels in either row order, and read back as 8-bit RGB. Built with
 * the renderer (it needs libpng-dev, which only the renderer's build requires). */
#ifndef VX_PNG_FILE_H
#define VX_PNG_FILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Write w x h pixels of `channels` (3: RGB, or 4: RGBA, whose alpha is dropped), top row first
 * unless bottom_up (GL's order), to path atomically; level: zlib level 0..9, or -1 for libpng's
 * default. 0, or -1 with a one-line err naming the file. */
int vx_png_write_level(const char *path, const unsigned char *px, int w, int h, int channels, int bottom_up, int level,
                       char *err, size_t errlen);
/* Read a PNG as 8-bit RGB, top row first, into a malloc'd *rgb (the caller frees it). 0, or -1
 * with err. */
int vx_png_read(const char *path, unsigned char **rgb, int *w, int *h, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
