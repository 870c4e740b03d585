// The per-sample and per-pixel arithmetic of the sample-based depth refiners (wmedian, jbu, snap; see
// core/refine.hpp), shared by the CPU reference (core/refine.cpp) and the GPU kernels (gpu/refine/): one
// source compiled for both, without FMA contraction, so the two agree bit for bit. Weights are integers
// (exact sums); the only float work is a compare, a subtraction, a product and a division, each
// correctly rounded on both sides, and the means are float64 sums in a fixed order.
//
// The samples lie on a grid of gw x gh over the W x H image: sample (i, j) covers the image pixels
// [fp(i, gw, W), fp(i + 1, gw, W)) x [fp(j, gh, H), fp(j + 1, gh, H)), fp(i, g, n) = floor(i n / g).
// Each sample carries its depth, the rounded mean colour of the image over its footprint and a base
// weight (0..256): its confidence times how unlike a mixture of two depths it looks (`flatness`).
#pragma once
#include <cstdint>

#include "core/hd.hpp"

namespace satlab::refine {

constexpr int kWindow = 3;       // window radius in samples: (2 kWindow + 1)^2 samples (docs/quality.md, cut-outs)
constexpr int kWindowSamples = (2 * kWindow + 1) * (2 * kWindow + 1);
constexpr int kCell = 4;         // grid step (pixels) for depth at more than half the image's size
constexpr int kSubSample = 16;   // pixel positions on the grid in 1/16 of a sample
constexpr float kFlatTol = 0.02f;   // mixture test tolerance, a fraction of the input's depth span
constexpr float kPolishTol = 0.03f; // wmedian: samples this close to the median (fraction of the span) are averaged
constexpr int kSpatialSigma16 = 24;  // spatial scale, 1/16 sample (1.5 samples)
constexpr int kColourSigma = 20;     // colour scale, 8-bit units per channel

struct Sample {
  float d;        // depth (NaN: none; its base is 0)
  float gx, gy;   // depth per sample along the grid's rows and columns (the sample's own side of any edge)
  uint8_t rgb[2][3];  // its footprint's colours: the means of its darker and brighter pixels
  uint8_t pad[2];
  uint32_t base;  // 0..256
};

SATLAB_HD long long floor_div(long long a, long long b) {  // b > 0
  const long long q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
// First image pixel of grid cell i (g cells over n pixels).
SATLAB_HD int footprint(int i, int g, int n) { return int((long long)i * n / g); }
// Pixel x's centre on the grid, in 1/kSubSample of a sample: ((x + 0.5) g / n - 0.5) * kSubSample, floored.
SATLAB_HD int grid_pos(int x, int g, int n) {
  return int(floor_div(((2LL * x + 1) * g - n) * (kSubSample / 2), n));
}
// The sample nearest to a grid position (clamped to the grid).
SATLAB_HD int nearest_sample(int pos, int g) {
  const int c = int(floor_div(pos + kSubSample / 2, kSubSample));
  return c < 0 ? 0 : (c >= g ? g - 1 : c);
}

// How unlike a mixture sample d is, 0..256: the largest, over the four lines through it (row, column,
// two diagonals) on which d lies between its two neighbours, of the smaller gap to them. A sample inside
// a region, or at a depth edge but on one side of it, has a near neighbour on every line; one that
// straddles the edge (an area average of both depths) lies between, and far from, both neighbours across
// it. A sample nearer or farther than both (a structure thinner than the grid) is kept. n[8]: the 3 x 3 neighbourhood
// without the centre, row-major (NaN: outside the grid or no depth: that line does not count).
// tol2: (kFlatTol * span)^2.
SATLAB_HD uint32_t flatness(float d, const float n[8], float tol2) {
  // Opposite pairs of the row-major 3x3 ring: (0,7) (1,6) (2,5) (3,4).
  float worst = 0.f;
  for (int k = 0; k < 4; ++k) {
    const float a = n[k], b = n[7 - k];
    if (!(a == a) || !(b == b)) continue;
    if ((a > d) == (b > d)) continue;  // an extremum along this line (a thin structure), not a mixture
    const float ga = a > d ? a - d : d - a;
    const float gb = b > d ? b - d : d - b;
    const float g = ga < gb ? ga : gb;
    worst = g > worst ? g : worst;
  }
  if (!(tol2 > 0.f)) return worst > 0.f ? 0u : 256u;
  const float w = 256.f * tol2 / (tol2 + worst * worst);
  return uint32_t(w);
}

// weight()'s two factors (0..65536): the squared Cauchy kernel of the squared distance ds2 (1/16-sample
// units) and of the squared colour difference dc2 (0..3 * 255^2). The CPU takes both from tables of these
// functions (core/refine.cpp), the GPU the first.
SATLAB_HD uint32_t spatial_factor(long long ds2) {
  const long long s2 = (long long)kSpatialSigma16 * kSpatialSigma16;
  const long long ws = (65536LL * s2) / (s2 + ds2);
  return uint32_t((ws * ws) >> 16);
}
SATLAB_HD uint32_t colour_factor(int dc2) {
  const long long k2 = 3LL * kColourSigma * kColourSigma;
  const long long wc = (65536LL * k2) / (k2 + dc2);
  return uint32_t((wc * wc) >> 16);
}
constexpr int kMaxColourDistance2 = 3 * 255 * 255;
// The squared colour difference of rgb to the nearer of the sample's two colours.
SATLAB_HD int colour_distance2(const Sample& s, const uint8_t rgb[3]) {
  int dc2 = 0;
  for (int t = 0; t < 2; ++t) {
    int e = 0;
    for (int c = 0; c < 3; ++c) {
      const int dc = int(rgb[c]) - int(s.rgb[t][c]);
      e += dc * dc;
    }
    dc2 = (t == 0 || e < dc2) ? e : dc2;
  }
  return dc2;
}
// The weight from the factors: (spatial x colour) >> 16 (spatial alone without colour), times the base.
SATLAB_HD uint32_t combine_weight(uint32_t spatial, uint32_t colour, bool with_colour, uint32_t base) {
  const long long w = with_colour ? ((long long)spatial * colour) >> 16 : (long long)spatial;
  return uint32_t(w * base);
}

// A window sample's weight for a pixel at grid position (u, v) (1/16 sample) of colour rgb: squared
// Cauchy kernels of the distance and of the colour difference, times the sample's base. < 2^25.
SATLAB_HD uint32_t weight(const Sample& s, int i, int j, int u, int v, const uint8_t rgb[3], bool colour) {
  const int du = u - i * kSubSample, dv = v - j * kSubSample;
  const long long ds2 = (long long)du * du + (long long)dv * dv;
  return combine_weight(spatial_factor(ds2), colour ? colour_factor(colour_distance2(s, rgb)) : 0u, colour, s.base);
}

// A regridded cell: its pixels' confidence-weighted depth sum, confidence sum and count (float64, row-major).
struct CellSum {
  double cd, c;
  int n;
};
SATLAB_HD CellSum cell_sum(const float* depth, const float* conf, int W, int H, int gw, int gh, int i, int j) {
  CellSum s{0.0, 0.0, 0};
  const int x0 = footprint(i, gw, W), x1 = footprint(i + 1, gw, W);
  const int y0 = footprint(j, gh, H), y1 = footprint(j + 1, gh, H);
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const long long p = (long long)y * W + x;
      const float d = depth[p];
      float c = conf ? conf[p] : 1.f;
      c = c > 0.f ? (c < 1.f ? c : 1.f) : 0.f;  // NaN: 0
      ++s.n;
      if (d == d && d - d == 0.f) s.cd += double(c) * double(d), s.c += double(c);
    }
  return s;
}
SATLAB_HD float cell_depth(const CellSum& s) { return s.c > 0.0 ? float(s.cd / s.c) : __builtin_nanf(""); }
SATLAB_HD float cell_confidence(const CellSum& s) { return s.n > 0 ? float(s.c / double(s.n)) : 0.f; }

// The slope at a sample along one axis from its neighbours before (a) and after (b) it (NaN: none): the
// central difference where the two one-sided ones agree within tol; else the smaller one (the other
// crosses an edge) if it is at most 2 tol; else 0 (an extremum, or no neighbour on the sample's side).
SATLAB_HD float slope(float a, float d, float b, float tol) {
  const bool ha = a == a, hb = b == b;
  const float l = d - a, r = b - d;
  const float al = l > 0.f ? l : -l, ar = r > 0.f ? r : -r;
  if (ha && hb) {
    const float dl = l - r;
    if ((dl > 0.f ? dl : -dl) <= tol) return (l + r) * 0.5f;
    if ((l > 0.f) != (r > 0.f)) return 0.f;  // an extremum: no slope along this line
    const float g = al <= ar ? l : r, ag = al <= ar ? al : ar;
    return ag <= 2.f * tol ? g : 0.f;
  }
  if (ha) return al <= 2.f * tol ? l : 0.f;
  if (hb) return ar <= 2.f * tol ? r : 0.f;
  return 0.f;
}

// The rounded mean colour of grid cell (i, j)'s footprint; its pixel count.
SATLAB_HD unsigned mean_colour(const uint8_t* rgba, int gw, int gh, int W, int H, int i, int j, uint8_t out[3]) {
  const int x0 = footprint(i, gw, W), x1 = footprint(i + 1, gw, W);
  const int y0 = footprint(j, gh, H), y1 = footprint(j + 1, gh, H);
  unsigned sum[3] = {0, 0, 0}, n = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const uint8_t* p = rgba + ((long long)y * W + x) * 4;
      for (int c = 0; c < 3; ++c) sum[c] += p[c];
      ++n;
    }
  for (int c = 0; c < 3; ++c) out[c] = uint8_t(n ? (sum[c] + n / 2) / n : 0);
  return n;
}

