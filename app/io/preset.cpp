#include "app/io/preset.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/io/aperture_files.hpp"
#include "app/io/image_io.hpp"
#include "core/error.hpp"
#include "core/refine.hpp"

namespace satlab::io {
namespace {

using nlohmann::json;
constexpr int kVersion = 1;

// One table of Params fields by type: the reader, the writer and the field count all iterate it.
template <class T>
struct Field {
  const char* name;
  T Params::*member;
};
constexpr Field<float> kFloatFields[] = {{"focus", &Params::focus},
                                         {"focus_range", &Params::focus_range},
                                         {"focus_range_far", &Params::focus_range_far},
                                         {"focus_ramp_near", &Params::focus_ramp_near},
                                         {"focus_ramp_far", &Params::focus_ramp_far},
                                         {"aperture", &Params::aperture},
                                         {"max_radius", &Params::max_radius},
                                         {"near_depth", &Params::near_depth},
                                         {"far_depth", &Params::far_depth},
                                         {"blade_rotation", &Params::blade_rotation},
                                         {"anamorphic", &Params::anamorphic},
                                         {"bokeh_profile", &Params::bokeh_profile},
                                         {"catadioptric", &Params::catadioptric},
                                         {"highlight_threshold", &Params::highlight_threshold},
                                         {"highlight_gain", &Params::highlight_gain},
                                         {"response_shoulder", &Params::response_shoulder},
                                         {"grain", &Params::grain},
                                         {"chromatic", &Params::chromatic},
                                         {"cat_eye", &Params::cat_eye},
                                         {"cat_eye_scale", &Params::cat_eye_scale}};
constexpr Field<int> kIntFields[] = {
    {"box_radius", &Params::box_radius}, {"blades", &Params::blades}, {"dof_layers", &Params::dof_layers},
    {"highlight_cap", &Params::highlight_cap}};
constexpr Field<bool> kBoolFields[] = {{"disparity", &Params::disparity},
                                       {"fractional_radius", &Params::fractional_radius},
                                       {"highlights", &Params::highlights}};
// Fields written as names: how each reads and writes its text (a bad name throws satlab::Error).
struct TextField {
  const char* name;
  std::string (*get)(const Params&);
  void (*set)(Params&, const std::string&);
};
const TextField kTextFields[] = {
    {"filter", [](const Params& p) { return std::string(to_string(p.filter)); },
     [](Params& p, const std::string& v) { p.filter = filter_from_string(v); }},
    {"dof_mode", [](const Params& p) { return p.dof_mode; }, [](Params& p, const std::string& v) { p.dof_mode = v; }},
    {"aperture_shape", [](const Params& p) { return std::string(to_string(p.aperture_shape)); },
     [](Params& p, const std::string& v) { p.aperture_shape = aperture_from_string(v); }},
    {"aperture_image", [](const Params& p) { return p.aperture_image; },
     [](Params& p, const std::string& v) { p.aperture_image = use_aperture_image(v); }},
};

[[noreturn]] void bad(const std::string& field, const std::string& why) {
  throw Error("preset field '" + field + "': " + why);
}

std::string type_name(const json& v) {
  return v.type_name();
}

float read_float(const json& v, const std::string& field) {
  if (!v.is_number()) bad(field, "expected a number, got " + type_name(v));
  const double d = v.get<double>();
  if (!std::isfinite(d) || std::fabs(d) > double(std::numeric_limits<float>::max()))
    bad(field, "number out of range");
  return float(d);
}

int read_int(const json& v, const std::string& field) {
  if (!v.is_number_integer()) bad(field, "expected an integer, got " + type_name(v));
  if (v.is_number_unsigned() ? v.get<uint64_t>() > uint64_t(std::numeric_limits<int>::max())
                             : (v.get<int64_t>() < std::numeric_limits<int>::min() ||
                                v.get<int64_t>() > std::numeric_limits<int>::max()))
    bad(field, "integer out of range");
  return int(v.get<int64_t>());
}

std::string read_string(const json& v, const std::string& field) {
  if (!v.is_string()) bad(field, "expected a string, got " + type_name(v));
  return v.get<std::string>();
}

Params read_params(const json& j) {
  if (!j.is_object()) bad("params", "expected an object, got " + type_name(j));
  Params p;
  for (const auto& [key, v] : j.items()) {
    const std::string field = "params." + key;
    bool known = false;
    for (const auto& f : kFloatFields)
      if (key == f.name) p.*(f.member) = read_float(v, field), known = true;
    for (const auto& f : kIntFields)
      if (key == f.name) p.*(f.member) = read_int(v, field), known = true;
    for (const auto& f : kBoolFields)
      if (key == f.name) {
        if (!v.is_boolean()) bad(field, "expected true or false, got " + type_name(v));
        p.*(f.member) = v.get<bool>(), known = true;
      }
    for (const auto& f : kTextFields)
      if (key == f.name) {
        const std::string name = read_string(v, field);
        try {
          f.set(p, name);
        } catch (const Error& e) {
          bad(field, e.what());
        }
        known = true;
      }
    if (!known) bad(field, "unknown field");
  }
  // A preset from before the four-edged range holds its +-t as focus_range alone.
  if (j.contains("focus_range") && !j.contains("focus_range_far")) p.focus_range_far = p.focus_range;
  try {
    validate(p);
  } catch (const Error& e) {  // "parameter out of range: focus (--focus) must be in [0, 1]": name the field
    const std::string msg = e.what();  // the field the message names first ("far_depth ... > near_depth")
    std::string field;
    size_t at = std::string::npos;
    auto consider = [&](const char* name) {
      const size_t i = msg.find(name);  // at one place, the longer name ("focus_range", not "focus")
      if (i < at || (i == at && i != std::string::npos && field.size() < std::strlen(name)))
        at = i, field = name;
    };
    for (const auto& f : kFloatFields) consider(f.name);
    for (const auto& f : kIntFields) consider(f.name);
    for (const auto& f : kTextFields) consider(f.name);
    bad(field.empty() ? std::string("params") : "params." + field, msg);
  }
  return p;
}

// The double with the fewest digits that reads back as exactly v: 0.2f is written 0.2, not 0.200000003.
double shortest(float v) {
  char buf[32];
  for (int digits = 6; digits < 9; ++digits) {
    std::snprintf(buf, sizeof(buf), "%.*g", digits, double(v));
    if (std::strtof(buf, nullptr) == v) return std::strtod(buf, nullptr);
  }
  return double(v);
}

}  // namespace

int preset_param_field_count() {
  return int(std::size(kFloatFields) + std::size(kIntFields) + std::size(kBoolFields) +
             std::size(kTextFields));
}

Preset parse_preset(std::string_view text) {
  json j;
  try {
    // Presets are two levels deep; refusing deeper nesting early bounds the parser's work on garbage.
    j = json::parse(text.begin(), text.end(), [](int depth, json::parse_event_t, json&) {
      if (depth > 4) throw Error("preset is nested deeper than 4 levels");
      return true;
    });
  } catch (const json::exception& e) {
    // nlohmann's message is "[json.exception.parse_error.101] parse error at line 1, column 2: ...".
    std::string msg = e.what();
    const auto close = msg.find("] ");
    throw Error("preset is not valid JSON: " + (close == std::string::npos ? msg : msg.substr(close + 2)));
  }
  if (!j.is_object()) throw Error("preset is not a JSON object (got " + type_name(j) + ")");
  Preset preset;
  bool versioned = false;
  for (const auto& [key, v] : j.items()) {
    if (key == "satlab_preset") {
      if (!v.is_number_integer() || v.get<int64_t>() != kVersion)
        bad(key, "unsupported preset version " + v.dump() + " (this satlab reads version " +
                     std::to_string(kVersion) + ")");
      versioned = true;
    } else if (key == "params") {
      preset.params = read_params(v);
    } else if (key == "synthetic_depth") {
      const std::string spec = read_string(v, key);
      try {
        preset.synthetic = parse_synthetic_depth(spec);
      } catch (const Error& e) {
        bad(key, e.what());
      }
    } else if (key == "view") {
      preset.view = read_string(v, key);
    } else if (key == "compare") {
      preset.compare = read_string(v, key);
    } else if (key == "compare_view") {
      preset.compare_view = read_string(v, key);
    } else if (key == "refine") {
      preset.refine = read_string(v, key);
      if (preset.refine != "auto" && !find_refiner(preset.refine))
        bad(key, "unknown refiner '" + preset.refine + "' (expected auto, " + refiner_list() + ")");
    } else if (key == "selection") {
      if (!v.is_object()) bad(key, "not an object (layout, clicks)");
      for (const auto& [k, f] : v.items()) {
        if (k == "layout") {
          preset.layout = read_string(f, "selection.layout");
          try {
            parse_subject_layout(preset.layout);
          } catch (const Error& e) {
            bad("selection.layout", e.what());
          }
        } else if (k == "clicks") {
          if (!f.is_array() || f.size() > 1024) bad("selection.clicks", "not an array of at most 1024 [x, y, 0|1]");
          for (const auto& c : f) {
            if (!c.is_array() || c.size() != 3 || !c[0].is_number() || !c[1].is_number() ||
                !(c[2] == 0 || c[2] == 1))
              bad("selection.clicks", "each click is [x, y, 0|1] (1: background), got " + c.dump());
            const float x = c[0].get<float>(), y = c[1].get<float>();
            if (!std::isfinite(x) || !std::isfinite(y) || x < 0 || y < 0)
              bad("selection.clicks", "a click's position is not a finite non-negative pixel: " + c.dump());
            preset.clicks.push_back({x, y, c[2] == 1});
          }
        } else {
          bad("selection." + k, "unknown field");
        }
      }
      if (preset.layout.empty()) preset.layout = "open";
    } else if (key == "keys") {
      preset.keys = parse_keys(v);
    } else {
      bad(key, "unknown field");
    }
  }
  if (!versioned)
    throw Error("not a satlab preset (no \"satlab_preset\": " + std::to_string(kVersion) + " field)");
  return preset;
}

std::string preset_to_json(const Preset& preset) {
  json params = json::object();
  const Params& p = preset.params;
  for (const auto& f : kTextFields) params[f.name] = f.get(p);
  for (const auto& f : kIntFields) params[f.name] = p.*(f.member);
  for (const auto& f : kFloatFields) params[f.name] = shortest(p.*(f.member));
  for (const auto& f : kBoolFields) params[f.name] = p.*(f.member);
  json j = {{"satlab_preset", kVersion}, {"params", params}, {"synthetic_depth", to_spec(preset.synthetic)}};
  if (!preset.view.empty()) j["view"] = preset.view;
  if (!preset.compare.empty()) j["compare"] = preset.compare;
  if (!preset.compare_view.empty()) j["compare_view"] = preset.compare_view;
  if (!preset.refine.empty()) j["refine"] = preset.refine;
  if (!preset.clicks.empty()) {
    json clicks = json::array();
    for (const SelectClick& c : preset.clicks) clicks.push_back({shortest(c.x), shortest(c.y), c.background ? 1 : 0});
    j["selection"] = {{"layout", preset.layout.empty() ? "open" : preset.layout}, {"clicks", clicks}};
  }
  if (!preset.keys.empty()) {
    json keys = json::array();
    for (const ParamKey& k : preset.keys) {
      json o = {{"time", k.time}, {"ease", to_string(k.ease)}};
      if (k.focus == k.focus) o["focus"] = shortest(k.focus);
      if (k.point_x >= 0.f) o["focus_point"] = {shortest(k.point_x), shortest(k.point_y)};
      if (k.aperture == k.aperture) o["aperture"] = shortest(k.aperture);
      if (k.focus_range == k.focus_range) o["focus_range"] = shortest(k.focus_range);
      if (k.max_radius == k.max_radius) o["max_radius"] = shortest(k.max_radius);
      if (k.sets_synthetic()) {
        json d = json::object();
        for (int f = 0; f < ParamKey::kSyntheticFields; ++f)
          if (k.synthetic[f] == k.synthetic[f]) d[ParamKey::kSyntheticNames[f]] = shortest(k.synthetic[f]);
        o["synthetic"] = d;
      }
      keys.push_back(o);
    }
    j["keys"] = keys;
  }
  return j.dump(2) + "\n";
}

std::vector<ParamKey> parse_keys(const json& v) {
  if (!v.is_array() || v.empty() || v.size() > 100000) bad("keys", "not an array of 1 to 100000 keys");
  std::vector<ParamKey> keys;
  for (size_t i = 0; i < v.size(); ++i) {
    const json& o = v[i];
    const std::string where = "keys[" + std::to_string(i) + "]";
    if (!o.is_object()) bad(where, "not an object (time, focus or focus_point, aperture, focus_range, max_radius, ease)");
    ParamKey k;
    bool has_time = false, sets = false;
    for (const auto& item : o.items()) {
      const std::string& f = item.key();  // not a structured binding: a lambda below captures them (C++17)
      const json& x = item.value();
      auto number = [&]() {
        if (!x.is_number() || !std::isfinite(x.get<double>())) bad(where + "." + f, "not a finite number: " + x.dump());
        sets = sets || f != "time";
        return x.get<double>();
      };
      if (f == "time") k.time = number(), has_time = true;
      else if (f == "focus") k.focus = float(number());
      else if (f == "aperture") k.aperture = float(number());
      else if (f == "focus_range") k.focus_range = float(number());
      else if (f == "max_radius") k.max_radius = float(number());
      else if (f == "focus_point") {
        if (!x.is_array() || x.size() != 2 || !x[0].is_number() || !x[1].is_number())
          bad(where + ".focus_point", "not [x, y] (fractions of the frame's width and height)");
        k.point_x = x[0].get<float>(), k.point_y = x[1].get<float>(), sets = true;
        if (!(k.point_x >= 0.f)) bad(where + ".focus_point", "x must be in [0,1]");
      } else if (f == "synthetic") {  // the synthetic depth's fields: {"position": 0.3, "angle": 90, ...}
        if (!x.is_object() || x.empty()) bad(where + ".synthetic", "not an object of angle, position, width, x, y, radius");
        for (const auto& [g, y] : x.items()) {
          int i = 0;
          while (i < ParamKey::kSyntheticFields && g != ParamKey::kSyntheticNames[i]) ++i;
          if (i == ParamKey::kSyntheticFields) bad(where + ".synthetic." + g, "unknown field (angle, position, width, x, y, radius)");
          if (!y.is_number() || !std::isfinite(y.get<double>())) bad(where + ".synthetic." + g, "not a finite number: " + y.dump());
          k.synthetic[i] = y.get<float>();
        }
        sets = true;
      } else if (f == "ease") {
        try {
          k.ease = parse_ease(read_string(x, where + ".ease"));
        } catch (const Error& e) {
          bad(where + ".ease", e.what());
        }
      } else {
        bad(where + "." + f, "unknown field (time, focus, focus_point, aperture, focus_range, max_radius, synthetic, ease)");
      }
    }
    if (!has_time) bad(where, "no \"time\" (seconds)");
    if (!sets) bad(where, "sets nothing (focus, focus_point, aperture, focus_range, max_radius or synthetic)");
    keys.push_back(k);
  }
  try {
    return Timeline(keys).keys();  // checked and sorted
  } catch (const Error& e) {
    bad("keys", e.what());
  }
  return keys;
}

std::vector<ParamKey> load_keys(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(path + ": cannot open the keys file");
  std::ostringstream text;
  text << f.rdbuf();
  if (text.str().size() > (16 << 20)) throw Error(path + ": keys file larger than 16 MiB");
  try {
    json j = json::parse(text.str(), nullptr, true);
    if (!j.is_object() || !j.contains("keys")) throw Error("expected {\"keys\": [...]}");
    for (const auto& [k, v] : j.items())
      if (k != "keys") throw Error("unknown field \"" + k + "\" (expected only \"keys\")");
    return parse_keys(j["keys"]);
  } catch (const json::exception& e) {
    std::string msg = e.what();
    const auto close = msg.find("] ");
    throw Error(path + ": not valid JSON: " + (close == std::string::npos ? msg : msg.substr(close + 2)));
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

Preset load_preset(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(path + ": cannot open preset");
  std::ostringstream text;
  text << f.rdbuf();
  if (text.str().size() > (1 << 20)) throw Error(path + ": preset larger than 1 MiB");
  try {
    return parse_preset(text.str());
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

void save_preset(const std::string& path, const Preset& preset) {
  save_text(path, preset_to_json(preset));
}

}  // namespace satlab::io
