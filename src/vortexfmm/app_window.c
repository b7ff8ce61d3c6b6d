/* app_window.c — the interactive window (GLFW, OpenGL 3.3 core): context and its checks, mouse
 * (left drag: orbit; right / middle / Shift+left / Ctrl+left drag: pan; wheel: zoom) and the keys of
 * app_keys.c's table (the help overlay and --help-keys list the same table), the frame loop,
 * screenshots, video recording (M: app_record.c; closing the window or Ctrl-C finalizes the file). */
#define _POSIX_C_SOURCE 200809L
#include <GL/glew.h>
#include <GLFW/glfw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"

static char glfw_error[512];
static void on_glfw_error(int code, const char *desc) { snprintf(glfw_error, sizeof glfw_error, "%s (GLFW error 0x%x)", desc, code); }

enum { DRAG_NONE = 0, DRAG_ORBIT, DRAG_PAN };
typedef struct {
  app *a;
  int drag;
  double x, y;
} win_state;

static void on_mouse_button(GLFWwindow *w, int button, int action, int mods) {
  win_state *ws = (win_state *)glfwGetWindowUserPointer(w);
  if (action == GLFW_RELEASE) { ws->drag = DRAG_NONE; return; }
  if (app_ui_wants_mouse()) return;
  glfwGetCursorPos(w, &ws->x, &ws->y);
  if (button == GLFW_MOUSE_BUTTON_LEFT) ws->drag = (mods & (GLFW_MOD_SHIFT | GLFW_MOD_CONTROL)) ? DRAG_PAN : DRAG_ORBIT;
  else if (button == GLFW_MOUSE_BUTTON_RIGHT || button == GLFW_MOUSE_BUTTON_MIDDLE) ws->drag = DRAG_PAN;
}

static void on_cursor(GLFWwindow *w, double x, double y) {
  win_state *ws = (win_state *)glfwGetWindowUserPointer(w);
  if (ws->drag == DRAG_NONE) return;
  int ww, wh;
  glfwGetWindowSize(w, &ww, &wh);
  app *a = ws->a;
  if (ws->drag == DRAG_ORBIT) {
    rd_camera_orbit(&a->cam, ws->x, ws->y, x, y, ww, wh);
  } else {
    if (a->set.follow) {
      a->set.follow = 0;
      app_message(a, "follow off (panned)");
    }
    rd_camera_pan(&a->cam, x - ws->x, y - ws->y, wh);
  }
  ws->x = x;
  ws->y = y;
}

static void on_scroll(GLFWwindow *w, double dx, double dy) {
  (void)dx;
  win_state *ws = (win_state *)glfwGetWindowUserPointer(w);
  if (app_ui_wants_mouse()) return;
  rd_camera_zoom(&ws->a->cam, dy);
}

/* What a binding of the keys table (app_keys.c) does: settings edited and actions raised, applied
 * by app_update between two batches of steps. */
static void key_action(app *a, app_key_action act) {
  app_settings *s = &a->set;
  rd_style *st = &s->style;
  switch (act) {
    case APP_KEY_RUN: s->running = !s->running; break;
    case APP_KEY_STEP: a->act_step = 1; s->running = 0; break;
    case APP_KEY_RESET: a->act_reset = 1; break;
    case APP_KEY_CAMERA: a->act_camera_reset = 1; break;
    case APP_KEY_SAVE_SCENE: a->act_save_scene = 1; break;
    case APP_KEY_FOLLOW: s->follow = !s->follow; break;
    case APP_KEY_OPACITY: st->opacity = !st->opacity; break;
    case APP_KEY_ELEMENTS: st->show_elements = !st->show_elements; break;
    case APP_KEY_COLOUR: s->colour = (s->colour + 1) % APP_COLOURS; break;
    case APP_KEY_ISO: app_iso_cycle(a); break;
    case APP_KEY_BOXES: st->show_boxes = !st->show_boxes; break;
    case APP_KEY_CUBE: st->show_cube = !st->show_cube; break;
    case APP_KEY_DIRECT: s->direct = !s->direct; break;
    case APP_KEY_VSYNC: s->vsync = !s->vsync; break;
    case APP_KEY_HELP: s->show_help = !s->show_help; break;
    case APP_KEY_PANEL: s->show_panel = !s->show_panel; break;
    case APP_KEY_HUD: s->show_hud = !s->show_hud; break;
    case APP_KEY_SCREENSHOT: a->act_screenshot = 1; break;
    case APP_KEY_RECORD: a->act_record = 1; break;
    case APP_KEY_LAUNCH: a->act_launch = 1; break;
    case APP_KEY_UNLAUNCH: a->act_unlaunch = 1; break;
    case APP_KEY_POINTS_UP: st->point_size = st->point_size * 1.1f < 64.0f ? st->point_size * 1.1f : 64.0f; break;
    case APP_KEY_POINTS_DOWN: st->point_size = st->point_size / 1.1f > 0.5f ? st->point_size / 1.1f : 0.5f; break;
    case APP_KEY_MORE_DRAWN: st->fraction = st->fraction * 1.5f < 1.0f ? st->fraction * 1.5f : 1.0f; break;
    case APP_KEY_FEWER_DRAWN: st->fraction = st->fraction / 1.5f > 1e-4f ? st->fraction / 1.5f : 1e-4f; break;
    case APP_KEY_ZOOM_IN: rd_camera_zoom(&a->cam, 1.0); break;
    case APP_KEY_ZOOM_OUT: rd_camera_zoom(&a->cam, -1.0); break;
    case APP_KEY_QUIT: a->act_quit = 1; break;
    case APP_KEY_MOUSE: break;
  }
}