// The two colours of grid cell (i, j)'s footprint: the rounded means of its pixels at or below, and
// above, the footprint's mean of R + G + B (both the mean where all are equal).
SATLAB_HD void palette(const uint8_t* rgba, int gw, int gh, int W, int H, int i, int j, uint8_t out[2][3]) {
  const int x0 = footprint(i, gw, W), x1 = footprint(i + 1, gw, W);
  const int y0 = footprint(j, gh, H), y1 = footprint(j + 1, gh, H);
  unsigned total = 0, n = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const uint8_t* p = rgba + ((long long)y * W + x) * 4;
      total += unsigned(p[0]) + p[1] + p[2];
      ++n;
    }
  unsigned sum[2][3] = {{0, 0, 0}, {0, 0, 0}}, m[2] = {0, 0};
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const uint8_t* p = rgba + ((long long)y * W + x) * 4;
      const int t = (unsigned(p[0]) + p[1] + p[2]) * n > total ? 1 : 0;
      for (int c = 0; c < 3; ++c) sum[t][c] += p[c];
      ++m[t];
    }
  for (int t = 0; t < 2; ++t) {
    const int u = m[t] ? t : 1 - t;
    for (int c = 0; c < 3; ++c) out[t][c] = uint8_t(m[u] ? (sum[u][c] + m[u] / 2) / m[u] : 0);
  }
}

