#include <gtest/gtest.h>

#include "gpu/device.hpp"

// Skips with the reason where there is no CUDA device; on the GPU machine it checks the probe.
TEST(GpuDevice, ProbeReportsAUsableDevice) {
  const auto& d = satlab::gpu::probe();
  if (!d.available) GTEST_SKIP() << "no GPU: " << d.reason;
  EXPECT_FALSE(d.name.empty());
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GT(d.total_memory, size_t(0));
}
