// The spread mode's CPU reference (core/dof_spread.hpp).
#include "core/dof_spread.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>

#include "core/aperture_image.hpp"
#include "core/dof.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/reference.hpp"

namespace satlab {

void spread_deltas(const ImageRGBA8& image, const ImageF& coc, const dof::Layers& layers,
                   const SpreadApertures& ap, float shoulder, std::vector<std::vector<uint32_t>>& deltas,
                   int threads) {
  const int w = image.width, h = image.height, max_r = ap.max_r;
  const size_t n = image.pixels();
  deltas.resize(size_t(layers.count));
  const uint16_t* lin = srgb_to_linear12(shoulder);
  // Points of the plane, the frame's edges extended.
  const auto coc_at = [&](int x, int y) {
    const float c = coc.data[size_t(dof::clamp_to(y, h)) * size_t(w) + size_t(dof::clamp_to(x, w))];
    return c == c ? c : 0.f;
  };
  const auto lin_at = [&](int x, int y, uint32_t l[3]) {
    const uint8_t* px =
        image.data.data() + (size_t(dof::clamp_to(y, h)) * size_t(w) + size_t(dof::clamp_to(x, w))) * 4;
    for (int k = 0; k < 3; ++k) l[k] = lin[px[k]];
  };
  // A fragment's CoC: f 0 the pixel's own share, 1 its mixed neighbour's (dof::mixed_of), 2 the background
  // hidden behind a thin near object (dof::hidden_of).
  const auto fragment_coc = [&](int f, uint32_t m, uint32_t hb, int vx, int vy) {
    return f == 2 ? dof::hidden_coc(coc_at, hb, vx, vy)
           : f    ? coc_at(vx + dof::mixed_dx(dof::mixed_dir(m)), vy + dof::mixed_dy(dof::mixed_dir(m)))
                  : coc_at(vx, vy);
  };
  const auto share_of = [](int f, uint32_t m, uint32_t hb) {
    const uint32_t s = dof::mixed_share(m);
    return f == 2 ? (hb ? 256u : 0u) : f ? s : 256u - s;
  };
  // Each point's split (dof::mixed_of) and hidden background (dof::hidden_of), and the layer of each of its
  // three fragments (kNoLayer: nothing to splat: no share, or too far outside the frame to reach it), once
  // for all layers: the layers' tasks below then look at one byte a fragment, not at its CoC.
  constexpr uint8_t kNoLayer = 0xFF;
  const int pw = w + 2 * max_r, ph = h + 2 * max_r;
  std::vector<uint32_t> split(size_t(pw) * size_t(ph));
  std::vector<uint16_t> hidden(size_t(pw) * size_t(ph));
  std::vector<uint8_t> layer_of_fragment(size_t(pw) * size_t(ph) * 3);
  parallel_for(
      0, ph,
      [&](long y0, long y1) {
        for (long py = y0; py < y1; ++py)
          for (int px = 0; px < pw; ++px) {
            const size_t i = size_t(py) * size_t(pw) + size_t(px);
            const int vx = px - max_r, vy = int(py) - max_r;
            const uint32_t m = split[i] = dof::mixed_of(coc_at, lin_at, vx, vy);
            const uint32_t hb = hidden[i] = uint16_t(dof::hidden_of(coc_at, vx, vy));
            for (int f = 0; f < 3; ++f) {
              uint8_t& l = layer_of_fragment[i * 3 + size_t(f)];
              l = kNoLayer;
              if (!share_of(f, m, hb)) continue;
              const float c = fragment_coc(f, m, hb, vx, vy);
              if (dof::outside(vx, vy, w, h) > dof::splat_reach(dof::splat_of(c, max_r))) continue;
              l = uint8_t(dof::layer_of(c, layers));
            }
          }
      },
      threads);
  // The layers' deltas in tasks of a layer and a band of virtual rows, claimed in turn by the threads: one
  // task a layer left the thread of the widest-blurred layer with half the work or more (12 Mpx, 2 cores:
  // layer 1 1.84 s of 3.34). A fragment writes rows within `reach` of its own, so bands at least 2 reach + 1
  // tall two apart never write one row: the even bands run at once, then the odd ones. The deltas are sums
  // of integers, the same whatever the order.
  int reach = 1;
  for (const dof::Rect& r : ap.rects) reach = std::max({reach, -int(r.y0), int(r.y1) + 1});
  const int T = std::max(1, threads <= 0 ? default_threads() : threads), vrows = h + 2 * max_r;
  const int band =
      std::max(2 * reach + 1, (vrows + 8 * T - 1) / (8 * T));  // 8 bands a thread where tall enough
  const int bands = (vrows + band - 1) / band;
  parallel_for(
      0, layers.count,
      [&](long j0, long j1) {
        for (long j = j0; j < j1; ++j) deltas[size_t(j)].assign(n * 4, 0u);
      },
      threads);
  for (int parity = 0; parity < 2; ++parity) {
    const long per_layer = (bands - parity + 1) / 2, items = per_layer * layers.count;
    std::atomic<long> next{0};
    parallel_for(
        0, T,
        [&](long, long) {
          for (long item; (item = next.fetch_add(1)) < items;) {
            const long j = item / per_layer;
            const int b = parity + 2 * int(item % per_layer);
            const int vy0 = -max_r + b * band, vy1 = std::min(h + max_r, vy0 + band);
            std::vector<uint32_t>& d = deltas[size_t(j)];
            // The frame's pixels and the virtual ones around it (dof::outside; each the frame's pixel at
            // the clamped position) within max_r of it: no farther one reaches the frame. Each splats its
            // fragments of layer j: the pixel, or its two shares where it is a mixed pixel
            // (dof::mixed_of), and where it is a thin near object's, the background hidden behind it
            // (dof::hidden_of, whole).
            for (int vy = vy0; vy < vy1; ++vy)
              for (int vx = -max_r; vx < w + max_r; ++vx) {
                const size_t i = size_t(vy + max_r) * size_t(pw) + size_t(vx + max_r);
                const uint8_t* fl = &layer_of_fragment[i * 3];
                if (fl[0] != j && fl[1] != j && fl[2] != j) continue;
                const uint32_t m = split[i], hb = hidden[i];
                for (int f = 0; f < 3; ++f) {
                  if (fl[f] != j) continue;
                  const uint32_t share = share_of(f, m, hb);
                  const float c = fragment_coc(f, m, hb, vx, vy);
                  const dof::Splat sp = dof::splat_of(c, max_r);
                  const int bin = ap.bins > 1 ? dof::cat_eye_bin(vx, vy, w, h, sp.front) : 0;
                  uint32_t l[3];
                  if (f < 2)
                    dof::fragment_colour(f, m, lin_at, vx, vy, l);
                  else
                    dof::hidden_colour(lin_at, hb, vx, vy, l);
                  dof::splat_fragment(
                      [&](int X, int Y, int k, uint32_t v) {
                        d[(size_t(Y) * size_t(w) + size_t(X)) * 4 + size_t(k)] += v;
                      },
                      l, sp, share, ap.rects_of(bin), ap.info_of(bin), vx, vy, w, h);
                }
              }
          }
        },
        T);
  }
}

namespace {

using Rects = std::vector<dof::Rect>;

// The largest radius whose profile regions are searched for (spread_apertures); larger ones take equal
// steps of the area fraction.
constexpr int kProfileSearchRadius = 64;
// The most rectangles of an inner outline (the outermost keeps the aperture's): fewer corners to splat.
// Against the profiles' truths (docs/lens.md), 6 scores as 8 to 0.03 dB; 4 loses 0.3-0.6 dB.
constexpr int kInnerRects = 6;
// An aperture image's rectangles a radius in spread (without a profile): measured in docs/lens.md.
constexpr int kSpreadImageRects = 16;
static_assert(kSpreadImageRects <= dof::kMaxSpreadRects, "one component's rectangles");

uint32_t pixels_of(const Rects& rs) {
  uint32_t n = 0;
  for (const dof::Rect& r : rs) n += uint32_t(r.x1 - r.x0 + 1) * uint32_t(r.y1 - r.y0 + 1);
  return n;
}

// The rectangles of `in` cut to the pixels of `out` (rectangles with disjoint rows, as the aperture
// table's are, hence so are the pieces), at most `most`: while there are more, the two adjacent pieces
// that lose the fewest pixels become the one rectangle of their rows and their common columns (inside
// both, so still inside `out`).
Rects nested(const Rects& in, const Rects& out, int most) {
  Rects pieces;
  for (const dof::Rect& a : in)
    for (const dof::Rect& b : out) {
      const dof::Rect c = {std::max(a.x0, b.x0), std::min(a.x1, b.x1), std::max(a.y0, b.y0),
                           std::min(a.y1, b.y1)};
      if (c.x0 <= c.x1 && c.y0 <= c.y1) pieces.push_back(c);
    }
  std::sort(pieces.begin(), pieces.end(), [](const dof::Rect& a, const dof::Rect& b) { return a.y0 < b.y0; });
  const auto merged = [](const dof::Rect& a, const dof::Rect& b) {
    return dof::Rect{std::max(a.x0, b.x0), std::min(a.x1, b.x1), a.y0, b.y1};
  };
  for (size_t i = 0; i + 1 < pieces.size();)  // equal adjacent bands first (no loss)
    if (pieces[i].x0 == pieces[i + 1].x0 && pieces[i].x1 == pieces[i + 1].x1 &&
        pieces[i].y1 + 1 == pieces[i + 1].y0)
      pieces[i] = merged(pieces[i], pieces[i + 1]), pieces.erase(pieces.begin() + long(i) + 1);
    else
      ++i;
  while (pieces.size() > size_t(most)) {
    size_t best = 0;
    long least = -1;
    for (size_t i = 0; i + 1 < pieces.size(); ++i) {
      const dof::Rect m = merged(pieces[i], pieces[i + 1]);
      const long loss =
          m.x0 > m.x1 ? 1L << 40 : long(pixels_of({pieces[i], pieces[i + 1]})) - long(pixels_of({m}));
      if (least < 0 || loss < least) least = loss, best = i;
    }
    const dof::Rect m = merged(pieces[best], pieces[best + 1]);
    pieces.erase(pieces.begin() + long(best) + 1);
    if (m.x0 > m.x1)
      pieces.erase(pieces.begin() + long(best));
    else
      pieces[best] = m;
  }
  return pieces;
}

Rects rects_at(const ApertureTable& t, int r) {
  const dof::Rect* q = t.rects.data() + size_t(r) * size_t(t.stride);
  return Rects(q, q + t.counts[size_t(r)]);
}

void put(SpreadApertures& a, int r, const std::vector<std::pair<Rects, int>>& comps, uint32_t area) {
  dof::SpreadInfo& in = a.info[size_t(r)];
  in = dof::SpreadInfo{};
  in.area = area, in.comps = uint8_t(comps.size()), in.flip = a.flip_front ? 1 : 0;
  int n = 0;
  for (size_t c = 0; c < comps.size(); ++c) {
    for (const dof::Rect& q : comps[c].first) a.rects[size_t(r) * dof::kMaxSpreadRects + size_t(n++)] = q;
    in.end[c] = uint8_t(n), in.mult[c] = int8_t(comps[c].second);
  }
  in.count = uint8_t(n);
}

SpreadApertures empty_apertures(int max_r, uint32_t one, bool flip_front) {
  SpreadApertures a;
  a.max_r = max_r, a.one = one, a.flip_front = flip_front;
  a.rects.assign(size_t(max_r + 1) * dof::kMaxSpreadRects, dof::Rect{0, 0, 0, 0});
  a.info.assign(size_t(max_r + 1), dof::SpreadInfo{});
  return a;
}

// The cat-eye bins (dof::cat_eye_bin) after bin 0, a's flat apertures: each radius's rectangles cut to the
// bin's disc.
void add_cat_eye(SpreadApertures& a, const ApertureTable& t, const Params& p) {
  const int R1 = a.max_r + 1;
  a.bins = dof::kCatEyeBins;
  a.rects.resize(size_t(a.bins) * size_t(R1) * dof::kMaxSpreadRects, dof::Rect{0, 0, 0, 0});
  a.info.resize(size_t(a.bins) * size_t(R1));
  for (int k = 1; k <= dof::kCatEyeSteps; ++k)
    for (int m = 0; m < dof::kCatEyeDirections; ++m) {
      const int bin = 1 + (k - 1) * dof::kCatEyeDirections + m;
      const double shift = double(p.cat_eye) * k / dof::kCatEyeSteps, ang = 2 * M_PI * m / dof::kCatEyeDirections;
      for (int r = 0; r < R1; ++r) {
        const double sx = -shift * r * std::cos(ang), sy = -shift * r * std::sin(ang);
        const double R = double(p.cat_eye_scale) * r + 0.5;
        Rects clip;
        for (int y = int(std::floor(sy - R)); y <= int(std::ceil(sy + R)); ++y) {
          const double dy = y - sy;
          if (dy * dy > R * R) continue;
          const double hw = std::sqrt(R * R - dy * dy);
          const int x0 = int(std::ceil(sx - hw)), x1 = int(std::floor(sx + hw));
          if (x0 <= x1) clip.push_back(dof::Rect{int16_t(x0), int16_t(x1), int16_t(y), int16_t(y)});
        }
        const Rects c = nested(rects_at(t, r), clip, dof::kMaxRects);
        put(a, bin * R1 + r, {{c, 1}}, std::max(pixels_of(c), 1u));
      }
    }
}

}  // namespace

SpreadApertures spread_apertures(const ApertureTable& t) {
  SpreadApertures a = empty_apertures(t.max_r, dof::kSpreadOne, t.flip_front);
  for (int r = 0; r <= t.max_r; ++r) {
    const Rects q = rects_at(t, r);
    put(a, r, {{q, 1}}, std::max(pixels_of(q), 1u));
  }
  return a;
}

bool spread_grey_image(const Params& p) {
  if (p.aperture_image.empty() || uses_aperture_profile(p)) return false;
  const auto im = find_aperture_image(p.aperture_image);
  return im && im->grey;
}

bool spread_components(const Params& p) {
  return uses_aperture_profile(p) || spread_grey_image(p);
}

SpreadApertures spread_apertures(const Params& p, int max_r) {
  if (spread_grey_image(p)) {  // a grey picture's levels, each a component
    const auto im = find_aperture_image(p.aperture_image);
    SpreadApertures a = empty_apertures(max_r, spread_one(p), true);
    dof::Rect q[kGreyLevels * dof::kMaxRects];
    int counts[kGreyLevels], mults[kGreyLevels];
    for (int r = 0; r <= max_r; ++r) {
      image_grey_levels(*im, p, r, dof::kMaxRects, q, counts, mults);
      std::vector<std::pair<Rects, int>> comps;
      int64_t total = 0;
      for (int l = 0; l < kGreyLevels; ++l) {
        if (!counts[l] || !mults[l]) continue;
        comps.push_back({Rects(q + l * dof::kMaxRects, q + l * dof::kMaxRects + counts[l]), mults[l]});
        total += int64_t(mults[l]) * int64_t(pixels_of(comps.back().first));
      }
      total *= kProfileBudget;
      if (total > int64_t(1) << 31) throw Error("spread_apertures: aperture too large for its weights");
      put(a, r, comps, uint32_t(total));
    }
    return a;
  }
  // A picture without a profile takes more rectangles than the profile's outlines leave room for.
  const ApertureTable t = merge_bands(!p.aperture_image.empty() && !uses_aperture_profile(p)
                                          ? image_aperture_table(p, max_r, kSpreadImageRects)
                                          : aperture_table(p, max_r));
  if (!uses_aperture_profile(p)) {
    SpreadApertures a = spread_apertures(t);
    if (p.cat_eye > 0.f) add_cat_eye(a, t, p);
    return a;
  }
  const double P = p.bokeh_profile, h2 = double(p.catadioptric) * double(p.catadioptric);
  const int K = dof::kMaxSpreadComponents;
  // The integral of the lens's weight from u = 0 to u (0 inside the hole, 1 + P (2 u' - 1) beyond it).
  const auto integral = [&](double u) {
    const double v = std::max(u - h2, 0.0);
    return (1 - P) * v + P * v * v / (1 - h2);
  };
  std::vector<double> area(size_t(max_r) + 1);  // A(k), the pixels of the flat aperture of radius k
  for (int k = 0; k <= max_r; ++k) area[size_t(k)] = double(pixels_of(rects_at(t, k)));
  SpreadApertures a = empty_apertures(max_r, spread_one(p), t.flip_front);
  std::vector<double> n, m, sn, snm, snmm;
  for (int r = 0; r <= max_r; ++r) {
    const double ar = area[size_t(r)];
    // Ring k of radius r's aperture: the pixels of aperture k not in aperture k - 1, n_k of them, at area
    // fractions A(k - 1) / A(r) .. A(k) / A(r), weighted m_k (the lens's mean weight over that interval).
    n.assign(size_t(r) + 1, 0.0), m.assign(size_t(r) + 1, 0.0);
    for (int k = 0; k <= r; ++k) {
      // (A squeezed aperture's area is not monotonic in its radius: the fractions stay within the aperture.)
      const double lo = std::min(k ? area[size_t(k - 1)] / ar : 0.0, 1.0),
                   hi = std::min(area[size_t(k)] / ar, 1.0);
      n[size_t(k)] = std::max(area[size_t(k)] - (k ? area[size_t(k - 1)] : 0.0), 0.0);
      m[size_t(k)] = hi > lo ? (integral(hi) - integral(lo)) / (hi - lo) : 0.0;
    }
    // The regions (runs of rings, innermost first), at most K: where the rings are few enough, those
    // that fit the rings' weights best (least squares over the pixels, each region at its mean: dynamic
    // programming over the runs); else the runs between equal steps of the area fraction (K with no hole;
    // K - 1 and the hole), near the best for a weight linear in u.
    std::vector<int> top;  // each region's outermost ring, innermost region first
    if (r <= kProfileSearchRadius) {
      sn.assign(size_t(r) + 2, 0.0), snm = sn, snmm = sn;
      for (int k = 0; k <= r; ++k) {
        sn[size_t(k) + 1] = sn[size_t(k)] + n[size_t(k)];
        snm[size_t(k) + 1] = snm[size_t(k)] + n[size_t(k)] * m[size_t(k)];
        snmm[size_t(k) + 1] = snmm[size_t(k)] + n[size_t(k)] * m[size_t(k)] * m[size_t(k)];
      }
      const auto cost = [&](int i, int j) {  // rings i..j as one region
        const double c = sn[size_t(j) + 1] - sn[size_t(i)], s1 = snm[size_t(j) + 1] - snm[size_t(i)];
        return c > 0 ? snmm[size_t(j) + 1] - snmm[size_t(i)] - s1 * s1 / c : 0.0;
      };
      const size_t R1 = size_t(r) + 1;
      std::vector<double> best(size_t(K) * R1, 1e300);
      std::vector<int> from(size_t(K) * R1, -1);
      for (int j = 0; j <= r; ++j) best[size_t(j)] = cost(0, j);
      for (int g = 1; g < K; ++g)
        for (int j = g; j <= r; ++j)
          for (int i = g - 1; i < j; ++i) {
            const double c = best[size_t(g - 1) * R1 + size_t(i)] + cost(i + 1, j);
            if (c < best[size_t(g) * R1 + size_t(j)] - 1e-12)
              best[size_t(g) * R1 + size_t(j)] = c, from[size_t(g) * R1 + size_t(j)] = i;
          }
      int g = 0;
      for (int q = 1; q < K && q <= r; ++q)
        if (best[size_t(q) * R1 + size_t(r)] < best[size_t(g) * R1 + size_t(r)] - 1e-12) g = q;
      for (int j = r; g >= 0; j = from[size_t(g) * R1 + size_t(j)], --g) top.insert(top.begin(), j);
    } else {
      std::vector<double> bounds;  // area fractions, innermost first
      if (h2 > 0) bounds.push_back(h2);
      const int steps = P != 0 ? (h2 > 0 ? K - 1 : K) : 1;
      for (int c = 1; c < steps; ++c) bounds.push_back(h2 + (1 - h2) * double(c) / steps);
      for (double b : bounds) {
        int k = 0;
        while (k < r && area[size_t(k)] / ar < b) ++k;  // the first aperture holding the fraction b
        if (std::fabs(area[size_t(k)] / ar - b) > (k ? std::fabs(area[size_t(k - 1)] / ar - b) : 1e300)) --k;
        if (k >= 0 && k < r && (top.empty() || k > top.back())) top.push_back(k);
      }
      top.push_back(r);
    }
    // Each region's weight in 32nds (the mean of its rings', at most 2: 64, so every mult fits an int8),
    // outermost first.
    std::vector<int> outline, w32;
    for (size_t c = top.size(); c-- > 0;) {
      const int lo = c ? top[c - 1] + 1 : 0;
      double sw = 0, sc = 0;
      for (int k = lo; k <= top[c]; ++k) sw += n[size_t(k)] * m[size_t(k)], sc += n[size_t(k)];
      outline.push_back(top[c]), w32.push_back(int(std::lround(32 * (sc > 0 ? sw / sc : 0.0))));
    }
    // The centre keeps a 32nd in a hole: a pixel's own splat must cover it (dof::spread_pixel's premise:
    // where nothing else reaches, the pixel is its own colour).
    w32.back() = std::max(w32.back(), 1);
    w32.front() =
        std::max(w32.front(), 1);  // and the rim of a soft profile, so the outline is the aperture's
    std::vector<std::pair<Rects, int>> comps;
    for (size_t c = 0; c < outline.size(); ++c) {
      Rects q = rects_at(t, outline[c]);
      if (c) q = nested(q, comps.back().first, kInnerRects);
      if (q.empty()) break;
      comps.push_back({q, c ? w32[c] - w32[c - 1] : w32[c]});
    }
    // Components that add nothing go (equal weights on both sides of an outline).
    std::vector<std::pair<Rects, int>> kept;
    for (auto& c : comps)
      if (c.second != 0) kept.push_back(c);
    int64_t total = 0;
    for (const auto& c : kept) total += int64_t(c.second) * int64_t(pixels_of(c.first));
    if (kept.size() <= 1 || total <= 0 || kept[0].second <= 0) {
      const Rects q = rects_at(t, r);
      put(a, r, {{q, 1}}, std::max(pixels_of(q), 1u) * kProfileBudget);
      continue;
    }
    total *= kProfileBudget;
    if (total > int64_t(1) << 31) throw Error("spread_apertures: aperture too large for its weights");
    put(a, r, kept, uint32_t(total));
  }
  return a;
}

uint32_t spread_one(const Params& p) {
  return spread_components(p) ? dof::kSpreadOne / kProfileBudget : dof::kSpreadOne;
}

std::string spread_aperture_key(const Params& p, int max_r) {
  char tail[96];
  std::snprintf(tail, sizeof tail, "/profile %.9g/hole %.9g/cat-eye %.9g %.9g", double(p.bokeh_profile),
                double(p.catadioptric), double(p.cat_eye), double(p.cat_eye_scale));
  return aperture_key(p, max_r) + tail;
}

ApertureTable merge_bands(const ApertureTable& t) {
  ApertureTable m = t;
  for (int r = 0; r <= t.max_r; ++r) {
    const dof::Rect* in = t.rects.data() + size_t(r) * size_t(t.stride);
    dof::Rect* out = m.rects.data() + size_t(r) * size_t(t.stride);
    int n = 0;
    for (int i = 0; i < t.counts[size_t(r)]; ++i) {
      if (n > 0 && out[n - 1].x0 == in[i].x0 && out[n - 1].x1 == in[i].x1 && out[n - 1].y1 + 1 == in[i].y0)
        out[n - 1].y1 = in[i].y1;
      else
        out[n++] = in[i];
    }
    for (int i = n; i < t.stride; ++i) out[i] = dof::Rect{0, 0, 0, 0};
    m.counts[size_t(r)] = uint8_t(n);
  }
  return m;
}

namespace {

// Inclusive 2D prefix sums in place, uint32 with wrap-around.
void sat_u32_inplace(uint32_t* d, int w, int h, int channels) {
  for (int y = 0; y < h; ++y) {
    uint32_t* row = d + size_t(y) * size_t(w) * size_t(channels);
    for (int x = 1; x < w; ++x)
      for (int k = 0; k < channels; ++k) row[size_t(x) * channels + k] += row[size_t(x - 1) * channels + k];
    if (y > 0) {
      const uint32_t* above = row - size_t(w) * size_t(channels);
      for (size_t i = 0; i < size_t(w) * size_t(channels); ++i) row[i] += above[i];
    }
  }
}

}  // namespace

void dof_spread_blur(const ImageRGBA8& image, const ImageF& coc, const Params& p, ImageRGBA8& out,
                     int threads, const DepthHistogram* depth,
                     const std::function<void(const char*)>& phase) {
  if (coc.width != image.width || coc.height != image.height || coc.channels != 1)
    throw Error("dof_spread_blur: CoC map size does not match the image");
  const auto to = [&](const char* name) {
    if (phase) phase(name);
  };
  to("spread");
  const int w = image.width, h = image.height, max_r = shaped_max_radius(p);
  const dof::Layers layers = frame_layers(p, p.dof_layers, depth);
  const SpreadApertures ap = spread_apertures(p, max_r);
  std::vector<std::vector<uint32_t>> spread;
  spread_deltas(image, coc, layers, ap, p.response_shoulder, spread, threads);
  to("sat");
  parallel_for(
      0, layers.count,
      [&](long j0, long j1) {
        for (long j = j0; j < j1; ++j) sat_u32_inplace(spread[size_t(j)].data(), w, h, 4);
      },
      threads);
  // The fill tables: table t = (12-bit linear colour, 1) over the pixels of layers 0..t, t < count - 1, each
  // element a block of kFillBlock x kFillBlock pixels (dof::spread_pixel).
  if (layers.count > 1) to("fill");
  const uint16_t* lin = srgb_to_linear12(p.response_shoulder);
  std::vector<std::vector<uint32_t>> tables(size_t(std::max(layers.count - 1, 0)));
  const int bw = dof::fill_blocks(w), bh = dof::fill_blocks(h);
  std::vector<uint16_t> src(size_t(bw) * size_t(bh) * 4, 0);
  if (layers.count > 1) {
    // Each pixel's layer once; table t's blocks are then table t - 1's plus the pixels of layer t (the same
    // integer sums as adding layers 0..t afresh), each pass a block row of pixels a task: a block's pixels
    // are one task's, so no two threads add into one block.
    std::vector<uint8_t> layer_map(size_t(w) * size_t(h));
    parallel_for(
        0, h,
        [&](long y0, long y1) {
          for (size_t i = size_t(y0) * size_t(w); i < size_t(y1) * size_t(w); ++i) {
            const float c = coc.data[i];
            layer_map[i] = uint8_t(dof::layer_of(c == c ? c : 0.f, layers));
          }
        },
        threads);
    for (int t = 0; t + 1 < layers.count; ++t) {
      parallel_for(
          0, bh,
          [&](long b0, long b1) {
            for (int y = int(b0) * dof::kFillBlock; y < std::min(h, int(b1) * dof::kFillBlock); ++y)
              for (int x = 0; x < w; ++x) {
                const size_t i = size_t(y) * size_t(w) + size_t(x);
                if (layer_map[i] != t) continue;
                uint16_t* b =
                    src.data() + (size_t(y / dof::kFillBlock) * size_t(bw) + size_t(x / dof::kFillBlock)) * 4;
                const uint8_t* px = image.data.data() + i * 4;
                for (int k = 0; k < 3; ++k) b[k] = uint16_t(b[k] + lin[px[k]]);
                b[3] = uint16_t(b[3] + 1);
              }
          },
          threads);
      sat_u16(src.data(), bw, bh, 4, tables[size_t(t)], threads);
    }
  }
  const auto tap = [&](int t, int x, int y) {
    dof::Sum4 s = {{0u, 0u, 0u, 0u}};
    if (x < 0 || y < 0) return s;
    const uint32_t* v = tables[size_t(t)].data() + (size_t(y) * size_t(bw) + size_t(x)) * 4;
    for (int k = 0; k < 4; ++k) s.c[k] = v[k];
    return s;
  };
  to("composite");
  if (out.width != w || out.height != h) out = ImageRGBA8(w, h);
  const uint8_t* enc = linear12_to_srgb(p.response_shoulder);
  const int reach = dof::fill_reach(shaped_max_radius(p));
  parallel_for(
      0, h,
      [&](long y0, long y1) {
        for (int y = int(y0); y < int(y1); ++y)
          for (int x = 0; x < w; ++x) {
            const size_t i = size_t(y) * size_t(w) + size_t(x);
            const auto at = [&](int j) {
              dof::Sum4 s;
              for (int k = 0; k < 4; ++k) s.c[k] = spread[size_t(j)][i * 4 + size_t(k)];
              return s;
            };
            float v[3];
            dof::spread_pixel(at, tap, layers.count, layers.edge, reach, float(ap.one), x, y, w, h, v);
            uint8_t* o = out.px(x, y);
            for (int k = 0; k < 3; ++k) o[k] = dof::encode(v[k], true, enc);
            o[3] = image.px(x, y)[3];
          }
      },
      threads);
}

int dof_spread_halo(const DofMode&, const Params& p) {
  const int max_r = shaped_max_radius(p);
  return std::max(max_r + dof::kHiddenGap, dof::fill_reach(max_r) + dof::kFillBlock - 1);
}

void dof_spread_cpu(const DofMode&, const DofCpuArgs& a) {
  dof_spread_blur(*a.image, *a.coc, *a.params, *a.out, a.threads, a.depth, a.phase);
}

}  // namespace satlab