// A structure thinner than the grid (a post, a wire, a small light): a sample nearer, or farther, than
// both neighbours by more than tol on some line. Its depth mixes the structure's with its surroundings'
// (the neighbours on the other side of tol, depth d_bg, colour c_bg). The fraction alpha of its
// footprint's pixels whose colour is unlike c_bg (squared distance over kUnmixColour2) gives the
// structure's own depth, d_bg + (d - d_bg) / alpha within [lo, hi], and colour (their mean). Unchanged
// where no pixel differs or the sample is no extremum.
constexpr int kUnmixColour2 = 3 * 10 * 10;
SATLAB_HD void unmix(Sample& s, const float nb[8], const uint8_t* rgba, int gw, int gh, int W, int H, int i, int j,
                     float tol, float lo, float hi) {
  const float d = s.d;
  int sign = 0;  // -1: nearer (smaller) than both neighbours on a line, +1: farther
  for (int k = 0; k < 4; ++k) {
    const float a = nb[k], b = nb[7 - k];
    if (!(a == a) || !(b == b)) continue;
    const int e = (a - d > tol && b - d > tol) ? -1 : ((d - a > tol && d - b > tol) ? 1 : 0);
    if (e == 0) continue;
    if (sign != 0 && e != sign) return;
    sign = e;
  }
  if (sign == 0) return;
  float dsum = 0.f;
  unsigned csum[3] = {0, 0, 0}, m = 0;
  int k = 0;
  for (int dj = -1; dj <= 1; ++dj)
    for (int di = -1; di <= 1; ++di) {
      if (di == 0 && dj == 0) continue;
      const float v = nb[k++];
      if (!(v == v) || !(sign < 0 ? v - d > tol : d - v > tol)) continue;
      uint8_t c[3];
      mean_colour(rgba, gw, gh, W, H, i + di, j + dj, c);
      dsum += v;
      for (int q = 0; q < 3; ++q) csum[q] += c[q];
      ++m;
    }
  if (m == 0) return;
  const float d_bg = dsum / float(m);
  int bg[3];
  for (int q = 0; q < 3; ++q) bg[q] = int((csum[q] + m / 2) / m);
  const int x0 = footprint(i, gw, W), x1 = footprint(i + 1, gw, W);
  const int y0 = footprint(j, gh, H), y1 = footprint(j + 1, gh, H);
  unsigned fg[3] = {0, 0, 0}, nf = 0, n = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const uint8_t* p = rgba + ((long long)y * W + x) * 4;
      int dc2 = 0;
      for (int q = 0; q < 3; ++q) dc2 += (int(p[q]) - bg[q]) * (int(p[q]) - bg[q]);
      ++n;
      if (dc2 <= kUnmixColour2) continue;
      for (int q = 0; q < 3; ++q) fg[q] += p[q];
      ++nf;
    }
  if (nf == 0) return;
  const float v = d_bg + (d - d_bg) * float(n) / float(nf);
  s.d = v < lo ? lo : (v > hi ? hi : v);
  for (int q = 0; q < 3; ++q) s.rgb[0][q] = s.rgb[1][q] = uint8_t((fg[q] + nf / 2) / nf);
}

