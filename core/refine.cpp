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

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SATLAB_REFINE_AVX2 1
#endif

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

// Where every colour weight vanished (total 0), weight()'s fallback: the weights without colour, from the
// spatial factors sp; their sum.
unsigned long long without_colour(const Window& win, const uint32_t* sp, uint32_t* w) {
  unsigned long long total = 0;
  for (int k = 0; k < win.n; ++k) {
    w[k] = combine_weight(sp[k], 0u, false, win.s[k].base);
    total += w[k];
  }
  return total;
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
  if (total == 0) total = without_colour(win, sp, w);
  return reduce_window(win, ci, cj, u, v, w, total, r, lo, hi, polish_tol);
}

void fill_lanes(const Window& win, int ci, int cj, WindowLanes& l) {
  l.n = win.n;
  for (int k = 0; k < WindowLanes::kPad; ++k) {
    const bool in = k < win.n;
    l.gu[k] = (ci + (in ? win.i[k] : 0)) * kSubSample, l.gv[k] = (cj + (in ? win.j[k] : 0)) * kSubSample;
    l.base[k] = in ? int32_t(win.s[k].base) : 0;
    for (int c = 0; c < 6; ++c) l.pal[c][k] = in ? win.s[k].rgb[c / 3][c % 3] : 0;
    l.d[k] = in ? win.s[k].d : 0.f, l.gx[k] = in ? win.s[k].gx : 0.f, l.gy[k] = in ? win.s[k].gy : 0.f;
  }
}

namespace {

// The tables' squared distances are those of a window's samples from a pixel whose nearest sample is the
// window's centre (|du|, |dv| <= kWindow kSubSample + kSubSample / 2); farther pixels take the scalar path.
static_assert(2 * (kWindow * kSubSample + kSubSample / 2) * (kWindow * kSubSample + kSubSample / 2) <
                  2 * WeightTables::kReach * WeightTables::kReach + 1,
              "the spatial table misses a window's distances");

#ifdef SATLAB_REFINE_AVX2
// The weights of refine_pixel_tables' first pass, 8 samples a step, into sp (spatial factors) and w; their
// sum, or -1 where a distance lies beyond the spatial table (the caller then runs the scalar loop).
__attribute__((target("avx2"))) long long lane_weights(const WindowLanes& l, int u, int v, const uint8_t rgb[3],
                                                       const WeightTables& t, uint32_t* sp, uint32_t* w) {
  const __m256i U = _mm256_set1_epi32(u), V = _mm256_set1_epi32(v);
  const __m256i C[3] = {_mm256_set1_epi32(rgb[0]), _mm256_set1_epi32(rgb[1]), _mm256_set1_epi32(rgb[2])};
  const __m256i last = _mm256_set1_epi32(int(t.spatial.size()) - 1);
  const int* spatial = reinterpret_cast<const int*>(t.spatial.data());
  const int* colour = reinterpret_cast<const int*>(t.colour.data());
  __m256i total = _mm256_setzero_si256(), beyond = _mm256_setzero_si256();
  for (int k = 0; k < l.n; k += 8) {
    const __m256i du = _mm256_sub_epi32(U, _mm256_load_si256(reinterpret_cast<const __m256i*>(l.gu + k)));
    const __m256i dv = _mm256_sub_epi32(V, _mm256_load_si256(reinterpret_cast<const __m256i*>(l.gv + k)));
    const __m256i ds2 = _mm256_add_epi32(_mm256_mullo_epi32(du, du), _mm256_mullo_epi32(dv, dv));
    beyond = _mm256_or_si256(beyond, _mm256_cmpgt_epi32(ds2, last));
    const __m256i s = _mm256_i32gather_epi32(spatial, _mm256_min_epi32(ds2, last), 4);
    __m256i e[2];
    for (int p = 0; p < 2; ++p) {
      e[p] = _mm256_setzero_si256();
      for (int c = 0; c < 3; ++c) {
        const __m256i d = _mm256_sub_epi32(C[c], _mm256_load_si256(reinterpret_cast<const __m256i*>(l.pal[3 * p + c] + k)));
        e[p] = _mm256_add_epi32(e[p], _mm256_mullo_epi32(d, d));
      }
    }
    const __m256i cw = _mm256_i32gather_epi32(colour, _mm256_min_epi32(e[0], e[1]), 4);
    // combine_weight: ((s * cw) >> 16) * base, s and cw <= 65536 (their product up to 2^32: 64-bit lanes).
    const __m256i even = _mm256_srli_epi64(_mm256_mul_epu32(s, cw), 16);
    const __m256i odd = _mm256_srli_epi64(_mm256_mul_epu32(_mm256_srli_epi64(s, 32), _mm256_srli_epi64(cw, 32)), 16);
    const __m256i sc = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
    const __m256i wk = _mm256_mullo_epi32(sc, _mm256_load_si256(reinterpret_cast<const __m256i*>(l.base + k)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sp + k), s);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(w + k), wk);
    total = _mm256_add_epi32(total, wk);  // each weight < 2^25, 56 of them < 2^31
  }
  if (!_mm256_testz_si256(beyond, beyond)) return -1;
  alignas(32) uint32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), total);
  long long sum = 0;
  for (uint32_t x : lanes) sum += x;
  return sum;
}

