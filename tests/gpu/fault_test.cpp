// GPU faults during a frame (docs/reliability.md): an out-of-memory on set_image, injected at each of the
// pipeline's allocations or provoked for real by filling the device, leaves the previous image and state
// (the next frame's result is bit-identical to the one before); a failing frame throws satlab::Error and
// the pipeline's next frame is correct again. Faults come from gpu/fault.hpp.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/pipeline.hpp"
#include "gpu/device.hpp"
#include "gpu/fault.hpp"
#include "gpu_skip.hpp"

namespace {

using namespace satlab;
namespace faults = gpu::testing;

struct GpuFaults : ::testing::Test {
  void SetUp() override {
    SKIP_WITHOUT_GPU();
    faults::clear_faults();
  }
  void TearDown() override { faults::clear_faults(); }
};

struct Frame {
  ImageRGBA8 result;
  ImageF depth, coc;
};

struct Scene {
  ImageRGBA8 image;
  ImageF depth;
};

Scene random_scene(int w, int h, uint32_t seed) {
  std::mt19937 rng(seed);
  Scene s{ImageRGBA8(w, h), ImageF(w, h, 1)};
  for (auto& b : s.image.data) b = uint8_t(rng());
  for (auto& d : s.depth.data) d = float(rng() % 1000) / 7.f;
  return s;
}

Params dof_params() {
  Params p;
  p.focus = 0.4f, p.aperture = 60.f, p.max_radius = 20.f;
  return p;
}

Frame run_frame(Pipeline& pipe) {
  pipe.run();
  return {pipe.result(), pipe.depth_normalised(), pipe.coc()};
}

void expect_same(const Frame& a, const Frame& b, const std::string& what) {
  EXPECT_TRUE(a.result.data == b.result.data) << what << ": result";
  EXPECT_TRUE(a.depth.data == b.depth.data) << what << ": normalised depth";
  EXPECT_TRUE(a.coc.data == b.coc.data) << what << ": CoC";
}

Frame cpu_frame(const Scene& s, const Params& p) {
  auto cpu = make_cpu_pipeline();
  cpu->set_image(s.image);
  cpu->set_depth(s.depth);
  cpu->set_params(p);
  return run_frame(*cpu);
}

// The injection itself needs no device: an armed fault fires once, at the n-th check of its own kind.
TEST(FaultInjection, AnArmedFaultFiresOnceAtTheNthCheckOfItsKind) {
  faults::clear_faults();
  const int fired = faults::faults_injected();
  EXPECT_FALSE(gpu::fault_due(gpu::Fault::Alloc));
  faults::fail_next(gpu::Fault::Alloc, 3);
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(gpu::fault_due(gpu::Fault::Launch));
  EXPECT_FALSE(gpu::fault_due(gpu::Fault::Alloc));
  EXPECT_FALSE(gpu::fault_due(gpu::Fault::Alloc));
  EXPECT_TRUE(gpu::fault_due(gpu::Fault::Alloc));
  EXPECT_FALSE(gpu::fault_due(gpu::Fault::Alloc));
  EXPECT_EQ(faults::faults_injected(), fired + 1);
  faults::fail_next(gpu::Fault::Launch);
  faults::clear_faults();
  EXPECT_FALSE(gpu::fault_due(gpu::Fault::Launch));
  EXPECT_EQ(faults::faults_injected(), fired + 1);
}

TEST_F(GpuFaults, AnOutOfMemoryAtAnyAllocationOfSetImageKeepsThePreviousImageAndState) {
  const Scene a = random_scene(97, 55, 1), b = random_scene(130, 71, 2);
  const Params p = dof_params();
  const Frame want_a = cpu_frame(a, p), want_b = cpu_frame(b, p);
  // The resize allocates six buffers; fail each in turn, then none.
  for (int k = 1; k <= 6; ++k) {
    auto pipe = gpu::make_pipeline();
    pipe->set_image(a.image);
    pipe->set_depth(a.depth);
    pipe->set_params(p);
    const Frame before = run_frame(*pipe);
    expect_same(before, want_a, "before the fault");
    const int fired = faults::faults_injected();
    faults::fail_next(gpu::Fault::Alloc, k);
    try {
      pipe->set_image(b.image);
      ADD_FAILURE() << "allocation " << k << ": set_image succeeded under an injected out-of-memory";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("out of memory"), std::string::npos) << e.what();
    }
    EXPECT_EQ(faults::faults_injected(), fired + 1) << "allocation " << k << " was never reached";
    expect_same(run_frame(*pipe), before, "after a failed set_image at allocation " + std::to_string(k));
    EXPECT_THROW(pipe->set_depth(b.depth), Error) << "the pipeline forgot its image size";
    // And the new image goes in once memory is there.
    pipe->set_image(b.image);
    pipe->set_depth(b.depth);
    expect_same(run_frame(*pipe), want_b, "the new image after recovering");
  }
}

TEST_F(GpuFaults, ARealOutOfMemoryIsRefusedBeforeAllocatingAndKeepsThePreviousState) {
  const Scene a = random_scene(64, 48, 3);
  auto pipe = gpu::make_pipeline();
  pipe->set_image(a.image);
  pipe->set_depth(a.depth);
  pipe->set_params(dof_params());
  const Frame before = run_frame(*pipe);
  // Fill the device until about 200 MiB are left, then ask for an image that needs 352 MiB.
  std::vector<void*> hog;
  size_t free_b = 0, total_b = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
  for (size_t chunk = size_t(1) << 30; chunk >= (size_t(16) << 20) && free_b > (size_t(200) << 20);) {
    void* p = nullptr;
    if (chunk > free_b || free_b - chunk < (size_t(200) << 20) || cudaMalloc(&p, chunk) != cudaSuccess) {
      cudaGetLastError();
      chunk /= 2;
      continue;
    }
    hog.push_back(p);
    ASSERT_EQ(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
  }
  const ImageRGBA8 big(4096, 2048);
  std::string msg;
  try {
    pipe->set_image(big);
  } catch (const Error& e) {
    msg = e.what();
  }
  for (void* p : hog) cudaFree(p);
  EXPECT_NE(msg.find("MiB of GPU memory"), std::string::npos) << "message: '" << msg << "' with "
                                                             << (free_b >> 20) << " MiB free";
  expect_same(run_frame(*pipe), before, "after the refused image");
}

TEST_F(GpuFaults, AFailedFrameThrowsAndTheNextFrameIsCorrectAgain) {
  const Scene a = random_scene(211, 97, 4);
  Params p = dof_params();
  auto pipe = gpu::make_pipeline();
  pipe->set_image(a.image);
  pipe->set_depth(a.depth);
  pipe->set_params(p);
  faults::fail_next(gpu::Fault::Launch);
  try {
    pipe->run();
    ADD_FAILURE() << "the frame succeeded under an injected launch failure";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("GPU frame"), std::string::npos) << e.what();
  }
  expect_same(run_frame(*pipe), cpu_frame(a, p), "the frame after the failed one");
  // A failure in a later frame, after parameters changed.
  p.filter = FilterKind::Box, p.box_radius = 9;
  pipe->set_params(p);
  faults::fail_next(gpu::Fault::Launch, 2);
  pipe->run();
  EXPECT_THROW(pipe->run(), Error);
  pipe->run();
  EXPECT_TRUE(pipe->result().data == cpu_frame(a, p).result.data) << "the box frame after the failed one";
}

}  // namespace
