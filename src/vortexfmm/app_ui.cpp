/* app_ui.cpp — the on-screen controls of vortexfmm with Dear ImGui (Debian's libimgui-dev, with its
 * GLFW and OpenGL 3 back ends): the settings panel, the HUD (timings, counts, time, live accuracy)
 * and the help overlay, the recording badge (red dot, time, file). The program's one C++ file; it only edits app.set and raises app.act_*
 * (app_core.c applies them), so nothing here touches the simulation or GL state directly. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "imgui.h"
#include "backends/imgui_impl_glfw.h"
#include "backends/imgui_impl_opengl3.h"

#include "app.h"

static bool g_ui = false, g_window = false;
/* Window units per design unit (the sizes written below are for a scale-1 screen). */
static float g_scale = 1.0f;

/* HiDPI, scaled once. Dear ImGui lays out in window units (io.DisplaySize, the GLFW window size)
 * and its OpenGL back end maps them onto framebuffer pixels by io.DisplayFramebufferScale. Where
 * window units are pixels (X11, Windows: GLFW_SCALE_TO_MONITOR sized the window), the content
 * scale must enlarge the UI; where a window unit is already several pixels (macOS, Wayland), that
 * ratio does it and scaling by the content scale again would double it. So the UI is scaled by
 * content / framebuffer scale, and the font is rasterized at the pixel size it is shown at (13 px
 * times the content scale), drawn at 1 / framebuffer scale, so it is sharp in both cases. A move to
 * a monitor of another scale is not followed. */
static void set_scale(float content_scale, float fb_scale) {
  float cs = content_scale > 0.5f ? content_scale : 1.0f, fs = fb_scale > 0.5f ? fb_scale : 1.0f;
  ImGuiIO &io = ImGui::GetIO();
  ImFontConfig cfg;
  cfg.SizePixels = 13.0f * cs;
  io.Fonts->AddFontDefault(&cfg);
  io.FontGlobalScale = 1.0f / fs;
  g_scale = cs / fs;
  ImGui::GetStyle().ScaleAllSizes(g_scale);
}

int app_ui_init(void *window, float content_scale, float fb_scale, char *err, size_t errlen) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO &io = ImGui::GetIO();
  io.IniFilename = NULL; /* no imgui.ini in the working directory */
  ImGui::StyleColorsDark();
  ImGui::GetStyle().WindowRounding = 4.0f;
  set_scale(content_scale, fb_scale);
  g_window = window != NULL;
  if (g_window && !ImGui_ImplGlfw_InitForOpenGL((GLFWwindow *)window, true)) {
    snprintf(err, errlen, "Dear ImGui: the GLFW back end failed to start");
    ImGui::DestroyContext();
    return -1;
  }
  if (!ImGui_ImplOpenGL3_Init("#version 330 core")) {
    snprintf(err, errlen, "Dear ImGui: the OpenGL 3 back end failed to start");
    if (g_window) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    return -1;
  }
  g_ui = true;
  return 0;
}

void app_ui_shutdown(void) {
  if (!g_ui) return;
  ImGui_ImplOpenGL3_Shutdown();
  if (g_window) ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  g_ui = false;
}

int app_ui_wants_mouse(void) { return g_ui && ImGui::GetIO().WantCaptureMouse; }
int app_ui_wants_keyboard(void) { return g_ui && ImGui::GetIO().WantCaptureKeyboard; }

static const ImVec4 kYellow(1.0f, 0.85f, 0.3f, 1.0f), kRed(1.0f, 0.4f, 0.35f, 1.0f), kGrey(0.65f, 0.65f, 0.7f, 1.0f);

static void hint(const char *text) {
  ImGui::SameLine();
  ImGui::TextColored(kGrey, "(?)");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text);
}

static void wrapped(const ImVec4 &colour, const char *text) {
  ImGui::PushStyleColor(ImGuiCol_Text, colour);
  ImGui::TextWrapped("%s", text);
  ImGui::PopStyleColor();
}

/* Why the simulation stopped (red), with its way out. */
static void halt_notice(app *a) {
  if (ImGui::Button("Reset##halt")) a->act_reset = 1;
  ImGui::SameLine();
  char line[400];
  snprintf(line, sizeof line, "%s; %s", a->halt,
           a->blown_up ? "paused: reset (R), or a smaller dt / a smoothing kernel" : "paused: Run retries, reset (R) starts over");
  wrapped(kRed, line);
}

/* A double the setters check: edited in place, applied on Enter (app_core.c reverts a refused one). */
static void input_double(const char *label, double *v) {
  double x = *v;
  if (ImGui::InputDouble(label, &x, 0.0, 0.0, "%.5g", ImGuiInputTextFlags_EnterReturnsTrue)) *v = x;
}
/* The same for an int. */
static void input_int(const char *label, int *v) {
  int x = *v;
  if (ImGui::InputInt(label, &x, 0, 0, ImGuiInputTextFlags_EnterReturnsTrue)) *v = x;
}

