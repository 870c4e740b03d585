// The GPU's 4:2:0 conversion of a result (gpu/convert/yuv_gpu.hpp) against core's (core/yuv.hpp): bit for
// bit on odd sizes (1x1, 1xN, Nx1, primes, non-multiples of the block) with all-255 pixels, the planes
// poisoned first. And back (gpu/convert/yuv_in_gpu.hpp, NVDEC's frames): the same on semi-planar and
// planar planes of every depth, matrix, range and turn; then a clip decoded by NVDEC equals the CPU decoder's
// frames converted alike, bit for bit (swscale's differ at sharp chroma edges: printed, docs/clips.md). Skips with the reason where
// there is no CUDA device, no FFmpeg libraries, or no NVDEC.
#include "gpu/convert/yuv_gpu.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "app/io/clip.hpp"
#include "app/ops/clip_decoder.hpp"
#include "core/error.hpp"
#include "gpu/convert/yuv_in_gpu.hpp"
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

TEST(YuvInGpu, EqualsTheCpuConversionBitForBit) {
  SKIP_WITHOUT_GPU();
  const int sizes[][2] = {{1, 1}, {1, 61}, {67, 1}, {2, 2}, {127, 131}, {1031, 517}};
  uint64_t seed = 709;
  for (const auto& s : sizes)
    for (auto [bytes, bits] : {std::pair{1, 8}, {2, 10}, {2, 12}})
      for (bool planar : {false, true})
        for (int rot : {0, 90, 180, 270}) {
          const yuv::Matrix m = yuv::Matrix(seed % 3);
          const bool full = seed % 2 == 0;
          EXPECT_EQ(gpu::check_yuv_in(s[0], s[1], bytes, bits, m, full, rot, planar, seed++), "")
              << s[0] << "x" << s[1] << " bytes " << bytes << " bits " << bits << " planar " << planar << " turn " << rot;
        }
  EXPECT_EQ(gpu::check_yuv_in(3840, 2160, 1, 8, yuv::Matrix::Bt709, false, 0, false, 1), "");
}

TEST(YuvInGpu, HeldImagesAreNotReusedAndTooManyIsOneLine) {
  SKIP_WITHOUT_GPU();
  gpu::GpuFrameConverter g;
  uint8_t* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 64 * 64 * 2), cudaSuccess);
  Yuv420SP in;
  in.width = in.height = 64, in.y = d, in.y_pitch = 64, in.uv = d + 64 * 64, in.uv_pitch = 64;
  const yuv::InCoeffs k = yuv::in_coeffs(yuv::Matrix::Bt601, false, 8);
  std::vector<DeviceRGBA> held;
  for (int i = 0; i < gpu::GpuFrameConverter::kMaxImages; ++i) held.push_back(g.convert(in, k, 0));
  for (size_t i = 1; i < held.size(); ++i) EXPECT_NE(held[i].data, held[i - 1].data);
  EXPECT_THROW(g.convert(in, k, 0), Error);
  held.pop_back();
  EXPECT_NO_THROW(held.push_back(g.convert(in, k, 0)));
  cudaFree(d);
}

// A generated H.264 (and HEVC) clip: a smooth gradient with sharp coloured bars, panned 3 px a frame.
std::string make_clip(const std::filesystem::path& dir, const std::string& codec, int w, int h, int frames) {
  const std::string path = (dir / ("nvdec_" + codec + "_" + std::to_string(w) + "x" + std::to_string(h) + ".mp4")).string();
  io::ClipSpec spec;
  spec.width = w, spec.height = h, spec.fps = 24, spec.codec = codec;
  auto out = io::open_clip_writer(path, spec);
  ImageRGBA8 f(w, h);
  for (int k = 0; k < frames; ++k) {
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const int u = x + 3 * k;
        uint8_t* p = f.px(x, y);
        const bool bar = (u / 16) % 5 == 0;
        p[0] = uint8_t(bar ? 230 : (u * 255) / (w + 3 * frames));
        p[1] = uint8_t(bar ? 30 : (y * 255) / h);
        p[2] = uint8_t(bar ? 40 : 128 + 100 * std::sin(0.05 * (u + y)));
        p[3] = 255;
      }
    out->write(f, k / 24.0, k);
  }
  out->finish();
  return path;
}

TEST(NvdecGpu, FramesEqualTheCpuDecodersConvertedAlikeBitForBit) {
  SKIP_WITHOUT_GPU();
  std::string why;
  if (!io::video_available(&why)) GTEST_SKIP() << why;
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("satlab_nvdec_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  for (auto [codec, w, h] : {std::tuple{"h264", 320, 180}, {"h264", 642, 362}, {"hevc", 400, 226}}) {
    const std::string path = make_clip(dir, codec, w, h, 12);
    io::ClipOptions hw;
    try {
      hw = clip_decoder("nvdec", true);
      auto probe = io::open_clip(path, false, 24.0, hw);
    } catch (const Error& e) {
      std::filesystem::remove_all(dir);
      GTEST_SKIP() << e.what();
    }
    io::ClipOptions exact;
    exact.reference_conversion = true;
    auto a = io::open_clip(path, false, 24.0, hw), b = io::open_clip(path, false, 24.0, exact), c = io::open_clip(path);
    EXPECT_EQ(a->info().decoder, "nvdec");
    EXPECT_EQ(b->info().decoder, "cpu");
    long long n = 0;
    int worst = 0;
    double sum = 0, count = 0;
    for (io::ClipFrame fa, fb, fc; a->next(fa); ++n) {
      ASSERT_TRUE(b->next(fb) && c->next(fc)) << codec << ": the CPU decoders end first";
      ASSERT_FALSE(fa.device.empty());
      ASSERT_TRUE(fa.image.empty());
      EXPECT_EQ(fa.index, fb.index);
      EXPECT_DOUBLE_EQ(fa.time, fb.time);
      const ImageRGBA8& ga = host_image(fa);
      ASSERT_EQ(ga.width, w);
      ASSERT_EQ(ga.height, h);
      ASSERT_EQ(ga.data, fb.image.data) << codec << " " << w << "x" << h << " frame " << n;
      for (size_t i = 0; i < ga.data.size(); ++i) {
        const int d = std::abs(int(ga.data[i]) - int(fc.image.data[i]));
        worst = std::max(worst, d), sum += d, ++count;
      }
    }
    io::ClipFrame rest;
    EXPECT_FALSE(b->next(rest));
    EXPECT_EQ(n, 12);
    std::printf("%s %dx%d: NVDEC = CPU (reference conversion) bit for bit; against swscale worst %d, mean %.3f\n",
                codec, w, h, worst, sum / count);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
