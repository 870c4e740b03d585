#include "core/params.hpp"

#include <cmath>

#include "core/dof_modes.hpp"
#include "core/error.hpp"

namespace satlab {

const char* to_string(FilterKind f) { return f == FilterKind::Box ? "box" : "dof"; }

FilterKind filter_from_string(const std::string& s) {
  if (s == "box") return FilterKind::Box;
  if (s == "dof") return FilterKind::Dof;
  throw Error("unknown filter '" + s + "' (expected box or dof)");
}

const char* to_string(ApertureShape a) {
  return a == ApertureShape::Square ? "square" : a == ApertureShape::Disc ? "disc" : "polygon";
}

ApertureShape aperture_from_string(const std::string& s) {
  for (ApertureShape a : {ApertureShape::Square, ApertureShape::Disc, ApertureShape::Polygon})
    if (s == to_string(a)) return a;
  throw Error("unknown aperture '" + s + "' (expected square, disc or polygon)");
}

void validate(const Params& p) {
  auto bad = [](const std::string& what) { throw Error("parameter out of range: " + what); };
  if (p.box_radius < 0 || p.box_radius > 2047) bad("box_radius (--radius) must be in [0, 2047]");
  if (!(p.focus >= 0.f && p.focus <= 1.f)) bad("focus (--focus) must be in [0, 1]");
  if (!(p.focus_range >= 0.f && p.focus_range <= 0.5f))
    bad("focus_range (--focus-range) must be in [0, 0.5]");
  if (!(p.aperture >= 0.f && std::isfinite(p.aperture))) bad("aperture (--aperture) must be finite and >= 0");
  if (!(p.max_radius >= 0.f && p.max_radius <= 2047.f)) bad("max_radius (--max-radius) must be in [0, 2047]");
  if (!(p.near_depth > 0.f && std::isfinite(p.near_depth))) bad("near_depth (--near) must be finite and > 0");
  if (!(p.far_depth > p.near_depth && std::isfinite(p.far_depth)))
    bad("far_depth (--far) must be finite and > near_depth (--near)");
  const DofMode* mode = find_dof_mode(p.dof_mode);
  if (!mode) bad("dof_mode (--dof-mode) '" + p.dof_mode + "' is not one of " + dof_mode_list());
  if (p.blades < 5 || p.blades > 8) bad("blades (--blades) must be in [5, 8]");
  if (p.dof_layers < 2 || p.dof_layers > 8) bad("dof_layers (--layers) must be in [2, 8]");
  if (p.max_radius > mode->max_radius)
    bad("max_radius (--max-radius) must be in [0, " + std::to_string(int(mode->max_radius)) + "] for dof_mode " +
        p.dof_mode + " (exact 12-bit box sums)");
  if (!(p.response_shoulder >= 0.f && p.response_shoulder <= 0.9f))
    bad("response_shoulder (--response-shoulder) must be in [0, 0.9]");
  if (!std::isfinite(p.blade_rotation)) bad("blade_rotation (--blade-rotation) must be finite");
  if (!(p.highlight_threshold >= 0.f && p.highlight_threshold <= 1.f))
    bad("highlight_threshold (--highlight-threshold) must be in [0, 1]");
  if (!(p.highlight_gain >= 1.f && p.highlight_gain <= 16.f)) bad("highlight_gain (--highlight-gain) must be in [1, 16]");
  if (p.highlight_cap < 1 || p.highlight_cap > (1 << 20)) bad("highlight_cap (--highlight-cap) must be in [1, 1048576]");
}

}  // namespace satlab
