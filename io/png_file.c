/* io/png_file.c — PNG files (png_file.h): written through libpng's full API, where the zlib level
 * is chosen and write errors (a full disk) come back as one line, into an atomic file
 * (atomic_file.h); read through libpng's simplified API. */
#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "png_file.h"

int vx_png_read(const char *path, unsigned char **rgb, int *w, int *h, char *err, size_t errlen) {
  png_image img;
  memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  *rgb = NULL;
  if (!png_image_begin_read_from_file(&img, path)) {
    snprintf(err, errlen, "cannot read %s: %s", path, img.message[0] ? img.message : "libpng error");
    return -1;
  }
  img.format = PNG_FORMAT_RGB;
  unsigned char *buf = malloc(PNG_IMAGE_SIZE(img));
  if (!buf) {
    png_image_free(&img);
    snprintf(err, errlen, "out of host memory reading %s", path);
    return -1;
  }
  if (!png_image_finish_read(&img, NULL, buf, 0, NULL)) {
    snprintf(err, errlen, "cannot decode %s: %s", path, img.message);
    free(buf);
    png_image_free(&img);
    return -1;
  }
  *rgb = buf;
  *w = (int)img.width;
  *h = (int)img.height;
  return 0;
}

/* libpng's error, kept for our one-line message instead of printed on stderr by libpng. */
typedef struct {
  char msg[128];
  int errnum;      /* errno when it failed: a failed fwrite's reason (a full disk) */
} png_failure;

static void png_on_error(png_structp png, png_const_charp msg) {
  png_failure *pf = (png_failure *)png_get_error_ptr(png);
  pf->errnum = errno;
  snprintf(pf->msg, sizeof pf->msg, "%s", msg);
  png_longjmp(png, 1);
}
static void png_on_warning(png_structp png, png_const_charp msg) { (void)png, (void)msg; }

/* The PNG stream of vx_png_write_level into f. 0, or -1 with err: "write failed (reason)" when
 * the file could not be written, else libpng's message. */
static int png_stream(FILE *f, const unsigned char *px, int w, int h, int channels, int bottom_up, int level,
                      const unsigned char **rows, char *err, size_t errlen) {
  png_failure pf = {"", 0};
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &pf, png_on_error, png_on_warning);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  if (!info) {
    png_destroy_write_struct(&png, NULL);
    snprintf(err, errlen, "out of host memory for libpng");
    return -1;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    if (ferror(f)) snprintf(err, errlen, "write failed (%s)", strerror(pf.errnum ? pf.errnum : EIO));
    else snprintf(err, errlen, "libpng failed encoding the image (%s)", pf.msg);
    return -1;
  }
  png_init_io(png, f);
  if (level >= 0) png_set_compression_level(png, level);
  png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  if (channels == 4) png_set_filler(png, 0, PNG_FILLER_AFTER); /* on writing: drops the alpha byte */
  size_t row = (size_t)channels * (size_t)w;
  for (int y = 0; y < h; ++y) rows[y] = px + row * (size_t)(bottom_up ? h - 1 - y : y);
  png_write_image(png, (png_bytepp)rows);
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  return 0;
}

int vx_png_write_level(const char *path, const unsigned char *px, int w, int h, int channels, int bottom_up, int level,
                       char *err, size_t errlen) {
  const unsigned char **rows = malloc(sizeof *rows * (size_t)h);
  if (!rows) { snprintf(err, errlen, "out of host memory writing %s", path); return -1; }
  vx_afile a;
  int rc = vx_afile_open(&a, path, err, errlen);
  if (!rc) {
    char why[256];
    rc = png_stream(a.f, px, w, h, channels, bottom_up, level, rows, why, sizeof why);
    if (rc) {
      snprintf(err, errlen, "cannot write %s: %s", path, why);
      vx_afile_abort(&a);
    } else {
      rc = vx_afile_commit(&a, err, errlen);
    }
  }
  free(rows);
  return rc;
}
