/* test_render_record.c — video recording (render/record.h, `vortexfmm --record`):
 *   unit  the recorder on synthetic frames, no GL: PNG frames (queue, row order, alpha dropped),
 *         an MP4 by the default encoder, by ffmpeg's libx264 and by the in-process libx264 (frame
 *         count, size, duration by ffprobe; odd sizes cropped even; a keyframe starting each
 *         second), without ffmpeg (the in-process encoder, else PNG frames), a writer that blocks
 *         (the queue fills and the waits are counted), an ffmpeg that dies at once (no file, no
 *         temporary left) or is SIGKILLed mid-way, and the in-process encoder's process SIGKILLed
 *         mid-way, its file cut inside a fragment, or its writes refused (a full disk, by
 *         RLIMIT_FSIZE): what was written plays to its last complete fragment;
 *   e2e   `vortexfmm --headless --record` (12 frames 160x96 at 24 fps: count, size, duration),
 *         --png-dir with --png-level through the writer thread, and runs interrupted mid-way by
 *         SIGINT to vortexfmm (exit 130, file finalized), SIGKILL to its ffmpeg (exit 1, file
 *         kept) or SIGKILL to vortexfmm recording in-process (the temporary file plays): ffprobe
 *         must read > 0 frames from each.
 * The in-process cases run when the build has libx264 (VX_HAVE_X264; scripts/setup installs it).
 * Benchmark (not a test): `test_render_record --bench 1920x1080 [frames]` prints the encoder's
 * throughput on synthetic frames ($VX_RECORD_ENCODER picks the encoder; default the in-process one).
 * ffmpeg and ffprobe are required (scripts/setup installs them): missing, the test fails. Without
 * a headless OpenGL context (EGL, else xvfb-run; the program's own "no context" answer, exit 1 —
 * any other failure of the probe fails) the e2e part is skipped, and the test reports 77 once the
 * unit part has passed. Run: ctest -R render_record */
#ifdef VX_RENDER_OFF /* configured with -DVX_ENABLE_RENDER=OFF */
#include <stdio.h>
int main(void) {
  printf("SKIP: this build has no renderer (-DVX_ENABLE_RENDER=OFF)\n");
  return 77;
}
#else
#define _POSIX_C_SOURCE 200809L /* popen, mkdtemp, kill, nanosleep, setenv */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "png_file.h"
#include "record.h"
#include "render.h"
#include "test_run.h"

static int failures = 0;
#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); ++failures; } while (0)

static char dir[] = "/tmp/vx_render_record_XXXXXX";
static char out[65536];
static const char *prefix = ""; /* "" or "xvfb-run -a " */

/* The program's answer when EGL gives no OpenGL context (render/headless.c: exit 1 and this
 * line; test_render_errors checks it). Only this skips; any other failure, a crash included, fails. */
