/* test_render_record.c — video recording (render/record.h, `vortexfmm --record`):
 *   unit  the recorder on synthetic frames, no GL: PNG frames (queue, row order, alpha dropped),
 *         an MP4 (frame count, size, duration by ffprobe; odd sizes cropped even), the PNG fallback
 *         without ffmpeg, a writer that blocks (the queue fills and the waits are counted), an
 *         ffmpeg that dies at once (no file, no temporary left) or is SIGKILLed mid-way (the
 *         fragments written so far stay playable);
 *   e2e   `vortexfmm --headless --record` (12 frames 160x96 at 24 fps: count, size, duration),
 *         --png-dir with --png-level through the writer thread, and runs interrupted mid-way by
 *         SIGINT to vortexfmm (exit 130, file finalized) or SIGKILL to its ffmpeg (exit 1, file
 *         kept): ffprobe must read > 0 frames from both.
 * ffmpeg and ffprobe are required (scripts/setup installs them): missing, the test fails. Without
 * a headless OpenGL context (EGL, else xvfb-run; the program's own "no context" answer, exit 1 —
 * any other failure of the probe fails) the e2e part is skipped, and the test reports 77 once the
 * unit part has passed. Run: ctest -R render_record */
#define _POSIX_C_SOURCE 200809L /* popen, mkdtemp, kill, nanosleep */
#include "test_check.h"

#ifdef VX_RENDER_OFF /* configured with -DVX_ENABLE_RENDER=OFF */
VX_TEST_RENDER_OFF_MAIN
#else
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record.h"
#include "render.h"
#include "test_run.h"

static char dir[] = "/tmp/vx_render_record_XXXXXX";
static char out[65536];
static const char *prefix = ""; /* "" or "xvfb-run -a": vx_test_headless_probe's answer */

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

static int run(const char *args) { return vx_test_run_program(prefix, args, out, sizeof out); }

typedef struct {
  int frames, w, h;
  double duration;
} probe_t;

/* ffprobe's decoded frame count, size and duration of a video. 0, or -1 (FAIL said why). */
static int probe(const char *path, probe_t *p) {
  char cmd[2048];
  memset(p, 0, sizeof *p);
  snprintf(cmd, sizeof cmd, "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
                            "stream=width,height,nb_read_frames -of csv=p=0 '%s' 2>&1", path);
  if (shell(cmd) != 0 || sscanf(out, "%d,%d,%d", &p->w, &p->h, &p->frames) != 3) {
    FAIL("ffprobe cannot read %s: %s", path, out);
    return -1;
  }
  snprintf(cmd, sizeof cmd, "ffprobe -v error -show_entries format=duration -of csv=p=0 '%s' 2>&1", path);
  if (shell(cmd) != 0 || sscanf(out, "%lf", &p->duration) != 1) p->duration = -1;
  printf("  %s: %d frames, %dx%d, %.3f s\n", path, p->frames, p->w, p->h, p->duration);
  return 0;
}

static void expect_video(const char *path, int frames, int w, int h, double secs) {
  probe_t p;
  if (probe(path, &p)) return;
  if (p.frames != frames || p.w != w || p.h != h) FAIL("%s: %d frames %dx%d, expected %d frames %dx%d", path, p.frames, p.w, p.h, frames, w, h);
  if (p.duration < secs - 0.01 || p.duration > secs + 0.01) FAIL("%s: duration %.3f s, expected %.3f s", path, p.duration, secs);
}

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
    if (rd_png_read(path, &rgb, &w, &h, err, sizeof err)) { FAIL("%s", err); continue; }
    const unsigned char *top = rgb, *px = rgb + 3 * ((size_t)20 * w + 30);
    if (w != 64 || h != 48 || top[0] != k * 8 || top[1] != 0 || px[1] != 20 || px[2] != 30)
      FAIL("%s: %dx%d, top-left (%d,%d,%d), (30,20) (%d,%d,%d): wrong size, order or content", path, w, h, top[0], top[1],
           top[2], px[0], px[1], px[2]);
    free(rgb);
  }
}

static void unit_video(void) {
  char path[1200], sum[2048], err[1024];
  snprintf(path, sizeof path, "%s/unit.mp4", dir);
  rd_recorder *r = open_video(path, 96, 64, NULL, 4);
  if (r) {
    printf("  unit video: encoder %s%s%s\n", rd_record_encoder(r), rd_record_notice(r)[0] ? "; " : "", rd_record_notice(r));
    if (push(r, 96, 64, 24, err, sizeof err) != 24) FAIL("video frames refused: %s", err);
    if (rd_record_close(r, sum, sizeof sum)) FAIL("video close: %s", sum);
    printf("  %s\n", sum);
    expect_video(path, 24, 96, 64, 1.0);
  }
  snprintf(path, sizeof path, "%s/odd.mp4", dir); /* yuv420p needs even sizes */
  if ((r = open_video(path, 97, 63, NULL, 4))) {
    if (push(r, 97, 63, 6, err, sizeof err) != 6) FAIL("odd-size frames refused: %s", err);
    if (rd_record_close(r, sum, sizeof sum)) FAIL("odd-size close: %s", sum);
    expect_video(path, 6, 96, 62, 0.25);
  }
}

