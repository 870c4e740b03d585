#include <imgui.h>

#include <cmath>
#include <cstdio>

#include "app/gui/frame.hpp"

namespace satlab::gui {

void handle_image_input(AppState& s, Viewer& viewer, Session& session, const Layout& l) {
  ImGuiIO& io = ImGui::GetIO();
  if (!io.WantCaptureKeyboard) {
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Tab))) s.show_ui = !s.show_ui;
    if (ImGui::IsKeyPressed('R')) viewer.reset_view();
  }
  s.pixel_info.clear();
  s.zoom = viewer.zoom();
  const float mx = io.MousePos.x, my = io.MousePos.y;
  if (io.WantCaptureMouse || mx < 0 || my < 0 || mx >= l.image_w || my >= l.image_h) return;
  // The viewer works in framebuffer pixels, ImGui in window coordinates.
  const float fb = io.DisplayFramebufferScale.x;
  if (io.MouseWheel != 0) viewer.zoom_at(std::pow(1.15f, io.MouseWheel), mx * fb, my * fb);
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Left)) viewer.pan(io.MouseDelta.x * fb, io.MouseDelta.y * fb);
  int px = 0, py = 0;
  if (!viewer.pixel_at(mx * fb, my * fb, &px, &py) || px >= s.image_width || py >= s.image_height) return;

  const ImageF& depth = session.depth_normalised();
  const bool has_depth = depth.width == s.image_width && depth.height == s.image_height;
  // A release that never moved more than a couple of pixels is a click, not the end of a pan.
  const bool clicked = ImGui::IsMouseReleased(ImGuiMouseButton_Left) && io.MouseDragMaxDistanceSqr[0] < 9.f;
  if (clicked && has_depth && s.params.filter == FilterKind::Dof) {
    s.params.focus = depth.at(px, py);
    s.params_changed = true;
  }
  const uint8_t* c = session.input().px(px, py);
  char buf[160];
  int n = std::snprintf(buf, sizeof(buf), "(%d, %d)  RGB %d %d %d", px, py, c[0], c[1], c[2]);
  if (has_depth) n += std::snprintf(buf + n, sizeof(buf) - size_t(n), "  depth %.3f", depth.at(px, py));
  const ImageF& coc = session.coc();
  if (s.params.filter == FilterKind::Dof && coc.width == s.image_width && coc.height == s.image_height)
    std::snprintf(buf + n, sizeof(buf) - size_t(n), "  CoC %+.2f px", coc.at(px, py));
  s.pixel_info = buf;
}

}  // namespace satlab::gui
