/* test_launch_scenes.c — a ring launched into each shipped scene runs on (CPU, as shipped, no
 * tracers; headon and oblique at the coarse resolution): the batch's --launch-ring at step 2, then
 * 100 steps under the scene's own numerics. The run must end normally (exit 0: no blow-up by the
 * program's rule), its diagnostics must track the launched ring (a column ringK_x for it, with
 * values), the elements must have grown by the ring's, and max|alpha| must stay within 3x of the
 * start. Label long (a few minutes on two cores). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_check.h"
#include "test_run.h"

static int check_scene(const char *scene, int rings, const char *extra) {
  char csv[1024], args[2048], out[16384];
  snprintf(csv, sizeof csv, "%s/test_launch_scenes_%d_%s.csv", VX_BINARY_DIR, (int)getpid(), scene);
  snprintf(args, sizeof args, "--headless --scene %s --backend cpu --tracers 0 --steps 102 --launch-ring 2 --diag '%s' "
           "--diag-every 2 --quiet %s", scene, csv, extra);
  int rc = vx_test_run_program("", args, out, sizeof out);
  CHECK(rc == 0, "%s: exit %d:\n%s", scene, rc, out);
  static char text[1 << 20];
  CHECK(vx_test_read_file(csv, text, sizeof text) >= 0, "%s: no diagnostics %s", scene, csv);
  remove(csv);
  const char *hdr = strstr(text, "\nstep,");
  CHECK(hdr, "%s: no CSV header", scene);
  ++hdr;
  char ring_col[32];
  snprintf(ring_col, sizeof ring_col, "ring%d_x", rings);
  int c_elem = vx_test_csv_column(hdr, "n_elem"), c_alpha = vx_test_csv_column(hdr, "max_alpha");
  int c_ring = vx_test_csv_column(hdr, ring_col);
  CHECK(c_elem >= 0 && c_alpha >= 0 && c_ring >= 0, "%s: columns n_elem %d max_alpha %d %s %d", scene, c_elem, c_alpha, ring_col,
        c_ring);
  const char *first = strchr(hdr, '\n') + 1, *last = first;
  for (const char *p = first; (p = strchr(p, '\n')) && p[1]; ++p) last = p + 1;
  double e0 = vx_test_csv_field(first, c_elem), e1 = vx_test_csv_field(last, c_elem);
  double a0 = vx_test_csv_field(first, c_alpha), a1 = vx_test_csv_field(last, c_alpha);
  double rx = vx_test_csv_field(last, c_ring), step = vx_test_csv_field(last, 0);
  CHECK(step == 102 && isfinite(rx) && e1 > e0 && a1 <= 3.0 * a0, "%s: last row step %g, %s %g, elements %g -> %g, max|alpha| %g -> %g",
        scene, step, ring_col, rx, e0, e1, a0, a1);
  printf("  ok: %s with a launched ring: 102 steps, %g -> %g elements, max|alpha| x%.2f\n", scene, e0, e1, a1 / a0);
  return 0;
}

int main(void) {
  check_scene("single_ring", 1, "");
  check_scene("leapfrog", 2, "");
  check_scene("merger", 2, "");
  /* the viscous collisions on their coarse lattice: at normal their remeshed elements grow from
   * 10 000 to about 40 000 within these steps, past the label's budget on two cores */
  check_scene("headon", 2, "--resolution coarse");
  check_scene("oblique", 2, "--resolution coarse");
  check_scene("leapfrog_big", 2, "");
  return vx_test_end("a ring launched into each shipped scene runs on");
}
