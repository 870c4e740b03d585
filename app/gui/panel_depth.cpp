#include <imgui.h>

#include <cmath>
#include <string>

#include "app/gui/panels.hpp"
#include "core/refine.hpp"

namespace satlab::gui {
namespace {

void tip(const char* text) {
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text);
}

// Subject select: on or off, the layout of the selection's depth, what the last selection did.
void subject_section(AppState& s) {
  DepthEditState& e = s.depth_edit;
  ImGui::Checkbox("subject select (S)", &e.subject);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("click the subject on the image: it is selected (edges matted), put near and in focus;\n"
                      "Shift+click marks background; Ctrl+Z takes the last click back");
  int layout = int(e.layout);
  bool c = ImGui::RadioButton("open", &layout, int(SubjectLayout::Open));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("the rest far (depth 1)");
  ImGui::SameLine();
  c |= ImGui::RadioButton("wall", &layout, int(SubjectLayout::Wall));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("the rest a wall a short way behind (depth %.1f)", double(kWallDepth));
  ImGui::SameLine();
  c |= ImGui::RadioButton("floor", &layout, int(SubjectLayout::Floor));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("a ground receding from the bottom row to the top of the highest subject,\n"
                      "each subject at its base's depth");
  if (c) {
    e.layout = SubjectLayout(layout);
    e.subject_changed = !e.clicks.empty();
  }
  ImGui::BeginDisabled(e.clicks.empty());
  if (ImGui::Button("clear selection")) e.clicks.clear(), e.subject_changed = true;
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::TextDisabled("%zu click(s)", e.clicks.size());
  if (!e.subject_note.empty()) ImGui::TextWrapped("%s", e.subject_note.c_str());
}

// Synthetic depth for images without a depth map: a tilt-shift gradient or a radial one.
void synthetic_section(AppState& s) {
  if (!s.depth_path.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::TextWrapped("the image has a depth map: synthetic depth applies to images without one");
    ImGui::PopStyleColor();
    if (!ImGui::Button("use synthetic depth instead")) return;
    s.depth_path.clear();  // the session sees no depth map file and generates one
    s.synthetic_changed = true;
  }
  SyntheticDepth& d = s.synthetic;
  bool c = false;
  int mode = int(d.mode);
  c |= ImGui::RadioButton("none", &mode, int(SyntheticDepth::Mode::None));
  tip("no depth: everything is in focus");
  ImGui::SameLine();
  c |= ImGui::RadioButton("gradient", &mode, int(SyntheticDepth::Mode::Gradient));
  tip("tilt-shift: depth grows along a direction, the focus is a line");
  ImGui::SameLine();
  c |= ImGui::RadioButton("radial", &mode, int(SyntheticDepth::Mode::Radial));
  tip("near at a centre, far from a radius on");
  d.mode = SyntheticDepth::Mode(mode);
  if (d.mode == SyntheticDepth::Mode::Gradient) {
    c |= ImGui::SliderFloat("angle", &d.angle, -180.f, 180.f, "%.0f deg", ImGuiSliderFlags_AlwaysClamp);
    tip("the direction from near to far; 90: near at the bottom");
    c |= ImGui::SliderFloat("position", &d.position, 0.f, 1.f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
    c |= ImGui::SliderFloat("width", &d.width, 0.05f, 2.f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
    tip("length of the ramp from near to far, in image extents");
  } else if (d.mode == SyntheticDepth::Mode::Radial) {
    c |= ImGui::SliderFloat("centre x", &d.centre_x, 0.f, 1.f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
    c |= ImGui::SliderFloat("centre y", &d.centre_y, 0.f, 1.f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
    c |= ImGui::SliderFloat("radius", &d.radius, 0.05f, 2.f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
  }
  if (c) s.synthetic_changed = true;
}

// The refiner (auto, none or one of core/refine.hpp's), the guided filter's parameters where it runs, and
// the side-by-side view of raw and refined depth.
void refine_section(AppState& s) {
  DepthEditState& e = s.depth_edit;
  bool c = false;
  const std::string auto_label = "auto" + (e.resolved.empty() ? std::string() : " (" + e.resolved + ")");
  const Refiner* chosen = find_refiner(e.refine);
  const std::string preview = e.refine == "auto" ? auto_label : chosen ? chosen->label : e.refine;
  if (ImGui::BeginCombo("refine", preview.c_str())) {
    if (ImGui::Selectable(auto_label.c_str(), e.refine == "auto")) c |= e.refine != "auto", e.refine = "auto";
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "the best refiner (%s) wherever the depth is not exact: smaller than the image,\n"
          "embedded in a photo, from stereo, painted; none for a full-size file or synthetic depth",
          kDefaultRefiner);
    for (const Refiner& r : refiners()) {
      if (ImGui::Selectable(r.label, e.refine == r.name)) c |= e.refine != r.name, e.refine = r.name;
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s: %s", r.name, r.source);
    }
    ImGui::EndCombo();
  }
  tip("depth at the image's size along its edges, the image as the guide");
  if (e.resolved == "guided") {
    c |= ImGui::SliderInt("radius##guided", &e.guided.radius, 0, 64, "%d px", ImGuiSliderFlags_AlwaysClamp);
    float lg = std::log10(e.guided.eps);
    if (ImGui::SliderFloat("eps##guided", &lg, -6.f, 0.f, "1e%.1f", ImGuiSliderFlags_AlwaysClamp)) {
      e.guided.eps = std::pow(10.f, lg);
      c = true;
    }
    tip("regularisation: larger smooths across weaker image edges");
    c |= ImGui::Checkbox("gray guide", &e.guided.gray);
    tip("the luma as the guide instead of the colour covariance");
  }
  if (!e.refine_summary.empty()) {  // short, and wrapped all the same: the sidebar may be narrow
    ImGui::PushTextWrapPos(0.f);
    ImGui::TextDisabled("last refine: %s", e.refine_summary.c_str());
    ImGui::PopTextWrapPos();
    tip(e.refine_note.c_str());  // the backend and what the time includes
  }
  if (c) e.changed = true;
  if (ImGui::Button("raw | refined side by side")) {
    s.compare = Compare::SideBySide;
    s.compare_view = View::RawDepth;
    s.view = View::Depth;
  }
  tip("left: the raw depth resampled bilinearly to the image (strokes included), right: the depth the "
      "filter\n"
      "uses (refined); both on the right's scale (0 its nearest, 1 its farthest): equal depth, equal colour");
}

}  // namespace

void draw_depth_panel(AppState& s) {
  const DepthEditState& e = s.depth_edit;
  const bool painted = !e.history.strokes().empty();
  ImGui::Text("source: %s%s%s", painted ? "painted over " : "", to_string(e.source),
              e.source_detail.empty() ? "" : ("  (" + e.source_detail + ")").c_str());
  refine_section(s);
  ImGui::Separator();
  subject_section(s);
  ImGui::Separator();
  ImGui::TextDisabled("synthetic depth");
  synthetic_section(s);
}

}  // namespace satlab::gui
