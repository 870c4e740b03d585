#include "app/io/preset.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>

#include "core/error.hpp"

using satlab::Error;
using satlab::io::Preset;

namespace {

// The number of fields of an aggregate: the largest N for which T{any, ...N times} compiles.
struct AnyField {
  template <class T>
  operator T() const;  // never called: only used in unevaluated contexts
};
template <class T, class... A>
constexpr auto braces_ok(int) -> decltype(T{std::declval<A>()...}, true) {
  return true;
}
template <class T, class... A>
constexpr bool braces_ok(...) {
  return false;
}
template <class T, class... A>
constexpr int field_count() {
  if constexpr (braces_ok<T, A..., AnyField>(0))
    return field_count<T, A..., AnyField>();
  else
    return int(sizeof...(A));
}

// The message of the satlab::Error that parsing `json` throws, or a failure.
std::string error_of(const std::string& json) {
  try {
    satlab::io::parse_preset(json);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << json;
  return "";
}

// Parsing the preset {"satlab_preset": 1, FIELDS} fails with a message that contains `named`.
void expect_refused_naming(const std::string& fields, const std::string& named) {
  const std::string json = R"({"satlab_preset": 1, )" + fields + "}";
  const std::string msg = error_of(json);
  EXPECT_NE(msg.find(named), std::string::npos) << json << ": " << msg;
}

Preset unusual_preset() {
  Preset p;
  p.params.filter = satlab::FilterKind::Box;
  p.params.box_radius = 17;
  p.params.focus = 0.731f;
  p.params.focus_range = 0.125f;
  p.params.focus_range_far = 0.0625f;
  p.params.focus_ramp_near = 0.25f;
  p.params.focus_ramp_far = 0.375f;
  p.params.anamorphic = 0.5f;
  p.params.bokeh_profile = -0.375f;
  p.params.catadioptric = 0.25f;
  p.params.aperture_image = "heart";
  p.params.aperture = 123.25f;
  p.params.max_radius = 31.5f;
  p.params.near_depth = 0.3f;
  p.params.far_depth = 77.f;
  p.params.disparity = true;
  p.params.fractional_radius = true;
  p.params.dof_mode = "gather_linear";
  p.params.aperture_shape = satlab::ApertureShape::Polygon;
  p.params.blades = 7;
  p.params.blade_rotation = 12.5f;
  p.params.dof_layers = 3;
  p.params.highlights = true;
  p.params.highlight_threshold = 0.625f;
  p.params.highlight_gain = 7.5f;
  p.params.highlight_cap = 1234;
  p.params.response_shoulder = 0.375f;
  p.params.grain = 1.25f;
  p.params.chromatic = -0.0625f;
  p.params.cat_eye = 0.375f;
  p.params.cat_eye_scale = 1.5f;
  p.synthetic = satlab::parse_synthetic_depth("radial:x=0.2,y=0.9,radius=0.33");
  p.view = "coc";
  p.compare = "split:0.25";
  p.compare_view = "depth";
  p.refine = "snap";
  return p;
}

void expect_same(const Preset& a, const Preset& b) {
  EXPECT_EQ(a.params.filter, b.params.filter);
  EXPECT_EQ(a.params.box_radius, b.params.box_radius);
  EXPECT_EQ(a.params.focus, b.params.focus);
  EXPECT_EQ(a.params.focus_range, b.params.focus_range);
  EXPECT_EQ(a.params.focus_range_far, b.params.focus_range_far);
  EXPECT_EQ(a.params.focus_ramp_near, b.params.focus_ramp_near);
  EXPECT_EQ(a.params.focus_ramp_far, b.params.focus_ramp_far);
  EXPECT_EQ(a.params.anamorphic, b.params.anamorphic);
  EXPECT_EQ(a.params.bokeh_profile, b.params.bokeh_profile);
  EXPECT_EQ(a.params.catadioptric, b.params.catadioptric);
  EXPECT_EQ(a.params.aperture_image, b.params.aperture_image);
  EXPECT_EQ(a.params.grain, b.params.grain);
  EXPECT_EQ(a.params.chromatic, b.params.chromatic);
  EXPECT_EQ(a.params.cat_eye, b.params.cat_eye);
  EXPECT_EQ(a.params.cat_eye_scale, b.params.cat_eye_scale);
  EXPECT_EQ(a.params.aperture, b.params.aperture);
  EXPECT_EQ(a.params.max_radius, b.params.max_radius);
  EXPECT_EQ(a.params.near_depth, b.params.near_depth);
  EXPECT_EQ(a.params.far_depth, b.params.far_depth);
  EXPECT_EQ(a.params.disparity, b.params.disparity);
  EXPECT_EQ(a.params.fractional_radius, b.params.fractional_radius);
  EXPECT_EQ(a.params.dof_mode, b.params.dof_mode);
  EXPECT_EQ(a.params.aperture_shape, b.params.aperture_shape);
  EXPECT_EQ(a.params.blades, b.params.blades);
  EXPECT_EQ(a.params.blade_rotation, b.params.blade_rotation);
  EXPECT_EQ(a.params.dof_layers, b.params.dof_layers);
  EXPECT_EQ(a.params.highlights, b.params.highlights);
  EXPECT_EQ(a.params.highlight_threshold, b.params.highlight_threshold);
  EXPECT_EQ(a.params.highlight_gain, b.params.highlight_gain);
  EXPECT_EQ(a.params.highlight_cap, b.params.highlight_cap);
  EXPECT_EQ(a.params.response_shoulder, b.params.response_shoulder);
  EXPECT_EQ(satlab::to_spec(a.synthetic), satlab::to_spec(b.synthetic));
  EXPECT_EQ(a.view, b.view);
  EXPECT_EQ(a.compare, b.compare);
  EXPECT_EQ(a.compare_view, b.compare_view);
  EXPECT_EQ(a.refine, b.refine);
}

}  // namespace

TEST(Preset, CoversEveryFieldOfParams) {
  static_assert(std::is_aggregate_v<satlab::Params>, "Params must stay an aggregate for this count");
  EXPECT_EQ(satlab::io::preset_param_field_count() + satlab::io::kPresetInternalFields,
            field_count<satlab::Params>())
      << "core Params gained (or lost) a field: add it to the tables in app/io/preset.cpp, the round trip "
         "below and the preset section of the README";
}

TEST(Preset, RoundTripKeepsEveryValueExactly) {
  const Preset p = unusual_preset();
  const std::string json = satlab::io::preset_to_json(p);
  expect_same(satlab::io::parse_preset(json), p);
  // Every Params field is spelled out in the file.
  for (const char* name :
       {"filter",     "box_radius",          "focus",          "focus_range",    "aperture",
        "max_radius", "near_depth",          "far_depth",      "disparity",      "fractional_radius",
        "dof_mode",   "aperture_shape",      "blades",         "blade_rotation", "dof_layers",
        "highlights", "highlight_threshold", "highlight_gain", "highlight_cap",  "response_shoulder",
        "focus_range_far", "focus_ramp_near", "focus_ramp_far", "anamorphic", "bokeh_profile", "catadioptric", "chromatic", "cat_eye", "cat_eye_scale"})
    EXPECT_NE(json.find(std::string("\"") + name + "\""), std::string::npos) << name << " missing in\n"
                                                                             << json;
  EXPECT_NE(json.find("\"focus\": 0.731"), std::string::npos) << "floats written in their shortest form:\n"
                                                              << json;
}

TEST(Preset, RoundTripThroughAFile) {
  char dir[] = "/tmp/satlab_preset_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/p.json";
  satlab::io::save_preset(path, unusual_preset());
  expect_same(satlab::io::load_preset(path), unusual_preset());
  std::remove(path.c_str());
  rmdir(dir);
}

TEST(Preset, AnOlderPresetsFocusRangeIsTheSymmetricBand) {
  const Preset p = satlab::io::parse_preset(R"({"satlab_preset": 1, "params": {"focus": 0.5, "focus_range": 0.2}})");
  EXPECT_EQ(p.params.focus_range, 0.2f);
  EXPECT_EQ(p.params.focus_range_far, 0.2f);
  EXPECT_EQ(p.params.focus_ramp_near, 0.f);
  EXPECT_EQ(p.params.focus_ramp_far, 0.f);
}

TEST(Preset, MissingFieldsKeepTheirDefaults) {
  const Preset p = satlab::io::parse_preset(R"({"satlab_preset": 1, "params": {"focus": 0.5}})");
  EXPECT_EQ(p.params.focus, 0.5f);
  EXPECT_EQ(p.params.aperture, satlab::Params{}.aperture);
  EXPECT_EQ(p.synthetic.mode, satlab::SyntheticDepth{}.mode);
  EXPECT_TRUE(p.view.empty());
}

TEST(Preset, UnknownFieldsAreNamed) {
  expect_refused_naming(R"("colour": 3)", "'colour': unknown field");
  expect_refused_naming(R"("params": {"focal": 0.5})", "'params.focal': unknown field");
}

TEST(Preset, WrongTypesAreNamed) {
  expect_refused_naming(R"("params": {"focus": "near"})", "'params.focus': expected a number");
  expect_refused_naming(R"("params": {"box_radius": 2.5})", "'params.box_radius'");
  expect_refused_naming(R"("params": {"disparity": 1})", "'params.disparity'");
  expect_refused_naming(R"("params": {"filter": 0})", "'params.filter'");
  expect_refused_naming(R"("params": [1, 2])", "'params'");
  expect_refused_naming(R"("view": 2)", "'view'");
  expect_refused_naming(R"("compare": true)", "'compare'");
  expect_refused_naming(R"("compare_view": [1])", "'compare_view'");
  expect_refused_naming(R"("synthetic_depth": {})", "'synthetic_depth'");
}

TEST(Preset, OutOfRangeValuesAreNamed) {
  expect_refused_naming(R"("params": {"focus": 1.5})", "'params.focus'");
  expect_refused_naming(R"("params": {"focus_range": 1.5})", "'params.focus_range'");
  expect_refused_naming(R"("params": {"focus_ramp_far": 1.5})", "'params.focus_ramp_far'");
  expect_refused_naming(R"("params": {"anamorphic": 5})", "'params.anamorphic'");
  expect_refused_naming(R"("params": {"focus_range": -0.1})", "'params.focus_range'");
  expect_refused_naming(R"("refine": "sharpest")", "'refine': unknown refiner");
  expect_refused_naming(R"("params": {"box_radius": -1})", "'params.box_radius'");
  expect_refused_naming(R"("params": {"box_radius": 99999999999})", "'params.box_radius'");
  expect_refused_naming(R"("params": {"aperture": 1e300})", "'params.aperture'");
  expect_refused_naming(R"("params": {"near_depth": 5, "far_depth": 2})", "far_depth");
  expect_refused_naming(R"("params": {"filter": "gauss"})", "gauss");
  expect_refused_naming(R"("synthetic_depth": "radial:radius=0")", "radius");
}

TEST(Preset, NotAPresetIsRefusedInOneLine) {
  for (const std::string& text : {std::string(""), std::string("{"), std::string("[1]"), std::string("{} x"),
                                  std::string(R"({"params": {}})"), std::string(R"({"satlab_preset": 2})"),
                                  std::string("[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]")}) {
    const std::string msg = error_of(text);
    EXPECT_FALSE(msg.empty()) << text;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(Preset, MissingOrUnreadableFileNamesThePath) {
  try {
    satlab::io::load_preset("/nonexistent/p.json");
    FAIL() << "missing preset loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/p.json"), std::string::npos) << e.what();
  }
}

TEST(Preset, TheReadmeExampleParses) {
  std::ifstream f(SATLAB_SOURCE_DIR "/README.md");
  ASSERT_TRUE(f) << "README.md not found under " << SATLAB_SOURCE_DIR;
  std::stringstream text;
  text << f.rdbuf();
  const std::string readme = text.str();
  const size_t start = readme.find("```json\n{\"satlab_preset\"");
  ASSERT_NE(start, std::string::npos) << "the README has no preset example";
  const size_t body = readme.find('\n', start) + 1, end = readme.find("```", body);
  const Preset p = satlab::io::parse_preset(readme.substr(body, end - body));
  EXPECT_EQ(p.params.focus, 0.27f);
  EXPECT_EQ(p.view, "result");
}

TEST(Preset, ASelectionRoundTripsInOrderAndBadClicksAreNamed) {
  satlab::io::Preset a;
  a.clicks = {{12.5f, 40.f, false}, {3.f, 4.f, true}, {100.f, 7.25f, false}};
  a.layout = "floor";
  const Preset b = satlab::io::parse_preset(satlab::io::preset_to_json(a));
  ASSERT_EQ(b.clicks.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(b.clicks[i].x, a.clicks[i].x);
    EXPECT_EQ(b.clicks[i].y, a.clicks[i].y);
    EXPECT_EQ(b.clicks[i].background, a.clicks[i].background);
  }
  EXPECT_EQ(b.layout, "floor");
  const std::string head = R"({"satlab_preset": 1, "selection": )";
  for (const char* bad : {R"({"clicks": [[1, 2]]})", R"({"clicks": [[1, 2, 3]]})", R"({"clicks": [[-1, 2, 0]]})",
                          R"({"layout": "sideways"})", R"({"clicks": 5})", R"({"bogus": 1})"}) {
    try {
      satlab::io::parse_preset(head + bad + "}");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const satlab::Error& e) {
      EXPECT_NE(std::string(e.what()).find("selection"), std::string::npos) << e.what();
    }
  }
}