// Sample (i, j) of a gw x gh grid of depth (and confidence, or nullptr) over the W x H RGBA8 image.
SATLAB_HD Sample make_sample(const float* depth, const float* conf, const uint8_t* rgba, int gw, int gh, int W, int H,
                             int i, int j, float tol, float lo, float hi) {
  Sample s;
  s.pad[0] = s.pad[1] = 0;
  s.gx = s.gy = 0.f;
  palette(rgba, gw, gh, W, H, i, j, s.rgb);
  const float d = depth[(long long)j * gw + i];
  s.d = d;
  if (!(d == d) || !(d - d == 0.f)) {
    s.d = __builtin_nanf("");
    s.base = 0;
    return s;
  }
  float nb[8];
  int k = 0;
  for (int dj = -1; dj <= 1; ++dj)
    for (int di = -1; di <= 1; ++di) {
      if (di == 0 && dj == 0) continue;
      const int a = i + di, b = j + dj;
      nb[k++] = (a < 0 || b < 0 || a >= gw || b >= gh) ? __builtin_nanf("") : depth[(long long)b * gw + a];
    }
  uint32_t conf256 = 256;
  if (conf) {
    const float c = conf[(long long)j * gw + i];
    conf256 = c > 0.f ? (c < 1.f ? uint32_t(c * 256.f) : 256u) : 0u;
  }
  s.gx = slope(nb[3], d, nb[4], tol);
  s.gy = slope(nb[1], d, nb[6], tol);
  s.base = (flatness(d, nb, tol * tol) * conf256) >> 8;
  unmix(s, nb, rgba, gw, gh, W, H, i, j, tol, lo, hi);
  return s;
}

