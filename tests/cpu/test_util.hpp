// Shared helpers for the CPU tests (and the GPU ones): seeded random images (the seed is printed on failure).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <string>

#include "core/dof_spread.hpp"
#include "core/error.hpp"
#include "core/image.hpp"
#include "core/params.hpp"
#include "core/pipeline.hpp"
#include "core/reference.hpp"

namespace satlab::test {

// The process's peak resident set in MiB since the last reset_peak_rss() (VmHWM; -1 where /proc lacks it).
inline double peak_rss_mb() {
  std::ifstream f("/proc/self/status");
  std::string key;
  while (f >> key) {
    if (key == "VmHWM:") {
      double kib = 0;
      f >> kib;
      return kib / 1024.0;
    }
    f.ignore(1 << 12, '\n');
  }
  return -1;
}
inline bool reset_peak_rss() { return bool(std::ofstream("/proc/self/clear_refs") << "5" << std::flush); }

// A fresh seed per call, or SATLAB_TEST_SEED where set (to replay a traced failure); SCOPED_TRACE it, or
// take a SeededRng.
inline uint32_t fresh_seed() {
  const char* fixed = std::getenv("SATLAB_TEST_SEED");
  return fixed && *fixed ? uint32_t(std::strtoul(fixed, nullptr, 10)) : std::random_device{}();
}

// An engine on a fresh seed that every failure in its scope names ("seed N"), so that it can be replayed.
class SeededRng : public std::mt19937 {
 public:
  SeededRng() : SeededRng(fresh_seed()) {}
  const uint32_t seed_value;

