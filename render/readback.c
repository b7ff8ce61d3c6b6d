/* readback.c — framebuffer read-back: one image now (render.h: rd_read_pixels, rd_png_write, for
 * screenshots and tests), and the asynchronous read-back of recording (record.h, rd_readback), a
 * ring of pixel-buffer objects. glReadPixels into a GL_PIXEL_PACK_BUFFER returns at once (the copy
 * is queued on the GPU); the buffer is mapped only when the ring comes round to it, n - 1 frames
 * later, by when the copy is long done, so the GPU→CPU transfer overlaps the next frames' work
 * instead of stalling this one. */
#include <GL/glew.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_util.h"
#include "png_file.h"
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


int rd_png_write(const char *path, const unsigned char *rgb, int w, int h, char *err, size_t errlen) {
  return vx_png_write_level(path, rgb, w, h, 3, 0, -1, err, errlen);
}

/* ---- the asynchronous read-back ring */

#define RB_MAX 8

struct rd_readback {
  int w, h, n;
  GLuint pbo[RB_MAX];
  int next;     /* buffer the next read goes into */
  int pending;  /* reads not yet handed out; the oldest is (next - pending) mod n */
};

rd_readback *rd_readback_create(int w, int h, int n, char *err, size_t errlen) {
  if (w < 1 || h < 1 || n < 2 || n > RB_MAX) {
    snprintf(err, errlen, "read-back ring of %d buffers of %dx%d: need 2..%d buffers and a positive size", n, w, h, RB_MAX);
    return NULL;
  }
  rd_readback *rb = calloc(1, sizeof *rb);
  if (!rb) { snprintf(err, errlen, "out of host memory"); return NULL; }
  rb->w = w, rb->h = h, rb->n = n;
  glGenBuffers(n, rb->pbo);
  for (int i = 0; i < n; ++i) {
    glBindBuffer(GL_PIXEL_PACK_BUFFER, rb->pbo[i]);
    glBufferData(GL_PIXEL_PACK_BUFFER, (GLsizeiptr)4 * w * h, NULL, GL_STREAM_READ);
  }
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  if (rd_gl_check("creating the read-back pixel buffers", err, errlen)) {
    rd_readback_destroy(rb);
    return NULL;
  }
  return rb;
}

void rd_readback_destroy(rd_readback *rb) {
  if (!rb) return;
  glDeleteBuffers(rb->n, rb->pbo);
  free(rb);
}

void rd_readback_size(const rd_readback *rb, int *w, int *h) {
  *w = rb->w;
  *h = rb->h;
}

/* Map the oldest pending buffer, hand it to sink, unmap. 0, or -1 with err. */
static int deliver_oldest(rd_readback *rb, rd_readback_sink sink, void *ctx, char *err, size_t errlen) {
  int i = (rb->next - rb->pending + rb->n) % rb->n;
  rb->pending--;
  glBindBuffer(GL_PIXEL_PACK_BUFFER, rb->pbo[i]);
  const unsigned char *px = (const unsigned char *)glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, (GLsizeiptr)4 * rb->w * rb->h,
                                                                    GL_MAP_READ_BIT);
  if (!px || rd_gl_check("mapping a read-back pixel buffer", err, errlen)) {
    if (!px && !err[0]) snprintf(err, errlen, "mapping a read-back pixel buffer failed");
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    return -1;
  }
  int rc = sink(ctx, px, rb->w, rb->h, err, errlen);
  glUnmapBuffer(GL_PIXEL_PACK_BUFFER); /* GL_FALSE (contents lost) only matters before the sink reads */
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  if (rd_gl_check("unmapping a read-back pixel buffer", err, errlen)) return -1;
  return rc;
}

int rd_readback_push(rd_readback *rb, unsigned fbo, rd_readback_sink sink, void *ctx, char *err, size_t errlen) {
  if (err && errlen) err[0] = 0;
  if (rb->pending == rb->n && deliver_oldest(rb, sink, ctx, err, errlen)) return -1;
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
  glReadBuffer(fbo ? GL_COLOR_ATTACHMENT0 : GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, rb->pbo[rb->next]);
  glReadPixels(0, 0, rb->w, rb->h, GL_RGBA, GL_UNSIGNED_BYTE, (void *)0); /* into the buffer: no wait */
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  if (rd_gl_check("starting a frame read-back into a pixel buffer", err, errlen)) return -1;
  rb->next = (rb->next + 1) % rb->n;
  rb->pending++;
  return 0;
}

int rd_readback_flush(rd_readback *rb, rd_readback_sink sink, void *ctx, char *err, size_t errlen) {
  if (err && errlen) err[0] = 0;
  while (rb->pending > 0)
    if (deliver_oldest(rb, sink, ctx, err, errlen)) return -1;
  return 0;
}
