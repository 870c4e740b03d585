#include "core/params.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "core/aperture_image.hpp"
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

const std::vector<LensPreset>& lens_presets() {
  static const std::vector<LensPreset> presets = {
      {"modern-prime", "a round iris: round bokeh everywhere", ApertureShape::Disc, 6, 0.f, 1.f, 0.f, 0.f},
      {"hexagon", "six straight blades stopped down", ApertureShape::Polygon, 6, 0.f, 1.f, 0.f, 0.f},
      {"pentagon", "five straight blades, a point up", ApertureShape::Polygon, 5, 0.f, 1.f, 0.f, 0.f},
      {"anamorphic", "a 2x anamorphic lens: tall oval bokeh", ApertureShape::Disc, 6, 0.f, 0.5f, 0.f, 0.f},
      {"anamorphic-wide", "a 1.33x squeeze: slightly tall ovals", ApertureShape::Disc, 6, 0.f, 0.75f, 0.f, 0.f},
      {"tilted-oval", "a wide oval turned by 30 degrees", ApertureShape::Disc, 6, 30.f, 1.6f, 0.f, 0.f},
      {"soap-bubble", "bright-rimmed discs (spread)", ApertureShape::Disc, 6, 0.f, 1.f, 1.f, 0.f},
      {"soft-focus", "discs bright in the middle, soft at the rim (spread)", ApertureShape::Disc, 6, 0.f, 1.f, -1.f, 0.f},
      {"mirror-lens", "a catadioptric lens: ring bokeh (spread)", ApertureShape::Disc, 6, 0.f, 1.f, 0.f, 0.45f},
      {"star-card", "a star cut into a card before the lens (spread)", ApertureShape::Disc, 6, 0.f, 1.f, 0.f, 0.f,
       "star"},
      {"heart-card", "a heart cut into a card before the lens (spread)", ApertureShape::Disc, 6, 0.f, 1.f, 0.f,
       0.f, "heart"},
      {"vintage-blades", "five rounded iris blades (spread)", ApertureShape::Disc, 6, 0.f, 1.f, 0.f, 0.f,
       "blades5"},
      {"vintage-swirl", "cat's-eye bokeh toward the corners, a swirl (spread)", ApertureShape::Disc, 6, 0.f, 1.f,
       0.f, 0.f, "", 0.6f},
  };
  return presets;
}

const LensPreset* find_lens_preset(const std::string& name) {
  for (const LensPreset& l : lens_presets())
    if (name == l.name) return &l;
  return nullptr;
}

std::string lens_preset_list() {
  std::string s;
  for (const LensPreset& l : lens_presets()) s += (s.empty() ? "" : ", ") + std::string(l.name);
  return s;
}

bool uses_aperture_profile(const Params& p) {
  return p.bokeh_profile != 0.f || p.catadioptric != 0.f;
}

void set_focus_range(Params& p, float t) {
  p.focus_range = p.focus_range_far = t;
  p.focus_ramp_near = p.focus_ramp_far = 0.f;
}

FocusRange focus_range_of(const Params& p) {
  const float ni = p.focus - p.focus_range, fi = p.focus + p.focus_range_far;
  return {ni - p.focus_ramp_near, ni, fi, fi + p.focus_ramp_far};
}

void set_focus_range(Params& p, const FocusRange& r) {
  const float v[5] = {r.near_outer, r.near_inner, p.focus, r.far_inner, r.far_outer};
  for (int i = 0; i < 5; ++i)
    if (!std::isfinite(v[i]) || (i > 0 && v[i] < v[i - 1])) {
      char msg[200];
      std::snprintf(msg, sizeof msg,
                    "the focus range must be in order near outer <= near inner <= focus <= far inner <= far "
                    "outer (got %g, %g, focus %g, %g, %g)",
                    double(v[0]), double(v[1]), double(v[2]), double(v[3]), double(v[4]));
      throw Error(msg);
    }
  p.focus_range = p.focus - r.near_inner, p.focus_range_far = r.far_inner - p.focus;
  p.focus_ramp_near = r.near_inner - r.near_outer, p.focus_ramp_far = r.far_outer - r.far_inner;
}

namespace {

// The comma-separated finite numbers of s; `bad` (the form expected) for anything else.
std::vector<float> parse_numbers(const std::string& s, const std::string& bad) {
  std::vector<float> v;
  size_t at = 0;
  while (at <= s.size()) {
    const size_t end = std::min(s.find(',', at), s.size());
    const std::string part = s.substr(at, end - at);
    char* stop = nullptr;
    const float x = std::strtof(part.c_str(), &stop);
    if (part.empty() || *stop != '\0' || !std::isfinite(x)) throw Error(bad);
    v.push_back(x);
    at = end + 1;
  }
  return v;
}

}  // namespace

void parse_cat_eye(const std::string& s, Params& p) {
  const std::string bad = "--cat-eye: '" + s + "' is not AMOUNT or AMOUNT,SCALE";
  const std::vector<float> v = parse_numbers(s, bad);
  if (v.size() > 2) throw Error(bad);
  p.cat_eye = v[0], p.cat_eye_scale = v.size() > 1 ? v[1] : 1.f;
}

