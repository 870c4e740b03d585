// ImGui panels: each is a function that reads and writes the AppState and nothing else; the main loop
// acts on the requests they leave there. One panel per file (panel_*.cpp).
#pragma once
#include "app/gui/app_state.hpp"

namespace satlab::gui {

// The right-hand column at (x, y) with the given size, holding the panels below in collapsing sections.
void draw_sidebar(AppState& s, float x, float y, float w, float h);

void draw_scene_panel(AppState& s);    // what is open, and the view selector
void draw_params_panel(AppState& s);   // filter, box radius, focus, aperture, max radius, near/far, disparity
void draw_depth_panel(AppState& s);    // depth source, guided-filter refinement, synthetic depth
void draw_brush_panel(AppState& s);
// Over the image while the brush is on (depth, size, feather, edges, eyedropper, fill): two rows whose bottom
// lies at `bottom`, at most max_width wide.
void draw_brush_toolbar(AppState& s, float x, float bottom, float max_width);    // the depth brush: size, depth, feather, eyedropper, undo/redo, save
void draw_timings_panel(AppState& s);  // builder selectors, per-stage ms (EMA), GB/s, C, history plot
void draw_backend_panel(AppState& s);  // backend choice and what runs where
void draw_lab_panel(AppState& s);      // registered GPU variants and their live comparison
void draw_compare_panel(AppState& s);  // every SAT builder on the current image: time, C, correctness
void draw_truth_panel(AppState& s);    // ground-truth cases: load one (image, depth, parameters, truth view)
// Height to give the sideways-scrolling table `id` of `rows` rows under a header, so that it shows every
// row and no empty space: what remember_table_height measured in the last frame for that many rows, else
// an estimate. remember_table_height(id, rows) goes after the last row's last cell, before EndTable.
float scrolling_table_height(const char* id, size_t rows);
void remember_table_height(const char* id, size_t rows);

void draw_help_overlay(AppState& s, float display_w, float display_h);  // while s.show_help: the key table
void draw_file_browser(AppState& s, float display_w, float display_h);  // while s.show_browser
// Adds newly opened files (not the bundled scenes) to the recent list and saves it; every frame.
void track_recent_files(AppState& s);

void draw_error_popup(AppState& s);  // modal while s.error is set; OK clears it
// Small overlay in the image corner: the view, zoom, the pixel under the cursor, the colour-map legend
// (a GL texture from the viewer, 0 for none) and the key help.
void draw_status_overlay(const AppState& s, float x, float y, unsigned legend_texture);

}  // namespace satlab::gui
