// Presets: every filter parameter (core Params), the synthetic depth and the view, as JSON:
//   {"satlab_preset": 1,
//    "params": {"filter": "dof", "box_radius": 4, "focus": 0.2, ...},
//    "synthetic_depth": "gradient:angle=90,pos=0.5,width=1",
//    "view": "result", "compare": "split:0.5", "compare_view": "input", "refine": "auto",
//    "selection": {"layout": "open", "clicks": [[x, y, 0], [x, y, 1]]}}   (1: a background click)
// Parsing is strict: an unknown field, a wrong type or an out-of-range value throws satlab::Error naming
// the field, and nothing is applied. Fields left out keep their defaults (Params{}, SyntheticDepth{}).
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/params.hpp"
#include "core/timeline.hpp"
#include "core/select.hpp"
#include "core/synthetic_depth.hpp"

namespace satlab::io {

struct Preset {
  Params params;
  SyntheticDepth synthetic;
  // The front end's view settings by name (view, compare mode such as "split:0.5", the compare's left
  // view); checked by the front end, which knows its views. Empty: unchanged.
  std::string view, compare, compare_view;
  // The depth refiner (core/refine.hpp): "auto", "none" or a refiner's name (checked). Empty: unchanged.
  std::string refine;
  // Subject select (core/select.hpp): the clicks in order and the layout ("" and none: no selection).
  std::vector<SelectClick> clicks;
  std::string layout;
  // Parameters over time for clips (core/timeline.hpp): "keys", as in a --keys file. Empty: none.
  std::vector<ParamKey> keys;
};

// The number of Params fields a preset reads and writes; a test compares it with the number of fields
// Params has less kPresetInternalFields, so a field added to Params without a preset entry fails the build's
// tests.
int preset_param_field_count();
// Params fields that are not the user's and that presets leave out: coc_offset (core/chromatic.hpp).
constexpr int kPresetInternalFields = 1;

Preset parse_preset(std::string_view json);  // throws satlab::Error naming the field
std::string preset_to_json(const Preset& preset);
Preset load_preset(const std::string& path);
// A keys file (`render --keys`): {"keys": [{"time": S, "focus": F | "focus_point": [X, Y], "aperture": A,
// "focus_range": T, "max_radius": R, "ease": "smooth" | "linear" | "hold"}, ...]}. Throws satlab::Error
// "PATH: reason" naming the key and field.
std::vector<ParamKey> parse_keys(const nlohmann::json& keys);
std::vector<ParamKey> load_keys(const std::string& path);                      // throws satlab::Error "PATH: reason"
void save_preset(const std::string& path, const Preset& preset);  // through a temporary file + rename

}  // namespace satlab::io
