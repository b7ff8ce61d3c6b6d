/* app_panel.cpp — the settings panel of the vortexfmm window with Dear ImGui (app_ui.h: app_ui_panel):
 * simulation, long-run control, solver, particles, launched rings, look and view, each a collapsing
 * section. Like the rest of the UI it only edits app.set and raises app.act_*; app_settings.c and
 * app_actions.c apply them between two batches of steps. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app_ui.h"
#include "numerics.h"

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

/* A double the setters check: edited in place, applied on Enter (app_settings.c reverts a refused one). */
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

/* What the method chose for the scene and why (vortex/numerics.h): a closed tree node, its warnings
 * (overrides the rules predict unstable) in yellow. */
static void numerics_note(app *a) {
  if (!ImGui::TreeNode("numerics: what the scene derives")) return;
  char text[1024];
  vx_numerics_describe(&a->scene, text, sizeof text);
  for (char *line = text, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    wrapped(strncmp(line, "warning: ", 9) ? kGrey : kYellow, line);
  }
  ImGui::TreePop();
}

/* The scene picker: built-in scenes, then those of --scene-dir and the user's directory, each with
 * its description; a file that does not parse is listed greyed out with its error. Choosing a scene
 * loads it at once (app_settings.c), the follow mode kept. */
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
  const char *res[] = {"coarse", "normal", "fine"};
  ImGui::Combo("resolution", &s->resolution, res, 3);
  hint("The numerics the scene derives (vortex/numerics.h): coarse, normal or fine budgets of elements and work;\n"
       "a change loads the scene anew with them (what the scene file gives stays).");
  numerics_note(a);
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
  input_double("dye release (Enter)", &s->dye_release);
  hint("Continuous dye: each tracer lives this long (time units), then is seeded again around where its ring\n"
       "started, so smoke keeps streaming from there and the rings' wake shows. From the next tracer step;\n"
       "0: the tracers are seeded once.");
  ImGui::SliderFloat("drawn fraction", &s->style.fraction, 1e-4f, 1.0f, "%.4f", ImGuiSliderFlags_Logarithmic);
  if (a->pending[0]) ImGui::TextColored(kYellow, "%s", a->pending);
}

/* A vortex ring fired from the camera into the running flow (app_actions.c, vortex/launch.h). */
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

/* The vorticity surface (I): shown with or without the dye, its level, how much it hides, its grid. */
static void iso_controls(app_settings *s) {
  rd_style *st = &s->style;
  bool on = st->show_iso != 0, dye = st->show_tracers != 0;
  if (ImGui::Checkbox("vorticity surface (I)", &on)) st->show_iso = on;
  hint("The surface |omega| = level * max|omega| of the vortex elements' field (smoothed by their core sigma) on a "
       "grid, made again at each step: the picture researchers make offline, drawn live.");
  if (!on) { st->show_tracers = 1; return; }
  ImGui::SameLine();
  if (ImGui::Checkbox("dye", &dye)) st->show_tracers = dye;
  ImGui::SliderFloat("surface level", &st->iso_level, 0.02f, 0.95f, "%.2f of max");
  ImGui::SliderFloat("surface opacity", &st->iso_opacity, 0.05f, 1.0f, "%.2f");
  ImGui::ColorEdit3("surface colour", st->iso_rgb, ImGuiColorEditFlags_NoInputs);
  int n = s->iso_grid > 0 ? s->iso_grid : (s->backend == VX_BACKEND_CUDA ? APP_ISO_GRID_CUDA : APP_ISO_GRID_CPU);
  if (ImGui::SliderInt("surface grid", &n, APP_ISO_GRID_MIN, APP_ISO_GRID_MAX, "%d^3")) s->iso_grid = n;
}

static void look_section(app *a) {
  app_settings *s = &a->set;
  rd_style *st = &s->style;
  if (!ImGui::CollapsingHeader("Look")) return;
  ImGui::SliderFloat("point size", &st->point_size, 0.5f, 16.0f, "%.1f px");
  ImGui::SliderFloat("intensity", &st->intensity, 0.005f, 4.0f, "%.3f", ImGuiSliderFlags_Logarithmic);
  ImGui::SliderFloat("depth cue", &st->depth_cue, 0.0f, 2.0f, "%.2f");
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
       "kernel may cap that level low (the merger scene: level 2).");
  ImGui::ColorEdit3("background", st->bg_rgb, ImGuiColorEditFlags_NoInputs);
  bool el = st->show_elements != 0, bx = st->show_boxes != 0, cu = st->show_cube != 0, io = st->interop != 0;
  if (ImGui::Checkbox("elements by |alpha| (E)", &el)) st->show_elements = el;
  if (el) ImGui::SliderFloat("element size", &st->element_size, 0.5f, 16.0f, "%.1f px");
  iso_controls(s);
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


/* The settings panel, top left. Its height follows its contents every frame (a section opened
 * lengthens it), up to the window's height less the margins; only beyond that a scrollbar. The
 * width is the user's (dragged), kept from frame to frame. Sizes in window units. */
void app_ui_panel(app *a, float disp_h) {
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
