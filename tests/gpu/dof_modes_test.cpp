// The shaped, linear-light and layered DoF modes on the GPU against the CPU reference: bit-identical
// results (shared per-pixel arithmetic, integer tables, no FMA) at odd sizes, every aperture, 2 to 8 layers,
// several SAT builders, random and all-255 images, poisoned outputs; the registry lists every mode.
// SATLAB_TEST_MAX_N limits the image sizes (the sanitizer runs use a small one).
#include "core/dof_modes.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "core/pipeline.hpp"
#include "gpu/device.hpp"
#include "gpu/verify.hpp"
#include "variant_test_util.hpp"
#include "gpu_skip.hpp"
#include "gpu_fixtures.hpp"
#include "tests/cpu/test_util.hpp"

namespace {

using namespace satlab;

struct Frame {
  ImageRGBA8 image;
  ImageF depth;
};

Frame random_frame(int w, int h, std::mt19937& rng, bool white, bool ramp = false) {
  Frame f{ImageRGBA8(w, h), ImageF(w, h, 1)};
  for (auto& b : f.image.data) b = white ? 255 : uint8_t(rng());
  std::uniform_real_distribution<float> u(0.f, 1.f);
  if (ramp) {
    // A tilted plane with a near square at a random place: each layer a compact region whose bounding box
    // lies off the frame's origin and edges, some layers empty.
    const int sx = int(u(rng) * float(w)), sy = int(u(rng) * float(h)),
              side = 1 + int(u(rng) * float(w + h) / 8.f);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const bool near = x >= sx && x < sx + side && y >= sy && y < sy + side;
        f.depth.at(x, y) = near ? -0.5f * float(w + h) : float(x + 2 * y);
      }
    return f;
  }
  // Smooth depth with steps, so layers hold regions and edges, not only noise.
  const float a = u(rng) * 0.05f, b = u(rng) * 0.05f;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) f.depth.at(x, y) = float(int(x * a + y * b) % 5) + 0.3f * u(rng);
  return f;
}

TEST(GpuDofModes, EveryModeIsRegisteredInFamilyDof) {
  SKIP_WITHOUT_GPU();
  test::expect_registered(Family::Dof, dof_modes(), &Variant::dof);
}

// A frame of the bit-identity test: its size, the largest CoC, all 255 or random bytes, and compact layers
// (their tables may cover their bounding boxes only).
struct FrameCase {
  int w, h;
  float max_radius;
  bool white;
  bool ramp = false;
};

TEST(GpuDofModes, BitIdenticalToTheCpuReference) {
  SKIP_WITHOUT_GPU();
  test::SeededRng rng;
  auto gpu_pipe = gpu::make_pipeline();
  auto cpu_pipe = make_cpu_pipeline();
  const std::vector<std::string> builders = gpu_pipe->sat_builders();
  int k = 0;
  for (const FrameCase c :
       {FrameCase{1, 1, 8.f, false}, FrameCase{1, 97, 12.f, false}, FrameCase{131, 1, 12.f, false},
        FrameCase{61, 53, 20.f, true}, FrameCase{257, 130, 33.5f, false}, FrameCase{641, 479, 60.f, false},
        FrameCase{333, 211, 511.f, true}, FrameCase{1, 67, 9.f, false, true},
        FrameCase{97, 61, 12.f, false, true}, FrameCase{257, 130, 33.5f, false, true},
        FrameCase{641, 479, 60.f, false, true}}) {

    if (size_t(c.w) * size_t(c.h) > test::test_max_n()) continue;
    const Frame f = random_frame(c.w, c.h, rng, c.white, c.ramp);
    for (const DofMode& m : dof_modes()) {
      if (!m.shaped) continue;
      for (ApertureShape shape : {ApertureShape::Disc, ApertureShape::Polygon, ApertureShape::Square}) {
        Params p;
        p.dof_mode = m.name;
        p.aperture_shape = shape;
        p.blades = 5 + k % 4, p.blade_rotation = 11.f * float(k);
        p.dof_layers = 2 + k % 7;
        p.max_radius = c.max_radius, p.aperture = 3.f * c.max_radius, p.focus = 0.3f;
        const std::string builder = builders[size_t(k) % builders.size()];
        ++k;
        const std::string what = std::string(m.name) + " " + to_string(shape) + " " + std::to_string(c.w) +
                                 "x" + std::to_string(c.h) + " layers " + std::to_string(p.dof_layers) + " " +
                                 builder;
        gpu_pipe->set_algorithms({builder, ""});
        // Under the ground truth's camera response, then plain sRGB with the same shape: the GPU must
        // re-upload the transfer tables when only the response changes.
        for (const float shoulder : {0.4f, 0.f}) {
          p.response_shoulder = shoulder;
          for (Pipeline* pipe : {gpu_pipe.get(), cpu_pipe.get()}) {
            pipe->set_image(f.image);
            pipe->set_depth(f.depth);
            pipe->set_params(p);
            pipe->run();
          }
          ASSERT_EQ(gpu_pipe->coc().data, cpu_pipe->coc().data) << what;
          const test::ByteDiff d = test::byte_diff(gpu_pipe->result(), cpu_pipe->result());
          EXPECT_EQ(d.bad, 0u) << what << " shoulder " << shoulder << ": " << d.message;
        }
      }
    }
  }
  EXPECT_GT(k, 0) << "no case ran: nothing checked";
}

