/* test_mpi_cli.c — vortexfmm under mpiexec (src/vortexfmm/app_mpi.h): `mpiexec -np 2 vortexfmm --headless`
 * runs one simulation over the two processes — the opening line and the diagnostics preamble say
 * `ranks = 2`, rank 0 alone speaks and writes the CSV, whose rows agree with one process's run to the
 * FMM's accuracy (the distributed engine picks its level by the leaf-size rule, one process by its cost
 * model: 1e-4 relative here; at one level the two agree to round-off, mpi_test_sim) — and what it
 * does not spread is refused before anything is written (exit 2, said once): the window. The continuous
 * dye release runs over 2 processes with one's rows. Tracers spread with the elements, and their checkpoint continues on 3
 * processes; --direct sums over every process's sources, the rows of one process's direct sum. A ring launched before a step (every process makes it, each keeps its share) gives one
 * process's rows; the accuracy readout measures against the direct sum over every process's sources.
 * A VTK series holds the whole flow (rank 0 writes it). A checkpoint of 2 processes continues on 3 (the rows of the uninterrupted 2
 * processes' run to 1e-10: both spread, one level rule) and on 1 (to the FMM's accuracy). A process
 * that cannot start (rank 1 asking for a GPU a machine without one lacks) stops every process, rank 0
 * naming it once. A build without MPI skips (77). */
#define _POSIX_C_SOURCE 200809L /* popen */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmm.h"
#include "test_check.h"
#include "test_run.h"

#ifdef VX_TEST_HAVE_MPI
static char out[65536];

/* The program under mpiexec with np processes; its exit code, its output into out. */
static int run_np(int np, const char *args) { return vx_test_run_np(np, args, out, sizeof out); }


/* The largest relative difference of the invariants, energy, max|α| and the rings' centres between two
 * CSVs of rows every 10 steps (with launched, the third ring's centre too); *rows how many. */
static double csv_diff(const char *a, const char *b, int launched, int *rows) {
  static const char *cols[] = {"Ix", "Iy", "Iz", "energy", "max_alpha", "sum_abs_alpha", "ring0_x", "ring1_x", "ring2_x"};
  const size_t ncol = sizeof cols / sizeof cols[0] - (launched ? 0 : 1);
  const char *ha = strstr(a, "\nstep,"), *hb = strstr(b, "\nstep,");
  if (!ha || !hb) return INFINITY;
  ha++, hb++;
  double d = 0.0;
  *rows = 0;
  for (long long k = 0;; k += 10) { /* the rows of steps 0, 10, 20, 30 */
    const char *ra = vx_test_csv_row(a, k), *rb = vx_test_csv_row(b, k);
    if (!ra || !rb) return ra || rb ? INFINITY : d;
    for (size_t c = 0; c < ncol; c++) {
      const int ja = vx_test_csv_column(ha, cols[c]), jb = vx_test_csv_column(hb, cols[c]);
      if (ja < 0 || jb < 0) return INFINITY;
      const double x = vx_test_csv_field(ra, ja), y = vx_test_csv_field(rb, jb);
      d = fmax(d, fabs(x - y) / fmax(fabs(y), 1e-3));
    }
    (*rows)++;
  }
}

