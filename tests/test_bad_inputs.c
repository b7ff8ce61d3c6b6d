/* test_bad_inputs.c — "never a crash": every case of tests/bad_inputs/cases*.txt (malformed scenes,
 * absurd flags, missing / unwritable / corrupt files, a full disk) run through the vortexfmm
 * program built beside the tests. Each must end normally (no signal, no hang: 20 s), with the
 * case's non-zero exit code and a one-line message on stderr's last line holding the expected text;
 * a write-failure case must leave nothing under its final file name.
 * A full disk is simulated without mounting anything: RLIMIT_FSIZE is set small in the child and
 * SIGXFSZ ignored, so writes past the limit fail with EFBIG. A device that is full is /dev/full
 * through a symbolic link in the case's directory (the link must still be there afterwards: a
 * program that renamed a file over /dev/full itself would replace the device). Permission cases
 * run the program as user nobody when the test runs as root (root reads and writes anything).
 * The case files are read in the order of their names (cases.txt, then cases_*.txt).
 * Run: ctest -R bad_inputs */
#define _DEFAULT_SOURCE /* setgroups */
#define _POSIX_C_SOURCE 200809L /* fork, mkdtemp, nanosleep, setrlimit, symlink */
#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_check.h"

#define CASE_TIMEOUT_S 20
#define MAX_ARGS 64
#define NOBODY 65534 /* the uid and gid a root run drops to for the permission cases */

typedef struct {
  char name[128], want[512], opts[512], args[2048];
  int code;
} bad_case;

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') ++s;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r')) s[--n] = 0;
  return s;
}

/* "a | b | c | d | e" into c's fields; 0, or -1 for a malformed line. */
static int parse_case(char *line, bad_case *c) {
  char *f[5];
  for (int i = 0; i < 5; ++i) {
    f[i] = line;
    char *bar = i < 4 ? strchr(line, '|') : NULL;
    if (i < 4 && !bar) return -1;
    if (bar) { *bar = 0; line = bar + 1; }
  }
  snprintf(c->name, sizeof c->name, "%s", trim(f[0]));
  c->code = atoi(trim(f[1]));
  snprintf(c->want, sizeof c->want, "%s", trim(f[2]));
  snprintf(c->opts, sizeof c->opts, "%s", trim(f[3]));
  snprintf(c->args, sizeof c->args, "%s", trim(f[4]));
  return 0;
}

/* s with every @TMP@ replaced by tmp. */
static void subst(const char *s, const char *tmp, char *out, size_t outlen) {
  size_t o = 0;
  while (*s && o + 1 < outlen) {
    if (!strncmp(s, "@TMP@", 5)) {
      o += (size_t)snprintf(out + o, outlen - o, "%s", tmp);
      s += 5;
    } else {
      out[o++] = *s++;
    }
  }
  out[o < outlen ? o : outlen - 1] = 0;
}

/* The value of KEY=... in a comma list of options (NULL: absent), or "" for a bare KEY. */
static const char *opt(const char *opts, const char *key, char *buf, size_t buflen) {
  size_t kl = strlen(key);
  for (const char *p = opts; p && *p;) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n >= kl && !strncmp(p, key, kl) && (n == kl || p[kl] == '=')) {
      size_t vl = n > kl ? n - kl - 1 : 0;
      if (vl >= buflen) vl = buflen - 1;
      memcpy(buf, p + kl + (n > kl), vl);
      buf[vl] = 0;
      return buf;
    }
    p = end ? end + 1 : NULL;
  }
  return NULL;
}

/* Run exe with argv in dir, stderr into errpath; fsize > 0: RLIMIT_FSIZE; as_nobody: as user
 * nobody (the caller is root). Returns the wait status, or -1 when it could not run; *timed_out
 * when it had to be killed. */
