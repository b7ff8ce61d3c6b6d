/* encode_x264.c — encode_x264.h with libx264: RGB(A) -> I420 here, H.264 by libx264's frame
 * threads, the access units into mp4.h's fragments. Settings, chosen for throughput at 1080p60
 * on a many-core host, at the same quality as the ffmpeg path:
 *   preset veryfast, CRF 20, keyint = fps without scene-cut keyframes (a fragment per second);
 *   frame threads = online cores, not --tune zerolatency: that would switch to sliced threads
 *   (worse scaling, larger files) and drop the lookahead to save latency, which a file does not
 *   need; the cost is that the frames in flight (threads + lookahead, ~1 s) are lost on kill -9;
 *   no B-frames: decode order = presentation order, so the MP4 needs no composition offsets or
 *   edit list and the first frame shows at t = 0 in every player (at some cost in file size
 *   and speed);
 *   annexb = 0 and no repeated headers: NAL units come length-prefixed (4 bytes) as MP4 stores
 *   them, SPS/PPS go once into avcC. */
#define _GNU_SOURCE /* sysconf(_SC_NPROCESSORS_ONLN) */
#include "encode_x264.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <x264.h>

#include "mp4.h"

struct rd_x264 {
  x264_t *enc;
  x264_picture_t pic;
  int pic_alloc;
  vx_mp4 *mp4;
  int w, h;               /* encoded size: the frame's, cropped to even */
  rd_record_params p;
  long long pts;
  char name[512];
  char log[256];          /* libx264's last error, for the message of a failed call */
};

int rd_x264_available(void) { return 1; }

/* libx264's messages: errors kept for our one line, the rest dropped (the module prints nothing). */
static void x264_log(void *ctx, int level, const char *fmt, va_list ap) {
  rd_x264 *e = (rd_x264 *)ctx;
  if (level > X264_LOG_ERROR) return;
  vsnprintf(e->log, sizeof e->log, fmt, ap);
  e->log[strcspn(e->log, "\r\n")] = 0;
}

static void fill_params(rd_x264 *e, x264_param_t *xp) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int keyint = e->p.fps >= 1.0 ? (int)(e->p.fps + 0.5) : 1;
  x264_param_default_preset(xp, "veryfast", NULL);
  xp->i_threads = cores < 1 ? 1 : cores > 64 ? 64 : (int)cores;
  xp->i_width = e->w, xp->i_height = e->h;
  xp->i_csp = X264_CSP_I420;
  xp->i_bframe = 0;
  xp->i_keyint_max = keyint;
  xp->i_scenecut_threshold = 0; /* keyframes exactly every second: regular fragments, a bounded loss
                                 * on kill; a simulation has no scene cuts to spend them on */
  xp->rc.i_rc_method = X264_RC_CRF;
  xp->rc.f_rf_constant = 20;
  xp->i_fps_num = (uint32_t)(e->p.fps * 1000.0 + 0.5), xp->i_fps_den = 1000; /* as mp4.c's timescale */
  xp->i_timebase_num = xp->i_fps_den, xp->i_timebase_den = xp->i_fps_num;
  xp->b_vfr_input = 0;
  xp->b_annexb = 0;
  xp->b_repeat_headers = 0;
  xp->vui.i_colorprim = 1, xp->vui.i_transfer = 1, xp->vui.i_colmatrix = 1; /* BT.709, as converted below */
  xp->vui.b_fullrange = 0;
  xp->pf_log = x264_log;
  xp->p_log_private = e;
}

/* The SPS and PPS (without their 4-byte length prefixes) into a new MP4 on fd. 0, or -1 with err. */
static int start_mp4(rd_x264 *e, int fd, char *err, size_t errlen) {
  x264_nal_t *nal = NULL;
  int n = 0;
  const unsigned char *sps = NULL, *pps = NULL;
  size_t sps_len = 0, pps_len = 0;
  if (x264_encoder_headers(e->enc, &nal, &n) < 0) {
    snprintf(err, errlen, "cannot record %s: libx264 gives no headers (%s)", e->name, e->log);
    return -1;
  }
  for (int i = 0; i < n; ++i) {
    if (nal[i].i_payload <= 4) continue;
    if (nal[i].i_type == NAL_SPS) sps = nal[i].p_payload + 4, sps_len = (size_t)nal[i].i_payload - 4;
    if (nal[i].i_type == NAL_PPS) pps = nal[i].p_payload + 4, pps_len = (size_t)nal[i].i_payload - 4;
  }
  if (!sps || !pps) { snprintf(err, errlen, "cannot record %s: libx264 gave no SPS/PPS", e->name); return -1; }
  e->mp4 = vx_mp4_open(fd, e->name, e->w, e->h, e->p.fps, sps, sps_len, pps, pps_len, err, errlen);
  return e->mp4 ? 0 : -1;
}

