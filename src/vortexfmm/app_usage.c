/* app_usage.c — the --help text of vortexfmm (app.h: app_usage): every option by mode (scene and
 * simulation, batch, rendering) and the exit status; main.c parses what it lists. */
#include <stdio.h>

#include "app.h"
#include "fmm.h"

#define PROG "vortexfmm"
/* The assets directory compiled in (CMake sets the source tree's), named in the --scene help. */
#ifndef VX_ASSETS_DIR
#define VX_ASSETS_DIR "assets"
#endif

/* The usage lines and the options of the scene and the simulation. */
static void usage_scene(FILE *f) {
  fprintf(f,
          "usage: " PROG " [--scene NAME|FILE] [options]                 interactive window\n"
          "       " PROG " --headless --scene NAME|FILE --frames N ...    images through EGL (no display needed)\n"
          "       " PROG " --headless --scene NAME|FILE [--steps N] ...   batch: simulation and diagnostics only\n"
          "scene and simulation:\n"
          "  --scene NAME|FILE       a scene file, or NAME for $VX_ASSETS_DIR/NAME.scene (window default: leapfrog)\n"
          "                          (built-in: " VX_ASSETS_DIR ", then assets/ beside the program's parent dir)\n"
          "  --dt DT                 time step (scene's 'dt')\n"
          "  --integrator I          euler | rk2 | rk4\n"
          "  --backend B             cpu | cuda | auto\n"
          "  --precision P           double | float\n"
          "  --order P               FMM expansion order 0..%d\n"
          "  --kernel K              singular | poly | rm | wl | gauss\n"
          "  --sigma S               smoothing core radius (default: the scene's)\n"
          "  --stretching S          classical | transpose | none\n"
          "  --direct                direct summation instead of the FMM (O(N^2) reference)\n"
          "  --leaf-size Q           FMM leaf size\n"
          "  --cost-file FILE        the octree level cost model's unit costs, as `vortexfmm-bench --calibrate`\n"
          "                          writes them for this machine, instead of the compiled-in ones (an H100's)\n"
          "  --tracers N             total passive tracers (default: the scene's)\n"
          "  --resolution R          coarse | normal | fine: the numerics derived for that (scene's 'resolution')\n"
          "  --relax F               relaxation factor in [0, 1] (scene's 'relax'; 0: off): with remeshing and the\n"
          "                          Gaussian kernel the fraction of the strengths' gradient part removed a step\n"
          "                          (the reprojection), otherwise Pedrizzetti's\n"
          "  --relax-every K         steps between relaxations (scene's 'relax_every')\n"
          "  --conserve MODE         after each relaxation and drop threshold, restore nothing (off), the impulse\n"
          "                          along its direction (axial), I whole with W held at zero (full), or after each\n"
          "                          relaxation each ring's own impulse along its direction (ring; no remeshing)\n"
          "                          (scene's 'conserve')\n"
          "  --remesh-every K        steps between remeshings onto the lattice (scene's 'remesh_every'; 0: off)\n"
          "  --remesh-h H            lattice spacing (scene's 'remesh_h'; 0: sigma)\n"
          "  --remesh-drop E         drop lattice nodes with |alpha| < E * max|alpha| (scene's 'remesh_drop')\n"
          "  --remesh-coarsen R      the lattice (h and sigma) doubles once the field's scale is R spacings of the\n"
          "                          doubled one; drops then relative to the present max|alpha| (scene's 'remesh_coarsen'; 0: off)\n"
          "  --viscosity NU          kinematic viscosity, applied at each remeshing (scene's 'viscosity'; 0: inviscid)\n"
          "  --lcfl C                split a step into substeps keeping dt*max|grad u| <= C (scene's 'lcfl'; 0: off)\n"
          "  --tracer-every M        the tracers take one RK4 step of M element steps, evaluated in the elements'\n"
          "                          first and last calls only: 1, 2 or 4 (scene's 'tracer_every'; docs/MATH.md 15)\n"
          "  --dye-release T         continuous dye: each tracer lives T time units, then is seeded again around\n"
          "                          where its ring started (scene's 'dye_release'; 0: seeded once)\n"
          "  --seed S                tracer seeding seed\n"
          "  --launch-ring STEP      launch a vortex ring just before step STEP (repeatable): with frames from the\n"
          "                          camera along its view, in batch mode along the first ring's axis from behind\n"
          "                          the rings; sized as the scene's first ring (vortex/launch.h)\n"
          "  --quiet                 no progress lines\n",
          VX_PMAX);
}

