/* record_int.h — the recorder's private state (struct rd_recorder) and the calls between its two
 * files; not a public header:
 *   record.c         the queue and the writer thread, PNG frames, the in-process libx264, open/close
 *   record_ffmpeg.c  finding ffmpeg and choosing the encoder, the ffmpeg child and its end */
#ifndef RD_RECORD_INT_H
#define RD_RECORD_INT_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

#include "encode_x264.h"
#include "record.h"

enum { REC_FFMPEG = 0, REC_PNG = 1, REC_X264 = 2 };
#define REC_MAX_QUEUE 64

struct rd_recorder {
  rd_record_params p;
  int kind;
  char target[1024];        /* the MP4's final name, or the PNG directory */
  char tmp[1100];           /* what ffmpeg writes until the end */
  int in_place;             /* the target is a device or a FIFO: ffmpeg writes it, tmp is the target */
  char encoder[32];
  char notice[600];
  pid_t pid;
  int fd;                   /* ffmpeg's stdin, or the file the in-process encoder writes */
  rd_x264 *x264;            /* the in-process encoder (REC_X264) */
  long long in_file;        /* REC_X264: frames in the file's complete fragments, known at close */
  int log_fd;               /* ffmpeg's stderr: an unnamed temporary file, read at the end; -1: none */
  size_t frame_bytes;
  unsigned char *slot[REC_MAX_QUEUE];
  int nslot, head, tail, count;
  pthread_mutex_t mu;
  pthread_cond_t not_empty, not_full;
  int closing, failed;
  char why[512];            /* the writer's failure */
  long long accepted, written, waits;
  pthread_t thread;
  int thread_started;
};

typedef struct {
  int kind;           /* REC_FFMPEG, REC_X264 or REC_PNG */
  char encoder[32];   /* ffmpeg's -c:v (REC_FFMPEG) */
  char notice[600];   /* why this is not the first choice ("" when it is) */
} rec_choice;

/* The executable `name` (a path, or searched on PATH) into out. 0 found, -1 not. */
int rec_find_program(const char *name, char *out, size_t len);
/* How to record path (rec_choice); prog: the ffmpeg found, or NULL. 0, or -1 with err. */
int rec_choose_backend(const char *prog, const char *path, rec_choice *c, char *err, size_t errlen);
/* Start ffmpeg on r (its log beside it). 0, or -1 with err. */
int rec_open_ffmpeg(rd_recorder *r, const char *prog, char *err, size_t errlen);
/* End ffmpeg and move its file into place (*kept: a file is there). 0 when it ended well, else -1
 * with how it ended in why. */
int rec_finish_ffmpeg(rd_recorder *r, char *why, size_t len, int *kept);
/* Wait for the child pid; how it ended, as words, into out. 0 when it exited 0. */
int rec_child_status(pid_t pid, char *out, size_t len);

#endif
