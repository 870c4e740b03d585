#include "core/dof.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>

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

// The integrals of the chord's ends lo(y) and hi(y) over [a, b] (0 where the shape has no chord).
Chord chord_integral(const Params& p, double R, double rotation, double a, double b) {
  if (p.aperture_shape == ApertureShape::Disc) {
    const auto G = [&](double y) {  // the integral of sqrt(R^2 - y^2) from 0 to y
      const double c = std::min(std::max(y, -R), R);
      return 0.5 * (c * std::sqrt(std::max(R * R - c * c, 0.0)) + R * R * std::asin(c / R));
    };
    const double I = G(b) - G(a);
    return {-I, I};
  }
  // lo and hi are linear between the vertices' heights: the trapezoid rule between them is exact.
  double ys[2 + 64];
  int n = 0;
  ys[n++] = a, ys[n++] = b;
  for (int i = 0; i < p.blades && n < 66; ++i) {
    const double v = -R * std::cos(rotation + 2 * M_PI * i / p.blades);
    if (v > a && v < b) ys[n++] = v;
  }
  std::sort(ys, ys + n);
  const auto at = [&](double y) {
    Chord c = polygon_chord(y, R, p.blades, rotation);
    return c.lo > c.hi ? Chord{0, 0} : c;
  };
  Chord s{0, 0};
  for (int i = 0; i + 1 < n; ++i) {
    // The midpoint decides inside or outside (a vertex's height can read as either).
    const double u = ys[i], v = ys[i + 1];
    if (v <= u) continue;
    const Chord m = at(0.5 * (u + v));
    if (m.lo >= m.hi && m.lo == 0) continue;
    Chord cu = at(u), cv = at(v);
    // At a segment's ends the chord is the limit from inside: extrapolate from the midpoint if empty.
    if (cu.lo == 0 && cu.hi == 0) cu = m;
    if (cv.lo == 0 && cv.hi == 0) cv = m;
    s.lo += 0.25 * (v - u) * (cu.lo + 2 * m.lo + cv.lo);  // Simpson's rule: exact for linear
    s.hi += 0.25 * (v - u) * (cu.hi + 2 * m.hi + cv.hi);
  }
  return s;
}

}  // namespace

static double envd(const char* n, double d) { const char* v = std::getenv(n); return v ? std::atof(v) : d; }

namespace {
// Builds aperture r at shape radius R; returns its count of rects.
int build_shape(const Params& p, int r, double R, double rotation, int band_mode, dof::Rect* out) {
  const int rows = 2 * r + 1;
  int edge[dof::kMaxRects + 2], ne = 0;
  if (band_mode == 0) {
    const int bands = std::min(dof::kMaxRects, rows);
    for (int b = 0; b <= bands; ++b) edge[ne++] = rows * b / bands;
  } else {
    const int bands = std::min(dof::kMaxRects - 1, rows), half = bands / 2;
    int up[dof::kMaxRects];
    for (int b = 0; b <= half; ++b) {
      const double u = double(b) / (half + 0.5);
      const double yb = band_mode == 1 ? r + 0.5 - R * std::cos(u * M_PI / 2) : u * (r + 0.5);
      up[b] = b == 0 ? 0 : std::max(up[b - 1] + 1, int(std::lround(yb)));
    }
    for (int b = 0; b <= half; ++b) {
      const int v = std::min(up[b], r);
      if (ne == 0 || v > edge[ne - 1]) edge[ne++] = v;
    }
    for (int b = half; b >= 0; --b) {
      const int v = rows - std::min(up[b], r);
      if (v > edge[ne - 1]) edge[ne++] = v;
    }
  }
  int n = 0;
  for (int b = 0; b + 1 < ne; ++b) {
    const int y0 = -r + edge[b], y1 = -r + edge[b + 1] - 1;
    const double rows_in = y1 - y0 + 1;
    const Chord c = chord_integral(p, R, rotation, y0 - 0.5, y1 + 0.5);
    const double lo = c.lo / rows_in, hi = c.hi / rows_in;
    int x0 = int(std::lround(lo + 0.5)), x1 = int(std::lround(hi - 0.5));
    const bool centre = y0 <= 0 && 0 <= y1;
    if (!centre && hi - lo < 0.5) continue;
    if (centre) x0 = std::min(x0, 0), x1 = std::max(x1, 0);
    x0 = std::max(x0, -r), x1 = std::min(x1, r);
    if (x0 > x1) continue;
    out[n++] = {int16_t(x0), int16_t(x1), int16_t(y0), int16_t(y1)};
  }
  return n;
}

double sum_sq(int a, int b) {  // sum of x^2 for x in [a, b]
  const auto S = [](long long n) { return n <= 0 ? 0.0 : double(n) * (n + 1) * (2 * n + 1) / 6.0; };
  if (a > b) return 0;
  if (a >= 0) return S(b) - S(a - 1);
  if (b <= 0) return S(-a) - S(-b - 1);
  return S(-a) + S(b);
}

// Whether the pixel set of the rectangles is its own transpose (x <-> y).
bool transpose_symmetric(const dof::Rect* rects, int n, int r) {
  const auto in = [&](int x, int y) {
    for (int i = 0; i < n; ++i)
      if (x >= rects[i].x0 && x <= rects[i].x1 && y >= rects[i].y0 && y <= rects[i].y1) return true;
    return false;
  };
  for (int y = -r; y <= r; ++y)
    for (int x = -r; x <= r; ++x)
      if (in(x, y) != in(y, x)) return false;
  return true;
}

double second_moment(const dof::Rect* rects, int n) {
  double area = 0, m = 0;
  for (int i = 0; i < n; ++i) {
    const dof::Rect q = rects[i];
    const double nx = q.x1 - q.x0 + 1, ny = q.y1 - q.y0 + 1;
    area += nx * ny;
    m += ny * sum_sq(q.x0, q.x1) + nx * sum_sq(q.y0, q.y1);
  }
  return m / area;
}
}  // namespace