static int run_case(const char *exe, char **argv, const char *dir, const char *errpath, long fsize, int as_nobody,
                    int *timed_out) {
  *timed_out = 0;
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int e = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644), nul = open("/dev/null", O_RDWR);
    if (e < 0 || nul < 0 || chdir(dir)) _exit(125);
    dup2(nul, 0), dup2(nul, 1), dup2(e, 2);
    if (fsize > 0) { /* after the stderr file is open: the limit is for what the program writes */
      signal(SIGXFSZ, SIG_IGN);
      struct rlimit rl = {(rlim_t)fsize, (rlim_t)fsize};
      if (setrlimit(RLIMIT_FSIZE, &rl)) _exit(125);
    }
    if (as_nobody && (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))) _exit(125);
    execv(exe, argv);
    _exit(126);
  }
  int st = 0;
  struct timespec tick = {0, 10 * 1000 * 1000};
  for (int i = 0; i < CASE_TIMEOUT_S * 100; ++i) {
    pid_t w = waitpid(pid, &st, WNOHANG);
    if (w == pid) return st;
    if (w < 0 && errno != EINTR) return -1;
    nanosleep(&tick, NULL);
  }
  *timed_out = 1;
  kill(pid, SIGKILL);
  waitpid(pid, &st, 0);
  return st;
}

/* The last line of the file that is not empty and not a progress line ("vortexfmm: step ..."),
 * the text after its last carriage return. */
static void last_line(const char *path, char *out, size_t outlen) {
  out[0] = 0;
  FILE *f = fopen(path, "r");
  if (!f) return;
  char line[8192];
  while (fgets(line, sizeof line, f)) {
    char *cr = strrchr(line, '\r');
    char *t = trim(cr ? cr + 1 : line);
    if (*t && strncmp(t, "vortexfmm: step ", 16)) snprintf(out, outlen, "%s", t);
  }
  fclose(f);
}

static int write_long_scene(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs("name = ", f);
  for (int i = 0; i < 10 * 1024; ++i) {
    char kb[1024];
    memset(kb, 'x', sizeof kb);
    fwrite(kb, 1, sizeof kb, f);
  }
  fputs("\n[ring]\n", f);
  return fclose(f);
}

/* Whether the program can render here: one probe run, asked once. No when it says it cannot have
 * an EGL context or was built without the renderer (-DVX_ENABLE_RENDER=OFF, as in .ci/run's
 * sanitizer build); a probe that fails for any other reason counts as yes, so that the cases show
 * the failure. */
static int have_egl(const char *exe, const char *indir, const char *root) {
  static int known = -1;
  if (known >= 0) return known;
  char errpath[600], last[8192];
  snprintf(errpath, sizeof errpath, "%s/stderr-egl-probe.txt", root);
  char *argv[] = {(char *)exe, "--headless", "--scene", "ok.scene", "--frames", "1", "--size", "16x16", "--quiet", NULL};
  int timed_out = 0, st = run_case(exe, argv, indir, errpath, 0, 0, &timed_out);
  last_line(errpath, last, sizeof last);
  known = !(st != -1 && !timed_out && WIFEXITED(st) && WEXITSTATUS(st) != 0 &&
            (strstr(last, "context through EGL") || strstr(last, "has no renderer")));
  return known;
}

/* Whether the ffmpeg program is on PATH (the recording cases need it; without it the program
 * records PNG frames instead). */
static int have_ffmpeg(void) {
  const char *path = getenv("PATH");
  char dir[1024], cand[1100];
  for (const char *p = path; p && *p;) {
    const char *end = strchr(p, ':');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    snprintf(dir, sizeof dir, "%.*s", (int)(n < sizeof dir ? n : sizeof dir - 1), p);
    snprintf(cand, sizeof cand, "%s/ffmpeg", dir[0] ? dir : ".");
    if (!access(cand, X_OK)) return 1;
    p = end ? end + 1 : NULL;
  }
  return 0;
}

/* indir/name copied to tmp/name (option copy=NAME: a case that must leave its input unchanged works
 * on a copy, so that a failure cannot damage the corpus). 0, or -1. */
static int copy_in(const char *indir, const char *name, const char *tmp) {
  char from[1400], to[1400], b[4096];
  snprintf(from, sizeof from, "%s/%s", indir, name);
  snprintf(to, sizeof to, "%s/%s", tmp, name);
  FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
  int bad = !in || !out;
  for (size_t n; !bad && (n = fread(b, 1, sizeof b, in)) > 0;) bad = fwrite(b, 1, n, out) != n;
  if (in) fclose(in);
  if (out && fclose(out)) bad = 1;
  return bad ? -1 : 0;
}

/* The case's files in tmp (options ro, unreadable, long, devfull, frames, fifo, copy). 0, or -1
 * after a FAIL. */