static void unit_fallback(void) {
  char path[1200], png[1300], sum[2048], err[1024];
  snprintf(path, sizeof path, "%s/noffmpeg.mp4", dir);
  rd_recorder *r = open_video(path, 32, 32, "/nonexistent/ffmpeg", 4);
  if (!r) return;
  printf("  unit fallback: %s\n", rd_record_notice(r));
  if (!strstr(rd_record_notice(r), "not installed")) FAIL("no notice of the missing ffmpeg: '%s'", rd_record_notice(r));
  if (push(r, 32, 32, 3, err, sizeof err) != 3) FAIL("fallback frames refused: %s", err);
  if (rd_record_close(r, sum, sizeof sum)) FAIL("fallback close: %s", sum);
  snprintf(png, sizeof png, "%s/noffmpeg-frames/frame_00002.png", dir);
  if (file_size(png) <= 0) FAIL("no PNG frames in place of the video (%s)", png);
  if (file_size(path) >= 0) FAIL("%s exists without ffmpeg", path);
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
  rd_recorder *r = open_video(path, 256, 256, script, 2);
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
  if (!(r = open_video(path, 96, 64, NULL, 4))) return;
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

/* ------------------------------------------------------------------ end to end */

static const char *kScene = "--scene leapfrog --backend cpu --tracers 2048 --integrator euler --size 160x96";

/* vortexfmm recording (argv after the binary) in the background, output into log. */
static pid_t start_bg(const char *args, const char *log) {
  pid_t pid = fork();
  if (pid == 0) {
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

/* An endless recording interrupted mid-way: SIGINT to vortexfmm, or SIGKILL to its ffmpeg. */
static void e2e_interrupted(int kill_ffmpeg) {
  char path[1200], tmp[1300], log[1200], args[4096];
  const char *name = kill_ffmpeg ? "killed" : "sigint";
  snprintf(path, sizeof path, "%s/e2e-%s.mp4", dir, name);
  snprintf(log, sizeof log, "%s/e2e-%s.log", dir, name);
  snprintf(args, sizeof args, "--headless %s --steps-per-frame 0 --frames 1000000 --fps 24 --record '%s'", kScene, path);
  pid_t pid = start_bg(args, log);
  if (pid <= 0) { FAIL("%s: cannot fork", name); return; } /* never kill(-1, ...) below */
  snprintf(tmp, sizeof tmp, "%s.tmp-%ld.mp4", path, (long)pid);
  if (wait_growth(tmp, 120)) {
    FAIL("%s: no video fragment written within 120 s (%s)", name, tmp);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    print_file(log);
    return;
  }
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
    if (rd_png_read(png, &rgb, &w, &h, err, sizeof err)) FAIL("%s", err);
    else if (w != 160 || h != 96) FAIL("%s is %dx%d", png, w, h);
    free(rgb);
  }
  snprintf(args, sizeof args, "--headless --scene leapfrog --record x.mp4"); /* no --frames: the batch mode */
  if (run(args) != 2 || !strstr(out, "--record")) FAIL("--record in batch mode was not refused: %s", out);
  /* b. interrupted mid-way */
  if (prefix[0]) {
    printf("  (interruption runs skipped: they need EGL without xvfb-run)\n");
    return;
  }
  e2e_interrupted(0);
  e2e_interrupted(1);
}

int main(void) {
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
  if (failures) { printf("%d check(s) failed (unit part)\n", failures); return EXIT_FAILURE; }
  printf("recorder unit checks passed (files in %s)\n", dir);

  char args[1024];
  snprintf(args, sizeof args, "--headless --scene leapfrog --backend cpu --tracers 64 --size 64x64 --frames 1 --quiet "
                              "--screenshot '%s/probe.png'", dir);
  int rc = vx_test_headless_probe(args, &prefix, out, sizeof out);
  if (rc == 77) {
    printf("SKIP: the end-to-end part needs a headless OpenGL context (EGL or xvfb-run): %s", out);
    return 77;
  }
  if (rc != 0) return EXIT_FAILURE;
  e2e();
  return vx_test_end("recording checks passed");
}
#endif /* VX_RENDER_OFF */
