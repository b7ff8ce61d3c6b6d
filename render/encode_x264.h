/* encode_x264.h — H.264 encoding inside the program with libx264, into a fragmented MP4 (mp4.h):
 * the recorder's backend for machines without ffmpeg (render/record.c calls it on its writer
 * thread). Frames arrive as record.h's RGBA/RGB, bottom-up or not; they are converted to 4:2:0
 * (BT.709, limited range, cropped to even sizes as the ffmpeg path does) on the calling thread,
 * and libx264 encodes them on its own threads, one per core.
 * Built from encode_x264.c when CMake found libx264 (pkg-config x264), else from
 * encode_x264_none.c, whose rd_x264_available() is 0 and whose open fails with one line. */
#ifndef RD_ENCODE_X264_H
#define RD_ENCODE_X264_H

#include <stddef.h>
#include "record.h"

VX_EXTERN_C_BEGIN

typedef struct rd_x264 rd_x264;

/* 1 when this build has libx264. */
int rd_x264_available(void);
/* Open the encoder and write the MP4's header to fd (name is for messages): p's size (cropped to
 * even), channels, row order and fps; a keyframe, hence a fragment, every second. NULL with err. */
rd_x264 *rd_x264_open(int fd, const char *name, const rd_record_params *p, char *err, size_t errlen);
/* Convert and encode one frame; the frames it completes go into the file. 0, or -1 with err. */
int rd_x264_frame(rd_x264 *e, const unsigned char *pixels, char *err, size_t errlen);
/* Encode the frames libx264 still holds and write the last fragment. 0, or -1 with err. */
int rd_x264_finish(rd_x264 *e, char *err, size_t errlen);
/* Frames in the complete fragments written to the file. */
long long rd_x264_frames_written(const rd_x264 *e);
/* Free (e may be NULL); frames not yet written by rd_x264_finish are dropped. fd stays open. */
void rd_x264_destroy(rd_x264 *e);

VX_EXTERN_C_END
#endif