static int make_case_files(const bad_case *c, const char *indir, const char *tmp) {
  char buf[256], p[1100];
  if (opt(c->opts, "copy", buf, sizeof buf) && copy_in(indir, buf, tmp)) {
    FAIL("%s: cannot copy %s into %s", c->name, buf, tmp);
    return -1;
  }
  if (opt(c->opts, "fifo", buf, sizeof buf)) {
    snprintf(p, sizeof p, "%s/fifo", tmp);
    if (mkfifo(p, 0644)) { FAIL("%s: cannot make the FIFO %s", c->name, p); return -1; }
  }
  if (opt(c->opts, "ro", buf, sizeof buf)) {
    snprintf(p, sizeof p, "%s/ro", tmp);
    if (mkdir(p, 0555)) { FAIL("%s: cannot create %s", c->name, p); return -1; }
  }
  if (opt(c->opts, "unreadable", buf, sizeof buf)) {
    snprintf(p, sizeof p, "%s/unreadable.scene", tmp);
    FILE *f = fopen(p, "w");
    if (!f || fputs("[ring]\n", f) < 0 || fclose(f) || chmod(p, 0)) { FAIL("%s: cannot write %s", c->name, p); return -1; }
  }
  if (opt(c->opts, "long", buf, sizeof buf)) {
    snprintf(p, sizeof p, "%s/long.scene", tmp);
    if (write_long_scene(p)) { FAIL("%s: cannot write %s", c->name, p); return -1; }
  }
  if (opt(c->opts, "devfull", buf, sizeof buf)) {
    snprintf(p, sizeof p, "%s/full", tmp);
    if (symlink("/dev/full", p)) { FAIL("%s: cannot link %s to /dev/full", c->name, p); return -1; }
  }
  if (opt(c->opts, "frames", buf, sizeof buf)) {
    snprintf(p, sizeof p, "%s/frames", tmp);
    if (mkdir(p, 0755)) { FAIL("%s: cannot create %s", c->name, p); return -1; }
    for (int i = 0; i < 2; ++i) {
      snprintf(p, sizeof p, "%s/frames/frame_%05d.png", tmp, i);
      FILE *f = fopen(p, "w");
      if (!f || fclose(f)) { FAIL("%s: cannot write %s", c->name, p); return -1; }
    }
  }
  return 0;
}

static void one_case(const char *exe, const char *indir, const char *root, int k, const bad_case *c) {
  char tmp[512], errpath[600], args[4096], buf[256], cmd[2400];
  snprintf(tmp, sizeof tmp, "%s/case%03d", root, k);
  snprintf(errpath, sizeof errpath, "%s/stderr-%03d.txt", root, k);
  if (opt(c->opts, "egl", buf, sizeof buf) && !have_egl(exe, indir, root)) {
    printf("  skip (no headless rendering here: no EGL context, or no renderer built): %s\n", c->name);
    return;
  }
  if (opt(c->opts, "ffmpeg", buf, sizeof buf) && !have_ffmpeg()) {
    printf("  skip (no ffmpeg on PATH): %s\n", c->name);
    return;
  }
  /* root reads and writes anything: the permission cases run as nobody then */
  int as_nobody = geteuid() == 0 && (opt(c->opts, "ro", buf, sizeof buf) || opt(c->opts, "unreadable", buf, sizeof buf));
  if (mkdir(tmp, 0755)) { FAIL("%s: cannot create %s", c->name, tmp); return; }
  if (make_case_files(c, indir, tmp)) return;
  long fsize = opt(c->opts, "fsize", buf, sizeof buf) ? atol(buf) : 0;
  subst(c->args, tmp, args, sizeof args);
  char *argv[MAX_ARGS + 2];
  int argc = 0;
  argv[argc++] = (char *)exe;
  for (char *t = strtok(args, " "); t && argc < MAX_ARGS; t = strtok(NULL, " ")) argv[argc++] = t;
  argv[argc] = NULL;
  int timed_out = 0;
  int st = run_case(exe, argv, indir, errpath, fsize, as_nobody, &timed_out);
  char last[8192], want[2048];
  last_line(errpath, last, sizeof last);
  subst(c->want, tmp, want, sizeof want);
  int before = failures;
  if (st == -1) FAIL("%s: could not run %s", c->name, exe);
  else if (timed_out) FAIL("%s: still running after %d s (killed)", c->name, CASE_TIMEOUT_S);
  else if (WIFSIGNALED(st)) FAIL("%s: killed by signal %d; last line: %s", c->name, WTERMSIG(st), last);
  else if (WEXITSTATUS(st) != c->code) FAIL("%s: exit %d (want %d); last line: %s", c->name, WEXITSTATUS(st), c->code, last);
  else if (!strstr(last, want)) FAIL("%s: last line '%s' lacks '%s'", c->name, last, want);
  else if (strncmp(last, "vortexfmm: ", 11)) FAIL("%s: last line '%s' is not the program's one-line message", c->name, last);
  char ab[1024], absent[1100];
  if (opt(c->opts, "absent", ab, sizeof ab)) {
    subst(ab, tmp, absent, sizeof absent);
    struct stat sb;
    if (!stat(absent, &sb)) FAIL("%s: %s exists after a failed write", c->name, absent);
  }
  if (opt(c->opts, "devfull", buf, sizeof buf)) {
    char link[1100], to[64] = "";
    snprintf(link, sizeof link, "%s/full", tmp);
    ssize_t n = readlink(link, to, sizeof to - 1);
    if (n < 0 || (to[n] = 0, strcmp(to, "/dev/full"))) FAIL("%s: %s is no longer the link to /dev/full", c->name, link);
  }
  if (opt(c->opts, "copy", buf, sizeof buf)) { /* a refused output leaves the input as it was */
    char a[1400], b[1400], cmp[3000];
    snprintf(a, sizeof a, "%s/%s", indir, buf);
    snprintf(b, sizeof b, "%s/%s", tmp, buf);
    snprintf(cmp, sizeof cmp, "cmp -s '%s' '%s'", a, b);
    if (system(cmp)) FAIL("%s: %s changed", c->name, b);
  }
  if (failures == before) printf("  ok (exit %d): %s: %s\n", c->code, c->name, last);
  snprintf(cmd, sizeof cmd, "chmod -R u+w '%s' && rm -rf '%s'", tmp, tmp);
  if (system(cmd)) printf("  (could not remove %s)\n", tmp);
}