// `satlab verify` checks every DoF mode (it once listed them as "ok" with no case run), each on cases of its
// own, and reports a difference it is shown.
TEST(GpuDofModes, VerifyChecksEveryModeAgainstTheCpu) {
  ImageRGBA8 a(3, 2), b(3, 2);
  for (size_t i = 0; i < a.data.size(); ++i) a.data[i] = b.data[i] = uint8_t(i);
  ImageF ca(3, 2, 1), cb(3, 2, 1);
  EXPECT_EQ(gpu::check_dof(a, b, ca, cb), "");
  b.data[4 * 4 + 2] ^= 1;  // pixel (1, 1), blue
  EXPECT_NE(gpu::check_dof(a, b, ca, cb).find("(1, 1) channel 2"), std::string::npos)
      << gpu::check_dof(a, b, ca, cb);
  b = a;
  cb.at(2, 1) = 0.5f;
  EXPECT_EQ(gpu::check_dof(a, b, ca, cb), "CoC map differs");
  EXPECT_NE(gpu::check_dof(a, ImageRGBA8(2, 3), ca, cb), "");

  SKIP_WITHOUT_GPU();
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<std::string> seen;
  for (const gpu::VerifyLine& l : gpu::verify_variants(seed, [](const gpu::VerifyLine&) {}, {Family::Dof})) {
    EXPECT_EQ(l.family, "dof");
    EXPECT_TRUE(l.ok) << l.variant << ": " << l.detail;
    EXPECT_EQ(l.cases, 40) << l.variant;  // 8 sizes x 5 inputs
    seen.push_back(l.variant);
  }
  for (const DofMode& m : dof_modes())
    EXPECT_NE(std::find(seen.begin(), seen.end(), m.name), seen.end()) << m.name << " not verified";
}

// The result buffer is poisoned between frames: a mode that skipped a pixel would show it.
TEST(GpuDofModes, EveryPixelIsWrittenEveryFrame) {
  SKIP_WITHOUT_GPU();
  test::SeededRng rng;
  auto pipe = gpu::make_pipeline();
  const Frame f = random_frame(199, 101, rng, false);
  pipe->set_image(f.image);
  pipe->set_depth(f.depth);
  for (const DofMode& m : dof_modes()) {
    Params p;
    p.dof_mode = m.name;
    pipe->set_params(p);
    pipe->run();
    const ImageRGBA8 first = pipe->result();
    void* stream = nullptr;
    auto* out = const_cast<void*>(pipe->device_result(&stream));
    ASSERT_NE(out, nullptr);
    ASSERT_EQ(cudaStreamSynchronize(cudaStream_t(stream)), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(out, 0xAB, first.data.size(), cudaStream_t(stream)),
              cudaSuccess);  // on its stream: ordered before the run
    pipe->run();
    EXPECT_TRUE(pipe->result().data == first.data) << m.name;
  }
}