/* Where a picker entry came from, as a suffix (built-in scenes have none). */
static const char *origin_tag(int origin) {
  return origin == APP_SCENES_DIR ? "  [--scene-dir]" : origin == APP_SCENES_USER ? "  [user]" : origin == APP_SCENES_ARG ? "  [file]" : "";
}

/* The scene picker: built-in scenes, then those of --scene-dir and the user's directory, each with
 * its description; a file that does not parse is listed greyed out with its error. Choosing a scene
 * loads it at once (app_core.c), the follow mode kept. */
static void scene_picker(app *a) {
  app_settings *s = &a->set;
  const vx_scene_entry *cur = &a->scenes[s->scene];
  if (ImGui::BeginCombo("scene", cur->name)) {
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
    for (int i = 0; i < a->n_scenes; ++i) {
      const vx_scene_entry *e = &a->scenes[i];
      char label[128];
      snprintf(label, sizeof label, "%s%s%s##%d", e->name, origin_tag(e->origin), e->error[0] ? "  (unavailable)" : "", i);
      if (ImGui::Selectable(label, i == s->scene, e->error[0] ? ImGuiSelectableFlags_Disabled : 0)) s->scene = i;
      ImGui::Indent();
      if (e->error[0]) wrapped(kRed, e->error);
      else if (e->description[0]) wrapped(kGrey, e->description);
      ImGui::Unindent();
    }
    ImGui::PopTextWrapPos();
    ImGui::EndCombo();
  }
  if (cur->description[0]) wrapped(kGrey, cur->description);
}

static void simulation_section(app *a) {
  app_settings *s = &a->set;
  if (!ImGui::CollapsingHeader("Simulation", ImGuiTreeNodeFlags_DefaultOpen)) return;
  if (ImGui::Button(s->running ? "Pause" : "Run")) s->running = !s->running;
  ImGui::SameLine();
  if (ImGui::Button("Step")) { a->act_step = 1; s->running = 0; }
  ImGui::SameLine();
  if (ImGui::Button("Reset")) a->act_reset = 1;
  ImGui::SameLine();
  if (ImGui::Button("Save scene")) a->act_save_scene = 1;
  if (a->halt[0]) halt_notice(a);
  scene_picker(a);
  ImGui::SliderInt("steps / frame", &s->steps_per_frame, 0, 32);
  double dt = s->dt;
  if (ImGui::InputDouble("dt (Enter)", &dt, 0.0, 0.0, "%.5g", ImGuiInputTextFlags_EnterReturnsTrue) && dt > 0) s->dt = dt;
  if (a->advice[0]) wrapped(kYellow, a->advice);
  const char *integ[] = {"Euler", "RK2 (Heun)", "RK4"};
  ImGui::Combo("integrator", &s->integrator, integ, 3);
  const char *tstep[] = {"every stage", "RK4 over 2 steps", "RK4 over 4 steps"};
  int ti = s->tracer_every >= 4 ? 2 : s->tracer_every == 2 ? 1 : 0;
  if (ImGui::Combo("tracer step", &ti, tstep, 3)) s->tracer_every = ti == 2 ? 4 : ti == 1 ? 2 : 1;
  hint("The tracers' own RK4 step over 2 or 4 steps, evaluated in the elements' first and last calls only: fewer "
       "tracer evaluations, the elements unchanged (docs/MATH.md 15). With Euler the tracers ride every call.");
  const char *stretch[] = {"classical (a.grad)u", "transpose (grad u)^T a", "none"};
  ImGui::Combo("stretching", &s->stretching, stretch, 3);
}

/* Relaxation, remeshing, viscosity (vortex/sim.h: vx_sim_params), and what remeshing has done.
 * Closed at first, so that the panel with Look opened fits a 1080-high window; its header says
 * what is on. */
static void long_run_section(app *a) {
  app_settings *s = &a->set;
  char label[96];
  snprintf(label, sizeof label, "Long run  (relax %s, remesh %s)###longrun", s->relax > 0 ? "on" : "off",
           s->remesh_every > 0 ? "on" : "off");
  if (!ImGui::CollapsingHeader(label)) return;
  input_double("relax factor (Enter)", &s->relax);
  hint("Pedrizzetti relaxation of alpha towards the vorticity's direction, f in [0, 1]; 0: off.");
  input_int("relax every (Enter)", &s->relax_every);
  input_double("substep LCFL (Enter)", &s->lcfl);
  hint("A step of dt is split into substeps keeping dt*max|grad u| at most this (0..10; 0: off).");
  input_int("remesh every (Enter)", &s->remesh_every);
  hint("Steps between remeshings onto a lattice (0: off). Elements are created and dropped: their count changes.");
  input_double("lattice h (Enter)", &s->remesh_h);
  hint("Lattice spacing; 0: sigma.");
  input_double("drop below (Enter)", &s->remesh_drop);
  hint("After remeshing, lattice nodes with |alpha| < this times max|alpha| are dropped (0..0.1).");
  input_double("coarsen at (Enter)", &s->remesh_coarsen);
  hint("The lattice and sigma double once the field's own scale is this many spacings of the doubled lattice\n"
       "(a viscous field that spreads); drops are then relative to the present max|alpha|. 0: a fixed lattice.");
  input_double("viscosity (Enter)", &s->viscosity);
  hint("Kinematic viscosity, applied at each remeshing (needs remeshing on).");
  const vx_remesh_stats *R = &a->shown.remesh;
  if (R->count > 0)
    ImGui::Text("remeshings: %lld; last: %d -> %d elements\n(%d nodes), h %.3g, c2 %.3g, %.1f ms", R->count, R->n_before,
                R->n_after, R->n_nodes, R->h, R->c2, R->ms);
  else
    ImGui::TextColored(kGrey, "not remeshed yet");
}

