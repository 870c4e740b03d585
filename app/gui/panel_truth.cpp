// The Ground truth section: the thin-lens cases of assets/ground_truth/cases.json (tools/gen_scene
// --truth), one button per case in rows by scene. Loading one opens its image and depth map, sets the
// case's parameters and makes its lens reference the Truth view (key 7), which either side of a compare
// can show; below, the current result's PSNR and SSIM against it, measured on the result just run.
#include <imgui.h>

#include "app/gui/panels.hpp"
#include "app/io/ground_truth.hpp"
#include "core/error.hpp"

namespace satlab::gui {

void draw_truth_panel(AppState& s) {
  TruthState& t = s.truth;
  if (!t.listed) {
    t.listed = true;
    try {
      t.cases = io::load_truth_cases(io::default_truth_cases());
    } catch (const Error& e) {
      t.note = e.what();
    }
  }
  if (t.cases.empty()) {
    ImGui::TextWrapped("no ground-truth cases: %s", t.note.c_str());
    return;
  }
  std::string scene;
  const ImGuiStyle& st = ImGui::GetStyle();
  float indent = 0;
  for (const io::TruthCase& c : t.cases) {
    // "occlusion_far_large" under "occlusion" reads "far_large".
    const std::string prefix = c.scene + "_";
    const std::string label = c.name.rfind(prefix, 0) == 0 ? c.name.substr(prefix.size()) : c.name;
    if (c.scene != scene) {
      scene = c.scene;
      ImGui::TextUnformatted(scene.c_str());
      indent = ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x + st.ItemSpacing.x;
      ImGui::SameLine();
    } else {
      // On the same line while it fits, else on the next, under the first button of the scene.
      const float w = ImGui::CalcTextSize(label.c_str()).x + 2 * st.FramePadding.x;
      const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
      if (ImGui::GetItemRectMax().x + st.ItemSpacing.x + w <= right)
        ImGui::SameLine();
      else
        ImGui::SetCursorPosX(indent);
    }
    const bool on = c.name == t.loaded;
    if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::Button((label.empty() ? c.name : label).c_str())) t.open = c.name;
    if (on) ImGui::PopStyleColor();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s: focus %.3f, aperture %.2f, max radius %.0f px, depth %.2f..%.2f", c.name.c_str(),
                        c.params.focus, c.params.aperture, c.params.max_radius, c.params.near_depth,
                        c.params.far_depth);
  }
  if (t.loaded.empty()) {
    ImGui::TextDisabled("load a case, then view Truth (7) or compare against it");
  } else {
    ImGui::TextWrapped("%s. %s", t.loaded.c_str(), t.score.c_str());
    if (ImGui::Button("compare result | truth")) {
      s.compare = Compare::Split;
      s.compare_view = View::Truth;
      s.view = View::Result;
    }
  }
}

}  // namespace satlab::gui
