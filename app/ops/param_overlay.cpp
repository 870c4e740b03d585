#include "app/ops/param_overlay.hpp"

#include <algorithm>
#include <iterator>

#include "core/error.hpp"

namespace satlab {
namespace {

// Each option and the Params field it sets.
struct ParamOption {
  const char* option;
  void (*copy)(const Params& from, Params& to);
};
const ParamOption kParamOptions[] = {
    {"--filter", [](const Params& f, Params& t) { t.filter = f.filter; }},
    {"--radius", [](const Params& f, Params& t) { t.box_radius = f.box_radius; }},
    {"--focus", [](const Params& f, Params& t) { t.focus = f.focus; }},
    {"--focus-range",
     [](const Params& f, Params& t) {
       t.focus_range = f.focus_range, t.focus_range_far = f.focus_range_far;
       t.focus_ramp_near = f.focus_ramp_near, t.focus_ramp_far = f.focus_ramp_far;
     }},
    {"--aperture", [](const Params& f, Params& t) { t.aperture = f.aperture; }},
    {"--max-radius", [](const Params& f, Params& t) { t.max_radius = f.max_radius; }},
    {"--near", [](const Params& f, Params& t) { t.near_depth = f.near_depth; }},
    {"--far", [](const Params& f, Params& t) { t.far_depth = f.far_depth; }},
    {"--disparity", [](const Params& f, Params& t) { t.disparity = f.disparity; }},
    {"--fractional-radius", [](const Params& f, Params& t) { t.fractional_radius = f.fractional_radius; }},
    {"--dof-mode", [](const Params& f, Params& t) { t.dof_mode = f.dof_mode; }},
    {"--aperture-shape", [](const Params& f, Params& t) { t.aperture_shape = f.aperture_shape; }},
    {"--blades", [](const Params& f, Params& t) { t.blades = f.blades; }},
    {"--blade-rotation", [](const Params& f, Params& t) { t.blade_rotation = f.blade_rotation; }},
    {"--anamorphic", [](const Params& f, Params& t) { t.anamorphic = f.anamorphic; }},
    {"--bokeh-profile", [](const Params& f, Params& t) { t.bokeh_profile = f.bokeh_profile; }},
    {"--catadioptric", [](const Params& f, Params& t) { t.catadioptric = f.catadioptric; }},
    {"--aperture-image", [](const Params& f, Params& t) { t.aperture_image = f.aperture_image; }},
    {"--layers", [](const Params& f, Params& t) { t.dof_layers = f.dof_layers; }},
    {"--highlights", [](const Params& f, Params& t) { t.highlights = f.highlights; }},
    {"--highlight-threshold", [](const Params& f, Params& t) { t.highlight_threshold = f.highlight_threshold; }},
    {"--highlight-gain", [](const Params& f, Params& t) { t.highlight_gain = f.highlight_gain; }},
    {"--highlight-cap", [](const Params& f, Params& t) { t.highlight_cap = f.highlight_cap; }},
    {"--response-shoulder", [](const Params& f, Params& t) { t.response_shoulder = f.response_shoulder; }},
    {"--grain", [](const Params& f, Params& t) { t.grain = f.grain; }},
    {"--chromatic", [](const Params& f, Params& t) { t.chromatic = f.chromatic; }},
    {"--cat-eye", [](const Params& f, Params& t) { t.cat_eye = f.cat_eye, t.cat_eye_scale = f.cat_eye_scale; }},
};

const ParamOption* find_option(const std::string& name) {
  const auto it = std::find_if(std::begin(kParamOptions), std::end(kParamOptions),
                               [&](const ParamOption& o) { return name == o.option; });
  return it == std::end(kParamOptions) ? nullptr : &*it;
}

}  // namespace

const std::vector<std::string>& param_option_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const ParamOption& o : kParamOptions) n.push_back(o.option);
    return n;
  }();
  return names;
}

void ParamOverlay::give(const std::string& option) {
  if (!find_option(option)) throw Error("'" + option + "' is no filter parameter option");
  if (!has(option)) given.push_back(option);
}

bool ParamOverlay::has(const std::string& option) const {
  return std::find(given.begin(), given.end(), option) != given.end();
}

Params ParamOverlay::over(Params base) const {
  for (const std::string& name : given) find_option(name)->copy(values, base);
  return base;
}

void ParamOverlay::take_lens(const LensPreset& l) {
  ParamOverlay from;
  l.apply(from.values);
  for (const char* name : {"--aperture-shape", "--blades", "--blade-rotation", "--anamorphic", "--bokeh-profile",
                           "--catadioptric", "--aperture-image", "--cat-eye"})
    if (!has(name)) from.give(name), give(name);
  values = from.over(values);
}

}  // namespace satlab