/* A key press (or its repeat while held) through the keys table; unbound keys do nothing. */
static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods) {
  (void)scancode;
  win_state *ws = (win_state *)glfwGetWindowUserPointer(w);
  if (action == GLFW_RELEASE || app_ui_wants_keyboard()) return;
  const app_key *k = app_key_find(key, mods);
  if (!k || (action == GLFW_REPEAT && !k->repeats)) return;
  key_action(ws->a, k->act);
}

/* The version a default context offers, to name it when 3.3 core is refused. */
static void probe_version(char *out, size_t len) {
  snprintf(out, len, "(unknown)");
  glfwDefaultWindowHints();
  glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  GLFWwindow *w = glfwCreateWindow(64, 64, "probe", NULL, NULL);
  if (!w) return;
  glfwMakeContextCurrent(w);
  typedef const GLubyte *(*get_string_fn)(GLenum);
  get_string_fn gs = (get_string_fn)glfwGetProcAddress("glGetString");
  const char *v = gs ? (const char *)gs(GL_VERSION) : NULL;
  if (v) snprintf(out, len, "%s", v);
  glfwMakeContextCurrent(NULL);
  glfwDestroyWindow(w);
}

/* Screenshot file for the P / F12 key: the next free vortexfmm_NNNN.png in --png-dir or here. */
static void screenshot_name(const app *a, char *out, size_t len) {
  const char *dir = a->opt.png_dir ? a->opt.png_dir : ".";
  for (int i = 0; i < 10000; ++i) {
    snprintf(out, len, "%s/vortexfmm_%04d.png", dir, i);
    struct stat sb;
    if (stat(out, &sb) != 0) return;
  }
}

/* What one windowed run holds beside the app. */
typedef struct {
  const app_options *o;
  app *a;
  GLFWwindow *win;
  win_state ws;
  int ui;                 /* Dear ImGui is up */
  long long frames;       /* --frames / --screenshot: the last frame; -1: until closed */
  double t_prev;
  int titled;             /* the scene the title names */
} window_run;

/* The window and its OpenGL 3.3 core context; 0, or the exit code with the reason said. */
static int open_window(window_run *W, char *err, size_t errlen) {
  const app_options *o = W->o;
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE); /* HiDPI: window size in screen coordinates */
  glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
  char title[128];
  snprintf(title, sizeof title, "vortexfmm - %s", W->a->scenes[W->a->set.scene].name);
  if (!(W->win = glfwCreateWindow(o->width, o->height, title, NULL, NULL))) {
    char ver[256], why[512];
    snprintf(why, sizeof why, "%s", glfw_error);
    probe_version(ver, sizeof ver);
    snprintf(err, errlen, "cannot create an OpenGL 3.3 core window: OpenGL 3.3 core or newer is needed; this display "
                          "offers OpenGL %s (%s)", ver, why);
    return 1;
  }
  glfwMakeContextCurrent(W->win);
  return rd_gl_init(0, err, errlen) || app_gl_init(W->a, err, errlen) ? 1 : 0;
}

/* Input callbacks (ours first: Dear ImGui chains to them) and the UI, scaled by the ratio of
 * framebuffer to window units and the content scale once (app_ui.cpp). */
