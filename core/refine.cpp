// CPU references of the depth refiners (core/refine.hpp); the sample-based ones share their arithmetic
// with the GPU through core/refine_pixel.hpp.
#include "core/refine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/bilinear.hpp"
#include "core/error.hpp"
#include "core/guided_filter.hpp"
#include "core/parallel.hpp"
#include "core/refine_grid.hpp"
#include "core/refine_pixel.hpp"

namespace satlab {

ImageF resample_bilinear(const ImageF& depth, int width, int height) {
  if (depth.width == width && depth.height == height) return depth;
  if (depth.empty() || width <= 0 || height <= 0) throw Error("resample_bilinear: empty size");
  ImageF out(width, height, 1);
  bilinear(depth.width, depth.height, width, height, [&](int x, int y, const auto& sample) {
    out.at(x, y) = sample([&](int sx, int sy) { return depth.at(sx, sy); });
  });
  return out;
}

namespace refine {

void check_input(const RefineInput& in) {
  if (!in.image || in.image->empty()) throw Error("refine: no image");
  if (!in.depth || in.depth->empty()) throw Error("refine: no depth");
  if (in.depth->channels != 1) throw Error("refine: the depth has " + std::to_string(in.depth->channels) + " channels, not 1");
  if (in.confidence && (in.confidence->width != in.depth->width || in.confidence->height != in.depth->height ||
                        in.confidence->channels != 1))
    throw Error("refine: the confidence map (" + std::to_string(in.confidence->width) + "x" +
                std::to_string(in.confidence->height) + ") is not the depth's size (" +
                std::to_string(in.depth->width) + "x" + std::to_string(in.depth->height) + ")");
}

bool needs_regrid(int w, int h, int W, int H) { return 2 * w > W || 2 * h > H; }

Grid make_grid(const RefineInput& in) {
  check_input(in);
  const int W = in.image->width, H = in.image->height;
  Grid g;
  g.W = W, g.H = H;
  const ImageF& d = *in.depth;
  if (!needs_regrid(d.width, d.height, W, H)) {
    g.gw = d.width, g.gh = d.height;
    g.depth = d.data;
    if (in.confidence) g.confidence = in.confidence->data;
  } else {
    // Onto the kCell grid: the depth at the image's size first (bilinear where it is not), then each
    // cell's confidence-weighted mean (float64, row-major) and mean confidence.
    const ImageF full = resample_bilinear(d, W, H);
    ImageF conf;
    if (in.confidence) {
      conf = resample_bilinear(*in.confidence, W, H);
      g.full_depth = full.data, g.full_confidence = conf.data;
    }
    g.gw = std::max(1, (W + kCell / 2) / kCell), g.gh = std::max(1, (H + kCell / 2) / kCell);
    g.depth.assign(size_t(g.gw) * size_t(g.gh), 0.f);
    if (in.confidence) g.confidence.assign(g.depth.size(), 0.f);
    parallel_for(0, g.gh, [&](long j0, long j1) {
      for (int j = int(j0); j < int(j1); ++j)
        for (int i = 0; i < g.gw; ++i) {
          const CellSum s = cell_sum(full.data.data(), conf.empty() ? nullptr : conf.data.data(), W, H, g.gw,
                                     g.gh, i, j);
          g.depth[size_t(j) * size_t(g.gw) + size_t(i)] = cell_depth(s);
          if (in.confidence) g.confidence[size_t(j) * size_t(g.gw) + size_t(i)] = cell_confidence(s);
        }
    });
  }
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (float v : g.depth)
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  g.lo = lo, g.hi = hi;
  const float t = kFlatTol * (hi - lo);
  g.tol = std::isfinite(t) ? t : 0.f;
  g.polish_tol = std::isfinite(hi - lo) ? kPolishTol * (hi - lo) : 0.f;
  return g;
}

std::vector<Sample> make_samples(const Grid& g, const ImageRGBA8& image) {
  std::vector<Sample> s(size_t(g.gw) * size_t(g.gh));
  parallel_for(0, g.gh, [&](long j0, long j1) {
    for (int j = int(j0); j < int(j1); ++j)
      for (int i = 0; i < g.gw; ++i)
        s[size_t(j) * size_t(g.gw) + size_t(i)] =
            make_sample(g.depth.data(), g.confidence.empty() ? nullptr : g.confidence.data(), image.data.data(),
                        g.gw, g.gh, g.W, g.H, i, j, g.tol, g.lo, g.hi);
  });
  return s;
}

namespace {

// weight()'s factors as tables (core/refine_pixel.hpp): spatial_factor of every squared distance a window
// sample can be at (|du|, |dv| <= (kWindow + 1) kSubSample), colour_factor of every squared colour difference.
// Without the two divisions a weight, the CPU wmedian is about a tenth faster; the values are the functions'
// own.
struct WeightTables {
  static constexpr int kReach = (kWindow + 1) * kSubSample;
  std::vector<uint32_t> spatial, colour;
  WeightTables() : spatial(size_t(2 * kReach * kReach) + 1), colour(size_t(kMaxColourDistance2) + 1) {
    for (size_t d = 0; d < spatial.size(); ++d) spatial[d] = spatial_factor((long long)d);
    for (size_t d = 0; d < colour.size(); ++d) colour[d] = colour_factor(int(d));
  }
  uint32_t spatial_at(long long ds2) const {
    return ds2 < (long long)spatial.size() ? spatial[size_t(ds2)] : spatial_factor(ds2);
  }
};
const WeightTables& weight_tables() {
  static const WeightTables t;
  return t;
}

}  // namespace

// refine_pixel with weight() through the tables: the same weights, bit for bit.
float refine_pixel_tables(const Window& win, int ci, int cj, int u, int v, const uint8_t rgb[3], Reduce r, float lo,
                          float hi, float polish_tol) {
  const WeightTables& t = weight_tables();
  uint32_t sp[kWindowSamples], w[kWindowSamples];
  const int n = win.n;
  unsigned long long total = 0;
  for (int k = 0; k < n; ++k) {
    const int du = u - (ci + win.i[k]) * kSubSample, dv = v - (cj + win.j[k]) * kSubSample;
    sp[k] = t.spatial_at((long long)du * du + (long long)dv * dv);
    w[k] = combine_weight(sp[k], t.colour[size_t(colour_distance2(win.s[k], rgb))], true, win.s[k].base);
    total += w[k];
  }
  if (total == 0) {  // every colour weight vanished: the weights without colour
    for (int k = 0; k < n; ++k) {
      w[k] = combine_weight(sp[k], 0u, false, win.s[k].base);
      total += w[k];
    }
  }
  return reduce_window(win, ci, cj, u, v, w, total, r, lo, hi, polish_tol);
}

ImageF refine_samples(const Grid& g, const std::vector<Sample>& samples, const ImageRGBA8& image, Reduce r,
                      int threads) {
  (void)weight_tables();  // made before the threads start
  ImageF out(g.W, g.H, 1);
  parallel_for(
      0, g.H,
      [&](long y0, long y1) {
        Window win;
        int have_ci = -1, have_cj = -1;
        for (int y = int(y0); y < int(y1); ++y) {
          const int v = grid_pos(y, g.gh, g.H), cj = nearest_sample(v, g.gh);
          for (int x = 0; x < g.W; ++x) {
            const int u = grid_pos(x, g.gw, g.W), ci = nearest_sample(u, g.gw);
            if (ci != have_ci || cj != have_cj) {
              gather_window(samples.data(), g.gw, g.gh, ci, cj, win);
              have_ci = ci, have_cj = cj;
            }
            const float q = refine_pixel_tables(win, ci, cj, u, v, image.px(x, y), r, g.lo, g.hi, g.polish_tol);
            const size_t p = size_t(y) * size_t(g.W) + size_t(x);
            out.data[p] = g.full_confidence.empty() ? q : keep_confident(g.full_depth[p], g.full_confidence[p], q);
          }
        }
      },
      threads);
  return out;
}

}  // namespace refine

namespace {

using namespace refine;

ImageF run_samples(const RefineInput& in, Reduce r, int threads) {
  const Grid g = make_grid(in);
  return refine_samples(g, make_samples(g, *in.image), *in.image, r, threads);
}

ImageF refine_none(const RefineInput& in, int) {
  check_input(in);
  return resample_bilinear(*in.depth, in.image->width, in.image->height);
}

// The guided filter on the bilinearly resampled depth (missing depth: the mean of the rest), clamped to
// the input's range. Confidence is not used.
ImageF refine_guided(const RefineInput& in, int threads) {
  check_input(in);
  ImageF d = resample_bilinear(*in.depth, in.image->width, in.image->height);
  double sum = 0;
  size_t n = 0;
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (float v : in.depth->data)
    if (std::isfinite(v)) sum += v, ++n, lo = std::min(lo, v), hi = std::max(hi, v);
  if (n == 0) throw Error("refine: the depth has no finite value");
  for (float& v : d.data)
    if (!std::isfinite(v)) v = float(sum / double(n));
  ImageF guide(in.image->width, in.image->height, 3);
  for (size_t i = 0; i < in.image->pixels(); ++i)
    for (int c = 0; c < 3; ++c) guide.data[i * 3 + size_t(c)] = float(in.image->data[i * 4 + size_t(c)]) / 255.f;
  ImageF q = guided_filter(guide, d, GuidedParams{}, threads);
  for (float& v : q.data) v = std::clamp(v, lo, hi);
  return q;
}

ImageF refine_wmedian(const RefineInput& in, int threads) { return run_samples(in, Reduce::Median, threads); }
ImageF refine_jbu(const RefineInput& in, int threads) { return run_samples(in, Reduce::Mean, threads); }
ImageF refine_snap(const RefineInput& in, int threads) { return run_samples(in, Reduce::Max, threads); }

}  // namespace

const std::vector<Refiner>& refiners() {
  static const std::vector<Refiner> table = {
      {"none", "none (bilinear)", "bilinear resampling", refine_none},
      {"guided", "guided filter", "He, Sun and Tang, Guided Image Filtering, ECCV 2010", refine_guided},
      {"wmedian", "weighted median", "after Ma et al. 2013 and Zhang et al. 2014 (weighted median filters)",
       refine_wmedian},
      {"jbu", "joint bilateral upsampling", "Kopf, Cohen, Lischinski and Uyttendaele, SIGGRAPH 2007", refine_jbu},
      {"snap", "edge snap", "satlab: the nearest flat sample in colour and position", refine_snap},
  };
  return table;
}

const Refiner* find_refiner(const std::string& name) {
  for (const Refiner& r : refiners())
    if (name == r.name) return &r;
  return nullptr;
}

std::string refiner_list() {
  std::string s;
  for (const Refiner& r : refiners()) s += (s.empty() ? "" : ", ") + std::string(r.name);
  return s;
}

std::string resolve_refiner(const std::string& choice, DepthOrigin origin, bool lower_resolution) {
  if (choice == "auto") {
    const bool exact = (origin == DepthOrigin::File && !lower_resolution) || origin == DepthOrigin::Synthetic;
    // Painted depth: on both tuning sets (the bundled scenes, the tuning cut-outs) every refiner lowers it on
    // the mean (docs/quality.md, "Photographs as planes and cut-outs").
    return exact || origin == DepthOrigin::Brush ? "none" : kDefaultRefiner;
  }
  if (!find_refiner(choice)) throw Error("unknown refiner '" + choice + "' (valid: auto, " + refiner_list() + ")");
  return choice;
}

ImageF refine_cpu(const std::string& name, const RefineInput& in, int threads) {
  const Refiner* r = find_refiner(name);
  if (!r) throw Error("unknown refiner '" + name + "' (valid: " + refiner_list() + ")");
  return r->cpu(in, threads);
}

}  // namespace satlab
