// The depth brush: paint near/far strokes over the image (while "paint" is on, a drag paints instead of
// panning) that stop at the image's edges, over the depth the depth section's refiner made; undo, redo,
// save. The toolbar over the image holds what a stroke needs at hand while painting.
#include <imgui.h>

#include "app/gui/panels.hpp"
#include "core/refine.hpp"

namespace satlab::gui {

void draw_brush_panel(AppState& s) {
  DepthEditState& e = s.depth_edit;
  ImGui::Checkbox("paint depth (B)", &e.brush);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "drag on the image to paint at full resolution, over the depth the depth section's refiner\n"
        "made (auto: %s where the depth is not exact); strokes stop at the image's edges",
        kDefaultRefiner);
  ImGui::SliderFloat("size", &e.size, 1.f, 256.f, "%.0f px radius",
                     ImGuiSliderFlags_AlwaysClamp | ImGuiSliderFlags_Logarithmic);
  ImGui::SliderFloat("depth", &e.value, 0.f, 1.f, "%.3f (0 near, 1 far)", ImGuiSliderFlags_AlwaysClamp);
  ImGui::SliderFloat("feather", &e.feather, 0.f, 1.f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
  ImGui::Checkbox("eyedropper (E)", &e.eyedropper);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("the next click on the image takes its depth as the brush's");
  ImGui::SameLine();
  ImGui::Checkbox("stop at edges", &e.snap);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("a stroke leaves what lies beyond an image edge inside the brush unpainted");
  ImGui::SameLine();
  ImGui::Checkbox("fill (G)", &e.fill);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("the next click paints the region it lies in, up to its edges");
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

void draw_brush_toolbar(AppState& s, float x, float bottom, float max_width) {
  DepthEditState& e = s.depth_edit;
  if (!e.brush) return;
  // Two rows, bottom-aligned at `bottom`, never wider than the image area.
  ImGui::SetNextWindowPos(ImVec2(x, bottom), ImGuiCond_Always, ImVec2(0.f, 1.f));
  ImGui::SetNextWindowSizeConstraints(ImVec2(0.f, 0.f), ImVec2(max_width, 1e6f));
  ImGui::SetNextWindowBgAlpha(0.75f);
  ImGui::Begin("##brush_toolbar", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav);
  ImGui::TextUnformatted("brush");
  ImGui::SameLine();
  if (ImGui::RadioButton("near", e.value == 0.f)) e.value = 0.f;
  ImGui::SameLine();
  if (ImGui::RadioButton("far", e.value == 1.f)) e.value = 1.f;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(9 * ImGui::GetFontSize());
  ImGui::SliderFloat("##depth", &e.value, 0.f, 1.f, "depth %.3f", ImGuiSliderFlags_AlwaysClamp);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(8 * ImGui::GetFontSize());
  ImGui::SliderFloat("##size", &e.size, 1.f, 256.f, "%.0f px", ImGuiSliderFlags_AlwaysClamp | ImGuiSliderFlags_Logarithmic);
  ImGui::SetNextItemWidth(6 * ImGui::GetFontSize());
  ImGui::SliderFloat("##feather", &e.feather, 0.f, 1.f, "feather %.2f", ImGuiSliderFlags_AlwaysClamp);
  ImGui::SameLine();
  ImGui::Checkbox("edges", &e.snap);
  ImGui::SameLine();
  ImGui::Checkbox("eyedropper", &e.eyedropper);
  ImGui::SameLine();
  ImGui::Checkbox("fill", &e.fill);
  ImGui::End();
}

}  // namespace satlab::gui