ApertureTable aperture_table(const Params& p, int max_r) {
  ApertureTable t;
  t.max_r = max_r;
  t.rects.assign(size_t(max_r + 1) * dof::kMaxRects, dof::Rect{0, 0, 0, 0});
  t.counts.assign(size_t(max_r + 1), 0);
  const double rotation = double(p.blade_rotation) * M_PI / 180.0;
  const int mode = int(envd("AP_MODE", 0));
  const double delta = envd("AP_DELTA", 0.5), e = envd("AP_E", 0.0);
  const int band_mode = int(envd("AP_BANDS", mode == 0 ? 0 : 1)), r1 = int(envd("AP_R1", -1));
  const double k = p.aperture_shape == ApertureShape::Disc ? 0.5
                                                           : (1 + 2 * std::pow(std::cos(M_PI / p.blades), 2)) / 6;
  for (int r = 0; r <= max_r; ++r) {
    dof::Rect* out = t.rects.data() + size_t(r) * dof::kMaxRects;
    int n = 0;
    if (p.aperture_shape == ApertureShape::Square || r == 0) {
      out[n++] = {int16_t(-r), int16_t(r), int16_t(-r), int16_t(r)};
    } else if (mode == 0) {
      const double R = r + delta;
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
        const double rows_in = y1 - y0 + 1;
        int x0 = int(std::lround(lo / rows_in + 0.5)), x1 = int(std::lround(hi / rows_in - 0.5));
        if (y0 <= 0 && 0 <= y1) x0 = std::min(x0, 0), x1 = std::max(x1, 0);  // the centre pixel
        if (x0 > x1) continue;
        out[n++] = {int16_t(x0), int16_t(x1), int16_t(y0), int16_t(y1)};
      }
    } else if (mode == 1) {
      n = build_shape(p, r, r + delta, rotation, band_mode, out);
    } else {
      const double target = k * (double(r) * r - 1.0 / 6) + e;
      double best = 1e30;
      dof::Rect cand[dof::kMaxRects];
      for (int i = 0; i <= 48; ++i) {
        const double R = r - 0.5 + i / 32.0;
        const int cn = build_shape(p, r, R, rotation, band_mode, cand);
        if (p.aperture_shape == ApertureShape::Disc && 2 * r + 1 <= dof::kMaxRects - 1 && !transpose_symmetric(cand, cn, r)) continue;
        const double err = std::fabs(second_moment(cand, cn) - target);
        if (err < best) {
          best = err, n = cn;
          for (int j = 0; j < cn; ++j) out[j] = cand[j];
        }
      }
    }
    if (r == 1 && r1 >= 0 && p.aperture_shape != ApertureShape::Square) {
      if (r1 == 0) n = 1, out[0] = {0, 0, 0, 0};
      if (r1 == 1) n = 3, out[0] = {0, 0, -1, -1}, out[1] = {-1, 1, 0, 0}, out[2] = {0, 0, 1, 1};
      if (r1 == 2) n = 1, out[0] = {-1, 1, -1, 1};
    }
    for (int j = n; j < dof::kMaxRects; ++j) out[j] = dof::Rect{0, 0, 0, 0};
    t.counts[size_t(r)] = uint8_t(n);
    if (std::getenv("AP_DUMP") && r <= 20) {
      double area = 0;
      for (int j = 0; j < n; ++j) area += double(out[j].x1 - out[j].x0 + 1) * (out[j].y1 - out[j].y0 + 1);
      std::fprintf(stderr, "r %d n %d area %.0f (pi r2 %.1f) m %.3f target(e=0) %.3f :", r, n, area, M_PI * r * r,
                   second_moment(out, n), k * (double(r) * r - 1.0 / 6));
      for (int j = 0; j < n; ++j) std::fprintf(stderr, " %dx%d", out[j].x1 - out[j].x0 + 1, out[j].y1 - out[j].y0 + 1);
      std::fprintf(stderr, "\n");
    }
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

const uint16_t* srgb_to_linear12() {
  static const std::vector<uint16_t> t = [] {
    std::vector<uint16_t> v(256);
    for (int s = 0; s < 256; ++s) {
      const double c = s / 255.0, l = c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
      v[size_t(s)] = uint16_t(std::lround(l * dof::kLinearOne));
    }
    return v;
  }();
  return t.data();
}

const uint8_t* linear12_to_srgb() {
  static const std::vector<uint8_t> t = [] {
    std::vector<uint8_t> v(dof::kLinearOne + 1);
    for (int i = 0; i <= dof::kLinearOne; ++i) {
      const double l = double(i) / dof::kLinearOne,
                   c = l <= 0.0031308 ? 12.92 * l : 1.055 * std::pow(l, 1 / 2.4) - 0.055;
      v[size_t(i)] = uint8_t(std::lround(std::min(std::max(c, 0.0), 1.0) * 255));
    }
    return v;
  }();
  return t.data();
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
  const uint16_t* lin = srgb_to_linear12();
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
  const uint8_t* enc = linear12_to_srgb();
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