static int start_ui(window_run *W, char *err, size_t errlen) {
  app *a = W->a;
  glfwSwapInterval(a->set.vsync ? 1 : 0);
  a->cur.vsync = a->set.vsync;
  W->ws.a = a;
  glfwSetWindowUserPointer(W->win, &W->ws);
  glfwSetMouseButtonCallback(W->win, on_mouse_button);
  glfwSetCursorPosCallback(W->win, on_cursor);
  glfwSetScrollCallback(W->win, on_scroll);
  glfwSetKeyCallback(W->win, on_key);
  float xs = 1.0f, ys = 1.0f;
  int fbw0, fbh0, ww0, wh0;
  glfwGetWindowContentScale(W->win, &xs, &ys);
  glfwGetFramebufferSize(W->win, &fbw0, &fbh0);
  glfwGetWindowSize(W->win, &ww0, &wh0);
  if (app_ui_init(W->win, xs, ww0 > 0 ? (float)fbw0 / (float)ww0 : 1.0f, err, errlen)) return 1;
  W->ui = 1;
  return 0;
}

/* The screenshot a frame asks for (S/P key, or --screenshot at the last frame); 1 when the
 * requested --screenshot failed. */
static int frame_screenshot(window_run *W, int last, int fbw, int fbh) {
  app *a = W->a;
  const char *want = last ? W->o->screenshot : NULL;
  if (!a->act_screenshot && !want) return 0;
  char path[1100], err[1024];
  if (want) snprintf(path, sizeof path, "%s", want);
  else screenshot_name(a, path, sizeof path);
  a->act_screenshot = 0;
  if (app_save_png(0, fbw, fbh, path, err, sizeof err)) {
    app_message(a, "%s", err);
    if (want) fprintf(stderr, "vortexfmm: %s\n", err); /* --screenshot's failure is the run's */
    return want != NULL;
  }
  app_message(a, "saved %s (%dx%d)", path, fbw, fbh);
  return 0;
}

/* A frame into the pace: counted, and when it overlapped a batch of steps, its length. */
static void count_frame(app_pace *p, double ms) {
  p->frames++;
  if (!p->busy) return;
  p->busy_frames++;
  if (ms > p->longest_busy_ms) p->longest_busy_ms = ms;
}

/* The closing line (not --quiet): the render loop's frames per second, the simulation's steps per
 * second, and the frames drawn per second of the time batches of steps were in flight, with the
 * longest of them (in the frame loop a frame that steps lasts the step: the window froze). */
static void print_pace(const app *a) {
  const app_pace *p = &a->pace;
  double wall = app_now() - p->t0, busy = p->busy_s + (p->in_flight ? app_now() - p->batch_t0 : 0.0);
  if (a->opt.quiet || wall <= 0) return;
  fprintf(stderr,
          "vortexfmm: window: %lld frames in %.2f s (%.1f fps); %lld steps (%.3g steps/s, %.0f ms per step, %s); while "
          "steps ran: %lld frames in %.2f s (%.1f fps), the longest %.0f ms; shown: step %lld\n",
          p->frames, wall, p->frames / wall, p->steps, p->steps / wall, p->steps ? p->step_ms / p->steps : 0.0,
          p->threaded ? "simulation thread" : "in the frame loop", p->busy_frames, busy,
          busy > 0 ? p->busy_frames / busy : 0.0, p->longest_busy_ms, a->shown.steps);
}

/* While the simulation thread runs a batch, a frame that nothing asked for is drawn at most
 * APP_IDLE_FPS times a second: it would show the same state from the same view, and where OpenGL is
 * software (Mesa's llvmpipe) each frame costs the CPU time the step needs (measured in
 * docs/BENCHMARKS.md). Input, a finished batch (the thread posts an empty event) or a resize ends
 * the wait at once, so the window answers as fast as it draws. */
static void idle_wait(const app *a, double t_frame) {
  if (!a->pace.in_flight) return;
  double left = 1.0 / APP_IDLE_FPS - (app_now() - t_frame);
  if (left > 0) glfwWaitEventsTimeout(left);
}

/* One frame: events, the simulation, the draw, the recording, the panel, a screenshot, the swap.
 * 0 to go on, 1 when the run ends (done, or *rc an error). */
