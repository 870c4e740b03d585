#include "core/depth_sources.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/stereo.hpp"

namespace satlab {
namespace {

void check_depth(const ImageF& d, const char* what) {
  if (d.empty() || d.channels != 1 || d.data.size() != d.pixels())
    throw Error(std::string(what) + ": need a 1-channel depth map (got " + std::to_string(d.width) + "x" +
                std::to_string(d.height) + "x" + std::to_string(d.channels) + ")");
}

void check_depths(float near_depth, float far_depth, const char* what) {
  if (!(near_depth > 0.f && far_depth > near_depth && std::isfinite(far_depth)))
    throw Error(std::string(what) + ": needs the case's near and far depths (0 < near < far), got " +
                std::to_string(near_depth) + " and " + std::to_string(far_depth));
}

// The footprint of output sample i of n over [0, N): [i N / n, (i+1) N / n) and each input pixel's
// overlap with it, as (first pixel, weights).
struct Footprint {
  int first = 0;
  std::vector<double> weight;
};
std::vector<Footprint> footprints(int in, int out) {
  std::vector<Footprint> f(size_t(out), Footprint{});
  const double s = double(in) / double(out);
  for (int i = 0; i < out; ++i) {
    const double a = i * s, b = (i + 1) * s;
    const int x0 = int(std::floor(a)), x1 = std::min(in, int(std::ceil(b)));
    f[size_t(i)].first = x0;
    for (int x = x0; x < x1; ++x)
      f[size_t(i)].weight.push_back(std::min(b, x + 1.0) - std::max(a, double(x)));
  }
  return f;
}

// A smooth field in [-1, 1]: values on a grid of `cell` px, smoothstep-interpolated.
struct ValueNoise {
  int gw = 0, gh = 0, cell = 1;
  std::vector<double> v;
  ValueNoise(int width, int height, int cell_px, uint64_t seed) : cell(cell_px) {
    gw = width / cell + 2, gh = height / cell + 2;
    v.resize(size_t(gw) * size_t(gh));
    SplitMix64 g(seed);
    for (double& x : v) x = 2.0 * g.uniform() - 1.0;
  }
  double at(int x, int y) const {
    const double fx = (x + 0.5) / cell, fy = (y + 0.5) / cell;
    const int ix = int(fx), iy = int(fy);
    auto s = [](double t) { return t * t * (3 - 2 * t); };
    const double tx = s(fx - ix), ty = s(fy - iy);
    auto g = [&](int i, int j) { return v[size_t(j) * size_t(gw) + size_t(i)]; };
    const double top = g(ix, iy) + tx * (g(ix + 1, iy) - g(ix, iy));
    const double bottom = g(ix, iy + 1) + tx * (g(ix + 1, iy + 1) - g(ix, iy + 1));
    return top + ty * (bottom - top);
  }
};

}  // namespace

double SplitMix64::gaussian() {
  const double u1 = uniform(), u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

const std::vector<std::string>& depth_source_names() {
  static const std::vector<std::string> names = {"exact", "phone", "phone_noisy", "stereo", "brush", "selection"};
  return names;
}

std::string depth_source_list() {
  std::string s;
  for (const std::string& n : depth_source_names()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

DepthSourceOrigin depth_source_origin(const std::string& name) {
  if (name == "exact") return {DepthOrigin::File, false};
  if (name == "phone" || name == "phone_noisy") return {DepthOrigin::Embedded, true};
  if (name == "stereo") return {DepthOrigin::Stereo, false};
  if (name == "brush") return {DepthOrigin::Brush, false};
  if (name == "selection") return {DepthOrigin::Synthetic, false};  // as the app's selection depth
  throw Error("unknown depth source '" + name + "' (valid: " + depth_source_list() + ")");
}

ImageF area_downsample(const ImageF& depth, int width, int height) {
  check_depth(depth, "area_downsample");
  if (width < 1 || height < 1 || width > depth.width || height > depth.height)
    throw Error("area_downsample: " + std::to_string(width) + "x" + std::to_string(height) +
                " is not within " + std::to_string(depth.width) + "x" + std::to_string(depth.height));
  const std::vector<Footprint> fx = footprints(depth.width, width), fy = footprints(depth.height, height);
  ImageF rows(width, depth.height);
  for (int y = 0; y < depth.height; ++y)
    for (int i = 0; i < width; ++i) {
      const Footprint& f = fx[size_t(i)];
      double sum = 0, area = 0;
      for (size_t k = 0; k < f.weight.size(); ++k)
        sum += f.weight[k] * double(depth.at(f.first + int(k), y)), area += f.weight[k];
      rows.at(i, y) = float(sum / area);
    }
  ImageF out(width, height);
  for (int j = 0; j < height; ++j)
    for (int x = 0; x < width; ++x) {
      const Footprint& f = fy[size_t(j)];
      double sum = 0, area = 0;
      for (size_t k = 0; k < f.weight.size(); ++k)
        sum += f.weight[k] * double(rows.at(x, f.first + int(k))), area += f.weight[k];
      out.at(x, j) = float(sum / area);
    }
  return out;
}

void quantise_8bit(ImageF& depth) {
  for (float& v : depth.data)
    if (!std::isnan(v)) v = float(std::lround(double(std::clamp(v, 0.f, 1.f)) * 255.0)) / 255.f;
}

ImageF shift_clamped(const ImageF& depth, int dx, int dy) {
  check_depth(depth, "shift_clamped");
  ImageF out(depth.width, depth.height);
  for (int y = 0; y < depth.height; ++y)
    for (int x = 0; x < depth.width; ++x)
      out.at(x, y) =
          depth.at(std::clamp(x - dx, 0, depth.width - 1), std::clamp(y - dy, 0, depth.height - 1));
  return out;
}

namespace {
int phone_size(int full) {
  return std::max(1, (full + kPhoneScale - 1) / kPhoneScale);
}
}  // namespace

DepthSource phone_depth(const ImageF& exact) {
  check_depth(exact, "phone depth");
  DepthSource s;
  s.depth = area_downsample(exact, phone_size(exact.width), phone_size(exact.height));
  quantise_8bit(s.depth);
  return s;
}

DepthSource phone_noisy_depth(const ImageF& exact, uint64_t seed) {
  check_depth(exact, "phone_noisy depth");
  const auto [lo, hi] = std::minmax_element(exact.data.begin(), exact.data.end());
  const double sigma = double(kPhoneNoise) * double(*hi - *lo);
  DepthSource s;
  s.depth = area_downsample(shift_clamped(exact, kPhoneShift, kPhoneShift), phone_size(exact.width),
                            phone_size(exact.height));
  for (size_t i = 0; i < s.depth.data.size(); ++i) {
    SplitMix64 g(seed ^ (0x9e3779b97f4a7c15ull * (uint64_t(i) + 1)));
    s.depth.data[i] = float(double(s.depth.data[i]) + sigma * g.gaussian());
  }
  quantise_8bit(s.depth);
  return s;
}

BrushObjects brush_objects(const ImageF& exact, float near_depth, float far_depth) {
  check_depth(exact, "brush depth");
  check_depths(near_depth, far_depth, "brush depth");
  const int w = exact.width, h = exact.height;
  const size_t n = exact.pixels();
  // Bands uniform in 1/z.
  const double inv_near = 1.0 / near_depth, inv_range = inv_near - 1.0 / far_depth;
  std::vector<int> level(n);
  for (size_t i = 0; i < n; ++i) {
    const double z = near_depth + double(exact.data[i]) * (double(far_depth) - near_depth);
    const double t = (inv_near - 1.0 / z) / inv_range;
    level[i] = std::clamp(int(std::floor(t * kBrushLevels)), 0, kBrushLevels - 1);
  }
  // 4-connected regions of one level, labelled in scan order (a stack fill).
  BrushObjects o;
  o.label.assign(n, -1);
  std::vector<size_t> stack;
  std::vector<float> members;
  for (size_t start = 0; start < n; ++start) {
    if (o.label[start] >= 0) continue;
    const int id = int(o.depth.size());
    members.clear();
    stack.push_back(start);
    o.label[start] = id;
    while (!stack.empty()) {
      const size_t i = stack.back();
      stack.pop_back();
      members.push_back(exact.data[i]);
      const int x = int(i % size_t(w)), y = int(i / size_t(w));
      const size_t nb[4] = {x > 0 ? i - 1 : i, x + 1 < w ? i + 1 : i, y > 0 ? i - size_t(w) : i,
                            y + 1 < h ? i + size_t(w) : i};
      for (size_t j : nb)
        if (o.label[j] < 0 && level[j] == level[i]) o.label[j] = id, stack.push_back(j);
    }
    const size_t mid = (members.size() - 1) / 2;
    std::nth_element(members.begin(), members.begin() + long(mid), members.end());
    o.depth.push_back(members[mid]);
  }
  return o;
}

std::vector<int8_t> brush_displacement(int width, int height, uint64_t seed) {
  const ValueNoise nx(width, height, kBrushCell, seed ^ 0x1234567u),
      ny(width, height, kBrushCell, seed ^ 0x7654321u);
  std::vector<int8_t> off(size_t(width) * size_t(height) * 2);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double dx = kBrushDisplacement * nx.at(x, y), dy = kBrushDisplacement * ny.at(x, y);
      const double len = std::sqrt(dx * dx + dy * dy);
      if (len > kBrushDisplacement) dx *= kBrushDisplacement / len, dy *= kBrushDisplacement / len;
      const size_t i = (size_t(y) * size_t(width) + size_t(x)) * 2;
      off[i] = int8_t(std::trunc(dx)), off[i + 1] = int8_t(std::trunc(dy));  // truncation keeps |.| <= 6
    }
  return off;
}

DepthSource brush_depth(const ImageF& exact, float near_depth, float far_depth, uint64_t seed) {
  const BrushObjects o = brush_objects(exact, near_depth, far_depth);
  const int w = exact.width, h = exact.height;
  const std::vector<int8_t> off = brush_displacement(w, h, seed);
  DepthSource s;
  s.depth = ImageF(w, h);
  std::vector<int32_t> painted(exact.pixels());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const size_t i = size_t(y) * size_t(w) + size_t(x);
      const int sx = std::clamp(x + off[2 * i], 0, w - 1), sy = std::clamp(y + off[2 * i + 1], 0, h - 1);
      painted[i] = o.label[size_t(sy) * size_t(w) + size_t(sx)];
      s.depth.data[i] = o.depth[size_t(painted[i])];
    }
  // Confidence: distance to the nearest pixel painted with another depth, within kBrushDisplacement.
  const int r = kBrushDisplacement;
  s.confidence = ImageF(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float v = s.depth.at(x, y);
      int best = r * r + 1;
      for (int j = std::max(0, y - r); j <= std::min(h - 1, y + r); ++j)
        for (int i = std::max(0, x - r); i <= std::min(w - 1, x + r); ++i) {
          const int d2 = (i - x) * (i - x) + (j - y) * (j - y);
          if (d2 < best && s.depth.at(i, j) != v) best = d2;
        }
      s.confidence.at(x, y) = best > r * r ? 1.f : float(std::sqrt(double(best)) / (r + 1));
    }
  return s;
}

DepthSource stereo_depth(const ImageRGBA8& left, const ImageRGBA8& right, double disparity_scale,
                         float near_depth, float far_depth, int threads) {
  check_depths(near_depth, far_depth, "stereo depth");
  if (left.empty() || right.width != left.width || right.height != left.height)
    throw Error("stereo depth: the left and right views differ in size (or are empty)");
  if (!(disparity_scale > 0 && std::isfinite(disparity_scale)))
    throw Error("stereo depth: needs the pair's disparity scale (focal_px * baseline > 0)");
  // `satlab depth stereo`'s defaults, with the search widened where the nearest depth needs it.
  StereoParams p;
  p.disparities = std::max(65, int(std::ceil(disparity_scale / near_depth)) + 2);
  p.wide_radius = std::min(StereoParams{}.wide_radius, stereo_max_wide_radius(p.window_radius));
  const StereoResult r = stereo_match(left, right, p, threads);
  DepthSource s;
  s.depth = ImageF(left.width, left.height);
  s.confidence = ImageF(left.width, left.height);
  const double range = double(far_depth) - near_depth;
  for (size_t i = 0; i < s.depth.data.size(); ++i) {
    const float D = r.disparity.data[i];
    if (D == kNoDisparity) {
      s.depth.data[i] = std::numeric_limits<float>::quiet_NaN();
      continue;
    }
    const double z = D > 0 ? disparity_scale / double(D) : std::numeric_limits<double>::infinity();
    s.depth.data[i] = float(std::clamp((z - near_depth) / range, 0.0, 1.0));
    s.confidence.data[i] = r.raw.data[i] != kNoDisparity ? 1.f : 0.f;
  }
  return s;
}

DepthSource selection_depth(const ImageRGBA8& image, const ImageF& exact, const std::vector<SelectClick>& clicks,
                            int threads, const SelectParams& p) {
  check_depth(exact, "exact depth");
  if (image.width != exact.width || image.height != exact.height)
    throw Error("depth source selection: the image and the depth differ in size");
  struct Object {
    float d;
    ImageF alpha;
  };
  std::vector<Object> objects;
  for (const SelectClick& c : clicks) {
    const int x = std::clamp(int(c.x), 0, exact.width - 1), y = std::clamp(int(c.y), 0, exact.height - 1);
    objects.push_back({exact.at(x, y), select_subject_cpu(image, {c}, p, threads).alpha});
  }
  std::vector<float> rest;
  for (size_t i = 0; i < exact.pixels(); ++i)
    if (std::all_of(objects.begin(), objects.end(), [&](const Object& o) { return o.alpha.data[i] < 0.5f; }))
      rest.push_back(exact.data[i]);
  float background = 1.f;
  if (!rest.empty()) {
    std::nth_element(rest.begin(), rest.begin() + rest.size() / 2, rest.end());
    background = rest[rest.size() / 2];
  }
  std::stable_sort(objects.begin(), objects.end(), [](const Object& a, const Object& b) { return a.d > b.d; });
  ImageF depth(exact.width, exact.height);
  std::fill(depth.data.begin(), depth.data.end(), background);
  for (const Object& o : objects)
    for (size_t i = 0; i < depth.pixels(); ++i) {
      if (o.alpha.data[i] >= 0.5f) depth.data[i] = o.d;
    }
  return {std::move(depth), ImageF()};
}

DepthSource make_depth_source(const std::string& name, const DepthSourceInput& in, int threads) {
  depth_source_origin(name);  // checks the name
  if (!in.exact) throw Error("depth source " + name + ": no exact depth");
  if (name == "exact") {
    check_depth(*in.exact, "exact depth");
    return {*in.exact, ImageF()};
  }
  if (name == "phone") return phone_depth(*in.exact);
  if (name == "phone_noisy") return phone_noisy_depth(*in.exact, in.seed);
  if (name == "brush") return brush_depth(*in.exact, in.near_depth, in.far_depth, in.seed);
  if (name == "selection") {
    if (!in.left || in.clicks.empty())
      throw Error("depth source selection: the case has no clicks (tools/gen_cutouts writes them)");
    return selection_depth(*in.left, *in.exact, in.clicks, threads, in.select);
  }
  if (!in.left || !in.right || in.right->empty())
    throw Error("depth source stereo: the case has no right view (gen_scene --truth writes one)");
  if (in.left->width != in.exact->width || in.left->height != in.exact->height)
    throw Error("depth source stereo: the image and the depth differ in size");
  return stereo_depth(*in.left, *in.right, in.disparity_scale, in.near_depth, in.far_depth, threads);
}

}  // namespace satlab
