// The spreading depth-of-field mode (core/dof_modes.hpp: "spread"), after Kosloff, Tao and Barsky 2009
// (constant-time rectangle spreading): every pixel spreads its linear-light colour, premultiplied by
// 1/area, over its aperture (the same rectangle stack as the shaped modes, apertures r and r + 1 blended by
// the fractional CoC) by writing signed corner deltas into the image of its depth layer; a SAT of each
// layer's delta image integrates them into that layer's spread colour and spread weight at every pixel;
// the layers are composited back to front. The per-pixel arithmetic here is shared by the CPU reference
// (core/dof_spread.cpp) and the GPU kernels (gpu/filter/dof_spread.cu).
//
// Exact in integers: a splat's weight is round(kSpreadOne / area) (area of its aperture, in pixels), its
// colour channels round(lin12 * weight / 4095); deltas are added in uint32 with wrap-around and the SAT is
// uint32 with wrap-around, so every spread sum is exact while its true value is below 2^32 (the weights
// over any pixel add up to well under 256 units: see kSpreadOne). The GPU gets the same uint32 SAT as the
// sum, mod 2^32, of the SATs of tiles' windows of the delta image (SATs being linear; gpu/filter/
// dof_spread.cu), so the CPU reference and the GPU agree bit for bit.
#pragma once
#include <cstdint>

#include "core/dof_pixel.hpp"

