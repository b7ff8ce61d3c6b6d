/* record.c — the recorder of record.h: a writer thread drains a bounded queue of frame buffers
 * into the stdin of an `ffmpeg` child (record_ffmpeg.c: H.264 in fragmented MP4), into the
 * in-process libx264 encoder (encode_x264.h, writing fragmented MP4 itself through io/mp4.h), or
 * into PNG files (io/png_file.h). No GL here, so tests drive it with synthetic frames
 * (tests/test_render_record.c).
 *
 * Why libx264 in-process beside ffmpeg: GPU servers rarely have ffmpeg; libx264 is one small
 * library (the .so can be carried with the binary), needs no process or pipe, and the MP4 around it
 * is a few boxes (io/mp4.c). */
#define _POSIX_C_SOURCE 200809L /* fsync, sigaction */
#include "record.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "png_file.h"
#include "record_int.h"

rd_record_params rd_record_params_default(int width, int height) {
  rd_record_params p;
  memset(&p, 0, sizeof p);
  p.width = width;
  p.height = height;
  p.channels = 4;
  p.bottom_up = 1;
  p.fps = 30.0;
  p.queue = 8;
  p.png_level = -1;
  return p;
}

/* ------------------------------------------------------------------ writer thread */

static int write_all(int fd, const unsigned char *b, size_t n) {
  while (n > 0) {
    ssize_t k = write(fd, b, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    b += k;
    n -= (size_t)k;
  }
  return 0;
}

/* One frame out: into ffmpeg's stdin, through the in-process encoder, or as the next PNG. 0, or
 * -1 with r->why. */
static int write_frame(rd_recorder *r, const unsigned char *px) {
  if (r->kind == REC_X264) return rd_x264_frame(r->x264, px, r->why, sizeof r->why);
  if (r->kind == REC_FFMPEG) {
    if (write_all(r->fd, px, r->frame_bytes) == 0) return 0;
    snprintf(r->why, sizeof r->why, "%s", errno == EPIPE ? "ffmpeg stopped reading frames" : strerror(errno));
    return -1;
  }
  char path[1100], err[512];
  snprintf(path, sizeof path, "%s/frame_%05lld.png", r->target, r->written);
  if (vx_png_write_level(path, px, r->p.width, r->p.height, r->p.channels, r->p.bottom_up, r->p.png_level, err,
                         sizeof err) == 0)
    return 0;
  snprintf(r->why, sizeof r->why, "%s", err);
  return -1;
}

/* The writer thread: each queued frame out, oldest first, until the queue is empty and closing
 * is set, or a write fails (r->failed: rd_record_frame then refuses). */
static void *writer_main(void *arg) {
  rd_recorder *r = (rd_recorder *)arg;
  for (;;) {
    pthread_mutex_lock(&r->mu);
    while (r->count == 0 && !r->closing) pthread_cond_wait(&r->not_empty, &r->mu);
    if (r->count == 0) {
      pthread_mutex_unlock(&r->mu);
      return NULL;
    }
    const unsigned char *px = r->slot[r->tail];
    pthread_mutex_unlock(&r->mu);
    int rc = write_frame(r, px);
    pthread_mutex_lock(&r->mu);
    r->tail = (r->tail + 1) % r->nslot;
    r->count--;
    if (rc) r->failed = 1;
    else r->written++;
    pthread_cond_signal(&r->not_full);
    pthread_mutex_unlock(&r->mu);
    if (rc) return NULL;
  }
}

/* ------------------------------------------------------------------ life */

static void free_recorder(rd_recorder *r) {
  if (r->log_fd >= 0) close(r->log_fd);
  for (int i = 0; i < r->nslot; ++i) free(r->slot[i]);
  pthread_mutex_destroy(&r->mu);
  pthread_cond_destroy(&r->not_empty);
  pthread_cond_destroy(&r->not_full);
  free(r);
}

/* The recorder's common part: checks, buffers, locks. NULL with err. */
static rd_recorder *new_recorder(const rd_record_params *p, int kind, const char *target, char *err, size_t errlen) {
  if (p->width < 2 || p->height < 2 || (p->channels != 3 && p->channels != 4) || !(p->fps > 0) || p->png_level < -1 ||
      p->png_level > 9) {
    snprintf(err, errlen, "cannot record %s: bad parameters (%dx%d, %d channels, %g fps, PNG level %d)", target, p->width,
             p->height, p->channels, p->fps, p->png_level);
    return NULL;
  }
  rd_recorder *r = calloc(1, sizeof *r);
  if (!r) { snprintf(err, errlen, "out of host memory"); return NULL; }
  r->p = *p;
  r->kind = kind;
  r->fd = -1;
  r->log_fd = -1;
  snprintf(r->target, sizeof r->target, "%s", target);
  pthread_mutex_init(&r->mu, NULL);
  pthread_cond_init(&r->not_empty, NULL);
  pthread_cond_init(&r->not_full, NULL);
  r->frame_bytes = (size_t)p->width * (size_t)p->height * (size_t)p->channels;
  r->nslot = p->queue < 1 ? 1 : p->queue > REC_MAX_QUEUE ? REC_MAX_QUEUE : p->queue;
  for (int i = 0; i < r->nslot; ++i)
    if (!(r->slot[i] = malloc(r->frame_bytes))) {
      snprintf(err, errlen, "out of host memory for %d frames of %dx%d", r->nslot, p->width, p->height);
      free_recorder(r);
      return NULL;
    }
  return r;
}

static int start_writer(rd_recorder *r, char *err, size_t errlen) {
  int e = pthread_create(&r->thread, NULL, writer_main, r);
  if (e) {
    snprintf(err, errlen, "cannot record %s: no writer thread (%s)", r->target, strerror(e));
    return -1;
  }
  r->thread_started = 1;
  return 0;
}

/* A failed write to the pipe must be an error (EPIPE), not our death by SIGPIPE. */
static void ignore_sigpipe(void) {
  struct sigaction sa;
  if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL) {
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(SIGPIPE, &sa, NULL);
  }
}