static int no_egl_context(int rc, const char *text) {
  return rc == 1 && strstr(text, "cannot create a headless OpenGL context through EGL") != NULL;
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static long file_size(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

/* Run a shell command (stdout + stderr into out); its exit code, or -1. */
static int shell(const char *cmd) {
  return vx_test_shell(cmd, out, sizeof out);
}

static int run(const char *args) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s'%s/vortexfmm' %s 2>&1", prefix, VX_BINARY_DIR, args);
  return shell(cmd);
}

typedef struct {
  int frames, w, h;
  double duration;
} probe_t;

/* ffprobe's decoded frame count, size and duration of a video. 0, or -1 (FAIL said why). A file
 * cut inside a fragment (a kill during a write) makes ffprobe exit 1 after counting what it read:
 * partial_ok accepts that count. */
static int probe_file(const char *path, probe_t *p, int partial_ok) {
  char cmd[2048];
  memset(p, 0, sizeof *p);
  snprintf(cmd, sizeof cmd, "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
                            "stream=width,height,nb_read_frames -of csv=p=0 '%s' %s", path, partial_ok ? "2>/dev/null" : "2>&1");
  int rc = shell(cmd);
  if ((rc != 0 && !partial_ok) || sscanf(out, "%d,%d,%d", &p->w, &p->h, &p->frames) != 3) {
    FAIL("ffprobe cannot read %s: %s", path, out);
    return -1;
  }
  snprintf(cmd, sizeof cmd, "ffprobe -v error -show_entries format=duration -of csv=p=0 '%s' 2>&1", path);
  if (shell(cmd) != 0 || sscanf(out, "%lf", &p->duration) != 1) p->duration = -1;
  printf("  %s: %d frames, %dx%d, %.3f s%s\n", path, p->frames, p->w, p->h, p->duration, rc ? " (ffprobe: a partial file)" : "");
  return 0;
}
static int probe(const char *path, probe_t *p) { return probe_file(path, p, 0); }

static void expect_video(const char *path, int frames, int w, int h, double secs) {
  probe_t p;
  if (probe(path, &p)) return;
  if (p.frames != frames || p.w != w || p.h != h) FAIL("%s: %d frames %dx%d, expected %d frames %dx%d", path, p.frames, p.w, p.h, frames, w, h);
  if (p.duration < secs - 0.01 || p.duration > secs + 0.01) FAIL("%s: duration %.3f s, expected %.3f s", path, p.duration, secs);
}

/* $VX_RECORD_ENCODER for the recorders opened next (NULL: the default choice). */
static void force_encoder(const char *enc) {
  if (enc) setenv("VX_RECORD_ENCODER", enc, 1);
  else unsetenv("VX_RECORD_ENCODER");
}

#ifdef VX_HAVE_X264
static const int have_x264 = 1;
#else
static const int have_x264 = 0;
#endif

/* ------------------------------------------------------------------ unit: synthetic frames */

/* Frame k, RGBA bottom-up: red = k, green = the image row counted from the top, blue = x. */
static void synth(unsigned char *px, int w, int h, int k) {
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      unsigned char *p = px + 4 * ((size_t)(h - 1 - y) * w + x);
      p[0] = (unsigned char)(k * 8), p[1] = (unsigned char)y, p[2] = (unsigned char)x, p[3] = 255;
    }
}

static rd_recorder *open_video(const char *path, int w, int h, const char *program, int queue) {
  char err[1024];
  rd_record_params p = rd_record_params_default(w, h);
  p.fps = 24;
  p.program = program;
  p.queue = queue;
  rd_recorder *r = rd_record_open(path, &p, err, sizeof err);
  if (!r) FAIL("rd_record_open %s: %s", path, err);
  return r;
}

/* Push n synthetic frames; how many were taken before the first refusal. */
static int push(rd_recorder *r, int w, int h, int n, char *err, size_t errlen) {
  unsigned char *px = malloc(4 * (size_t)w * h);
  int k = 0;
  for (; k < n; ++k) {
    synth(px, w, h, k);
    if (rd_record_frame(r, px, err, errlen)) break;
  }
  free(px);
  return k;
}

static void unit_png(void) {
  char d[1200], err[1024], sum[2048];
  snprintf(d, sizeof d, "%s/png", dir);
  rd_record_params p = rd_record_params_default(64, 48);
  p.queue = 2;
  p.png_level = 1;
  rd_recorder *r = rd_record_open_png(d, &p, err, sizeof err);
  if (!r) { FAIL("rd_record_open_png: %s", err); return; }
  if (push(r, 64, 48, 10, err, sizeof err) != 10) FAIL("PNG frames refused: %s", err);
  if (rd_record_close(r, sum, sizeof sum)) FAIL("PNG close: %s", sum);
  printf("  unit png: %s\n", sum);
  for (int k = 0; k < 10; ++k) {
    char path[1300];
    unsigned char *rgb = NULL;
    int w = 0, h = 0;
    snprintf(path, sizeof path, "%s/frame_%05d.png", d, k);
    if (vx_png_read(path, &rgb, &w, &h, err, sizeof err)) { FAIL("%s", err); continue; }
    const unsigned char *top = rgb, *px = rgb + 3 * ((size_t)20 * w + 30);
    if (w != 64 || h != 48 || top[0] != k * 8 || top[1] != 0 || px[1] != 20 || px[2] != 30)
      FAIL("%s: %dx%d, top-left (%d,%d,%d), (30,20) (%d,%d,%d): wrong size, order or content", path, w, h, top[0], top[1],
           top[2], px[0], px[1], px[2]);
    free(rgb);
  }
}

/* 24 frames (one second) and an odd size, through enc ("": the default choice); want: the
 * encoder name it must report (NULL: any). */