static void solver_section(app *a) {
  app_settings *s = &a->set;
  if (!ImGui::CollapsingHeader("Solver", ImGuiTreeNodeFlags_DefaultOpen)) return;
  ImGui::RadioButton("FMM", &s->direct, 0);
  ImGui::SameLine();
  ImGui::RadioButton("direct O(N^2)", &s->direct, 1);
  ImGui::SliderInt("order p", &s->order, 0, 20);
  const char *kern[] = {"singular", "poly (paper eq. 29)", "Rosenhead-Moore", "Winckelmans-Leonard", "Gaussian"};
  ImGui::Combo("kernel", &s->kernel, kern, 5);
  double sg = s->sigma;
  if (ImGui::InputDouble("sigma (Enter)", &sg, 0.0, 0.0, "%.5g", ImGuiInputTextFlags_EnterReturnsTrue) && sg > 0) s->sigma = sg;
  int leaf = s->leaf;
  if (ImGui::InputInt("leaf size (Enter; 0: backend's)", &leaf, 0, 0, ImGuiInputTextFlags_EnterReturnsTrue) && leaf >= 0) s->leaf = leaf;
  hint("Rebuilds the engine around the current particles (state kept).");
  int cuda = a->cuda_ok;
  const char *be[] = {"cpu (OpenMP)", "cuda"};
  int b = s->backend == VX_BACKEND_CUDA ? 1 : 0;
  if (ImGui::Combo("backend", &b, be, cuda ? 2 : 1)) s->backend = b ? VX_BACKEND_CUDA : VX_BACKEND_CPU;
  hint(cuda ? "Rebuilds the engine around the current particles (state kept)." : "No usable CUDA device here.");
  const char *pr[] = {"double", "float"};
  ImGui::Combo("precision", &s->precision, pr, 2);
  hint("Rebuilds the engine around the current particles (state kept).");
}

static void particles_section(app *a) {
  app_settings *s = &a->set;
  if (!ImGui::CollapsingHeader("Particles", ImGuiTreeNodeFlags_DefaultOpen)) return;
  ImGui::Text("%d elements, %d tracers", a->shown.p.n_elem, a->shown.p.n_tracer);
  int nt = (int)s->tracers;
  if (ImGui::InputInt("tracers (Enter)", &nt, 0, 0, ImGuiInputTextFlags_EnterReturnsTrue) && nt >= 0) s->tracers = nt;
  hint("New tracers are seeded at the next reset (R).");
  ImGui::SliderFloat("drawn fraction", &s->style.fraction, 1e-4f, 1.0f, "%.4f", ImGuiSliderFlags_Logarithmic);
  if (a->pending[0]) ImGui::TextColored(kYellow, "%s", a->pending);
}

/* A vortex ring fired from the camera into the running flow (app_core.c, vortex/launch.h). */
static void launch_section(app *a) {
  app_settings *s = &a->set;
  if (!ImGui::CollapsingHeader("Launch ring")) return;
  input_double("radius (Enter)", &s->launch_radius);
  input_double("circulation (Enter)", &s->launch_circ);
  input_double("core (Enter)", &s->launch_core);
  hint("The next ring's radius R, circulation (> 0 moves it away from the camera) and core a < R; discretised as "
       "the scene's first ring, with the scene's tracers per ring.");
  if (ImGui::Button("Launch (L)")) a->act_launch = 1;
  ImGui::SameLine();
  if (ImGui::Button("Remove last (Shift+L)")) a->act_unlaunch = 1;
  ImGui::SameLine();
  ImGui::TextColored(kGrey, "%d launched", a->shown.n_added);
  hint("Remove last takes out the newest launched ring's elements (after a remeshing: the lattice nodes its "
       "elements weighed most in) and its tracers.");
}