/* The cases of one file, run; their count added to *n. */
static void run_file(const char *exe, const char *indir, const char *root, const char *manifest, int *n) {
  FILE *m = fopen(manifest, "r");
  if (!m) { FAIL("cannot open %s", manifest); return; }
  char line[4096];
  while (fgets(line, sizeof line, m)) {
    char *t = trim(line);
    if (!*t || *t == '#') continue;
    bad_case c;
    if (parse_case(t, &c)) { FAIL("malformed line in %s: %s", manifest, t); continue; }
    one_case(exe, indir, root, (*n)++, &c);
  }
  fclose(m);
}

int main(void) {
  char exe[1024], indir[1024], pattern[1100], root[400];
  snprintf(exe, sizeof exe, "%s/vortexfmm", VX_BINARY_DIR);
  snprintf(indir, sizeof indir, "%s/../tests/bad_inputs", VX_ASSETS_DIR);
  snprintf(pattern, sizeof pattern, "%s/cases*.txt", indir);
  if (access(exe, X_OK)) { printf("FAIL: %s not built\n", exe); return EXIT_FAILURE; }
  glob_t g; /* sorted by name */
  if (glob(pattern, 0, NULL, &g) || g.gl_pathc == 0) { printf("FAIL: no case files %s\n", pattern); return EXIT_FAILURE; }
  snprintf(root, sizeof root, "%s/test_bad_inputs_XXXXXX", VX_BINARY_DIR);
  if (!mkdtemp(root)) { printf("FAIL: mkdtemp %s: %s\n", root, strerror(errno)); globfree(&g); return EXIT_FAILURE; }
  if (chmod(root, 0755)) printf("(cannot open %s to others: the permission cases as nobody will fail)\n", root);
  int n = 0;
  for (size_t i = 0; i < g.gl_pathc; ++i) {
    printf("%s:\n", g.gl_pathv[i]);
    run_file(exe, indir, root, g.gl_pathv[i], &n);
  }
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (system(cmd)) printf("(could not remove %s)\n", root);
  if (n < 40) FAIL("only %d cases in %s (want at least 40)", n, pattern);
  printf("%d cases in %zu files, %d failures\n", n, (size_t)g.gl_pathc, failures);
  globfree(&g);
  return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
