/* record.h — recording rendered frames: an H.264 MP4 through the `ffmpeg` program or the
 * in-process libx264 encoder (encode_x264.h, io/mp4.h), or a numbered PNG sequence (io/png_file.h),
 * written by a thread of its own fed through a bounded queue of frame buffers (record.c and
 * record_ffmpeg.c, no GL), and the asynchronous read-back that feeds it: a ring of pixel-buffer
 * objects, glReadPixels into one while an older one is mapped (readback.c, GL).
 *
 *   rd_record_params p = rd_record_params_default(w, h);
 *   rd_recorder *rec = rd_record_open("out.mp4", &p, err, sizeof err);   or rd_record_open_png(dir, ...)
 *   rd_readback *rb = rd_readback_create(w, h, 3, err, sizeof err);      a GL context is current
 *   per frame: rd_readback_push(rb, fbo, sink, ctx, ...)                  sink calls rd_record_frame
 *   at the end: rd_readback_flush(rb, sink, ctx, ...); rd_readback_destroy(rb);
 *               rd_record_close(rec, summary, sizeof summary)             one line: what was written
 *
 * An MP4 is written as fragmented MP4 (a fragment per second) to FILE.tmp-PID.mp4, renamed to FILE
 * when it ends; a kill (of ffmpeg or of us) or a failed write still leaves the fragments written so
 * far, playable. Encoder, first that works: ffmpeg's h264_nvenc (hardware), libx264 in-process
 * (when built with libx264), ffmpeg's libx264, ffmpeg's mpeg4; with none of these, PNGs into
 * FILE's name without extension + "-frames/". $VX_RECORD_ENCODER forces one: "x264" the
 * in-process encoder, any other name that encoder of ffmpeg. ffmpeg runs in its own process group
 * (a Ctrl-C meant for us does not cut it short). */
#ifndef RD_RECORD_H
#define RD_RECORD_H

#include <stddef.h>
#include "hd.h"

VX_EXTERN_C_BEGIN

typedef struct {
  int width, height;    /* every frame has this size */
  int channels;         /* 4: RGBA (what rd_readback gives), 3: RGB */
  int bottom_up;        /* 1: rows arrive bottom row first (GL's order) */
  double fps;           /* frame rate written into the video */
  int queue;            /* frame buffers between the caller and the writer thread (>= 1) */
  int png_level;        /* PNG frames: zlib level 0..9; -1: libpng's default */
  const char *program;  /* the ffmpeg to run; NULL: "ffmpeg" on PATH */
} rd_record_params;

/* RGBA, bottom-up, 30 fps, a queue of 8, default PNG level. */
rd_record_params rd_record_params_default(int width, int height);

typedef struct rd_recorder rd_recorder;

/* Start writing an MP4 to path with the encoder chosen as above (or PNGs beside it when there is
 * no encoder: the notice says so). NULL with a one-line err when nothing can be started. */
rd_recorder *rd_record_open(const char *path, const rd_record_params *p, char *err, size_t errlen);
/* PNG frames dir/frame_%05d.png (dir is created when missing). A dir that already holds
 * frame_NNNNN.png files (an earlier run's) is refused: the two runs would make one sequence. */
rd_recorder *rd_record_open_png(const char *dir, const rd_record_params *p, char *err, size_t errlen);

/* Queue one frame (copied; returns once it is in a free buffer, waiting only when all are queued).
 * 0, or -1 with err once the writer failed (ffmpeg ended, disk full): close to finalize. */
int rd_record_frame(rd_recorder *r, const unsigned char *pixels, char *err, size_t errlen);
/* Frames accepted so far, and how often a caller had to wait for a free buffer. */
long long rd_record_frames(const rd_recorder *r);
long long rd_record_waits(const rd_recorder *r);
/* Where it goes ("out.mp4" or "dir/") and the encoder ("h264_nvenc", "libx264" (ffmpeg's),
 * "libx264 (in-process)", "png"). */
const char *rd_record_target(const rd_recorder *r);
const char *rd_record_encoder(const rd_recorder *r);
/* One line for the user when the encoder or the format is not the first choice ("" if none):
 * the module prints nothing itself. */
const char *rd_record_notice(const rd_recorder *r);
/* The ffmpeg process (0: none); for tests. */
long rd_record_child_pid(const rd_recorder *r);

/* Write what is queued, end the encoder cleanly (the last fragment), rename the file into place,
 * free everything. summary: one line saying what was written and how it ended. 0 when all
 * frames were written, -1 when the recording ended early (summary says why; the file keeps what
 * was written). r may be NULL (0, empty summary). */
int rd_record_close(rd_recorder *r, char *summary, size_t len);

/* ---- asynchronous read-back (GL; a context is current) ---- */
typedef struct rd_readback rd_readback;
/* Gets each frame's RGBA pixels, bottom row first, while they are mapped. 0, or -1 with err. */
typedef int (*rd_readback_sink)(void *ctx, const unsigned char *rgba, int w, int h, char *err, size_t errlen);

/* n (2..8) pixel-buffer objects of w x h RGBA. NULL with err. */
rd_readback *rd_readback_create(int w, int h, int n, char *err, size_t errlen);
/* Start reading framebuffer fbo (0: the window's back buffer) into the next buffer; when the
 * ring is full, the oldest frame is first mapped and handed to sink. 0, or -1 with err. */
int rd_readback_push(rd_readback *rb, unsigned fbo, rd_readback_sink sink, void *ctx, char *err, size_t errlen);
/* Hand every pending frame to sink, oldest first. */
int rd_readback_flush(rd_readback *rb, rd_readback_sink sink, void *ctx, char *err, size_t errlen);
/* Pending frames are dropped. The context is current. */
void rd_readback_destroy(rd_readback *rb);
void rd_readback_size(const rd_readback *rb, int *w, int *h);

VX_EXTERN_C_END
#endif
