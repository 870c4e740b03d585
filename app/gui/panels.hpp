// ImGui panels: each is a function that reads and writes the AppState and nothing else.
#pragma once
#include "app/gui/app_state.hpp"

namespace satlab::gui {

// The right-hand column: parameters, view, scene and backend, at (x, y) with the given size.
void draw_controls_panel(AppState& s, float x, float y, float w, float h);
void draw_params_section(AppState& s);
void draw_timings_section(AppState& s);
void draw_lab_section(AppState& s);
void draw_error_popup(AppState& s);
// Small overlay in the image corner: pixel under the cursor and the key help.
void draw_status_overlay(const AppState& s, float x, float y, const char* pixel_info);

}  // namespace satlab::gui
