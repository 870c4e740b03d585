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
#include "core/pipeline.hpp"
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

// A generated H.264 (or HEVC) clip: a smooth gradient with sharp coloured bars, panned 3 px a frame; stored
// turned by `rotation` (a display matrix) where asked.
std::string make_clip(const std::filesystem::path& dir, const std::string& codec, int w, int h, int frames,
                      int rotation = 0) {
  const std::string path = (dir / ("nvdec_" + codec + "_" + std::to_string(w) + "x" + std::to_string(h) + "_" +
                                   std::to_string(rotation) + ".mp4")).string();
  io::ClipSpec spec;
  spec.width = w, spec.height = h, spec.fps = 24, spec.codec = codec, spec.rotation = rotation;
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

// Where FFmpeg's NVDEC path cannot be had on this machine (its build, the driver's libnvcuvid, the codec on
// this card): a skip. Anything else (the CUDA device refused, a conversion error) fails.
bool nvdec_missing(const std::string& why) {
  return why.find("has no path for") != std::string::npos || why.find("did not open for this stream") != std::string::npos;
}

TEST(NvdecGpu, FramesEqualTheCpuDecodersConvertedAlikeBitForBit) {
  SKIP_WITHOUT_GPU();
  std::string why;
  if (!io::video_available(&why)) GTEST_SKIP() << why;
  // The pipeline first, as render and the app make it: the primary context is then active with the runtime's
  // flags, which FFmpeg's own CUDA device would refuse.
  std::unique_ptr<Pipeline> pipe = gpu::make_pipeline();
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("satlab_nvdec_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  struct Clip {
    const char* codec;
    int w, h, rotation;
  };
  for (const Clip& cl : {Clip{"h264", 320, 180, 0}, Clip{"h264", 642, 362, 0}, Clip{"hevc", 400, 226, 0},
                         Clip{"h264", 322, 180, 90}}) {
    const std::string path = make_clip(dir, cl.codec, cl.w, cl.h, 12, cl.rotation);
    const io::ClipOptions hw = clip_decoder("nvdec", true);
    try {
      (void)io::open_clip(path, false, 24.0, hw);
    } catch (const Error& e) {
      std::filesystem::remove_all(dir);
      if (nvdec_missing(e.what())) GTEST_SKIP() << e.what();
      FAIL() << e.what();
    }
    io::ClipOptions exact;
    exact.reference_conversion = true;
    // NVDEC through the read-ahead thread, as render and the app read.
    auto a = io::read_ahead(io::open_clip(path, false, 24.0, hw));
    auto b = io::open_clip(path, false, 24.0, exact), c = io::open_clip(path);
    EXPECT_EQ(a->info().decoder, "nvdec");
    EXPECT_EQ(b->info().decoder, "cpu");
    EXPECT_EQ(a->info().rotation, cl.rotation);
    long long n = 0;
    int worst = 0;
    double sum = 0, count = 0;
    for (io::ClipFrame fa, fb, fc; a->next(fa); ++n) {
      ASSERT_TRUE(b->next(fb) && c->next(fc)) << cl.codec << ": the CPU decoders end first";
      ASSERT_FALSE(fa.device.empty());
      ASSERT_TRUE(fa.image.empty());
      EXPECT_EQ(fa.index, fb.index);
      EXPECT_DOUBLE_EQ(fa.time, fb.time);
      ImageRGBA8 ga;
      gpu::download(fa.device, ga);
      ASSERT_EQ(ga.width, cl.w);
      ASSERT_EQ(ga.height, cl.h);
      ASSERT_EQ(ga.data, fb.image.data) << cl.codec << " " << cl.w << "x" << cl.h << " turn " << cl.rotation << " frame " << n;
      // The pipeline reads the device image where it lies: its result equals that of the host image.
      if (n == 3) {
        Params p;
        p.filter = FilterKind::Box, p.box_radius = 2;
        pipe->set_params(p);
        ASSERT_TRUE(pipe->set_image_device(fa.device));
        pipe->run();
        const ImageRGBA8 from_device = pipe->result();
        pipe->set_image(ga);
        pipe->run();
        EXPECT_EQ(from_device.data, pipe->result().data) << "set_image_device";
      }
      for (size_t i = 0; i < ga.data.size(); ++i) {
        const int d = std::abs(int(ga.data[i]) - int(fc.image.data[i]));
        worst = std::max(worst, d), sum += d, ++count;
      }
    }
    io::ClipFrame rest;
    EXPECT_FALSE(b->next(rest));
    EXPECT_EQ(n, 12);
    std::printf("%s %dx%d turn %d: NVDEC = CPU (reference conversion) bit for bit; against swscale worst %d, mean %.3f\n",
                cl.codec, cl.w, cl.h, cl.rotation, worst, sum / count);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