// The samples with depth of the window around (ci, cj), row-major, at offsets (i, j) from it.
struct Window {
  Sample s[kWindowSamples];
  int8_t i[kWindowSamples], j[kWindowSamples];
  int n;
};
SATLAB_HD void gather_window(const Sample* samples, int gw, int gh, int ci, int cj, Window& w) {
  w.n = 0;
  for (int dj = -kWindow; dj <= kWindow; ++dj)
    for (int di = -kWindow; di <= kWindow; ++di) {
      const int a = ci + di, b = cj + dj;
      if (a < 0 || b < 0 || a >= gw || b >= gh) continue;
      const Sample& s = samples[(long long)b * gw + a];
      if (!(s.d == s.d)) continue;
      w.s[w.n] = s, w.i[w.n] = int8_t(di), w.j[w.n] = int8_t(dj);
      ++w.n;
    }
}

// What a sample says the depth is at grid position (u, v): its own, extended along its slopes, within
// [lo, hi] (the input's range).
SATLAB_HD float predict(const Sample& s, int i, int j, int u, int v, float lo, float hi) {
  const float du = float(u - i * kSubSample) * (1.f / kSubSample);
  const float dv = float(v - j * kSubSample) * (1.f / kSubSample);
  const float p = s.d + s.gx * du + s.gy * dv;
  return p < lo ? lo : (p > hi ? hi : p);
}

enum class Reduce { Median, Mean, Max };

// The weighted median by value of p[0..n) under weights w (total > 0 their sum): the smallest p[k] such
// that the samples with p <= p[k] hold at least half of total. A quickselect whose partitions copy the
// candidates below and above the pivot into separate arrays without data-dependent branches (expected
// O(n)); the result depends on the values alone, not on the pivots.
SATLAB_HD float weighted_median(const float* p_in, const uint32_t* w_in, int n, unsigned long long total) {
  float pa[kWindowSamples], pb[kWindowSamples], pr[kWindowSamples];
  uint32_t wa[kWindowSamples], wb[kWindowSamples], wr[kWindowSamples];
  const float* p = p_in;  // the candidates p[0..count)
  const uint32_t* w = w_in;
  int count = n;
  unsigned long long below = 0;  // weight of the values below every candidate
  while (count > 1) {
    const float pivot = p[count / 2];
    float* lp = p == pa ? pb : pa;  // the part below the pivot goes where the candidates are not
    uint32_t* lw = p == pa ? wb : wa;
    int nl = 0, nr = 0;
    unsigned long long wl = 0, we = 0;
    for (int k = 0; k < count; ++k) {
      const float x = p[k];
      const uint32_t y = w[k];
      const bool lt = x < pivot, gt = x > pivot;
      lp[nl] = x, lw[nl] = y, nl += lt;
      pr[nr] = x, wr[nr] = y, nr += gt;
      wl += lt ? y : 0u;
      we += (lt || gt) ? 0u : y;
    }
    if (2 * (below + wl) >= total) {
      p = lp, w = lw, count = nl;
    } else if (2 * (below + wl + we) >= total) {
      return pivot;
    } else {  // the part above, moved where the part below is not
      below += wl + we;
      float* rp = lp == pa ? pb : pa;
      uint32_t* rw = lp == pa ? wb : wa;
      for (int k = 0; k < nr; ++k) rp[k] = pr[k], rw[k] = wr[k];
      p = rp, w = rw, count = nr;
    }
  }
  return p[0];
}

