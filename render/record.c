/* record.c — the recorder of record.h: a writer thread drains a bounded queue of frame buffers
 * into the stdin of an `ffmpeg` child (H.264 in fragmented MP4), into the in-process libx264
 * encoder (encode_x264.h, writing fragmented MP4 itself through mp4.h), or into PNG files. No GL
 * here, so tests drive it with synthetic frames (tests/test_render_record.c).
 *
 * Why the ffmpeg program rather than linking libavcodec: no build dependency, NVENC whenever the
 * installed ffmpeg has it, and a crash or a kill of the encoder cannot take the simulation down.
 * Why libx264 in-process as well: GPU servers rarely have ffmpeg; libx264 is one small library
 * (the .so can be carried with the binary), needs no process or pipe, and the MP4 around it is a
 * few boxes (mp4.c). */
#define _GNU_SOURCE /* pipe2 */
#include "record.h"

#include "encode_x264.h"

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
#include <sys/wait.h>
#include <unistd.h>

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

/* ------------------------------------------------------------------ finding ffmpeg and its encoder */

/* The executable `name` (a path, or searched on PATH) into out. 0 found, -1 not. */
static int find_program(const char *name, char *out, size_t len) {
  if (strchr(name, '/')) {
    snprintf(out, len, "%s", name);
    return access(out, X_OK) == 0 ? 0 : -1;
  }
  const char *path = getenv("PATH");
  if (!path) path = "/usr/local/bin:/usr/bin:/bin";
  while (*path) {
    size_t n = strcspn(path, ":");
    snprintf(out, len, "%.*s/%s", (int)(n ? n : 1), n ? path : ".", name);
    if (access(out, X_OK) == 0) return 0;
    path += n + (path[n] == ':');
  }
  return -1;
}

/* 1 when the shell command exits 0 (its output discarded). */
static int command_ok(const char *cmd) {
  FILE *f = popen(cmd, "r");
  if (!f) return 0;
  char buf[4096];
  while (fread(buf, 1, sizeof buf, f) > 0) {
  }
  int st = pclose(f);
  return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* 1 when `prog -encoders` lists enc. */
static int has_encoder(const char *prog, const char *enc) {
  char cmd[1200], line[512], word[64];
  snprintf(cmd, sizeof cmd, "'%s' -hide_banner -encoders 2>/dev/null", prog);
  FILE *f = popen(cmd, "r");
  if (!f) return 0;
  int found = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, " %*s %63s", word) == 1 && !strcmp(word, enc)) found = 1;
  pclose(f);
  return found;
}

/* Whether ffmpeg's h264_nvenc opens a frame here; listed: whether ffmpeg names it at all. Probed
 * once per program: Debian's ffmpeg lists h264_nvenc even where no NVIDIA driver is. */
static int nvenc_opens(const char *prog, int *listed) {
  static char cached_prog[1024];
  static int cached_listed, cached_opens;
  if (!cached_prog[0] || strcmp(cached_prog, prog)) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "'%s' -v quiet -hide_banner -f lavfi -i color=c=black:s=256x256:r=1 -frames:v 1 "
                              "-c:v h264_nvenc -f null - </dev/null >/dev/null 2>&1", prog);
    cached_listed = has_encoder(prog, "h264_nvenc");
    cached_opens = cached_listed && command_ok(cmd);
    snprintf(cached_prog, sizeof cached_prog, "%s", prog);
  }
  *listed = cached_listed;
  return cached_opens;
}

typedef struct {
  int kind;           /* REC_FFMPEG, REC_X264 or REC_PNG */
  char encoder[32];   /* ffmpeg's -c:v (REC_FFMPEG) */
  char notice[600];   /* why this is not the first choice ("" when it is) */
} rec_choice;

/* How to record (README "Videos" argues the order): $VX_RECORD_ENCODER when set ("x264": the
 * in-process libx264; any other name: that encoder of ffmpeg); else ffmpeg's h264_nvenc when it
 * opens (hardware: no CPU taken from the simulation), the in-process libx264 (no ffmpeg needed, no
 * process, no pipe), ffmpeg's libx264 or mpeg4 (a build without libx264), PNG frames (nothing
 * else). prog: the ffmpeg found, or NULL. 0, or -1 with err (x264 forced in a build without it). */
