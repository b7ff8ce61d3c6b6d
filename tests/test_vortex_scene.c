/* test_vortex_scene.c — the scene format: every scene in assets/ parses and generates the
 * documented counts; bad files give the documented one-line errors (file, line, key); the
 * generated rings have the right circulation, radius and impulse, their tracers stay in their
 * ring's block and come in spatial order; the remeshing lattice's origin defaults to the rings'
 * mean centre; a FIFO, a socket, a device or a directory is refused by its kind, never opened in a
 * way that waits, by the loader, the lookup by name and the program's --scene (exit 2, one line; an
 * alarm turns a hang into a failure). Run: ctest -R vortex_scene */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, mkfifo, popen */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "diag.h"
#include "scene.h"
#include "test_check.h"
#include "test_run.h"

static double dist3(const double *a, const double *b) {
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

static void expect_error(const char *text, const char *want) {
  vx_scene s;
  char err[512] = "";
  if (vx_scene_parse(text, "t.scene", &s, err, sizeof err) == 0) { FAIL("accepted a bad scene (wanted '%s')", want); return; }
  if (!strstr(err, want)) FAIL("error '%s' does not contain '%s'", err, want);
  else printf("  ok: %s\n", err);
}

/* The tracers, ring by ring in their blocks: each near its own ring's centreline (within 8 tracer
 * spreads, the core radius where the scene gives none: the colours read a tracer's ring from its
 * block), and in spatial order — consecutive
 * tracers on average much closer together than tracers half a block apart (scene.c
 * tracers_in_space_order; the ratio measured 0.04-0.13 for the assets, ~1 in seeding order:
 * threshold 0.25). */
static void check_tracers(const char *name, const vx_scene *s, const vx_particles *P) {
  const double *x = P->pos + 3 * (size_t)P->n_elem;
  size_t t0 = 0;
  for (int r = 0; r < s->n_rings; ++r) {
    const vx_ring *g = &s->rings[r];
    const size_t n = (size_t)g->tracers;
    const double spread = vx_ring_tracer_spread(g);
    double far = 0.0, step = 0.0, half = 0.0;
    for (size_t q = t0; q < t0 + n; ++q) {
      double v[3], a = 0.0, p2 = 0.0;
      for (int i = 0; i < 3; ++i) v[i] = x[3 * q + i] - g->centre[i], a += v[i] * g->axis[i];
      for (int i = 0; i < 3; ++i) p2 += (v[i] - a * g->axis[i]) * (v[i] - a * g->axis[i]);
      far = fmax(far, hypot(sqrt(p2) - g->radius, a));
      if (q + 1 < t0 + n) step += dist3(x + 3 * q, x + 3 * (q + 1));
      half += dist3(x + 3 * q, x + 3 * (t0 + (q - t0 + n / 2) % n));
    }
    const double ratio = n > 1 ? (step / (double)(n - 1)) / (half / (double)n) : 0.0;
    printf("  %-13s ring %d: %zu tracers, farthest %.2f spreads from the centreline, consecutive / half a block apart %.4f\n",
           name, r, n, far / spread, ratio);
    if (far > 8.0 * spread) FAIL("%s ring %d: a tracer %.3g from its ring's centreline", name, r, far);
    if (ratio > 0.25) FAIL("%s ring %d: tracers not in spatial order (distance ratio %.3f)", name, r, ratio);
    t0 += n;
  }
}

static void check_asset(const char *name, int n_elem, int n_tracer, int n_rings) {
  char path[1024], err[512];
  snprintf(path, sizeof path, "%s/%s.scene", VX_ASSETS_DIR, name);
  vx_scene s;
  if (vx_scene_load(path, &s, err, sizeof err)) { FAIL("%s", err); return; }
  vx_particles P;
  if (vx_particles_generate(&s, -1, &P, err, sizeof err)) { FAIL("%s: %s", name, err); return; }
  printf("  %-13s %d rings, %d elements, %d tracers, spacing %.4f\n", name, s.n_rings, P.n_elem, P.n_tracer, P.spacing);
  if (s.n_rings != n_rings || P.n_elem != n_elem || P.n_tracer != n_tracer)
    FAIL("%s: %d rings, %d elements, %d tracers; expected %d, %d, %d", name, s.n_rings, P.n_elem, P.n_tracer, n_rings,
         n_elem, n_tracer);
  /* each ring: Σ|α| = Γ·(2πR) (circulation times length), centroid at the centre, impulse ≈ πR²Γ·axis */
  vx_diag d;
  vx_diag_from_arrays(P.n_elem, P.pos, P.alpha, P.ring, s.n_rings, NULL, &d);
  for (int r = 0; r < s.n_rings; ++r) {
    const vx_ring *g = &s.rings[r];
    double c = 0;
    for (int i = 0; i < 3; ++i) c = fmax(c, fabs(d.ring_c[r][i] - g->centre[i]));
    double dot = d.ring_n[r][0] * g->axis[0] + d.ring_n[r][1] * g->axis[1] + d.ring_n[r][2] * g->axis[2];
    if (c > 1e-3 * g->radius) FAIL("%s ring %d: centroid off the centre by %.3e", name, r, c);
    if (fabs(d.ring_R[r] / g->radius - 1) > 0.02) FAIL("%s ring %d: radius %.4f, expected %.4f", name, r, d.ring_R[r], g->radius);
    if (dot < 1 - 1e-9) FAIL("%s ring %d: impulse direction off the axis (cos %.9f)", name, r, dot);
  }
  double w = fabs(d.W[0]) + fabs(d.W[1]) + fabs(d.W[2]);
  if (w > 1e-12) FAIL("%s: total vorticity of closed rings %.3e != 0", name, w);
  check_tracers(name, &s, &P);
  vx_particles_free(&P);
}

/* A thick ring on a wavy centreline is closed filaments, one an (annulus, point) of its cross-section,
 * each element carrying its filament's circulation along that filament's own tangent: W = Σα vanishes
 * to round-off (the trapezoid sum of a periodic curve's derivative), and each element's α is
 * parallel to the central difference of its filament's neighbouring stations to O(Δφ²) (3.1e-6 in
 * 1 − cos here). With α along the centreline's tangent instead, the outer filaments' strengths cross
 * their lines by up to 7° here (1 − cos 7.3e-3): a divergence the relaxation then turns. */
static void check_wavy_filaments(void) {
  const char *text = "[ring]\nradius = 0.3\ncore = 0.04\nlayers = 3\nlayer_points = 6\nn_around = 240\n"
                     "perturb_amp = 0.1\nperturb_mode = 6\naxis = 0.3 0.4 0.866\ntracers = 0\n";
  vx_scene s;
  vx_particles P;
  char err[512];
  if (vx_scene_parse(text, "wavy.scene", &s, err, sizeof err) || vx_particles_generate(&s, -1, &P, err, sizeof err)) {
    FAIL("%s", err);
    return;
  }
  const int per = P.n_elem / 240; /* elements a station: the same (annulus, point) at every station */
  double w[3] = {0, 0, 0}, sa = 0.0, worst = 0.0;
  for (int k = 0; k < 240; ++k)
    for (int j = 0; j < per; ++j) {
      const double *a = P.alpha + 3 * ((size_t)k * per + j), *xp = P.pos + 3 * ((size_t)((k + 1) % 240) * per + j),
                   *xm = P.pos + 3 * ((size_t)((k + 239) % 240) * per + j);
      double d[3], dot = 0.0, na = 0.0, nd = 0.0;
      for (int i = 0; i < 3; ++i) d[i] = xp[i] - xm[i], w[i] += a[i], dot += a[i] * d[i], na += a[i] * a[i], nd += d[i] * d[i];
      sa += sqrt(na);
      worst = fmax(worst, 1.0 - dot / sqrt(na * nd));
    }
  const double wn = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]) / sa;
  printf("  wavy thick ring: %d elements, |W|/sum|alpha| %.2e, 1 - cos(alpha, filament chord) at most %.2e\n", P.n_elem, wn, worst);
  if (!(wn < 1e-13)) FAIL("wavy thick ring: |W|/sum|alpha| %.3e: the elements are not closed filaments", wn);
  if (!(worst < 1e-3)) FAIL("wavy thick ring: an element's strength %.3e off its filament's chord", worst);
  vx_particles_free(&P);
}

