#include "core/highlights.hpp"

#include <algorithm>
#include <numeric>

#include "core/dof_modes.hpp"
#include "core/dof_spread.hpp"
#include "core/error.hpp"
#include "core/highlights_pixel.hpp"
#include "core/parallel.hpp"

namespace satlab {

int highlight_halo(const Params& p) {
  return 2 * shaped_max_radius(p);
}

double highlight_clip_boost(const Params& p) {
  // A clipped channel decodes to the largest radiance the response can, 1 / (1 - s) (12-bit code 4095);
  // its true radiance is at least that, by an unknown factor: the gain. The response's shoulder is in the
  // decode itself, so at s = 0 (plain sRGB: clipped means radiance >= 1) the boost is the gain alone.
  return double(p.highlight_gain);
}

HighlightSprites highlight_sprites(const ImageRGBA8& image, const ImageF& coc, const Params& p) {
  HighlightSprites s = highlight_compact(image, coc, p);
  highlight_sort(coc, s);
  return s;
}

HighlightSprites highlight_compact(const ImageRGBA8& image, const ImageF& coc, const Params& p) {
  if (coc.width != image.width || coc.height != image.height || coc.channels != 1)
    throw Error("highlight_sprites: CoC map size does not match the image");
  HighlightSprites s;
  const uint16_t* lin = srgb_to_linear12(p.response_shoulder);
  const uint32_t lum_min = hl::luminance_min(p.highlight_threshold, p.response_shoulder);
  const int max_r = shaped_max_radius(p);
  const size_t n = image.pixels(), cap = size_t(p.highlight_cap);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* px = image.data.data() + i * 4;
    if (hl::luminance(lin[px[0]], lin[px[1]], lin[px[2]]) < lum_min) continue;
    if (dof::shaped_radius(coc.data[i], max_r) < hl::kMinRadius) continue;
    ++s.stats.found;
    if (s.index.size() < cap) s.index.push_back(uint32_t(i));
  }
  s.stats.valid = true;
  s.stats.kept = uint32_t(s.index.size());
  s.stats.cap = uint32_t(cap);
  return s;
}

void highlight_sort(const ImageF& coc, HighlightSprites& s) {
  // Stable sort by key: the order the GPU's stable radix sort of the raster-ordered sprites gives.
  std::vector<uint32_t> order(s.index.size());
  std::iota(order.begin(), order.end(), 0u);
  std::vector<uint32_t> keys(s.index.size());
  for (size_t k = 0; k < keys.size(); ++k) keys[k] = hl::depth_key(coc.data[s.index[k]]);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  std::vector<uint32_t> index(order.size());
  s.key.resize(order.size());
  for (size_t k = 0; k < order.size(); ++k) index[k] = s.index[order[k]], s.key[k] = keys[order[k]];
  s.index = std::move(index);
  s.stats.far = uint32_t(std::lower_bound(s.key.begin(), s.key.end(), hl::kNearKey) - s.key.begin());
}

void highlight_mask(const ImageRGBA8& image, const HighlightSprites& s, ImageRGBA8& masked) {
  masked = image;
  for (uint32_t i : s.index) {
    uint8_t* px = masked.data.data() + size_t(i) * 4;
    px[0] = px[1] = px[2] = 0;
  }
}

bool highlight_profiled(const Params& p, const DofMode& mode) {
  return mode.profile && (spread_components(p) || p.cat_eye > 0.f);
}

