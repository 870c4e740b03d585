#include "core/quality.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "core/reference.hpp"

namespace satlab {
namespace {

void check_sizes(const ImageRGBA8& a, const ImageRGBA8& b, const Mask* mask) {
  if (a.width != b.width || a.height != b.height)
    throw Error("quality: image sizes differ (" + std::to_string(a.width) + "x" + std::to_string(a.height) +
                " and " + std::to_string(b.width) + "x" + std::to_string(b.height) + ")");
  if (mask && mask->size() != a.pixels()) throw Error("quality: mask size does not match the image");
}

// Separable Gaussian filter of a 1-channel plane, window clipped at the border and renormalised.
std::vector<double> gauss(const std::vector<double>& in, int w, int h) {
  constexpr int R = 5;
  double k[2 * R + 1];
  for (int i = -R; i <= R; ++i) k[i + R] = std::exp(-double(i * i) / (2 * 1.5 * 1.5));
  std::vector<double> tmp(in.size()), out(in.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double s = 0, n = 0;
      for (int i = std::max(-R, -x); i <= std::min(R, w - 1 - x); ++i)
        s += k[i + R] * in[size_t(y) * w + x + i], n += k[i + R];
      tmp[size_t(y) * w + x] = s / n;
    }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double s = 0, n = 0;
      for (int i = std::max(-R, -y); i <= std::min(R, h - 1 - y); ++i)
        s += k[i + R] * tmp[size_t(y + i) * w + x], n += k[i + R];
      out[size_t(y) * w + x] = s / n;
    }
  return out;
}

}  // namespace

double psnr(const ImageRGBA8& a, const ImageRGBA8& b, const Mask* mask) {
  check_sizes(a, b, mask);
  double sum = 0;
  size_t n = 0;
  for (size_t i = 0; i < a.pixels(); ++i) {
    if (mask && !(*mask)[i]) continue;
    for (int c = 0; c < 3; ++c) {
      const double d = double(a.data[i * 4 + c]) - double(b.data[i * 4 + c]);
      sum += d * d;
    }
    ++n;
  }
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  if (sum == 0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(255.0 * 255.0 / (sum / double(3 * n)));
}

ImageF ssim_map(const ImageRGBA8& a, const ImageRGBA8& b) {
  check_sizes(a, b, nullptr);
  const int w = a.width, h = a.height;
  const size_t n = a.pixels();
  const double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
  ImageF map(w, h, 1);
  std::vector<double> x(n), y(n), xx(n), yy(n), xy(n), sum(n, 0.0);
  for (int c = 0; c < 3; ++c) {
    for (size_t i = 0; i < n; ++i) {
      x[i] = a.data[i * 4 + c], y[i] = b.data[i * 4 + c];
      xx[i] = x[i] * x[i], yy[i] = y[i] * y[i], xy[i] = x[i] * y[i];
    }
    const auto mx = gauss(x, w, h), my = gauss(y, w, h), sxx = gauss(xx, w, h), syy = gauss(yy, w, h),
               sxy = gauss(xy, w, h);
    for (size_t i = 0; i < n; ++i) {
      const double vx = sxx[i] - mx[i] * mx[i], vy = syy[i] - my[i] * my[i], cov = sxy[i] - mx[i] * my[i];
      const double s = ((2 * mx[i] * my[i] + c1) * (2 * cov + c2)) /
                       ((mx[i] * mx[i] + my[i] * my[i] + c1) * (vx + vy + c2));
      sum[i] += s;
    }
  }
  for (size_t i = 0; i < n; ++i) map.data[i] = float(sum[i] / 3.0);
  return map;
}

Scores score(const ImageRGBA8& a, const ImageRGBA8& b, const Mask& band) {
  check_sizes(a, b, &band);
  const ImageF map = ssim_map(a, b);
  Scores s;
  s.whole.psnr = psnr(a, b);
  s.band.psnr = psnr(a, b, &band);
  double all = 0, in = 0;
  for (size_t i = 0; i < map.data.size(); ++i) {
    all += map.data[i];
    if (band[i]) in += map.data[i], ++s.band.pixels;
  }
  s.whole.pixels = a.pixels();
  s.whole.ssim = all / double(a.pixels());
  s.band.ssim = s.band.pixels ? in / double(s.band.pixels) : std::numeric_limits<double>::quiet_NaN();
  return s;
}

Mask depth_edges(const ImageF& coc, float jump) {
  if (coc.channels != 1) throw Error("depth_edges: the CoC map must have 1 channel");
  const int w = coc.width, h = coc.height;
  Mask m(coc.pixels(), 0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float c = coc.at(x, y);
      auto edge = [&](int qx, int qy) { return std::fabs(c - coc.at(qx, qy)) > jump; };  // NaN: false
      const bool e = (x > 0 && edge(x - 1, y)) || (x + 1 < w && edge(x + 1, y)) ||
                     (y > 0 && edge(x, y - 1)) || (y + 1 < h && edge(x, y + 1));
      m[size_t(y) * w + x] = e;
    }
  return m;
}

Mask dilate(const Mask& edges, int width, int height, float radius) {
  if (edges.size() != size_t(width) * size_t(height)) throw Error("dilate: mask size does not match");
  Mask out(edges.size(), 0);
  const int r = radius > 0 ? int(std::floor(radius)) : 0;
  const double r2 = double(radius) * double(radius);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      if (!edges[size_t(y) * width + x]) continue;
      for (int dy = -r; dy <= r; ++dy) {
        const int yy = y + dy;
        if (yy < 0 || yy >= height) continue;
        const int span = int(std::floor(std::sqrt(std::max(0.0, r2 - double(dy) * dy))));
        for (int xx = std::max(0, x - span); xx <= std::min(width - 1, x + span); ++xx)
          out[size_t(yy) * width + xx] = 1;
      }
    }
  return out;
}