static void unit_video_with(const char *enc, const char *want) {
  char path[1200], sum[2048], err[1024];
  force_encoder(enc[0] ? enc : NULL);
  snprintf(path, sizeof path, "%s/unit-%s.mp4", dir, enc[0] ? enc : "default");
  rd_recorder *r = open_video(path, 96, 64, NULL, 4);
  if (r) {
    printf("  unit video: encoder %s%s%s\n", rd_record_encoder(r), rd_record_notice(r)[0] ? "; " : "", rd_record_notice(r));
    if (want && strcmp(rd_record_encoder(r), want)) FAIL("%s: encoder %s, expected %s", path, rd_record_encoder(r), want);
    if (push(r, 96, 64, 24, err, sizeof err) != 24) FAIL("video frames refused: %s", err);
    if (rd_record_close(r, sum, sizeof sum)) FAIL("video close: %s", sum);
    printf("  %s\n", sum);
    expect_video(path, 24, 96, 64, 1.0);
  }
  snprintf(path, sizeof path, "%s/odd-%s.mp4", dir, enc[0] ? enc : "default"); /* yuv420p needs even sizes */
  if ((r = open_video(path, 97, 63, NULL, 4))) {
    if (push(r, 97, 63, 6, err, sizeof err) != 6) FAIL("odd-size frames refused: %s", err);
    if (rd_record_close(r, sum, sizeof sum)) FAIL("odd-size close: %s", sum);
    expect_video(path, 6, 96, 62, 0.25);
  }
  force_encoder(NULL);
}

static void unit_video(void) {
  unit_video_with("", NULL);
  unit_video_with("libx264", "libx264");
  if (have_x264) unit_video_with("x264", "libx264 (in-process)");
}

/* No ffmpeg: the in-process encoder (a build with libx264), else PNG frames; and PNG frames when
 * an encoder of ffmpeg is asked for. */
static void unit_fallback(void) {
  char path[1200], png[1300], sum[2048], err[1024];
  for (int ask_ffmpeg = 0; ask_ffmpeg < 2; ++ask_ffmpeg) {
    int want_png = ask_ffmpeg || !have_x264;
    force_encoder(ask_ffmpeg ? "libx264" : NULL);
    snprintf(path, sizeof path, "%s/noffmpeg%d.mp4", dir, ask_ffmpeg);
    rd_recorder *r = open_video(path, 32, 32, "/nonexistent/ffmpeg", 4);
    force_encoder(NULL);
    if (!r) return;
    printf("  unit fallback: %s: %s\n", rd_record_encoder(r), rd_record_notice(r));
    if (!strstr(rd_record_notice(r), "not installed")) FAIL("no notice of the missing ffmpeg: '%s'", rd_record_notice(r));
    if (strcmp(rd_record_encoder(r), want_png ? "png" : "libx264 (in-process)"))
      FAIL("without ffmpeg: encoder %s", rd_record_encoder(r));
    if (push(r, 32, 32, 3, err, sizeof err) != 3) FAIL("fallback frames refused: %s", err);
    if (rd_record_close(r, sum, sizeof sum)) FAIL("fallback close: %s", sum);
    snprintf(png, sizeof png, "%s/noffmpeg%d-frames/frame_00002.png", dir, ask_ffmpeg);
    if (want_png && file_size(png) <= 0) FAIL("no PNG frames in place of the video (%s)", png);
    if (want_png && file_size(path) >= 0) FAIL("%s exists without ffmpeg", path);
    if (!want_png) expect_video(path, 3, 32, 32, 0.125);
  }
}

/* A writer that blocks: a stand-in for ffmpeg that reads nothing for a second. */
static void unit_queue_full(void) {
  char script[1200], path[1200], sum[2048], err[1024];
  snprintf(script, sizeof script, "%s/slow-ffmpeg", dir);
  FILE *f = fopen(script, "w");
  if (!f) { FAIL("cannot write %s", script); return; }
  int bad = fprintf(f, "#!/bin/sh\nsleep 1\nexec cat > /dev/null\n") < 0;
  bad |= fclose(f) != 0;
  if (bad || chmod(script, 0755)) { FAIL("cannot write the executable %s", script); return; }
  snprintf(path, sizeof path, "%s/slow.mp4", dir);
  force_encoder("libx264"); /* the stand-in is run as ffmpeg only when ffmpeg's encoder is asked for */
  rd_recorder *r = open_video(path, 256, 256, script, 2);
  force_encoder(NULL);
  if (!r) return;
  if (push(r, 256, 256, 12, err, sizeof err) != 12) FAIL("slow writer: frames refused: %s", err);
  long long waits = rd_record_waits(r);
  int rc = rd_record_close(r, sum, sizeof sum);
  printf("  unit queue: %lld waits for a free buffer; %s\n", waits, sum);
  if (waits < 1) FAIL("a full queue did not make the caller wait");
  if (rc == 0 || !strstr(sum, "no file written")) FAIL("a writer that wrote no file was not reported: %s", sum);
}