namespace satlab::dof {

// Fixed-point spread weight of a whole splat. The weights reaching one pixel sum to kSpreadOne times
// sum_q 1/area(q) over the apertures q covering it (area: the whole aperture's, the frame's edges extended,
// virtual pixels beyond the frame splatting too: one splat per point of the plane, as inside); one of a
// splat at Chebyshev distance d >= 1 covers it
// only if its radius is at least d (an aperture lies within the square of its radius), with at most the
// weight 1 / (the least area of the apertures of radius d and more), so the sum is at most 1 + sum_d 8d /
// that area over d = 1..511: below 100 for every shape and anamorphic squeeze (tests/cpu/dof_modes_test.cpp
// computes it: 91.4 at most, the squeeze of 4; every unsqueezed shape has at least r^2 pixels, giving < 56),
// plus at most 1 for rounding: below 256, the limit of 2^32 / kSpreadOne. A mixed pixel's two fragments
// (mixed_of) share its weight (their shares add up to the whole pixel's, each aperture within the square of
// its own radius), and a hidden background (hidden_of) adds at most one whole pixel's more, so the sum stays
// below 2 x 102 and the bound holds.
// Quantisation: a splat's weight is off by at most 1/2 unit, relatively area / 2^25 for a whole pixel (3e-5
// at radius 17, 4e-4 at radius 64) and area / (2^9 part) for a fragment's share part / 65536 (a share of a
// few 256ths of a large aperture may round to 0).
constexpr uint32_t kSpreadOne = 1u << 24;

// The pixels of an aperture (its rectangles' areas; at least 1: every shape holds its centre).
SATLAB_HD uint32_t aperture_area(const Rect* rects, int n) {
  uint32_t area = 0;
  for (int i = 0; i < n; ++i)
    area += uint32_t(rects[i].x1 - rects[i].x0 + 1) * uint32_t(rects[i].y1 - rects[i].y0 + 1);
  return area > 0u ? area : 1u;
}

// The frame's edges, extended: the lens sees beyond the frame, so spread treats the plane around it as
// the frame clamped to its edges (a virtual pixel (x, y) outside it has the colour, depth and CoC of the
// frame's pixel (clamp(x, 0, w - 1), clamp(y, 0, h - 1))). Virtual pixels splat like real ones, their
// rectangles clipped to the frame (splat_corners; only the in-frame integral is ever read), and every
// splat carries 1 / (its whole aperture's area): energy leaves the frame as it leaves a lens's, and a
// pixel near an edge gathers the same weight as one inside (a uniform CoC gives a uniform spread weight
// everywhere). A virtual pixel reaches the frame only within its splat's largest radius (an aperture lies
// within the square of its radius) of it: Chebyshev distance outside(x, y) <= splat_reach. The spread sums
// are bit for bit those of the frame padded by edge replication and cropped (the padded frame's own
// extension being the same clamp, any padding gives them; spreading with apertures clipped to a padded
// frame gives them too once the padding is at least 2 max_r wide); the fill (spread_pixel) keeps to the
// frame's pixels (a normalised mean: clipping loses nothing there).
SATLAB_HD int clamp_to(int v, int n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }

SATLAB_HD int outside(int x, int y, int w, int h) {
  const int dx = x < 0 ? -x : x >= w ? x - w + 1 : 0, dy = y < 0 ? -y : y >= h ? y - h + 1 : 0;
  return dx > dy ? dx : dy;
}

// A splat: the aperture radius r (round down of |CoC|, NaN 0, at most max_r) and the fractional part f
// quantised to q / 256 (0 at max_r); apertures r and r + 1 get the weights (1 - f) and f.
struct Splat {
  int r;
  uint32_t q;
  bool front;  // CoC > 0: in front of the focus plane (an asymmetric aperture is drawn turned there)
};

SATLAB_HD Splat splat_of(float coc, int max_r) {
  if (!(coc == coc)) coc = 0.f;
  const float a = coc < 0.f ? -coc : coc;
  const int r = a < float(max_r) ? int(a) : max_r;
  const float f = r < max_r ? a - float(r) : 0.f;
  return {r, uint32_t(f * 256.f + 0.5f), coc > 0.f};  // q in 0..256
}

// The largest aperture radius of a splat: r, or r + 1 when it has a share of aperture r + 1.
SATLAB_HD int splat_reach(Splat s) { return s.r + (s.q > 0u ? 1 : 0); }

// Fixed-point weight of an aperture of `area` pixels (aperture_area: the whole aperture, the frame's edges
// extended) carrying the share `part` / 65536 (the fractional CoC's share of apertures r and r + 1, in
// 256ths, times the fragment's share of the pixel, in 256ths: mixed_of): round(kSpreadOne * part / (65536
// area)) = floor((2^24 part + 2^15 area) / (2^16 area)). In 32 bits: floor(floor(N / a) / b) = floor(N /
// (a b)) for natural numbers, and floor((2^24 part + 2^15 area) / 2^16) = 2^8 part + floor(area / 2), below
// 2^32 for part <= 65536 and area <= (2 kMaxShapedRadius + 1)^2 < 2^20 (tests/cpu/dof_spread_test.cpp
// checks it against the 64-bit quotient). A whole pixel's share (256 x 256ths) gives the weight of its
// share of the blend alone.
SATLAB_HD uint32_t splat_weight(uint32_t part, uint32_t area) {
  return ((part << 8) + area / 2u) / area;
}

// A splat's four values: round(lin12 * w / 4095) per colour channel, w. lin12 is a code in [0, 4095]
// whatever the camera response (core/dof.hpp), so a colour value is at most w and the sums' budget above
// holds. In 32 bits (the 64-bit quotient cost the GPU's spread a division sequence per channel): with w =
// 4095 a + b, floor((lin12 w + 2047) / 4095) = lin12 a + floor((lin12 b + 2047) / 4095), every term below
// 2^25 for w <= 2^24 (kSpreadOne); tests/cpu/dof_spread_test.cpp checks it against the 64-bit quotient.
SATLAB_HD void splat_values(const uint32_t lin[3], uint32_t w, uint32_t v[4]) {
  const uint32_t a = w / 4095u, b = w - 4095u * a;
  for (int k = 0; k < 3; ++k) v[k] = lin[k] * a + (lin[k] * b + 2047u) / 4095u;
  v[3] = w;
}

// Mixed pixels at depth edges. The pinhole view averages many samples per pixel, the depth map holds one
// (the pixel's centre): a pixel on the silhouette of a nearer object mixes the object's colour with that of
// the surface behind, but carries the depth of the surface behind alone, so the object's share of it would
// be spread with the farther surface's CoC (the object's sharp colour leaking into the blurred background as
// a halo, and missing from its own edge). Such a pixel is split into two fragments: the nearer neighbour's
// share s / 256 of it, with that neighbour's colour F and CoC, and the rest, with the colour (256 C - s F) /
// (256 - s) (so the two add up to the pixel's colour C) and the pixel's own CoC. Each fragment splats as a
// pixel would, its weights scaled by its share (splat_weight).
//
// The nearer neighbour q is the 4-neighbour whose signed CoC (larger is nearer: coc_from_depth) exceeds the
// pixel's by the most, at least kMixedStep px; the pixel's own surface is sampled at the opposite neighbour
// o, which must lie on it (its CoC within a quarter of q's step of the pixel's). In 12-bit linear light
// the pixel is fitted as C = B + s (F - B), F = q's colour, B = o's: s is the least-squares share, rounded
// to 256ths, clamped to [0, 256], and kept only where F and B differ (|F - B|^2 >= kMixedContrast) and the
// fit's residual is small: |256 (C - B) - s (F - B)| <= s |F - B| / kMixedFit (a pixel whose colour does
// not lie between its neighbours' is texture, not a mix of them). Measured on the thin-lens ground truth
// (docs/quality.md, "How spread meets the lens": mixed pixels): the four neighbours, not eight (the
// diagonals' shares were off twice as much); without the residual test the split loses 1-2 dB on the
// occlusion scene's tiled wall.
//
// Points of the plane: coc(x, y) and lin(x, y, l) give the CoC (NaN as 0) and 12-bit linear colour of any
// point, the frame's edges extended (clamped), so the virtual pixels beyond the frame split as those of the
// frame padded by edge replication would (core/dof_spread.cpp). Returns 0 (no split) or the nearer
// neighbour's share s in bits 0..8 (1..256) and its direction (mixed_dx, mixed_dy) in bits 9..10.
constexpr float kMixedStep = 0.3f;
constexpr int64_t kMixedContrast = 64, kMixedFit = 5;

SATLAB_HD int mixed_dx(int d) {
  return d == 2 ? -1 : d == 3 ? 1 : 0;
}
SATLAB_HD int mixed_dy(int d) {
  return d == 0 ? -1 : d == 1 ? 1 : 0;
}
SATLAB_HD uint32_t mixed_share(uint32_t m) {
  return m & 511u;
}
SATLAB_HD int mixed_dir(uint32_t m) {
  return int(m >> 9);
}

// mixed_of in two steps: the depth test (the nearer neighbour's direction, or -1: no split) and the
// colour fit of C between B and F (the split, or 0). The GPU calls the fit out of line: few pixels reach it.
template <class Coc>
SATLAB_HD int mixed_direction(const Coc& coc, int x, int y) {
  const float c = coc(x, y);
  float step = kMixedStep;
  int dir = -1;
  for (int d = 0; d < 4; ++d) {
    const float q = coc(x + mixed_dx(d), y + mixed_dy(d)) - c;
    if (q > step) step = q, dir = d;
  }
  if (dir < 0) return -1;
  const float o = coc(x - mixed_dx(dir), y - mixed_dy(dir)) - c;
  return (o < 0.f ? -o : o) < 0.25f * step ? dir : -1;
}

SATLAB_HD uint32_t mixed_fit(const uint32_t C[3], const uint32_t F[3], const uint32_t B[3], int dir) {
  int64_t num = 0, den = 0, e[3], g[3];
  for (int k = 0; k < 3; ++k) {
    e[k] = int64_t(C[k]) - int64_t(B[k]), g[k] = int64_t(F[k]) - int64_t(B[k]);
    num += e[k] * g[k], den += g[k] * g[k];
  }
  if (den < kMixedContrast || num <= 0) return 0u;
  int64_t s = (num * 256 + den / 2) / den;
  s = s < 256 ? s : 256;
  if (s == 0) return 0u;
  int64_t res = 0;
  for (int k = 0; k < 3; ++k) {
    const int64_t r = 256 * e[k] - s * g[k];
    res += r * r;
  }
  if (kMixedFit * kMixedFit * res > s * s * den) return 0u;
  return uint32_t(s) | uint32_t(dir) << 9;
}

template <class Coc, class Lin>
SATLAB_HD uint32_t mixed_of(const Coc& coc, const Lin& lin, int x, int y) {
  const int dir = mixed_direction(coc, x, y);
  if (dir < 0) return 0u;
  uint32_t C[3], F[3], B[3];
  lin(x, y, C);
  lin(x + mixed_dx(dir), y + mixed_dy(dir), F);
  lin(x - mixed_dx(dir), y - mixed_dy(dir), B);
  return mixed_fit(C, F, B, dir);
}

// The colour left to a split pixel's own surface: (256 C - s F) / (256 - s), rounded, within [0, 4095]
// (s < 256; 32-bit: 256 C and s F are below 2^20).
SATLAB_HD void mixed_rest(const uint32_t c[3], const uint32_t f[3], uint32_t s, uint32_t out[3]) {
  const uint32_t d = 256u - s;
  for (int k = 0; k < 3; ++k) {
    const uint32_t a = 256u * c[k], b = s * f[k];
    const uint32_t v = a <= b ? 0u : (a - b + d / 2u) / d;
    out[k] = v < 4095u ? v : 4095u;
  }
}

// The colour of fragment f of the point (x, y) with split m (mixed_of; lin as there): f = 1 the nearer
// neighbour's colour, f = 0 the point's own, less the nearer share where it is split (mixed_rest).
template <class Lin>
SATLAB_HD void fragment_colour(int f, uint32_t m, const Lin& lin, int x, int y, uint32_t l[3]) {
  const int nx = x + mixed_dx(mixed_dir(m)), ny = y + mixed_dy(mixed_dir(m));
  if (f) {
    lin(nx, ny, l);
    return;
  }
  lin(x, y, l);
  if (mixed_share(m)) {
    uint32_t near[3];
    lin(nx, ny, near);
    mixed_rest(l, near, mixed_share(m), l);
  }
}

// The background hidden behind thin near objects. Where a post, a rod or a wire a few pixels wide stands in
// front of a farther surface, the pinhole view holds nothing of that surface behind it, but a lens sees it
// through the object's blur (focus on the surface: a veil over the surface continued behind it) or around
// it (focus on the object: the surface's blur with no hole where the object stands). A frame pixel whose row
// or column meets, on both sides within kHiddenGap pixels, a pixel at least kHiddenStep px farther (signed
// CoC at most its own less kHiddenStep) gets a third fragment, whole (share 256): that hidden surface, its
// 12-bit linear colour and its CoC interpolated linearly between those two pixels (the nearest such on each
// side; of the row and the column, the shorter span, the row on a tie), splatted as a pixel of its own
// layer would be. A wider object (no farther pixel within kHiddenGap on one side) gets none: its hidden
// background is the fill's (spread_pixel). Measured on the thin-lens ground truth (docs/quality.md, "How
// spread meets the lens": the background behind thin near objects).
//
// coc(x, y) and lin(x, y, l) as mixed_of's: points of the plane, the frame's edges extended. A point
// beyond the frame then has the record and the fragment of the frame's pixel it copies: beyond the left
// edge, every point of its row before it has its CoC, so only the column can qualify, and that column's
// CoCs and colours are the edge pixel's column's (whose own row fails the same way); the other edges alike;
// beyond a corner, neither (tests/cpu/dof_spread_test.cpp checks it).
//
// Returns 0 (none) or the record: bit 0 the axis (0 the row, 1 the column), bits 1..4 the distance a to the
// farther pixel before the pixel (left or above), bits 5..8 the distance b to the one after it.
constexpr int kHiddenGap = 6;
constexpr float kHiddenStep = 3.f;
static_assert(kHiddenGap <= 15, "the distances take 4 bits of the record");
constexpr uint32_t kHiddenBits = 511u;  // the bits a record (hidden_of) can set
// A pixel with a hidden background has a 4-neighbour step of at least kHiddenStep / kHiddenGap between it
// and each of the two farther pixels: more than kMixedStep, so the GPU finds those pixels in its tiles with
// a step (gpu/filter/dof_spread.cu).
static_assert(kHiddenStep / float(kHiddenGap) > kMixedStep, "a hidden background lies near a step");

SATLAB_HD int hidden_axis(uint32_t h) {
  return int(h & 1u);
}
SATLAB_HD int hidden_before(uint32_t h) {
  return int((h >> 1) & 15u);
}
SATLAB_HD int hidden_after(uint32_t h) {
  return int((h >> 5) & 15u);
}

template <class Coc>
SATLAB_HD uint32_t hidden_of(const Coc& coc, int x, int y) {
  const float lim = coc(x, y) - kHiddenStep;
  uint32_t best = 0u;
  int span = 2 * kHiddenGap + 1;
  for (int axis = 0; axis < 2; ++axis) {
    const int dx = axis ? 0 : 1, dy = axis ? 1 : 0;
    int a = 0, b = 0;
    for (int d = 1; d <= kHiddenGap && !a; ++d)
      if (coc(x - d * dx, y - d * dy) <= lim) a = d;
    if (!a) continue;
    for (int d = 1; d <= kHiddenGap && !b; ++d)
      if (coc(x + d * dx, y + d * dy) <= lim) b = d;
    if (!b || a + b >= span) continue;
    span = a + b;
    best = uint32_t(axis) | uint32_t(a) << 1 | uint32_t(b) << 5;
  }
  return best;
}

// The hidden fragment of record h (hidden_of, non-zero) at (x, y): its CoC (b P + a Q) / (a + b), P and Q
// the two farther pixels' CoCs at distances a and b, and its colour, each channel round((b P + a Q) /
// (a + b)) of their colours; hidden_fragment gives both (the CoC returned, the colour in l).
template <class Coc>
SATLAB_HD float hidden_coc(const Coc& coc, uint32_t h, int x, int y) {
  const int a = hidden_before(h), b = hidden_after(h), dx = hidden_axis(h) ? 0 : 1, dy = 1 - dx;
  return (coc(x - a * dx, y - a * dy) * float(b) + coc(x + b * dx, y + b * dy) * float(a)) / float(a + b);
}

template <class Lin>
SATLAB_HD void hidden_colour(const Lin& lin, uint32_t h, int x, int y, uint32_t l[3]) {
  const int a = hidden_before(h), b = hidden_after(h), dx = hidden_axis(h) ? 0 : 1, dy = 1 - dx;
  uint32_t p[3], q[3];
  lin(x - a * dx, y - a * dy, p);
  lin(x + b * dx, y + b * dy, q);
  const uint32_t n = uint32_t(a + b);
  for (int k = 0; k < 3; ++k) l[k] = (p[k] * uint32_t(b) + q[k] * uint32_t(a) + n / 2u) / n;
}

template <class Coc, class Lin>
SATLAB_HD float hidden_fragment(const Coc& coc, const Lin& lin, uint32_t h, int x, int y, uint32_t l[3]) {
  hidden_colour(lin, h, x, y, l);
  return hidden_coc(coc, h, x, y);
}

// The signed corner deltas of the aperture's rectangles around (x, y), clipped to the image: add(X, Y, s)
// adds s * v at (X, Y), s = +1 or -1. A corner beyond the right or bottom edge is dropped (the SAT never
// reaches it), one before the left or top edge moves onto it.
template <class Add>
SATLAB_HD void splat_corners(const Add& add, const Rect* rects, int n, int x, int y, int w, int h,
                             bool turn = false) {
  for (int i = 0; i < n; ++i) {
    const Rect r = turn ? flipped(rects[i]) : rects[i];
    int x0 = x + r.x0, y0 = y + r.y0;
    const int x1 = x + r.x1 + 1, y1 = y + r.y1 + 1;
    if (x1 <= 0 || y1 <= 0 || x0 >= w || y0 >= h) continue;
    x0 = x0 > 0 ? x0 : 0, y0 = y0 > 0 ? y0 : 0;
    add(x0, y0, 1);
    if (x1 < w) add(x1, y0, -1);
    if (y1 < h) add(x0, y1, -1);
    if (x1 < w && y1 < h) add(x1, y1, 1);
  }
}

// The spread's apertures (core/dof_spread.hpp, spread_apertures): per radius up to kMaxSpreadRects
// rectangles in up to kMaxSpreadComponents components, each a stack of rectangles (its own pixels, once)
// that adds `mult` times a unit weight over them (signed: an aperture with a profile or a central hole
// is its outline less or plus smaller copies of it, each inside the one before, so the weight is never
// negative at any pixel). `area` is the aperture's weighted area sum_c mult_c pixels_c, times the
// frame's budget factor (SpreadApertures::one). A flat aperture is one component of mult 1: its splat is
// that of the plain rectangle stack, bit for bit.
constexpr int kMaxSpreadComponents = 3, kMaxSpreadRects = kMaxSpreadComponents * kMaxRects;
struct SpreadInfo {
  uint32_t area;
  uint8_t count, comps;               // rectangles, components
  uint8_t end[kMaxSpreadComponents];  // component c holds rectangles end[c - 1] (0 for c = 0) .. end[c] - 1
  int8_t mult[kMaxSpreadComponents];
  uint8_t flip;  // 1: a CoC > 0 draws the rectangles turned by 180 degrees (ApertureTable::flip_front)
  uint8_t pad[3];
};
static_assert(sizeof(SpreadInfo) == 16, "one 16-byte load per radius");

// A component's splat values: splat_values of the weight round(kSpreadOne part |mult| / (65536 area))
// (splat_weight of part |mult|: (part |mult|) << 8 stays below 2^32 for part <= 65536 and |mult| <= 127),
// negated (uint32 wrap-around) for a negative mult.
SATLAB_HD void component_values(const uint32_t l[3], uint32_t part, uint32_t area, int mult, uint32_t v[4]) {
  const uint32_t m = uint32_t(mult < 0 ? -mult : mult);
  splat_values(l, splat_weight(part * m, area), v);
  if (mult < 0)
    for (int k = 0; k < 4; ++k) v[k] = 0u - v[k];
}

// One fragment at (x, y) (a whole pixel: share 256): colour l (12-bit linear), CoC splat sp, share of the
// pixel in 256ths: add(X, Y, k, value) for every corner delta of its two apertures (info[r] and the
// kMaxSpreadRects rectangles of radius r in rects; each component's weight scaled by the share,
// rectangles clipped to the frame).
template <class Add>
SATLAB_HD void splat_fragment(const Add& add, const uint32_t l[3], Splat sp, uint32_t share,
                              const Rect* rects, const SpreadInfo* info, int x, int y, int w, int h) {
  for (int a = 0; a < 2; ++a) {
    const uint32_t part = a ? sp.q : 256u - sp.q;
    if (!part) continue;
    const int r = sp.r + a;
    const Rect* rr = rects + r * kMaxSpreadRects;
    const SpreadInfo in = info[r];
    for (int c = 0, q0 = 0; c < in.comps; q0 = in.end[c], ++c) {
      uint32_t v[4];
      component_values(l, part * share, in.area, in.mult[c], v);
      splat_corners(
          [&](int X, int Y, int sign) {
            for (int k = 0; k < 4; ++k) add(X, Y, k, sign > 0 ? v[k] : 0u - v[k]);
          },
          rr + q0, in.end[c] - q0, x, y, w, h, in.flip && sp.front);
    }
  }
}

// Cat-eye bokeh (Params::cat_eye): a lens's barrel cuts the aperture of points away from the frame's centre,
// so their bokeh narrows along the radius and keeps its width across it (mechanical vignetting; swirl, where
// it is strong). The spread draws it with one aperture table per bin: a point's bin is that of its
// kCatEyeTile x kCatEyeTile tile (the frame's own tiles from its origin; a virtual point beyond the frame
// takes the clamped point's), from the tile's centre relative to the frame's: step k, the nearest of 0 ..
// kCatEyeSteps to kCatEyeSteps times its distance over the half-diagonal, and, for k > 0, direction m, the
// nearest of kCatEyeDirections angles m 2 pi / kCatEyeDirections (atan2 of the offset, x right, y down),
// turned by half a turn in front of the focus plane (the stop is seen from the other side). Bin 0 (k = 0)
// is the plain aperture; bin 1 + (k - 1) kCatEyeDirections + m the aperture cut by a disc of radius
// cat_eye_scale r + 1/2 centred -(cat_eye k / kCatEyeSteps) r (cos, sin)(m 2 pi / kCatEyeDirections)
// (core/dof_spread.cpp, spread_apertures). Integer arithmetic throughout, so both backends agree.
constexpr int kCatEyeTile = 32, kCatEyeSteps = 6, kCatEyeDirections = 16;
constexpr int kCatEyeBins = 1 + kCatEyeSteps * kCatEyeDirections;

SATLAB_HD int cat_eye_bin(int x, int y, int w, int h, bool front) {
  const int tx = clamp_to(x, w) / kCatEyeTile * kCatEyeTile, ty = clamp_to(y, h) / kCatEyeTile * kCatEyeTile;
  const int tw = w - tx < kCatEyeTile ? w - tx : kCatEyeTile, th = h - ty < kCatEyeTile ? h - ty : kCatEyeTile;
  // Twice the tile centre's offset from the frame's centre (exact in integers).
  const long long dx = 2LL * tx + tw - w, dy = 2LL * ty + th - h;
  const long long d2 = dx * dx + dy * dy, D2 = (long long)w * w + (long long)h * h;  // (2 half-diagonal)^2
  int k = 0;
  for (int j = 1; j <= kCatEyeSteps; ++j)
    if (4LL * kCatEyeSteps * kCatEyeSteps * d2 >= (2LL * j - 1) * (2LL * j - 1) * D2) k = j;
  if (k == 0) return 0;
  // The sector between the boundary angles (m - 1/2) and (m + 1/2) 2 pi / 16: boundary b_m at (m + 1/2) 2 pi / 16,
  // 2^20 (cos, sin) rounded; v lies past b_{m-1} and not past b_m (cross products, counter-clockwise in (x, y)).
  static_assert(kCatEyeDirections == 16, "the boundary table has 16 directions");
  constexpr long long b[16][2] = {{1028428, 204567},   {871859, 582558},    {582558, 871859},    {204567, 1028428},
                                  {-204567, 1028428},  {-582558, 871859},   {-871859, 582558},   {-1028428, 204567},
                                  {-1028428, -204567}, {-871859, -582558},  {-582558, -871859},  {-204567, -1028428},
                                  {204567, -1028428},  {582558, -871859},   {871859, -582558},   {1028428, -204567}};
  int m = 0;
  for (int i = 0; i < 16; ++i) {
    const long long* a = b[(i + 15) % 16];
    const long long* c = b[i];
    if (a[0] * dy - a[1] * dx >= 0 && c[0] * dy - c[1] * dx < 0) m = i;
  }
  if (front) m = (m + kCatEyeDirections / 2) % kCatEyeDirections;
  return 1 + (k - 1) * kCatEyeDirections + m;
}

// The fill tables' blocks (spread_pixel): kFillBlock x kFillBlock pixels per element, a quarter of the
// tables' bytes at 2 (the GPU builds them beside the spread, bound by memory bandwidth: docs/performance.md,
// "What the spread's quality features cost"); 1 takes the pixels themselves. A block's sums are at most
// kFillBlock^2 4095 per colour channel: 16-bit slices up to 4.
constexpr int kFillBlock = 2;
static_assert(kFillBlock >= 1 && kFillBlock * kFillBlock * 4095 <= 65535, "a block's sums in 16 bits");
SATLAB_HD int fill_blocks(int n) {
  return (n + kFillBlock - 1) / kFillBlock;
}

// A layer's coverage is its spread weight (in units of spread_pixel's `one`) times this gain, at most 1. Fitted on the
// ground truth (docs/quality.md, "How spread meets the lens": surfaces across layers): with a surface's
// layers added (spread_pixel), 1.03 scores best of 1.0 to 1.2 (mean of the 12 cases; 1.1 was best before
// surfaces joined). A layer's weight dips below 1 where its CoC varies, which the gain covers.
constexpr float kCoverageGain = 1.03f;

// A layer joins the surface in front of it (spread_pixel) when its spread weight, in units of `one`, is
// at least this. Fitted on the ground truth (docs/quality.md, "How spread meets the lens": surfaces across
// layers): 0.3 scores best of 0.15, 0.3 and 0.5; joining every adjacent layer present (0) loses most on
// default_far_small, where a sharp object's sliver behind a blurred one (weight about 0.1) then no longer
// fills the rest.
constexpr float kSurfaceJoin = 0.3f;

// One output pixel (linear light in [0,1]) of the layered spread composite. spread(j) returns layer j's
// spread sums (colour, weight) at the pixel; a layer present here (weight > 0) has the colour sum / weight.
// Front to back, the layers present are grouped into surfaces: a surface starts at a layer and takes the
// next farther layer while that one is present, adjacent and weighs at least kSurfaceJoin (one object cut
// by a layer edge: a sphere's rim and its middle, a floor across an edge). Within a surface the layers add,
// front first, each with coverage min(kCoverageGain weight / one, 1 - the coverage so far), so the
// surface's coverage T is their sum up to 1 and its colour their coverage-weighted mean. The front surface
// (coverage a_top, colour c_top) goes over the front-to-back composite of the surfaces behind it,
// normalised by its coverage:
//   acc += t T_s c_s,  cov += t T_s,  t *= 1 - T_s   (t from 1, the surfaces behind top in turn),
//   out = a_top c_top + (1 - a_top) acc / cov.
// (Normalising what lies behind top keeps a surface whole where a nearer sharp object cut a hole in it.)
// With no surface behind a top that does not cover the pixel (the blurred silhouette of a near object,
// whose own rim in a farther layer no longer passes for an opaque background), the lens sees what the pinhole
// view hides there: the mean colour of the pixels of layers 0..lo-1 around the pixel, lo the farthest layer
// of top (normalised convolution through tap(t, x, y), the inclusive SAT of table t = (12-bit linear colour,
// 1) over the pixels of layers 0..t) in square boxes from the radius of layer lo-1's and lo's middle CoC
// (at least 2), doubling up to `reach` (fill_reach); with nothing behind within reach, c_top. The tables hold
// blocks of kFillBlock x kFillBlock pixels (fill_blocks; a block's sums over its pixels in the frame), and a
// box takes the blocks that meet the square (so it reaches up to kFillBlock - 1 pixels further on the side
// away from the pixel's place in its block). `edge` is Layers::edge; `one` is the spread weight of a pixel
// that every splat of a uniform CoC covers (SpreadApertures::one). The pixel's own splat covers it, so a
// layer is present.
template <class Spread, class Tap>
SATLAB_HD void spread_pixel(const Spread& spread, const Tap& tap, int layers, const float* edge, int reach,
                            float one, int x, int y, int w, int h, float out[3]) {
  float acc[3] = {0.f, 0.f, 0.f}, cov = 0.f, t = 1.f;  // the surfaces behind top
  float ct[3] = {0.f, 0.f, 0.f}, at = 0.f;             // top
  float sc[3] = {0.f, 0.f, 0.f}, st = 0.f;             // the surface being built (premultiplied)
  int lo = -1;                                         // top's farthest layer
  bool building_top = true, open = false;
  // Closes the surface being built: the first is top, the others go behind it.
  const auto close = [&]() {
    if (building_top) {
      at = st;
      for (int k = 0; k < 3; ++k) ct[k] = sc[k] / st;
      building_top = false;
    } else {
      for (int k = 0; k < 3; ++k) acc[k] += t * sc[k];
      cov += t * st;
      t *= 1.f - st;
    }
    st = 0.f;
    for (int k = 0; k < 3; ++k) sc[k] = 0.f;
  };
  for (int j = layers - 1; j >= 0; --j) {
    const Sum4 s = spread(j);
    if (s.c[3] == 0u) {
      open = false;
      continue;
    }
    const float wt = float(s.c[3]), lw = wt / one;
    if (st > 0.f && !(open && lw >= kSurfaceJoin)) close();
    float a = kCoverageGain * lw;
    a = a < 1.f - st ? a : 1.f - st;
    for (int k = 0; k < 3; ++k) sc[k] += a * (float(s.c[k]) / wt);
    st += a;
    if (building_top) lo = j;
    open = true;
  }
  if (st > 0.f) close();
  if (cov == 0.f && lo > 0 && at < 1.f) {
    float mid = 0.5f * (edge[lo - 1] + edge[lo]);
    mid = mid < 0.f ? -mid : mid;
    Sum4 behind = {{0u, 0u, 0u, 0u}};
    const int bx = x / kFillBlock, by = y / kFillBlock;
    const auto block = [](int v) { return v >= 0 ? v / kFillBlock : (v - kFillBlock + 1) / kFillBlock; };
    for (int R = mid > 2.f ? int(mid + 0.5f) : 2; behind.c[3] == 0u && R < 2 * reach; R *= 2) {
      const int q = R < reach ? R : reach;
      const Rect box = {int16_t(block(x - q) - bx), int16_t(block(x + q) - bx), int16_t(block(y - q) - by),
                        int16_t(block(y + q) - by)};
      shape_sum(tap, lo - 1, &box, 1, bx, by, fill_blocks(w), fill_blocks(h), behind);
    }
    if (behind.c[3] != 0u) {
      const float norm = float(behind.c[3]) * float(kLinearOne);
      for (int k = 0; k < 3; ++k) acc[k] = float(behind.c[k]) / norm;
      cov = 1.f;
    }
  }
  for (int k = 0; k < 3; ++k) out[k] = cov > 0.f ? at * ct[k] + (1.f - at) * (acc[k] / cov) : ct[k];
}

}  // namespace satlab::dof