static int choose_backend(const char *prog, const char *path, rec_choice *c, char *err, size_t errlen) {
  const char *forced = getenv("VX_RECORD_ENCODER");
  memset(c, 0, sizeof *c);
  if (forced && !strcmp(forced, "x264")) {
    if (!rd_x264_available()) {
      snprintf(err, errlen, "cannot record %s: VX_RECORD_ENCODER=x264, but this build has no libx264 (install "
                            "libx264-dev and configure again)", path);
      return -1;
    }
    c->kind = REC_X264;
    snprintf(c->notice, sizeof c->notice, "encoder libx264 in-process (VX_RECORD_ENCODER)");
    return 0;
  }
  if (forced && *forced) {
    c->kind = prog ? REC_FFMPEG : REC_PNG;
    snprintf(c->encoder, sizeof c->encoder, "%s", forced);
    if (prog) snprintf(c->notice, sizeof c->notice, "encoder %s of ffmpeg (VX_RECORD_ENCODER)", forced);
    return 0;
  }
  int listed = 0;
  if (prog && nvenc_opens(prog, &listed)) {
    c->kind = REC_FFMPEG;
    snprintf(c->encoder, sizeof c->encoder, "h264_nvenc");
    return 0;
  }
  const char *why = !prog ? "ffmpeg (for NVENC) is not installed"
                    : listed ? "ffmpeg's h264_nvenc does not open here (no NVIDIA driver or encoder)"
                             : "this ffmpeg has no h264_nvenc";
  if (rd_x264_available()) {
    c->kind = REC_X264;
    snprintf(c->notice, sizeof c->notice, "encoding with libx264 in-process: %s", why);
  } else if (prog) {
    c->kind = REC_FFMPEG;
    snprintf(c->encoder, sizeof c->encoder, "%s", has_encoder(prog, "libx264") ? "libx264" : "mpeg4");
    snprintf(c->notice, sizeof c->notice, "encoding with %s of ffmpeg: %s", c->encoder, why);
  } else {
    c->kind = REC_PNG;
  }
  return 0;
}

/* ------------------------------------------------------------------ the ffmpeg child */

/* ffmpeg's command line for r (strings in store, pointers in argv). */
static void ffmpeg_args(const rd_recorder *r, const char *prog, char store[][64], const char **argv) {
  const rd_record_params *p = &r->p;
  int n = 0, s = 0;
#define ARG(x) (argv[n++] = (x))
#define FMT(...) (snprintf(store[s], 64, __VA_ARGS__), argv[n++] = store[s++])
  ARG(prog), ARG("-hide_banner"), ARG("-loglevel"), ARG("error"), ARG("-nostats"), ARG("-y");
  ARG("-f"), ARG("rawvideo"), ARG("-pix_fmt"), ARG(p->channels == 4 ? "rgba" : "rgb24");
  ARG("-s"), FMT("%dx%d", p->width, p->height);
  ARG("-r"), FMT("%g", p->fps), ARG("-i"), ARG("-");
  /* GL rows run bottom-up; yuv420p needs even sizes (a window may be odd) */
  int ew = p->width & ~1, eh = p->height & ~1;
  char vf[64] = "";
  if (p->bottom_up) snprintf(vf, sizeof vf, "vflip");
  if (ew != p->width || eh != p->height)
    snprintf(vf + strlen(vf), sizeof vf - strlen(vf), "%scrop=%d:%d:0:0", vf[0] ? "," : "", ew, eh);
  if (vf[0]) ARG("-vf"), FMT("%s", vf);
  ARG("-c:v"), ARG(r->encoder);
  if (!strcmp(r->encoder, "libx264")) ARG("-preset"), ARG("veryfast"), ARG("-crf"), ARG("20");
  else if (!strcmp(r->encoder, "h264_nvenc")) ARG("-preset"), ARG("p4"), ARG("-cq"), ARG("21");
  else if (!strcmp(r->encoder, "mpeg4")) ARG("-q:v"), ARG("3");
  /* a keyframe, hence a fragment, every second, each flushed to the file at once: a killed ffmpeg
   * loses about the last second */
  ARG("-pix_fmt"), ARG("yuv420p"), ARG("-g"), FMT("%d", p->fps >= 1.0 ? (int)(p->fps + 0.5) : 1);
  ARG("-flush_packets"), ARG("1");
  ARG("-movflags"), ARG("+frag_keyframe+empty_moov+default_base_moof"), ARG("-f"), ARG("mp4"), ARG(r->tmp);
  argv[n] = NULL;
#undef ARG
#undef FMT
}

/* Fork and exec ffmpeg reading frames from a pipe; its own process group, so that a terminal's
 * Ctrl-C reaches only us and we end it cleanly (EOF on its stdin). 0, or -1 with err. */
static int spawn_ffmpeg(rd_recorder *r, const char *prog, char *err, size_t errlen) {
  char store[8][64];
  const char *argv[64];
  ffmpeg_args(r, prog, store, argv);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC)) {
    snprintf(err, errlen, "cannot record %s: pipe: %s", r->target, strerror(errno));
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(err, errlen, "cannot record %s: fork: %s", r->target, strerror(errno));
    close(fds[0]), close(fds[1]);
    return -1;
  }
  if (pid == 0) { /* child: async-signal-safe calls only */
    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    dup2(fds[0], 0);
    int dn = open("/dev/null", O_WRONLY);
    if (dn >= 0) dup2(dn, 1);
    if (r->log_fd >= 0) dup2(r->log_fd, 2);
    execv(prog, (char *const *)argv);
    _exit(127);
  }
  close(fds[0]);
  r->pid = pid;
  r->fd = fds[1];
  return 0;
}