/* Whether name is one of our frames, frame_NNNNN.png (five digits or more). */
static int is_frame_name(const char *name) {
  if (strncmp(name, "frame_", 6)) return 0;
  const char *d = name + 6, *e = d;
  while (*e >= '0' && *e <= '9') ++e;
  return e - d >= 5 && !strcmp(e, ".png");
}

/* 0 when dir holds no frame_NNNNN.png; else -1, err naming one and the count: new frames beside
 * an earlier run's would make one sequence of both (a video made of it mixes the runs). Other files
 * do not matter. Refusing rather than deleting: the program never removes what it did not write
 * in this run. */
static int no_earlier_frames(const char *dir, char *err, size_t errlen) {
  DIR *d = opendir(dir);
  if (!d) { snprintf(err, errlen, "cannot read %s: %s", dir, strerror(errno)); return -1; }
  long n = 0;
  char first[256] = "";
  for (struct dirent *e; (e = readdir(d));)
    if (is_frame_name(e->d_name) && (n++ == 0 || strcmp(e->d_name, first) < 0)) snprintf(first, sizeof first, "%s", e->d_name);
  closedir(d);
  if (!n) return 0;
  snprintf(err, errlen, "%s already holds %ld frame%s of an earlier run (%s%s): remove them or choose another directory",
           dir, n, n > 1 ? "s" : "", first, n > 1 ? ", ..." : "");
  return -1;
}

rd_recorder *rd_record_open_png(const char *dir, const rd_record_params *p, char *err, size_t errlen) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
    return NULL;
  }
  if (no_earlier_frames(dir, err, errlen)) return NULL;
  rd_recorder *r = new_recorder(p, REC_PNG, dir, err, errlen);
  if (!r) return NULL;
  snprintf(r->encoder, sizeof r->encoder, "png");
  if (start_writer(r, err, errlen)) {
    free_recorder(r);
    return NULL;
  }
  return r;
}

