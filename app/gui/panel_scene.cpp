#include <imgui.h>

#include "app/gui/panels.hpp"

namespace satlab::gui {
namespace {

std::string file_name(const std::string& path) {
  return path.substr(path.find_last_of('/') + 1);
}

// Radio buttons for every view, on two rows.
void view_selector(const char* label, View* view) {
  static const char* const kNames[kViewCount] = {"Result", "Input", "Depth", "CoC", "SAT", "Diff", "Raw depth", "Truth"};
  static const char* const kTips[kViewCount] = {
      "the filtered image (1)",
      "the image as loaded (2)",
      "normalised depth, colour-mapped (3)",
      "signed circle of confusion: warm in front of focus, cool behind (4)",
      "the input's summed-area table on a log scale (5)",
      "difference against the CPU reference for the current parameters (6)",
      "the depth before refinement, painted strokes included, normalised (7)",

      "the thin-lens reference of the loaded ground-truth case (8; Ground truth section)"};
  ImGui::PushID(label);
  int v = int(*view);
  ImGui::TextUnformatted(label);
  const ImGuiStyle& st = ImGui::GetStyle();
  for (int i = 0; i < kViewCount; ++i) {
    // On the same line while it fits, else on the next (indented under the first button).
    const float w = ImGui::GetFrameHeight() + st.ItemInnerSpacing.x + ImGui::CalcTextSize(kNames[i]).x;
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (i == 0 || ImGui::GetItemRectMax().x + st.ItemSpacing.x + w <= right)
      ImGui::SameLine();
    else
      ImGui::SetCursorPosX(ImGui::CalcTextSize(label).x + st.ItemSpacing.x + st.WindowPadding.x);
    ImGui::RadioButton(kNames[i], &v, i);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", kTips[i]);
  }
  *view = View(v);
  ImGui::PopID();
}

}  // namespace

void draw_scene_panel(AppState& s) {
  ImGui::TextUnformatted(file_name(s.image_path).c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.image_path.c_str());
  ImGui::SameLine();
  ImGui::TextDisabled("%d x %d", s.image_width, s.image_height);
  if (s.depth_edit.source == DepthSource::Stereo)
    ImGui::TextDisabled("depth: %s", s.depth_edit.source_detail.c_str());
  else if (s.depth_edit.source == DepthSource::Selection)
    ImGui::TextDisabled("depth: subject selection, %s", s.depth_edit.source_detail.c_str());
  else if (s.depth_path.empty())
    ImGui::TextDisabled("no depth map: synthetic depth %s", to_spec(s.synthetic).c_str());
  else if (s.depth_path == s.image_path && !s.depth_source.empty())
    ImGui::TextWrapped("depth: %s", s.depth_source.c_str());
  else if (s.clip.open && s.depth_path == s.image_path && !s.clip.info.depth_track.empty())
    ImGui::TextWrapped("depth: its %s", s.clip.info.depth_track.c_str());
  else
    ImGui::TextDisabled("depth: %s", file_name(s.depth_path).c_str());
  if (s.depth_source.rfind("embedded depth not used", 0) == 0)
    ImGui::TextWrapped("%s", s.depth_source.c_str());
  for (const auto& n : s.load_notes) ImGui::TextDisabled("%s", n.c_str());
  ImGui::Spacing();

  // A path field (Enter opens it as the image) and the file browser.
  const ImGuiStyle& st = ImGui::GetStyle();
  ImGui::SetNextItemWidth(-ImGui::CalcTextSize("image depth browse").x - 6 * st.ItemSpacing.x -
                          6 * st.FramePadding.x);
  const bool enter = ImGui::InputTextWithHint("##path", "file to open (or drop one)", s.path_field,
                                              sizeof(s.path_field), ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if ((ImGui::Button("image") || enter) && s.path_field[0]) s.open_image = s.path_field;
  ImGui::SameLine();
  if (ImGui::Button("depth") && s.path_field[0]) s.open_depth = s.path_field;
  ImGui::SameLine();
  if (ImGui::Button("browse")) s.show_browser = true;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("file browser with recent files (Ctrl+O)");
  ImGui::Spacing();

  view_selector("view", &s.view);
  if (s.view == View::Sat || (s.compare != Compare::Off && s.compare_view == View::Sat))
    ImGui::Checkbox("SAT of the luminance, colour-mapped (off: per channel)", &s.sat_luminance);
  if (s.view == View::Diff || (s.compare != Compare::Off && s.compare_view == View::Diff))
    ImGui::TextWrapped("%s", s.view_note.c_str());
  if (s.view == View::Truth || (s.compare != Compare::Off && s.compare_view == View::Truth)) {
    if (s.truth.loaded.empty())
      ImGui::TextDisabled("no ground truth for this image: load a case under Ground truth (the input shows)");
    else
      ImGui::TextWrapped("truth: %s. %s", s.truth.loaded.c_str(), s.truth.score.c_str());
  }

  int compare = int(s.compare);
  ImGui::TextUnformatted("compare");
  ImGui::SameLine();
  ImGui::RadioButton("off", &compare, 0);
  ImGui::SameLine();
  ImGui::RadioButton("split", &compare, 1);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("wipe: drag the divider on the image");
  ImGui::SameLine();
  ImGui::RadioButton("side by side", &compare, 2);
  s.compare = Compare(compare);
  if (s.compare != Compare::Off) {
    view_selector("left", &s.compare_view);
    if (s.compare == Compare::Split) ImGui::SliderFloat("divider", &s.split, 0.f, 1.f, "%.2f");
  }
  ImGui::Spacing();
}

}  // namespace satlab::gui