/* An unnamed file for ffmpeg's stderr (-1 when none can be made: ffmpeg then writes to ours). Its
 * log level is "error", so any line there is a failure, even when ffmpeg exits 0 (ffmpeg 5.1 does
 * when only the last write of a short video fails on a full disk). */
static int ffmpeg_log_open(void) {
  FILE *t = tmpfile();
  if (!t) return -1;
  int fd = dup(fileno(t));
  fclose(t);
  if (fd >= 0) fcntl(fd, F_SETFD, FD_CLOEXEC);
  return fd;
}

/* The last line ffmpeg wrote into its log ("" when none), leaving out its indented notes
 * ("Last message repeated N times"). */
static void ffmpeg_log_last(int fd, char *out, size_t len) {
  out[0] = 0;
  if (fd < 0) return;
  char buf[2048];
  off_t end = lseek(fd, 0, SEEK_END);
  if (end <= 0) return;
  off_t from = end > (off_t)sizeof buf - 1 ? end - (off_t)sizeof buf + 1 : 0;
  ssize_t n = pread(fd, buf, (size_t)(end - from), from);
  if (n <= 0) return;
  buf[n] = 0;
  char *save = NULL, *line = NULL;
  for (char *p = strtok_r(buf, "\r\n", &save); p; p = strtok_r(NULL, "\r\n", &save))
    if (*p != ' ' && *p != '\t') line = p;
  if (line) snprintf(out, len, "%s", line);
}

/* How the child ended, as words; 0 when it exited 0. */
static int child_status(pid_t pid, char *out, size_t len) {
  int st = 0;
  while (waitpid(pid, &st, 0) < 0) {
    if (errno != EINTR) {
      snprintf(out, len, "ffmpeg's end unknown (%s)", strerror(errno));
      return -1;
    }
  }
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
  if (WIFEXITED(st)) snprintf(out, len, "ffmpeg exited with status %d", WEXITSTATUS(st));
  else if (WIFSIGNALED(st)) snprintf(out, len, "ffmpeg was killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
  else snprintf(out, len, "ffmpeg ended oddly (status 0x%x)", st);
  return -1;
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
  if (rd_png_write_level(path, px, r->p.width, r->p.height, r->p.channels, r->p.bottom_up, r->p.png_level, err,
                         sizeof err) == 0)
    return 0;
  snprintf(r->why, sizeof r->why, "%s", err);
  return -1;
}

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

/* Start ffmpeg on r (its log beside it). 0, or -1 with err. */
static int open_ffmpeg(rd_recorder *r, const char *prog, char *err, size_t errlen) {
  r->log_fd = ffmpeg_log_open();
  return spawn_ffmpeg(r, prog, err, errlen);
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
    child_status(r->pid, why, sizeof why);
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
  int have_ffmpeg = find_program(name, prog, sizeof prog) == 0;
  rec_choice c;
  if (choose_backend(have_ffmpeg ? prog : NULL, path, &c, err, errlen)) return NULL;
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
  int rc = c.kind == REC_X264 ? open_x264(r, err, errlen) : open_ffmpeg(r, prog, err, errlen);
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

/* End ffmpeg (EOF: it encodes what it holds and finalizes) and move its file into place. 0 when
 * it ended well; else -1 with how it ended in why (the file kept when ffmpeg wrote any). */
static int finish_video(rd_recorder *r, char *why, size_t len, int *kept) {
  close(r->fd);
  r->fd = -1;
  int rc = child_status(r->pid, why, len);
  char said[400];
  ffmpeg_log_last(r->log_fd, said, sizeof said);
  if (said[0]) { /* appended to how it ended; a failure even after exit 0 */
    size_t k = strlen(why);
    snprintf(why + k, len - k, "%sffmpeg: %s", k ? "; " : "", said);
    rc = -1;
  }
  struct stat sb;
  if (r->in_place) {
    *kept = rc == 0; /* nothing to move; what ffmpeg wrote is all there is to keep */
    return rc;
  }
  *kept = stat(r->tmp, &sb) == 0 && sb.st_size > 0 && rename(r->tmp, r->target) == 0;
  if (!*kept) unlink(r->tmp);
  return rc;
}

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
  if (r->kind == REC_FFMPEG && (finish_video(r, ended, sizeof ended, &kept) || !kept)) bad = 1;
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