 private:
  explicit SeededRng(uint32_t s)
      : std::mt19937(s), seed_value(s), trace_(__FILE__, __LINE__, "seed " + std::to_string(s)) {}
  ::testing::ScopedTrace trace_;
};

// Expects load(path) to throw satlab::Error with a one-line message naming the file and, if given, `why`.
template <typename F>
void expect_one_line_error(F&& load, const std::string& path, const std::string& why = "") {
  try {
    load(path);
    ADD_FAILURE() << "no error for " << path;
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    if (!why.empty()) {
      EXPECT_NE(msg.find(why), std::string::npos) << msg;
    }
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "not one line: " << msg;
  }
}

// A CPU pipeline (2 threads unless told) that has run once on img, depth and p.
inline std::unique_ptr<Pipeline> ran_cpu_pipeline(const ImageRGBA8& img, const ImageF& depth, const Params& p,
                                                  int threads = 2) {
  auto pipe = make_cpu_pipeline(threads);
  pipe->set_image(img);
  pipe->set_depth(depth);
  pipe->set_params(p);
  pipe->run();
  return pipe;
}

inline ImageRGBA8 random_image(int w, int h, uint32_t seed) {
  ImageRGBA8 img(w, h);
  std::mt19937 rng(seed);
  for (auto& v : img.data) v = uint8_t(rng() & 0xff);
  return img;
}

// What a "defined" CoC map is for a depth map with NaN holes: no CoC is NaN or infinite, every one lies
// within max_radius, and a pixel without depth gets the bound itself, +-max_radius (coc_from_depth).
inline ::testing::AssertionResult coc_is_defined(const ImageF& coc, const ImageF& depth, float max_radius) {
  for (size_t i = 0; i < coc.data.size(); ++i) {
    const float c = coc.data[i];
    if (!std::isfinite(c)) return ::testing::AssertionFailure() << "pixel " << i << ": CoC " << c;
    if (std::fabs(c) > max_radius)
      return ::testing::AssertionFailure()
             << "pixel " << i << ": |CoC| " << c << " > max radius " << max_radius;
    if (std::isnan(depth.data[i]) && std::fabs(c) != max_radius)
      return ::testing::AssertionFailure()
             << "pixel " << i << " has no depth but CoC " << c << ", not +-" << max_radius;
  }
  return ::testing::AssertionSuccess();
}

// Through a CPU pipeline with p on a random 29 x 17 image, a depth map of one value, then the same with
// NaN at every third pixel: defined, repeatable results, each equal to reference(img, coc, depth, out)
// called with the one CoC of depth 0 for the whole frame (depth null), then with the pipeline's CoC map
// and the NaN depth map.
template <typename Reference>
void expect_degenerate_depths_defined(const Params& p, Reference reference) {
  const uint32_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const ImageRGBA8 img = random_image(29, 17, seed);
  auto pipe = make_cpu_pipeline(2);
  pipe->set_image(img);
  pipe->set_params(p);
  ImageF depth(29, 17, 1);
  for (auto& d : depth.data) d = 0.37f;
  pipe->set_depth(depth);
  pipe->run();
  ImageF flat(29, 17, 1);  // one value normalises to depth 0 everywhere
  for (auto& c : flat.data) c = coc_from_depth(0.f, p);
  ImageRGBA8 ref;
  reference(img, flat, nullptr, ref);
  EXPECT_EQ(pipe->result().data, ref.data);
  for (size_t i = 0; i < depth.data.size(); i += 3) depth.data[i] = std::nanf("");
  pipe->set_depth(depth);
  pipe->run();
  const ImageRGBA8 first = pipe->result();
  pipe->run();
  EXPECT_EQ(pipe->result().data, first.data);
  reference(img, pipe->coc(), &depth, ref);
  EXPECT_EQ(first.data, ref.data);
  EXPECT_TRUE(coc_is_defined(pipe->coc(), depth, p.max_radius));
}

// Two planes: a red square (near, CoC near_c) on a green-and-blue striped background (CoC far_c), 96 x 64:
// the occlusion scene of the DoF modes' tests.
struct TwoPlanes {
  ImageRGBA8 img{96, 64};
  ImageF coc{96, 64, 1};
  TwoPlanes(float near_c, float far_c) {
    for (int y = 0; y < 64; ++y)
      for (int x = 0; x < 96; ++x) {
        const bool fg = x >= 40 && x < 70 && y >= 16 && y < 48;
        uint8_t* px = img.px(x, y);
        px[0] = fg ? 230 : 0, px[1] = fg ? 0 : ((x / 3) & 1 ? 200 : 40), px[2] = fg ? 0 : 160, px[3] = 255;
        coc.at(x, y) = fg ? near_c : far_c;
      }
  }
};

// Mixed pixels (dof::mixed_of's input) planted in a random image and CoC map: in every third column, a
// pixel whose right neighbour is 2 px nearer and whose left one lies on its own surface, with 3/10 of the
// right neighbour's colour and 7/10 of the left one's (in the sRGB bytes: near enough a linear mix for
// most pairs to split).
inline void make_mixed_pixels(ImageRGBA8& img, ImageF& coc) {
  for (int y = 0; y < img.height; ++y)
    for (int x = 1; x + 1 < img.width; x += 3) {
      const float c = coc.at(x - 1, y) == coc.at(x - 1, y) ? coc.at(x - 1, y) : 0.f;
      coc.at(x, y) = c + 0.1f;
      coc.at(x + 1, y) = c + 2.f;
      for (int k = 0; k < 3; ++k)
        img.px(x, y)[k] = uint8_t((3 * img.px(x + 1, y)[k] + 7 * img.px(x - 1, y)[k] + 5) / 10);
    }
}

// A WAV file of `samples` 16-bit mono samples at 8 kHz, written by hand: sample(i) gives each value.
template <typename Sample>
void write_wav(const std::string& path, uint32_t samples, Sample sample) {
  const uint32_t rate = 8000, bytes = samples * 2;
  std::ofstream f(path, std::ios::binary);
  auto u32 = [&](uint32_t v) { f.write(reinterpret_cast<const char*>(&v), 4); };
  auto u16 = [&](uint16_t v) { f.write(reinterpret_cast<const char*>(&v), 2); };
  f.write("RIFF", 4), u32(36 + bytes), f.write("WAVEfmt ", 8), u32(16), u16(1), u16(1), u32(rate), u32(rate * 2), u16(2),
      u16(16), f.write("data", 4), u32(bytes);
  for (uint32_t i = 0; i < samples; ++i) u16(uint16_t(int16_t(sample(i))));
}

// A point light's spread weight: a white pixel at the centre of a w x h black frame, every CoC c, the spread's
// deltas of its layer (core/dof_spread.hpp) integrated, channel 0.
inline std::vector<double> spread_point_psf(const Params& p, int w, int h, float c) {
  ImageRGBA8 img(w, h);
  for (size_t i = 0; i < img.pixels(); ++i) img.data[i * 4 + 3] = 255;
  img.px(w / 2, h / 2)[0] = 255;
  ImageF coc(w, h, 1);
  for (auto& v : coc.data) v = c;
  const dof::Layers layers = make_layers(p, 2);
  const SpreadApertures ap = spread_apertures(p, int(p.max_radius));
  std::vector<std::vector<uint32_t>> deltas;
  spread_deltas(img, coc, layers, ap, 0.f, deltas, 1);
  const std::vector<uint32_t>& d = deltas[size_t(dof::layer_of(c, layers))];
  std::vector<double> psf(size_t(w) * size_t(h), 0.0), col(size_t(w), 0.0);
  for (int y = 0; y < h; ++y) {
    double run = 0;
    for (int x = 0; x < w; ++x) {
      run += double(int32_t(d[(size_t(y) * size_t(w) + size_t(x)) * 4]));
      col[size_t(x)] += run;
      psf[size_t(y) * size_t(w) + size_t(x)] = col[size_t(x)];
    }
  }
  return psf;
}

}  // namespace satlab::test
