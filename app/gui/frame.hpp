// The pieces of one frame that gui.cpp's main loop calls, kept out of it so the loop reads in one screen.
#pragma once
#include <string>

#include "app/gui/app_state.hpp"
#include "app/gui/session.hpp"
#include "app/gui/viewer.hpp"

namespace satlab::gui {

// Fonts and style for a HiDPI content scale (1 on a 96-dpi screen). style.cpp
void setup_imgui_style(float scale);
// imgui.ini in the user's config folder ($XDG_CONFIG_HOME/satlab or ~/.config/satlab); none for scripted
// runs (--frames). style.cpp
void set_imgui_ini_file(bool scripted);

// Where the image goes and where the sidebar goes, in ImGui (window) coordinates.
struct Layout {
  float image_w = 0, image_h = 0;  // the image region starts at (0, 0)
  float panel_x = 0, panel_w = 0;  // the sidebar fills the rest; 0 wide when the UI is hidden
};
Layout layout_for(const AppState& s, float display_w, float display_h, float scale);  // style.cpp

// Keys (Tab, R) and the mouse over the image region: zoom, pan, click to focus, the pixel under the
// cursor into s.pixel_info. image_input.cpp
void handle_image_input(AppState& s, Viewer& viewer, Session& session, const Layout& layout);

// Reads the bound framebuffer (bottom row first in GL) and writes it top row first. screenshot.cpp
void save_framebuffer_png(const std::string& path, int width, int height);

}  // namespace satlab::gui
