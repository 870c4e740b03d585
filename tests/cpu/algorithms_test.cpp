// Selecting the SAT builder and the min/max reduction by name: the check every backend uses, and the CPU
// backend, which has one of each ("cpu"). The GPU backend's choices are tested in tests/gpu.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
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

TEST(Algorithms, CpuFrameTimingsHaveNoPhases) {
  auto pipe = make_cpu_pipeline(1);
  pipe->set_image(ImageRGBA8(17, 9));
  pipe->run();
  ASSERT_FALSE(pipe->timings().empty());
  for (const auto& t : pipe->timings()) EXPECT_TRUE(t.parent.empty()) << t.name;
}

}  // namespace