static void look_section(app *a) {
  app_settings *s = &a->set;
  rd_style *st = &s->style;
  if (!ImGui::CollapsingHeader("Look")) return;
  ImGui::SliderFloat("point size", &st->point_size, 0.5f, 16.0f, "%.1f px");
  ImGui::SliderFloat("intensity", &st->intensity, 0.005f, 4.0f, "%.3f", ImGuiSliderFlags_Logarithmic);
  const char *modes[APP_COLOURS];
  for (int c = 0; c < APP_COLOURS; ++c) modes[c] = app_colour_name(c);
  ImGui::Combo("tracer colour (K)", &s->colour, modes, APP_COLOURS);
  hint("ring: the ring each tracer was seeded around; speed |u| and vorticity |w| = |curl u| from the engine at the "
       "tracers; height along the scene's direction of travel. The colour bar gives the map's range (measured twice a "
       "second). Brightness still follows density (the opacity pass).");
  if (s->colour == APP_COLOUR_PLAIN) ImGui::ColorEdit3("tracers", st->tracer_rgb, ImGuiColorEditFlags_NoInputs);
  bool op = st->opacity != 0;
  if (ImGui::Checkbox("ray-counted opacity (O)", &op)) st->opacity = op;
  hint("Paper 3.2: per-pixel opacity from rays through an occupancy histogram of ALL particles: by default one binned "
       "again at level 6 (64^3 cells, --opacity-level); at level 0 the octree's own bin[] of the last FMM step. The HUD "
       "says which.");
  ImGui::SliderFloat("gain", &st->gain, 0.001f, 10.0f, "%.3f", ImGuiSliderFlags_Logarithmic);
  ImGui::SliderFloat("glow", &st->glow, 0.0f, 4.0f, "%.2f");
  ImGui::ColorEdit3("glow colour", st->glow_rgb, ImGuiColorEditFlags_NoInputs);
  ImGui::SliderFloat("exposure", &st->exposure, 0.1f, 8.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
  ImGui::SliderInt("ray samples k", &st->samples, 1, 256);
  ImGui::SliderInt("blur radius", &st->blur, 0, 16);
  ImGui::SliderInt("opacity 1/scale", &st->downscale, 1, 8);
  ImGui::SliderInt("histogram level", &s->opacity_level, 0, 8, s->opacity_level ? "%d" : "octree's");
  if (s->opacity_level == 1) s->opacity_level = 2;
  hint("Cells per axis 2^level, binned again from the particles each time they move (default 6). 0: the octree's own "
       "finest-level bin[] (the paper's), read from the engine after an FMM step, no binning of its own; a smoothing "
       "kernel may cap that level low (the leapfrog scene: level 2).");
  ImGui::ColorEdit3("background", st->bg_rgb, ImGuiColorEditFlags_NoInputs);
  bool el = st->show_elements != 0, bx = st->show_boxes != 0, cu = st->show_cube != 0, io = st->interop != 0;
  if (ImGui::Checkbox("elements by |alpha| (E)", &el)) st->show_elements = el;
  if (el) ImGui::SliderFloat("element size", &st->element_size, 0.5f, 16.0f, "%.1f px");
  if (ImGui::Checkbox("histogram cells (B)", &bx)) st->show_boxes = bx;
  char why[200];
  snprintf(why, sizeof why, "The non-empty cells of the histogram at the octree's leaf level, or at the deepest coarser "
           "level with at most %d of them; the HUD says which level.", RD_BOXES_MAX);
  hint(why);
  ImGui::SameLine();
  if (ImGui::Checkbox("cube (X)", &cu)) st->show_cube = cu;
  if (s->backend == VX_BACKEND_CUDA && ImGui::Checkbox("CUDA-GL interop", &io)) st->interop = io;
}

static void view_section(app *a) {
  app_settings *s = &a->set;
  if (!ImGui::CollapsingHeader("View")) return;
  bool fo = s->follow != 0, vs = s->vsync != 0, hud = s->show_hud != 0;
  if (ImGui::Checkbox("follow the rings (F)", &fo)) s->follow = fo;
  ImGui::SameLine();
  if (ImGui::Button("scene's camera (C)")) a->act_camera_reset = 1;
  if (ImGui::Checkbox("vsync (V)", &vs)) s->vsync = vs;
  ImGui::SameLine();
  if (ImGui::Checkbox("HUD (U)", &hud)) s->show_hud = hud;
  if (ImGui::Button("screenshot (P)")) a->act_screenshot = 1;
  ImGui::SameLine();
  if (ImGui::Button(app_record_active(a) ? "stop recording (M)" : "record video (M)")) a->act_record = 1;
  hint("An H.264 MP4 (ffmpeg) of the scene without the panel, vortexfmm-DATE-TIME.mp4 in --png-dir or here; "
       "one video frame per displayed frame, played at --fps.");
  ImGui::SameLine();
  if (ImGui::Button("help (H)")) s->show_help = !s->show_help;
}

/* While recording: a red dot, the time since it started, the video's length and its file. */
static void recording_badge(app *a, float disp_w) {
  ImGui::SetNextWindowPos(ImVec2(0.5f * disp_w, 10 * g_scale), ImGuiCond_Always, ImVec2(0.5f, 0));
  ImGui::SetNextWindowBgAlpha(0.6f);
  ImGuiWindowFlags f = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                       ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoInputs;
  if (!ImGui::Begin("recording", NULL, f)) {
    ImGui::End();
    return;
  }
  float r = 0.4f * ImGui::GetTextLineHeight();
  ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddCircleFilled(ImVec2(p.x + r, p.y + 0.5f * ImGui::GetTextLineHeight()), r,
                                              IM_COL32(230, 30, 30, 255));
  ImGui::Dummy(ImVec2(2.5f * r, ImGui::GetTextLineHeight()));
  ImGui::SameLine();
  const rd_recorder *rec = a->rec_video ? a->rec_video : a->rec_png;
  int secs = (int)(app_now() - a->rec_t0);
  long long n = rd_record_frames(rec);
  ImGui::Text("REC %02d:%02d  %s  (%lld frames, %.1f s of video)", secs / 60, secs % 60, rd_record_target(rec), n,
              (double)n / (a->opt.fps > 0 ? a->opt.fps : 30.0));
  ImGui::End();
}

/* The settings panel, top left. Its height follows its contents every frame (a section opened
 * lengthens it), up to the window's height less the margins; only beyond that a scrollbar. The
 * width is the user's (dragged), kept from frame to frame. Sizes in window units. */
static void panel(app *a, float disp_h) {
  static float width = 0.0f;
  const float margin = 10.0f * g_scale;
  if (width <= 0.0f) width = 420.0f * g_scale;
  ImGui::SetNextWindowPos(ImVec2(margin, margin), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(width, 0.0f), ImGuiCond_Always); /* 0: fit the height to the contents */
  ImGui::SetNextWindowSizeConstraints(ImVec2(260.0f * g_scale, 0.0f), ImVec2(FLT_MAX, disp_h - 2.0f * margin));
  ImGui::SetNextWindowBgAlpha(0.85f);
  if (!ImGui::Begin("vortexfmm  (Tab hides, H helps)", NULL, ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::End();
    return;
  }
  width = ImGui::GetWindowWidth();
  ImGui::PushItemWidth(-200 * g_scale);
  simulation_section(a);
  long_run_section(a);
  solver_section(a);
  particles_section(a);
  launch_section(a);
  look_section(a);
  view_section(a);
  ImGui::PopItemWidth();
  ImGui::End();
}

/* The pace of the simulation: steps per second over the last batches and the time of one step,
 * beside the render loop's frame rate on the line above (with the simulation thread the two are
 * apart: the frames go on while a step runs), and the step in flight. */
static void hud_pace(app *a) {
  double rate = app_rate_per_s(&a->rate);
  const char *where = a->pace.threaded ? "simulation thread" : "in the frame loop";
  char line[160];
  if (rate > 0 && a->steps_last > 0)
    snprintf(line, sizeof line, "steps: %.3g / s, %.1f ms / step (%s)", rate, a->ms_step / a->steps_last, where);
  else if (a->steps_last > 0)
    snprintf(line, sizeof line, "steps: %.1f ms / step (%s)", a->ms_step / a->steps_last, where);
  else
    snprintf(line, sizeof line, "steps: - (%s)", where);
  ImGui::TextUnformatted(line);
  if (a->pace.in_flight)
    ImGui::Text("shown: step %lld; the next in flight for %.1f s (frames: %.0f / s unless you act)", a->shown.steps,
                app_now() - a->pace.batch_t0, APP_IDLE_FPS);
}

/* The HUD's simulation lines: step timings by phase, or why nothing steps; stability; remeshing. */
static void hud_sim(app *a) {
  const vx_sim_params *P = &a->shown.prm;
  if (a->halt[0]) {
    ImGui::TextColored(kRed, "%s (R resets)", a->halt);
  } else if (a->steps_last > 0) {
    char remesh[32] = "";
    if (P->remesh_every > 0 || a->ms_remesh > 0) snprintf(remesh, sizeof remesh, "  remesh %.1f", a->ms_remesh);
    ImGui::Text("sim %.1f ms (%d step%s): tree %.1f  far %.1f  near %.1f  integrate %.1f%s", a->ms_step, a->steps_last,
                a->steps_last > 1 ? "s" : "", a->ms_tree, a->ms_far, a->ms_near, a->ms_integrate, remesh);
  } else if (!a->pace.in_flight) {
    ImGui::TextColored(kGrey, "sim paused (Space runs, N steps)");
  }
  if (!a->halt[0]) hud_pace(a);
  if (a->advice[0]) ImGui::TextColored(kYellow, "%s", a->advice);
  if (a->lcfl > 0 && P->lcfl > 0) /* substeps on: the step is split while dt*max|grad u| > lcfl */
    ImGui::TextColored(a->lcfl > VX_SIM_MAX_SUBSTEPS * P->lcfl ? kYellow : ImGui::GetStyle().Colors[ImGuiCol_Text],
                       "LCFL dt*max|grad u| = %.3g: %d substep%s (target %.2g)", a->lcfl, a->shown.substeps,
                       a->shown.substeps == 1 ? "" : "s", P->lcfl);
  else if (a->lcfl > 0)
    ImGui::TextColored(a->lcfl > VX_SIM_LCFL_MAX ? kYellow : ImGui::GetStyle().Colors[ImGuiCol_Text],
                       "LCFL dt*max|grad u| = %.3g (unstable above %.1f)", a->lcfl, VX_SIM_LCFL_MAX);
  else
    ImGui::TextColored(kGrey, "LCFL dt*max|grad u|: not measured yet");
  if (isfinite(a->energy_ratio) && a->energy_ratio > 0.0 && isfinite(a->energy_rise)) /* the blow-up rule's energy watch */
    ImGui::TextColored(a->energy_rise > 0.6 * VX_SIM_ENERGY_RISE ? kYellow : ImGui::GetStyle().Colors[ImGuiCol_Text],
                       "energy x%.4f of its reference, %.2f %% above its lowest (the run stops above %.0f %%)",
                       a->energy_ratio, 100.0 * a->energy_rise, 100.0 * VX_SIM_ENERGY_RISE);
  const vx_remesh_stats *R = &a->shown.remesh;
  if (P->remesh_every > 0 || R->count > 0)
    ImGui::Text("remeshings: %lld (every %d steps), last %.1f ms: %d -> %d elements; h %.3g, sigma %.3g%s", R->count,
                P->remesh_every, R->ms, R->n_before, R->n_after, R->h, P->sigma, R->coarsenings ? " (coarsened)" : "");
}


/* The live accuracy readout (vortex/accuracy.h): the u and grad u a step's first engine call made,
 * at a random sample, against direct summation; relative L2 and 99th percentile (docs/MATH.md §7). */
static void hud_accuracy(const app *a) {
  if (!a->acc_have) {
    ImGui::TextColored(kGrey, "error vs direct: measured every 2 s while running");
    return;
  }
  const vx_acc_result *r = &a->acc_res;
  ImGui::Text("error vs direct, u:      L2 %.2e  p99 %.2e", r->u_l2, r->u_p99);
  if (r->n_g > 0) ImGui::Text("error vs direct, grad u: L2 %.2e  p99 %.2e", r->g_l2, r->g_p99);
  ImGui::TextColored(kGrey, "  %d samples (%d with grad u) of step %lld, %.1f s ago; direct sum %.2f ms off the frame",
                     r->n_u, r->n_g, r->step, app_now() - r->captured_s, r->ms_direct);
}
/* Where the points and the opacity come from, and which histogram the opacity and B read: the
 * engine's own bin[] (--opacity-level 0 after an FMM step) or one binned again by the renderer. */
static void hud_histogram(const app *a, const rd_stats *rs) {
  const rd_style *st = &a->set.style;
  if (st->opacity && rs->opacity_path != RD_PATH_NONE)
    ImGui::Text("points: %s   opacity: %s (%dx%d), histogram level %d %s", rd_path_name(rs->points_path),
                rd_path_name(rs->opacity_path), rs->opacity_w, rs->opacity_h, rs->hist_levels,
                a->hist_octree ? "(the octree's bin[])" : "(binned again, not the octree's)");
  else
    ImGui::Text("points: %s   opacity off", rd_path_name(rs->points_path));
  if (!st->show_boxes || rs->boxes_level <= 0) return;
  int want = st->boxes_level > 0 && st->boxes_level < rs->hist_levels ? st->boxes_level : rs->hist_levels;
  if (rs->boxes_level < want)
    ImGui::Text("B: %d histogram cells (level %d; level %d has more than %d)", rs->n_boxes, rs->boxes_level, want, RD_BOXES_MAX);
  else
    ImGui::Text("B: %d histogram cells (level %d)", rs->n_boxes, rs->boxes_level);
}

static void hud(app *a, float disp_w) {
  const vx_sim_params *P = &a->shown.prm;
  const rd_stats *rs = rd_get_stats(a->rd);
  ImGui::SetNextWindowPos(ImVec2(disp_w - 10 * g_scale, 10 * g_scale), ImGuiCond_Always, ImVec2(1, 0));
  ImGui::SetNextWindowBgAlpha(0.55f);
  ImGuiWindowFlags f = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                       ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoInputs;
  if (!ImGui::Begin("hud", NULL, f)) {
    ImGui::End();
    return;
  }
  char ft[128];
  app_frames_text(&a->frames_hud, ft, sizeof ft);
  ImGui::TextUnformatted(ft);
  hud_sim(a);
  char opms[64];
  if (!a->set.style.opacity) snprintf(opms, sizeof opms, "opacity off");
  else if (rs->opacity_path == RD_PATH_NONE) snprintf(opms, sizeof opms, "opacity: no histogram yet");
  else if (rs->opacity_fresh) snprintf(opms, sizeof opms, "opacity %.1f ms", rs->t_opacity);
  else snprintf(opms, sizeof opms, "opacity cached");
  if (a->ms_gpu >= 0)
    ImGui::Text("render %.1f ms (GPU %.2f ms), %s", a->ms_render, a->ms_gpu, opms);
  else
    ImGui::Text("render %.1f ms, %s", a->ms_render, opms);
  ImGui::Text("%d elements, %d tracers (%d drawn)", a->shown.p.n_elem, a->shown.p.n_tracer, rs->n_drawn);
  ImGui::Text("t = %.5g   step %lld   dt %.3g %s", a->shown.t, a->shown.steps, P->dt,
              vx_integrator_name(P->integrator));
  if (a->tracer_span > 1) { /* docs/MATH.md 15 */
    ImGui::SameLine();
    ImGui::TextColored(kGrey, "(tracers: RK4 over %d steps)", a->tracer_span);
  }
  if (P->direct) {
    ImGui::Text("direct summation (exact), kernel %s", vx_kernel_name(P->kernel));
  } else {
    if (a->levels > 0)
      ImGui::Text("FMM p = %d, octree level %d, kernel %s sigma %.3g", P->order, a->levels, vx_kernel_name(P->kernel), P->sigma);
    else if (a->shown.steps > 0) /* fmm_params.allow_direct: the cost model's choice at this size */
      ImGui::Text("direct sum (cheaper than the FMM here), kernel %s sigma %.3g", vx_kernel_name(P->kernel), P->sigma);
    else
      ImGui::Text("FMM p = %d, octree level -, kernel %s sigma %.3g", P->order, vx_kernel_name(P->kernel), P->sigma);
  }
  hud_accuracy(a);
  ImGui::Text("backend %s, %s%s%s", vx_backend_name(P->backend), vx_precision_name(P->precision),
              P->backend == VX_BACKEND_CUDA && a->gpu_name[0] ? ", " : "",
              P->backend == VX_BACKEND_CUDA ? a->gpu_name : "");
  hud_histogram(a, rs);
  if (rs->notice[0]) ImGui::TextColored(kYellow, "%s", rs->notice);
  ImGui::TextColored(kGrey, "%s", a->gl_desc);
  ImGui::End();
}

static void help(app *a, float disp_w, float disp_h) {
  ImGui::SetNextWindowPos(ImVec2(0.5f * disp_w, 0.5f * disp_h), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowBgAlpha(0.9f);
  bool open = true;
  if (!ImGui::Begin("help (H or F1 closes)", &open, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                                                        ImGuiWindowFlags_NoCollapse)) {
    ImGui::End();
    return;
  }
  static const char *rows[][2] = {
      {"left drag", "orbit (arcball)"},          {"right / middle / shift+left drag", "pan"},
      {"wheel, PageUp / PageDown", "zoom"},      {"Space", "run / pause"},
      {"N or Right", "single step"},             {"R", "reset the scene (new tracer count applies)"},
      {"C", "the scene's camera (view, follow)"}, {"F", "follow the rings (centroid of the elements)"},
      {"O", "ray-counted opacity on / off"},     {"E", "vortex elements coloured by |alpha|"},
      {"K", "tracer colour: plain, ring, speed, vorticity, height"},
      {"B / X", "histogram cells (level in the HUD) / root cube"}, {"D", "FMM / direct summation"},
      {"+ / -", "point size"},                   {"[ / ]", "fewer / more tracers drawn"},
      {"V", "vsync"},                            {"U / Tab", "HUD / panel"},
      {"P or F12", "screenshot (PNG)"},          {"M", "record a video (start / stop)"},
      {"H or F1", "this help"},                  {"Ctrl+S", "save the settings as a scene file"},
      {"L", "launch a vortex ring from the camera"}, {"Shift+L", "remove the last launched ring"},
      {"Esc or Q", "quit"}};
  if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_SizingFixedFit)) {
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextColored(kYellow, "%s", rows[i][0]);
      ImGui::TableSetColumnIndex(1);
      ImGui::TextUnformatted(rows[i][1]);
    }
    ImGui::EndTable();
  }
  ImGui::Separator();
  ImGui::TextUnformatted("Brightness: a fraction of the tracers is drawn as additive points; each pixel's opacity");
  ImGui::TextUnformatted("counts ALL particles along its ray through an occupancy histogram (paper 3.2): binned again");
  ImGui::TextUnformatted("at level 6 by default, the octree's own bin[] with --opacity-level 0 (the HUD says which).");
  ImGui::End();
  if (!open) a->set.show_help = 0;
}