/* PNGs instead of a video: path without its extension, plus "-frames". */
static rd_recorder *open_png_instead(const char *path, const char *prog, const rd_record_params *p, char *err,
                                     size_t errlen) {
  char dir[1024];
  const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
  int stem = dot && (!slash || dot > slash + 1) ? (int)(dot - path) : (int)strlen(path);
  snprintf(dir, sizeof dir, "%.*s-frames", stem, path);
  rd_recorder *r = rd_record_open_png(dir, p, err, errlen);
  if (r)
    snprintf(r->notice, sizeof r->notice, "%.60s is not installed (not found on PATH): writing PNG frames into %.150s/ instead of %.150s",
             prog, dir, path);
  return r;
}

/* Create r's file and the in-process encoder writing it (the MP4's header goes out now). 0, or -1
 * with err. */
static int open_x264(rd_recorder *r, char *err, size_t errlen) {
  r->fd = open(r->tmp, r->in_place ? O_WRONLY | O_CLOEXEC : O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (r->fd < 0) {
    snprintf(err, errlen, "cannot record %s: %s", r->target, strerror(errno));
    return -1;
  }
  r->x264 = rd_x264_open(r->fd, r->target, &r->p, err, errlen);
  return r->x264 ? 0 : -1;
}

/* Undo a video recorder that did not start: end ffmpeg (EOF on its stdin) or the encoder, remove
 * the temporary file, free. */
static void abandon_video(rd_recorder *r) {
  rd_x264_destroy(r->x264);
  if (r->fd >= 0) close(r->fd);
  if (r->pid > 0) {
    char why[256];
    rec_child_status(r->pid, why, sizeof why);
  }
  if (!r->in_place) unlink(r->tmp);
  free_recorder(r);
}

rd_recorder *rd_record_open(const char *path, const rd_record_params *p, char *err, size_t errlen) {
  const char *name = p->program ? p->program : "ffmpeg";
  char prog[1024];
  struct stat sb;
  int exists = stat(path, &sb) == 0;
  if (exists && S_ISDIR(sb.st_mode)) { snprintf(err, errlen, "cannot record %s: %s", path, strerror(EISDIR)); return NULL; }
  int have_ffmpeg = rec_find_program(name, prog, sizeof prog) == 0;
  rec_choice c;
  if (rec_choose_backend(have_ffmpeg ? prog : NULL, path, &c, err, errlen)) return NULL;
  if (c.kind == REC_PNG) return open_png_instead(path, name, p, err, errlen);
  rd_recorder *r = new_recorder(p, c.kind, path, err, errlen);
  if (!r) return NULL;
  snprintf(r->encoder, sizeof r->encoder, "%s", c.kind == REC_X264 ? "libx264 (in-process)" : c.encoder);
  snprintf(r->notice, sizeof r->notice, "%s", c.notice);
  /* an existing device or FIFO (/dev/null) is written in place: a rename would put a regular file
   * where it was (io/atomic_file.h does the same for the other outputs) */
  r->in_place = exists && !S_ISREG(sb.st_mode);
  if (r->in_place) snprintf(r->tmp, sizeof r->tmp, "%s", path);
  else snprintf(r->tmp, sizeof r->tmp, "%s.tmp-%ld.mp4", path, (long)getpid());
  ignore_sigpipe();
  int rc = c.kind == REC_X264 ? open_x264(r, err, errlen) : rec_open_ffmpeg(r, prog, err, errlen);
  if (rc == 0 && start_writer(r, err, errlen) == 0) return r;
  abandon_video(r);
  return NULL;
}

int rd_record_frame(rd_recorder *r, const unsigned char *pixels, char *err, size_t errlen) {
  pthread_mutex_lock(&r->mu);
  if (r->count == r->nslot && !r->failed) {
    r->waits++;
    while (r->count == r->nslot && !r->failed) pthread_cond_wait(&r->not_full, &r->mu);
  }
  if (r->failed) {
    pthread_mutex_unlock(&r->mu);
    snprintf(err, errlen, "recording %s stopped after %lld frames: %s", r->target, r->written, r->why);
    return -1;
  }
  unsigned char *dst = r->slot[r->head]; /* ours until count says otherwise */
  pthread_mutex_unlock(&r->mu);
  memcpy(dst, pixels, r->frame_bytes);
  pthread_mutex_lock(&r->mu);
  r->head = (r->head + 1) % r->nslot;
  r->count++;
  r->accepted++;
  pthread_cond_signal(&r->not_empty);
  pthread_mutex_unlock(&r->mu);
  return 0;
}

long long rd_record_frames(const rd_recorder *r) { return r->accepted; }
long long rd_record_waits(const rd_recorder *r) { return r->waits; }
const char *rd_record_target(const rd_recorder *r) { return r->target; }
const char *rd_record_encoder(const rd_recorder *r) { return r->encoder; }
const char *rd_record_notice(const rd_recorder *r) { return r->notice; }
long rd_record_child_pid(const rd_recorder *r) { return (long)r->pid; }

/* Encode what the in-process encoder still holds into the last fragment (not after a failed
 * write: the file then ends at its last complete fragment), sync, close, and move the file into
 * place when it holds a frame. 0 when all went well; else -1 with why (*kept says whether a file
 * is there). */
static int finish_x264(rd_recorder *r, char *why, size_t len, int *kept) {
  int rc = 0;
  if (!r->failed && rd_x264_finish(r->x264, why, len)) rc = -1;
  r->in_file = rd_x264_frames_written(r->x264);
  rd_x264_destroy(r->x264);
  r->x264 = NULL;
  /* the file's data on disk before its name: a crash after the rename cannot leave it empty */
  if (!r->in_place && fsync(r->fd) && !rc) {
    snprintf(why, len, "fsync failed (%s)", strerror(errno));
    rc = -1;
  }
  if (close(r->fd) && !rc) {
    snprintf(why, len, "closing the file failed (%s)", strerror(errno));
    rc = -1;
  }
  r->fd = -1;
  if (r->in_place) {
    *kept = rc == 0;
    return rc;
  }
  *kept = r->in_file > 0 && rename(r->tmp, r->target) == 0;
  if (!*kept && r->in_file > 0 && !rc) {
    snprintf(why, len, "cannot rename the temporary file into place (%s)", strerror(errno));
    rc = -1;
  }
  if (!*kept) unlink(r->tmp);
  return rc;
}

int rd_record_close(rd_recorder *r, char *summary, size_t len) {
  if (summary && len) summary[0] = 0;
  if (!r) return 0;
  pthread_mutex_lock(&r->mu);
  r->closing = 1;
  pthread_cond_signal(&r->not_empty);
  pthread_mutex_unlock(&r->mu);
  if (r->thread_started) pthread_join(r->thread, NULL);
  char ended[256] = "";
  int kept = 1, bad = r->failed;
  if (r->kind == REC_FFMPEG && (rec_finish_ffmpeg(r, ended, sizeof ended, &kept) || !kept)) bad = 1;
  if (r->kind == REC_X264 && (finish_x264(r, ended, sizeof ended, &kept) || !kept)) bad = 1;
  if (!kept && !ended[0]) snprintf(ended, sizeof ended, "%s wrote nothing", r->kind == REC_X264 ? "the encoder" : "ffmpeg");
  long long frames = r->kind == REC_X264 ? r->in_file : r->written; /* the encoder's: those in the file */
  char how[800], what[1400];
  snprintf(how, sizeof how, "%s%s%s", r->why, r->why[0] && ended[0] ? "; " : "", ended);
  if (r->kind == REC_PNG)
    snprintf(what, sizeof what, "%lld PNG frames into %s/", r->written, r->target);
  else
    snprintf(what, sizeof what, "%s: %lld frames, %dx%d at %g fps (%.2f s), %s", r->target, frames, r->p.width & ~1,
             r->p.height & ~1, r->p.fps, (double)frames / r->p.fps, r->encoder);
  if (!bad)
    snprintf(summary, len, "recorded %s; the render loop waited for the writer %lld times", what, r->waits);
  else if (kept)
    snprintf(summary, len, "recording ended early (%s); kept what was written: %s", how, what);
  else
    snprintf(summary, len, "recording %s failed (%s): no file written", r->target, how);
  free_recorder(r);
  return bad ? -1 : 0;
}
