/* app_ui.cpp — the on-screen controls of vortexfmm with Dear ImGui (Debian's libimgui-dev, with its
 * GLFW and OpenGL 3 back ends): the context and its scale, the HUD (timings, counts, time, live
 * accuracy), the help overlay (app_keys.c's table), the colour legend, the recording badge (red dot,
 * time, file) and the messages; the settings panel is app_panel.cpp's. The UI only edits app.set
 * and raises app.act_* (app_settings.c and app_actions.c apply them), so nothing here touches the
 * simulation or GL state directly. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/imgui_impl_glfw.h"
#include "backends/imgui_impl_opengl3.h"

#include "app_ui.h"

static bool g_ui = false, g_window = false;
float g_scale = 1.0f;

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

/* While recording: a red dot, the time since it started, the video's length and its file. */
/* The recording's part of the status line: a red dot, the time and where the frames go. */
static void recording_status(app *a) {
  float r = 0.4f * ImGui::GetTextLineHeight();
  ImGui::SameLine();
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
}

/* The status line, all the window shows by default: simulated time, the leapfrog passages where
 * the scene has coaxial rings, the frame rate, whether it runs, the recording, and the keys. */
static void status_line(app *a) {
  char line[256];
  int w = snprintf(line, sizeof line, "t = %.3f", a->shown.t);
  const vx_passages *ps = &a->shown.passages;
  if (a->shown.n_rings >= 2 && w > 0)
    w += snprintf(line + w, sizeof line - (size_t)w, "   %lld passage%s", ps->count, ps->count == 1 ? "" : "s");
  double ms = app_frames_median(&a->frames_hud);
  if (w > 0 && a->frames_hud.n > 0 && ms > 0) snprintf(line + w, sizeof line - (size_t)w, "   %.0f fps", 1000.0 / ms);
  ImGui::TextUnformatted(line);
  if (!a->halt[0] && !a->set.running && !a->pace.in_flight) {
    ImGui::SameLine();
    ImGui::TextColored(kGrey, "  paused: Space runs");
  }
  if (g_window && app_record_active(a)) recording_status(a);
  if (g_window && !a->set.show_hud) {
    ImGui::SameLine();
    ImGui::TextColored(kGrey, "  H keys, Tab panel, U details");
  }
  if (a->halt[0]) ImGui::TextColored(kRed, "stopped: %s (R resets)", a->halt); /* why, until a reset */
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

/* The HUD's simulation lines: step timings by phase, or that it is paused (why it stopped is the
 * status line's); stability; remeshing. */
static void hud_sim(app *a) {
  const vx_sim_params *P = &a->shown.prm;
  if (!a->halt[0] && a->steps_last > 0) {
    char remesh[32] = "";
    if (P->remesh_every > 0 || a->ms_remesh > 0) snprintf(remesh, sizeof remesh, "  remesh %.1f", a->ms_remesh);
    ImGui::Text("sim %.1f ms (%d step%s): tree %.1f  far %.1f  near %.1f  integrate %.1f%s", a->ms_step, a->steps_last,
                a->steps_last > 1 ? "s" : "", a->ms_tree, a->ms_far, a->ms_near, a->ms_integrate, remesh);
  } else if (!a->halt[0] && !a->pace.in_flight) {
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
  if (st->show_iso && rs->iso_path != RD_PATH_NONE)
    ImGui::Text("vorticity surface: %ld triangles at %.2f of max|omega|, grid %d^3 %.1f ms, triangles %.1f ms (%s)",
                rs->n_iso, st->iso_level, a->iso_n, a->ms_iso_grid, rs->t_iso, rd_path_name(rs->iso_path));
  if (!st->show_boxes || rs->boxes_level <= 0) return;
  int want = st->boxes_level > 0 && st->boxes_level < rs->hist_levels ? st->boxes_level : rs->hist_levels;
  if (rs->boxes_level < want)
    ImGui::Text("B: %d histogram cells (level %d; level %d has more than %d)", rs->n_boxes, rs->boxes_level, want, RD_BOXES_MAX);
  else
    ImGui::Text("B: %d histogram cells (level %d)", rs->n_boxes, rs->boxes_level);
}

/* The status line, top right, and below it the engine's details when they are on (U; always in a
 * headless image with --hud). */
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
  status_line(a);
  if (g_window && !a->set.show_hud) {
    ImGui::End();
    return;
  }
  ImGui::Separator();
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
  if (a->tracer_span > 1) { /* docs/MATH.md §15 */
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

/* The help overlay: the keys table (app_keys.c), the one the window dispatches from and --help-keys
 * prints, then how the brightness is made. */
static void help(app *a, float disp_w, float disp_h) {
  ImGui::SetNextWindowPos(ImVec2(0.5f * disp_w, 0.5f * disp_h), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowBgAlpha(0.9f);
  bool open = true;
  if (!ImGui::Begin("help (H or F1 closes)", &open, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                                                        ImGuiWindowFlags_NoCollapse)) {
    ImGui::End();
    return;
  }
  int n;
  const app_key *keys = app_keys(&n);
  if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_SizingFixedFit)) {
    for (int i = 0; i < n; ++i) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextColored(kYellow, "%s", keys[i].keys);
      ImGui::TableSetColumnIndex(1);
      ImGui::TextUnformatted(keys[i].action);
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
  if (g_window && a->set.show_panel) app_ui_panel(a, h);
  hud(a, w);
  if (g_window && a->set.show_help) help(a, w, h);
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