/* ffmpeg dying at once (/bin/false), and SIGKILLed after a second of frames. */
static void unit_ffmpeg_dies(void) {
  char path[1200], tmp[1300], sum[2048], err[1024];
  snprintf(path, sizeof path, "%s/false.mp4", dir);
  force_encoder("libx264"); /* ffmpeg's, not the in-process encoder */
  rd_recorder *r = open_video(path, 64, 64, "/bin/false", 2);
  if (r) {
    int k = push(r, 64, 64, 1000, err, sizeof err);
    int rc = rd_record_close(r, sum, sizeof sum);
    printf("  unit ffmpeg exits: %d frames taken; %s\n", k, sum);
    if (k >= 1000) FAIL("frames still taken after ffmpeg ended");
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld.mp4", path, (long)getpid());
    if (rc == 0 || file_size(path) >= 0 || file_size(tmp) >= 0) FAIL("a failed ffmpeg left a file, or was not reported");
  }
  snprintf(path, sizeof path, "%s/killed.mp4", dir);
  r = open_video(path, 96, 64, NULL, 4);
  force_encoder(NULL);
  if (!r) return;
  if (push(r, 96, 64, 60, err, sizeof err) != 60) FAIL("frames refused before ffmpeg was killed: %s", err); /* keyframe (fragment) every 24 frames */
  sleep_ms(1500);
  if (kill((pid_t)rd_record_child_pid(r), SIGKILL)) FAIL("cannot kill ffmpeg (pid %ld)", (long)rd_record_child_pid(r));
  int k = push(r, 96, 64, 100000, err, sizeof err);
  int rc = rd_record_close(r, sum, sizeof sum);
  printf("  unit ffmpeg killed: %d more frames taken; %s\n", k, sum);
  if (rc == 0 || !strstr(sum, "signal 9")) FAIL("the killed ffmpeg was not reported: %s", sum);
  probe_t p;
  if (!probe(path, &p) && p.frames <= 0) FAIL("nothing playable kept of a killed ffmpeg");
}

/* ------------------------------------------------------------------ unit: the in-process encoder cut short */

/* Every packet of path a keyframe exactly when its index is a multiple of every (one per fragment). */
static void expect_keyframes(const char *path, int every) {
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "ffprobe -v error -select_streams v:0 -show_entries packet=flags -of csv=p=0 '%s' 2>&1", path);
  if (shell(cmd) != 0) { FAIL("ffprobe cannot list the packets of %s: %s", path, out); return; }
  int i = 0;
  for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"), ++i)
    if ((line[0] == 'K') != (i % every == 0)) FAIL("%s: packet %d is %sa keyframe", path, i, line[0] == 'K' ? "" : "not ");
}

/* The offset and size of the last top-level box of type in the file's bytes; -1 when none. */
static long last_box(const unsigned char *b, long n, const char *type, long *size) {
  long found = -1;
  for (long at = 0; at + 8 <= n;) {
    long s = (long)b[at] << 24 | (long)b[at + 1] << 16 | (long)b[at + 2] << 8 | (long)b[at + 3];
    if (s < 8) break;
    if (!memcmp(b + at + 4, type, 4)) found = at, *size = s;
    at += s;
  }
  return found;
}

/* A copy of src (frames in whole fragments of 24) cut half-way through its last mdat, as a full disk
 * or a kill during a write leaves it: ffprobe still reads the fragments before. */
static void unit_x264_cut(const char *src, int frames) {
  char cut[1200];
  snprintf(cut, sizeof cut, "%s/x264-cut.mp4", dir);
  FILE *f = fopen(src, "rb");
  unsigned char *b = malloc(1 << 22);
  long n = f && b ? (long)fread(b, 1, 1 << 22, f) : 0, size = 0;
  if (f) fclose(f);
  long at = last_box(b, n, "mdat", &size);
  FILE *g = at > 0 ? fopen(cut, "wb") : NULL;
  int bad = !g || fwrite(b, 1, (size_t)(at + size / 2), g) != (size_t)(at + size / 2);
  if (g) bad |= fclose(g) != 0;
  free(b);
  if (bad) { FAIL("cannot cut %s into %s", src, cut); return; }
  probe_t p;
  if (!probe_file(cut, &p, 1) && (p.frames < frames - 24 || p.frames > frames))
    FAIL("%s (cut inside its last fragment): %d frames, expected %d to %d", cut, p.frames, frames - 24, frames);
}

