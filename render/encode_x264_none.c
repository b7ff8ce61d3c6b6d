/* encode_x264_none.c — encode_x264.h in a build without libx264 (no libx264-dev found at configure
 * time, or -DVX_ENABLE_X264=OFF): the recorder then skips the in-process encoder and
 * uses ffmpeg or PNG frames. */
#include "encode_x264.h"

#include <stdio.h>

int rd_x264_available(void) { return 0; }

rd_x264 *rd_x264_open(int fd, const char *name, const rd_record_params *p, char *err, size_t errlen) {
  (void)fd, (void)p;
  snprintf(err, errlen, "cannot record %s with the in-process libx264: this build has none (install libx264-dev "
                        "and configure again)", name);
  return NULL;
}
int rd_x264_frame(rd_x264 *e, const unsigned char *pixels, char *err, size_t errlen) {
  (void)e, (void)pixels;
  snprintf(err, errlen, "no libx264 in this build");
  return -1;
}
int rd_x264_finish(rd_x264 *e, char *err, size_t errlen) { return rd_x264_frame(e, NULL, err, errlen); }
long long rd_x264_frames_written(const rd_x264 *e) { (void)e; return 0; }
void rd_x264_destroy(rd_x264 *e) { (void)e; }