FocusRange parse_focus_range(const std::string& s, float focus) {
  const std::vector<float> v =
      parse_numbers(s, "--focus-range: '" + s + "' is not T or NO,NI,FI,FO (normalised depths)");
  if (v.size() == 1) {
    if (!(v[0] >= 0.f && v[0] <= 1.f)) throw Error("--focus-range: T must be in [0, 1]");
    return {focus - v[0], focus - v[0], focus + v[0], focus + v[0]};
  }
  if (v.size() != 4) throw Error("--focus-range: '" + s + "' is not T or NO,NI,FI,FO (normalised depths)");
  return {v[0], v[1], v[2], v[3]};
}

void validate(const Params& p) {
  auto bad = [](const std::string& what) { throw Error("parameter out of range: " + what); };
  if (p.box_radius < 0 || p.box_radius > 2047) bad("box_radius (--radius) must be in [0, 2047]");
  if (!(p.focus >= 0.f && p.focus <= 1.f)) bad("focus (--focus) must be in [0, 1]");
  const std::pair<float, const char*> widths[] = {{p.focus_range, "focus_range"},
                                                   {p.focus_range_far, "focus_range_far"},
                                                   {p.focus_ramp_near, "focus_ramp_near"},
                                                   {p.focus_ramp_far, "focus_ramp_far"}};
  for (const auto& w : widths)
    if (!(w.first >= 0.f && w.first <= 1.f)) bad(std::string(w.second) + " (--focus-range) must be in [0, 1]");
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
  if (!(p.anamorphic >= 0.25f && p.anamorphic <= 4.f)) bad("anamorphic (--anamorphic) must be in [0.25, 4]");
  if (!(p.bokeh_profile >= -1.f && p.bokeh_profile <= 1.f)) bad("bokeh_profile (--bokeh-profile) must be in [-1, 1]");
  if (!(p.catadioptric >= 0.f && p.catadioptric <= 0.8f)) bad("catadioptric (--catadioptric) must be in [0, 0.8]");
  if (!p.aperture_image.empty() && !find_aperture_image(p.aperture_image))
    bad("aperture_image (--aperture-image) '" + p.aperture_image + "' is neither a built-in (" +
        builtin_aperture_list() + ") nor a loaded picture");
  if (p.filter == FilterKind::Dof && !p.aperture_image.empty() && !mode->profile) {
    std::string can;
    for (const DofMode& m : dof_modes())
      if (m.profile) can += (can.empty() ? "" : ", ") + std::string(m.name);
    throw Error("--aperture-image needs a dof mode that draws aperture images (" + can + "), not " + p.dof_mode +
                ": a gather mode's boxes cannot carry a picture");
  }
  if (p.filter == FilterKind::Dof && uses_aperture_profile(p) && !mode->profile) {
    std::string can;
    for (const DofMode& m : dof_modes())
      if (m.profile) can += (can.empty() ? "" : ", ") + std::string(m.name);
    throw Error(std::string(p.bokeh_profile != 0.f ? "--bokeh-profile" : "--catadioptric") +
                " needs a dof mode that carries aperture profiles (" + can + "), not " + p.dof_mode);
  }
  if (!(p.highlight_threshold >= 0.f && p.highlight_threshold <= 1.f))
    bad("highlight_threshold (--highlight-threshold) must be in [0, 1]");
  if (!(p.highlight_gain >= 1.f && p.highlight_gain <= 16.f)) bad("highlight_gain (--highlight-gain) must be in [1, 16]");
  if (p.highlight_cap < 1 || p.highlight_cap > (1 << 20)) bad("highlight_cap (--highlight-cap) must be in [1, 1048576]");
  if (!(p.grain >= 0.f && p.grain <= 4.f)) bad("grain (--grain) must be in [0, 4]");
  if (!(p.chromatic >= -0.5f && p.chromatic <= 0.5f)) bad("chromatic (--chromatic) must be in [-0.5, 0.5]");
  if (!(p.cat_eye >= 0.f && p.cat_eye <= 0.8f)) bad("cat_eye (--cat-eye AMOUNT) must be in [0, 0.8]");
  if (!(p.cat_eye_scale >= 1.f && p.cat_eye_scale <= 2.f)) bad("cat_eye_scale (--cat-eye AMOUNT,SCALE) must be in [1, 2]");
  if (p.filter == FilterKind::Dof && p.cat_eye > 0.f) {
    if (!mode->profile)
      throw Error("--cat-eye needs the spread dof mode, not " + p.dof_mode +
                  ": a gather mode's boxes are the same at every point of the frame");
    if (uses_aperture_profile(p) || !p.aperture_image.empty())
      throw Error("--cat-eye takes no --bokeh-profile, --catadioptric or --aperture-image (not built together)");
  }
  if (!std::isfinite(p.coc_offset)) bad("coc_offset must be finite");
}

}  // namespace satlab
