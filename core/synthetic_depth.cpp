#include "core/synthetic_depth.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/dof.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/reference.hpp"

namespace satlab {
namespace {

constexpr float kPi = 3.14159265358979f;

struct Key {
  const char* name;
  float SyntheticDepth::*field;
};
constexpr Key kGradientKeys[] = {
    {"angle", &SyntheticDepth::angle}, {"pos", &SyntheticDepth::position}, {"width", &SyntheticDepth::width}};
constexpr Key kRadialKeys[] = {
    {"x", &SyntheticDepth::centre_x}, {"y", &SyntheticDepth::centre_y}, {"radius", &SyntheticDepth::radius}};

float parse_number(const std::string& key, const std::string& text) {
  char* end = nullptr;
  const float v = std::strtof(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v))
    throw Error("synthetic depth: " + key + "='" + text + "' is not a number");
  return v;
}

}  // namespace

const char* to_string(SyntheticDepth::Mode m) {
  switch (m) {
    case SyntheticDepth::Mode::None:
      return "none";
    case SyntheticDepth::Mode::Gradient:
      return "gradient";
    case SyntheticDepth::Mode::Radial:
      return "radial";
  }
  return "none";
}

void validate(const SyntheticDepth& s) {
  auto bad = [](const std::string& what) { throw Error("synthetic depth out of range: " + what); };
  if (!(std::fabs(s.angle) <= 360.f)) bad("angle must be in [-360, 360] degrees");
  if (!(s.position >= 0.f && s.position <= 1.f)) bad("pos must be in [0, 1]");
  if (!(s.width >= 0.01f && s.width <= 10.f)) bad("width must be in [0.01, 10]");
  if (!(s.centre_x >= 0.f && s.centre_x <= 1.f)) bad("x must be in [0, 1]");
  if (!(s.centre_y >= 0.f && s.centre_y <= 1.f)) bad("y must be in [0, 1]");
  if (!(s.radius >= 0.01f && s.radius <= 10.f)) bad("radius must be in [0.01, 10]");
}

SyntheticDepth parse_synthetic_depth(const std::string& spec) {
  SyntheticDepth s;
  const auto colon = spec.find(':');
  const std::string mode = spec.substr(0, colon);
  const Key* keys = nullptr;
  if (mode == "none")
    s.mode = SyntheticDepth::Mode::None;
  else if (mode == "gradient")
    s.mode = SyntheticDepth::Mode::Gradient, keys = kGradientKeys;
  else if (mode == "radial")
    s.mode = SyntheticDepth::Mode::Radial, keys = kRadialKeys;
  else
    throw Error("synthetic depth: unknown mode '" + mode + "' (expected none, gradient or radial)");
  if (colon == std::string::npos) return s;
  if (!keys) throw Error("synthetic depth: mode none takes no keys");
  std::string rest = spec.substr(colon + 1);
  size_t start = 0;
  while (start <= rest.size()) {
    const size_t comma = std::min(rest.find(',', start), rest.size());
    const std::string item = rest.substr(start, comma - start);
    const size_t eq = item.find('=');
    if (eq == std::string::npos) throw Error("synthetic depth: expected key=value, got '" + item + "'");
    const std::string key = item.substr(0, eq);
    const Key* k = std::find_if(keys, keys + 3, [&](const Key& c) { return key == c.name; });
    if (k == keys + 3)
      throw Error("synthetic depth: unknown key '" + key + "' for " + mode + " (expected " + keys[0].name +
                  ", " + keys[1].name + " or " + keys[2].name + ")");
    s.*(k->field) = parse_number(key, item.substr(eq + 1));
    start = comma + 1;
  }
  validate(s);
  return s;
}

std::string to_spec(const SyntheticDepth& s) {
  if (s.mode == SyntheticDepth::Mode::None) return "none";
  const Key* keys = s.mode == SyntheticDepth::Mode::Gradient ? kGradientKeys : kRadialKeys;
  std::string out = to_string(s.mode);
  for (int i = 0; i < 3; ++i) {
    // The fewest digits that read back as the same float: 0.4, not 0.400000006.
    const float v = s.*(keys[i].field);
    char num[32];
    for (int digits = 6; digits <= 9; ++digits) {
      std::snprintf(num, sizeof(num), "%.*g", digits, double(v));
      if (std::strtof(num, nullptr) == v) break;
    }
    out += std::string(i ? "," : ":") + keys[i].name + "=" + num;
  }
  return out;
}

ImageF make_synthetic_depth(const SyntheticDepth& s, int width, int height) {
  validate(s);
  if (s.mode == SyntheticDepth::Mode::None || width <= 0 || height <= 0) return {};
  ImageF d(width, height, 1);
  synthetic_depth_rows(s, width, height, 0, height, d.data.data(), size_t(width));
  return d;
}