/* A process recording in-process SIGKILLed after 80 frames at 24 fps: its temporary file plays,
 * whole fragments only (24, 48 or 72 frames: libx264 still held the rest). */
static void unit_x264_killed(void) {
  char path[1200], tmp[1300], err[1024];
  snprintf(path, sizeof path, "%s/x264-killed.mp4", dir);
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) { FAIL("cannot fork"); return; }
  if (pid == 0) {
    force_encoder("x264");
    rd_recorder *r = open_video(path, 96, 64, NULL, 4);
    if (!r || push(r, 96, 64, 80, err, sizeof err) != 80) _exit(1);
    sleep_ms(2000); /* the writer encodes what it holds */
    raise(SIGKILL);
    _exit(1);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  if (!WIFSIGNALED(st)) { FAIL("the recording child was not killed (status 0x%x)", st); return; }
  snprintf(tmp, sizeof tmp, "%s.tmp-%ld.mp4", path, (long)pid);
  probe_t p;
  if (probe(tmp, &p)) return;
  if (p.frames < 24 || p.frames > 80 || p.frames % 24) FAIL("%s: %d frames, expected 24, 48 or 72 (whole fragments)", tmp, p.frames);
  expect_keyframes(tmp, 24);
  unit_x264_cut(tmp, p.frames);
}

/* Writes refused mid-way (RLIMIT_FSIZE: EFBIG, as a full disk gives ENOSPC): the recording stops
 * with one line, the file is kept and plays to its last complete fragment. */
static void unit_x264_full(void) {
  char path[1200], log[1200], err[1024], sum[2048];
  snprintf(path, sizeof path, "%s/x264-full.mp4", dir);
  snprintf(log, sizeof log, "%s/x264-full.txt", dir);
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) { FAIL("cannot fork"); return; }
  if (pid == 0) {
    struct rlimit rl = {12000, 12000}; /* the header and a few fragments of these frames */
    signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &rl)) _exit(2);
    force_encoder("x264");
    rd_recorder *r = open_video(path, 96, 64, NULL, 4);
    if (!r) _exit(2);
    int k = push(r, 96, 64, 480, err, sizeof err);
    int rc = rd_record_close(r, sum, sizeof sum);
    FILE *f = fopen(log, "w");
    if (f) fprintf(f, "%d frames taken; %s\n", k, sum), fclose(f);
    _exit(rc ? 3 : 0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  FILE *f = fopen(log, "r");
  if (!f || !fgets(sum, sizeof sum, f)) sum[0] = 0;
  if (f) fclose(f);
  printf("  unit x264 write refused: %s", sum);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 3) FAIL("a refused write: child status 0x%x, expected exit 3", st);
  if (!strstr(sum, "File too large") || !strstr(sum, "kept what was written")) FAIL("no line saying the write failed and the file was kept");
  const char *n = strstr(sum, ".mp4: ");
  int in_file = n ? atoi(n + 6) : -1;
  probe_t p;
  if (probe(path, &p)) return;
  if (in_file < 24 || in_file % 24 || p.frames < in_file || p.frames >= 480)
    FAIL("%s: %d frames playable, %d said to be in whole fragments", path, p.frames, in_file);
}

/* A device that refuses the first write (/dev/full): the open fails in one line. */
static void unit_x264_dev_full(void) {
  char err[1024];
  rd_record_params p = rd_record_params_default(64, 64);
  force_encoder("x264");
  rd_recorder *r = rd_record_open("/dev/full", &p, err, sizeof err);
  force_encoder(NULL);
  printf("  unit x264 /dev/full: %s\n", r ? "opened" : err);
  if (r) { rd_record_close(r, out, sizeof out); FAIL("a recording to /dev/full opened"); return; }
  if (!strstr(err, "No space left on device") || strchr(err, '\n')) FAIL("/dev/full: not one line naming the reason: %s", err);
}

static void unit_x264(void) {
  if (!have_x264) { printf("  (in-process encoder cases skipped: this build has no libx264)\n"); return; }
  unit_x264_killed();
  unit_x264_full();
  unit_x264_dev_full();
}