/* A horizontal bar of colour map f over [0, 1], lo and hi at its ends, title above. */
static void colour_bar(const char *title, void (*f)(float, float *), float lo, float hi) {
  ImGui::TextUnformatted(title);
  float w = 260.0f * g_scale, h = ImGui::GetTextLineHeight();
  ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList *dl = ImGui::GetWindowDrawList();
  const int n = 32;
  for (int i = 0; i < n; ++i) {
    float c0[3], c1[3];
    f((float)i / n, c0);
    f((float)(i + 1) / n, c1);
    ImU32 a = ImGui::ColorConvertFloat4ToU32(ImVec4(c0[0], c0[1], c0[2], 1.0f));
    ImU32 b = ImGui::ColorConvertFloat4ToU32(ImVec4(c1[0], c1[1], c1[2], 1.0f));
    dl->AddRectFilledMultiColor(ImVec2(p.x + w * i / n, p.y), ImVec2(p.x + w * (i + 1) / n, p.y + h), a, b, b, a);
  }
  ImGui::Dummy(ImVec2(w, h));
  char hs[32];
  snprintf(hs, sizeof hs, "%.3g", hi);
  ImGui::Text("%.3g", lo);
  ImGui::SameLine(ImGui::GetCursorPosX() + w - ImGui::CalcTextSize(hs).x);
  ImGui::TextUnformatted(hs);
}

