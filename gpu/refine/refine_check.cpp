// The GPU refiners against core's references (check_refine) and the awkward inputs they are checked on
// (refine_cases), shared by `satlab verify` and tests/gpu/refine_test.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "core/error.hpp"
#include "core/guided_filter.hpp"
#include "gpu/refine/refine_gpu.hpp"
#include "gpu/refine/refine_run.hpp"
#include "gpu/sat/sat_host.hpp"

namespace satlab::gpu {
namespace {

std::string where(const ImageF& im, size_t i) {
  return "(" + std::to_string(i % size_t(im.width)) + ", " + std::to_string(i / size_t(im.width)) + ")";
}

std::string show(float v) {
  char b[64];
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  std::snprintf(b, sizeof b, "%.9g [0x%08x]", double(v), bits);
  return b;
}

// Bit for bit, except that any NaN equals any NaN (both sides mean "no depth").
std::string compare_exact(const ImageF& got, const ImageF& want) {
  if (got.width != want.width || got.height != want.height)
    return "size " + std::to_string(got.width) + "x" + std::to_string(got.height) + ", CPU's " +
           std::to_string(want.width) + "x" + std::to_string(want.height);
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < got.data.size(); ++i) {
    const float g = got.data[i], w = want.data[i];
    const bool same = (std::isnan(g) && std::isnan(w)) || std::memcmp(&g, &w, 4) == 0;
    if (!same && bad++ == 0) first = i;
  }
  if (!bad) return "";
  return std::to_string(bad) + " of " + std::to_string(got.data.size()) + " pixels differ, first at " +
         where(got, first) + ": " + show(got.data[first]) + ", CPU " + show(want.data[first]);
}

// guided: core's refine_guided rebuilt with the GPU's fill value and centring offsets, within
// guided_filter_bound (float SATs of kFloatSatRelBound); the fill itself within float64 summation order
// of the CPU's.
std::string compare_guided(const RefineInput& in, const ImageF& got, const float info[5], std::string* note) {
  const ImageRGBA8& img = *in.image;
  const int W = img.width, H = img.height;
  double sum = 0;
  size_t n = 0;
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (float v : in.depth->data)
    if (std::isfinite(v)) sum += v, ++n, lo = std::min(lo, v), hi = std::max(hi, v);
  const float fill = float(sum / double(n));
  if (!(std::fabs(double(info[4]) - double(fill)) <= 1e-6 * std::fabs(double(fill)) + 1e-30))
    return "fill value " + show(info[4]) + ", CPU " + show(fill);
  ImageF p = resample_bilinear(*in.depth, W, H);
  for (float& v : p.data)
    if (!std::isfinite(v)) v = info[4];
  ImageF guide(W, H, 3);
  for (size_t i = 0; i < img.pixels(); ++i)
    for (int c = 0; c < 3; ++c) guide.data[i * 3 + size_t(c)] = float(img.data[i * 4 + size_t(c)]) / 255.f;
  GuidedOffsets off;
  off.guide = {info[0], info[1], info[2]};
  off.p = info[3];
  const GuidedParams g{};
  ImageF want = guided_filter(guide, p, g, off);
  for (float& v : want.data) v = std::clamp(v, lo, hi);
  const double bound = guided_filter_bound(guide, p, g.radius, g.eps, g.gray, kFloatSatRelBound, 0, &off);
  size_t bad = 0, first = 0;
  double worst = 0;
  for (size_t i = 0; i < got.data.size(); ++i) {
    const double e = std::fabs(double(got.data[i]) - double(want.data[i]));
    if (!(e <= bound) && bad++ == 0) first = i;  // NaN (or the poison) fails
    if (e > worst || std::isnan(e)) worst = std::isnan(e) ? INFINITY : e;
  }
  if (note) {
    char b[120];
    std::snprintf(b, sizeof b, "worst |gpu - cpu| %.3g, bound %.3g", worst, bound);
    *note = b;
  }
  if (!bad) return "";
  char b[80];
  std::snprintf(b, sizeof b, " (bound %.3g)", bound);
  return std::to_string(bad) + " of " + std::to_string(got.data.size()) +
         " pixels outside the bound, first at " + where(got, first) + ": " + show(got.data[first]) +
         ", CPU " + show(want.data[first]) + b;
}

}  // namespace

