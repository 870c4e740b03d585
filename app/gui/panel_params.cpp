#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "app/gui/panels.hpp"
#include "app/io/aperture_files.hpp"
#include "core/aperture_image.hpp"
#include "core/dof_modes.hpp"
#include "core/error.hpp"

namespace satlab::gui {
namespace {

// The focus range over the depth's histogram: near outer, near inner, focus, far inner and far outer as
// handles on a strip of normalised depth (0 near at the left), dragged with the mouse; the sharp band
// filled, the ramps shaded. A +-t slider below sets the symmetric band. Returns whether anything changed.
bool focus_range_strip(Params& p, const std::vector<float>& hist) {
  static int held = -1;  // the handle being dragged: 0..4 as below
  const FocusRange r = focus_range_of(p);
  float v[5] = {r.near_outer, r.near_inner, p.focus, r.far_inner, r.far_outer};
  const float width = ImGui::CalcItemWidth(), height = 3.f * ImGui::GetFrameHeight();
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##focus_strip", ImVec2(width, height));
  const bool hovered = ImGui::IsItemHovered(), active = ImGui::IsItemActive();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const auto x_of = [&](float d) { return at.x + std::clamp(d, 0.f, 1.f) * width; };
  dl->AddRectFilled(at, ImVec2(at.x + width, at.y + height), ImGui::GetColorU32(ImGuiCol_FrameBg));
  // The ramps, then the sharp band.
  const ImU32 ramp = IM_COL32(90, 160, 255, 50), band = IM_COL32(90, 160, 255, 110);
  dl->AddRectFilled(ImVec2(x_of(v[0]), at.y), ImVec2(x_of(v[1]), at.y + height), ramp);
  dl->AddRectFilled(ImVec2(x_of(v[3]), at.y), ImVec2(x_of(v[4]), at.y + height), ramp);
  dl->AddRectFilled(ImVec2(x_of(v[1]), at.y), ImVec2(std::max(x_of(v[3]), x_of(v[1]) + 1.f), at.y + height), band);
  float peak = 0.f;
  for (float b : hist) peak = std::max(peak, b);
  for (size_t i = 0; peak > 0.f && i < hist.size(); ++i) {
    const float x0 = at.x + width * float(i) / float(hist.size()), x1 = at.x + width * float(i + 1) / float(hist.size());
    const float h = (height - 2.f) * std::sqrt(hist[i] / peak);  // sqrt: small populations still show
    dl->AddRectFilled(ImVec2(x0, at.y + height - h), ImVec2(x1, at.y + height), IM_COL32(200, 200, 200, 150));
  }
  const ImU32 handle = IM_COL32(255, 255, 255, 230), focus = IM_COL32(255, 210, 60, 255);
  for (int i = 0; i < 5; ++i) {
    const float x = x_of(v[i]);
    dl->AddLine(ImVec2(x, at.y), ImVec2(x, at.y + height), i == 2 ? focus : handle, i == held ? 3.f : 1.5f);
    dl->AddTriangleFilled(ImVec2(x - 4.f, at.y), ImVec2(x + 4.f, at.y), ImVec2(x, at.y + 6.f), i == 2 ? focus : handle);
  }
  ImGui::SameLine(0.f, ImGui::GetStyle().ItemInnerSpacing.x);
  ImGui::TextUnformatted("focus range");
  bool changed = false;
  const float mouse = std::clamp((ImGui::GetIO().MousePos.x - at.x) / width, 0.f, 1.f);
  if (ImGui::IsItemActivated() || (active && held < 0)) {
    // The nearest handle; of coincident ones, the one the drag's direction will tell (resolved below).
    float best = 1e9f;
    for (int i = 0; i < 5; ++i)
      if (std::fabs(v[i] - mouse) < best - 1e-6f) best = std::fabs(v[i] - mouse), held = i;
  }
  if (active && held >= 0) {
    float dx = ImGui::GetIO().MouseDelta.x / width;
    if (dx != 0.f) {
      // Handles stacked on the one held: a drag outwards takes the outermost of them in that direction.
      int h = held;
      if (dx < 0.f) while (h > 0 && v[h - 1] == v[h] && h != 2) --h;
      if (dx > 0.f) while (h < 4 && v[h + 1] == v[h] && h != 2) ++h;
      if (v[held] == v[h]) held = h;
      if (held == 2) {  // the focus carries the range with it
        const float shift = mouse - v[2];
        for (float& e : v) e += shift;
      } else {
        v[held] = mouse;
        for (int i = held - 1; i >= 0; --i) v[i] = std::min(v[i], v[i + 1]);
        for (int i = held + 1; i < 5; ++i) v[i] = std::max(v[i], v[i - 1]);
      }
      Params q = p;
      q.focus = std::clamp(v[2], 0.f, 1.f);
      try {
        set_focus_range(q, {std::min(v[0], v[1]), std::min(v[1], q.focus), std::max(v[3], q.focus),
                            std::max(v[4], v[3])});
        validate(q);
        p = q, changed = true;
      } catch (const Error&) {  // a width beyond 1: the handle stops
      }
    }
  }
  if (!active) held = -1;
  if (hovered)
    ImGui::SetTooltip(
        "normalised depth, near at the left, over the depth's histogram; drag the handles:\n"
        "focus (yellow), the sharp band's inner edges, and the outer edges the blur ramps in to\n"
        "(near outer %.3f, near inner %.3f, focus %.3f, far inner %.3f, far outer %.3f)",
        double(v[0]), double(v[1]), double(p.focus), double(v[3]), double(v[4]));
  // The symmetric band +-t, as --focus-range T.
  float t = std::max(p.focus_range, p.focus_range_far);
  if (ImGui::SliderFloat("+- range", &t, 0.f, 0.5f, "+-%.3f", ImGuiSliderFlags_AlwaysClamp)) {
    set_focus_range(p, t);
    changed = true;
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "every depth within +- this of the focus stays sharp; the blur grows from the band's\n"
        "edges, so depth noise near the focus plane no longer blurs the subject");
  return changed;
}

}  // namespace

void draw_params_panel(AppState& s) {
  Params& p = s.params;
  bool c = false;
  int f = p.filter == FilterKind::Box ? 0 : 1;
  c |= ImGui::RadioButton("depth of field", &f, 1);
  ImGui::SameLine();
  c |= ImGui::RadioButton("box", &f, 0);
  p.filter = f == 0 ? FilterKind::Box : FilterKind::Dof;
  if (p.filter == FilterKind::Box) {
    c |= ImGui::SliderInt("radius", &p.box_radius, 0, 64, "%d px");
  } else {
    c |= ImGui::SliderFloat("focus", &p.focus, 0.f, 1.f, "%.3f");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("normalised depth in focus; or click on the image");
    c |= focus_range_strip(p, s.depth_histogram);
    c |= ImGui::SliderFloat("aperture", &p.aperture, 0.f, 200.f, "%.1f");
    c |= ImGui::SliderFloat("max radius", &p.max_radius, 0.f, 64.f, "%.1f px");
    c |= ImGui::DragFloatRange2("near / far", &p.near_depth, &p.far_depth, 0.05f, 0.05f, 1000.f, "%.2f");
    // Keep the range valid while dragging, so the pipeline never sees near >= far.
    if (p.near_depth < 0.01f) p.near_depth = 0.01f;
    if (p.far_depth <= p.near_depth) p.far_depth = p.near_depth + 0.01f;
    c |= ImGui::Checkbox("depth map stores disparity", &p.disparity);
    c |= ImGui::SliderFloat("camera shoulder", &p.response_shoulder, 0.f, 0.9f, "%.2f");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "camera response: the camera stored radiance v as sRGB(min(v / (1 + s v), 1)); the linear-light modes "
          "and highlights undo it before blurring and redo it after (0: plain sRGB; the ground truth's camera: 0.4)");
    // The DoF mode (core/dof_modes.hpp) and, for the shaped ones, the aperture.
    const DofMode* mode = find_dof_mode(p.dof_mode);
    if (ImGui::BeginCombo("dof mode", mode ? mode->label : p.dof_mode.c_str())) {
      for (const DofMode& m : dof_modes()) {
        if (ImGui::Selectable(m.label, p.dof_mode == m.name)) {
          p.dof_mode = m.name, c = true;
          // A mode that carries no aperture profile (validate refuses one) takes the flat aperture.
          if (!m.profile) p.bokeh_profile = p.catadioptric = p.cat_eye = 0.f, p.aperture_image.clear();
        }
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("%s: %s%s", m.name, m.description,
                            !m.profile && uses_aperture_profile(p) ? " (the aperture profile and hole go flat)" : "");
      }
      ImGui::EndCombo();
    }
    mode = find_dof_mode(p.dof_mode);
    if (mode && mode->shaped) {
      // Lens presets (--lens): the aperture's fields at once; the preset that matches them is shown.
      const LensPreset* now = nullptr;
      for (const LensPreset& l : lens_presets()) {
        Params q = p;
        l.apply(q);
        const bool polygon = p.aperture_shape == ApertureShape::Polygon, turns = polygon || p.anamorphic != 1.f;
        if (q.aperture_shape == p.aperture_shape && (!polygon || q.blades == p.blades) &&
            (!turns || q.blade_rotation == p.blade_rotation) && q.anamorphic == p.anamorphic &&
            q.bokeh_profile == p.bokeh_profile && q.catadioptric == p.catadioptric &&
            q.aperture_image == p.aperture_image && q.cat_eye == p.cat_eye)
          now = &l;
      }
      if (ImGui::BeginCombo("lens", now ? now->name : "(own)")) {
        for (const LensPreset& l : lens_presets()) {
          const bool can =
              mode->profile || (l.profile == 0.f && l.catadioptric == 0.f && !*l.image && l.cat_eye == 0.f);
          if (ImGui::Selectable(l.name, now == &l, can ? 0 : ImGuiSelectableFlags_Disabled)) l.apply(p), c = true;
          if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("%s%s", l.description, can ? "" : " (needs the spread dof mode)");
        }
        ImGui::EndCombo();
      }
      int shape = int(p.aperture_shape);
      c |= ImGui::Combo("aperture shape", &shape, "square\0disc\0polygon\0");
      p.aperture_shape = ApertureShape(shape);
      if (p.aperture_shape == ApertureShape::Polygon) c |= ImGui::SliderInt("blades", &p.blades, 5, 8);
      c |= ImGui::SliderFloat("anamorphic", &p.anamorphic, 0.25f, 4.f, "%.2f", ImGuiSliderFlags_Logarithmic |
                                                                                ImGuiSliderFlags_AlwaysClamp);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("the aperture's width over its height: 1 round, below 1 the tall ovals of an anamorphic lens");
      if (p.aperture_shape == ApertureShape::Polygon || p.anamorphic != 1.f)
        c |= ImGui::SliderFloat("rotation", &p.blade_rotation, 0.f, 360.f, "%.0f deg");
      if (mode->profile) {
        // Cat-eye (not built with the profile, hole or picture: the last one set wins).
        const bool eye = ImGui::SliderFloat("cat-eye", &p.cat_eye, 0.f, 0.8f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("mechanical vignetting: toward the frame's corners the bokeh is cut by the lens's barrel "
                            "into cat's eyes, narrow along the radius (0 none; clears the profile, hole and picture)");
        if (p.cat_eye > 0.f)
          c |= ImGui::SliderFloat("cat-eye stop", &p.cat_eye_scale, 1.f, 2.f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
        if (eye && p.cat_eye > 0.f) p.bokeh_profile = p.catadioptric = 0.f, p.aperture_image.clear();
        c |= eye;
        const float profile_was = p.bokeh_profile, hole_was = p.catadioptric;
        const std::string image_was = p.aperture_image;
        c |= ImGui::SliderFloat("bokeh profile", &p.bokeh_profile, -1.f, 1.f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("the brightness across each bokeh disc: -1 a bright centre (soft, spherical aberration), "
                            "0 flat, 1 a bright rim (soap bubble)");
        c |= ImGui::SliderFloat("mirror hole", &p.catadioptric, 0.f, 0.8f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("a catadioptric (mirror) lens's central obstruction, as a fraction of the aperture's "
                            "radius: ring bokeh (0 none)");
        // An aperture image (core/aperture_image.hpp): a built-in picture, or a greyscale file.
        if (ImGui::BeginCombo("aperture image", p.aperture_image.empty() ? "(the shape above)" : p.aperture_image.c_str())) {
          if (ImGui::Selectable("(the shape above)", p.aperture_image.empty())) p.aperture_image.clear(), c = true;
          std::vector<std::string> names = builtin_aperture_names();
          if (!p.aperture_image.empty() && !is_builtin_aperture(p.aperture_image)) names.push_back(p.aperture_image);
          for (const std::string& n : names)
            if (ImGui::Selectable(n.c_str(), p.aperture_image == n)) p.aperture_image = n, c = true;
          ImGui::EndCombo();
        }
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("a picture as the aperture: upright in the bokeh behind the focus plane, turned in front "
                            "(a card cut into a shape before the lens); the shape, blades and hole above give way");
        static char file[512] = "";
        static std::string file_error;
        if (ImGui::InputTextWithHint("##aperture file", "greyscale image file, Enter", file, sizeof file,
                                     ImGuiInputTextFlags_EnterReturnsTrue)) {
          try {
            p.aperture_image = io::use_aperture_image(file), c = true, file_error.clear();
          } catch (const Error& e) {
            file_error = e.what();
          }
        }
        if (!file_error.empty()) ImGui::TextColored(ImVec4(1.f, 0.45f, 0.35f, 1.f), "%s", file_error.c_str());
        if (p.bokeh_profile != profile_was || p.catadioptric != hole_was || p.aperture_image != image_was)
          p.cat_eye = 0.f;
      }
      if (mode->occlusion) {
        c |= ImGui::SliderInt("depth layers", &p.dof_layers, 2, 8);
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip(
              "CoC slices composited front to back, their edges fitted to the depth's histogram within the "
              "spread work of evenly spaced edges: more layers, fewer seams where an object crosses a slice "
              "edge, and a slower frame (docs/quality.md, \"How spread meets the lens\")");
      }
      if (p.max_radius > 511.f) p.max_radius = 511.f;  // exact 12-bit box sums
    } else {
      c |= ImGui::Checkbox("fractional radius (no banding)", &p.fractional_radius);
    }
    c |= ImGui::SliderFloat("grain", &p.grain, 0.f, 4.f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("the photo's own noise (estimated on its flat regions) re-added where the blur took it away, "
                        "times this: 1 the photo's level, 0 none (a blurred background without it looks like plastic)");
    c |= ImGui::SliderFloat("chromatic", &p.chromatic, -0.2f, 0.2f, "%.3f", ImGuiSliderFlags_AlwaysClamp);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("axial chromatic aberration: red and blue focused a little behind green (> 0), so "
                        "blurred edges get purple fringes in front of the focus and green ones behind; their "
                        "blur is green's plus this times the blur of infinity. A second pass of the filter");
    // Bokeh highlights (core/highlights.hpp).
    c |= ImGui::Checkbox("bokeh highlights", &p.highlights);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("bright pixels leave the gather and are splatted as sprites of the aperture's shape");
    if (p.highlights) {
      c |= ImGui::SliderFloat("highlight threshold", &p.highlight_threshold, 0.f, 1.f, "%.2f");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("linear luminance a pixel needs to become a sprite");
      c |= ImGui::SliderFloat("highlight gain", &p.highlight_gain, 1.f, 16.f, "%.1f");
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("clipped highlights carry gain times the largest radiance the camera shoulder decodes");
      c |= ImGui::SliderInt("sprite cap", &p.highlight_cap, 1, 1 << 20, "%d", ImGuiSliderFlags_Logarithmic);
      const HighlightStats& h = s.highlights;
      if (!h.valid)
        ImGui::TextDisabled("sprites: no frame yet");
      else if (h.cap_hit())
        ImGui::TextColored(ImVec4(1.f, 0.7f, 0.2f, 1.f), "cap hit: %u of %u highlights splatted", h.kept, h.found);
      else
        ImGui::Text("sprites: %u (%u behind focus)", h.kept, h.far);
    }
  }
  if (c) s.params_changed = true;
}

}  // namespace satlab::gui
