// Parameters over time (core/timeline.hpp) and their JSON (app/io/preset.hpp): values exact at the keys,
// monotone between two keys, held outside them; focus points read from the frame's depth; easing; the
// keys file and the preset's "keys" refuse what is malformed with one line.
#include "core/timeline.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "app/io/preset.hpp"
#include "core/error.hpp"

namespace satlab {
namespace {

ParamKey key(double t, float focus, float aperture = __builtin_nanf(""), Ease e = Ease::Smooth) {
  ParamKey k;
  k.time = t, k.focus = focus, k.aperture = aperture, k.ease = e;
  return k;
}

TEST(Timeline, ValuesAreExactAtKeysMonotoneBetweenAndHeldOutside) {
  const Timeline tl({key(2.0, 0.8f), key(0.5, 0.1f, 20.f), key(4.0, 0.3f, 60.f, Ease::Linear)});
  const Params base;
  EXPECT_EQ(tl.at(base, 0.5).focus, 0.1f);
  EXPECT_EQ(tl.at(base, 2.0).focus, 0.8f);
  EXPECT_EQ(tl.at(base, 4.0).focus, 0.3f);
  EXPECT_EQ(tl.at(base, 0.0).focus, 0.1f);  // held before the first key
  EXPECT_EQ(tl.at(base, 9.0).focus, 0.3f);  // and after the last
  EXPECT_FLOAT_EQ(tl.at(base, 1.0).aperture, 20.f + (60.f - 20.f) * float(0.5 / 3.5));  // linear: aperture keyed at 0.5 and 4
  float last = 0.1f;
  for (int i = 50; i <= 200; ++i) {  // rising, smoothly
    const float f = tl.at(base, i / 100.0).focus;
    EXPECT_GE(f, last) << i;
    last = f;
  }
  for (int i = 200; i <= 400; ++i) {  // falling
    const float f = tl.at(base, i / 100.0).focus;
    EXPECT_LE(f, last) << i;
    last = f;
  }
  // Smooth starts and ends slowly: a quarter of the way the focus has moved less than a quarter.
  EXPECT_LT(tl.at(base, 0.875).focus - 0.1f, 0.25f * 0.7f);
  EXPECT_EQ(tl.at(base, 1.0).max_radius, base.max_radius);  // never keyed: the base's
}

TEST(Timeline, HoldStepsAtTheLaterKey) {
  const Timeline tl({key(0, 0.2f), key(1, 0.6f, __builtin_nanf(""), Ease::Hold)});
  EXPECT_EQ(tl.at(Params{}, 0.999).focus, 0.2f);
  EXPECT_EQ(tl.at(Params{}, 1.0).focus, 0.6f);
}

TEST(Timeline, AFocusPointReadsEachFramesDepth) {
  ParamKey k;
  k.time = 0, k.point_x = 0.25f, k.point_y = 0.5f;
  const Timeline tl({k, key(2, 0.9f, __builtin_nanf(""), Ease::Linear)});
  ImageF depth(40, 20, 1);
  for (int y = 0; y < 20; ++y)
    for (int x = 0; x < 40; ++x) depth.at(x, y) = x < 20 ? 0.3f : 0.7f;
  EXPECT_EQ(tl.at(Params{}, 0, &depth).focus, 0.3f);
  for (float& v : depth.data) v = 0.5f;  // the next frame: the subject moved
  EXPECT_EQ(tl.at(Params{}, 0, &depth).focus, 0.5f);
  EXPECT_FLOAT_EQ(tl.at(Params{}, 1, &depth).focus, 0.7f);  // halfway to the focus of 0.9
  EXPECT_EQ(tl.at(Params{}, 0, nullptr).focus, 0.9f);  // no depth: the other key
  EXPECT_EQ(focus_at_point(depth, 1.f, 1.f), 0.5f);  // the corner is inside
}

TEST(Timeline, BadKeysAreRefused) {
  EXPECT_THROW(Timeline({key(1, 0.2f), key(1, 0.3f)}), Error);  // two at one time
  EXPECT_THROW(Timeline({key(-1, 0.2f)}), Error);
  EXPECT_THROW(Timeline({key(0, 1.5f)}), Error);  // focus out of [0,1]
  ParamKey p;
  p.point_x = 2.f, p.point_y = 0.f;
  EXPECT_THROW(Timeline({p}), Error);
  EXPECT_THROW(parse_ease("bounce"), Error);
}

TEST(Timeline, KeysFilesAndPresetsCarryTheKeys) {
  const std::string path = (std::filesystem::temp_directory_path() / ("keys_" + std::to_string(getpid()) + ".json")).string();
  auto write = [&](const std::string& text) { std::ofstream(path) << text; };
  write(R"({"keys": [{"time": 1.5, "focus_point": [0.5, 0.25], "ease": "linear"}, {"time": 0, "focus": 0.2, "aperture": 30}]})");
  const std::vector<ParamKey> k = io::load_keys(path);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].time, 0.0);  // sorted
  EXPECT_EQ(k[0].aperture, 30.f);
  EXPECT_EQ(k[1].point_y, 0.25f);
  EXPECT_EQ(k[1].ease, Ease::Linear);
  for (const char* bad : {R"({"keys": []})", R"({"keys": [{"focus": 0.2}]})", R"({"keys": [{"time": 0}]})",
                          R"({"keys": [{"time": 0, "focus": 0.2, "blur": 3}]})", R"({"keys": [{"time": 0, "focus": 2}]})",
                          R"({"keys": [{"time": 0, "focus": 0.2, "ease": "bounce"}]})", R"([1, 2])", "{"}) {
    write(bad);
    try {
      io::load_keys(path);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind(path + ": ", 0), 0u) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
  std::filesystem::remove(path);
  io::Preset preset;
  preset.keys = k;
  const io::Preset back = io::parse_preset(io::preset_to_json(preset));
  ASSERT_EQ(back.keys.size(), 2u);
  EXPECT_EQ(back.keys[1].point_x, 0.5f);
  EXPECT_EQ(back.keys[0].focus, 0.2f);
  EXPECT_EQ(back.keys[1].ease, Ease::Linear);
}

// Keys move the synthetic depth's fields (a travelling tilt-shift band): exact at the keys, between them
// by the easing, the fields no key sets as the base has them; the JSON carries them.
TEST(Timeline, KeysMoveTheSyntheticDepth) {
  ParamKey a, b;
  a.time = 0, a.synthetic[1] = 0.2f;  // position
  b.time = 2, b.synthetic[1] = 0.8f, b.synthetic[0] = 45.f, b.ease = Ease::Linear;  // position, angle
  const Timeline t({a, b});
  EXPECT_TRUE(t.moves_synthetic());
  EXPECT_FALSE(Timeline({key(0, 0.3f)}).moves_synthetic());
  SyntheticDepth base;
  base.width = 0.4f;
  EXPECT_EQ(t.synthetic_at(base, 0).position, 0.2f);
  EXPECT_EQ(t.synthetic_at(base, 2).position, 0.8f);
  EXPECT_NEAR(t.synthetic_at(base, 1).position, 0.5f, 1e-6f);
  EXPECT_EQ(t.synthetic_at(base, 1).angle, 45.f);  // one key sets it: held
  EXPECT_EQ(t.synthetic_at(base, 1).width, 0.4f);  // no key: the base's
  ParamKey bad;
  bad.synthetic[2] = -1.f;  // a width <= 0
  EXPECT_THROW(Timeline({bad}), Error);
  io::Preset preset;
  preset.keys = {a, b};
  const io::Preset back = io::parse_preset(io::preset_to_json(preset));
  ASSERT_EQ(back.keys.size(), 2u);
  EXPECT_EQ(back.keys[1].synthetic[1], 0.8f);
  EXPECT_EQ(back.keys[1].synthetic[0], 45.f);
  EXPECT_NE(back.keys[1].synthetic[3], back.keys[1].synthetic[3]);  // x: not set
  EXPECT_THROW(io::parse_preset(R"({"keys": [{"time": 0, "synthetic": {"tilt": 3}}]})"), Error);
}

// The app's timeline: a key set at a time replaces the fields it sets there; remove_near takes the
// nearest key within the window, and none outside it.
TEST(Timeline, SetAndRemoveKeys) {
  Timeline t;
  t.set(key(1.0, 0.2f, 30.f));
  t.set(key(0.5, 0.6f));
  t.set(key(1.0, 0.4f));  // the focus replaced, the aperture kept
  ASSERT_EQ(t.keys().size(), 2u);
  EXPECT_EQ(t.keys()[0].time, 0.5);
  EXPECT_EQ(t.keys()[1].focus, 0.4f);
  EXPECT_EQ(t.keys()[1].aperture, 30.f);
  EXPECT_THROW(t.set(key(2.0, 7.f)), Error);  // refused, nothing changed
  EXPECT_EQ(t.keys().size(), 2u);
  EXPECT_FALSE(t.remove_near(0.7, 0.1));
  EXPECT_TRUE(t.remove_near(0.96, 0.05));
  ASSERT_EQ(t.keys().size(), 1u);
  EXPECT_EQ(t.keys()[0].time, 0.5);
}

}  // namespace
}  // namespace satlab