/* The batch mode's options: run length, diagnostics, checkpoints, VTK. */
static void usage_batch(FILE *f) {
  fprintf(f,
          "batch mode (--headless without --frames):\n"
          "  --steps N               the step to reach (scene's 'steps'); with --restart, beyond the checkpoint's step\n"
          "  --t-end T               run until simulated time T > 0 instead (to step ceil(T / dt); not with --steps);\n"
          "                          with --restart, beyond the checkpoint's time\n"
          "  --diag FILE             diagnostics CSV (one row every --diag-every steps, flushed to FILE.tmp-*;\n"
          "                          renamed to FILE when the run ends: done, failed, blown up or Ctrl-C)\n"
          "  --diag-every K          (scene's 'diag_every')\n"
          "  --diag-time T           a row every T of simulated time instead (the nearest whole number of steps)\n"
          "  --energy-max N          compute the kinetic energy only up to N elements (default 131072)\n"
          "  --checkpoint-every K    write the whole state every K steps and at the end (atomically)\n"
          "  --checkpoint FILE       where (default: SCENE.ckpt in the current directory; alone: at the end only)\n"
          "  --restart FILE          continue the run saved in FILE bit for bit (its scene and parameters; --steps N\n"
          "                          and --t-end T give the step or time it runs to, beyond the checkpoint's, else\n"
          "                          the saved run's last step; --diag rows follow its step, the preamble's scene_path\n"
          "                          names the scene file found under the saved scene's name, else FILE)\n"
          "  --accuracy-every K      the accuracy readout every K steps: the first engine call of the step against\n"
          "                          direct summation at 512 samples (diag columns err_u_l2 ... ms_acc_direct)\n"
          "  --vtk-dir DIR           ParaView snapshots DIR/SCENE_%%06d.vtp (step number) and DIR/SCENE.pvd\n"
          "  --vtk-every K           steps between snapshots, step 0 included (default: the diagnostics interval)\n"
          "  No output may be an input or another output, a directory, a FIFO or a device other than /dev/null,\n"
          "  /dev/full and /dev/stdout or /dev/stderr: refused before anything is written (exit 2).\n");
}