rd_x264 *rd_x264_open(int fd, const char *name, const rd_record_params *p, char *err, size_t errlen) {
  rd_x264 *e = calloc(1, sizeof *e);
  if (!e) { snprintf(err, errlen, "out of host memory"); return NULL; }
  e->p = *p;
  e->w = p->width & ~1, e->h = p->height & ~1; /* 4:2:0 needs even sizes (a window may be odd) */
  snprintf(e->name, sizeof e->name, "%s", name);
  x264_param_t xp;
  fill_params(e, &xp);
  if (x264_param_apply_profile(&xp, "high") < 0 || !(e->enc = x264_encoder_open(&xp))) {
    snprintf(err, errlen, "cannot record %s: libx264 does not open for %dx%d at %g fps (%s)", name, e->w, e->h, p->fps,
             e->log[0] ? e->log : "no reason given");
    rd_x264_destroy(e);
    return NULL;
  }
  if (x264_picture_alloc(&e->pic, X264_CSP_I420, e->w, e->h) < 0) {
    snprintf(err, errlen, "out of host memory for a %dx%d picture", e->w, e->h);
    rd_x264_destroy(e);
    return NULL;
  }
  e->pic_alloc = 1;
  if (start_mp4(e, fd, err, errlen)) {
    rd_x264_destroy(e);
    return NULL;
  }
  return e;
}

/* BT.709 limited range (Rec. ITU-R BT.709-6 item 3.2-3.5, scaled to 219 and 224 steps), in 14-bit
 * fixed point: Y = 16 + (0.1826 R + 0.6142 G + 0.0620 B), Cb, Cr = 128 + rows of the matrix below
 * applied to the mean of each 2x2 block. */
enum { YR = 2992, YG = 10064, YB = 1016, UR = -1649, UG = -5547, UB = 7196, VR = 7196, VG = -6536, VB = -660 };

static inline unsigned char luma(const unsigned char *s) {
  return (unsigned char)(16 + ((YR * s[0] + YG * s[1] + YB * s[2] + (1 << 13)) >> 14));
}

/* Rows y and y+1 (top-down) of the frame into the picture's planes. */
static void convert_rows(rd_x264 *e, const unsigned char *px, int y) {
  const int c = e->p.channels, sw = e->p.width, sh = e->p.height;
  const unsigned char *s0 = px + (size_t)c * sw * (size_t)(e->p.bottom_up ? sh - 1 - y : y);
  const unsigned char *s1 = px + (size_t)c * sw * (size_t)(e->p.bottom_up ? sh - 2 - y : y + 1);
  unsigned char *y0 = e->pic.img.plane[0] + (size_t)e->pic.img.i_stride[0] * y;
  unsigned char *y1 = y0 + e->pic.img.i_stride[0];
  unsigned char *u = e->pic.img.plane[1] + (size_t)e->pic.img.i_stride[1] * (y / 2);
  unsigned char *v = e->pic.img.plane[2] + (size_t)e->pic.img.i_stride[2] * (y / 2);
  for (int x = 0; x < e->w; x += 2) {
    const unsigned char *a = s0 + c * x, *b = s1 + c * x;
    y0[x] = luma(a), y0[x + 1] = luma(a + c), y1[x] = luma(b), y1[x + 1] = luma(b + c);
    int r = a[0] + a[c] + b[0] + b[c], g = a[1] + a[c + 1] + b[1] + b[c + 1], bl = a[2] + a[c + 2] + b[2] + b[c + 2];
    u[x / 2] = (unsigned char)(128 + ((UR * r + UG * g + UB * bl + (1 << 15)) >> 16));
    v[x / 2] = (unsigned char)(128 + ((VR * r + VG * g + VB * bl + (1 << 15)) >> 16));
  }
}

/* Hand one picture (NULL: drain) to libx264 and what comes out to the MP4. 1 when a frame came
 * out, 0 when none, -1 with err. */
static int encode(rd_x264 *e, x264_picture_t *in, char *err, size_t errlen) {
  x264_nal_t *nal = NULL;
  int n = 0;
  x264_picture_t out;
  int bytes = x264_encoder_encode(e->enc, &nal, &n, in, &out);
  if (bytes < 0) {
    snprintf(err, errlen, "libx264 failed to encode a frame of %s (%s)", e->name, e->log[0] ? e->log : "no reason given");
    return -1;
  }
  if (bytes == 0) return 0;
  /* the NAL units of one frame lie one after the other in memory (x264.h), each length-prefixed */
  return vx_mp4_sample(e->mp4, nal[0].p_payload, (size_t)bytes, out.b_keyframe, err, errlen) ? -1 : 1;
}

int rd_x264_frame(rd_x264 *e, const unsigned char *pixels, char *err, size_t errlen) {
  for (int y = 0; y < e->h; y += 2) convert_rows(e, pixels, y);
  e->pic.i_pts = e->pts++;
  e->pic.i_type = X264_TYPE_AUTO;
  return encode(e, &e->pic, err, errlen) < 0 ? -1 : 0;
}

int rd_x264_finish(rd_x264 *e, char *err, size_t errlen) {
  while (x264_encoder_delayed_frames(e->enc) > 0) /* as x264's own command line drains it */
    if (encode(e, NULL, err, errlen) < 0) return -1;
  return vx_mp4_flush(e->mp4, err, errlen);
}

long long rd_x264_frames_written(const rd_x264 *e) { return e ? vx_mp4_frames_written(e->mp4) : 0; }

void rd_x264_destroy(rd_x264 *e) {
  if (!e) return;
  if (e->enc) x264_encoder_close(e->enc);
  if (e->pic_alloc) x264_picture_clean(&e->pic);
  vx_mp4_destroy(e->mp4);
  free(e);
}