void highlight_splat(const ImageRGBA8& image, const ImageF& coc, const HighlightSprites& s, const Params& p,
                     std::vector<uint32_t>& planes, const DofMode* mode) {
  const int w = image.width, h = image.height, max_r = shaped_max_radius(p);
  const size_t n = image.pixels();
  planes.assign(n * kHighlightPlanes, 0u);
  const DofMode& m = mode ? *mode : dof_mode_of(p);
  Params shape = p;
  shape.aperture_shape = m.aperture(p);
  const uint16_t* lin = srgb_to_linear12(p.response_shoulder);
  const double clip_boost = highlight_clip_boost(p);
  // One sprite: rows of its aperture's rectangles (turned in front of focus for a picture), each adding its
  // component's mult times the pixel weight (wrapping for a negative mult: the planes are modular).
  const auto splat_sprite = [&](size_t k, const dof::Rect* rects, const dof::SpreadInfo& in) {
    const uint32_t i = s.index[k];
    const int x = int(i % uint32_t(w)), y = int(i / uint32_t(w));
    const bool turn = in.flip && coc.data[i] > 0.f;
    const uint32_t area = hl::profiled_area(rects, in, x, y, w, h, turn);
    const uint8_t* px = image.data.data() + size_t(i) * 4;
    const bool clipped = px[0] == 255 || px[1] == 255 || px[2] == 255;
    uint32_t wt[3];
    for (int c = 0; c < 3; ++c) wt[c] = hl::weight(lin[px[c]], clipped ? clip_boost : 1.0, area);
    uint32_t* out = planes.data() + (s.key[k] < hl::kNearKey ? 0 : 3 * n);
    for (int q = 0; q < in.count; ++q) {
      const uint32_t mult = uint32_t(int(in.mult[hl::component_of(in, q)]));
      const dof::Rect rc = turn ? dof::flipped(rects[q]) : rects[q];
      const int x0 = std::max(x + rc.x0, 0), x1 = std::min(x + rc.x1, w - 1);
      if (x1 < x0) continue;
      for (int yy = std::max(y + rc.y0, 0); yy <= std::min(y + rc.y1, h - 1); ++yy)
        for (int c = 0; c < 3; ++c) {
          const uint32_t v = wt[c] * mult;
          uint32_t* row = out + size_t(c) * n + size_t(yy) * size_t(w);
          row[x0] += v;
          if (x1 + 1 < w) row[x1 + 1] -= v;
        }
    }
  };
  if (highlight_profiled(p, m)) {  // the spread's apertures, components and all
    const SpreadApertures sa = spread_apertures(shape, max_r);
    for (size_t k = 0; k < s.index.size(); ++k) {
      const uint32_t i = s.index[k];
      const int r = dof::shaped_radius(coc.data[i], max_r);
      const int bin = sa.bins > 1 ? dof::cat_eye_bin(int(i % uint32_t(w)), int(i / uint32_t(w)), w, h,
                                                     coc.data[i] > 0.f)
                                  : 0;
      splat_sprite(k, sa.rects_of(bin) + size_t(r) * dof::kMaxSpreadRects, sa.info_of(bin)[r]);
    }
    return;
  }
  const ApertureTable ap = aperture_table(shape, max_r);
  for (size_t k = 0; k < s.index.size(); ++k) {
    const int r = dof::shaped_radius(coc.data[s.index[k]], max_r);
    splat_sprite(k, ap.rects.data() + size_t(r) * dof::kMaxRects, hl::flat_info(ap.counts[size_t(r)], ap.flip_front));
  }
}

void highlight_integrate(const std::vector<uint32_t>& planes, int w, int h, std::vector<uint32_t>& splat) {
  const size_t n = size_t(w) * size_t(h);
  splat.assign(n * kHighlightPlanes, 0u);
  for (int q = 0; q < kHighlightPlanes; ++q)
    for (int y = 0; y < h; ++y) {
      uint32_t acc = 0;
      for (int x = 0; x < w; ++x) {
        const size_t i = size_t(q) * n + size_t(y) * size_t(w) + size_t(x);
        splat[i] = acc += planes[i];
      }
    }
}

void highlight_add(const std::vector<uint32_t>& planes, const ImageF& coc, float shoulder, ImageRGBA8& result,
                   int threads) {
  const int w = result.width, h = result.height;
  const size_t n = result.pixels();
  if (planes.size() != n * kHighlightPlanes || coc.pixels() != n)
    throw Error("highlight_add: planes or CoC map do not match the result");
  const uint16_t* lin = srgb_to_linear12(shoulder);
  const uint8_t* enc = linear12_to_srgb(shoulder);
  parallel_for(
      0, h,
      [&](long y0, long y1) {
        for (long y = y0; y < y1; ++y) {
          uint32_t acc[kHighlightPlanes] = {};
          for (int x = 0; x < w; ++x) {
            const size_t i = size_t(y) * size_t(w) + size_t(x);
            for (int q = 0; q < kHighlightPlanes; ++q) acc[q] += planes[size_t(q) * n + i];
            const bool far_visible = coc.data[i] < 0.f;
            uint8_t* px = result.data.data() + i * 4;
            for (int c = 0; c < 3; ++c)
              px[c] = hl::composite(px[c], acc[3 + c] + (far_visible ? acc[c] : 0u), lin, enc);
          }
        }
      },
      threads);
}

}  // namespace satlab
