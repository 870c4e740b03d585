// The depth brush: paint near/far strokes over the image (while "paint" is on, a drag paints instead of
// panning), refined live by the depth section's refiner (auto: the best one); undo, redo, save.
#include <imgui.h>

#include "app/gui/panels.hpp"
#include "core/refine.hpp"

namespace satlab::gui {

void draw_brush_panel(AppState& s) {
  DepthEditState& e = s.depth_edit;
  ImGui::Checkbox("paint depth (B)", &e.brush);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "drag on the image to paint; strokes are refined live along the image's edges by the\n"
        "depth section's refiner (auto: %s)",
        kDefaultRefiner);
  ImGui::SliderFloat("size", &e.size, 1.f, 256.f, "%.0f px radius",
                     ImGuiSliderFlags_AlwaysClamp | ImGuiSliderFlags_Logarithmic);
  ImGui::SliderFloat("depth", &e.value, 0.f, 1.f, "%.3f (0 near, 1 far)", ImGuiSliderFlags_AlwaysClamp);
  ImGui::SliderFloat("feather", &e.feather, 0.f, 1.f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
  ImGui::Checkbox("eyedropper (E)", &e.eyedropper);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("the next click on the image takes its depth as the brush's");
  ImGui::BeginDisabled(e.history.strokes().empty());
  if (ImGui::Button("undo (Ctrl+Z)")) e.undo = true;
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(e.history.redo_size() == 0);
  if (ImGui::Button("redo (Ctrl+Y)")) e.redo = true;
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(e.history.strokes().empty());
  if (ImGui::Button("clear")) e.clear = true;
  ImGui::EndDisabled();
  ImGui::Text("%zu stroke(s), %zu to redo", e.history.strokes().size(), e.history.redo_size());
  ImGui::InputTextWithHint("##save_path", "NAME.depth.png beside the image", e.save_field,
                           sizeof(e.save_field));
  ImGui::SameLine();
  if (ImGui::Button("save (Ctrl+S)")) e.save = true;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("the depth in use as a 16-bit PNG, values in [0,1]");
  if (!e.saved.empty()) ImGui::TextDisabled("saved %s", e.saved.c_str());
}

}  // namespace satlab::gui