static int window_frame(window_run *W, int *rc, char *err, size_t errlen) {
  app *a = W->a;
  glfwPollEvents();
  if (a->set.vsync != a->cur.vsync) {
    glfwSwapInterval(a->set.vsync ? 1 : 0);
    a->cur.vsync = a->set.vsync;
  }
  /* a blow-up or a failed step pauses the simulation on screen (app_update returns 0); what
   * comes back as an error is fatal: GL, or a backend that can no longer read the state */
  if (app_update(a, err, errlen) != 0) return *rc = 1;
  if (a->cur.scene != W->titled) { /* a scene chosen in the panel, once loaded: the title names it */
    char title[128];
    W->titled = a->cur.scene;
    snprintf(title, sizeof title, "vortexfmm - %s", a->scenes[W->titled].name);
    glfwSetWindowTitle(W->win, title);
  }
  int fbw, fbh, ww, wh;
  glfwGetFramebufferSize(W->win, &fbw, &fbh);
  glfwGetWindowSize(W->win, &ww, &wh);
  double now = app_now(), dt = now - W->t_prev;
  W->t_prev = now;
  a->ms_frame = 1e3 * dt;
  app_frames_add(&a->frames_hud, a->ms_frame);
  count_frame(&a->pace, a->ms_frame);
  if (fbw <= 0 || fbh <= 0) { /* minimised */
    glfwWaitEventsTimeout(0.1);
    return 0;
  }
  float scale = ww > 0 ? (float)fbw / (float)ww : 1.0f; /* framebuffer pixels per window unit */
  if (app_draw(a, 0, fbw, fbh, scale, err, errlen)) return *rc = 1;
  app_record_window_frame(a, fbw, fbh); /* the scene without the panel */
  if (app_interrupted()) a->act_quit = 1;
  app_ui_frame(a, fbw, fbh, dt);
  int last = W->frames > 0 && a->frame >= W->frames;
  if (frame_screenshot(W, last, fbw, fbh)) *rc = 1;
  glfwSwapBuffers(W->win);
  idle_wait(a, now);
  return last;
}

/* Closing: a recording ends cleanly, then the UI, the app (the simulation thread's step in flight
 * ends first: the window is hidden meanwhile), the window and GLFW. */
static int close_window(window_run *W, int rc) {
  if (W->win) app_record_stop(W->a);
  if (W->win && W->ui) print_pace(W->a);
  if (W->win) glfwHideWindow(W->win);
  if (W->ui) app_ui_shutdown();
  app_shutdown(W->a);
  if (W->win) glfwDestroyWindow(W->win);
  glfwTerminate();
  return rc;
}

/* Where OpenGL is software the ray-counted opacity pass at its defaults (64 samples a ray on half
 * the window's pixels) costs more than the step on the same cores: the window's frame rate on two
 * cores rises from 6 to 15 fps with it at 32 samples on a quarter (docs/BENCHMARKS.md). The window
 * then starts there unless --ray-samples or --opacity-scale was given; the panel sets both. */
#define APP_SOFT_SAMPLES 32
#define APP_SOFT_DOWNSCALE 4
static void software_opacity(app *a, const app_options *o) {
  rd_style *s = &a->set.style;
  if (o->opacity_given || !rd_gl_software() || s->samples <= APP_SOFT_SAMPLES) return;
  s->samples = APP_SOFT_SAMPLES;
  if (s->downscale < APP_SOFT_DOWNSCALE) s->downscale = APP_SOFT_DOWNSCALE;
  if (!o->quiet)
    fprintf(stderr, "vortexfmm: software OpenGL: the opacity pass at %d samples a ray on 1/%d of the window's size "
                    "(--ray-samples, --opacity-scale, or the panel)\n", s->samples, s->downscale);
}

int app_run_window(const app_options *o) {
  const char *disp = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY"); /* main.c checked one is set */
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit()) {
    fprintf(stderr, "vortexfmm: cannot open the display '%s': %s; run with --headless, e.g. vortexfmm --headless "
                    "--scene leapfrog --frames 100 --png-dir frames\n", disp && *disp ? disp : wl, glfw_error);
    return 2;
  }
  static app a; /* large (scene lists); lives for the whole run */
  static window_run W;
  char err[1024] = "";
  memset(&W, 0, sizeof W);
  app_options wo = *o;
  wo.wake = glfwPostEmptyEvent; /* a batch of steps ended: the frame loop's wait ends (idle_wait) */
  W.o = o, W.a = &a;
  int rc = app_init(&a, &wo, 1, err, sizeof err);
  if (!rc) rc = open_window(&W, err, sizeof err);
  if (!rc) software_opacity(&a, o);
  if (!rc) rc = start_ui(&W, err, sizeof err);
  if (rc) {
    fprintf(stderr, "vortexfmm: %s\n", err);
    return close_window(&W, rc);
  }
  if (!o->quiet)
    fprintf(stderr, "vortexfmm: window %dx%d, %s; steps %s; press H for help\n", o->width, o->height, a.gl_desc,
            a.stepper ? "on a thread of their own while the backend is cpu" : "in the frame loop");
  W.frames = o->frames > 0 ? o->frames : (o->screenshot ? 60 : -1);
  W.t_prev = a.pace.t0 = app_now();
  W.titled = a.cur.scene;
  err[0] = '\0';
  while (!glfwWindowShouldClose(W.win) && !a.act_quit)
    if (window_frame(&W, &rc, err, sizeof err)) break;
  if (rc && err[0]) fprintf(stderr, "vortexfmm: %s\n", err);
  return close_window(&W, rc);
}