/* ------------------------------------------------------------------ end to end */

static const char *kScene = "--scene merger --backend cpu --tracers 2048 --integrator euler --size 160x96";

/* vortexfmm recording (argv after the binary) in the background, output into log; encoder: its
 * $VX_RECORD_ENCODER (NULL: the default choice). */
static pid_t start_bg(const char *args, const char *log, const char *encoder) {
  pid_t pid = fork();
  if (pid == 0) {
    force_encoder(encoder);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) dup2(fd, 1), dup2(fd, 2);
    char bin[1024], cmd[8192];
    snprintf(bin, sizeof bin, "%s/vortexfmm", VX_BINARY_DIR);
    snprintf(cmd, sizeof cmd, "exec '%s' %s", bin, args);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  return pid;
}

/* The child process of parent named comm ("ffmpeg"), from /proc; 0 if none. */
static pid_t child_named(pid_t parent, const char *comm) {
  DIR *d = opendir("/proc");
  if (!d) return 0;
  struct dirent *e;
  pid_t found = 0;
  while (!found && (e = readdir(d))) {
    char path[300], buf[512], name[64];
    int pid, ppid;
    snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    if (fgets(buf, sizeof buf, f) && sscanf(buf, "%d (%63[^)]) %*c %d", &pid, name, &ppid) == 3 && ppid == parent &&
        !strcmp(name, comm))
      found = pid;
    fclose(f);
  }
  closedir(d);
  return found;
}

/* Wait until path exists and has grown past its first size (a fragment written); 0, or -1. */
static int wait_growth(const char *path, int timeout_s) {
  long first = -1;
  for (int i = 0; i < timeout_s * 10; ++i, sleep_ms(100)) {
    long s = file_size(path);
    if (s > 0 && first < 0) first = s;
    if (first > 0 && s > first) return 0;
  }
  return -1;
}

