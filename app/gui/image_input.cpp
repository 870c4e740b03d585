#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/gui/frame.hpp"
#include "app/gui/keys.hpp"

namespace satlab::gui {
namespace {

bool typed(char c) {
  const ImGuiIO& io = ImGui::GetIO();
  for (int i = 0; i < io.InputQueueCharacters.Size; ++i)
    if (io.InputQueueCharacters[i] == ImWchar(c)) return true;
  return false;
}

bool any_key_pressed() {
  for (int k = 0; k < IM_ARRAYSIZE(ImGui::GetIO().KeysDown); ++k)
    if (ImGui::IsKeyPressed(k, false)) return true;
  return false;
}

// The keys of kKeyBindings (keys.hpp); the mouse is handled below.
void handle_keys(AppState& s, Viewer& viewer) {
  const ImGuiIO& io = ImGui::GetIO();
  if (s.sweeping && (any_key_pressed() || ImGui::IsMouseClicked(ImGuiMouseButton_Left))) {
    s.sweeping = false;  // the key that stops the sweep does nothing else
    return;
  }
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
    s.files.cancel_requested = s.files.job != nullptr;  // a running export first
    s.clip.cancel_requested = s.clip.job != nullptr;
    s.show_help = s.show_browser = false;
  }
  if (ImGui::IsKeyPressed(kKeyF1) || (!io.WantTextInput && typed('?'))) s.show_help = !s.show_help;
  if (io.KeyCtrl && ImGui::IsKeyPressed('O')) s.show_browser = true;
  if (io.KeyCtrl && !io.WantTextInput) {  // the depth brush's history and saving
    if (ImGui::IsKeyPressed('Z') && s.depth_edit.subject && !s.depth_edit.clicks.empty()) {
      s.depth_edit.clicks.pop_back();  // subject select: take back the last click
      s.depth_edit.subject_changed = true;
    } else if (ImGui::IsKeyPressed('Z')) {
      s.depth_edit.undo = true;
    }
    if (ImGui::IsKeyPressed('Y')) s.depth_edit.redo = true;
    if (ImGui::IsKeyPressed('S')) s.depth_edit.save = true;
    if (ImGui::IsKeyPressed('E')) (s.clip.open ? s.clip.export_requested : s.files.export_requested) = true;
    if (ImGui::IsKeyPressed('K') && s.clip.open) s.clip.delete_key = true;
  }
  if (io.WantCaptureKeyboard || io.KeyCtrl) return;
  if (ImGui::IsKeyPressed('B')) s.depth_edit.brush = !s.depth_edit.brush, s.depth_edit.subject = false;
  if (ImGui::IsKeyPressed('S')) s.depth_edit.subject = !s.depth_edit.subject, s.depth_edit.brush = false;
  if (ImGui::IsKeyPressed('E') && s.depth_edit.brush) s.depth_edit.eyedropper = !s.depth_edit.eyedropper;
  if (ImGui::IsKeyPressed('G') && s.depth_edit.brush) s.depth_edit.fill = !s.depth_edit.fill;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Tab))) s.show_ui = !s.show_ui;
  if (ImGui::IsKeyPressed('R')) viewer.reset_view();
  if (ImGui::IsKeyPressed('A')) viewer.actual_size();
  for (int v = 0; v < kViewCount; ++v)
    if (ImGui::IsKeyPressed('1' + v)) s.view = View(v);
  if (ImGui::IsKeyPressed('C')) s.compare = Compare((int(s.compare) + 1) % 3);
  if (ImGui::IsKeyPressed('V')) s.vsync = !s.vsync;
  if (ImGui::IsKeyPressed('F') && s.params.filter == FilterKind::Dof) s.sweeping = true, s.sweep_dir = 1.f;
  if (s.clip.open) {
    if (ImGui::IsKeyPressed(kKeySpace, false)) s.clip.toggle = true;
    if (ImGui::IsKeyPressed(kKeyLeft)) s.clip.step = -1;
    if (ImGui::IsKeyPressed(kKeyRight)) s.clip.step = 1;
    if (ImGui::IsKeyPressed('K')) s.clip.set_key = true;
  }
}

// Focus moves at a full sweep (near to far) in 3 s and turns at either end; by at most 1/30 of the range
// per frame, so that slow frames (the CPU backend on a large image) still show a sweep, not jumps that can
// land back where they started.
void advance_sweep(AppState& s) {
  if (!s.sweeping) return;
  float f = s.params.focus + s.sweep_dir * std::min(ImGui::GetIO().DeltaTime, 0.1f) / 3.f;
  if (f >= 1.f) f = 2.f - f, s.sweep_dir = -1.f;
  if (f <= 0.f) f = -f, s.sweep_dir = 1.f;
  s.params.focus = std::min(std::max(f, 0.f), 1.f);
  s.params_changed = true;
}