int main(void) {
  char scene[256], one[256], two[256], three[256], ckpt[256], args[2048], common[1024];
  const int pid = (int)getpid();
  snprintf(scene, sizeof scene, "%s/test_mpi_cli_%d.scene", VX_BINARY_DIR, pid);
  snprintf(one, sizeof one, "%s/test_mpi_cli_%d_one.csv", VX_BINARY_DIR, pid);
  snprintf(two, sizeof two, "%s/test_mpi_cli_%d_two.csv", VX_BINARY_DIR, pid);
  snprintf(three, sizeof three, "%s/test_mpi_cli_%d_three.csv", VX_BINARY_DIR, pid);
  snprintf(ckpt, sizeof ckpt, "%s/test_mpi_cli_%d.ckpt", VX_BINARY_DIR, pid);
  FILE *f = fopen(scene, "w");
  CHECK(f, "cannot write %s", scene);
  fputs("name = mpi_cli\nkernel = gauss\norder = 8\nprecision = double\n"
        "[ring]\ncirculation = 1.0\nradius = 0.3\ncore = 0.0297\nlayers = 0\ncentre = 0.375 0.5 0.5\naxis = 1 0 0\n"
        "[ring]\ncirculation = 1.0\nradius = 0.3\ncore = 0.0297\nlayers = 0\ncentre = 0.5 0.5 0.5\naxis = 1 0 0\n",
        f);
  CHECK(fclose(f) == 0, "cannot write %s", scene);
  snprintf(common, sizeof common, "--headless --scene '%s' --backend cpu --tracers 0 --diag-every 10", scene);

  snprintf(args, sizeof args, "%s --steps 30 --diag '%s'", common, one);
  int rc = run_np(1, args);
  CHECK(rc == 0, "one process: exit %d:\n%s", rc, out);
  snprintf(args, sizeof args, "%s --steps 30 --diag '%s'", common, two);
  rc = run_np(2, args);
  CHECK(rc == 0, "two processes: exit %d:\n%s", rc, out);
  CHECK(vx_test_count(out, "ranks = 2") == 1 && vx_test_count(out, ": done: 30 steps") == 1, "the opening line once, with ranks = 2:\n%s", out);
  static char a[1 << 16], b[1 << 16];
  CHECK(vx_test_read_file(one, a, sizeof a) > 0 && vx_test_read_file(two, b, sizeof b) > 0, "the CSVs %s, %s", one, two);
  CHECK(strstr(b, "\n# ranks = 2\n") && !strstr(a, "# ranks ="), "the preamble's ranks line");
  int rows = 0;
  const double d = csv_diff(b, a, 0, &rows);
  CHECK(rows == 4 && d <= 1e-4, "%d rows, largest relative difference %.3g from one process", rows, d);
  printf("  ok: 2 processes ran the %d rows of one, largest relative difference %.2e (bound 1e-4)\n", rows, d);

  /* a checkpoint of 2 processes at step 10, continued on 3 to step 30: the rows of the 2 processes' run
   * (both spread: one level rule, so to round-off), and on 1 (its cost model's level: the FMM's accuracy) */
  snprintf(args, sizeof args, "%s --steps 10 --checkpoint-every 10 --checkpoint '%s'", common, ckpt);
  rc = run_np(2, args);
  CHECK(rc == 0 && access(ckpt, F_OK) == 0, "a checkpoint of 2 processes: exit %d:\n%s", rc, out);
  snprintf(args, sizeof args, "--headless --restart '%s' --steps 30 --diag '%s'", ckpt, three);
  rc = run_np(3, args);
  CHECK(rc == 0 && vx_test_count(out, "ranks = 3") == 1, "the restart on 3 processes: exit %d:\n%s", rc, out);
  static char c3[1 << 16];
  CHECK(vx_test_read_file(three, c3, sizeof c3) > 0, "the CSV %s", three);
  double d3 = 0.0;
  for (long long k = 20; k <= 30; k += 10) { /* the restarted run's rows: after the checkpoint's step */
    const char *ra = vx_test_csv_row(c3, k), *rb = vx_test_csv_row(b, k);
    CHECK(ra && rb, "row %lld", k);
    const int ja = vx_test_csv_column(strstr(c3, "\nstep,") + 1, "Ix"), jb = vx_test_csv_column(strstr(b, "\nstep,") + 1, "Ix");
    for (int q = 0; q < 3; q++)
      d3 = fmax(d3, fabs(vx_test_csv_field(ra, ja + q) - vx_test_csv_field(rb, jb + q)) / fmax(fabs(vx_test_csv_field(rb, jb)), 1e-3));
  }
  CHECK(vx_test_csv_row(c3, 10) == NULL && d3 <= 1e-10, "the restart on 3 processes: impulse %.3g from 2 processes' run", d3);
  remove(three);
  snprintf(args, sizeof args, "--headless --restart '%s' --steps 30 --diag '%s'", ckpt, three);
  rc = run_np(1, args);
  CHECK(rc == 0, "the restart in one process: exit %d:\n%s", rc, out);
  CHECK(vx_test_read_file(three, c3, sizeof c3) > 0, "the CSV %s", three);
  const char *r30 = vx_test_csv_row(c3, 30), *b30 = vx_test_csv_row(b, 30);
  const int j1 = vx_test_csv_column(strstr(c3, "\nstep,") + 1, "Ix"), j2 = vx_test_csv_column(strstr(b, "\nstep,") + 1, "Ix");
  const double d1 = r30 && b30 ? fabs(vx_test_csv_field(r30, j1) - vx_test_csv_field(b30, j2)) / fabs(vx_test_csv_field(b30, j2)) : 1.0;
  CHECK(d1 <= 1e-4, "the restart in one process: Ix at step 30 %.3g from 2 processes' run", d1);
  printf("  ok: a checkpoint of 2 processes continued on 3 (impulse within %.1e) and on 1 (%.1e)\n", d3, d1);

  /* a ParaView series of the whole flow, written by rank 0 */
  char vtk[256], pvd[320], snap[320];
  snprintf(vtk, sizeof vtk, "%s/test_mpi_cli_%d_vtk", VX_BINARY_DIR, pid);
  snprintf(pvd, sizeof pvd, "%s/mpi_cli.pvd", vtk);
  snprintf(snap, sizeof snap, "%s/mpi_cli_000010.vtp", vtk);
  snprintf(args, sizeof args, "%s --steps 10 --vtk-dir '%s' --vtk-every 10", common, vtk);
  rc = run_np(2, args);
  static char v[1 << 20];
  CHECK(rc == 0 && vx_test_read_file(pvd, v, sizeof v) > 0 && strstr(v, "mpi_cli_000010.vtp"), "--vtk-dir over 2 processes: exit %d:\n%s",
        rc, out);
  CHECK(vx_test_read_file(snap, v, sizeof v) > 0 && strstr(v, "NumberOfPoints=\"504\""), "the snapshot %s holds every element",
        snap);
  printf("  ok: a VTK series of the whole flow written by rank 0\n");
  remove(snap), remove(pvd);
  snprintf(snap, sizeof snap, "%s/mpi_cli_000000.vtp", vtk);
  remove(snap), rmdir(vtk);

  /* a ring launched before step 5: every process makes it, each keeps its share; the rows (the launched
   * ring's centre among them) as one process's */
  remove(one), remove(two);
  snprintf(args, sizeof args, "%s --steps 30 --diag '%s' --launch-ring 5", common, one);
  rc = run_np(1, args);
  CHECK(rc == 0, "a launched ring in one process: exit %d:\n%s", rc, out);
  snprintf(args, sizeof args, "%s --steps 30 --diag '%s' --launch-ring 5", common, two);
  rc = run_np(2, args);
  CHECK(rc == 0 && vx_test_count(out, "ring 2 launched before step 5") == 1 && vx_test_count(out, "+252 elements") == 1,
        "a launched ring over 2 processes: exit %d:\n%s", rc, out);
  CHECK(vx_test_read_file(one, a, sizeof a) > 0 && vx_test_read_file(two, b, sizeof b) > 0, "the CSVs %s, %s", one, two);
  const double dl = csv_diff(b, a, 1, &rows);
  CHECK(rows == 4 && dl <= 1e-4, "a launched ring: %d rows, largest relative difference %.3g from one process", rows, dl);
  printf("  ok: a ring launched over 2 processes: the rows of one, largest relative difference %.2e (bound 1e-4)\n", dl);
  remove(one), remove(two);
  /* the accuracy readout over 2 and 3 processes: every element sampled, so the same figure (one evaluation
   * to round-off) against the direct sum over every process's sources; one process's level is another */
  double acc[3][2];
  for (int np = 1; np <= 3; np++) {
    remove(two);
    snprintf(args, sizeof args, "%s --steps 20 --diag '%s' --accuracy-every 10", common, two);
    rc = run_np(np, args);
    CHECK(rc == 0 && vx_test_count(out, "accuracy readout (504 samples, 504 with grad u)") == 1, "the readout on %d: exit %d:\n%s", np, rc, out);
    CHECK(vx_test_read_file(two, b, sizeof b) > 0, "the CSV %s", two);
    const char *h = strstr(b, "\nstep,"), *r20 = vx_test_csv_row(b, 20);
    CHECK(h && r20, "the row of step 20");
    acc[np - 1][0] = vx_test_csv_field(r20, vx_test_csv_column(h + 1, "err_u_l2"));
    acc[np - 1][1] = vx_test_csv_field(r20, vx_test_csv_column(h + 1, "err_gu_l2"));
  }
  for (int q = 0; q < 2; q++) {
    CHECK(acc[1][q] > 0.0 && acc[1][q] <= 5e-5 && fabs(acc[2][q] - acc[1][q]) <= 1e-6 * acc[1][q],
          "the readout's %s: 2 processes %.4g, 3 processes %.4g (bound 5e-5, equal to 1e-6)", q ? "err_gu_l2" : "err_u_l2", acc[1][q], acc[2][q]);
    CHECK(acc[0][q] > acc[1][q] / 3 && acc[0][q] < 3 * acc[1][q], "the readout: one process %.4g, 2 processes %.4g", acc[0][q], acc[1][q]);
  }
  printf("  ok: the accuracy readout over 2 and 3 processes: u %.3e, grad u %.3e (one process, another level: %.3e, %.3e)\n",
         acc[1][0], acc[1][1], acc[0][0], acc[0][1]);
  remove(two);
  /* --direct: the direct sum over both processes' sources, the rows of one process's direct sum */
  snprintf(args, sizeof args, "%s --steps 30 --direct --diag '%s'", common, one);
  rc = run_np(1, args);
  CHECK(rc == 0, "one process, --direct: exit %d:\n%s", rc, out);
  snprintf(args, sizeof args, "%s --steps 30 --direct --diag '%s'", common, two);
  rc = run_np(2, args);
  CHECK(rc == 0 && vx_test_count(out, "direct summation") >= 1, "two processes, --direct: exit %d:\n%s", rc, out);
  CHECK(vx_test_read_file(one, a, sizeof a) > 0 && vx_test_read_file(two, b, sizeof b) > 0, "the CSVs %s, %s", one, two);
  int rows_d = 0;
  const double dd = csv_diff(b, a, 0, &rows_d);
  CHECK(rows_d == 4 && dd <= 1e-10, "--direct: %d rows, largest relative difference %.3g from one process", rows_d, dd);
  printf("  ok: --direct over 2 processes: the %d rows of one process's direct sum, largest relative difference %.2e "
         "(bound 1e-10)\n", rows_d, dd);

  /* tracers: spread over 2 processes, a ring launched with its share of every process's tracers (500 of
   * 1000 over two rings, as one process counts), checkpointed whole and restarted on 3 */
  remove(ckpt);
  snprintf(args, sizeof args,
           "--headless --scene '%s' --backend cpu --steps 10 --tracers 1000 --tracer-every 4 --launch-ring 5 --checkpoint '%s'", scene,
           ckpt);
  rc = run_np(2, args);
  CHECK(rc == 0 && vx_test_count(out, "1000 tracers") == 1 && vx_test_count(out, "ranks = 2 (the elements and tracers spread over them)") == 1 &&
            vx_test_count(out, "+500 tracers") == 1,
        "tracers over 2 processes: exit %d:\n%s", rc, out);
  snprintf(args, sizeof args, "--headless --restart '%s' --steps 14", ckpt);
  rc = run_np(3, args);
  CHECK(rc == 0 && vx_test_count(out, "1500 tracers") == 1 && vx_test_count(out, "ranks = 3") == 1, "the tracers' restart on 3 processes: exit %d:\n%s",
        rc, out);
  /* the continuous dye release over 2 processes (each seeds again its tracers by their places in the whole
   * flow: mpi_test_sim): the rows and the dye's share near its ring of one process's */
  for (int np = 1; np <= 2; np++) {
    snprintf(args, sizeof args, "--headless --scene '%s' --backend cpu --steps 30 --direct --tracers 1000 --dye-release 0.05 --diag '%s'",
             scene, np == 1 ? one : two);
    rc = run_np(np, args);
    CHECK(rc == 0 && vx_test_count(out, "dye released continuously") == 1, "the dye release over %d processes: exit %d:\n%s", np, rc, out);
  }
  CHECK(vx_test_read_file(one, a, sizeof a) > 0 && vx_test_read_file(two, b, sizeof b) > 0, "the CSVs %s, %s", one, two);
  const double ddye = csv_diff(b, a, 0, &rows_d);
  const char *ha = strstr(a, "\nstep,"), *hb = strstr(b, "\nstep,");
  const double near1 = ha ? vx_test_csv_field(vx_test_csv_row(a, 0), vx_test_csv_column(ha + 1, "dye_near")) : NAN,
               near2 = hb ? vx_test_csv_field(vx_test_csv_row(b, 0), vx_test_csv_column(hb + 1, "dye_near")) : NAN;
  CHECK(rows_d == 4 && ddye <= 1e-10 && near1 > 0.5 && near1 == near2,
        "the dye release: %d rows, largest relative difference %.3g; dye_near %g and %g", rows_d, ddye, near1, near2);
  remove(one), remove(two);
  snprintf(args, sizeof args, "--scene '%s'", scene);
  rc = run_np(2, args);
  CHECK(rc == 2 && vx_test_count(out, "the window does not run over several") == 1, "the window over 2 processes: exit %d:\n%s", rc, out);
  printf("  ok: 1000 tracers over 2 processes and 500 more with a launched ring, their checkpoint continued on 3; the dye "
         "release over 2 processes gives one's rows (dye_near %.4f); the window refused over 2 processes (exit 2, said once)\n",
         near2);
  if (!vx_cuda_available(NULL, 0)) { /* rank 1 alone cannot start (no GPU for it): every process stops, rank 0 says why */
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "%s 1 %s '%s/vortexfmm' --headless --scene '%s' --tracers 0 --steps 2 --backend cpu : %s 1 '%s/vortexfmm' "
             "--headless --scene '%s' --tracers 0 --steps 2 --backend cuda 2>&1",
             VX_MPIEXEC, VX_MPIEXEC_FLAGS, VX_BINARY_DIR, scene, VX_MPIEXEC_NUMPROC, VX_BINARY_DIR, scene);
    rc = vx_test_shell(cmd, out, sizeof out);
    CHECK(rc != 0 && vx_test_count(out, "vortexfmm: rank 1: ") == 1, "rank 1 without a GPU: exit %d:\n%s", rc, out);
    printf("  ok: a process that cannot start stops the others, rank 0 naming it (exit %d)\n", rc);
  }
  remove(scene), remove(one), remove(two), remove(three), remove(ckpt);
  return vx_test_end("vortexfmm under mpiexec");
}
#else
int main(void) {
  printf("SKIP: a build without MPI (vortexfmm runs in one process)\n");
  return 77;
}
#endif