/* Exit code of pid within timeout_s (killing it after); -1 when it hung or died by a signal. */
static int wait_exit(pid_t pid, int timeout_s) {
  int st;
  for (int i = 0; i < timeout_s * 10; ++i, sleep_ms(100))
    if (waitpid(pid, &st, WNOHANG) == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  kill(pid, SIGKILL);
  waitpid(pid, &st, 0);
  FAIL("vortexfmm did not end within %d s", timeout_s);
  return -1;
}

static void print_file(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return;
  size_t n = fread(out, 1, sizeof out - 1, f);
  out[n] = 0;
  fclose(f);
  printf("%s", out);
}

enum { BY_SIGINT, KILL_FFMPEG, KILL_SELF };

/* The temporary file of vortexfmm killed recording in-process: what it wrote plays (a kill during
 * a write may leave a fragment cut short: ffprobe reads the ones before). */
static void e2e_killed_self(pid_t pid, const char *tmp) {
  if (kill(pid, SIGKILL)) FAIL("kill-self: cannot signal pid %ld", (long)pid);
  int st = 0;
  waitpid(pid, &st, 0);
  if (!WIFSIGNALED(st)) FAIL("kill-self: vortexfmm was not killed (status 0x%x)", st);
  probe_t p;
  if (!probe_file(tmp, &p, 1) && p.frames <= 0) FAIL("kill-self: no frames playable in %s", tmp);
}

/* An endless recording interrupted mid-way: SIGINT to vortexfmm, SIGKILL to its ffmpeg, or
 * SIGKILL to vortexfmm recording in-process. */
static void e2e_interrupted(int how) {
  static const char *names[] = {"sigint", "killed", "kill-self"};
  char path[1200], tmp[1300], log[1200], args[4096];
  const char *name = names[how];
  snprintf(path, sizeof path, "%s/e2e-%s.mp4", dir, name);
  snprintf(log, sizeof log, "%s/e2e-%s.log", dir, name);
  snprintf(args, sizeof args, "--headless %s --steps-per-frame 0 --frames 1000000 --fps 24 --record '%s'", kScene, path);
  pid_t pid = start_bg(args, log, how == KILL_FFMPEG ? "libx264" : how == KILL_SELF ? "x264" : NULL);
  if (pid <= 0) { FAIL("%s: cannot fork", name); return; } /* never kill(-1, ...) below */
  snprintf(tmp, sizeof tmp, "%s.tmp-%ld.mp4", path, (long)pid);
  if (wait_growth(tmp, 120)) {
    FAIL("%s: no video fragment written within 120 s (%s)", name, tmp);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    print_file(log);
    return;
  }
  if (how == KILL_SELF) {
    e2e_killed_self(pid, tmp);
    return;
  }
  int kill_ffmpeg = how == KILL_FFMPEG;
  pid_t ff = kill_ffmpeg ? child_named(pid, "ffmpeg") : 0;
  if (kill_ffmpeg && !ff) FAIL("no ffmpeg child of vortexfmm %ld found", (long)pid);
  if ((!kill_ffmpeg || ff) && kill(kill_ffmpeg ? ff : pid, kill_ffmpeg ? SIGKILL : SIGINT))
    FAIL("%s: cannot signal pid %ld", name, (long)(kill_ffmpeg ? ff : pid));
  int rc = wait_exit(pid, 60);
  print_file(log);
  int want = kill_ffmpeg ? 1 : 130;
  if (rc != want) FAIL("%s: vortexfmm exited %d, expected %d", name, rc, want);
  if (file_size(tmp) >= 0) FAIL("%s: the temporary %s is left", name, tmp);
  if (kill_ffmpeg ? !strstr(out, "signal 9") : !strstr(out, "recorded ")) FAIL("%s: no line saying how it ended", name);
  probe_t p;
  if (!probe(path, &p) && p.frames <= 0) FAIL("%s: no frames playable", name);
}

static void e2e(void) {
  char path[1200], args[4096];
  /* a. 12 frames of 160x96 at 24 fps */
  snprintf(path, sizeof path, "%s/e2e.mp4", dir);
  snprintf(args, sizeof args, "--headless %s --frames 12 --fps 24 --record '%s'", kScene, path);
  int rc = run(args);
  printf("%s", out);
  if (rc != 0 || !strstr(out, "recorded ")) FAIL("--record run: exit %d", rc);
  expect_video(path, 12, 160, 96, 0.5);
  /* --png-dir through the writer thread, with a zlib level */
  snprintf(path, sizeof path, "%s/frames", dir);
  snprintf(args, sizeof args, "--headless %s --frames 3 --steps-per-frame 0 --quiet --png-dir '%s' --png-level 1", kScene, path);
  if ((rc = run(args)) != 0) FAIL("--png-dir run: exit %d: %s", rc, out);
  for (int k = 0; k < 3; ++k) {
    char png[1300], err[512];
    unsigned char *rgb = NULL;
    int w, h;
    snprintf(png, sizeof png, "%s/frame_%05d.png", path, k);
    if (vx_png_read(png, &rgb, &w, &h, err, sizeof err)) FAIL("%s", err);
    else if (w != 160 || h != 96) FAIL("%s is %dx%d", png, w, h);
    free(rgb);
  }
  snprintf(args, sizeof args, "--headless --scene merger --record x.mp4"); /* no --frames: the batch mode */
  if (run(args) != 2 || !strstr(out, "--record")) FAIL("--record in batch mode was not refused: %s", out);
  /* b. interrupted mid-way */
  if (prefix[0]) {
    printf("  (interruption runs skipped: they need EGL without xvfb-run)\n");
    return;
  }
  e2e_interrupted(BY_SIGINT);
  e2e_interrupted(KILL_FFMPEG);
  if (have_x264) e2e_interrupted(KILL_SELF);
}

/* ------------------------------------------------------------------ benchmark (not a test) */

/* Frame k of a busier picture: synth's still gradient under one bright 3x3 dot per 64 pixels, each
 * moving on its own line, so that motion search and entropy coding have work, as tracers give. */
static void synth_busy(unsigned char *px, int w, int h, int k) {
  synth(px, w, h, 0);
  unsigned s = 12345u;
  for (int i = 0; i < w * h / 64; ++i) {
    s = s * 1664525u + 1013904223u;
    int x0 = (int)((s >> 8) % (unsigned)w), vx = (int)(s & 7) - 3;
    s = s * 1664525u + 1013904223u;
    int y0 = (int)((s >> 8) % (unsigned)h), vy = (int)(s & 7) - 3;
    int x = ((x0 + vx * k) % w + w) % w, y = ((y0 + vy * k) % h + h) % h;
    for (int dy = 0; dy < 3 && y + dy < h; ++dy)
      for (int dx = 0; dx < 3 && x + dx < w; ++dx) {
        unsigned char *q = px + 4 * ((size_t)(y + dy) * w + x + dx);
        q[0] = 255, q[1] = 200, q[2] = (unsigned char)(s >> 16);
      }
  }
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Encode `frames` synthetic frames of size ("1920x1080") at 60 fps from a queue of 8, as the
 * program does; print the throughput from the first frame handed over to the file closed. */
static int bench(const char *size, int frames) {
  enum { NF = 16 }; /* distinct frames, cycled (made before the clock starts) */
  int w = 0, h = 0;
  if (sscanf(size, "%dx%d", &w, &h) != 2 || w < 16 || h < 16 || frames < 1) {
    printf("usage: test_render_record --bench WIDTHxHEIGHT [frames]\n");
    return 2;
  }
  if (!getenv("VX_RECORD_ENCODER") && have_x264) force_encoder("x264");
  unsigned char *px[NF];
  for (int k = 0; k < NF; ++k)
    if ((px[k] = malloc(4 * (size_t)w * h))) synth_busy(px[k], w, h, k);
    else { printf("out of memory\n"); return 1; }
  char path[1200], err[1024], sum[2048];
  snprintf(path, sizeof path, "%s/bench.mp4", dir);
  rd_record_params p = rd_record_params_default(w, h);
  p.fps = 60;
  rd_recorder *r = rd_record_open(path, &p, err, sizeof err);
  if (!r) { printf("%s\n", err); rmdir(dir); return 1; }
  const char *enc = rd_record_encoder(r);
  double t0 = now_s();
  int k = 0;
  while (k < frames && rd_record_frame(r, px[k % NF], err, sizeof err) == 0) ++k;
  long long waits = rd_record_waits(r);
  int rc = rd_record_close(r, sum, sizeof sum);
  double t = now_s() - t0;
  printf("%s, %dx%d: %d frames in %.2f s = %.1f frames/s (the caller waited %lld times); %ld bytes\n", enc, w, h, k, t,
         k / t, waits, file_size(path));
  if (rc) printf("%s\n", sum);
  unlink(path);
  rmdir(dir);
  for (int i = 0; i < NF; ++i) free(px[i]);
  return rc ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && !strcmp(argv[1], "--bench")) {
    if (!mkdtemp(dir)) { printf("cannot make a temporary directory\n"); return 1; }
    return bench(argv[2], argc > 3 ? atoi(argv[3]) : 300);
  }
  if (!mkdtemp(dir)) { printf("FAIL: cannot make a temporary directory\n"); return EXIT_FAILURE; }
  if (system("command -v ffmpeg > /dev/null 2>&1 && command -v ffprobe > /dev/null 2>&1") != 0) {
    printf("FAIL: ffmpeg and ffprobe are needed to test recording (scripts/setup installs them: apt-get install ffmpeg)\n");
    return EXIT_FAILURE;
  }
  unit_png();
  unit_video();
  unit_fallback();
  unit_queue_full();
  unit_ffmpeg_dies();
  unit_x264();
  if (failures) { printf("%d check(s) failed (unit part)\n", failures); return EXIT_FAILURE; }
  printf("recorder unit checks passed (files in %s)\n", dir);

  char args[1024];
  snprintf(args, sizeof args, "--headless --scene merger --backend cpu --tracers 64 --size 64x64 --frames 1 --quiet "
                              "--screenshot '%s/probe.png'", dir);
  int rc = run(args);
  if (rc != 0 && !no_egl_context(rc, out)) {
    printf("FAIL: the headless probe failed otherwise than for want of an EGL context (exit %d):\n%s", rc, out);
    return EXIT_FAILURE;
  }
  if (rc != 0) {
    int have_xvfb = system("command -v xvfb-run > /dev/null 2>&1") == 0;
    if (have_xvfb) {
      prefix = "xvfb-run -a ";
      rc = run(args);
    }
    if (!have_xvfb || no_egl_context(rc, out) || (rc != 0 && strstr(out, "xvfb-run: error"))) {
      printf("SKIP: the end-to-end part needs a headless OpenGL context (EGL or xvfb-run): %s", out);
      return 77;
    }
    if (rc != 0) {
      printf("FAIL: the probe under xvfb-run failed otherwise than for want of a context (exit %d):\n%s", rc, out);
      return EXIT_FAILURE;
    }
  }
  e2e();
  if (failures) { printf("%d check(s) failed\n", failures); return EXIT_FAILURE; }
  printf("recording checks passed\n");
  return EXIT_SUCCESS;
}
#endif /* VX_RENDER_OFF */