// The divider of the Split compare and the names of both sides; dragging the divider moves the split.
// Returns true while the divider has the mouse (no pan, no focus click then).
bool handle_divider(AppState& s, const Layout& l, float scale) {
  if (s.compare == Compare::Off) return false;
  ImDrawList* dl = ImGui::GetBackgroundDrawList();
  const auto labels = panes(s, l.image_w);
  for (const Pane& p : labels) {  // each side's view name at the bottom of its part
    const char* name = to_string(p.view);
    const ImVec2 size = ImGui::CalcTextSize(name);
    const ImVec2 at(0.5f * (p.clip0 + p.clip1 - size.x), l.image_h - size.y - 12 * scale);
    dl->AddRectFilled(ImVec2(at.x - 6 * scale, at.y - 3 * scale),
                      ImVec2(at.x + size.x + 6 * scale, at.y + size.y + 3 * scale), IM_COL32(0, 0, 0, 150),
                      3 * scale);
    dl->AddText(at, IM_COL32(235, 235, 235, 255), name);
  }
  const float x = labels[0].clip1;
  dl->AddLine(ImVec2(x, 0), ImVec2(x, l.image_h), IM_COL32(255, 255, 255, 200), 2 * scale);
  if (s.compare != Compare::Split) return false;
  dl->AddCircleFilled(ImVec2(x, 0.5f * l.image_h), 7 * scale, IM_COL32(255, 255, 255, 220));

  const ImGuiIO& io = ImGui::GetIO();
  const float mx = io.MousePos.x, my = io.MousePos.y;
  const bool over = !io.WantCaptureMouse && std::fabs(mx - x) < 6 * scale && my >= 0 && my < l.image_h;
  if (over && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) s.divider_drag = true;
  if (s.divider_drag && !io.MouseDown[ImGuiMouseButton_Left]) {
    s.divider_drag = false;
    return true;  // this release ends the drag: not a click on the image
  }
  if (s.divider_drag) s.split = std::min(std::max(mx / std::max(l.image_w, 1.f), 0.f), 1.f);
  if (over || s.divider_drag) ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeEW);
  return s.divider_drag;
}

void pixel_tooltip(const AppState& s, Session& session, int px, int py, bool has_depth, float depth) {
  const uint8_t* in = session.input().px(px, py);
  ImGui::BeginTooltip();
  ImGui::Text("pixel (%d, %d)", px, py);
  ImGui::Text("input   RGB %3d %3d %3d", in[0], in[1], in[2]);
  const ImageRGBA8& result = session.result();
  if (result.width == s.image_width && result.height == s.image_height) {
    const uint8_t* r = result.px(px, py);
    ImGui::Text("result  RGB %3d %3d %3d", r[0], r[1], r[2]);
  }
  if (has_depth)
    ImGui::Text("depth   %.4f (normalised%s)", depth, s.showing_preview ? ", of the preview" : "");
  const ImageF& raw = session.raw_depth_view();
  const bool raw_shown =
      s.view == View::RawDepth || (s.compare != Compare::Off && s.compare_view == View::RawDepth);
  if (raw_shown && raw.width == s.image_width && raw.height == s.image_height)
    ImGui::Text("raw     %.4f (on the same scale)", raw.at(px, py));
  const ImageF& coc = session.coc();
  if (s.params.filter == FilterKind::Dof && coc.width == s.image_width && coc.height == s.image_height) {
    const float c = coc.at(px, py);
    ImGui::Text("CoC     %+.2f px (blur radius %d, %s)", c, int(std::lround(std::fabs(c))),
                c > 0   ? "in front of focus"
                : c < 0 ? "behind focus"
                        : "in focus");
  }
  const ImageF& diff = session.difference();
  const bool diff_shown = s.view == View::Diff || (s.compare != Compare::Off && s.compare_view == View::Diff);
  if (diff_shown && diff.width == s.image_width && diff.height == s.image_height)
    ImGui::Text("result - CPU reference: %.0f levels", diff.at(px, py));
  ImGui::EndTooltip();
}

