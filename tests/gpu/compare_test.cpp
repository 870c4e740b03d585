// gpu::SatComparer, behind the UI's "compare all": every candidate builder is bit-identical to the CPU
// reference SAT on a random image of odd size, a single flipped output element is caught (and located),
// and a variant that cannot build this SAT is reported, not thrown.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "core/error.hpp"
#include "gpu/compare.hpp"
#include "gpu/device.hpp"
#include "gpu_skip.hpp"

namespace {

using namespace satlab;

ImageRGBA8 random_image(int w, int h, uint32_t seed) {
  ImageRGBA8 img(w, h);
  std::mt19937 rng(seed);
  for (auto& b : img.data) b = uint8_t(rng());
  return img;
}

const Variant* variant(const std::string& name) {
  for (const Variant& v : gpu::variants())
    if (v.name == name) return &v;
  return nullptr;
}

TEST(SatComparer, EveryCandidateBuilderIsBitIdenticalToTheCpuReference) {
  SKIP_WITHOUT_GPU();
  const uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  gpu::SatComparer c;
  c.set_image(random_image(333, 211, seed));
  const auto candidates = c.candidates();
  ASSERT_FALSE(candidates.empty());
  for (const Variant* v : candidates) {
    EXPECT_EQ(v->family, Family::Sat);
    for (int round = 0; round < 2; ++round) {  // round-robin reuses the buffers
      const gpu::SatComparison r = c.run(*v);
      EXPECT_EQ(r.error, "") << v->name;
      EXPECT_EQ(r.elements, size_t(333) * 211 * 4) << v->name;
      EXPECT_EQ(r.mismatches, 0u) << v->name << " first differs at " << r.first_mismatch;
      EXPECT_GT(r.ms, 0.0) << v->name;
      for (const auto& [phase, ms] : r.phases) EXPECT_GE(ms, 0.0) << v->name << ": " << phase;
    }
  }
}

TEST(SatComparer, DetectsAndLocatesOneFlippedOutputElement) {
  SKIP_WITHOUT_GPU();
  gpu::SatComparer c;
  c.set_image(random_image(129, 77, 3));
  const Variant* v = variant("sat_tiled");
  ASSERT_NE(v, nullptr);
  for (size_t index : {size_t(0), size_t(12345), size_t(129) * 77 * 4 - 1}) {
    c.corrupt_next_output(index);
    const gpu::SatComparison bad = c.run(*v);
    EXPECT_EQ(bad.error, "");
    EXPECT_EQ(bad.mismatches, 1u) << "flipped element " << index;
    EXPECT_EQ(bad.first_mismatch, index);
    EXPECT_EQ(c.run(*v).mismatches, 0u) << "the hook must affect one run only";
  }
}

TEST(SatComparer, AWholeImageOf255IsExactThroughWrapAround) {
  SKIP_WITHOUT_GPU();
  ImageRGBA8 white(1031, 1029);
  std::fill(white.data.begin(), white.data.end(), uint8_t(255));
  gpu::SatComparer c;
  c.set_image(white);
  for (const Variant* v : c.candidates()) EXPECT_EQ(c.run(*v).mismatches, 0u) << v->name;
}

TEST(SatComparer, AVariantThatCannotBuildThisSatIsReportedNotThrown) {
  SKIP_WITHOUT_GPU();
  gpu::SatComparer c;
  const Variant* sat = variant("sat_tiled");
  ASSERT_NE(sat, nullptr);
  EXPECT_NE(c.run(*sat).error, "") << "no image set yet";
  c.set_image(random_image(40, 30, 1));
  const Variant* reduce = variant("cub");
  ASSERT_NE(reduce, nullptr);
  EXPECT_NE(c.run(*reduce).error, "");
  EXPECT_THROW(c.set_image(ImageRGBA8()), Error);
}

}  // namespace
