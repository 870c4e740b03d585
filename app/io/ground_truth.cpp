#include "app/io/ground_truth.hpp"

#include <cmath>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/io/aperture_files.hpp"
#include "app/io/assets.hpp"
#include "core/aperture_image.hpp"
#include "core/error.hpp"

namespace satlab::io {
namespace {

std::string folder_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

std::vector<TruthCase> load_truth_cases(const std::string& manifest) {
  std::ifstream in(manifest, std::ios::binary);
  if (!in) throw Error(manifest + ": cannot open the ground-truth manifest");
  std::stringstream text;
  text << in.rdbuf();
  if (text.str().size() > (1 << 22)) throw Error(manifest + ": manifest larger than 4 MiB");
  nlohmann::json j;
  try {
    // Manifests are four levels deep (cases, a case, its crop); deeper nesting is refused early.
    j = nlohmann::json::parse(text.str(), [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
      if (depth > 6) throw Error("nested deeper than 6 levels");
      return true;
    });
  } catch (const nlohmann::json::exception& e) {
    // nlohmann's message is "[json.exception.parse_error.101] parse error at line 1, column 2: ...".
    const std::string msg = e.what();
    const auto close = msg.find("] ");
    throw Error(manifest + ": not a JSON manifest (" + (close == std::string::npos ? msg : msg.substr(close + 2)) +
                ")");
  } catch (const Error& e) {
    throw Error(manifest + ": " + e.what());
  }
  if (!j.is_object() || !j.contains("cases") || !j["cases"].is_array() || j["cases"].empty())
    throw Error(manifest + ": expected an object with a non-empty \"cases\" array");
  const std::string dir = folder_of(manifest);
  std::vector<TruthCase> cases;
  for (size_t i = 0; i < j["cases"].size(); ++i) {
    const nlohmann::json& c = j["cases"][i];
    const std::string where = manifest + ": case " + std::to_string(i);
    if (!c.is_object()) throw Error(where + ": not an object");
    auto text_of = [&](const char* key) {
      if (!c.contains(key) || !c[key].is_string() || c[key].get<std::string>().empty())
        throw Error(where + ": \"" + key + "\" must be a non-empty string");
      return c[key].get<std::string>();
    };
    auto number = [&](const char* key) {
      if (!c.contains(key) || !c[key].is_number()) throw Error(where + ": \"" + key + "\" must be a number");
      return c[key].get<double>();
    };
    auto path = [&](const char* key) {
      const std::string p = text_of(key);
      return p[0] == '/' ? p : dir + "/" + p;
    };
    TruthCase t;
    t.name = text_of("name");
    t.scene = c.contains("scene") && c["scene"].is_string() ? c["scene"].get<std::string>() : t.name;
    t.image = path("image");
    t.depth = path("depth");
    t.reference = path("reference");
    t.params.filter = FilterKind::Dof;
    t.params.focus = float(number("focus"));
    t.params.aperture = float(number("aperture"));
    t.params.max_radius = float(number("max_radius"));
    t.params.near_depth = float(number("near_depth"));
    t.params.far_depth = float(number("far_depth"));
    // The camera response the generator used (older manifests: plain sRGB).
    if (c.contains("response_shoulder")) t.params.response_shoulder = float(number("response_shoulder"));
    if (c.contains("anamorphic")) t.params.anamorphic = float(number("anamorphic"));
    if (c.contains("blade_rotation")) t.params.blade_rotation = float(number("blade_rotation"));
    if (c.contains("bokeh_profile")) t.params.bokeh_profile = float(number("bokeh_profile"));
    if (c.contains("catadioptric")) t.params.catadioptric = float(number("catadioptric"));
    if (c.contains("chromatic")) t.params.chromatic = float(number("chromatic"));
    if (c.contains("cat_eye")) t.params.cat_eye = float(number("cat_eye"));
    if (c.contains("cat_eye_scale")) t.params.cat_eye_scale = float(number("cat_eye_scale"));
    if (c.contains("aperture_image")) {  // a built-in's name, or a file beside the manifest
      const std::string a = text_of("aperture_image");
      try {
        t.params.aperture_image = use_aperture_image(is_builtin_aperture(a) ? a : path("aperture_image"));
      } catch (const Error& e) {
        throw Error(where + ": " + e.what());
      }
    }
    try {
      validate(t.params);
    } catch (const Error& e) {
      throw Error(where + " (" + t.name + "): " + e.what());
    }
    // The stereo right view (gen_scene --truth; older manifests: none).
    if (c.contains("right")) {
      t.right = path("right");
      t.disparity_scale = number("disparity_scale");
      if (!(t.disparity_scale > 0)) throw Error(where + ": \"disparity_scale\" must be > 0");
    }
    // Arrays of points {"x": X, "y": Y, ...} ("dots", "clicks"), each item handed to `take`.
    const auto points = [&](const char* key, const char* what, const auto& take) {
      if (!c.contains(key)) return;
      const nlohmann::json& k = c[key];
      if (!k.is_array()) throw Error(where + ": \"" + key + "\" must be an array");
      for (const nlohmann::json& q : k) {
        if (!q.is_object() || !q.contains("x") || !q.contains("y") || !q["x"].is_number() || !q["y"].is_number())
          throw Error(where + ": a " + what + " needs numbers \"x\" and \"y\"");
        take(q);
      }
    };
    points("dots", "dot", [&](const nlohmann::json& q) {
      t.dots.push_back({q["x"].get<double>(), q["y"].get<double>(), q.value("z", 0.0)});
    });
    points("clicks", "click", [&](const nlohmann::json& q) {  // as `depth select --subject X,Y`
      t.clicks.push_back({q["x"].get<float>(), q["y"].get<float>(), false});
    });
    if (c.contains("sequence")) {
      t.sequence = text_of("sequence");
      if (!c.contains("frame") || !c["frame"].is_number_integer() || c["frame"].get<long>() < 0 ||
          c["frame"].get<long>() > 1000000)
        throw Error(where + ": \"frame\" must be a frame number >= 0");
      t.frame = int(c["frame"].get<long>());
      t.fps = number("fps");
      if (!(t.fps > 0)) throw Error(where + ": \"fps\" must be > 0");
    }
    if (c.contains("objects")) t.objects = path("objects");
    if (c.contains("motion")) {
      const nlohmann::json& m = c["motion"];
      if (!m.is_array() || m.size() > 255) throw Error(where + ": \"motion\" must be an array of at most 255 objects");
      for (const nlohmann::json& o : m) {
        if (!o.is_object() || !o.contains("object") || !o["object"].is_number_integer() || !o.contains("dx") ||
            !o["dx"].is_number() || !o.contains("dy") || !o["dy"].is_number())
          throw Error(where + ": a motion needs an integer \"object\" and numbers \"dx\", \"dy\"");
        const long id = o["object"].get<long>();
        const double dx = o["dx"].get<double>(), dy = o["dy"].get<double>();
        if (id < 1 || id > 255 || !std::isfinite(dx) || !std::isfinite(dy) || std::fabs(dx) > 1e5 || std::fabs(dy) > 1e5)
          throw Error(where + ": a motion's object is 1..255 and its dx, dy finite pixels");
        t.motion.push_back({int(id), dx, dy});
      }
    }
    if (c.contains("crop")) {
      const nlohmann::json& r = c["crop"];
      auto side = [&](const char* key) {
        if (!r.is_object() || !r.contains(key) || !r[key].is_number_integer() || r[key].get<long>() < 0 ||
            r[key].get<long>() > 1 << 20)
          throw Error(where + ": crop \"" + key + "\" must be a non-negative integer");
        return int(r[key].get<long>());
      };
      t.crop.x = side("x"), t.crop.y = side("y"), t.crop.w = side("w"), t.crop.h = side("h");
      t.crop.label = r.contains("label") && r["label"].is_string() ? r["label"].get<std::string>() : "crop";
    }
    cases.push_back(std::move(t));
  }
  return cases;
}

std::string default_truth_cases() {
  return assets_dir() + "/ground_truth/cases.json";
}

}  // namespace satlab::io
