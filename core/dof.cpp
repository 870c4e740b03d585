#include "core/dof.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>

#include "core/dof_modes.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/reference.hpp"

namespace satlab {

DofSetup dof_setup(const Params& p) {
  const DofMode* m = find_dof_mode(p.dof_mode);
  if (!m) throw Error("unknown dof mode '" + p.dof_mode + "' (valid: " + dof_mode_list() + ")");
  return {m->linear_light, m->occlusion ? p.dof_layers : 1};
}

int shaped_max_radius(const Params& p) {
  const float m = std::ceil(p.max_radius);
  return m >= float(dof::kMaxShapedRadius) ? dof::kMaxShapedRadius : m > 0.f ? int(m) : 0;
}

namespace {

// The chord [lo, hi] of the shape at height y (pixel units, centre 0), empty when lo > hi.
struct Chord {
  double lo, hi;
};

Chord polygon_chord(double y, double R, int blades, double rotation) {
  Chord c{1e9, -1e9};
  for (int i = 0; i < blades; ++i) {
    const double a0 = rotation + 2 * M_PI * i / blades, a1 = rotation + 2 * M_PI * (i + 1) / blades;
    // Vertices at angle a from the upward direction (image y grows downwards).
    const double x0 = R * std::sin(a0), y0 = -R * std::cos(a0), x1 = R * std::sin(a1), y1 = -R * std::cos(a1);
    if ((y < std::min(y0, y1)) || (y > std::max(y0, y1)) || y0 == y1) continue;
    const double x = x0 + (x1 - x0) * (y - y0) / (y1 - y0);
    c.lo = std::min(c.lo, x), c.hi = std::max(c.hi, x);
  }
  return c;
}

}  // namespace

ApertureTable aperture_table(const Params& p, int max_r) {
  ApertureTable t;
  t.max_r = max_r;
  t.rects.assign(size_t(max_r + 1) * dof::kMaxRects, dof::Rect{0, 0, 0, 0});
  t.counts.assign(size_t(max_r + 1), 0);
  const double rotation = double(p.blade_rotation) * M_PI / 180.0;
  for (int r = 0; r <= max_r; ++r) {
    dof::Rect* out = t.rects.data() + size_t(r) * dof::kMaxRects;
    int n = 0;
    if (p.aperture_shape == ApertureShape::Square || r == 0) {
      out[n++] = {int16_t(-r), int16_t(r), int16_t(-r), int16_t(r)};
    } else {
      const double R = r + 0.5;
      const int rows = 2 * r + 1, bands = std::min(dof::kMaxRects, rows);
      for (int b = 0; b < bands; ++b) {
        const int y0 = -r + rows * b / bands, y1 = -r + rows * (b + 1) / bands - 1;
        double lo = 0, hi = 0;
        for (int y = y0; y <= y1; ++y) {
          Chord c;
          if (p.aperture_shape == ApertureShape::Disc) {
            const double s = std::sqrt(std::max(R * R - double(y) * y, 0.0));
            c = {-s, s};
          } else {
            c = polygon_chord(y, R, p.blades, rotation);
            if (c.lo > c.hi) c = {0, 0};
          }
          lo += c.lo, hi += c.hi;
        }
        // The band's mean chord as whole pixels: a chord of length L covers about L pixels.
        const double rows_in = y1 - y0 + 1;
        int x0 = int(std::lround(lo / rows_in + 0.5)), x1 = int(std::lround(hi / rows_in - 0.5));
        if (y0 <= 0 && 0 <= y1) x0 = std::min(x0, 0), x1 = std::max(x1, 0);  // the centre pixel
        if (x0 > x1) continue;
        out[n++] = {int16_t(x0), int16_t(x1), int16_t(y0), int16_t(y1)};
      }
    }
    t.counts[size_t(r)] = uint8_t(n);
  }
  return t;
}

dof::Layers make_layers(const Params& p, int count) {
  dof::Layers l;
  l.count = std::max(1, std::min(count, dof::kMaxLayers));
  const float M = p.max_radius;
  for (int i = 0; i <= l.count; ++i) {
    const float t = -1.f + 2.f * float(i) / float(l.count);
    l.edge[i] = M * (t < 0.f ? -t * t : t * t);
  }
  l.edge[0] = -M, l.edge[l.count] = M;
  for (int j = 0; j < l.count; ++j) l.mean_coc[j] = 0.5f * (l.edge[j] + l.edge[j + 1]);
  return l;
}

void layer_sums(const float* coc, size_t n, const dof::Layers& l, long long* sum256, unsigned* count) {
  for (int j = 0; j < l.count; ++j) sum256[j] = 0, count[j] = 0;
  for (size_t i = 0; i < n; ++i) {
    const float c = coc[i] == coc[i] ? coc[i] : 0.f;
    const int j = dof::layer_of(c, l);
    sum256[j] += (long long)std::llrintf(c * 256.f);
    ++count[j];
  }
}

namespace {

double srgb_decode(double c) {
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}
double srgb_encode(double l) {
  return l <= 0.0031308 ? 12.92 * l : 1.055 * std::pow(l, 1 / 2.4) - 0.055;
}

ResponseTables build_response(uint32_t step) {
  ResponseTables t;
  t.shoulder = double(step) / dof::kResponseSteps;
  const double s = t.shoulder, scale = response_code_scale(s);  // at s = 0 exactly 4095: today's tables
  for (int x = 0; x < 256; ++x) t.to_linear[x] = uint16_t(std::lround(response_decode(x, s) * scale));
  for (int i = 0; i <= dof::kLinearOne; ++i) {
    const double v = double(i) / scale, tone = std::min(v / (1 + s * v), 1.0);
    t.to_srgb[i] = uint8_t(std::lround(std::min(std::max(srgb_encode(tone), 0.0), 1.0) * 255));
  }
  return t;
}

}  // namespace

double response_decode(int srgb8, double s) {
  const double d = srgb_decode(srgb8 / 255.0);
  return d / (1 - s * d);  // the inverse of v / (1 + s v); d <= 1, so 1 - s d >= 1 - s > 0
}

double response_code_scale(double s) {
  return (1 - s) * dof::kLinearOne;
}

uint32_t response_key(float shoulder) {
  return shoulder > 0.f ? uint32_t(std::lround(double(shoulder) * dof::kResponseSteps)) : 0u;
}

const ResponseTables& response_tables(float shoulder) {
  if (!(shoulder >= 0.f && shoulder <= kMaxResponseShoulder))
    throw Error("response_shoulder must be in [0, 0.9]");
  static std::mutex m;
  static std::map<uint32_t, std::unique_ptr<ResponseTables>> cache;  // by step
  const uint32_t key = response_key(shoulder);
  std::lock_guard<std::mutex> lock(m);
  std::unique_ptr<ResponseTables>& t = cache[key];
  if (!t) t = std::make_unique<ResponseTables>(build_response(key));
  return *t;
}

const uint16_t* srgb_to_linear12(float shoulder) {
  return response_tables(shoulder).to_linear;
}

const uint8_t* linear12_to_srgb(float shoulder) {
  return response_tables(shoulder).to_srgb;
}

void dof_shaped_blur(const ImageRGBA8& image, const ImageF& coc, const Params& p, ImageRGBA8& out,
                     int threads) {
  if (coc.width != image.width || coc.height != image.height || coc.channels != 1)
    throw Error("dof_shaped_blur: CoC map size does not match the image");
  const DofSetup setup = dof_setup(p);
  const int w = image.width, h = image.height, max_r = shaped_max_radius(p);
  const size_t n = image.pixels();
  dof::Layers layers = make_layers(p, setup.layers);
  {
    long long sums[dof::kMaxLayers];
    unsigned counts[dof::kMaxLayers];
    layer_sums(coc.data.data(), n, layers, sums, counts);
    dof::layer_means(sums, counts, layers);
  }
  const ApertureTable ap = aperture_table(p, max_r);
  const uint16_t* lin = srgb_to_linear12(p.response_shoulder);
  // Table j: (colour, 1) over the pixels of layer j.
  std::vector<std::vector<uint32_t>> tables(size_t(layers.count));
  std::vector<uint16_t> src(n * 4);
  for (int j = 0; j < layers.count; ++j) {
    parallel_for(
        0, long(n),
        [&](long b, long e) {
          for (long i = b; i < e; ++i) {
            const float c = coc.data[size_t(i)];
            const bool in = dof::layer_of(c == c ? c : 0.f, layers) == j;
            const uint8_t* px = image.data.data() + size_t(i) * 4;
            for (int k = 0; k < 3; ++k) src[size_t(i) * 4 + k] = in ? (setup.linear ? lin[px[k]] : px[k]) : 0;
            src[size_t(i) * 4 + 3] = in ? 1 : 0;
          }
        },
        threads);
    sat_u16(src.data(), w, h, 4, tables[size_t(j)], threads);
  }
  struct Tap {
    const std::vector<std::vector<uint32_t>>& tables;
    int w;
    dof::Sum4 operator()(int t, int x, int y) const {
      dof::Sum4 s = {{0u, 0u, 0u, 0u}};
      if (x < 0 || y < 0) return s;
      const uint32_t* v = tables[size_t(t)].data() + (size_t(y) * size_t(w) + size_t(x)) * 4;
      for (int k = 0; k < 4; ++k) s.c[k] = v[k];
      return s;
    }
    uint32_t count(int t, int x, int y) const {
      return x < 0 || y < 0 ? 0u : tables[size_t(t)][(size_t(y) * size_t(w) + size_t(x)) * 4 + 3];
    }
    bool may_hold(int, int, int, int, int) const { return true; }  // whole-frame tables
  };
  const Tap tap{tables, w};
  if (out.width != w || out.height != h) out = ImageRGBA8(w, h);
  const float one = setup.linear ? float(dof::kLinearOne) : 255.f;
  const uint8_t* enc = linear12_to_srgb(p.response_shoulder);
  parallel_for(
      0, h,
      [&](long y0, long y1) {
        for (int y = int(y0); y < int(y1); ++y)
          for (int x = 0; x < w; ++x) {
            float v[3];
            dof::layered_pixel(tap, layers, ap.rects.data(), ap.counts.data(), max_r, one, x, y, w, h,
                               coc.data[size_t(y) * size_t(w) + size_t(x)], v);
            uint8_t* o = out.px(x, y);
            for (int k = 0; k < 3; ++k) o[k] = dof::encode(v[k], setup.linear, enc);
            o[3] = image.px(x, y)[3];
          }
      },
      threads);
}

}  // namespace satlab