/* The remeshing lattice's origin: the key when given, else the rings' mean centre (scene.h). */
static void check_origin(const char *text, double x, double y, double z) {
  vx_scene s;
  char err[512];
  double o[3];
  if (vx_scene_parse(text, "t.scene", &s, err, sizeof err)) { FAIL("%s", err); return; }
  vx_scene_remesh_origin(&s, o);
  if (o[0] != x || o[1] != y || o[2] != z) FAIL("remesh origin %g %g %g, expected %g %g %g", o[0], o[1], o[2], x, y, z);
  else printf("  ok: remesh origin %g %g %g\n", o[0], o[1], o[2]);
}

static void hung(int sig) {
  (void)sig;
  static const char msg[] = "FAIL: the watchdog fired: the program waits on a scene that is not a regular file\n";
  if (write(STDOUT_FILENO, msg, sizeof msg - 1) < 0) _exit(EXIT_FAILURE);
  _exit(EXIT_FAILURE);
}

static void expect_refused(const char *path, const char *kind) {
  vx_scene s;
  char err[1200], want[1200];
  snprintf(want, sizeof want, "scene %s: not a regular file (%s)", path, kind);
  if (vx_scene_load(path, &s, err, sizeof err) == 0) FAIL("%s (%s) loaded", path, kind);
  else if (strcmp(err, want)) FAIL("%s: '%s', expected '%s'", kind, err, want);
  else printf("  ok: %s\n", err);
}