/* Each ring's colour, for the tracers coloured by ring. */
static void ring_legend(app *a) {
  int n = a->shown.n_rings < RD_CATEGORIES ? a->shown.n_rings : RD_CATEGORIES;
  ImGui::TextUnformatted("tracers by ring seeded around:");
  for (int r = 0; r < n; ++r) {
    float c[3];
    rd_category_rgb(r, c);
    if (r > 0) ImGui::SameLine();
    ImGui::ColorButton("##ring", ImVec4(c[0], c[1], c[2], 1.0f), ImGuiColorEditFlags_NoTooltip, ImVec2(12 * g_scale, 12 * g_scale));
    ImGui::SameLine();
    ImGui::Text("%d", r);
  }
}

/* Legend and colour bars, bottom left, whenever colour encodes something: the tracers' ring or
 * quantity (rd_tracer_map_rgb over the measured range), the elements' |alpha| (the element map
 * spans [0, 2 alpha_ref], render.h). */
static void colour_legend(app *a, float disp_h) {
  const rd_style *st = &a->set.style;
  const char *q = app_colour_quantity(a->set.colour);
  int ring = a->set.colour == APP_COLOUR_RING, el = st->show_elements && st->alpha_ref > 0;
  if (!q && !ring && !el) return;
  ImGui::SetNextWindowPos(ImVec2(10 * g_scale, disp_h - 10 * g_scale), ImGuiCond_Always, ImVec2(0, 1));
  ImGui::SetNextWindowBgAlpha(0.55f);
  ImGuiWindowFlags f = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                       ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoInputs;
  if (!ImGui::Begin("colour legend", NULL, f)) {
    ImGui::End();
    return;
  }
  if (ring) ring_legend(a);
  if (q) colour_bar(q, rd_tracer_map_rgb, st->value_lo, st->value_hi);
  if (el) colour_bar("elements |alpha|", rd_element_map_rgb, 0.0f, 2.0f * st->alpha_ref);
  ImGui::End();
}