// The depth brush on the image: a press starts a stroke (or, with the eyedropper, picks the depth under
// the pointer), moves extend it, the release hands it to the session. Returns true when the brush took
// the mouse (no pan, no focus click).
bool handle_brush(AppState& s, Session& session, const Viewer& viewer, float mx, float my, int px, int py) {
  DepthEditState& e = s.depth_edit;
  if (!e.brush) return false;
  const ImGuiIO& io = ImGui::GetIO();
  // The brush's outline at the pointer, in window coordinates.
  const float r = e.size * viewer.zoom() / std::max(io.DisplayFramebufferScale.x, 1e-3f);
  ImGui::GetBackgroundDrawList()->AddCircle(ImVec2(mx, my), r, IM_COL32(255, 255, 255, 200), 48, 1.5f);
  if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
    const ImageF& d = session.edit_depth();
    if (e.eyedropper) {
      if (d.width == s.image_width && d.height == s.image_height) e.value = d.at(px, py);
      e.eyedropper = false;
      return true;
    }
    e.current = BrushStroke{e.size, e.value, e.feather, {{float(px), float(py)}},
                            e.fill   ? BrushStroke::Mode::Fill
                            : e.snap ? BrushStroke::Mode::Snap
                                     : BrushStroke::Mode::Paint};
    if (e.fill) {  // one click: the region, then back to painting
      e.fill = false;
      e.stroke_done = e.changed = true;
      return true;
    }
    e.painting = true;
    e.changed = true;
    return true;
  }
  if (!e.painting) return true;
  const auto& last = e.current.points.back();
  if (last.first != float(px) || last.second != float(py)) {
    e.current.points.emplace_back(float(px), float(py));
    e.changed = true;
  }
  if (!io.MouseDown[ImGuiMouseButton_Left]) e.stroke_done = true;
  return true;
}

}  // namespace

void handle_image_input(AppState& s, Viewer& viewer, Session& session, const Layout& l) {
  ImGuiIO& io = ImGui::GetIO();
  const float scale = ImGui::GetFontSize() / 15.f;
  handle_keys(s, viewer);
  advance_sweep(s);
  if (s.depth_edit.painting && !io.MouseDown[ImGuiMouseButton_Left]) s.depth_edit.stroke_done = true;
  s.pixel_info.clear();
  s.zoom = viewer.pixel_scale();
  s.zoom_fit = viewer.zoom() == 1.f;
  if (handle_divider(s, l, scale)) return;
  const float mx = io.MousePos.x, my = io.MousePos.y;
  if (io.WantCaptureMouse || mx < 0 || my < 0 || mx >= l.image_w || my >= l.image_h) return;
  const std::vector<Pane> ps = panes(s, l.image_w);
  const Pane* pane = pane_at(ps, mx);
  if (!pane) return;
  // The viewer works in framebuffer pixels from the pane's corner, ImGui in window coordinates.
  const float fb = io.DisplayFramebufferScale.x, x = (mx - pane->x) * fb, y = my * fb;
  if (io.MouseWheel != 0) viewer.zoom_at(std::pow(1.15f, io.MouseWheel), x, y);
  int px = 0, py = 0;
  const bool on_image = viewer.pixel_at(x, y, &px, &py) && px < s.image_width && py < s.image_height;
  if (on_image && handle_brush(s, session, viewer, mx, my, px, py)) return;
  const bool dragging = ImGui::IsMouseDragging(ImGuiMouseButton_Left) && !s.depth_edit.painting;
  if (dragging) viewer.pan(io.MouseDelta.x * fb, io.MouseDelta.y * fb);
  if (!on_image) return;

  // The full frame's normalised depth, or while a preview is shown the preview's (its pixel's average).
  float depth = 0;
  const bool has_depth = session.depth_at(px, py, &depth);
  // A release that never moved more than a couple of pixels is a click, not the end of a pan.
  const bool clicked = ImGui::IsMouseReleased(ImGuiMouseButton_Left) && io.MouseDragMaxDistanceSqr[0] < 9.f;
  if (clicked && s.depth_edit.subject && !s.sweeping) {  // subject select: a click adds, Shift+click subtracts
    s.depth_edit.clicks.push_back({float(px) + 0.5f, float(py) + 0.5f, io.KeyShift});
    s.depth_edit.subject_changed = true;
  } else if (clicked && has_depth && s.params.filter == FilterKind::Dof && !s.sweeping) {
    s.params.focus = depth;
    s.params_changed = true;
  }
  const uint8_t* c = session.input().px(px, py);
  char buf[160];
  int n = std::snprintf(buf, sizeof(buf), "(%d, %d)  RGB %d %d %d", px, py, c[0], c[1], c[2]);
  if (has_depth) n += std::snprintf(buf + n, sizeof(buf) - size_t(n), "  depth %.3f", depth);
  const ImageF& coc = session.coc();
  if (s.params.filter == FilterKind::Dof && coc.width == s.image_width && coc.height == s.image_height)
    std::snprintf(buf + n, sizeof(buf) - size_t(n), "  CoC %+.2f px", coc.at(px, py));
  s.pixel_info = buf;
  if (!dragging && !ImGui::IsMouseDown(ImGuiMouseButton_Left))
    pixel_tooltip(s, session, px, py, has_depth, depth);
}

}  // namespace satlab::gui
