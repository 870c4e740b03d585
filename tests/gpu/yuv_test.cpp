// The GPU's 4:2:0 conversion of a result (gpu/convert/yuv_gpu.hpp) against core's (core/yuv.hpp): bit for
// bit on odd sizes (1x1, 1xN, Nx1, primes, non-multiples of the block) with all-255 pixels, the planes
// poisoned first. Skips with the reason where there is no CUDA device.
#include "gpu/convert/yuv_gpu.hpp"

#include <gtest/gtest.h>

#include "gpu/device.hpp"
#include "gpu_skip.hpp"

namespace {

using namespace satlab;

TEST(YuvGpu, EqualsTheCpuConversionBitForBitOnOddSizes) {
  SKIP_WITHOUT_GPU();
  const int sizes[][2] = {{1, 1}, {1, 61}, {67, 1}, {2, 2}, {127, 131}, {257, 255}, {1031, 517}, {3840, 2160}};
  uint64_t seed = 420;
  for (const auto& s : sizes) EXPECT_EQ(gpu::check_yuv(s[0], s[1], seed++), "") << s[0] << "x" << s[1];
}

TEST(YuvGpu, NoImageIsOneLine) {
  SKIP_WITHOUT_GPU();
  gpu::GpuYuv g;
  Yuv420 out;
  EXPECT_THROW(g.read(nullptr, nullptr, 4, 4, out), Error);
}

}  // namespace