/* All windows of one frame, placed in window units (io.DisplaySize; framebuffer pixels headless). */
static void build(app *a) {
  float w = ImGui::GetIO().DisplaySize.x, h = ImGui::GetIO().DisplaySize.y;
  if (g_window && a->set.show_panel) panel(a, h);
  if (a->set.show_hud || !g_window) hud(a, w);
  if (g_window && a->set.show_help) help(a, w, h);
  if (g_window && app_record_active(a)) recording_badge(a, w);
  colour_legend(a, h);
  if (a->message[0] && app_now() < a->message_until) {
    ImGui::SetNextWindowPos(ImVec2(0.5f * w, h - 12 * g_scale), ImGuiCond_Always, ImVec2(0.5f, 1.0f));
    ImGui::SetNextWindowBgAlpha(0.7f);
    ImGui::Begin("message", NULL, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                      ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_NoNav);
    ImGui::TextColored(a->halt[0] && !strcmp(a->message, a->halt) ? kRed : kYellow, "%s", a->message);
    ImGui::End();
  }
}

void app_ui_frame(app *a, int fb_w, int fb_h, double dt) {
  if (!g_ui) return;
  ImGuiIO &io = ImGui::GetIO();
  if (!g_window) {
    io.DisplaySize = ImVec2((float)fb_w, (float)fb_h);
    io.DeltaTime = dt > 1e-6 ? (float)dt : 1.0f / 60.0f;
  }
  ImGui_ImplOpenGL3_NewFrame();
  if (g_window) ImGui_ImplGlfw_NewFrame();
  if (!g_window) {
    /* auto-sized windows take the size of the previous frame's contents (and stay hidden in their
     * first frame): a headless image has no next frame to settle in, so measure in one not drawn */
    ImGui::NewFrame();
    build(a);
    ImGui::EndFrame();
  }
  ImGui::NewFrame();
  build(a);
  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}
