/* png.c — framebuffer read-back and PNG files through libpng's simplified API (render.h), and
 * through its full API where the zlib level is chosen (record.h: rd_png_write_level). */
#include <GL/glew.h>
#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "gl_util.h"
#include "record.h"
#include "render.h"

int rd_read_pixels(unsigned fbo, int w, int h, unsigned char *rgb, char *err, size_t errlen) {
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
  glReadBuffer(fbo ? GL_COLOR_ATTACHMENT0 : GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, rgb);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  if (rd_gl_check("reading the framebuffer", err, errlen)) return -1;
  /* GL's rows run bottom-up; images top-down */
  size_t row = 3 * (size_t)w;
  unsigned char *tmp = malloc(row);
  if (!tmp) { snprintf(err, errlen, "out of host memory"); return -1; }
  for (int y = 0; y < h / 2; ++y) {
    unsigned char *a = rgb + row * y, *b = rgb + row * (h - 1 - y);
    memcpy(tmp, a, row);
    memcpy(a, b, row);
    memcpy(b, tmp, row);
  }
  free(tmp);
  return 0;
}

/* One home for writing PNGs: rd_png_write_level (atomic, through io/atomic_file.h). */
int rd_png_write(const char *path, const unsigned char *rgb, int w, int h, char *err, size_t errlen) {
  return rd_png_write_level(path, rgb, w, h, 3, 0, -1, err, errlen);
}

int rd_png_read(const char *path, unsigned char **rgb, int *w, int *h, char *err, size_t errlen) {
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

/* The PNG stream of rd_png_write_level into f. 0, or -1 with err: "write failed (reason)" when
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

int rd_png_write_level(const char *path, const unsigned char *px, int w, int h, int channels, int bottom_up, int level,
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
