/* mp4.h — a small fragmented-MP4 (ISO BMFF, ISO/IEC 14496-12 and -15) writer for one H.264 video
 * track at a constant frame rate, no reordering (every sample's presentation time is its decode
 * time). It writes ftyp + moov (avcC from the SPS/PPS; empty sample tables; mvex/trex) at open,
 * then one moof + mdat per group of pictures: a fragment is written when the next keyframe arrives
 * (and at vx_mp4_flush), each with a single write of its header and one of its data, so a file cut
 * short (kill -9, a full disk) still plays up to its last complete fragment.
 * No GL, no encoder: render/encode_x264.c feeds it; tests/test_render_record.c reads the result
 * back with ffprobe.
 *
 *   vx_mp4 *m = vx_mp4_open(fd, "out.mp4", w, h, fps, sps, sps_len, pps, pps_len, err, sizeof err);
 *   per encoded frame: vx_mp4_sample(m, au, len, is_idr, err, sizeof err);
 *   at the end: vx_mp4_flush(m, err, sizeof err); vx_mp4_destroy(m);    (the caller closes fd) */
#ifndef VX_MP4_H
#define VX_MP4_H

#include <stddef.h>
#include "hd.h"

VX_EXTERN_C_BEGIN

typedef struct vx_mp4 vx_mp4;

/* Write the file's header to fd (name is for messages). sps, pps: one NAL unit each, without start
 * code or length prefix. NULL with a one-line err (bad SPS, a failed write, no memory). */
vx_mp4 *vx_mp4_open(int fd, const char *name, int width, int height, double fps, const unsigned char *sps,
                    size_t sps_len, const unsigned char *pps, size_t pps_len, char *err, size_t errlen);
/* One access unit, its NAL units each preceded by a 4-byte big-endian length (avcC length size 4).
 * keyframe: an IDR picture, which starts a new fragment (the pending one is written first); the
 * first sample must be one. 0, or -1 with err (the file keeps the fragments written before). */
int vx_mp4_sample(vx_mp4 *m, const unsigned char *au, size_t len, int keyframe, char *err, size_t errlen);
/* Write the pending samples as a fragment (nothing when none). 0, or -1 with err. */
int vx_mp4_flush(vx_mp4 *m, char *err, size_t errlen);
/* Samples in complete fragments written to the file so far. */
long long vx_mp4_frames_written(const vx_mp4 *m);
/* Free; pending samples are dropped (vx_mp4_flush first to keep them). m may be NULL. */
void vx_mp4_destroy(vx_mp4 *m);

VX_EXTERN_C_END
#endif