/* A socket at path (bound, not listening: a connect would be refused); 0, or -1 where it cannot be made. */
static int make_socket(const char *path) {
  struct sockaddr_un a;
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  if (strlen(path) >= sizeof a.sun_path) return -1;
  memcpy(a.sun_path, path, strlen(path) + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  int rc = bind(fd, (const struct sockaddr *)&a, sizeof a);
  close(fd);
  return rc;
}

/* What is not a regular file: a FIFO (whose open would wait for a writer), a socket, a device and a
 * directory, by path, by name through vx_scene_find, and as the program's --scene. */
static void check_not_regular(void) {
  char dir[1024], fifo[1200], sock[1200], out[8192], err[512];
  snprintf(dir, sizeof dir, "%s/test_vortex_scene_XXXXXX", VX_BINARY_DIR);
  if (!mkdtemp(dir)) { FAIL("cannot create a directory in %s", VX_BINARY_DIR); return; }
  snprintf(fifo, sizeof fifo, "%s/pipe.scene", dir);
  if (mkfifo(fifo, 0600)) { FAIL("mkfifo %s", fifo); return; }
  signal(SIGALRM, hung);
  alarm(60);
  expect_refused(fifo, "a FIFO");
  expect_refused(dir, "a directory");
  expect_refused("/dev/null", "a character device");
  snprintf(sock, sizeof sock, "%s/sock.scene", dir);
  if (make_socket(sock)) printf("  note: no socket could be bound at %s: not checked\n", sock);
  else expect_refused(sock, "a socket");
  /* the lookup by name finds the FIFO without opening it; the loader then refuses it */
  if (vx_scene_find("pipe", dir, NULL, out, sizeof out, err, sizeof err) || strcmp(out, fifo))
    FAIL("lookup of the FIFO by name: '%s' '%s'", out, err);
  else printf("  ok: the lookup by name gives %s without opening it\n", out);
  /* the program: exit 2 and one line (timeout ends a program that waits, exit 124) */
  char args[1400];
  snprintf(args, sizeof args, "--headless --quiet --scene '%s' --steps 1", fifo);
  int rc = vx_test_run_program("timeout 30", args, out, sizeof out);
  const char *line = strstr(out, "not a regular file (a FIFO)");
  if (rc != 2 || !line || strchr(out, '\n') != strrchr(out, '\n')) FAIL("--scene FIFO: exit %d, output:\n%s", rc, out);
  else printf("  ok (exit 2): %s", out);
  alarm(0);
  char cmd[1100];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (!failures && system(cmd)) printf("  note: could not remove %s\n", dir);
}

int main(void) {
  printf("not regular files:\n");
  check_not_regular();
  printf("wavy filaments:\n");
  check_wavy_filaments();
  printf("remesh origin:\n");
  check_origin("[ring]\ncentre = 0.25 0.5 0.5\n[ring]\ncentre = 0.75 0.5 0.25\n", 0.5, 0.5, 0.375);
  check_origin("remesh_origin = 1 -2 0.125\n[ring]\ncentre = 0.25 0.5 0.5\n", 1.0, -2.0, 0.125);
  printf("assets:\n");
  check_asset("single_ring", 126 * 19, 65536, 1); /* derived: stations a/2 apart, two annuli */
  check_asset("leapfrog", 2 * 252, 1 << 17, 2);   /* derived: vortex filaments, 2.4 stations a sigma */
  check_asset("merger", 2 * 95 * 37, 1 << 18, 2); /* derived: stations h apart, three annuli */
  check_asset("headon", 2 * 95 * 37, 1 << 17, 2);  /* derived: stations h apart, three annuli */
  check_asset("oblique", 2 * 95 * 37, 1 << 17, 2); /* the same: R/h and a/h as merger's */
  check_asset("leapfrog_big", 1 << 15, 1 << 20, 2);

  printf("errors:\n");
  expect_error("dt = 0.1\nfoo = 3\n[ring]\n", "scene t.scene line 2: unknown key 'foo'");
  expect_error("[ring]\nradius = -1\n", "scene t.scene line 2: bad value for 'radius': '-1'");
  expect_error("[ring]\nradius = abc\n", "line 2: bad value for 'radius': 'abc'");
  expect_error("# c\n\n[ring]\ncentre = 1 2\n", "line 4: bad value for 'centre'");
  expect_error("[ring]\naxis = 0 0 0\n", "line 2: bad value for 'axis'");
  expect_error("remesh_origin = 0 0\n[ring]\n", "line 1: bad value for 'remesh_origin'");
  expect_error("kernel = gaussian\n[ring]\n", "line 1: bad value for 'kernel': 'gaussian'");
  expect_error("integrator = rk3\n[ring]\n", "line 1: bad value for 'integrator'");
  expect_error("radius = 0.3\n[ring]\n", "line 1: key 'radius' belongs in a [ring] section");
  expect_error("[ring]\ndt = 0.1\n", "line 2: global key 'dt' must come before the first [ring] section");
  expect_error("[rings]\n", "line 1: unknown section '[rings]'");
  expect_error("[ring]\nradius 0.3\n", "line 2: expected 'key = value'");
  expect_error("[ring]\nradius =\n", "line 2: missing value for 'radius'");
  expect_error("[ring]\nradius = 0.3\nradius = 0.4\n", "line 3: duplicate key 'radius'");
  expect_error("dt = 0.1\n", "no [ring] section");
  expect_error("[ring]\nn_around = 2\n", "line 2: bad value for 'n_around'");
  expect_error("[ring]\nradius = 0.1\ncore = 0.06\nlayers = 2\n", "core*core_extent");
  /* magnitudes out of the documented bounds (scene.h VX_SCENE_*): the key and the line */
  expect_error("dt = 1e300\n[ring]\n", "line 1: bad value for 'dt': '1e300'");
  expect_error("sigma = 1e-300\n[ring]\n", "line 1: bad value for 'sigma': '1e-300'");
  expect_error("[ring]\nradius = 1e300\n", "line 2: bad value for 'radius': '1e300'");
  expect_error("[ring]\ncirculation = -1e300\n", "line 2: bad value for 'circulation'");
  expect_error("[ring]\ncentre = 0 0 1e300\n", "line 2: bad value for 'centre'");
  expect_error("[ring]\naxis = 1e200 0 0\n", "line 2: bad value for 'axis'");
  expect_error("[ring]\ncore_extent = 1e-300\n", "line 2: bad value for 'core_extent'");
  expect_error("[ring]\ntracer_spread = 1e300\n", "line 2: bad value for 'tracer_spread'");
  /* the presentation keys: description, camera */
  expect_error("camera_position = 1 2\n[ring]\n", "line 1: bad value for 'camera_position': '1 2' (expected three numbers");
  expect_error("camera_target = 0 0 1e300\n[ring]\n", "line 1: bad value for 'camera_target'");
  expect_error("camera_target = nan 0 0\n[ring]\n", "line 1: bad value for 'camera_target'");
  expect_error("camera_follow = yes\n[ring]\n", "line 1: bad value for 'camera_follow': 'yes' (expected on or off)");
  expect_error("camera_target = 1 1 1\ncamera_position = 1 1 1\n[ring]\n",
               "line 2: bad value for 'camera_position': '1 1 1' (camera_position must differ from camera_target)");
  expect_error("[ring]\ncamera_follow = on\n", "line 2: global key 'camera_follow' must come before");
  expect_error("description = a\ndescription = b\n[ring]\n", "line 2: duplicate key 'description'");
  {
    char txt[400];
    snprintf(txt, sizeof txt, "description = %0161d\n[ring]\n", 0);
    expect_error(txt, "line 1: bad value for 'description': 161 characters (expected at most 160)");
  }
  {
    vx_scene s;
    char err[512];
    if (vx_scene_load("/nonexistent/x.scene", &s, err, sizeof err) == 0 || !strstr(err, "scene /nonexistent/x.scene: cannot open"))
      FAIL("missing file: '%s'", err);
    else printf("  ok: %s\n", err);
    char out[1024];
    if (vx_scene_find("merger", VX_ASSETS_DIR, NULL, out, sizeof out, err, sizeof err) || !strstr(out, "merger.scene"))
      FAIL("scene lookup by name: %s", err);
    if (vx_scene_find("no_such_scene", VX_ASSETS_DIR, NULL, out, sizeof out, err, sizeof err) == 0 || !strstr(err, "not found"))
      FAIL("lookup of a missing scene: '%s'", err);
    else printf("  ok: %s\n", err);
  }
  /* comments, blank lines, CRLF, aliases and defaults */
  {
    vx_scene s;
    char err[512];
    const char *txt = "# header\r\nname = x # trailing\r\n\r\nsolver = direct\n[ring]\ncenter = 1, 2, 3\naxis = 0 2 0\n";
    if (vx_scene_parse(txt, "t.scene", &s, err, sizeof err)) FAIL("valid scene rejected: %s", err);
    else if (strcmp(s.name, "x") || !s.direct || s.rings[0].centre[1] != 2 || s.rings[0].axis[1] != 1 || s.n_rings != 1)
      FAIL("parsed values wrong");
    /* a UTF-8 byte-order mark is skipped; a tiny axis is a direction like any other */
    if (vx_scene_parse("\xEF\xBB\xBF" "dt = 0.02\n[ring]\naxis = 1e-200 0 0\n", "t.scene", &s, err, sizeof err))
      FAIL("scene with a byte-order mark rejected: %s", err);
    else if (s.dt != 0.02 || s.rings[0].axis[0] != 1.0) FAIL("byte-order-mark scene: dt %g, axis x %g", s.dt, s.rings[0].axis[0]);
  }
  /* camera keys and description: absent means unset; set ones read as written (comment stripped) */
  {
    vx_scene s;
    char err[512];
    if (vx_scene_parse("[ring]\n", "t.scene", &s, err, sizeof err)) FAIL("minimal scene rejected: %s", err);
    else if (s.description[0] || s.camera.has_position || s.camera.has_target || s.camera.follow != -1)
      FAIL("a scene without camera keys has camera (%d %d %d) or description '%s'", s.camera.has_position,
           s.camera.has_target, s.camera.follow, s.description);
    const char *txt = "description = Two rings, side on # not this\ncamera_position = -1 0.5 0.425\n"
                      "camera_target = 0.5, 0.5, 0.425\ncamera_follow = on\n[ring]\n";
    if (vx_scene_parse(txt, "t.scene", &s, err, sizeof err)) FAIL("camera scene rejected: %s", err);
    else if (strcmp(s.description, "Two rings, side on") || !s.camera.has_position || !s.camera.has_target ||
             s.camera.position[0] != -1.0 || s.camera.target[2] != 0.425 || s.camera.follow != 1)
      FAIL("camera keys or description parsed wrong: '%s' follow %d", s.description, s.camera.follow);
    else printf("  ok: description '%s', camera (-1 0.5 0.425) -> (0.5 0.5 0.425), follow on\n", s.description);
  }
  return vx_test_end("scene checks passed");
}