// wmedian's reduction of a window's predictions p and weights w (total > 0 their sum): the weighted median
// of the samples of non-zero weight, in window order (a weighted median is always the value of one of them:
// the largest of weight at or below a zero-weight one holds as much below it), then the polish: the weighted
// mean of those within polish_tol of it, float64 sums in the same order.
SATLAB_HD float polished_median(const float* p_all, const uint32_t* w_all, int n, unsigned long long total,
                                float polish_tol) {
  float p[kWindowSamples];
  uint32_t w[kWindowSamples];
  int m = 0;
  for (int k = 0; k < n; ++k) p[m] = p_all[k], w[m] = w_all[k], m += w_all[k] != 0;
  const float med = weighted_median(p, w, m, total);
  double acc = 0.0, sum = 0.0;
  for (int k = 0; k < m; ++k) {
    const float g = p[k] > med ? p[k] - med : med - p[k];
    if (g <= polish_tol) acc += double(w[k]) * double(p[k]), sum += double(w[k]);
  }
  return float(acc / sum);
}

// One pixel's refined depth from its window. (u, v): the pixel's grid position, (ci, cj) its window's
// centre, rgb its colour.
//  - Median (wmedian): each sample predicts the depth at the pixel (predict); the smallest prediction
//    whose predictions at or below it hold at least half the total weight, then the weighted mean of the
//    predictions within polish_tol of it. Predictions, not raw depths, so that a sloping surface's samples
//    agree at the pixel whatever their colour: a textured slope stays smooth.
//  - Mean (jbu): the weighted mean of the samples' own depths.
//  - Max (snap): the prediction of the first sample of largest weight.
// Weights without colour are used where every colour weight vanished; NaN when no sample has weight.
// Means are float64 sums in row-major window order.
// refine_pixel's second half: the window's weights w (total their sum) reduced.
SATLAB_HD float reduce_window(const Window& win, int ci, int cj, int u, int v, const uint32_t* w,
                              unsigned long long total, Reduce r, float lo, float hi, float polish_tol) {
  const int n = win.n;
  if (total == 0) return __builtin_nanf("");
  if (r == Reduce::Mean) {
    double acc = 0.0;
    for (int k = 0; k < n; ++k) acc += double(w[k]) * double(win.s[k].d);
    return float(acc / double(total));
  }
  if (r == Reduce::Max) {
    int best = 0;
    for (int k = 1; k < n; ++k)
      if (w[k] > w[best]) best = k;
    return predict(win.s[best], ci + win.i[best], cj + win.j[best], u, v, lo, hi);
  }
  float p[kWindowSamples];
  for (int k = 0; k < n; ++k) p[k] = predict(win.s[k], ci + win.i[k], cj + win.j[k], u, v, lo, hi);
  return polished_median(p, w, n, total, polish_tol);
}

SATLAB_HD float refine_pixel(const Window& win, int ci, int cj, int u, int v, const uint8_t rgb[3], Reduce r,
                             float lo, float hi, float polish_tol) {
  uint32_t w[kWindowSamples];
  const int n = win.n;
  unsigned long long total = 0;
  for (int pass = 0; pass < 2 && total == 0; ++pass) {
    total = 0;
    for (int k = 0; k < n; ++k) {
      w[k] = weight(win.s[k], ci + win.i[k], cj + win.j[k], u, v, rgb, pass == 0);
      total += w[k];
    }
  }
  return reduce_window(win, ci, cj, u, v, w, total, r, lo, hi, polish_tol);
}

// Depth at (or above half) the image's size with a confidence map (stereo's checks, a brush's strokes):
// the input where it is confident, the refined depth where it is not, in proportion c in [0,1] between.
// A missing value on one side gives the other.
SATLAB_HD float keep_confident(float in, float c, float refined) {
  if (!(in == in)) return refined;
  if (!(refined == refined)) return in;
  c = c > 0.f ? (c < 1.f ? c : 1.f) : 0.f;
  return c * in + (1.f - c) * refined;
}

}  // namespace satlab::refine
