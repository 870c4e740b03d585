// The GPU temporal depth filter against core's reference (gpu/temporal/temporal_gpu.hpp check_temporal):
// bit for bit over several frames of a moving, noisy scene with NaN holes, on odd sizes (1x1, 1xN, Nx1,
// primes, non-multiples of the block) and an all-255 frame with depth far outside [0,1]. Every test skips
// with the reason where there is no CUDA device.
#include "gpu/temporal/temporal_gpu.hpp"

#include <gtest/gtest.h>

#include "gpu/device.hpp"
#include "gpu_fixtures.hpp"
#include "gpu_skip.hpp"

namespace {

using namespace satlab;

TEST(TemporalGpu, EveryFilterIsRegisteredInFamilyTemporal) {
  SKIP_WITHOUT_GPU();
  test::expect_registered(Family::Temporal, temporal_rows(), &Variant::temporal);
}

TEST(TemporalGpu, EqualsTheCpuFilterBitForBitOnOddSizes) {
  SKIP_WITHOUT_GPU();
  const int sizes[][2] = {{1, 1}, {1, 61}, {67, 1}, {127, 131}, {257, 255}, {1031, 517}};
  uint64_t seed = 45;
  for (const auto& s : sizes) EXPECT_EQ(gpu::check_temporal(s[0], s[1], 7, seed++), "") << s[0] << "x" << s[1];
}

TEST(TemporalGpu, ASizeChangeStartsOverAndBadInputIsOneLine) {
  SKIP_WITHOUT_GPU();
  gpu::GpuTemporalFilter f;
  ImageRGBA8 img(9, 7);
  ImageF d(9, 7, 1);
  for (float& v : d.data) v = 0.25f;
  f.apply(d, img);
  ImageRGBA8 big(11, 7);
  ImageF bd(11, 7, 1);
  for (float& v : bd.data) v = 0.75f;
  f.apply(bd, big);
  for (float v : bd.data) EXPECT_EQ(v, 0.75f);  // the first frame of the new size, as it is
  ImageF wrong(10, 7, 1);
  EXPECT_THROW(f.apply(wrong, big), Error);
}

}  // namespace
