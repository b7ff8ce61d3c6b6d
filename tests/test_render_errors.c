/* test_render_errors.c — the rendering program's failures are one clear line and an exit code,
 * never a crash: no display for the window (2, suggests --headless), a missing scene (2, names
 * it), a shader that does not compile (1, names the file and prints its log; shaders loaded from
 * VX_SHADER_DIR), an OpenGL older than 3.3 (1, names the version found; Mesa only, through
 * MESA_GL_VERSION_OVERRIDE), and command lines that mix the batch and rendering modes (2).
 * Headless cases need EGL here: they are skipped (exit 77) only when the program answers that EGL
 * gives no context (exit 1, "cannot create a headless OpenGL context through EGL", checked first by
 * forcing it with VX_EGL=none); any other failure of the probe, a crash included, fails the test.
 * Run: ctest -R render_errors */
#define _POSIX_C_SOURCE 200809L /* popen, mkdtemp, setenv */
#include "test_check.h"

#ifdef VX_RENDER_OFF /* configured with -DVX_ENABLE_RENDER=OFF */
VX_TEST_RENDER_OFF_MAIN
#else
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test_run.h"

static char out[65536];

/* Run `env_prefix vortexfmm args`, output into out; the exit code (-1: killed, e.g. a crash). */
static int run(const char *env_prefix, const char *args) { return vx_test_run_program(env_prefix, args, out, sizeof out); }

static void expect(const char *env_prefix, const char *args, int code, const char *text1, const char *text2) {
  int rc = run(env_prefix, args);
  if (rc != code || (text1 && !strstr(out, text1)) || (text2 && !strstr(out, text2)))
    FAIL("'%s vortexfmm %s': exit %d (want %d), output:\n%s(wanted '%s'%s%s)", env_prefix, args, rc, code, out, text1,
         text2 ? " and " : "", text2 ? text2 : "");
  else
    printf("  ok (exit %d): %s vortexfmm %s\n", rc, env_prefix, args);
}

static int copy_file(const char *from, const char *to, const char *append) {
  FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
  if (!a || !b) { if (a) fclose(a); if (b) fclose(b); return -1; }
  char buf[4096];
  size_t n;
  int bad = 0;
  while ((n = fread(buf, 1, sizeof buf, a)) > 0) bad |= fwrite(buf, 1, n, b) != n;
  bad |= ferror(a) != 0;
  if (append) bad |= fputs(append, b) == EOF;
  bad |= fclose(a) != 0;
  bad |= fclose(b) != 0;
  return bad ? -1 : 0;
}

int main(void) {
  static const char *tiny = "--backend cpu --tracers 64 --size 64x64 --frames 1 --quiet";
  char args[4096];

  /* the window without a display */
  expect("env -u DISPLAY -u WAYLAND_DISPLAY", "--scene merger", 2, "no display", "--headless");
  /* mode and option errors */
  expect("", "--headless --scene merger --frames 2 --steps 5", 2, "--steps is for the batch mode", NULL);
  expect("", "--headless --scene merger --png-dir /tmp/x", 2, "--png-dir is for rendering", NULL);
  expect("", "--headless --scene merger --frames 1 --size 12x5000000", 2, "bad value for --size", NULL);
  expect("", "--headless --scene merger --frames 0", 2, "bad value for --frames", NULL);
  expect("", "--headless --scene merger --frames 1 --interop maybe", 2, "bad value for --interop", NULL);

  /* the answer the skip below relies on, forced (VX_EGL names no platform): one line, exit 1 */
  snprintf(args, sizeof args, "--headless --scene merger %s", tiny);
  expect("VX_EGL=none", args, 1, "vortexfmm: " VX_TEST_NO_EGL_LINE, "VX_EGL=none");

  /* headless cases: is there a context at all? Only EGL's "no context" skips them */
  int rc = run("", args);
  if (vx_test_no_egl(rc, out)) {
    printf("SKIP (headless cases): no EGL context here: %s", out);
    return failures ? EXIT_FAILURE : 77;
  }
  if (rc != 0) {
    FAIL("the headless probe 'vortexfmm %s' failed otherwise than for want of an EGL context: exit %d, output:\n%s", args, rc, out);
    return EXIT_FAILURE;
  }
  snprintf(args, sizeof args, "--headless --scene merger --backend cpu --tracers 64 --size 64x64 --frames 1");
  rc = run("", args);
  if (rc != 0) FAIL("'vortexfmm %s': exit %d, output:\n%s", args, rc, out);
  int mesa = rc == 0 && strstr(out, "Mesa") != NULL;

  /* a missing scene names it */
  snprintf(args, sizeof args, "--headless --scene no_such_scene %s", tiny);
  expect("", args, 2, "scene 'no_such_scene' not found", NULL);
  expect("", "--headless --scene /nonexistent/dir/x.scene --frames 1", 2, "/nonexistent/dir/x.scene", NULL);

  /* a broken shader names its file and shows the compiler's log */
  char dir[] = "/tmp/vx_render_errors_XXXXXX";
  if (!mkdtemp(dir)) { FAIL("cannot make a temporary directory"); return EXIT_FAILURE; }
  static const char *names[] = {"points.vert", "points.frag", "composite.vert", "composite.frag", "elements.vert",
                                "elements.frag", "boxes.vert", "lines.frag", NULL};
  char from[1200], to[1200], env[1400];
  int copied = 1;
  for (int i = 0; names[i]; ++i) {
    snprintf(from, sizeof from, "%s/../shaders/%s", VX_ASSETS_DIR, names[i]);
    snprintf(to, sizeof to, "%s/%s", dir, names[i]);
    if (copy_file(from, to, strcmp(names[i], "composite.frag") ? NULL : "\nthis is not GLSL;\n")) copied = 0;
  }
  if (!copied) {
    FAIL("cannot copy the shaders from %s/../shaders", VX_ASSETS_DIR);
  } else {
    snprintf(env, sizeof env, "VX_SHADER_DIR='%s'", dir);
    snprintf(args, sizeof args, "--headless --scene merger %s", tiny);
    expect(env, args, 1, "shader composite.frag failed to compile", "log");
    snprintf(env, sizeof env, "VX_SHADER_DIR='%s/missing'", dir);
    expect(env, args, 1, "/missing: cannot open points.vert", NULL);
  }
  for (int i = 0; names[i]; ++i) {
    snprintf(to, sizeof to, "%s/%s", dir, names[i]);
    if (remove(to)) FAIL("cannot remove %s", to);
  }
  if (rmdir(dir)) FAIL("cannot remove %s", dir);

  /* OpenGL too old (Mesa can pretend) */
  if (mesa) {
    snprintf(args, sizeof args, "--headless --scene merger %s", tiny);
    expect("MESA_GL_VERSION_OVERRIDE=3.1", args, 1, "OpenGL 3.3 core or newer is needed", "3.1");
  } else {
    printf("  (not Mesa: the old-OpenGL case is not checked)\n");
  }

  return vx_test_end("error-path checks passed");
}
#endif /* VX_RENDER_OFF */