std::string check_refine(const std::string& name, const RefineInput& in, std::string* note) {
  const Variant& v = refine_detail::refine_variant(name);
  std::string gpu_error, cpu_error;
  ImageF got, want;
  float info[5] = {0, 0, 0, 0, 0};
  try {
    got = refine_detail::run_refine(v, in, name == "guided" ? info : nullptr);
  } catch (const Error& e) {
    gpu_error = e.what();
  }
  try {
    // guided: only whether it refuses; compare_guided rebuilds it with the GPU's offsets and fill.
    want = refine_cpu(name, in);
  } catch (const Error& e) {
    cpu_error = e.what();
  }
  if (!gpu_error.empty() || !cpu_error.empty()) {
    if (gpu_error == cpu_error) return "";  // both refuse the input alike
    return "GPU: " + (gpu_error.empty() ? std::string("ran") : gpu_error) +
           "; CPU: " + (cpu_error.empty() ? std::string("ran") : cpu_error);
  }
  if (name == "guided") return compare_guided(in, got, info, note);
  return compare_exact(got, want);
}

std::vector<RefineCase> refine_cases(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  struct Size {
    int w, h;
  };
  std::vector<Size> sizes = {{1, 1}, {1, 37}, {41, 1}, {2, 3}, {31, 29}, {97, 89}, {263, 131}, {509, 257}};
  sizes.push_back({int(1 + rng() % 700), int(1 + rng() % 500)});
  // Depth at the image's size over k (k = 1: regridded onto cells), then at 2/3 (regridded from the
  // resampled map) and at 3/2 (larger than the image).
  struct Scale {
    int num, den;
  };
  std::vector<Scale> scales;
  for (int k = 1; k <= 8; ++k) scales.push_back({1, k});
  scales.push_back({2, 3});
  scales.push_back({3, 2});
  const char* kinds[] = {"regions", "random image", "all-255 image", "flat depth", "no depth"};
  std::vector<RefineCase> cases;
  int index = 0;
  for (const Size& s : sizes)
    for (const Scale& k : scales)
      for (bool with_conf : {false, true}) {
        const int kind = index++ % 5;
        RefineCase c;
        const int w = std::max(1, s.w * k.num / k.den), h = std::max(1, s.h * k.num / k.den);
        c.image = ImageRGBA8(s.w, s.h);
        c.depth = ImageF(w, h, 1);
        // Depth: planes in blocks, a disc, noise; NaN holes (every 7th sample but in "flat depth").
        const float cx = 0.6f * float(w), cy = 0.4f * float(h), rr = 0.25f * float(std::min(w, h)) + 0.5f;
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) {
            const float dx = float(x) - cx, dy = float(y) - cy;
            float d =
                dx * dx + dy * dy < rr * rr ? 0.2f : float((x / 5 + y / 3) % 4) * 0.5f + 1.f + 0.05f * u(rng);
            if (kind == 3) d = 0.75f;
            if (kind == 4 || (kind != 3 && (size_t(y) * size_t(w) + size_t(x)) % 7 == 3)) d = std::nanf("");
            c.depth.at(x, y) = d;
          }
        // Image: colour regions that follow the depth's blocks (with noise), random, all 255.
        for (int y = 0; y < s.h; ++y)
          for (int x = 0; x < s.w; ++x) {
            uint8_t* p = c.image.px(x, y);
            const int block = (x * w / s.w / 5 + y * h / s.h / 3) % 4;
            for (int ch = 0; ch < 4; ++ch)
              p[ch] = kind == 2                ? 255
                      : kind == 1 || kind == 4 ? uint8_t(rng())
                                               : uint8_t(40 + 50 * ((block + ch) % 4) + rng() % 12);
          }
        if (with_conf) {
          c.confidence = ImageF(w, h, 1);
          for (float& v : c.confidence.data) {
            const uint64_t r = rng() % 16;
            v = r == 0 ? 0.f : r == 1 ? std::nanf("") : r == 2 ? 1.f : u(rng);
          }
        }
        c.what = std::to_string(s.w) + "x" + std::to_string(s.h) + " depth " + std::to_string(w) + "x" +
                 std::to_string(h) + " " + kinds[kind] + (with_conf ? " with confidence" : "");
        cases.push_back(std::move(c));
      }
  return cases;
}

}  // namespace satlab::gpu