size_t count(const Mask& m) {
  size_t n = 0;
  for (uint8_t v : m) n += v != 0;
  return n;
}

}  // namespace satlab

namespace satlab {

Mask occlusion_band(const ImageF& depth, const Params& p) {
  const ImageF coc = coc_map(normalise_depth(depth), p);
  return dilate(depth_edges(coc, kDepthEdgeJump), coc.width, coc.height, p.max_radius);
}

double warping_error(const ImageRGBA8& cur, const ImageRGBA8& prev, const std::vector<uint8_t>& ids_cur,
                     const std::vector<uint8_t>& ids_prev, const std::vector<std::pair<double, double>>& motion,
                     size_t* valid) {
  const int w = cur.width, h = cur.height;
  if (prev.width != w || prev.height != h || ids_cur.size() != cur.pixels() || ids_prev.size() != cur.pixels())
    throw Error("warping error: the frames and their object maps differ in size");
  double sum = 0;
  size_t n = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const uint8_t id = ids_cur[size_t(y) * size_t(w) + size_t(x)];
      const auto& m = id < motion.size() ? motion[id] : std::pair<double, double>{0.0, 0.0};
      const long sx = x - std::lround(m.first), sy = y - std::lround(m.second);
      if (sx < 0 || sy < 0 || sx >= w || sy >= h || ids_prev[size_t(sy) * size_t(w) + size_t(sx)] != id) continue;
      const uint8_t* a = cur.px(x, y);
      const uint8_t* b = prev.px(int(sx), int(sy));
      for (int c = 0; c < 3; ++c) {
        const double d = (double(a[c]) - double(b[c])) / 255.0;
        sum += d * d;
      }
      ++n;
    }
  if (valid) *valid = n;
  return n ? sum / double(n) : std::nan("");
}

DotShape dot_shape(const ImageRGBA8& truth, const ImageRGBA8& out, double x, double y, int reach) {
  if (truth.width != out.width || truth.height != out.height) throw Error("dot_shape: the images differ in size");
  const int cx = int(std::floor(x)), cy = int(std::floor(y));
  const int x0 = std::max(cx - reach, 0), x1 = std::min(cx + reach, truth.width - 1);
  const int y0 = std::max(cy - reach, 0), y1 = std::min(cy + reach, truth.height - 1);
  const auto lum = [](const ImageRGBA8& im, int px, int py) {
    const uint8_t* q = im.px(px, py);
    return int(q[0]) + int(q[1]) + int(q[2]);
  };
  int peak[2] = {0, 0};
  for (int py = y0; py <= y1; ++py)
    for (int px = x0; px <= x1; ++px)
      peak[0] = std::max(peak[0], lum(truth, px, py)), peak[1] = std::max(peak[1], lum(out, px, py));
  DotShape d;
  if (!peak[0] || !peak[1]) {
    d.shift = std::nan("");
    return d;
  }
  long both = 0, any = 0, n[2] = {0, 0};
  double sx[2] = {0, 0}, sy[2] = {0, 0};
  for (int py = y0; py <= y1; ++py)
    for (int px = x0; px <= x1; ++px) {
      const bool a = 2 * lum(truth, px, py) >= peak[0], b = 2 * lum(out, px, py) >= peak[1];
      both += a && b, any += a || b;
      if (a) ++n[0], sx[0] += px, sy[0] += py;
      if (b) ++n[1], sx[1] += px, sy[1] += py;
    }
  d.iou = double(both) / double(any);
  d.shift = std::hypot(sx[0] / double(n[0]) - sx[1] / double(n[1]), sy[0] / double(n[0]) - sy[1] / double(n[1]));
  return d;
}

}  // namespace satlab
