/* record_ffmpeg.c — recording through the `ffmpeg` program (record_int.h): finding it, choosing
 * the encoder (NVENC when it opens here, else the in-process libx264, else ffmpeg's software
 * encoders, else PNG frames), the child reading raw frames on a pipe and writing fragmented MP4,
 * and its end: its exit status and the last line of its log.
 *
 * Why the ffmpeg program rather than linking libavcodec: no build dependency, NVENC whenever the
 * installed ffmpeg has it, and a crash or a kill of the encoder cannot take the simulation down. */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record_int.h"

/* The executable `name` (a path, or searched on PATH) into out. 0 found, -1 not. */
int rec_find_program(const char *name, char *out, size_t len) {
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

/* How to record. VX_RECORD_ENCODER (environment; a user's setting) forces the encoder: "x264",
 * the in-process libx264 (an error in a build without it); any other non-empty name, that encoder
 * of ffmpeg (-c:v NAME, e.g. h264_nvenc, libx264, mpeg4; PNG frames when there is no ffmpeg);
 * unset or empty, the first that works of: ffmpeg's h264_nvenc when it opens (hardware: no CPU
 * taken from the simulation), the in-process libx264 (no ffmpeg needed, no process, no pipe),
 * ffmpeg's libx264 or mpeg4 (a build without libx264), PNG frames (nothing else). prog: the ffmpeg
 * found, or NULL. 0, or -1 with err (x264 forced in a build without it). */
int rec_choose_backend(const char *prog, const char *path, rec_choice *c, char *err, size_t errlen) {
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
int rec_child_status(pid_t pid, char *out, size_t len) {
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

/* Start ffmpeg on r (its log beside it). 0, or -1 with err. */
int rec_open_ffmpeg(rd_recorder *r, const char *prog, char *err, size_t errlen) {
  r->log_fd = ffmpeg_log_open();
  return spawn_ffmpeg(r, prog, err, errlen);
}

/* End ffmpeg (EOF: it encodes what it holds and finalizes) and move its file into place. 0 when
 * it ended well; else -1 with how it ended in why (the file kept when ffmpeg wrote any). */
int rec_finish_ffmpeg(rd_recorder *r, char *why, size_t len, int *kept) {
  close(r->fd);
  r->fd = -1;
  int rc = rec_child_status(r->pid, why, len);
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