// A frame that uploads new aperture or transfer tables (and may grow buffers) is no warm measurement: after a
// change of max radius, blade count, rotation or camera response the "dof" stage and its phases are cold
// once; a change that uploads nothing (the aperture's CoC scale, the focus) keeps them warm.
TEST(GpuDofModes, AnApertureOrResponseChangeMakesOneColdFrame) {
  SKIP_WITHOUT_GPU();
  std::mt19937 rng(5);
  auto pipe = gpu::make_pipeline();
  const Frame f = random_frame(233, 141, rng, false);
  pipe->set_image(f.image);
  pipe->set_depth(f.depth);
  for (const DofMode& m : dof_modes()) {
    if (!m.shaped) continue;
    Params p;
    p.dof_mode = m.name;
    p.aperture_shape = ApertureShape::Polygon;
    const auto dof_cold = [&](const Params& q) {
      pipe->set_params(q);
      pipe->run();
      (void)pipe->result();
      bool stage = false, any = false, all = true;
      for (const StageTiming& t : pipe->timings())
        if (t.name == "dof" || t.parent == "dof") {
          stage |= t.name == "dof";
          any |= t.cold, all &= t.cold;
        }
      EXPECT_TRUE(stage) << m.name << ": no dof stage";
      EXPECT_EQ(any, all) << m.name << ": the stage and its phases disagree";
      return any;
    };
    EXPECT_TRUE(dof_cold(p)) << m.name << ": a new mode";
    EXPECT_FALSE(dof_cold(p)) << m.name;
    const auto changed = [&](const char* what, auto&& edit, bool cold) {
      Params q = p;
      edit(q);
      EXPECT_EQ(dof_cold(q), cold) << m.name << ": " << what;
      EXPECT_FALSE(dof_cold(q)) << m.name << ": the frame after " << what;
      p = q;
    };
    changed(
        "max radius", [](Params& q) { q.max_radius += 3.f; }, true);
    changed(
        "blades", [](Params& q) { q.blades = q.blades == 5 ? 6 : 5; }, true);
    changed(
        "rotation", [](Params& q) { q.blade_rotation += 7.f; }, true);
    changed(
        "response", [](Params& q) { q.response_shoulder = q.response_shoulder > 0.f ? 0.f : 0.4f; }, true);
    changed(
        "CoC scale", [](Params& q) { q.aperture *= 1.5f; }, false);
    changed(
        "focus", [](Params& q) { q.focus = 0.7f; }, false);
  }
}

// The Timings panel's and the bench's phases of the "dof" stage: the names the CPU backend uses too, each
// within the stage's time; the spread mode's fill tables as a phase of their own, on the side stream beside
// the others (StageTiming::concurrent), the layered mode's fill within its composite, gather_box's sat and
// blur (the image set again before each frame: its SAT is built in each).
TEST(GpuDofModes, PhasesAreTimedWithTheCpuBackendsNames) {
  SKIP_WITHOUT_GPU();
  std::mt19937 rng(5);
  const Frame f = random_frame(643, 401, rng, false);
  for (const std::string mode : {"spread", "layered", "gather_shape", "gather_box"}) {
    auto gpu_pipe = gpu::make_pipeline(), cpu_pipe = make_cpu_pipeline();
    Params p;
    p.dof_mode = mode, p.max_radius = 17, p.aperture = 30;
    for (Pipeline* pipe : {gpu_pipe.get(), cpu_pipe.get()}) {
      pipe->set_params(p);
      for (int run = 0; run < 2; ++run) {  // a warm frame
        pipe->set_image(f.image);
        pipe->set_depth(f.depth);
        pipe->run();
        (void)pipe->result();
      }
    }
    const auto phases = [](const std::vector<StageTiming>& t, bool concurrent) {
      std::vector<std::string> names;
      for (const auto& x : t)
        if (x.parent == "dof" && x.concurrent == concurrent) names.push_back(x.name);
      return names;
    };
    const auto& g = gpu_pipe->timings();
    std::vector<std::string> all = phases(g, false), beside = phases(g, true);
    all.insert(all.end(), beside.begin(), beside.end());
    std::vector<std::string> cpu = phases(cpu_pipe->timings(), false);
    std::sort(all.begin(), all.end());
    std::sort(cpu.begin(), cpu.end());
    EXPECT_EQ(all, cpu) << mode << ": the GPU's phases are not the CPU's";
    EXPECT_EQ(beside, mode == "spread" ? std::vector<std::string>{"fill"} : std::vector<std::string>{})
        << mode;
    const auto dof = std::find_if(g.begin(), g.end(), [](const StageTiming& x) { return x.name == "dof"; });
    ASSERT_NE(dof, g.end()) << mode;
    double sum = 0;
    for (const auto& x : g)
      if (x.parent == "dof") {
        EXPECT_GE(x.ms, 0.0) << mode << ": " << x.name;
        EXPECT_LE(x.ms, dof->ms + 0.002) << mode << ": " << x.name << " outlasts its stage";
        if (!x.concurrent) sum += x.ms;
      }
    EXPECT_LE(sum, dof->ms + 0.002 * 5) << mode;  // event resolution about 0.5 us
    EXPECT_GE(sum, 0.5 * dof->ms) << mode;
  }
}

}  // namespace