namespace {

// The map's value at pixel (x, y), for synthetic_depth_rows and synthetic_frame_stats alike. Every step is
// one correctly rounded operation (no FMA contraction in core/) on an argument monotone in x, so along a
// row the gradient is monotone and the radial map falls to the centre's column, then rises.
struct SyntheticMap {
  bool gradient = true;
  float dx = 0, dy = 0, centre = 0, ramp = 1;  // gradient
  float cx = 0, cy = 0, r = 1;                 // radial
  SyntheticMap(const SyntheticDepth& s, int width, int height) {
    const float w = float(width), h = float(height);
    gradient = s.mode == SyntheticDepth::Mode::Gradient;
    if (gradient) {
      // Direction with y up on screen; image rows go down, hence -sin.
      dx = std::cos(s.angle * kPi / 180.f), dy = -std::sin(s.angle * kPi / 180.f);
      // Projections of the image's corners bound the extent along the direction.
      const float lo = std::min(0.f, dx * w) + std::min(0.f, dy * h);
      const float extent = std::fabs(dx) * w + std::fabs(dy) * h;
      centre = lo + s.position * extent, ramp = s.width * extent;
    } else {
      cx = s.centre_x * w, cy = s.centre_y * h, r = s.radius * std::min(w, h);
    }
  }
  float operator()(int x, int y) const {
    if (gradient) {
      const float t = dx * (float(x) + 0.5f) + dy * (float(y) + 0.5f);
      return std::min(std::max((t - centre) / ramp + 0.5f, 0.f), 1.f);
    }
    const float a = float(x) + 0.5f - cx, b = float(y) + 0.5f - cy;
    return std::min(std::sqrt(a * a + b * b) / r, 1.f);
  }
  // The first column of the rising part of a row: 0 for the gradient (one run), the first x at or right of
  // the centre for the radial map.
  int split(int width) const {
    if (gradient) return 0;
    int x = 0;
    while (x < width && float(x) + 0.5f - cx < 0.f) ++x;  // at most the image's width, once a frame
    return x;
  }
};

}  // namespace

void synthetic_depth_rows(const SyntheticDepth& s, int width, int height, int y0, int y1, float* out,
                          size_t stride) {
  validate(s);
  if (s.mode == SyntheticDepth::Mode::None || width <= 0 || height <= 0) return;
  const SyntheticMap map(s, width, height);
  for (int y = y0; y < y1; ++y) {
    float* row = out + size_t(y - y0) * stride;
    for (int x = 0; x < width; ++x) row[x] = map(x, y);
  }
}

FrameStats synthetic_frame_stats(const SyntheticDepth& s, int width, int height, int threads) {
  validate(s);
  FrameStats st;
  if (s.mode == SyntheticDepth::Mode::None || width <= 0 || height <= 0) return st;
  st.valid = st.has_depth = true;
  const SyntheticMap map(s, width, height);
  const int split = map.split(width);
  // A row's runs: [0, split) and [split, width), each monotone (one of them empty for the gradient).
  const int runs[2][2] = {{0, split}, {split, width}};
  // 1. The range: at the ends of the runs.
  float lo = INFINITY, hi = -INFINITY;
  for (int y = 0; y < height; ++y)
    for (const auto& run : runs)
      if (run[0] < run[1])
        for (int x : {run[0], run[1] - 1}) lo = std::min(lo, map(x, y)), hi = std::max(hi, map(x, y));
  st.depth_min = lo, st.depth_max = hi;
  // 2. The histogram of the normalised map (depth_histogram's bin of normalised_depth): along a run the bin
  //    is monotone too, so the pixels of one bin are contiguous; each bin's last pixel is found by galloping
  //    then halving, a few evaluations a bin crossed instead of one a pixel.
  const float range = hi - lo;
  const auto bin = [&](int x, int y) { return depth_bin(normalised_depth(map(x, y), lo, range)); };
  const int chunks = std::max(1, std::min(height, 64));
  std::vector<std::vector<uint64_t>> part(size_t(chunks), std::vector<uint64_t>(kDepthBins + 1, 0));
  parallel_for(
      0, chunks,
      [&](long c0, long c1) {
        for (long c = c0; c < c1; ++c) {
          std::vector<uint64_t>& count = part[size_t(c)];
          for (int y = int(int64_t(height) * c / chunks); y < int(int64_t(height) * (c + 1) / chunks); ++y)
            for (const auto& run : runs)
              for (int x = run[0]; x < run[1];) {
                const int b = bin(x, y);
                int in = x, out = run[1];  // bin(in) == b; out: the run's end or a pixel of another bin
                for (int step = 1; in + step < run[1]; step *= 2) {
                  if (bin(in + step, y) != b) {
                    out = in + step;
                    break;
                  }
                  in += step;
                }
                while (out - in > 1) {
                  const int m = in + (out - in) / 2;
                  (bin(m, y) == b ? in : out) = m;
                }
                count[size_t(b)] += uint64_t(in - x + 1);
                x = in + 1;
              }
        }
      },
      threads);
  std::vector<uint64_t> count(kDepthBins + 1, 0);
  for (const auto& q : part)
    for (int b = 0; b <= kDepthBins; ++b) count[size_t(b)] += q[size_t(b)];
  st.histogram = histogram_of_counts(count);
  return st;
}

}  // namespace satlab
