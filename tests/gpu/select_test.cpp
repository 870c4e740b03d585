// The GPU selector against core's reference (gpu/select/select_gpu.hpp check_select): the label bit for
// bit, alpha exactly outside the matte's band and within the guided filter's bound in it, on odd sizes
// (1x1, 1xN, Nx1, primes, non-multiples of the working scale), random and all-255 images, with subject and
// background clicks, flood fills included. Outputs are poisoned before each run. Every test skips with the
// reason where there is no CUDA device.
#include "gpu/select/select_gpu.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/select.hpp"
#include "gpu/device.hpp"
#include "gpu_skip.hpp"
#include "gpu_fixtures.hpp"
#include "variant_test_util.hpp"

namespace {

using namespace satlab;

// Blocks of colour with noise and a disc, so that the selection has edges to find and texture to cross.
ImageRGBA8 scene(int W, int H, uint64_t seed) {
  std::mt19937_64 rng(seed);
  ImageRGBA8 img(W, H);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const float dx = float(x) - 0.45f * float(W), dy = float(y) - 0.55f * float(H);
      const bool disc = dx * dx + dy * dy < 0.08f * float(W) * float(H);
      for (int c = 0; c < 3; ++c)
        img.px(x, y)[c] = uint8_t(disc ? 180 + 30 * c - int(rng() % 20) : 50 * ((x / 7 + y / 5 + c) % 3) + rng() % 30);
      img.px(x, y)[3] = 255;
    }
  return img;
}

TEST(SelectGpu, EverySelectorIsRegisteredInFamilySelect) {
  SKIP_WITHOUT_GPU();
  test::expect_registered(Family::Select, selectors(), &Variant::select);
}

TEST(SelectGpu, EqualsCpuOnOddSizesAndScales) {
  SKIP_WITHOUT_GPU();
  struct Case {
    int w, h, work;
  };
  for (const Case& c : {Case{1, 1, 1024}, Case{1, 97, 1024}, Case{89, 1, 1024}, Case{131, 97, 1024},
                        Case{257, 263, 64}, Case{641, 479, 200}, Case{1031, 17, 1024}, Case{2053, 1031, 2048}}) {
    if (size_t(c.w) * size_t(c.h) > test::test_max_n()) continue;  // the sanitizer runs: small sizes
    const ImageRGBA8 img = scene(c.w, c.h, uint64_t(c.w) * 131 + uint64_t(c.h));
    SelectParams p;
    p.work_side = c.work;
    const float cx = 0.45f * float(c.w), cy = 0.55f * float(c.h);
    for (const std::vector<SelectClick>& clicks :
         {std::vector<SelectClick>{{cx, cy, false}}, std::vector<SelectClick>{{cx, cy, false}, {1.f, 0.f, true}},
          std::vector<SelectClick>{{0.f, 0.f, false}, {cx, cy, true}}}) {
      std::string note;
      EXPECT_EQ(gpu::check_select(img, clicks, p, &note), "") << c.w << "x" << c.h << " work " << c.work;
    }
  }
}

TEST(SelectGpu, EqualsCpuOnAllWhiteAndOneColourImages) {
  SKIP_WITHOUT_GPU();
  if (size_t(1500) * 1001 > test::test_max_n()) GTEST_SKIP() << "larger than SATLAB_TEST_MAX_N";
  ImageRGBA8 white(1500, 1001);
  std::fill(white.data.begin(), white.data.end(), uint8_t(255));
  SelectParams p;
  p.work_side = 100;  // 15-pixel cells of all 255
  EXPECT_EQ(gpu::check_select(white, {{700.f, 500.f, false}}, p), "");
  const Selection s = gpu::select_subject_gpu(white, {{700.f, 500.f, false}}, p);
  EXPECT_TRUE(s.flood);
  EXPECT_NE(s.note.find("whole image"), std::string::npos);
}

}  // namespace
