#include "core/preview.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/dof.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/reference.hpp"

namespace satlab {
namespace {

void check_scale(double scale, const char* what) {
  if (!(scale > 0.0 && scale <= 1.0))
    throw Error(std::string(what) + ": scale " + std::to_string(scale) + " is not in (0, 1]");
}

std::string rect_text(const PixelRect& r) {
  return std::to_string(r.width()) + "x" + std::to_string(r.height()) + " at (" + std::to_string(r.x0) +
         ", " + std::to_string(r.y0) + ")";
}

// The input pixels [first, first + weight.size()) an output pixel covers, each by the part in its footprint.
struct Footprint {
  int first = 0;
  std::vector<float> weight;
};

// Output pixel i of n covers [begin + i f, begin + (i + 1) f), f = length / n >= 1.
std::vector<Footprint> footprints(int begin, int length, int n) {
  std::vector<Footprint> out(static_cast<size_t>(n));
  const double f = double(length) / double(n);
  for (int i = 0; i < n; ++i) {
    const double a = begin + i * f, b = i + 1 == n ? double(begin + length) : begin + (i + 1) * f;
    Footprint& fp = out[size_t(i)];
    fp.first = int(std::floor(a));
    const int last = std::min(int(std::ceil(b)), begin + length);
    for (int k = fp.first; k < last; ++k) {
      const double w = std::min(b, double(k + 1)) - std::max(a, double(k));
      fp.weight.push_back(float(w / f));  // the weights of a footprint sum to 1
    }
  }
  return out;
}

// The area average of `region` of a C-channel image (pixel (x, y) channel c at at(x, y, c)) onto w x h:
// one output row at a time, each input row of its footprint reduced along x first and added by its weight.
template <typename At, typename Store>
void downscale(const PixelRect& region, int w, int h, int channels, int threads, At at, Store store) {
  const std::vector<Footprint> fx = footprints(region.x0, region.width(), w);
  const std::vector<Footprint> fy = footprints(region.y0, region.height(), h);
  parallel_for(
      0, h,
      [&](long j0, long j1) {
        std::vector<double> acc(size_t(w) * size_t(channels));
        for (long j = j0; j < j1; ++j) {
          std::fill(acc.begin(), acc.end(), 0.0);
          const Footprint& fpy = fy[size_t(j)];
          for (size_t ky = 0; ky < fpy.weight.size(); ++ky) {
            const int y = fpy.first + int(ky);
            const double wy = fpy.weight[ky];
            for (int i = 0; i < w; ++i) {
              const Footprint& fpx = fx[size_t(i)];
              for (int c = 0; c < channels; ++c) {
                double sum = 0;
                for (size_t kx = 0; kx < fpx.weight.size(); ++kx)
                  sum += double(fpx.weight[kx]) * double(at(fpx.first + int(kx), y, c));
                acc[size_t(i) * size_t(channels) + size_t(c)] += wy * sum;
              }
            }
          }
          for (int i = 0; i < w; ++i)
            for (int c = 0; c < channels; ++c)
              store(i, int(j), c, acc[size_t(i) * size_t(channels) + size_t(c)]);
        }
      },
      threads);
}

void check_downscale(int image_w, int image_h, const PixelRect& region, int w, int h) {
  if (region.empty() || region.x0 < 0 || region.y0 < 0 || region.x1 > image_w || region.y1 > image_h)
    throw Error("downscale_box: region " + rect_text(region) + " is not within the image of " +
                std::to_string(image_w) + "x" + std::to_string(image_h));
  if (w < 1 || h < 1 || w > region.width() || h > region.height())
    throw Error("downscale_box: " + std::to_string(w) + "x" + std::to_string(h) +
                " is not within the region's " + std::to_string(region.width()) + "x" +
                std::to_string(region.height()));
}

}  // namespace

Params scale_params(const Params& p, double scale) {
  check_scale(scale, "scale_params");
  Params q = p;
  q.box_radius = int(std::lround(p.box_radius * scale));
  q.max_radius = float(p.max_radius * scale);
  q.aperture = float(p.aperture * scale);
  q.highlight_cap = int(std::max(1.0, std::round(p.highlight_cap * scale * scale)));
  return q;
}

float filter_reach(const Params& p) {
  return p.filter == FilterKind::Box ? float(p.box_radius) : p.max_radius;
}

ImageRGBA8 downscale_box(const ImageRGBA8& image, const PixelRect& region, int width, int height,
                         int threads) {
  check_downscale(image.width, image.height, region, width, height);
  ImageRGBA8 out(width, height);
  downscale(
      region, width, height, 4, threads, [&](int x, int y, int c) { return image.px(x, y)[c]; },
      [&](int x, int y, int c, double v) {
        out.px(x, y)[c] = uint8_t(std::min(255.0, std::floor(v + 0.5)));
      });
  return out;
}

ImageF downscale_box(const ImageF& image, const PixelRect& region, int width, int height, int threads) {
  check_downscale(image.width, image.height, region, width, height);
  ImageF out(width, height, image.channels);
  downscale(
      region, width, height, image.channels, threads, [&](int x, int y, int c) { return image.at(x, y, c); },
      [&](int x, int y, int c, double v) { out.at(x, y, c) = float(v); });
  return out;
}

PreviewPlan plan_preview(int image_width, int image_height, const PixelRect& visible, double scale,
                         float reach_px) {
  check_scale(scale, "plan_preview");
  if (visible.empty() || visible.x0 < 0 || visible.y0 < 0 || visible.x1 > image_width ||
      visible.y1 > image_height)
    throw Error("plan_preview: the visible region " + rect_text(visible) + " is not within the image of " +
                std::to_string(image_width) + "x" + std::to_string(image_height));
  PreviewPlan plan;
  plan.scale = scale;
  // The halo, in preview pixels: the scaled reach and 2 more.
  if (!(reach_px >= 0.f && std::isfinite(reach_px)))
    throw Error("plan_preview: reach " + std::to_string(reach_px) + " is not a length");
  const int reach = int(std::ceil(reach_px * scale));
  const int halo = int(std::ceil((reach + 2) / scale));
  plan.source = {std::max(visible.x0 - halo, 0), std::max(visible.y0 - halo, 0),
                 std::min(visible.x1 + halo, image_width), std::min(visible.y1 + halo, image_height)};
  plan.width = std::max(1, int(std::lround(plan.source.width() * scale)));
  plan.height = std::max(1, int(std::lround(plan.source.height() * scale)));
  return plan;
}

FrameStats whole_frame_stats(const ImageF& depth, int threads) {
  FrameStats st;
  st.valid = true;
  if (depth.empty()) return st;
  if (depth.channels != 1) throw Error("whole_frame_stats: the depth map must have one channel");
  st.has_depth = true;
  const MinMax m = minmax_reduce(depth.data.data(), depth.data.size(), threads);
  st.depth_min = m.min, st.depth_max = m.max;
  ImageF normalised;
  normalise_depth(depth, m, normalised, threads);
  depth_histogram(normalised, st.histogram, threads);
  return st;
}

}  // namespace satlab