/* The rendering options: frames, recording, the window, the look. */
static void usage_render(FILE *f) {
  fprintf(f,
          "rendering (window, or --headless with --frames):\n"
          "  --frames N              headless: images to render; window: quit after N frames\n"
          "  --steps-per-frame K     time steps between two frames (default 1)\n"
          "  --size WxH              image size (headless default 1920x1080) or window size (1280x800)\n"
          "  --png-dir DIR           headless: write DIR/frame_%%05d.png; window: where P / F12 screenshots go\n"
          "  --png-level L           zlib level of the --png-dir frames, 0 (fast) .. 9 (small) (default: libpng's)\n"
          "  --record FILE.mp4       an H.264 video of the frames: ffmpeg's NVENC if it works, else libx264 in-process,\n"
          "                          else ffmpeg's libx264 (window: from the start; M stops,\n"
          "                          M again records into vortexfmm-DATE-TIME.mp4)\n"
          "  --fps F                 frame rate of recorded videos (default 30); a frame is --steps-per-frame steps\n"
          "  --screenshot FILE       PNG of the last frame (headless) or of the window after --frames N\n"
          "                          frames (default 60), then quit\n"
          "  --hud                   headless: draw the HUD into the images too\n"
          "  --paused                window: start paused (Space runs)\n"
          "  --no-vsync              window: do not wait for the display's refresh\n"
          "  --sim-thread auto|on|off  window, cpu backend: run the steps on a thread of their own, so that the window\n"
          "                          draws the last completed state and answers while a step runs (auto: on, unless\n"
          "                          --frames, --screenshot or --record asks for a frame after each batch of steps)\n"
          "  --follow                keep the camera on the centroid of the vortex elements (default: the scene's\n"
          "                          camera_follow; F toggles, C returns to the scene's camera)\n"
          "  --scene-dir DIR         more scenes for the panel's scene list (and for --scene NAME), besides the\n"
          "                          built-in ones and those of $XDG_DATA_HOME/vortexfmm/scenes (~/.local/share/...)\n"
          "  --fraction F            share of the tracers drawn, (0, 1] (default: about 65536 of them)\n"
          "  --point-size PX         tracer sprite diameter in pixels (default 2.5)\n"
          "  --intensity I           colour one tracer adds at 720 pixels high (default 0.9)\n"
          "  --depth-cue K           near tracers brighter, far ones fainter: e^K across the framed depth (default\n"
          "                          0.5; 0: off)\n"
          "  --iso LEVEL             draw the vorticity surface |omega| = LEVEL * max|omega|, LEVEL in (0, 1) (I cycles\n"
          "                          it: with the dye, alone, off; default level 0.3)\n"
          "  --iso-only              the vorticity surface without the dye\n"
          "  --iso-grid N            its grid's nodes a side, 16..256 (default 128 on cuda, 64 on cpu)\n"
          "  --no-opacity            plain additive points, without the ray-counted opacity pass\n"
          "  --gain G                opacity = 1 - exp(-G * ray count) (default 0.15)\n"
          "  --glow G                density glow (default 0.6)\n"
          "  --ray-samples K         samples per ray (default 64; a window on software OpenGL starts at 32)\n"
          "  --blur R                opacity box blur radius in opacity pixels (default 2)\n"
          "  --opacity-scale S       opacity image = framebuffer / S (default 2; a window on software OpenGL: 4)\n"
          "  --opacity-level L       level of the ray-counted histogram, 2..8 (default 6: 64^3 cells); 0: the\n"
          "                          octree's finest level (the paper's bin[]; coarse when a smoothing kernel caps it)\n"
          "  --colour MODE           tracers coloured by: ring (the ring each was seeded around; the default for\n"
          "                          scenes of several rings), speed, vorticity, height (along the direction of\n"
          "                          travel), or plain (one colour; the default for one ring). K cycles them\n"
          "  --elements              draw the vortex elements coloured by |alpha|\n"
          "  --boxes                 draw the non-empty histogram cells (at the octree's leaf level, or the\n"
          "                          deepest coarser level with at most 2048 of them)\n"
          "  --no-cube               do not outline the octree's root cube\n"
          "  --interop auto|off      CUDA-GL interop on the cuda backend, or force the device->host copy path\n");
}

void app_usage(FILE *f) {
  usage_scene(f);
  usage_batch(f);
  usage_render(f);
  fprintf(f,
          "  --help-keys             the window's keys and mouse bindings, as a Markdown table\n"
          "  --help, --version\n"
          "Exit status: 0 done; 1 a runtime failure (engine, memory, OpenGL, an output file that cannot be\n"
          "written); 2 a bad command line or input (scene file, checkpoint), or no display; 3 the simulation\n"
          "blew up (a non-finite value, max|alpha| above %g times its value at the start, or the kinetic energy\n"
          "%g %% of its reference above its lowest: vortex/sim.h); 130 a batch run or a headless recording\n"
          "interrupted by Ctrl-C (files finalized).\n"
          "Set VX_SHADER_DIR=shaders to load the GLSL files from a directory instead of the built-in copies.\n",
          VX_SIM_BLOWUP_FACTOR, 100.0 * VX_SIM_ENERGY_RISE);
}
