// The spread DoF mode on the GPU against the CPU reference: bit-identical results (exact integer deltas and
// SATs, shared per-pixel arithmetic, no FMA) with every SAT builder, at odd sizes (1x1, 1xN, Nx1, primes),
// on random and all-255 images, depth maps with NaN holes, flat ones, a tilted plane and a near disc over a
// far plane (the fill tables over boxes, and as differences), large CoCs along every edge and corner (the
// frame's edges extended: the border tiles' virtual pixels), 2 to 8 layers, every aperture,
// radii whose windows fit in shared memory and larger ones (60: through global memory), with the result
// poisoned before each run and the spread images left stale by a run on another depth map.
// (GpuDofModes.BitIdenticalToTheCpuReference runs it too, as a shaped mode.) SATLAB_TEST_MAX_N limits the
// image sizes (the sanitizer runs use a small one).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/dof.hpp"
#include "core/dof_spread_pixel.hpp"
#include "core/pipeline.hpp"
#include "core/reference.hpp"
#include "gpu/device.hpp"
#include "gpu/filter/filter.hpp"
#include "gpu/verify.hpp"
#include "variant_test_util.hpp"
#include "gpu_skip.hpp"
#include "tests/cpu/test_util.hpp"

namespace {

using namespace satlab;

TEST(GpuDofSpread, BitIdenticalToTheCpuReferenceOnHardInputs) {
  SKIP_WITHOUT_GPU();
  test::SeededRng rng;
  auto gpu_pipe = gpu::make_pipeline();
  auto cpu_pipe = make_cpu_pipeline();
  // SATLAB_TEST_OWN_SAT_ONLY=1 (the sanitizer runs) leaves out the external baselines (NPP), as
  // tests/gpu/sat_test does.
  const char* own = std::getenv("SATLAB_TEST_OWN_SAT_ONLY");
  std::vector<std::string> builders;
  for (const std::string& b : gpu_pipe->sat_builders())
    if (!(own && *own && *own != '0') || b.rfind("sat_", 0) == 0) builders.push_back(b);
  ASSERT_FALSE(builders.empty());
  struct Case {
    int w, h;
    float max_radius;
  };
  int k = 0;
  long split_pixels = 0, hidden_pixels = 0;
  for (const Case c :
       {Case{1, 1, 5.f}, Case{1, 61, 9.f}, Case{67, 1, 9.f}, Case{2, 3, 4.f}, Case{97, 89, 17.5f},
        Case{263, 131, 40.f}, Case{509, 257, 25.f}, Case{131, 97, 60.f}, Case{33, 65, 20.f},
        Case{64, 31, 30.f}, Case{3, 130, 12.f}, Case{37, 5, 60.f}, Case{211, 173, 43.f}}) {
    if (size_t(c.w) * size_t(c.h) > test::test_max_n()) continue;
    // Random image and depth; all 255 with NaN holes; flat depth; the bench's tilted plane (layers in
    // diagonal bands: the fill tables over boxes); a near disc over a far plane (small near layers: fill
    // tables as every layer's less the near ones'); large CoCs, near and far mixed, within max_radius of
    // every edge and corner, in focus inside (the virtual pixels beyond the frame's edges, the border
    // tiles' work); mixed pixels (dof::mixed_of): discs of flat colours at random depths, rendered at 4 x 4
    // samples per pixel, each pixel's depth its centre sample's (the edges' pixels split into two fragments,
    // on the frame's edges too). Thin near objects' hidden backgrounds (dof::hidden_of) come with the
    // random blocks, the mixed pixels' discs and the edges' large CoCs.
    // Tiles at least a layer's window radius R from every edge take the kernel's unclipped path (the corner
    // tables): at 97 x 89, 263 x 131, 509 x 257 and 211 x 173, the last with the outer layers' R = 43, the
    // largest window that fits in an H100's or H200's shared memory (elsewhere those layers go through
    // global memory).
    // The mixed pixels' input first: the next inputs' runs must not read its split records (stale).
    for (const int input : {6, 0, 1, 2, 3, 4, 5}) {
      ImageRGBA8 img(c.w, c.h);
      for (auto& b : img.data) b = input == 1 ? 255 : uint8_t(rng());
      ImageF depth(c.w, c.h, 1);
      std::uniform_real_distribution<float> u(0.f, 1.f);
      const float cx = 0.6f * float(c.w), cy = 0.4f * float(c.h), rr = 0.2f * float(std::min(c.w, c.h)) + 1.f;
      for (int y = 0; y < c.h; ++y)
        for (int x = 0; x < c.w; ++x) {
          const float dx = float(x) - cx, dy = float(y) - cy, dd = std::sqrt(dx * dx + dy * dy);
          const float edge = float(std::min(std::min(x, c.w - 1 - x), std::min(y, c.h - 1 - y)));
          depth.at(x, y) = input == 5   ? (edge < c.max_radius ? (u(rng) < 0.5f ? 0.02f + 0.05f * u(rng) : 1.f)
                                                               : 0.4f + 0.01f * u(rng))
                           : input == 2 ? 0.25f
                           : input == 3 ? float(x + y)
                           : input == 4 ? (dd < rr ? 0.02f + 0.1f * dd / rr : 1.f)
                                        : float((x / 7 + y / 5) % 4) + 0.5f * u(rng);
        }
      if (input == 1)
        for (size_t i = 0; i < depth.data.size(); i += 5) depth.data[i] = std::nanf("");
      if (input == 6) {
        struct Disc {
          float x, y, r, z;
          uint8_t rgb[3];
        };
        std::vector<Disc> discs(8);
        for (Disc& d : discs) {
          d = {u(rng) * float(c.w),
               u(rng) * float(c.h),
               1.f + u(rng) * 0.3f * float(std::max(c.w, c.h)),
               u(rng),
               {uint8_t(rng()), uint8_t(rng()), uint8_t(rng())}};
        }
        const auto sample = [&](float sx, float sy, float& z, const uint8_t*& rgb) {
          static const uint8_t bg[3] = {90, 120, 150};
          z = 1.f, rgb = bg;
          for (const Disc& d : discs)
            if ((sx - d.x) * (sx - d.x) + (sy - d.y) * (sy - d.y) < d.r * d.r && d.z < z)
              z = d.z, rgb = d.rgb;
        };
        for (int y = 0; y < c.h; ++y)
          for (int x = 0; x < c.w; ++x) {
            int sum[3] = {0, 0, 0};
            float z;
            const uint8_t* rgb;
            for (int sy = 0; sy < 4; ++sy)
              for (int sx = 0; sx < 4; ++sx) {
                sample(float(x) + (float(sx) + 0.5f) / 4.f, float(y) + (float(sy) + 0.5f) / 4.f, z, rgb);
                for (int k = 0; k < 3; ++k) sum[k] += rgb[k];
              }
            for (int k = 0; k < 3; ++k) img.px(x, y)[k] = uint8_t((sum[k] + 8) / 16);
            sample(float(x) + 0.5f, float(y) + 0.5f, z, rgb);
            depth.at(x, y) = z;
          }
      }
      Params p = gpu::dof_sweep_params("spread", k, c.max_radius);
      const std::string builder = builders[size_t(k) % builders.size()];
      ++k;
      const std::string what = std::to_string(c.w) + "x" + std::to_string(c.h) + " input " +
                               std::to_string(input) + " " + to_string(p.aperture_shape) + " layers " +
                               std::to_string(p.dof_layers) + " " + builder;
      gpu_pipe->set_algorithms({builder, ""});
      // Under the ground truth's camera response, then plain sRGB with the same shape: the GPU must
      // re-upload the transfer tables when only the response changes.
      for (const float shoulder : {0.4f, 0.f}) {
        p.response_shoulder = shoulder;
        for (Pipeline* pipe : {gpu_pipe.get(), cpu_pipe.get()}) {
          pipe->set_image(img);
          pipe->set_depth(depth);
          pipe->set_params(p);
        }
        // A first run on another depth map (the layers elsewhere) leaves stale spread images behind, which
        // the real run must clear or not read (tiles no layer's spread reaches are neither cleared nor read);
        // then poison the result and run on the real inputs.
        ImageF other(c.w, c.h, 1);
        for (int y = 0; y < c.h; ++y)
          for (int x = 0; x < c.w; ++x) other.at(x, y) = float((x / 11 + y / 3) % 5) + 0.3f * u(rng);
        gpu_pipe->set_depth(other);
        gpu_pipe->run();
        gpu_pipe->set_depth(depth);
        void* stream = nullptr;
        auto* out = const_cast<void*>(gpu_pipe->device_result(&stream));
        ASSERT_NE(out, nullptr) << what;
        ASSERT_EQ(cudaStreamSynchronize(cudaStream_t(stream)), cudaSuccess);
        ASSERT_EQ(cudaMemsetAsync(out, 0xAB, img.data.size(), cudaStream_t(stream)),
                  cudaSuccess);  // ordered before the run
        // The second run with one block for the splits' pass: it loops over every tile with a CoC step (the
        // default grid, 4 blocks per SM, takes at most one tile per block at these sizes).
        gpu::spread_split_blocks_for_tests = shoulder == 0.f ? 1 : 0;
        gpu_pipe->run();
        gpu::spread_split_blocks_for_tests = 0;
        cpu_pipe->run();
        ASSERT_EQ(gpu_pipe->coc().data.size(), cpu_pipe->coc().data.size()) << what;
        EXPECT_EQ(std::memcmp(gpu_pipe->coc().data.data(), cpu_pipe->coc().data.data(),
                              cpu_pipe->coc().data.size() * sizeof(float)),
                  0)
            << what << ": CoC maps differ";
        {  // the frame's split pixels and hidden backgrounds, so that the test cannot pass vacuously
          const ImageF& cc = cpu_pipe->coc();
          const uint16_t* lin = srgb_to_linear12(shoulder);
          const auto coc_at = [&](int x, int y) {
            const float v = cc.at(std::clamp(x, 0, c.w - 1), std::clamp(y, 0, c.h - 1));
            return v == v ? v : 0.f;
          };
          const auto lin_at = [&](int x, int y, uint32_t l[3]) {
            const uint8_t* q = img.px(std::clamp(x, 0, c.w - 1), std::clamp(y, 0, c.h - 1));
            for (int k = 0; k < 3; ++k) l[k] = lin[q[k]];
          };
          for (int y = 0; y < c.h; ++y)
            for (int x = 0; x < c.w; ++x) {
              split_pixels += input == 6 && dof::mixed_of(coc_at, lin_at, x, y) ? 1 : 0;
              hidden_pixels += dof::hidden_of(coc_at, x, y) ? 1 : 0;
            }
        }
        const test::ByteDiff d = test::byte_diff(gpu_pipe->result(), cpu_pipe->result());
        EXPECT_EQ(d.bad, 0u) << what << " anamorphic " << p.anamorphic << " ramps " << p.focus_ramp_near << " profile "
                             << p.bokeh_profile << " hole " << p.catadioptric << " image " << p.aperture_image << " shoulder " << shoulder
                             << (shoulder == 0.f ? " (one splits block)" : "") << ": " << d.message;
      }
    }
  }
  EXPECT_GT(split_pixels, 0) << "no mixed pixel split: the split paths went untested";
  EXPECT_GT(hidden_pixels, 0) << "no hidden background: its paths went untested";
}

// The normalisation with the depth histogram (the layer edges' input, one kernel) against core's
// normalise_depth and depth_histogram: the same depths bit for bit and the same counts, at odd sizes, with
// NaNs, one value everywhere (the whole frame in one bin: a block's lanes all add to one address) and a
// ramp (neighbouring lanes in neighbouring bins), the histogram poisoned before the run; the same depths
// without the histogram; nothing written past n.
TEST(GpuDofSpread, DepthHistogramEqualsTheCpus) {
  SKIP_WITHOUT_GPU();
  test::SeededRng rng;
  std::uniform_real_distribution<float> u(-3.f, 5.f);
  for (const int n : {1, 2, 3, 61, 4099, 1 << 20, 3840 * 2160 + 7}) {
    if (size_t(n) > test::test_max_n()) continue;
    for (int input = 0; input < 3; ++input) {
      ImageF raw(n, 1, 1);
      for (int i = 0; i < n; ++i)
        raw.data[size_t(i)] = input == 0 ? (rng() % 11 == 0 ? std::nanf("") : u(rng)) : input == 1 ? 2.5f : float(i);
      const ImageF d = normalise_depth(raw);
      DepthHistogram want;
      depth_histogram(d, want);
      const MinMax r = minmax_reduce(raw.data.data(), raw.data.size());
      const float mm[2] = {r.min, r.max};
      float *draw = nullptr, *dmm = nullptr, *dd = nullptr;
      uint32_t* dh = nullptr;
      ASSERT_EQ(cudaMalloc(&draw, size_t(n) * 4), cudaSuccess);
      ASSERT_EQ(cudaMalloc(&dmm, 8), cudaSuccess);
      ASSERT_EQ(cudaMalloc(&dd, size_t(n) * 4 + 16), cudaSuccess);
      ASSERT_EQ(cudaMalloc(&dh, (kDepthBins + 1) * 4), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(draw, raw.data.data(), size_t(n) * 4, cudaMemcpyHostToDevice), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(dmm, mm, 8, cudaMemcpyHostToDevice), cudaSuccess);
      ASSERT_EQ(cudaMemset(dh, 0xAB, (kDepthBins + 1) * 4), cudaSuccess);
      // With the histogram, then without (the same depths); the output poisoned before each run, and
      // nothing written past n.
      std::vector<float> got_d(size_t(n) + 4), plain_d(size_t(n) + 4);
      std::vector<uint32_t> got_h(kDepthBins + 1);
      for (std::vector<float>* got : {&got_d, &plain_d}) {
        ASSERT_EQ(cudaMemset(dd, 0xAB, size_t(n) * 4 + 16), cudaSuccess);
        gpu::depth_normalise(draw, dmm, dd, size_t(n), nullptr, got == &got_d ? dh : nullptr);
        ASSERT_EQ(cudaMemcpy(got->data(), dd, size_t(n) * 4 + 16, cudaMemcpyDeviceToHost), cudaSuccess);
      }
      ASSERT_EQ(cudaMemcpy(got_h.data(), dh, (kDepthBins + 1) * 4, cudaMemcpyDeviceToHost), cudaSuccess);
      for (void* q : {static_cast<void*>(draw), static_cast<void*>(dmm), static_cast<void*>(dd), static_cast<void*>(dh)})
        cudaFree(q);
      for (const std::vector<float>* got : {&got_d, &plain_d}) {
        size_t bad = 0;  // the same depths bit for bit, NaN as NaN (its payload may differ)
        for (size_t i = 0; i < size_t(n); ++i)
          bad += ((*got)[i] == (*got)[i] || d.data[i] == d.data[i]) &&
                 std::memcmp(&(*got)[i], &d.data[i], 4) != 0;
        EXPECT_EQ(bad, 0u) << n << " input " << input << (got == &got_d ? " with" : " without")
                           << " histogram";
        uint32_t past[4];
        std::memcpy(past, got->data() + n, 16);
        for (const uint32_t v : past) EXPECT_EQ(v, 0xABABABABu) << n;
      }
      EXPECT_EQ(got_h, want.count) << n << " input " << input;
    }
  }
}

// The CoC map (4 pixels per thread, the n mod 4 tail by the first threads) against core's coc_map: the same
// bits at every tail length, with NaN depths (the clamp's bound), depth and disparity, without and with a
// focus range (depths on its edges included), the output poisoned before the run; a buffer off 16-byte
// alignment is refused.
TEST(GpuDofSpread, CocMapEqualsTheCpusAtEveryTail) {
  SKIP_WITHOUT_GPU();
  test::SeededRng rng;
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (const int n : {1, 2, 3, 4, 5, 61, 4098, 4099, 1 << 20, 3840 * 2160 + 7}) {
    if (size_t(n) > test::test_max_n()) continue;
    for (const int variant : {0, 1, 2, 3}) {
      const bool disparity = variant & 1, range = variant & 2;
      ImageF d(n, 1, 1);
      for (auto& v : d.data) v = rng() % 13 == 0 ? std::nanf("") : u(rng);
      Params p;
      p.disparity = disparity, p.focus = u(rng), p.aperture = 5.f + 60.f * u(rng),
      p.max_radius = 3.f + 20.f * u(rng);
      p.near_depth = 0.5f, p.far_depth = 30.f;
      if (range) {  // a four-edged range, its ramps random (0 at times: the plain band)
        const float ni = p.focus - 0.3f * u(rng), fi = p.focus + 0.3f * u(rng);
        const float no = ni - (u(rng) < 0.3f ? 0.f : 0.4f * u(rng)), fo = fi + (u(rng) < 0.3f ? 0.f : 0.4f * u(rng));
        set_focus_range(p, FocusRange{no, ni, fi, fo});
      }
      d.data[0] = p.focus - p.focus_range;  // the band's edges
      if (n > 1) d.data[1] = p.focus + p.focus_range_far;
      if (n > 2) d.data[2] = p.focus - p.focus_range - 0.5f * p.focus_ramp_near;  // in the ramps
      if (n > 3) d.data[3] = p.focus + p.focus_range_far + 0.5f * p.focus_ramp_far;
      const ImageF want = coc_map(d, p);
      float *dd = nullptr, *dc = nullptr;
      ASSERT_EQ(cudaMalloc(&dd, size_t(n) * 4 + 16), cudaSuccess);
      ASSERT_EQ(cudaMalloc(&dc, size_t(n) * 4 + 16), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(dd, d.data.data(), size_t(n) * 4, cudaMemcpyHostToDevice), cudaSuccess);
      ASSERT_EQ(cudaMemset(dc, 0xAB, size_t(n) * 4 + 16), cudaSuccess);
      gpu::coc_map(dd, dc, size_t(n), p, nullptr);
      std::vector<float> got(size_t(n) + 4);
      ASSERT_EQ(cudaMemcpy(got.data(), dc, size_t(n) * 4 + 16, cudaMemcpyDeviceToHost), cudaSuccess);
      EXPECT_THROW(gpu::coc_map(dd + 1, dc, size_t(n), p, nullptr), Error);
      EXPECT_THROW(gpu::coc_map(dd, dc + 1, size_t(n), p, nullptr), Error);
      cudaFree(dd), cudaFree(dc);
      EXPECT_EQ(std::memcmp(got.data(), want.data.data(), size_t(n) * 4), 0)
          << n << (disparity ? " disparity" : "") << " focus range " << p.focus_range;
      uint32_t past[4];  // nothing written beyond n
      std::memcpy(past, got.data() + n, 16);
      for (const uint32_t v : past) EXPECT_EQ(v, 0xABABABABu) << n;
    }
  }
}

}  // namespace
