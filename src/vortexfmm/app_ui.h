/* app_ui.h — what the two Dear ImGui files of the window share (C++ only, not part of app.h):
 * app_ui.cpp (context, HUD, help, legends) and app_panel.cpp (the settings panel). */
#ifndef VX_APP_UI_H
#define VX_APP_UI_H

#include "imgui.h"

#include "app.h"

/* Window units per design unit (the sizes written in the UI code are for a scale-1 screen); set once
 * by app_ui_init. */
extern float g_scale;

/* The UI's text colours: warnings, a stopped simulation, secondary text. */
static const ImVec4 kYellow(1.0f, 0.85f, 0.3f, 1.0f), kRed(1.0f, 0.4f, 0.35f, 1.0f), kGrey(0.65f, 0.65f, 0.7f, 1.0f);

/* The settings panel, top left, up to disp_h (window units) high (app_panel.cpp). */
void app_ui_panel(app *a, float disp_h);

#endif
