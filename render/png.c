/* png.c — framebuffer read-back and PNG files through libpng's simplified API (render.h). */
#include <GL/glew.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_util.h"
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

int rd_png_write(const char *path, const unsigned char *rgb, int w, int h, char *err, size_t errlen) {
  png_image img;
  memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  img.width = (png_uint_32)w;
  img.height = (png_uint_32)h;
  img.format = PNG_FORMAT_RGB;
  if (!png_image_write_to_file(&img, path, 0, rgb, 3 * w, NULL)) {
    snprintf(err, errlen, "cannot write %s: %s", path, img.message[0] ? img.message : "libpng error");
    png_image_free(&img);
    return -1;
  }
  return 0;
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