// predict() of every lane: the same float operations in the same order (no fused multiply-add: AVX2 alone).
__attribute__((target("avx2"))) void lane_predictions(const WindowLanes& l, int u, int v, float lo, float hi,
                                                      float* p) {
  const __m256i U = _mm256_set1_epi32(u), V = _mm256_set1_epi32(v);
  const __m256 inv = _mm256_set1_ps(1.f / kSubSample), LO = _mm256_set1_ps(lo), HI = _mm256_set1_ps(hi);
  for (int k = 0; k < l.n; k += 8) {
    const __m256 du = _mm256_mul_ps(
        _mm256_cvtepi32_ps(_mm256_sub_epi32(U, _mm256_load_si256(reinterpret_cast<const __m256i*>(l.gu + k)))), inv);
    const __m256 dv = _mm256_mul_ps(
        _mm256_cvtepi32_ps(_mm256_sub_epi32(V, _mm256_load_si256(reinterpret_cast<const __m256i*>(l.gv + k)))), inv);
    __m256 q = _mm256_add_ps(_mm256_load_ps(l.d + k), _mm256_mul_ps(_mm256_load_ps(l.gx + k), du));
    q = _mm256_add_ps(q, _mm256_mul_ps(_mm256_load_ps(l.gy + k), dv));
    // p < lo ? lo : (p > hi ? hi : p)
    const __m256 high = _mm256_blendv_ps(q, HI, _mm256_cmp_ps(q, HI, _CMP_GT_OQ));
    q = _mm256_blendv_ps(high, LO, _mm256_cmp_ps(q, LO, _CMP_LT_OQ));
    _mm256_storeu_ps(p + k, q);
  }
}

#endif

}  // namespace

bool lanes_supported() {
#ifdef SATLAB_REFINE_AVX2
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
#else
  return false;
#endif
}

float refine_pixel_lanes(const Window& win, const WindowLanes& lanes, int ci, int cj, int u, int v,
                         const uint8_t rgb[3], Reduce r, float lo, float hi, float polish_tol) {
#ifdef SATLAB_REFINE_AVX2
  if (lanes_supported()) {
    uint32_t sp[WindowLanes::kPad], w[WindowLanes::kPad];
    const long long lane_total = lane_weights(lanes, u, v, rgb, weight_tables(), sp, w);
    if (lane_total >= 0) {
      const unsigned long long total = lane_total > 0 ? (unsigned long long)lane_total : without_colour(win, sp, w);
      if (r != Reduce::Median || total == 0)
        return reduce_window(win, ci, cj, u, v, w, total, r, lo, hi, polish_tol);
      float p[WindowLanes::kPad];
      lane_predictions(lanes, u, v, lo, hi, p);
      return polished_median(p, w, win.n, total, polish_tol);
    }
  }
#else
  (void)lanes;
#endif
  return refine_pixel_tables(win, ci, cj, u, v, rgb, r, lo, hi, polish_tol);
}

ImageF refine_samples(const Grid& g, const std::vector<Sample>& samples, const ImageRGBA8& image, Reduce r,
                      int threads) {
  (void)weight_tables();  // made before the threads start
  (void)lanes_supported();
  ImageF out(g.W, g.H, 1);
  // Each column's and row's grid position and nearest sample, once; then the pixels a cell at a time (each
  // run of rows and columns with the same nearest sample shares its window).
  std::vector<int> pos(size_t(g.W) + size_t(g.H)), near(pos.size());
  for (int x = 0; x < g.W; ++x) pos[size_t(x)] = grid_pos(x, g.gw, g.W), near[size_t(x)] = nearest_sample(pos[size_t(x)], g.gw);
  for (int y = 0; y < g.H; ++y) {
    const size_t k = size_t(g.W) + size_t(y);
    pos[k] = grid_pos(y, g.gh, g.H), near[k] = nearest_sample(pos[k], g.gh);
  }
  const int* us = pos.data();
  const int* vs = pos.data() + g.W;
  const int* cis = near.data();
  const int* cjs = near.data() + g.W;
  parallel_for(
      0, g.H,
      [&](long y0, long y1) {
        Window win;
        WindowLanes lanes;
        for (int ya = int(y0); ya < int(y1);) {
          const int cj = cjs[ya];
          int yb = ya + 1;
          while (yb < int(y1) && cjs[yb] == cj) ++yb;
          for (int xa = 0; xa < g.W;) {
            const int ci = cis[xa];
            int xb = xa + 1;
            while (xb < g.W && cis[xb] == ci) ++xb;
            gather_window(samples.data(), g.gw, g.gh, ci, cj, win);
            fill_lanes(win, ci, cj, lanes);
            for (int y = ya; y < yb; ++y)
              for (int x = xa; x < xb; ++x) {
                const float q = refine_pixel_lanes(win, lanes, ci, cj, us[x], vs[y], image.px(x, y), r, g.lo, g.hi,
                                                   g.polish_tol);
                const size_t p = size_t(y) * size_t(g.W) + size_t(x);
                out.data[p] =
                    g.full_confidence.empty() ? q : keep_confident(g.full_depth[p], g.full_confidence[p], q);
              }
            xa = xb;
          }
          ya = yb;
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
