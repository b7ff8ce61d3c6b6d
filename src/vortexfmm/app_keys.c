/* app_keys.c — the window's key and mouse bindings in one table (app.h: app_key): the window
 * dispatches its key presses from it (app_window.c), the help overlay draws it (app_ui.cpp, H) and
 * `vortexfmm --help-keys` prints it as the Markdown table README.md shows. A binding added here is
 * handled, drawn and documented at once. Only GLFW's key codes are used here (no GL calls). */
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <stdio.h>

#include "app.h"

/* Rows needing a modifier come before the row of the same key without one (app_key_find takes the
 * first match): Shift+L before L. A row with mods 0 matches whatever modifiers are held. */
static const app_key KEYS[] = {
    {"left drag", "orbit (arcball)", APP_KEY_MOUSE, {0, 0, 0}, 0, 0},
    {"right or middle drag, Shift+left or Ctrl+left drag", "pan", APP_KEY_MOUSE, {0, 0, 0}, 0, 0},
    {"wheel", "zoom", APP_KEY_MOUSE, {0, 0, 0}, 0, 0},
    {"Space", "run / pause", APP_KEY_RUN, {GLFW_KEY_SPACE, 0, 0}, 0, 0},
    {"N or Right", "one step (pauses)", APP_KEY_STEP, {GLFW_KEY_N, GLFW_KEY_RIGHT, 0}, 0, 1},
    {"R", "reset the scene (a new tracer count applies)", APP_KEY_RESET, {GLFW_KEY_R, 0, 0}, 0, 0},
    {"C", "the scene's camera (its view and follow mode)", APP_KEY_CAMERA, {GLFW_KEY_C, 0, 0}, 0, 1},
    {"F", "follow the rings (the centroid of the elements) on / off", APP_KEY_FOLLOW, {GLFW_KEY_F, 0, 0}, 0, 0},
    {"O", "ray-counted opacity on / off", APP_KEY_OPACITY, {GLFW_KEY_O, 0, 0}, 0, 0},
    {"E", "vortex elements coloured by |alpha| on / off", APP_KEY_ELEMENTS, {GLFW_KEY_E, 0, 0}, 0, 0},
    {"K", "tracer colour: plain, ring, speed, vorticity, height", APP_KEY_COLOUR, {GLFW_KEY_K, 0, 0}, 0, 0},
    {"I", "vorticity surface: with the dye, alone, off", APP_KEY_ISO, {GLFW_KEY_I, 0, 0}, 0, 0},
    {"B", "histogram cells on / off (their level in the HUD)", APP_KEY_BOXES, {GLFW_KEY_B, 0, 0}, 0, 0},
    {"X", "the octree's root cube on / off", APP_KEY_CUBE, {GLFW_KEY_X, 0, 0}, 0, 0},
    {"D", "FMM / direct summation", APP_KEY_DIRECT, {GLFW_KEY_D, 0, 0}, 0, 0},
    {"+ or =", "larger points", APP_KEY_POINTS_UP, {GLFW_KEY_EQUAL, GLFW_KEY_KP_ADD, 0}, 0, 1},
    {"-", "smaller points", APP_KEY_POINTS_DOWN, {GLFW_KEY_MINUS, GLFW_KEY_KP_SUBTRACT, 0}, 0, 1},
    {"]", "more tracers drawn", APP_KEY_MORE_DRAWN, {GLFW_KEY_RIGHT_BRACKET, 0, 0}, 0, 1},
    {"[", "fewer tracers drawn", APP_KEY_FEWER_DRAWN, {GLFW_KEY_LEFT_BRACKET, 0, 0}, 0, 1},
    {"PageUp", "zoom in", APP_KEY_ZOOM_IN, {GLFW_KEY_PAGE_UP, 0, 0}, 0, 1},
    {"PageDown", "zoom out", APP_KEY_ZOOM_OUT, {GLFW_KEY_PAGE_DOWN, 0, 0}, 0, 1},
    {"V", "vsync on / off", APP_KEY_VSYNC, {GLFW_KEY_V, 0, 0}, 0, 0},
    {"U", "HUD on / off", APP_KEY_HUD, {GLFW_KEY_U, 0, 0}, 0, 0},
    {"Tab", "panel on / off", APP_KEY_PANEL, {GLFW_KEY_TAB, 0, 0}, 0, 0},
    {"H or F1", "this help on / off", APP_KEY_HELP, {GLFW_KEY_H, GLFW_KEY_F1, 0}, 0, 0},
    {"P or F12", "screenshot (PNG, in --png-dir or here)", APP_KEY_SCREENSHOT, {GLFW_KEY_P, GLFW_KEY_F12, 0}, 0, 0},
    {"M", "record a video (start / stop)", APP_KEY_RECORD, {GLFW_KEY_M, 0, 0}, 0, 0},
    {"Ctrl+S", "save the settings and the launched rings as a scene file", APP_KEY_SAVE_SCENE, {GLFW_KEY_S, 0, 0},
     GLFW_MOD_CONTROL, 0},
    {"Shift+L", "remove the last launched ring", APP_KEY_UNLAUNCH, {GLFW_KEY_L, 0, 0}, GLFW_MOD_SHIFT, 0},
    {"L", "launch a vortex ring from the camera", APP_KEY_LAUNCH, {GLFW_KEY_L, 0, 0}, 0, 0},
    {"Esc or Q", "quit", APP_KEY_QUIT, {GLFW_KEY_ESCAPE, GLFW_KEY_Q, 0}, 0, 1},
};

const app_key *app_keys(int *n) {
  *n = (int)(sizeof KEYS / sizeof KEYS[0]);
  return KEYS;
}

const app_key *app_key_find(int code, int mods) {
  if (code <= 0) return NULL;
  for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; ++i) {
    const app_key *k = &KEYS[i];
    if (k->act == APP_KEY_MOUSE || (mods & k->mods) != k->mods) continue;
    for (int j = 0; j < 3; ++j)
      if (k->code[j] == code) return k;
  }
  return NULL;
}

/* A table cell: a '|' in the text (|alpha|) would end the cell, so it is escaped. */
static void put_cell(FILE *f, const char *text) {
  fputs(" ", f);
  for (const char *c = text; *c; ++c) {
    if (*c == '|') fputc('\\', f);
    fputc(*c, f);
  }
  fputs(" |", f);
}

void app_keys_markdown(FILE *f) {
  fprintf(f, "| key | action |\n|---|---|\n");
  for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; ++i) {
    fputs("|", f);
    put_cell(f, KEYS[i].keys);
    put_cell(f, KEYS[i].action);
    fputs("\n", f);
  }
}
