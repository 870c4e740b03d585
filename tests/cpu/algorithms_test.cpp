// Selecting the SAT builder and the min/max reduction by name: the check every backend uses, and the CPU
// backend, which has one of each ("cpu"). The GPU backend's choices are tested in tests/gpu.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/params.hpp"
#include "core/pipeline.hpp"

namespace {

using namespace satlab;

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Algorithms, AnUnknownNameIsRefusedWithEveryValidName) {
  EXPECT_NO_THROW(check_choice("SAT builder", "b", {"a", "b", "c"}));
  EXPECT_EQ(message_of([] { check_choice("SAT builder", "x", {"a", "b", "c"}); }),
            "unknown SAT builder 'x' (valid: a, b, c)");
  EXPECT_EQ(message_of([] { check_choice("reduction", "", {"cub"}); }), "unknown reduction '' (valid: cub)");
}

TEST(Algorithms, TheCpuBackendHasOneFixedBuilderAndReduction) {
  auto pipe = make_cpu_pipeline(1);
  EXPECT_EQ(pipe->sat_builders(), std::vector<std::string>{"cpu"});
  EXPECT_EQ(pipe->reductions(), std::vector<std::string>{"cpu"});
  EXPECT_NO_THROW(pipe->set_algorithms({"cpu", "cpu"}));
  EXPECT_NO_THROW(pipe->set_algorithms({"", ""}));  // keep the current ones
  const std::string why = message_of([&] { pipe->set_algorithms({"sat_tiled", ""}); });
  EXPECT_NE(why.find("'sat_tiled' (valid: cpu)"), std::string::npos) << why;
  EXPECT_NE(message_of([&] { pipe->set_algorithms({"", "cub"}); }).find("(valid: cpu)"), std::string::npos);
  EXPECT_EQ(pipe->algorithms().sat_builder, "cpu");
  EXPECT_EQ(pipe->algorithms().reduction, "cpu");
}

TEST(Algorithms, CpuBoxFilterTimingsHaveNoPhases) {
  auto pipe = make_cpu_pipeline(1);
  Params p;
  p.filter = FilterKind::Box;  // sat and blur, one stage each
  pipe->set_params(p);
  pipe->set_image(ImageRGBA8(17, 9));
  pipe->run();
  ASSERT_FALSE(pipe->timings().empty());
  for (const auto& t : pipe->timings()) EXPECT_TRUE(t.parent.empty()) << t.name;
}

// Every DoF mode's one "dof" stage lists its phases (the GPU's names) right after it, each timed by the
// host clock and within the stage's time, in the order the work first met them.
TEST(Algorithms, CpuDofModesTimeTheirPhases) {
  std::mt19937 rng(11);
  ImageRGBA8 img(61, 37);
  for (auto& v : img.data) v = uint8_t(rng());
  ImageF depth(61, 37, 1);
  for (auto& v : depth.data) v = float(rng() % 1000) / 999.f;
  const std::vector<std::pair<std::string, std::vector<std::string>>> expected = {
      {"spread", {"spread", "sat", "fill", "composite"}},
      {"layered", {"layers", "slice", "sat", "composite+fill"}},
      {"gather_shape", {"slice", "sat", "composite"}},
      {"gather_linear", {"slice", "sat", "composite"}},
      {"gather_box", {"sat", "blur"}}};
  for (const auto& [mode, phases] : expected) {
    auto pipe = make_cpu_pipeline(2);
    Params p;
    p.dof_mode = mode, p.max_radius = 9, p.aperture = 20;
    pipe->set_params(p);
    pipe->set_image(img);
    pipe->set_depth(depth);
    pipe->run();
    const auto& t = pipe->timings();
    const auto dof = std::find_if(t.begin(), t.end(), [](const StageTiming& x) { return x.name == "dof"; });
    ASSERT_NE(dof, t.end()) << mode;
    std::vector<std::string> got;
    double sum = 0;
    for (auto it = dof + 1; it != t.end() && it->parent == "dof"; ++it) {
      got.push_back(it->name);
      EXPECT_GE(it->ms, 0.0) << mode << ": " << it->name;
      EXPECT_EQ(it->cold, dof->cold) << mode << ": a phase is cold with its stage";
      EXPECT_FALSE(it->concurrent) << mode << ": the CPU runs its phases one after another";
      sum += it->ms;
    }
    EXPECT_EQ(got, phases) << mode;
    EXPECT_LE(sum, dof->ms * (1 + 1e-9) + 1e-9) << mode << ": the phases add up to more than their stage";
    EXPECT_GT(sum, 0.0) << mode;
  }
}

}  // namespace
